/* solid_fem's time step: backward Euler by Newton's method on the
 * incremental potential, or symplectic Euler; walls as an active set. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/dense.h"
#include "seam/log.h"
#include "fem.h"

int fem_has_damping(const fem *self)
{
    for (size_t bi = 0; bi < self->n_bodies; bi++) {
        const fem_body *b = &self->bodies[bi];
        if (b->alpha != 0.0 || b->beta != 0.0 || b->b_stretch != 0.0 || b->b_bend != 0.0)
            return 1;
    }
    return 0;
}

/* f_ext = M g + loads. */
static void external_forces(const fem *self, const double *f_load, double *f_ext)
{
    int d = self->d;
    for (size_t i = 0; i < self->n; i++)
        for (int k = 0; k < d; k++) {
            size_t r = i * (size_t)d + (size_t)k;
            f_ext[r] = self->mass[i] * self->gravity[k] + (f_load ? f_load[r] : 0.0);
        }
}

static int is_fixed(const fem *self, size_t dof) { return self->fixed[dof / (size_t)self->d] != 0; }
/* Pinned, prescribed, or held on a wall during this solve. */
static int is_held(const fem *self, size_t dof)
{
    return self->fixed[dof / (size_t)self->d] != 0 || (self->contact && self->contact[dof]);
}

/* Incremental potential of backward Euler in the velocity v (Zarifi eq. 3.19,
 * discrete): its gradient is -dt times the force residual g. */
static double incremental_potential(const fem *self, double dt, const double *v, const double *f_ext,
                                    int damped, double *x, double *scratch)
{
    size_t nd = self->n * (size_t)self->d;
    for (size_t r = 0; r < nd; r++)
        x[r] = self->x[r] + dt * v[r];
    double phi = dt * fem_elastic(self, x, scratch, NULL);
    for (size_t r = 0; r < nd; r++) {
        double m = self->mass[r / (size_t)self->d], dv = v[r] - self->v[r];
        phi += 0.5 * m * dv * dv - dt * f_ext[r] * v[r];
    }
    if (damped) {
        seam_csr_mul(self->D, v, scratch);
        phi += 0.5 * dt * seam_dot(nd, v, scratch);
    }
    return phi;
}

/* g = f_e(x) + f_ext - D v - M (v - v^n)/dt: the backward Euler residual
 * (Zarifi eq. 3.51 in residual form); zero on fixed DOFs (not on those held
 * by walls: fem_walls_release reads their reactions there first). */
static void residual(const fem *self, double dt, const double *v, const double *fe, const double *f_ext,
                     int damped, double *g)
{
    size_t nd = self->n * (size_t)self->d;
    if (damped)
        seam_csr_mul(self->D, v, g);
    else
        memset(g, 0, nd * sizeof *g);
    for (size_t r = 0; r < nd; r++) {
        double m = self->mass[r / (size_t)self->d];
        g[r] = is_fixed(self, r) ? 0.0 : fe[r] + f_ext[r] - g[r] - m * (v[r] - self->v[r]) / dt;
    }
}

/* Overwrite K with S = M + dt D + dt^2 K, identity rows and columns on fixed
 * DOFs and on those held by walls. */
static void system_matrix(fem *self, double dt, int damped)
{
    seam_csr *K = self->K;
    for (size_t i = 0; i < K->rows; i++)
        for (int64_t p = K->row_ptr[i]; p < K->row_ptr[i + 1]; p++) {
            size_t j = (size_t)K->col[p];
            double s = dt * dt * K->val[p] + (damped ? dt * self->D->val[p] : 0.0);
            if (i == j)
                s += self->mass[i / (size_t)self->d];
            if (is_held(self, i) || is_held(self, j))
                s = i == j ? 1.0 : 0.0;
            K->val[p] = s;
        }
}

/* Backtracking on the incremental potential along dv from v: the first of
 * 1, 1/2, ... 1/2^11 that does not increase it, or a full step when none
 * decreases. x, fe and vt are scratch. */
static double line_search(const fem *self, double dt, const double *v, const double *dv, const double *f_ext,
                          int damped, double *x, double *fe, double *vt)
{
    size_t nd = self->n * (size_t)self->d;
    double phi0 = incremental_potential(self, dt, v, f_ext, damped, x, fe);
    double alpha = 1.0;
    for (int ls = 0; ls < 12; ls++, alpha *= 0.5) {
        for (size_t r = 0; r < nd; r++)
            vt[r] = v[r] + alpha * dv[r];
        double phi = incremental_potential(self, dt, vt, f_ext, damped, x, fe);
        if (phi <= phi0 + 1e-12 * fabs(phi0))
            return alpha;
    }
    return 1.0;
}

static seam_status backward_euler(fem *self, double dt, const double *f_ext)
{
    int d = self->d;
    size_t nd = self->n * (size_t)d;
    double *buf = seam_xmalloc((6 * nd + 6) * sizeof *buf);
    double *v = buf, *dv = v + nd + 1, *g = dv + nd + 1, *fe = g + nd + 1, *x = fe + nd + 1, *vt = x + nd + 1;
    int damped = fem_has_damping(self);
    if (damped)
        fem_damping_matrix(self, self->x, self->D);
    for (size_t r = 0; r < nd; r++)
        v[r] = is_fixed(self, r) ? self->v_fixed[r] : self->v[r];
    fem_newton_log *log = &self->newton;
    memset(log, 0, sizeof *log);
    uint8_t *contact = self->contact;
    if (contact) {
        memset(contact, 0, nd);
        /* Start with the coordinates resting on a wall held (lift-off releases them). */
        fem_walls_hold(self, dt, 1e-9 * self->length, v, contact);
    }
    seam_status status = SEAM_UNSTABLE;
    double step_tol = self->set.newton_tol * self->length;
    for (int it = 0; it < self->set.newton_max; it++) {
        for (size_t r = 0; r < nd; r++)
            x[r] = self->x[r] + dt * v[r];
        fem_elastic(self, x, fe, self->K);
        residual(self, dt, v, fe, f_ext, damped, g);
        size_t released = contact ? fem_walls_release(self, g, contact) : 0;
        double rn = seam_norm2(nd, g);
        log->residual[it] = rn;
        log->iterations = it + 1;
        seam_logf(self->host, SEAM_LOG_DEBUG, "newton %d: |g| = %.6e", it, rn);
        if (!isfinite(rn))
            break;
        if (it > 0 && !released && rn <= self->set.newton_tol * log->residual[0]) {   /* relative residual reached */
            log->converged = 1;
            status = SEAM_OK;
            break;
        }
        system_matrix(self, dt, damped);
        for (size_t r = 0; r < nd; r++)
            g[r] *= dt;   /* (M + dt D + dt^2 K) dv = dt g */
        if (fem_linear_solve(self, g, dv) != SEAM_OK)
            break;   /* no direction: the step fails (a zero dv would pass as converged) */
        double alpha = self->set.line_search ? line_search(self, dt, v, dv, f_ext, damped, x, fe, vt) : 1.0;
        double step = 0.0;
        for (size_t r = 0; r < nd; r++) {
            v[r] += alpha * dv[r];
            step = fmax(step, fabs(dt * alpha * dv[r]));
        }
        if (!isfinite(step))
            break;
        /* Coordinates that went beyond a wall are held on it: the active set changed. */
        size_t held = contact ? fem_walls_hold(self, dt, 0.0, v, contact) : 0;
        /* a short step from a truncated PCG direction is no sign of convergence */
        if (step <= step_tol && !released && !held && !log->last_truncated) {
            log->converged = 1;
            status = SEAM_OK;
            break;
        }
    }
    for (size_t r = 0; r < nd; r++)
        x[r] = self->x[r] + dt * v[r];
    fem_elastic(self, x, fe, NULL);
    residual(self, dt, v, fe, f_ext, damped, g);
    if (contact && status == SEAM_OK) {
        /* Friction from the reactions of the converged active set, on v and so on x. */
        log->contacts = fem_walls_friction(self, dt, g, contact, v, log->wall_force);
        for (size_t r = 0; r < nd; r++)
            x[r] = self->x[r] + dt * v[r];
    }
    for (size_t r = 0; contact && r < nd; r++)
        if (contact[r])
            g[r] = 0.0;
    log->residual[log->iterations] = seam_norm2(nd, g);   /* iterations <= newton_max <= 63 */
    if (status == SEAM_OK) {
        memcpy(self->x_new, x, nd * sizeof *x);
        memcpy(self->v_new, v, nd * sizeof *v);
    }
    free(buf);
    return status;
}

/* Symplectic Euler: v^{n+1} = v^n + dt M^{-1} f(x^n, v^n), x^{n+1} = x^n + dt v^{n+1}. */
static seam_status explicit_step(fem *self, double dt, const double *f_ext)
{
    int d = self->d;
    size_t nd = self->n * (size_t)d;
    double *fe = seam_xmalloc((2 * nd + 2) * sizeof *fe), *Dv = fe + nd + 1;
    fem_elastic(self, self->x, fe, NULL);
    if (fem_has_damping(self)) {
        fem_damping_matrix(self, self->x, self->D);
        seam_csr_mul(self->D, self->v, Dv);
    } else {
        memset(Dv, 0, nd * sizeof *Dv);
    }
    int ok = 1;
    for (size_t r = 0; r < nd; r++) {
        double m = self->mass[r / (size_t)d];
        self->v_new[r] = is_fixed(self, r) ? self->v_fixed[r] : self->v[r] + dt * (fe[r] + f_ext[r] - Dv[r]) / m;
        ok &= isfinite(self->v_new[r]);
    }
    if (self->contact) {   /* the same inelastic projection onto the walls, then friction */
        memset(self->contact, 0, nd);
        memcpy(fe, self->v_new, nd * sizeof *fe);
        fem_walls_hold(self, dt, 0.0, self->v_new, self->contact);
        for (size_t r = 0; r < nd; r++)   /* minus the walls' force: m dv / dt of the projection */
            Dv[r] = -self->mass[r / (size_t)d] * (self->v_new[r] - fe[r]) / dt;
        self->newton.contacts =
            fem_walls_friction(self, dt, Dv, self->contact, self->v_new, self->newton.wall_force);
    }
    for (size_t r = 0; r < nd; r++)
        self->x_new[r] = self->x[r] + dt * self->v_new[r];
    free(fe);
    return ok ? SEAM_OK : SEAM_UNSTABLE;
}

/* The step with its reports: why a step failed, from the Newton log. */
seam_status fem_step(fem *self, double dt, const double *f_load)
{
    external_forces(self, f_load, self->f_ext);
    bool explicit = self->set.integrator != FEM_BACKWARD_EULER;   /* elastic forces explicit */
    seam_status s = self->set.integrator == FEM_IRVING ? fem_irving_step(self, dt, self->f_ext)
                    : explicit                         ? explicit_step(self, dt, self->f_ext)
                                                       : backward_euler(self, dt, self->f_ext);
    self->have_solve = s == SEAM_OK;
    const fem_newton_log *log = &self->newton;
    if (s != SEAM_OK && explicit)
        seam_logf(self->host, SEAM_LOG_WARN, "%s step produced non-finite positions (dt %g too large?)",
                  self->set.integrator == FEM_IRVING ? "irving" : "explicit", dt);
    else if (s != SEAM_OK)
        seam_logf(self->host, SEAM_LOG_WARN, "Newton did not converge in %d iterations (at most %d): |g| %.3e -> "
                  "%.3e, relative %.3g > newton.tolerance %g (nor did a step fall below %.3g m)", log->iterations,
                  self->set.newton_max, log->residual[0], log->residual[log->iterations - 1],
                  log->residual[0] > 0 ? log->residual[log->iterations - 1] / log->residual[0] : NAN,
                  self->set.newton_tol, self->set.newton_tol * self->length);
    return s;
}

void fem_commit(fem *self)
{
    size_t nd = self->n * (size_t)self->d;
    memcpy(self->x, self->x_new, nd * sizeof *self->x);
    memcpy(self->v, self->v_new, nd * sizeof *self->v);
    self->steps++;
    self->have_solve = 0;
}

double fem_max_dt(fem *self)
{
    if (self->set.integrator == FEM_BACKWARD_EULER)
        return self->set.dt_limit;
    /* omega_max^2 <= max_i sum_j |K_ij| / m_i (Gershgorin); dt = cfl 2 / omega_max. */
    size_t nd = self->n * (size_t)self->d;
    double *f = seam_xmalloc((nd + 1) * sizeof *f);
    fem_elastic(self, self->x, f, self->K);
    free(f);
    double w2 = 0.0;
    const seam_csr *K = self->K;
    for (size_t i = 0; i < K->rows; i++) {
        if (is_fixed(self, i))
            continue;
        double s = 0.0;
        for (int64_t p = K->row_ptr[i]; p < K->row_ptr[i + 1]; p++)
            s += fabs(K->val[p]);
        w2 = fmax(w2, s / self->mass[i / (size_t)self->d]);
    }
    double dt = w2 > 0.0 ? self->set.cfl * 2.0 / sqrt(w2) : INFINITY;
    return fmin(dt, self->set.dt_limit);
}

double fem_energy(const fem *self)
{
    int d = self->d;
    size_t nd = self->n * (size_t)d;
    double *f = seam_xmalloc((nd + 1) * sizeof *f);
    double e = fem_elastic(self, self->x, f, NULL);
    free(f);
    for (size_t r = 0; r < nd; r++) {
        double m = self->mass[r / (size_t)d];
        e += 0.5 * m * self->v[r] * self->v[r] - m * self->gravity[r % (size_t)d] * self->x[r];
    }
    return e;
}
