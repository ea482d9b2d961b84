/* fluid_mac internals: a 2D or 3D staggered (MAC) grid, its solid geometry, and the
 * steps of one fluid solve. Private to plugins/fluid_mac. */
#ifndef FLUID_MAC_MAC_H
#define FLUID_MAC_MAC_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "seam/krylov.h"
#include "seam/mapping.h"
#include "seam/plugin.h"

/* Loops over at least this many cells, faces or particles run on OpenMP threads
 * (below it the threads cost more than they save). */
enum { MAC_OMP_MIN = 16384 };

/* Domain sides, in this order in mac_grid.bc: side 2 axis + (0: low, 1: high). */
enum { SIDE_LEFT = 0, SIDE_RIGHT = 1, SIDE_BOTTOM = 2, SIDE_TOP = 3, SIDE_BACK = 4, SIDE_FRONT = 5 };
typedef enum mac_bc { BC_WALL = 0, BC_OPEN = 1 } mac_bc;

/* How a face takes part in the projection. */
typedef enum face_kind {
    FACE_ACTIVE = 0,     /* fluid on both sides: velocity from the pressure gradient */
    FACE_DIRICHLET = 1,  /* fluid on one side, p = 0 at theta dx from its centre (open side, free surface) */
    FACE_FIXED = 2,      /* wall or solid: velocity prescribed */
    FACE_AIR = 3         /* no fluid on either side: velocity extrapolated */
} face_kind;

/* A 2D grid is a 3D one with nz = 1 and no z faces (dim = 2). */
typedef struct mac_grid {
    int dim;                 /* 2 or 3 */
    int nx, ny, nz;
    double dx;
    double origin[3];
    mac_bc bc[6];
} mac_grid;

/* Cells along an axis. */
static inline int mac_n(const mac_grid *g, int axis) { return axis == 0 ? g->nx : axis == 1 ? g->ny : g->nz; }

/* Cell (i,j,k) is centred at (i+1/2, j+1/2, k+1/2) dx; the faces normal to
 * `axis` form an array one longer along that axis: face (i,j,k) of axis 0 is
 * at (i, j+1/2, k+1/2) dx, the low face of cell (i,j,k). */
static inline size_t mac_c(const mac_grid *g, int i, int j, int k)
{
    return (size_t)i + (size_t)g->nx * ((size_t)j + (size_t)g->ny * (size_t)k);
}
static inline size_t mac_fi(const mac_grid *g, int axis, int i, int j, int k)
{
    size_t ni = (size_t)g->nx + (axis == 0), nj = (size_t)g->ny + (axis == 1);
    return (size_t)i + ni * ((size_t)j + nj * (size_t)k);
}
/* Faces normal to `axis` (0 for z in 2D). */
static inline size_t mac_nf(const mac_grid *g, int axis)
{
    if (axis >= g->dim)
        return 0;
    return ((size_t)g->nx + (axis == 0)) * ((size_t)g->ny + (axis == 1)) * ((size_t)g->nz + (axis == 2));
}
static inline size_t mac_ncell(const mac_grid *g) { return (size_t)g->nx * (size_t)g->ny * (size_t)g->nz; }
/* Area of a face (per unit depth in 2D: dx) and volume of a cell (dx^2 per unit depth in 2D). */
static inline double mac_face_area(const mac_grid *g) { return g->dim == 3 ? g->dx * g->dx : g->dx; }
static inline double mac_cell_volume(const mac_grid *g) { return g->dim == 3 ? g->dx * g->dx * g->dx : g->dx * g->dx; }

/* Cell (i, j, k) holding point x, clamped to the grid. */
static inline size_t mac_cell_of(const mac_grid *g, const double *x)
{
    int ijk[3] = {0, 0, 0};
    for (int d = 0; d < g->dim; d++) {
        double f = floor((x[d] - g->origin[d]) / g->dx);
        ijk[d] = f < 0.0 ? 0 : f >= mac_n(g, d) ? mac_n(g, d) - 1 : (int)f;
    }
    return mac_c(g, ijk[0], ijk[1], ijk[2]);
}

/* Points of a regular sub-grid of per_axis along each axis in a cell: how
 * many, and point q (0 .. count - 1) of cell ijk into x. */
static inline size_t mac_subgrid_count(const mac_grid *g, int per_axis)
{
    return (size_t)per_axis * (size_t)per_axis * (size_t)(g->dim == 3 ? per_axis : 1);
}
static inline void mac_subgrid_point(const mac_grid *g, const int *ijk, int per_axis, size_t q, double *x)
{
    int pa = per_axis;
    const int sub[3] = {(int)q % pa, (int)q / pa % pa, (int)q / pa / pa};
    for (int d = 0; d < g->dim; d++)
        x[d] = g->origin[d] + (ijk[d] + (sub[d] + 0.5) / pa) * g->dx;
}

/* Index step between neighbouring cells along an axis. */
static inline size_t mac_stride(const mac_grid *g, int axis)
{
    return axis == 0 ? 1 : axis == 1 ? (size_t)g->nx : (size_t)g->nx * (size_t)g->ny;
}

/* Twice the signed area of the 2D triangle (a, b, c): > 0 when c lies left of a -> b. */
static inline double mac_orient2(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

enum { SHELL = 2 };

/* A grid face touching at least one solid cell or crossed by a thin shell,
 * where W maps the interface. */
typedef struct solid_face {
    int axis;        /* normal direction 0, 1, 2 */
    int i, j, k;
    int s;           /* +1: solid on the + side, -1: solid on the - side, 0: solid on both,
                        SHELL: crossed by a thin shell, fluid on both sides */
} solid_face;

/* The solid geometry of one set of interface positions. */
/* What mac_geometry.solid holds per cell. */
enum { MAC_BODY = 1, MAC_OBSTACLE = 2 };

typedef struct mac_geometry {
    uint8_t *solid;          /* per cell: MAC_BODY inside a volumetric body, MAC_OBSTACLE in a static
                                obstacle (a wall, no interface), 0 otherwise */
    uint8_t *air;            /* per cell: 1 outside the liquid (free-surface mode), NULL otherwise */
    const double *phi;       /* liquid level set at cell centres (borrowed), NULL otherwise */
    uint8_t *shell[3];       /* per face of each axis: 1 where a thin shell crosses it (NULL beyond dim) */
    solid_face *faces;       /* faces with a solid cell on at least one side */
    size_t n_faces;
    seam_mapping *W;         /* interface points -> those faces */
    int32_t *region;         /* per cell: connected fluid region, -1 for solid */
    int n_regions;
    uint8_t *region_open;    /* per region: touches an open side */
    size_t *region_cells;    /* per region: its fluid cells */
    int n_closed;            /* regions without an open side */
} mac_geometry;

/* Mark solid cells (and air cells where phi >= 0 when phi is given), the
 * static obstacle cells (per cell, NULL: none; they win over bodies), collect
 * the faces of bodies and shells (not those of obstacles), build W with kernel
 * radius r and label fluid regions. Returns SEAM_ERROR (logged) when a
 * fluid-solid face has no interface point within r. */
seam_status mac_geometry_build(mac_geometry *geo, const mac_grid *g, const seam_interface *iface,
                               const double *X, double r, const double *phi, const uint8_t *obstacle,
                               const seam_host *host);
void mac_geometry_free(mac_geometry *geo);
/* Cells and regions only (no solid faces, no W): the solid cells and shells
 * of `from`, air where phi >= 0. */
seam_status mac_geometry_liquid(mac_geometry *geo, const mac_grid *g, const mac_geometry *from, const double *phi);

/* Whether cell c holds fluid (neither solid nor air). */
static inline int mac_fluid(const mac_geometry *geo, size_t c)
{
    return !geo->solid[c] && !(geo->air && geo->air[c]);
}

/* How face (axis, i, j, k) enters the projection for this geometry; theta (may
 * be NULL) gets the Dirichlet distance fraction (Zarifi eq. 4.43). */
face_kind mac_face(const mac_grid *g, const mac_geometry *geo, int axis, int i, int j, int k, double *theta);

/* Fill FACE_AIR velocities from valid neighbours, `layers` rings deep (each
 * the average of the valid neighbours of the same component); the rest get 0. */
void mac_extrapolate(const mac_grid *g, const mac_geometry *geo, int layers, double *const vel[3]);

/* Velocities are passed as one array per axis, vel[0..dim-1] (u, v, w). */

/* Scratch of the solve steps, allocated once per grid and reused by every
 * solve: three face arrays per axis and dim + 1 numbers per cell. */
typedef struct mac_work {
    double *face[3][3];      /* [array][axis]: the advection round trip, the particle weights */
    double *cell;            /* (dim + 1) per cell: the level set's kernel sums */
} mac_work;

void mac_work_init(mac_work *w, const mac_grid *g);
void mac_work_free(mac_work *w);

/* Cell of a clamped fractional index f in [0, n-1] and its weight s towards the next. */
static inline int mac_lerp_index(double f, int n, double *s)
{
    f = f < 0.0 ? 0.0 : f > n - 1 ? n - 1 : f;   /* as clampd(f, 0, n - 1) */
    int i = (int)f;
    if (i > n - 2)
        i = n - 2 < 0 ? 0 : n - 2;
    *s = f - i;
    return i;
}

/* Bilinear interpolation in slice k of an (ni x nj x nk) array at fractional
 * index (fx, fy); lo and hi (may be NULL) widen to the four values. */
static inline double mac_bilinear_slice(const double *a, int ni, int nj, int k, double fx, double fy, double *lo,
                                        double *hi)
{
    double s, t;
    int i = mac_lerp_index(fx, ni, &s), j = mac_lerp_index(fy, nj, &t);
    int i1 = i + 1 < ni ? i + 1 : i, j1 = j + 1 < nj ? j + 1 : j;
    const double *sl = a + (size_t)k * (size_t)ni * (size_t)nj;
    double a00 = sl[(size_t)j * (size_t)ni + (size_t)i], a10 = sl[(size_t)j * (size_t)ni + (size_t)i1];
    double a01 = sl[(size_t)j1 * (size_t)ni + (size_t)i], a11 = sl[(size_t)j1 * (size_t)ni + (size_t)i1];
    if (lo)
        *lo = fmin(*lo, fmin(fmin(a00, a10), fmin(a01, a11)));
    if (hi)
        *hi = fmax(*hi, fmax(fmax(a00, a10), fmax(a01, a11)));
    return (1 - s) * (1 - t) * a00 + s * (1 - t) * a10 + (1 - s) * t * a01 + s * t * a11;
}

/* Multilinear sample of face component `axis` at point x (clamped to the
 * grid); lo and hi (may be NULL) get the smallest and largest of the grid
 * values it used. Inline: the particle and advection loops call it millions of times a step. */
static inline double mac_sample_range(const mac_grid *g, int axis, const double *q, const double *x, double *lo,
                                      double *hi)
{
    int ni = g->nx + (axis == 0), nj = g->ny + (axis == 1), nk = g->nz + (axis == 2);
    double f[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < g->dim; d++)   /* faces sit half a cell off the cell corners across their normal */
        f[d] = (x[d] - g->origin[d]) / g->dx - (d == axis ? 0.0 : 0.5);
    if (lo)
        *lo = INFINITY;
    if (hi)
        *hi = -INFINITY;
    if (g->dim == 2)
        return mac_bilinear_slice(q, ni, nj, 0, f[0], f[1], lo, hi);
    double r;
    int k = mac_lerp_index(f[2], nk, &r), k1 = k + 1 < nk ? k + 1 : k;
    double b0 = mac_bilinear_slice(q, ni, nj, k, f[0], f[1], lo, hi);
    double b1 = mac_bilinear_slice(q, ni, nj, k1, f[0], f[1], lo, hi);
    return (1 - r) * b0 + r * b1;
}

/* Multilinear (bi- or trilinear) sample of the face component `axis` at a point x (clamped to the grid). */
static inline double mac_sample(const mac_grid *g, int axis, const double *q, const double *x)
{
    return mac_sample_range(g, axis, q, x, NULL, NULL);
}

/* All dim components of the face velocities vel at point x into u: the same
 * numbers as mac_sample per component, with the clamped indices and weights
 * of each axis worked out once for the two staggerings (faces along their
 * normal, cell centres across it); and with the same indices and weights
 * the face velocities vel2 into u2 when vel2 is not NULL. */
static inline void mac_sample_velocity2(const mac_grid *g, double *const vel[3], double *const vel2[3],
                                        const double *x, double *u, double *u2)
{
    int idx[3][2] = {{0, 0}, {0, 0}, {0, 0}};    /* [axis][0: centres, 1: faces] */
    double w[3][2] = {{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}};
    const int n[3] = {g->nx, g->ny, g->nz};
    for (int d = 0; d < g->dim; d++) {
        double f = (x[d] - g->origin[d]) / g->dx;
        idx[d][0] = mac_lerp_index(f - 0.5, n[d], &w[d][0]);
        idx[d][1] = mac_lerp_index(f - 0.0, n[d] + 1, &w[d][1]);
    }
    for (int a = 0; a < g->dim; a++) {
        int ni = n[0] + (a == 0), nj = n[1] + (a == 1), nk = n[2] + (a == 2);
        int i = idx[0][a == 0], j = idx[1][a == 1];
        double s = w[0][a == 0], t = w[1][a == 1];
        int i1 = i + 1 < ni ? i + 1 : i, j1 = j + 1 < nj ? j + 1 : j;
        size_t r0 = (size_t)j * (size_t)ni, r1 = (size_t)j1 * (size_t)ni;
        for (int field = 0; field < (vel2 ? 2 : 1); field++) {
            const double *q = field ? vel2[a] : vel[a];
            double *out = field ? u2 : u;
            if (g->dim == 2) {
                out[a] = (1 - s) * (1 - t) * q[r0 + (size_t)i] + s * (1 - t) * q[r0 + (size_t)i1] +
                         (1 - s) * t * q[r1 + (size_t)i] + s * t * q[r1 + (size_t)i1];
                continue;
            }
            int k = idx[2][a == 2], k1 = k + 1 < nk ? k + 1 : k;
            double r = w[2][a == 2];
            const double *q0 = q + (size_t)k * (size_t)ni * (size_t)nj;
            const double *q1 = q + (size_t)k1 * (size_t)ni * (size_t)nj;
            double b0 = (1 - s) * (1 - t) * q0[r0 + (size_t)i] + s * (1 - t) * q0[r0 + (size_t)i1] +
                        (1 - s) * t * q0[r1 + (size_t)i] + s * t * q0[r1 + (size_t)i1];
            double b1 = (1 - s) * (1 - t) * q1[r0 + (size_t)i] + s * (1 - t) * q1[r0 + (size_t)i1] +
                        (1 - s) * t * q1[r1 + (size_t)i] + s * t * q1[r1 + (size_t)i1];
            out[a] = (1 - r) * b0 + r * b1;
        }
    }
}

static inline void mac_sample_velocity(const mac_grid *g, double *const vel[3], const double *x, double *u)
{
    mac_sample_velocity2(g, vel, NULL, x, u, NULL);
}

/* Semi-Lagrangian advection of vel0 by itself over dt with an RK2
 * (midpoint) backtrace, into vel. */
void mac_advect(const mac_grid *g, double *const vel0[3], double dt, double *const vel[3]);

/* The same with the MacCormack correction (Selle et al. 2008): a forward and
 * a backward semi-Lagrangian step estimate the forward error, half of it is
 * removed, and each value is clamped to the range of the grid values its
 * forward sample interpolated (no new extrema). Uses all of w->face. */
void mac_advect_maccormack(const mac_grid *g, double *const vel0[3], double dt, double *const vel[3],
                           const mac_work *w);

/* The same with BFECC (Kim et al. 2005): a forward and a backward step give
 * the round trip's error, half of it is taken off u^n, and the corrected field
 * is advected forward; each value is clamped to the range of the u^n values
 * its forward sample interpolated (no new extrema). Uses all of w->face. */
void mac_advect_bfecc(const mac_grid *g, double *const vel0[3], double dt, double *const vel[3], const mac_work *w);

/* Loops that run on the widest vector unit the CPU has: a copy for AVX2
 * next to the baseline one, chosen when the library loads. Both do the
 * same IEEE operations lane by lane (no contraction into FMA under ISO C),
 * so they give the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && \
    defined(__has_attribute)
#if __has_attribute(target_clones)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef VECTOR_CLONES
#define VECTOR_CLONES
#endif


/* Preconditioners of the pressure PCG. */
typedef enum mac_precond { MAC_PRECOND_MG = 0, MAC_PRECOND_MIC0 = 1 } mac_precond;
/* Where multigrid PCG's vectors live: over the unknowns (numbered through
 * mac_projection.index), or over all cells, zero at the non-unknown ones,
 * so that A p and the V-cycle run on PCG's vectors in place (docs/fluid_mac.md,
 * step 6). AUTO: all cells unless the cells that are no unknowns (solid or
 * air) are more than a quarter of the grid (grid.c's cell_space). */
typedef enum mac_pcg_space { MAC_PCG_AUTO = 0, MAC_PCG_UNKNOWNS = 1, MAC_PCG_CELLS = 2 } mac_pcg_space;

/* Geometric multigrid V-cycle on the cells (multigrid.c). */
typedef struct mac_mg mac_mg;
/* (Re)build the levels for this geometry: level 0 is the assembled stencil
 * (index: unknown per cell or -1; Adiag, Aplus borrowed until the next
 * build). Reuses m when the grid is the same. */
mac_mg *mac_mg_build(mac_mg *m, const mac_grid *g, const mac_geometry *geo, const int32_t *index,
                     const double *Adiag, double *const Aplus[3]);
/* z = one V-cycle applied to r (both over the n unknowns; cell: their cells;
 * n = cells: over all cells, r zero off the unknowns, z then zero there too);
 * returns r . z, taken slab by slab in the V-cycle's last pass and summed in
 * row order (the same with any thread count). */
double mac_mg_apply(mac_mg *m, size_t n, const int32_t *cell, const double *r, double *z);
/* y = A x over all cells (0 off the unknowns), with level 0's
 * stencil; returns x . y summed in row order (the same with any thread count). */
double mac_mg_apply_dot(mac_mg *m, const double *x, double *y);
void mac_mg_free(mac_mg **self_p);
/* The least bytes one multigrid-preconditioned CG iteration over vectors of
 * n entries (the unknowns, or all cells) moves (the model is stated in multigrid.c). */
double mac_mg_iteration_bytes(const mac_mg *m, size_t n);

/* Pressure projection workspace: the matrix-free Poisson operator over fluid
 * cells and its preconditioner, MIC(0) or multigrid. */
typedef struct mac_projection {
    mac_precond precond;     /* chosen by the configuration (kept by mac_projection_free) */
    mac_pcg_space space;     /* multigrid: where PCG's vectors live (kept by mac_projection_free) */
    int in_cells;            /* the last solve ran PCG over all cells (MAC_PCG_AUTO's choice) */
    mac_mg *mg;
    size_t n;                /* fluid cells (unknowns) */
    int32_t *index;          /* per cell: unknown index or -1 */
    int32_t *cell;           /* per unknown: cell */
    double *Adiag, *Aplus[3];   /* per cell, Bridson's stencil storage (Aplusi, Aplusj, Aplusk) */
    double *precon;          /* per cell, MIC(0): 1 / diagonal of L (allocated with that preconditioner only) */
    double *L[3];            /* per cell: Aplus[axis] * precon (as precon, one per axis of the grid) */
    double *b, *p, *tmp;     /* per unknown */
    double *work;            /* PCG's 4 vectors, per cell (kept: no fresh pages per solve) */
    double *region_sum;      /* remove_region_means' sums, one per region (kept between calls) */
    int region_cap;          /* regions region_sum has room for */
    int iterations;
    double residual;
    double pcg_cpu_ms, pcg_wall_ms;   /* the last solve's PCG: process CPU and wall time */
    double iteration_bytes;  /* multigrid: mac_mg_iteration_bytes of the last solve; MIC(0): 0 */
    /* the operator the preconditioner was last built for (solve_poisson
     * builds it again only when one of these changes): per cell */
    double *built_diag, *built_plus[3];
    int32_t *built_index;
    uint8_t *built_solid;
    int built;               /* 1: the preconditioner and the built_* arrays hold */
    mac_precond built_precond;   /* ...and which preconditioner that is */
    long builds;             /* preconditioners built so far (the tests count them) */
} mac_projection;

/* Make the divergence of vel in fluid cells equal to the volume sources s
 * (1/s per cell; NULL: zero): solve A p = -(rho/dt) dx^2 (div u* - s) with
 * PCG (P->precond: multigrid or MIC(0)), compatible right-hand side in regions without an open side,
 * their mean pressure set to zero. p gets the pressure per cell (0 in solids)
 * and holds the initial guess. Returns SEAM_UNSTABLE (logged) when PCG fails. */
seam_status mac_project(mac_projection *P, const mac_grid *g, const mac_geometry *geo, const double *s,
                        double rho, double dt, double tol, int max_iter, double *const vel[3], double *p,
                        const seam_host *host);
void mac_projection_free(mac_projection *P);

/* Implicit viscosity: (I - nu dt Lap) w = u - e, u <- w + e, for each
 * component over the faces the projection owns (fluid on both sides, or an
 * open side or free surface face), e = keep[axis] (an increment left out of
 * the diffusion, the body forces'; keep[axis] may be NULL), IC(0)-PCG to the
 * relative tolerance tol. Walls, bodies and inflows (FACE_FIXED neighbours, at
 * their present values in vel) and a wall side across (no slip, ghost -u)
 * are Dirichlet; a shell between two faces is a wall at dx/2 moving with U
 * (dim per geo face, the interface velocity W V); faces outside the liquid
 * and open sides are zero-gradient. With dv (dim per geo face, or NULL), the
 * velocity the fluid's faces gave to each solid face through their viscous
 * links, nu dt / dx^2 (w - u_solid) summed (rho dx A / dt times it is the
 * viscous force on the solid there). Adds the PCG iterations to *iterations;
 * SEAM_UNSTABLE (logged) when PCG fails. */
seam_status mac_diffuse(const mac_grid *g, const mac_geometry *geo, const double *U, double *const keep[3],
                        double nu_dt, double tol, int max_iter, double *const vel[3], double *dv, int *iterations,
                        const seam_host *host);

/* The displacement field d = -grad q (per face, m) with div d = e per fluid
 * cell (walls and solids let nothing through, p = 0 at Dirichlet faces):
 * spreads crowded particles apart. scratch: room for 2 numbers per cell (the
 * right-hand side and q), kept by the caller so the step allocates nothing. */
seam_status mac_spread(mac_projection *P, const mac_grid *g, const mac_geometry *geo, const double *e,
                       double *scratch, double tol, int max_iter, double *const d[3], const seam_host *host);

/* Conservative transport of a cell scalar q (first-order upwind finite
 * volumes) by the face velocities vel over dt, in as many sub-steps as
 * keep every cell's outflow below its content. Faces beside a solid or
 * crossed by a shell carry nothing; a boundary face carries, when it flows in, the outside value
 * qb[axis] at that face. Volume sources s (1/s per cell, may be NULL) add
 * s q_src per unit time. Returns the number of sub-steps, -1 when more
 * than max_sub would be needed (q untouched). */
int mac_transport_scalar(const mac_grid *g, const mac_geometry *geo, double *const vel[3], double dt,
                         double *const qb[3], const double *s, const double *q_src, int max_sub, double *q);

/* Net outflow per unit time of cell (i,j,k) divided by its volume (1/s). */
double mac_divergence(const mac_grid *g, double *const vel[3], int i, int j, int k);

/* ---- marker particles of the liquid (particles.c); positions interleaved by dim ---- */

/* Particles sorted by the cell holding them (counting sort, storage order
 * kept within a cell): the particles of cell c are order[start[c] ..
 * start[c + 1]). The transfers below sort into it and then go through the
 * grid in slabs of cell layers, two apart at once on threads, so every sum
 * is taken in the same order with any number of threads. */
typedef struct mac_bins {
    size_t *start;           /* ncell + 1 */
    size_t *order;           /* n */
    uint32_t *cell;          /* per particle: its cell */
    size_t n, cap, ncell;
} mac_bins;

/* (Re)sort particles x into b (grown as needed). */
void mac_bins_sort(mac_bins *b, const mac_grid *g, size_t n, const double *x);
void mac_bins_free(mac_bins *b);

/* Level set of the liquid at cell centres from particles x (n, interleaved):
 * phi = |x - xbar| - r with xbar the kernel-weighted mean of the particles
 * within 2 dx (Zhu and Bridson's smoothed union of spheres), particles
 * mirrored across walls and solid cells (solid may be NULL) filled with
 * per_axis^dim points like the liquid; cells with no point that close get +2 dx.
 * Its kernel sums go in w->cell, the particles' order in bins. */
void mac_level_set(const mac_grid *g, size_t n, const double *x, double r, const uint8_t *solid, int per_axis,
                   const mac_work *w, mac_bins *bins, double *phi);

/* Particle velocities to faces with multilinear weights (faces with no weight
 * get 0); the weights go in w->face[0]. */
void mac_particles_to_grid(const mac_grid *g, size_t n, const double *x, const double *vp, const mac_work *w,
                           mac_bins *bins, double *const vel[3]);

/* Multilinear samples of vel at each particle into out (n*dim); reference:
 * one component at a time through mac_ref_sample, on one thread (the same numbers). */
void mac_grid_to_particles(const mac_grid *g, size_t n, const double *x, double *const vel[3], double *out,
                           int reference);

/* Both vel into out and vel2 into out2 at once, the indices and weights found
 * once per particle: the numbers of two mac_grid_to_particles calls. */
void mac_grid_to_particles2(const mac_grid *g, size_t n, const double *x, double *const vel[3], double *out,
                            double *const vel2[3], double *out2);

/* Particles per cell, counted with multilinear (cloud-in-cell) weights at the
 * cell centres; weight beyond the outer centres folds back into the grid.
 * sorted: bins already hold these n particles x (the last mac_level_set of
 * them sorted them), else they are sorted here. */
void mac_particle_density(const mac_grid *g, size_t n, const double *x, mac_bins *bins, int sorted, double *count);

/* The same three as they were before issue 18 (particles_reference.c): one
 * particle at a time in storage order on one thread, summed in that order. */
void mac_ref_level_set(const mac_grid *g, size_t n, const double *x, double r, const uint8_t *solid, int per_axis,
                       const mac_work *w, double *phi);
void mac_ref_particles_to_grid(const mac_grid *g, size_t n, const double *x, const double *vp, const mac_work *w,
                               double *const vel[3]);
void mac_ref_particle_density(const mac_grid *g, size_t n, const double *x, double *count);
/* mac_sample as a call, not inlined: how the particle loops sampled before issue 18. */
double mac_ref_sample(const mac_grid *g, int axis, const double *q, const double *x);

/* What the particle tests need of one shell element, worked out once per
 * move instead of once per particle. */
typedef struct mac_shell_elem {
    double d[3];             /* mean displacement of its points over the move */
    double v[3][3];          /* end positions of its points */
    double edge[3][3];       /* 3D: v[m+1] - v[m]; 2D: edge[0] = b - a */
    double nrm[3];           /* 3D: edge[0] x (v[2] - v[0]), not normalised */
    double len;              /* 2D: segment length; 3D: |nrm| */
    double lo[3], hi[3];     /* bounding box of the end positions, padded */
} mac_shell_elem;

/* Thin shells that stop particles: the two-sided segments (2D) or triangles
 * (3D), with their points' positions at the start (X0) and the end (X1) of the move. */
typedef struct mac_shells {
    size_t n;                /* elements */
    const int32_t *seg;      /* dim point indices per element */
    const double *X0, *X1;   /* dim numbers per point */
    mac_shell_elem *elem;    /* room for n, filled by each move (NULL: worked out per particle) */
} mac_shells;

/* Move particles through vel over dt (RK2 midpoint): walls hold them,
 * those that cross an open side are dropped (x and vp compacted); a particle
 * whose path crosses a shell (relative to the shell's own motion) stops on
 * its side of it, 1e-3 dx away, and loses the velocity it had into the
 * shell (relative to the shell). shells may be NULL. Returns the number kept.
 * Particles move on threads, each on its own (the same result with any
 * number); reference: one thread, each velocity component sampled through
 * mac_ref_sample (the same numbers, as before issue 18). */
size_t mac_advect_particles(const mac_grid *g, size_t n, double *x, double *vp, double *const vel[3], double dt,
                            const mac_shells *shells, int reference);

/* The same, given u0 (n*dim): vel already sampled at x (mac_grid_to_particles
 * of x, bit for bit what the move's first stage would sample), so the first
 * RK2 stage reads it instead of sampling again. */
size_t mac_advect_particles_from(const mac_grid *g, size_t n, double *x, double *vp, double *const vel[3],
                                 const double *u0, double dt, const mac_shells *shells, int reference);

#endif
