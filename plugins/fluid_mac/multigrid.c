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
 * coarse levels do not see them, which costs iterations, not accuracy.
 *
 * Memory traffic: each level keeps its stencil as one byte per cell (which
 * neighbours couple with -1, whether the cell is smoothed) and the inverse
 * diagonal (levels above 0 with rows of at most MG_LIST_ROW cells also a
 * list of their cells' neighbours for the sweeps, see build_lists, which
 * reads more bytes but runs faster on such short rows); the half sweeps
 * before the coarse correction (and the residual)
 * run as one pipelined pass over the slabs (rows in 2D, planes in 3D), stage
 * t on slab s - t, and so do the prolongation and the half sweeps after it.
 * A half sweep reads only the other colour, so the pipeline gives the plain
 * sweep order's results bit for bit. On OpenMP threads each thread runs the
 * pipeline over its own block of slabs, short of the block edges, and the
 * edges' triangles are finished after a barrier: the same results with any
 * number of threads. A level under MAC_OMP_MIN cells (every coarse level of
 * a 2D grid of a few thousand cells, and level 0 of such a grid) runs its
 * passes on the calling thread without entering a parallel region at all: in
 * libgomp each region costs a futex call even with one thread and under a
 * false if clause (about 2 us, 800 per time step of a 64 x 96 scene); such a
 * level also restricts its residual inside its pass before the coarse
 * correction (restrict_in_pipeline), the residual kept in a ring of a few
 * slabs instead of a level-sized array. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "mac.h"
#include "seam/alloc.h"
#include "seam/threads.h"

enum { MG_FLUID = 0, MG_DIRICHLET = 1, MG_SOLID = 2 };
enum { MG_MAX_LEVELS = 16, MG_SMOOTH = 2 };
enum { MG_LIST_ROW = 16 };   /* levels above 0 with rows this short sweep from lists (build_lists) */
/* restrict_in_pipeline restricts G coarse slabs at a time, which read the residual of 2 G + 2 fine slabs, kept in
 * a ring of a power of 2 slabs: in 2D MG_GROUP_2D rows (rows are small, and a call per coarse row costs its set-up
 * on every fine row twice), in 3D 3 planes when they are under MG_PLANE_BIG cells (short rows: the same), else 1. */
enum { MG_GROUP_2D = 8, MG_RING_2D = 32, MG_GROUP_3D = 3, MG_RING_3D = 8, MG_PLANE_BIG = 2048 };
_Static_assert(2 * MG_GROUP_2D + 2 <= MG_RING_2D && (MG_RING_2D & (MG_RING_2D - 1)) == 0, "the 2D ring");
_Static_assert(2 * MG_GROUP_3D + 2 <= MG_RING_3D && (MG_RING_3D & (MG_RING_3D - 1)) == 0, "the 3D ring");
/* Bits of mg_level.mask: bit 2a (2a + 1) when the neighbour below (above)
 * along axis a couples with -1; MG_SMOOTHED when the cell is fluid with a
 * nonzero diagonal (Gauss-Seidel updates it). */
enum { MG_SMOOTHED = 1 << 6 };
/* Stages of a pipelined pass (see run_pipeline). */
typedef enum mg_stage { ST_RED_FROM_ZERO, ST_RED, ST_BLACK, ST_RESIDUAL, ST_PROLONG, ST_DOT } mg_stage;
enum { MG_STAGES = 2 * MG_SMOOTH + 1 };
_Static_assert(MG_SMOOTH == 2, "the stage lists in vcycle are written out for two sweeps");

/* What the fine cells of row (j, k) share in the prolongation: per parity
 * of i the offsets from the parent to the 2^d coarse cells (bit a of q: the
 * neighbour along axis a), in the order prolong_weights lists them. fast is
 * 0 when the row's neighbours along y or z leave the grid. The same for
 * every row of a row class (see row_class). */
typedef struct row_map {
    ptrdiff_t off[2][8];
    ptrdiff_t drow[8];       /* per q: its coarse row from the parents' row */
    int count, fast;
} row_map;

/* prolong_weights' lists for the cells of a fine row whose parents' rows
 * along y or z leave the grid (the rows next to the domain's faces): the
 * same for every cell of the row whose x neighbour lies inside, when the
 * coarse rows inside are all fluid. Per listed q (in prolong_weights'
 * order): its offset from the parent per parity of i, its weight (an
 * outside row's weight goes to the parent behind a wall, is dropped behind
 * an open side), its coarse row (from the parents' row) and whether it is
 * the x neighbour. */
typedef struct row_weights {
    int n;
    ptrdiff_t off[2][8];
    double w[8];
    ptrdiff_t drow[8];
    int xbit[8];
} row_weights;

/* prolong_weights' list of a row's end cell whose x neighbour leaves the
 * grid (i = 0, and i = n[0] - 1 when n[0] is even), when the coarse rows it
 * reaches are all fluid: offsets from its parent and weights. */
typedef struct row_end {
    int n;
    ptrdiff_t off[8];
    double w[8];
} row_end;

/* Rows whose parents and their neighbours along y and z fall alike: the
 * parity of j (k) and whether the parent's neighbour on that side lies
 * inside. Everything prolong_row and restrict_slabs need that is the same
 * for all rows of a class is built once per mac_mg_build, not per row and
 * pass (the end cells' lists were prolong_weights calls, two per row and
 * transfer: a sixth of an iteration at 32^3). */
enum { MG_ROW_CLASSES = 16 };

typedef struct row_class {
    row_map rm;
    row_weights rw;          /* rows with !rm.fast */
    row_end end[2];          /* i = 0, i = n[0] - 1 */
} row_class;

typedef struct mg_level {
    int n[3];                /* cells per axis (n[2] = 1 in 2D) */
    size_t nc;
    size_t slab;             /* cells per slab: a row in 2D, a plane in 3D */
    int n_slabs;
    uint8_t *type;           /* MG_* per cell */
    uint8_t *mask;           /* the stencil's neighbours and MG_SMOOTHED per cell */
    uint8_t *row_fluid;      /* per row (j, k): every cell fluid */
    uint8_t *row_full;       /* per row: cells 1 .. n[0] - 2 couple to all 2 d neighbours, have diagonal 2 d
                              * and are smoothed (no stencil reads there) */
    size_t n_partial;        /* cells outside the full rows' cells 1 .. n[0] - 2 (their diagonals are read) */
    uint8_t *row_common;     /* per row not full: the mask its cells 1 .. n[0] - 2 share, all smoothed (a wall's
                              * or an open side's row; unit levels), else 0 */
    uint8_t *row_inner;      /* per row: its neighbour rows (y, z, both) inside and all fluid (gather restriction) */
    double *row_w;           /* per row with row_common coupling both ways along x: the idiag its cells 1 .. n[0] - 2
                              * share (a wall's or an open side's row: the vector sweep), else 0 */
    const double *diag;      /* stencil (level 0: borrowed from the projection, only read) */
    double *plus[3];
    double *diag_store;      /* coarse levels: the diag that coarsen writes */
    double *idiag;           /* 1 / diag on smoothed cells */
    int unit;                /* every off-diagonal -1 or 0 (coarse levels; level 0 unless a caller scaled it) */
    double *x, *r;           /* x: nc + 1 doubles, x[nc] = 0 (the coarsest level's lists point there) */
    const double *b;         /* the right-hand side: b_store, or level 0 the caller's r (mac_mg_apply) */
    double *b_store;         /* what restriction (and mac_mg_apply) writes */
    double *ring;            /* while restrict_in_pipeline runs: the residual of the last ring_slabs slabs, slab s
                              * in slot s % ring_slabs (else NULL: the residual is r, every slab) */
    int ring_slabs;          /* a power of 2 */
    int planes;              /* slabs are planes (3D), else rows */
    int32_t *list;           /* short-row levels above level 0 (see build_lists): per slab and colour its
                              * smoothed cells, each with its 2 d neighbours in offdiag's order (nc: none) */
    size_t *list_at;         /* colour c, slab s: entries list_at[c S + s] .. list_at[c S + s + 1] - 1 (S slabs) */
    row_class *cls;          /* MG_ROW_CLASSES: this level's rows against the next coarser level */
} mg_level;

struct mac_mg {
    int dim, n_levels;
    mac_bc bc[6];            /* the domain's sides: walls are Neumann, open sides Dirichlet */
    int nx, ny, nz;          /* the grid the levels were sized for */
    mg_level lev[MG_MAX_LEVELS];
    int row_threads;         /* restrict_residual's threads at most: one row buffer of nx doubles each */
    double *rows;
    double *row_dot;         /* per row of level 0: its part of a dot product (summed in row order) */
    double *ring;            /* MG_RING_2D or MG_RING_3D slabs of level 0 (restrict_in_pipeline) */
};

/* Row kernels are inlined into the slab functions, which VECTOR_CLONES
 * compiles for the widest vector unit too. */
#ifdef __GNUC__
#define ROW_KERNEL static inline __attribute__((always_inline))
#else
#define ROW_KERNEL static inline
#endif

static size_t idx(const mg_level *L, int i, int j, int k)
{
    return (size_t)i + (size_t)L->n[0] * ((size_t)j + (size_t)L->n[1] * (size_t)k);
}

/* Row (j, k) of the level's residual: in r, or in its slab's slot of the ring. */
static inline double *res_row(const mg_level *L, int j, int k)
{
    if (!L->ring)
        return L->r + idx(L, 0, j, k);
    int s = L->planes ? k : j;
    size_t in_slab = L->planes ? (size_t)j * (size_t)L->n[0] : 0;
    return L->ring + (size_t)(s & (L->ring_slabs - 1)) * L->slab + in_slab;
}

/* The threads a pass over nc cells may use: 1 (no parallel region) under
 * MAC_OMP_MIN cells or without OpenMP. */
static int level_threads(size_t nc)
{
#ifdef _OPENMP
    return nc >= MAC_OMP_MIN ? omp_get_max_threads() : 1;
#else
    (void)nc;
    return 1;
#endif
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
        free(L->mask);
        free(L->row_fluid);
        free(L->row_full);
        free(L->row_inner);
        free(L->row_common);
        free(L->row_w);
        free(L->idiag);
        if (l > 0) {
            free(L->diag_store);
            for (int a = 0; a < 3; a++)
                free(L->plus[a]);
        }
        free(L->x);
        free(L->b_store);
        free(L->r);
        free(L->cls);
        free(L->list);
        free(L->list_at);
    }
    free(m->rows);
    free(m->row_dot);
    free(m->ring);
    free(m);
    *self_p = NULL;
}

static mac_mg *mg_alloc(const mac_grid *g)
{
    mac_mg *m = SEAM_NEW(mac_mg);
    m->dim = g->dim;
    m->nx = g->nx;
    m->ny = g->ny;
    m->nz = g->nz;
    int n[3] = {g->nx, g->ny, g->nz};
    m->row_threads = 1;
#ifdef _OPENMP
    m->row_threads = omp_get_max_threads();
#endif
    if (m->row_threads < seam_threads_max())   /* the most a later pass may get from the thread policy */
        m->row_threads = seam_threads_max();
    m->rows = seam_xmalloc((size_t)m->row_threads * (size_t)g->nx * sizeof *m->rows);
    m->row_dot = seam_xmalloc((size_t)g->ny * (size_t)g->nz * sizeof *m->row_dot);
    size_t slab0 = g->dim == 3 ? (size_t)g->nx * (size_t)g->ny : (size_t)g->nx;
    m->ring = seam_xmalloc((size_t)(g->dim == 3 ? MG_RING_3D : MG_RING_2D) * slab0 * sizeof *m->ring);
    for (int l = 0; l < MG_MAX_LEVELS; l++) {
        mg_level *L = &m->lev[l];
        memcpy(L->n, n, sizeof n);
        L->nc = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
        L->slab = g->dim == 3 ? (size_t)n[0] * (size_t)n[1] : (size_t)n[0];
        L->n_slabs = g->dim == 3 ? n[2] : n[1];
        L->planes = g->dim == 3;
        m->n_levels = l + 1;
        L->type = seam_xmalloc(L->nc);
        L->mask = seam_xmalloc(L->nc);
        L->row_fluid = seam_xmalloc((size_t)n[1] * (size_t)n[2]);
        L->row_full = seam_xmalloc((size_t)n[1] * (size_t)n[2]);
        L->row_inner = seam_xmalloc((size_t)n[1] * (size_t)n[2]);
        L->row_common = seam_xmalloc((size_t)n[1] * (size_t)n[2]);
        L->row_w = seam_xmalloc((size_t)n[1] * (size_t)n[2] * sizeof *L->row_w);
        L->idiag = seam_xmalloc(L->nc * sizeof(double));
        L->x = seam_xcalloc(L->nc + 1, sizeof(double));
        L->b = L->b_store = seam_xcalloc(L->nc, sizeof(double));
        L->r = seam_xcalloc(L->nc, sizeof(double));
        L->cls = seam_xcalloc(MG_ROW_CLASSES, sizeof *L->cls);
        if (l > 0) {
            L->diag = L->diag_store = seam_xcalloc(L->nc, sizeof(double));
            for (int a = 0; a < g->dim; a++)
                L->plus[a] = seam_xcalloc(L->nc, sizeof(double));
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
    for (int l = 1; l < m->n_levels; l++) {
        mg_level *L = &m->lev[l];
        if (L->n[0] > MG_LIST_ROW && l < m->n_levels - 1)
            continue;
        L->list = seam_xmalloc(L->nc * (size_t)(1 + 2 * g->dim) * sizeof *L->list);
        L->list_at = seam_xmalloc((2 * (size_t)L->n_slabs + 1) * sizeof *L->list_at);
    }
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
                C->diag_store[c] = 0.0;
                for (int a = 0; a < dim; a++)
                    C->plus[a][c] = 0.0;
                if (C->type[c] != MG_FLUID)
                    continue;
                for (int a = 0; a < dim; a++)
                    for (int up = 0; up < 2; up++) {
                        int m = ijk[a] + (up ? 1 : -1);
                        if (m < 0 || m >= C->n[a]) {
                            C->diag_store[c] += g->bc[2 * a + up] == BC_OPEN ? 2.0 : 0.0;
                            continue;
                        }
                        size_t nb = up ? c + stride(C, a) : c - stride(C, a);
                        uint8_t t = C->type[nb];
                        C->diag_store[c] += t == MG_SOLID ? 0.0 : 1.0;
                        if (up && t == MG_FLUID)
                            C->plus[a][c] = -1.0;
                    }
            }
}

/* build_mask's mask and idiag over plane k. */
static void mask_plane(mg_level *L, int dim, int k)
{
    for (int j = 0; j < L->n[1]; j++)
        for (int i = 0; i < L->n[0]; i++) {
            size_t c = idx(L, i, j, k);
            const int ijk[3] = {i, j, k};
            uint8_t mk = 0;
            int smoothed = L->type[c] == MG_FLUID && L->diag[c] != 0.0;
            if (L->type[c] == MG_FLUID)
                for (int a = 0; a < dim; a++) {
                    size_t st = stride(L, a);
                    if (ijk[a] > 0 && L->plus[a][c - st] != 0.0)
                        mk |= (uint8_t)(1u << (2 * a));
                    if (ijk[a] + 1 < L->n[a] && L->plus[a][c] != 0.0)
                        mk |= (uint8_t)(1u << (2 * a + 1));
                }
            L->mask[c] = (uint8_t)(mk | (smoothed ? MG_SMOOTHED : 0));
            L->idiag[c] = smoothed ? 1.0 / L->diag[c] : 0.0;
        }
}

/* The stencil as bits (every off-diagonal is -1 or 0, on every level) and
 * the inverse diagonal, once per build: the sweeps read one byte and one
 * double per cell instead of 1 + d doubles and the cell type. */
static void build_mask(mg_level *L, int dim)
{
    int unit = 1;
    for (int a = 0; a < dim; a++)
        for (size_t c = 0; c < L->nc && unit; c++)
            unit = L->plus[a][c] == 0.0 || L->plus[a][c] == -1.0;
    L->unit = unit;
    if (level_threads(L->nc) > 1) {
#pragma omp parallel for schedule(static)
        for (int k = 0; k < L->n[2]; k++)
            mask_plane(L, dim, k);
    } else {
        for (int k = 0; k < L->n[2]; k++)
            mask_plane(L, dim, k);
    }
    uint8_t full = (uint8_t)(MG_SMOOTHED | ((1u << (2 * dim)) - 1u));
    L->n_partial = 0;
    for (int k = 0; k < L->n[2]; k++)
        for (int j = 0; j < L->n[1]; j++) {
            size_t c0 = idx(L, 0, j, k), r = (size_t)j + (size_t)L->n[1] * (size_t)k;
            int fluid = 1, all = L->n[0] >= 3;
            for (int i = 0; i < L->n[0]; i++) {
                fluid &= L->type[c0 + (size_t)i] == MG_FLUID;
                if (i > 0 && i + 1 < L->n[0])
                    all &= L->mask[c0 + (size_t)i] == full && L->diag[c0 + (size_t)i] == 2.0 * dim;
            }
            L->row_fluid[r] = (uint8_t)fluid;
            L->row_full[r] = (uint8_t)(all && unit);
            uint8_t common = L->n[0] >= 3 && unit && !L->row_full[r] ? L->mask[c0 + 1] : 0;
            for (int i = 1; common && i + 1 < L->n[0]; i++)
                if (L->mask[c0 + (size_t)i] != common || !(common & MG_SMOOTHED))
                    common = 0;
            L->row_common[r] = common;
            double w = (common & 3) == 3 ? L->idiag[c0 + 1] : 0.0;
            for (int i = 2; w != 0.0 && i + 1 < L->n[0]; i++)
                if (L->idiag[c0 + (size_t)i] != w)
                    w = 0.0;
            L->row_w[r] = w;
            L->n_partial += L->row_full[r] ? 2 : (size_t)L->n[0];
        }
    size_t ny = (size_t)L->n[1];
    for (int k = 0; k < L->n[2]; k++)
        for (int j = 0; j < L->n[1]; j++) {
            int inner = j >= 1 && j + 2 <= L->n[1] && L->n[0] >= 3 && (dim == 2 || (k >= 1 && k + 2 <= L->n[2]));
            for (int dk = dim == 3 ? -1 : 0; inner && dk <= (dim == 3 ? 1 : 0); dk++)
                for (int dj = -1; dj <= 1; dj++)
                    inner &= L->row_fluid[(size_t)(j + dj) + ny * (size_t)(k + dk)];
            L->row_inner[(size_t)j + ny * (size_t)k] = (uint8_t)inner;
        }
}

static void build_row_classes(const mac_mg *m, mg_level *F, const mg_level *C);

/* The sweeps of the levels above level 0 whose rows are short (at most
 * MG_LIST_ROW cells, and the coarsest level) run cell by cell from lists:
 * on rows of a few cells the loops' set-up and ends and the mask tests of
 * smooth_row's general path (a different pattern in almost every cell)
 * cost more than the arithmetic. An absent neighbour reads x[nc] = +0 and
 * subtracting +0 changes no sum, so the terms are offdiag's bit for bit;
 * cells of one colour do not couple, so their order does not matter. Every
 * coarse level is unit (off-diagonals -1). */
static void build_lists(mg_level *L, int dim)
{
    int32_t *e = L->list;
    size_t q = 0;
    for (int colour = 0; colour < 2; colour++)
        for (int s = 0; s < L->n_slabs; s++) {
            L->list_at[(size_t)colour * (size_t)L->n_slabs + (size_t)s] = q;
            int k0 = dim == 3 ? s : 0, j0 = dim == 3 ? 0 : s, j1 = dim == 3 ? L->n[1] : s + 1;
            for (int j = j0; j < j1; j++)
                for (int i = (j + k0 + colour) & 1; i < L->n[0]; i += 2) {
                    size_t c = idx(L, i, j, k0);
                    uint8_t mk = L->mask[c];
                    if (!(mk & MG_SMOOTHED))
                        continue;
                    *e++ = (int32_t)c;
                    for (int a = 0; a < dim; a++) {
                        size_t st = stride(L, a);
                        *e++ = (int32_t)(mk & (2u << (2 * a)) ? c + st : L->nc);   /* +x, +y, +z */
                        *e++ = (int32_t)(mk & (1u << (2 * a)) ? c - st : L->nc);   /* -x, -y, -z */
                    }
                    q++;
                }
        }
    L->list_at[2 * L->n_slabs] = q;
}

/* One half sweep of slabs s0 .. s1 - 1 from the level's list (D: 2 d). */
ROW_KERNEL void list_half(mg_level *L, int s0, int s1, int colour, int D)
{
    double *x = L->x;
    const double *b = L->b, *id = L->idiag;
    size_t q0 = L->list_at[(size_t)colour * (size_t)L->n_slabs + (size_t)s0];
    size_t q1 = L->list_at[(size_t)colour * (size_t)L->n_slabs + (size_t)s1];
    const int32_t *e = L->list + q0 * (size_t)(1 + D);
    for (size_t q = q0; q < q1; q++, e += 1 + D) {
        double t = 0.0;
        for (int u = 1; u <= D; u++)
            t -= x[e[u]];
        x[e[0]] = (b[e[0]] - t) * id[e[0]];
    }
}

mac_mg *mac_mg_build(mac_mg *m, const mac_grid *g, const mac_geometry *geo, const int32_t *index,
                     const double *Adiag, double *const Aplus[3])
{
    if (m && (m->nx != g->nx || m->ny != g->ny || m->nz != g->nz || m->dim != g->dim))
        mac_mg_free(&m);
    if (!m)
        m = mg_alloc(g);
    memcpy(m->bc, g->bc, sizeof m->bc);
    mg_level *L0 = &m->lev[0];
    for (size_t c = 0; c < L0->nc; c++)
        L0->type[c] = index[c] >= 0 ? MG_FLUID : geo->solid[c] ? MG_SOLID : MG_DIRICHLET;
    L0->diag = Adiag;   /* borrowed: level 0 is the assembled operator */
    for (int a = 0; a < 3; a++)
        L0->plus[a] = Aplus[a];
    for (int l = 1; l < m->n_levels; l++)
        coarsen(g, &m->lev[l - 1], &m->lev[l], g->dim);
    for (int l = 0; l < m->n_levels; l++)
        build_mask(&m->lev[l], g->dim);
    for (int l = 0; l + 1 < m->n_levels; l++)
        build_row_classes(m, &m->lev[l], &m->lev[l + 1]);
    for (int l = 1; l < m->n_levels; l++)
        if (m->lev[l].list)
            build_lists(&m->lev[l], g->dim);
    return m;
}

/* Off-diagonal part of row c times x: minus the coupled neighbours, in the
 * order +x, -x, +y, -y, +z, -z. */
static inline double offdiag(uint8_t mk, const double *x, size_t c, size_t sy, size_t sz)
{
    double s = 0.0;
    if (mk & 2)
        s -= x[c + 1];
    if (mk & 1)
        s -= x[c - 1];
    if (mk & 8)
        s -= x[c + sy];
    if (mk & 4)
        s -= x[c - sy];
    if (mk & 32)
        s -= x[c + sz];
    if (mk & 16)
        s -= x[c - sz];
    return s;
}

/* offdiag for a level whose coefficients are not all -1 (a caller's scaled
 * level 0): the mask says which neighbours couple, plus[] by how much. */
static inline double offdiag_w(const mg_level *L, uint8_t mk, const double *x, size_t c, size_t sy, size_t sz)
{
    const size_t st[3] = {1, sy, sz};
    double s = 0.0;
    for (int a = 0; a < 3; a++) {
        if (mk & (2u << (2 * a)))
            s += L->plus[a][c] * x[c + st[a]];
        if (mk & (1u << (2 * a)))
            s += L->plus[a][c - st[a]] * x[c - st[a]];
    }
    return s;
}

/* offdiag for the len cells from c of a row whose cells share mask mk:
 * its terms in the same order, each a vector loop over the span. */
enum { SPAN = 128 };

ROW_KERNEL void offdiag_span(uint8_t mk, const double *x, size_t c, int len, size_t sy, size_t sz, double *s)
{
    const double *xc = x + c;
    for (int i = 0; i < len; i++)
        s[i] = 0.0;
    if (mk & 2)
        for (int i = 0; i < len; i++)
            s[i] -= xc[i + 1];
    if (mk & 1)
        for (int i = 0; i < len; i++)
            s[i] -= xc[i - 1];
    if (mk & 8)
        for (int i = 0; i < len; i++)
            s[i] -= xc[(size_t)i + sy];
    if (mk & 4)
        for (int i = 0; i < len; i++)
            s[i] -= *(xc + i - sy);
    if (mk & 32)
        for (int i = 0; i < len; i++)
            s[i] -= xc[(size_t)i + sz];
    if (mk & 16)
        for (int i = 0; i < len; i++)
            s[i] -= *(xc + i - sz);
}

#if defined(__GNUC__) && !defined(__clang__)   /* GCC's vector extensions */
/* A row's half sweep over inner cells that share their stencil (mask mk,
 * coupled both ways along x, inverse diagonal w: a full row's, or a wall's or
 * an open side's row), four cells of the colour at a time (cells i, i + 2,
 * i + 4, i + 6 in lanes 0, 2, 1, 3: then every operand is one shuffle of two
 * loads, and the new values go back with the other colour's unchanged ones in
 * two whole stores). x[c - 1] comes from the last block's registers: a load
 * across the last block's stores would wait for them to retire. The same sums
 * in the same order as smooth_row's loop and offdiag (b - offdiag is b plus
 * the neighbours' sum), lane by lane. Returns the first i left to the
 * caller's loop, and x[c0 + i - 1] in *xm: the caller's loop takes its
 * cells' x[c - 1] from registers too (a load of the last block's store, or
 * gcc's two-cell vector loop loading x[c - 1 .. c] across it, waits for
 * the store to retire: a sixth of a 32^3 iteration went there). */
typedef double mg_v4 __attribute__((vector_size(32)));
typedef double mg_v4u __attribute__((vector_size(32), aligned(8)));   /* at any double */
typedef long long mg_v4i __attribute__((vector_size(32)));

#define MG_EVENS(a, b) __builtin_shuffle(a, b, (mg_v4i){0, 4, 2, 6})
#define MG_ODDS(a, b) __builtin_shuffle(a, b, (mg_v4i){1, 5, 3, 7})

ROW_KERNEL int sweep_blocks(double *x, const double *b, size_t c0, int i, int n, size_t sy, size_t sz, uint8_t mk,
                            double w, double *xm)
{
    if (i + 7 >= n) {
        *xm = x[c0 + (size_t)i - 1];
        return i;
    }
    const mg_v4 wv = {w, w, w, w};
    mg_v4 prev = {0.0, 0.0, 0.0, x[c0 + (size_t)i - 1]};   /* lane 3: x[c - 1] (x[c - 4] was just stored) */
    for (; i + 7 < n; i += 8) {
        double *xc = x + c0 + (size_t)i;
        const double *bc = b + c0 + (size_t)i;
        mg_v4 right = MG_ODDS(*(const mg_v4u *)xc, *(const mg_v4u *)(xc + 4));   /* x[c + 1] */
        mg_v4 left = __builtin_shuffle(prev, right, (mg_v4i){3, 6, 4, 5});     /* x[c - 1] */
        prev = right;
        mg_v4 s = right + left;
        if (mk & 8)
            s = s + MG_EVENS(*(const mg_v4u *)(xc + sy), *(const mg_v4u *)(xc + sy + 4));
        if (mk & 4)
            s = s + MG_EVENS(*(const mg_v4u *)(xc - sy), *(const mg_v4u *)(xc - sy + 4));
        if (mk & 32)
            s = s + MG_EVENS(*(const mg_v4u *)(xc + sz), *(const mg_v4u *)(xc + sz + 4));
        if (mk & 16)
            s = s + MG_EVENS(*(const mg_v4u *)(xc - sz), *(const mg_v4u *)(xc - sz + 4));
        mg_v4 r = (MG_EVENS(*(const mg_v4u *)bc, *(const mg_v4u *)(bc + 4)) + s) * wv;
        *(mg_v4u *)xc = MG_EVENS(r, right);
        *(mg_v4u *)(xc + 4) = MG_ODDS(r, right);
    }
    *xm = prev[3];
    return i;
}
#define MG_VECTOR_SWEEP 1
#endif

/* Gauss-Seidel on the cells of one colour ((i + j + k) % 2) of row (j, k). */
ROW_KERNEL void smooth_row(mg_level *L, int j, int k, int colour)
{
    double *x = L->x;
    const double *b = L->b, *id = L->idiag;
    const uint8_t *mask = L->mask;
    size_t sy = (size_t)L->n[0], sz = sy * (size_t)L->n[1], c0 = idx(L, 0, j, k);
    int first = (j + k + colour) & 1, n = L->n[0];
    if (L->row_full[(size_t)j + (size_t)L->n[1] * (size_t)k]) {
        /* every inner cell couples to all neighbours with diagonal 2 d: no mask tests, no diagonal reads
         * (the same sums in the same order; 1 / 6 is the stored 1 / diag) */
        const double id6 = 1.0 / 6.0;
        int i = first;
        if (i == 0) {
            if (mask[c0] & MG_SMOOTHED)
                x[c0] = (b[c0] - offdiag(mask[c0], x, c0, sy, sz)) * id[c0];
            i = 2;
        }
        double xm;   /* x[c - 1] of the loop's next cell */
#ifdef MG_VECTOR_SWEEP
        if (L->n[2] == 1)
            i = sweep_blocks(x, b, c0, i, n, sy, sz, 15, 0.25, &xm);
        else
            i = sweep_blocks(x, b, c0, i, n, sy, sz, 63, id6, &xm);
#else
        xm = x[c0 + (size_t)i - 1];
#endif
        if (L->n[2] == 1)
            for (; i + 1 < n; i += 2) {
                size_t c = c0 + (size_t)i;
                double xp = x[c + 1];
                x[c] = (b[c] + (((xp + xm) + x[c + sy]) + x[c - sy])) * 0.25;
                xm = xp;
            }
        else
            for (; i + 1 < n; i += 2) {
                size_t c = c0 + (size_t)i;
                double xp = x[c + 1];
                x[c] = (b[c] + (((((xp + xm) + x[c + sy]) + x[c - sy]) + x[c + sz]) + x[c - sz])) * id6;
                xm = xp;
            }
        if (i == n - 1 && (mask[c0 + (size_t)i] & MG_SMOOTHED)) {
            size_t c = c0 + (size_t)i;
            x[c] = (b[c] - offdiag(mask[c], x, c, sy, sz)) * id[c];
        }
        return;
    }
    uint8_t common = L->row_common[(size_t)j + (size_t)L->n[1] * (size_t)k];
    if (common) {   /* the inner cells share one stencil */
        if (first == 0 && (mask[c0] & MG_SMOOTHED))
            x[c0] = (b[c0] - offdiag(mask[c0], x, c0, sy, sz)) * id[c0];
#ifdef MG_VECTOR_SWEEP
        double w = L->row_w[(size_t)j + (size_t)L->n[1] * (size_t)k];
        if (w != 0.0) {   /* and its diagonal: as a full row's (w is every inner cell's id) */
            double xm;
            int i = sweep_blocks(x, b, c0, first == 0 ? 2 : 1, n, sy, sz, common, w, &xm);
            for (; i + 1 < n; i += 2) {   /* the blocks' sums, x[c - 1] from registers */
                size_t c = c0 + (size_t)i;
                double xp = x[c + 1], t = xp + xm;
                if (common & 8)
                    t += x[c + sy];
                if (common & 4)
                    t += x[c - sy];
                if (common & 32)
                    t += x[c + sz];
                if (common & 16)
                    t += x[c - sz];
                x[c] = (b[c] + t) * w;
                xm = xp;
            }
            size_t c = c0 + (size_t)(n - 1);
            if (i == n - 1 && (mask[c] & MG_SMOOTHED))
                x[c] = (b[c] - offdiag(mask[c], x, c, sy, sz)) * id[c];
            return;
        }
#endif
        double s[SPAN];   /* its sums by spans (a colour reads only the other) */
        for (int i0 = 1; i0 + 1 < n; i0 += SPAN) {
            int len = n - 1 - i0 < SPAN ? n - 1 - i0 : SPAN;
            offdiag_span(common, x, c0 + (size_t)i0, len, sy, sz, s);
            for (int i = i0 + ((i0 ^ first) & 1); i < i0 + len; i += 2) {
                size_t c = c0 + (size_t)i;
                x[c] = (b[c] - s[i - i0]) * id[c];
            }
        }
        size_t c = c0 + (size_t)(n - 1);
        if (((n - 1) & 1) == first && (mask[c] & MG_SMOOTHED))
            x[c] = (b[c] - offdiag(mask[c], x, c, sy, sz)) * id[c];
        return;
    }
    if (!L->unit) {
        for (int i = first; i < n; i += 2) {
            size_t c = c0 + (size_t)i;
            if (mask[c] & MG_SMOOTHED)
                x[c] = (b[c] - offdiag_w(L, mask[c], x, c, sy, sz)) * id[c];
        }
        return;
    }
    for (int i = first; i < n; i += 2) {
        size_t c = c0 + (size_t)i;
        uint8_t mk = mask[c];
        if (mk & MG_SMOOTHED)
            x[c] = (b[c] - offdiag(mk, x, c, sy, sz)) * id[c];
    }
}

/* The first red half sweep from x = 0: x = b / diag on red cells, 0 elsewhere. */
ROW_KERNEL void red_from_zero_row(mg_level *L, int j, int k)
{
    double *x = L->x;
    const double *b = L->b, *id = L->idiag;
    size_t c0 = idx(L, 0, j, k);
    int red = (j + k) & 1;
    /* idiag is 0 where the mask says the cell is not smoothed: one contiguous loop, a select per cell */
    double *xr = x + c0;
    const double *br = b + c0, *ir = id + c0;
    int n = L->n[0];
    if (L->row_full[(size_t)j + (size_t)L->n[1] * (size_t)k]) {
        /* inner cells: 1 / (2 d), the stored 1 / diag (as in smooth_row), without reading idiag */
        const double id_full = L->n[2] == 1 ? 0.25 : 1.0 / 6.0;
        xr[0] = red == 0 ? br[0] * ir[0] : 0.0;
        int i = 1;
#ifdef MG_VECTOR_SWEEP
        /* four cells at a time: the product on every lane, +0 by a mask on the other colour's */
        const mg_v4 idv = {id_full, id_full, id_full, id_full};
        long long on = -1, a = (red == 1) ? on : 0, o = (red == 1) ? 0 : on;   /* lanes for i odd, i + 1, ... */
        const mg_v4i keep = {a, o, a, o};
        for (; i + 4 < n; i += 4)
            *(mg_v4u *)(xr + i) = (mg_v4)((mg_v4i)(*(const mg_v4u *)(br + i) * idv) & keep);
#endif
        for (; i + 1 < n; i++)
            xr[i] = (i & 1) == red ? br[i] * id_full : 0.0;
        xr[n - 1] = ((n - 1) & 1) == red ? br[n - 1] * ir[n - 1] : 0.0;
        return;
    }
    for (int i = 0; i < n; i++)
        xr[i] = (i & 1) == red ? br[i] * ir[i] : 0.0;
}

ROW_KERNEL void residual_row(mg_level *L, int j, int k)
{
    const double *x = L->x, *b = L->b, *d = L->diag;
    const uint8_t *mask = L->mask, *type = L->type;
    double *r = res_row(L, j, k);   /* r[i]: cell c0 + i */
    size_t sy = (size_t)L->n[0], sz = sy * (size_t)L->n[1], c0 = idx(L, 0, j, k);
    int n = L->n[0], i = 0;
    if (L->row_full[(size_t)j + (size_t)L->n[1] * (size_t)k]) {   /* as smooth_row: the same sums, no tests */
        r[0] = type[c0] == MG_FLUID ? b[c0] - d[c0] * x[c0] - offdiag(mask[c0], x, c0, sy, sz) : 0.0;
        if (L->n[2] == 1)
            for (i = 1; i + 1 < n; i++) {
                size_t c = c0 + (size_t)i;
                r[i] = (b[c] - 4.0 * x[c]) + (((x[c + 1] + x[c - 1]) + x[c + sy]) + x[c - sy]);
            }
        else
            for (i = 1; i + 1 < n; i++) {
                size_t c = c0 + (size_t)i;
                double s = (((((x[c + 1] + x[c - 1]) + x[c + sy]) + x[c - sy]) + x[c + sz]) + x[c - sz]);
                r[i] = (b[c] - 6.0 * x[c]) + s;
            }
    }
    uint8_t common = i == 0 ? L->row_common[(size_t)j + (size_t)L->n[1] * (size_t)k] : 0;
    if (common) {   /* as smooth_row: the shared stencil by spans */
        r[0] = type[c0] == MG_FLUID ? b[c0] - d[c0] * x[c0] - offdiag(mask[c0], x, c0, sy, sz) : 0.0;
        double s[SPAN];
        for (i = 1; i + 1 < n; i += SPAN) {
            int len = n - 1 - i < SPAN ? n - 1 - i : SPAN;
            offdiag_span(common, x, c0 + (size_t)i, len, sy, sz, s);
            for (int q = 0; q < len; q++) {
                size_t c = c0 + (size_t)(i + q);
                r[i + q] = b[c] - d[c] * x[c] - s[q];
            }
        }
        i = n - 1;
    }
    for (; i < n; i++) {
        size_t c = c0 + (size_t)i;
        double off = L->unit ? offdiag(mask[c], x, c, sy, sz) : offdiag_w(L, mask[c], x, c, sy, sz);
        r[i] = type[c] == MG_FLUID ? b[c] - d[c] * x[c] - off : 0.0;
    }
}

/* Child q of a parent cell (bit a of q: the neighbour along axis a, on the
 * side of fine cell f), axes a0 to dim - 1: its coarse coordinates into c
 * (from the parent's) and their weight factors, 1/4 or 3/4 per axis in
 * axis order, into *wq. 1 when it lies outside the level, *open then
 * saying whether through an open side. */
static int step_to_child(const mac_mg *m, const mg_level *C, const int f[3], int q, int a0, int c[3], double *wq,
                         int *open)
{
    int outside = 0;
    *open = 0;
    for (int a = a0; a < m->dim; a++) {
        if (q >> a & 1) {
            int up = f[a] % 2;
            c[a] += up ? 1 : -1;
            *wq *= 0.25;
            if (c[a] < 0 || c[a] >= C->n[a]) {
                outside = 1;
                *open |= m->bc[2 * a + up] == BC_OPEN;
            }
        } else {
            *wq *= 0.75;
        }
    }
    return outside;
}

/* The coarse cells and weights of fine cell (i, j, k) in the multilinear
 * prolongation: 3/4 of the parent and 1/4 of the parent's neighbour on the
 * fine cell's side, per axis. A coarse cell behind a wall or inside a solid
 * has no value of its own (Neumann): its weight goes to the parent, so
 * constants near walls are kept. One behind an open side holds 0
 * (Dirichlet). Returns the number of (cell, weight) pairs. type: the
 * coarse cells' types, or NULL to take every coarse cell inside as fluid
 * (the row classes' lists below). */
static int prolong_weights(const mac_mg *m, const mg_level *C, const uint8_t *type, int i, int j, int k,
                           size_t *cell, double *w)
{
    const int f[3] = {i, j, k};
    int dim = m->dim, n = 0, count = 1 << dim;
    const int parent[3] = {i / 2, j / 2, dim == 3 ? k / 2 : 0};
    size_t pc = idx(C, parent[0], parent[1], parent[2]);
    double to_parent = 0.0;
    for (int q = 0; q < count; q++) {
        int c[3] = {parent[0], parent[1], parent[2]}, open;
        double wq = 1.0;
        if (step_to_child(m, C, f, q, 0, c, &wq, &open)) {
            if (!open)
                to_parent += wq;
            continue;
        }
        size_t cc = idx(C, c[0], c[1], c[2]);
        if (type && type[cc] == MG_SOLID) {
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


static void row_setup(const mac_mg *m, const mg_level *C, int j, int k, row_map *rm)
{
    int dim = m->dim;
    const int f[3] = {0, j, k};
    int p[3] = {0, j / 2, dim == 3 ? k / 2 : 0};
    rm->count = 1 << dim;
    rm->fast = 1;
    ptrdiff_t d[3] = {0, 0, 0}, dr[3] = {0, 0, 0};
    for (int a = 1; a < dim; a++) {
        int nb = f[a] % 2 ? p[a] + 1 : p[a] - 1;
        rm->fast &= nb >= 0 && nb < C->n[a];
        d[a] = (f[a] % 2 ? 1 : -1) * (ptrdiff_t)stride(C, a);
        dr[a] = (f[a] % 2 ? 1 : -1) * (a == 1 ? 1 : (ptrdiff_t)C->n[1]);
    }
    for (int q = 0; q < rm->count; q++)
        rm->drow[q] = (q & 2 ? dr[1] : 0) + (q & 4 ? dr[2] : 0);
    for (int parity = 0; parity < 2; parity++) {
        d[0] = parity ? 1 : -1;
        for (int q = 0; q < rm->count; q++) {
            ptrdiff_t o = 0;
            for (int a = 0; a < dim; a++)
                if (q >> a & 1)
                    o += d[a];
            rm->off[parity][q] = o;
        }
    }
}

/* Weights of the 2^d coarse cells by how many are neighbours (bits of q):
 * products of 3/4 and 1/4, exact, so the fast path below gives the general
 * one's results bit for bit. */
static const double weight_2d[4] = {0.5625, 0.1875, 0.1875, 0.0625};
static const double weight_3d[8] = {0.421875, 0.140625, 0.140625, 0.046875,
                                    0.140625, 0.046875, 0.046875, 0.015625};

/* The coarse cells of fine cell i of the row: the parent's 2^d block when it
 * lies inside and is all fluid (most cells), else prolong_weights. */
static inline int weights(const mac_mg *m, const mg_level *C, const row_map *rm, size_t row_base, int i, int j,
                          int k, size_t *cell, double *w)
{
    int pi = i / 2, ni = i % 2 ? pi + 1 : pi - 1;
    if (rm->fast && ni >= 0 && ni < C->n[0]) {
        size_t base = row_base + (size_t)pi;
        const ptrdiff_t *o = rm->off[i % 2];
        const double *wt = m->dim == 3 ? weight_3d : weight_2d;
        int q = 0;
        for (; q < rm->count; q++) {
            size_t c = (size_t)((ptrdiff_t)base + o[q]);
            if (C->type[c] != MG_FLUID)
                break;
            cell[q] = c;
            w[q] = wt[q];
        }
        if (q == rm->count)
            return q;
    }
    return prolong_weights(m, C, C->type, i, j, k, cell, w);
}

/* Whether the coarse rows that fine row (j, k) interpolates from (the
 * parents' row and its neighbours along y and z) lie inside and are all
 * fluid: then weights() takes its fast path for every i with a coarse
 * neighbour along x inside. */
ROW_KERNEL int block_rows_fluid(const mac_mg *m, const mg_level *C, const row_map *rm, int j, int k)
{
    if (!rm->fast)
        return 0;
    size_t ny = (size_t)C->n[1];
    int pj = j / 2, nj = j % 2 ? pj + 1 : pj - 1;
    int pk = m->dim == 3 ? k / 2 : 0, nk = m->dim == 3 ? (k % 2 ? pk + 1 : pk - 1) : 0;
    const uint8_t *rf = C->row_fluid;
    int ok = rf[(size_t)pj + ny * (size_t)pk] && rf[(size_t)nj + ny * (size_t)pk];
    if (m->dim == 3)
        ok = ok && rf[(size_t)pj + ny * (size_t)nk] && rf[(size_t)nj + ny * (size_t)nk];
    return ok;
}


/* The list of row (j, k), taking the coarse rows inside as fluid (the
 * caller checks them row by row: edge_rows_fluid). */
static void row_weights_setup(const mac_mg *m, const mg_level *C, int j, int k, row_weights *rw)
{
    int dim = m->dim, count = 1 << dim;
    const int f[3] = {0, j, k};
    const int parent[3] = {0, j / 2, dim == 3 ? k / 2 : 0};
    ptrdiff_t ny = C->n[1], prow = parent[1] + ny * parent[2];
    size_t base = idx(C, 0, parent[1], parent[2]);
    double to_parent = 0.0;
    rw->n = 0;
    for (int q = 0; q < count; q++) {
        int c[3] = {0, parent[1], parent[2]}, open;
        double wq = q & 1 ? 0.25 : 0.75;   /* x: the row's cells differ only there */
        if (step_to_child(m, C, f, q, 1, c, &wq, &open)) {
            if (!open)
                to_parent += wq;
            continue;
        }
        ptrdiff_t o = (ptrdiff_t)idx(C, 0, c[1], c[2]) - (ptrdiff_t)base;
        rw->off[0][rw->n] = o - (q & 1);
        rw->off[1][rw->n] = o + (q & 1);
        rw->w[rw->n] = wq;
        rw->drow[rw->n] = c[1] + ny * c[2] - prow;
        rw->xbit[rw->n++] = q & 1;
    }
    rw->w[0] += to_parent;   /* q = 0, the parent, always listed first */
}



static int axis_class(int f, int nc)
{
    int p = f / 2, nb = f % 2 ? p + 1 : p - 1;
    return f % 2 + 2 * (nb >= 0 && nb < nc);
}

/* The class of fine row (j, k) of F, and the coarse index of the parent of its cell 0. */
static inline const row_class *row_class_of(const mac_mg *m, const mg_level *F, const mg_level *C, int j, int k,
                                            size_t *base)
{
    int pk = m->dim == 3 ? k / 2 : 0;
    *base = idx(C, 0, j / 2, pk);
    return &F->cls[axis_class(j, C->n[1]) + (m->dim == 3 ? 4 * axis_class(k, C->n[2]) : 0)];
}

/* Whether the coarse rows of an edge row's list (from the parents' row prow) are all fluid. */
static inline int edge_rows_fluid(const mg_level *C, const row_weights *rw, size_t prow)
{
    for (int p = 0; p < rw->n; p++)
        if (!C->row_fluid[(size_t)((ptrdiff_t)prow + rw->drow[p])])
            return 0;
    return 1;
}

/* F's row classes against C, from one row of each class that occurs. */
static void build_row_classes(const mac_mg *m, mg_level *F, const mg_level *C)
{
    int rep_j[4] = {-1, -1, -1, -1}, rep_k[4] = {m->dim == 3 ? -1 : 0, -1, -1, -1};   /* 2D: k = 0, class 0 */
    for (int j = 0; j < F->n[1]; j++)
        if (rep_j[axis_class(j, C->n[1])] < 0)
            rep_j[axis_class(j, C->n[1])] = j;
    for (int k = 0; m->dim == 3 && k < F->n[2]; k++)
        if (rep_k[axis_class(k, C->n[2])] < 0)
            rep_k[axis_class(k, C->n[2])] = k;
    for (int ck = 0; ck < 4; ck++)
        for (int cj = 0; cj < 4; cj++) {
            int j = rep_j[cj], k = rep_k[ck];
            if (j < 0 || k < 0)
                continue;
            row_class *rc = &F->cls[cj + 4 * ck];
            row_setup(m, C, j, k, &rc->rm);
            row_weights_setup(m, C, j, k, &rc->rw);
            for (int e = 0; e < 2; e++) {
                int i = e ? F->n[0] - 1 : 0;
                rc->end[e].n = 0;
                if (e && F->n[0] % 2)   /* odd n[0]: the last cell's x neighbour lies inside */
                    continue;
                size_t cell[8];
                rc->end[e].n = prolong_weights(m, C, NULL, i, j, k, cell, rc->end[e].w);
                ptrdiff_t pc = (ptrdiff_t)idx(C, i / 2, j / 2, m->dim == 3 ? k / 2 : 0);
                for (int q = 0; q < rc->end[e].n; q++)
                    rc->end[e].off[q] = (ptrdiff_t)cell[q] - pc;
            }
        }
}

/* sum_q wt[q] x[base + o[q]], in the order of weights() */
static inline double gather(const double *x, size_t base, const ptrdiff_t *o, const double *wt, int count)
{
    double s = 0.0;
    for (int q = 0; q < count; q++)
        s += wt[q] * x[(size_t)((ptrdiff_t)base + o[q])];
    return s;
}

/* Whether coarse cell c (row r = c / n[0], column I) gets its restriction
 * by the gather below: its 3^d neighbourhood is inside and all fluid, so
 * all 4^d fine cells that reach it do so by weights()'s fast path. */
static inline int gathered(const mg_level *C, size_t row, int I)
{
    return C->row_inner[row] && I >= 1 && I + 2 <= C->n[0];
}

/* The 1D weights of fine cells 2 I - 1 .. 2 I + 2 in coarse cell I. */
static const double w1d[4] = {0.25, 0.75, 0.75, 0.25};

/* b[I] += the contributions of fine cells 2 I - 1 .. 2 I + 2 of residual
 * row r (w0: a parent's weight, w1: an x neighbour's), I = 1 .. cn - 2, in
 * the fine cells' order. */
ROW_KERNEL void scatter_row(double *restrict b, const double *restrict r, double w0, double w1, int cn)
{
    for (int I = 1; I + 1 < cn; I++) {
        double t = b[I];
        t += w1 * r[2 * I - 1];
        t += w0 * r[2 * I];
        t += w0 * r[2 * I + 1];
        t += w1 * r[2 * I + 2];
        b[I] = t;
    }
}

/* v[i] (= 0 when first) += w[d] r_d[i] for d = 0 .. 3 in order, i = 1 .. n:
 * the gather's weighted sum over fine rows, v read and written once per
 * four rows instead of once per row. */
ROW_KERNEL void sum_four_rows(double *restrict v, const double *restrict r0, const double *restrict r1,
                              const double *restrict r2, const double *restrict r3, const double *w, int n,
                              int first)
{
    for (int i = 1; i <= n; i++) {
        double t = first ? 0.0 : v[i];
        t += w[0] * r0[i];
        t += w[1] * r1[i];
        t += w[2] * r2[i];
        t += w[3] * r3[i];
        v[i] = t;
    }
}

/* C->b += the contributions of fine row r (n0 cells) whose coarse rows are
 * all fluid, a fast row (fast: rc's row map, weights wt) or an edge row (its
 * list): per target row (the pairs of listed q with x bit 0 and 1), coarse
 * cells 1 .. cn - 2 by scatter_row unless the row is gathered, and cells 0
 * and cn - 1 (never gathered) from fine cells 0 .. 2 and 2 cn - 3 .. n0 - 1,
 * an end cell by its class's list. Each coarse cell takes its terms in the
 * fine cells' order, as the cell-by-cell scatter of restrict_slabs does;
 * only rows in [lo, hi) are written. */
ROW_KERNEL void restrict_row_targets(mg_level *C, const row_class *rc, int fast, const double *wt, size_t rbase,
                                     size_t prow, const double *r, int n0, size_t lo, size_t hi, double scale)
{
    int cn = C->n[0], nt = fast ? rc->rm.count / 2 : rc->rw.n / 2;
    for (int t = 0; t < nt; t++) {
        ptrdiff_t off = fast ? rc->rm.off[0][2 * t] : rc->rw.off[0][2 * t];
        size_t row0 = (size_t)((ptrdiff_t)rbase + off);
        if (row0 < lo || row0 >= hi)
            continue;
        ptrdiff_t drow = fast ? rc->rm.drow[2 * t] : rc->rw.drow[2 * t];
        double w0 = scale * (fast ? wt[2 * t] : rc->rw.w[2 * t]);
        double w1 = scale * (fast ? wt[2 * t + 1] : rc->rw.w[2 * t + 1]);
        double *b = C->b_store + row0;
        if (!C->row_inner[(size_t)((ptrdiff_t)prow + drow)])
            scatter_row(b, r, w0, w1, cn);
        b[0] += scale * rc->end[0].w[t] * r[0];
        b[0] += w0 * r[1];
        b[0] += w1 * r[2];
        b[cn - 1] += w1 * r[2 * cn - 3];
        b[cn - 1] += w0 * r[2 * cn - 2];
        if (n0 == 2 * cn)
            b[cn - 1] += scale * rc->end[1].w[t] * r[2 * cn - 1];
    }
}

/* C->b = (4 / 2^d) P^T F->r on the coarse slabs [c0, c1) (the operators
 * are scaled by h^2, so each coarsening multiplies by 4): the fine slabs
 * 2 c0 - 1 .. 2 c1 reach them. Cells inside an all-fluid neighbourhood
 * gather their 4^d fine cells with the separable weights (1/4, 3/4, 3/4,
 * 1/4)^d; the others are scattered to from the fine rows: by target row
 * (restrict_row_targets) where the coarse rows a fine row reaches are all
 * fluid, else cell by cell by weights(). Only coarse cells in the slabs are
 * written, so blocks of coarse slabs run in parallel with the same sums. */
VECTOR_CLONES static void restrict_slabs(const mac_mg *m, const mg_level *F, mg_level *C, int c0, int c1, double *v)
{
    size_t lo = (size_t)c0 * C->slab, hi = (size_t)c1 * C->slab, ny = (size_t)C->n[1];
    memset(C->b_store + lo, 0, (hi - lo) * sizeof *C->b_store);
    double scale = m->dim == 3 ? 0.5 : 1.0, w[8];
    size_t cell[8];
    int f0 = 2 * c0 - 1 > 0 ? 2 * c0 - 1 : 0, f1 = 2 * c1 + 1 < F->n_slabs ? 2 * c1 + 1 : F->n_slabs;
    int cn = C->n[0];
    const double *wt = m->dim == 3 ? weight_3d : weight_2d;
    for (int fs = f0; fs < f1; fs++) {
        int k0 = m->dim == 3 ? fs : 0, j0 = m->dim == 3 ? 0 : fs, j1 = m->dim == 3 ? F->n[1] : fs + 1;
        for (int j = j0; j < j1; j++) {
            size_t rbase;
            const row_class *rc = row_class_of(m, F, C, j, k0, &rbase);
            const row_map *rm = &rc->rm;
            const row_weights *rw = &rc->rw;
            size_t prow = rbase / (size_t)cn;
            const double *r = res_row(F, j, k0);
            int fast = block_rows_fluid(m, C, rm, j, k0);
            if (fast || (!rm->fast && edge_rows_fluid(C, rw, prow))) {
                restrict_row_targets(C, rc, fast, wt, rbase, prow, r, F->n[0], lo, hi, scale);
                continue;
            }
            for (int i = 0; i < F->n[0]; i++) {   /* rows next to non-fluid coarse rows: cell by cell */
                if (r[i] == 0.0)
                    continue;
                int n = weights(m, C, rm, rbase, i, j, k0, cell, w);
                for (int q = 0; q < n; q++)
                    if (cell[q] >= lo && cell[q] < hi &&
                        !gathered(C, cell[q] / (size_t)cn, (int)(cell[q] % (size_t)cn)))
                        C->b_store[cell[q]] += scale * w[q] * r[i];
            }
        }
    }
    for (int K = m->dim == 3 ? c0 : 0; K < (m->dim == 3 ? c1 : 1); K++)
        for (int J = m->dim == 3 ? 0 : c0; J < (m->dim == 3 ? C->n[1] : c1); J++) {
            if (!C->row_inner[(size_t)J + ny * (size_t)K])
                continue;
            int kmin = m->dim == 3 ? 2 * K - 1 : 0, nk = m->dim == 3 ? 4 : 1;
            for (int e = 0; e < nk; e++) {   /* the fine rows in order, four at a time (the same sums) */
                double wyz[4];
                for (int d = 0; d < 4; d++)
                    wyz[d] = w1d[d] * (m->dim == 3 ? w1d[e] : 1.0);
                int k = kmin + e, j = 2 * J - 1;
                sum_four_rows(v, res_row(F, j, k), res_row(F, j + 1, k), res_row(F, j + 2, k), res_row(F, j + 3, k),
                              wyz, 2 * cn - 2, e == 0);
            }
            double *b = C->b_store + idx(C, 0, J, K);
            for (int I = 1; I + 2 <= cn; I++)
                b[I] = scale * ((w1d[0] * v[2 * I - 1] + w1d[3] * v[2 * I + 2]) +
                                (w1d[1] * v[2 * I] + w1d[2] * v[2 * I + 1]));
        }
    for (size_t c = lo; c < hi; c++)
        if (C->type[c] != MG_FLUID)
            C->b_store[c] = 0.0;
}

static void restrict_residual(const mac_mg *m, const mg_level *F, mg_level *C)
{
    int S = C->n_slabs, nb = level_threads(F->nc);
    nb = nb < S ? nb : S;
    nb = nb < m->row_threads ? nb : m->row_threads;
    if (nb <= 1) {   /* no parallel region (see level_threads) */
        restrict_slabs(m, F, C, 0, S, m->rows);
        return;
    }
#pragma omp parallel for schedule(static, 1) num_threads(nb)
    for (int q = 0; q < nb; q++)   /* each with a fine row of its own, weighted over y and z */
        restrict_slabs(m, F, C, (int)((long)S * q / nb), (int)((long)S * (q + 1) / nb),
                       m->rows + (size_t)q * (size_t)m->nx);
}

/* prolong_row's fast path over fine cells 2 .. 2 n - 1 by coarse cell
 * I = 1 .. n - 1 (its even and odd child), the sums of gather() in its
 * order; r0 .. r3: the coarse rows by their y/z bits. */
ROW_KERNEL void prolong_pairs_2d(double *restrict xf, const double *restrict r0, const double *restrict r1,
                                 const double *wt, int n)
{
    for (int I = 1; I < n; I++) {
        double e = 0.0, o = 0.0;
        e += wt[0] * r0[I];
        e += wt[1] * r0[I - 1];
        e += wt[2] * r1[I];
        e += wt[3] * r1[I - 1];
        o += wt[0] * r0[I];
        o += wt[1] * r0[I + 1];
        o += wt[2] * r1[I];
        o += wt[3] * r1[I + 1];
        xf[2 * I] += e;
        xf[2 * I + 1] += o;
    }
}

ROW_KERNEL void prolong_pairs_1(double *restrict xf, const double *restrict r0, const double *wt, int n)
{
    for (int I = 1; I < n; I++) {
        double e = 0.0, o = 0.0;
        e += wt[0] * r0[I];
        e += wt[1] * r0[I - 1];
        o += wt[0] * r0[I];
        o += wt[1] * r0[I + 1];
        xf[2 * I] += e;
        xf[2 * I + 1] += o;
    }
}

ROW_KERNEL void prolong_pairs_3d(double *restrict xf, const double *restrict r0, const double *restrict r1,
                                 const double *restrict r2, const double *restrict r3, const double *wt, int n)
{
    for (int I = 1; I < n; I++) {
        double e = 0.0, o = 0.0;
        e += wt[0] * r0[I];
        e += wt[1] * r0[I - 1];
        e += wt[2] * r1[I];
        e += wt[3] * r1[I - 1];
        e += wt[4] * r2[I];
        e += wt[5] * r2[I - 1];
        e += wt[6] * r3[I];
        e += wt[7] * r3[I - 1];
        o += wt[0] * r0[I];
        o += wt[1] * r0[I + 1];
        o += wt[2] * r1[I];
        o += wt[3] * r1[I + 1];
        o += wt[4] * r2[I];
        o += wt[5] * r2[I + 1];
        o += wt[6] * r3[I];
        o += wt[7] * r3[I + 1];
        xf[2 * I] += e;
        xf[2 * I + 1] += o;
    }
}

/* The fine cell of coarse cell I on the side of its x neighbour I + d (d = -1:
 * the even child, +1: the odd one) on prolong_row's fast or edge path: the
 * terms of prolong_pairs_* (and of gather()) in their order. */
ROW_KERNEL double pair_child(const double *const *R, const double *w, int nt, int I, int d)
{
    double s = 0.0;
    for (int t = 0; t < nt; t++) {
        s += w[2 * t] * R[t][I];
        s += w[2 * t + 1] * R[t][I + d];
    }
    return s;
}

/* F->x += P C->x on the fluid cells of row (j, k). */
ROW_KERNEL void prolong_row(const mac_mg *m, mg_level *F, const mg_level *C, int j, int k)
{
    double w[8];
    size_t cell[8];
    size_t rbase;
    const row_class *rc = row_class_of(m, F, C, j, k, &rbase);
    const row_map *rm = &rc->rm;
    const row_weights *rw = &rc->rw;
    size_t f0 = idx(F, 0, j, k);
    int fine_fluid = F->row_fluid[(size_t)j + (size_t)F->n[1] * (size_t)k];
    int fast = fine_fluid && block_rows_fluid(m, C, rm, j, k);
    int edge = fine_fluid && !fast && !rm->fast && edge_rows_fluid(C, rw, rbase / (size_t)C->n[0]);
    const double *wt = m->dim == 3 ? weight_3d : weight_2d;
    int cn = C->n[0], lo = 0, hi = 0;
    if ((fast || edge) && cn >= 3) {   /* per target row t the pair of listed q with x bit 0 and 1 */
        const double *R[4] = {NULL, NULL, NULL, NULL};
        int nt = fast ? rm->count / 2 : rw->n / 2;
        for (int t = 0; t < nt; t++)
            R[t] = C->x + (ptrdiff_t)rbase + (fast ? rm->off[0][2 * t] : rw->off[0][2 * t]);
        double *xf = F->x + f0;
        if (nt == 4)
            prolong_pairs_3d(xf, R[0], R[1], R[2], R[3], wt, cn - 1);
        else if (nt == 2)
            prolong_pairs_2d(xf, R[0], R[1], fast ? wt : rw->w, cn - 1);
        else
            prolong_pairs_1(xf, R[0], rw->w, cn - 1);
        /* the odd child of cell 0 and the even child of cell cn - 1 (x neighbours inside) */
        xf[1] += pair_child(R, fast ? wt : rw->w, nt, 0, 1);
        xf[2 * cn - 2] += pair_child(R, fast ? wt : rw->w, nt, cn - 1, -1);
        lo = 1;
        hi = 2 * cn - 1;
    }
    for (int i = 0; i < F->n[0]; i++) {
        if (i == lo && hi > lo)   /* done above */
            i = hi;
        if (i >= F->n[0])
            break;
        int pi = i / 2, ni = i % 2 ? pi + 1 : pi - 1;
        if (fast && ni >= 0 && ni < C->n[0]) {   /* weights()'s fast path without its tests */
            size_t base = rbase + (size_t)pi;
            F->x[f0 + (size_t)i] += m->dim == 3 ? gather(C->x, base, rm->off[i % 2], wt, 8)
                                                : gather(C->x, base, rm->off[i % 2], wt, 4);
            continue;
        }
        if (edge && ni >= 0 && ni < cn) {   /* prolong_weights' list, the same for the whole row */
            F->x[f0 + (size_t)i] += gather(C->x, rbase + (size_t)pi, rw->off[i % 2], rw->w, rw->n);
            continue;
        }
        if (fast || edge) {   /* an end cell (x neighbour outside): its class's list */
            const row_end *re = &rc->end[i > 0];
            F->x[f0 + (size_t)i] += gather(C->x, rbase + (size_t)pi, re->off, re->w, re->n);
            continue;
        }
        if (F->type[f0 + (size_t)i] != MG_FLUID)
            continue;
        int n = weights(m, C, rm, rbase, i, j, k, cell, w);
        double s = 0.0;
        for (int q = 0; q < n; q++)
            s += w[q] * C->x[cell[q]];
        F->x[f0 + (size_t)i] += s;
    }
}

/* sum_i x[i] y[i] over a row, four running sums (the order fixed by n). */
ROW_KERNEL double row_dot(const double *x, const double *y, int n)
{
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    int i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++)
            s[k] += x[i + k] * y[i + k];
    for (; i < n; i++)
        s[0] += x[i] * y[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

/* The rows' parts of a dot product, summed in row order. */
static double sum_rows(const mac_mg *m)
{
    const mg_level *L = &m->lev[0];
    size_t rows = (size_t)L->n[1] * (size_t)L->n[2];
    double s = 0.0;
    for (size_t r = 0; r < rows; r++)
        s += m->row_dot[r];
    return s;
}

/* Level 0's b . x over the rows of slab s, into row_dot. */
ROW_KERNEL void dot_slab(mac_mg *m, int s)
{
    const mg_level *L = &m->lev[0];
    int k0 = m->dim == 3 ? s : 0, j0 = m->dim == 3 ? 0 : s, j1 = m->dim == 3 ? L->n[1] : s + 1;
    for (int j = j0; j < j1; j++) {
        size_t c0 = idx(L, 0, j, k0);
        m->row_dot[(size_t)j + (size_t)L->n[1] * (size_t)k0] = row_dot(L->b + c0, L->x + c0, L->n[0]);
    }
}

/* One stage on slab s of level l: every row of the slab. */
ROW_KERNEL void stage_slab(mac_mg *m, int l, mg_stage st, int s)
{
    mg_level *L = &m->lev[l];
    int k0 = m->dim == 3 ? s : 0, k1 = k0 + 1, j0 = m->dim == 3 ? 0 : s, j1 = m->dim == 3 ? L->n[1] : s + 1;
    if (st == ST_DOT) {
        dot_slab(m, s);
        return;
    }
    if (L->list && (st == ST_RED || st == ST_BLACK)) {
        if (m->dim == 3)
            list_half(L, s, s + 1, st == ST_BLACK, 6);
        else
            list_half(L, s, s + 1, st == ST_BLACK, 4);
        return;
    }
    for (int k = k0; k < k1; k++)
        for (int j = j0; j < j1; j++)
            switch (st) {
            case ST_RED_FROM_ZERO: red_from_zero_row(L, j, k); break;
            case ST_RED: smooth_row(L, j, k, 0); break;
            case ST_BLACK: smooth_row(L, j, k, 1); break;
            case ST_RESIDUAL: residual_row(L, j, k); break;
            case ST_PROLONG: prolong_row(m, L, &m->lev[l + 1], j, k); break;
            case ST_DOT: break;
            }
}

VECTOR_CLONES static void run_stage(mac_mg *m, int l, mg_stage st, int s)
{
    stage_slab(m, l, st, s);
}

/* Step f of a pipeline over slabs [s0, s1): stage t on slab f - t, short of
 * the block's lower (upper) edge by t slabs when cut_lo (cut_hi). One call
 * per step, not per stage: on the short rows of 2D levels (a slab is a row)
 * a call's entry and set-up cost as much as a stage's row. */
VECTOR_CLONES static void run_step(mac_mg *m, int l, const mg_stage *stages, int n_st, int f, int s0, int s1,
                                   int cut_lo, int cut_hi)
{
    for (int t = 0; t < n_st; t++) {
        int s = f - t, lo = cut_lo ? s0 + t : s0, hi = cut_hi ? s1 - t : s1;
        if (s >= lo && s < hi)
            stage_slab(m, l, stages[t], s);
    }
}

/* The stages in order over all slabs of level l, as if each ran over the
 * whole level before the next: stage t at slab s needs stage t - 1 on slabs
 * s - 1 .. s + 1 only, so stage t runs one slab behind stage t - 1 and the
 * slabs stay in cache between stages. Each of nb blocks of slabs (one per
 * thread, at least 2 n_st slabs wide) runs stage t on its slabs at least t
 * from an inner block edge; then the triangles at the edges are finished,
 * stage by stage. The results do not depend on nb. */
static void pipeline_block(mac_mg *m, int l, const mg_stage *stages, int n_st, int nb, int q)
{
    int S = m->lev[l].n_slabs, s0 = (int)((long)S * q / nb), s1 = (int)((long)S * (q + 1) / nb);
    for (int f = s0; f < s1 + n_st; f++)
        run_step(m, l, stages, n_st, f, s0, s1, q > 0, q < nb - 1);
}

/* The triangles at the edge between blocks q - 1 and q (after every block). */
static void pipeline_edge(mac_mg *m, int l, const mg_stage *stages, int n_st, int nb, int q)
{
    int e = (int)((long)m->lev[l].n_slabs * q / nb);
    for (int t = 1; t < n_st; t++)
        for (int s = e - t; s < e + t; s++)
            run_stage(m, l, stages[t], s);
}

static void run_pipeline(mac_mg *m, int l, const mg_stage *stages, int n_st)
{
    int nb = level_threads(m->lev[l].nc);
    if (nb > m->lev[l].n_slabs / (2 * n_st))
        nb = m->lev[l].n_slabs / (2 * n_st);
    if (nb <= 1) {   /* one block, no edges, no parallel region (see level_threads) */
        pipeline_block(m, l, stages, n_st, 1, 0);
        return;
    }
#pragma omp parallel for schedule(static, 1) num_threads(nb)
    for (int q = 0; q < nb; q++)
        pipeline_block(m, l, stages, n_st, nb, q);
    if (nb == 2) {   /* one edge: on this thread */
        pipeline_edge(m, l, stages, n_st, nb, 1);
        return;
    }
#pragma omp parallel for schedule(static, 1) num_threads(nb)
    for (int q = 1; q < nb; q++)
        pipeline_edge(m, l, stages, n_st, nb, q);
}

/* The pass before the coarse correction on one thread (level_threads 1),
 * with the restriction in it: G coarse slabs [C, C + G) are restricted
 * (restrict_slabs, the same sums) as soon as the residual of their fine slabs
 * 2 C - 1 .. 2 (C + G) is there, while they are still in cache, and the
 * residual lives in a ring of at least 2 G + 2 slabs instead of the level's r: it is
 * neither written to memory nor read back by a pass of its own. The last
 * stage is the residual; when the group's turn comes (R, the last residual
 * slab, is its last fine slab, or the level's) the ring holds fine slabs
 * R - 2 G - 1 .. R, and the group needs none older. */
static void restrict_in_pipeline(mac_mg *m, int l, const mg_stage *stages, int n_st)
{
    mg_level *F = &m->lev[l], *C = &m->lev[l + 1];
    int S = F->n_slabs, next = 0, G = m->dim == 2 ? MG_GROUP_2D : F->slab < MG_PLANE_BIG ? MG_GROUP_3D : 1;
    F->ring = m->ring;
    F->ring_slabs = m->dim == 2 ? MG_RING_2D : G > 1 ? MG_RING_3D : 4;
    for (int f = 0; f < S + n_st - 1; f++) {
        run_step(m, l, stages, n_st, f, 0, S, 0, 0);
        int R = f - (n_st - 1);
        while (next < C->n_slabs) {
            int end = next + G < C->n_slabs ? next + G : C->n_slabs, last = 2 * end < S ? 2 * end : S - 1;
            if (last > R)
                break;
            restrict_slabs(m, F, C, next, end, m->rows);
            next = end;
        }
    }
    F->ring = NULL;
}

/* One half sweep over the whole level (the coarsest level's many sweeps). */
static void smooth_colour(mac_mg *m, int l, int colour)
{
    for (int s = 0; s < m->lev[l].n_slabs; s++)
        run_stage(m, l, colour ? ST_BLACK : ST_RED, s);
}

static void vcycle(mac_mg *m, int l)
{
    mg_level *L = &m->lev[l];
    if (l == m->n_levels - 1) {
        /* The coarsest grid (a few cells per axis): symmetric sweeps until
         * information has crossed it a few times. */
        memset(L->x, 0, L->nc * sizeof *L->x);
        int n = L->n[0] > L->n[1] ? L->n[0] : L->n[1];
        n = n > L->n[2] ? n : L->n[2];
        if (L->list) {   /* from its lists, a colour's whole list at once */
            for (int t = 0; t < 4 * n; t++) {   /* red-black 2 n times, then black-red 2 n times */
                int colour = (t < 2 * n) ? 0 : 1;
                for (int h = 0; h < 2; h++, colour = 1 - colour)
                    if (m->dim == 3)
                        list_half(L, 0, L->n_slabs, colour, 6);
                    else
                        list_half(L, 0, L->n_slabs, colour, 4);
            }
            return;
        }
        for (int s = 0; s < 2 * n; s++) {
            smooth_colour(m, l, 0);
            smooth_colour(m, l, 1);
        }
        for (int s = 0; s < 2 * n; s++) {
            smooth_colour(m, l, 1);
            smooth_colour(m, l, 0);
        }
        return;
    }
    /* red-black from x = 0, MG_SMOOTH times, then the residual; after the
     * coarse correction black-red, MG_SMOOTH times: a symmetric V-cycle */
    static const mg_stage pre[MG_STAGES] = {ST_RED_FROM_ZERO, ST_BLACK, ST_RED, ST_BLACK, ST_RESIDUAL};
    static const mg_stage post[MG_STAGES + 1] = {ST_PROLONG, ST_BLACK, ST_RED, ST_BLACK, ST_RED, ST_DOT};
    if (level_threads(L->nc) > 1) {   /* threads: each a block of the level, the residual in r */
        run_pipeline(m, l, pre, MG_STAGES);
        restrict_residual(m, L, &m->lev[l + 1]);
    } else {
        restrict_in_pipeline(m, l, pre, MG_STAGES);
    }
    vcycle(m, l + 1);
    run_pipeline(m, l, post, l == 0 ? MG_STAGES + 1 : MG_STAGES);   /* level 0: b . x too, slab by slab */
}

/* y = A x over row (j, k) of level 0 from the stencil's mask and diagonal
 * (what the sweeps read); inner cells of a full row without tests. */
ROW_KERNEL void apply_row(const mg_level *L, const double *x, double *y, int j, int k)
{
    const double *d = L->diag;
    const uint8_t *mask = L->mask;
    size_t sy = (size_t)L->n[0], sz = sy * (size_t)L->n[1], c0 = idx(L, 0, j, k);
    int n = L->n[0], i = 0;
    if (L->row_full[(size_t)j + (size_t)L->n[1] * (size_t)k]) {
        y[c0] = L->type[c0] == MG_FLUID ? d[c0] * x[c0] + offdiag(mask[c0], x, c0, sy, sz) : 0.0;
        if (L->n[2] == 1)
            for (i = 1; i + 1 < n; i++) {
                size_t c = c0 + (size_t)i;
                y[c] = 4.0 * x[c] - (((x[c + 1] + x[c - 1]) + x[c + sy]) + x[c - sy]);
            }
        else
            for (i = 1; i + 1 < n; i++) {
                size_t c = c0 + (size_t)i;
                y[c] = 6.0 * x[c] - (((((x[c + 1] + x[c - 1]) + x[c + sy]) + x[c - sy]) + x[c + sz]) + x[c - sz]);
            }
    }
    uint8_t common = i == 0 ? L->row_common[(size_t)j + (size_t)L->n[1] * (size_t)k] : 0;
    if (common) {   /* as smooth_row: the shared stencil by spans */
        y[c0] = L->type[c0] == MG_FLUID ? d[c0] * x[c0] + offdiag(mask[c0], x, c0, sy, sz) : 0.0;
        double s[SPAN];
        for (i = 1; i + 1 < n; i += SPAN) {
            int len = n - 1 - i < SPAN ? n - 1 - i : SPAN;
            offdiag_span(common, x, c0 + (size_t)i, len, sy, sz, s);
            for (int q = 0; q < len; q++) {
                size_t c = c0 + (size_t)(i + q);
                y[c] = d[c] * x[c] + s[q];
            }
        }
        i = n - 1;
    }
    for (; i < n; i++) {
        size_t c = c0 + (size_t)i;
        double off = L->unit ? offdiag(mask[c], x, c, sy, sz) : offdiag_w(L, mask[c], x, c, sy, sz);
        y[c] = L->type[c] == MG_FLUID ? d[c] * x[c] + off : 0.0;
    }
}

/* apply_row and its part of x . y on every row of slab s. */
VECTOR_CLONES static void apply_dot_slab(mac_mg *m, const double *x, double *y, int s)
{
    const mg_level *L = &m->lev[0];
    int k0 = m->dim == 3 ? s : 0, j0 = m->dim == 3 ? 0 : s, j1 = m->dim == 3 ? L->n[1] : s + 1;
    for (int j = j0; j < j1; j++) {
        apply_row(L, x, y, j, k0);
        size_t c0 = idx(L, 0, j, k0);
        m->row_dot[(size_t)j + (size_t)L->n[1] * (size_t)k0] = row_dot(x + c0, y + c0, L->n[0]);
    }
}

double mac_mg_apply_dot(mac_mg *m, const double *x, double *y)
{
    const mg_level *L = &m->lev[0];
    if (level_threads(L->nc) > 1) {
#pragma omp parallel for schedule(static)
        for (int s = 0; s < L->n_slabs; s++)
            apply_dot_slab(m, x, y, s);
    } else {   /* no parallel region (see level_threads) */
        for (int s = 0; s < L->n_slabs; s++)
            apply_dot_slab(m, x, y, s);
    }
    return sum_rows(m);
}

/* The bytes one MG-PCG iteration has to move at the least (the bound of
 * bench_fluid_mac's "bound" table), counting each array once per pass:
 * - CG over vectors of n entries (core seam_pcg_fused), 10 doubles each: q = A p
 *   with p.q (read p, write q), r -= alpha q with |r|^2 (read r, q, write r),
 *   x += alpha p and p = z + beta p (read x, z, p, write x, p); r.z comes
 *   from the V-cycle's last pass on level 0, which reads r and z anyway;
 * - the stencil: a byte per cell and pass (which neighbours couple, and on
 *   coarse levels the diagonal, a small integer), plus level 0's diagonal
 *   (8 bytes: free-surface ghost-fluid values) in A p and in both V-cycle
 *   passes, read only outside the rows whose inner cells have the full
 *   stencil (diagonal 2 d, known without reading it: n_partial cells);
 * - per level but the coarsest, two passes: before the coarse correction
 *   (read b, write x, write the coarse b) and after it (read the coarse x,
 *   read b and x, write x); level 0's b is r and its x is z, no copies;
 * - the coarsest level: 25 bytes per cell and full sweep (read b, x, the
 *   stencil byte, write x).
 * What this skips is what the implementation costs beyond the bound. */
double mac_mg_iteration_bytes(const mac_mg *m, size_t n)
{
    double partial = (double)m->lev[0].n_partial;
    double bytes = 10.0 * 8.0 * (double)n + 1.0 * (double)m->lev[0].nc + 8.0 * partial;
    for (int l = 0; l + 1 < m->n_levels; l++) {
        double N = (double)m->lev[l].nc, Nc = (double)m->lev[l + 1].nc;
        bytes += (8.0 + 8.0 + 1.0) * N + 8.0 * Nc + (8.0 + 8.0 + 8.0 + 1.0) * N + 8.0 * Nc;
        if (l == 0)
            bytes += 2.0 * 8.0 * partial;
    }
    const mg_level *C = &m->lev[m->n_levels - 1];
    int nmax = C->n[0] > C->n[1] ? C->n[0] : C->n[1];
    nmax = nmax > C->n[2] ? nmax : C->n[2];
    return bytes + 4.0 * nmax * 25.0 * (double)C->nc;
}

double mac_mg_apply(mac_mg *m, size_t n, const int32_t *cell, const double *r, double *z)
{
    mg_level *L0 = &m->lev[0];
    double *x = L0->x;
    if (n == L0->nc) {   /* PCG over all cells: level 0 works on r and z themselves */
        L0->b = r;
        L0->x = z;
    } else {
        memset(L0->b_store, 0, L0->nc * sizeof *L0->b_store);
        for (size_t u = 0; u < n; u++)
            L0->b_store[cell[u]] = r[u];
    }
    vcycle(m, 0);
    if (m->n_levels == 1)   /* level 0 was the coarsest: no pipeline gave the dot */
        for (int s = 0; s < L0->n_slabs; s++)
            dot_slab(m, s);
    double rz = sum_rows(m);   /* b is 0 off the unknowns: the cells' sum is r . z */
    L0->b = L0->b_store;
    L0->x = x;
    if (n != L0->nc)
        for (size_t u = 0; u < n; u++)
            z[u] = L0->x[cell[u]];
    return rz;
}
