/* solid_fem: create and destroy. The keys are read in config.c, meshes made
 * in generate.c and mesh.c, appended as bodies in bodies.c; the coupling
 * interface is found in interface.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/config.h"
#include "seam/log.h"
#include "fem.h"

/* The state arrays, at rest: x = x_new = X0, velocities zero, nothing fixed. */
static void state_new(fem *self)
{
    size_t nd = self->n * (size_t)self->d;
    self->x = SEAM_NEW_N(double, nd + 1);
    self->v = SEAM_NEW_N(double, nd + 1);
    self->x_new = SEAM_NEW_N(double, nd + 1);
    self->v_new = SEAM_NEW_N(double, nd + 1);
    self->v_fixed = SEAM_NEW_N(double, nd + 1);
    self->f_ext = SEAM_NEW_N(double, nd + 1);
    self->fixed = SEAM_NEW_N(uint8_t, self->n + 1);
    memcpy(self->x, self->X0, nd * sizeof(double));
    memcpy(self->x_new, self->X0, nd * sizeof(double));
}

fem *fem_new(const char *config_json, const seam_host *host)
{
    seam_cfg *cfg = seam_cfg_from_host(config_json, host);
    if (!cfg)
        return NULL;
    fem *self = seam_xcalloc(1, sizeof *self);
    self->host = host;
    fem_read_settings(self, cfg);
    int d = self->d;
    self->vtk.format = seam_host_vtk_format(host);
    self->lin_active = self->set.lin_method;
    seam_cfg *walls = seam_cfg_child(cfg, "walls", 0);
    if (walls)
        fem_walls_read(self, walls);
    size_t nb = seam_cfg_count(cfg, "bodies", SEAM_CFG_REQUIRED);
    if (nb == 0 && !seam_cfg_error_count(cfg))
        seam_cfg_error(cfg, "bodies", "needs at least one body");
    self->n_bodies = nb;
    self->bodies = seam_xcalloc(nb + 1, sizeof *self->bodies);
    int failed = seam_cfg_error_count(cfg) > 0;
    seam_cfg **items = seam_xcalloc(nb + 1, sizeof *items);
    for (size_t bi = 0; bi < nb; bi++)
        items[bi] = seam_cfg_item(cfg, "bodies", bi);
    for (size_t bi = 0; bi < nb && !failed; bi++)
        failed = fem_read_body(self, items[bi], bi) != 0;
    if (failed) {
        /* Reading stopped at the first bad body: its later keys and the bodies
         * after it were not read, which is no reason to call them unknown. */
        static const char *const body_keys[] = {"name", "material", "mesh", "velocity", "pin", "prescribed", NULL};
        for (size_t bi = 0; bi < nb; bi++)
            for (const char *const *k = body_keys; *k; k++)
                seam_cfg_skip(items[bi], *k);
    }
    if (!failed) {
        size_t nd = self->n * (size_t)d;
        state_new(self);
        for (size_t bi = 0; bi < nb && !failed; bi++)
            failed = fem_read_constraints(self, items[bi], bi) != 0;
        memcpy(self->v_new, self->v, nd * sizeof(double));
        if (!failed && self->walls.on) {
            failed = fem_walls_check(self, walls) != 0;
            self->contact = seam_xcalloc(nd + 1, 1);
        }
    }
    free(items);
    if (seam_cfg_finish(cfg) != SEAM_OK)
        failed = 1;
    seam_cfg_destroy(&cfg);
    if (failed) {
        fem_destroy(&self);
        return NULL;
    }
    for (size_t i = 0; i < self->n; i++)
        if (!(self->mass[i] > 0.0)) {
            seam_logf(host, SEAM_LOG_ERROR, "node %zu belongs to no element (zero mass)", i);
            fem_destroy(&self);
            return NULL;
        }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < self->n; i++)
        for (int k = 0; k < d; k++) {
            lo[k] = fmin(lo[k], self->X0[i * (size_t)d + (size_t)k]);
            hi[k] = fmax(hi[k], self->X0[i * (size_t)d + (size_t)k]);
        }
    for (int k = 0; k < d; k++)
        self->length += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    self->length = sqrt(self->length);
    fem_build_interface(self);
    fem_build_pattern(self);
    seam_logf(host, SEAM_LOG_INFO,
              "%zu bodies, %zu nodes, %zu elements, %zu springs, %zu cloth triangles, %zu interface points",
              self->n_bodies, self->n, self->n_elems, self->n_springs, self->n_tris, self->n_iface);
    return self;
}

void fem_destroy(fem **self_p)
{
    if (!self_p || !*self_p)
        return;
    fem *s = *self_p;
    seam_vtk_series_free(&s->vtk);
    free(s->bodies);
    free(s->X0);
    free(s->x);
    free(s->v);
    free(s->x_new);
    free(s->v_new);
    free(s->mass);
    free(s->fixed);
    free(s->v_fixed);
    free(s->elems);
    free(s->springs);
    free(s->hinges);
    free(s->tris);
    free(s->hinges3);
    free(s->iface_node);
    free(s->iface_body);
    free(s->iface_X);
    free(s->iface_mass);
    free(s->iface_elems);
    free(s->iface_two_sided);
    free(s->f_ext);
    free(s->contact);
    free(s->save_buf);
    seam_csr_destroy(&s->K);
    seam_csr_destroy(&s->D);
    seam_cholesky_destroy(&s->direct);
    free(s);
    *self_p = NULL;
}

