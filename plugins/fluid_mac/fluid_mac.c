/* fluid_mac: an Eulerian fluid on a 2D or 3D staggered (MAC) grid, coupled to solids
 * through the seam plugin contract. One solve: advect, add forces, impose the
 * solid and wall velocities, project, and turn the exchanged momentum into
 * loads on the interface points (Akbay 2.3.5 or 2.4). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fluid.h"
#include "seam/config.h"
#include "seam/frame.h"
#include "seam/log.h"
#include "seam/vtk.h"

/* Names of the phases (fluid.h) in the debug line "phases (ms)". */
static const char *const phase_names[PHASES] = {"geometry", "to_grid", "forces", "pressure", "extrapolate",
                                                "to_particles", "advect", "level_set", "spread", "transport",
                                                "loads"};

/* CPU time of the process (all threads), so the shares hold on a loaded machine. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* Adds the time since *t0 to phase ph and restarts the clock. */
static void phase_end(fluid_mac *self, int ph, double *t0)
{
    double t = cpu_ms();
    self->phase_ms[ph] += t - *t0;
    *t0 = t;
}

/* ---- configuration ------------------------------------------------------- */

/* Domain sides by name, in SIDE_* order; 2D grids have the first four. */
static const char *const side_names[] = {"left", "right", "bottom", "top", NULL};
static const char *const side_names_3d[] = {"left", "right", "bottom", "top", "back", "front", NULL};

/* The axes along a side (those other than its normal), in x, y, z order: one
 * in 2D, two in 3D. Returns how many. */
static int side_tangents(const mac_grid *g, int side, int t[2])
{
    int n = 0;
    for (int a = 0; a < g->dim; a++)
        if (a != side / 2)
            t[n++] = a;
    return n;
}

/* Squared radius of relative position rel in the disc inscribed in the range (1 on its rim). */
static double disc_r2(const double *rel)
{
    double a = 2.0 * rel[0] - 1.0, b = 2.0 * rel[1] - 1.0;
    return a * a + b * b;
}

/* Whether the side face m (index along each tangential axis) has its centre
 * in the source's range (and, for a disc, in its disc); rel gets its relative
 * position in [0, 1] per axis. */
static int source_has_face(const mac_grid *g, const inflow *src, const int *m, double *rel)
{
    int t[2];
    int nt = side_tangents(g, src->side, t);
    for (int q = 0; q < nt; q++) {
        double from = src->range[2 * q], to = src->range[2 * q + 1];
        double pos = g->origin[t[q]] + (m[q] + 0.5) * g->dx;
        if (pos < from || pos > to)
            return 0;
        rel[q] = (pos - from) / (to - from);
    }
    return !src->disc || disc_r2(rel) <= 1.0;
}

static int source_faces(const mac_grid *g, const inflow *src)
{
    int t[2];
    int nt = side_tangents(g, src->side, t), count = 0;
    int n1 = nt > 1 ? mac_n(g, t[1]) : 1;
    double rel[2];
    for (int m1 = 0; m1 < n1; m1++)
        for (int m0 = 0; m0 < mac_n(g, t[0]); m0++)
            count += source_has_face(g, src, (const int[2]){m0, m1}, rel);
    return count;
}

/* Whether cell (i, j, k) has its centre in the interior source's box (or circle). */
static int in_source_box(const mac_grid *g, const inflow *src, int i, int j, int k)
{
    const int ijk[3] = {i, j, k};
    double r2 = 0.0;
    for (int d = 0; d < g->dim; d++) {
        double c = g->origin[d] + (ijk[d] + 0.5) * g->dx;
        if (src->circle)
            r2 += (c - src->center[d]) * (c - src->center[d]);
        else if (c < src->box[d] || c > src->box[g->dim + d])
            return 0;
    }
    return !src->circle || r2 <= src->radius * src->radius;
}

/* Cells whose centre lies in an interior source. */
static int source_cells(const mac_grid *g, const inflow *src)
{
    int cells = 0;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++)
                cells += in_source_box(g, src, i, j, k);
    return cells;
}

/* A circle (2D) or sphere (3D) pushing fluid out through its rim at `speed`:
 * a volume source of the rim's flux, speed x 2 pi R (per unit depth) or
 * speed x 4 pi R^2, spread over the cells whose centre lies inside. */
static void read_circle_source(const mac_grid *g, seam_cfg *c, inflow *src)
{
    src->interior = 1;
    src->circle = 1;
    seam_cfg_vec(c, "center", src->center, (size_t)g->dim, SEAM_CFG_REQUIRED);
    src->radius = seam_cfg_num(c, "radius", 0.0, 0.0, INFINITY, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN | SEAM_CFG_HI_OPEN);
    src->speed = seam_cfg_num(c, "speed", 0.0, 0.0, INFINITY, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN | SEAM_CFG_HI_OPEN);
    double R = src->radius;
    src->rate = src->speed * (g->dim == 3 ? 4.0 * M_PI * R * R : 2.0 * M_PI * R);
    if (R > 0.0 && source_cells(g, src) == 0)
        seam_cfg_error(c, "radius", "the circle of radius %g m around [%g, %g%s] holds no cell centre", R,
                       src->center[0], src->center[1], g->dim == 3 ? ", ..." : "");
}

static void read_interior_source(const mac_grid *g, seam_cfg *c, inflow *src)
{
    src->interior = 1;
    size_t nb = 2 * (size_t)g->dim;
    if (seam_cfg_vec(c, "box", src->box, nb, SEAM_CFG_REQUIRED)) {
        int cells = source_cells(g, src);
        if (cells == 0 && g->dim == 3)
            seam_cfg_error(c, "box", "[%g, %g, %g, %g, %g, %g] (x0 y0 z0 x1 y1 z1) holds no cell centre",
                           src->box[0], src->box[1], src->box[2], src->box[3], src->box[4], src->box[5]);
        else if (cells == 0)
            seam_cfg_error(c, "box", "[%g, %g, %g, %g] holds no cell centre", src->box[0], src->box[1],
                           src->box[2], src->box[3]);
    }
    src->rate = seam_cfg_num(c, "rate", 0.0, 0.0, INFINITY, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN | SEAM_CFG_HI_OPEN);
}

/* A side inflow: its range is [from, to] along the side in 2D and
 * [u0, u1, v0, v1] over the side's two tangential axes (x, y, z order) in 3D. */
static void read_side_source(const mac_grid *g, seam_cfg *c, inflow *src)
{
    static const char *const profiles[] = {"uniform", "parabolic", NULL};
    static const char *const shapes[] = {"rectangle", "disc", NULL};
    src->side = seam_cfg_enum(c, "side", g->dim == 3 ? side_names_3d : side_names, SIDE_LEFT, SEAM_CFG_REQUIRED);
    int t[2];
    int nt = side_tangents(g, src->side, t);
    for (int q = 0; q < nt; q++) {   /* default: the whole side */
        src->range[2 * q] = g->origin[t[q]];
        src->range[2 * q + 1] = g->origin[t[q]] + mac_n(g, t[q]) * g->dx;
    }
    seam_cfg_vec(c, "range", src->range, 2 * (size_t)nt, 0);
    src->speed = seam_cfg_num(c, "speed", 0.0, 0.0, INFINITY, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN | SEAM_CFG_HI_OPEN);
    src->parabolic = seam_cfg_enum(c, "profile", profiles, 0, 0);
    src->disc = seam_cfg_enum(c, "shape", shapes, 0, 0);
    if (src->disc && g->dim != 3) {
        seam_cfg_error(c, "shape", "\"disc\" needs a 3D grid (a 2D side's range is already a segment)");
        src->disc = 0;
    }
    const char *name = side_names_3d[src->side];
    if (g->bc[src->side] != BC_WALL)
        seam_cfg_error(c, "side", "an inflow needs a wall side; \"%s\" is open", name);
    int ordered = 1;
    for (int q = 0; q < nt; q++)
        ordered &= src->range[2 * q] < src->range[2 * q + 1];
    if (nt == 1 && (!ordered || source_faces(g, src) == 0))
        seam_cfg_error(c, "range", "[%g, %g] holds no face centre of the %s side (faces every %g m from %g to %g)",
                       src->range[0], src->range[1], name, g->dx, g->origin[t[0]],
                       g->origin[t[0]] + mac_n(g, t[0]) * g->dx);
    else if (nt == 2 && (!ordered || source_faces(g, src) == 0))
        seam_cfg_error(c, "range",
                       "[%g, %g, %g, %g] ([%c0, %c1, %c0, %c1]) holds no face centre of the %s side "
                       "(faces every %g m, %c from %g to %g, %c from %g to %g)",
                       src->range[0], src->range[1], src->range[2], src->range[3], "xyz"[t[0]], "xyz"[t[0]],
                       "xyz"[t[1]], "xyz"[t[1]], name, g->dx, "xyz"[t[0]], g->origin[t[0]],
                       g->origin[t[0]] + mac_n(g, t[0]) * g->dx, "xyz"[t[1]], g->origin[t[1]],
                       g->origin[t[1]] + mac_n(g, t[1]) * g->dx);
}

/* Whether the source's "shape" is "circle". Peeking marks the key known, so
 * every kind of source must read or refuse "shape". */
static int circle_shape(seam_cfg *c)
{
    json_t *v = seam_cfg_json(c, "shape");
    return v && json_is_string(v) && strcmp(json_string_value(v), "circle") == 0;
}

/* A source is a side inflow ("side"), a volume source ("box") or a circle
 * ("shape": "circle"). */
static void read_source(const mac_grid *g, seam_cfg *c, inflow *src)
{
    static const char *const ramps[] = {"smooth", "cosine", NULL};
    int side = seam_cfg_has(c, "side"), box = seam_cfg_has(c, "box"), circle = circle_shape(c);
    if (side + box + circle > 1)
        seam_cfg_error(c, circle ? "shape" : "box",
                       "a source has one of \"side\", \"box\" or \"shape\": \"circle\"");
    if (circle) {
        static const char *const circle_names[] = {"circle", NULL};
        seam_cfg_enum(c, "shape", circle_names, 0, 0);
        read_circle_source(g, c, src);
    } else if (box) {
        if (seam_cfg_has(c, "shape"))   /* circle_shape marked it known: refuse it here */
            seam_cfg_error(c, "shape", "a box source has no shape (\"circle\" makes a circle source)");
        read_interior_source(g, c, src);
    } else {
        read_side_source(g, c, src);
    }
    src->ramp_time = seam_cfg_num(c, "ramp_time", 0.0, 0.0, INFINITY, SEAM_CFG_HI_OPEN);
    src->ramp = seam_cfg_enum(c, "ramp", ramps, RAMP_SMOOTH, 0);
    src->density = seam_cfg_num(c, "density", 1.0, 0.0, INFINITY, SEAM_CFG_HI_OPEN);
    src->temperature = seam_cfg_num(c, "temperature", 0.0, -INFINITY, INFINITY, 0);
}

/* Free-surface liquid: where it starts and how its particles behave. Smoke
 * keys do not apply to it. */
static void read_liquid(fluid_mac *self, seam_cfg *cfg, seam_cfg *liq)
{
    self->liquid = 1;
    size_t n = 0, dim = (size_t)self->g.dim, box = 2 * dim;
    self->fill = seam_cfg_numbers(liq, "fill", &n, SEAM_CFG_REQUIRED);
    if (self->fill && (n == 0 || n % box != 0))
        seam_cfg_error(liq, "fill", "expected boxes as %s (a multiple of %zu numbers), got %zu numbers",
                       dim == 3 ? "x0 y0 z0 x1 y1 z1" : "x0 y0 x1 y1", box, n);
    self->n_fill = n / box;
    for (size_t b = 0; b < self->n_fill; b++)
        for (size_t d = 0; d < dim; d++)
            if (!(self->fill[box * b + d] < self->fill[box * b + dim + d])) {
                seam_cfg_error(liq, "fill", "box %zu is empty: need %c0 < %c1", b, "xyz"[d], "xyz"[d]);
                break;
            }
    self->per_axis = (int)seam_cfg_int(liq, "particles_per_axis", 2, 1, 8, 0);
    self->flip = seam_cfg_num(liq, "flip", 0.95, 0.0, 1.0, 0);
    static const char *const kernel_names[] = {"binned", "reference", NULL};
    self->reference_kernels = seam_cfg_enum(liq, "particle_kernels", kernel_names, 0, 0);
    /* The radius that puts a flat surface seeded 2 particles per axis at its fill height (the
     * mean of |x - xbar| at the centres just above and below it): 0.5625 cells in 2D, 0.5417 in 3D. */
    double r_flat = self->g.dim == 3 ? 0.5417 : 0.5625;
    self->particle_radius = self->g.dx * seam_cfg_num(liq, "particle_radius", r_flat, 0.25, 2.0, 0);
    static const char *const smoke_keys[] = {"sources", "buoyancy", "initial", "advection"};
    for (int k = 0; k < 4; k++)
        if (seam_cfg_has(cfg, smoke_keys[k]))
            seam_cfg_error(cfg, smoke_keys[k], "smoke settings do not apply to a liquid (\"liquid\" is set)");
}

/* The grid: `cells` has two numbers in 2D, three in 3D; origin and gravity follow. */
/* Cells a grid may have, in 2D or 3D: some 20 arrays of doubles per cell
 * must fit in memory, and the loops over cells must end in seconds. */
#define MAC_MAX_CELLS (1 << 27)
#define MAC_MIN_CELLS 4   /* along each axis: W's kernel reaches 2 cells each way */

/* 0, or -1 when `cells` is refused: the grid is then left at one cell so that
 * nothing read after it (sources, the liquid) lays anything out over it. */
static int read_grid(fluid_mac *self, seam_cfg *cfg)
{
    int ok = 1;
    size_t n = 0;
    double *cells = seam_cfg_numbers(cfg, "cells", &n, SEAM_CFG_REQUIRED);
    self->g.dim = 2;
    self->g.nx = self->g.ny = self->g.nz = 1;
    if (cells && n != 2 && n != 3)
        seam_cfg_error(cfg, "cells", "expected [nx, ny] (2D) or [nx, ny, nz] (3D), got %zu numbers", n);
    else if (cells) {
        self->g.dim = (int)n;
        for (size_t d = 0; d < n && ok; d++)
            if (cells[d] != floor(cells[d]) || cells[d] < 1 || cells[d] > 1 << 15) {
                seam_cfg_error(cfg, "cells", "expected whole numbers in [4, 32768], got %g", cells[d]);
                ok = 0;
            } else if (cells[d] < MAC_MIN_CELLS) {
                seam_cfg_error(cfg, "cells", "%g cells along %c are too few to hold anything: a solid's kernel (W, "
                               "kernel_radius) reaches 2 cells each way, so at least %d are needed along every axis",
                               cells[d], "xyz"[d], MAC_MIN_CELLS);
                ok = 0;
            }
        double total = n == 3 ? cells[0] * cells[1] * cells[2] : cells[0] * cells[1];
        if (ok && total > MAC_MAX_CELLS) {
            seam_cfg_error(cfg, "cells", "%.0f cells are more than the %d one grid may have", total, MAC_MAX_CELLS);
            ok = 0;
        }
        if (ok) {
            self->g.nx = (int)cells[0];
            self->g.ny = (int)cells[1];
            self->g.nz = n == 3 ? (int)cells[2] : 1;
        }
    } else
        ok = 0;
    free(cells);
    size_t dim = (size_t)self->g.dim;
    /* The scene's cell_size, when it names one, is the grid's dx unless dx is given. */
    double cell = self->host && self->host->cell_size > 0 ? self->host->cell_size : 0.0;
    self->g.dx = seam_cfg_num(cfg, "dx", cell, 0.0, INFINITY,
                              (cell > 0 ? 0 : SEAM_CFG_REQUIRED) | SEAM_CFG_LO_OPEN | SEAM_CFG_HI_OPEN);
    self->g.origin[0] = self->g.origin[1] = self->g.origin[2] = 0.0;
    seam_cfg_vec(cfg, "origin", self->g.origin, dim, 0);
    /* The box and a cell's volume must be finite numbers: the projection divides by dx^2 and dx^3. */
    bool dx_given = seam_cfg_has(cfg, "dx");
    int counts[3] = {self->g.nx, self->g.ny, self->g.nz};
    for (size_t d = 0; d < dim && ok && self->g.dx > 0; d++) {
        double lo = self->g.origin[d], hi = lo + counts[d] * self->g.dx, vol = self->g.dx * self->g.dx * self->g.dx;
        /* a cell lost in round-off at the box's coordinates (1e-12 of them) is no cell either */
        if (!isfinite(hi) || !(vol > 0) || !isfinite(vol) || !(1e12 * self->g.dx > fabs(lo) + fabs(hi))) {
            seam_cfg_error(cfg, dx_given ? "dx" : NULL, "dx %g m%s over %d cells from %g m makes a box reaching %g m "
                           "along %c with cells of %g m^3: not a grid a double can hold", self->g.dx,
                           dx_given ? "" : " (the scene's cell_size)", counts[d], lo, hi, "xyz"[d], vol);
            ok = 0;
        }
    }
    /* The scene's gravity; without one, -9.81 along y. Its own key wins, loudly. */
    static const double g_default[3] = {0.0, -9.81, 0.0};
    seam_cfg_gravity(cfg, self->host, self->g.dim, g_default, self->gravity);
    static const char *const bc_names[] = {"wall", "open", NULL};
    seam_cfg *b = seam_cfg_child(cfg, "boundary", 0);
    for (int s = 0; s < 6; s++)
        self->g.bc[s] = b && s < 2 * self->g.dim ? (mac_bc)seam_cfg_enum(b, side_names_3d[s], bc_names, BC_WALL, 0)
                                                 : BC_WALL;
    return ok ? 0 : -1;
}

/* Static obstacles: boxes [[x0, y0(, z0)], [x1, y1(, z1)]] whose cells are
 * walls; the mask is kept only when there is one. */
static void read_obstacles(fluid_mac *self, seam_cfg *cfg)
{
    const mac_grid *g = &self->g;
    size_t n = seam_cfg_count(cfg, "obstacles", 0);
    if (n == 0)
        return;
    self->obstacle = calloc(mac_ncell(g), 1);
    if (!self->obstacle) {
        seam_cfg_error(cfg, "obstacles", "out of memory for a %dx%dx%d mask", g->nx, g->ny, g->nz);
        return;
    }
    for (size_t b = 0; b < n; b++) {
        seam_cfg *item = seam_cfg_item(cfg, "obstacles", b);
        size_t np = 0;
        double *box = seam_cfg_points(item, "box", g->dim, &np, SEAM_CFG_REQUIRED);
        if (box && np != 2)
            seam_cfg_error(item, "box", "expected two corners [[%s], [%s]], got %zu",
                           g->dim == 3 ? "x0, y0, z0" : "x0, y0", g->dim == 3 ? "x1, y1, z1" : "x1, y1", np);
        int cells = 0;
        for (int k = 0; box && np == 2 && k < g->nz; k++)
            for (int j = 0; j < g->ny; j++)
                for (int i = 0; i < g->nx; i++) {
                    const int ijk[3] = {i, j, k};
                    int in = 1;
                    for (int d = 0; d < g->dim; d++) {
                        double c = g->origin[d] + (ijk[d] + 0.5) * g->dx;
                        in &= c >= box[d] && c <= box[g->dim + d];
                    }
                    if (in)
                        self->obstacle[mac_c(g, i, j, k)] = 1;
                    cells += in;
                }
        if (box && np == 2 && cells == 0)
            seam_cfg_error(item, "box", "holds no cell centre (the corners must be ordered low, high)");
        free(box);
    }
}

static int read_config(fluid_mac *self, seam_cfg *cfg)
{
    if (read_grid(self, cfg) != 0) {   /* what lies on the grid cannot be checked without one */
        return -1;
    }
    self->rho = seam_cfg_density(cfg, "density", 1000.0, self->g.dim == 3 ? "kg/m^3" : "kg/m^2 (per unit depth)", 0);
    self->cfl = seam_cfg_num(cfg, "cfl", 1.0, 0.0, 10.0, SEAM_CFG_LO_OPEN);
    self->tol = seam_cfg_num(cfg, "pressure_tolerance", 1e-8, 0.0, 1.0, SEAM_CFG_LO_OPEN | SEAM_CFG_HI_OPEN);
    self->max_iter = (int)seam_cfg_int(cfg, "pressure_max_iterations", 1000, 1, 100000000, 0);
    static const char *const precond_names[] = {"multigrid", "mic0", NULL};
    self->proj.precond = (mac_precond)seam_cfg_enum(cfg, "pressure_preconditioner", precond_names, MAC_PRECOND_MG, 0);
    self->kernel_radius = seam_cfg_num(cfg, "kernel_radius", 2.0, 1.0, 2.0, 0);
    self->viscosity = seam_cfg_num(cfg, "viscosity", 0.0, 0.0, INFINITY, SEAM_CFG_HI_OPEN);
    read_obstacles(self, cfg);
    static const char *const load_names[] = {"pressure", "impulse", NULL};
    self->loads = (load_mode)seam_cfg_enum(cfg, "loads", load_names, LOADS_IMPULSE, 0);
    self->viscous_loads = seam_cfg_bool(cfg, "viscous_loads", false, 0);
    if (self->viscous_loads && !(self->viscosity > 0.0))
        seam_cfg_error(cfg, "viscous_loads", "needs a viscosity > 0 (an inviscid fluid has no viscous stress)");
    static const char *const advection_names[] = {"semi_lagrangian", "maccormack", "bfecc", NULL};
    self->advection = seam_cfg_enum(cfg, "advection", advection_names, ADVECT_SL, 0);
    self->vtk.format = seam_host_vtk_format(self->host);
    seam_cfg *by = seam_cfg_child(cfg, "buoyancy", 0);
    self->alpha = by ? seam_cfg_num(by, "density", 0.0, -INFINITY, INFINITY, 0) : 0.0;
    self->beta = by ? seam_cfg_num(by, "temperature", 0.0, -INFINITY, INFINITY, 0) : 0.0;
    seam_cfg *liq = seam_cfg_child(cfg, "liquid", 0);
    if (liq)
        read_liquid(self, cfg, liq);
    seam_cfg *ini = seam_cfg_child(cfg, "initial", 0);
    self->d_init = ini ? seam_cfg_num(ini, "density", 0.0, 0.0, INFINITY, SEAM_CFG_HI_OPEN) : 0.0;
    self->T_init = ini ? seam_cfg_num(ini, "temperature", 0.0, -INFINITY, INFINITY, 0) : 0.0;
    self->n_sources = seam_cfg_count(cfg, "sources", 0);
    self->sources = calloc(self->n_sources + 1, sizeof *self->sources);
    for (size_t k = 0; k < self->n_sources; k++)
        read_source(&self->g, seam_cfg_item(cfg, "sources", k), &self->sources[k]);
    return seam_cfg_finish(cfg) == SEAM_OK ? 0 : -1;
}

static void fluid_destroy(void *p)
{
    fluid_mac *self = p;
    if (!self)
        return;
    seam_vtk_series_free(&self->vtk);
    free(self->sources);
    free(self->fill);
    free(self->obstacle);
    free(self->U);
    free(self->visc_dv);
    free(self->xp_n);
    free(self->vp_n);
    free(self->xp);
    free(self->vp);
    free(self->pic);
    free(self->delta);
    mac_work_free(&self->work);
    mac_bins_free(&self->bins);
    free(self->phi_n);
    free(self->phi);
    for (int a = 0; a < 3; a++) {
        free(self->dvel[a]);
        free(self->fvel[a]);
        free(self->vel_moved[a]);
        free(self->vel_n[a]);
        free(self->vel[a]);
        free(self->vel_star[a]);
        free(self->d_b[a]);
        free(self->T_b[a]);
    }
    free(self->p_n);
    free(self->d_n);
    free(self->T_n);
    free(self->d);
    free(self->T);
    free(self->src_s);
    free(self->src_d);
    free(self->src_T);
    free(self->solid_n);
    free(self->p);
    mac_geometry_free(&self->geo);
    mac_projection_free(&self->proj);
    free(self->C);
    free(self->q);
    free(self->M);
    free(self->saved);
    free(self->raster);
    free(self->shell_seg);
    free(self->shell_X0);
    free(self->shell_elem);
    free(self);
}

/* The level set of particles x into phi, by the configured kernels; 0 when out of memory. */
static int level_set(fluid_mac *self, size_t n, const double *x, const uint8_t *solid, double *phi)
{
    const mac_grid *g = &self->g;
    if (!self->reference_kernels)
        return mac_level_set(g, n, x, self->particle_radius, solid, self->per_axis, &self->work, &self->bins, phi) ==
               SEAM_OK;
    mac_ref_level_set(g, n, x, self->particle_radius, solid, self->per_axis, &self->work, phi);
    return 1;
}

/* Particles per cell at the start: per_axis along each axis. */
static size_t particles_per_cell(const fluid_mac *self) { return mac_subgrid_count(&self->g, self->per_axis); }

/* Make room for n particles in the particle arrays (kept when large enough).
 * Returns 0 when out of memory (the arrays already there stay valid). */
static int reserve_particles(fluid_mac *self, size_t n)
{
    if (n <= self->np_cap && self->xp_n)
        return 1;
    size_t bytes = ((size_t)self->g.dim * n + 1) * sizeof(double);
    double **arrays[] = {&self->xp_n, &self->vp_n, &self->xp, &self->vp, &self->pic, &self->delta};
    for (size_t m = 0; m < sizeof arrays / sizeof arrays[0]; m++) {
        double *grown = realloc(*arrays[m], bytes);
        if (!grown)
            return 0;
        *arrays[m] = grown;
    }
    self->np_cap = n;
    return 1;
}

/* Whether the centre of cell ijk lies in one of the fill boxes (and not in an obstacle). */
static int in_fill(const fluid_mac *self, const int *ijk)
{
    const mac_grid *g = &self->g;
    size_t dim = (size_t)g->dim;
    if (self->obstacle && self->obstacle[mac_c(g, ijk[0], ijk[1], ijk[2])])
        return 0;
    for (size_t b = 0; b < self->n_fill; b++) {
        const double *f = self->fill + 2 * dim * b;
        int in = 1;
        for (size_t d = 0; d < dim; d++) {
            double xc = g->origin[d] + (ijk[d] + 0.5) * g->dx;
            in &= xc >= f[d] && xc <= f[dim + d];
        }
        if (in)
            return 1;
    }
    return 0;
}

/* per_axis^dim particles on a regular sub-grid of every cell whose centre is
 * in a fill box; the arrays hold just those. Returns 0 when out of memory. */
static int seed_particles(fluid_mac *self)
{
    const mac_grid *g = &self->g;
    size_t dim = (size_t)g->dim, nc = mac_ncell(g), ppc = particles_per_cell(self), filled = 0;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++)
                filled += (size_t)in_fill(self, (const int[3]){i, j, k});
    self->phi_n = malloc(nc * sizeof(double));
    self->phi = malloc(nc * sizeof(double));
    int ok = self->phi_n && self->phi && reserve_particles(self, filled * ppc);
    for (int a = 0; a < g->dim; a++)
        ok &= (self->dvel[a] = malloc(mac_nf(g, a) * sizeof(double))) != NULL;
    if (!ok)
        return 0;
    memset(self->vp_n, 0, dim * self->np_cap * sizeof(double));
    size_t n = 0;
    int pa = self->per_axis;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                const int ijk[3] = {i, j, k};
                int in = in_fill(self, ijk);
                for (size_t q = 0; in && q < ppc; q++, n++)
                    mac_subgrid_point(g, ijk, pa, q, self->xp_n + dim * n);
            }
    self->np_n = n;
    return level_set(self, n, self->xp_n, NULL, self->phi_n);
}

/* Drop the particles that start inside solid cells (the liquid cannot be there). */
static int remove_particles_in(fluid_mac *self, const uint8_t *solid)
{
    size_t kept = 0, dim = (size_t)self->g.dim;
    for (size_t p = 0; p < self->np_n; p++) {
        const double *x = self->xp_n + dim * p;
        if (solid[mac_cell_of(&self->g, x)])
            continue;
        memmove(self->xp_n + dim * kept, x, dim * sizeof(double));
        memmove(self->vp_n + dim * kept, self->vp_n + dim * p, dim * sizeof(double));
        kept++;
    }
    self->np_n = kept;
    return level_set(self, kept, self->xp_n, solid, self->phi_n);
}

static void *fluid_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *cfg = seam_cfg_from_host(config_json, host);
    if (!cfg)
        return NULL;
    fluid_mac *self = calloc(1, sizeof *self);
    self->host = host;
    int rc = read_config(self, cfg);
    seam_cfg_destroy(&cfg);
    if (rc != 0) {
        free(self->sources);
        free(self->fill);
        free(self->obstacle);
        free(self);
        return NULL;
    }
    const mac_grid *g = &self->g;
    size_t nc = mac_ncell(g);
    int ok = 1;
    for (int a = 0; a < g->dim; a++) {
        size_t nf = mac_nf(g, a);
        double **arrays[] = {&self->vel_n[a], &self->vel[a], &self->vel_star[a], &self->d_b[a], &self->T_b[a],
                             &self->vel_moved[a]};
        for (size_t m = 0; m < sizeof arrays / sizeof arrays[0]; m++)
            ok &= (*arrays[m] = calloc(nf, sizeof(double))) != NULL;
        if (self->viscosity > 0.0)
            ok &= (self->fvel[a] = calloc(nf, sizeof(double))) != NULL;
    }
    double **cells[] = {&self->p_n, &self->p, &self->raster, &self->d_n, &self->T_n, &self->d,
                        &self->T, &self->src_s, &self->src_d, &self->src_T};
    for (size_t m = 0; m < sizeof cells / sizeof cells[0]; m++)
        ok &= (*cells[m] = calloc(nc, sizeof(double))) != NULL;
    self->solid_n = calloc(nc, 1);
    if (!ok || !self->solid_n || mac_work_init(&self->work, g) != SEAM_OK) {
        seam_logf(host, SEAM_LOG_ERROR, "out of memory for a %dx%dx%d grid", g->nx, g->ny, g->nz);
        fluid_destroy(self);
        return NULL;
    }
    for (size_t c = 0; c < nc; c++) {
        self->d_n[c] = self->d_init;
        self->T_n[c] = self->T_init;
    }
    if (self->liquid && !seed_particles(self)) {
        seam_logf(host, SEAM_LOG_ERROR, "out of memory for the liquid's particles on a %dx%dx%d grid", g->nx, g->ny,
                  g->nz);
        fluid_destroy(self);
        return NULL;
    }
    return self;
}

static seam_status fluid_bind(void *p, const seam_interface *iface)
{
    fluid_mac *self = p;
    self->moved_valid = 0;   /* the committed state may change (particles in solids, a loaded state) */
    int dim = self->g.dim;
    if (iface->n_points && iface->dim != dim) {
        seam_logf(self->host, SEAM_LOG_ERROR, "fluid_mac runs in %dD (cells): the interface has dimension %d", dim,
                  iface->dim);
        return SEAM_ERROR;
    }
    if ((iface->n_points && !iface->X) || (iface->n_elems && !iface->elems)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "the interface has %zu points and %zu elements but no %s array",
                  iface->n_points, iface->n_elems, iface->n_points && !iface->X ? "position" : "element");
        return SEAM_ERROR;
    }
    if (iface->n_elems && iface->nodes_per_elem != dim) {
        seam_logf(self->host, SEAM_LOG_ERROR, "fluid_mac in %dD needs %s (%d nodes per element), got %d", dim,
                  dim == 3 ? "triangles" : "segments", dim, iface->nodes_per_elem);
        return SEAM_ERROR;
    }
    size_t npe = (size_t)dim;
    for (size_t e = 0; e < iface->n_elems; e++) {
        for (size_t k = 0; k < npe; k++)
            if (iface->elems[npe * e + k] < 0 || (size_t)iface->elems[npe * e + k] >= iface->n_points) {
                seam_logf(self->host, SEAM_LOG_ERROR, "interface element %zu names point %d of %zu", e,
                          iface->elems[npe * e + k], iface->n_points);
                return SEAM_ERROR;
            }
    }
    for (size_t k = 0; k < (size_t)dim * iface->n_points; k++)
        if (!isfinite(iface->X[k])) {
            seam_logf(self->host, SEAM_LOG_ERROR, "interface point %zu has a non-finite position", k / (size_t)dim);
            return SEAM_ERROR;
        }
    self->iface = *iface;
    self->bound = 1;
    /* The liquid's particles must not pass the thin shells (two-sided elements). */
    free(self->shell_seg);
    free(self->shell_X0);
    free(self->shell_elem);
    self->n_shell = 0;
    self->shell_seg = malloc((npe * iface->n_elems + 1) * sizeof *self->shell_seg);
    self->shell_X0 = malloc((npe * iface->n_points + 1) * sizeof *self->shell_X0);
    self->shell_elem = malloc((iface->n_elems + 1) * sizeof *self->shell_elem);
    if (!self->shell_seg || !self->shell_X0 || !self->shell_elem) {
        seam_logf(self->host, SEAM_LOG_ERROR, "bind: out of memory for %zu interface elements", iface->n_elems);
        self->bound = 0;
        return SEAM_ERROR;
    }
    for (size_t e = 0; e < iface->n_elems; e++)
        if (iface->two_sided && iface->two_sided[e]) {
            memcpy(self->shell_seg + npe * self->n_shell, iface->elems + npe * e, npe * sizeof *self->shell_seg);
            self->n_shell++;
        }
    /* The committed solid cells follow the interface's committed positions. */
    mac_geometry geo;
    seam_status st = mac_geometry_build(&geo, &self->g, iface, iface->X, self->kernel_radius * self->g.dx,
                                        NULL, self->obstacle, self->host);
    if (st == SEAM_OK)
        memcpy(self->solid_n, geo.solid, mac_ncell(&self->g));
    if (st == SEAM_OK && self->liquid && !remove_particles_in(self, geo.solid)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "bind: out of memory sorting %zu particles", self->np_n);
        st = SEAM_ERROR;
    }
    mac_geometry_free(&geo);
    return st;
}

static seam_status fluid_max_dt(void *p, double *dt)
{
    fluid_mac *self = p;
    const mac_grid *g = &self->g;
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
    /* Bridson's bound: the velocity a body force can add within one step counts too. */
    double gn = g->dim == 3 ? sqrt(self->gravity[0] * self->gravity[0] + self->gravity[1] * self->gravity[1] +
                                   self->gravity[2] * self->gravity[2])
                            : hypot(self->gravity[0], self->gravity[1]);
    double speed = umax + sqrt(gn * g->dx);
    *dt = speed > 0.0 ? self->cfl * g->dx / speed : INFINITY;
    return SEAM_OK;
}

/* ---- one solve ------------------------------------------------------------ */

/* Gravity, and smoke buoyancy (-alpha d + beta T) along +y from the committed
 * scalars; with viscosity, the increments are kept in self->fvel too. */
static void add_forces(fluid_mac *self, double dt)
{
    const mac_grid *g = &self->g;
    if (self->fvel[0])
        for (int a = 0; a < g->dim; a++)
            for (size_t f = 0; f < mac_nf(g, a); f++)
                self->fvel[a][f] = a == 1 ? 0.0 : dt * self->gravity[a];
    for (size_t f = 0; f < mac_nf(g, 0); f++)
        self->vel[0][f] += dt * self->gravity[0];
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j <= g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                double b = 0.0;
                if (self->alpha != 0.0 || self->beta != 0.0) {
                    size_t lo = mac_c(g, i, j > 0 ? j - 1 : 0, k), hi = mac_c(g, i, j < g->ny ? j : g->ny - 1, k);
                    double d = 0.5 * (self->d_n[lo] + self->d_n[hi]), T = 0.5 * (self->T_n[lo] + self->T_n[hi]);
                    b = -self->alpha * d + self->beta * T;
                }
                self->vel[1][mac_fi(g, 1, i, j, k)] += dt * (self->gravity[1] + b);
                if (self->fvel[1])
                    self->fvel[1][mac_fi(g, 1, i, j, k)] = dt * (self->gravity[1] + b);
            }
    for (size_t f = 0; f < mac_nf(g, 2); f++)
        self->vel[2][f] += dt * self->gravity[2];
}

/* Start of a source over the ramp time: 3x^2 - 2x^3, or Akbay's sinusoid as
 * intended, 0.5 (1 - cos(pi x)) (spec 10.7: the printed sin(pi t + 1.5 pi) + 0.5
 * runs from -0.5 to 1.5). */
static double ramp(const inflow *src, double t)
{
    if (src->ramp_time <= 0.0 || t >= src->ramp_time)
        return 1.0;
    double x = t > 0.0 ? t / src->ramp_time : 0.0;
    if (src->ramp == RAMP_COSINE)
        return 0.5 * (1.0 - cos(M_PI * x));
    return x * x * (3.0 - 2.0 * x);
}

/* Visit every face of every source at time t: the face (axis, ijk), its
 * inward normal velocity, and the cell inside. */
typedef void (*inflow_visit)(void *ctx, const inflow *src, int axis, const int *ijk, double u_in, size_t cell);

static void for_each_inflow_face(const fluid_mac *self, double t, inflow_visit visit, void *ctx)
{
    const mac_grid *g = &self->g;
    for (size_t k = 0; k < self->n_sources; k++) {
        const inflow *src = &self->sources[k];
        if (src->interior)
            continue;
        int axis = src->side / 2, high = src->side % 2, tan[2];
        int nt = side_tangents(g, src->side, tan);
        int n1 = nt > 1 ? mac_n(g, tan[1]) : 1;
        for (int m1 = 0; m1 < n1; m1++)
            for (int m0 = 0; m0 < mac_n(g, tan[0]); m0++) {
                const int m[2] = {m0, m1};
                double rel[2];
                if (!source_has_face(g, src, m, rel))
                    continue;
                /* parabolic: 4 s (1 - s) along the side, its product over both axes of a 3D side,
                 * 1 - r^2 over a disc */
                double shape = 1.0;
                if (src->parabolic && src->disc) {
                    shape = 1.0 - disc_r2(rel);
                } else if (src->parabolic) {
                    shape = 4.0 * rel[0] * (1.0 - rel[0]);
                    if (nt > 1)
                        shape *= 4.0 * rel[1] * (1.0 - rel[1]);
                }
                double u_in = src->speed * ramp(src, t) * shape;
                int ijk[3] = {0, 0, 0};
                for (int q = 0; q < nt; q++)
                    ijk[tan[q]] = m[q];
                ijk[axis] = high ? mac_n(g, axis) - 1 : 0;
                size_t cell = mac_c(g, ijk[0], ijk[1], ijk[2]);
                ijk[axis] = high ? mac_n(g, axis) : 0;
                visit(ctx, src, axis, ijk, u_in, cell);
            }
    }
}

/* Sources set the velocity of their wall faces and the scalars flowing in. */
static void set_inflow_face(void *ctx, const inflow *src, int axis, const int *ijk, double u_in, size_t cell)
{
    (void)cell;
    fluid_mac *self = ctx;
    const mac_grid *g = &self->g;
    double sign = src->side % 2 == 0 ? 1.0 : -1.0;   /* inward: + on a low side, - on a high one */
    size_t f = mac_fi(g, axis, ijk[0], ijk[1], ijk[2]);
    self->vel[axis][f] = sign * u_in;
    self->d_b[axis][f] = src->density;
    self->T_b[axis][f] = src->temperature;
}

/* Volume sources at time t per cell: the rate s (1/s, the divergence they
 * ask for) spread evenly over the box's cells that are fluid (is_fluid), and
 * the smoke density and temperature they bring (rate-weighted). False when none. */
static int sources_over(const fluid_mac *self, int (*is_fluid)(const void *ctx, size_t c), const void *ctx, double t,
                        double *s, double *d_src, double *T_src)
{
    const mac_grid *g = &self->g;
    size_t nc = mac_ncell(g);
    int any = 0;
    memset(s, 0, nc * sizeof *s);
    memset(d_src, 0, nc * sizeof *d_src);
    memset(T_src, 0, nc * sizeof *T_src);
    for (size_t k = 0; k < self->n_sources; k++) {
        const inflow *src = &self->sources[k];
        if (!src->interior)
            continue;
        int cells = 0;
        for (int kk = 0; kk < g->nz; kk++)
            for (int j = 0; j < g->ny; j++)
                for (int i = 0; i < g->nx; i++)
                    cells += in_source_box(g, src, i, j, kk) && is_fluid(ctx, mac_c(g, i, j, kk));
        if (cells == 0)
            continue;   /* covered by a body: it pushes nothing in */
        /* the rate per cell volume (dx^2 per unit depth in 2D, dx^3 in 3D) */
        double rate = src->rate * ramp(src, t) / (cells * mac_cell_volume(g));
        for (int kk = 0; kk < g->nz; kk++)
            for (int j = 0; j < g->ny; j++)
                for (int i = 0; i < g->nx; i++) {
                    size_t c = mac_c(g, i, j, kk);
                    if (!in_source_box(g, src, i, j, kk) || !is_fluid(ctx, c))
                        continue;
                    s[c] += rate;
                    d_src[c] += rate * src->density;
                    T_src[c] += rate * src->temperature;
                    any = 1;
                }
    }
    for (size_t c = 0; c < nc; c++)
        if (s[c] > 0.0) {
            d_src[c] /= s[c];
            T_src[c] /= s[c];
        }
    return any;
}

static int geo_fluid(const void *ctx, size_t c) { return mac_fluid(ctx, c); }

static int volume_sources(const fluid_mac *self, const mac_geometry *geo, double t, double *s, double *d_src,
                          double *T_src)
{
    return sources_over(self, geo_fluid, geo, t, s, d_src, T_src);
}

/* The faces of obstacle cells are static walls. */
static void zero_obstacle_faces(fluid_mac *self)
{
    const mac_grid *g = &self->g;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                if (!self->obstacle[mac_c(g, i, j, k)])
                    continue;
                for (int a = 0; a < g->dim; a++) {
                    self->vel[a][mac_fi(g, a, i, j, k)] = 0.0;
                    self->vel[a][mac_fi(g, a, i + (a == 0), j + (a == 1), k + (a == 2))] = 0.0;
                }
            }
}

/* Sources' faces take their inflow at time t and the scalars it brings;
 * obstacles' faces are at rest. */
static void impose_inflows(fluid_mac *self, double t)
{
    const mac_grid *g = &self->g;
    for (int a = 0; a < g->dim; a++) {
        memset(self->d_b[a], 0, mac_nf(g, a) * sizeof(double));
        memset(self->T_b[a], 0, mac_nf(g, a) * sizeof(double));
    }
    for_each_inflow_face(self, t, set_inflow_face, self);
    if (self->obstacle)
        zero_obstacle_faces(self);
}

/* Walls get zero normal velocity, sources their inflow at mid-step (the
 * step average), obstacles zero, faces at solid cells U = W V (eq. 4.5),
 * kept in self->U for the viscosity. Returns 0 when out of memory. */
static int impose_boundary_velocities(fluid_mac *self, const double *V, double t_end)
{
    const mac_grid *g = &self->g;
    for (int a = 0; a < g->dim; a++) {
        int ni = g->nx + (a == 0), nj = g->ny + (a == 1), nk = g->nz + (a == 2);
        for (int k = 0; k < nk; k++)
            for (int j = 0; j < nj; j++)
                for (int i = 0; i < ni; i++) {
                    int m = a == 0 ? i : a == 1 ? j : k;
                    if (m != 0 && m != mac_n(g, a))
                        continue;   /* the domain's sides only */
                    if (mac_face(g, &self->geo, a, i, j, k, NULL) == FACE_FIXED)
                        self->vel[a][mac_fi(g, a, i, j, k)] = 0.0;
                }
    }
    impose_inflows(self, t_end);
    size_t nf = self->geo.n_faces, dim = (size_t)g->dim;
    free(self->U);
    self->U = NULL;
    if (!nf)
        return 1;
    double *U = self->U = malloc(dim * nf * sizeof *U);
    if (!U)
        return 0;
    seam_mapping_interpolate(self->geo.W, g->dim, V, U);
    for (size_t f = 0; f < nf; f++) {
        const solid_face *sf = &self->geo.faces[f];
        /* Deep inside a body no point is near: nothing flows there, keep it at rest. */
        double un = seam_mapping_covered(self->geo.W, f) ? U[dim * f + (size_t)sf->axis] : 0.0;
        self->vel[sf->axis][mac_fi(g, sf->axis, sf->i, sf->j, sf->k)] = un;
    }
    return 1;
}

/* The cell on one side (-1: the - side, +1: the + side) of face sf, and the
 * next one further away; each -1 when outside the grid or not fluid. */
static void side_cells(const fluid_mac *self, const solid_face *sf, int side, long *c1, long *c2)
{
    const mac_grid *g = &self->g;
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
static void compute_loads(fluid_mac *self, double dt, double *F)
{
    const mac_grid *g = &self->g;
    size_t nf = self->geo.n_faces, dim = (size_t)g->dim;
    memset(F, 0, dim * self->iface.n_points * sizeof *F);
    if (!nf)
        return;
    double *f = calloc(dim * nf, sizeof *f);
    double A = mac_face_area(g);
    double M_half = self->rho * A * g->dx / 2.0;   /* one half of a face's dual cell */
    int extrapolate = self->loads == LOADS_PRESSURE;
    if (self->viscous_loads)   /* the momentum the viscous links gave each face, also faces inside a body */
        for (size_t k = 0; k < dim * nf; k++)
            f[k] = self->rho * A * g->dx / dt * self->visc_dv[k];
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
        if (self->loads == LOADS_IMPULSE) {
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

/* Smoke density and temperature ride on the divergence-free velocities. */
static seam_status transport_scalars(fluid_mac *self, double dt)
{
    const mac_grid *g = &self->g;
    size_t nc = mac_ncell(g);
    memcpy(self->d, self->d_n, nc * sizeof(double));
    memcpy(self->T, self->T_n, nc * sizeof(double));
    const int max_sub = 64;
    const double *s = self->has_src ? self->src_s : NULL;
    int a = mac_transport_scalar(g, &self->geo, self->vel, dt, self->d_b, s, self->src_d, max_sub, self->d);
    int b = a < 0 ? a : mac_transport_scalar(g, &self->geo, self->vel, dt, self->T_b, s, self->src_T, max_sub, self->T);
    if (b == -2) {
        seam_logf(self->host, SEAM_LOG_ERROR, "out of memory transporting the smoke scalars");
        return SEAM_ERROR;
    }
    if (b < 0) {
        seam_logf(self->host, SEAM_LOG_WARN,
                  "step too long: scalar transport would need more than %d sub-steps", max_sub);
        return SEAM_UNSTABLE;
    }
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

/* Crowded cells push their particles apart (a displacement d with div d =
 * the excess over the starting count per cell, cf. Takahashi's position
 * correction): without it FLIP particles bunch up and the liquid loses volume. */
static seam_status spread_particles(fluid_mac *self)
{
    const mac_grid *g = &self->g;
    size_t nc = mac_ncell(g);
    double t0 = cpu_ms();
    mac_geometry geo;
    mac_geometry_liquid(&geo, g, &self->geo, self->phi);
    /* the level set's sums are done with: the count e, then the spreading solve's right-hand side and q */
    double *e = self->work.cell, *scratch = self->work.cell + nc;
    /* update_particles' level set has just sorted these particles into self->bins */
    if ((self->reference_kernels ? (mac_ref_particle_density(g, self->np, self->xp, e), SEAM_OK)
                                 : mac_particle_density(g, self->np, self->xp, &self->bins, 1, e)) != SEAM_OK) {
        mac_geometry_free(&geo);
        seam_logf(self->host, SEAM_LOG_ERROR, "out of memory counting %zu particles", self->np);
        return SEAM_ERROR;
    }
    double n0 = (double)particles_per_cell(self);
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
    seam_status st = mac_spread(&self->proj, g, &geo, e, scratch, 1e-4, self->max_iter, self->dvel, self->host);
    mac_geometry_free(&geo);
    phase_end(self, PH_SPREAD, &t0);
    if (st != SEAM_OK)
        return st;
    /* the shells hold still here */
    mac_shells shells = {self->n_shell, self->shell_seg, self->shell_X1, self->shell_X1, self->shell_elem};
    self->np = mac_advect_particles(g, self->np, self->xp, self->vp, self->dvel, 1.0, &shells,
                                    self->reference_kernels);
    phase_end(self, PH_ADVECT, &t0);
    int ok = level_set(self, self->np, self->xp, self->geo.solid, self->phi);
    phase_end(self, PH_LEVEL_SET, &t0);
    if (!ok)
        seam_logf(self->host, SEAM_LOG_ERROR, "out of memory sorting %zu particles", self->np);
    return ok ? SEAM_OK : SEAM_ERROR;
}

/* After the projection: extend the velocities into the air, blend FLIP and
 * PIC velocity updates onto the particles, move them and rebuild the level set. */
static seam_status update_particles(fluid_mac *self, double dt)
{
    const mac_grid *g = &self->g;
    size_t dim = (size_t)g->dim;
    double t0 = cpu_ms();
    if (mac_extrapolate(g, &self->geo, 3, self->vel) != 0) {
        seam_logf(self->host, SEAM_LOG_ERROR, "out of memory extending the velocities");
        return SEAM_ERROR;
    }
    /* The change on the grid over this step, extended like the velocities. */
    for (int a = 0; a < g->dim; a++) {
        double *dv = self->dvel[a], *v = self->vel[a];
#pragma omp parallel for schedule(static) if (mac_nf(g, a) >= MAC_OMP_MIN)
        for (size_t f = 0; f < mac_nf(g, a); f++)
            dv[f] = v[f] - dv[f];
    }
    if (mac_extrapolate(g, &self->geo, 3, self->dvel) != 0) {
        seam_logf(self->host, SEAM_LOG_ERROR, "out of memory extending the velocity change");
        return SEAM_ERROR;
    }
    phase_end(self, PH_EXTRAPOLATE, &t0);
    size_t n = self->np_n;
    memcpy(self->xp, self->xp_n, dim * n * sizeof(double));
    double *pic = self->pic, *delta = self->delta;
    if (self->reference_kernels) {
        mac_grid_to_particles(g, n, self->xp, self->vel, pic, 1);
        mac_grid_to_particles(g, n, self->xp, self->dvel, delta, 1);
    } else {
        mac_grid_to_particles2(g, n, self->xp, self->vel, pic, self->dvel, delta);
    }
    double flip = self->flip, *vp = self->vp, *vp_n = self->vp_n;
#pragma omp parallel for schedule(static) if (n >= MAC_OMP_MIN)
    for (size_t k = 0; k < dim * n; k++)
        vp[k] = flip * (vp_n[k] + delta[k]) + (1.0 - flip) * pic[k];
    phase_end(self, PH_TO_PARTICLES, &t0);
    mac_shells shells = {self->n_shell, self->shell_seg, self->shell_X0, self->shell_X1, self->shell_elem};
    /* pic holds vel at the particles: the move's first stage (the reference kernels sample it again) */
    self->np = mac_advect_particles_from(g, n, self->xp, self->vp, self->vel, self->reference_kernels ? NULL : pic, dt,
                                         &shells, self->reference_kernels);
    phase_end(self, PH_ADVECT, &t0);
    int ok = level_set(self, self->np, self->xp, self->geo.solid, self->phi);
    phase_end(self, PH_LEVEL_SET, &t0);
    if (!ok) {
        seam_logf(self->host, SEAM_LOG_ERROR, "out of memory sorting %zu particles", self->np);
        return SEAM_ERROR;
    }
    return spread_particles(self);
}

/* The committed particles' velocities to the faces (kept in dvel too, for
 * FLIP). 0 when out of memory (logged). */
static int particles_to_faces(fluid_mac *self)
{
    const mac_grid *g = &self->g;
    if (self->reference_kernels)
        mac_ref_particles_to_grid(g, self->np_n, self->xp_n, self->vp_n, &self->work, self->vel);
    else if (mac_particles_to_grid(g, self->np_n, self->xp_n, self->vp_n, &self->work, &self->bins, self->vel) !=
             SEAM_OK) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve: out of memory sorting %zu particles", self->np_n);
        return 0;
    }
    for (int a = 0; a < g->dim; a++)
        memcpy(self->dvel[a], self->vel[a], mac_nf(g, a) * sizeof(double));
    return 1;
}

static int all_finite(const double *a, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!isfinite(a[k]))
            return 0;
    return 1;
}

/* A diverging solid shows up here first: say which point, let the coupler retry. */
static seam_status finite_interface(const fluid_mac *self, const char *what, const double *X, const double *V)
{
    size_t dim = (size_t)self->g.dim;
    for (size_t k = 0; k < dim * self->iface.n_points; k++)
        if (!isfinite(X[k]) || (V && !isfinite(V[k]))) {
            seam_logf(self->host, SEAM_LOG_WARN, "%s: interface point %zu has a non-finite position%s", what, k / dim,
                      V ? " or velocity" : "");
            return SEAM_UNSTABLE;
        }
    return SEAM_OK;
}

static seam_status check_io(fluid_mac *self, const seam_input *in)
{
    if (!self->bound) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve before bind: the fluid needs the interface first");
        return SEAM_ERROR;
    }
    size_t n = self->iface.n_points;
    if (n && (!in || in->n != n || in->dim != self->g.dim || !in->X || !in->V)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve: expected X and V for %zu points of dimension %d, got %zu of %d",
                  n, self->g.dim, in ? in->n : 0, in ? in->dim : 0);
        return SEAM_ERROR;
    }
    return finite_interface(self, "solve", in->X, in->V);
}

/* u* of a step: the velocities transported (a liquid: its particles' to the
 * faces, FLIP/PIC; smoke: the configured advection of the committed ones)
 * and the body forces added; kept in vel_star too. */
static seam_status transport_velocities(fluid_mac *self, double dt, double *t0)
{
    const mac_grid *g = &self->g;
    if (self->moved_valid && (self->liquid || self->moved_dt == dt)) {   /* a later iteration of the same step */
        for (int a = 0; a < g->dim; a++) {
            memcpy(self->vel[a], self->vel_moved[a], mac_nf(g, a) * sizeof(double));
            if (self->liquid)   /* FLIP's grid velocities before the step, as particles_to_faces leaves them */
                memcpy(self->dvel[a], self->vel_moved[a], mac_nf(g, a) * sizeof(double));
        }
    } else {
        if (self->liquid) {   /* the particles carry the momentum */
            if (!particles_to_faces(self))
                return SEAM_ERROR;
        } else if (self->advection == ADVECT_MACCORMACK) {
            mac_advect_maccormack(g, self->vel_n, dt, self->vel, &self->work);
        } else if (self->advection == ADVECT_BFECC) {
            mac_advect_bfecc(g, self->vel_n, dt, self->vel, &self->work);
        } else {
            mac_advect(g, self->vel_n, dt, self->vel);
        }
        for (int a = 0; a < g->dim; a++)
            memcpy(self->vel_moved[a], self->vel[a], mac_nf(g, a) * sizeof(double));
        self->moved_dt = dt;
        self->moved_valid = 1;
    }
    phase_end(self, self->liquid ? PH_TO_GRID : PH_ADVECT, t0);
    add_forces(self, dt);
    for (int a = 0; a < g->dim; a++)
        memcpy(self->vel_star[a], self->vel[a], mac_nf(g, a) * sizeof(double));
    return SEAM_OK;
}

static seam_status fluid_solve(void *p, const seam_step *step, const seam_input *in, seam_output *out)
{
    fluid_mac *self = p;
    const mac_grid *g = &self->g;
    double dt = step->dt;
    self->solved = 0;
    self->t_trial = step->t + dt;
    seam_status io = check_io(self, in);
    if (io != SEAM_OK)
        return io;
    if (!(dt > 0.0) || !isfinite(dt)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve: step size %g is not a positive number", dt);
        return SEAM_ERROR;
    }
    size_t n = self->iface.n_points;
    memset(self->phase_ms, 0, sizeof self->phase_ms);
    double t0 = cpu_ms();
    mac_geometry_free(&self->geo);
    seam_status st = mac_geometry_build(&self->geo, g, &self->iface, n ? in->X : NULL, self->kernel_radius * g->dx,
                                        self->liquid ? self->phi_n : NULL, self->obstacle, self->host);
    phase_end(self, PH_GEOMETRY, &t0);
    if (st != SEAM_OK)
        return st;
    if (self->liquid && self->n_shell) {   /* the shells' positions over this step: X^n = X - dt V */
        self->shell_X1 = in->X;
        for (size_t k = 0; k < (size_t)g->dim * n; k++)
            self->shell_X0[k] = in->X[k] - dt * in->V[k];
    }
    if (transport_velocities(self, dt, &t0) != SEAM_OK)
        return SEAM_ERROR;
    if (!impose_boundary_velocities(self, n ? in->V : NULL, step->t + 0.5 * dt)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve: out of memory for %zu solid faces", self->geo.n_faces);
        return SEAM_ERROR;
    }
    int visc_iterations = 0;
    if (self->viscosity > 0.0) {
        /* Implicit, so the step is not limited by it (max_dt ignores it). The body forces' increment is
         * left out of the diffusion: a force the pressure balances leaves a fluid at rest exactly at rest. */
        double *dv = NULL;
        size_t need = (size_t)g->dim * self->geo.n_faces;
        if (self->viscous_loads && need > self->visc_dv_cap) {   /* kept between solves, grown when needed */
            double *grown = realloc(self->visc_dv, need * sizeof *grown);
            if (!grown) {
                seam_logf(self->host, SEAM_LOG_ERROR, "solve: out of memory for %zu solid faces", self->geo.n_faces);
                return SEAM_ERROR;
            }
            self->visc_dv = grown;
            self->visc_dv_cap = need;
        }
        if (self->viscous_loads && need)
            dv = self->visc_dv;
        st = mac_diffuse(g, &self->geo, self->U, self->fvel, self->viscosity * dt, self->tol, self->max_iter,
                         self->vel, dv, &visc_iterations, self->host);
        if (st != SEAM_OK)
            return st;
    }
    memcpy(self->p, self->p_n, mac_ncell(g) * sizeof(double));
    phase_end(self, PH_FORCES, &t0);
    self->has_src = volume_sources(self, &self->geo, step->t + 0.5 * dt, self->src_s, self->src_d, self->src_T);
    st = mac_project(&self->proj, g, &self->geo, self->has_src ? self->src_s : NULL, self->rho, dt, self->tol,
                     self->max_iter, self->vel, self->p, self->host);
    phase_end(self, PH_PRESSURE, &t0);
    if (st != SEAM_OK)
        return st;
    int pcg_iterations = self->proj.iterations;
    double pcg_residual = self->proj.residual, pcg_cpu = self->proj.pcg_cpu_ms, pcg_wall = self->proj.pcg_wall_ms;
    double pcg_bytes = self->proj.iteration_bytes;
    int finite = all_finite(self->p, mac_ncell(g));
    for (int a = 0; a < g->dim; a++)
        finite &= all_finite(self->vel[a], mac_nf(g, a));
    if (!finite) {
        seam_logf(self->host, SEAM_LOG_WARN, "step %lld: non-finite velocity or pressure",
                  (long long)step->index);
        return SEAM_UNSTABLE;
    }
    t0 = cpu_ms();
    st = self->liquid ? update_particles(self, dt) : transport_scalars(self, dt);
    if (st != SEAM_OK)
        return st == SEAM_ERROR ? SEAM_ERROR : SEAM_UNSTABLE;   /* out of memory, or a solver that failed */
    if (!self->liquid)
        phase_end(self, PH_TRANSPORT, &t0);
    t0 = cpu_ms();
    if (n && out && out->F)
        compute_loads(self, dt, out->F);
    phase_end(self, PH_LOADS, &t0);
    seam_logf(self->host, SEAM_LOG_DEBUG,
              "step %lld iteration %d: pressure PCG %d iterations, residual %.3g, %.3f ms cpu, %.3f ms wall, "
              "%.0f bytes/iteration bound", (long long)step->index, step->iteration, pcg_iterations, pcg_residual,
              pcg_cpu, pcg_wall, pcg_bytes);
    if (self->viscosity > 0.0)
        seam_logf(self->host, SEAM_LOG_DEBUG, "step %lld iteration %d: viscosity PCG %d iterations",
                  (long long)step->index, step->iteration, visc_iterations);
    if (self->liquid)
        seam_logf(self->host, SEAM_LOG_DEBUG, "step %lld iteration %d: particle spreading %d iterations",
                  (long long)step->index, step->iteration, self->proj.iterations);
    char line[512];
    int used = snprintf(line, sizeof line, "step %lld iteration %d: phases (ms)", (long long)step->index,
                        step->iteration);
    for (int ph = 0; ph < PHASES && used > 0 && (size_t)used < sizeof line; ph++)
        used += snprintf(line + used, sizeof line - (size_t)used, " %s %.3f", phase_names[ph], self->phase_ms[ph]);
    seam_logf(self->host, SEAM_LOG_DEBUG, "%s", line);
    self->solved = 1;
    return SEAM_OK;
}

seam_status fluid_mac_begin(fluid_mac *self, const double *X, const double *V, double t, double dt)
{
    const mac_grid *g = &self->g;
    self->solved = 0;
    self->t_trial = t + dt;
    if (!self->bound) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve before bind: the fluid needs the interface first");
        return SEAM_ERROR;
    }
    size_t n = self->iface.n_points;
    memset(self->phase_ms, 0, sizeof self->phase_ms);
    mac_geometry_free(&self->geo);
    seam_status st = mac_geometry_build(&self->geo, g, &self->iface, n ? X : NULL, self->kernel_radius * g->dx,
                                        self->phi_n, self->obstacle, self->host);
    if (st != SEAM_OK)
        return st;
    if (self->n_shell) {   /* the shells stand still over the step's particle moves */
        self->shell_X1 = X;
        memcpy(self->shell_X0, X, (size_t)g->dim * n * sizeof(double));
    }
    double t0 = cpu_ms();
    if (transport_velocities(self, dt, &t0) != SEAM_OK)
        return SEAM_ERROR;
    self->has_src = 0;
    if (self->viscosity > 0.0) {
        /* As a solve: the boundary velocities (the solids' faces at W V), then implicit diffusion. */
        if (n && !V) {
            seam_logf(self->host, SEAM_LOG_ERROR, "begin: viscosity needs the velocities of the %zu interface points", n);
            return SEAM_ERROR;
        }
        if (!impose_boundary_velocities(self, n ? V : NULL, t + 0.5 * dt)) {
            seam_logf(self->host, SEAM_LOG_ERROR, "solve: out of memory for %zu solid faces", self->geo.n_faces);
            return SEAM_ERROR;
        }
        int iterations = 0;
        st = mac_diffuse(g, &self->geo, self->U, self->fvel, self->viscosity * dt, self->tol, self->max_iter,
                         self->vel, NULL, &iterations, self->host);
        seam_logf(self->host, SEAM_LOG_DEBUG, "viscosity PCG %d iterations", iterations);
        return st;
    }
    /* The domain's walls at rest, the sources' faces at their mid-step inflow (as a solve has them). */
    for (int a = 0; a < g->dim; a++)
        for (int k = 0; k < g->nz + (a == 2); k++)
            for (int j = 0; j < g->ny + (a == 1); j++)
                for (int i = 0; i < g->nx + (a == 0); i++) {
                    int m = a == 0 ? i : a == 1 ? j : k;
                    if ((m == 0 || m == mac_n(g, a)) && g->bc[2 * a + (m != 0)] == BC_WALL)
                        self->vel[a][mac_fi(g, a, i, j, k)] = 0.0;
                }
    impose_inflows(self, t + 0.5 * dt);
    return SEAM_OK;
}

int fluid_mac_volume_sources(fluid_mac *self, int (*is_fluid)(const void *ctx, size_t c), const void *ctx, double t)
{
    self->has_src = sources_over(self, is_fluid, ctx, t, self->src_s, self->src_d, self->src_T);
    return self->has_src;
}

seam_status fluid_mac_end(fluid_mac *self, double dt)
{
    const mac_grid *g = &self->g;
    int finite = all_finite(self->p, mac_ncell(g));
    for (int a = 0; a < g->dim; a++)
        finite &= all_finite(self->vel[a], mac_nf(g, a));
    if (!finite) {
        seam_logf(self->host, SEAM_LOG_WARN, "non-finite velocity or pressure after the coupled projection");
        return SEAM_UNSTABLE;
    }
    seam_status st = self->liquid ? update_particles(self, dt) : transport_scalars(self, dt);
    if (st != SEAM_OK)
        return st == SEAM_ERROR ? SEAM_ERROR : SEAM_UNSTABLE;   /* out of memory, or a solver that failed */
    self->solved = 1;
    return SEAM_OK;
}

static seam_status fluid_commit(void *p)
{
    fluid_mac *self = p;
    if (!self->solved) {
        seam_logf(self->host, SEAM_LOG_ERROR, "commit without a successful solve");
        return SEAM_ERROR;
    }
    const mac_grid *g = &self->g;
    self->t_n = self->t_trial;
    self->moved_valid = 0;   /* the committed state changes */
    for (int a = 0; a < g->dim; a++)
        memcpy(self->vel_n[a], self->vel[a], mac_nf(g, a) * sizeof(double));
    memcpy(self->p_n, self->p, mac_ncell(g) * sizeof(double));
    memcpy(self->d_n, self->d, mac_ncell(g) * sizeof(double));
    memcpy(self->T_n, self->T, mac_ncell(g) * sizeof(double));
    memcpy(self->solid_n, self->geo.solid, mac_ncell(g));
    if (self->liquid) {
        memcpy(self->xp_n, self->xp, (size_t)g->dim * self->np * sizeof(double));
        memcpy(self->vp_n, self->vp, (size_t)g->dim * self->np * sizeof(double));
        self->np_n = self->np;
        memcpy(self->phi_n, self->phi, mac_ncell(g) * sizeof(double));
    }
    self->solved = 0;
    return SEAM_OK;
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
    const mac_grid *g = &rf->self->g;
    int r = rf->geo->region[cell];
    if (r >= 0 && rf->slot[r] >= 0)   /* times the face area (dx per unit depth in 2D) */
        rf->self->q[rf->slot[r]] += u_in * mac_face_area(g);
}

static seam_status fluid_regions(void *p, const seam_step *step, const double *X, seam_regions *out)
{
    fluid_mac *self = p;
    const mac_grid *g = &self->g;
    if (!self->bound) {
        seam_logf(self->host, SEAM_LOG_ERROR, "regions before bind");
        return SEAM_ERROR;
    }
    size_t np = self->iface.n_points, dim = (size_t)g->dim, row = dim * np;
    if (np && finite_interface(self, "regions", X, NULL) != SEAM_OK)
        return SEAM_UNSTABLE;
    mac_geometry geo;
    seam_status st = mac_geometry_build(&geo, g, &self->iface, X, self->kernel_radius * g->dx,
                                        self->liquid ? self->phi_n : NULL, self->obstacle, self->host);
    if (st != SEAM_OK) {
        mac_geometry_free(&geo);
        return st;
    }
    int *slot = malloc(((size_t)geo.n_regions + 1) * sizeof *slot);
    size_t m = 0;
    for (int r = 0; r < geo.n_regions; r++)
        slot[r] = geo.region_open[r] ? -1 : (int)m++;
    free(self->C);
    free(self->q);
    free(self->M);
    self->C = calloc(m * row + 1, sizeof *self->C);
    self->q = calloc(m + 1, sizeof *self->q);
    self->M = calloc(m * row + 1, sizeof *self->M);
    region_flux ctx = {self, &geo, slot};
    for_each_inflow_face(self, step->t + 0.5 * step->dt, add_region_flux, &ctx);
    size_t nc = mac_ncell(g);
    double *s = malloc(3 * nc * sizeof *s);
    if (volume_sources(self, &geo, step->t + 0.5 * step->dt, s, s + nc, s + 2 * nc))
        for (size_t c = 0; c < nc; c++)
            if (geo.region[c] >= 0 && slot[geo.region[c]] >= 0)
                self->q[slot[geo.region[c]]] += s[c] * mac_cell_volume(g);
    free(s);
    double *a = calloc(dim * geo.n_faces + 1, sizeof *a), *mf = calloc(dim * geo.n_faces + 1, sizeof *mf);
    double area = mac_face_area(g);
    double M_half = self->rho * area * g->dx / 2.0;   /* the fluid half of a face's dual cell, as in compute_loads */
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

/* ---- state, fields, output ------------------------------------------------- */

/* The first word of a saved state names its format: "FMAC" was version 1
 * (header nx ny, then nx ny nz under the same word), "FMA2" is version 2
 * (header nx ny nz). A new layout takes a new word. */
#define SAVE_MAGIC_V1 0x43414d46u   /* "FMAC" */
#define SAVE_MAGIC 0x32414d46u      /* "FMA2" */
#define SAVE_VERSION 2

/* Bytes of a saved state with np particles. */
static size_t state_size(const fluid_mac *self, size_t np)
{
    const mac_grid *g = &self->g;
    size_t nf = 0, nc = mac_ncell(g);
    for (int a = 0; a < g->dim; a++)
        nf += mac_nf(g, a);
    return 4 * sizeof(uint32_t) + (nf + 3 * nc) * sizeof(double) + nc + sizeof(uint64_t) +
           (self->liquid ? nc + 2 * (size_t)g->dim * np : 0) * sizeof(double);
}

/* Copy n bytes between the state and a buffer, in the direction `save` says, and advance the buffer. */
static void move_bytes(int save, unsigned char **buf, void *state, size_t n)
{
    if (save)
        memcpy(*buf, state, n);
    else
        memcpy(state, *buf, n);
    *buf += n;
}

/* The committed state in one fixed order, for save and load. */
static void move_state(fluid_mac *self, int save, unsigned char *buf, uint64_t np)
{
    const mac_grid *g = &self->g;
    size_t nc = mac_ncell(g), dim = (size_t)g->dim;
    for (int a = 0; a < g->dim; a++)
        move_bytes(save, &buf, self->vel_n[a], mac_nf(g, a) * sizeof(double));
    move_bytes(save, &buf, self->p_n, nc * sizeof(double));
    move_bytes(save, &buf, self->d_n, nc * sizeof(double));
    move_bytes(save, &buf, self->T_n, nc * sizeof(double));
    move_bytes(save, &buf, self->solid_n, nc);
    move_bytes(save, &buf, &np, sizeof np);
    if (self->liquid) {
        move_bytes(save, &buf, self->phi_n, nc * sizeof(double));
        move_bytes(save, &buf, self->xp_n, dim * np * sizeof(double));
        move_bytes(save, &buf, self->vp_n, dim * np * sizeof(double));
    }
}

static seam_status fluid_save(void *p, seam_buffer *out)
{
    fluid_mac *self = p;
    const mac_grid *g = &self->g;
    uint64_t np = self->liquid ? self->np_n : 0;
    size_t size = state_size(self, np);
    free(self->saved);
    self->saved = malloc(size);
    uint32_t head[4] = {SAVE_MAGIC, (uint32_t)g->nx, (uint32_t)g->ny, (uint32_t)g->nz};
    memcpy(self->saved, head, sizeof head);
    move_state(self, 1, self->saved + sizeof head, np);
    out->data = self->saved;
    out->size = size;
    return SEAM_OK;
}

static seam_status fluid_load(void *p, const void *bytes, size_t n)
{
    fluid_mac *self = p;
    self->moved_valid = 0;   /* the committed state may change (particles in solids, a loaded state) */
    const mac_grid *g = &self->g;
    uint32_t head[4] = {0, 0, 0, 0};
    uint64_t np = 0;
    if (n >= sizeof head[0])
        memcpy(head, bytes, sizeof head[0]);
    if (head[0] == SAVE_MAGIC_V1) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: a fluid_mac state in save format version 1 (before 3D grids); "
                  "this build reads version %d only", SAVE_VERSION);
        return SEAM_ERROR;
    }
    size_t fixed = state_size(self, 0) - (self->liquid ? mac_ncell(g) * sizeof(double) : 0) - sizeof np;
    if (n >= fixed + sizeof np) {
        memcpy(head, bytes, sizeof head);
        memcpy(&np, (const unsigned char *)bytes + fixed, sizeof np);
    }
    size_t cap = self->liquid ? mac_ncell(g) * particles_per_cell(self) : 0;
    size_t size = np <= cap ? state_size(self, np) : 0;
    if (np > cap || n != size || head[0] != SAVE_MAGIC || head[1] != (uint32_t)g->nx ||
        head[2] != (uint32_t)g->ny || head[3] != (uint32_t)g->nz) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: not a fluid_mac state of a %dx%dx%d grid (%zu bytes, expected %zu)",
                  g->nx, g->ny, g->nz, n, state_size(self, np <= cap ? np : 0));
        return SEAM_ERROR;
    }
    if (self->liquid && !reserve_particles(self, (size_t)np)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: out of memory for %zu particles", (size_t)np);
        return SEAM_ERROR;
    }
    /* The buffer is only read: move_state copies out of it when save is 0. */
    unsigned char *r = (unsigned char *)(uintptr_t)bytes + sizeof head;
    move_state(self, 0, r, np);
    self->np_n = self->liquid ? np : 0;
    self->solved = 0;
    return SEAM_OK;
}

/* Cell-centred velocity (dim per cell) of the committed faces. */
static void cell_velocity(const fluid_mac *self, int k, int j, int i, double *out)
{
    const mac_grid *g = &self->g;
    for (int a = 0; a < g->dim; a++)
        out[a] = 0.5 * (self->vel_n[a][mac_fi(g, a, i, j, k)] +
                        self->vel_n[a][mac_fi(g, a, i + (a == 0), j + (a == 1), k + (a == 2))]);
}

/* Cell-centred speed of the committed velocities. */
static void speed_field(const fluid_mac *self, double *out)
{
    const mac_grid *g = &self->g;
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
    const mac_grid *g = &self->g;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = mac_c(g, i, j, k);
                out[c] = self->solid_n[c] ? 0.0 : mac_divergence(g, self->vel_n, i, j, k);
            }
}

static seam_status fluid_field(void *p, const char *name, seam_raster *out)
{
    fluid_mac *self = p;
    const mac_grid *g = &self->g;
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
    } else if (strcmp(name, "level_set") == 0 && self->liquid) {
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

static seam_status fluid_write_output(void *p, const char *dir, int frame)
{
    fluid_mac *self = p;
    const mac_grid *g = &self->g;
    size_t nc = mac_ncell(g), dim = (size_t)g->dim;
    double *speed = malloc(nc * sizeof *speed), *vel = malloc(dim * nc * sizeof *vel);
    double *div = malloc(nc * sizeof *div), *solid = malloc(nc * sizeof *solid);
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
    if (self->liquid)   /* the level set replaces the (unused) smoke temperature */
        fields[nfield - 1] = (seam_vtk_field){"level_set", 1, 1, self->phi_n};
    char stem[64];
    snprintf(stem, sizeof stem, "fluid_mac_" SEAM_FRAME_FORMAT, frame);
    seam_status st = seam_vtk_frame_image(&self->vtk, self->host, dir, stem, g->nx, g->ny, g->nz, g->origin, g->dx,
                                          fields, nfield);
    if (st == SEAM_OK && self->liquid) {
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

/* The load mode as configured ("loads"); regions and save work for every grid. */
static uint32_t fluid_capabilities(void *p)
{
    const fluid_mac *self = p;
    return (self->loads == LOADS_PRESSURE ? SEAM_CAP_LOADS_PRESSURE : SEAM_CAP_LOADS_IMPULSE) | SEAM_CAP_REGIONS |
           SEAM_CAP_SAVE;
}

/* The grid's box: interface points beyond it are out of the fluid's reach. */
static seam_status fluid_domain(void *p, double lo[3], double hi[3])
{
    const fluid_mac *self = p;
    const mac_grid *g = &self->g;
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
