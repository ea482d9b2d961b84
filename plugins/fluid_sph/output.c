/* fluid_sph: what a reader sees of the committed state: fields splatted to
 * a raster, and VTK frames. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/frame.h"
#include "seam/log.h"
#include "seam/mapping.h"
#include "seam/neighbours.h"
#include "seam/vtk.h"
#include "fluid_sph.h"

/* Raster cells: spacing s over the domain. */
static void raster_size(const fluid_sph *self, int *nc)
{
    for (int d = 0; d < 3; d++)
        nc[d] = d < self->cfg.dim ? (int)ceil((self->cfg.hi[d] - self->cfg.lo[d]) / self->cfg.s - 1e-9) : 1;
}

typedef struct splat_ctx {
    const fluid_sph *self;
    const double *x, *q;     /* the cell centre, the particle values */
    double sum, weight;
} splat_ctx;

static void splat_one(void *p, size_t i, double d2)
{
    splat_ctx *c = p;
    const fluid_sph *self = c->self;
    double rho = self->start_valid ? self->geo[self->start].rho[i] : self->f.rho0;
    double w = self->f.m / rho * sph_W(&self->f.K, sqrt(d2));
    c->sum += w * c->q[i];
    c->weight += w;
}

/* Particle values q splatted to the raster: a Shepard average where the
 * particles' kernel volumes cover at least half of a cell centre, 0 elsewhere. */
static void splat(fluid_sph *self, const double *q, double *out)
{
    int nc[3];
    raster_size(self, nc);
    seam_neighbours *B = seam_neighbours_new(self->cfg.dim, self->n, self->x_n, self->f.K.h);
    for (int k = 0; k < nc[2]; k++)
        for (int j = 0; j < nc[1]; j++)
            for (int i = 0; i < nc[0]; i++) {
                const int ijk[3] = {i, j, k};
                double x[3];
                for (int d = 0; d < 3; d++)
                    x[d] = self->cfg.lo[d] + (ijk[d] + 0.5) * self->cfg.s;
                splat_ctx c = {self, x, q, 0.0, 0.0};
                if (B)
                    seam_neighbours_visit(B, x, self->f.K.h, splat_one, &c);
                out[(size_t)i + (size_t)nc[0] * ((size_t)j + (size_t)nc[1] * (size_t)k)] =
                    c.weight >= 0.5 ? c.sum / c.weight : 0.0;
            }
    seam_neighbours_destroy(&B);
}

seam_status fluid_sph_field(void *p, const char *name, seam_raster *out)
{
    fluid_sph *self = p;
    size_t d = (size_t)self->cfg.dim, n = self->n;
    int nc[3];
    raster_size(self, nc);
    size_t cells = (size_t)nc[0] * (size_t)nc[1] * (size_t)nc[2];
    double *q = seam_xmalloc_n(n + 1, sizeof *q);
    self->raster = seam_xrealloc_n(self->raster, cells, sizeof *self->raster);
    const char *units;
    if (strcmp(name, "speed") == 0) {
        for (size_t i = 0; i < n; i++) {
            double s2 = 0.0;
            for (size_t c = 0; c < d; c++)
                s2 += self->v_n[d * i + c] * self->v_n[d * i + c];
            q[i] = sqrt(s2);
        }
        units = "m/s";
    } else if (strcmp(name, "pressure") == 0) {
        memcpy(q, self->p_n, n * sizeof *q);
        units = "Pa";
    } else if (strcmp(name, "density") == 0) {
        for (size_t i = 0; i < n; i++)
            q[i] = self->start_valid ? self->geo[self->start].rho[i] : self->f.rho0;
        units = "kg/m^3";
    } else {
        free(q);
        seam_logf(self->host, SEAM_LOG_ERROR, "field \"%s\": fluid_sph has \"speed\", \"pressure\" and \"density\"",
                  name);
        return SEAM_ERROR;
    }
    splat(self, q, self->raster);
    free(q);
    *out = (seam_raster){nc[0], nc[1], nc[2], {self->cfg.lo[0], self->cfg.lo[1], self->cfg.lo[2]}, self->cfg.s, self->raster, units};
    return SEAM_OK;
}

seam_status fluid_sph_write_output(void *p, const char *dir, int frame)
{
    fluid_sph *self = p;
    size_t n = self->n;
    double *rho = seam_xmalloc_n(n + 1, sizeof *rho);
    for (size_t i = 0; i < n; i++)
        rho[i] = self->start_valid ? self->geo[self->start].rho[i] : self->f.rho0;
    seam_vtk_field fields[] = {{"velocity", 3, self->cfg.dim, self->v_n}, {"pressure", 1, 1, self->p_n},
                               {"density", 1, 1, rho}};
    char stem[64];
    snprintf(stem, sizeof stem, "fluid_sph_" SEAM_FRAME_FORMAT, frame);
    seam_status st = seam_vtk_frame_points(&self->vtk, self->host, dir, stem, self->cfg.dim, n, self->x_n, fields, 3);
    if (st == SEAM_OK)
        st = seam_vtk_frame_done(&self->vtk, self->host, dir, self->host && self->host->name ? self->host->name : "fluid_sph",
                                 self->t_n);
    free(rho);
    return st;
}

/* Loads are the pressure (and viscous) forces of the fluid on the surface
 * samples, reflected: the momentum the fluid exchanged with them over the
 * step divided by dt (fluid_sph_coupling: to 1e-9), so both a pressure load
 * and a conservative impulse (Akbay ch. 3: the Akinci coupling already
 * conserves momentum); regions for the projection. */
