/* fluid_mac: geometry, advection and pressure projection on a 2D MAC grid. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mac.h"
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
    uint8_t *toggle = calloc(row * (size_t)g->ny, 1);
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
            solid[mac_c(g, i, j)] = in;
        }
    }
    free(toggle);
}

/* Which side of the line a-b the point c lies on (points on the line count as +). */
static int side_of(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) >= 0.0;
}

/* Faces whose dual segment (between the two cell centres) a thin shell crosses. */
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
                        *(axis == 0 ? &geo->shell_u[mac_u(g, i, j)] : &geo->shell_v[mac_v(g, i, j)]) = 1;
                }
    }
}

face_kind mac_face(const mac_grid *g, const mac_geometry *geo, int axis, int i, int j, double *theta)
{
    int n = axis == 0 ? g->nx : g->ny;
    int k = axis == 0 ? i : j;
    if (theta)
        *theta = 1.0;
    if (k == 0 || k == n) {
        size_t c = k == 0 ? mac_c(g, i, j) : (axis == 0 ? mac_c(g, i - 1, j) : mac_c(g, i, j - 1));
        mac_bc bc = g->bc[k == 0 ? (axis == 0 ? SIDE_LEFT : SIDE_BOTTOM) : (axis == 0 ? SIDE_RIGHT : SIDE_TOP)];
        if (bc == BC_WALL || geo->solid[c])
            return FACE_FIXED;
        if (!mac_fluid(geo, c))
            return FACE_AIR;
        if (theta)
            *theta = 0.5;   /* p = 0 on the side itself, half a cell from the centre */
        return FACE_DIRICHLET;
    }
    size_t lo = axis == 0 ? mac_c(g, i - 1, j) : mac_c(g, i, j - 1), hi = mac_c(g, i, j);
    if (geo->solid[lo] || geo->solid[hi])
        return FACE_FIXED;
    if (geo->shell_u && (axis == 0 ? geo->shell_u[mac_u(g, i, j)] : geo->shell_v[mac_v(g, i, j)]))
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

/* Interior faces with a solid cell on at least one side or a shell across. */
static void collect_solid_faces(mac_geometry *geo, const mac_grid *g)
{
    size_t cap = 64, n = 0;
    solid_face *f = malloc(cap * sizeof *f);
    for (int axis = 0; axis < 2; axis++) {
        int ni = axis == 0 ? g->nx + 1 : g->nx, nj = axis == 0 ? g->ny : g->ny + 1;
        for (int j = 0; j < nj; j++)
            for (int i = 0; i < ni; i++) {
                if ((axis == 0 && (i == 0 || i == g->nx)) || (axis == 1 && (j == 0 || j == g->ny)))
                    continue;
                int lo = geo->solid[axis == 0 ? mac_c(g, i - 1, j) : mac_c(g, i, j - 1)];
                int hi = geo->solid[mac_c(g, i, j)];
                int shell = axis == 0 ? geo->shell_u[mac_u(g, i, j)] : geo->shell_v[mac_v(g, i, j)];
                if (!lo && !hi && !shell)
                    continue;
                if (n == cap)
                    f = realloc(f, (cap *= 2) * sizeof *f);
                f[n++] = (solid_face){axis, i, j, lo || hi ? (lo && hi ? 0 : (hi ? +1 : -1)) : SHELL};
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
    int32_t *stack = malloc(nc * sizeof *stack);
    for (size_t c = 0; c < nc; c++)
        geo->region[c] = -1;
    int nr = 0;
    size_t cap = 8;
    geo->region_open = calloc(cap, 1);
    for (size_t seed = 0; seed < nc; seed++) {
        if (!mac_fluid(geo, seed) || geo->region[seed] >= 0)
            continue;
        if ((size_t)nr == cap) {
            geo->region_open = realloc(geo->region_open, cap * 2);
            memset(geo->region_open + cap, 0, cap);
            cap *= 2;
        }
        size_t top = 0;
        stack[top++] = (int32_t)seed;
        geo->region[seed] = nr;
        while (top) {
            int32_t c = stack[--top];
            int i = c % g->nx, j = c / g->nx;
            /* The four faces: (axis, face i, face j, neighbour i, neighbour j). */
            const int nb[4][5] = {{0, i, j, i - 1, j}, {0, i + 1, j, i + 1, j},
                                  {1, i, j, i, j - 1}, {1, i, j + 1, i, j + 1}};
            for (int k = 0; k < 4; k++) {
                face_kind fk = mac_face(g, geo, nb[k][0], nb[k][1], nb[k][2], NULL);
                if (fk == FACE_DIRICHLET)
                    geo->region_open[nr] = 1;
                if (fk != FACE_ACTIVE)
                    continue;
                size_t q = mac_c(g, nb[k][3], nb[k][4]);
                if (geo->region[q] < 0) {
                    geo->region[q] = nr;
                    stack[top++] = (int32_t)q;
                }
            }
        }
        nr++;
    }
    geo->n_regions = nr;
    free(stack);
}

seam_status mac_geometry_build(mac_geometry *geo, const mac_grid *g, const seam_interface *iface,
                               const double *X, double r, const double *phi, const seam_host *host)
{
    memset(geo, 0, sizeof *geo);
    size_t nc = mac_ncell(g);
    geo->solid = calloc(nc, 1);
    geo->region = malloc(nc * sizeof *geo->region);
    geo->shell_u = calloc(mac_nu(g), 1);
    geo->shell_v = calloc(mac_nv(g), 1);
    if (iface && iface->n_elems) {
        mark_solid_cells(g, iface, X, geo->solid);
        mark_shell_faces(geo, g, iface, X);
    }
    if (phi) {
        geo->phi = phi;
        geo->air = malloc(nc);
        for (size_t c = 0; c < nc; c++)
            geo->air[c] = !geo->solid[c] && phi[c] >= 0.0;
    }
    collect_solid_faces(geo, g);
    label_regions(geo, g);
    if (!geo->n_faces)
        return SEAM_OK;
    double *S = malloc(2 * geo->n_faces * sizeof *S);
    for (size_t f = 0; f < geo->n_faces; f++) {
        const solid_face *sf = &geo->faces[f];
        S[2 * f] = g->origin[0] + (sf->i + (sf->axis == 0 ? 0.0 : 0.5)) * g->dx;
        S[2 * f + 1] = g->origin[1] + (sf->j + (sf->axis == 0 ? 0.5 : 0.0)) * g->dx;
    }
    geo->W = seam_mapping_new(2, iface->n_points, X, geo->n_faces, S, r, NULL);
    seam_status st = SEAM_OK;
    for (size_t f = 0; f < geo->n_faces && st == SEAM_OK; f++)
        if (geo->faces[f].s != 0 && !seam_mapping_covered(geo->W, f)) {
            seam_logf(host, SEAM_LOG_ERROR,
                      "the %s face at (%g, %g) has no interface point within the kernel "
                      "radius %g m: sample the interface more densely or raise kernel_radius",
                      geo->faces[f].s == SHELL ? "shell" : "fluid-solid", S[2 * f], S[2 * f + 1], r);
            st = SEAM_ERROR;
        }
    free(S);
    return st;
}

seam_status mac_geometry_liquid(mac_geometry *geo, const mac_grid *g, const mac_geometry *from, const double *phi)
{
    memset(geo, 0, sizeof *geo);
    size_t nc = mac_ncell(g);
    geo->solid = malloc(nc);
    memcpy(geo->solid, from->solid, nc);
    geo->shell_u = malloc(mac_nu(g));
    geo->shell_v = malloc(mac_nv(g));
    memcpy(geo->shell_u, from->shell_u, mac_nu(g));
    memcpy(geo->shell_v, from->shell_v, mac_nv(g));
    geo->region = malloc(nc * sizeof *geo->region);
    geo->phi = phi;
    geo->air = malloc(nc);
    for (size_t c = 0; c < nc; c++)
        geo->air[c] = !geo->solid[c] && phi[c] >= 0.0;
    label_regions(geo, g);
    return SEAM_OK;
}

void mac_geometry_free(mac_geometry *geo)
{
    free(geo->solid);
    free(geo->air);
    free(geo->shell_u);
    free(geo->shell_v);
    free(geo->faces);
    free(geo->region);
    free(geo->region_open);
    seam_mapping_destroy(&geo->W);
    memset(geo, 0, sizeof *geo);
}

/* ---- advection ---------------------------------------------------------- */

static double clampd(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

/* Bilinear interpolation in an (ni x nj) array at fractional index (fx, fy);
 * lo and hi (may be NULL) get the smallest and largest of the four values. */
static double bilinear_range(const double *a, int ni, int nj, double fx, double fy, double *lo, double *hi)
{
    fx = clampd(fx, 0.0, ni - 1);
    fy = clampd(fy, 0.0, nj - 1);
    int i = (int)fx, j = (int)fy;
    if (i > ni - 2)
        i = ni - 2 < 0 ? 0 : ni - 2;
    if (j > nj - 2)
        j = nj - 2 < 0 ? 0 : nj - 2;
    double s = fx - i, t = fy - j;
    int i1 = i + 1 < ni ? i + 1 : i, j1 = j + 1 < nj ? j + 1 : j;
    double a00 = a[(size_t)j * (size_t)ni + (size_t)i], a10 = a[(size_t)j * (size_t)ni + (size_t)i1];
    double a01 = a[(size_t)j1 * (size_t)ni + (size_t)i], a11 = a[(size_t)j1 * (size_t)ni + (size_t)i1];
    if (lo)
        *lo = fmin(fmin(a00, a10), fmin(a01, a11));
    if (hi)
        *hi = fmax(fmax(a00, a10), fmax(a01, a11));
    return (1 - s) * (1 - t) * a00 + s * (1 - t) * a10 + (1 - s) * t * a01 + s * t * a11;
}

static double u_at(const mac_grid *g, const double *u, double x, double y, double *lo, double *hi)
{
    return bilinear_range(u, g->nx + 1, g->ny, (x - g->origin[0]) / g->dx, (y - g->origin[1]) / g->dx - 0.5, lo, hi);
}

static double v_at(const mac_grid *g, const double *v, double x, double y, double *lo, double *hi)
{
    return bilinear_range(v, g->nx, g->ny + 1, (x - g->origin[0]) / g->dx - 0.5, (y - g->origin[1]) / g->dx, lo, hi);
}

double mac_sample_u(const mac_grid *g, const double *u, double x, double y) { return u_at(g, u, x, y, NULL, NULL); }

double mac_sample_v(const mac_grid *g, const double *v, double x, double y) { return v_at(g, v, x, y, NULL, NULL); }

/* RK2 (midpoint) backtrace of the point (x, y) over dt (Zarifi eqs. 4.29-4.30). */
static void backtrace(const mac_grid *g, const double *u0, const double *v0, double dt, double *x, double *y)
{
    double xm = *x - 0.5 * dt * mac_sample_u(g, u0, *x, *y);
    double ym = *y - 0.5 * dt * mac_sample_v(g, v0, *x, *y);
    double um = mac_sample_u(g, u0, xm, ym), vm = mac_sample_v(g, v0, xm, ym);
    *x -= dt * um;
    *y -= dt * vm;
}

/* The faces of (qu, qv) carried by the velocity (u0, v0) over dt into (u, v);
 * lo_* / hi_* (may be NULL) get the range of the values each sample used. */
static void advect_by(const mac_grid *g, const double *u0, const double *v0, double dt, const double *qu,
                      const double *qv, double *u, double *v, double *lo_u, double *hi_u, double *lo_v, double *hi_v)
{
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i <= g->nx; i++) {
            double x = g->origin[0] + i * g->dx, y = g->origin[1] + (j + 0.5) * g->dx;
            backtrace(g, u0, v0, dt, &x, &y);
            size_t f = mac_u(g, i, j);
            u[f] = u_at(g, qu, x, y, lo_u ? lo_u + f : NULL, hi_u ? hi_u + f : NULL);
        }
    for (int j = 0; j <= g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            double x = g->origin[0] + (i + 0.5) * g->dx, y = g->origin[1] + j * g->dx;
            backtrace(g, u0, v0, dt, &x, &y);
            size_t f = mac_v(g, i, j);
            v[f] = v_at(g, qv, x, y, lo_v ? lo_v + f : NULL, hi_v ? hi_v + f : NULL);
        }
}

void mac_advect(const mac_grid *g, const double *u0, const double *v0, double dt, double *u, double *v)
{
    advect_by(g, u0, v0, dt, u0, v0, u, v, NULL, NULL, NULL, NULL);
}

/* One component of the MacCormack update, clamped to the forward stencil's range. */
static void maccormack_combine(size_t n, const double *q0, const double *q_back, const double *lo, const double *hi,
                               double *q)
{
    for (size_t f = 0; f < n; f++)
        q[f] = clampd(q[f] + 0.5 * (q0[f] - q_back[f]), lo[f], hi[f]);
}

void mac_advect_maccormack(const mac_grid *g, const double *u0, const double *v0, double dt, double *u, double *v)
{
    size_t nu = mac_nu(g), nv = mac_nv(g);
    double *lo_u = malloc(nu * sizeof *lo_u), *hi_u = malloc(nu * sizeof *hi_u);
    double *lo_v = malloc(nv * sizeof *lo_v), *hi_v = malloc(nv * sizeof *hi_v);
    double *ub = malloc(nu * sizeof *ub), *vb = malloc(nv * sizeof *vb);
    /* Forward to u^, back again with the same velocity to u~; the difference to u^n
     * estimates the error of the forward step, half of which is taken back. */
    advect_by(g, u0, v0, dt, u0, v0, u, v, lo_u, hi_u, lo_v, hi_v);
    advect_by(g, u0, v0, -dt, u, v, ub, vb, NULL, NULL, NULL, NULL);
    maccormack_combine(nu, u0, ub, lo_u, hi_u, u);
    maccormack_combine(nv, v0, vb, lo_v, hi_v, v);
    free(lo_u);
    free(hi_u);
    free(lo_v);
    free(hi_v);
    free(ub);
    free(vb);
}

/* ---- projection ---------------------------------------------------------- */

double mac_divergence(const mac_grid *g, const double *u, const double *v, int i, int j)
{
    return (u[mac_u(g, i + 1, j)] - u[mac_u(g, i, j)] + v[mac_v(g, i, j + 1)] - v[mac_v(g, i, j)]) / g->dx;
}

/* The Poisson stencil over fluid cells (Zarifi eq. 4.38): the diagonal counts
 * active faces and 1/theta for Dirichlet faces (eq. 4.44), off-diagonals -1
 * across active faces. */
static void assemble(mac_projection *P, const mac_grid *g, const mac_geometry *geo)
{
    size_t nc = mac_ncell(g);
    P->n = 0;
    for (size_t c = 0; c < nc; c++) {
        int fluid = mac_fluid(geo, c);
        P->index[c] = fluid ? (int32_t)P->n : -1;
        if (fluid)
            P->cell[P->n++] = (int32_t)c;
        P->Adiag[c] = P->Aplusi[c] = P->Aplusj[c] = 0.0;
    }
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            size_t c = mac_c(g, i, j);
            if (!mac_fluid(geo, c))
                continue;
            double th[4];
            face_kind f[4] = {mac_face(g, geo, 0, i, j, &th[0]), mac_face(g, geo, 0, i + 1, j, &th[1]),
                              mac_face(g, geo, 1, i, j, &th[2]), mac_face(g, geo, 1, i, j + 1, &th[3])};
            for (int k = 0; k < 4; k++)
                P->Adiag[c] += f[k] == FACE_ACTIVE ? 1.0 : f[k] == FACE_DIRICHLET ? 1.0 / th[k] : 0.0;
            P->Aplusi[c] = f[1] == FACE_ACTIVE ? -1.0 : 0.0;
            P->Aplusj[c] = f[3] == FACE_ACTIVE ? -1.0 : 0.0;
        }
}

/* MIC(0) with Bridson's tau = 0.97 and safety sigma = 0.25. */
static void build_mic(mac_projection *P, const mac_grid *g)
{
    const double tau = 0.97, sigma = 0.25;
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            size_t c = mac_c(g, i, j);
            P->precon[c] = P->Li[c] = P->Lj[c] = 0.0;
            if (P->index[c] < 0)
                continue;
            double e = P->Adiag[c];
            if (i > 0) {
                size_t l = mac_c(g, i - 1, j);
                double a = P->Aplusi[l] * P->precon[l];
                e -= a * a + tau * P->Aplusi[l] * P->Aplusj[l] * P->precon[l] * P->precon[l];
            }
            if (j > 0) {
                size_t b = mac_c(g, i, j - 1);
                double a = P->Aplusj[b] * P->precon[b];
                e -= a * a + tau * P->Aplusj[b] * P->Aplusi[b] * P->precon[b] * P->precon[b];
            }
            if (e < sigma * P->Adiag[c])
                e = P->Adiag[c];
            P->precon[c] = e > 0.0 ? 1.0 / sqrt(e) : 0.0;
            P->Li[c] = P->Aplusi[c] * P->precon[c];   /* off-diagonals of L, used by every apply */
            P->Lj[c] = P->Aplusj[c] * P->precon[c];
        }
}

typedef struct op_ctx {
    mac_projection *P;
    const mac_grid *g;
    double *q;   /* per cell scratch for the preconditioner */
} op_ctx;

/* Both operators walk the grid row by row (no index division in the loop). */
static void apply_A(void *ctx, const double *x, double *y)
{
    op_ctx *o = ctx;
    const mac_projection *P = o->P;
    size_t nx = (size_t)o->g->nx, ny = (size_t)o->g->ny;
    const int32_t *ix = P->index;
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            size_t c = i + nx * j;
            int32_t k = ix[c];
            if (k < 0)
                continue;
            double acc = P->Adiag[c] * x[k];
            if (P->Aplusi[c] != 0.0)
                acc += P->Aplusi[c] * x[ix[c + 1]];
            if (i > 0 && P->Aplusi[c - 1] != 0.0)
                acc += P->Aplusi[c - 1] * x[ix[c - 1]];
            if (P->Aplusj[c] != 0.0)
                acc += P->Aplusj[c] * x[ix[c + nx]];
            if (j > 0 && P->Aplusj[c - nx] != 0.0)
                acc += P->Aplusj[c - nx] * x[ix[c - nx]];
            y[k] = acc;
        }
}

/* z = (L L^T)^-1 r by the two triangular sweeps of MIC(0); the stencil
 * coefficients vanish towards non-fluid cells, so neighbours need no test. */
static void apply_mic(void *ctx, const double *r, double *z)
{
    op_ctx *o = ctx;
    const mac_projection *P = o->P;
    size_t nx = (size_t)o->g->nx, ny = (size_t)o->g->ny;
    const int32_t *ix = P->index;
    double *q = o->q;
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            size_t c = i + nx * j;
            if (ix[c] < 0)
                continue;
            double t = r[ix[c]];
            if (i > 0)
                t -= P->Li[c - 1] * q[c - 1];
            if (j > 0)
                t -= P->Lj[c - nx] * q[c - nx];
            q[c] = t * P->precon[c];
        }
    for (size_t j = ny; j-- > 0;)
        for (size_t i = nx; i-- > 0;) {
            size_t c = i + nx * j;
            if (ix[c] < 0)
                continue;
            double t = q[c];
            if (i + 1 < nx)
                t -= P->Li[c] * q[c + 1];
            if (j + 1 < ny)
                t -= P->Lj[c] * q[c + nx];
            q[c] = t * P->precon[c];
            z[ix[c]] = q[c];
        }
}

/* Rhs and solution of regions without an open side live up to a constant:
 * remove the mean of v over each such region. */
static void remove_region_means(const mac_projection *P, const mac_geometry *geo, double *v)
{
    int nr = geo->n_regions;
    double *sum = calloc((size_t)nr + 1, sizeof *sum), *cnt = calloc((size_t)nr + 1, sizeof *cnt);
    for (size_t k = 0; k < P->n; k++) {
        int r = geo->region[P->cell[k]];
        sum[r] += v[k];
        cnt[r] += 1.0;
    }
    for (size_t k = 0; k < P->n; k++) {
        int r = geo->region[P->cell[k]];
        if (!geo->region_open[r])
            v[k] -= sum[r] / cnt[r];
    }
    free(sum);
    free(cnt);
}

static void alloc_projection(mac_projection *P, size_t nc)
{
    if (P->index)
        return;
    P->index = malloc(nc * sizeof *P->index);
    P->cell = malloc(nc * sizeof *P->cell);
    P->Adiag = malloc(nc * sizeof *P->Adiag);
    P->Aplusi = malloc(nc * sizeof *P->Aplusi);
    P->Aplusj = malloc(nc * sizeof *P->Aplusj);
    P->precon = malloc(nc * sizeof *P->precon);
    P->Li = malloc(nc * sizeof *P->Li);
    P->Lj = malloc(nc * sizeof *P->Lj);
    P->b = malloc(nc * sizeof *P->b);
    P->p = malloc(nc * sizeof *P->p);
    P->tmp = calloc(nc, sizeof *P->tmp);
}

/* The pressure difference across a face, with p = 0 at the Dirichlet point
 * theta dx from the fluid centre (Zarifi eq. 4.40). */
static double face_dp(const mac_grid *g, const mac_geometry *geo, const double *p, int axis, int i, int j)
{
    double th;
    face_kind fk = mac_face(g, geo, axis, i, j, &th);
    int n = axis == 0 ? g->nx : g->ny, k = axis == 0 ? i : j;
    size_t hi = k < n ? mac_c(g, i, j) : 0;
    size_t lo = k > 0 ? (axis == 0 ? mac_c(g, i - 1, j) : mac_c(g, i, j - 1)) : 0;
    if (fk == FACE_ACTIVE)
        return p[hi] - p[lo];
    if (fk != FACE_DIRICHLET)
        return 0.0;
    int fluid_lo = k > 0 && mac_fluid(geo, lo) && (k == n || !mac_fluid(geo, hi));
    return fluid_lo ? -p[lo] / th : p[hi] / th;
}

/* Subtract the pressure gradient from the faces the projection owns (eq. 4.31). */
static void update_velocities(const mac_grid *g, const mac_geometry *geo, double rho, double dt,
                              const double *p, double *u, double *v)
{
    double k = dt / (rho * g->dx);
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i <= g->nx; i++)
            u[mac_u(g, i, j)] -= k * face_dp(g, geo, p, 0, i, j);
    for (int j = 0; j <= g->ny; j++)
        for (int i = 0; i < g->nx; i++)
            v[mac_v(g, i, j)] -= k * face_dp(g, geo, p, 1, i, j);
}

/* Solve A x = b over the fluid cells (b and x per cell, x also the initial
 * guess), compatible in enclosed regions and with their mean fixed to zero. */
static seam_status solve_poisson(mac_projection *P, const mac_grid *g, const mac_geometry *geo, const double *b,
                                 double tol, int max_iter, double *x, const char *what, const seam_host *host)
{
    size_t nc = mac_ncell(g);
    alloc_projection(P, nc);
    assemble(P, g, geo);
    build_mic(P, g);
    for (size_t k = 0; k < P->n; k++) {
        P->b[k] = b[P->cell[k]];
        P->p[k] = x[P->cell[k]];
    }
    remove_region_means(P, geo, P->b);
    P->iterations = 0;
    P->residual = 0.0;
    if (seam_norm2(P->n, P->b) == 0.0) {
        memset(P->p, 0, P->n * sizeof *P->p);
    } else if (P->n) {
        op_ctx ctx = {P, g, P->tmp};
        seam_linop A = {P->n, apply_A, &ctx}, M = {P->n, apply_mic, &ctx};
        seam_krylov_opts o = {tol, 0.0, max_iter, 0};
        seam_krylov_stats st;
        seam_pcg(&A, &M, P->b, P->p, &o, &st);
        P->iterations = st.iterations;
        P->residual = st.residual;
        if (!st.converged) {
            seam_logf(host, SEAM_LOG_WARN, "%s solve did not converge: %d iterations, residual %.3g (tolerance %g)%s",
                      what, st.iterations, st.residual, tol, st.breakdown ? ", breakdown" : "");
            return SEAM_UNSTABLE;
        }
    }
    remove_region_means(P, geo, P->p);
    for (size_t c = 0; c < nc; c++)
        x[c] = P->index[c] >= 0 ? P->p[P->index[c]] : 0.0;
    return SEAM_OK;
}

seam_status mac_project(mac_projection *P, const mac_grid *g, const mac_geometry *geo, const double *s,
                        double rho, double dt, double tol, int max_iter, double *u, double *v, double *p,
                        const seam_host *host)
{
    size_t nc = mac_ncell(g);
    double *b = calloc(nc, sizeof *b);
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {   /* eq. 4.39, B p = E u*: A p = -(rho/dt) dx^2 (div u* - s) */
            size_t c = mac_c(g, i, j);
            b[c] = -(rho / dt) * g->dx * g->dx * (mac_divergence(g, u, v, i, j) - (s ? s[c] : 0.0));
        }
    seam_status st = solve_poisson(P, g, geo, b, tol, max_iter, p, "pressure", host);
    free(b);
    if (st == SEAM_OK)
        update_velocities(g, geo, rho, dt, p, u, v);
    return st;
}

seam_status mac_spread(mac_projection *P, const mac_grid *g, const mac_geometry *geo, const double *e,
                       double tol, int max_iter, double *du, double *dv, const seam_host *host)
{
    size_t nc = mac_ncell(g);
    double *b = malloc(nc * sizeof *b), *q = calloc(nc, sizeof *q);
    for (size_t c = 0; c < nc; c++)   /* div d = e with d = -grad q: A q = dx^2 e */
        b[c] = g->dx * g->dx * e[c];
    seam_status st = solve_poisson(P, g, geo, b, tol, max_iter, q, "particle spreading", host);
    memset(du, 0, mac_nu(g) * sizeof *du);
    memset(dv, 0, mac_nv(g) * sizeof *dv);
    if (st == SEAM_OK)   /* d = -grad q, the same face differences as the pressure update */
        update_velocities(g, geo, 1.0, 1.0, q, du, dv);
    free(b);
    free(q);
    return st;
}

void mac_projection_free(mac_projection *P)
{
    free(P->index);
    free(P->cell);
    free(P->Adiag);
    free(P->Aplusi);
    free(P->Aplusj);
    free(P->precon);
    free(P->Li);
    free(P->Lj);
    free(P->b);
    free(P->p);
    free(P->tmp);
    memset(P, 0, sizeof *P);
}

/* ---- scalar transport ------------------------------------------------------ */

/* Largest fraction of a cell's content that leaves it over dt. */
static double outflow_fraction(const mac_grid *g, const uint8_t *solid, const double *u, const double *v, double dt)
{
    double worst = 0.0;
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            if (solid[mac_c(g, i, j)])
                continue;
            double out = fmax(u[mac_u(g, i + 1, j)], 0.0) + fmax(-u[mac_u(g, i, j)], 0.0) +
                         fmax(v[mac_v(g, i, j + 1)], 0.0) + fmax(-v[mac_v(g, i, j)], 0.0);
            worst = fmax(worst, out * dt / g->dx);
        }
    return worst;
}

/* Upwind amount crossing a face from the - side (value qm) to the + side (qp)
 * per unit length and time; nothing crosses into or out of a solid. */
static double face_flux(double un, int m_solid, int p_solid, double qm, double qp)
{
    if (m_solid || p_solid)
        return 0.0;
    return un * (un > 0.0 ? qm : qp);
}

int mac_transport_scalar(const mac_grid *g, const mac_geometry *geo, const double *u, const double *v,
                         double dt, const double *qu, const double *qv, const double *s, const double *q_src,
                         int max_sub, double *q)
{
    const uint8_t *solid = geo->solid;
    double frac = outflow_fraction(g, solid, u, v, dt);
    int n_sub = frac > 1.0 ? (int)ceil(frac) : 1;
    if (!(frac <= (double)max_sub))
        return -1;
    double h = dt / n_sub / g->dx;   /* flux per unit length times h: change of cell value */
    size_t nc = mac_ncell(g);
    double *dq = malloc(nc * sizeof *dq);
    for (int sub = 0; sub < n_sub; sub++) {
        memset(dq, 0, nc * sizeof *dq);
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i <= g->nx; i++) {
                int in_m = i > 0, in_p = i < g->nx;
                size_t cm = in_m ? mac_c(g, i - 1, j) : 0, cp = in_p ? mac_c(g, i, j) : 0;
                size_t f = mac_u(g, i, j);
                double F = geo->shell_u[f] ? 0.0
                                           : face_flux(u[f], in_m && solid[cm], in_p && solid[cp],
                                                       in_m ? q[cm] : qu[f], in_p ? q[cp] : qu[f]);
                if (in_m)
                    dq[cm] -= h * F;
                if (in_p)
                    dq[cp] += h * F;
            }
        for (int j = 0; j <= g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                int in_m = j > 0, in_p = j < g->ny;
                size_t cm = in_m ? mac_c(g, i, j - 1) : 0, cp = in_p ? mac_c(g, i, j) : 0;
                size_t f = mac_v(g, i, j);
                double F = geo->shell_v[f] ? 0.0
                                           : face_flux(v[f], in_m && solid[cm], in_p && solid[cp],
                                                       in_m ? q[cm] : qv[f], in_p ? q[cp] : qv[f]);
                if (in_m)
                    dq[cm] -= h * F;
                if (in_p)
                    dq[cp] += h * F;
            }
        for (size_t c = 0; c < nc; c++)   /* volume sources bring their own value in */
            q[c] += dq[c] + (s ? h * g->dx * s[c] * q_src[c] : 0.0);
    }
    free(dq);
    return n_sub;
}

/* ---- extrapolation ----------------------------------------------------------- */

/* One component: faces of an (ni x nj) array, `kind` tells the valid ones. */
static void extrapolate_component(int ni, int nj, uint8_t *valid, int layers, double *a)
{
    size_t n = (size_t)ni * (size_t)nj;
    uint8_t *next = malloc(n);
    double *val = malloc(n * sizeof *val);
    for (int layer = 0; layer < layers; layer++) {
        memcpy(next, valid, n);
        memcpy(val, a, n * sizeof *val);
        for (int j = 0; j < nj; j++)
            for (int i = 0; i < ni; i++) {
                size_t f = (size_t)i + (size_t)ni * (size_t)j;
                if (valid[f])
                    continue;
                double sum = 0.0;
                int cnt = 0;
                const int nb[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
                for (int q = 0; q < 4; q++) {
                    if (nb[q][0] < 0 || nb[q][0] >= ni || nb[q][1] < 0 || nb[q][1] >= nj)
                        continue;
                    size_t h = (size_t)nb[q][0] + (size_t)ni * (size_t)nb[q][1];
                    if (valid[h]) {
                        sum += a[h];
                        cnt++;
                    }
                }
                if (cnt) {   /* written to a copy: the result does not depend on the sweep order */
                    val[f] = sum / cnt;
                    next[f] = 1;
                }
            }
        memcpy(valid, next, n);
        memcpy(a, val, n * sizeof *a);
    }
    for (size_t f = 0; f < n; f++)
        if (!valid[f])
            a[f] = 0.0;
    free(next);
    free(val);
}

void mac_extrapolate(const mac_grid *g, const mac_geometry *geo, int layers, double *u, double *v)
{
    uint8_t *valid = malloc(mac_nu(g) > mac_nv(g) ? mac_nu(g) : mac_nv(g));
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i <= g->nx; i++)
            valid[mac_u(g, i, j)] = mac_face(g, geo, 0, i, j, NULL) != FACE_AIR;
    extrapolate_component(g->nx + 1, g->ny, valid, layers, u);
    for (int j = 0; j <= g->ny; j++)
        for (int i = 0; i < g->nx; i++)
            valid[mac_v(g, i, j)] = mac_face(g, geo, 1, i, j, NULL) != FACE_AIR;
    extrapolate_component(g->nx, g->ny + 1, valid, layers, v);
    free(valid);
}
