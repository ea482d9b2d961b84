/* spring_body: a 2D polygon body (translation only) hung on a spring and a damper
 * from its rest position, under gravity: a solid written from docs/plugins.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/config.h"
#include "seam/log.h"

typedef struct {
    const seam_host *host;
    size_t n;             /* interface points */
    double r, m, k, c;    /* radius (m), mass (kg/m), stiffness (N/m per m), damping (N s/m per m) */
    double g[3];
    double x0[2];         /* rest position of the centre */
    double x[2], v[2];    /* committed centre and velocity */
    double xs[2], vs[2];  /* last solve */
    double *X, *mass, *arm; /* describe arrays; arm: point offsets from the centre */
    int32_t *elems;
    uint8_t *two_sided;
    double state[4];      /* save buffer */
    double centre[3], rot[9];
    int64_t first, count;
} spring_body;

static void *sb_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *cfg = seam_cfg_from_host(config_json, host);
    if (!cfg)
        return NULL;
    spring_body *b = calloc(1, sizeof *b);
    b->host = host;
    b->r = seam_cfg_num(cfg, "radius", 0.1, 0.0, 1e3, SEAM_CFG_LO_OPEN);
    b->n = (size_t)seam_cfg_int(cfg, "points", 32, 3, 1000000, 0);
    b->m = seam_cfg_num(cfg, "mass", 0.0, 0.0, 1e9, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN);
    b->k = seam_cfg_num(cfg, "stiffness", 0.0, 0.0, INFINITY, 0);
    b->c = seam_cfg_num(cfg, "damping", 0.0, 0.0, INFINITY, 0);
    seam_cfg_vec(cfg, "position", b->x0, 2, SEAM_CFG_REQUIRED);
    const double g_default[2] = {0.0, -9.81};
    seam_cfg_gravity(cfg, host, 2, g_default, b->g);
    seam_status st = seam_cfg_finish(cfg);
    seam_cfg_destroy(&cfg);
    if (st != SEAM_OK) {
        free(b);
        return NULL;
    }
    memcpy(b->x, b->x0, sizeof b->x);
    b->X = calloc(2 * b->n, sizeof *b->X);
    b->arm = calloc(2 * b->n, sizeof *b->arm);
    b->mass = calloc(b->n, sizeof *b->mass);
    b->elems = calloc(2 * b->n, sizeof *b->elems);
    b->two_sided = calloc(b->n, 1);
    for (size_t i = 0; i < b->n; i++) {
        double a = 6.283185307179586 * (double)i / (double)b->n;   /* counter-clockwise: outward normals */
        b->arm[2 * i] = b->r * cos(a);
        b->arm[2 * i + 1] = b->r * sin(a);
        b->mass[i] = b->m / (double)b->n;
        b->elems[2 * i] = (int32_t)i;
        b->elems[2 * i + 1] = (int32_t)((i + 1) % b->n);
    }
    return b;
}

static void sb_destroy(void *self)
{
    spring_body *b = self;
    if (!b)
        return;
    free(b->X);
    free(b->arm);
    free(b->mass);
    free(b->elems);
    free(b->two_sided);
    free(b);
}

static seam_status sb_max_dt(void *self, double *dt)
{
    spring_body *b = self;
    if (!isfinite(b->x[0]) || !isfinite(b->x[1])) {
        seam_logf(b->host, SEAM_LOG_ERROR, "the committed centre is not finite");
        return SEAM_ERROR;
    }
    *dt = INFINITY;   /* backward Euler: stable at any step */
    return SEAM_OK;
}

static void place(const spring_body *b, const double *centre, double *X)
{
    for (size_t i = 0; i < b->n; i++) {
        X[2 * i] = centre[0] + b->arm[2 * i];
        X[2 * i + 1] = centre[1] + b->arm[2 * i + 1];
    }
}

static seam_status sb_describe(void *self, seam_interface *iface)
{
    spring_body *b = self;
    place(b, b->x, b->X);
    iface->dim = 2;
    iface->n_points = b->n;
    iface->X = b->X;
    iface->mass = b->mass;
    iface->body = NULL;
    iface->nodes_per_elem = 2;
    iface->n_elems = b->n;
    iface->elems = b->elems;
    iface->two_sided = b->two_sided;
    iface->n_bodies = 1;
    return SEAM_OK;
}

/* Backward Euler: m (v' - v)/dt = F + m g - k (x' - x0) - c v', x' = x + dt v'. */
static seam_status sb_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    spring_body *b = self;
    if (in->n != b->n || in->dim != 2) {
        seam_logf(b->host, SEAM_LOG_ERROR, "got %zu points of dimension %d, described %zu of 2", in->n, in->dim,
                  b->n);
        return SEAM_ERROR;
    }
    double dt = step->dt;
    for (int d = 0; d < 2; d++) {
        double f = 0.0;
        for (size_t i = 0; i < b->n; i++)
            f += in->F[2 * i + d];
        double rhs = b->m * b->v[d] + dt * (f + b->m * b->g[d] - b->k * (b->x[d] - b->x0[d]));
        b->vs[d] = rhs / (b->m + dt * b->c + dt * dt * b->k);
        b->xs[d] = b->x[d] + dt * b->vs[d];
    }
    if (!isfinite(b->xs[0]) || !isfinite(b->xs[1]))
        return SEAM_UNSTABLE;
    place(b, b->xs, out->X);
    for (size_t i = 0; i < b->n; i++) {
        out->V[2 * i] = b->vs[0];
        out->V[2 * i + 1] = b->vs[1];
    }
    return SEAM_OK;
}

static seam_status sb_commit(void *self)
{
    spring_body *b = self;
    memcpy(b->x, b->xs, sizeof b->x);
    memcpy(b->v, b->vs, sizeof b->v);
    return SEAM_OK;
}

static seam_status sb_save(void *self, seam_buffer *out)
{
    spring_body *b = self;
    b->state[0] = b->x[0];
    b->state[1] = b->x[1];
    b->state[2] = b->v[0];
    b->state[3] = b->v[1];
    out->data = b->state;
    out->size = sizeof b->state;
    return SEAM_OK;
}

static seam_status sb_load(void *self, const void *bytes, size_t n)
{
    spring_body *b = self;
    if (n != sizeof b->state) {
        seam_logf(b->host, SEAM_LOG_ERROR, "load: %zu bytes, expected %zu", n, sizeof b->state);
        return SEAM_ERROR;
    }
    double s[4];
    memcpy(s, bytes, sizeof s);
    b->x[0] = s[0];
    b->x[1] = s[1];
    b->v[0] = s[2];
    b->v[1] = s[3];
    return SEAM_OK;
}

static uint32_t sb_capabilities(void *self)
{
    (void)self;
    return SEAM_CAP_RIGID | SEAM_CAP_SAVE;
}

static seam_status sb_bodies(void *self, seam_bodies *out)
{
    spring_body *b = self;
    b->centre[0] = b->x[0];
    b->centre[1] = b->x[1];
    b->centre[2] = 0.0;
    memset(b->rot, 0, sizeof b->rot);
    b->rot[0] = b->rot[4] = b->rot[8] = 1.0;
    b->first = 0;
    b->count = (int64_t)b->n;
    out->count = 1;
    out->centre = b->centre;
    out->rotation = b->rot;
    out->first = &b->first;
    out->points = &b->count;
    return SEAM_OK;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "spring_body",
    .role = SEAM_SOLID,
    .summary = "2D polygon body on a spring and damper (translation only)",
    .create = sb_create,
    .destroy = sb_destroy,
    .max_dt = sb_max_dt,
    .solve = sb_solve,
    .commit = sb_commit,
    .describe = sb_describe,
    .save = sb_save,
    .load = sb_load,
    .capabilities = sb_capabilities,
    .bodies = sb_bodies,
};

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &plugin; }
