/* fluid_mac: a geometric multigrid V-cycle on the MAC grid's cells, the
 * preconditioner of the pressure PCG (McAdams, Sifakis and Teran 2010, "A
 * parallel multigrid Poisson solver for fluids simulation on large grids").
 *
 * Level 0 is the assembled Poisson stencil itself (free-surface ghost-fluid
 * diagonals included); each coarser level halves the cells per axis and
 * rediscretizes the 5- or 7-point stencil on coarsened cell types: a coarse
 * cell is Dirichlet (air) when any child is, else fluid when any child is,
 * else solid (Neumann), as in the paper's section 4. Transfers are the
 * cell-centred multilinear prolongation P (a coarse cell behind a wall or
 * in a solid gives its weight to the parent) and restriction (4 / 2^d) P^T,
 * the smoother red-black Gauss-Seidel, red then black before the coarse
 * correction and black then red after it, so the V-cycle is a symmetric
 * operator and PCG may use it. Thin shells block faces on level 0 only: the
 * coarse levels do not see them, which costs iterations, not accuracy. */
#include <stdlib.h>
#include <string.h>

#include "mac.h"

enum { MG_FLUID = 0, MG_DIRICHLET = 1, MG_SOLID = 2 };
enum { MG_MAX_LEVELS = 16, MG_SMOOTH = 2 };

typedef struct mg_level {
    int n[3];                /* cells per axis (n[2] = 1 in 2D) */
    size_t nc;
    uint8_t *type;           /* MG_* per cell */
    double *diag, *plus[3];  /* stencil (level 0: borrowed from the projection) */
    double *x, *b, *r;
} mg_level;

struct mac_mg {
    int dim, n_levels;
    mac_bc bc[6];            /* the domain's sides: walls are Neumann, open sides Dirichlet */
    int nx, ny, nz;          /* the grid the levels were sized for */
    mg_level lev[MG_MAX_LEVELS];
};

static size_t idx(const mg_level *L, int i, int j, int k)
{
    return (size_t)i + (size_t)L->n[0] * ((size_t)j + (size_t)L->n[1] * (size_t)k);
}

static size_t stride(const mg_level *L, int a)
{
    return a == 0 ? 1 : a == 1 ? (size_t)L->n[0] : (size_t)L->n[0] * (size_t)L->n[1];
}

void mac_mg_free(mac_mg **self_p)
{
    if (!self_p || !*self_p)
        return;
    mac_mg *m = *self_p;
    for (int l = 0; l < m->n_levels; l++) {
        mg_level *L = &m->lev[l];
        free(L->type);
        if (l > 0) {
            free(L->diag);
            for (int a = 0; a < 3; a++)
                free(L->plus[a]);
        }
        free(L->x);
        free(L->b);
        free(L->r);
    }
    free(m);
    *self_p = NULL;
}

static mac_mg *mg_alloc(const mac_grid *g)
{
    mac_mg *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->dim = g->dim;
    m->nx = g->nx;
    m->ny = g->ny;
    m->nz = g->nz;
    int n[3] = {g->nx, g->ny, g->nz};
    int ok = 1;
    for (int l = 0; l < MG_MAX_LEVELS && ok; l++) {
        mg_level *L = &m->lev[l];
        memcpy(L->n, n, sizeof n);
        L->nc = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
        m->n_levels = l + 1;
        ok &= (L->type = malloc(L->nc)) != NULL;
        ok &= (L->x = calloc(L->nc, sizeof(double))) != NULL;
        ok &= (L->b = calloc(L->nc, sizeof(double))) != NULL;
        ok &= (L->r = calloc(L->nc, sizeof(double))) != NULL;
        if (l > 0) {
            ok &= (L->diag = calloc(L->nc, sizeof(double))) != NULL;
            for (int a = 0; a < g->dim; a++)
                ok &= (L->plus[a] = calloc(L->nc, sizeof(double))) != NULL;
        }
        /* Coarsen while every axis keeps at least 4 cells on the next level. */
        int smallest = n[0] < n[1] ? n[0] : n[1];
        if (g->dim == 3 && n[2] < smallest)
            smallest = n[2];
        if (smallest < 8)
            break;
        for (int a = 0; a < g->dim; a++)
            n[a] = (n[a] + 1) / 2;
    }
    if (!ok)
        mac_mg_free(&m);
    return m;
}

/* Coarse cell types from the children, then the rediscretized stencil:
 * -1 between fluid cells, the diagonal counting fluid and Dirichlet
 * neighbours and open sides (p = 0 half a cell out: 2, as on level 0). */
static void coarsen(const mac_grid *g, const mg_level *F, mg_level *C, int dim)
{
    for (int k = 0; k < C->n[2]; k++)
        for (int j = 0; j < C->n[1]; j++)
            for (int i = 0; i < C->n[0]; i++) {
                int dirichlet = 0, fluid = 0;
                for (int dk = 0; dk < (dim == 3 ? 2 : 1); dk++)
                    for (int dj = 0; dj < 2; dj++)
                        for (int di = 0; di < 2; di++) {
                            int fi = 2 * i + di, fj = 2 * j + dj, fk = 2 * k + dk;
                            if (fi >= F->n[0] || fj >= F->n[1] || fk >= F->n[2])
                                continue;
                            uint8_t t = F->type[idx(F, fi, fj, fk)];
                            dirichlet |= t == MG_DIRICHLET;
                            fluid |= t == MG_FLUID;
                        }
                C->type[idx(C, i, j, k)] = dirichlet ? MG_DIRICHLET : fluid ? MG_FLUID : MG_SOLID;
            }
    for (int k = 0; k < C->n[2]; k++)
        for (int j = 0; j < C->n[1]; j++)
            for (int i = 0; i < C->n[0]; i++) {
                size_t c = idx(C, i, j, k);
                const int ijk[3] = {i, j, k};
                C->diag[c] = 0.0;
                for (int a = 0; a < dim; a++)
                    C->plus[a][c] = 0.0;
                if (C->type[c] != MG_FLUID)
                    continue;
                for (int a = 0; a < dim; a++)
                    for (int up = 0; up < 2; up++) {
                        int m = ijk[a] + (up ? 1 : -1);
                        if (m < 0 || m >= C->n[a]) {
                            C->diag[c] += g->bc[2 * a + up] == BC_OPEN ? 2.0 : 0.0;
                            continue;
                        }
                        size_t nb = up ? c + stride(C, a) : c - stride(C, a);
                        uint8_t t = C->type[nb];
                        C->diag[c] += t == MG_SOLID ? 0.0 : 1.0;
                        if (up && t == MG_FLUID)
                            C->plus[a][c] = -1.0;
                    }
            }
}

mac_mg *mac_mg_build(mac_mg *m, const mac_grid *g, const mac_geometry *geo, const int32_t *index,
                     const double *Adiag, double *const Aplus[3])
{
    if (m && (m->nx != g->nx || m->ny != g->ny || m->nz != g->nz || m->dim != g->dim))
        mac_mg_free(&m);
    if (!m && !(m = mg_alloc(g)))
        return NULL;
    memcpy(m->bc, g->bc, sizeof m->bc);
    mg_level *L0 = &m->lev[0];
    for (size_t c = 0; c < L0->nc; c++)
        L0->type[c] = index[c] >= 0 ? MG_FLUID : geo->solid[c] ? MG_SOLID : MG_DIRICHLET;
    L0->diag = (double *)Adiag;   /* borrowed: level 0 is the assembled operator */
    for (int a = 0; a < 3; a++)
        L0->plus[a] = Aplus[a];
    for (int l = 1; l < m->n_levels; l++)
        coarsen(g, &m->lev[l - 1], &m->lev[l], g->dim);
    return m;
}

/* Off-diagonal part of row c times x: sum over neighbours of A(c, nb) x(nb). */
static inline double offdiag(const mg_level *L, int dim, size_t c, const int *ijk, const double *x)
{
    double s = 0.0;
    for (int a = 0; a < dim; a++) {
        size_t st = stride(L, a);
        if (ijk[a] + 1 < L->n[a])
            s += L->plus[a][c] * x[c + st];
        if (ijk[a] > 0)
            s += L->plus[a][c - st] * x[c - st];
    }
    return s;
}

/* One Gauss-Seidel half sweep over the cells of one colour ((i+j+k) % 2). */
static void smooth_colour(mg_level *L, int dim, int colour)
{
    double *x = L->x;
    const double *b = L->b;
    for (int k = 0; k < L->n[2]; k++)
        for (int j = 0; j < L->n[1]; j++)
            for (int i = (j + k + colour) & 1; i < L->n[0]; i += 2) {
                size_t c = idx(L, i, j, k);
                if (L->type[c] != MG_FLUID || L->diag[c] == 0.0)
                    continue;
                const int ijk[3] = {i, j, k};
                x[c] = (b[c] - offdiag(L, dim, c, ijk, x)) / L->diag[c];
            }
}

static void residual(mg_level *L, int dim)
{
    for (int k = 0; k < L->n[2]; k++)
        for (int j = 0; j < L->n[1]; j++)
            for (int i = 0; i < L->n[0]; i++) {
                size_t c = idx(L, i, j, k);
                if (L->type[c] != MG_FLUID) {
                    L->r[c] = 0.0;
                    continue;
                }
                const int ijk[3] = {i, j, k};
                L->r[c] = L->b[c] - L->diag[c] * L->x[c] - offdiag(L, dim, c, ijk, L->x);
            }
}

/* The coarse cells and weights of fine cell (i, j, k) in the multilinear
 * prolongation: 3/4 of the parent and 1/4 of the parent's neighbour on the
 * fine cell's side, per axis. A coarse cell behind a wall or inside a solid
 * has no value of its own (Neumann): its weight goes to the parent, so
 * constants near walls are kept. One behind an open side holds 0
 * (Dirichlet). Returns the number of (cell, weight) pairs. */
static int prolong_weights(const mac_mg *m, const mg_level *C, int i, int j, int k, size_t *cell, double *w)
{
    const int f[3] = {i, j, k};
    int dim = m->dim, n = 0, count = 1 << dim;
    const int parent[3] = {i / 2, j / 2, dim == 3 ? k / 2 : 0};
    size_t pc = idx(C, parent[0], parent[1], parent[2]);
    double to_parent = 0.0;
    for (int q = 0; q < count; q++) {
        int c[3] = {parent[0], parent[1], parent[2]}, outside = 0, open = 0;
        double wq = 1.0;
        for (int a = 0; a < dim; a++) {
            if (q >> a & 1) {
                int up = f[a] % 2;
                c[a] += up ? 1 : -1;
                wq *= 0.25;
                if (c[a] < 0 || c[a] >= C->n[a]) {
                    outside = 1;
                    open |= m->bc[2 * a + up] == BC_OPEN;
                }
            } else {
                wq *= 0.75;
            }
        }
        if (outside) {
            if (!open)
                to_parent += wq;
            continue;
        }
        size_t cc = idx(C, c[0], c[1], c[2]);
        if (C->type[cc] == MG_SOLID) {
            to_parent += wq;
            continue;
        }
        cell[n] = cc;
        w[n++] = wq;
    }
    /* q = 0 is the parent itself, always first in the list when inside. */
    if (n > 0 && cell[0] == pc)
        w[0] += to_parent;
    return n;
}

/* The same weights, quickly where all 2^d coarse cells are fluid and inside
 * (most cells): the products of 3/4 and 1/4 are exact, so the result is
 * the general one bit for bit. */
static inline int weights(const mac_mg *m, const mg_level *C, int i, int j, int k, size_t *cell, double *w)
{
    int dim = m->dim;
    const int f[3] = {i, j, k};
    size_t base = 0, step[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++) {
        int p = f[a] / 2, nb = f[a] % 2 ? p + 1 : p - 1;
        if (nb < 0 || nb >= C->n[a])
            return prolong_weights(m, C, i, j, k, cell, w);
        base += (size_t)p * stride(C, a);
        step[a] = stride(C, a);
    }
    int count = 1 << dim;
    for (int q = 0; q < count; q++) {
        size_t c = base;
        double wq = 1.0;
        for (int a = 0; a < dim; a++) {
            if (q >> a & 1) {
                c = f[a] % 2 ? c + step[a] : c - step[a];
                wq *= 0.25;
            } else {
                wq *= 0.75;
            }
        }
        if (C->type[c] != MG_FLUID)
            return prolong_weights(m, C, i, j, k, cell, w);
        cell[q] = c;
        w[q] = wq;
    }
    return count;
}

/* C->b = (4 / 2^d) P^T F->r: the fine residual as the coarse right-hand side
 * (the operators are scaled by h^2, so each coarsening multiplies by 4). */
static void restrict_residual(const mac_mg *m, const mg_level *F, mg_level *C)
{
    memset(C->b, 0, C->nc * sizeof *C->b);
    double scale = m->dim == 3 ? 0.5 : 1.0, w[8];
    size_t cell[8];
    for (int k = 0; k < F->n[2]; k++)
        for (int j = 0; j < F->n[1]; j++)
            for (int i = 0; i < F->n[0]; i++) {
                double r = F->r[idx(F, i, j, k)];
                if (r == 0.0)
                    continue;
                int n = weights(m, C, i, j, k, cell, w);
                for (int q = 0; q < n; q++)
                    C->b[cell[q]] += scale * w[q] * r;
            }
    for (size_t c = 0; c < C->nc; c++)
        if (C->type[c] != MG_FLUID)
            C->b[c] = 0.0;
}

/* F->x += P C->x on fluid cells. */
static void prolong_add(const mac_mg *m, mg_level *F, const mg_level *C)
{
    double w[8];
    size_t cell[8];
    for (int k = 0; k < F->n[2]; k++)
        for (int j = 0; j < F->n[1]; j++)
            for (int i = 0; i < F->n[0]; i++) {
                size_t f = idx(F, i, j, k);
                if (F->type[f] != MG_FLUID)
                    continue;
                int n = weights(m, C, i, j, k, cell, w);
                double s = 0.0;
                for (int q = 0; q < n; q++)
                    s += w[q] * C->x[cell[q]];
                F->x[f] += s;
            }
}

static void vcycle(mac_mg *m, int l)
{
    mg_level *L = &m->lev[l];
    int dim = m->dim;
    memset(L->x, 0, L->nc * sizeof *L->x);
    if (l == m->n_levels - 1) {
        /* The coarsest grid (a few cells per axis): symmetric sweeps until
         * information has crossed it a few times. */
        int n = L->n[0] > L->n[1] ? L->n[0] : L->n[1];
        n = n > L->n[2] ? n : L->n[2];
        for (int s = 0; s < 2 * n; s++) {
            smooth_colour(L, dim, 0);
            smooth_colour(L, dim, 1);
        }
        for (int s = 0; s < 2 * n; s++) {
            smooth_colour(L, dim, 1);
            smooth_colour(L, dim, 0);
        }
        return;
    }
    for (int s = 0; s < MG_SMOOTH; s++) {
        smooth_colour(L, dim, 0);
        smooth_colour(L, dim, 1);
    }
    residual(L, dim);
    restrict_residual(m, L, &m->lev[l + 1]);
    vcycle(m, l + 1);
    prolong_add(m, L, &m->lev[l + 1]);
    for (int s = 0; s < MG_SMOOTH; s++) {
        smooth_colour(L, dim, 1);
        smooth_colour(L, dim, 0);
    }
}

void mac_mg_apply(mac_mg *m, size_t n, const int32_t *cell, const double *r, double *z)
{
    mg_level *L0 = &m->lev[0];
    memset(L0->b, 0, L0->nc * sizeof *L0->b);
    for (size_t u = 0; u < n; u++)
        L0->b[cell[u]] = r[u];
    vcycle(m, 0);
    for (size_t u = 0; u < n; u++)
        z[u] = L0->x[cell[u]];
}
