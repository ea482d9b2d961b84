/* What fluid_mac gives the solids: the loads of a solve on the interface
 * points (Akbay 2.3.5, or the momentum exchanged, eq. 2.8) and the rows of
 * the enclosed regions' volume constraints (Akbay eq. 4.9). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fluid.h"
#include "seam/alloc.h"
#include "seam/log.h"

/* The cell on one side (-1: the - side, +1: the + side) of face sf, and the
 * next one further away; each -1 when outside the grid or not fluid. */
static void side_cells(const fluid_mac *self, const solid_face *sf, int side, long *c1, long *c2)
{
    const mac_grid *g = &self->cfg.g;
    int a = sf->axis;
    int c[3] = {sf->i, sf->j, sf->k};
    if (side < 0)
        c[a] -= 1;
    int m2 = c[a] + side;
    *c1 = mac_fluid(&self->geo, mac_c(g, c[0], c[1], c[2])) ? (long)mac_c(g, c[0], c[1], c[2]) : -1;
    c[a] = m2;
    *c2 = *c1 >= 0 && m2 >= 0 && m2 < mac_n(g, a) && mac_fluid(&self->geo, mac_c(g, c[0], c[1], c[2]))
              ? (long)mac_c(g, c[0], c[1], c[2]) : -1;
}

/* The pressure the fluid on one side puts on face sf (0 with no fluid there):
 * the cell value (impulse mode) or its linear extrapolation to the face. */
static double side_pressure(const fluid_mac *self, const solid_face *sf, int side, int extrapolate)
{
    long c1, c2;
    side_cells(self, sf, side, &c1, &c2);
    if (c1 < 0)
        return 0.0;
    return extrapolate && c2 >= 0 ? 1.5 * self->p[c1] - 0.5 * self->p[c2] : self->p[c1];
}

/* Loads on the interface points: the force each face between fluid and a
 * solid (or across a shell) exerts on the solid, distributed by W^T (its
 * total is kept). */
void fluid_mac_loads(fluid_mac *self, double dt, double *F)
{
    const mac_grid *g = &self->cfg.g;
    size_t nf = self->geo.n_faces, dim = (size_t)g->dim;
    memset(F, 0, dim * self->iface.n_points * sizeof *F);
    if (!nf)
        return;
    double *f = SEAM_NEW_N(double, dim * nf);
    double A = mac_face_area(g);
    double M_half = self->cfg.rho * A * g->dx / 2.0;   /* one half of a face's dual cell */
    int extrapolate = self->cfg.loads == LOADS_PRESSURE;
    if (self->cfg.viscous_loads)   /* the momentum the viscous links gave each face, also faces inside a body */
        for (size_t k = 0; k < dim * nf; k++)
            f[k] = self->cfg.rho * A * g->dx / dt * self->visc_dv[k];
    for (size_t k = 0; k < nf; k++) {
        const solid_face *sf = &self->geo.faces[k];
        if (sf->s == 0)
            continue;
        /* Fluid on the - side pushes along +axis, on the + side along -axis; a solid
         * side has none (Akbay 2.3.5: "pressures inside the solid set to zero"). */
        long c_lo, c_hi, c2;
        side_cells(self, sf, -1, &c_lo, &c2);
        side_cells(self, sf, +1, &c_hi, &c2);
        int lo_fluid = c_lo >= 0, hi_fluid = c_hi >= 0;
        if (!lo_fluid && !hi_fluid)
            continue;   /* only air against the solid: no load */
        double dp = (lo_fluid ? side_pressure(self, sf, -1, extrapolate) : 0.0) -
                    (hi_fluid ? side_pressure(self, sf, +1, extrapolate) : 0.0);
        double load = dp * A;
        if (self->cfg.loads == LOADS_IMPULSE) {
            /* Akbay eq. 2.8: M_f (u^{n+1} - u*) = dt (p_L - p_R) A + I_DC; the solid gets -I_DC/dt,
             * M_f the fluid part of the dual cell. */
            size_t fi = mac_fi(g, sf->axis, sf->i, sf->j, sf->k);
            double u_new = self->vel[sf->axis][fi], u_star = self->vel_star[sf->axis][fi];
            double M_f = M_half * (lo_fluid + hi_fluid);
            load += M_f * (u_star - u_new) / dt;
        }
        f[dim * k + (size_t)sf->axis] += load;
    }
    seam_mapping_distribute(self->geo.W, g->dim, f, F);
    free(f);
}

/* ---- enclosed regions (Akbay eq. 4.9) -------------------------------------- */

typedef struct region_flux {
    fluid_mac *self;
    const mac_geometry *geo;
    const int *slot;
} region_flux;

/* q_r: the volume the sources push into each enclosed region per unit time. */
static void add_region_flux(void *ctx, const inflow *src, int axis, const int *ijk, double u_in, size_t cell)
{
    (void)src;
    (void)axis;
    (void)ijk;
    region_flux *rf = ctx;
    const mac_grid *g = &rf->self->cfg.g;
    int r = rf->geo->region[cell];
    if (r >= 0 && rf->slot[r] >= 0)   /* times the face area (dx per unit depth in 2D) */
        rf->self->q[rf->slot[r]] += u_in * mac_face_area(g);
}

seam_status fluid_mac_regions(fluid_mac *self, const seam_step *step, const double *X, seam_regions *out)
{
    const mac_grid *g = &self->cfg.g;
    size_t np = self->iface.n_points, dim = (size_t)g->dim, row = dim * np;
    mac_geometry geo;
    seam_status st = mac_geometry_build(&geo, g, &self->iface, X, self->cfg.kernel_radius * g->dx,
                                        self->cfg.liquid ? self->phi_n : NULL, self->cfg.obstacle, self->host);
    if (st != SEAM_OK) {
        mac_geometry_free(&geo);
        return st;
    }
    int *slot = SEAM_NEW_N(int, (size_t)geo.n_regions + 1);
    size_t m = 0;
    for (int r = 0; r < geo.n_regions; r++)
        slot[r] = geo.region_open[r] ? -1 : (int)m++;
    free(self->C);
    free(self->q);
    free(self->M);
    self->C = SEAM_NEW_N(double, m * row + 1);
    self->q = SEAM_NEW_N(double, m + 1);
    self->M = SEAM_NEW_N(double, m * row + 1);
    region_flux ctx = {self, &geo, slot};
    inflow_for_each_face(g, self->cfg.sources, self->cfg.n_sources, step->t + 0.5 * step->dt, add_region_flux, &ctx);
    size_t nc = mac_ncell(g);
    double *s = seam_xmalloc_n(3 * nc, sizeof *s);
    if (fluid_mac_geo_sources(self, &geo, step->t + 0.5 * step->dt, s, s + nc, s + 2 * nc))
        for (size_t c = 0; c < nc; c++)
            if (geo.region[c] >= 0 && slot[geo.region[c]] >= 0)
                self->q[slot[geo.region[c]]] += s[c] * mac_cell_volume(g);
    free(s);
    double *a = SEAM_NEW_N(double, dim * geo.n_faces + 1), *mf = SEAM_NEW_N(double, dim * geo.n_faces + 1);
    double area = mac_face_area(g);
    double M_half = self->cfg.rho * area * g->dx / 2.0;   /* the fluid half of a face's dual cell, as in compute_loads */
    for (size_t r = 0; r < m && np && geo.W; r++) {   /* no solid faces (W NULL): the rows stay 0 */
        /* c_r = W^T (A n) over the faces between region r and a solid, n out of the fluid;
         * M_r = W^T of their dual-cell fluid masses along the same components. */
        memset(a, 0, dim * geo.n_faces * sizeof *a);
        memset(mf, 0, dim * geo.n_faces * sizeof *mf);
        for (size_t k = 0; k < geo.n_faces; k++) {
            const solid_face *sf = &geo.faces[k];
            size_t hc = mac_c(g, sf->i, sf->j, sf->k);
            /* The fluid on the - side sees the solid along +axis, on the + side along -axis. */
            for (int side = -1; side <= 1; side += 2) {
                if (sf->s == 0 || sf->s == side)
                    continue;   /* that side is solid */
                size_t c = side < 0 ? hc - mac_stride(g, sf->axis) : hc;
                if (geo.region[c] >= 0 && slot[geo.region[c]] == (int)r) {
                    a[dim * k + (size_t)sf->axis] += -side * area;
                    mf[dim * k + (size_t)sf->axis] += M_half;
                }
            }
        }
        seam_mapping_distribute(geo.W, g->dim, a, self->C + r * row);
        seam_mapping_distribute(geo.W, g->dim, mf, self->M + r * row);
    }
    free(a);
    free(mf);
    free(slot);
    mac_geometry_free(&geo);
    out->count = m;
    out->n = row;
    out->C = self->C;
    out->q = self->q;
    out->M = self->M;
    return SEAM_OK;
}
