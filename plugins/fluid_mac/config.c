/* fluid_mac's configuration: the plugin's keys into fluid_mac_config.
 * Parsing and checking only: each key's default is an argument of the one
 * seam_cfg call that reads it, here, and each number's range is declared in
 * ranges.c, which that call reads; errors name the key's place in the scene
 * (file:line: key) through seam_cfg. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ranges.h"
#include "seam/alloc.h"
#include "seam/config.h"

/* Domain sides by name, in SIDE_* order; 2D grids have the first four. */
static const char *const side_names[] = {"left", "right", "bottom", "top", NULL};
static const char *const side_names_3d[] = {"left", "right", "bottom", "top", "back", "front", NULL};

/* A circle (2D) or sphere (3D) pushing fluid out through its rim at `speed`:
 * a volume source of the rim's flux, speed x 2 pi R (per unit depth) or
 * speed x 4 pi R^2, spread over the cells whose centre lies inside. */
static void read_circle_source(const mac_grid *g, seam_cfg *c, inflow *src)
{
    src->interior = 1;
    src->circle = 1;
    seam_cfg_key_vec(c, FM_SOURCE_KEYS, "center", src->center, (size_t)g->dim, SEAM_CFG_REQUIRED);
    src->radius = seam_cfg_key(c, FM_SOURCE_KEYS, "radius", 0.0, SEAM_CFG_REQUIRED);
    src->speed = seam_cfg_key(c, FM_SOURCE_KEYS, "speed", 0.0, SEAM_CFG_REQUIRED);
    double R = src->radius;
    src->rate = src->speed * (g->dim == 3 ? 4.0 * M_PI * R * R : 2.0 * M_PI * R);
    if (R > 0.0 && inflow_cells(g, src) == 0)
        seam_cfg_error(c, "radius", "the circle of radius %g m around [%g, %g%s] holds no cell centre", R,
                       src->center[0], src->center[1], g->dim == 3 ? ", ..." : "");
}

static void read_interior_source(const mac_grid *g, seam_cfg *c, inflow *src)
{
    src->interior = 1;
    size_t nb = 2 * (size_t)g->dim;
    if (seam_cfg_key_vec(c, FM_SOURCE_KEYS, "box", src->box, nb, SEAM_CFG_REQUIRED)) {
        int cells = inflow_cells(g, src);
        if (cells == 0 && g->dim == 3)
            seam_cfg_error(c, "box", "[%g, %g, %g, %g, %g, %g] (x0 y0 z0 x1 y1 z1) holds no cell centre",
                           src->box[0], src->box[1], src->box[2], src->box[3], src->box[4], src->box[5]);
        else if (cells == 0)
            seam_cfg_error(c, "box", "[%g, %g, %g, %g] holds no cell centre", src->box[0], src->box[1],
                           src->box[2], src->box[3]);
    }
    src->rate = seam_cfg_key(c, FM_SOURCE_KEYS, "rate", 0.0, SEAM_CFG_REQUIRED);
}

/* A side inflow: its range is [from, to] along the side in 2D and
 * [u0, u1, v0, v1] over the side's two tangential axes (x, y, z order) in 3D. */
static void read_side_source(const mac_grid *g, seam_cfg *c, inflow *src)
{
    static const char *const profiles[] = {"uniform", "parabolic", NULL};
    static const char *const shapes[] = {"rectangle", "disc", NULL};
    src->side = seam_cfg_enum(c, "side", g->dim == 3 ? side_names_3d : side_names, SIDE_LEFT, SEAM_CFG_REQUIRED);
    int t[2];
    int nt = inflow_side_tangents(g, src->side, t);
    for (int q = 0; q < nt; q++) {   /* default: the whole side */
        src->range[2 * q] = g->origin[t[q]];
        src->range[2 * q + 1] = g->origin[t[q]] + mac_n(g, t[q]) * g->dx;
    }
    seam_cfg_key_vec(c, FM_SOURCE_KEYS, "range", src->range, 2 * (size_t)nt, 0);
    src->speed = seam_cfg_key(c, FM_SOURCE_KEYS, "speed", 0.0, SEAM_CFG_REQUIRED);
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
    if (nt == 1 && (!ordered || inflow_faces(g, src) == 0))
        seam_cfg_error(c, "range", "[%g, %g] holds no face centre of the %s side (faces every %g m from %g to %g)",
                       src->range[0], src->range[1], name, g->dx, g->origin[t[0]],
                       g->origin[t[0]] + mac_n(g, t[0]) * g->dx);
    else if (nt == 2 && (!ordered || inflow_faces(g, src) == 0))
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
    src->ramp_time = seam_cfg_key(c, FM_SOURCE_KEYS, "ramp_time", 0.0, 0);
    src->ramp = seam_cfg_enum(c, "ramp", ramps, RAMP_SMOOTH, 0);
    src->density = seam_cfg_key(c, FM_SOURCE_KEYS, "density", 1.0, 0);
    src->temperature = seam_cfg_key(c, FM_SOURCE_KEYS, "temperature", 0.0, 0);
}

/* Free-surface liquid: where it starts and how its particles behave. Smoke
 * keys do not apply to it. */
static void read_liquid(fluid_mac_config *conf, seam_cfg *cfg, seam_cfg *liq)
{
    conf->liquid = 1;
    size_t n = 0, dim = (size_t)conf->g.dim, box = 2 * dim;
    conf->fill = seam_cfg_key_numbers(liq, FM_KEYS, "liquid.fill", &n, SEAM_CFG_REQUIRED);
    if (conf->fill && (n == 0 || n % box != 0))
        seam_cfg_error(liq, "fill", "expected boxes as %s (a multiple of %zu numbers), got %zu numbers",
                       dim == 3 ? "x0 y0 z0 x1 y1 z1" : "x0 y0 x1 y1", box, n);
    conf->n_fill = n / box;
    for (size_t b = 0; b < conf->n_fill; b++)
        for (size_t d = 0; d < dim; d++)
            if (!(conf->fill[box * b + d] < conf->fill[box * b + dim + d])) {
                seam_cfg_error(liq, "fill", "box %zu is empty: need %c0 < %c1", b, "xyz"[d], "xyz"[d]);
                break;
            }
    conf->per_axis = (int)seam_cfg_key_int(liq, FM_KEYS, "liquid.particles_per_axis", 2, 0);
    conf->flip = seam_cfg_key(liq, FM_KEYS, "liquid.flip", 0.95, 0);
    static const char *const kernel_names[] = {"binned", "reference", NULL};
    conf->reference_kernels = seam_cfg_enum(liq, "particle_kernels", kernel_names, 0, 0);
    /* The radius that puts a flat surface seeded 2 particles per axis at its fill height (the
     * mean of |x - xbar| at the centres just above and below it): 0.5625 cells in 2D, 0.5417 in 3D. */
    double r_flat = conf->g.dim == 3 ? 0.5417 : 0.5625;
    conf->particle_radius = conf->g.dx * seam_cfg_key(liq, FM_KEYS, "liquid.particle_radius", r_flat, 0);
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
static int read_grid(fluid_mac_config *conf, seam_cfg *cfg, const seam_host *host)
{
    int ok = 1;
    size_t n = 0;
    double *cells = seam_cfg_numbers(cfg, "cells", &n, SEAM_CFG_REQUIRED);
    conf->g.dim = 2;
    conf->g.nx = conf->g.ny = conf->g.nz = 1;
    if (cells && n != 2 && n != 3)
        seam_cfg_error(cfg, "cells", "expected [nx, ny] (2D) or [nx, ny, nz] (3D), got %zu numbers", n);
    else if (cells) {
        conf->g.dim = (int)n;
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
            conf->g.nx = (int)cells[0];
            conf->g.ny = (int)cells[1];
            conf->g.nz = n == 3 ? (int)cells[2] : 1;
        }
    } else
        ok = 0;
    free(cells);
    size_t dim = (size_t)conf->g.dim;
    /* The scene's cell_size, when it names one, is the grid's dx unless dx is given. */
    double cell = host && host->cell_size > 0 ? host->cell_size : 0.0;
    conf->g.dx = seam_cfg_key(cfg, FM_KEYS, "dx", cell, cell > 0 ? 0 : SEAM_CFG_REQUIRED);
    conf->g.origin[0] = conf->g.origin[1] = conf->g.origin[2] = 0.0;
    seam_cfg_key_vec(cfg, FM_KEYS, "origin", conf->g.origin, dim, 0);
    /* The box and a cell's volume must be finite numbers: the projection divides by dx^2 and dx^3. */
    bool dx_given = seam_cfg_has(cfg, "dx");
    int counts[3] = {conf->g.nx, conf->g.ny, conf->g.nz};
    for (size_t d = 0; d < dim && ok && conf->g.dx > 0; d++) {
        double lo = conf->g.origin[d], hi = lo + counts[d] * conf->g.dx, vol = conf->g.dx * conf->g.dx * conf->g.dx;
        /* a cell lost in round-off at the box's coordinates (1e-12 of them) is no cell either */
        if (!isfinite(hi) || !(vol > 0) || !isfinite(vol) || !(1e12 * conf->g.dx > fabs(lo) + fabs(hi))) {
            seam_cfg_error(cfg, dx_given ? "dx" : NULL, "dx %g m%s over %d cells from %g m makes a box reaching %g m "
                           "along %c with cells of %g m^3: not a grid a double can hold", conf->g.dx,
                           dx_given ? "" : " (the scene's cell_size)", counts[d], lo, hi, "xyz"[d], vol);
            ok = 0;
        }
    }
    /* The scene's gravity; without one, -9.81 along y. Its own key wins, loudly. */
    static const double g_default[3] = {0.0, -9.81, 0.0};
    seam_cfg_gravity(cfg, host, conf->g.dim, g_default, conf->gravity);
    static const char *const bc_names[] = {"wall", "open", NULL};
    seam_cfg *b = seam_cfg_child(cfg, "boundary", 0);
    for (int s = 0; s < 6; s++)
        conf->g.bc[s] = b && s < 2 * conf->g.dim ? (mac_bc)seam_cfg_enum(b, side_names_3d[s], bc_names, BC_WALL, 0)
                                                 : BC_WALL;
    return ok ? 0 : -1;
}

/* Static obstacles: boxes [[x0, y0(, z0)], [x1, y1(, z1)]] whose cells are
 * walls; the mask is kept only when there is one. */
static void read_obstacles(fluid_mac_config *conf, seam_cfg *cfg)
{
    const mac_grid *g = &conf->g;
    size_t n = seam_cfg_count(cfg, "obstacles", 0);
    if (n == 0)
        return;
    conf->obstacle = seam_xcalloc(mac_ncell(g), 1);
    for (size_t b = 0; b < n; b++) {
        seam_cfg *item = seam_cfg_item(cfg, "obstacles", b);
        size_t np = 0;
        double *box = seam_cfg_key_points(item, FM_KEYS, "obstacles[].box", g->dim, &np, SEAM_CFG_REQUIRED);
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
                        conf->obstacle[mac_c(g, i, j, k)] = 1;
                    cells += in;
                }
        if (box && np == 2 && cells == 0)
            seam_cfg_error(item, "box", "holds no cell centre (the corners must be ordered low, high)");
        free(box);
    }
}

/* The keys in the order they are read; a key refused is logged where it
 * stands in the scene and reading goes on, so one run names every bad key. */
static int read_keys(fluid_mac_config *conf, seam_cfg *cfg, const seam_host *host)
{
    if (read_grid(conf, cfg, host) != 0)   /* what lies on the grid cannot be checked without one */
        return -1;
    conf->rho = seam_cfg_key(cfg, FM_KEYS, "density", 1000.0, 0);
    conf->cfl = seam_cfg_key(cfg, FM_KEYS, "cfl", 1.0, 0);
    conf->tol = seam_cfg_key(cfg, FM_KEYS, "pressure_tolerance", 1e-8, 0);
    conf->max_iter = (int)seam_cfg_key_int(cfg, FM_KEYS, "pressure_max_iterations", 1000, 0);
    static const char *const precond_names[] = {"multigrid", "mic0", NULL};
    conf->precond = (mac_precond)seam_cfg_enum(cfg, "pressure_preconditioner", precond_names, MAC_PRECOND_MG, 0);
    conf->kernel_radius = seam_cfg_key(cfg, FM_KEYS, "kernel_radius", 2.0, 0);
    conf->viscosity = seam_cfg_key(cfg, FM_KEYS, "viscosity", 0.0, 0);
    read_obstacles(conf, cfg);
    static const char *const load_names[] = {"pressure", "impulse", NULL};
    conf->loads = (load_mode)seam_cfg_enum(cfg, "loads", load_names, LOADS_IMPULSE, 0);
    conf->viscous_loads = seam_cfg_bool(cfg, "viscous_loads", false, 0);
    if (conf->viscous_loads && !(conf->viscosity > 0.0))
        seam_cfg_error(cfg, "viscous_loads", "needs a viscosity > 0 (an inviscid fluid has no viscous stress)");
    static const char *const advection_names[] = {"semi_lagrangian", "maccormack", "bfecc", NULL};
    conf->advection = seam_cfg_enum(cfg, "advection", advection_names, ADVECT_SL, 0);
    seam_cfg *by = seam_cfg_child(cfg, "buoyancy", 0);
    conf->alpha = by ? seam_cfg_key(by, FM_KEYS, "buoyancy.density", 0.0, 0) : 0.0;
    conf->beta = by ? seam_cfg_key(by, FM_KEYS, "buoyancy.temperature", 0.0, 0) : 0.0;
    seam_cfg *liq = seam_cfg_child(cfg, "liquid", 0);
    if (liq)
        read_liquid(conf, cfg, liq);
    seam_cfg *ini = seam_cfg_child(cfg, "initial", 0);
    conf->d_init = ini ? seam_cfg_key(ini, FM_KEYS, "initial.density", 0.0, 0) : 0.0;
    conf->T_init = ini ? seam_cfg_key(ini, FM_KEYS, "initial.temperature", 0.0, 0) : 0.0;
    conf->n_sources = seam_cfg_count(cfg, "sources", 0);
    conf->sources = SEAM_NEW_N(inflow, conf->n_sources + 1);
    for (size_t k = 0; k < conf->n_sources; k++)
        read_source(&conf->g, seam_cfg_item(cfg, "sources", k), &conf->sources[k]);
    return seam_cfg_finish(cfg) == SEAM_OK ? 0 : -1;
}

seam_status fluid_mac_config_read(fluid_mac_config *conf, const char *config_json, const seam_host *host)
{
    *conf = (fluid_mac_config){0};
    seam_cfg *cfg = seam_cfg_from_host(config_json, host);
    if (!cfg)
        return SEAM_ERROR;
    int rc = read_keys(conf, cfg, host);
    seam_cfg_destroy(&cfg);
    if (rc != 0) {
        fluid_mac_config_free(conf);
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

void fluid_mac_config_free(fluid_mac_config *conf)
{
    free(conf->sources);
    free(conf->fill);
    free(conf->obstacle);
    *conf = (fluid_mac_config){0};
}
