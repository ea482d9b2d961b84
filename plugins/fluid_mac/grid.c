/* fluid_mac: geometry, advection and pressure projection on a 2D or 3D MAC grid. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mac.h"
#include "seam/alloc.h"
#include "seam/log.h"

/* ---- geometry ----------------------------------------------------------- */

/* A whole number (already floored or ceiled) as an index clamped to [lo, hi],
 * safe for coordinates far outside the grid. */
static int clamp_index(double v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : (int)v;
}

/* Cells whose centres lie inside the volumetric bodies (even-odd rule over all
 * one-sided segments): each segment toggles the cells right of its crossing
 * in every row it spans, then a running xor along the row gives the parity. */
static void mark_solid_cells(const mac_grid *g, const seam_interface *iface, const double *X,
                             uint8_t *solid)
{
    size_t row = (size_t)g->nx + 1;
    uint8_t *toggle = seam_xcalloc(row * (size_t)g->ny, 1);
    for (size_t e = 0; e < iface->n_elems; e++) {
        if (iface->two_sided && iface->two_sided[e])
            continue;
        const double *a = X + 2 * (size_t)iface->elems[2 * e];
        const double *b = X + 2 * (size_t)iface->elems[2 * e + 1];
        double ylo = fmin(a[1], b[1]), yhi = fmax(a[1], b[1]);
        if (ylo == yhi)
            continue;   /* horizontal: crosses no row centre line in the half-open rule */
        int j0 = clamp_index(ceil((ylo - g->origin[1]) / g->dx - 0.5), 0, g->ny);
        int j1 = clamp_index(ceil((yhi - g->origin[1]) / g->dx - 0.5) - 1, -1, g->ny - 1);
        for (int j = j0; j <= j1; j++) {
            double yc = g->origin[1] + (j + 0.5) * g->dx;
            double xc = a[0] + (yc - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
            int i0 = clamp_index(ceil((xc - g->origin[0]) / g->dx - 0.5), 0, g->nx);
            toggle[(size_t)j * row + (size_t)i0] ^= 1u;
        }
    }
    for (int j = 0; j < g->ny; j++) {
        uint8_t in = 0;
        for (int i = 0; i < g->nx; i++) {
            in ^= toggle[(size_t)j * row + (size_t)i];
            solid[mac_c(g, i, j, 0)] = in;
        }
    }
    free(toggle);
}

/* The edge function of segment u-v at p in the plane of axes (b1, b2),
 * computed from the endpoints in a fixed order so that v-u gives exactly
 * minus u-v: two triangles sharing an edge then agree bit for bit on which
 * side p lies. */
static double edge_2(const double *u, const double *v, int b1, int b2, double p1, double p2)
{
    int swap = u[b1] > v[b1] || (u[b1] == v[b1] && u[b2] > v[b2]);
    const double *a = swap ? v : u, *b = swap ? u : v;
    double e = (b[b1] - a[b1]) * (p2 - a[b2]) - (b[b2] - a[b2]) * (p1 - a[b1]);
    return swap ? -e : e;
}

/* Whether an edge u-v of a counter-clockwise (in b1, b2) triangle owns the
 * points on it: top edges (towards -b1 at constant b2) and left edges
 * (towards -b2), so a point on an edge shared by two triangles counts once. */
static int top_left(const double *u, const double *v, int b1, int b2)
{
    double d1 = v[b1] - u[b1], d2 = v[b2] - u[b2];
    return d2 < 0.0 || (d2 == 0.0 && d1 < 0.0);
}

/* Called for each line of cell centres along `axis` that pierces a triangle:
 * the line's indices (c1, c2) on the other two axes (in increasing order) and
 * the coordinate along `axis` where it pierces. */
typedef void (*pierce_visit)(void *ctx, int axis, int c1, int c2, double at);

/* Visit the lines of cell centres parallel to `axis` that pierce triangle t. */
static void pierce_lines(const mac_grid *g, int axis, const double *const tri[3], pierce_visit visit, void *ctx)
{
    int b1 = axis == 0 ? 1 : 0, b2 = axis == 2 ? 1 : 2;
    const double *t[3] = {tri[0], tri[1], tri[2]};
    double area = edge_2(t[0], t[1], b1, b2, t[2][b1], t[2][b2]);
    if (area == 0.0)
        return;   /* edge-on along the axis: no centre line pierces it */
    if (area < 0.0) {   /* counter-clockwise in (b1, b2) */
        const double *tmp = t[1];
        t[1] = t[2];
        t[2] = tmp;
        area = -area;
    }
    int lo[2], hi[2];
    const int b[2] = {b1, b2};
    for (int d = 0; d < 2; d++) {
        double mn = fmin(fmin(t[0][b[d]], t[1][b[d]]), t[2][b[d]]);
        double mx = fmax(fmax(t[0][b[d]], t[1][b[d]]), t[2][b[d]]);
        /* One line more on each side: the edge tests below decide the lines within rounding of the box. */
        lo[d] = clamp_index(ceil((mn - g->origin[b[d]]) / g->dx - 0.5) - 1, 0, mac_n(g, b[d]));
        hi[d] = clamp_index(floor((mx - g->origin[b[d]]) / g->dx - 0.5) + 1, -1, mac_n(g, b[d]) - 1);
    }
    for (int c2 = lo[1]; c2 <= hi[1]; c2++)
        for (int c1 = lo[0]; c1 <= hi[0]; c1++) {
            /* The centre line nudged by ~1e-9 dx along an irrational direction: meshes built on the
             * grid's own coordinates put vertices within rounding of the centre lines, where
             * orientation tests in floating point can disagree; a nudge moves the cells by nothing. */
            double p1 = g->origin[b1] + (c1 + 0.5 + 0.41421356e-9) * g->dx;
            double p2 = g->origin[b2] + (c2 + 0.5 + 0.73205081e-9) * g->dx;
            double w[3];
            int inside = 1;
            for (int m = 0; m < 3 && inside; m++) {   /* w[m]: the edge opposite vertex m */
                const double *u = t[(m + 1) % 3], *v = t[(m + 2) % 3];
                w[m] = edge_2(u, v, b1, b2, p1, p2);
                inside = w[m] > 0.0 || (w[m] == 0.0 && top_left(u, v, b1, b2));
            }
            if (inside)   /* barycentric weights give the piercing coordinate */
                visit(ctx, axis, c1, c2, (w[0] * t[0][axis] + w[1] * t[1][axis] + w[2] * t[2][axis]) / area);
        }
}

typedef struct pierce_ctx {
    const mac_grid *g;
    uint8_t *toggle;           /* solids: per row (j, k) of nx + 1 entries */
    mac_geometry *geo;         /* shells */
} pierce_ctx;

/* A row of cells along x is pierced at x: toggle the cells from there on. */
static void toggle_row(void *ctx, int axis, int j, int k, double x)
{
    (void)axis;
    pierce_ctx *pc = ctx;
    const mac_grid *g = pc->g;
    size_t row = (size_t)g->nx + 1;
    int i0 = clamp_index(ceil((x - g->origin[0]) / g->dx - 0.5), 0, g->nx);
    pc->toggle[((size_t)k * (size_t)g->ny + (size_t)j) * row + (size_t)i0] ^= 1u;
}

/* 3D: cells whose centres lie inside the closed triangle meshes of the
 * volumetric bodies (ray parity along +x): each one-sided triangle toggles,
 * in every row (j, k) whose centre line pierces it, the cells from the
 * piercing point on; a running xor along the row gives the parity. */
static void mark_solid_cells_3d(const mac_grid *g, const seam_interface *iface, const double *X, uint8_t *solid)
{
    size_t row = (size_t)g->nx + 1, nrows = (size_t)g->ny * (size_t)g->nz;
    pierce_ctx pc = {g, seam_xcalloc(row * nrows, 1), NULL};
    for (size_t e = 0; e < iface->n_elems; e++) {
        if (iface->two_sided && iface->two_sided[e])
            continue;
        const double *t[3];
        for (int m = 0; m < 3; m++)
            t[m] = X + 3 * (size_t)iface->elems[3 * e + (size_t)m];
        pierce_lines(g, 0, t, toggle_row, &pc);
    }
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++) {
            uint8_t in = 0;
            const uint8_t *r = pc.toggle + ((size_t)k * (size_t)g->ny + (size_t)j) * row;
            for (int i = 0; i < g->nx; i++) {
                in ^= r[i];
                solid[mac_c(g, i, j, k)] = in;
            }
        }
    free(pc.toggle);
}

/* A line of centres along `axis` meets a shell at `at`: block the interior
 * face whose dual segment (between the two centres around it) holds that point. */
static void block_face(void *ctx, int axis, int c1, int c2, double at)
{
    pierce_ctx *pc = ctx;
    const mac_grid *g = pc->g;
    int m = (int)floor((at - g->origin[axis]) / g->dx + 0.5);
    if (m < 1 || m > mac_n(g, axis) - 1)
        return;   /* the domain's sides are walls or open already */
    int ijk[3];
    ijk[axis] = m;
    ijk[axis == 0 ? 1 : 0] = c1;
    ijk[axis == 2 ? 1 : 2] = c2;
    pc->geo->shell[axis][mac_fi(g, axis, ijk[0], ijk[1], ijk[2])] = 1;
}

/* 3D: faces whose dual segment a thin shell (two-sided triangle) crosses. */
static void mark_shell_faces_3d(mac_geometry *geo, const mac_grid *g, const seam_interface *iface, const double *X)
{
    pierce_ctx pc = {g, NULL, geo};
    for (size_t e = 0; e < iface->n_elems; e++) {
        if (!iface->two_sided || !iface->two_sided[e])
            continue;
        const double *t[3];
        for (int m = 0; m < 3; m++)
            t[m] = X + 3 * (size_t)iface->elems[3 * e + (size_t)m];
        for (int axis = 0; axis < 3; axis++)
            pierce_lines(g, axis, t, block_face, &pc);
    }
}

/* Which side of the line a-b the point c lies on (points on the line count as +). */
static int side_of(const double *a, const double *b, const double *c)
{
    return mac_orient2(a, b, c) >= 0.0;
}

/* Faces whose dual segment (between the two cell centres) a thin shell crosses (2D). */
static void mark_shell_faces(mac_geometry *geo, const mac_grid *g, const seam_interface *iface, const double *X)
{
    for (size_t e = 0; e < iface->n_elems; e++) {
        if (!iface->two_sided || !iface->two_sided[e])
            continue;
        const double *a = X + 2 * (size_t)iface->elems[2 * e], *b = X + 2 * (size_t)iface->elems[2 * e + 1];
        int i0 = clamp_index(floor((fmin(a[0], b[0]) - g->origin[0]) / g->dx) - 1, 0, g->nx + 1);
        int i1 = clamp_index(ceil((fmax(a[0], b[0]) - g->origin[0]) / g->dx) + 1, -1, g->nx);
        int j0 = clamp_index(floor((fmin(a[1], b[1]) - g->origin[1]) / g->dx) - 1, 0, g->ny + 1);
        int j1 = clamp_index(ceil((fmax(a[1], b[1]) - g->origin[1]) / g->dx) + 1, -1, g->ny);
        for (int axis = 0; axis < 2; axis++)
            for (int j = j0; j <= j1 && j < g->ny + axis; j++)
                for (int i = i0; i <= i1 && i < g->nx + 1 - axis; i++) {
                    if ((axis == 0 && (i == 0 || i == g->nx)) || (axis == 1 && (j == 0 || j == g->ny)))
                        continue;
                    double p0[2] = {g->origin[0] + (i + 0.5 - (axis == 0)) * g->dx,
                                    g->origin[1] + (j + 0.5 - (axis == 1)) * g->dx};
                    double p1[2] = {p0[0] + (axis == 0) * g->dx, p0[1] + (axis == 1) * g->dx};
                    if (side_of(a, b, p0) != side_of(a, b, p1) && side_of(p0, p1, a) != side_of(p0, p1, b))
                        geo->shell[axis][mac_fi(g, axis, i, j, 0)] = 1;
                }
    }
}

face_kind mac_face(const mac_grid *g, const mac_geometry *geo, int axis, int i, int j, int k, double *theta)
{
    int n = mac_n(g, axis);
    int m = axis == 0 ? i : axis == 1 ? j : k;
    if (theta)
        *theta = 1.0;
    if (m == 0 || m == n) {
        int up = m == n;   /* the cell inside lies below a high side's face */
        size_t c = mac_c(g, i - (up && axis == 0), j - (up && axis == 1), k - (up && axis == 2));
        mac_bc bc = g->bc[2 * axis + up];
        if (bc == BC_WALL || geo->solid[c])
            return FACE_FIXED;
        if (!mac_fluid(geo, c))
            return FACE_AIR;
        if (theta)
            *theta = 0.5;   /* p = 0 on the side itself, half a cell from the centre */
        return FACE_DIRICHLET;
    }
    size_t hi = mac_c(g, i, j, k), lo = hi - mac_stride(g, axis);
    if (geo->solid[lo] || geo->solid[hi])
        return FACE_FIXED;
    if (geo->shell[axis] && geo->shell[axis][mac_fi(g, axis, i, j, k)])
        return FACE_FIXED;
    int flo = mac_fluid(geo, lo), fhi = mac_fluid(geo, hi);
    if (flo && fhi)
        return FACE_ACTIVE;
    if (!flo && !fhi)
        return FACE_AIR;
    if (theta) {
        /* Zarifi eq. 4.43: theta = phi_1 / (phi_1 - phi_2), kept away from 0 for conditioning. */
        double phi1 = geo->phi[flo ? lo : hi], phi2 = geo->phi[flo ? hi : lo];
        double th = phi1 / (phi1 - phi2);
        *theta = th < 0.01 ? 0.01 : th > 1.0 ? 1.0 : th;
    }
    return FACE_DIRICHLET;
}

/* Interior faces with a body cell on at least one side or a shell across;
 * a face touching an obstacle is a static wall, not part of the interface. */
static void collect_solid_faces(mac_geometry *geo, const mac_grid *g)
{
    size_t cap = 64, n = 0;
    solid_face *f = seam_xmalloc(cap * sizeof *f);
    for (int axis = 0; axis < g->dim; axis++) {
        int ni = g->nx + (axis == 0), nj = g->ny + (axis == 1), nk = g->nz + (axis == 2);
        for (int k = 0; k < nk; k++)
            for (int j = 0; j < nj; j++)
                for (int i = 0; i < ni; i++) {
                    int m = axis == 0 ? i : axis == 1 ? j : k;
                    if (m == 0 || m == mac_n(g, axis))
                        continue;
                    size_t hc = mac_c(g, i, j, k);
                    int lo = geo->solid[hc - mac_stride(g, axis)], hi = geo->solid[hc];
                    int shell = geo->shell[axis][mac_fi(g, axis, i, j, k)];
                    if ((!lo && !hi && !shell) || lo == MAC_OBSTACLE || hi == MAC_OBSTACLE)
                        continue;
                    if (n == cap)
                        f = seam_xrealloc(f, (cap *= 2) * sizeof *f);
                    f[n++] = (solid_face){axis, i, j, k, lo || hi ? (lo && hi ? 0 : (hi ? +1 : -1)) : SHELL};
                }
    }
    geo->faces = f;
    geo->n_faces = n;
}

/* Connected fluid cells across active faces; a region is open when one of
 * its cells has a Dirichlet face (open side or free surface). */
static void label_regions(mac_geometry *geo, const mac_grid *g)
{
    size_t nc = mac_ncell(g);
    int32_t *stack = seam_xmalloc(nc * sizeof *stack);
    for (size_t c = 0; c < nc; c++)
        geo->region[c] = -1;
    int nr = 0;
    size_t cap = 8;
    geo->region_open = seam_xcalloc(cap, 1);
    geo->region_cells = seam_xcalloc(cap, sizeof *geo->region_cells);
    for (size_t seed = 0; seed < nc; seed++) {
        if (!mac_fluid(geo, seed) || geo->region[seed] >= 0)
            continue;
        if ((size_t)nr == cap) {
            geo->region_open = seam_xrealloc(geo->region_open, cap * 2);
            memset(geo->region_open + cap, 0, cap);
            geo->region_cells = seam_xrealloc(geo->region_cells, cap * 2 * sizeof *geo->region_cells);
            memset(geo->region_cells + cap, 0, cap * sizeof *geo->region_cells);
            cap *= 2;
        }
        size_t top = 0;
        stack[top++] = (int32_t)seed;
        geo->region[seed] = nr;
        while (top) {
            int32_t c = stack[--top];
            geo->region_cells[nr]++;
            int ijk[3] = {c % g->nx, (c / g->nx) % g->ny, c / g->nx / g->ny};
            /* The low and the high face along each axis, and the cell beyond. */
            for (int axis = 0; axis < g->dim; axis++)
                for (int up = 0; up < 2; up++) {
                    int f[3] = {ijk[0], ijk[1], ijk[2]};
                    f[axis] += up;
                    face_kind fk = mac_face(g, geo, axis, f[0], f[1], f[2], NULL);
                    if (fk == FACE_DIRICHLET)
                        geo->region_open[nr] = 1;
                    if (fk != FACE_ACTIVE)
                        continue;
                    size_t q = up ? (size_t)c + mac_stride(g, axis) : (size_t)c - mac_stride(g, axis);
                    if (geo->region[q] < 0) {
                        geo->region[q] = nr;
                        stack[top++] = (int32_t)q;
                    }
                }
        }
        nr++;
    }
    geo->n_regions = nr;
    geo->n_closed = 0;
    for (int r = 0; r < nr; r++)
        geo->n_closed += !geo->region_open[r];
    free(stack);
}

/* The longest element edge of the interface at positions X, and its ends. */
static double longest_edge(const seam_interface *iface, const double *X, size_t *a, size_t *b)
{
    double longest = 0.0;
    size_t npe = (size_t)iface->nodes_per_elem, dim = (size_t)iface->dim;
    for (size_t e = 0; npe >= 2 && e < iface->n_elems; e++)
        for (size_t k = 0; k < npe; k++) {
            size_t p = (size_t)iface->elems[e * npe + k], q = (size_t)iface->elems[e * npe + (k + 1) % npe];
            double d2 = 0.0;
            for (size_t d = 0; d < dim; d++)
                d2 += (X[p * dim + d] - X[q * dim + d]) * (X[p * dim + d] - X[q * dim + d]);
            if (sqrt(d2) > longest) {
                longest = sqrt(d2);
                *a = p, *b = q;
            }
        }
    return longest;
}

/* Why a solid face has no interface point within the kernel radius r: the
 * interface handed in is stretched far past the shape the solid described
 * (a coupling iterate far off, or a torn solid: returns 1, these positions
 * are refused, SEAM_UNSTABLE), or the solid samples its surface more
 * coarsely than the kernel reaches (returns 0: an error of the scene). */
static int explain_uncovered(const seam_interface *iface, const double *X, double r, const mac_grid *g, char *buf,
                              size_t n)
{
    size_t a = 0, b = 0, a0 = 0, b0 = 0;
    double L = longest_edge(iface, X, &a, &b), L0 = longest_edge(iface, iface->X, &a0, &b0);
    if (L > r && L > 1.5 * L0)
        snprintf(buf, n, "the interface handed in is stretched: its edge from point %zu to point %zu is %.3g m "
                 "(%.1f cells) long, %.1f times the longest the solid described (%.3g m). The solid's surface is "
                 "torn in these positions: a coupling iterate far from any shape the solid takes (see "
                 "residuals.csv; a smaller time.dt, or less reuse of past steps by the scheme), or a solid that "
                 "tore. Denser sampling or a larger kernel_radius would not help", a, b, L, L / g->dx, L / L0, L0);
    else
        snprintf(buf, n, "the solid samples its surface up to %.3g m apart (points %zu and %zu), more than the "
                 "kernel reaches: sample the interface more densely or raise kernel_radius", L, a, b);
    return L > r && L > 1.5 * L0;
}

static void alloc_shells(mac_geometry *geo, const mac_grid *g)
{
    for (int axis = 0; axis < g->dim; axis++)
        geo->shell[axis] = seam_xcalloc(mac_nf(g, axis), 1);
}

seam_status mac_geometry_build(mac_geometry *geo, const mac_grid *g, const seam_interface *iface,
                               const double *X, double r, const double *phi, const uint8_t *obstacle,
                               const seam_host *host)
{
    memset(geo, 0, sizeof *geo);
    size_t nc = mac_ncell(g);
    geo->solid = seam_xcalloc(nc, 1);
    geo->region = seam_xmalloc(nc * sizeof *geo->region);
    alloc_shells(geo, g);
    if (iface && iface->n_elems && g->dim == 2) {
        mark_solid_cells(g, iface, X, geo->solid);
        mark_shell_faces(geo, g, iface, X);
    } else if (iface && iface->n_elems) {
        mark_solid_cells_3d(g, iface, X, geo->solid);
        mark_shell_faces_3d(geo, g, iface, X);
    }
    for (size_t c = 0; obstacle && c < nc; c++)
        if (obstacle[c])
            geo->solid[c] = MAC_OBSTACLE;
    if (phi) {
        geo->phi = phi;
        geo->air = seam_xmalloc(nc);
        for (size_t c = 0; c < nc; c++)
            geo->air[c] = !geo->solid[c] && phi[c] >= 0.0;
    }
    collect_solid_faces(geo, g);
    label_regions(geo, g);
    if (!geo->n_faces)
        return SEAM_OK;
    size_t dim = (size_t)g->dim;
    double *S = seam_xmalloc(dim * geo->n_faces * sizeof *S);
    for (size_t f = 0; f < geo->n_faces; f++) {
        const solid_face *sf = &geo->faces[f];
        const int ijk[3] = {sf->i, sf->j, sf->k};
        for (size_t d = 0; d < dim; d++)
            S[dim * f + d] = g->origin[d] + (ijk[d] + (sf->axis == (int)d ? 0.0 : 0.5)) * g->dx;
    }
    geo->W = seam_mapping_new(g->dim, iface->n_points, X, geo->n_faces, S, r, NULL);
    seam_status st = SEAM_OK;
    for (size_t f = 0; f < geo->n_faces && st == SEAM_OK; f++)
        if (geo->faces[f].s != 0 && !seam_mapping_covered(geo->W, f)) {
            const char *what = geo->faces[f].s == SHELL ? "shell" : "fluid-solid";
            char why[768];
            int stretched = explain_uncovered(iface, X, r, g, why, sizeof why);
            seam_logf(host, stretched ? SEAM_LOG_WARN : SEAM_LOG_ERROR, "the %s face at (%g, %g%s%.6g) has no "
                      "interface point within the kernel radius %g m: %s", what, S[dim * f], S[dim * f + 1],
                      dim == 3 ? ", " : "", dim == 3 ? S[dim * f + 2] : 0.0, r, why);
            st = stretched ? SEAM_UNSTABLE : SEAM_ERROR;
        }
    free(S);
    return st;
}

seam_status mac_geometry_liquid(mac_geometry *geo, const mac_grid *g, const mac_geometry *from, const double *phi)
{
    memset(geo, 0, sizeof *geo);
    size_t nc = mac_ncell(g);
    geo->solid = seam_xmalloc(nc);
    memcpy(geo->solid, from->solid, nc);
    for (int axis = 0; axis < g->dim; axis++) {
        geo->shell[axis] = seam_xmalloc(mac_nf(g, axis));
        memcpy(geo->shell[axis], from->shell[axis], mac_nf(g, axis));
    }
    geo->region = seam_xmalloc(nc * sizeof *geo->region);
    geo->phi = phi;
    geo->air = seam_xmalloc(nc);
    for (size_t c = 0; c < nc; c++)
        geo->air[c] = !geo->solid[c] && phi[c] >= 0.0;
    label_regions(geo, g);
    return SEAM_OK;
}

void mac_geometry_free(mac_geometry *geo)
{
    free(geo->solid);
    free(geo->air);
    for (int axis = 0; axis < 3; axis++)
        free(geo->shell[axis]);
    free(geo->faces);
    free(geo->region);
    free(geo->region_open);
    free(geo->region_cells);
    seam_mapping_destroy(&geo->W);
    memset(geo, 0, sizeof *geo);
}

/* ---- advection ---------------------------------------------------------- */

static double clampd(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

/* RK2 (midpoint) backtrace of the point x over dt (Zarifi eqs. 4.29-4.30). */
static void backtrace(const mac_grid *g, double *const vel0[3], double dt, double *x)
{
    double xm[3] = {0.0, 0.0, 0.0}, um[3];
    for (int d = 0; d < g->dim; d++)
        xm[d] = x[d] - 0.5 * dt * mac_sample(g, d, vel0[d], x);
    for (int d = 0; d < g->dim; d++)
        um[d] = mac_sample(g, d, vel0[d], xm);
    for (int d = 0; d < g->dim; d++)
        x[d] -= dt * um[d];
}

/* The faces of q carried by the velocity vel0 over dt into out; lo / hi (may
 * be NULL) get the range of the values each sample used. */
static void advect_by(const mac_grid *g, double *const vel0[3], double dt, double *const q[3], double *const out[3],
                      double *const lo[3], double *const hi[3])
{
    for (int axis = 0; axis < g->dim; axis++) {
        int ni = g->nx + (axis == 0), nj = g->ny + (axis == 1), nk = g->nz + (axis == 2);
        /* every face on its own: the same values with any number of threads */
#pragma omp parallel for collapse(2) schedule(static) if ((size_t)ni * (size_t)nj * (size_t)nk >= MAC_OMP_MIN)
        for (int k = 0; k < nk; k++)
            for (int j = 0; j < nj; j++)
                for (int i = 0; i < ni; i++) {
                    const int ijk[3] = {i, j, k};
                    double x[3] = {0.0, 0.0, 0.0};
                    for (int d = 0; d < g->dim; d++)
                        x[d] = g->origin[d] + (ijk[d] + (d == axis ? 0.0 : 0.5)) * g->dx;
                    backtrace(g, vel0, dt, x);
                    size_t f = mac_fi(g, axis, i, j, k);
                    out[axis][f] = mac_sample_range(g, axis, q[axis], x, lo ? lo[axis] + f : NULL, hi ? hi[axis] + f : NULL);
                }
    }
}

void mac_advect(const mac_grid *g, double *const vel0[3], double dt, double *const vel[3])
{
    advect_by(g, vel0, dt, vel0, vel, NULL, NULL);
}

/* One component of the MacCormack update, clamped to the forward stencil's range. */
static void maccormack_combine(size_t n, const double *q0, const double *q_back, const double *lo, const double *hi,
                               double *q)
{
    for (size_t f = 0; f < n; f++)
        q[f] = clampd(q[f] + 0.5 * (q0[f] - q_back[f]), lo[f], hi[f]);
}

void mac_work_init(mac_work *w, const mac_grid *g)
{
    *w = (mac_work){{{NULL}}, NULL};
    for (int m = 0; m < 3; m++)
        for (int a = 0; a < g->dim; a++)
            w->face[m][a] = seam_xmalloc_n(mac_nf(g, a), sizeof(double));
    w->cell = seam_xmalloc_n(((size_t)g->dim + 1) * mac_ncell(g), sizeof(double));
}

void mac_work_free(mac_work *w)
{
    for (int m = 0; m < 3; m++)
        for (int a = 0; a < 3; a++)
            free(w->face[m][a]);
    free(w->cell);
    *w = (mac_work){{{NULL}}, NULL};
}

/* The forward step to u^ (keeping the range of u^n each forward sample
 * used, in lo and hi) and the way back to u~ (in back) with the same
 * velocity: the round trip whose error MacCormack and BFECC both estimate. */
static void round_trip_run(const mac_grid *g, double *const vel0[3], double dt, double *const vel[3],
                           double *const lo[3], double *const hi[3], double *const back[3])
{
    advect_by(g, vel0, dt, vel0, vel, lo, hi);
    advect_by(g, vel0, -dt, vel, back, NULL, NULL);
}

void mac_advect_maccormack(const mac_grid *g, double *const vel0[3], double dt, double *const vel[3],
                           const mac_work *w)
{
    double *const *lo = w->face[0], *const *hi = w->face[1], *const *back = w->face[2];
    round_trip_run(g, vel0, dt, vel, lo, hi, back);
    /* the difference of u~ to u^n estimates the forward step's error: take half of it back */
    for (int a = 0; a < g->dim; a++)
        maccormack_combine(mac_nf(g, a), vel0[a], back[a], lo[a], hi[a], vel[a]);
}

void mac_advect_bfecc(const mac_grid *g, double *const vel0[3], double dt, double *const vel[3], const mac_work *w)
{
    double *const *lo = w->face[0], *const *hi = w->face[1], *const *back = w->face[2];
    round_trip_run(g, vel0, dt, vel, lo, hi, back);
    /* Kim et al.: u^n + (u^n - u~)/2 removes half the round trip's error before the real step. */
    for (int a = 0; a < g->dim; a++)
        for (size_t f = 0; f < mac_nf(g, a); f++)
            back[a][f] = vel0[a][f] + 0.5 * (vel0[a][f] - back[a][f]);
    advect_by(g, vel0, dt, back, vel, NULL, NULL);
    for (int a = 0; a < g->dim; a++)   /* the same stencil as the first pass: no new extrema */
        for (size_t f = 0; f < mac_nf(g, a); f++)
            vel[a][f] = clampd(vel[a][f], lo[a][f], hi[a][f]);
}

/* ---- projection ---------------------------------------------------------- */

double mac_divergence(const mac_grid *g, double *const vel[3], int i, int j, int k)
{
    double s = vel[0][mac_fi(g, 0, i + 1, j, k)] - vel[0][mac_fi(g, 0, i, j, k)];
    s = s + vel[1][mac_fi(g, 1, i, j + 1, k)] - vel[1][mac_fi(g, 1, i, j, k)];
    if (g->dim == 3)
        s = s + vel[2][mac_fi(g, 2, i, j, k + 1)] - vel[2][mac_fi(g, 2, i, j, k)];
    return s / g->dx;
}

/* The Poisson stencil over fluid cells (Zarifi eq. 4.38; 5 points in 2D, 7 in
 * 3D): the diagonal counts active faces and 1/theta for Dirichlet faces
 * (eq. 4.44), off-diagonals -1 across active faces. */
static void assemble(mac_projection *P, const mac_grid *g, const mac_geometry *geo)
{
    size_t nc = mac_ncell(g);
    P->n = 0;
    for (size_t c = 0; c < nc; c++) {
        int fluid = mac_fluid(geo, c);
        P->index[c] = fluid ? (int32_t)P->n : -1;
        if (fluid)
            P->cell[P->n++] = (int32_t)c;
        P->Adiag[c] = 0.0;
        for (int a = 0; a < g->dim; a++)
            P->Aplus[a][c] = 0.0;
    }
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = mac_c(g, i, j, k);
                if (!mac_fluid(geo, c))
                    continue;
                for (int a = 0; a < g->dim; a++)
                    for (int up = 0; up < 2; up++) {
                        double th;
                        face_kind f = mac_face(g, geo, a, i + (up && a == 0), j + (up && a == 1),
                                               k + (up && a == 2), &th);
                        P->Adiag[c] += f == FACE_ACTIVE ? 1.0 : f == FACE_DIRICHLET ? 1.0 / th : 0.0;
                        if (up)
                            P->Aplus[a][c] = f == FACE_ACTIVE ? -1.0 : 0.0;
                    }
            }
}

/* MIC(0) with Bridson's tau = 0.97 and safety sigma = 0.25 (his fig. 4.2, any dimension). */
static void build_mic(mac_projection *P, const mac_grid *g)
{
    const double tau = 0.97, sigma = 0.25;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = mac_c(g, i, j, k);
                const int ijk[3] = {i, j, k};
                P->precon[c] = 0.0;
                for (int a = 0; a < g->dim; a++)
                    P->L[a][c] = 0.0;
                if (P->index[c] < 0)
                    continue;
                double e = P->Adiag[c];
                for (int a = 0; a < g->dim; a++) {
                    if (ijk[a] == 0)
                        continue;
                    size_t l = c - mac_stride(g, a);
                    double x = P->Aplus[a][l] * P->precon[l], others = 0.0;
                    for (int b = 0; b < g->dim; b++)
                        if (b != a)
                            others += P->Aplus[b][l];
                    e -= x * x + tau * P->Aplus[a][l] * others * P->precon[l] * P->precon[l];
                }
                if (e < sigma * P->Adiag[c])
                    e = P->Adiag[c];
                P->precon[c] = e > 0.0 ? 1.0 / sqrt(e) : 0.0;
                for (int a = 0; a < g->dim; a++)   /* off-diagonals of L, used by every apply */
                    P->L[a][c] = P->Aplus[a][c] * P->precon[c];
            }
}

typedef struct op_ctx {
    mac_projection *P;
    const mac_grid *g;
    const mac_geometry *geo;
    double *q;   /* per cell scratch for the preconditioner */
    int cells;   /* PCG's vectors per cell (zero off the unknowns), not per unknown */
} op_ctx;

static int remove_region_means(mac_projection *P, const mac_geometry *geo, double *v, size_t cells);

/* The fused forms for seam_pcg_fused (multigrid): A p with p . Ap in one
 * pass when PCG runs over all cells, and one V-cycle with r . z (taken in
 * its last pass); in regions without an open side the constant is
 * projected out of z, so the preconditioner stays symmetric on A's range
 * (r . z then taken again). Over all cells, level 0's stencil gives A p = 0
 * off the unknowns and the V-cycle z = 0 there (multigrid.c: non-fluid
 * cells are neither smoothed nor prolonged to, and the first sweep writes
 * their 0), so with b = 0 and x = 0 there PCG's vectors stay 0 there and
 * its iterates are the unknowns' ones up to the dots' rounding. */
static void apply_A(void *ctx, const double *x, double *y);

static double apply_A_dot(void *ctx, const double *x, double *y)
{
    op_ctx *o = ctx;
    if (o->cells)
        return mac_mg_apply_dot(o->P->mg, x, y);
    apply_A(ctx, x, y);
    return seam_dot_ordered(o->P->n, x, y);
}

static double apply_mg_dot(void *ctx, const double *r, double *z)
{
    op_ctx *o = ctx;
    size_t n = o->cells ? mac_ncell(o->g) : o->P->n;
    double rz = mac_mg_apply(o->P->mg, n, o->cells ? NULL : o->P->cell, r, z);
    if (remove_region_means(o->P, o->geo, z, o->cells ? n : 0))
        rz = seam_dot_ordered(n, r, z);
    return rz;
}

/* y = A x on row (j, k) when every cell is an unknown (unknown c is cell
 * c): the same terms in the same order as apply_A_row. */
static void apply_A_all_row(const mac_projection *P, const mac_grid *g, const double *x, double *y, int j, int k)
{
    size_t sy = (size_t)g->nx, sz = sy * (size_t)g->ny;
    const double *d = P->Adiag, *px = P->Aplus[0], *py = P->Aplus[1], *pz = P->Aplus[2];
    size_t c0 = mac_c(g, 0, j, k);
    for (int i = 0; i < g->nx; i++) {
        size_t c = c0 + (size_t)i;
        double acc = d[c] * x[c];
        if (px[c] != 0.0)
            acc += px[c] * x[c + 1];
        if (i > 0 && px[c - 1] != 0.0)
            acc += px[c - 1] * x[c - 1];
        if (py[c] != 0.0)
            acc += py[c] * x[c + sy];
        if (j > 0 && py[c - sy] != 0.0)
            acc += py[c - sy] * x[c - sy];
        if (g->dim == 3) {
            if (pz[c] != 0.0)
                acc += pz[c] * x[c + sz];
            if (k > 0 && pz[c - sz] != 0.0)
                acc += pz[c - sz] * x[c - sz];
        }
        y[c] = acc;
    }
}

/* y = A x on row (j, k) through the unknowns' numbering. */
static void apply_A_row(const mac_projection *P, const mac_grid *g, const double *x, double *y, int j, int k)
{
    const int32_t *ix = P->index;
    for (int i = 0; i < g->nx; i++) {
        size_t c = mac_c(g, i, j, k);
        int32_t n = ix[c];
        if (n < 0)
            continue;
        const int ijk[3] = {i, j, k};
        double acc = P->Adiag[c] * x[n];
        for (int a = 0; a < g->dim; a++) {
            size_t s = mac_stride(g, a);
            if (P->Aplus[a][c] != 0.0)
                acc += P->Aplus[a][c] * x[ix[c + s]];
            if (ijk[a] > 0 && P->Aplus[a][c - s] != 0.0)
                acc += P->Aplus[a][c - s] * x[ix[c - s]];
        }
        y[n] = acc;
    }
}

/* Both operators walk the grid row by row (no index division in the loop).
 * Under MAC_OMP_MIN unknowns the rows run on the calling thread without a
 * parallel region (libgomp enters one, a futex call, even under a false if
 * clause). */
static void apply_A(void *ctx, const double *x, double *y)
{
    op_ctx *o = ctx;
    const mac_projection *P = o->P;
    const mac_grid *g = o->g;
    int all = P->n == mac_ncell(g);   /* every cell an unknown: no index lookups */
    if (P->n < MAC_OMP_MIN) {
        for (int k = 0; k < g->nz; k++)
            for (int j = 0; j < g->ny; j++)
                if (all)
                    apply_A_all_row(P, g, x, y, j, k);
                else
                    apply_A_row(P, g, x, y, j, k);
        return;
    }
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            if (all)
                apply_A_all_row(P, g, x, y, j, k);
            else
                apply_A_row(P, g, x, y, j, k);
}

/* z = (L L^T)^-1 r by the two triangular sweeps of MIC(0); the stencil
 * coefficients vanish towards non-fluid cells, so neighbours need no test. */
static void apply_mic(void *ctx, const double *r, double *z)
{
    op_ctx *o = ctx;
    const mac_projection *P = o->P;
    const mac_grid *g = o->g;
    const int32_t *ix = P->index;
    double *q = o->q;
    const int n[3] = {g->nx, g->ny, g->nz};
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = mac_c(g, i, j, k);
                if (ix[c] < 0)
                    continue;
                const int ijk[3] = {i, j, k};
                double t = r[ix[c]];
                for (int a = 0; a < g->dim; a++)
                    if (ijk[a] > 0)
                        t -= P->L[a][c - mac_stride(g, a)] * q[c - mac_stride(g, a)];
                q[c] = t * P->precon[c];
            }
    for (int k = g->nz; k-- > 0;)
        for (int j = g->ny; j-- > 0;)
            for (int i = g->nx; i-- > 0;) {
                size_t c = mac_c(g, i, j, k);
                if (ix[c] < 0)
                    continue;
                const int ijk[3] = {i, j, k};
                double t = q[c];
                for (int a = 0; a < g->dim; a++)
                    if (ijk[a] + 1 < n[a])
                        t -= P->L[a][c] * q[c + mac_stride(g, a)];
                q[c] = t * P->precon[c];
                z[ix[c]] = q[c];
            }
}

/* remove_region_means over all cells (v zero off the unknowns, and kept so):
 * the sums in cell order. One region sums every cell (the zeros change no
 * sum) and subtracts by a select: no per-cell scatter into the sums, whose
 * store-to-load chain cost more than the fused path saves. */
static void remove_region_means_cells(mac_projection *P, const mac_geometry *geo, size_t nc, double *v)
{
    int nr = geo->n_regions;
    const int32_t *region = geo->region;   /* -1 off the fluid cells, which are the unknowns */
    if (nr == 1) {   /* the one region is closed (remove_region_means) */
        double sum = 0.0;
        for (size_t c = 0; c < nc; c++)
            sum += v[c];
        double mean = sum / (double)geo->region_cells[0];
        for (size_t c = 0; c < nc; c++)
            v[c] -= region[c] >= 0 ? mean : 0.0;
        return;
    }
    double *s = P->region_sum;
    memset(s, 0, (size_t)nr * sizeof *s);
    for (size_t c = 0; c < nc; c++)
        if (region[c] >= 0)
            s[region[c]] += v[c];
    for (int r = 0; r < nr; r++)
        s[r] = geo->region_open[r] ? 0.0 : s[r] / (double)geo->region_cells[r];
    for (size_t c = 0; c < nc; c++)
        if (region[c] >= 0)
            v[c] -= s[region[c]];
}

/* Rhs and solution of regions without an open side live up to a constant:
 * remove the mean of v (per unknown, or per cell when cells, the grid's
 * cell count, is not 0) over each such
 * region; returns whether there was one. Once per MG-PCG iteration in a
 * closed box, so no allocation (the sums' room is kept with the projection,
 * sized by solve_poisson), no counting (the cell counts are kept with the
 * geometry), and one region (a fluid in a closed box) needs no per-unknown
 * region lookups. The sums run in unknown order, as they always did: the
 * same bits as before. */
static int remove_region_means(mac_projection *P, const mac_geometry *geo, double *v, size_t cells)
{
    int nr = geo->n_regions;
    size_t n = P->n;
    if (!geo->n_closed || n == 0)   /* every region has a Dirichlet face: nothing to remove */
        return 0;
    if (cells > n) {   /* per cell, with cells that are no unknowns (with none, cell order is unknown order) */
        remove_region_means_cells(P, geo, cells, v);
        return 1;
    }
    if (nr == 1) {   /* every unknown in the one closed region */
        double s = 0.0;
        for (size_t k = 0; k < n; k++)
            s += v[k];
        double mean = s / (double)geo->region_cells[0];
        for (size_t k = 0; k < n; k++)
            v[k] -= mean;
        return 1;
    }
    double *s = P->region_sum;   /* room for nr regions: solve_poisson */
    memset(s, 0, (size_t)nr * sizeof *s);
    for (size_t k = 0; k < n; k++)
        s[geo->region[P->cell[k]]] += v[k];
    for (int r = 0; r < nr; r++)   /* an open region's mean stays: v - 0 is v */
        s[r] = geo->region_open[r] ? 0.0 : s[r] / (double)geo->region_cells[r];
    for (size_t k = 0; k < n; k++)
        v[k] -= s[geo->region[P->cell[k]]];
    return 1;
}

/* MIC(0)'s factor (precon and L), only with that preconditioner. */
static void alloc_mic(mac_projection *P, size_t nc, int dim)
{
    if (!P->precon)
        P->precon = seam_xmalloc_n(nc, sizeof *P->precon);
    for (int a = 0; a < dim; a++)
        if (!P->L[a])
            P->L[a] = seam_xmalloc_n(nc, sizeof *P->L[a]);
}

/* The projection's arrays, once per fluid. */
static void alloc_projection(mac_projection *P, size_t nc, int dim)
{
    if (P->index)
        return;
    P->index = seam_xmalloc(nc * sizeof *P->index);
    P->cell = seam_xmalloc(nc * sizeof *P->cell);
    P->Adiag = seam_xmalloc(nc * sizeof *P->Adiag);
    for (int a = 0; a < 3; a++)
        P->Aplus[a] = seam_xmalloc(nc * sizeof *P->Aplus[a]);
    P->b = seam_xmalloc(nc * sizeof *P->b);
    P->p = seam_xmalloc(nc * sizeof *P->p);
    P->tmp = seam_xcalloc(nc, sizeof *P->tmp);
    P->work = seam_xcalloc(4 * nc, sizeof *P->work);
    P->built_diag = seam_xmalloc(nc * sizeof *P->built_diag);
    for (int a = 0; a < dim; a++)
        P->built_plus[a] = seam_xmalloc(nc * sizeof *P->built_plus[a]);
    P->built_index = seam_xmalloc(nc * sizeof *P->built_index);
    P->built_solid = seam_xmalloc(nc);
    if (P->precond == MAC_PRECOND_MIC0)
        alloc_mic(P, nc, dim);
}

/* Whether the preconditioner built last was built for this operator: the
 * same stencil, numbering and solid cells (the multigrid levels tell solid
 * cells from Dirichlet ones, mac_mg_build). Bit for bit, so a reused
 * preconditioner is exactly the one a fresh build would give. */
static int same_operator(const mac_projection *P, const mac_grid *g, const mac_geometry *geo)
{
    size_t nc = mac_ncell(g);
    if (!P->built || P->built_precond != P->precond || memcmp(P->built_index, P->index, nc * sizeof *P->index) != 0 ||
        memcmp(P->built_diag, P->Adiag, nc * sizeof *P->Adiag) != 0 || memcmp(P->built_solid, geo->solid, nc) != 0)
        return 0;
    for (int a = 0; a < g->dim; a++)
        if (memcmp(P->built_plus[a], P->Aplus[a], nc * sizeof *P->Aplus[a]) != 0)
            return 0;
    return 1;
}

static void remember_operator(mac_projection *P, const mac_grid *g, const mac_geometry *geo)
{
    size_t nc = mac_ncell(g);
    memcpy(P->built_index, P->index, nc * sizeof *P->index);
    memcpy(P->built_diag, P->Adiag, nc * sizeof *P->Adiag);
    memcpy(P->built_solid, geo->solid, nc);
    for (int a = 0; a < g->dim; a++)
        memcpy(P->built_plus[a], P->Aplus[a], nc * sizeof *P->Aplus[a]);
    P->built = 1;
    P->built_precond = P->precond;
    P->builds++;
}

/* The pressure difference across a face, with p = 0 at the Dirichlet point
 * theta dx from the fluid centre (Zarifi eq. 4.40). */
static double face_dp(const mac_grid *g, const mac_geometry *geo, const double *p, int axis, int i, int j, int k)
{
    double th;
    face_kind fk = mac_face(g, geo, axis, i, j, k, &th);
    int n = mac_n(g, axis), m = axis == 0 ? i : axis == 1 ? j : k;
    size_t hi = m < n ? mac_c(g, i, j, k) : 0;
    size_t lo = m > 0 ? mac_c(g, i - (axis == 0), j - (axis == 1), k - (axis == 2)) : 0;
    if (fk == FACE_ACTIVE)
        return p[hi] - p[lo];
    if (fk != FACE_DIRICHLET)
        return 0.0;
    int fluid_lo = m > 0 && mac_fluid(geo, lo) && (m == n || !mac_fluid(geo, hi));
    return fluid_lo ? -p[lo] / th : p[hi] / th;
}

/* Subtract the pressure gradient from the faces the projection owns (eq. 4.31). */
static void update_velocities(const mac_grid *g, const mac_geometry *geo, double rho, double dt,
                              const double *p, double *const vel[3])
{
    double c = dt / (rho * g->dx);
    for (int axis = 0; axis < g->dim; axis++) {
        int ni = g->nx + (axis == 0), nj = g->ny + (axis == 1), nk = g->nz + (axis == 2);
        for (int k = 0; k < nk; k++)
            for (int j = 0; j < nj; j++)
                for (int i = 0; i < ni; i++)
                    vel[axis][mac_fi(g, axis, i, j, k)] -= c * face_dp(g, geo, p, axis, i, j, k);
    }
}

/* Whether multigrid PCG runs over all cells (mac_pcg_space): under
 * MAC_PCG_AUTO when the cells that are no unknowns (solid or air) are at
 * most MAC_CELL_SPACE_OTHER of the grid. The V-cycle sweeps every cell of
 * level 0 either way; over all cells PCG's vector updates and dots also
 * run over those cells, for nothing, and save the unknowns' index lookups
 * in A p and the copies into and out of level 0 (measured in
 * docs/fluid_mac.md, step 6: faster at 5 and 12.5 %, slower at 50 %). */
#define MAC_CELL_SPACE_OTHER 0.25

static int cell_space(const mac_projection *P, const mac_grid *g)
{
    if (P->precond != MAC_PRECOND_MG || P->space == MAC_PCG_UNKNOWNS)
        return 0;
    size_t nc = mac_ncell(g);
    return P->space == MAC_PCG_CELLS || (double)(nc - P->n) <= MAC_CELL_SPACE_OTHER * (double)nc;
}

/* Solve A x = b over the fluid cells (b and x per cell, x also the initial
 * guess), compatible in enclosed regions and with their mean fixed to zero. */
static seam_status solve_poisson(mac_projection *P, const mac_grid *g, const mac_geometry *geo, const double *b,
                                 double tol, int max_iter, double *x, const char *what, const seam_host *host)
{
    size_t nc = mac_ncell(g);
    alloc_projection(P, nc, g->dim);
    assemble(P, g, geo);
    /* The preconditioner depends on the operator alone: a step's later
     * coupling iterations (while no cell changes side) and a liquid's
     * spreading solve after its pressure solve use the one built last. */
    if (!same_operator(P, g, geo)) {
        P->built = 0;
        if (P->precond == MAC_PRECOND_MG) {
            P->mg = mac_mg_build(P->mg, g, geo, P->index, P->Adiag, P->Aplus);
        } else {
            alloc_mic(P, nc, g->dim);   /* chosen after the first solve */
            build_mic(P, g);
        }
        remember_operator(P, g, geo);
    }
    if (P->region_cap < geo->n_regions) {
        free(P->region_sum);
        P->region_cap = 0;
        P->region_sum = seam_xmalloc_n((size_t)geo->n_regions, sizeof *P->region_sum);
        P->region_cap = geo->n_regions;
    }
    int cells = P->in_cells = cell_space(P, g);
    size_t n = cells ? nc : P->n;   /* PCG's vector length */
    if (cells)
        for (size_t c = 0; c < nc; c++) {
            P->b[c] = P->index[c] >= 0 ? b[c] : 0.0;
            P->p[c] = P->index[c] >= 0 ? x[c] : 0.0;
        }
    else
        for (size_t k = 0; k < P->n; k++) {
            P->b[k] = b[P->cell[k]];
            P->p[k] = x[P->cell[k]];
        }
    remove_region_means(P, geo, P->b, cells ? nc : 0);
    P->iterations = 0;
    P->residual = 0.0;
    P->pcg_cpu_ms = P->pcg_wall_ms = 0.0;
    P->iteration_bytes = P->precond == MAC_PRECOND_MG ? mac_mg_iteration_bytes(P->mg, n) : 0.0;
    if (seam_norm2(n, P->b) == 0.0) {
        memset(P->p, 0, n * sizeof *P->p);
    } else if (P->n) {
        op_ctx ctx = {P, g, geo, P->tmp, cells};
        seam_linop A = {P->n, apply_A, &ctx}, M = {P->n, apply_mic, &ctx};
        seam_dot_linop A_dot = {n, apply_A_dot, &ctx}, M_dot = {n, apply_mg_dot, &ctx};
        seam_krylov_opts o = {tol, 0.0, max_iter, 0};
        seam_krylov_stats st;
        struct timespec c0, c1, w0, w1;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
        clock_gettime(CLOCK_MONOTONIC, &w0);
        if (P->precond == MAC_PRECOND_MG)
            seam_pcg_fused(&A_dot, &M_dot, P->b, P->p, &o, P->work, &st);
        else
            seam_pcg_work(&A, &M, P->b, P->p, &o, P->work, &st);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
        clock_gettime(CLOCK_MONOTONIC, &w1);
        P->pcg_cpu_ms = 1e3 * (double)(c1.tv_sec - c0.tv_sec) + 1e-6 * (double)(c1.tv_nsec - c0.tv_nsec);
        P->pcg_wall_ms = 1e3 * (double)(w1.tv_sec - w0.tv_sec) + 1e-6 * (double)(w1.tv_nsec - w0.tv_nsec);
        P->iterations = st.iterations;
        P->residual = st.residual;
        if (!st.converged) {   /* its iterate is no solution: the step fails (docs/fluid_mac.md) */
            seam_logf(host, SEAM_LOG_WARN, "%s PCG (%s) %s: %d iterations (at most %d), relative residual %.3g > "
                      "tolerance %g", what, P->precond == MAC_PRECOND_MG ? "multigrid" : "MIC(0)",
                      st.breakdown ? "broke down" : "did not converge", st.iterations, max_iter,
                      st.residual / seam_norm2(n, P->b), tol);
            return SEAM_UNSTABLE;
        }
    }
    remove_region_means(P, geo, P->p, cells ? nc : 0);
    for (size_t c = 0; c < nc; c++)
        x[c] = P->index[c] < 0 ? 0.0 : cells ? P->p[c] : P->p[P->index[c]];
    return SEAM_OK;
}

seam_status mac_project(mac_projection *P, const mac_grid *g, const mac_geometry *geo, const double *s,
                        double rho, double dt, double tol, int max_iter, double *const vel[3], double *p,
                        const seam_host *host)
{
    size_t nc = mac_ncell(g);
    double *b = SEAM_NEW_N(double, nc);
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {   /* eq. 4.39, B p = E u*: A p = -(rho/dt) dx^2 (div u* - s) */
                size_t c = mac_c(g, i, j, k);
                b[c] = -(rho / dt) * g->dx * g->dx * (mac_divergence(g, vel, i, j, k) - (s ? s[c] : 0.0));
            }
    seam_status st = solve_poisson(P, g, geo, b, tol, max_iter, p, "pressure", host);
    free(b);
    if (st == SEAM_OK)
        update_velocities(g, geo, rho, dt, p, vel);
    return st;
}

seam_status mac_spread(mac_projection *P, const mac_grid *g, const mac_geometry *geo, const double *e,
                       double *scratch, double tol, int max_iter, double *const d[3], const seam_host *host)
{
    size_t nc = mac_ncell(g);
    double *b = scratch, *q = scratch + nc;
#pragma omp parallel for schedule(static) if (nc >= MAC_OMP_MIN)
    for (size_t c = 0; c < nc; c++) {   /* div d = e with d = -grad q: A q = dx^2 e */
        b[c] = g->dx * g->dx * e[c];
        q[c] = 0.0;
    }
    seam_status st = solve_poisson(P, g, geo, b, tol, max_iter, q, "particle spreading", host);
    for (int a = 0; a < g->dim; a++)
        memset(d[a], 0, mac_nf(g, a) * sizeof *d[a]);
    if (st == SEAM_OK)   /* d = -grad q, the same face differences as the pressure update */
        update_velocities(g, geo, 1.0, 1.0, q, d);
    return st;
}

void mac_projection_free(mac_projection *P)
{
    free(P->index);
    free(P->cell);
    free(P->Adiag);
    for (int a = 0; a < 3; a++) {
        free(P->Aplus[a]);
        free(P->L[a]);
    }
    free(P->precon);
    free(P->b);
    free(P->p);
    free(P->tmp);
    free(P->work);
    free(P->region_sum);
    free(P->built_diag);
    for (int a = 0; a < 3; a++)
        free(P->built_plus[a]);
    free(P->built_index);
    free(P->built_solid);
    mac_mg_free(&P->mg);
    mac_precond keep = P->precond;
    mac_pcg_space space = P->space;
    memset(P, 0, sizeof *P);
    P->precond = keep;
    P->space = space;
}

/* ---- scalar transport ------------------------------------------------------ */

/* Largest fraction of a cell's content that leaves it over dt. */
static double outflow_fraction(const mac_grid *g, const uint8_t *solid, double *const vel[3], double dt)
{
    double worst = 0.0;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                if (solid[mac_c(g, i, j, k)])
                    continue;
                double out = 0.0;
                for (int a = 0; a < g->dim; a++)
                    out = out + fmax(vel[a][mac_fi(g, a, i + (a == 0), j + (a == 1), k + (a == 2))], 0.0) +
                          fmax(-vel[a][mac_fi(g, a, i, j, k)], 0.0);
                worst = fmax(worst, out * dt / g->dx);
            }
    return worst;
}

/* Upwind amount crossing a face from the - side (value qm) to the + side (qp)
 * per unit area and time; nothing crosses into or out of a solid. */
static double face_flux(double un, int m_solid, int p_solid, double qm, double qp)
{
    if (m_solid || p_solid)
        return 0.0;
    return un * (un > 0.0 ? qm : qp);
}

/* Whether a transport would leave q zero: q is zero in every cell, so are
 * the outside values at every boundary face, and the volume sources bring
 * nothing in. Every flux is then a zero times a velocity, and the update
 * below gives +0 in every cell (a smoke-free fluid: the common case in FSI). */
static int stays_zero(const mac_grid *g, double *const qb[3], const double *s, const double *q_src, const double *q)
{
    size_t nc = mac_ncell(g);
    for (size_t c = 0; c < nc; c++)
        if (q[c] != 0.0 || (s && s[c] != 0.0 && q_src[c] != 0.0))
            return 0;
    for (int a = 0; a < g->dim; a++)
        for (size_t f = 0; f < mac_nf(g, a); f++)
            if (qb[a][f] != 0.0)
                return 0;
    return 1;
}

int mac_transport_scalar(const mac_grid *g, const mac_geometry *geo, double *const vel[3], double dt,
                         double *const qb[3], const double *s, const double *q_src, int max_sub, double *q)
{
    const uint8_t *solid = geo->solid;
    double frac = outflow_fraction(g, solid, vel, dt);
    int n_sub = frac > 1.0 ? (int)ceil(frac) : 1;
    if (!(frac <= (double)max_sub))
        return -1;
    size_t nc = mac_ncell(g);
    if (stays_zero(g, qb, s, q_src, q)) {
        memset(q, 0, nc * sizeof *q);   /* the +0 the update gives (a -0 in q would become +0 there too) */
        return n_sub;
    }
    double h = dt / n_sub / g->dx;   /* flux per unit area times h: change of cell value */
    double *dq = seam_xmalloc_n(nc, sizeof *dq);
    for (int sub = 0; sub < n_sub; sub++) {
        memset(dq, 0, nc * sizeof *dq);
        for (int axis = 0; axis < g->dim; axis++) {
            int ni = g->nx + (axis == 0), nj = g->ny + (axis == 1), nk = g->nz + (axis == 2);
            size_t st = mac_stride(g, axis);
            for (int k = 0; k < nk; k++)
                for (int j = 0; j < nj; j++)
                    for (int i = 0; i < ni; i++) {
                        int m = axis == 0 ? i : axis == 1 ? j : k;
                        int in_m = m > 0, in_p = m < mac_n(g, axis);
                        size_t cp = in_p ? mac_c(g, i, j, k) : 0;
                        size_t cm = in_m ? mac_c(g, i, j, k) - st : 0;
                        size_t f = mac_fi(g, axis, i, j, k);
                        double F = geo->shell[axis][f]
                                       ? 0.0
                                       : face_flux(vel[axis][f], in_m && solid[cm], in_p && solid[cp],
                                                   in_m ? q[cm] : qb[axis][f], in_p ? q[cp] : qb[axis][f]);
                        if (in_m)
                            dq[cm] -= h * F;
                        if (in_p)
                            dq[cp] += h * F;
                    }
        }
        for (size_t c = 0; c < nc; c++)   /* volume sources bring their own value in */
            q[c] += dq[c] + (s ? h * g->dx * s[c] * q_src[c] : 0.0);
    }
    free(dq);
    return n_sub;
}

/* ---- extrapolation ----------------------------------------------------------- */

/* One component: faces of an (n[0] x n[1] x n[2]) array, `valid` tells the
 * known ones. */
static void extrapolate_component(const int n[3], int dim, uint8_t *valid, int layers, double *a)
{
    size_t total = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
    const size_t stride[3] = {1, (size_t)n[0], (size_t)n[0] * (size_t)n[1]};
    /* the layer (1 ... 255, then 1 again) that gave a face its value, 0: none;
     * a repeated stamp is on faces already valid, whose value stayed val[f] */
    uint8_t *added = SEAM_NEW_N(uint8_t, total);
    double *val = seam_xmalloc_n(total, sizeof *val);
    for (int layer = 1; layer <= layers; layer++) {
        uint8_t stamp = (uint8_t)(1 + (layer - 1) % 255);
        /* each face from the last layer's values only, kept aside and written
         * after the sweep: the same result with any number of threads */
#pragma omp parallel for collapse(2) schedule(static) if (total >= MAC_OMP_MIN)
        for (int k = 0; k < n[2]; k++)
            for (int j = 0; j < n[1]; j++)
                for (int i = 0; i < n[0]; i++) {
                    size_t f = (size_t)i + stride[1] * (size_t)j + stride[2] * (size_t)k;
                    if (valid[f])
                        continue;
                    const int ijk[3] = {i, j, k};
                    double sum = 0.0;
                    int cnt = 0;
                    for (int d = 0; d < dim; d++)
                        for (int up = 0; up < 2; up++) {
                            if (up ? ijk[d] + 1 >= n[d] : ijk[d] == 0)
                                continue;
                            size_t h = up ? f + stride[d] : f - stride[d];
                            if (valid[h]) {
                                sum += a[h];
                                cnt++;
                            }
                        }
                    if (cnt) {
                        val[f] = sum / cnt;
                        added[f] = stamp;
                    }
                }
#pragma omp parallel for schedule(static) if (total >= MAC_OMP_MIN)
        for (size_t f = 0; f < total; f++)
            if (added[f] == stamp) {
                a[f] = val[f];
                valid[f] = 1;
            }
    }
#pragma omp parallel for schedule(static) if (total >= MAC_OMP_MIN)
    for (size_t f = 0; f < total; f++)
        if (!valid[f])
            a[f] = 0.0;
    free(added);
    free(val);
}

void mac_extrapolate(const mac_grid *g, const mac_geometry *geo, int layers, double *const vel[3])
{
    for (int axis = 0; axis < g->dim; axis++) {
        const int n[3] = {g->nx + (axis == 0), g->ny + (axis == 1), g->nz + (axis == 2)};
        uint8_t *valid = seam_xmalloc(mac_nf(g, axis));
#pragma omp parallel for collapse(2) schedule(static) if (mac_nf(g, axis) >= MAC_OMP_MIN)
        for (int k = 0; k < n[2]; k++)
            for (int j = 0; j < n[1]; j++)
                for (int i = 0; i < n[0]; i++)
                    valid[mac_fi(g, axis, i, j, k)] = mac_face(g, geo, axis, i, j, k, NULL) != FACE_AIR;
        extrapolate_component(n, g->dim, valid, layers, vel[axis]);
        free(valid);
    }
}
