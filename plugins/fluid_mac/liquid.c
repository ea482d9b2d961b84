/* fluid_mac's liquid: FLIP/PIC marker particles carry the momentum between
 * steps (Zhu & Bridson 2005), their level set marks the free surface. The
 * stages of a solve that belong to the particles (step.h). */
#include <math.h>
#include <string.h>

#include "seam/log.h"
#include "step.h"

/* The committed particles' velocities to the faces (kept in dvel too, for FLIP). */
void liquid_to_grid(fluid_mac *self)
{
    const fluid_mac_config *c = &self->cfg;
    const mac_grid *g = &c->g;
    if (c->reference_kernels)
        mac_ref_particles_to_grid(g, self->np_n, self->xp_n, self->vp_n, &self->work, self->vel);
    else
        mac_particles_to_grid(g, self->np_n, self->xp_n, self->vp_n, &self->work, &self->bins, self->vel);
    for (int a = 0; a < g->dim; a++)
        memcpy(self->dvel[a], self->vel[a], mac_nf(g, a) * sizeof(double));
}

/* The projected velocities, and their change over the step (dvel: the
 * velocities before it, as liquid_to_grid left them), extended 3 cells into the air. */
seam_status liquid_extrapolate(fluid_mac *self, const trial *tr)
{
    (void)tr;
    const mac_grid *g = &self->cfg.g;
    mac_extrapolate(g, &self->geo, 3, self->vel);
    for (int a = 0; a < g->dim; a++) {
        double *dv = self->dvel[a], *v = self->vel[a];
#pragma omp parallel for schedule(static) if (mac_nf(g, a) >= MAC_OMP_MIN)
        for (size_t f = 0; f < mac_nf(g, a); f++)
            dv[f] = v[f] - dv[f];
    }
    mac_extrapolate(g, &self->geo, 3, self->dvel);
    return SEAM_OK;
}

/* v_p = flip (v_p^n + delta u(x_p)) + (1 - flip) u(x_p): FLIP's update blended with PIC's. */
seam_status liquid_to_particles(fluid_mac *self, const trial *tr)
{
    (void)tr;
    const mac_grid *g = &self->cfg.g;
    size_t dim = (size_t)g->dim, n = self->np_n;
    memcpy(self->xp, self->xp_n, dim * n * sizeof(double));
    double *pic = self->pic, *delta = self->delta;
    if (self->cfg.reference_kernels) {
        mac_grid_to_particles(g, n, self->xp, self->vel, pic, 1);
        mac_grid_to_particles(g, n, self->xp, self->dvel, delta, 1);
    } else {
        mac_grid_to_particles2(g, n, self->xp, self->vel, pic, self->dvel, delta);
    }
    double flip = self->cfg.flip, *vp = self->vp, *vp_n = self->vp_n;
#pragma omp parallel for schedule(static) if (n >= MAC_OMP_MIN)
    for (size_t k = 0; k < dim * n; k++)
        vp[k] = flip * (vp_n[k] + delta[k]) + (1.0 - flip) * pic[k];
    return SEAM_OK;
}

/* The particles move through the projected velocities over dt, stopped by the shells. */
seam_status liquid_advect(fluid_mac *self, const trial *tr)
{
    mac_shells shells = {self->n_shell, self->shell_seg, self->shell_X0, self->shell_X1, self->shell_elem};
    int ref = self->cfg.reference_kernels;
    /* pic holds vel at the particles: the move's first stage (the reference kernels sample it again) */
    self->np = mac_advect_particles_from(&self->cfg.g, self->np_n, self->xp, self->vp, self->vel,
                                         ref ? NULL : self->pic, tr->step->dt, &shells, ref);
    return SEAM_OK;
}

/* The level set of the moved particles. */
seam_status liquid_level_set(fluid_mac *self, const trial *tr)
{
    (void)tr;
    fluid_mac_level_set(self, self->np, self->xp, self->geo.solid, self->phi);
    return SEAM_OK;
}

/* Whether every cell in the 3 x 3 (x 3) block around cell ijk is fluid or outside the grid. */
static int inner_cell(const mac_grid *g, const mac_geometry *geo, const int *ijk)
{
    int dk = g->dim == 3 ? 1 : 0;
    for (int c = -dk; c <= dk; c++)
        for (int b = -1; b <= 1; b++)
            for (int a = -1; a <= 1; a++) {
                int i = ijk[0] + a, j = ijk[1] + b, k = ijk[2] + c;
                if (i >= 0 && j >= 0 && k >= 0 && i < g->nx && j < g->ny && k < g->nz &&
                    !mac_fluid(geo, mac_c(g, i, j, k)))
                    return 0;
            }
    return 1;
}

/* Crowded cells push their particles apart: a displacement d (into dvel)
 * with div d = the excess over the starting count per cell, cf. Takahashi's
 * position correction; without it FLIP particles bunch up and the liquid
 * loses volume. */
seam_status liquid_spread(fluid_mac *self, const trial *tr)
{
    (void)tr;
    const mac_grid *g = &self->cfg.g;
    size_t nc = mac_ncell(g);
    mac_geometry geo;
    mac_geometry_liquid(&geo, g, &self->geo, self->phi);
    /* the level set's sums are done with: the count e, then the spreading solve's right-hand side and q */
    double *e = self->work.cell, *scratch = self->work.cell + nc;
    /* liquid_level_set has just sorted these particles into self->bins */
    if (self->cfg.reference_kernels)
        mac_ref_particle_density(g, self->np, self->xp, e);
    else
        mac_particle_density(g, self->np, self->xp, &self->bins, 1, e);
    double n0 = (double)fluid_mac_particles_per_cell(self);
#pragma omp parallel for collapse(2) schedule(static) if (nc >= MAC_OMP_MIN)
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = mac_c(g, i, j, k);
                const int ijk[3] = {i, j, k};
                /* Next to air or a body the count misses the other side: there only crowding counts. */
                int inner = mac_fluid(&geo, c) && inner_cell(g, &geo, ijk);
                double excess = e[c] / n0 - 1.0;
                e[c] = !mac_fluid(&geo, c) ? 0.0 : inner ? excess : fmax(excess, 0.0);
            }
    seam_status st =
        mac_spread(&self->proj, g, &geo, e, scratch, 1e-4, self->cfg.max_iter, self->dvel, self->host);
    self->spread_iterations = self->proj.iterations;
    mac_geometry_free(&geo);
    return st;
}

/* The particles move by the spreading displacement; the shells hold still here. */
seam_status liquid_spread_move(fluid_mac *self, const trial *tr)
{
    (void)tr;
    mac_shells shells = {self->n_shell, self->shell_seg, self->shell_X1, self->shell_X1, self->shell_elem};
    self->np = mac_advect_particles(&self->cfg.g, self->np, self->xp, self->vp, self->dvel, 1.0, &shells,
                                    self->cfg.reference_kernels);
    return SEAM_OK;
}
