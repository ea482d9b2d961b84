/* monolithic: the pieces of Zarifi's coupled projection (Zarifi 2017, ch. 3-5;
 * ../shared/specs/monolithic-sph-fem.md section 1), private to
 * plugins/monolithic. The plugin (monolithic.c) runs Algorithm 4 per step
 * over fluid_mac's grid, particles and level set and solid_fem's meshes:
 *
 *   cutcell.c  the cut-cell geometry of the solids' boundaries on the grid,
 *              and the fluid block of (5.17): B, E u*, N^T C (node columns);
 *   solid.c    the solid blocks: corotated linear FEM with R held over the
 *              step (3.44-3.55; other models: solid_fem's tangent at x^n),
 *              rigid bodies (5.32), the map T from their
 *              unknowns to their boundary nodes' velocities;
 *   system.c   the coupled solve: (5.17) assembled (for tests), its SPD form
 *              (5.25-5.31, sigma, row scaling alpha of 5.36) by PCG,
 *              preconditioned by multigrid on B with the solid blocks
 *              factored (block LDL^T), by IC(0), or by CHOLMOD's factor
 *              of the whole system (a direct solve);
 *   amg.c      classical algebraic multigrid on B, the block
 *              preconditioner's pressure part when asked for (amg).
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

#include "seam/cholesky.h"
#include "seam/plugin.h"
#include "seam/sparse.h"
#include "fem.h"
#include "mac.h"

/* ---------------------------------------------------------------- cutcell.c */

/* The solids' boundaries as closed outlines: segments (2D) oriented so the
 * solid is on the left (counter-clockwise around a body), triangles (3D)
 * oriented outward (right-hand rule). This is solid_fem's order: its
 * elements have positive area (fem.c refuses inverted ones) and its
 * interface elements are their free edges (0,1), (1,2), (2,0) in the
 * element's own order (fem.c build_interface), so a body's iface_elems run
 * counter-clockwise; its springs and cloth (two_sided) are not outlines.
 * mono_cut_build refuses an outline that is not closed or that leaves a
 * solid it never entered (clockwise, or triangles oriented inward: checked
 * on every grid line and plane it cuts). Overlapping bodies count as their
 * union. A point on a grid line or plane counts as on its high side, so a
 * boundary piece lying in a grid plane belongs to the cell above it. Nodes
 * are numbered 0..n_nodes-1 over all solids; G has a column per node and
 * axis, so the flux of prescribed node velocities is the caller's to move to
 * the right-hand side (G v_perp, as rigid.c's mono_rigid_block says). */
typedef struct mono_boundary {
    int dim;
    size_t n_nodes;
    const double *x;         /* dim per node: positions for this step's geometry (m) */
    size_t n_elems;
    const int32_t *elem;     /* dim node indices per element */
} mono_boundary;

/* One piece of a boundary element inside one grid cell (Zarifi sec. 5.1.1).
 * Pieces outside the grid are left out (no liquid there). */
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
                                every solid, by exact clipping of the face against the outlines (not
                                the thesis's nodal-SDF rule), set to 0 below 0.01 and to 1 above 0.99
                                (sec. 4.6). 3D: the solid area of a face is the 2D cut of the
                                solids' cross-section in its grid plane (divergence theorem on the
                                plane's cells). Before the thresholds, each cell's faces and
                                patches close: sum_f s_f open_f A e_axis + sum_patches area n = 0 */
    uint8_t *inside;         /* per cell: its centre lies inside a solid */
    size_t n_patches;
    mono_patch *patches;
} mono_cut;

/* 2D: segments cut at the grid lines; 3D: triangles clipped against each
 * cell (Sutherland-Hodgman), a patch's centroid and area from a fan.
 * SEAM_ERROR (logged) for a boundary of another dimension than the grid, a
 * node index out of range or an outline that is not closed or runs the wrong
 * way; cut is then empty. */
seam_status mono_cut_build(mono_cut *cut, const mac_grid *g, const mono_boundary *b, const seam_host *host);
void mono_cut_free(mono_cut *cut);

/* The liquid's level set with the cells whose centre lies inside a solid
 * (cut->inside) filled from the cells outside, ring by ring (each the mean of
 * its neighbours already known, not in place), so that the free surface runs
 * on through a body that pierces it: fluid_mac's level set counts the solids
 * as filled with liquid, which would make every cut cell above the surface
 * whose centre lies in a solid an active liquid cell. phi and out: per cell. */
void mono_liquid_phi(const mac_grid *g, const mono_cut *cut, const double *phi, double *out);

/* The fluid block of (5.17) for one step. phi is the liquid level set at cell
 * centres (negative inside the liquid, extended into the solids), u_star the
 * face velocities after advection and gravity. Active cells hold some liquid
 * and have their centre in the liquid or in a solid (sec. 4.6): here, phi < 0
 * at the centre and at least one face with an open fraction that is not a
 * domain wall (a cell whose faces are all closed, or open only to a wall,
 * has no fluid that can move). Faces to air cells are ghost-fluid Dirichlet
 * faces (4.40-4.44, fluid_mac's mac_face theta), open sides p = 0 half a
 * cell out, domain walls closed to the pressure, their flux prescribed:
 * u_wall's normal velocity on them (a side source's inflow, fluid_mac_begin
 * sets it; u* there is not read), none when u_wall is NULL. B is SPD when
 * every connected liquid region has a Dirichlet face; a region enclosed by
 * walls and solids leaves B only semi-definite. Patches
 * in air cells are left out of G; a patch in a liquid cell whose faces the
 * thresholds all closed (a sliver) goes to the row of the active cell of the
 * 3 x 3 (x 3) block around it whose centre is nearest the patch's centroid,
 * so the flux of a body in the liquid is kept whole. */
typedef struct mono_fluid {
    size_t n;                /* active cells: pressure unknowns */
    int32_t *index;          /* per cell: its row, or -1 */
    int32_t *cell;           /* per row: its cell */
    seam_csr *B;             /* n x n, SPD (4.39) */
    double *Eu;              /* n: E u* = - sum_f s_f A_f u*_f (4.39) */
    seam_csr *G;             /* n x (dim n_nodes): N^T C (5.7-5.10), column node * dim + axis */
    mac_grid grid;           /* the grid F was built on (dim 0 when F was not built by mono_fluid_build) */
    uint8_t *closed;         /* per cell: not active but liquid (phi < 0) or inside a solid, a wall to the
                                multigrid preconditioner; the other inactive cells are air (NULL when
                                grid.dim is 0) */
} mono_fluid;

seam_status mono_fluid_build(mono_fluid *F, const mac_grid *g, const mono_cut *cut, const mono_boundary *b,
                             const double *phi, double *const u_star[3], double *const u_wall[3], double rho,
                             double dt, const seam_host *host);
void mono_fluid_free(mono_fluid *F);

/* u = u* - (dt/rho) grad p on every face with an open fraction and liquid on
 * at least one side (ghost-fluid theta at the free surface) (5.4); domain wall
 * faces get u_wall's value (0 when NULL); closed faces keep u* and are left
 * to mono_extrapolate. */
void mono_fluid_update(const mono_fluid *F, const mac_grid *g, const mono_cut *cut, const double *phi,
                       const double *p, double *const u_wall[3], double rho, double dt, double *const u[3]);

/* Static obstacles (fluid_mac's `obstacles`, per cell, may be NULL): every
 * face of an obstacle cell is closed (fraction 0) and the cell counts as
 * inside, a wall at rest the projection leaves out, as fluid_mac does. */
void mono_cut_obstacles(mono_cut *cut, const mac_grid *g, const uint8_t *obstacle);

/* Sec. 4.6's extrapolation: each invalid face next to valid ones gets the
 * average of its valid neighbours (not in place), `layers` times; values
 * inside solids then lose their component along the solid's normal. Valid
 * faces: domain walls and the faces mono_fluid_update set. Faces still
 * invalid after the layers get 0. "Inside a solid": an extrapolated face with
 * open fraction 0; its vector is its own component and the mean of the four
 * faces of the other axis around it, the normal the area-weighted patch
 * normals of the nearest ring of cells that has patches (up to layers + 1). */
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
    double sigma;            /* the sigma Zdiag was built with (0 when Zdiag is NULL) */
    size_t n_fem_nodes;      /* FEM: the solid's nodes; 0 for rigid bodies */
    int32_t *unknown;        /* FEM, per node: its first unknown (dim in a row), or -1 when fixed */
} mono_block;

void mono_block_free(mono_block *blk);

/* The corotated stiffness of every node of f at positions x with the
 * rotations of x (3.53; R = U V^T of the sign-corrected SVD of each
 * element's F), as a new (n d) x (n d) matrix, and b = sum R K_t X0 (3.54)
 * into b (n d): the elastic forces at x are b - K x. Volumetric bodies
 * (mono_fem_block refuses the rest), read as corotated whatever their model. */
seam_csr *mono_fem_corotated(const fem *f, const double *x, double *b);

/* The block of one solid_fem solid (volumetric bodies only: shells, cloth
 * and `walls` are refused by name). Its interface points are the boundary
 * nodes offset .. offset + n_iface - 1 of n_nodes. When every body is
 * corotated, K and b are rebuilt from the rotations of the committed state
 * (3.53-3.54, R by seam_svd_rotation); otherwise (Neo-Hookean, StVK) the
 * solid is linearly implicit Euler on solid_fem's own model: b - K x* is
 * its elastic force at the committed state and K its tangent there
 * (fem_elastic; positive semidefinite: solid_fem clamps its material
 * tangent). D is the bodies'
 * Rayleigh damping alpha M + beta K (3.50), v* = v + dt (g + f_ext / m)
 * (f_ext: n d nodal loads, may be NULL),
 * x* = the committed positions. Pinned and prescribed nodes are not
 * unknowns: their known velocities enter r through S's coupling, and their
 * rows of T are empty (the caller moves their flux to the fluid's side). */
seam_status mono_fem_block(mono_block *blk, const fem *f, double dt, double sigma, const double *f_ext,
                           size_t offset, size_t n_nodes, const seam_host *host);
/* The step's result from the solved velocities v (blk->m) as f's trial
 * state, which fem_commit (solid_fem's commit) makes the committed one:
 * x_new = x + dt v, v_new = v (5.2); fixed nodes take their prescribed
 * velocity. The committed state is left as it is (solve stays pure). */
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

/* The preconditioner of the PCG on the SPD system. */
typedef enum mono_precond {
    MONO_PRECOND_IC0 = 0,    /* IC(0) of the assembled A */
    MONO_PRECOND_MG = 1,     /* block LDL^T: fluid_mac's multigrid V-cycle on B for the pressures,
                                CHOLMOD on the kept solid blocks (see mono_solve) */
    MONO_PRECOND_DIRECT = 2, /* CHOLMOD's sparse Cholesky factor of the whole A: a direct solve, PCG
                                only adds the rigid bodies' products (one iteration without them) */
    MONO_PRECOND_AMG = 3     /* MONO_PRECOND_MG with classical algebraic multigrid on B (amg.c) in
                                place of fluid_mac's geometric V-cycle */
} mono_precond;

/* ---------------------------------------------------------------- amg.c */

/* Classical (Ruge-Stueben) algebraic multigrid on an SPD matrix with
 * nonpositive off-diagonal couplings mostly (the cut-cell Laplacian B):
 * levels by strength, C/F splitting and direct interpolation, Galerkin
 * coarse operators, CHOLMOD on the coarsest (Gauss-Seidel sweeps there when
 * it is only semi-definite). A is borrowed until mono_amg_free. */
typedef struct mono_amg mono_amg;
mono_amg *mono_amg_build(const seam_csr *A);
/* z = one symmetric V(1,1)-cycle on A z = r from z = 0 (an SPD preconditioner). */
void mono_amg_apply(mono_amg *m, const double *r, double *z);
int mono_amg_levels(const mono_amg *m);
void mono_amg_free(mono_amg **self_p);

typedef struct mono_solve_opts {
    double sigma;            /* (5.31), in (0, 1); 0.9 */
    double alpha;            /* row scaling of (5.36); <= 0: |c1| / |c2| */
    double tol;              /* PCG relative residual; 1e-10 */
    int max_iter;
    mono_precond precond;    /* IC(0) when left 0 (the plugin's default is multigrid) */
} mono_solve_opts;

typedef struct mono_solve_stats {
    int iterations;
    double residual;         /* relative, of the SPD system */
    size_t nnz;              /* of the SPD matrix A (the rigid bodies' products not counted) */
    size_t analyses;         /* CHOLMOD symbolic analyses this solve made, of the solid block A_ss
                                (multigrid) or of A (direct): 0 when the kept one fitted its pattern */
} mono_solve_stats;

/* What one coupled solve keeps for the next (mono_solve_kept): CHOLMOD's
 * symbolic analysis of the kept solid blocks' A_ss (multigrid) or of the
 * whole A (direct), reused while its pattern (size, row pointers, columns)
 * stays the same and analysed anew when it changes; the numeric factor is
 * redone every solve. Starts zeroed. */
typedef struct mono_kept {
    seam_cholesky *chol;     /* A_ss's (multigrid) */
    seam_cholesky *chol_A;   /* A's (direct) */
} mono_kept;

void mono_kept_free(mono_kept *kept);

/* The SPD form of (5.17) (5.25-5.31) scaled by alpha (5.36), in the unknowns
 * y = [p; v_FEM / alpha]. A block with Zdiag takes Z1 = diag(Zdiag), Z2 =
 * S - Z1 and keeps its unknowns; a block without (a rigid body) takes Z1 = S,
 * Z2 = 0: its unknowns are eliminated, adding G S^-1 G^T to A11 (the Schur
 * form of 5.32). That term is dense over the cells the body touches and of
 * rank m, so it stays a product (mono_spd_apply) instead of entering A; PCG
 * runs on the sum, preconditioned as opts->precond says. mono_solve is build, PCG,
 * recover; tests read A and apply the operator. */
typedef struct mono_spd {
    size_t n;                /* pressures: the first n unknowns */
    size_t size;             /* n + the kept blocks' unknowns */
    seam_csr *A;             /* size x size, SPD: all but the eliminated blocks' G S^-1 G^T */
    double *c;               /* size: [c1; alpha c2] (5.25, 5.36) */
    double alpha;            /* the row scaling used: opts->alpha, or |c1| / |c2| (1 when either is 0) */
    size_t n_blocks;
    size_t *at;              /* per block: its first unknown in y, or SIZE_MAX when eliminated */
    seam_csr **G;            /* per block: G_nodes T (n x m) */
    double **S_inv;          /* per eliminated block: S^-1 (m x m, row-major), else NULL */
} mono_spd;

/* SEAM_ERROR (logged) when the blocks do not fit F or the sigmas differ. */
seam_status mono_spd_build(mono_spd *spd, const mono_fluid *F, const mono_block *blocks, size_t n_blocks,
                           const mono_solve_opts *opts, const seam_host *host);
/* y = (A + sum over eliminated blocks of G S^-1 G^T on the pressures) x: the SPD operator. */
void mono_spd_apply(const mono_spd *spd, const double *x, double *y);
/* p (n) and v (the blocks' unknowns, concatenated) from the SPD solution y. */
void mono_spd_recover(const mono_spd *spd, const mono_block *blocks, const double *y, double *p, double *v);
void mono_spd_free(mono_spd *spd);

/* Solve (5.17) for p (F->n) and v (the blocks' unknowns, concatenated)
 * through the SPD form (5.25-5.31) with PCG, preconditioned by
 * opts->precond: IC(0) of A, or the block LDL^T of A with the pressure Schur
 * complement replaced by one multigrid V-cycle on B (mac_mg, F's grid and
 * closed cells: F must come from mono_fluid_build, SEAM_ERROR otherwise) and
 * the kept solid blocks' A_ss factored by CHOLMOD, or the whole A factored
 * by CHOLMOD (direct: one PCG iteration, a few more per rigid body). F may be NULL or have
 * n = 0: then it is the solids' own step S v = r (3.55). opts->sigma must be
 * the sigma the FEM blocks were built with (SEAM_ERROR otherwise). SEAM_UNSTABLE
 * (logged) when PCG breaks down or does not converge to opts->tol. */
seam_status mono_solve(const mono_fluid *F, const mono_block *blocks, size_t n_blocks, double dt,
                       const mono_solve_opts *opts, double *p, double *v, mono_solve_stats *stats,
                       const seam_host *host);
/* mono_solve with what kept holds from the solves before (and leaves for the next). */
seam_status mono_solve_kept(mono_kept *kept, const mono_fluid *F, const mono_block *blocks, size_t n_blocks,
                            double dt, const mono_solve_opts *opts, double *p, double *v, mono_solve_stats *stats,
                            const seam_host *host);

#endif
