/* How a step is advanced. Partitioned: predict the interface, then let the
 * scheme iterate over the participants' maps (the ops table below).
 * Coupled: one solve of a SEAM_COUPLED plugin. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "stepper.h"

#include "seam/loader.h"
#include "lanes.h"
#include "predict.h"

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
static seam_status fluid_solve(stepper *st, const seam_coupling *c, const double *X, const double *V, double *F)
{
    participant *pt = st->ps->fluid;
    seam_step step = {c->step, c->t, c->dt, c->fluid_calls};
    size_t np = c->n / (size_t)c->dim;
    seam_input in = {np, c->dim, X, V, NULL};
    seam_output out = {np, c->dim, NULL, NULL, F};
    seam_status rc = participant_solve(pt, &step, &in, &out);
    size_t bad;
    if (rc == SEAM_OK && !all_finite(F, c->n, &bad)) {
        sim_log(st->log, SEAM_LOG_ERROR, pt->name, "returned a non-finite load (%g) on interface point %zu at step %ld (t = %.9g s)",
                F[bad], bad / (size_t)c->dim, c->step, c->t);
        return SEAM_ERROR;
    }
    return rc;
}

static seam_status fluid_map(void *ctx, const seam_coupling *c, const double *X, double *F)
{
    stepper *st = ctx;
    effective_velocity(X, c->Xn, c->dt, c->n, st->in->V);
    return fluid_solve(st, c, X, st->in->V, F);
}

/* The solids' positions X and end-of-step velocities V for loads F. */
static seam_status solid_solve(stepper *st, const seam_coupling *c, const double *F, double *X, double *V)
{
    seam_step step = {c->step, c->t, c->dt, c->solid_calls};
    for (size_t s = st->ps->first_solid; s < st->ps->n_parts; s++) {
        participant *pt = &st->ps->parts[s];
        size_t off = pt->offset * (size_t)c->dim, len = pt->n_points * (size_t)c->dim;
        seam_input in = {pt->n_points, c->dim, NULL, NULL, F + off};
        seam_output out = {pt->n_points, c->dim, X + off, V + off, NULL};
        seam_status rc = participant_solve(pt, &step, &in, &out);
        if (rc != SEAM_OK)
            return rc;
        memcpy(st->in->F_solid + off, F + off, len * sizeof *F);   /* for probes: what the solid was given */
        size_t bad;
        if (!all_finite(X + off, len, &bad) || !all_finite(V + off, len, &bad)) {
            sim_log(st->log, SEAM_LOG_ERROR, pt->name,
                    "returned a non-finite position or velocity on its interface point %zu at step %ld (t = %.9g s)",
                    bad / (size_t)c->dim, c->step, c->t);
            return SEAM_ERROR;
        }
    }
    return SEAM_OK;
}

static seam_status solid_map(void *ctx, const seam_coupling *c, const double *F, double *X)
{
    stepper *st = ctx;
    return solid_solve(st, c, F, X, st->in->V_solid);
}

static seam_verdict judge(void *ctx, seam_coupling *c, const seam_iterate *it)
{
    stepper *st = ctx;
    seam_verdict v = seam_convergence_judge(&st->conv, &st->coupling, it);
    double loads = NAN;
    for (size_t i = 0; i < st->conv.count; i++)
        if (st->conv.measures[i].quantity == SEAM_QTY_LOADS) {
            loads = st->conv.value[i];
            break;
        }
    /* with the projection, also p0 must have settled (bpp.h) */
    if (st->bpp && v == SEAM_CONVERGED && !bpp_settled(st->bpp))
        v = c->judged >= st->conv.max_iterations ? SEAM_EXHAUSTED : SEAM_ITERATE;
    if (st->on_residual)
        st->on_residual(st->on_residual_ctx, c->step, c->judged, c->residual, loads);
    return v;
}

static void warn(void *ctx, const seam_coupling *c, const char *message)
{
    stepper *st = ctx;
    sim_log(st->log, SEAM_LOG_WARN, NULL, "step %ld (t = %.9g s): scheme %s: %s", c->step, c->t, st->scheme->name,
            message);
}

static const seam_coupling_ops participant_ops = {fluid_map, solid_map, judge, warn};

/* ---- the boundary pressure projection between the scheme and the participants ---- */

static seam_status bpp_regions_cb(void *ctx, const seam_coupling *c, const double *X, seam_regions *out)
{
    stepper *st = ctx;
    participant *pt = st->ps->fluid;
    seam_step step = {c->step, c->t, c->dt, c->fluid_calls};
    *out = (seam_regions){0};
    double t0 = sim_now();
    seam_status rc = pt->p->regions(pt->self, &step, X, out);
    pt->stats.seconds += sim_now() - t0;
    return participant_check(pt, "regions", &step, rc);
}

static seam_status bpp_mobility_cb(void *ctx, const seam_coupling *c, const double *impulse, double *dv)
{
    stepper *st = ctx;
    seam_step step = {c->step, c->t, c->dt, c->solid_calls};
    for (size_t s = st->ps->first_solid; s < st->ps->n_parts; s++) {
        participant *pt = &st->ps->parts[s];
        size_t off = pt->offset * (size_t)c->dim;
        double t0 = sim_now();
        seam_status rc = pt->p->mobility(pt->self, impulse + off, dv + off);
        pt->stats.seconds += sim_now() - t0;
        if ((rc = participant_check(pt, "mobility", &step, rc)) != SEAM_OK)
            return rc;
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
    sim_log(((stepper *)ctx)->log, level, NULL, "step %ld (t = %.9g s): pressure projection: %s", c->step, c->t, message);
}

static seam_status bpp_fluid_map(void *ctx, const seam_coupling *c, const double *X, double *F)
{
    stepper *st = ctx;
    return bpp_fluid(st->bpp, c, X, F);
}

static seam_status bpp_solid_map(void *ctx, const seam_coupling *c, const double *F, double *X)
{
    stepper *st = ctx;
    return bpp_solid(st->bpp, c, F, X, st->in->V_solid);
}

static const seam_coupling_ops bpp_ops = {bpp_fluid_map, bpp_solid_map, judge, warn};

/* The projection needs the fluid's regions and (solid form) every solid's mobility. */
static bool bpp_setup(stepper *st)
{
    bool ok = true;
    participant *fl = st->ps->fluid;
    if ((!fl->p->regions || !(fl->caps & SEAM_CAP_REGIONS)) && st->scheme->needs_bpp) {
        /* the user named the scheme, not coupling.bpp: say what the scheme needs and what to use */
        sim_log(st->log, SEAM_LOG_ERROR, fl->name,
                "%s: scheme %s includes the boundary pressure projection, which needs a fluid that reports its "
                "enclosed regions; %s (%s) does not: use scheme \"rmi\" (or another without it, docs/coupling.md)",
                seam_doc_locate(st->doc, "coupling.scheme"), st->scheme->name, fl->name, fl->p->name);
        ok = false;
    } else if (!fl->p->regions || !(fl->caps & SEAM_CAP_REGIONS)) {
        sim_log(st->log, SEAM_LOG_ERROR, fl->name, "%s: coupling.bpp needs a fluid that reports its enclosed regions; %s (%s) does not",
                seam_doc_locate(st->doc, "coupling"), fl->name, fl->p->name);
        ok = false;
    }
    for (size_t s = st->ps->first_solid; s < st->ps->n_parts && st->bpp_opts.form == BPP_FORM_SOLID; s++) {
        participant *pt = &st->ps->parts[s];
        if (!pt->p->mobility || !(pt->caps & SEAM_CAP_MOBILITY)) {
            sim_log(st->log, SEAM_LOG_ERROR, pt->name,
                    "%s: coupling.bpp (form \"solid\") needs every solid's mobility; %s (%s) offers none",
                    seam_doc_locate(st->doc, "coupling"), pt->name, pt->p->name);
            ok = false;
        }
    }
    if (st->scheme->needs_impulse_loads && !(fl->caps & SEAM_CAP_LOADS_IMPULSE)) {
        sim_log(st->log, SEAM_LOG_ERROR, fl->name,
                "%s: scheme %s needs a fluid that returns conservative impulse loads (Akbay eq. 2.8); %s (%s) does "
                "not say it does (for fluid_mac: \"loads\": \"impulse\"; or use scheme \"rmi\" with \"bpp\": true)",
                seam_doc_locate(st->doc, "coupling.scheme"), st->scheme->name, fl->name, fl->p->name);
        ok = false;
    }
    if (!ok)
        return false;
    bpp_host host = {st, bpp_regions_cb, bpp_mobility_cb, bpp_fluid_cb, bpp_solid_cb, bpp_log_cb};
    bpp_mesh mesh = {st->in->nodes_per_elem, st->in->n_elems, st->in->elems};
    if (!(st->bpp = bpp_new(&st->bpp_opts, st->in->n_points * (size_t)st->in->dim, st->in->dim, &host, &mesh))) {
        sim_log(st->log, SEAM_LOG_ERROR, NULL, "out of memory");
        return false;
    }
    return true;
}

/* The interface built and bound to the fluid, the convergence test's
 * reference, the projection, the loads' bookkeeping and the rigid bodies. */
static bool partitioned_setup(stepper *st)
{
    if (!interface_build(st->in) || !interface_bind(st->in, &st->conv))
        return false;
    /* at least 1 m: a point at the origin has no extent, and no step moves anything 1e8 m */
    st->conv.reference = fmax(1.0, interface_extent(st->in->X0, st->in->n_points, st->in->dim));
    if (st->bpp_on && !bpp_setup(st))
        return false;
    if (seam_coupling_init(&st->coupling, st->bpp ? &bpp_ops : &participant_ops, st,
                           st->in->n_points * (size_t)st->in->dim, st->in->dim) != SEAM_OK) {
        sim_log(st->log, SEAM_LOG_ERROR, NULL, "out of memory");
        return false;
    }
    st->coupling.count_thesis = st->conv.thesis;
    if (!interface_rigid_bodies(st->in))
        return false;
    st->coupling.rigid = st->in->rigid;
    return true;
}

/* The first iterate: X^n, extrapolated in time by the polynomial through
 * X^n and the last p committed states (p the predictor's order, fewer
 * while fewer steps are committed), or moved by the solids' committed
 * end-of-step velocities. */
static void predict(stepper *st, long step, double dt)
{
    sim_interface *in = st->in;
    size_t n = in->n_points * (size_t)in->dim;
    int p = st->predictor >= PREDICT_LINEAR && st->predictor <= PREDICT_QUARTIC ? st->predictor : 0;
    if (p > step)
        p = (int)step;
    if (p > 0) {
        double l[PREDICT_MAX_ORDER + 1];
        predict_weights(p, in->dt_past, dt, l);
        for (size_t i = 0; i < n; i++) {
            double x = l[0] * in->Xn[i];
            for (int j = 1; j <= p; j++)
                x += l[j] * in->Xpast[j - 1][i];
            in->X_pred[i] = x;
        }
    } else if (st->predictor == PREDICT_VELOCITY)
        for (size_t i = 0; i < n; i++)
            in->X_pred[i] = in->Xn[i] + dt * in->Vn[i];
    else
        memcpy(in->X_pred, in->Xn, n * sizeof *in->X_pred);
}

static seam_status partitioned_attempt(stepper *st, long step, double t, double dt, seam_verdict *verdict)
{
    *verdict = SEAM_CONVERGED;
    st->conv.scale = interface_extent(st->in->Xn, st->in->n_points, st->in->dim);
    seam_coupling_begin(&st->coupling, st->in->Xn, t, dt, step);
    if (st->bpp && bpp_begin(st->bpp) != SEAM_OK) {
        sim_log(st->log, SEAM_LOG_ERROR, NULL, "out of memory");
        return SEAM_ERROR;
    }
    predict(st, step, dt);
    return st->scheme->step(st->scheme_self, &st->coupling, st->in->X_pred, st->in->X_out, verdict);
}

static int partitioned_iterations(const stepper *st) { return st->coupling.judged; }

static seam_status partitioned_accept(stepper *st, long step, double dt)
{
    sim_interface *in = st->in;
    if (!interface_check_domain(in, in->X_out, step, st->coupling.t + st->coupling.dt))
        return SEAM_ERROR;
    interface_commit(in, dt);
    seam_coupling_accept(&st->coupling);
    return st->bpp ? bpp_accept(st->bpp, &st->coupling) : SEAM_OK;
}

static const sim_stepper partitioned = {"partitioned", NULL, NULL, partitioned_setup, partitioned_attempt,
                                        partitioned_iterations, partitioned_accept};

/* A coupled plugin that describes its solids' surfaces: them, for interface.csv and pictures. */
static bool coupled_setup(stepper *st)
{
    return !st->ps->coupled->p->describe || interface_build(st->in);
}

static seam_status coupled_attempt(stepper *st, long step, double t, double dt, seam_verdict *verdict)
{
    *verdict = SEAM_CONVERGED;
    seam_step s = {step, t, dt, 0};
    return participant_solve(st->ps->coupled, &s, NULL, NULL);
}

static int coupled_iterations(const stepper *st)
{
    (void)st;
    return 1;
}

/* A coupled plugin that describes its solids' surfaces is asked again
 * after each commit: the committed positions, as a partitioned run keeps them. */
static seam_status coupled_accept(stepper *st, long step, double dt)
{
    seam_status result = interface_from_coupled(st->in, true, step - 1);
    if (result == SEAM_OK)
        interface_commit_dt(st->in, dt);
    return result;
}

/* Keys of `coupling` that scheme "monolithic" reads, handed to the plugin
 * inside its object's "coupling": those the plugin declares ("coupling.KEY"
 * in its keys entry, plugin.h), read once (declare_keys). */
static const char *monolithic_keys[33];
static char monolithic_key_text[32][64];

static void declare_keys(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    char err[2048];
    seam_keys k = {0};
    seam_library *lib = seam_library_open("monolithic", err, sizeof err);
    const seam_plugin *p = lib ? seam_library_plugin(lib) : NULL;
    size_t n = 0;
    if (p && p->keys && p->keys(p, &k) == SEAM_OK)
        for (size_t i = 0; i < k.count && n < 32; i++)
            if (strncmp(k.name[i], "coupling.", 9) == 0) {
                snprintf(monolithic_key_text[n], sizeof monolithic_key_text[n], "%s", k.name[i] + 9);
                monolithic_keys[n] = monolithic_key_text[n];
                n++;
            }
    seam_library_close(&lib);
}

static const sim_stepper coupled = {"coupled", "monolithic", (const char *const *)monolithic_keys, coupled_setup,
                                    coupled_attempt, coupled_iterations, coupled_accept};

static const sim_stepper *const steppers[] = {&partitioned, &coupled};

size_t sim_stepper_count(void)
{
    declare_keys();   /* before any stepper's keys are read */
    return sizeof steppers / sizeof steppers[0];
}

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

void stepper_init(stepper *st, const sim_stepper *ops, sim_stepping *from_scene, sim_participants *ps,
                  sim_interface *in, coupler_log *log, seam_doc *doc)
{
    *st = (stepper){.ops = ops, .ps = ps, .in = in, .log = log, .doc = doc, .scheme = from_scene->scheme,
                    .scheme_self = from_scene->scheme_self, .conv = from_scene->conv, .bpp_on = from_scene->bpp_on,
                    .bpp_opts = from_scene->bpp_opts, .predictor = from_scene->predictor};
    from_scene->scheme_self = NULL;   /* ours now */
}

void stepper_free(stepper *st)
{
    if (st->scheme && st->scheme->destroy)
        st->scheme->destroy(st->scheme_self);
    st->scheme_self = NULL;
    bpp_destroy(&st->bpp);
    seam_coupling_fini(&st->coupling);
}

void stepper_report(stepper *st, seam_scheme_report *rec)
{
    *rec = (seam_scheme_report){0};
    if (st->ps->coupled || !st->scheme || !st->scheme->report)
        return;
    seam_scheme_report now;
    st->scheme->report(st->scheme_self, &now);
    seam_scheme_report *was = &st->scheme_totals;
    *rec = now;
    /* a scheme rebuilt for another interface size starts its totals again */
    rec->filtered = now.filtered >= was->filtered ? now.filtered - was->filtered : now.filtered;
    rec->restarts = now.restarts >= was->restarts ? now.restarts - was->restarts : now.restarts;
    rec->truncated = now.truncated >= was->truncated ? now.truncated - was->truncated : now.truncated;
    *was = now;
}

void stepper_save(const stepper *st, seam_ckpt_writer *w)
{
    if (st->ps->coupled)
        return;
    seam_ckpt_put_f64s(w, st->coupling.F_n, st->coupling.n);
    seam_ckpt_section(w, "scheme");
    seam_ckpt_put_str(w, st->scheme->name);
    if (st->scheme->save)
        st->scheme->save(st->scheme_self, w);
    if (st->bpp) {
        seam_ckpt_section(w, "bpp");
        bpp_save(st->bpp, w);
    }
}

void stepper_load(stepper *st, seam_ckpt_reader *r)
{
    if (st->ps->coupled)
        return;
    size_t n = st->coupling.n;
    seam_ckpt_get_f64s(r, st->coupling.F_n, n);
    memcpy(st->coupling.F_last, st->coupling.F_n, n * sizeof *st->coupling.F_n);
    seam_ckpt_ok(r, true);
    if (seam_ckpt_need(r, "scheme")) {
        char *name = seam_ckpt_get_str(r);
        if (name && strcmp(name, st->scheme->name) != 0)
            seam_ckpt_fail(r, "written by scheme %s, this run's is %s", name, st->scheme->name);
        free(name);
        if (st->scheme->load)
            st->scheme->load(st->scheme_self, r);
        /* the totals stats.csv's per-step counts are taken from: those of the restored state */
        if (seam_ckpt_ok(r, true) && st->scheme->report)
            st->scheme->report(st->scheme_self, &st->scheme_totals);
    }
    if (st->bpp && seam_ckpt_need(r, "bpp")) {
        bpp_load(st->bpp, r);
        seam_ckpt_ok(r, true);
    }
}
