/* fluid_mac: an Eulerian fluid on a 2D or 3D staggered (MAC) grid, coupled to
 * solids through the seam plugin contract: the table and its entries, each
 * a thin call into the file of its concept (config.c, state.c, step.c,
 * coupling.c, output.c; docs/fluid_mac.md). */
#include <math.h>

#include "fluid.h"
#include "seam/log.h"

static void *fluid_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    fluid_mac_config conf;
    if (fluid_mac_config_read(&conf, config_json, host) != SEAM_OK)
        return NULL;
    return fluid_mac_new(&conf, host);
}

static void fluid_destroy(void *p)
{
    fluid_mac *self = p;
    fluid_mac_destroy(&self);
}

static seam_status fluid_bind(void *p, const seam_interface *iface) { return fluid_mac_bind(p, iface); }

/* Bridson's bound: the committed speed plus what a body force can add within one step. */
static seam_status fluid_max_dt(void *p, double *dt)
{
    fluid_mac *self = p;
    const fluid_mac_config *c = &self->cfg;
    const mac_grid *g = &c->g;
    double umax = 0.0;
    for (int a = 0; a < g->dim; a++)
        for (size_t f = 0; f < mac_nf(g, a); f++) {
            double u = fabs(self->vel_n[a][f]);
            if (!isfinite(u)) {
                seam_logf(self->host, SEAM_LOG_ERROR, "max_dt: the committed velocity on %c face %zu is %g",
                          "xyz"[a], f, self->vel_n[a][f]);
                return SEAM_ERROR;
            }
            umax = u > umax ? u : umax;
        }
    double gn = g->dim == 3 ? sqrt(c->gravity[0] * c->gravity[0] + c->gravity[1] * c->gravity[1] +
                                   c->gravity[2] * c->gravity[2])
                            : hypot(c->gravity[0], c->gravity[1]);
    double speed = umax + sqrt(gn * g->dx);
    *dt = speed > 0.0 ? c->cfl * g->dx / speed : INFINITY;
    return SEAM_OK;
}

/* A diverging solid shows up here first: say which point, let the coupler retry. */
static seam_status finite_interface(const fluid_mac *self, const char *what, const double *X, const double *V)
{
    size_t dim = (size_t)self->cfg.g.dim;
    for (size_t k = 0; k < dim * self->iface.n_points; k++)
        if (!isfinite(X[k]) || (V && !isfinite(V[k]))) {
            seam_logf(self->host, SEAM_LOG_WARN, "%s: interface point %zu has a non-finite position%s", what, k / dim,
                      V ? " or velocity" : "");
            return SEAM_UNSTABLE;
        }
    return SEAM_OK;
}

/* A solve's input: bound, X and V for every interface point, all finite, dt > 0. */
static seam_status check_input(const fluid_mac *self, const seam_step *step, const seam_input *in)
{
    if (!self->bound) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve before bind: the fluid needs the interface first");
        return SEAM_ERROR;
    }
    size_t n = self->iface.n_points;
    int dim = self->cfg.g.dim;
    if (n && (!in || in->n != n || in->dim != dim || !in->X || !in->V)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve: expected X and V for %zu points of dimension %d, got %zu of %d",
                  n, dim, in ? in->n : 0, in ? in->dim : 0);
        return SEAM_ERROR;
    }
    seam_status st = n ? finite_interface(self, "solve", in->X, in->V) : SEAM_OK;
    if (st == SEAM_OK && (!(step->dt > 0.0) || !isfinite(step->dt))) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve: step size %g is not a positive number", step->dt);
        return SEAM_ERROR;
    }
    return st;
}

/* The step (step.c), with its figures logged at debug level. */
static seam_status fluid_solve(void *p, const seam_step *step, const seam_input *in, seam_output *out)
{
    fluid_mac *self = p;
    self->solved = 0;
    self->t_trial = step->t + step->dt;
    seam_status st = check_input(self, step, in);
    if (st != SEAM_OK)
        return st;
    size_t n = self->iface.n_points;
    st = fluid_mac_step(self, step, n ? in->X : NULL, n ? in->V : NULL, n && out ? out->F : NULL);
    if (st != SEAM_OK)
        return st;
    fluid_mac_log_step(self, step);
    self->solved = 1;
    return SEAM_OK;
}

static seam_status fluid_commit(void *p) { return fluid_mac_commit(p); }

static seam_status fluid_regions(void *p, const seam_step *step, const double *X, seam_regions *out)
{
    fluid_mac *self = p;
    if (!self->bound) {
        seam_logf(self->host, SEAM_LOG_ERROR, "regions before bind");
        return SEAM_ERROR;
    }
    if (self->iface.n_points && finite_interface(self, "regions", X, NULL) != SEAM_OK)
        return SEAM_UNSTABLE;
    return fluid_mac_regions(self, step, X, out);
}

static seam_status fluid_save(void *p, seam_buffer *out) { return fluid_mac_save(p, out); }

static seam_status fluid_load(void *p, const void *bytes, size_t n) { return fluid_mac_load(p, bytes, n); }

static seam_status fluid_field(void *p, const char *name, seam_raster *out) { return fluid_mac_field(p, name, out); }

static seam_status fluid_write_output(void *p, const char *dir, int frame)
{
    return fluid_mac_write_output(p, dir, frame);
}

/* The load mode as configured ("loads"); regions and save work for every grid. */
static uint32_t fluid_capabilities(void *p)
{
    const fluid_mac *self = p;
    return (self->cfg.loads == LOADS_PRESSURE ? SEAM_CAP_LOADS_PRESSURE : SEAM_CAP_LOADS_IMPULSE) |
           SEAM_CAP_REGIONS | SEAM_CAP_SAVE;
}

/* The grid's box: interface points beyond it are out of the fluid's reach. */
static seam_status fluid_domain(void *p, double lo[3], double hi[3])
{
    const fluid_mac *self = p;
    const mac_grid *g = &self->cfg.g;
    for (int d = 0; d < 3; d++) {
        lo[d] = d < g->dim ? g->origin[d] : 0.0;
        hi[d] = d < g->dim ? g->origin[d] + mac_n(g, d) * g->dx : 0.0;
    }
    return SEAM_OK;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "fluid_mac",
    .role = SEAM_FLUID,
    .summary = "2D/3D MAC-grid incompressible fluid: smoke, free-surface water, walls, open sides, inflows, bodies and shells",
    .create = fluid_create,
    .destroy = fluid_destroy,
    .max_dt = fluid_max_dt,
    .solve = fluid_solve,
    .commit = fluid_commit,
    .describe = NULL,
    .bind = fluid_bind,
    .regions = fluid_regions,
    .mobility = NULL,
    .save = fluid_save,
    .load = fluid_load,
    .field = fluid_field,
    .write_output = fluid_write_output,
    .capabilities = fluid_capabilities,
    .domain = fluid_domain,
};

/* The table; export.c makes it the module's one exported symbol. */
const seam_plugin *fluid_mac_table(void) { return &plugin; }
