/* fluid_mac internals: a 2D staggered (MAC) grid, its solid geometry, and the
 * steps of one fluid solve. Private to plugins/fluid_mac. */
#ifndef FLUID_MAC_MAC_H
#define FLUID_MAC_MAC_H

#include <stddef.h>
#include <stdint.h>

#include "seam/krylov.h"
#include "seam/mapping.h"
#include "seam/plugin.h"

/* Domain sides, in this order in mac_grid.bc. */
enum { SIDE_LEFT = 0, SIDE_RIGHT = 1, SIDE_BOTTOM = 2, SIDE_TOP = 3 };
typedef enum mac_bc { BC_WALL = 0, BC_OPEN = 1 } mac_bc;

/* How a face takes part in the projection. */
typedef enum face_kind {
    FACE_ACTIVE = 0,     /* fluid on both sides: velocity from the pressure gradient */
    FACE_DIRICHLET = 1,  /* fluid on one side, p = 0 at theta dx from its centre (open side, free surface) */
    FACE_FIXED = 2,      /* wall or solid: velocity prescribed */
    FACE_AIR = 3         /* no fluid on either side: velocity extrapolated */
} face_kind;

typedef struct mac_grid {
    int nx, ny;
    double dx;
    double origin[2];
    mac_bc bc[4];
} mac_grid;

/* Face and cell numbering: u(i,j), i in 0..nx, j in 0..ny-1 at (i, j+1/2) dx;
 * v(i,j), i in 0..nx-1, j in 0..ny at (i+1/2, j) dx; cell (i,j) centred at
 * (i+1/2, j+1/2) dx. */
static inline size_t mac_u(const mac_grid *g, int i, int j) { return (size_t)i + (size_t)(g->nx + 1) * (size_t)j; }
static inline size_t mac_v(const mac_grid *g, int i, int j) { return (size_t)i + (size_t)g->nx * (size_t)j; }
static inline size_t mac_c(const mac_grid *g, int i, int j) { return (size_t)i + (size_t)g->nx * (size_t)j; }
static inline size_t mac_nu(const mac_grid *g) { return (size_t)(g->nx + 1) * (size_t)g->ny; }
static inline size_t mac_nv(const mac_grid *g) { return (size_t)g->nx * (size_t)(g->ny + 1); }
static inline size_t mac_ncell(const mac_grid *g) { return (size_t)g->nx * (size_t)g->ny; }

enum { SHELL = 2 };

/* A grid face touching at least one solid cell or crossed by a thin shell,
 * where W maps the interface. */
typedef struct solid_face {
    int axis;        /* 0: u face, 1: v face */
    int i, j;
    int s;           /* +1: solid on the + side, -1: solid on the - side, 0: solid on both,
                        SHELL: crossed by a thin shell, fluid on both sides */
} solid_face;

/* The solid geometry of one set of interface positions. */
typedef struct mac_geometry {
    uint8_t *solid;          /* per cell: 1 inside a volumetric body */
    uint8_t *air;            /* per cell: 1 outside the liquid (free-surface mode), NULL otherwise */
    const double *phi;       /* liquid level set at cell centres (borrowed), NULL otherwise */
    uint8_t *shell_u, *shell_v;   /* per face: 1 where a thin shell crosses it */
    solid_face *faces;       /* faces with a solid cell on at least one side */
    size_t n_faces;
    seam_mapping *W;         /* interface points -> those faces */
    int32_t *region;         /* per cell: connected fluid region, -1 for solid */
    int n_regions;
    uint8_t *region_open;    /* per region: touches an open side */
} mac_geometry;

/* Mark solid cells (and air cells where phi >= 0 when phi is given), collect
 * solid faces, build W with kernel radius r and label fluid regions. Returns
 * SEAM_ERROR (logged) when a fluid-solid face has no interface point within r. */
seam_status mac_geometry_build(mac_geometry *geo, const mac_grid *g, const seam_interface *iface,
                               const double *X, double r, const double *phi, const seam_host *host);
void mac_geometry_free(mac_geometry *geo);
/* Cells and regions only (no solid faces, no W): the solid cells and shells
 * of `from`, air where phi >= 0. */
seam_status mac_geometry_liquid(mac_geometry *geo, const mac_grid *g, const mac_geometry *from, const double *phi);

/* Whether cell c holds fluid (neither solid nor air). */
static inline int mac_fluid(const mac_geometry *geo, size_t c)
{
    return !geo->solid[c] && !(geo->air && geo->air[c]);
}

/* How face (axis, i, j) enters the projection for this geometry; theta (may
 * be NULL) gets the Dirichlet distance fraction (Zarifi eq. 4.43). */
face_kind mac_face(const mac_grid *g, const mac_geometry *geo, int axis, int i, int j, double *theta);

/* Fill FACE_AIR velocities from valid neighbours, `layers` rings deep (each
 * the average of the valid neighbours of the same component); the rest get 0. */
void mac_extrapolate(const mac_grid *g, const mac_geometry *geo, int layers, double *u, double *v);

/* Bilinear samples of the staggered components at a point (clamped to the grid). */
double mac_sample_u(const mac_grid *g, const double *u, double x, double y);
double mac_sample_v(const mac_grid *g, const double *v, double x, double y);

/* Semi-Lagrangian advection of (u0, v0) by itself over dt with an RK2
 * (midpoint) backtrace, into (u, v). */
void mac_advect(const mac_grid *g, const double *u0, const double *v0, double dt, double *u, double *v);

/* The same with the MacCormack correction (Selle et al. 2008): a forward and
 * a backward semi-Lagrangian step estimate the forward error, half of it is
 * removed, and each value is clamped to the range of the grid values its
 * forward sample interpolated (no new extrema). */
void mac_advect_maccormack(const mac_grid *g, const double *u0, const double *v0, double dt, double *u, double *v);

/* Pressure projection workspace: the matrix-free Poisson operator over fluid
 * cells and its MIC(0) preconditioner. */
typedef struct mac_projection {
    size_t n;                /* fluid cells (unknowns) */
    int32_t *index;          /* per cell: unknown index or -1 */
    int32_t *cell;           /* per unknown: cell */
    double *Adiag, *Aplusi, *Aplusj;   /* per cell, Bridson's stencil storage */
    double *precon;          /* per cell, MIC(0): 1 / diagonal of L */
    double *Li, *Lj;         /* per cell: Aplusi * precon, Aplusj * precon */
    double *b, *p, *tmp;     /* per unknown */
    int iterations;
    double residual;
} mac_projection;

/* Make the divergence of u, v in fluid cells equal to the volume sources s
 * (1/s per cell; NULL: zero): solve A p = -(rho/dt) dx^2 (div u* - s) with
 * PCG and MIC(0), compatible right-hand side in regions without an open side,
 * their mean pressure set to zero. p gets the pressure per cell (0 in solids)
 * and holds the initial guess. Returns SEAM_UNSTABLE (logged) when PCG fails. */
seam_status mac_project(mac_projection *P, const mac_grid *g, const mac_geometry *geo, const double *s,
                        double rho, double dt, double tol, int max_iter, double *u, double *v, double *p,
                        const seam_host *host);
void mac_projection_free(mac_projection *P);

/* The displacement field d = -grad q (per face, m) with div d = e per fluid
 * cell (walls and solids let nothing through, p = 0 at Dirichlet faces):
 * spreads crowded particles apart. */
seam_status mac_spread(mac_projection *P, const mac_grid *g, const mac_geometry *geo, const double *e,
                       double tol, int max_iter, double *du, double *dv, const seam_host *host);

/* Conservative transport of a cell scalar q (first-order upwind finite
 * volumes) by the face velocities (u, v) over dt, in as many sub-steps as
 * keep every cell's outflow below its content. Faces beside a solid or
 * crossed by a shell carry nothing; a boundary face carries, when it flows in, the outside value of
 * qu / qv at that face. Volume sources s (1/s per cell, may be NULL) add
 * s q_src per unit time. Returns the number of sub-steps, or -1 when more
 * than max_sub would be needed. */
int mac_transport_scalar(const mac_grid *g, const mac_geometry *geo, const double *u, const double *v,
                         double dt, const double *qu, const double *qv, const double *s, const double *q_src,
                         int max_sub, double *q);

/* Net outflow per unit time of cell (i,j) divided by its area (1/s). */
double mac_divergence(const mac_grid *g, const double *u, const double *v, int i, int j);

/* ---- marker particles of the liquid (particles.c) ---- */

/* Level set of the liquid at cell centres from particles x (n, interleaved):
 * phi = |x - xbar| - r with xbar the kernel-weighted mean of the particles
 * within 2 dx (Zhu and Bridson's smoothed union of spheres), particles
 * mirrored across walls and solid cells (solid may be NULL) filled with
 * per_axis^2 points like the liquid; cells with no point that close get +2 dx. */
void mac_level_set(const mac_grid *g, size_t n, const double *x, double r, const uint8_t *solid, int per_axis,
                   double *phi);

/* Particle velocities to faces with bilinear weights (faces with no weight get 0). */
void mac_particles_to_grid(const mac_grid *g, size_t n, const double *x, const double *vp, double *u, double *v);

/* Bilinear samples of (u, v) at each particle into out (n*2). */
void mac_grid_to_particles(const mac_grid *g, size_t n, const double *x, const double *u, const double *v,
                           double *out);

/* Particles per cell, counted with bilinear (cloud-in-cell) weights at the
 * cell centres; weight beyond the outer centres folds back into the grid. */
void mac_particle_density(const mac_grid *g, size_t n, const double *x, double *count);

/* Move particles through (u, v) over dt (RK2 midpoint): walls hold them,
 * those that cross an open side are dropped (x and vp compacted). Returns
 * the number kept. */
size_t mac_advect_particles(const mac_grid *g, size_t n, double *x, double *vp, const double *u, const double *v,
                            double dt);

#endif
