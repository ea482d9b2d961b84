/* monolithic: one step of Zarifi's coupled projection (Zarifi 2017,
 * Algorithm 4; docs/monolithic.md):
 *
 *   1. the solids' positions are the committed ones (x^n);
 *   2. the liquid's particle velocities go to the grid (smoke: its velocities
 *      are advected), gravity is added, walls and sources' faces take their
 *      velocities, viscosity diffuses them (fluid_mac_begin: u*);
 *   3. the solids' boundaries are cut against the grid (sec. 5.1.1, 4.6) and
 *      the liquid's level set is continued through them (mono_liquid_phi);
 *   4. (5.17) is assembled and solved through its SPD form (5.25-5.31);
 *   5. u = u* - dt/rho grad p (5.4), the velocities are extrapolated (4.6),
 *      the particles take the change and move (smoke: its scalars are
 *      transported), as fluid_mac's own solve does; the solids take
 *      x^{n+1} = x^n + dt v (5.2).
 *
 * mono_step is that list; mono_plugin_solve checks the call and logs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/log.h"
#include "plugin.h"

/* An active cell that holds both sides of a solid: its patches'
 * area-weighted normals cancel to under a third of their area (a corner of
 * 90 degrees keeps 0.71 of it; cells with patches of under a tenth of a
 * cell's side in all, and patches facing an obstacle or the domain's
 * outside, are not counted). One pressure per cell (5.13) would join the fluid on the two
 * sides, which the solid no longer separates (an enclosed region leaks):
 * SEAM_ERROR, naming the first such cell. */
static seam_status thin_solid_cells(mono *self, const mac_grid *g, const seam_step *step)
{
    size_t nc = mac_ncell(g), d = (size_t)g->dim;
    double *acc = SEAM_NEW_N(double, nc * (d + 1));
    seam_status st = SEAM_OK;
    for (size_t q = 0; q < self->cut.n_patches; q++) {
        const mono_patch *pa = &self->cut.patches[q];
        /* a patch with no fluid on its side (an obstacle, or the domain's
         * outside, a hundredth of a cell from its centroid against n) parts nothing */
        double xc[3] = {0.0, 0.0, 0.0};
        int ijk[3] = {0, 0, 0}, outside = 0;
        for (size_t k = 0; k < d; k++)
            for (size_t e = 0; e < d; e++)
                xc[e] += pa->w[k] * self->X[(size_t)self->elems[pa->elem * d + k] * d + e];
        for (size_t e = 0; e < d; e++) {
            double v = floor((xc[e] - 0.01 * g->dx * pa->n[e] - g->origin[e]) / g->dx);
            outside |= v < 0.0 || v >= mac_n(g, (int)e);
            ijk[e] = outside ? 0 : (int)v;
        }
        if (outside || (self->fl->cfg.obstacle && self->fl->cfg.obstacle[mac_c(g, ijk[0], ijk[1], ijk[2])]))
            continue;
        double *a = acc + pa->cell * (d + 1);
        for (size_t k = 0; k < d; k++)
            a[k] += pa->area * pa->n[k];
        a[d] += pa->area;
    }
    for (size_t c = 0; c < nc; c++) {
        const double *a = acc + c * (d + 1);
        double len = sqrt(a[0] * a[0] + a[1] * a[1] + (d == 3 ? a[2] * a[2] : 0.0));
        if (self->F.index[c] < 0 || !(a[d] > 0.1 * (d == 2 ? g->dx : g->dx * g->dx)) || len >= a[d] / 3.0)
            continue;
        seam_logf(self->host, SEAM_LOG_ERROR, "step %lld (t = %g s): cell (%zu, %zu, %zu) holds both sides of a solid "
                  "(its boundary's normals cancel to %.2f of its %s): its one pressure would join the fluid on both "
                  "sides (Zarifi 5.13); the solid is thinner than about two cells there: refine the grid",
                  (long long)step->index, step->t, c % (size_t)g->nx, c / (size_t)g->nx % (size_t)g->ny,
                  c / ((size_t)g->nx * (size_t)g->ny), len / a[d], d == 2 ? "length" : "area");
        st = SEAM_ERROR;
        break;
    }
    free(acc);
    return st;
}

static int active_cell(const void *ctx, size_t c) { return ((const mono_fluid *)ctx)->index[c] >= 0; }

/* 3. The cut cells of the solids' boundaries at x^n, the liquid's level set
 * through them, the fluid block of (5.17), and the volume sources' rate
 * over the active cells, a prescribed divergence: B p + G v = E u* + s V. */
static seam_status cut_cells(mono *self, const seam_step *step)
{
    fluid_mac *fl = self->fl;
    const mac_grid *g = &fl->cfg.g;
    mono_boundary b = {self->dim, self->n_nodes, self->X, self->n_elems, self->elems};
    mono_cut_free(&self->cut);
    mono_fluid_free(&self->F);
    seam_status st = mono_cut_build(&self->cut, g, &b, self->host);
    if (st == SEAM_OK)
        mono_cut_obstacles(&self->cut, g, fl->cfg.obstacle);
    if (st == SEAM_OK)
        mono_liquid_phi(g, &self->cut, fl->cfg.liquid ? fl->phi_n : self->all_fluid, self->phi);
    if (st == SEAM_OK)
        st = mono_fluid_build(&self->F, g, &self->cut, &b, self->phi, fl->vel, fl->vel, fl->cfg.rho, step->dt, self->host);
    if (st == SEAM_OK)
        st = thin_solid_cells(self, g, step);
    if (st == SEAM_OK && fluid_mac_volume_sources(fl, active_cell, &self->F, step->t + 0.5 * step->dt))
        for (size_t r = 0; r < self->F.n; r++)
            self->F.Eu[r] += fl->src_s[self->F.cell[r]] * mac_cell_volume(g);
    return st;
}

/* 4a. The solids' blocks of (5.17), and the velocities v_perp of their
 * prescribed nodes, whose flux is known. */
static seam_status solid_blocks(mono *self, const seam_step *step)
{
    size_t d = (size_t)self->dim;
    seam_status st = SEAM_OK;
    self->m = 0;
    memset(self->v_perp, 0, self->n_nodes * d * sizeof *self->v_perp);
    for (size_t s = 0; st == SEAM_OK && s < self->ns; s++) {
        solid *so = &self->sol[s];
        mono_block_free(&self->blk[s]);
        if (so->rigid) {
            int rank = (self->dim == 2 ? 3 : 6) * (int)so->n_bodies;
            st = mono_rigid_block(&self->blk[s], so->P, so->self, step, so->n_pts, self->dim, rank, so->first,
                                  self->n_nodes, self->v_perp, &self->sh[s].host);
        } else {
            const fem *f = so->self;
            st = mono_fem_block(&self->blk[s], f, step->dt, self->opts.sigma, NULL, so->first, self->n_nodes,
                                &self->sh[s].host);
            for (size_t q = 0; q < so->n_pts; q++) {
                size_t node = (size_t)f->iface_node[q];
                if (f->fixed[node] == 2)
                    memcpy(self->v_perp + (so->first + q) * d, f->v_fixed + node * d, d * sizeof(double));
            }
        }
        self->m += self->blk[s].m;
    }
    return st;
}

/* 4b. B p + G T w = E u* - G v_perp, through its SPD form (5.25-5.31). */
static seam_status coupled_solve(mono *self, double dt)
{
    double *Gv = SEAM_NEW_N(double, self->F.n + 1);
    seam_csr_mul(self->F.G, self->v_perp, Gv);
    for (size_t r = 0; r < self->F.n; r++)
        self->F.Eu[r] -= Gv[r];
    free(Gv);
    free(self->p);
    free(self->v);
    self->p = SEAM_NEW_N(double, self->F.n + 1);
    self->v = SEAM_NEW_N(double, self->m + 1);
    return mono_solve_kept(&self->kept, &self->F, self->blk, self->ns, dt, &self->opts, self->p, self->v,
                           &self->stats, self->host);
}

/* 5a. u = u* - dt/rho grad p (5.4), then the velocities extrapolated (4.6). */
static void fluid_update(mono *self, double dt)
{
    fluid_mac *fl = self->fl;
    const mac_grid *g = &fl->cfg.g;
    size_t nc = mac_ncell(g);
    for (size_t c = 0; c < nc; c++)
        fl->p[c] = self->F.index[c] >= 0 ? self->p[self->F.index[c]] : 0.0;
    mono_fluid_update(&self->F, g, &self->cut, self->phi, self->p, fl->vel, fl->cfg.rho, dt, fl->vel);
    mono_extrapolate(g, &self->cut, self->phi, 2, fl->vel);
}

/* 5b. The solids' steps: FEM with the solved velocities (5.2), rigid bodies
 * by their own integrator under the pressure loads G^T p (5.13). */
static seam_status solids_advance(mono *self, const seam_step *step)
{
    size_t d = (size_t)self->dim;
    seam_status st = SEAM_OK;
    seam_csr_mul_t(self->F.G, self->p, self->Fn);
    for (size_t s = 0, at = 0; st == SEAM_OK && s < self->ns; at += self->blk[s].m, s++) {
        solid *so = &self->sol[s];
        if (so->rigid)
            st = mono_rigid_advance(so->P, so->self, step, so->n_pts, self->dim, self->Fn + so->first * d);
        else {
            ((fem *)so->self)->t_trial = step->t + step->dt;   /* what solid_fem's commit takes as the new time */
            mono_fem_advance(so->self, &self->blk[s], self->v + at, step->dt);
        }
    }
    return st;
}

/* Zarifi's Algorithm 4, one step from the committed state. */
static seam_status mono_step(mono *self, const seam_step *step)
{
    double dt = step->dt;
    seam_status st = mono_gather_positions(self);                          /* 1. x^n */
    mono_gather_velocities(self);
    if (st == SEAM_OK)
        st = fluid_mac_begin(self->fl, self->X, self->V, step->t, dt);     /* 2. u* */
    if (st == SEAM_OK)
        st = cut_cells(self, step);                                        /* 3. cut cells, level set */
    if (st == SEAM_OK)
        st = solid_blocks(self, step);                                     /* 4. (5.17) */
    if (st == SEAM_OK)
        st = coupled_solve(self, dt);
    if (st != SEAM_OK)
        return st;
    fluid_update(self, dt);                                                /* 5. u^{n+1}, x^{n+1} */
    st = solids_advance(self, step);
    if (st == SEAM_OK)
        st = fluid_mac_end(self->fl, dt);
    return st;
}

seam_status mono_plugin_solve(void *p, const seam_step *step, const seam_input *in, seam_output *out)
{
    (void)in, (void)out;
    mono *self = p;
    self->solved = 0;
    if (!(step->dt > 0.0) || !isfinite(step->dt)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve: step size %g is not a positive number", step->dt);
        return SEAM_ERROR;
    }
    seam_status st = mono_step(self, step);
    if (st != SEAM_OK)
        return st;
    seam_logf(self->host, SEAM_LOG_DEBUG, "step %lld: %zu pressures, %zu solid velocities, PCG %d iterations, "
              "residual %.3g", (long long)step->index, self->F.n, self->m, self->stats.iterations, self->stats.residual);
    self->solved = 1;
    return SEAM_OK;
}
