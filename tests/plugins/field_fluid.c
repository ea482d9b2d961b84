/* A fluid with one field, as a plugin written outside seam would have it:
 * a linear drag on the interface points, F = -c V (N s/m per point), and a
 * `field` that offers "pressure" alone, p = p0 + gx x + gy y sampled at the
 * centres of a 2 x 2 grid of 1 m cells from the origin, and refuses any other
 * name with SEAM_ERROR after a message, as plugin.h asks. For the coupler's
 * tests of what it asks a fluid's `field` (the default picture, probes). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/config.h"
#include "ranges.h"
#include "seam/log.h"

typedef struct {
    const seam_host *host;
    double c;
    size_t n;                /* points x dim */
    double p[4];             /* the pressure raster, x fastest */
} field_fluid;

static void *ff_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *cfg = seam_cfg_from_host(config_json, host);
    if (!cfg)
        return NULL;
    field_fluid *f = calloc(1, sizeof *f);
    if (!f) {
        seam_logf(host, SEAM_LOG_ERROR, "out of memory");
        seam_cfg_destroy(&cfg);
        return NULL;
    }
    f->host = host;
    f->c = seam_cfg_key(cfg, FIELD_FLUID_KEYS, "drag", 0.0, SEAM_CFG_REQUIRED);
    double p0 = seam_cfg_key(cfg, FIELD_FLUID_KEYS, "p0", 0.0, 0);
    double g[2] = {0.0, 0.0};
    seam_cfg_key_vec(cfg, FIELD_FLUID_KEYS, "gradient", g, 2, 0);
    seam_status st = seam_cfg_finish(cfg);
    seam_cfg_destroy(&cfg);
    if (st != SEAM_OK) {
        free(f);
        return NULL;
    }
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++)
            f->p[2 * j + i] = p0 + g[0] * (i + 0.5) + g[1] * (j + 0.5);
    return f;
}

static void ff_destroy(void *self) { free(self); }

static seam_status ff_max_dt(void *self, double *dt)
{
    (void)self;
    *dt = INFINITY;
    return SEAM_OK;
}

static seam_status ff_bind(void *self, const seam_interface *iface)
{
    field_fluid *f = self;
    f->n = iface->n_points * (size_t)iface->dim;
    return SEAM_OK;
}

static seam_status ff_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    field_fluid *f = self;
    (void)step;
    if (in->n * (size_t)in->dim != f->n) {
        seam_logf(f->host, SEAM_LOG_ERROR, "got %zu interface values, bound to %zu", in->n * (size_t)in->dim, f->n);
        return SEAM_ERROR;
    }
    for (size_t i = 0; i < f->n; i++)
        out->F[i] = -f->c * in->V[i];
    return SEAM_OK;
}

static seam_status ff_commit(void *self)
{
    (void)self;
    return SEAM_OK;
}

static seam_status ff_field(void *self, const char *name, seam_raster *out)
{
    field_fluid *f = self;
    if (strcmp(name, "pressure") != 0) {
        seam_logf(f->host, SEAM_LOG_ERROR, "field: no field \"%s\" (this fluid has \"pressure\")", name);
        return SEAM_ERROR;
    }
    *out = (seam_raster){2, 2, 1, {0.0, 0.0, 0.0}, 1.0, f->p, "Pa"};
    return SEAM_OK;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "field_fluid",
    .role = SEAM_FLUID,
    .summary = "test: linear drag F = -c V, and a field \"pressure\" linear in space",
    .create = ff_create,
    .destroy = ff_destroy,
    .max_dt = ff_max_dt,
    .solve = ff_solve,
    .commit = ff_commit,
    .bind = ff_bind,
    .field = ff_field,
};

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &plugin; }
