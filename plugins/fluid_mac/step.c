/* fluid_mac's solve: one step of the incompressible Euler (or, with a
 * viscosity, Navier-Stokes) equations on the MAC grid, split as in Bridson's
 * "Fluid Simulation for Computer Graphics" (ch. 2):
 *     u^A = advect(u^n, dt)              (a liquid: its particles' velocities)
 *     u^B = u^A + dt g (+ buoyancy)      body forces
 *     u^C = u^B + dt nu lap u^C          implicit viscosity, solids' faces at U = W V (Akbay eq. 4.5)
 *     u^{n+1} = u^C - dt/rho grad p,  div u^{n+1} = s      the projection
 * then smoke's scalars or the liquid's particles ride on u^{n+1}, and the
 * momentum exchanged at the solids' faces becomes their loads. The
 * algorithm is the stage lists below; fluid_mac_step runs them, timing each
 * stage, and fluid_mac_log_step reports the figures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seam/alloc.h"
#include "seam/log.h"
#include "step.h"

/* ---- the grid's stages -------------------------------------------------- */

/* The solids at the step's end positions as voxels and faces (a liquid's
 * level set marks the air); a liquid's shells move from X - dt V to X. */
static seam_status voxelize(fluid_mac *self, const trial *tr)
{
    const fluid_mac_config *c = &self->cfg;
    const mac_grid *g = &c->g;
    mac_geometry_free(&self->geo);
    seam_status st = mac_geometry_build(&self->geo, g, &self->iface, tr->X, c->kernel_radius * g->dx,
                                        c->liquid ? self->phi_n : NULL, c->obstacle, self->host);
    if (st == SEAM_OK && c->liquid && self->n_shell) {
        self->shell_X1 = tr->X;
        for (size_t k = 0; k < (size_t)g->dim * self->iface.n_points; k++)
            self->shell_X0[k] = tr->X[k] - tr->step->dt * tr->V[k];
    }
    return st;
}

/* u^A: the committed velocities transported over dt (a liquid: its
 * particles' to the faces; smoke: the configured advection), or, in a later
 * coupling iteration of the same step, what the first one transported. */
static seam_status transport_velocities(fluid_mac *self, const trial *tr)
{
    const fluid_mac_config *c = &self->cfg;
    const mac_grid *g = &c->g;
    double dt = tr->step->dt;
    if (self->moved_valid && (c->liquid || self->moved_dt == dt)) {
        for (int a = 0; a < g->dim; a++) {
            memcpy(self->vel[a], self->vel_moved[a], mac_nf(g, a) * sizeof(double));
            if (c->liquid)   /* FLIP's grid velocities before the step, as liquid_to_grid leaves them */
                memcpy(self->dvel[a], self->vel_moved[a], mac_nf(g, a) * sizeof(double));
        }
        return SEAM_OK;
    }
    if (c->liquid) {   /* the particles carry the momentum */
        liquid_to_grid(self);
    } else if (c->advection == ADVECT_MACCORMACK) {
        mac_advect_maccormack(g, self->vel_n, dt, self->vel, &self->work);
    } else if (c->advection == ADVECT_BFECC) {
        mac_advect_bfecc(g, self->vel_n, dt, self->vel, &self->work);
    } else {
        mac_advect(g, self->vel_n, dt, self->vel);
    }
    for (int a = 0; a < g->dim; a++)
        memcpy(self->vel_moved[a], self->vel[a], mac_nf(g, a) * sizeof(double));
    self->moved_dt = dt;
    self->moved_valid = 1;
    return SEAM_OK;
}

/* u^B = u^A + dt (g + b): gravity, and smoke's buoyancy b = -alpha d + beta T
 * along +y from the committed scalars (Fedkiw, Stam & Jensen 2001, eq. 8);
 * with viscosity the increments are kept in fvel too. vel_star keeps u^B. */
static seam_status add_forces(fluid_mac *self, const trial *tr)
{
    const fluid_mac_config *c = &self->cfg;
    const mac_grid *g = &c->g;
    double dt = tr->step->dt;
    if (self->fvel[0])
        for (int a = 0; a < g->dim; a++)
            for (size_t f = 0; f < mac_nf(g, a); f++)
                self->fvel[a][f] = a == 1 ? 0.0 : dt * c->gravity[a];
    for (size_t f = 0; f < mac_nf(g, 0); f++)
        self->vel[0][f] += dt * c->gravity[0];
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j <= g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                double b = 0.0;
                if (c->alpha != 0.0 || c->beta != 0.0) {
                    size_t lo = mac_c(g, i, j > 0 ? j - 1 : 0, k), hi = mac_c(g, i, j < g->ny ? j : g->ny - 1, k);
                    double d = 0.5 * (self->d_n[lo] + self->d_n[hi]), T = 0.5 * (self->T_n[lo] + self->T_n[hi]);
                    b = -c->alpha * d + c->beta * T;
                }
                self->vel[1][mac_fi(g, 1, i, j, k)] += dt * (c->gravity[1] + b);
                if (self->fvel[1])
                    self->fvel[1][mac_fi(g, 1, i, j, k)] = dt * (c->gravity[1] + b);
            }
    for (size_t f = 0; f < mac_nf(g, 2); f++)
        self->vel[2][f] += dt * c->gravity[2];
    for (int a = 0; a < g->dim; a++)
        memcpy(self->vel_star[a], self->vel[a], mac_nf(g, a) * sizeof(double));
    return SEAM_OK;
}

/* Sources set the velocity of their wall faces and the scalars flowing in. */
static void set_inflow_face(void *ctx, const inflow *src, int axis, const int *ijk, double u_in, size_t cell)
{
    (void)cell;
    fluid_mac *self = ctx;
    const mac_grid *g = &self->cfg.g;
    double sign = src->side % 2 == 0 ? 1.0 : -1.0;   /* inward: + on a low side, - on a high one */
    size_t f = mac_fi(g, axis, ijk[0], ijk[1], ijk[2]);
    self->vel[axis][f] = sign * u_in;
    self->d_b[axis][f] = src->density;
    self->T_b[axis][f] = src->temperature;
}

/* The faces of obstacle cells are static walls. */
static void zero_obstacle_faces(fluid_mac *self)
{
    const mac_grid *g = &self->cfg.g;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                if (!self->cfg.obstacle[mac_c(g, i, j, k)])
                    continue;
                for (int a = 0; a < g->dim; a++) {
                    self->vel[a][mac_fi(g, a, i, j, k)] = 0.0;
                    self->vel[a][mac_fi(g, a, i + (a == 0), j + (a == 1), k + (a == 2))] = 0.0;
                }
            }
}

/* Sources' faces take their inflow at time t and the scalars it brings;
 * obstacles' faces are at rest. */
static void impose_inflows(fluid_mac *self, double t)
{
    const mac_grid *g = &self->cfg.g;
    for (int a = 0; a < g->dim; a++) {
        memset(self->d_b[a], 0, mac_nf(g, a) * sizeof(double));
        memset(self->T_b[a], 0, mac_nf(g, a) * sizeof(double));
    }
    inflow_for_each_face(g, self->cfg.sources, self->cfg.n_sources, t, set_inflow_face, self);
    if (self->cfg.obstacle)
        zero_obstacle_faces(self);
}

/* Walls get zero normal velocity, sources their inflow at mid-step (the
 * step average), obstacles zero, faces at solid cells U = W V (Akbay eq.
 * 4.5), kept in self->U for the viscosity. */
static seam_status impose_boundaries(fluid_mac *self, const trial *tr)
{
    const mac_grid *g = &self->cfg.g;
    for (int a = 0; a < g->dim; a++) {
        int ni = g->nx + (a == 0), nj = g->ny + (a == 1), nk = g->nz + (a == 2);
        for (int k = 0; k < nk; k++)
            for (int j = 0; j < nj; j++)
                for (int i = 0; i < ni; i++) {
                    int m = a == 0 ? i : a == 1 ? j : k;
                    if (m != 0 && m != mac_n(g, a))
                        continue;   /* the domain's sides only */
                    if (mac_face(g, &self->geo, a, i, j, k, NULL) == FACE_FIXED)
                        self->vel[a][mac_fi(g, a, i, j, k)] = 0.0;
                }
    }
    impose_inflows(self, tr->step->t + 0.5 * tr->step->dt);
    size_t nf = self->geo.n_faces, dim = (size_t)g->dim;
    free(self->U);
    self->U = NULL;
    if (!nf)
        return SEAM_OK;
    double *U = self->U = seam_xmalloc_n(dim * nf, sizeof *U);
    seam_mapping_interpolate(self->geo.W, g->dim, tr->V, U);
    for (size_t f = 0; f < nf; f++) {
        const solid_face *sf = &self->geo.faces[f];
        /* Deep inside a body no point is near: nothing flows there, keep it at rest. */
        double un = seam_mapping_covered(self->geo.W, f) ? U[dim * f + (size_t)sf->axis] : 0.0;
        self->vel[sf->axis][mac_fi(g, sf->axis, sf->i, sf->j, sf->k)] = un;
    }
    return SEAM_OK;
}

/* u^C: implicit viscosity, so the step is not limited by it (max_dt ignores
 * it). The body forces' increment is left out of the diffusion: a force the
 * pressure balances leaves a fluid at rest exactly at rest. With
 * viscous_loads, the momentum the links give the solid faces is kept. */
static seam_status diffuse(fluid_mac *self, const trial *tr)
{
    const fluid_mac_config *c = &self->cfg;
    const mac_grid *g = &c->g;
    self->viscosity_iterations = 0;
    if (!(c->viscosity > 0.0))
        return SEAM_OK;
    double *dv = NULL;
    size_t need = (size_t)g->dim * self->geo.n_faces;
    if (c->viscous_loads && need > self->visc_dv_cap) {   /* kept between solves, grown when needed */
        self->visc_dv = seam_xrealloc_n(self->visc_dv, need, sizeof *self->visc_dv);
        self->visc_dv_cap = need;
    }
    if (c->viscous_loads && need)
        dv = self->visc_dv;
    return mac_diffuse(g, &self->geo, self->U, self->fvel, c->viscosity * tr->step->dt, c->tol, c->max_iter,
                       self->vel, dv, &self->viscosity_iterations, self->host);
}

static int geo_fluid(const void *ctx, size_t c) { return mac_fluid(ctx, c); }

int fluid_mac_geo_sources(const fluid_mac *self, const mac_geometry *geo, double t, double *s, double *d_src,
                          double *T_src)
{
    return inflow_volume_rates(&self->cfg.g, self->cfg.sources, self->cfg.n_sources, geo_fluid, geo, t, s, d_src,
                               T_src);
}

/* u^{n+1} = u^C - dt/rho grad p with div u^{n+1} = s, the volume sources'
 * rate at mid-step (Bridson ch. 5); the committed pressure starts the solve. */
static seam_status project(fluid_mac *self, const trial *tr)
{
    const fluid_mac_config *c = &self->cfg;
    const mac_grid *g = &c->g;
    double t = tr->step->t, dt = tr->step->dt;
    memcpy(self->p, self->p_n, mac_ncell(g) * sizeof(double));
    self->has_src = fluid_mac_geo_sources(self, &self->geo, t + 0.5 * dt, self->src_s, self->src_d, self->src_T);
    seam_status st = mac_project(&self->proj, g, &self->geo, self->has_src ? self->src_s : NULL, c->rho, dt,
                                 c->tol, c->max_iter, self->vel, self->p, self->host);
    self->pressure_iterations = self->proj.iterations;
    self->pressure_residual = self->proj.residual;
    self->pressure_cpu_ms = self->proj.pcg_cpu_ms;
    self->pressure_wall_ms = self->proj.pcg_wall_ms;
    self->pressure_bytes = self->proj.iteration_bytes;
    return st;
}

static int all_finite(const double *a, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!isfinite(a[k]))
            return 0;
    return 1;
}

static int finite_fields(const fluid_mac *self)
{
    const mac_grid *g = &self->cfg.g;
    int finite = all_finite(self->p, mac_ncell(g));
    for (int a = 0; a < g->dim; a++)
        finite &= all_finite(self->vel[a], mac_nf(g, a));
    return finite;
}

/* A step too long for the solvers shows here: retry with a smaller one. */
static seam_status check_finite(fluid_mac *self, const trial *tr)
{
    if (finite_fields(self))
        return SEAM_OK;
    seam_logf(self->host, SEAM_LOG_WARN, "step %lld: non-finite velocity or pressure", (long long)tr->step->index);
    return SEAM_UNSTABLE;
}

/* Smoke density and temperature ride on the divergence-free velocities. */
static seam_status transport_scalars(fluid_mac *self, const trial *tr)
{
    const mac_grid *g = &self->cfg.g;
    size_t nc = mac_ncell(g);
    double dt = tr->step->dt;
    memcpy(self->d, self->d_n, nc * sizeof(double));
    memcpy(self->T, self->T_n, nc * sizeof(double));
    const int max_sub = 64;
    const double *s = self->has_src ? self->src_s : NULL;
    int a = mac_transport_scalar(g, &self->geo, self->vel, dt, self->d_b, s, self->src_d, max_sub, self->d);
    int b = a < 0 ? a : mac_transport_scalar(g, &self->geo, self->vel, dt, self->T_b, s, self->src_T, max_sub, self->T);
    if (b < 0) {
        seam_logf(self->host, SEAM_LOG_WARN,
                  "step too long: scalar transport would need more than %d sub-steps", max_sub);
        return SEAM_UNSTABLE;
    }
    return SEAM_OK;
}

/* The loads on the interface points, when asked for. */
static seam_status exchange_loads(fluid_mac *self, const trial *tr)
{
    if (tr->F)
        fluid_mac_loads(self, tr->step->dt, tr->F);
    return SEAM_OK;
}

/* ---- the algorithm ------------------------------------------------------- */

typedef struct stage {
    int phase;   /* PH_*, the share of the solve's time it is reported under */
    stage_fn run;
} stage;

/* Smoke: the velocities advect themselves; density and temperature follow. */
static const stage smoke_step[] = {
    {PH_GEOMETRY, voxelize},       {PH_ADVECT, transport_velocities}, {PH_FORCES, add_forces},
    {PH_FORCES, impose_boundaries}, {PH_FORCES, diffuse},              {PH_PRESSURE, project},
    {PH_PRESSURE, check_finite},   {PH_TRANSPORT, transport_scalars}, {PH_LOADS, exchange_loads},
};

/* A liquid: the particles carry the velocities to the grid and back, then
 * move, mark the surface and spread where crowded. */
static const stage liquid_step[] = {
    {PH_GEOMETRY, voxelize},           {PH_TO_GRID, transport_velocities}, {PH_FORCES, add_forces},
    {PH_FORCES, impose_boundaries},     {PH_FORCES, diffuse},               {PH_PRESSURE, project},
    {PH_PRESSURE, check_finite},       {PH_EXTRAPOLATE, liquid_extrapolate},
    {PH_TO_PARTICLES, liquid_to_particles}, {PH_ADVECT, liquid_advect}, {PH_LEVEL_SET, liquid_level_set},
    {PH_SPREAD, liquid_spread},        {PH_ADVECT, liquid_spread_move},    {PH_LEVEL_SET, liquid_level_set},
    {PH_LOADS, exchange_loads},
};

/* CPU time of the process (all threads), so the shares hold on a loaded machine. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* Run stages in order until one fails, adding each one's CPU time to its phase. */
static seam_status run_stages(fluid_mac *self, const trial *tr, const stage *stages, size_t n)
{
    double t0 = cpu_ms();
    for (size_t k = 0; k < n; k++) {
        seam_status st = stages[k].run(self, tr);
        double t1 = cpu_ms();
        self->phase_ms[stages[k].phase] += t1 - t0;
        t0 = t1;
        if (st != SEAM_OK)
            return st;
    }
    return SEAM_OK;
}

seam_status fluid_mac_step(fluid_mac *self, const seam_step *step, const double *X, const double *V, double *F)
{
    trial tr = {step, X, V, F};
    memset(self->phase_ms, 0, sizeof self->phase_ms);
    if (self->cfg.liquid)
        return run_stages(self, &tr, liquid_step, sizeof liquid_step / sizeof liquid_step[0]);
    return run_stages(self, &tr, smoke_step, sizeof smoke_step / sizeof smoke_step[0]);
}

/* Names of the phases (fluid.h) in the debug line "phases (ms)". */
static const char *const phase_names[PHASES] = {"geometry", "to_grid", "forces", "pressure", "extrapolate",
                                                "to_particles", "advect", "level_set", "spread", "transport",
                                                "loads"};

void fluid_mac_log_step(const fluid_mac *self, const seam_step *step)
{
    const seam_host *host = self->host;
    long long index = (long long)step->index;
    seam_logf(host, SEAM_LOG_DEBUG,
              "step %lld iteration %d: pressure PCG %d iterations, residual %.3g, %.3f ms cpu, %.3f ms wall, "
              "%.0f bytes/iteration bound", index, step->iteration, self->pressure_iterations,
              self->pressure_residual, self->pressure_cpu_ms, self->pressure_wall_ms, self->pressure_bytes);
    if (self->cfg.viscosity > 0.0)
        seam_logf(host, SEAM_LOG_DEBUG, "step %lld iteration %d: viscosity PCG %d iterations", index,
                  step->iteration, self->viscosity_iterations);
    if (self->cfg.liquid)
        seam_logf(host, SEAM_LOG_DEBUG, "step %lld iteration %d: particle spreading %d iterations", index,
                  step->iteration, self->spread_iterations);
    char line[512];
    int used = snprintf(line, sizeof line, "step %lld iteration %d: phases (ms)", index, step->iteration);
    for (int ph = 0; ph < PHASES && used > 0 && (size_t)used < sizeof line; ph++)
        used += snprintf(line + used, sizeof line - (size_t)used, " %s %.3f", phase_names[ph], self->phase_ms[ph]);
    seam_logf(host, SEAM_LOG_DEBUG, "%s", line);
}

/* ---- a step projected by the caller (plugins/monolithic) ------------------ */

seam_status fluid_mac_begin(fluid_mac *self, const double *X, const double *V, double t, double dt)
{
    const fluid_mac_config *c = &self->cfg;
    const mac_grid *g = &c->g;
    self->solved = 0;
    self->t_trial = t + dt;
    if (!self->bound) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve before bind: the fluid needs the interface first");
        return SEAM_ERROR;
    }
    size_t n = self->iface.n_points;
    seam_step step = {0, t, dt, 0};
    trial tr = {&step, n ? X : NULL, n ? V : NULL, NULL};
    memset(self->phase_ms, 0, sizeof self->phase_ms);
    mac_geometry_free(&self->geo);
    seam_status st = mac_geometry_build(&self->geo, g, &self->iface, tr.X, c->kernel_radius * g->dx, self->phi_n,
                                        c->obstacle, self->host);
    if (st != SEAM_OK)
        return st;
    if (self->n_shell) {   /* the shells stand still over the step's particle moves */
        self->shell_X1 = X;
        memcpy(self->shell_X0, X, (size_t)g->dim * n * sizeof(double));
    }
    transport_velocities(self, &tr);
    add_forces(self, &tr);
    self->has_src = 0;
    if (c->viscosity > 0.0) {
        /* As a solve: the boundary velocities (the solids' faces at W V), then implicit diffusion. */
        if (n && !V) {
            seam_logf(self->host, SEAM_LOG_ERROR, "begin: viscosity needs the velocities of the %zu interface points", n);
            return SEAM_ERROR;
        }
        impose_boundaries(self, &tr);
        int iterations = 0;
        st = mac_diffuse(g, &self->geo, self->U, self->fvel, c->viscosity * dt, c->tol, c->max_iter, self->vel,
                         NULL, &iterations, self->host);
        seam_logf(self->host, SEAM_LOG_DEBUG, "viscosity PCG %d iterations", iterations);
        return st;
    }
    /* The domain's walls at rest, the sources' faces at their mid-step inflow (as a solve has them). */
    for (int a = 0; a < g->dim; a++)
        for (int k = 0; k < g->nz + (a == 2); k++)
            for (int j = 0; j < g->ny + (a == 1); j++)
                for (int i = 0; i < g->nx + (a == 0); i++) {
                    int m = a == 0 ? i : a == 1 ? j : k;
                    if ((m == 0 || m == mac_n(g, a)) && g->bc[2 * a + (m != 0)] == BC_WALL)
                        self->vel[a][mac_fi(g, a, i, j, k)] = 0.0;
                }
    impose_inflows(self, t + 0.5 * dt);
    return SEAM_OK;
}

int fluid_mac_volume_sources(fluid_mac *self, int (*is_fluid)(const void *ctx, size_t c), const void *ctx, double t)
{
    const fluid_mac_config *c = &self->cfg;
    self->has_src =
        inflow_volume_rates(&c->g, c->sources, c->n_sources, is_fluid, ctx, t, self->src_s, self->src_d, self->src_T);
    return self->has_src;
}

/* After the caller's projection, the stages of a solve that follow it. */
static const stage liquid_after_projection[] = {
    {PH_EXTRAPOLATE, liquid_extrapolate}, {PH_TO_PARTICLES, liquid_to_particles}, {PH_ADVECT, liquid_advect},
    {PH_LEVEL_SET, liquid_level_set},     {PH_SPREAD, liquid_spread},               {PH_ADVECT, liquid_spread_move},
    {PH_LEVEL_SET, liquid_level_set},
};
static const stage smoke_after_projection[] = {{PH_TRANSPORT, transport_scalars}};

seam_status fluid_mac_end(fluid_mac *self, double dt)
{
    if (!finite_fields(self)) {
        seam_logf(self->host, SEAM_LOG_WARN, "non-finite velocity or pressure after the coupled projection");
        return SEAM_UNSTABLE;
    }
    seam_step step = {0, self->t_trial - dt, dt, 0};
    trial tr = {&step, NULL, NULL, NULL};
    seam_status st = self->cfg.liquid ? run_stages(self, &tr, liquid_after_projection,
                                                   sizeof liquid_after_projection / sizeof liquid_after_projection[0])
                                      : run_stages(self, &tr, smoke_after_projection, 1);
    if (st != SEAM_OK)
        return st;
    self->solved = 1;
    return SEAM_OK;
}
