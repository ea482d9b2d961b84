/* fluid_mac: marker particles of the liquid (level set, grid transfers, motion),
 * in 2D or 3D; positions and velocities are interleaved by g->dim. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mac.h"

/* Image m (0 .. 3^dim - 1: none / lower / upper side, per axis) of particle x
 * across the walls, so the liquid meets a wall at a right angle instead of
 * rounding off there. Returns 0 when that side is not a wall. */
static int mirror(const mac_grid *g, const double *x, int m, double *out)
{
    for (int d = 0; d < g->dim; d++, m /= 3) {
        int pick = m % 3;
        out[d] = x[d];
        if (pick == 0)
            continue;
        if (g->bc[2 * d + pick - 1] != BC_WALL)
            return 0;
        double wall = g->origin[d] + (pick == 1 ? 0.0 : mac_n(g, d) * g->dx);
        out[d] = 2.0 * wall - x[d];
    }
    return 1;
}

/* Add the kernel-weighted position of point xp to the sums of every cell
 * centre within R of it (sx holds dim sums per cell). Squared distances are
 * taken per axis once; a row whose (y, z) part alone reaches R is skipped
 * (floating-point sums are monotone, so no cell of it would count). */
static void scatter(const mac_grid *g, const double *xp, double R, double *sw, double *sx)
{
    enum { MAXW = 16 };
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    double r2[3][MAXW] = {{0.0}};
    for (int d = 0; d < g->dim; d++) {
        lo[d] = (int)floor((xp[d] - R - g->origin[d]) / g->dx - 0.5);
        hi[d] = (int)ceil((xp[d] + R - g->origin[d]) / g->dx - 0.5);
        lo[d] = lo[d] < 0 ? 0 : lo[d];
        hi[d] = hi[d] > mac_n(g, d) - 1 ? mac_n(g, d) - 1 : hi[d];
        if (hi[d] - lo[d] >= MAXW)
            hi[d] = lo[d] + MAXW - 1;   /* R = 2 dx spans at most 6 centres */
        for (int c = lo[d]; c <= hi[d]; c++) {
            double r = xp[d] - (g->origin[d] + (c + 0.5) * g->dx);
            r2[d][c - lo[d]] = r * r;
        }
    }
    size_t dim = (size_t)g->dim;
    double RR = R * R;
    for (int k = lo[2]; k <= hi[2]; k++)
        for (int j = lo[1]; j <= hi[1]; j++) {
            double yz = dim == 3 ? r2[1][j - lo[1]] + r2[2][k - lo[2]] : r2[1][j - lo[1]];
            if (yz / RR >= 1.0)
                continue;
            for (int i = lo[0]; i <= hi[0]; i++) {
                double d2 = 0.0 + r2[0][i - lo[0]] + r2[1][j - lo[1]];
                if (dim == 3)
                    d2 = d2 + r2[2][k - lo[2]];
                d2 /= RR;
                if (d2 >= 1.0)
                    continue;
                double w = (1.0 - d2) * (1.0 - d2) * (1.0 - d2);
                size_t c = mac_c(g, i, j, k);
                sw[c] += w;
                for (size_t d = 0; d < dim; d++)
                    sx[dim * c + d] += w * xp[d];
            }
        }
}

void mac_level_set(const mac_grid *g, size_t n, const double *x, double r, const uint8_t *solid, int per_axis,
                   const mac_work *w, double *phi)
{
    size_t nc = mac_ncell(g), dim = (size_t)g->dim;
    double R = 2.0 * g->dx;
    double *sw = w->cell, *sx = w->cell + nc;
    memset(sw, 0, (dim + 1) * nc * sizeof *sw);
    int images = dim == 3 ? 27 : 9;
    for (size_t p = 0; p < n; p++) {
        const double *xp = x + dim * p;
        int near_wall = 0;
        for (size_t d = 0; d < dim; d++)
            near_wall |= xp[d] < g->origin[d] + R || xp[d] > g->origin[d] + mac_n(g, (int)d) * g->dx - R;
        for (int m = 0; m < (near_wall ? images : 1); m++) {   /* images only matter within R of a side */
            double im[3];
            if (mirror(g, xp, m, im))
                scatter(g, im, R, sw, sx);
        }
    }
    /* Solid cells count as filled, so the liquid meets a body without a gap. */
    size_t fill = mac_subgrid_count(g, per_axis);
    for (int k = 0; solid && k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++)
                for (size_t q = 0; solid[mac_c(g, i, j, k)] && q < fill; q++) {
                    double xp[3];
                    mac_subgrid_point(g, (const int[3]){i, j, k}, per_axis, q, xp);
                    scatter(g, xp, R, sw, sx);
                }
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = mac_c(g, i, j, k);
                const int ijk[3] = {i, j, k};
                double e[3] = {0.0, 0.0, 0.0};
                for (size_t d = 0; sw[c] > 0.0 && d < dim; d++)
                    e[d] = g->origin[d] + (ijk[d] + 0.5) * g->dx - sx[dim * c + d] / sw[c];
                double dist = dim == 3 ? sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) : hypot(e[0], e[1]);
                phi[c] = sw[c] > 0.0 ? dist - r : R;
            }
}

/* Fractional grid index of point x for the array of face component `axis`
 * (axis = -1: cell centres). */
static void grid_index(const mac_grid *g, int axis, const double *x, double *f)
{
    for (int d = 0; d < g->dim; d++)
        f[d] = (x[d] - g->origin[d]) / g->dx - (d == axis ? 0.0 : 0.5);
}

/* Add w * value into the multilinear stencil of a staggered array of
 * n[0] x n[1] x n[2] samples at fractional index f, and w into wsum (may be
 * NULL). Weight beyond the outer samples is dropped, or with fold folded
 * back onto them, as if mirrored by the side. */
static void splat(double *acc, double *wsum, int dim, const int *n, const double *f, double value, int fold)
{
    int i0[3] = {0, 0, 0};
    double s[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < dim; d++) {
        i0[d] = (int)floor(f[d]);
        s[d] = f[d] - i0[d];
    }
    for (int corner = 0; corner < 1 << dim; corner++) {
        double w = 1.0;
        int ijk[3] = {0, 0, 0}, inside = 1;
        for (int d = 0; d < dim; d++) {
            int up = corner >> d & 1;
            w *= up ? s[d] : 1 - s[d];
            ijk[d] = i0[d] + up;
            if (fold)
                ijk[d] = ijk[d] < 0 ? 0 : ijk[d] >= n[d] ? n[d] - 1 : ijk[d];
            inside &= ijk[d] >= 0 && ijk[d] < n[d];
        }
        if (!inside || w <= 0.0)
            continue;
        size_t q = (size_t)ijk[0] + (size_t)n[0] * ((size_t)ijk[1] + (size_t)n[1] * (size_t)ijk[2]);
        acc[q] += w * value;
        if (wsum)
            wsum[q] += w;
    }
}

void mac_particle_density(const mac_grid *g, size_t n, const double *x, double *count)
{
    memset(count, 0, mac_ncell(g) * sizeof *count);
    const int nn[3] = {g->nx, g->ny, g->nz};
    for (size_t p = 0; p < n; p++) {
        double f[3];
        grid_index(g, -1, x + (size_t)g->dim * p, f);
        splat(count, NULL, g->dim, nn, f, 1.0, 1);
    }
}

void mac_particles_to_grid(const mac_grid *g, size_t n, const double *x, const double *vp, const mac_work *w,
                           double *const vel[3])
{
    size_t dim = (size_t)g->dim;
    double *const *wsum = w->face[0];
    for (size_t a = 0; a < dim; a++) {
        memset(wsum[a], 0, mac_nf(g, (int)a) * sizeof(double));
        memset(vel[a], 0, mac_nf(g, (int)a) * sizeof(double));
    }
    for (size_t p = 0; p < n; p++)
        for (size_t a = 0; a < dim; a++) {
            const int nn[3] = {g->nx + (a == 0), g->ny + (a == 1), g->nz + (a == 2)};
            double f[3];
            grid_index(g, (int)a, x + dim * p, f);
            splat(vel[a], wsum[a], g->dim, nn, f, vp[dim * p + a], 0);
        }
    for (size_t a = 0; a < dim; a++) {
        for (size_t q = 0; q < mac_nf(g, (int)a); q++)
            vel[a][q] = wsum[a][q] > 0.0 ? vel[a][q] / wsum[a][q] : 0.0;
    }
}

void mac_grid_to_particles(const mac_grid *g, size_t n, const double *x, double *const vel[3], double *out)
{
    size_t dim = (size_t)g->dim;
    for (size_t p = 0; p < n; p++)
        for (size_t a = 0; a < dim; a++)
            out[dim * p + a] = mac_sample(g, (int)a, vel[a], x + dim * p);
}

static void cross3(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Element s of the shells: its mean displacement, end positions, edges,
 * normal and padded bounding box (the crossing point of a path lies in it). */
static void shell_elem(const mac_grid *g, const mac_shells *sh, size_t s, mac_shell_elem *e)
{
    size_t dim = (size_t)g->dim;
    memset(e, 0, sizeof *e);
    for (size_t m = 0; m < dim; m++) {
        size_t idx = dim * (size_t)sh->seg[dim * s + m];
        for (size_t k = 0; k < dim; k++) {
            e->v[m][k] = sh->X1[idx + k];
            if (dim == 3)
                e->d[k] += (sh->X1[idx + k] - sh->X0[idx + k]) / 3.0;
        }
    }
    if (dim == 2) {
        const double *a0 = sh->X0 + 2 * (size_t)sh->seg[2 * s], *b0 = sh->X0 + 2 * (size_t)sh->seg[2 * s + 1];
        const double *a1 = e->v[0], *b1 = e->v[1];
        for (int k = 0; k < 2; k++) {
            e->d[k] = 0.5 * (a1[k] - a0[k] + b1[k] - b0[k]);
            e->edge[0][k] = b1[k] - a1[k];
        }
        e->len = hypot(b1[0] - a1[0], b1[1] - a1[1]);
    } else {
        double e2[3];
        for (int m = 0; m < 3; m++)
            for (int k = 0; k < 3; k++)
                e->edge[m][k] = e->v[(m + 1) % 3][k] - e->v[m][k];
        for (int k = 0; k < 3; k++)
            e2[k] = e->v[2][k] - e->v[0][k];
        cross3(e->edge[0], e2, e->nrm);
        e->len = sqrt(dot3(e->nrm, e->nrm));
    }
    double pad = 1e-6 * g->dx;
    for (size_t k = 0; k < dim; k++) {
        e->lo[k] = e->hi[k] = e->v[0][k];
        for (size_t m = 1; m < dim; m++) {
            e->lo[k] = fmin(e->lo[k], e->v[m][k]);
            e->hi[k] = fmax(e->hi[k], e->v[m][k]);
        }
        e->lo[k] -= pad;
        e->hi[k] += pad;
    }
}

/* Whether the path q0 -> p1 stays clear of the element's box (then it cannot cross the element). */
static int misses_box(const mac_shell_elem *e, int dim, const double *q0, const double *p1)
{
    for (int k = 0; k < dim; k++)
        if (fmax(q0[k], p1[k]) < e->lo[k] || fmin(q0[k], p1[k]) > e->hi[k])
            return 1;
    return 0;
}

/* Element s, from the shells' prepared elements or worked out into tmp. */
static const mac_shell_elem *elem_at(const mac_grid *g, const mac_shells *sh, size_t s, mac_shell_elem *tmp)
{
    if (sh->elem)
        return &sh->elem[s];
    shell_elem(g, sh, s, tmp);
    return tmp;
}

/* Stop a particle moving from p0 to p1 at the first shell segment it crosses.
 * Seen from the segment, which moved by d (its mean displacement), the
 * particle went from p0 + d to p1: when that path crosses the segment's end
 * position, p1 becomes the crossing point, 1e-3 dx back on the start side, and
 * vp loses its normal velocity into the segment (relative to the segment's d/dt). */
static void stop_at_shells(const mac_grid *g, const mac_shells *sh, double dt, const double *p0, double *p1,
                           double *vp)
{
    mac_shell_elem tmp;
    for (size_t s = 0; s < sh->n; s++) {
        const mac_shell_elem *e = elem_at(g, sh, s, &tmp);
        const double *a1 = e->v[0], *b1 = e->v[1], *d = e->d;
        double q0[2] = {p0[0] + d[0], p0[1] + d[1]};
        if (misses_box(e, 2, q0, p1))
            continue;
        double s0 = mac_orient2(a1, b1, q0), s1 = mac_orient2(a1, b1, p1);
        if (s0 == 0.0 || (s0 > 0.0 && s1 > 0.0) || (s0 < 0.0 && s1 < 0.0))
            continue;   /* still on its side of the segment's line */
        double t0 = mac_orient2(q0, p1, a1), t1 = mac_orient2(q0, p1, b1);
        if ((t0 > 0.0 && t1 > 0.0) || (t0 < 0.0 && t1 < 0.0))
            continue;   /* the path passes beside the segment */
        double lam = s0 / (s0 - s1), len = e->len;
        if (len == 0.0)
            continue;
        /* Unit normal of the segment towards the side the particle came from. */
        double sign = s0 > 0.0 ? 1.0 : -1.0;
        double nrm[2] = {-sign * e->edge[0][1] / len, sign * e->edge[0][0] / len};
        for (int k = 0; k < 2; k++)
            p1[k] = q0[k] + lam * (p1[k] - q0[k]) + 1e-3 * g->dx * nrm[k];
        double vn = (vp[0] - d[0] / dt) * nrm[0] + (vp[1] - d[1] / dt) * nrm[1];
        if (vn < 0.0)
            for (int k = 0; k < 2; k++)
                vp[k] -= vn * nrm[k];
    }
}

/* The 3D counterpart of stop_at_shells for shell triangles: the relative path
 * p0 + d -> p1 (d the triangle's mean displacement) against the triangle's
 * end position. */
static void stop_at_shells_3d(const mac_grid *g, const mac_shells *sh, double dt, const double *p0, double *p1,
                              double *vp)
{
    mac_shell_elem tmp;
    for (size_t s = 0; s < sh->n; s++) {
        const mac_shell_elem *e = elem_at(g, sh, s, &tmp);
        const double *d = e->d, *v0 = e->v[0];
        double q0[3], r0[3], r1[3], nrm[3];
        for (int k = 0; k < 3; k++)
            q0[k] = p0[k] + d[k];
        if (misses_box(e, 3, q0, p1))
            continue;
        for (int k = 0; k < 3; k++) {
            r0[k] = q0[k] - v0[k];
            r1[k] = p1[k] - v0[k];
            nrm[k] = e->nrm[k];
        }
        double len = e->len, s0 = dot3(nrm, r0), s1 = dot3(nrm, r1);
        if (len == 0.0 || s0 == 0.0 || (s0 > 0.0 && s1 > 0.0) || (s0 < 0.0 && s1 < 0.0))
            continue;   /* still on its side of the triangle's plane */
        double lam = s0 / (s0 - s1), h[3];
        for (int k = 0; k < 3; k++)
            h[k] = q0[k] + lam * (p1[k] - q0[k]);
        /* Inside the triangle: h is on the inner side of all three edges. */
        int inside = 1;
        for (int m = 0; m < 3 && inside; m++) {
            double rel[3], c[3];
            for (int k = 0; k < 3; k++)
                rel[k] = h[k] - e->v[m][k];
            cross3(e->edge[m], rel, c);
            inside = dot3(c, nrm) >= 0.0;
        }
        if (!inside)
            continue;
        double sign = s0 > 0.0 ? 1.0 : -1.0, vn = 0.0;
        for (int k = 0; k < 3; k++) {
            nrm[k] *= sign / len;   /* unit normal towards the side the particle came from */
            p1[k] = h[k] + 1e-3 * g->dx * nrm[k];
            vn += (vp[k] - d[k] / dt) * nrm[k];
        }
        if (vn < 0.0)
            for (int k = 0; k < 3; k++)
                vp[k] -= vn * nrm[k];
    }
}

size_t mac_advect_particles(const mac_grid *g, size_t n, double *x, double *vp, double *const vel[3], double dt,
                            const mac_shells *shells)
{
    size_t dim = (size_t)g->dim;
    double eps = 1e-6 * g->dx;
    int check_shells = shells && shells->n;
    for (size_t s = 0; check_shells && shells->elem && s < shells->n; s++)
        shell_elem(g, shells, s, &shells->elem[s]);   /* once per move, not per particle */
    size_t kept = 0;
    for (size_t p = 0; p < n; p++) {
        double xp[3] = {0.0, 0.0, 0.0}, xm[3] = {0.0, 0.0, 0.0};
        memcpy(xp, x + dim * p, dim * sizeof *xp);
        for (size_t d = 0; d < dim; d++)
            xm[d] = xp[d] + 0.5 * dt * mac_sample(g, (int)d, vel[d], xp);
        double step[3], start[3] = {xp[0], xp[1], xp[2]};
        for (size_t d = 0; d < dim; d++)
            step[d] = dt * mac_sample(g, (int)d, vel[d], xm);
        for (size_t d = 0; d < dim; d++)
            xp[d] += step[d];
        if (check_shells && dim == 3)
            stop_at_shells_3d(g, shells, dt, start, xp, vp + dim * p);
        else if (check_shells)
            stop_at_shells(g, shells, dt, start, xp, vp + dim * p);
        int leaves = 0;
        for (size_t d = 0; d < dim; d++) {
            double lo = g->origin[d], hi = g->origin[d] + mac_n(g, (int)d) * g->dx;
            if (xp[d] < lo + eps) {
                leaves |= g->bc[2 * d] == BC_OPEN;
                xp[d] = lo + eps;   /* a wall holds the liquid */
            } else if (xp[d] > hi - eps) {
                leaves |= g->bc[2 * d + 1] == BC_OPEN;
                xp[d] = hi - eps;
            }
        }
        if (leaves)
            continue;
        memcpy(x + dim * kept, xp, dim * sizeof *xp);
        memmove(vp + dim * kept, vp + dim * p, dim * sizeof *vp);
        kept++;
    }
    return kept;
}
