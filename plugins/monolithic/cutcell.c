/* monolithic: the cut-cell geometry of the solids' boundaries on fluid_mac's
 * grid and the fluid block of Zarifi's coupled projection (Zarifi 2017, sec.
 * 4.4-4.6, 5.1; ../shared/specs/monolithic-sph-fem.md 1.2-1.3). The face
 * fractions come from exact clipping of each face against the closed outlines
 * (not the thesis's nodal-SDF rule of Fig. 5.2), so the faces and patches of
 * every cell close exactly (divergence theorem) and free slip along a planar
 * wall is exact (spec 1.7 M5). 2D; 3D is refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mono.h"
#include "seam/log.h"

/* ---- geometry --------------------------------------------------------------- */

/* A crossing of the outline with a grid line: where along the line, and +1
 * where walking along the line enters the solid, -1 where it leaves. */
typedef struct xing {
    double c;
    int s;
} xing;

static int xing_cmp(const void *pa, const void *pb)
{
    const xing *a = pa, *b = pb;
    return a->c < b->c ? -1 : a->c > b->c ? 1 : a->s - b->s;
}

static const double *node_x(const mono_boundary *b, int32_t node) { return b->x + (size_t)node * (size_t)b->dim; }

/* The crossings of the 2D outline with the line x_a = L (sorted along the
 * other axis t). An element (p, q) crosses when p and q lie on different
 * sides, half-open so that a node on the line counts once. With the solid on
 * the left of p -> q, walking along +t enters it when +t points along the
 * left normal (-e_y, e_x): sign(e_x) on a line of constant x, -sign(e_y) on
 * one of constant y. */
static size_t line_crossings(const mono_boundary *b, int a, double L, xing *out)
{
    int t = 1 - a;
    size_t n = 0;
    for (size_t e = 0; e < b->n_elems; e++) {
        const double *p = node_x(b, b->elem[2 * e]), *q = node_x(b, b->elem[2 * e + 1]);
        if ((p[a] < L) == (q[a] < L))
            continue;
        double s = (L - p[a]) / (q[a] - p[a]);
        double ea = q[a] - p[a];
        out[n].c = p[t] + s * (q[t] - p[t]);
        out[n].s = (a == 0 ? ea > 0 : ea < 0) ? 1 : -1;
        n++;
    }
    qsort(out, n, sizeof *out, xing_cmp);
    return n;
}

/* Turn sorted crossings into the intervals inside the solids (winding > 0),
 * in place as pairs lo, hi in iv (room for n). Returns the number of
 * intervals, or -1 when the winding goes negative (an outline with the solid
 * on its right, or not closed). */
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

/* Closed outlines: every node is left as often as it is entered. */
static seam_status check_boundary(const mac_grid *g, const mono_boundary *b, const seam_host *host)
{
    if (b->dim != g->dim) {
        seam_logf(host, SEAM_LOG_ERROR, "monolithic: cut cells: the solids' boundary is %dD but the grid is %dD",
                  b->dim, g->dim);
        return SEAM_ERROR;
    }
    if (g->dim != 2) {
        seam_logf(host, SEAM_LOG_ERROR, "monolithic: cut cells: only 2D grids are implemented (the grid is %dD); "
                  "clipping triangles against 3D cells is not", g->dim);
        return SEAM_ERROR;
    }
    int *deg = calloc(b->n_nodes ? b->n_nodes : 1, sizeof *deg);
    if (!deg)
        return SEAM_ERROR;
    for (size_t e = 0; e < b->n_elems; e++)
        for (int k = 0; k < 2; k++) {
            int32_t v = b->elem[2 * e + (size_t)k];
            if (v < 0 || (size_t)v >= b->n_nodes) {
                seam_logf(host, SEAM_LOG_ERROR, "monolithic: cut cells: boundary element %zu refers to node %d, "
                          "but there are %zu nodes", e, (int)v, b->n_nodes);
                free(deg);
                return SEAM_ERROR;
            }
            deg[v] += k == 0 ? 1 : -1;
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

/* The open fraction of every face (sec. 4.6): each grid line is cut by the
 * outline into inside intervals, and each face on it loses its overlap with them. */
static seam_status face_fractions(mono_cut *cut, const mac_grid *g, const mono_boundary *b, xing *xs, double *iv,
                                  const seam_host *host)
{
    double dx = g->dx;
    for (int a = 0; a < 2; a++) {
        int t = 1 - a, na = mac_n(g, a), nt = mac_n(g, t);
        double *open = cut->open[a];
        for (int m = 0; m <= na; m++) {
            double L = g->origin[a] + m * dx;
            size_t nx = line_crossings(b, a, L, xs);
            long ni = inside_intervals(xs, nx, iv);
            if (ni < 0) {
                seam_logf(host, SEAM_LOG_ERROR, "monolithic: cut cells: along the grid line %s = %g the solids' "
                          "outline leaves a solid it never entered: the boundary segments must run with the solid "
                          "on their left (counter-clockwise around a body)", a == 0 ? "x" : "y", L);
                return SEAM_ERROR;
            }
            double *solid = malloc((size_t)nt * sizeof *solid);
            if (!solid)
                return SEAM_ERROR;
            for (int j = 0; j < nt; j++)
                solid[j] = 0.0;
            for (long q = 0; q < ni; q++) {
                double lo = (iv[2 * q] - g->origin[t]) / dx, hi = (iv[2 * q + 1] - g->origin[t]) / dx;
                int j0 = (int)fmax(0.0, floor(lo)), j1 = (int)fmin(nt - 1.0, floor(hi));
                for (int j = j0; j <= j1; j++)
                    solid[j] += fmax(0.0, fmin(hi, j + 1.0) - fmax(lo, (double)j));
            }
            for (int j = 0; j < nt; j++) {
                double f = 1.0 - solid[j];
                f = f < 0.01 ? 0.0 : f > 0.99 ? 1.0 : f;   /* sec. 4.6 */
                open[a == 0 ? mac_fi(g, 0, m, j, 0) : mac_fi(g, 1, j, m, 0)] = f;
            }
            free(solid);
        }
    }
    /* Cell centres inside a solid, along the rows of centres. */
    for (int j = 0; j < g->ny; j++) {
        double L = g->origin[1] + (j + 0.5) * dx;
        size_t nx = line_crossings(b, 1, L, xs);
        long ni = inside_intervals(xs, nx, iv);
        if (ni < 0) {
            seam_logf(host, SEAM_LOG_ERROR, "monolithic: cut cells: along y = %g the solids' outline leaves a solid "
                      "it never entered: the boundary segments must run with the solid on their left", L);
            return SEAM_ERROR;
        }
        for (long q = 0; q < ni; q++)
            for (int i = 0; i < g->nx; i++) {
                double xc = g->origin[0] + (i + 0.5) * dx;
                if (xc > iv[2 * q] && xc < iv[2 * q + 1])
                    cut->inside[mac_c(g, i, j, 0)] = 1;
            }
    }
    return SEAM_OK;
}

static int dbl_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* Each segment cut at the grid lines it crosses: one patch per piece inside
 * the grid, normal = the left normal (into the solid), weights of the piece's
 * midpoint (sec. 5.1.1). Pieces outside the grid have no liquid and are left out. */
static seam_status clip_segments(mono_cut *cut, const mac_grid *g, const mono_boundary *b)
{
    size_t cap = 2 * b->n_elems + 16;
    cut->patches = malloc(cap * sizeof *cut->patches);
    size_t tcap = 16;
    double *ts = malloc(tcap * sizeof *ts);
    if (!cut->patches || !ts) {
        free(ts);
        return SEAM_ERROR;
    }
    double dx = g->dx;
    for (size_t e = 0; e < b->n_elems; e++) {
        const double *p = node_x(b, b->elem[2 * e]), *q = node_x(b, b->elem[2 * e + 1]);
        double ev[2] = {q[0] - p[0], q[1] - p[1]};
        double len = hypot(ev[0], ev[1]);
        if (!(len > 0.0))
            continue;
        size_t nt = 0;
        for (int a = 0; a < 2; a++) {
            double lo = (fmin(p[a], q[a]) - g->origin[a]) / dx, hi = (fmax(p[a], q[a]) - g->origin[a]) / dx;
            size_t need = nt + (size_t)(fmax(0.0, floor(hi) - ceil(lo)) + 3.0);
            if (need > tcap) {
                double *r = realloc(ts, (tcap = 2 * need) * sizeof *ts);
                if (!r) {
                    free(ts);
                    return SEAM_ERROR;
                }
                ts = r;
            }
            if (ev[a] == 0.0)
                continue;
            for (double m = ceil(lo); m <= hi; m++) {
                double s = (g->origin[a] + m * dx - p[a]) / ev[a];
                if (s > 0.0 && s < 1.0)
                    ts[nt++] = s;
            }
        }
        ts[nt++] = 0.0;
        ts[nt++] = 1.0;
        qsort(ts, nt, sizeof *ts, dbl_cmp);
        for (size_t k = 0; k + 1 < nt; k++) {
            double s0 = ts[k], s1 = ts[k + 1];
            if (!((s1 - s0) * len > 1e-12 * dx))
                continue;
            double sm = 0.5 * (s0 + s1);
            double xm[2] = {p[0] + sm * ev[0], p[1] + sm * ev[1]};
            int ij[2];
            int outside = 0;
            for (int a = 0; a < 2; a++) {
                double f = floor((xm[a] - g->origin[a]) / dx);
                outside |= f < 0.0 || f >= mac_n(g, a);
                ij[a] = (int)f;
            }
            if (outside)
                continue;
            if (cut->n_patches == cap) {
                mono_patch *r = realloc(cut->patches, (cap *= 2) * sizeof *r);
                if (!r) {
                    free(ts);
                    return SEAM_ERROR;
                }
                cut->patches = r;
            }
            mono_patch *pa = &cut->patches[cut->n_patches++];
            memset(pa, 0, sizeof *pa);
            pa->cell = mac_c(g, ij[0], ij[1], 0);
            pa->area = (s1 - s0) * len;
            pa->n[0] = -ev[1] / len;   /* the left normal: into the solid */
            pa->n[1] = ev[0] / len;
            pa->elem = e;
            pa->w[0] = 1.0 - sm;
            pa->w[1] = sm;
        }
    }
    free(ts);
    return SEAM_OK;
}

seam_status mono_cut_build(mono_cut *cut, const mac_grid *g, const mono_boundary *b, const seam_host *host)
{
    memset(cut, 0, sizeof *cut);
    if (check_boundary(g, b, host) != SEAM_OK)
        return SEAM_ERROR;
    size_t nc = mac_ncell(g);
    for (int a = 0; a < g->dim; a++)
        cut->open[a] = malloc(mac_nf(g, a) * sizeof *cut->open[a]);
    cut->inside = calloc(nc, 1);
    xing *xs = malloc((b->n_elems + 1) * sizeof *xs);
    double *iv = malloc((b->n_elems + 1) * sizeof *iv);
    seam_status st = SEAM_ERROR;
    if (cut->open[0] && cut->open[1] && cut->inside && xs && iv && face_fractions(cut, g, b, xs, iv, host) == SEAM_OK)
        st = clip_segments(cut, g, b);
    free(xs);
    free(iv);
    if (st != SEAM_OK) {
        mono_cut_free(cut);
        return SEAM_ERROR;
    }
    return SEAM_OK;
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

static seam_status liquid_view_init(liquid_view *lv, const mac_grid *g, const double *phi)
{
    size_t nc = mac_ncell(g);
    memset(lv, 0, sizeof *lv);
    lv->none = calloc(nc, 1);
    lv->geo.air = malloc(nc);
    if (!lv->none || !lv->geo.air) {
        free(lv->none);
        free(lv->geo.air);
        return SEAM_ERROR;
    }
    for (size_t c = 0; c < nc; c++)
        lv->geo.air[c] = !(phi[c] < 0.0);
    lv->geo.solid = lv->none;
    lv->geo.phi = phi;
    return SEAM_OK;
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
    double xc[2] = {0.0, 0.0};
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < 2; d++)
            xc[d] += pa->w[k] * node_x(b, b->elem[2 * pa->elem + (size_t)k])[d];
    int ci = (int)(pa->cell % (size_t)g->nx), cj = (int)(pa->cell / (size_t)g->nx);
    long best = -1;
    double best_d2 = INFINITY;
    for (int jj = cj - 1; jj <= cj + 1; jj++)
        for (int ii = ci - 1; ii <= ci + 1; ii++) {
            if (ii < 0 || jj < 0 || ii >= g->nx || jj >= g->ny || F->index[mac_c(g, ii, jj, 0)] < 0)
                continue;
            double ex = g->origin[0] + (ii + 0.5) * g->dx - xc[0], ey = g->origin[1] + (jj + 0.5) * g->dx - xc[1];
            if (ex * ex + ey * ey < best_d2) {
                best_d2 = ex * ex + ey * ey;
                best = F->index[mac_c(g, ii, jj, 0)];
            }
        }
    return best;
}

seam_status mono_fluid_build(mono_fluid *F, const mac_grid *g, const mono_cut *cut, const mono_boundary *b,
                             const double *phi, double *const u_star[3], double rho, double dt,
                             const seam_host *host)
{
    memset(F, 0, sizeof *F);
    size_t nc = mac_ncell(g);
    if (g->dim != 2 || b->dim != 2) {
        seam_logf(host, SEAM_LOG_ERROR, "monolithic: fluid block: only 2D is implemented (grid %dD)", g->dim);
        return SEAM_ERROR;
    }
    liquid_view lv;
    F->index = malloc(nc * sizeof *F->index);
    F->cell = malloc((nc ? nc : 1) * sizeof *F->cell);
    if (!F->index || !F->cell || liquid_view_init(&lv, g, phi) != SEAM_OK) {
        mono_fluid_free(F);
        return SEAM_ERROR;
    }
    /* Active cells (sec. 4.6): liquid by phi (extended into the solids) with
     * an open face: some fluid that can exchange with its neighbours. */
    uint8_t *open_face = calloc(nc, 1);
    if (!open_face) {
        liquid_view_free(&lv);
        mono_fluid_free(F);
        return SEAM_ERROR;
    }
    FOR_FACES(g, axis, i, j, k) {
        face_ref r = face_at(g, axis, i, j, k);
        if (cut->open[axis][r.f] > 0.0) {
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
    F->Eu = calloc(F->n ? F->n : 1, sizeof *F->Eu);
    seam_triplets *tb = seam_triplets_new(F->n, F->n, 5 * F->n + 1);
    seam_triplets *tg = seam_triplets_new(F->n, (size_t)g->dim * b->n_nodes, 4 * cut->n_patches + 1);
    if (!F->Eu || !tb || !tg) {
        seam_triplets_destroy(&tb);
        seam_triplets_destroy(&tg);
        liquid_view_free(&lv);
        mono_fluid_free(F);
        return SEAM_ERROR;
    }
    double area = mac_face_area(g), coef = dt / rho / g->dx;
    FOR_FACES(g, axis, i, j, k) {
        face_ref r = face_at(g, axis, i, j, k);
        double A = area * cut->open[axis][r.f];
        if (!(A > 0.0))
            continue;
        double theta;
        face_kind fk = mac_face(g, &lv.geo, axis, i, j, k, &theta);
        if (fk != FACE_ACTIVE && fk != FACE_DIRICHLET)
            continue;   /* walls carry nothing; faces between air cells are not the projection's */
        long rlo = r.lo >= 0 ? F->index[r.lo] : -1, rhi = r.hi >= 0 ? F->index[r.hi] : -1;
        double u = u_star[axis][r.f];
        /* E u* = - sum_f s_f A_f u*_f (4.36-4.39): + face of lo, - face of hi. */
        if (rlo >= 0)
            F->Eu[rlo] -= A * u;
        if (rhi >= 0)
            F->Eu[rhi] += A * u;
        if (fk == FACE_ACTIVE) {
            /* (dt/rho) A_f (p_i - p_nbr) / dx (4.38). */
            double c = coef * A;
            seam_triplets_add(tb, (size_t)rlo, (size_t)rlo, c);
            seam_triplets_add(tb, (size_t)rhi, (size_t)rhi, c);
            seam_triplets_add(tb, (size_t)rlo, (size_t)rhi, -c);
            seam_triplets_add(tb, (size_t)rhi, (size_t)rlo, -c);
        } else {
            /* Ghost fluid: p = 0 at theta dx from the liquid centre (4.40-4.44). */
            long row = rlo >= 0 ? rlo : rhi;
            seam_triplets_add(tb, (size_t)row, (size_t)row, coef * A / theta);
        }
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
    F->B = seam_csr_from_triplets(tb);
    F->G = seam_csr_from_triplets(tg);
    seam_triplets_destroy(&tb);
    seam_triplets_destroy(&tg);
    if (!F->B || !F->G) {
        mono_fluid_free(F);
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

void mono_fluid_free(mono_fluid *F)
{
    free(F->index);
    free(F->cell);
    free(F->Eu);
    seam_csr_destroy(&F->B);
    seam_csr_destroy(&F->G);
    memset(F, 0, sizeof *F);
}

void mono_fluid_update(const mono_fluid *F, const mac_grid *g, const mono_cut *cut, const double *phi,
                       const double *p, double rho, double dt, double *const u[3])
{
    liquid_view lv;
    if (liquid_view_init(&lv, g, phi) != SEAM_OK)
        return;
    FOR_FACES(g, axis, i, j, k) {
        face_ref r = face_at(g, axis, i, j, k);
        double theta;
        face_kind fk = mac_face(g, &lv.geo, axis, i, j, k, &theta);
        if (r.lo < 0 || r.hi < 0) {
            if (g->bc[2 * axis + (r.hi < 0)] == BC_WALL) {
                u[axis][r.f] = 0.0;   /* a closed domain wall */
                continue;
            }
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

/* Whether face f holds a velocity of this step: a domain wall (closed, 0), or
 * open with liquid on at least one side. */
static int face_valid(const mac_grid *g, const mono_cut *cut, const double *phi, int axis, int i, int j, int k)
{
    face_ref r = face_at(g, axis, i, j, k);
    if (r.lo < 0 || r.hi < 0) {
        if (g->bc[2 * axis + (r.hi < 0)] == BC_WALL)
            return 1;
    }
    if (!(cut->open[axis][r.f] > 0.0))
        return 0;
    return (r.lo >= 0 && phi[r.lo] < 0.0) || (r.hi >= 0 && phi[r.hi] < 0.0);
}

/* The outward solid normal near face (axis, i, j): the area-weighted patch
 * normals of the cells in the smallest square ring around the face that has
 * any (up to `reach` cells), normalised; 0 when none. */
static void normal_near(const mac_grid *g, const double *nsum, int axis, int i, int j, int reach, double *n)
{
    n[0] = n[1] = 0.0;
    for (int r = 1; r <= reach; r++) {
        int i0 = i - r, i1 = i + r - (axis == 0), j0 = j - r, j1 = j + r - (axis == 1);
        for (int jj = j0; jj <= j1; jj++)
            for (int ii = i0; ii <= i1; ii++) {
                if (ii < 0 || jj < 0 || ii >= g->nx || jj >= g->ny)
                    continue;
                size_t c = mac_c(g, ii, jj, 0);
                n[0] += nsum[2 * c];
                n[1] += nsum[2 * c + 1];
            }
        double len = hypot(n[0], n[1]);
        if (len > 0.0) {
            n[0] /= len;
            n[1] /= len;
            return;
        }
    }
}

/* The other component at face (axis, i, j): the mean of the four faces around it. */
static double other_component(const mac_grid *g, int axis, int i, int j, double *const u[3])
{
    int o = 1 - axis;
    int di = axis == 0 ? -1 : 0, dj = axis == 1 ? -1 : 0;   /* the low cell across the face */
    double s = 0.0;
    int cnt = 0;
    for (int side = 0; side < 2; side++) {
        int ci = i + (side ? 0 : di), cj = j + (side ? 0 : dj);
        if (ci < 0 || cj < 0 || ci >= g->nx || cj >= g->ny)
            continue;
        s += u[o][mac_fi(g, o, ci, cj, 0)] + u[o][mac_fi(g, o, ci + (o == 0), cj + (o == 1), 0)];
        cnt += 2;
    }
    return cnt ? s / cnt : 0.0;
}

void mono_extrapolate(const mac_grid *g, const mono_cut *cut, const double *phi, int layers, double *const u[3])
{
    if (g->dim != 2)
        return;
    size_t nc = mac_ncell(g);
    uint8_t *valid[2];
    double *next[2];
    uint8_t *filled[2];
    double *nsum = calloc(2 * nc, sizeof *nsum);
    for (int a = 0; a < 2; a++) {
        valid[a] = malloc(mac_nf(g, a));
        filled[a] = calloc(mac_nf(g, a), 1);
        next[a] = malloc(mac_nf(g, a) * sizeof *next[a]);
    }
    if (!nsum || !valid[0] || !valid[1] || !next[0] || !next[1] || !filled[0] || !filled[1])
        goto done;
    FOR_FACES(g, axis, i, j, k)
        valid[axis][mac_fi(g, axis, i, j, k)] = (uint8_t)face_valid(g, cut, phi, axis, i, j, k);
    for (int layer = 0; layer < layers; layer++) {
        FOR_FACES(g, axis, i, j, k) {
            size_t f = mac_fi(g, axis, i, j, k);
            next[axis][f] = u[axis][f];
            if (valid[axis][f])
                continue;
            static const int nb[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
            double s = 0.0;
            int cnt = 0;
            for (int q = 0; q < 4; q++) {
                int ii = i + nb[q][0], jj = j + nb[q][1];
                if (ii < 0 || jj < 0 || ii > g->nx - (axis != 0) || jj > g->ny - (axis != 1))
                    continue;
                size_t h = mac_fi(g, axis, ii, jj, 0);
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
        for (int a = 0; a < 2; a++)
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
        for (int d = 0; d < 2; d++)
            nsum[2 * cut->patches[q].cell + (size_t)d] += cut->patches[q].area * cut->patches[q].n[d];
    for (int a = 0; a < 2; a++)
        memcpy(next[a], u[a], mac_nf(g, a) * sizeof *next[a]);
    double *const un[3] = {next[0], next[1], NULL};
    FOR_FACES(g, axis, i, j, k) {
        size_t f = mac_fi(g, axis, i, j, k);
        if (!filled[axis][f] || cut->open[axis][f] > 0.0)
            continue;
        double n[2];
        normal_near(g, nsum, axis, i, j, layers + 1, n);
        double w[2];
        w[axis] = un[axis][f];
        w[1 - axis] = other_component(g, axis, i, j, un);
        double vn = w[0] * n[0] + w[1] * n[1];
        u[axis][f] = w[axis] - vn * n[axis];
    }
done:
    free(nsum);
    for (int a = 0; a < 2; a++) {
        free(valid[a]);
        free(filled[a]);
        free(next[a]);
    }
}
