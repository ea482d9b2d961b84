/* monolithic: the cut-cell geometry of the solids' boundaries on fluid_mac's
 * grid and the fluid block of Zarifi's coupled projection (Zarifi 2017, sec.
 * 4.4-4.6, 5.1; ../shared/specs/monolithic-sph-fem.md 1.2-1.3). The face
 * fractions come from exact clipping of each face against the closed outlines
 * (not the thesis's nodal-SDF rule of Fig. 5.2), so the faces and patches of
 * every cell close exactly (divergence theorem) and free slip along a planar
 * wall is exact (spec 1.7 M5). 2D and 3D: a 3D face is the 2D problem of the
 * solids' cross-section in its grid plane. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mono.h"
#include "seam/alloc.h"
#include "seam/log.h"

/* ---- 2D sections: oriented segments on a plane grid ---------------------------- */

/* Segments (p0, p1, q0, q1), the solid on the left of p -> q, over a 2D grid
 * of n[0] x n[1] square cells of side dx from origin: the 2D grid itself, or a
 * grid plane of the 3D grid with its in-plane axes. */
typedef struct plane_grid {
    double origin[2];
    double dx;
    int n[2];
} plane_grid;

/* A crossing of the outline with a grid line: where along the line, and +1
 * where walking along the line enters the solid, -1 where it leaves. */
typedef struct xing {
    double c;
    int s;
} xing;

/* floor(v) limited to lo .. hi (v finite), as an int without overflow. */
static int floor_in(double v, int lo, int hi)
{
    double f = floor(v);
    return f < lo ? lo : f > hi ? hi : (int)f;
}

/* Along the line; at one point, entries first: an outline touching the line
 * at a vertex (both its segments cross there) then makes an empty interval,
 * not a negative winding. */
static int xing_cmp(const void *pa, const void *pb)
{
    const xing *a = pa, *b = pb;
    return a->c < b->c ? -1 : a->c > b->c ? 1 : b->s - a->s;
}

/* The crossings of the segments with the line x_a = L (sorted along the other
 * axis t). A segment crosses when its ends lie on different sides, half-open
 * so that an end on the line counts once. With the solid on the left of
 * p -> q, walking along +t enters it when +t points along the left normal
 * (-e_1, e_0): sign(e_0) on a line of constant x_0, -sign(e_1) on one of constant x_1. */
static size_t line_crossings(const double *seg, size_t n_seg, int a, double L, xing *out)
{
    int t = 1 - a;
    size_t n = 0;
    for (size_t e = 0; e < n_seg; e++) {
        const double *p = seg + 4 * e, *q = p + 2;
        if ((p[a] < L) == (q[a] < L))
            continue;
        double ea = q[a] - p[a], s = (L - p[a]) / ea;
        out[n].c = p[t] + s * (q[t] - p[t]);
        out[n].s = (a == 0 ? ea > 0 : ea < 0) ? 1 : -1;
        n++;
    }
    qsort(out, n, sizeof *out, xing_cmp);
    return n;
}

/* Sorted crossings to the intervals inside the solids (winding > 0), as pairs
 * lo, hi in iv (room for n). Returns their number, or -1 when the winding goes
 * negative or does not come back to 0 (an outline with the solid on its
 * right, or not closed). */
static long inside_intervals(const xing *x, size_t n, double *iv)
{
    long ni = 0;
    int w = 0;
    for (size_t k = 0; k < n; k++) {
        int w0 = w;
        w += x[k].s;
        if (w < 0)
            return -1;
        if (w0 == 0 && w > 0)
            iv[2 * ni] = x[k].c;
        else if (w0 > 0 && w == 0) {
            iv[2 * ni + 1] = x[k].c;
            ni++;
        }
    }
    return w == 0 ? ni : -1;
}

/* The length inside the solids of each edge of the plane grid on the line
 * x_a = origin[a] + m dx (pg->n[1 - a] edges, cell units: 0..1). -1 when the
 * outline is not closed or runs clockwise. */
static int line_solid(const double *seg, size_t n_seg, const plane_grid *pg, int a, int m, xing *xs, double *iv,
                      double *solid)
{
    int t = 1 - a, nt = pg->n[t];
    double dx = pg->dx;
    size_t nx = line_crossings(seg, n_seg, a, pg->origin[a] + m * dx, xs);
    long ni = inside_intervals(xs, nx, iv);
    if (ni < 0)
        return -1;
    for (int j = 0; j < nt; j++)
        solid[j] = 0.0;
    for (long q = 0; q < ni; q++) {
        double lo = (iv[2 * q] - pg->origin[t]) / dx, hi = (iv[2 * q + 1] - pg->origin[t]) / dx;
        int j0 = floor_in(lo, 0, nt - 1), j1 = floor_in(hi, 0, nt - 1);
        for (int j = j0; j <= j1; j++)
            solid[j] += fmax(0.0, fmin(hi, j + 1.0) - fmax(lo, (double)j));
    }
    return 0;
}

/* Which cell centres of the plane grid lie inside the solids (inside[c0 + n0 c1]),
 * along the rows of centres. -1 as line_solid. */
static int centres_inside(const double *seg, size_t n_seg, const plane_grid *pg, xing *xs, double *iv,
                          uint8_t *inside)
{
    for (int j = 0; j < pg->n[1]; j++) {
        size_t nx = line_crossings(seg, n_seg, 1, pg->origin[1] + (j + 0.5) * pg->dx, xs);
        long ni = inside_intervals(xs, nx, iv);
        if (ni < 0)
            return -1;
        for (long q = 0; q < ni; q++)
            for (int i = 0; i < pg->n[0]; i++) {
                double xc = pg->origin[0] + (i + 0.5) * pg->dx;
                if (xc > iv[2 * q] && xc < iv[2 * q + 1])
                    inside[(size_t)i + (size_t)pg->n[0] * (size_t)j] = 1;
            }
    }
    return 0;
}

/* One piece of a segment inside one cell of the plane grid: s0 .. s1 along it. */
typedef struct piece {
    size_t seg;
    int c[2];
    double s0, s1;
} piece;

typedef struct pieces {
    piece *p;
    size_t n, cap;
    double *ts;
    size_t tcap;
} pieces;

static void pieces_free(pieces *P)
{
    free(P->p);
    free(P->ts);
    memset(P, 0, sizeof *P);
}

static int dbl_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* Each segment cut at the grid lines it crosses; pieces outside the grid and
 * pieces shorter than 1e-12 dx are left out. P is reset, its storage reused. */
static void clip_pieces(const double *seg, size_t n_seg, const plane_grid *pg, pieces *P)
{
    double dx = pg->dx;
    P->n = 0;
    for (size_t e = 0; e < n_seg; e++) {
        const double *p = seg + 4 * e, *q = p + 2;
        double ev[2] = {q[0] - p[0], q[1] - p[1]};
        double len = hypot(ev[0], ev[1]);
        if (!(len > 0.0))
            continue;
        size_t nt = 0, need = 2;
        double lo[2], hi[2];
        for (int a = 0; a < 2; a++) {
            /* grid lines beyond the grid make no pieces inside it */
            lo[a] = fmax(-1.0, (fmin(p[a], q[a]) - pg->origin[a]) / dx);
            hi[a] = fmin(pg->n[a] + 1.0, (fmax(p[a], q[a]) - pg->origin[a]) / dx);
            need += (size_t)(fmax(0.0, floor(hi[a]) - ceil(lo[a])) + 1.0);
        }
        if (need > P->tcap) {
            P->ts = seam_xrealloc_n(P->ts, P->tcap = 2 * need, sizeof *P->ts);
        }
        double *ts = P->ts;
        for (int a = 0; a < 2; a++)
            if (ev[a] != 0.0)
                for (double m = ceil(lo[a]); m <= hi[a]; m++) {
                    double s = (pg->origin[a] + m * dx - p[a]) / ev[a];
                    if (s > 0.0 && s < 1.0)
                        ts[nt++] = s;
                }
        ts[nt++] = 0.0;
        ts[nt++] = 1.0;
        qsort(ts, nt, sizeof *ts, dbl_cmp);
        for (size_t k = 0; k + 1 < nt; k++) {
            double s0 = ts[k], s1 = ts[k + 1];
            if (!((s1 - s0) * len > 1e-12 * dx))
                continue;
            double sm = 0.5 * (s0 + s1);
            int c[2], outside = 0;
            for (int a = 0; a < 2; a++) {
                double f = floor((p[a] + sm * ev[a] - pg->origin[a]) / dx);
                outside |= !(f >= 0.0 && f < pg->n[a]);
                c[a] = outside ? 0 : (int)f;
            }
            if (outside)
                continue;
            if (P->n == P->cap) {
                P->p = seam_xrealloc_n(P->p, P->cap = 2 * P->cap + 64, sizeof *P->p);
            }
            P->p[P->n++] = (piece){e, {c[0], c[1]}, s0, s1};
        }
    }
}

/* Scratch of the section routines, sized for up to n segments. */
typedef struct section_work {
    double *seg;             /* 4 per segment */
    xing *xs;
    double *iv;
    double *solid;           /* per edge of one grid line */
    pieces P;
} section_work;

static void section_work_init(section_work *w, size_t n_seg, int n_line)
{
    memset(w, 0, sizeof *w);
    w->seg = seam_xmalloc_n(4 * n_seg + 4, sizeof *w->seg);
    w->xs = seam_xmalloc_n(n_seg + 1, sizeof *w->xs);
    w->iv = seam_xmalloc_n(n_seg + 1, sizeof *w->iv);
    w->solid = seam_xmalloc_n((size_t)n_line + 1, sizeof *w->solid);
}

static void section_work_free(section_work *w)
{
    free(w->seg);
    free(w->xs);
    free(w->iv);
    free(w->solid);
    pieces_free(&w->P);
}

/* ---- the solids' boundaries ----------------------------------------------------- */

static const double *node_x(const mono_boundary *b, int32_t node) { return b->x + (size_t)node * (size_t)b->dim; }

static const char *const axis_name[3] = {"x", "y", "z"};

static seam_status check_boundary(const mac_grid *g, const mono_boundary *b, const seam_host *host)
{
    if (b->dim != g->dim || (g->dim != 2 && g->dim != 3)) {
        seam_logf(host, SEAM_LOG_ERROR, "monolithic: cut cells: the solids' boundary is %dD but the grid is %dD",
                  b->dim, g->dim);
        return SEAM_ERROR;
    }
    for (size_t e = 0; e < b->n_elems; e++)
        for (int k = 0; k < b->dim; k++) {
            int32_t v = b->elem[(size_t)b->dim * e + (size_t)k];
            if (v < 0 || (size_t)v >= b->n_nodes) {
                seam_logf(host, SEAM_LOG_ERROR, "monolithic: cut cells: boundary element %zu refers to node %d, "
                          "but there are %zu nodes", e, (int)v, b->n_nodes);
                return SEAM_ERROR;
            }
        }
    for (size_t v = 0; v < b->n_nodes * (size_t)b->dim; v++)
        if (!isfinite(b->x[v])) {
            seam_logf(host, SEAM_LOG_ERROR, "monolithic: cut cells: boundary node %zu has a non-finite position "
                      "(component %zu is %g)", v / (size_t)b->dim, v % (size_t)b->dim, b->x[v]);
            return SEAM_ERROR;
        }
    if (g->dim == 3)
        return SEAM_OK;   /* closed and outward: checked on every section (windings) */
    /* 2D: every node is left as often as it is entered. */
    int *deg = SEAM_NEW_N(int, b->n_nodes ? b->n_nodes : 1);
    for (size_t e = 0; e < b->n_elems; e++) {
        deg[b->elem[2 * e]]++;
        deg[b->elem[2 * e + 1]]--;
    }
    for (size_t v = 0; v < b->n_nodes; v++)
        if (deg[v] != 0) {
            const double *x = node_x(b, (int32_t)v);
            seam_logf(host, SEAM_LOG_ERROR, "monolithic: cut cells: the solids' outline is not closed at node %zu "
                      "(%g, %g): it starts %d more segments there than it ends; the cut cells need closed "
                      "outlines (volumetric bodies, not shells or cloth)", v, x[0], x[1], deg[v]);
            free(deg);
            return SEAM_ERROR;
        }
    free(deg);
    return SEAM_OK;
}

static void winding_error(const mono_boundary *b, int a, double L, const seam_host *host)
{
    seam_logf(host, SEAM_LOG_ERROR, "monolithic: cut cells: on the grid %s %s = %g the solids' boundary leaves a "
              "solid it never entered: the boundary must be closed and run with the solid on its left "
              "(segments counter-clockwise around a body) or be oriented outward (triangles, right-hand rule)",
              b->dim == 2 ? "line" : "plane", axis_name[a], L);
}

/* The 2D outline as segments. */
static void segments_2d(const mono_boundary *b, double *seg)
{
    for (size_t e = 0; e < b->n_elems; e++)
        for (int k = 0; k < 2; k++)
            memcpy(seg + 4 * e + 2 * k, node_x(b, b->elem[2 * e + (size_t)k]), 2 * sizeof *seg);
}

/* Where the edge (u, v) of the 3D boundary crosses x_a = L, in the plane's
 * coordinates (t1, t2): worked out from the lower node first, so that both
 * triangles of the edge get the same point to the last bit. */
static void edge_point(const mono_boundary *b, int32_t u, int32_t v, int a, double L, double *out)
{
    if (v < u) {
        int32_t t = u;
        u = v;
        v = t;
    }
    const double *p = node_x(b, u), *q = node_x(b, v);
    int t1 = (a + 1) % 3, t2 = (a + 2) % 3;
    if (q[a] == L) {
        out[0] = q[t1], out[1] = q[t2];
        return;
    }
    double s = p[a] == L ? 0.0 : (L - p[a]) / (q[a] - p[a]);
    out[0] = p[t1] + s * (q[t1] - p[t1]);
    out[1] = p[t2] + s * (q[t2] - p[t2]);
}

/* The cross-section of the 3D boundary with the plane x_a = L as 2D segments
 * in (x_t1, x_t2), t1 = a + 1, t2 = a + 2 (mod 3), so that (a, t1, t2) is
 * right-handed: the solid lies on the left of each segment when the triangle's
 * outward normal N projects on the plane as the segment's right normal, i.e.
 * the segment runs along e_a x N. A node counts as on the high side when on
 * the plane, as in line_crossings. */
static size_t section_3d(const mono_boundary *b, int a, double L, double *seg)
{
    int t1 = (a + 1) % 3, t2 = (a + 2) % 3;
    size_t n = 0;
    for (size_t e = 0; e < b->n_elems; e++) {
        const int32_t *tri = b->elem + 3 * e;
        int below[3], nb = 0;
        for (int k = 0; k < 3; k++)
            nb += below[k] = node_x(b, tri[k])[a] < L;
        if (nb == 0 || nb == 3)
            continue;
        double pt[2][2];
        int m = 0;
        for (int k = 0; k < 3; k++)
            if (below[k] != below[(k + 1) % 3])
                edge_point(b, tri[k], tri[(k + 1) % 3], a, L, pt[m++]);
        const double *x0 = node_x(b, tri[0]), *x1 = node_x(b, tri[1]), *x2 = node_x(b, tri[2]);
        double e1[3], e2[3], N[3];
        for (int d = 0; d < 3; d++)
            e1[d] = x1[d] - x0[d], e2[d] = x2[d] - x0[d];
        N[0] = e1[1] * e2[2] - e1[2] * e2[1];
        N[1] = e1[2] * e2[0] - e1[0] * e2[2];
        N[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double dir[2] = {-N[t2], N[t1]};   /* e_a x N in (t1, t2) */
        double along = (pt[1][0] - pt[0][0]) * dir[0] + (pt[1][1] - pt[0][1]) * dir[1];
        int first = along >= 0.0 ? 0 : 1;
        memcpy(seg + 4 * n, pt[first], 2 * sizeof *seg);
        memcpy(seg + 4 * n + 2, pt[1 - first], 2 * sizeof *seg);
        n++;
    }
    return n;
}

/* The plane grid of the faces normal to axis a (a = dim - 1 .. in 2D: the grid). */
static plane_grid plane_of(const mac_grid *g, int a)
{
    int t1 = (a + 1) % 3, t2 = (a + 2) % 3;
    plane_grid pg = {{g->origin[t1], g->origin[t2]}, g->dx, {mac_n(g, t1), mac_n(g, t2)}};
    return pg;
}

static double threshold(double f) { return f < 0.01 ? 0.0 : f > 0.99 ? 1.0 : f; }   /* sec. 4.6 */

/* 2D: the open fraction of every face and the cells with their centre inside. */
static int fractions_2d(mono_cut *cut, const mac_grid *g, const mono_boundary *b, section_work *w,
                        const seam_host *host)
{
    plane_grid pg = {{g->origin[0], g->origin[1]}, g->dx, {g->nx, g->ny}};
    segments_2d(b, w->seg);
    for (int a = 0; a < 2; a++)
        for (int m = 0; m <= mac_n(g, a); m++) {
            if (line_solid(w->seg, b->n_elems, &pg, a, m, w->xs, w->iv, w->solid) < 0) {
                winding_error(b, a, g->origin[a] + m * g->dx, host);
                return -1;
            }
            for (int j = 0; j < mac_n(g, 1 - a); j++)
                cut->open[a][a == 0 ? mac_fi(g, 0, m, j, 0) : mac_fi(g, 1, j, m, 0)] = threshold(1.0 - w->solid[j]);
        }
    if (centres_inside(w->seg, b->n_elems, &pg, w->xs, w->iv, cut->inside) < 0) {
        winding_error(b, 1, g->origin[1], host);
        return -1;
    }
    return 0;
}

/* 3D: each face is a cell of its grid plane's section. The solid area of a
 * plane cell follows from the divergence theorem with the field (x_t1, 0):
 * dx * (its length on the cell's high t1 edge) + sum over the section pieces
 * in it of (x_t1 - the cell's low t1) times the piece's rise in x_t2. */
static int fractions_3d(mono_cut *cut, const mac_grid *g, const mono_boundary *b, section_work *w,
                        const seam_host *host)
{
    double dx = g->dx;
    for (int a = 0; a < 3; a++) {
        plane_grid pg = plane_of(g, a);
        int t1 = (a + 1) % 3, t2 = (a + 2) % 3;
        size_t n2 = (size_t)pg.n[0] * (size_t)pg.n[1];
        double *area = seam_xmalloc_n(n2, sizeof *area);
        for (int m = 0; m <= mac_n(g, a); m++) {
            double L = g->origin[a] + m * dx;
            size_t ns = section_3d(b, a, L, w->seg);
            for (size_t c = 0; c < n2; c++)
                area[c] = 0.0;
            int bad = 0;
            for (int i1 = 1; i1 <= pg.n[0] && !bad; i1++) {
                bad = line_solid(w->seg, ns, &pg, 0, i1, w->xs, w->iv, w->solid) < 0;
                for (int i2 = 0; i2 < pg.n[1] && !bad; i2++)
                    area[(size_t)(i1 - 1) + (size_t)pg.n[0] * (size_t)i2] += w->solid[i2] * dx * dx;
            }
            if (bad) {
                winding_error(b, a, L, host);
                free(area);
                return -1;
            }
            clip_pieces(w->seg, ns, &pg, &w->P);
            for (size_t k = 0; k < w->P.n; k++) {
                const piece *pc = &w->P.p[k];
                const double *p = w->seg + 4 * pc->seg, *q = p + 2;
                double sm = 0.5 * (pc->s0 + pc->s1);
                double xc = p[0] + sm * (q[0] - p[0]) - (pg.origin[0] + pc->c[0] * dx);
                area[(size_t)pc->c[0] + (size_t)pg.n[0] * (size_t)pc->c[1]] += xc * (pc->s1 - pc->s0) * (q[1] - p[1]);
            }
            for (int i2 = 0; i2 < pg.n[1]; i2++)
                for (int i1 = 0; i1 < pg.n[0]; i1++) {
                    int ijk[3];
                    ijk[a] = m, ijk[t1] = i1, ijk[t2] = i2;
                    double f = 1.0 - area[(size_t)i1 + (size_t)pg.n[0] * (size_t)i2] / (dx * dx);
                    cut->open[a][mac_fi(g, a, ijk[0], ijk[1], ijk[2])] = threshold(f);
                }
        }
        free(area);
    }
    /* Cell centres inside: the sections through the layers of centres. */
    plane_grid pg = plane_of(g, 2);
    size_t nl = (size_t)g->nx * (size_t)g->ny;
    for (int k = 0; k < g->nz; k++) {
        double L = g->origin[2] + (k + 0.5) * dx;
        size_t ns = section_3d(b, 2, L, w->seg);
        if (centres_inside(w->seg, ns, &pg, w->xs, w->iv, cut->inside + nl * (size_t)k) < 0) {
            winding_error(b, 2, L, host);
            return -1;
        }
    }
    return 0;
}

static void push_patch(mono_cut *cut, size_t *cap, const mono_patch *pa)
{
    if (cut->n_patches == *cap)
        cut->patches = seam_xrealloc_n(cut->patches, *cap = 2 * *cap + 64, sizeof *cut->patches);
    cut->patches[cut->n_patches++] = *pa;
}

/* 2D patches: the pieces of each segment in the cells, normal = the left
 * normal (into the solid), weights of the piece's midpoint (sec. 5.1.1). */
static void patches_2d(mono_cut *cut, const mac_grid *g, const mono_boundary *b, section_work *w)
{
    plane_grid pg = {{g->origin[0], g->origin[1]}, g->dx, {g->nx, g->ny}};
    size_t cap = 0;
    clip_pieces(w->seg, b->n_elems, &pg, &w->P);
    for (size_t k = 0; k < w->P.n; k++) {
        const piece *pc = &w->P.p[k];
        const double *p = w->seg + 4 * pc->seg, *q = p + 2;
        double ev[2] = {q[0] - p[0], q[1] - p[1]}, len = hypot(ev[0], ev[1]), sm = 0.5 * (pc->s0 + pc->s1);
        mono_patch pa = {mac_c(g, pc->c[0], pc->c[1], 0), (pc->s1 - pc->s0) * len, {-ev[1] / len, ev[0] / len, 0.0},
                         pc->seg, {1.0 - sm, sm, 0.0}};
        push_patch(cut, &cap, &pa);
    }
}

/* Sutherland-Hodgman: the part of polygon in (n points) with x_a >= L (side
 * +1) or x_a <= L (side -1), into out; returns its points. */
static int clip_half(const double (*in)[3], int n, int a, double L, int side, double (*out)[3])
{
    int m = 0;
    for (int k = 0; k < n; k++) {
        const double *p = in[k], *q = in[(k + 1) % n];
        double dp = side * (p[a] - L), dq = side * (q[a] - L);
        if (dp >= 0.0)
            memcpy(out[m++], p, 3 * sizeof *p);
        if ((dp >= 0.0) != (dq >= 0.0)) {
            double s = dp / (dp - dq);
            for (int d = 0; d < 3; d++)
                out[m][d] = p[d] + s * (q[d] - p[d]);
            out[m][a] = L;
            m++;
        }
    }
    return m;
}

/* 3D patches: each triangle clipped against every cell its box overlaps;
 * area and centroid of each piece by a fan, the weights of the centroid in
 * the triangle, normal = -N/|N| (into the solid) (sec. 5.1.1). */
static void patches_3d(mono_cut *cut, const mac_grid *g, const mono_boundary *b)
{
    size_t cap = 0;
    double dx = g->dx;
    for (size_t e = 0; e < b->n_elems; e++) {
        const int32_t *tri = b->elem + 3 * e;
        const double *x[3] = {node_x(b, tri[0]), node_x(b, tri[1]), node_x(b, tri[2])};
        double e1[3], e2[3], N[3];
        for (int d = 0; d < 3; d++)
            e1[d] = x[1][d] - x[0][d], e2[d] = x[2][d] - x[0][d];
        N[0] = e1[1] * e2[2] - e1[2] * e2[1];
        N[1] = e1[2] * e2[0] - e1[0] * e2[2];
        N[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double NN = N[0] * N[0] + N[1] * N[1] + N[2] * N[2];
        if (!(NN > 0.0))
            continue;
        /* The cells the triangle's box overlaps; a triangle lying in a grid
         * plane falls in the cell above it (floor), as a 2D segment does. */
        int lo[3], hi[3];
        for (int d = 0; d < 3; d++) {
            double mn = fmin(x[0][d], fmin(x[1][d], x[2][d])), mx = fmax(x[0][d], fmax(x[1][d], x[2][d]));
            lo[d] = floor_in((mn - g->origin[d]) / dx, 0, mac_n(g, d) - 1);
            hi[d] = floor_in((mx - g->origin[d]) / dx, 0, mac_n(g, d) - 1);
        }
        for (int k = lo[2]; k <= hi[2]; k++)
            for (int j = lo[1]; j <= hi[1]; j++)
                for (int i = lo[0]; i <= hi[0]; i++) {
                    double buf[2][9][3];
                    int n = 3, cur = 0;
                    for (int v = 0; v < 3; v++)
                        memcpy(buf[0][v], x[v], 3 * sizeof(double));
                    int ijk[3] = {i, j, k};
                    for (int d = 0; d < 3 && n > 0; d++)
                        for (int side = 0; side < 2 && n > 0; side++) {
                            double L = g->origin[d] + (ijk[d] + side) * dx;
                            n = clip_half((const double(*)[3])buf[cur], n, d, L, side ? -1 : 1, buf[1 - cur]);
                            cur = 1 - cur;
                        }
                    if (n < 3)
                        continue;
                    const double(*P)[3] = (const double(*)[3])buf[cur];
                    /* Fan from point 0: twice the area along N, and the centroid. */
                    double A2 = 0.0, c[3] = {0.0, 0.0, 0.0};
                    for (int v = 1; v + 1 < n; v++) {
                        double f1[3], f2[3];
                        for (int d = 0; d < 3; d++)
                            f1[d] = P[v][d] - P[0][d], f2[d] = P[v + 1][d] - P[0][d];
                        double tA = ((f1[1] * f2[2] - f1[2] * f2[1]) * N[0] + (f1[2] * f2[0] - f1[0] * f2[2]) * N[1] +
                                     (f1[0] * f2[1] - f1[1] * f2[0]) * N[2]) / sqrt(NN);
                        A2 += tA;
                        for (int d = 0; d < 3; d++)
                            c[d] += tA * (P[0][d] + P[v][d] + P[v + 1][d]) / 3.0;
                    }
                    if (!(0.5 * A2 > 1e-12 * dx * dx))
                        continue;
                    for (int d = 0; d < 3; d++)
                        c[d] /= A2;
                    mono_patch pa = {mac_c(g, i, j, k), 0.5 * A2, {-N[0] / sqrt(NN), -N[1] / sqrt(NN), -N[2] / sqrt(NN)},
                                     e, {0.0, 0.0, 0.0}};
                    /* Barycentric weights: the signed areas opposite each node over the whole. */
                    for (int v = 0; v < 3; v++) {
                        const double *p = x[(v + 1) % 3], *q = x[(v + 2) % 3];
                        double f1[3], f2[3];
                        for (int d = 0; d < 3; d++)
                            f1[d] = p[d] - c[d], f2[d] = q[d] - c[d];
                        pa.w[v] = ((f1[1] * f2[2] - f1[2] * f2[1]) * N[0] + (f1[2] * f2[0] - f1[0] * f2[2]) * N[1] +
                                   (f1[0] * f2[1] - f1[1] * f2[0]) * N[2]) / NN;
                    }
                    push_patch(cut, &cap, &pa);
                }
    }
}

seam_status mono_cut_build(mono_cut *cut, const mac_grid *g, const mono_boundary *b, const seam_host *host)
{
    memset(cut, 0, sizeof *cut);
    if (check_boundary(g, b, host) != SEAM_OK)
        return SEAM_ERROR;
    cut->inside = seam_xcalloc(mac_ncell(g), 1);
    for (int a = 0; a < g->dim; a++)
        cut->open[a] = seam_xmalloc_n(mac_nf(g, a), sizeof *cut->open[a]);
    int n_line = g->nx > g->ny ? g->nx : g->ny;
    n_line = n_line > g->nz ? n_line : g->nz;
    section_work w;
    section_work_init(&w, b->n_elems, n_line);
    int ok;
    if (g->dim == 2) {
        ok = fractions_2d(cut, g, b, &w, host) == 0;
        if (ok)
            patches_2d(cut, g, b, &w);
    } else {
        ok = fractions_3d(cut, g, b, &w, host) == 0;
        if (ok)
            patches_3d(cut, g, b);
    }
    section_work_free(&w);
    if (!ok) {
        mono_cut_free(cut);
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

void mono_cut_obstacles(mono_cut *cut, const mac_grid *g, const uint8_t *obstacle)
{
    if (!obstacle)
        return;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = mac_c(g, i, j, k);
                if (!obstacle[c])
                    continue;
                cut->inside[c] = 1;
                for (int a = 0; a < g->dim; a++) {
                    cut->open[a][mac_fi(g, a, i, j, k)] = 0.0;
                    cut->open[a][mac_fi(g, a, i + (a == 0), j + (a == 1), k + (a == 2))] = 0.0;
                }
            }
}

void mono_cut_free(mono_cut *cut)
{
    for (int a = 0; a < 3; a++)
        free(cut->open[a]);
    free(cut->inside);
    free(cut->patches);
    memset(cut, 0, sizeof *cut);
}

/* ---- the fluid block ---------------------------------------------------------- */

/* fluid_mac's view of this step for mac_face: no voxel solids (the cut cells
 * stand for them), air where phi >= 0, the ghost-fluid theta from phi. */
typedef struct liquid_view {
    mac_geometry geo;
    uint8_t *none;
} liquid_view;

static void liquid_view_init(liquid_view *lv, const mac_grid *g, const double *phi)
{
    size_t nc = mac_ncell(g);
    memset(lv, 0, sizeof *lv);
    lv->none = seam_xcalloc(nc, 1);
    lv->geo.air = seam_xmalloc(nc);
    for (size_t c = 0; c < nc; c++)
        lv->geo.air[c] = !(phi[c] < 0.0);
    lv->geo.solid = lv->none;
    lv->geo.phi = phi;
}

static void liquid_view_free(liquid_view *lv)
{
    free(lv->none);
    free(lv->geo.air);
}

/* Face (axis, i, j, k) and the cells on its sides (-1 beyond the domain). */
typedef struct face_ref {
    size_t f;
    long lo, hi;
} face_ref;

static face_ref face_at(const mac_grid *g, int axis, int i, int j, int k)
{
    int m = axis == 0 ? i : axis == 1 ? j : k;
    face_ref r = {mac_fi(g, axis, i, j, k), -1, -1};
    if (m > 0)
        r.lo = (long)mac_c(g, i - (axis == 0), j - (axis == 1), k - (axis == 2));
    if (m < mac_n(g, axis))
        r.hi = (long)mac_c(g, i, j, k);
    return r;
}

/* A face on a side of the domain that is a wall. */
static int is_wall(const mac_grid *g, int axis, const face_ref *r)
{
    return (r->lo < 0 || r->hi < 0) && g->bc[2 * axis + (r->hi < 0)] == BC_WALL;
}

/* Iterate over every face of every axis. */
#define FOR_FACES(g, axis, i, j, k)                                          \
    for (int axis = 0; axis < (g)->dim; axis++)                              \
        for (int k = 0; k < (g)->nz + (axis == 2); k++)                      \
            for (int j = 0; j < (g)->ny + (axis == 1); j++)                  \
                for (int i = 0; i < (g)->nx + (axis == 0); i++)

/* The row a patch's flux goes to: its cell's, or, in a liquid cell whose
 * faces the thresholds all closed (a sliver of fluid, sec. 4.6), the active
 * cell of the 3 x 3 block around it whose centre is nearest the patch's
 * centroid, so that no flux of a body in the liquid is lost; -1 in air. */
static long patch_row(const mono_fluid *F, const mac_grid *g, const mono_boundary *b, const double *phi,
                      const mono_patch *pa)
{
    if (F->index[pa->cell] >= 0 || !(phi[pa->cell] < 0.0))
        return F->index[pa->cell];
    int dim = g->dim;
    double xc[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < dim; k++)
        for (int d = 0; d < dim; d++)
            xc[d] += pa->w[k] * node_x(b, b->elem[(size_t)dim * pa->elem + (size_t)k])[d];
    int c[3] = {(int)(pa->cell % (size_t)g->nx), (int)(pa->cell / (size_t)g->nx % (size_t)g->ny),
                (int)(pa->cell / ((size_t)g->nx * (size_t)g->ny))};
    long best = -1;
    double best_d2 = INFINITY;
    for (int kk = c[2] - (dim == 3); kk <= c[2] + (dim == 3); kk++)
        for (int jj = c[1] - 1; jj <= c[1] + 1; jj++)
            for (int ii = c[0] - 1; ii <= c[0] + 1; ii++) {
                if (ii < 0 || jj < 0 || kk < 0 || ii >= g->nx || jj >= g->ny || kk >= g->nz ||
                    F->index[mac_c(g, ii, jj, kk)] < 0)
                    continue;
                int q[3] = {ii, jj, kk};
                double d2 = 0.0;
                for (int d = 0; d < dim; d++)
                    d2 += pow(g->origin[d] + (q[d] + 0.5) * g->dx - xc[d], 2);
                if (d2 < best_d2) {
                    best_d2 = d2;
                    best = F->index[mac_c(g, ii, jj, kk)];
                }
            }
    return best;
}

/* B (4.38-4.44) row by row, straight into CSR (a (2 dim + 1)-point stencil
 * per row), and E u* (4.39) with it. Per face f of the row's cell, with
 * A_f = open_f x the face area: an active face adds (dt/rho) A_f/dx to the
 * diagonal and takes it from the neighbour's column; a ghost-fluid face adds
 * (dt/rho) A_f/(theta dx) to the diagonal; E u* gets - s_f A_f u*_f. */
static seam_csr *assemble_B(mono_fluid *F, const mac_grid *g, const mono_cut *cut, const liquid_view *lv,
                            double *const u_star[3], double *const u_wall[3], double coef)
{
    int dim = g->dim;
    size_t per = 2 * (size_t)dim + 1, n = F->n;
    seam_csr *B = SEAM_NEW(seam_csr);
    B->rows = B->cols = n;
    B->row_ptr = seam_xmalloc_n(n + 1, sizeof *B->row_ptr);
    B->col = seam_xmalloc_n(per * n + 1, sizeof *B->col);
    B->val = seam_xmalloc_n(per * n + 1, sizeof *B->val);
    double area = mac_face_area(g);
    size_t nnz = 0;
    for (size_t r = 0; r < n; r++) {
        size_t c = (size_t)F->cell[r];
        int ijk[3] = {(int)(c % (size_t)g->nx), (int)(c / (size_t)g->nx % (size_t)g->ny),
                      (int)(c / ((size_t)g->nx * (size_t)g->ny))};
        int64_t col[7];
        double val[7];
        int m = 1;
        col[0] = (int64_t)r;
        val[0] = 0.0;
        for (int axis = 0; axis < dim; axis++)
            for (int side = 0; side < 2; side++) {
                int f3[3] = {ijk[0], ijk[1], ijk[2]};
                f3[axis] += side;
                face_ref fr = face_at(g, axis, f3[0], f3[1], f3[2]);
                double A = area * cut->open[axis][fr.f], theta;
                if (!(A > 0.0))
                    continue;
                if (is_wall(g, axis, &fr)) {   /* a prescribed flux: a source's inflow, or none */
                    if (u_wall)
                        F->Eu[r] += (side ? -1.0 : 1.0) * A * u_wall[axis][fr.f];
                    continue;
                }
                face_kind fk = mac_face(g, &lv->geo, axis, f3[0], f3[1], f3[2], &theta);
                if (fk != FACE_ACTIVE && fk != FACE_DIRICHLET)
                    continue;   /* walls carry nothing */
                F->Eu[r] += (side ? -1.0 : 1.0) * A * u_star[axis][fr.f];
                if (fk == FACE_DIRICHLET) {
                    val[0] += coef * A / theta;
                    continue;
                }
                long nb = F->index[side ? fr.hi : fr.lo];   /* liquid across an open face: active */
                val[0] += coef * A;
                col[m] = nb;
                val[m++] = -coef * A;
            }
        for (int a = 1; a < m; a++)   /* sort the row by column */
            for (int q = a; q > 0 && col[q - 1] > col[q]; q--) {
                int64_t tc = col[q];
                double tv = val[q];
                col[q] = col[q - 1], val[q] = val[q - 1];
                col[q - 1] = tc, val[q - 1] = tv;
            }
        B->row_ptr[r] = (int64_t)nnz;
        memcpy(B->col + nnz, col, (size_t)m * sizeof *col);
        memcpy(B->val + nnz, val, (size_t)m * sizeof *val);
        nnz += (size_t)m;
    }
    B->row_ptr[n] = (int64_t)nnz;
    B->nnz = nnz;
    return B;
}

seam_status mono_fluid_build(mono_fluid *F, const mac_grid *g, const mono_cut *cut, const mono_boundary *b,
                             const double *phi, double *const u_star[3], double *const u_wall[3], double rho,
                             double dt, const seam_host *host)
{
    memset(F, 0, sizeof *F);
    size_t nc = mac_ncell(g);
    if (b->dim != g->dim) {
        seam_logf(host, SEAM_LOG_ERROR, "monolithic: fluid block: the solids' boundary is %dD but the grid is %dD",
                  b->dim, g->dim);
        return SEAM_ERROR;
    }
    liquid_view lv;
    F->index = seam_xmalloc_n(nc, sizeof *F->index);
    F->cell = seam_xmalloc_n(nc ? nc : 1, sizeof *F->cell);
    liquid_view_init(&lv, g, phi);
    /* Active cells (sec. 4.6): liquid by phi (extended into the solids) with
     * an open face that is not a domain wall: some fluid that can exchange
     * with its neighbours (and a row of B with a positive diagonal). */
    uint8_t *open_face = seam_xcalloc(nc, 1);
    FOR_FACES(g, axis, i, j, k) {
        face_ref r = face_at(g, axis, i, j, k);
        if (cut->open[axis][r.f] > 0.0 && !is_wall(g, axis, &r)) {
            if (r.lo >= 0)
                open_face[r.lo] = 1;
            if (r.hi >= 0)
                open_face[r.hi] = 1;
        }
    }
    for (size_t c = 0; c < nc; c++) {
        F->index[c] = -1;
        if (phi[c] < 0.0 && open_face[c]) {
            F->cell[F->n] = (int32_t)c;
            F->index[c] = (int32_t)F->n++;
        }
    }
    free(open_face);
    F->grid = *g;
    F->closed = seam_xmalloc(nc ? nc : 1);
    for (size_t c = 0; c < nc; c++)
        F->closed[c] = F->index[c] < 0 && (phi[c] < 0.0 || cut->inside[c]);
    F->Eu = SEAM_NEW_N(double, F->n ? F->n : 1);
    seam_triplets *tg = seam_triplets_new(F->n, (size_t)g->dim * b->n_nodes,
                                         (size_t)(g->dim * g->dim) * cut->n_patches + 1);
    F->B = tg ? assemble_B(F, g, cut, &lv, u_star, u_wall, dt / rho / g->dx) : NULL;
    if (!F->B) {
        seam_triplets_destroy(&tg);
        liquid_view_free(&lv);
        mono_fluid_free(F);
        return SEAM_ERROR;
    }
    liquid_view_free(&lv);
    /* N^T C (5.7-5.10): each patch's area-weighted normal spread on its element's nodes. */
    for (size_t q = 0; q < cut->n_patches; q++) {
        const mono_patch *pa = &cut->patches[q];
        long row = patch_row(F, g, b, phi, pa);
        if (row < 0)
            continue;
        for (int k = 0; k < b->dim; k++) {
            size_t node = (size_t)b->elem[pa->elem * (size_t)b->dim + (size_t)k];
            for (int d = 0; d < b->dim; d++)
                seam_triplets_add(tg, (size_t)row, node * (size_t)b->dim + (size_t)d, pa->area * pa->w[k] * pa->n[d]);
        }
    }
    F->G = seam_csr_from_triplets(tg);
    seam_triplets_destroy(&tg);
    if (!F->G) {
        mono_fluid_free(F);
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

void mono_fluid_free(mono_fluid *F)
{
    free(F->index);
    free(F->cell);
    free(F->closed);
    free(F->Eu);
    seam_csr_destroy(&F->B);
    seam_csr_destroy(&F->G);
    memset(F, 0, sizeof *F);
}

void mono_fluid_update(const mono_fluid *F, const mac_grid *g, const mono_cut *cut, const double *phi,
                       const double *p, double *const u_wall[3], double rho, double dt, double *const u[3])
{
    liquid_view lv;
    liquid_view_init(&lv, g, phi);
    FOR_FACES(g, axis, i, j, k) {
        face_ref r = face_at(g, axis, i, j, k);
        double theta;
        face_kind fk = mac_face(g, &lv.geo, axis, i, j, k, &theta);
        if (is_wall(g, axis, &r)) {
            u[axis][r.f] = u_wall ? u_wall[axis][r.f] : 0.0;   /* a domain wall: at rest, or a source's inflow */
            continue;
        }
        if (!(cut->open[axis][r.f] > 0.0) || (fk != FACE_ACTIVE && fk != FACE_DIRICHLET))
            continue;
        /* Pressures on both sides: an inactive side is air (p = 0, ghost fluid) or beyond an open side. */
        long rlo = r.lo >= 0 ? F->index[r.lo] : -1, rhi = r.hi >= 0 ? F->index[r.hi] : -1;
        double plo = rlo >= 0 ? p[rlo] : 0.0, phi_ = rhi >= 0 ? p[rhi] : 0.0;
        if (rlo < 0 && rhi < 0)
            continue;
        /* u = u* - (dt/rho) grad p (5.4), the gradient over theta dx at the free surface (4.43). */
        u[axis][r.f] -= dt / rho * (phi_ - plo) / (theta * g->dx);
    }
    liquid_view_free(&lv);
}

/* ---- extrapolation ------------------------------------------------------------ */

/* Whether a face holds a velocity of this step: a domain wall (closed, 0), or
 * open with liquid on at least one side. */
static int face_valid(const mac_grid *g, const mono_cut *cut, const double *phi, int axis, int i, int j, int k)
{
    face_ref r = face_at(g, axis, i, j, k);
    if (is_wall(g, axis, &r))
        return 1;
    if (!(cut->open[axis][r.f] > 0.0))
        return 0;
    return (r.lo >= 0 && phi[r.lo] < 0.0) || (r.hi >= 0 && phi[r.hi] < 0.0);
}

/* The solid's normal near face (axis, ijk): the area-weighted patch normals
 * (nsum, dim per cell) of the cells within r cells of the face, for the
 * smallest r up to `reach` that has any, normalised; 0 when none. */
static void normal_near(const mac_grid *g, const double *nsum, int axis, const int *ijk, int reach, double *n)
{
    int dim = g->dim;
    n[0] = n[1] = n[2] = 0.0;
    for (int r = 1; r <= reach; r++) {
        /* The cells the triangle's box overlaps; a triangle lying in a grid
         * plane falls in the cell above it (floor), as a 2D segment does. */
        int lo[3], hi[3];
        for (int d = 0; d < 3; d++) {
            lo[d] = d < dim ? ijk[d] - r : 0;
            hi[d] = d < dim ? ijk[d] + r - (d == axis) : 0;
            lo[d] = lo[d] < 0 ? 0 : lo[d];
            hi[d] = hi[d] > mac_n(g, d) - 1 ? mac_n(g, d) - 1 : hi[d];
        }
        n[0] = n[1] = n[2] = 0.0;
        for (int kk = lo[2]; kk <= hi[2]; kk++)
            for (int jj = lo[1]; jj <= hi[1]; jj++)
                for (int ii = lo[0]; ii <= hi[0]; ii++) {
                    size_t c = mac_c(g, ii, jj, kk);
                    for (int d = 0; d < dim; d++)
                        n[d] += nsum[(size_t)dim * c + (size_t)d];
                }
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (len > 0.0) {
            for (int d = 0; d < 3; d++)
                n[d] /= len;
            return;
        }
    }
}

/* Component o at face (axis, ijk): the mean of the faces normal to o of the
 * two cells the face separates (those inside the grid). */
static double other_component(const mac_grid *g, int axis, const int *ijk, int o, double *const u[3])
{
    double s = 0.0;
    int cnt = 0;
    for (int side = 0; side < 2; side++) {
        int c[3] = {ijk[0], ijk[1], ijk[2]};
        c[axis] -= side == 0;
        if (c[axis] < 0 || c[axis] >= mac_n(g, axis))
            continue;
        s += u[o][mac_fi(g, o, c[0], c[1], c[2])];
        c[o]++;
        s += u[o][mac_fi(g, o, c[0], c[1], c[2])];
        cnt += 2;
    }
    return cnt ? s / cnt : 0.0;
}

void mono_extrapolate(const mac_grid *g, const mono_cut *cut, const double *phi, int layers, double *const u[3])
{
    int dim = g->dim;
    size_t nc = mac_ncell(g);
    uint8_t *valid[3] = {NULL, NULL, NULL}, *filled[3] = {NULL, NULL, NULL};
    double *next[3] = {NULL, NULL, NULL};
    double *nsum = SEAM_NEW_N(double, (size_t)dim * nc);
    for (int a = 0; a < dim; a++) {
        valid[a] = seam_xmalloc(mac_nf(g, a));
        filled[a] = seam_xcalloc(mac_nf(g, a), 1);
        next[a] = seam_xmalloc_n(mac_nf(g, a), sizeof *next[a]);
    }
    FOR_FACES(g, axis, i, j, k)
        valid[axis][mac_fi(g, axis, i, j, k)] = (uint8_t)face_valid(g, cut, phi, axis, i, j, k);
    for (int layer = 0; layer < layers; layer++) {
        FOR_FACES(g, axis, i, j, k) {
            size_t f = mac_fi(g, axis, i, j, k);
            next[axis][f] = u[axis][f];
            if (valid[axis][f])
                continue;
            double s = 0.0;
            int cnt = 0;
            for (int d = 0; d < dim; d++)
                for (int step = -1; step <= 1; step += 2) {
                    int q[3] = {i, j, k};
                    q[d] += step;
                    if (q[d] < 0 || q[d] > mac_n(g, d) - (d != axis))
                        continue;
                    size_t h = mac_fi(g, axis, q[0], q[1], q[2]);
                    if (valid[axis][h]) {
                        s += u[axis][h];
                        cnt++;
                    }
                }
            if (cnt) {
                next[axis][f] = s / cnt;
                filled[axis][f] = 1;
            }
        }
        for (int a = 0; a < dim; a++)
            for (size_t f = 0; f < mac_nf(g, a); f++) {
                u[a][f] = next[a][f];
                valid[a][f] |= filled[a][f];
            }
    }
    FOR_FACES(g, axis, i, j, k) {
        size_t f = mac_fi(g, axis, i, j, k);
        if (!valid[axis][f])
            u[axis][f] = 0.0;   /* beyond the layers' reach */
    }
    /* Extrapolated values inside solids lose their normal component (sec. 4.6). */
    for (size_t q = 0; q < cut->n_patches; q++)
        for (int d = 0; d < dim; d++)
            nsum[(size_t)dim * cut->patches[q].cell + (size_t)d] += cut->patches[q].area * cut->patches[q].n[d];
    for (int a = 0; a < dim; a++)
        memcpy(next[a], u[a], mac_nf(g, a) * sizeof *next[a]);
    double *const un[3] = {next[0], next[1], next[2]};
    FOR_FACES(g, axis, i, j, k) {
        size_t f = mac_fi(g, axis, i, j, k);
        if (!filled[axis][f] || cut->open[axis][f] > 0.0)
            continue;
        int ijk[3] = {i, j, k};
        double n[3], w[3] = {0.0, 0.0, 0.0};
        normal_near(g, nsum, axis, ijk, layers + 1, n);
        for (int o = 0; o < dim; o++)
            w[o] = o == axis ? un[axis][f] : other_component(g, axis, ijk, o, un);
        u[axis][f] = w[axis] - (w[0] * n[0] + w[1] * n[1] + w[2] * n[2]) * n[axis];
    }
    free(nsum);
    for (int a = 0; a < 3; a++) {
        free(valid[a]);
        free(filled[a]);
        free(next[a]);
    }
}

/* ---- the liquid's level set inside the solids ------------------------------- */

void mono_liquid_phi(const mac_grid *g, const mono_cut *cut, const double *phi, double *out)
{
    size_t nc = mac_ncell(g);
    uint8_t *known = seam_xmalloc(nc ? nc : 1), *next = seam_xmalloc(nc ? nc : 1);
    for (size_t c = 0; c < nc; c++) {
        out[c] = phi[c];
        known[c] = !cut->inside[c];
    }
    /* Ring by ring from the cells outside the solids, not in place: each cell
     * next to known ones takes their mean. */
    for (int changed = 1; changed;) {
        changed = 0;
        memcpy(next, known, nc);
        for (int k = 0; k < g->nz; k++)
            for (int j = 0; j < g->ny; j++)
                for (int i = 0; i < g->nx; i++) {
                    size_t c = mac_c(g, i, j, k);
                    if (known[c])
                        continue;
                    const int ijk[3] = {i, j, k};
                    double s = 0.0;
                    int cnt = 0;
                    for (int axis = 0; axis < g->dim; axis++)
                        for (int side = -1; side <= 1; side += 2) {
                            int q[3] = {ijk[0], ijk[1], ijk[2]};
                            q[axis] += side;
                            if (q[axis] < 0 || q[axis] >= mac_n(g, axis))
                                continue;
                            size_t cq = mac_c(g, q[0], q[1], q[2]);
                            if (known[cq]) {
                                s += out[cq];
                                cnt++;
                            }
                        }
                    if (cnt) {
                        out[c] = s / cnt;
                        next[c] = 1;
                        changed = 1;
                    }
                }
        memcpy(known, next, nc);
    }
    free(known);
    free(next);
}
