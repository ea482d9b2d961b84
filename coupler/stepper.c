/* How a step is advanced. Partitioned: predict the interface, then let the
 * scheme iterate over the participants' maps (the ops table below).
 * Coupled: one solve of a SEAM_COUPLED plugin. */
#include <math.h>
#include <string.h>

#include "sim_internal.h"
#include "lanes.h"

/* Whether x holds only finite values (else *bad is the first that is not):
 * x * 0 is 0 for finite x and NaN otherwise, so one summing pass decides. */
static bool all_finite(const double *x, size_t n, size_t *bad)
{
    double acc[4] = {0.0, 0.0, 0.0, 0.0};
    SEAM_LANES(j, l, n, acc[l] += x[j] * 0.0;);
    if (acc[0] + acc[1] + acc[2] + acc[3] == 0.0)
        return true;
    size_t i;
    for (i = 0; i < n && isfinite(x[i]); i++)
        ;
    *bad = i < n ? i : 0;
    return false;
}

/* The effective velocities (X - X^n) / dt handed to the fluid. */
static void effective_velocity(const double *restrict X, const double *restrict Xn, double dt, size_t n,
                               double *restrict V)
{
    double inv_dt = 1.0 / dt;
    SEAM_LANES(j, l, n, V[j] = (X[j] - Xn[j]) * inv_dt;);
}

/* The fluid's loads F for positions X and velocities V. */
static seam_status fluid_solve(seam_sim *sim, const seam_coupling *c, const double *X, const double *V, double *F)
{
    participant *pt = sim->fluid;
    seam_step step = {c->step, c->t, c->dt, c->fluid_calls};
    size_t np = c->n / (size_t)c->dim;
    seam_input in = {np, c->dim, X, V, NULL};
    seam_output out = {np, c->dim, NULL, NULL, F};
    seam_status st = participant_solve(pt, &step, &in, &out);
    size_t bad;
    if (st == SEAM_OK && !all_finite(F, c->n, &bad)) {
        sim_log(sim, SEAM_LOG_ERROR, pt->name, "returned a non-finite load (%g) on interface point %zu at step %ld (t = %.9g s)",
                F[bad], bad / (size_t)c->dim, c->step, c->t);
        return SEAM_ERROR;
    }
    return st;
}

static seam_status fluid_map(void *ctx, const seam_coupling *c, const double *X, double *F)
{
    seam_sim *sim = ctx;
    effective_velocity(X, c->Xn, c->dt, c->n, sim->in.V);
    return fluid_solve(sim, c, X, sim->in.V, F);
}

/* The solids' positions X and end-of-step velocities V for loads F. */
static seam_status solid_solve(seam_sim *sim, const seam_coupling *c, const double *F, double *X, double *V)
{
    seam_step step = {c->step, c->t, c->dt, c->solid_calls};
    for (size_t s = sim->first_solid; s < sim->n_parts; s++) {
        participant *pt = &sim->parts[s];
        size_t off = pt->offset * (size_t)c->dim, len = pt->n_points * (size_t)c->dim;
        seam_input in = {pt->n_points, c->dim, NULL, NULL, F + off};
        seam_output out = {pt->n_points, c->dim, X + off, V + off, NULL};
        seam_status st = participant_solve(pt, &step, &in, &out);
        if (st != SEAM_OK)
            return st;
        memcpy(sim->in.F_solid + off, F + off, len * sizeof *F);   /* for probes: what the solid was given */
        size_t bad;
        if (!all_finite(X + off, len, &bad) || !all_finite(V + off, len, &bad)) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name,
                    "returned a non-finite position or velocity on its interface point %zu at step %ld (t = %.9g s)",
                    bad / (size_t)c->dim, c->step, c->t);
            return SEAM_ERROR;
        }
    }
    return SEAM_OK;
}

static seam_status solid_map(void *ctx, const seam_coupling *c, const double *F, double *X)
{
    seam_sim *sim = ctx;
    return solid_solve(sim, c, F, X, sim->in.V_solid);
}

static seam_verdict judge(void *ctx, const seam_coupling *c, const seam_iterate *it)
{
    seam_sim *sim = ctx;
    seam_verdict v = seam_convergence_judge(&sim->conv, &sim->coupling, it);
    double loads = NAN;
    for (size_t i = 0; i < sim->conv.count; i++)
        if (sim->conv.measures[i].quantity == SEAM_QTY_LOADS) {
            loads = sim->conv.value[i];
            break;
        }
    /* with the projection, also p0 must have settled (bpp.h) */
    if (sim->bpp && v == SEAM_CONVERGED && !bpp_settled(sim->bpp))
        v = c->judged >= sim->conv.max_iterations ? SEAM_EXHAUSTED : SEAM_ITERATE;
    outputs_residual(sim, c->step, c->judged, c->residual, loads);
    return v;
}

static void warn(void *ctx, const seam_coupling *c, const char *message)
{
    seam_sim *sim = ctx;
    sim_log(sim, SEAM_LOG_WARN, NULL, "step %ld (t = %.9g s): scheme %s: %s", c->step, c->t, sim->scheme->name,
            message);
}

static const seam_coupling_ops participant_ops = {fluid_map, solid_map, judge, warn};

/* ---- the boundary pressure projection between the scheme and the participants ---- */

static seam_status bpp_regions_cb(void *ctx, const seam_coupling *c, const double *X, seam_regions *out)
{
    seam_sim *sim = ctx;
    participant *pt = sim->fluid;
    seam_step step = {c->step, c->t, c->dt, c->fluid_calls};
    *out = (seam_regions){0};
    double t0 = sim_now();
    seam_status st = pt->p->regions(pt->self, &step, X, out);
    pt->stats.seconds += sim_now() - t0;
    return participant_check(pt, "regions", &step, st);
}

static seam_status bpp_mobility_cb(void *ctx, const seam_coupling *c, const double *impulse, double *dv)
{
    seam_sim *sim = ctx;
    seam_step step = {c->step, c->t, c->dt, c->solid_calls};
    for (size_t s = sim->first_solid; s < sim->n_parts; s++) {
        participant *pt = &sim->parts[s];
        size_t off = pt->offset * (size_t)c->dim;
        double t0 = sim_now();
        seam_status st = pt->p->mobility(pt->self, impulse + off, dv + off);
        pt->stats.seconds += sim_now() - t0;
        if ((st = participant_check(pt, "mobility", &step, st)) != SEAM_OK)
            return st;
    }
    return SEAM_OK;
}

static seam_status bpp_fluid_cb(void *ctx, const seam_coupling *c, const double *X, const double *V, double *F)
{
    return fluid_solve(ctx, c, X, V, F);
}

static seam_status bpp_solid_cb(void *ctx, const seam_coupling *c, const double *F, double *X, double *V)
{
    return solid_solve(ctx, c, F, X, V);
}

static void bpp_log_cb(void *ctx, const seam_coupling *c, seam_log_level level, const char *message)
{
    sim_log(ctx, level, NULL, "step %ld (t = %.9g s): pressure projection: %s", c->step, c->t, message);
}

static seam_status bpp_fluid_map(void *ctx, const seam_coupling *c, const double *X, double *F)
{
    seam_sim *sim = ctx;
    return bpp_fluid(sim->bpp, c, X, F);
}

static seam_status bpp_solid_map(void *ctx, const seam_coupling *c, const double *F, double *X)
{
    seam_sim *sim = ctx;
    return bpp_solid(sim->bpp, c, F, X, sim->in.V_solid);
}

static const seam_coupling_ops bpp_ops = {bpp_fluid_map, bpp_solid_map, judge, warn};

/* The projection needs the fluid's regions and (solid form) every solid's mobility. */
static bool bpp_setup(seam_sim *sim)
{
    bool ok = true;
    participant *fl = sim->fluid;
    if (!fl->p->regions || !(fl->caps & SEAM_CAP_REGIONS)) {
        sim_log(sim, SEAM_LOG_ERROR, fl->name, "%s: coupling.bpp needs a fluid that reports its enclosed regions; %s (%s) does not",
                seam_doc_locate(sim->doc, "coupling"), fl->name, fl->p->name);
        ok = false;
    }
    for (size_t s = sim->first_solid; s < sim->n_parts && sim->bpp_opts.form == BPP_FORM_SOLID; s++) {
        participant *pt = &sim->parts[s];
        if (!pt->p->mobility || !(pt->caps & SEAM_CAP_MOBILITY)) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name,
                    "%s: coupling.bpp (form \"solid\") needs every solid's mobility; %s (%s) offers none",
                    seam_doc_locate(sim->doc, "coupling"), pt->name, pt->p->name);
            ok = false;
        }
    }
    if (sim->scheme->needs_impulse_loads && !(fl->caps & SEAM_CAP_LOADS_IMPULSE)) {
        sim_log(sim, SEAM_LOG_ERROR, fl->name,
                "%s: scheme %s needs a fluid that returns conservative impulse loads (Akbay eq. 2.8); %s (%s) does "
                "not say it does (for fluid_mac: \"loads\": \"impulse\"; or use scheme \"rmi\" with \"bpp\": true)",
                seam_doc_locate(sim->doc, "coupling.scheme"), sim->scheme->name, fl->name, fl->p->name);
        ok = false;
    }
    if (!ok)
        return false;
    bpp_host host = {sim, bpp_regions_cb, bpp_mobility_cb, bpp_fluid_cb, bpp_solid_cb, bpp_log_cb};
    bpp_mesh mesh = {sim->in.nodes_per_elem, sim->in.n_elems, sim->in.elems};
    if (!(sim->bpp = bpp_new(&sim->bpp_opts, sim->in.n_points * (size_t)sim->in.dim, sim->in.dim, &host, &mesh))) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "out of memory");
        return false;
    }
    return true;
}

seam_status sim_coupling_init(seam_sim *sim)
{
    /* at least 1 m: a point at the origin has no extent, and no step moves anything 1e8 m */
    sim->conv.reference = fmax(1.0, interface_extent(sim->in.X0, sim->in.n_points, sim->in.dim));
    if (sim->bpp_on && !bpp_setup(sim))
        return SEAM_ERROR;
    if (seam_coupling_init(&sim->coupling, sim->bpp ? &bpp_ops : &participant_ops, sim,
                           sim->in.n_points * (size_t)sim->in.dim, sim->in.dim) != SEAM_OK) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "out of memory");
        return SEAM_ERROR;
    }
    sim->coupling.count_thesis = sim->conv.thesis;
    if (!interface_rigid_bodies(sim))
        return SEAM_ERROR;
    sim->coupling.rigid = sim->rigid;
    return SEAM_OK;
}

/* The first iterate: X^n, extrapolated in time by the polynomial through
 * X^n and the last p committed states (p the predictor's order, fewer
 * while fewer steps are committed), or moved by the solids' committed
 * end-of-step velocities. */
static void predict(seam_sim *sim, double dt)
{
    sim_interface *in = &sim->in;
    size_t n = in->n_points * (size_t)in->dim;
    int p = sim->predictor >= PREDICT_LINEAR && sim->predictor <= PREDICT_QUARTIC ? sim->predictor : 0;
    if (p > sim->summary.steps)
        p = (int)sim->summary.steps;
    if (p > 0) {
        /* Lagrange: nodes tau_0 = 0 (X^n), tau_j = -(dt_1 + ... + dt_j) (X^{n-j}), evaluated at tau = dt */
        double tau[SIM_PAST + 1] = {0.0}, l[SIM_PAST + 1];
        for (int j = 1; j <= p; j++)
            tau[j] = tau[j - 1] - sim->dt_past[j - 1];
        for (int j = 0; j <= p; j++) {
            l[j] = 1.0;
            for (int m = 0; m <= p; m++)
                if (m != j)
                    l[j] *= (dt - tau[m]) / (tau[j] - tau[m]);
        }
        for (size_t i = 0; i < n; i++) {
            double x = l[0] * in->Xn[i];
            for (int j = 1; j <= p; j++)
                x += l[j] * in->Xpast[j - 1][i];
            in->X_pred[i] = x;
        }
    } else if (sim->predictor == PREDICT_VELOCITY)
        for (size_t i = 0; i < n; i++)
            in->X_pred[i] = in->Xn[i] + dt * in->Vn[i];
    else
        memcpy(in->X_pred, in->Xn, n * sizeof *in->X_pred);
}

static seam_status partitioned_attempt(seam_sim *sim, double t, double dt, seam_verdict *verdict)
{
    *verdict = SEAM_CONVERGED;
    sim->conv.scale = interface_extent(sim->in.Xn, sim->in.n_points, sim->in.dim);
    seam_coupling_begin(&sim->coupling, sim->in.Xn, t, dt, sim->summary.steps);
    if (sim->bpp && bpp_begin(sim->bpp) != SEAM_OK) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "out of memory");
        return SEAM_ERROR;
    }
    predict(sim, dt);
    return sim->scheme->step(sim->scheme_self, &sim->coupling, sim->in.X_pred, sim->in.X_out, verdict);
}

static int partitioned_iterations(const seam_sim *sim) { return sim->coupling.judged; }

static seam_status partitioned_accept(seam_sim *sim)
{
    sim_interface *in = &sim->in;
    if (!interface_check_domain(sim, in->X_out, sim->summary.steps, sim->coupling.t + sim->coupling.dt))
        return SEAM_ERROR;
    double *recycled = in->Xpast[SIM_PAST - 1];   /* ... <- X^{n-1} <- X^n <- X_out by pointers, not copies */
    for (int j = SIM_PAST - 1; j > 0; j--)
        in->Xpast[j] = in->Xpast[j - 1];
    in->Xpast[0] = in->Xn;
    in->Xn = in->X_out;
    in->X_out = recycled;
    memcpy(in->Vn, in->V_solid, in->n_points * (size_t)in->dim * sizeof *in->Vn);
    seam_coupling_accept(&sim->coupling);
    return sim->bpp ? bpp_accept(sim->bpp, &sim->coupling) : SEAM_OK;
}

static const sim_stepper partitioned = {"partitioned", NULL, NULL, partitioned_attempt, partitioned_iterations,
                                        partitioned_accept};

static seam_status coupled_attempt(seam_sim *sim, double t, double dt, seam_verdict *verdict)
{
    *verdict = SEAM_CONVERGED;
    seam_step step = {sim->summary.steps, t, dt, 0};
    return participant_solve(sim->coupled, &step, NULL, NULL);
}

static int coupled_iterations(const seam_sim *sim)
{
    (void)sim;
    return 1;
}

/* A coupled plugin that describes its solids' surfaces is asked again
 * after each commit: the committed positions, as a partitioned run keeps them. */
static seam_status coupled_accept(seam_sim *sim)
{
    return interface_from_coupled(sim, true);
}

/* Keys of `coupling` that scheme "monolithic" reads: handed to the plugin
 * inside its object's "coupling" (docs/monolithic.md). */
static const char *const monolithic_keys[] = {"sigma", "row_scaling", "pcg_tolerance", "pcg_max_iterations",
                                              "preconditioner", NULL};

static const sim_stepper coupled = {"coupled", "monolithic", monolithic_keys, coupled_attempt, coupled_iterations,
                                    coupled_accept};

static const sim_stepper *const steppers[] = {&partitioned, &coupled};

size_t sim_stepper_count(void) { return sizeof steppers / sizeof steppers[0]; }
const sim_stepper *sim_stepper_at(size_t i) { return i < sim_stepper_count() ? steppers[i] : NULL; }

const sim_stepper *sim_stepper_find(const char *name)
{
    for (size_t i = 0; i < sim_stepper_count(); i++)
        if (strcmp(steppers[i]->name, name) == 0)
            return steppers[i];
    return NULL;
}

const sim_stepper *sim_stepper_by_scheme(const char *scheme_name)
{
    for (size_t i = 0; i < sim_stepper_count(); i++)
        if (steppers[i]->scheme_name && strcmp(steppers[i]->scheme_name, scheme_name) == 0)
            return steppers[i];
    return NULL;
}
