/* solid_fem: the seam plugin table (role SEAM_SOLID). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/frame.h"
#include "seam/log.h"
#include "seam/vtk.h"
#include "fem.h"

static void *p_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    return fem_new(config_json, host);
}

static void p_destroy(void *self)
{
    fem *f = self;
    fem_destroy(&f);
}

static seam_status p_max_dt(void *self, double *dt)
{
    *dt = fem_max_dt(self);
    if (isnan(*dt)) {
        seam_logf(((fem *)self)->host, SEAM_LOG_ERROR, "max_dt: the committed state is not finite");
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

static seam_status check_io(fem *f, size_t n, int dim, const char *which)
{
    if (n != f->n_iface || dim != f->d) {
        seam_logf(f->host, SEAM_LOG_ERROR, "solve: %s has %zu points of dim %d, the interface has %zu of dim %d",
                  which, n, dim, f->n_iface, f->d);
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

static seam_status p_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    fem *f = self;
    int d = f->d;
    if ((in && check_io(f, in->n, in->dim, "in") != SEAM_OK) || (out && check_io(f, out->n, out->dim, "out") != SEAM_OK))
        return SEAM_ERROR;
    if (!(step->dt > 0.0)) {
        seam_logf(f->host, SEAM_LOG_ERROR, "solve: dt must be positive, got %g", step->dt);
        return SEAM_ERROR;
    }
    double *load = NULL;
    if (in && in->F) {
        load = seam_xcalloc(f->n * (size_t)d + 1, sizeof *load);
        for (size_t p = 0; p < f->n_iface; p++)
            for (int k = 0; k < d; k++)
                load[(size_t)f->iface_node[p] * (size_t)d + (size_t)k] = in->F[p * (size_t)d + (size_t)k];
    }
    f->t_trial = step->t + step->dt;
    seam_status s = fem_step(f, step->dt, load);
    free(load);
    if (s != SEAM_OK)
        return s;
    for (size_t p = 0; out && p < f->n_iface; p++)
        for (int k = 0; k < d; k++) {
            size_t r = (size_t)f->iface_node[p] * (size_t)d + (size_t)k;
            if (out->X)
                out->X[p * (size_t)d + (size_t)k] = f->x_new[r];
            if (out->V)
                out->V[p * (size_t)d + (size_t)k] = f->v_new[r];
        }
    return SEAM_OK;
}

static seam_status p_commit(void *self)
{
    fem *f = self;
    if (!f->have_solve) {
        seam_logf(f->host, SEAM_LOG_ERROR, "commit without a successful solve");
        return SEAM_ERROR;
    }
    fem_commit(f);
    f->t_n = f->t_trial;
    return SEAM_OK;
}

static seam_status p_describe(void *self, seam_interface *iface)
{
    fem *f = self;
    int d = f->d;
    for (size_t p = 0; p < f->n_iface; p++)
        memcpy(f->iface_X + p * (size_t)d, f->x + (size_t)f->iface_node[p] * (size_t)d, (size_t)d * sizeof(double));
    memset(iface, 0, sizeof *iface);
    iface->dim = d;
    iface->n_points = f->n_iface;
    iface->X = f->iface_X;
    iface->mass = f->iface_mass;
    iface->body = f->iface_body;
    iface->nodes_per_elem = d;
    iface->n_elems = f->n_iface_elems;
    iface->elems = f->iface_elems;
    iface->two_sided = f->iface_two_sided;
    iface->n_bodies = f->n_bodies;
    return SEAM_OK;
}

/* dv = M^-1 impulse with the lumped mass; pinned and prescribed points do not move. */
static seam_status p_mobility(void *self, const double *impulse, double *dv)
{
    fem *f = self;
    int d = f->d;
    for (size_t p = 0; p < f->n_iface; p++) {
        size_t node = (size_t)f->iface_node[p];
        for (int k = 0; k < d; k++)
            dv[p * (size_t)d + (size_t)k] = f->fixed[node] ? 0.0 : impulse[p * (size_t)d + (size_t)k] / f->mass[node];
    }
    return SEAM_OK;
}

static seam_status p_save(void *self, seam_buffer *out) { return fem_save(self, out); }

static seam_status p_load(void *self, const void *bytes, size_t n) { return fem_load(self, bytes, n); }

/* One VTK file per body: its nodes, its elements or segments, velocity. */
static seam_status p_write_output(void *self, const char *dir, int frame)
{
    fem *f = self;
    int d = f->d;
    const char *who = f->host && f->host->name ? f->host->name : "solid_fem";
    for (size_t bi = 0; bi < f->n_bodies; bi++) {
        const fem_body *b = &f->bodies[bi];
        int cloth = b->kind == FEM_SHELL && d == 3;
        int per = cloth ? 3 : b->kind == FEM_SHELL ? 2 : d + 1;
        size_t count = 0, cap = cloth ? f->n_tris : b->kind == FEM_SHELL ? f->n_springs : f->n_elems;
        int32_t *cells = seam_xmalloc((cap + 1) * (size_t)per * sizeof *cells);
        if (cloth) {
            for (size_t t = 0; t < f->n_tris; t++)
                if (f->tris[t].body == (int32_t)bi) {
                    for (int a = 0; a < 3; a++)
                        cells[count * 3 + (size_t)a] = f->tris[t].n[a] - (int32_t)b->node0;
                    count++;
                }
        } else if (b->kind == FEM_SHELL) {
            for (size_t s = 0; s < f->n_springs; s++)
                if (f->springs[s].body == (int32_t)bi) {
                    cells[2 * count] = f->springs[s].a - (int32_t)b->node0;
                    cells[2 * count + 1] = f->springs[s].b - (int32_t)b->node0;
                    count++;
                }
        } else {
            for (size_t e = 0; e < f->n_elems; e++)
                if (f->elems[e].body == (int32_t)bi) {
                    for (int a = 0; a < per; a++)
                        cells[count * (size_t)per + (size_t)a] = f->elems[e].n[a] - (int32_t)b->node0;
                    count++;
                }
        }
        char stem[4096];
        snprintf(stem, sizeof stem, "%s_%s_" SEAM_FRAME_FORMAT, who, b->name, frame);
        seam_vtk_field vel = {"velocity", 3, d, f->v + b->node0 * (size_t)d};
        int type = per == 2 ? SEAM_VTK_LINE : per == 3 ? SEAM_VTK_TRIANGLE : SEAM_VTK_TETRA;
        seam_status s = seam_vtk_frame_cells(&f->vtk, f->host, dir, stem, d, b->n_nodes,
                                             f->x + b->node0 * (size_t)d, type, per, count, cells, &vel, 1);
        free(cells);
        if (s != SEAM_OK)
            return s;
    }
    return seam_vtk_frame_done(&f->vtk, f->host, dir, who, f->t_n);
}

/* Deformable: mobility (lumped mass) and save, never rigid. */
static uint32_t p_capabilities(void *self)
{
    (void)self;
    return SEAM_CAP_MOBILITY | SEAM_CAP_SAVE;
}

static const seam_plugin table = {
    .abi = SEAM_ABI_VERSION,
    .name = "solid_fem",
    .role = SEAM_SOLID,
    .summary = "FEM solids (triangles, tetrahedra; corotated, Neo-Hookean, StVK, invertible), 2D shells, 3D cloth, box walls",
    .create = p_create,
    .destroy = p_destroy,
    .max_dt = p_max_dt,
    .solve = p_solve,
    .commit = p_commit,
    .describe = p_describe,
    .mobility = p_mobility,
    .save = p_save,
    .load = p_load,
    .write_output = p_write_output,
    .capabilities = p_capabilities,
};

/* The table; export.c makes it the module's one exported symbol. */
const seam_plugin *solid_fem_table(void) { return &table; }
