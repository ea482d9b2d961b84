/* solid_rigid: rigid bodies in 2D and 3D behind the seam solid contract;
 * the plugin's table and its entry points (docs/solid_rigid.md).
 *
 * The coupling surface is a set of points sampled on each body's surface;
 * loads on them are summed into a force and a torque about the centre of
 * mass, and the points move rigidly with their body. Configuration:
 * config.c; the surface: interface.c; the step: step.c; save and load:
 * state.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/config.h"
#include "seam/log.h"
#include "seam/vtk.h"

#include "solver.h"

void rigid_destroy(void *self)
{
    rigid_solver *rs = self;
    if (!rs)
        return;
    seam_vtk_series_free(&rs->vtk);
    for (size_t i = 0; i < rs->n_bodies; i++) {
        free(rs->bodies[i].name);
        free(rs->bodies[i].loads);
        free(rs->bodies[i].r);
        rigid_shape_free(&rs->bodies[i].shape);
    }
    free(rs->bodies);
    free(rs->S);
    free(rs->T);
    free(rs->A);
    rigid_contacts_free(&rs->contacts);
    free(rs->X);
    free(rs->Xs);
    free(rs->mass);
    free(rs->body_id);
    free(rs->elems);
    free(rs->two_sided);
    free(rs->saved);
    free(rs->pose);
    free(rs->ranges);
    free(rs->sweep);
    free(rs);
}

void *rigid_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *cfg = seam_cfg_from_host(config_json, host);
    if (!cfg)
        return NULL;
    rigid_solver *rs = SEAM_NEW(rigid_solver);
    rs->host = host;
    int rc = rigid_config_read(rs, cfg);
    if (seam_cfg_finish(cfg) != SEAM_OK || rc != 0) {
        seam_cfg_destroy(&cfg);
        rigid_destroy(rs);
        return NULL;
    }
    rs->vtk.format = seam_host_vtk_format(host);
    size_t n = rs->n_bodies;
    rs->T = SEAM_NEW_N(rigid_state, n);
    rs->A = SEAM_NEW_N(rigid_state, n);
    rs->sweep = SEAM_NEW_N(double, RIGID_SWEEP_STRIDE * n + 1);
    rigid_interface_build(rs);
    bool inside = rigid_config_inside_walls(rs, cfg);
    seam_cfg_destroy(&cfg);
    if (!inside) {
        rigid_destroy(rs);
        return NULL;
    }
    rigid_sample_points(rs, rs->S, rs->X, NULL);
    seam_logf(host, SEAM_LOG_INFO, "%zu bodies, %zu interface points, %zu elements", rs->n_bodies, rs->n_pts,
              rs->n_elems);
    return rs;
}

/* Checks the step and the arrays, runs the step (step.c), and hands out the samples' new places. */
seam_status rigid_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    rigid_solver *rs = self;
    int dim = rs->set.dim;
    if (!(step->dt > 0) || !isfinite(step->dt)) {
        seam_logf(rs->host, SEAM_LOG_ERROR, "step %lld: dt must be positive, got %g", (long long)step->index,
                  step->dt);
        return SEAM_ERROR;
    }
    const size_t n[2] = {in ? in->n : rs->n_pts, out ? out->n : rs->n_pts};
    const int dims[2] = {in ? in->dim : dim, out ? out->dim : dim};
    for (int k = 0; k < 2; k++) {
        if (n[k] != rs->n_pts || dims[k] != dim) {
            seam_logf(rs->host, SEAM_LOG_ERROR, "solve: %s has %zu points of dimension %d, expected %zu of %d",
                      k ? "out" : "in", n[k], dims[k], rs->n_pts, dim);
            return SEAM_ERROR;
        }
    }
    rs->t_trial = step->t + step->dt;
    rs->have_trial = false;
    switch (rigid_step(rs, step, in)) {
    case RIGID_STEP_FAILED:
        seam_logf(rs->host, SEAM_LOG_WARN, "step %lld: the rotation update did not converge or the state is not "
                  "finite; a smaller dt may help", (long long)step->index);
        return SEAM_UNSTABLE;
    case RIGID_STEP_UNSETTLED:
        seam_logf(rs->host, SEAM_LOG_WARN, "step %lld: the torque of the interface loads, taken at the end of the "
                  "step, did not settle in %d sweeps (the loads turn the bodies more than the bodies turn the "
                  "loads' arms at dt = %g s); a smaller dt will help", (long long)step->index, RIGID_ARM_SWEEPS,
                  step->dt);
        return SEAM_UNSTABLE;
    case RIGID_STEP_OK:
        break;
    }
    if (out && out->X)
        rigid_sample_points(rs, rs->T, out->X, out->V);
    else if (out && out->V) {
        double *tmp = seam_xmalloc_n(rs->n_pts * (size_t)dim, sizeof *tmp);
        rigid_sample_points(rs, rs->T, tmp, out->V);
        free(tmp);
    }
    rs->have_trial = true;
    return SEAM_OK;
}

seam_status rigid_commit(void *self)
{
    rigid_solver *rs = self;
    if (!rs->have_trial) {
        seam_logf(rs->host, SEAM_LOG_ERROR, "commit without a successful solve");
        return SEAM_ERROR;
    }
    memcpy(rs->S, rs->T, rs->n_bodies * sizeof *rs->S);
    rs->have_trial = false;
    rs->t_n = rs->t_trial;
    return SEAM_OK;
}

/* Every body moves rigidly; mobility is exact and the state saves whole. */
static uint32_t rigid_capabilities(void *self)
{
    (void)self;
    return SEAM_CAP_RIGID | SEAM_CAP_MOBILITY | SEAM_CAP_SAVE;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "solid_rigid",
    .role = SEAM_SOLID,
    .summary = "rigid bodies in 2D and 3D: surface samples, exact mobility, contact with restitution and friction",
    .create = rigid_create,
    .destroy = rigid_destroy,
    .max_dt = rigid_max_dt,
    .solve = rigid_solve,
    .commit = rigid_commit,
    .describe = rigid_describe,
    .bind = NULL,
    .regions = NULL,
    .mobility = rigid_mobility,
    .save = rigid_save_state,
    .load = rigid_load_state,
    .field = NULL,
    .write_output = rigid_write_output,
    .capabilities = rigid_capabilities,
    .domain = NULL,
    .bodies = rigid_bodies,
};

/* The table; export.c makes it the module's one exported symbol. */
const seam_plugin *solid_rigid_table(void) { return &plugin; }
