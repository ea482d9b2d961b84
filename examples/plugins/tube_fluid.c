/* The 1D flexible tube, fluid side: for end-of-step cross-sections a (the
 * interface "positions", one per cell, dim 1) it returns the pressure per
 * cell (the "loads"); with discretization "collocated", one per node (N + 1,
 * preCICE's elastic-tube-1d). See tube.h for the equations. */
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
    double *a_n, *u_n, *p;           /* committed */
    double *a, *u, *p_new;           /* last solve */
    double pL_n, pL;                 /* outlet pressure, committed and last solve */
    size_t points;                   /* interface points: N cells, or N + 1 nodes (collocated) */
    double newton_tol;               /* collocated: Newton's tolerance and iterations */
    int newton_max;
} tube_fluid;

static void *tf_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *c = seam_cfg_from_host(config_json, host);
    if (!c)
        return NULL;
    tube_fluid *f = calloc(1, sizeof *f);
    f->host = host;
    tube_params_read(&f->tp, c, TUBE_FLUID_KEYS, 1, 0);
    if (f->tp.collocated) {
        f->newton_tol = seam_cfg_key(c, TUBE_FLUID_KEYS, "newton_tolerance", 1e-12, 0);
        f->newton_max = (int)seam_cfg_key_int(c, TUBE_FLUID_KEYS, "newton_max_iterations", 50, 0);
    }
    seam_status st = seam_cfg_finish(c);
    seam_cfg_destroy(&c);
    if (st != SEAM_OK) {
        free(f);
        return NULL;
    }
    size_t N = f->tp.N, P = f->points = N + (f->tp.collocated ? 1 : 0);
    f->a_n = malloc(P * sizeof *f->a_n);
    f->a = malloc(P * sizeof *f->a);
    f->p = malloc(P * sizeof *f->p);
    f->p_new = malloc(P * sizeof *f->p_new);
    f->u_n = malloc((N + 1) * sizeof *f->u_n);
    f->u = malloc((N + 1) * sizeof *f->u);
    for (size_t j = 0; j < P; j++)
        f->p[j] = f->tp.p_out;
    for (size_t j = 0; j <= N; j++)
        f->u_n[j] = f->tp.u0;   /* uniform flow: steady for a uniform tube at p_out */
    f->pL_n = f->pL = f->tp.p_out;
    return f;
}

static void tf_destroy(void *self)
{
    tube_fluid *f = self;
    if (!f)
        return;
    free(f->a_n); free(f->a); free(f->p); free(f->p_new); free(f->u_n); free(f->u);
    free(f);
}

static seam_status tf_max_dt(void *self, double *dt)
{
    (void)self;
    *dt = INFINITY;   /* implicit in time */
    return SEAM_OK;
}

static seam_status tf_bind(void *self, const seam_interface *iface)
{
    tube_fluid *f = self;
    if (iface->dim != 1 || iface->n_points != f->points) {
        /* located at the fluid's cells: a solid of another count or layout disagrees with them */
        const char *at = f->host->locate ? f->host->locate(f->host->ctx, "cells") : NULL;
        seam_logf(f->host, SEAM_LOG_ERROR, "%s%s%s.cells: cells = %zu needs an interface of %zu points of dimension 1 "
                  "(one cross-section per %s), the solids describe %zu of dimension %d: give the fluid and the solid "
                  "the same cells and discretization", at ? at : "", at ? ": " : "",
                  f->host->config_path ? f->host->config_path : "fluid", f->tp.N, f->points,
                  f->tp.collocated ? "node: collocated" : "cell", iface->n_points, iface->dim);
        return SEAM_ERROR;
    }
    memcpy(f->a_n, iface->X, f->points * sizeof *f->a_n);
    memcpy(f->a, f->a_n, f->points * sizeof *f->a);
    memcpy(f->u, f->u_n, (f->tp.N + 1) * sizeof *f->u);
    return SEAM_OK;
}

static seam_status tf_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    tube_fluid *f = self;
    size_t bad;
    memcpy(f->a, in->X, f->points * sizeof *f->a);
    if (f->tp.collocated) {
        for (size_t i = 0; i < f->points; i++)
            if (!(f->a[i] > 0.0)) {
                seam_logf(f->host, SEAM_LOG_ERROR, "cross-section at node %zu is not positive at step %ld", i,
                          (long)step->index);
                return SEAM_ERROR;
            }
        if (tube_colloc_solve(&f->tp, step->t + step->dt, step->dt, f->a_n, f->u_n, f->p, f->a, f->u, f->p_new,
                              f->newton_tol, f->newton_max) < 0) {
            seam_logf(f->host, SEAM_LOG_ERROR, "Newton did not converge in %d iterations at step %ld",
                      f->newton_max, (long)step->index);
            return SEAM_ERROR;
        }
        f->pL = f->p_new[f->tp.N];
        memcpy(out->F, f->p_new, f->points * sizeof *out->F);
        return SEAM_OK;
    }
    int rc = tube_fluid_solve(&f->tp, step->t + step->dt, step->dt, f->a_n, f->u_n, f->pL_n, f->a, f->u, f->p_new,
                              &f->pL, &bad);
    if (rc == -1) {
        seam_logf(f->host, SEAM_LOG_ERROR, "cross-section at face %zu is not positive at step %ld", bad,
                  (long)step->index);
        return SEAM_ERROR;
    }
    if (rc == -2) {
        seam_logf(f->host, SEAM_LOG_ERROR, "non-reflecting outlet at step %ld: the committed outlet pressure %.6g Pa "
                  "is past 2 rho c^2 = %.6g Pa", (long)step->index, f->pL_n, 2.0 * f->tp.rho * f->tp.c * f->tp.c);
        return SEAM_ERROR;
    }
    memcpy(out->F, f->p_new, f->tp.N * sizeof *out->F);
    return SEAM_OK;
}

static seam_status tf_commit(void *self)
{
    tube_fluid *f = self;
    memcpy(f->a_n, f->a, f->points * sizeof *f->a);
    memcpy(f->u_n, f->u, (f->tp.N + 1) * sizeof *f->u);
    memcpy(f->p, f->p_new, f->points * sizeof *f->p);
    f->pL_n = f->pL;
    return SEAM_OK;
}

static seam_status tf_write_output(void *self, const char *dir, int frame)
{
    tube_fluid *f = self;
    if (tube_write_csv(&f->tp, dir, "tube_fluid", frame, f->a_n, f->u_n, f->p) != 0) {
        seam_logf(f->host, SEAM_LOG_ERROR, "cannot write frame %d into %s: %s", frame, dir, strerror(errno));
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

/* Loads are the cells' pressures. */
static uint32_t tf_capabilities(void *self)
{
    (void)self;
    return SEAM_CAP_LOADS_PRESSURE;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "tube_fluid",
    .role = SEAM_FLUID,
    .summary = "1D flexible tube, flow: cross-section per cell in, pressure per cell out",
    .create = tf_create,
    .destroy = tf_destroy,
    .max_dt = tf_max_dt,
    .solve = tf_solve,
    .commit = tf_commit,
    .bind = tf_bind,
    .write_output = tf_write_output,
    .capabilities = tf_capabilities,
};

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &plugin; }
