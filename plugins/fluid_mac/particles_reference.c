/* fluid_mac: the per-particle loops of the particle transfers as they were
 * before issue 18 (one particle at a time, in storage order, on one thread):
 * kept to compare against (`particle_kernels: "reference"`, bench/fluid_mac)
 * and for the tests that check the binned, threaded loops of particles.c
 * against them. Same equations; only the order of the sums differs. */
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

void mac_ref_level_set(const mac_grid *g, size_t n, const double *x, double r, const uint8_t *solid, int per_axis,
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

void mac_ref_particle_density(const mac_grid *g, size_t n, const double *x, double *count)
{
    memset(count, 0, mac_ncell(g) * sizeof *count);
    const int nn[3] = {g->nx, g->ny, g->nz};
    for (size_t p = 0; p < n; p++) {
        double f[3];
        grid_index(g, -1, x + (size_t)g->dim * p, f);
        splat(count, NULL, g->dim, nn, f, 1.0, 1);
    }
}

void mac_ref_particles_to_grid(const mac_grid *g, size_t n, const double *x, const double *vp, const mac_work *w,
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

double mac_ref_sample(const mac_grid *g, int axis, const double *q, const double *x)
{
    return mac_sample(g, axis, q, x);
}
