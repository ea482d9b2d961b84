/* fluid_mac: marker particles of the liquid (level set, grid transfers, motion). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mac.h"

/* Image m (0..8: none / lower / upper side, per axis) of particle x across
 * the walls, so the liquid meets a wall at a right angle instead of rounding
 * off there. Returns 0 when that side is not a wall. */
static int mirror(const mac_grid *g, const double *x, int m, double *out)
{
    const int side[2][2] = {{SIDE_LEFT, SIDE_RIGHT}, {SIDE_BOTTOM, SIDE_TOP}};
    const int pick[2] = {m % 3, m / 3};
    for (int d = 0; d < 2; d++) {
        out[d] = x[d];
        if (pick[d] == 0)
            continue;
        if (g->bc[side[d][pick[d] - 1]] != BC_WALL)
            return 0;
        double wall = g->origin[d] + (pick[d] == 1 ? 0.0 : (d == 0 ? g->nx : g->ny) * g->dx);
        out[d] = 2.0 * wall - x[d];
    }
    return 1;
}

/* Add the kernel-weighted position of point xp to the sums of every cell
 * centre within R of it. */
static void scatter(const mac_grid *g, const double *xp, double R, double *sw, double *sx, double *sy)
{
    int i0 = (int)floor((xp[0] - R - g->origin[0]) / g->dx - 0.5), i1 = (int)ceil((xp[0] + R - g->origin[0]) / g->dx - 0.5);
    int j0 = (int)floor((xp[1] - R - g->origin[1]) / g->dx - 0.5), j1 = (int)ceil((xp[1] + R - g->origin[1]) / g->dx - 0.5);
    for (int j = j0 < 0 ? 0 : j0; j <= j1 && j < g->ny; j++)
        for (int i = i0 < 0 ? 0 : i0; i <= i1 && i < g->nx; i++) {
            double xc = g->origin[0] + (i + 0.5) * g->dx, yc = g->origin[1] + (j + 0.5) * g->dx;
            double d2 = ((xp[0] - xc) * (xp[0] - xc) + (xp[1] - yc) * (xp[1] - yc)) / (R * R);
            if (d2 >= 1.0)
                continue;
            double w = (1.0 - d2) * (1.0 - d2) * (1.0 - d2);
            size_t c = mac_c(g, i, j);
            sw[c] += w;
            sx[c] += w * xp[0];
            sy[c] += w * xp[1];
        }
}

void mac_level_set(const mac_grid *g, size_t n, const double *x, double r, const uint8_t *solid, int per_axis,
                   double *phi)
{
    size_t nc = mac_ncell(g);
    double R = 2.0 * g->dx;
    double *sw = calloc(nc, sizeof *sw), *sx = calloc(nc, sizeof *sx), *sy = calloc(nc, sizeof *sy);
    double lo[2] = {g->origin[0] + R, g->origin[1] + R};
    double hi[2] = {g->origin[0] + g->nx * g->dx - R, g->origin[1] + g->ny * g->dx - R};
    for (size_t p = 0; p < n; p++) {
        const double *xp = x + 2 * p;
        int near_wall = xp[0] < lo[0] || xp[0] > hi[0] || xp[1] < lo[1] || xp[1] > hi[1];
        for (int m = 0; m < (near_wall ? 9 : 1); m++) {   /* images only matter within R of a side */
            double im[2];
            if (mirror(g, xp, m, im))
                scatter(g, im, R, sw, sx, sy);
        }
    }
    /* Solid cells count as filled, so the liquid meets a body without a gap. */
    for (int j = 0; solid && j < g->ny; j++)
        for (int i = 0; i < g->nx; i++)
            for (int b = 0; solid[mac_c(g, i, j)] && b < per_axis; b++)
                for (int a = 0; a < per_axis; a++) {
                    double xp[2] = {g->origin[0] + (i + (a + 0.5) / per_axis) * g->dx,
                                    g->origin[1] + (j + (b + 0.5) / per_axis) * g->dx};
                    scatter(g, xp, R, sw, sx, sy);
                }
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            size_t c = mac_c(g, i, j);
            double xc = g->origin[0] + (i + 0.5) * g->dx, yc = g->origin[1] + (j + 0.5) * g->dx;
            phi[c] = sw[c] > 0.0 ? hypot(xc - sx[c] / sw[c], yc - sy[c] / sw[c]) - r : R;
        }
    free(sw);
    free(sx);
    free(sy);
}

/* Add w * value into the bilinear stencil of a staggered array of ni x nj
 * samples at fractional index (fx, fy). */
static void splat(double *acc, double *wsum, int ni, int nj, double fx, double fy, double value)
{
    int i0 = (int)floor(fx), j0 = (int)floor(fy);
    double s = fx - i0, t = fy - j0;
    const double w[4] = {(1 - s) * (1 - t), s * (1 - t), (1 - s) * t, s * t};
    const int di[4] = {0, 1, 0, 1}, dj[4] = {0, 0, 1, 1};
    for (int k = 0; k < 4; k++) {
        int i = i0 + di[k], j = j0 + dj[k];
        if (i < 0 || j < 0 || i >= ni || j >= nj || w[k] <= 0.0)
            continue;
        size_t f = (size_t)i + (size_t)ni * (size_t)j;
        acc[f] += w[k] * value;
        wsum[f] += w[k];
    }
}

void mac_particle_density(const mac_grid *g, size_t n, const double *x, double *count)
{
    memset(count, 0, mac_ncell(g) * sizeof *count);
    for (size_t p = 0; p < n; p++) {
        double fx = (x[2 * p] - g->origin[0]) / g->dx - 0.5, fy = (x[2 * p + 1] - g->origin[1]) / g->dx - 0.5;
        int i0 = (int)floor(fx), j0 = (int)floor(fy);
        double s = fx - i0, t = fy - j0;
        const double w[4] = {(1 - s) * (1 - t), s * (1 - t), (1 - s) * t, s * t};
        for (int k = 0; k < 4; k++) {
            /* Weight beyond the last centre folds back, as if mirrored by the side. */
            int i = i0 + (k & 1), j = j0 + (k >> 1);
            i = i < 0 ? 0 : i >= g->nx ? g->nx - 1 : i;
            j = j < 0 ? 0 : j >= g->ny ? g->ny - 1 : j;
            count[mac_c(g, i, j)] += w[k];
        }
    }
}

void mac_particles_to_grid(const mac_grid *g, size_t n, const double *x, const double *vp, double *u, double *v)
{
    size_t nu = mac_nu(g), nv = mac_nv(g);
    double *wu = calloc(nu, sizeof *wu), *wv = calloc(nv, sizeof *wv);
    memset(u, 0, nu * sizeof *u);
    memset(v, 0, nv * sizeof *v);
    for (size_t p = 0; p < n; p++) {
        double fx = (x[2 * p] - g->origin[0]) / g->dx, fy = (x[2 * p + 1] - g->origin[1]) / g->dx;
        splat(u, wu, g->nx + 1, g->ny, fx, fy - 0.5, vp[2 * p]);
        splat(v, wv, g->nx, g->ny + 1, fx - 0.5, fy, vp[2 * p + 1]);
    }
    for (size_t f = 0; f < nu; f++)
        u[f] = wu[f] > 0.0 ? u[f] / wu[f] : 0.0;
    for (size_t f = 0; f < nv; f++)
        v[f] = wv[f] > 0.0 ? v[f] / wv[f] : 0.0;
    free(wu);
    free(wv);
}

void mac_grid_to_particles(const mac_grid *g, size_t n, const double *x, const double *u, const double *v,
                           double *out)
{
    for (size_t p = 0; p < n; p++) {
        out[2 * p] = mac_sample_u(g, u, x[2 * p], x[2 * p + 1]);
        out[2 * p + 1] = mac_sample_v(g, v, x[2 * p], x[2 * p + 1]);
    }
}

size_t mac_advect_particles(const mac_grid *g, size_t n, double *x, double *vp, const double *u, const double *v,
                            double dt)
{
    double lo[2] = {g->origin[0], g->origin[1]};
    double hi[2] = {g->origin[0] + g->nx * g->dx, g->origin[1] + g->ny * g->dx};
    double eps = 1e-6 * g->dx;
    size_t kept = 0;
    for (size_t p = 0; p < n; p++) {
        double xp[2] = {x[2 * p], x[2 * p + 1]};
        double xm = xp[0] + 0.5 * dt * mac_sample_u(g, u, xp[0], xp[1]);
        double ym = xp[1] + 0.5 * dt * mac_sample_v(g, v, xp[0], xp[1]);
        xp[0] += dt * mac_sample_u(g, u, xm, ym);
        xp[1] += dt * mac_sample_v(g, v, xm, ym);
        int leaves = 0;
        for (int d = 0; d < 2; d++) {
            int side_lo = d == 0 ? SIDE_LEFT : SIDE_BOTTOM, side_hi = d == 0 ? SIDE_RIGHT : SIDE_TOP;
            if (xp[d] < lo[d] + eps) {
                leaves |= g->bc[side_lo] == BC_OPEN;
                xp[d] = lo[d] + eps;   /* a wall holds the liquid */
            } else if (xp[d] > hi[d] - eps) {
                leaves |= g->bc[side_hi] == BC_OPEN;
                xp[d] = hi[d] - eps;
            }
        }
        if (leaves)
            continue;
        x[2 * kept] = xp[0];
        x[2 * kept + 1] = xp[1];
        vp[2 * kept] = vp[2 * p];
        vp[2 * kept + 1] = vp[2 * p + 1];
        kept++;
    }
    return kept;
}
