/* The 1D flexible tube, wall side: pressure per cell in, cross-section per
 * cell out by the wall law (tube.h). The wall has no inertia. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/config.h"
#include "seam/log.h"
#include "tube.h"

typedef struct {
    const seam_host *host;
    tube_params tp;
    double *a_n, *a, *p_n, *p;       /* committed and last solve */
} tube_solid;

static void *ts_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *c = seam_cfg_from_host(config_json, host);
    if (!c)
        return NULL;
    tube_solid *s = calloc(1, sizeof *s);
    s->host = host;
    tube_params_read(&s->tp, c, TUBE_SOLID_KEYS, 0, 1);
    seam_status st = seam_cfg_finish(c);
    seam_cfg_destroy(&c);
    if (st != SEAM_OK) {
        free(s);
        return NULL;
    }
    size_t N = s->tp.N;
    s->a_n = malloc(4 * N * sizeof *s->a_n);
    s->a = s->a_n + N;
    s->p_n = s->a + N;
    s->p = s->p_n + N;
    for (size_t j = 0; j < N; j++) {   /* at rest at the reference pressure */
        s->a_n[j] = s->a[j] = s->tp.a0;
        s->p_n[j] = s->p[j] = s->tp.p0;
    }
    return s;
}

static void ts_destroy(void *self)
{
    tube_solid *s = self;
    if (!s)
        return;
    free(s->a_n);
    free(s);
}

static seam_status ts_max_dt(void *self, double *dt)
{
    (void)self;
    *dt = INFINITY;
    return SEAM_OK;
}

static seam_status ts_describe(void *self, seam_interface *iface)
{
    tube_solid *s = self;
    *iface = (seam_interface){.dim = 1, .n_points = s->tp.N, .X = s->a_n, .n_bodies = 1};
    return SEAM_OK;
}

static seam_status ts_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    tube_solid *s = self;
    for (size_t j = 0; j < s->tp.N; j++) {
        double a = tube_wall_area(&s->tp, in->F[j]);
        if (!(a > 0.0)) {
            seam_logf(s->host, SEAM_LOG_ERROR,
                      "pressure %.6g Pa on cell %zu at step %ld is past the wall law's pole 2 rho c^2 = %.6g Pa",
                      in->F[j], j, (long)step->index, 2.0 * s->tp.rho * s->tp.c * s->tp.c);
            return SEAM_ERROR;
        }
        s->a[j] = a;
        s->p[j] = in->F[j];
        out->X[j] = a;
        out->V[j] = (a - s->a_n[j]) / step->dt;
    }
    return SEAM_OK;
}

static seam_status ts_commit(void *self)
{
    tube_solid *s = self;
    memcpy(s->a_n, s->a, s->tp.N * sizeof *s->a);
    memcpy(s->p_n, s->p, s->tp.N * sizeof *s->p);
    return SEAM_OK;
}

static seam_status ts_write_output(void *self, const char *dir, int frame)
{
    tube_solid *s = self;
    tube_params geometry = s->tp;
    geometry.L = (double)s->tp.N;   /* the wall knows cells, not the length: x in cell units */
    if (tube_write_csv(&geometry, dir, "tube_wall", frame, s->a_n, NULL, s->p_n) != 0) {
        seam_logf(s->host, SEAM_LOG_ERROR, "cannot write frame %d into %s: %s", frame, dir, strerror(errno));
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "tube_solid",
    .role = SEAM_SOLID,
    .summary = "1D flexible tube, wall: pressure per cell in, cross-section per cell out",
    .create = ts_create,
    .destroy = ts_destroy,
    .max_dt = ts_max_dt,
    .solve = ts_solve,
    .commit = ts_commit,
    .describe = ts_describe,
    .write_output = ts_write_output,
};

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &plugin; }
