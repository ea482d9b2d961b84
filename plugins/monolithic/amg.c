/* Classical algebraic multigrid for the pressure block of the coupled solve
 * (Ruge and Stueben 1987; Stueben 2001, "A review of algebraic multigrid",
 * J. Comput. Appl. Math. 128, sec. 7: strength, the first-pass C/F
 * splitting, direct interpolation with positive and negative couplings
 * apart), Galerkin coarse operators P^T A P, a symmetric V(1,1)-cycle
 * (forward Gauss-Seidel down, backward up) and CHOLMOD on the coarsest. It
 * reads the cut-cell Laplacian as a matrix: open fractions, ghost-fluid
 * faces and free surfaces reach every level, which rediscretized geometric
 * levels miss. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mono.h"
#include "seam/alloc.h"
#include "seam/cholesky.h"

enum { AMG_MAX_LEVELS = 25, AMG_COARSEST = 300 };
static const double amg_theta = 0.25;   /* strength threshold (Stueben's usual choice) */

typedef struct amg_level {
    const seam_csr *A;       /* level 0: the caller's; below: A_own */
    seam_csr *A_own, *P, *R; /* R = P^T; P, R NULL on the coarsest */
    double *x, *b, *r;       /* per row */
} amg_level;

struct mono_amg {
    int n_levels;
    amg_level lev[AMG_MAX_LEVELS];
    seam_cholesky *coarse;   /* the coarsest level's factor; NULL: Gauss-Seidel sweeps there */
};

/* j strongly influences i: -a_ij >= theta max_k -a_ik (k != i), as a CSR pattern over A's columns. */
static seam_csr *strength(const seam_csr *A)
{
    seam_csr *S = SEAM_NEW(seam_csr);
    S->rows = S->cols = A->rows;
    S->row_ptr = seam_xcalloc(A->rows + 1, sizeof *S->row_ptr);
    S->col = seam_xmalloc_n(A->nnz + 1, sizeof *S->col);
    S->val = seam_xmalloc_n(A->nnz + 1, sizeof *S->val);
    size_t nnz = 0;
    for (size_t i = 0; i < A->rows; i++) {
        double big = 0.0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            if ((size_t)A->col[k] != i && -A->val[k] > big)
                big = -A->val[k];
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1] && big > 0.0; k++)
            if ((size_t)A->col[k] != i && -A->val[k] >= amg_theta * big) {
                S->col[nnz] = A->col[k];
                S->val[nnz++] = 1.0;
            }
        S->row_ptr[i + 1] = (int64_t)nnz;
    }
    S->nnz = nnz;
    return S;
}

/* Buckets of the undecided points by their measure, doubly linked. */
typedef struct buckets {
    int64_t *head, *next, *prev;
    size_t top;              /* no bucket above is occupied */
} buckets;

static void bucket_put(buckets *B, const int64_t *lambda, int64_t i)
{
    int64_t l = lambda[i];
    B->prev[i] = -1;
    B->next[i] = B->head[l];
    if (B->head[l] >= 0)
        B->prev[B->head[l]] = i;
    B->head[l] = i;
    if ((size_t)l > B->top)
        B->top = (size_t)l;
}

static void bucket_take(buckets *B, const int64_t *lambda, int64_t i)
{
    if (B->prev[i] >= 0)
        B->next[B->prev[i]] = B->next[i];
    else
        B->head[lambda[i]] = B->next[i];
    if (B->next[i] >= 0)
        B->prev[B->next[i]] = B->prev[i];
}

enum { PT_U = 0, PT_C = 1, PT_F = 2 };

/* Ruge-Stueben's second pass: two F points that strongly influence each
 * other must share a strong C point, else the neighbour becomes C, so that
 * direct interpolation sees each strong F-F coupling through a C point. */
static void second_pass(const seam_csr *S, uint8_t *type)
{
    size_t n = S->rows;
    int64_t *mark = seam_xmalloc_n(n + 1, sizeof *mark);
    for (size_t i = 0; i < n; i++)
        mark[i] = -1;
    for (size_t i = 0; i < n; i++) {
        if (type[i] != PT_F)
            continue;
        for (int64_t k = S->row_ptr[i]; k < S->row_ptr[i + 1]; k++)
            if (type[S->col[k]] == PT_C)
                mark[S->col[k]] = (int64_t)i;   /* i's strong C points */
        for (int64_t k = S->row_ptr[i]; k < S->row_ptr[i + 1]; k++) {
            int64_t j = S->col[k];
            if (type[j] != PT_F)
                continue;
            int shared = 0;
            for (int64_t q = S->row_ptr[j]; q < S->row_ptr[j + 1] && !shared; q++)
                shared = type[S->col[q]] == PT_C && mark[S->col[q]] == (int64_t)i;
            if (!shared) {
                type[j] = PT_C;
                mark[j] = (int64_t)i;
            }
        }
    }
    free(mark);
}

/* The first pass of Ruge-Stueben's splitting: the undecided point that
 * influences most becomes C, the points it influences F, and each new F
 * point raises the measure of the points that influence it. Points with no
 * strong connection either way are F (smoothing alone serves them). */
static uint8_t *split(const seam_csr *S, const seam_csr *St)
{
    size_t n = S->rows;
    uint8_t *type = seam_xcalloc(n ? n : 1, 1);
    int64_t *lambda = seam_xmalloc_n(n + 1, sizeof *lambda);
    size_t cap = 1;
    for (size_t i = 0; i < n; i++) {
        lambda[i] = St->row_ptr[i + 1] - St->row_ptr[i];
        size_t bound = 2 * (size_t)lambda[i] + 1;   /* each point it influences turns F once */
        cap = bound > cap ? bound : cap;
    }
    buckets B = {seam_xmalloc_n(cap + 1, sizeof(int64_t)), seam_xmalloc_n(n + 1, sizeof(int64_t)),
                 seam_xmalloc_n(n + 1, sizeof(int64_t)), 0};
    for (size_t l = 0; l <= cap; l++)
        B.head[l] = -1;
    for (size_t i = 0; i < n; i++) {
        if (lambda[i] == 0 && S->row_ptr[i + 1] == S->row_ptr[i])
            type[i] = PT_F;
        else
            bucket_put(&B, lambda, (int64_t)i);
    }
    for (;;) {
        while (B.top > 0 && B.head[B.top] < 0)
            B.top--;
        int64_t c = B.head[B.top];
        if (c < 0)
            break;
        bucket_take(&B, lambda, c);
        type[c] = PT_C;
        for (int64_t k = St->row_ptr[c]; k < St->row_ptr[c + 1]; k++) {
            int64_t f = St->col[k];
            if (type[f] != PT_U)
                continue;
            bucket_take(&B, lambda, f);
            type[f] = PT_F;
            for (int64_t q = S->row_ptr[f]; q < S->row_ptr[f + 1]; q++) {
                int64_t u = S->col[q];
                if (type[u] == PT_U && (size_t)lambda[u] < cap) {
                    bucket_take(&B, lambda, u);
                    lambda[u]++;
                    bucket_put(&B, lambda, u);
                }
            }
        }
        for (int64_t k = S->row_ptr[c]; k < S->row_ptr[c + 1]; k++) {
            int64_t u = S->col[k];
            if (type[u] == PT_U && lambda[u] > 0) {
                bucket_take(&B, lambda, u);
                lambda[u]--;
                bucket_put(&B, lambda, u);
            }
        }
    }
    free(B.head);
    free(B.next);
    free(B.prev);
    free(lambda);
    second_pass(S, type);
    return type;
}

/* Direct interpolation (Stueben 2001, sec. 7.2.1): an F point takes its
 * strong C neighbours' values, weights scaled so that its negative (and
 * positive) couplings are matched as a whole; positive couplings with no C
 * point to carry them are lumped into the diagonal. */
static seam_csr *interpolation(const seam_csr *A, const seam_csr *S, const uint8_t *type, size_t *n_coarse)
{
    size_t n = A->rows, nc = 0;
    int64_t *cidx = seam_xmalloc_n(n + 1, sizeof *cidx);
    for (size_t i = 0; i < n; i++)
        cidx[i] = type[i] == PT_C ? (int64_t)nc++ : -1;
    seam_triplets *t = seam_triplets_new(n, nc, A->nnz);
    uint8_t *strong = seam_xcalloc(n ? n : 1, 1);
    for (size_t i = 0; i < n; i++) {
        if (type[i] == PT_C) {
            seam_triplets_add(t, i, (size_t)cidx[i], 1.0);
            continue;
        }
        for (int64_t k = S->row_ptr[i]; k < S->row_ptr[i + 1]; k++)
            strong[S->col[k]] = 1;
        double diag = 0.0, neg = 0.0, pos = 0.0, neg_c = 0.0, pos_c = 0.0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            size_t j = (size_t)A->col[k];
            double a = A->val[k];
            if (j == i) {
                diag = a;
                continue;
            }
            int interp = strong[j] && type[j] == PT_C;
            if (a < 0.0) {
                neg += a;
                neg_c += interp ? a : 0.0;
            } else {
                pos += a;
                pos_c += interp ? a : 0.0;
            }
        }
        if (pos_c == 0.0)
            diag += pos;   /* no C point carries the positive couplings: lumped */
        double alpha = neg_c < 0.0 ? neg / neg_c : 0.0, beta = pos_c > 0.0 ? pos / pos_c : 0.0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1] && diag > 0.0; k++) {
            size_t j = (size_t)A->col[k];
            if (j != i && strong[j] && type[j] == PT_C)
                seam_triplets_add(t, i, (size_t)cidx[j], -(A->val[k] < 0.0 ? alpha : beta) * A->val[k] / diag);
        }
        for (int64_t k = S->row_ptr[i]; k < S->row_ptr[i + 1]; k++)
            strong[S->col[k]] = 0;
    }
    seam_csr *P = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    free(strong);
    free(cidx);
    *n_coarse = nc;
    return P;
}

static void level_vectors(amg_level *L)
{
    size_t n = L->A->rows ? L->A->rows : 1;
    L->x = seam_xcalloc(n, sizeof *L->x);
    L->b = seam_xcalloc(n, sizeof *L->b);
    L->r = seam_xcalloc(n, sizeof *L->r);
}

void mono_amg_free(mono_amg **self_p)
{
    mono_amg *m = *self_p;
    if (!m)
        return;
    for (int l = 0; l < m->n_levels; l++) {
        amg_level *L = &m->lev[l];
        seam_csr_destroy(&L->A_own);
        seam_csr_destroy(&L->P);
        seam_csr_destroy(&L->R);
        free(L->x);
        free(L->b);
        free(L->r);
    }
    seam_cholesky_destroy(&m->coarse);
    free(m);
    *self_p = NULL;
}

mono_amg *mono_amg_build(const seam_csr *A)
{
    mono_amg *m = SEAM_NEW(mono_amg);
    m->lev[0].A = A;
    level_vectors(&m->lev[0]);
    m->n_levels = 1;
    while (m->n_levels < AMG_MAX_LEVELS) {
        amg_level *L = &m->lev[m->n_levels - 1];
        size_t n = L->A->rows;
        if (n <= AMG_COARSEST)
            break;
        seam_csr *S = strength(L->A), *St = seam_csr_transpose(S);
        uint8_t *type = split(S, St);
        size_t nc = 0;
        seam_csr *P = interpolation(L->A, S, type, &nc);
        free(type);
        seam_csr_destroy(&S);
        seam_csr_destroy(&St);
        if (nc == 0 || (double)nc > 0.9 * (double)n) {   /* no coarsening left to gain */
            seam_csr_destroy(&P);
            break;
        }
        L->P = P;
        L->R = seam_csr_transpose(P);
        seam_csr *AP = seam_csr_matmul(L->A, NULL, P);
        amg_level *C = &m->lev[m->n_levels++];
        C->A = C->A_own = seam_csr_matmul(L->R, NULL, AP);   /* Galerkin: P^T A P */
        seam_csr_destroy(&AP);
        level_vectors(C);
    }
    const seam_csr *Ac = m->lev[m->n_levels - 1].A;
    m->coarse = seam_cholesky_new(Ac);
    if (m->coarse && seam_cholesky_factor(m->coarse, Ac) != 0)
        seam_cholesky_destroy(&m->coarse);   /* semi-definite (a liquid region with no free surface): sweeps */
    return m;
}

/* One Gauss-Seidel sweep on A x = b, forward or backward. */
static void gauss_seidel(const seam_csr *A, const double *b, double *x, int backward)
{
    size_t n = A->rows;
    for (size_t q = 0; q < n; q++) {
        size_t i = backward ? n - 1 - q : q;
        double s = b[i], d = 0.0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            if ((size_t)A->col[k] == i)
                d = A->val[k];
            else
                s -= A->val[k] * x[A->col[k]];
        }
        if (d > 0.0)
            x[i] = s / d;
    }
}

static void vcycle(mono_amg *m, int l)
{
    amg_level *L = &m->lev[l];
    size_t n = L->A->rows;
    if (l == m->n_levels - 1) {
        if (m->coarse && seam_cholesky_solve(m->coarse, L->b, L->x) == 0)
            return;
        memset(L->x, 0, n * sizeof *L->x);
        for (int s = 0; s < 20; s++) {   /* symmetric sweeps: forward then backward */
            gauss_seidel(L->A, L->b, L->x, 0);
            gauss_seidel(L->A, L->b, L->x, 1);
        }
        return;
    }
    memset(L->x, 0, n * sizeof *L->x);
    gauss_seidel(L->A, L->b, L->x, 0);
    seam_csr_mul(L->A, L->x, L->r);
    for (size_t i = 0; i < n; i++)
        L->r[i] = L->b[i] - L->r[i];
    amg_level *C = &m->lev[l + 1];
    seam_csr_mul(L->R, L->r, C->b);
    vcycle(m, l + 1);
    seam_csr_mul(L->P, C->x, L->r);
    for (size_t i = 0; i < n; i++)
        L->x[i] += L->r[i];
    gauss_seidel(L->A, L->b, L->x, 1);
}

void mono_amg_apply(mono_amg *m, const double *r, double *z)
{
    amg_level *L = &m->lev[0];
    memcpy(L->b, r, L->A->rows * sizeof *r);
    vcycle(m, 0);
    memcpy(z, L->x, L->A->rows * sizeof *z);
}

int mono_amg_levels(const mono_amg *m) { return m->n_levels; }
