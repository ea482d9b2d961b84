/* Takahashi's multilevel SPH pressure solver with unified solid handling
 * (his 2020 thesis, ch. 3; takahashi.h), on fluid_sph's particles.
 *
 * Classes (ch. 3.4): isolated (no neighbour: p = 0), Dirichlet (rho*_i <
 * DIRICHLET_DENSITY rho0: p = 0), separated (solid neighbours only: p_i =
 * max(0, b_i / alpha_i), eq. 3.2 alone), Poisson (the unknowns), with
 * rho*_i = rho_i + dt D rho_i / D t from the velocities u* (ch. 3.3.2) and
 * b_i = (rho*_i - rho0) / dt^2.
 *
 * The system over the Poisson particles is the density change of the
 * pressure acceleration the step applies (sph_apply_pressure: symmetric
 * fluid-fluid form, Akinci's boundary term with the boundary's pressure
 * mirrored), A p' = b with A = D G / rho0^2 on p' = rho0^2 k (k = p / rho^2;
 * p' = p at rest density), D the density rate, the adjoint of G, so A is
 * symmetric positive (semi)definite. Its solid block is Takahashi's term:
 * eq. 3.1's density change under the boundary force alone gives
 * alpha_i p_i, alpha_i = (rho0^2 / rho_i^2) |sum_s V_s grad W_is|^2 (eq. 3.2,
 * here with the mirror: SPH_MIRROR^2 |sum_b psi_b grad W_ib|^2 / rho_i^2);
 * with it a group of Poisson particles touching a solid is solvable without a
 * Dirichlet particle. Takahashi writes the fluid part as the ISPH Laplacian
 * sum_j a_ij (p_i - p_j) and amplifies the source to make up for what that
 * drops at solids (eq. 3.3, gamma = 5, plus alpha_i p~_i of the last step).
 * That system was built here first and solved by the same MGCG: in the tank
 * at rest (test_takahashi.c, 1000 particles, fluid_sph's lattice walls) it
 * never settles: with the force it models the Akinci term counted once, a
 * corner particle leaves at 0.9 m/s in the first step; mirrored, as the rest
 * of fluid_sph counts it, the tank sloshes at 0.3 to 1 m/s with density
 * errors of 0.4 to 1.1% and the pressure 20 cm down at 0.1 to 4 times rho g
 * depth over 2 s, with gamma 5 and with gamma 1 (no amplification) alike.
 * The operator the step applies leaves nothing to amplify (Takahashi's beta_i
 * is 1 when the modified system is the original one), and with it the tank
 * rests (0.05 m/s, density error 4e-5).
 *
 * CG (core seam_pcg_until) stops at Takahashi's criterion (ch. 3.6): the mean
 * over the Poisson particles of the positive density error the residual
 * leaves, max(0, r_i) dt^2 / rho0, at most eta. The preconditioner is one
 * V-cycle of the multilevel solver (ch. 3.5):
 *   particles: one weighted Jacobi sweep before and after the coarse correction;
 *   particles -> finest grid (cells of size dx = h, ch. 3.5.6): r_c = (lambda / n_ref) sum_{i in c} r_i,
 *     n_ref the particles a cell holds at rest, so R = k P^T (the Galerkin
 *     property CG needs, ch. 3.5.4) and at rest density it is Takahashi's
 *     lambda times the mean over the cell (ch. 3.5.2);
 *   grid -> particles: piecewise constant, p_i += p_c;
 *   grids: the 5- or 7-point Laplacian on cells typed Dirichlet (any
 *     Dirichlet particle), Poisson (any Poisson particle) or Neumann (ch.
 *     3.5.3), plus the cells' share of alpha (so a grid without a Dirichlet
 *     cell stays solvable, as the particles are), coarsened by the voxel rule
 *     of McAdams et al. 2010 and rediscretized, red-black Gauss-Seidel
 *     (red-black before, black-red after: a symmetric cycle), averaging
 *     restriction and piecewise-constant prolongation between grid levels,
 *     several symmetric sweeps on the coarsest instead of an exact solve (ch. 3.5.5). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/krylov.h"
#include "takahashi.h"

enum { MAX_LEVELS = 16 };
enum { CELL_POISSON = 0, CELL_DIRICHLET = 1, CELL_NEUMANN = 2 };
#define JACOBI_WEIGHT (2.0 / 3.0)   /* the particle-level smoother's weight */
/* Dirichlet when rho*_i < 0.97 rho0. Takahashi takes 0.99 (ch. 3.3.2); in the
 * tank at rest (tests/fluid_sph/test_takahashi.c) 0.99 lets particles in the
 * bottom corners, 1% light for a step, turn Dirichlet: their p = 0 is a hole
 * the fluid falls into, and after 1.5 s the tank still stirs at up to 0.32
 * m/s with density errors up to 3.8e-4 and the pressure 20 cm down at 0.75
 * to 1.16 times rho g depth; at 0.97 it settles (0.9 leaves groups of
 * Poisson particles without a Dirichlet one near the surface, and it blows
 * up). */
#define DIRICHLET_DENSITY 0.97

typedef struct grid_level {
    int n[3];
    size_t nc;
    double coef;             /* 1 / dx_l^2: the Laplacian's off-diagonal magnitude */
    uint8_t *type;
    double *alpha, *diag, *x, *b, *r;
} grid_level;

struct sph_takahashi {
    int dim, n_levels;
    double lo[3], dx;
    grid_level lev[MAX_LEVELS];
    /* per particle (capacity cap) */
    size_t n, cap;
    uint8_t *cls;
    int32_t *unknown;
    double *diag, *alpha, *b;
    size_t *cell;            /* finest-grid cell of each unknown */
    double *kfull, *acc, *zero_vb;   /* the operator's work: k of every particle, G k, boundary at rest */
    size_t nb_cap;
    /* per unknown */
    size_t nu;
    int32_t *who;
    double *x, *rhs, *dinv, *tmp;
    double scale;            /* lambda / n_ref */
    const sph_fluid *f;      /* the solve in progress */
    const sph_geometry *G;
    /* the stop test */
    double dt2_rho0, eta, error;
};

static size_t cell_index(const grid_level *L, int i, int j, int k)
{
    return (size_t)i + (size_t)L->n[0] * ((size_t)j + (size_t)L->n[1] * (size_t)k);
}

static void free_particles(sph_takahashi *T);

void sph_takahashi_destroy(sph_takahashi **self_p)
{
    if (!self_p || !*self_p)
        return;
    sph_takahashi *T = *self_p;
    for (int l = 0; l < T->n_levels; l++) {
        grid_level *L = &T->lev[l];
        free(L->type);
        free(L->alpha);
        free(L->diag);
        free(L->x);
        free(L->b);
        free(L->r);
    }
    free_particles(T);
    free(T->zero_vb);
    free(T);
    *self_p = NULL;
}

sph_takahashi *sph_takahashi_new(int dim, const double *lo, const double *hi, double dx)
{
    sph_takahashi *T = SEAM_NEW(sph_takahashi);
    T->dim = dim;
    T->dx = dx;
    int n[3] = {1, 1, 1};
    for (int d = 0; d < dim; d++) {
        T->lo[d] = lo[d];
        n[d] = (int)fmax(1.0, ceil((hi[d] - lo[d]) / dx - 1e-9));
    }
    double h = dx;
    for (int l = 0; l < MAX_LEVELS; l++) {
        grid_level *L = &T->lev[l];
        memcpy(L->n, n, sizeof n);
        L->nc = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
        L->coef = 1.0 / (h * h);
        T->n_levels = l + 1;
        L->type = seam_xmalloc(L->nc);
        L->alpha = SEAM_NEW_N(double, L->nc);
        L->diag = SEAM_NEW_N(double, L->nc);
        L->x = SEAM_NEW_N(double, L->nc);
        L->b = SEAM_NEW_N(double, L->nc);
        L->r = SEAM_NEW_N(double, L->nc);
        /* Coarsen while every axis keeps at least 4 cells on the next level. */
        int smallest = n[0];
        for (int d = 1; d < dim; d++)
            smallest = n[d] < smallest ? n[d] : smallest;
        if (smallest < 8)
            break;
        for (int d = 0; d < dim; d++)
            n[d] = (n[d] + 1) / 2;
        h *= 2.0;
    }
    return T;
}

static void free_particles(sph_takahashi *T)
{
    void *arrays[] = {T->cls, T->unknown, T->diag, T->alpha, T->b,   T->cell, T->who,
                      T->x,   T->rhs,     T->dinv, T->tmp,   T->kfull, T->acc};
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; a++)
        free(arrays[a]);
    T->cap = 0;
}

/* Room for n particles in dim axes and nb boundary particles. */
static void reserve(sph_takahashi *T, size_t n, size_t dim, size_t nb)
{
    if (nb > T->nb_cap || !T->zero_vb) {
        free(T->zero_vb);
        T->zero_vb = SEAM_NEW_N(double, dim * nb + 1);
        T->nb_cap = nb;
    }
    if (n <= T->cap && T->cls)
        return;
    free_particles(T);
    size_t cap = n + n / 4 + 16;
    T->cls = seam_xmalloc(cap);
    T->unknown = seam_xmalloc_n(cap, sizeof *T->unknown);
    T->who = seam_xmalloc_n(cap, sizeof *T->who);
    T->cell = seam_xmalloc_n(cap, sizeof *T->cell);
    T->acc = seam_xmalloc_n(dim * cap, sizeof *T->acc);
    double **arr[] = {&T->diag, &T->alpha, &T->b, &T->x, &T->rhs, &T->dinv, &T->tmp, &T->kfull};
    for (size_t a = 0; a < sizeof arr / sizeof arr[0]; a++)
        *arr[a] = seam_xmalloc_n(cap, sizeof(double));
    T->cap = cap;
}

/* ---- the grid levels ------------------------------------------------------ */

/* Diagonal of the rediscretized Laplacian plus alpha on the Poisson cells of L:
 * coef times the neighbours that are not Neumann (a Dirichlet neighbour holds
 * 0; the domain's sides are walls). */
static void level_stencil(grid_level *L, int dim)
{
    for (int k = 0; k < L->n[2]; k++)
        for (int j = 0; j < L->n[1]; j++)
            for (int i = 0; i < L->n[0]; i++) {
                size_t c = cell_index(L, i, j, k);
                L->diag[c] = 0.0;
                if (L->type[c] != CELL_POISSON)
                    continue;
                const int ijk[3] = {i, j, k};
                int open = 0;
                for (int a = 0; a < dim; a++)
                    for (int s = -1; s <= 1; s += 2) {
                        int m[3] = {i, j, k};
                        m[a] = ijk[a] + s;
                        if (m[a] < 0 || m[a] >= L->n[a])
                            continue;
                        open += L->type[cell_index(L, m[0], m[1], m[2])] != CELL_NEUMANN;
                    }
                L->diag[c] = L->coef * open + L->alpha[c];
            }
}

/* Coarse types (Dirichlet if any child is, else Poisson if any child is, else
 * Neumann: McAdams et al. 2010) and alpha (the children's mean: the Galerkin
 * product of the piecewise-constant transfers with a diagonal). */
static void coarsen(const grid_level *F, grid_level *C, int dim)
{
    double share = dim == 3 ? 0.125 : 0.25;
    for (int k = 0; k < C->n[2]; k++)
        for (int j = 0; j < C->n[1]; j++)
            for (int i = 0; i < C->n[0]; i++) {
                int dirichlet = 0, poisson = 0;
                double alpha = 0.0;
                for (int dk = 0; dk < (dim == 3 ? 2 : 1); dk++)
                    for (int dj = 0; dj < 2; dj++)
                        for (int di = 0; di < 2; di++) {
                            int fi = 2 * i + di, fj = 2 * j + dj, fk = 2 * k + dk;
                            if (fi >= F->n[0] || fj >= F->n[1] || fk >= F->n[2])
                                continue;
                            size_t f = cell_index(F, fi, fj, fk);
                            dirichlet |= F->type[f] == CELL_DIRICHLET;
                            poisson |= F->type[f] == CELL_POISSON;
                            alpha += F->type[f] == CELL_POISSON ? F->alpha[f] : 0.0;
                        }
                size_t c = cell_index(C, i, j, k);
                C->type[c] = dirichlet ? CELL_DIRICHLET : poisson ? CELL_POISSON : CELL_NEUMANN;
                C->alpha[c] = C->type[c] == CELL_POISSON ? share * alpha : 0.0;
            }
}

static double offdiag(const grid_level *L, int dim, int i, int j, int k, const double *x)
{
    const int ijk[3] = {i, j, k};
    double s = 0.0;
    for (int a = 0; a < dim; a++)
        for (int d = -1; d <= 1; d += 2) {
            int m[3] = {i, j, k};
            m[a] = ijk[a] + d;
            if (m[a] < 0 || m[a] >= L->n[a])
                continue;
            size_t c = cell_index(L, m[0], m[1], m[2]);
            if (L->type[c] == CELL_POISSON)
                s -= L->coef * x[c];
        }
    return s;
}

/* One Gauss-Seidel half sweep over the Poisson cells of one colour. */
static void smooth_colour(grid_level *L, int dim, int colour)
{
    for (int k = 0; k < L->n[2]; k++)
        for (int j = 0; j < L->n[1]; j++)
            for (int i = (j + k + colour) & 1; i < L->n[0]; i += 2) {
                size_t c = cell_index(L, i, j, k);
                if (L->type[c] != CELL_POISSON || !(L->diag[c] > 0.0))
                    continue;
                L->x[c] = (L->b[c] - offdiag(L, dim, i, j, k, L->x)) / L->diag[c];
            }
}

static void grid_residual(grid_level *L, int dim)
{
    for (int k = 0; k < L->n[2]; k++)
        for (int j = 0; j < L->n[1]; j++)
            for (int i = 0; i < L->n[0]; i++) {
                size_t c = cell_index(L, i, j, k);
                L->r[c] = L->type[c] == CELL_POISSON
                              ? L->b[c] - L->diag[c] * L->x[c] - offdiag(L, dim, i, j, k, L->x)
                              : 0.0;
            }
}

/* C->b = 2^-d P^T F->r (the children's mean); F->x += P C->x (piecewise constant). */
static void grid_transfer(grid_level *F, grid_level *C, int dim, int restrict_down)
{
    double share = dim == 3 ? 0.125 : 0.25;
    if (restrict_down)
        memset(C->b, 0, C->nc * sizeof *C->b);
    for (int k = 0; k < F->n[2]; k++)
        for (int j = 0; j < F->n[1]; j++)
            for (int i = 0; i < F->n[0]; i++) {
                size_t f = cell_index(F, i, j, k), c = cell_index(C, i / 2, j / 2, k / 2);
                if (F->type[f] != CELL_POISSON || C->type[c] != CELL_POISSON)
                    continue;
                if (restrict_down)
                    C->b[c] += share * F->r[f];
                else
                    F->x[f] += C->x[c];
            }
}

static void vcycle(sph_takahashi *T, int l)
{
    grid_level *L = &T->lev[l];
    int dim = T->dim;
    memset(L->x, 0, L->nc * sizeof *L->x);
    if (l == T->n_levels - 1) {
        int sweeps = 2 * (L->n[0] > L->n[1] ? L->n[0] : L->n[1]);
        sweeps = 2 * L->n[2] > sweeps ? 2 * L->n[2] : sweeps;
        for (int s = 0; s < sweeps; s++) {
            smooth_colour(L, dim, 0);
            smooth_colour(L, dim, 1);
        }
        for (int s = 0; s < sweeps; s++) {
            smooth_colour(L, dim, 1);
            smooth_colour(L, dim, 0);
        }
        return;
    }
    smooth_colour(L, dim, 0);
    smooth_colour(L, dim, 1);
    grid_residual(L, dim);
    grid_transfer(L, &T->lev[l + 1], dim, 1);
    vcycle(T, l + 1);
    grid_transfer(L, &T->lev[l + 1], dim, 0);
    smooth_colour(L, dim, 1);
    smooth_colour(L, dim, 0);
}

static void system_apply(void *ctx, const double *x, double *y);

/* z = one V-cycle on r (both over the unknowns): Jacobi, the grids, Jacobi. */
static void mg_apply(void *ctx, const double *r, double *z)
{
    sph_takahashi *T = ctx;
    size_t nu = T->nu;
    for (size_t u = 0; u < nu; u++)
        z[u] = JACOBI_WEIGHT * T->dinv[u] * r[u];
    system_apply(T, z, T->tmp);
    grid_level *L = &T->lev[0];
    memset(L->b, 0, L->nc * sizeof *L->b);
    for (size_t u = 0; u < nu; u++) {
        size_t c = T->cell[u];
        if (L->type[c] == CELL_POISSON)
            L->b[c] += T->scale * (r[u] - T->tmp[u]);
    }
    vcycle(T, 0);
    for (size_t u = 0; u < nu; u++)
        z[u] += L->x[T->cell[u]];   /* 0 in a Dirichlet cell */
    system_apply(T, z, T->tmp);
    for (size_t u = 0; u < nu; u++)
        z[u] += JACOBI_WEIGHT * T->dinv[u] * (r[u] - T->tmp[u]);
}

/* Takahashi's criterion: the mean positive density error over the Poisson
 * particles, max(0, r_i) dt^2 (the density the residual leaves), relative to rho0. */
static int density_converged(void *ctx, const double *x, const double *r)
{
    (void)x;
    sph_takahashi *T = ctx;
    double sum = 0.0;
    for (size_t u = 0; u < T->nu; u++)
        sum += fmax(0.0, r[u]);
    T->error = T->nu ? sum / (double)T->nu * T->dt2_rho0 : 0.0;
    return T->error <= T->eta;
}

/* ---- the system ------------------------------------------------------------ */

/* The operator of the solve over the unknowns: y = (1 / rho0^2) D G x, with G
 * the pressure acceleration the step applies (sph_apply_pressure: the
 * symmetric fluid-fluid form and the Akinci boundary term mirrored, on
 * k = p' / rho0^2, the other particles' k held at 0) and D the density
 * rate (sph_density_rate, its adjoint). */
static void system_apply(void *ctx, const double *x, double *y)
{
    sph_takahashi *T = ctx;
    const sph_fluid *f = T->f;
    const sph_geometry *G = T->G;
    size_t n = T->n, d = (size_t)f->dim;
    double inv = 1.0 / (f->rho0 * f->rho0);
    memset(T->kfull, 0, n * sizeof *T->kfull);
    memset(T->acc, 0, d * n * sizeof *T->acc);
    for (size_t u = 0; u < T->nu; u++)
        T->kfull[T->who[u]] = inv * x[u];
    sph_apply_pressure(f, G, -1.0, T->kfull, T->acc);   /* acc = G k */
#pragma omp parallel for schedule(static) if (T->nu >= SPH_OMP_MIN)
    for (size_t u = 0; u < T->nu; u++)
        y[u] = sph_density_rate(f, G, T->acc, T->zero_vb, (size_t)T->who[u]);
}

int sph_takahashi_solve(sph_takahashi *T, const sph_fluid *f, const sph_geometry *G, double dt, const double *vb,
                        const sph_takahashi_opts *o, double *v, double *p, double *k,
                        sph_solve_stats *st)
{
    size_t n = G->n, d = (size_t)f->dim;
    *st = (sph_solve_stats){0};
    T->n = n;
    T->nu = 0;
    T->f = f;
    T->G = G;
    reserve(T, n, d, G->nb);
    const double rho0 = f->rho0, m = f->m;
    /* Predicted densities rho*_i (ch. 3.3.2), b_i = (rho*_i - rho0) / dt^2, the
     * solid term alpha_i of eq. 3.2 (Takahashi eq. 3.1 for the boundary force
     * the step applies: Akinci's, mirrored, so
     * alpha_i = SPH_MIRROR^2 |sum_b psi_b grad W_ib|^2 / rho_i^2), the diagonal
     * of the operator, and the classes (ch. 3.4). */
#pragma omp parallel for schedule(static) if (n >= SPH_OMP_MIN)
    for (size_t i = 0; i < n; i++) {
        double rho_star = G->rho[i] + dt * sph_density_rate(f, G, v, vb, i);
        T->b[i] = (rho_star - rho0) / (dt * dt);
        double gb[3] = {0.0, 0.0, 0.0}, gf[3] = {0.0, 0.0, 0.0}, sq = 0.0;
        for (size_t q = G->fb.start[i]; q < G->fb.start[i + 1]; q++)
            for (size_t c = 0; c < d; c++)
                gb[c] += SPH_MIRROR * G->fb.gw[d * q + c];
        for (size_t q = G->ff.start[i]; q < G->ff.start[i + 1]; q++)
            for (size_t c = 0; c < d; c++) {
                gf[c] += m * G->ff.gw[d * q + c];
                sq += m * m * G->ff.gw[d * q + c] * G->ff.gw[d * q + c];
            }
        double gb2 = gb[0] * gb[0] + gb[1] * gb[1] + gb[2] * gb[2];
        T->alpha[i] = gb2 / (G->rho[i] * G->rho[i]);
        /* (D G)_ii / rho0^2: |the particle's own gradient sum, boundary included|^2 + its neighbours' share */
        T->diag[i] = ((gf[0] + gb[0]) * (gf[0] + gb[0]) + (gf[1] + gb[1]) * (gf[1] + gb[1]) +
                      (gf[2] + gb[2]) * (gf[2] + gb[2]) + sq) / (rho0 * rho0);
        int fluid = G->ff.start[i + 1] - G->ff.start[i] > 1;   /* itself is in its row */
        int solid = G->fb.start[i + 1] > G->fb.start[i];
        T->cls[i] = !fluid && !solid                      ? SPH_ISOLATED
                    : rho_star < DIRICHLET_DENSITY * rho0 ? SPH_DIRICHLET
                    : !fluid                              ? SPH_SEPARATED
                                                          : SPH_POISSON;
    }
    for (size_t i = 0; i < n; i++) {
        T->unknown[i] = T->cls[i] == SPH_POISSON ? (int32_t)T->nu : -1;
        if (T->cls[i] == SPH_POISSON)
            T->who[T->nu++] = (int32_t)i;
    }
    size_t nu = T->nu;
    for (size_t u = 0; u < nu; u++) {
        size_t i = (size_t)T->who[u];
        T->dinv[u] = T->diag[i] > 0.0 ? 1.0 / T->diag[i] : 0.0;
        T->rhs[u] = T->b[i];
        /* From zero: warm-started with the last pressures, CG stops (Takahashi's criterion
         * counts only compression) with the excess of a start that is too high left in
         * place; at a dam's face that throws particles out at 3 m/s in the first step. */
        T->x[u] = 0.0;
    }
    /* The finest grid: the cell of each unknown, the cells' types and alpha (restricted like the residual). */
    grid_level *L0 = &T->lev[0];
    memset(L0->type, CELL_NEUMANN, L0->nc);
    memset(L0->alpha, 0, L0->nc * sizeof *L0->alpha);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            if (T->cls[i] != (pass ? SPH_DIRICHLET : SPH_POISSON))
                continue;
            int c3[3] = {0, 0, 0};
            for (size_t c = 0; c < d; c++) {
                long a = (long)floor((G->xi[d * i + c] - T->lo[c]) / T->dx);
                c3[c] = a < 0 ? 0 : a >= L0->n[c] ? L0->n[c] - 1 : (int)a;
            }
            size_t cell = cell_index(L0, c3[0], c3[1], c3[2]);
            L0->type[cell] = pass ? CELL_DIRICHLET : CELL_POISSON;
            if (!pass)
                T->cell[T->unknown[i]] = cell;
        }
    /* lambda / n_ref, n_ref = dx^dim / V0 the particles of a cell at rest (V0 = m / rho0) */
    T->scale = o->lambda * m / (rho0 * pow(T->dx, (double)f->dim));
    for (size_t u = 0; u < nu; u++) {
        size_t c = T->cell[u];
        if (L0->type[c] == CELL_POISSON)
            L0->alpha[c] += T->scale * T->alpha[T->who[u]];
    }
    level_stencil(L0, T->dim);
    for (int l = 1; l < T->n_levels; l++) {
        coarsen(&T->lev[l - 1], &T->lev[l], T->dim);
        level_stencil(&T->lev[l], T->dim);
    }
    /* MGCG (or plain CG) to Takahashi's density-error threshold. */
    int rc = 0;
    if (nu) {
        T->dt2_rho0 = dt * dt / rho0;
        T->eta = o->eta;
        T->error = 0.0;
        seam_linop op = {nu, system_apply, T}, M = {nu, mg_apply, T};
        seam_krylov_opts ko = {.tol = 0.0, .abs_tol = 0.0, .max_iter = o->max_iter, .restart = 0};
        seam_krylov_stats ks;
        rc = seam_pcg_until(&op, o->multigrid ? &M : NULL, T->rhs, T->x, &ko, density_converged, T, &ks) == 0 ? 0 : 1;
        int used = ks.iterations;
        if (rc && ks.breakdown && o->multigrid && used < o->max_iter) {
            /* The V-cycle (Gauss-Seidel sweeps, clamped cells) is not exactly symmetric: r.z <= 0 happens
             * (the 3D tank, now and then). Plain CG on the SPD system goes on from the iterate reached. */
            st->fallback = 1;
            ko.max_iter = o->max_iter - used;
            rc = seam_pcg_until(&op, NULL, T->rhs, T->x, &ko, density_converged, T, &ks) == 0 ? 0 : 1;
        }
        st->iterations = used + (st->fallback ? ks.iterations : 0);
        st->breakdown = ks.breakdown;
        st->error = T->error;
    }
    /* Pressures: the unknowns, separated particles from eq. 3.2 alone, 0 elsewhere; clamped at 0. */
    for (size_t i = 0; i < n; i++) {
        double ki = 0.0;
        if (T->cls[i] == SPH_POISSON)
            ki = T->x[T->unknown[i]] / (rho0 * rho0);
        else if (T->cls[i] == SPH_SEPARATED && T->alpha[i] > 0.0)
            ki = T->b[i] / T->alpha[i] / (G->rho[i] * G->rho[i]);
        k[i] = fmax(0.0, ki);
        p[i] = k[i] * G->rho[i] * G->rho[i];
    }
    sph_apply_pressure(f, G, dt, k, v);
    return rc;
}

sph_takahashi_system sph_takahashi_last(const sph_takahashi *T)
{
    return (sph_takahashi_system){T->n, T->nu, T->cls, T->unknown, T->diag, T->alpha, T->b, T->n_levels};
}
