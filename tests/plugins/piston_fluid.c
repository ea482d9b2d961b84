/* Added-mass piston, fluid side: an incompressible column of mass m_a in
 * front of each interface point pushes back with -m_a times the acceleration
 * the positions imply: with V = (X - X^n)/dt from the coupler,
 *     F = -m_a (V - V^n) / dt,   so dF/dX = -m_a / dt^2.
 * The column starts at rest (V^0 = 0).
 *
 * For the coupler's own tests it can misbehave on purpose ("fault"): return
 * NaN loads or fail from a given step on, have its stable step collapse to
 * 1e-77 s from a given step on ("tiny_dt", as a fluid blowing up does), or
 * report SEAM_UNSTABLE whenever dt exceeds a limit. "delay" (s) sleeps in
 * every solve, so a test can kill a run part way; "create_delay" (s) sleeps
 * in create, a participant slow to start; "commit_delay" and "commit_log"
 * (commit_trace.h) show when it commits. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seam/alloc.h"
#include "seam/checkpoint.h"
#include "seam/config.h"
#include "ranges.h"
#include "seam/log.h"

#include "commit_trace.h"

typedef struct {
    const seam_host *host;
    double m_a;
    size_t n;                /* points x dim */
    double *V, *V_new;       /* committed and last-solve velocities */
    int fault;               /* FAULT_* */
    long fault_step;
    double unstable_dt;
    double unstable_until;   /* s: unstable above unstable_dt only before this time */
    double delay;
    long commits;
    commit_trace trace;      /* commit_delay, commit_log (commit_trace.h) */
    unsigned char *saved;    /* save's image (core's checkpoint format): V, then commits */
} piston_fluid;

enum { FAULT_NONE, FAULT_NAN, FAULT_ERROR, FAULT_TINY_DT };
static const char *const fault_names[] = {"none", "nan", "error", "tiny_dt", NULL};

static void pf_destroy(void *self)
{
    piston_fluid *f = self;
    if (!f)
        return;
    free(f->V);
    free(f->V_new);
    free(f->saved);
    free(f);
}

static void *pf_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *c = seam_cfg_from_host(config_json, host);
    if (!c)
        return NULL;
    piston_fluid *f = calloc(1, sizeof *f);
    f->host = host;
    /* empty until bind sizes them, but there: commit, save and load may come before any bind */
    f->V = calloc(1, sizeof *f->V);
    f->V_new = calloc(1, sizeof *f->V_new);
    f->m_a = seam_cfg_key(c, PISTON_FLUID_KEYS, "added_mass", 1.0, SEAM_CFG_REQUIRED);
    f->delay = seam_cfg_key(c, PISTON_FLUID_KEYS, "delay", 0.0, 0);
    double create_delay = seam_cfg_key(c, PISTON_FLUID_KEYS, "create_delay", 0.0, 0);
    commit_trace_read(c, PISTON_FLUID_KEYS, &f->trace);
    seam_cfg *fault = seam_cfg_child(c, "fault", 0);
    f->unstable_dt = f->unstable_until = INFINITY;
    if (fault) {
        f->fault = seam_cfg_enum(fault, "kind", fault_names, FAULT_NONE, 0);
        f->fault_step = seam_cfg_key_int(fault, PISTON_FLUID_KEYS, "fault.step", 0, 0);
        f->unstable_dt = seam_cfg_key(fault, PISTON_FLUID_KEYS, "fault.unstable_above_dt", INFINITY, 0);
        f->unstable_until = seam_cfg_key(fault, PISTON_FLUID_KEYS, "fault.unstable_until", INFINITY, 0);
    }
    seam_status st = seam_cfg_finish(c);
    seam_cfg_destroy(&c);
    if (st != SEAM_OK) {
        pf_destroy(f);
        return NULL;
    }
    if (create_delay > 0) {
        struct timespec ts = {(time_t)create_delay, (long)(1e9 * (create_delay - floor(create_delay)))};
        nanosleep(&ts, NULL);
    }
    return f;
}


static seam_status pf_max_dt(void *self, double *dt)
{
    piston_fluid *f = self;
    *dt = f->fault == FAULT_TINY_DT && f->commits >= f->fault_step ? 1e-77 : INFINITY;
    return SEAM_OK;
}

static seam_status pf_bind(void *self, const seam_interface *iface)
{
    piston_fluid *f = self;
    f->n = iface->n_points * (size_t)iface->dim;
    free(f->V);
    free(f->V_new);
    f->V = calloc(f->n ? f->n : 1, sizeof *f->V);
    f->V_new = calloc(f->n ? f->n : 1, sizeof *f->V_new);
    return SEAM_OK;
}

static seam_status pf_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    piston_fluid *f = self;
    size_t n = in->n * (size_t)in->dim;
    if (n != f->n) {
        seam_logf(f->host, SEAM_LOG_ERROR, "solve got %zu interface values, bound to %zu", n, f->n);
        return SEAM_ERROR;
    }
    if (step->dt > f->unstable_dt && step->t < f->unstable_until)
        return SEAM_UNSTABLE;
    if (f->delay > 0) {
        struct timespec ts = {(time_t)f->delay, (long)(1e9 * (f->delay - floor(f->delay)))};
        nanosleep(&ts, NULL);
    }
    if (f->fault == FAULT_ERROR && step->index >= f->fault_step) {
        seam_logf(f->host, SEAM_LOG_ERROR, "injected failure at step %ld", (long)step->index);
        return SEAM_ERROR;
    }
    for (size_t i = 0; i < n; i++) {
        f->V_new[i] = in->V[i];
        out->F[i] = -f->m_a * (in->V[i] - f->V[i]) / step->dt;
        if (f->fault == FAULT_NAN && step->index >= f->fault_step)
            out->F[i] = NAN;
    }
    return SEAM_OK;
}

static seam_status pf_commit(void *self)
{
    piston_fluid *f = self;
    double t0 = commit_trace_begin(&f->trace);
    memcpy(f->V, f->V_new, f->n * sizeof *f->V);
    f->commits++;
    if (!commit_trace_end(&f->trace, t0)) {
        seam_logf(f->host, SEAM_LOG_ERROR, "cannot append to %s", f->trace.log);
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

/* F = -m_a (V - V^n) / dt: the column's momentum change over the step, / dt. */
static uint32_t pf_capabilities(void *self)
{
    (void)self;
    return SEAM_CAP_LOADS_IMPULSE | SEAM_CAP_SAVE;
}

static seam_status pf_save(void *self, seam_buffer *out)
{
    piston_fluid *f = self;
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "piston_fluid");
    seam_ckpt_put_f64s(w, f->V, f->n);
    seam_ckpt_put_i64(w, (int64_t)f->commits);
    size_t n = 0;
    free(f->saved);
    f->saved = seam_ckpt_writer_take(w, &n);
    seam_ckpt_writer_destroy(&w);
    *out = (seam_buffer){f->saved, n};
    return SEAM_OK;
}

static seam_status pf_load(void *self, const void *bytes, size_t n)
{
    piston_fluid *f = self;
    char err[512];
    seam_ckpt_reader *r = seam_ckpt_reader_from_bytes(bytes, n, "piston_fluid state", err, sizeof err);
    if (!r) {
        seam_logf(f->host, SEAM_LOG_ERROR, "load: %s", err);
        return SEAM_ERROR;
    }
    double *V = seam_xmalloc_n(f->n, sizeof *V);
    int64_t commits = 0;
    if (seam_ckpt_need(r, "piston_fluid")) {
        seam_ckpt_get_f64s(r, V, f->n);
        commits = seam_ckpt_get_i64(r);
    }
    bool ok = seam_ckpt_ok(r, true);
    if (!ok)
        seam_logf(f->host, SEAM_LOG_ERROR, "load: %s", seam_ckpt_error(r));
    else {
        memcpy(f->V, V, f->n * sizeof *V);
        f->commits = (long)commits;
    }
    free(V);
    seam_ckpt_reader_destroy(&r);
    return ok ? SEAM_OK : SEAM_ERROR;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "piston_fluid",
    .role = SEAM_FLUID,
    .summary = "added-mass test: incompressible column of mass m_a, F = -m_a a",
    .create = pf_create,
    .destroy = pf_destroy,
    .max_dt = pf_max_dt,
    .solve = pf_solve,
    .commit = pf_commit,
    .bind = pf_bind,
    .save = pf_save,
    .load = pf_load,
    .capabilities = pf_capabilities,
};

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &plugin; }
