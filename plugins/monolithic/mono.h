/* monolithic: the pieces of Zarifi's coupled projection (Zarifi 2017, ch. 3-5;
 * ../shared/specs/monolithic-sph-fem.md section 1), private to
 * plugins/monolithic. The plugin (monolithic.c) runs Algorithm 4 per step
 * over fluid_mac's grid, particles and level set and solid_fem's meshes:
 *
 *   cutcell.c  the cut-cell geometry of the solids' boundaries on the grid,
 *              and the fluid block of (5.17): B, E u*, N^T C (node columns);
 *   solid.c    the solid blocks: corotated linear FEM with R held over the
 *              step (3.44-3.55), rigid bodies (5.32), the map T from their
 *              unknowns to their boundary nodes' velocities;
 *   system.c   the coupled solve: (5.17) assembled (for tests), its SPD form
 *              (5.25-5.31, sigma, row scaling alpha of 5.36) by IC(0)-PCG.
 *
 * Sign conventions (Zarifi 5.10, 5.14, 5.17): p per active cell; n is the
 * unit normal out of the fluid into the solid; G = N^T C maps boundary node
 * velocities to the area-weighted flux into the solid per cell; the system is
 *
 *   [ B     G  ] [p]   [ E u*  ]        B  = (dt/rho) cut-cell Laplacian (4.39)
 *   [ G^T  -S  ] [v] = [ -r    ]        S  = M/dt + D + dt K  (3.55)
 *                                       r  = M v~ / dt - K x~ + b + f  (v~, x~: v*, x* of 3.55)
 *
 * with G = G_nodes T for the solids' unknowns v (v~ and x~ are Zarifi's v* and x*). */
#ifndef MONOLITHIC_MONO_H
#define MONOLITHIC_MONO_H

#include <stddef.h>
#include <stdint.h>

#include "seam/plugin.h"
#include "seam/sparse.h"
#include "fem.h"
#include "mac.h"

/* ---------------------------------------------------------------- cutcell.c */

/* The solids' boundaries as closed outlines: segments (2D) oriented so the
 * solid is on the left (counter-clockwise around a body), triangles (3D)
 * oriented outward (right-hand rule). Nodes are numbered 0..n_nodes-1 over
 * all solids; node_fixed (may be NULL) marks nodes whose velocity is
 * prescribed (v_fixed, dim per node, may be NULL for zero) rather than an
 * unknown: their flux goes to the right-hand side. */
typedef struct mono_boundary {
    int dim;
    size_t n_nodes;
    const double *x;         /* dim per node: positions for this step's geometry (m) */
    size_t n_elems;
    const int32_t *elem;     /* dim node indices per element */
} mono_boundary;

/* One piece of a boundary element inside one grid cell (Zarifi sec. 5.1.1). */
typedef struct mono_patch {
    size_t cell;             /* the cell it lies in */
    double area;             /* its length (2D, m) or area (3D, m^2) */
    double n[3];             /* unit normal out of the fluid, into the solid */
    size_t elem;             /* the boundary element it comes from */
    double w[3];             /* barycentric weights of its centroid on the element's nodes */
} mono_patch;

/* The cut-cell geometry of one step (Zarifi sec. 4.6, 5.1.1). */
typedef struct mono_cut {
    double *open[3];         /* per face of each axis (NULL beyond dim): the fraction of the face outside
                                every solid, set to 0 below 0.01 and to 1 above 0.99 (sec. 4.6) */
    uint8_t *inside;         /* per cell: its centre lies inside a solid */
    size_t n_patches;
    mono_patch *patches;
} mono_cut;

seam_status mono_cut_build(mono_cut *cut, const mac_grid *g, const mono_boundary *b, const seam_host *host);
void mono_cut_free(mono_cut *cut);

/* The fluid block of (5.17) for one step. phi is the liquid level set at cell
 * centres (negative inside the liquid, extended into the solids), u_star the
 * face velocities after advection and gravity. Active cells hold some liquid
 * and have their centre in the liquid or in a solid (sec. 4.6); faces to air
 * cells are ghost-fluid Dirichlet faces (4.40-4.44), open sides p = 0, walls
 * closed. */
typedef struct mono_fluid {
    size_t n;                /* active cells: pressure unknowns */
    int32_t *index;          /* per cell: its row, or -1 */
    int32_t *cell;           /* per row: its cell */
    seam_csr *B;             /* n x n, SPD (4.39) */
    double *Eu;              /* n: E u* = - sum_f s_f A_f u*_f (4.39) */
    seam_csr *G;             /* n x (dim n_nodes): N^T C (5.7-5.10), column node * dim + axis */
} mono_fluid;

seam_status mono_fluid_build(mono_fluid *F, const mac_grid *g, const mono_cut *cut, const mono_boundary *b,
                             const double *phi, double *const u_star[3], double rho, double dt,
                             const seam_host *host);
void mono_fluid_free(mono_fluid *F);

/* u = u* - (dt/rho) grad p on every face with an open fraction and liquid on
 * at least one side (ghost-fluid theta at the free surface) (5.4); closed faces
 * keep u* and are left to mono_extrapolate. */
void mono_fluid_update(const mono_fluid *F, const mac_grid *g, const mono_cut *cut, const double *phi,
                       const double *p, double rho, double dt, double *const u[3]);

/* Sec. 4.6's extrapolation: each invalid face next to valid ones gets the
 * average of its valid neighbours (not in place), `layers` times; values
 * inside solids then lose their component along the solid's normal. */
void mono_extrapolate(const mac_grid *g, const mono_cut *cut, const double *phi, int layers, double *const u[3]);

/* ---------------------------------------------------------------- solid.c */

/* One solid's block: its velocity unknowns and what (5.17) needs of them. */
typedef struct mono_block {
    size_t m;                /* unknowns: dim per free node (FEM), 3 (2D) or 6 (3D) per rigid body */
    seam_csr *S;             /* m x m, SPD: M/dt + D + dt K (3.55); M~/dt for a rigid body (5.32) */
    double *Zdiag;           /* m: Z1 of (5.31) when diagonal (FEM: sigma (1/dt + tau_M) M), else NULL */
    double *r;               /* m: M v~ / dt - K x~ + b + f (3.55; v~, x~ are its v*, x*) */
    seam_csr *T;             /* (dim n_nodes) x m: the boundary nodes' velocities from the unknowns
                                (rows of nodes not on this solid, and of fixed nodes, are empty) */
} mono_block;

void mono_block_free(mono_block *blk);

/* The block of one solid_fem solid (volumetric bodies only: shells and cloth
 * are refused by name). Its interface points are the boundary nodes
 * offset .. offset + n_iface - 1 of n_nodes. K and b are rebuilt from the
 * rotations of the committed state (3.53-3.54, R by seam_svd_rotation), D is
 * the bodies' Rayleigh damping (3.50), v* = v + dt (g + f_ext / m),
 * x* = the committed positions; pinned nodes are not unknowns. */
seam_status mono_fem_block(mono_block *blk, const fem *f, double dt, double sigma, const double *f_ext,
                           size_t offset, size_t n_nodes, const seam_host *host);
/* Commit the solved velocities v (blk->m): x <- x + dt v, v <- v (5.2). */
void mono_fem_advance(fem *f, const mono_block *blk, const double *v, double dt);

/* ---------------------------------------------------------------- rigid.c */

/* The block of a rigid solid reached through its plugin table P (solid_rigid:
 * mobility and solve): n_pts interface points of dimension dim, the boundary
 * nodes first .. first + n_pts - 1 of n_nodes, at most max_rank independent
 * motions (3 per body in 2D, 6 in 3D). The part of its free velocities that
 * no motion of the block reaches (prescribed motion) is added to v_perp
 * (dim per boundary node): the caller moves its flux, G v_perp, to the right-hand side. */
seam_status mono_rigid_block(mono_block *blk, const seam_plugin *P, void *solid, const seam_step *step,
                             size_t n_pts, int dim, int max_rank, size_t first, size_t n_nodes, double *v_perp,
                             const seam_host *host);
/* Its step under the pressure loads F (dim per point, N or N/m): its own solve. */
seam_status mono_rigid_advance(const seam_plugin *P, void *solid, const seam_step *step, size_t n_pts, int dim,
                               const double *F);

/* ---------------------------------------------------------------- system.c */

typedef struct mono_solve_opts {
    double sigma;            /* (5.31), in (0, 1); 0.9 */
    double alpha;            /* row scaling of (5.36); <= 0: |c1| / |c2| */
    double tol;              /* PCG relative residual; 1e-10 */
    int max_iter;
} mono_solve_opts;

typedef struct mono_solve_stats {
    int iterations;
    double residual;         /* relative, of the SPD system */
    size_t nnz;              /* of the SPD matrix */
} mono_solve_stats;

/* Solve (5.17) for p (F->n) and v (the blocks' unknowns, concatenated)
 * through the SPD form (5.25-5.31) with IC(0)-PCG. SEAM_UNSTABLE (logged)
 * when PCG does not converge. */
seam_status mono_solve(const mono_fluid *F, const mono_block *blocks, size_t n_blocks, double dt,
                       const mono_solve_opts *opts, double *p, double *v, mono_solve_stats *stats,
                       const seam_host *host);

#endif
