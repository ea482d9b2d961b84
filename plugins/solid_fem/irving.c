/* solid_fem's "irving" integrator: Irving 2007 section 3.1, elastic forces
 * explicit and damping implicit, the trapezoidal velocity update done as a
 * backward Euler half step and an extrapolation, with the walls' collisions
 * and friction of section 3.2 (walls.c). One step:
 *
 *   1. v~^{n+1/2} = v^n + dt/2 a(x^n, v~^{n+1/2})
 *   3. x~^{n+1} = x^n + dt v~^{n+1/2}
 *   4. collide with the walls: x^{n+1} and v*^n
 *   5. v^{n+1/2} = v*^n + dt/2 a(x^{n+1/2}, v^{n+1/2}), the coordinates that
 *      hit a wall held at v*^n (the projection P of 3.2)
 *   6. v~^{n+1} = 2 v^{n+1/2} - v*^n
 *   7. v^{n+1} = Gamma(v~^{n+1} + min(0, (2 dv)^T N) N) at those walls
 *
 * with x^{n+1/2} = (x^n + x^{n+1}) / 2 and dv the velocity change of step 5
 * before the projection. Steps 2 and 8 (self-repulsion) have nothing to do:
 * solid_fem has no self-collision. A particle on an inclined wall moves
 * exactly: at rest while tan(theta) <= mu, else s = (1/2) g (sin(theta) -
 * mu cos(theta)) t^2. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "fem.h"

static int is_fixed(const fem *self, size_t r) { return self->fixed[r / (size_t)self->d] != 0; }

/* Steps 1 and 5: v = v0 + dt/2 M^-1 (f_e + f_ext - D v) on the free
 * coordinates not held, held ones kept at v0's, fixed ones at v_fixed; D
 * at positions x. dv gets dt/2 M^-1 (f_e + f_ext - D v) on every
 * coordinate (on a held one, what the projection removed). Dv is scratch.
 * False when the damped system could not be solved (logged). */
static bool half_step(fem *self, double dt, const double *x, const double *v0, const double *fe,
                      const double *f_ext, const uint8_t *held, double *v, double *dv, double *Dv)
{
    size_t nd = self->n * (size_t)self->d;
    double h = 0.5 * dt;
    int damped = fem_has_damping(self);
    for (size_t r = 0; r < nd; r++) {
        double m = self->mass[r / (size_t)self->d];
        bool keep = is_fixed(self, r) || (held && held[r]);
        v[r] = is_fixed(self, r) ? self->v_fixed[r] : keep ? v0[r] : v0[r] + h * (fe[r] + f_ext[r]) / m;
    }
    if (damped) {
        /* (M + dt/2 D) v = M v0 + dt/2 (f_e + f_ext): solved for the change from the undamped v */
        fem_damping_matrix(self, x, self->D);
        seam_csr_mul(self->D, v, Dv);
        seam_csr *S = self->K;
        for (size_t i = 0; i < S->rows; i++)
            for (int64_t p = S->row_ptr[i]; p < S->row_ptr[i + 1]; p++) {
                size_t j = (size_t)S->col[p];
                bool hi = is_fixed(self, i) || (held && held[i]), hj = is_fixed(self, j) || (held && held[j]);
                S->val[p] = hi || hj ? (i == j ? 1.0 : 0.0)
                                     : h * self->D->val[p] + (i == j ? self->mass[i / (size_t)self->d] : 0.0);
            }
        for (size_t r = 0; r < nd; r++)
            Dv[r] = is_fixed(self, r) || (held && held[r]) ? 0.0 : -h * Dv[r];
        double *dx = dv;   /* dv is free until the end */
        memset(dx, 0, nd * sizeof *dx);
        if (fem_linear_solve(self, Dv, dx) != SEAM_OK)
            return false;
        for (size_t r = 0; r < nd; r++)
            v[r] += dx[r];
        seam_csr_mul(self->D, v, Dv);
    } else {
        memset(Dv, 0, nd * sizeof *Dv);
    }
    for (size_t r = 0; r < nd; r++)
        dv[r] = h * (fe[r] + f_ext[r] - Dv[r]) / self->mass[r / (size_t)self->d];
    return true;
}

seam_status fem_irving_step(fem *self, double dt, const double *f_ext)
{
    size_t nd = self->n * (size_t)self->d;
    double *buf = seam_xmalloc((7 * nd + 7) * sizeof *buf);
    double *vh = buf, *vs = vh + nd + 1, *vm = vs + nd + 1, *dv = vm + nd + 1, *fe = dv + nd + 1,
           *xm = fe + nd + 1, *Dv = xm + nd + 1;
    double *x = self->x_new, *v = self->v_new;
    uint8_t *contact = self->contact;
    fem_newton_log *log = &self->newton;
    memset(log, 0, sizeof *log);
    seam_status status = SEAM_UNSTABLE;
    /* 1: elastic force at x^n, damping implicit */
    fem_elastic(self, self->x, fe, NULL);
    if (!half_step(self, dt, self->x, self->v, fe, f_ext, NULL, vh, dv, Dv))
        goto done;
    /* 3 and 4: x~^{n+1}, then the walls' collisions give x^{n+1} and v*^n */
    for (size_t r = 0; r < nd; r++) {
        x[r] = self->x[r] + dt * vh[r];
        vs[r] = is_fixed(self, r) ? self->v_fixed[r] : self->v[r];
    }
    if (contact) {
        memset(contact, 0, nd);
        log->contacts = (int)fem_walls_collide(self, dt, x, vh, vs, contact);
    }
    /* 5: elastic force at x^{n+1/2}; the coordinates that hit a wall held at v*^n */
    for (size_t r = 0; r < nd; r++)
        xm[r] = 0.5 * (self->x[r] + x[r]);
    fem_elastic(self, xm, fe, NULL);
    if (!half_step(self, dt, xm, vs, fe, f_ext, contact, vm, dv, Dv))
        goto done;
    /* 6 and 7: extrapolate, then friction from the normal change the projection removed (twice dv: the
     * extrapolation doubles the half step) */
    for (size_t r = 0; r < nd; r++) {
        v[r] = is_fixed(self, r) ? self->v_fixed[r] : 2.0 * vm[r] - vs[r];
        dv[r] *= 2.0;
    }
    if (contact) {
        fem_walls_irving_friction(self, dv, contact, v);
        for (size_t r = 0; r < nd; r++)   /* the walls' force: the step's momentum change beyond the forces' */
            if (!is_fixed(self, r))
                log->wall_force[r % (size_t)self->d] +=
                    self->mass[r / (size_t)self->d] * (v[r] - self->v[r] - dv[r]) / dt;
    }
    status = SEAM_OK;
    for (size_t r = 0; r < nd; r++)
        if (!isfinite(x[r]) || !isfinite(v[r]))
            status = SEAM_UNSTABLE;
    log->converged = status == SEAM_OK;
done:
    free(buf);
    return status;
}
