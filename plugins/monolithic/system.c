/* The coupled pressure projection's linear solve (Zarifi 2017, sec. 5.2;
 * ../shared/specs/monolithic-sph-fem.md 1.3-1.5): (5.17) turned SPD by the
 * split S = Z1 + Z2 (5.25-5.31), scaled (5.36), solved by IC(0)-PCG. */
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mono.h"
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
    seam_csr *A = calloc(1, sizeof *A);
    A->rows = A->cols = size;
    A->row_ptr = calloc(size + 1, sizeof *A->row_ptr);
    size_t cap = 1, nnz = 0;
    for (size_t q = 0; q < np; q++)
        cap += pc[q].X->nnz;
    A->col = malloc(cap * sizeof *A->col);
    A->val = malloc(cap * sizeof *A->val);
    int64_t *slot = malloc((size ? size : 1) * sizeof *slot);
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
    spd->at = malloc((n_blocks ? n_blocks : 1) * sizeof *spd->at);
    spd->G = calloc(n_blocks ? n_blocks : 1, sizeof *spd->G);
    spd->S_inv = calloc(n_blocks ? n_blocks : 1, sizeof *spd->S_inv);
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
    double *c = calloc(size ? size : 1, sizeof *c);
    if (n > 0)
        memcpy(c, F->Eu, n * sizeof *c);
    /* The pieces: B; per kept block G Z1^-1 G^T (5.27), A12, A21 (5.28-5.29),
     * Z2 and Z2 Z1^-1 Z2 (5.30); scales set once alpha is known. */
    piece *pc = calloc(1 + 5 * n_blocks, sizeof *pc);
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
            double *Z1r = malloc((m ? m : 1) * sizeof *Z1r), *tmp = malloc((m ? m : 1) * sizeof *tmp);
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
                double *Gz = malloc(n * sizeof *Gz);
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
            spd->S_inv[b] = malloc((m ? m * m : 1) * sizeof *spd->S_inv[b]);
            if (dense_spd_inverse(blk->S, spd->S_inv[b]) != 0) {
                seam_logf(host, SEAM_LOG_ERROR, "monolithic: the mass matrix of rigid block %zu is not positive definite",
                          b);
                st = SEAM_ERROR;
            } else if (n > 0) {
                double *Sr = malloc(m * sizeof *Sr), *Gz = malloc(n * sizeof *Gz);
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
        double *g = malloc(2 * m * sizeof *g), *h = g + m;
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
            double *g = malloc((m ? m : 1) * sizeof *g);
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

seam_status mono_solve(const mono_fluid *F, const mono_block *blocks, size_t n_blocks, double dt,
                       const mono_solve_opts *opts, double *p, double *v, mono_solve_stats *stats,
                       const seam_host *host)
{
    mono_spd spd;
    seam_status st = mono_spd_build(&spd, F, blocks, n_blocks, opts, host);
    if (st != SEAM_OK)
        return st;
    double *y = calloc(spd.size ? spd.size : 1, sizeof *y);
    double cn = seam_norm2(spd.size, spd.c);
    mono_solve_stats s = {0, 0.0, spd.A->nnz};
    if (spd.size > 0 && cn > 0.0) {
        seam_ichol *L = seam_ichol_new(spd.A);
        seam_linop Aop = {spd.size, spd_apply, &spd}, Mop = seam_ichol_linop(L);
        seam_krylov_opts ko = {opts->tol, 0.0, opts->max_iter > 0 ? opts->max_iter : (int)spd.size + 100, 0};
        seam_krylov_stats ks = {0};
        seam_pcg(&Aop, &Mop, spd.c, y, &ko, &ks);
        seam_ichol_destroy(&L);
        s.iterations = ks.iterations;
        s.residual = ks.residual / cn;
        if (ks.breakdown || !ks.converged) {
            seam_logf(host, SEAM_LOG_WARN,   /* the step is retried smaller: no error unless that fails too */
                      "monolithic: coupled pressure solve (dt %g, %zu pressures, %zu unknowns): IC(0)-PCG %s after %d "
                      "iterations, relative residual %.3e > tol %.1e",
                      dt, spd.n, spd.size, ks.breakdown ? "broke down" : "did not converge", ks.iterations, s.residual,
                      opts->tol);
            st = SEAM_UNSTABLE;
        }
    }
    if (st == SEAM_OK)
        mono_spd_recover(&spd, blocks, y, p, v);
    if (stats)
        *stats = s;
    free(y);
    mono_spd_free(&spd);
    return st;
}
