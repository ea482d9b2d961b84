/* solid_fem internals: shared by the plugin, its tests and its benchmark. */
#ifndef SOLID_FEM_H
#define SOLID_FEM_H

#include <stddef.h>
#include <stdint.h>

#include "seam/cholesky.h"
#include "seam/config.h"
#include "seam/plugin.h"
#include "seam/sparse.h"
#include "seam/vtk.h"

/* ---- constitutive models (material.c) --------------------------------- */

typedef enum fem_model { FEM_COROTATED = 0, FEM_NEO_HOOKEAN = 1, FEM_STVK = 2 } fem_model;

typedef struct fem_material {
    fem_model model;
    double mu, lambda;        /* Lame parameters (Pa), Zarifi eqs. 3.9-3.10 */
    double compression_limit; /* singular values below it are extrapolated (Irving 2.6) */
} fem_material;

/* Lame parameters from Young's modulus and Poisson's ratio. */
void fem_lame(double E, double nu, double *mu, double *lambda);

/* Diagonal-space model: stress Phat (d) and its derivative A = dPhat/dFhat
 * (d x d) at signed singular values sigma, with the compression-limit
 * extrapolation and a positive semidefinite A. Returns the energy density. */
double fem_diag_stress(const fem_material *m, int d, const double *sigma, double *Phat, double *A);

/* First Piola-Kirchhoff stress P (d x d, row-major) of F; when dPdF is not
 * NULL also its derivative (d^2 x d^2, dP_ij/dF_kl at [(i*d+j)*d*d + k*d+l]),
 * positive semidefinite (the definiteness fix). Returns the energy density. */
double fem_first_piola(const fem_material *m, int d, const double *F, double *P, double *dPdF);

/* ---- the solver state (fem.c) ------------------------------------------ */

typedef enum fem_kind { FEM_VOLUME = 0, FEM_SHELL = 1 } fem_kind;
/* "irving": Irving 2007 section 3.1, elastic forces explicit and damping implicit
 * over two half steps, with the walls' collisions and friction of section 3.2. */
typedef enum fem_integrator { FEM_BACKWARD_EULER = 0, FEM_EXPLICIT = 1, FEM_IRVING = 2 } fem_integrator;
typedef enum fem_precond { FEM_JACOBI = 0, FEM_IC0 = 1 } fem_precond;
/* How the Newton systems are solved: sparse Cholesky (CHOLMOD), PCG, or
 * CHOLMOD unless its analysis predicts a factorization too costly per unknown. */
typedef enum fem_lin_method { FEM_LIN_CHOLMOD = 0, FEM_LIN_CG = 1, FEM_LIN_AUTO = 2 } fem_lin_method;
/* "auto" takes CHOLMOD for 2D meshes, shells and cloth, CG for 3D volumes
 * (docs/performance.md, solid_fem: CHOLMOD up to 5x faster on 10^5 triangles
 * and on cloth, 1.5-9x slower on 10^3-10^5 tetrahedra), and CG too when
 * the factor would take more memory than this. */
#define FEM_AUTO_MAX_FACTOR_BYTES (4.0 * 1024 * 1024 * 1024)

typedef struct fem_body {
    char name[64];
    fem_kind kind;
    fem_material mat;        /* volumes */
    double density;          /* kg/m^3 (volumes), kg/m or kg/m^2 (shells: per length / area) */
    double alpha, beta;      /* Rayleigh damping D = alpha M + beta K (Zarifi eq. 3.50) */
    double k_stretch, b_stretch, k_bend, b_bend;   /* shells (Akbay 4.3.4) */
    double nu;               /* Poisson's ratio of a 3D cloth membrane */
    size_t node0, n_nodes;   /* its nodes in the global arrays */
} fem_body;

/* Linear simplex: d+1 nodes, inverse rest edge matrix, rest measure. */
typedef struct fem_elem {
    int32_t n[4];
    int32_t body;
    double Dm_inv[9];        /* D_m^{-1}, Irving 2.3 */
    double W;                /* rest area (2D) or volume (3D) */
} fem_elem;

/* Stretching spring on a segment (2D shells). */
typedef struct fem_spring {
    int32_t a, b, body;
    double l0;
} fem_spring;

/* Bending hinge on three consecutive nodes of a 2D chain. */
typedef struct fem_hinge {
    int32_t a, b, c, body;
    double theta0;
} fem_hinge;

/* Dihedral bending hinge of 3D cloth: edge n[0]-n[1], opposite n[2], n[3]. */
typedef struct fem_hinge3 {
    int32_t n[4], body;
    double theta0;
} fem_hinge3;

typedef struct fem_newton_log {
    int iterations;
    double residual[64];     /* ||g|| at the start of each iteration (N, N/m in 2D) */
    int converged;
    int cg_iterations;
    int factorizations;      /* numeric Cholesky factorizations (CHOLMOD) */
    int fallbacks;           /* linear solves that needed another method after a breakdown */
    int truncated;           /* PCG solves stopped at linear_solver.max_iterations (inexact Newton directions) */
    int last_truncated;      /* 1 when the latest linear solve was one of them */
    double linear_seconds;   /* wall time in the linear solves (factorizations included) */
    int contacts;            /* node coordinates held on a wall at the end of the step */
    double wall_force[3];    /* total force of the walls on the nodes at the end of the step (N, N/m in 2D) */
} fem_newton_log;

/* Axis-aligned walls (the box solid_rigid's `walls` describes): inelastic
 * unilateral constraints x_k >= min_k, x_k <= max_k on every free node, with
 * Coulomb friction. */
typedef struct fem_walls {
    int on;
    double min[3], max[3];
    double friction;         /* Coulomb coefficient mu */
} fem_walls;

typedef struct fem fem;
typedef struct fem_mesh fem_mesh;

/* The solver's top-level keys; config.c reads them, with their defaults
 * and ranges, in one place (docs/solid_fem.md lists them). */
typedef struct fem_settings {
    fem_integrator integrator;   /* "integrator" */
    double newton_tol;       /* "newton.tolerance": on the residual and the position update, relative */
    int newton_max;          /* "newton.max_iterations" (at most 63: fem_newton_log keeps 64 residuals) */
    int line_search;         /* "newton.line_search" */
    fem_lin_method lin_method;   /* "linear_solver.method" */
    double lin_tol;          /* "linear_solver.tolerance" (PCG) */
    int lin_max;             /* "linear_solver.max_iterations" (PCG) */
    fem_precond precond;     /* "linear_solver.preconditioner" */
    double cfl;              /* "cfl": fraction of the explicit stability limit */
    double dt_limit;         /* "max_dt" (s) */
} fem_settings;

struct fem {
    const seam_host *host;
    /* output: the frames written, and the time of the trial and committed states (s) */
    seam_vtk_series vtk;
    double t_trial, t_n;
    int d;                   /* "dim" */
    double gravity[3];       /* the scene's, or "gravity"; none without either */
    fem_settings set;
    fem_lin_method lin_active;   /* what the solves use: set.lin_method, or auto's choice at the first solve */
    seam_cholesky *direct;   /* CHOLMOD: symbolic factorization of K's pattern, kept */
    fem_walls walls;
    uint8_t *contact;        /* n*d, with walls, during a solve: 0 free, 1 held on walls.min, 2 on walls.max */

    size_t n_bodies;
    fem_body *bodies;

    size_t n;                /* nodes */
    double *X0;              /* rest positions n*d */
    double *x, *v;           /* committed state */
    double *x_new, *v_new;   /* last solve */
    double *mass;            /* lumped, per node */
    uint8_t *fixed;          /* 0 free, 1 pinned, 2 prescribed velocity */
    double *v_fixed;         /* n*d velocity of fixed nodes */
    double t;
    int64_t steps;
    int have_solve;
    double length;           /* bounding box diagonal at rest (m) */

    size_t n_elems;
    fem_elem *elems;
    size_t n_springs;
    fem_spring *springs;
    size_t n_hinges;
    fem_hinge *hinges;
    size_t n_tris;           /* 3D cloth membrane triangles (Dm_inv 2x2, W = rest area) */
    fem_elem *tris;
    size_t n_hinges3;
    fem_hinge3 *hinges3;

    /* the interface */
    size_t n_iface;
    int32_t *iface_node;     /* interface point -> node */
    int32_t *iface_body;
    double *iface_X, *iface_mass;
    size_t n_iface_elems;
    int32_t *iface_elems;    /* point indices */
    uint8_t *iface_two_sided;

    /* sparse pattern of the stiffness, fixed at create */
    seam_csr *K, *D;
    double *f_ext;           /* scratch n*d */
    fem_newton_log newton;

    void *save_buf;          /* handed out by save */
};

/* Shape-function gradients b_a of a linear simplex (Irving 2.4: g_i = P b_i):
 * b_a = row a-1 of D_m^{-1} for a >= 1, and b_0 = -sum of the others. */
void fem_shape_gradients(int d, const double *Dm_inv, double b[4][3]);
/* The element's shape-function gradients b and its deformation gradient F
 * (d x d, row-major) at positions x: F = D_s D_m^{-1} (Irving 2.3), written
 * as sum_a x_a b_a^T. */
void fem_deformation_gradient(int d, const fem_elem *e, const double *x, double b[4][3], double *F);

/* The plugin table (export.c exports it as seam_plugin_v1). */
const seam_plugin *solid_fem_table(void);

/* Build from configuration JSON; NULL after logging (fem.c). */
fem *fem_new(const char *config_json, const seam_host *host);
void fem_destroy(fem **self_p);

/* ---- configuration (config.c) ------------------------------------------ */

/* "dim", gravity and fem_settings from the top-level keys. */
void fem_read_settings(fem *self, seam_cfg *cfg);
/* Body bi's name, material and mesh, appended (fem_add_body); 0, or -1 after reporting. */
int fem_read_body(fem *self, seam_cfg *c, size_t bi);
/* Body bi's initial velocity, pinned and prescribed nodes, into the state arrays; 0 or -1. */
int fem_read_constraints(fem *self, seam_cfg *c, size_t bi);
/* The generated mesh a body's "mesh" object names ("generate": ...), generate.c; 0, or -1 after reporting. */
int fem_mesh_generate(seam_cfg *c, int d, fem_kind kind, fem_mesh *m);

/* ---- bodies and the interface (bodies.c, interface.c) ------------------ */

/* Append mesh m as body bi: nodes, elements or springs and hinges, lumped
 * masses; errors located at c (a generated mesh) or prefixed by where. */
int fem_add_body(fem *self, size_t bi, fem_mesh *m, seam_cfg *c, const char *where);
/* The stiffness pattern (K and D): every node pair sharing an element, spring or hinge. */
void fem_build_pattern(fem *self);
/* The interface: boundary facets of the volumes, cloth triangles, shell segments, and their nodes. */
void fem_build_interface(fem *self);

/* ---- state (state.c) ---------------------------------------------------- */

/* The committed state as an image of core's checkpoint format; load refuses another mesh's. */
seam_status fem_save(fem *self, seam_buffer *out);
seam_status fem_load(fem *self, const void *bytes, size_t n);

/* Elastic forces f (n*d, summed over all elements, springs and hinges) at
 * positions x; when K is not NULL also the stiffness K = -df/dx (made
 * positive semidefinite per element) added into it. Returns the energy. */
double fem_elastic(const fem *self, const double *x, double *f, seam_csr *K);
/* Stiffness-proportional damping matrix at positions x (Rayleigh beta K, spring and
 * hinge dashpots), into D (overwritten). */
void fem_damping_matrix(const fem *self, const double *x, seam_csr *D);
/* Replace a 2D hinge's 6x6 stiffness block (row-major), which maps the
 * nodes' common translations to zero, by its nearest positive semidefinite
 * matrix (step.c). */
void fem_hinge_project_psd(double *Ke);

/* ---- the Newton system's linear solve (linsolve.c) ---------------------- */

/* Solve S x = b with S the system matrix held in self->K (symmetric positive
 * definite, pattern fixed at create), x = 0 on entry. CHOLMOD reuses one
 * symbolic analysis for every call; CG uses the configured preconditioner.
 * A breakdown (an indefinite pivot or PCG's) falls back once to the other
 * safe method and is counted in self->newton.fallbacks; when that fails too
 * it returns SEAM_UNSTABLE (logged), never a silent zero. */
seam_status fem_linear_solve(fem *self, const double *b, double *x);

/* One step from the committed state with nodal loads f_load (n*d, may be
 * NULL) into x_new, v_new. */
seam_status fem_step(fem *self, double dt, const double *f_load);
/* Whether any body has damping (Rayleigh or dashpots). */
int fem_has_damping(const fem *self);
/* Irving 2007 section 3.1's step (steps 1 and 3-7; solid_fem has no self-collision, so no 2 and 8) with
 * external forces f_ext, into x_new, v_new (irving.c). */
seam_status fem_irving_step(fem *self, double dt, const double *f_ext);
void fem_commit(fem *self);
double fem_max_dt(fem *self);
/* Kinetic + elastic + gravity potential energy of the committed state. */
double fem_energy(const fem *self);

/* ---- walls (walls.c) ---------------------------------------------------- */

/* Read the `walls` object (min, max, friction). Returns 0, or -1 after reporting through w. */
int fem_walls_read(fem *self, seam_cfg *w);
/* Refuse (through w) a node whose rest position lies outside the walls. */
int fem_walls_check(const fem *self, seam_cfg *w);
/* Hold on its wall every free coordinate of x = x^n + dt v that lies beyond
 * it (or within `slack` of it): v is set so that x lands on the wall.
 * Returns the number newly held. */
size_t fem_walls_hold(const fem *self, double dt, double slack, double *v, uint8_t *contact);
/* Release the held coordinates whose wall would have to pull (the reaction
 * -s g, from the force residual g without the walls, is negative); zero g on
 * those still held. Returns the number released. */
size_t fem_walls_release(const fem *self, double *g, uint8_t *contact);
/* After the solve, with g the residual without the walls: friction on the
 * tangential velocity of every node on a wall (Irving 3.2). Returns the
 * number of held coordinates; force gets the walls' total force (normal
 * reactions and friction, N or N/m in 2D). */
int fem_walls_friction(const fem *self, double dt, const double *g, const uint8_t *contact, double *v,
                       double *force);

/* Irving 2007 section 3.2 against the walls, step 4 of section 3.1: every
 * free node whose x~ = x^n + dt vh crosses a wall continues from the crossing
 * x^c = x^n + theta dt vh with Gamma(vh), one wall after another. In: vh =
 * v~^{n+1/2}, vs = v^n. Out: x = x^{n+1}, vh = (x^{n+1} - x^n) / dt, vs =
 * v*^n = Gamma(v^n) at the walls hit, contact marking them. Returns the
 * number of node coordinates that hit a wall. */
size_t fem_walls_collide(const fem *self, double dt, double *x, double *vh, double *vs, uint8_t *contact);
/* Step 7 of Irving 2007 section 3.1 at the walls a node hit: v <- Gamma(v +
 * min(0, dv2 . N) N), dv2 = 2 dv the normal velocity change the held solve
 * removed (Irving 3.2). */
void fem_walls_irving_friction(const fem *self, const double *dv2, const uint8_t *contact, double *v);

/* ---- 3D cloth (cloth.c) ------------------------------------------------ */

/* Membrane (Irving 2.8, rotated linear in the triangle's plane) and dihedral
 * hinge forces of all cloth; stiffness into K when not NULL. Adds to f. */
double fem_cloth_elastic(const fem *self, const double *x, double *f, seam_csr *K);
/* Cloth damping: b_stretch/k_stretch times the membrane stiffness, b_bend
 * G G^T at hinges, added into D. */
void fem_cloth_damping(const fem *self, const double *x, seam_csr *D);
/* Append mesh m (triangles in 3D) as cloth body bi; hinges on shared edges. */
int fem_cloth_add(fem *self, size_t bi, const fem_mesh *m, seam_cfg *c, const char *where);
/* A refused mesh: located at the body's "mesh" key when it was generated from the scene (c given), else
 * prefixed by where (the mesh file). */
void fem_mesh_error(fem *self, seam_cfg *c, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Dihedral angle of hinge h at x and its gradient G (12). */
double fem_hinge3_angle(const fem_hinge3 *h, const double *x, double *G);

/* ---- meshes (mesh.c) ---------------------------------------------------- */

/* A mesh under construction: nodes (dim d) and simplices or segments. */
struct fem_mesh {
    int d;
    size_t n_nodes, n_cells;
    int nodes_per_cell;      /* d+1 for volumes, 2 for chains */
    double *X;
    int32_t *cells;
    int64_t *tags;           /* element tags of a file, NULL for generated meshes */
    int closed;              /* chains: last node joins the first */
};

void fem_mesh_free(fem_mesh *m);
/* Read a Gmsh v4 ASCII file: triangles (d = 2) or tetrahedra (d = 3).
 * Returns 0, or -1 after logging the file and line. */
int fem_mesh_read_msh(const char *path, int d, fem_mesh *m, const seam_host *host);
/* Read triangles of a Wavefront OBJ file (seam/mesh_io.h); -1 after logging the file and line. */
int fem_mesh_read_obj(const char *path, fem_mesh *m, const seam_host *host);

#endif
