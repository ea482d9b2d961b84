/* fluid_sph: one step (solve), the stable step size (max_dt) and commit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/log.h"
#include "seam/mapping.h"
#include "fluid_sph.h"

static double max_speed(const fluid_sph *self, const double *v)
{
    size_t d = (size_t)self->cfg.dim;
    double vmax = 0.0;
    for (size_t i = 0; i < self->n; i++) {
        double s2 = 0.0;
        for (size_t c = 0; c < d; c++)
            s2 += v[d * i + c] * v[d * i + c];
        vmax = fmax(vmax, s2);   /* a NaN is dropped by fmax; callers check finiteness */
    }
    return sqrt(vmax);
}

int fluid_sph_finite(const double *a, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!isfinite(a[k]))
            return 0;
    return 1;
}

seam_status fluid_sph_max_dt(void *p, double *dt)
{
    fluid_sph *self = p;
    size_t d = (size_t)self->cfg.dim;
    if (!fluid_sph_finite(self->v_n, d * self->n)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "max_dt: the committed velocities are not finite");
        return SEAM_ERROR;
    }
    double g = sqrt(self->cfg.gravity[0] * self->cfg.gravity[0] + self->cfg.gravity[1] * self->cfg.gravity[1] +
                    self->cfg.gravity[2] * self->cfg.gravity[2]);
    /* CFL on the particle spacing; the speed gravity adds within a step counts too. */
    double speed = max_speed(self, self->v_n) + sqrt(g * self->cfg.s);
    *dt = speed > 0.0 ? self->cfg.cfl * self->cfg.s / speed : INFINITY;
    if (self->cfg.visc_explicit && self->cfg.mu > 0.0)   /* Andrade et al.'s condition (Takahashi ch. 4.1) */
        *dt = fmin(*dt, 0.1 * self->cfg.rho0 * self->f.K.h * self->f.K.h / (8.0 * self->cfg.mu));
    return SEAM_OK;
}

/* Build geometry g at fluid positions x and interface positions X. */
seam_status fluid_sph_geometry_at(fluid_sph *self, int g, const double *x, const double *X, const double *V)
{
    if ((self->ns && fluid_sph_boundary_at(self, X, V) != 0) ||
        sph_geometry_build(&self->geo[g], &self->f, self->n, x, self->nw + self->ns, self->xb, self->psi) != 0) {
        /* allocation aborts: only a neighbour grid refusing the positions fails here */
        seam_logf(self->host, SEAM_LOG_WARN, "the interface's or the fluid's positions span more than a neighbour "
                  "grid can hold (a coordinate near 1e308)");
        return SEAM_UNSTABLE;
    }
    return SEAM_OK;
}

/* Keep the particles in the domain: one that would leave stops at the side. */
static void hold_in_domain(fluid_sph *self)
{
    size_t d = (size_t)self->cfg.dim, clamped = 0;
    double margin = 1e-3 * self->cfg.s;
    for (size_t i = 0; i < self->n; i++)
        for (size_t c = 0; c < d; c++) {
            double *x = self->x + d * i + c, *v = self->v + d * i + c;
            if (*x < self->cfg.lo[c] + margin) {
                *x = self->cfg.lo[c] + margin;
                *v = fmax(*v, 0.0);
                clamped++;
            } else if (*x > self->cfg.hi[c] - margin) {
                *x = self->cfg.hi[c] - margin;
                *v = fmin(*v, 0.0);
                clamped++;
            }
        }
    self->clamped = clamped;
}

/* The start of the step: the committed particles against the committed
 * interface (kept from the last commit with step_cache, so coupling
 * iterations do not rebuild it). */
static seam_status start_geometry(fluid_sph *self)
{
    if (self->start_valid && self->cfg.step_cache)
        return SEAM_OK;
    seam_status st = fluid_sph_geometry_at(self, self->start, self->x_n, self->Xi_n, NULL);
    if (st == SEAM_OK)
        self->start_valid = 1;
    return st;
}

/* Non-pressure forces: XSPH viscosity and gravity, then (without the
 * implicit viscosity) the boundary pressure. They depend on the committed
 * state alone: made in the step's first iteration and kept (step_cache). */
static void non_pressure_forces(fluid_sph *self, const sph_geometry *G0, double dt)
{
    size_t d = (size_t)self->cfg.dim, n = self->n, nbd = d * (self->nw + self->ns);
    if (!self->cfg.step_cache || self->pre_dt != dt) {
        sph_xsph(&self->f, G0, self->cfg.xsph, self->v_n, self->v_pre);
        for (size_t i = 0; i < n; i++)
            for (size_t c = 0; c < d; c++)
                self->v_pre[d * i + c] += dt * self->cfg.gravity[c];
        memset(self->fb_pre, 0, nbd * sizeof *self->fb_pre);
        if (!(self->cfg.mu > 0.0))
            sph_boundary_pressure(&self->f, G0, self->cfg.gravity, self->k_n, dt, self->v_pre, self->fb_pre);
        self->pre_dt = dt;
    }
    memcpy(self->v, self->v_pre, d * n * sizeof *self->v);
    memcpy(self->fb, self->fb_pre, nbd * sizeof *self->fb);
}

/* Takahashi's implicit viscosity (Algorithm 3; its walls move with the
 * interface), or the same full form explicitly, then the boundary pressure. */
static seam_status viscosity_step(fluid_sph *self, const seam_step *step, const sph_geometry *G0)
{
    self->last_visc = (sph_solve_stats){0};
    if (!(self->cfg.mu > 0.0))
        return SEAM_OK;
    if (self->cfg.visc_explicit) {
        sph_viscosity_explicit(&self->f, G0, self->cfg.mu, self->cfg.visc_form, step->dt, self->vb, self->v, self->fb);
        sph_boundary_pressure(&self->f, G0, self->cfg.gravity, self->k_n, step->dt, self->v, self->fb);
        return SEAM_OK;
    }
    int rc = sph_viscosity_solve(&self->f, G0, self->cfg.mu, self->cfg.visc_form, step->dt, self->vb, self->cfg.eta_visc,
                                 self->cfg.max_iter, self->v, self->fb, &self->last_visc);
    if (rc > 0) {   /* a linear solve: its iterate is no solution (docs/fluid_sph.md, "Non-convergence") */
        seam_logf(self->host, SEAM_LOG_WARN, "step %lld iteration %d: the implicit viscosity CG %s: %d iterations "
                  "(max_iterations %d), relative residual %.3g > viscosity_tolerance %g", (long long)step->index,
                  step->iteration, self->last_visc.breakdown ? "broke down" : "did not converge",
                  self->last_visc.iterations, self->cfg.max_iter, self->last_visc.error, self->cfg.eta_visc);
        return SEAM_UNSTABLE;
    }
    sph_boundary_pressure(&self->f, G0, self->cfg.gravity, self->k_n, step->dt, self->v, self->fb);
    return SEAM_OK;
}

/* The pressure that makes the density the rest density: Takahashi ch. 3 by
 * MGCG (takahashi.c: the system of the applied pressure force D G with eq.
 * 3.2's wall term; docs/fluid_sph.md says why not eq. 3.3 as printed), or
 * DFSPH's constant-density solve warm-started from the committed pressures. */
static seam_status pressure_solve(fluid_sph *self, const seam_step *step, const sph_geometry *G0)
{
    double dt = step->dt;
    if (!self->tak) {
        memcpy(self->k, self->k_n, self->n * sizeof *self->k);
        double dt_cfl;
        fluid_sph_max_dt(self, &dt_cfl);
        self->last_rho = sph_density_solve(&self->f, G0, dt, dt_cfl, self->vb, self->cfg.eta_rho, self->cfg.max_iter,
                                           self->v, self->k, self->work);
        for (size_t i = 0; i < self->n; i++)
            self->p[i] = self->k[i] * G0->rho[i] * G0->rho[i];
        return SEAM_OK;
    }
    int rc = sph_takahashi_solve(self->tak, &self->f, G0, dt, self->vb, &self->cfg.tak_opts, self->v, self->p,
                                 self->k, &self->last_rho);
    if (rc > 0) {   /* a linear solve stopped short: its pressures are no solution */
        seam_logf(self->host, SEAM_LOG_WARN, "step %lld iteration %d: the takahashi pressure solve (%s) %s: %d "
                  "iterations (max_iterations %d), mean density error %.3g > density_tolerance %g",
                  (long long)step->index, step->iteration,
                  self->last_rho.fallback ? "MGCG, then CG" : self->cfg.tak_opts.multigrid ? "MGCG" : "CG",
                  self->last_rho.breakdown ? "broke down" : "did not converge", self->last_rho.iterations,
                  self->cfg.max_iter, self->last_rho.error, self->cfg.eta_rho);
        return SEAM_UNSTABLE;
    }
    return SEAM_OK;
}

/* x = x^n + dt v, then the end of the step against the interface at X and
 * DFSPH's divergence-free solve there (Takahashi's ISPH has the density solve only). */
static seam_status move_particles(fluid_sph *self, const double *X, const double *V, double dt)
{
    size_t d = (size_t)self->cfg.dim, n = self->n;
    int g1 = 1 - self->start;
    for (size_t k = 0; k < d * n; k++)
        self->x[k] = self->x_n[k] + dt * self->v[k];
    hold_in_domain(self);
    seam_status st = fluid_sph_geometry_at(self, g1, self->x, X, V);
    if (st != SEAM_OK)
        return st;
    memset(self->kv, 0, n * sizeof *self->kv);
    self->last_div = (sph_solve_stats){0};
    if (!self->tak)
        self->last_div = sph_divergence_solve(&self->f, &self->geo[g1], dt, self->vb, self->cfg.eta_div,
                                              self->cfg.max_iter, self->v, self->kv, self->work);
    sph_boundary_forces(&self->f, &self->geo[g1], self->kv, self->fb);
    return SEAM_OK;
}

/* A step that a smaller dt may fix: non-finite values, or a particle that moves more than a spacing. */
static seam_status check_step(fluid_sph *self, const seam_step *step)
{
    if (!fluid_sph_finite(self->v, (size_t)self->cfg.dim * self->n) || !fluid_sph_finite(self->p, self->n)) {
        seam_logf(self->host, SEAM_LOG_WARN, "step %lld: non-finite particle velocities or pressures",
                  (long long)step->index);
        return SEAM_UNSTABLE;
    }
    double vmax = max_speed(self, self->v);
    if (vmax * step->dt > self->cfg.s) {
        seam_logf(self->host, SEAM_LOG_WARN, "step %lld: a particle moves %g spacings in one step (speed %g m/s)",
                  (long long)step->index, vmax * step->dt / self->cfg.s, vmax);
        return SEAM_UNSTABLE;
    }
    return SEAM_OK;
}

/* One step from the committed state with the interface moving to X at V
 * (Bender and Koschier 2017, Algorithm 1 with Akinci boundaries; Takahashi
 * Algorithms 2-3 under "pressure_solver": "takahashi"). */
static seam_status sph_step(fluid_sph *self, const seam_step *step, const double *X, const double *V)
{
    seam_status st = start_geometry(self);
    if (st != SEAM_OK)
        return st;
    const sph_geometry *G0 = &self->geo[self->start];
    if (self->ns)   /* boundary velocities over the step: walls at rest, samples S V */
        seam_samples_interpolate(self->samples, self->cfg.dim, V, self->vb + (size_t)self->cfg.dim * self->nw);
    non_pressure_forces(self, G0, step->dt);
    st = viscosity_step(self, step, G0);
    if (st == SEAM_OK)
        st = pressure_solve(self, step, G0);
    if (st != SEAM_OK)
        return st;
    sph_boundary_forces(&self->f, G0, self->k, self->fb);
    st = move_particles(self, X, V, step->dt);
    return st == SEAM_OK ? check_step(self, step) : st;
}

/* The solve entry: the call checked, the step, its loads and its log line. */
seam_status fluid_sph_solve(void *p, const seam_step *step, const seam_input *in, seam_output *out)
{
    fluid_sph *self = p;
    size_t d = (size_t)self->cfg.dim, np = self->iface.n_points;
    double dt = step->dt;
    self->solved = 0;
    self->t_trial = step->t + dt;
    self->step_index = (long long)step->index;
    if (!self->bound) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve before bind: the fluid needs the interface first");
        return SEAM_ERROR;
    }
    if (np && (!in || in->n != np || in->dim != self->cfg.dim || !in->X || !in->V)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve: expected X and V for %zu points of dimension %d", np,
                  self->cfg.dim);
        return SEAM_ERROR;
    }
    if (!(dt > 0.0) || !isfinite(dt)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve: step size %g is not a positive number", dt);
        return SEAM_ERROR;
    }
    if (np && (!fluid_sph_finite(in->X, d * np) || !fluid_sph_finite(in->V, d * np))) {
        seam_logf(self->host, SEAM_LOG_WARN, "solve: the interface has non-finite positions or velocities");
        return SEAM_UNSTABLE;
    }
    const double *X = np ? in->X : NULL, *V = np ? in->V : NULL;
    if (np)
        memcpy(self->Xi, X, d * np * sizeof *X);
    seam_status st = sph_step(self, step, X, V);
    if (st != SEAM_OK)
        return st;
    if (np)
        seam_samples_distribute(self->samples, self->cfg.dim, self->fb + d * self->nw, out->F);
    seam_logf(self->host, SEAM_LOG_DEBUG,
              "step %lld iteration %d: viscosity CG %d iterations (residual %.2e), density solve %d iterations "
              "(error %.2e%s), divergence solve %d (%.2e), %zu held at the sides", (long long)step->index,
              step->iteration, self->last_visc.iterations, self->last_visc.error, self->last_rho.iterations,
              self->last_rho.error, self->last_rho.fallback ? "; MGCG broke down, finished by CG" : "",
              self->last_div.iterations, self->last_div.error, self->clamped);
    self->solved = 1;
    return SEAM_OK;
}

seam_status fluid_sph_commit(void *p)
{
    fluid_sph *self = p;
    if (!self->solved) {
        seam_logf(self->host, SEAM_LOG_ERROR, "commit without a successful solve");
        return SEAM_ERROR;
    }
    self->t_n = self->t_trial;
    /* DFSPH's iteration cap is its practice (Bender and Koschier 2017): the step stands, said once, at commit */
    if (!self->tak && !(self->last_rho.error <= self->cfg.eta_rho))
        seam_logf(self->host, SEAM_LOG_WARN, "step %lld: the DFSPH density solve stopped at max_iterations %d with "
                  "average density error %.3g > density_tolerance %g; the step is committed with it",
                  self->step_index, self->cfg.max_iter, self->last_rho.error, self->cfg.eta_rho);
    if (!self->tak && !(self->last_div.error <= self->cfg.eta_div))
        seam_logf(self->host, SEAM_LOG_WARN, "step %lld: the DFSPH divergence solve stopped at max_iterations %d with "
                  "average divergence error %.3g > divergence_tolerance %g; the step is committed with it",
                  self->step_index, self->cfg.max_iter, self->last_div.error, self->cfg.eta_div);
    size_t d = (size_t)self->cfg.dim, n = self->n;
    memcpy(self->x_n, self->x, d * n * sizeof *self->x);
    memcpy(self->v_n, self->v, d * n * sizeof *self->v);
    memcpy(self->k_n, self->k, n * sizeof *self->k);
    memcpy(self->kv_n, self->kv, n * sizeof *self->kv);
    memcpy(self->p_n, self->p, n * sizeof *self->p);
    /* The end of the last solve is the start of the next step. */
    self->start = 1 - self->start;
    self->start_valid = 1;
    double *t = self->Xi_n;   /* the interface positions the end geometry was built at */
    self->Xi_n = self->Xi;
    self->Xi = t;
    self->solved = 0;
    fluid_sph_forget_step(self);
    return SEAM_OK;
}
