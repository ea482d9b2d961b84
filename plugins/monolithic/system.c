/* The coupled pressure projection's linear solve (Zarifi 2017, sec. 5.2;
 * ../shared/specs/monolithic-sph-fem.md 1.3-1.5): (5.17) turned SPD by the
 * split S = Z1 + Z2 (5.25-5.31), scaled (5.36), solved by PCG with IC(0), a
 * multigrid block preconditioner (geometric, or algebraic: amg.c) or
 * CHOLMOD's factor of the whole system (a direct solve). */
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mono.h"
#include "seam/alloc.h"
#include "seam/cholesky.h"
#include "seam/krylov.h"
#include "seam/log.h"

void mono_spd_free(mono_spd *spd)
{
    if (!spd)
        return;
    seam_csr_destroy(&spd->A);
    for (size_t b = 0; b < spd->n_blocks; b++) {
        if (spd->G)
            seam_csr_destroy(&spd->G[b]);
        if (spd->S_inv)
            free(spd->S_inv[b]);
    }
    free(spd->G);
    free(spd->S_inv);
    free(spd->at);
    free(spd->c);
    memset(spd, 0, sizeof *spd);
}

static seam_csr *empty(size_t rows, size_t cols)
{
    seam_triplets *t = seam_triplets_new(rows, cols, 1);
    seam_csr *X = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    return X;
}

/* S^-1 of a small SPD block by dense Cholesky; -1 when S is not positive definite. */
static int dense_spd_inverse(const seam_csr *S, double *inv)
{
    size_t m = S->rows;
    memset(inv, 0, m * m * sizeof *inv);
    for (size_t i = 0; i < m; i++)
        for (int64_t k = S->row_ptr[i]; k < S->row_ptr[i + 1]; k++)
            inv[i * m + (size_t)S->col[k]] = S->val[k];
    lapack_int n = (lapack_int)m;
    if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, inv, n) != 0 || LAPACKE_dpotri(LAPACK_ROW_MAJOR, 'L', n, inv, n) != 0)
        return -1;
    for (size_t i = 0; i < m; i++)
        for (size_t j = i + 1; j < m; j++)
            inv[i * m + j] = inv[j * m + i];
    return 0;
}

/* y = X x for a dense m x m X. */
static void dense_mul(size_t m, const double *X, const double *x, double *y)
{
    for (size_t i = 0; i < m; i++) {
        double s = 0.0;
        for (size_t j = 0; j < m; j++)
            s += X[i * m + j] * x[j];
        y[i] = s;
    }
}

/* One term of the SPD matrix: scale X placed at rows r0.., columns c0... */
typedef struct piece {
    seam_csr *X;
    double scale;
    size_t r0, c0;
    int alpha_pow;           /* the power of alpha (5.36) that scales it: 0, 1 or 2 */
} piece;

/* The sum of the pieces as one size x size matrix, row by row (a dense
 * accumulator per row, sorted columns): no triplet list of every product term. */
static seam_csr *assemble(size_t size, const piece *pc, size_t np)
{
    seam_csr *A = seam_xcalloc(1, sizeof *A);
    A->rows = A->cols = size;
    A->row_ptr = seam_xcalloc(size + 1, sizeof *A->row_ptr);
    size_t cap = 1, nnz = 0;
    for (size_t q = 0; q < np; q++)
        cap += pc[q].X->nnz;
    A->col = seam_xmalloc(cap * sizeof *A->col);
    A->val = seam_xmalloc(cap * sizeof *A->val);
    int64_t *slot = seam_xmalloc((size ? size : 1) * sizeof *slot);
    for (size_t c = 0; c < size; c++)
        slot[c] = -1;
    for (size_t i = 0; i < size; i++) {
        size_t first = nnz;
        for (size_t q = 0; q < np; q++) {
            const seam_csr *X = pc[q].X;
            if (i < pc[q].r0 || i >= pc[q].r0 + X->rows)
                continue;
            size_t xr = i - pc[q].r0;
            for (int64_t k = X->row_ptr[xr]; k < X->row_ptr[xr + 1]; k++) {
                size_t c = pc[q].c0 + (size_t)X->col[k];
                double v = pc[q].scale * X->val[k];
                if (slot[c] >= 0) {
                    A->val[slot[c]] += v;
                } else {
                    slot[c] = (int64_t)nnz;
                    A->col[nnz] = (int64_t)c;
                    A->val[nnz++] = v;
                }
            }
        }
        for (size_t k = first; k < nnz; k++)
            slot[A->col[k]] = -1;
        for (size_t a = first + 1; a < nnz; a++) {   /* rows are a few hundred entries at most */
            int64_t c = A->col[a];
            double v = A->val[a];
            size_t b = a;
            while (b > first && A->col[b - 1] > c) {
                A->col[b] = A->col[b - 1];
                A->val[b] = A->val[b - 1];
                b--;
            }
            A->col[b] = c;
            A->val[b] = v;
        }
        A->row_ptr[i + 1] = (int64_t)nnz;
    }
    A->nnz = nnz;
    free(slot);
    return A;
}

static void negate(seam_csr *X)
{
    for (size_t k = 0; k < X->nnz; k++)
        X->val[k] = -X->val[k];
}

seam_status mono_spd_build(mono_spd *spd, const mono_fluid *F, const mono_block *blocks, size_t n_blocks,
                           const mono_solve_opts *opts, const seam_host *host)
{
    memset(spd, 0, sizeof *spd);
    size_t n = F ? F->n : 0;
    spd->n = n;
    spd->n_blocks = n_blocks;
    spd->at = seam_xmalloc((n_blocks ? n_blocks : 1) * sizeof *spd->at);
    spd->G = seam_xcalloc(n_blocks ? n_blocks : 1, sizeof *spd->G);
    spd->S_inv = seam_xcalloc(n_blocks ? n_blocks : 1, sizeof *spd->S_inv);
    size_t size = n;
    for (size_t b = 0; b < n_blocks; b++) {
        const mono_block *blk = &blocks[b];
        if (blk->Zdiag && blk->sigma != opts->sigma) {
            seam_logf(host, SEAM_LOG_ERROR,
                      "monolithic: solid block %zu was built with sigma %g but the solve asks for sigma %g (5.31)", b,
                      blk->sigma, opts->sigma);
            mono_spd_free(spd);
            return SEAM_ERROR;
        }
        if (n > 0 && F->G->cols != blk->T->rows) {
            seam_logf(host, SEAM_LOG_ERROR,
                      "monolithic: solid block %zu maps %zu boundary velocities but the fluid's G has %zu columns", b,
                      blk->T->rows, F->G->cols);
            mono_spd_free(spd);
            return SEAM_ERROR;
        }
        spd->at[b] = blk->Zdiag ? size : SIZE_MAX;
        size += blk->Zdiag ? blk->m : 0;
    }
    spd->size = size;
    /* c1 = E u* + G Z1^-1 w with w = -r (5.25-5.26). */
    double *c = seam_xcalloc(size ? size : 1, sizeof *c);
    if (n > 0)
        memcpy(c, F->Eu, n * sizeof *c);
    /* The pieces: B; per kept block G Z1^-1 G^T (5.27), A12, A21 (5.28-5.29),
     * Z2 and Z2 Z1^-1 Z2 (5.30); scales set once alpha is known. */
    piece *pc = seam_xcalloc(1 + 5 * n_blocks, sizeof *pc);
    size_t np = 0;
    if (n > 0)
        pc[np++] = (piece){F->B, 1.0, 0, 0, 0};
    size_t owned_from = np;
    seam_status st = SEAM_OK;
    for (size_t b = 0; b < n_blocks && st == SEAM_OK; b++) {
        const mono_block *blk = &blocks[b];
        size_t m = blk->m;
        spd->G[b] = n > 0 ? seam_csr_matmul(F->G, NULL, blk->T) : empty(0, m);
        seam_csr *G = spd->G[b];
        if (blk->Zdiag) {
            size_t at = spd->at[b];
            double *Z1r = seam_xmalloc((m ? m : 1) * sizeof *Z1r), *tmp = seam_xmalloc((m ? m : 1) * sizeof *tmp);
            for (size_t i = 0; i < m; i++)
                Z1r[i] = 1.0 / blk->Zdiag[i];
            seam_csr *Z2 = seam_csr_transpose(blk->S), *Gt = seam_csr_transpose(G);   /* S symmetric: a copy */
            for (size_t i = 0; i < m; i++) {
                double *s = seam_csr_at(Z2, i, i);
                if (s)
                    *s -= blk->Zdiag[i];   /* Z2 = S - Z1 (5.31) */
            }
            seam_csr *A12 = seam_csr_matmul(G, Z1r, Z2), *A21 = seam_csr_matmul(Z2, Z1r, Gt);
            negate(A12);
            negate(A21);
            pc[np++] = (piece){seam_csr_matmul(G, Z1r, Gt), 1.0, 0, 0, 0};
            pc[np++] = (piece){A12, 1.0, 0, at, 1};
            pc[np++] = (piece){A21, 1.0, at, 0, 1};
            pc[np++] = (piece){seam_csr_matmul(Z2, Z1r, Z2), 1.0, at, at, 2};
            pc[np++] = (piece){Z2, 1.0, at, at, 2};
            for (size_t i = 0; i < m; i++)
                tmp[i] = Z1r[i] * blk->r[i];
            if (n > 0) {
                double *Gz = seam_xmalloc(n * sizeof *Gz);
                seam_csr_mul(G, tmp, Gz);
                seam_axpy(n, -1.0, Gz, c);
                free(Gz);
            }
            seam_csr_mul(Z2, tmp, c + at);   /* c2 = -Z2 Z1^-1 w */
            seam_csr_destroy(&Gt);
            free(Z1r);
            free(tmp);
        } else {
            /* Z1 = S, Z2 = 0: A11 += G S^-1 G^T (applied as a product), c1 -= G S^-1 r (5.32). */
            spd->S_inv[b] = seam_xmalloc((m ? m * m : 1) * sizeof *spd->S_inv[b]);
            if (dense_spd_inverse(blk->S, spd->S_inv[b]) != 0) {
                seam_logf(host, SEAM_LOG_ERROR, "monolithic: the mass matrix of rigid block %zu is not positive definite",
                          b);
                st = SEAM_ERROR;
            } else if (n > 0) {
                double *Sr = seam_xmalloc(m * sizeof *Sr), *Gz = seam_xmalloc(n * sizeof *Gz);
                dense_mul(m, spd->S_inv[b], blk->r, Sr);
                seam_csr_mul(G, Sr, Gz);
                seam_axpy(n, -1.0, Gz, c);
                free(Sr);
                free(Gz);
            }
        }
    }
    if (st == SEAM_OK) {
        /* alpha (5.36): given, or |c1| / |c2|; y = [p; v / alpha]. */
        double n1 = seam_norm2(n, c), n2 = seam_norm2(size - n, c + n);
        spd->alpha = opts->alpha > 0.0 ? opts->alpha : (n1 > 0.0 && n2 > 0.0 ? n1 / n2 : 1.0);
        for (size_t i = n; i < size; i++)
            c[i] *= spd->alpha;
        for (size_t q = owned_from; q < np; q++)
            pc[q].scale = pc[q].alpha_pow == 0 ? 1.0 : pc[q].alpha_pow == 1 ? spd->alpha : spd->alpha * spd->alpha;
        spd->A = assemble(size, pc, np);
        spd->c = c;
    } else {
        free(c);
    }
    for (size_t q = owned_from; q < np; q++)
        seam_csr_destroy(&pc[q].X);
    free(pc);
    if (st != SEAM_OK)
        mono_spd_free(spd);
    return st;
}

void mono_spd_apply(const mono_spd *spd, const double *x, double *y)
{
    seam_csr_mul(spd->A, x, y);
    if (spd->n == 0)
        return;
    for (size_t b = 0; b < spd->n_blocks; b++) {
        const seam_csr *G = spd->G[b];
        size_t m = G->cols;
        if (!spd->S_inv[b] || m == 0)   /* kept, or a body with no free motion */
            continue;
        /* y_p += G S^-1 G^T x_p */
        double *g = seam_xmalloc(2 * m * sizeof *g), *h = g + m;
        seam_csr_mul_t(G, x, g);
        dense_mul(m, spd->S_inv[b], g, h);
        for (size_t i = 0; i < G->rows; i++)
            for (int64_t k = G->row_ptr[i]; k < G->row_ptr[i + 1]; k++)
                y[i] += G->val[k] * h[G->col[k]];
        free(g);
    }
}

static void spd_apply(void *ctx, const double *x, double *y) { mono_spd_apply(ctx, x, y); }

void mono_spd_recover(const mono_spd *spd, const mono_block *blocks, const double *y, double *p, double *v)
{
    size_t n = spd->n, off = 0;
    if (n > 0)
        memcpy(p, y, n * sizeof *p);
    for (size_t b = 0; b < spd->n_blocks; b++) {
        const mono_block *blk = &blocks[b];
        size_t m = blk->m;
        if (spd->at[b] != SIZE_MAX) {
            for (size_t i = 0; i < m; i++)
                v[off + i] = spd->alpha * y[spd->at[b] + i];
        } else {
            /* v = S^-1 (G^T p + r) from the second row of (5.17). */
            double *g = seam_xmalloc((m ? m : 1) * sizeof *g);
            if (n > 0)
                seam_csr_mul_t(spd->G[b], p, g);
            else
                memset(g, 0, m * sizeof *g);
            for (size_t i = 0; i < m; i++)
                g[i] += blk->r[i];
            dense_mul(m, spd->S_inv[b], g, v + off);
            free(g);
        }
        off += m;
    }
}

/* ---- the multigrid block preconditioner ---------------------------------------- */

/* With y = [p; s] (s: the kept blocks' unknowns) A = [A_pp A_ps; A_sp A_ss],
 * and M = L diag(B~, A_ss) L^T with L = [I A_ps A_ss^-1; 0 I] is the block
 * LDL^T of A with its pressure Schur complement A_pp - A_ps A_ss^-1 A_sp
 * (B plus the solids' response, G S^-1 G^T: Zarifi 5.17 with v eliminated)
 * replaced by B~, one V-cycle of fluid_mac's multigrid on the cut-cell
 * Laplacian B (or of the algebraic multigrid on B: MONO_PRECOND_AMG). A_ss is factored by CHOLMOD (its symbolic analysis kept
 * between solves while its pattern holds: mono_kept); the rigid bodies' products are
 * left out of M (rank 3 or 6 each: a few iterations). M is SPD whenever the
 * V-cycle is (symmetric smoothing), so PCG may use it. */
typedef struct mg_precond {
    size_t n, ns;            /* pressures, kept solid unknowns */
    const mono_fluid *F;
    mac_mg *mg;
    mono_amg *amg;           /* MONO_PRECOND_AMG: the pressure block's V-cycle instead of mg */
    double *Adiag, *Aplus[3];   /* per cell: B's stencil over scale, multigrid's level 0 */
    double scale;            /* B's coefficient of a whole open face, (dt/rho) dx^(d-2) */
    seam_csr *Asp, *Ass;     /* A's solid rows: ns x n and ns x ns */
    seam_cholesky *chol;     /* A_ss's factor: the kept one (mono_kept), not owned */
    double *ws, *rp, *rs, *tp;   /* workspaces: ns, n, ns, n */
} mg_precond;

static void mg_precond_free(mg_precond *P)
{
    mac_mg_free(&P->mg);
    mono_amg_free(&P->amg);
    free(P->Adiag);
    for (int a = 0; a < 3; a++)
        free(P->Aplus[a]);
    seam_csr_destroy(&P->Asp);
    seam_csr_destroy(&P->Ass);
    free(P->ws);
    free(P->rp);
    free(P->rs);
    free(P->tp);
    memset(P, 0, sizeof *P);
}

/* Rows r0 .. r1 - 1 of A restricted to columns c0 .. c1 - 1, shifted to 0. */
static seam_csr *sub_block(const seam_csr *A, size_t r0, size_t r1, size_t c0, size_t c1)
{
    seam_csr *X = SEAM_NEW(seam_csr);
    X->rows = r1 - r0;
    X->cols = c1 - c0;
    size_t cap = (size_t)(A->row_ptr[r1] - A->row_ptr[r0]) + 1;
    X->row_ptr = seam_xcalloc(X->rows + 1, sizeof *X->row_ptr);
    X->col = seam_xmalloc_n(cap, sizeof *X->col);
    X->val = seam_xmalloc_n(cap, sizeof *X->val);
    size_t nnz = 0;
    for (size_t i = r0; i < r1; i++) {
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            if ((size_t)A->col[k] >= c0 && (size_t)A->col[k] < c1) {
                X->col[nnz] = A->col[k] - (int64_t)c0;
                X->val[nnz++] = A->val[k];
            }
        X->row_ptr[i - r0 + 1] = (int64_t)nnz;
    }
    X->nnz = nnz;
    return X;
}

/* B's (2 dim + 1)-point stencil as multigrid's level 0 (Bridson's storage
 * per cell), divided by the coefficient of a whole open face so that the
 * coarse levels' rediscretized unit stencils match it (multigrid.c). */
static void mg_level0(mg_precond *P, const mono_fluid *F)
{
    const mac_grid *g = &F->grid;
    size_t nc = mac_ncell(g);
    const seam_csr *B = F->B;
    P->Adiag = SEAM_NEW_N(double, nc);
    for (int a = 0; a < 3; a++)
        P->Aplus[a] = SEAM_NEW_N(double, nc);
    double scale = 0.0, dmax = 0.0;
    for (size_t i = 0; i < B->rows; i++)
        for (int64_t k = B->row_ptr[i]; k < B->row_ptr[i + 1]; k++) {
            double v = fabs(B->val[k]);
            if ((size_t)B->col[k] != i)
                scale = v > scale ? v : scale;
            else
                dmax = v > dmax ? v : dmax;
        }
    P->scale = scale > 0.0 ? scale : dmax > 0.0 ? dmax : 1.0;
    for (size_t i = 0; i < B->rows; i++) {
        size_t c = (size_t)F->cell[i];
        for (int64_t k = B->row_ptr[i]; k < B->row_ptr[i + 1]; k++) {
            size_t nb = (size_t)F->cell[B->col[k]];
            double v = B->val[k] / P->scale;
            if (nb == c)
                P->Adiag[c] += v;
            for (int a = 0; a < g->dim; a++)
                if (nb == c + mac_stride(g, a))
                    P->Aplus[a][c] = v;
        }
    }
}

/* The factor of A_ss in kept->chol: analysed when there is none or A_ss's
 * pattern changed (counted in *analyses), refactored numerically always. */
static seam_status mg_precond_build(mg_precond *P, const mono_spd *spd, const mono_fluid *F, mono_kept *kept,
                                    int algebraic, size_t *analyses, const seam_host *host)
{
    memset(P, 0, sizeof *P);
    P->n = spd->n;
    P->ns = spd->size - spd->n;
    P->F = F;
    if (P->n > 0 && algebraic) {
        P->amg = mono_amg_build(F->B);
        seam_logf(host, SEAM_LOG_DEBUG, "monolithic: algebraic multigrid on %zu pressures: %d levels", P->n,
                  mono_amg_levels(P->amg));
        P->rp = seam_xmalloc_n(P->n, sizeof *P->rp);
        P->tp = seam_xmalloc_n(P->n, sizeof *P->tp);
    } else if (P->n > 0) {
        if (F->grid.dim == 0 || !F->closed) {
            seam_logf(host, SEAM_LOG_ERROR,
                      "monolithic: the multigrid preconditioner needs the fluid block's grid (mono_fluid_build)");
            return SEAM_ERROR;
        }
        mac_geometry geo = {.solid = F->closed};
        mg_level0(P, F);
        P->rp = seam_xmalloc_n(P->n, sizeof *P->rp);
        P->tp = seam_xmalloc_n(P->n, sizeof *P->tp);
        if (!(P->mg = mac_mg_build(NULL, &F->grid, &geo, F->index, P->Adiag, P->Aplus))) {
            seam_logf(host, SEAM_LOG_ERROR, "monolithic: out of memory for the multigrid preconditioner");
            mg_precond_free(P);
            return SEAM_ERROR;
        }
    }
    if (P->ns > 0) {
        P->Asp = sub_block(spd->A, P->n, spd->size, 0, P->n);
        P->Ass = sub_block(spd->A, P->n, spd->size, P->n, spd->size);
        P->ws = seam_xmalloc_n(P->ns, sizeof *P->ws);
        P->rs = seam_xmalloc_n(P->ns, sizeof *P->rs);
        size_t before = kept->chol ? seam_cholesky_analyses(kept->chol) : 0;
        if (P->Ass && !kept->chol)
            kept->chol = seam_cholesky_new(P->Ass);
        if (!kept->chol) {
            seam_logf(host, SEAM_LOG_ERROR, "monolithic: out of memory for the multigrid preconditioner's solid block");
            mg_precond_free(P);
            return SEAM_ERROR;
        }
        P->chol = kept->chol;
        int rc = seam_cholesky_factor(P->chol, P->Ass);   /* analyses a new pattern first */
        *analyses = seam_cholesky_analyses(P->chol) - before;
        if (*analyses > 0)
            seam_logf(host, SEAM_LOG_DEBUG,
                      "monolithic: solid block of %zu unknowns analysed by CHOLMOD: %.0f nonzeros in L, ordering %d",
                      P->ns, seam_cholesky_factor_nnz(P->chol), seam_cholesky_ordering(P->chol));
        if (rc != 0) {
            /* not positive definite: as IC(0)-PCG's breakdown, the step is retried with a smaller dt */
            seam_logf(host, rc == 1 ? SEAM_LOG_WARN : SEAM_LOG_ERROR,
                      "monolithic: the solid block of the SPD system (%zu unknowns) has no Cholesky factor (%s, "
                      "column %zu)",
                      P->ns, rc == 1 ? "not positive definite" : "CHOLMOD failed", seam_cholesky_minor(P->chol));
            mg_precond_free(P);
            return rc == 1 ? SEAM_UNSTABLE : SEAM_ERROR;
        }
    }
    return SEAM_OK;
}

/* z = M^-1 r: forward through L, the diagonal blocks, back through L^T. */
static void mg_precond_apply(void *ctx, const double *r, double *z)
{
    mg_precond *P = ctx;
    size_t n = P->n, ns = P->ns;
    if (n > 0)
        memcpy(P->rp, r, n * sizeof *P->rp);
    if (ns > 0 && n > 0) {
        seam_cholesky_solve(P->chol, r + n, P->ws);   /* w_s = A_ss^-1 r_s */
        seam_csr_mul_t(P->Asp, P->ws, P->tp);
        seam_axpy(n, -1.0, P->tp, P->rp);              /* r_p - A_ps w_s */
    }
    if (n > 0 && P->amg) {
        mono_amg_apply(P->amg, P->rp, z);
    } else if (n > 0) {
        mac_mg_apply(P->mg, n, P->F->cell, P->rp, z);
        for (size_t i = 0; i < n; i++)
            z[i] /= P->scale;
    }
    if (ns > 0) {
        memcpy(P->rs, r + n, ns * sizeof *P->rs);
        if (n > 0) {
            seam_csr_mul(P->Asp, z, P->ws);
            seam_axpy(ns, -1.0, P->ws, P->rs);         /* r_s - A_sp z_p */
        }
        seam_cholesky_solve(P->chol, P->rs, z + n);
    }
}

void mono_kept_free(mono_kept *kept)
{
    if (kept) {
        seam_cholesky_destroy(&kept->chol);
        seam_cholesky_destroy(&kept->chol_A);
    }
}

/* ---- the direct solve ---------------------------------------------------------- */

/* CHOLMOD's factor of the whole assembled A in kept->chol_A: analysed when
 * there is none or A's pattern changed (counted in *analyses), refactored
 * numerically always. Used as PCG's preconditioner, it solves A exactly:
 * one iteration, plus at most the rigid bodies' ranks for their G S^-1 G^T,
 * which A leaves out. */
static seam_status direct_build(mono_kept *kept, const mono_spd *spd, size_t *analyses, const seam_host *host)
{
    size_t before = kept->chol_A ? seam_cholesky_analyses(kept->chol_A) : 0;
    if (!kept->chol_A && !(kept->chol_A = seam_cholesky_new(spd->A))) {
        seam_logf(host, SEAM_LOG_ERROR, "monolithic: CHOLMOD could not analyse the coupled system (%zu unknowns)",
                  spd->size);
        return SEAM_ERROR;
    }
    int rc = seam_cholesky_factor(kept->chol_A, spd->A);   /* analyses a new pattern first */
    *analyses = seam_cholesky_analyses(kept->chol_A) - before;
    if (*analyses > 0)
        seam_logf(host, SEAM_LOG_DEBUG,
                  "monolithic: coupled system of %zu unknowns analysed by CHOLMOD: %.0f nonzeros in L, ordering %d",
                  spd->size, seam_cholesky_factor_nnz(kept->chol_A), seam_cholesky_ordering(kept->chol_A));
    if (rc != 0) {
        /* not positive definite: as a PCG breakdown, the step is retried with a smaller dt */
        seam_logf(host, rc == 1 ? SEAM_LOG_WARN : SEAM_LOG_ERROR,
                  "monolithic: the coupled SPD system (%zu unknowns) has no Cholesky factor (%s, column %zu)",
                  spd->size, rc == 1 ? "not positive definite" : "CHOLMOD failed",
                  seam_cholesky_minor(kept->chol_A));
        return rc == 1 ? SEAM_UNSTABLE : SEAM_ERROR;
    }
    return SEAM_OK;
}

/* z = A^-1 r by the factor; a failed solve leaves NaN, which PCG reports as a breakdown. */
static void direct_apply(void *ctx, const double *r, double *z)
{
    seam_cholesky *chol = ctx;
    if (seam_cholesky_solve(chol, r, z) != 0)
        z[0] = NAN;
}

static const char *const precond_name[] = {"IC(0)", "multigrid", "direct", "AMG"};

seam_status mono_solve(const mono_fluid *F, const mono_block *blocks, size_t n_blocks, double dt,
                       const mono_solve_opts *opts, double *p, double *v, mono_solve_stats *stats,
                       const seam_host *host)
{
    mono_kept kept = {0};
    seam_status st = mono_solve_kept(&kept, F, blocks, n_blocks, dt, opts, p, v, stats, host);
    mono_kept_free(&kept);
    return st;
}

seam_status mono_solve_kept(mono_kept *kept, const mono_fluid *F, const mono_block *blocks, size_t n_blocks,
                            double dt, const mono_solve_opts *opts, double *p, double *v, mono_solve_stats *stats,
                            const seam_host *host)
{
    mono_spd spd;
    seam_status st = mono_spd_build(&spd, F, blocks, n_blocks, opts, host);
    if (st != SEAM_OK)
        return st;
    double *y = seam_xcalloc(spd.size ? spd.size : 1, sizeof *y);
    double cn = seam_norm2(spd.size, spd.c);
    mono_solve_stats s = {0, 0.0, spd.A->nnz, 0};
    if (spd.size > 0 && cn > 0.0) {
        seam_ichol *L = NULL;
        mg_precond P = {0};
        seam_linop Aop = {spd.size, spd_apply, &spd}, Mop;
        if (opts->precond == MONO_PRECOND_MG || opts->precond == MONO_PRECOND_AMG) {
            st = mg_precond_build(&P, &spd, F, kept, opts->precond == MONO_PRECOND_AMG, &s.analyses, host);
            Mop = (seam_linop){spd.size, mg_precond_apply, &P};
        } else if (opts->precond == MONO_PRECOND_DIRECT) {
            st = direct_build(kept, &spd, &s.analyses, host);
            Mop = (seam_linop){spd.size, direct_apply, kept->chol_A};
        } else {
            L = seam_ichol_new(spd.A);
            Mop = seam_ichol_linop(L);
        }
        if (st == SEAM_OK) {
            seam_krylov_opts ko = {opts->tol, 0.0, opts->max_iter > 0 ? opts->max_iter : (int)spd.size + 100, 0};
            seam_krylov_stats ks = {0};
            seam_pcg(&Aop, &Mop, spd.c, y, &ko, &ks);
            s.iterations = ks.iterations;
            s.residual = ks.residual / cn;
            if (ks.breakdown || !ks.converged) {
                seam_logf(host, SEAM_LOG_WARN,   /* the step is retried smaller: no error unless that fails too */
                          "monolithic: coupled pressure solve (dt %g, %zu pressures, %zu unknowns): %s-PCG %s after %d "
                          "iterations, relative residual %.3e > tol %.1e",
                          dt, spd.n, spd.size, precond_name[opts->precond],
                          ks.breakdown ? "broke down" : "did not converge", ks.iterations, s.residual, opts->tol);
                st = SEAM_UNSTABLE;
            }
        }
        seam_ichol_destroy(&L);
        mg_precond_free(&P);
    }
    if (st == SEAM_OK)
        mono_spd_recover(&spd, blocks, y, p, v);
    if (stats)
        *stats = s;
    free(y);
    mono_spd_free(&spd);
    return st;
}
