/* A test solid for liveness: one fixed interface point of dimension 1
 * (X = position, V = 0 whatever the load), which can be told to hang in its
 * solve at a given step ("hang_at_step": the step index; it then sleeps for
 * ever, as a solver caught in an endless loop would, or "hang_s" seconds, as
 * a long solve waiting on something takes, before it answers; or compute
 * for "work_s" seconds in that step's first iteration, as a slow but correct
 * solver does), and which says
 * "destroyed after N commits" through its host when destroyed, so tests can
 * see that a message from destroy reaches the coupler across processes. */
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "seam/config.h"
#include "ranges.h"
#include "seam/log.h"

typedef struct {
    const seam_host *host;
    double x, mass;
    long hang_at;            /* -1: never */
    double hang_s;           /* how long it hangs there; infinite: for ever */
    double work_s;           /* how long it computes there instead (> 0) */
    long commits;
} probe_solid;

static void *pr_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *c = seam_cfg_from_host(config_json, host);
    if (!c)
        return NULL;
    probe_solid *s = calloc(1, sizeof *s);
    s->host = host;
    s->x = seam_cfg_key(c, PROBE_SOLID_KEYS, "position", 0.0, 0);
    s->mass = seam_cfg_key(c, PROBE_SOLID_KEYS, "mass", 1.0, 0);
    s->hang_at = seam_cfg_key_int(c, PROBE_SOLID_KEYS, "hang_at_step", -1, 0);
    s->hang_s = seam_cfg_key(c, PROBE_SOLID_KEYS, "hang_s", INFINITY, 0);
    s->work_s = seam_cfg_key(c, PROBE_SOLID_KEYS, "work_s", 0.0, 0);
    seam_status st = seam_cfg_finish(c);
    seam_cfg_destroy(&c);
    if (st != SEAM_OK) {
        free(s);
        return NULL;
    }
    return s;
}

static void pr_destroy(void *self)
{
    probe_solid *s = self;
    if (s)
        seam_logf(s->host, SEAM_LOG_INFO, "destroyed after %ld commits", s->commits);
    free(s);
}

static seam_status pr_max_dt(void *self, double *dt)
{
    (void)self;
    *dt = INFINITY;
    return SEAM_OK;
}

static seam_status pr_describe(void *self, seam_interface *iface)
{
    probe_solid *s = self;
    *iface = (seam_interface){.dim = 1, .n_points = 1, .X = &s->x, .mass = &s->mass, .n_bodies = 1};
    return SEAM_OK;
}

static seam_status pr_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    probe_solid *s = self;
    (void)in;
    if (step->index == s->hang_at && s->work_s > 0.0) {   /* CPU time goes up all along */
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        volatile double sink = 0.0;
        do {
            for (int k = 0; k < 100000; k++)
                sink += sqrt((double)k);
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while (step->iteration == 0 &&
                 (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < s->work_s);
    } else if (step->index == s->hang_at && isinf(s->hang_s))
        for (;;)
            pause();   /* a signal handled by the host returns here: still stuck */
    else if (step->index == s->hang_at) {
        struct timespec left = {(time_t)s->hang_s, (long)((s->hang_s - floor(s->hang_s)) * 1e9)};
        while (nanosleep(&left, &left) != 0)
            continue;   /* interrupted: sleep what is left */
    }
    out->X[0] = s->x;
    out->V[0] = 0.0;
    return SEAM_OK;
}

static seam_status pr_commit(void *self)
{
    ((probe_solid *)self)->commits++;
    return SEAM_OK;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "probe_solid",
    .role = SEAM_SOLID,
    .summary = "liveness test: a fixed point that can hang in solve at a step (for ever or hang_s), and speaks from destroy",
    .create = pr_create,
    .destroy = pr_destroy,
    .max_dt = pr_max_dt,
    .solve = pr_solve,
    .commit = pr_commit,
    .describe = pr_describe,
};

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &plugin; }
