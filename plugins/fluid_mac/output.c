/* fluid_mac's outputs: the committed state as named rasters (pictures,
 * probes) and as VTK frames. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fluid.h"
#include "seam/alloc.h"
#include "seam/frame.h"
#include "seam/log.h"
#include "seam/vtk.h"

/* Cell-centred velocity (dim per cell) of the committed faces. */
static void cell_velocity(const fluid_mac *self, int k, int j, int i, double *out)
{
    const mac_grid *g = &self->cfg.g;
    for (int a = 0; a < g->dim; a++)
        out[a] = 0.5 * (self->vel_n[a][mac_fi(g, a, i, j, k)] +
                        self->vel_n[a][mac_fi(g, a, i + (a == 0), j + (a == 1), k + (a == 2))]);
}

/* Cell-centred speed of the committed velocities. */
static void speed_field(const fluid_mac *self, double *out)
{
    const mac_grid *g = &self->cfg.g;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                double uc[3] = {0.0, 0.0, 0.0};
                cell_velocity(self, k, j, i, uc);
                out[mac_c(g, i, j, k)] =
                    g->dim == 3 ? sqrt(uc[0] * uc[0] + uc[1] * uc[1] + uc[2] * uc[2]) : hypot(uc[0], uc[1]);
            }
}

/* Divergence per cell of the committed velocities, 0 in solids. */
static void divergence_field(const fluid_mac *self, double *out)
{
    const mac_grid *g = &self->cfg.g;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = mac_c(g, i, j, k);
                out[c] = self->solid_n[c] ? 0.0 : mac_divergence(g, self->vel_n, i, j, k);
            }
}

seam_status fluid_mac_field(fluid_mac *self, const char *name, seam_raster *out)
{
    const mac_grid *g = &self->cfg.g;
    const char *units;
    if (strcmp(name, "speed") == 0) {
        speed_field(self, self->raster);
        units = "m/s";
    } else if (strcmp(name, "pressure") == 0) {
        memcpy(self->raster, self->p_n, mac_ncell(g) * sizeof(double));
        units = "Pa";
    } else if (strcmp(name, "divergence") == 0) {
        divergence_field(self, self->raster);
        units = "1/s";
    } else if (strcmp(name, "level_set") == 0 && self->cfg.liquid) {
        memcpy(self->raster, self->phi_n, mac_ncell(g) * sizeof(double));
        units = "m";
    } else if (strcmp(name, "density") == 0) {
        memcpy(self->raster, self->d_n, mac_ncell(g) * sizeof(double));
        units = "kg/m^3";
    } else if (strcmp(name, "temperature") == 0) {
        memcpy(self->raster, self->T_n, mac_ncell(g) * sizeof(double));
        units = "K";
    } else if (strcmp(name, "solid") == 0) {
        for (size_t c = 0; c < mac_ncell(g); c++)
            self->raster[c] = self->solid_n[c] != 0;
        units = NULL;
    } else {
        seam_logf(self->host, SEAM_LOG_ERROR,
                  "field \"%s\": fluid_mac has \"speed\", \"pressure\", \"divergence\", \"density\", "
                  "\"temperature\", \"solid\" and, for a liquid, \"level_set\"", name);
        return SEAM_ERROR;
    }
    *out = (seam_raster){g->nx, g->ny, g->nz, {g->origin[0], g->origin[1], g->origin[2]}, g->dx, self->raster, units};
    return SEAM_OK;
}

seam_status fluid_mac_write_output(fluid_mac *self, const char *dir, int frame)
{
    const mac_grid *g = &self->cfg.g;
    size_t nc = mac_ncell(g), dim = (size_t)g->dim;
    double *speed = seam_xmalloc_n(nc, sizeof *speed), *vel = seam_xmalloc_n(dim * nc, sizeof *vel);
    double *div = seam_xmalloc_n(nc, sizeof *div), *solid = seam_xmalloc_n(nc, sizeof *solid);
    speed_field(self, speed);
    divergence_field(self, div);
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = mac_c(g, i, j, k);
                cell_velocity(self, k, j, i, vel + dim * c);
                solid[c] = self->solid_n[c] != 0;
            }
    seam_vtk_field fields[] = {{"pressure", 1, 1, self->p_n}, {"speed", 1, 1, speed},
                               {"velocity", 3, g->dim, vel},  {"divergence", 1, 1, div},
                               {"solid", 1, 1, solid},        {"density", 1, 1, self->d_n},
                               {"temperature", 1, 1, self->T_n}};
    size_t nfield = sizeof fields / sizeof fields[0];
    if (self->cfg.liquid)   /* the level set replaces the (unused) smoke temperature */
        fields[nfield - 1] = (seam_vtk_field){"level_set", 1, 1, self->phi_n};
    char stem[64];
    snprintf(stem, sizeof stem, "fluid_mac_" SEAM_FRAME_FORMAT, frame);
    seam_status st = seam_vtk_frame_image(&self->vtk, self->host, dir, stem, g->nx, g->ny, g->nz, g->origin, g->dx,
                                          fields, nfield);
    if (st == SEAM_OK && self->cfg.liquid) {
        snprintf(stem, sizeof stem, "fluid_mac_particles_" SEAM_FRAME_FORMAT, frame);
        seam_vtk_field pv = {"velocity", 3, g->dim, self->vp_n};
        st = seam_vtk_frame_points(&self->vtk, self->host, dir, stem, g->dim, self->np_n, self->xp_n, &pv, 1);
    }
    if (st == SEAM_OK)
        st = seam_vtk_frame_done(&self->vtk, self->host, dir, self->host && self->host->name ? self->host->name : "fluid_mac",
                                 self->t_n);
    free(speed);
    free(vel);
    free(div);
    free(solid);
    return st;
}
