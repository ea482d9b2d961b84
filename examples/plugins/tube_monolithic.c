/* The 1D flexible tube solved monolithically: flow and wall law together by
 * Newton on the joint system (tube.h), the reference the partitioned schemes
 * must reproduce. */
#include <string.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "seam/config.h"
#include "seam/log.h"
#include "tube.h"

typedef struct {
    const seam_host *host;
    tube_params tp;
    tube_mono *mono;
} tube_monolithic;

static void *tm_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *c = seam_cfg_from_host(config_json, host);
    if (!c)
        return NULL;
    tube_monolithic *m = calloc(1, sizeof *m);
    m->host = host;
    tube_params_read(&m->tp, c, TUBE_MONOLITHIC_KEYS, 1, 1);
    double tol = seam_cfg_key(c, TUBE_MONOLITHIC_KEYS, "newton_tolerance", 1e-12, 0);
    int max_it = (int)seam_cfg_key_int(c, TUBE_MONOLITHIC_KEYS, "newton_max_iterations", 50, 0);
    seam_status st = seam_cfg_finish(c);
    seam_cfg_destroy(&c);
    if (st != SEAM_OK) {
        free(m);
        return NULL;
    }
    m->mono = tube_mono_new(&m->tp, tol, max_it);
    return m;
}

static void tm_destroy(void *self)
{
    tube_monolithic *m = self;
    if (!m)
        return;
    tube_mono_destroy(&m->mono);
    free(m);
}

static seam_status tm_max_dt(void *self, double *dt)
{
    (void)self;
    *dt = INFINITY;
    return SEAM_OK;
}

static seam_status tm_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    (void)in;
    (void)out;
    tube_monolithic *m = self;
    if (tube_mono_step(m->mono, step->t, step->dt) < 0) {
        seam_logf(m->host, SEAM_LOG_WARN, "Newton did not converge at step %ld (dt = %.3g s)", (long)step->index,
                  step->dt);
        return SEAM_UNSTABLE;
    }
    return SEAM_OK;
}

static seam_status tm_commit(void *self)
{
    tube_mono_commit(((tube_monolithic *)self)->mono);
    return SEAM_OK;
}

static seam_status tm_write_output(void *self, const char *dir, int frame)
{
    tube_monolithic *m = self;
    if (tube_write_csv(&m->tp, dir, "tube", frame, tube_mono_a(m->mono), tube_mono_u(m->mono),
                       tube_mono_p(m->mono)) != 0) {
        seam_logf(m->host, SEAM_LOG_ERROR, "cannot write frame %d into %s: %s", frame, dir, strerror(errno));
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "tube_monolithic",
    .role = SEAM_COUPLED,
    .summary = "1D flexible tube, flow and wall by Newton on the joint system (reference)",
    .create = tm_create,
    .destroy = tm_destroy,
    .max_dt = tm_max_dt,
    .solve = tm_solve,
    .commit = tm_commit,
    .write_output = tm_write_output,
};

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &plugin; }
