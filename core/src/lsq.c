/* Least squares by QR with column pivoting (LAPACK dgeqp3 / dormqr / dtrsm). */
#include "seam/lsq.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

struct seam_lsq {
    size_t n, k, r;
    size_t n_finite;       /* columns that went into the factorization */
    double *QR;            /* n x n_finite: R above the diagonal, reflectors below */
    double *tau;           /* n_finite Householder factors */
    lapack_int *jpvt;      /* pivot order, 1-based indices into `finite` */
    size_t *finite;        /* original index of each factored column */
    double *norm;          /* its 2-norm: columns are factored scaled to unit length */
    double *work;          /* n x nrhs scratch for Q^T B */
    size_t cap_QR, cap_k, cap_work;
};

seam_lsq *seam_lsq_new(void) { return calloc(1, sizeof(seam_lsq)); }

void seam_lsq_destroy(seam_lsq **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_lsq *s = *self_p;
    free(s->QR);
    free(s->tau);
    free(s->jpvt);
    free(s->finite);
    free(s->norm);
    free(s->work);
    free(s);
    *self_p = NULL;
}

static void reserve(seam_lsq *s, size_t n, size_t k)
{
    if (n * k > s->cap_QR) {
        free(s->QR);
        s->cap_QR = n * k;
        s->QR = malloc(s->cap_QR * sizeof *s->QR);
    }
    if (k > s->cap_k) {
        free(s->tau);
        free(s->jpvt);
        free(s->finite);
        free(s->norm);
        s->cap_k = k;
        s->norm = malloc(k * sizeof *s->norm);
        s->tau = malloc(k * sizeof *s->tau);
        s->jpvt = malloc(k * sizeof *s->jpvt);
        s->finite = malloc(k * sizeof *s->finite);
    }
}

static int column_finite(const double *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(a[i]))
            return 0;
    return 1;
}

int seam_lsq_factor(seam_lsq *s, size_t n, size_t k, const double *A, size_t lda, double rcond)
{
    s->n = n;
    s->k = k;
    s->r = 0;
    s->n_finite = 0;
    if (n == 0 || k == 0)
        return 0;
    reserve(s, n, k);
    /* Non-finite and zero columns would poison the factorization: leave them out.
     * The others are scaled to unit length, so the filter measures how nearly
     * a column depends on the others, not how small it is. */
    for (size_t j = 0; j < k; j++) {
        const double *a = A + j * lda;
        double norm = column_finite(a, n) ? cblas_dnrm2((int)n, a, 1) : 0.0;
        if (!(norm > 0.0) || !isfinite(norm))
            continue;
        double *q = s->QR + s->n_finite * n;
        for (size_t i = 0; i < n; i++)
            q[i] = a[i] / norm;
        s->norm[s->n_finite] = norm;
        s->finite[s->n_finite++] = j;
    }
    if (s->n_finite == 0)
        return 0;
    memset(s->jpvt, 0, s->n_finite * sizeof *s->jpvt);   /* 0: every column free to pivot */
    lapack_int info = LAPACKE_dgeqp3(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)s->n_finite, s->QR,
                                     (lapack_int)n, s->jpvt, s->tau);
    if (info != 0)
        return -1;
    /* Pivoting sorts |R_ii| decreasingly: the rank is where it drops below rcond |R_00|. */
    size_t m = n < s->n_finite ? n : s->n_finite;
    double r00 = fabs(s->QR[0]);
    size_t r = 0;
    while (r < m && r00 > 0.0 && fabs(s->QR[r * n + r]) > rcond * r00)
        r++;
    s->r = r;
    return (int)r;
}

size_t seam_lsq_rank(const seam_lsq *s) { return s->r; }
size_t seam_lsq_cols(const seam_lsq *s) { return s->k; }

int seam_lsq_kept(const seam_lsq *s, size_t j)
{
    for (size_t i = 0; i < s->r; i++)
        if (s->finite[s->jpvt[i] - 1] == j)
            return 1;
    return 0;
}

void seam_lsq_solve_many(seam_lsq *s, size_t nrhs, const double *B, size_t ldb, double *Alpha, size_t ldalpha)
{
    for (size_t c = 0; c < nrhs; c++)
        for (size_t j = 0; j < s->k; j++)
            Alpha[c * ldalpha + j] = 0.0;
    if (s->r == 0 || nrhs == 0)
        return;
    size_t n = s->n, r = s->r;
    if (n * nrhs > s->cap_work) {
        free(s->work);
        s->cap_work = n * nrhs;
        s->work = malloc(s->cap_work * sizeof *s->work);
    }
    for (size_t c = 0; c < nrhs; c++)
        memcpy(s->work + c * n, B + c * ldb, n * sizeof *s->work);
    /* alpha = R_1^{-1} Q_1^T b (Akbay sec. 2.3.2), with the first r reflectors only. */
    LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', 'T', (lapack_int)n, (lapack_int)nrhs, (lapack_int)r, s->QR,
                   (lapack_int)n, s->tau, s->work, (lapack_int)n);
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, (int)r, (int)nrhs, 1.0, s->QR,
                (int)n, s->work, (int)n);
    /* Undo the pivoting: the i-th pivoted column is original column finite[jpvt[i]-1]. */
    for (size_t c = 0; c < nrhs; c++)
        for (size_t i = 0; i < r; i++) {
            size_t j = (size_t)s->jpvt[i] - 1;
            Alpha[c * ldalpha + s->finite[j]] = s->work[c * n + i] / s->norm[j];
        }
}

void seam_lsq_solve(seam_lsq *s, const double *b, double *alpha)
{
    seam_lsq_solve_many(s, 1, b, s->n, alpha, s->k);
}

/* ---- history of difference columns -------------------------------------- */

struct seam_history {
    size_t n, cap, count;
    double *A, *B;
    long *tag;
};

seam_history *seam_history_new(size_t n, size_t max_cols)
{
    seam_history *h = calloc(1, sizeof *h);
    h->n = n;
    h->cap = max_cols ? max_cols : (n ? n : 1);
    h->A = malloc((n ? n : 1) * h->cap * sizeof *h->A);
    h->B = malloc((n ? n : 1) * h->cap * sizeof *h->B);
    h->tag = malloc(h->cap * sizeof *h->tag);
    return h;
}

void seam_history_destroy(seam_history **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_history *h = *self_p;
    free(h->A);
    free(h->B);
    free(h->tag);
    free(h);
    *self_p = NULL;
}

static void history_drop_first(seam_history *h, size_t m)
{
    size_t left = h->count - m;
    memmove(h->A, h->A + m * h->n, left * h->n * sizeof *h->A);
    memmove(h->B, h->B + m * h->n, left * h->n * sizeof *h->B);
    memmove(h->tag, h->tag + m, left * sizeof *h->tag);
    h->count = left;
}

void seam_history_push(seam_history *h, const double *a, const double *b, long tag)
{
    if (h->count == h->cap)
        history_drop_first(h, 1);
    memcpy(h->A + h->count * h->n, a, h->n * sizeof *h->A);
    memcpy(h->B + h->count * h->n, b, h->n * sizeof *h->B);
    h->tag[h->count++] = tag;
}

void seam_history_keep(seam_history *h, long lo, long hi)
{
    size_t w = 0;
    for (size_t j = 0; j < h->count; j++) {
        if (h->tag[j] < lo || h->tag[j] > hi)
            continue;
        if (w != j) {
            memcpy(h->A + w * h->n, h->A + j * h->n, h->n * sizeof *h->A);
            memcpy(h->B + w * h->n, h->B + j * h->n, h->n * sizeof *h->B);
            h->tag[w] = h->tag[j];
        }
        w++;
    }
    h->count = w;
}

size_t seam_history_count(const seam_history *h) { return h->count; }
size_t seam_history_rows(const seam_history *h) { return h->n; }
const double *seam_history_A(const seam_history *h) { return h->A; }
const double *seam_history_B(const seam_history *h) { return h->B; }
