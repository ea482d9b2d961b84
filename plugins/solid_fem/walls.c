/* solid_fem: contact with the walls of an axis-aligned box, with Coulomb
 * friction.
 *
 * Each wall is a unilateral constraint on one coordinate of a node, s (x_k -
 * p) >= 0 with s = +1 at min and -1 at max, and a reaction lambda >= 0 along
 * s. Inside backward Euler's Newton iteration the held coordinates form an
 * active set (a primal-dual active set method): a coordinate that lands
 * beyond its wall is held on it (its velocity set so that x^{n+1} = p, the
 * projection of an inelastic impact), and one whose wall would have to pull
 * (lambda = -s g < 0, g the residual force without the walls) is let go. The
 * walls being axis-aligned, a held coordinate is one fixed unknown of the
 * Newton system, like a pinned node's.
 *
 * Friction follows Irving 2007, section 3.2: after the implicit solve, the
 * normal velocity change the walls imposed on a node, dv_N = dt |N| / m (N
 * its wall reaction), bounds the tangential velocity it may remove:
 * v_T <- max(0, 1 - mu dv_N / |v_T|) v_T. A particle on a wall is exact for
 * sliding and for sticking. */
#include <math.h>
#include <string.h>

#include "fem.h"
#include "ranges.h"

enum { FREE = 0, AT_MIN = 1, AT_MAX = 2 };

int fem_walls_read(fem *self, seam_cfg *w)
{
    int d = self->d;
    int ok = seam_cfg_key_vec(w, FEM_WALL_KEYS, "min", self->walls.min, (size_t)d, SEAM_CFG_REQUIRED);
    ok = seam_cfg_key_vec(w, FEM_WALL_KEYS, "max", self->walls.max, (size_t)d, SEAM_CFG_REQUIRED) && ok;
    self->walls.friction = seam_cfg_key(w, FEM_WALL_KEYS, "friction", 0.5, 0);
    if (!ok)
        return -1;
    for (int k = 0; k < d; k++)
        if (!(self->walls.min[k] < self->walls.max[k])) {
            seam_cfg_error(w, "max", "each component must exceed the one of min");
            return -1;
        }
    self->walls.on = 1;
    return 0;
}

int fem_walls_check(const fem *self, seam_cfg *w)
{
    int d = self->d;
    for (size_t i = 0; i < self->n; i++)
        for (int k = 0; k < d; k++) {
            double x = self->x[i * (size_t)d + (size_t)k];
            if (x < self->walls.min[k] || x > self->walls.max[k]) {
                size_t bi = 0;
                while (bi + 1 < self->n_bodies && i >= self->bodies[bi + 1].node0)
                    bi++;
                seam_cfg_error(w, NULL, "node %zu of body '%s' starts outside the walls (coordinate %d is %g, "
                               "walls from %g to %g)", i - self->bodies[bi].node0, self->bodies[bi].name, k, x,
                               self->walls.min[k], self->walls.max[k]);
                return -1;
            }
        }
    return 0;
}

size_t fem_walls_hold(const fem *self, double dt, double slack, double *v, uint8_t *contact)
{
    int d = self->d;
    size_t held = 0;
    for (size_t r = 0; r < self->n * (size_t)d; r++) {
        if (contact[r] || self->fixed[r / (size_t)d])
            continue;
        size_t k = r % (size_t)d;
        double x = self->x[r] + dt * v[r], p;
        if (x < self->walls.min[k] + slack) {
            contact[r] = AT_MIN;
            p = self->walls.min[k];
        } else if (x > self->walls.max[k] - slack) {
            contact[r] = AT_MAX;
            p = self->walls.max[k];
        } else {
            continue;
        }
        v[r] = (p - self->x[r]) / dt;   /* x^{n+1} = x^n + dt v on the wall */
        held++;
    }
    return held;
}

size_t fem_walls_release(const fem *self, double *g, uint8_t *contact)
{
    size_t released = 0;
    for (size_t r = 0; r < self->n * (size_t)self->d; r++) {
        if (!contact[r])
            continue;
        double s = contact[r] == AT_MIN ? 1.0 : -1.0, lambda = -s * g[r];
        if (lambda < 0.0) {
            contact[r] = FREE;
            released++;
        } else {
            g[r] = 0.0;
        }
    }
    return released;
}

int fem_walls_friction(const fem *self, double dt, const double *g, const uint8_t *contact, double *v,
                       double *force)
{
    int d = self->d, count = 0;
    memset(force, 0, 3 * sizeof *force);
    for (size_t i = 0; i < self->n; i++) {
        const double *gi = g + i * (size_t)d;
        const uint8_t *ci = contact + i * (size_t)d;
        double *vi = v + i * (size_t)d;
        double N2 = 0.0, vT = 0.0;
        for (int k = 0; k < d; k++) {
            if (ci[k]) {
                force[k] -= gi[k];   /* the reaction: what cancels the residual there */
                N2 += gi[k] * gi[k];
                count++;
            } else {
                vT += vi[k] * vi[k];
            }
        }
        vT = sqrt(vT);
        if (N2 == 0.0 || vT == 0.0)
            continue;
        /* Irving 2007, 3.2: v_T <- max(0, 1 - mu dv_N/|v_T|) v_T, dv_N = dt |N| / m. */
        double dvN = dt * sqrt(N2) / self->mass[i];
        double scale = fmax(0.0, 1.0 - self->walls.friction * dvN / vT);
        for (int k = 0; k < d; k++)
            if (!ci[k]) {
                force[k] += self->mass[i] * (scale - 1.0) * vi[k] / dt;
                vi[k] *= scale;
            }
    }
    return count;
}

/* Irving 2007, 3.2: v <- Gamma(v) at wall (k, s), the walls at rest (v_B =
 * 0): v*_N = max(v_N, 0) and v*_T = max(0, 1 - mu (v*_N - v_N) / |v_T|) v_T. */
static void wall_gamma(int d, int k, double s, double mu, double *v)
{
    double vN = s * v[k], vsN = fmax(vN, 0.0), vT = 0.0;
    for (int j = 0; j < d; j++)
        if (j != k)
            vT += v[j] * v[j];
    vT = sqrt(vT);
    double scale = vT > 0.0 ? fmax(0.0, 1.0 - mu * (vsN - vN) / vT) : 0.0;
    for (int j = 0; j < d; j++)
        v[j] = j == k ? s * vsN : scale * v[j];
}

size_t fem_walls_collide(const fem *self, double dt, double *x, double *vh, double *vs, uint8_t *contact)
{
    int d = self->d;
    double mu = self->walls.friction;
    size_t hit = 0;
    for (size_t i = 0; i < self->n; i++) {
        const double *xn = self->x + i * (size_t)d;
        double *xi = x + i * (size_t)d, *vi = vh + i * (size_t)d, *si = vs + i * (size_t)d;
        if (self->fixed[i])
            continue;
        for (int k = 0; k < d; k++)
            for (int side = 0; side < 2; side++) {
                double s = side ? -1.0 : 1.0, p = side ? self->walls.max[k] : self->walls.min[k];
                double phi0 = s * (xn[k] - p), phi1 = s * (xn[k] + dt * vi[k] - p);
                if (!(phi1 < 0.0))
                    continue;
                double theta = phi0 > 0.0 ? phi0 / (phi0 - phi1) : 0.0, vstar[3];
                memcpy(vstar, vi, (size_t)d * sizeof *vstar);
                wall_gamma(d, k, s, mu, vstar);   /* v*^{n+1/2} = Gamma(v~^{n+1/2}) */
                for (int j = 0; j < d; j++) {   /* x^{n+1} = x^c + (1 - theta) dt v*^{n+1/2} */
                    double xc = j == k ? p : xn[j] + theta * dt * vi[j];   /* the crossing lies on the wall */
                    xi[j] = xc + (1.0 - theta) * dt * vstar[j];
                    vi[j] = theta * vi[j] + (1.0 - theta) * vstar[j];
                }
                wall_gamma(d, k, s, mu, si);   /* v*^n = Gamma(v^n), for the trapezoidal velocity update */
                contact[i * (size_t)d + (size_t)k] = side ? AT_MAX : AT_MIN;
                hit++;
            }
    }
    return hit;
}

void fem_walls_irving_friction(const fem *self, const double *dv2, const uint8_t *contact, double *v)
{
    int d = self->d;
    for (size_t r = 0; r < self->n * (size_t)d; r++) {
        if (!contact[r])
            continue;
        size_t i = r / (size_t)d;
        int k = (int)(r % (size_t)d);
        double s = contact[r] == AT_MIN ? 1.0 : -1.0;
        if (s * dv2[r] < 0.0)
            v[r] += dv2[r];   /* the inward normal change the held solve removed, back for Gamma to take */
        wall_gamma(d, k, s, self->walls.friction, v + i * (size_t)d);
    }
}
