/* Triplet assembly, CSR storage and two preconditioners. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/sparse.h"

struct seam_triplets {
    size_t rows, cols, n, cap;
    int64_t *i, *j;
    double *v;
};

seam_triplets *seam_triplets_new(size_t rows, size_t cols, size_t capacity_hint)
{
    seam_triplets *t = SEAM_NEW(seam_triplets);
    t->rows = rows;
    t->cols = cols;
    t->cap = capacity_hint ? capacity_hint : 16;
    t->i = seam_xmalloc_n(t->cap, sizeof *t->i);
    t->j = seam_xmalloc_n(t->cap, sizeof *t->j);
    t->v = seam_xmalloc_n(t->cap, sizeof *t->v);
    return t;
}

void seam_triplets_destroy(seam_triplets **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_triplets *t = *self_p;
    free(t->i);
    free(t->j);
    free(t->v);
    free(t);
    *self_p = NULL;
}

void seam_triplets_add(seam_triplets *t, size_t i, size_t j, double v)
{
    if (!t)
        return;
    if (t->n == t->cap) {
        size_t cap = 2 * t->cap;
        t->i = seam_xrealloc_n(t->i, cap, sizeof *t->i);
        t->j = seam_xrealloc_n(t->j, cap, sizeof *t->j);
        t->v = seam_xrealloc_n(t->v, cap, sizeof *t->v);
        t->cap = cap;
    }
    t->i[t->n] = (int64_t)i;
    t->j[t->n] = (int64_t)j;
    t->v[t->n] = v;
    t->n++;
}

void seam_triplets_clear(seam_triplets *t)
{
    if (!t)
        return;
    t->n = 0;
}

typedef struct csr_entry {
    int64_t col;
    double val;
} csr_entry;

static int entry_cmp(const void *a, const void *b)
{
    int64_t x = ((const csr_entry *)a)->col, y = ((const csr_entry *)b)->col;
    return (x > y) - (x < y);
}

seam_csr *seam_csr_from_triplets(const seam_triplets *t)
{
    if (!t)
        return NULL;
    seam_csr *A = SEAM_NEW(seam_csr);
    A->rows = t->rows;
    A->cols = t->cols;
    A->row_ptr = SEAM_NEW_N(int64_t, t->rows + 1);
    int64_t *col = seam_xmalloc_n(t->n, sizeof *col);
    double *val = seam_xmalloc_n(t->n, sizeof *val);
    int64_t *fill = seam_xmalloc_n(t->rows + 1, sizeof *fill);
    int64_t *slot = seam_xmalloc_n(t->cols, sizeof *slot);
    for (size_t k = 0; k < t->n; k++)
        A->row_ptr[t->i[k] + 1]++;
    for (size_t r = 0; r < t->rows; r++)
        A->row_ptr[r + 1] += A->row_ptr[r];
    memcpy(fill, A->row_ptr, (t->rows + 1) * sizeof *fill);
    for (size_t k = 0; k < t->n; k++) {
        int64_t at = fill[t->i[k]]++;
        col[at] = t->j[k];
        val[at] = t->v[k];
    }
    free(fill);
    /* Sum duplicates in insertion order (slot: where a column of the current
     * row went), then sort each row's distinct columns: linear in the
     * triplets however many land on one entry (a finite element row gets
     * dozens of contributions per entry). */
    for (size_t c = 0; c < t->cols; c++)
        slot[c] = -1;
    csr_entry *buf = NULL;
    size_t buf_cap = 0, out = 0;
    int64_t start = 0;
    for (size_t r = 0; r < t->rows; r++) {
        int64_t end = A->row_ptr[r + 1];
        size_t first = out;
        for (int64_t a = start; a < end; a++) {   /* out <= a: compaction in place */
            int64_t c = col[a];
            if (slot[c] >= 0) {
                val[slot[c]] += val[a];
            } else {
                slot[c] = (int64_t)out;
                col[out] = c;
                val[out] = val[a];
                out++;
            }
        }
        for (size_t k = first; k < out; k++)
            slot[col[k]] = -1;
        size_t len = out - first;
        if (len <= 32) {
            for (size_t a = first + 1; a < out; a++) {
                int64_t c = col[a];
                double v = val[a];
                size_t b = a;
                while (b > first && col[b - 1] > c) {
                    col[b] = col[b - 1];
                    val[b] = val[b - 1];
                    b--;
                }
                col[b] = c;
                val[b] = v;
            }
        } else {
            if (len > buf_cap) {
                buf = seam_xrealloc_n(buf, len, sizeof *buf);
                buf_cap = len;
            }
            for (size_t k = 0; k < len; k++)
                buf[k] = (csr_entry){col[first + k], val[first + k]};
            qsort(buf, len, sizeof *buf, entry_cmp);
            for (size_t k = 0; k < len; k++) {
                col[first + k] = buf[k].col;
                val[first + k] = buf[k].val;
            }
        }
        A->row_ptr[r] = (int64_t)first;
        start = end;
    }
    free(slot);
    free(buf);
    A->row_ptr[t->rows] = (int64_t)out;
    A->nnz = out;
    A->col = seam_xrealloc_n(col, out, sizeof *col);   /* shrunk to nnz where the allocator can */
    A->val = seam_xrealloc_n(val, out, sizeof *val);
    return A;
}

void seam_csr_destroy(seam_csr **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_csr *A = *self_p;
    free(A->row_ptr);
    free(A->col);
    free(A->val);
    free(A);
    *self_p = NULL;
}

void seam_csr_mul(const seam_csr *A, const double *x, double *y)
{
#pragma omp parallel for if (A->nnz > 100000)
    for (size_t r = 0; r < A->rows; r++) {
        double s = 0.0;
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++)
            s += A->val[k] * x[A->col[k]];
        y[r] = s;
    }
}

void seam_csr_mul_t(const seam_csr *A, const double *x, double *y)
{
    memset(y, 0, A->cols * sizeof *y);
    for (size_t r = 0; r < A->rows; r++)
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++)
            y[A->col[k]] += A->val[k] * x[r];
}

double *seam_csr_at(seam_csr *A, size_t i, size_t j)
{
    int64_t lo = A->row_ptr[i], hi = A->row_ptr[i + 1] - 1;
    while (lo <= hi) {
        int64_t mid = (lo + hi) / 2;
        if (A->col[mid] == (int64_t)j)
            return &A->val[mid];
        if (A->col[mid] < (int64_t)j)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

void seam_csr_add_block(seam_csr *A, int d, int nn, const int32_t *nodes, const double *Ke)
{
    size_t m = (size_t)nn * (size_t)d;
    for (int a = 0; a < nn; a++)
        for (int i = 0; i < d; i++)
            for (int b = 0; b < nn; b++)
                for (int k = 0; k < d; k++) {
                    double *p = seam_csr_at(A, (size_t)nodes[a] * (size_t)d + (size_t)i,
                                            (size_t)nodes[b] * (size_t)d + (size_t)k);
                    if (p)
                        *p += Ke[((size_t)a * (size_t)d + (size_t)i) * m + (size_t)b * (size_t)d + (size_t)k];
                }
}

void seam_csr_diagonal(const seam_csr *A, double *diag)
{
    for (size_t r = 0; r < A->rows; r++) {
        diag[r] = 0.0;
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++)
            if (A->col[k] == (int64_t)r)
                diag[r] = A->val[k];
    }
}

seam_csr *seam_csr_transpose(const seam_csr *A)
{
    seam_csr *T = SEAM_NEW(seam_csr);
    T->rows = A->cols;
    T->cols = A->rows;
    T->nnz = A->nnz;
    T->row_ptr = SEAM_NEW_N(int64_t, A->cols + 1);
    T->col = seam_xmalloc_n(A->nnz, sizeof *T->col);
    T->val = seam_xmalloc_n(A->nnz, sizeof *T->val);
    for (size_t k = 0; k < A->nnz; k++)
        T->row_ptr[A->col[k] + 1]++;
    for (size_t c = 0; c < A->cols; c++)
        T->row_ptr[c + 1] += T->row_ptr[c];
    int64_t *fill = seam_xmalloc_n(A->cols + 1, sizeof *fill);
    memcpy(fill, T->row_ptr, (A->cols + 1) * sizeof *fill);
    /* Rows of A in increasing order: each row of T comes out sorted. */
    for (size_t r = 0; r < A->rows; r++)
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++) {
            int64_t at = fill[A->col[k]]++;
            T->col[at] = (int64_t)r;
            T->val[at] = A->val[k];
        }
    free(fill);
    return T;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

seam_csr *seam_csr_matmul(const seam_csr *A, const double *d, const seam_csr *B)
{
    /* Gustavson's row-by-row product with a dense accumulator over B's columns. */
    size_t nc = B->cols;
    double *acc = SEAM_NEW_N(double, nc);
    int64_t *mark = seam_xmalloc_n(nc, sizeof *mark), *cols = seam_xmalloc_n(nc, sizeof *cols);
    for (size_t c = 0; c < nc; c++)
        mark[c] = -1;
    seam_csr *C = SEAM_NEW(seam_csr);
    C->rows = A->rows;
    C->cols = nc;
    C->row_ptr = SEAM_NEW_N(int64_t, A->rows + 1);
    size_t cap = A->nnz + B->nnz + 1, nnz = 0;
    C->col = seam_xmalloc_n(cap, sizeof *C->col);
    C->val = seam_xmalloc_n(cap, sizeof *C->val);
    for (size_t r = 0; r < A->rows; r++) {
        size_t n_row = 0;
        for (int64_t ka = A->row_ptr[r]; ka < A->row_ptr[r + 1]; ka++) {
            int64_t j = A->col[ka];
            double a = A->val[ka] * (d ? d[j] : 1.0);
            for (int64_t kb = B->row_ptr[j]; kb < B->row_ptr[j + 1]; kb++) {
                int64_t c = B->col[kb];
                if (mark[c] != (int64_t)r) {
                    mark[c] = (int64_t)r;
                    acc[c] = 0.0;
                    cols[n_row++] = c;
                }
                acc[c] += a * B->val[kb];
            }
        }
        qsort(cols, n_row, sizeof *cols, cmp_i64);
        if (nnz + n_row > cap) {
            while (nnz + n_row > cap)
                cap *= 2;
            C->col = seam_xrealloc_n(C->col, cap, sizeof *C->col);
            C->val = seam_xrealloc_n(C->val, cap, sizeof *C->val);
        }
        for (size_t k = 0; k < n_row; k++) {
            C->col[nnz] = cols[k];
            C->val[nnz++] = acc[cols[k]];
        }
        C->row_ptr[r + 1] = (int64_t)nnz;
    }
    C->nnz = nnz;
    free(acc);
    free(mark);
    free(cols);
    return C;
}

static void csr_apply(void *ctx, const double *x, double *y) { seam_csr_mul(ctx, x, y); }

/* The operator only reads A; the table's ctx is not const for operators that keep scratch. */
seam_linop seam_csr_linop(const seam_csr *A) { return (seam_linop){A->rows, csr_apply, (void *)(uintptr_t)A}; }

/* ---- Jacobi ------------------------------------------------------------ */

struct seam_jacobi {
    size_t n;
    double *inv_diag;
};

seam_jacobi *seam_jacobi_new(const seam_csr *A)
{
    seam_jacobi *J = SEAM_NEW(seam_jacobi);
    J->n = A->rows;
    J->inv_diag = seam_xmalloc_n(A->rows, sizeof *J->inv_diag);
    seam_csr_diagonal(A, J->inv_diag);
    for (size_t i = 0; i < J->n; i++)
        J->inv_diag[i] = J->inv_diag[i] != 0.0 ? 1.0 / J->inv_diag[i] : 1.0;
    return J;
}

void seam_jacobi_destroy(seam_jacobi **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->inv_diag);
    free(*self_p);
    *self_p = NULL;
}

static void jacobi_apply(void *ctx, const double *x, double *y)
{
    seam_jacobi *J = ctx;
    for (size_t i = 0; i < J->n; i++)
        y[i] = J->inv_diag[i] * x[i];
}

seam_linop seam_jacobi_linop(seam_jacobi *self) { return (seam_linop){self->n, jacobi_apply, self}; }

/* ---- IC(0) ------------------------------------------------------------- */

struct seam_ichol {
    size_t n;
    int64_t *row_ptr, *col;   /* strictly lower part of L, rows sorted */
    double *val;
    double *diag;             /* L(i,i) */
    double *tmp;
    size_t shifted;           /* restarts with a larger shift */
    double alpha;             /* the shift: L L^T ~ A + alpha diag(A) */
};

/* IC(0) of A + alpha diag(A) into L, from A's strictly lower values a_low.
 * Returns 0, or -1 at the first pivot below tau times its diagonal: a small
 * pivot makes the later rows of L grow without bound (on the Newton systems
 * of light cloth they overflow to inf and NaN). */
static int ichol_factor(seam_ichol *L, const double *a_low, const double *adiag, double alpha)
{
    const double tau = 1e-6;
    memcpy(L->val, a_low, (size_t)L->row_ptr[L->n] * sizeof *L->val);
    /* Row-oriented (left-looking) IC(0): L(i,k) = (A(i,k) - L(i,:k).L(k,:k)) / L(k,k). */
    for (size_t i = 0; i < L->n; i++) {
        for (int64_t a = L->row_ptr[i]; a < L->row_ptr[i + 1]; a++) {
            size_t k = (size_t)L->col[a];
            double s = L->val[a];
            int64_t p = L->row_ptr[i], q = L->row_ptr[k];
            while (p < a && q < L->row_ptr[k + 1]) {   /* sparse dot over the common pattern */
                if (L->col[p] == L->col[q])
                    s -= L->val[p++] * L->val[q++];
                else if (L->col[p] < L->col[q])
                    p++;
                else
                    q++;
            }
            L->val[a] = s / L->diag[k];
        }
        double scale = adiag[i] > 0 ? adiag[i] : 1.0, d = adiag[i] + alpha * scale;
        for (int64_t a = L->row_ptr[i]; a < L->row_ptr[i + 1]; a++)
            d -= L->val[a] * L->val[a];
        if (!(d > tau * scale) || !isfinite(d))
            return -1;
        L->diag[i] = sqrt(d);
    }
    return 0;
}

seam_ichol *seam_ichol_new(const seam_csr *A)
{
    size_t n = A->rows;
    seam_ichol *L = SEAM_NEW(seam_ichol);
    L->n = n;
    L->row_ptr = SEAM_NEW_N(int64_t, n + 1);
    for (size_t r = 0; r < n; r++)
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++)
            if (A->col[k] < (int64_t)r)
                L->row_ptr[r + 1]++;
    for (size_t r = 0; r < n; r++)
        L->row_ptr[r + 1] += L->row_ptr[r];
    size_t nnz = (size_t)L->row_ptr[n];
    L->col = seam_xmalloc_n(nnz, sizeof *L->col);
    L->val = seam_xmalloc_n(nnz, sizeof *L->val);
    L->diag = seam_xmalloc_n(n, sizeof *L->diag);
    L->tmp = seam_xmalloc_n(n, sizeof *L->tmp);
    double *adiag = seam_xmalloc_n(n, sizeof *adiag), *a_low = seam_xmalloc_n(nnz, sizeof *a_low);
    seam_csr_diagonal(A, adiag);
    for (size_t r = 0; r < n; r++) {
        int64_t at = L->row_ptr[r];
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++)
            if (A->col[k] < (int64_t)r) {
                L->col[at] = A->col[k];
                a_low[at] = A->val[k];
                at++;
            }
    }
    /* A breakdown restarts on A + alpha diag(A) with a doubling shift
     * (Manteuffel's shifted incomplete Cholesky, as in Lin and More's ICFS);
     * a large enough shift makes the matrix diagonally dominant, and past
     * alpha = 2^40 the factor is the diagonal alone (Jacobi). */
    while (ichol_factor(L, a_low, adiag, L->alpha) != 0) {
        L->shifted++;
        L->alpha = L->alpha > 0 ? 2.0 * L->alpha : 1e-3;
        if (L->alpha > 0x1p40) {
            memset(L->val, 0, nnz * sizeof *L->val);
            for (size_t i = 0; i < n; i++)
                L->diag[i] = sqrt(adiag[i] > 0 ? adiag[i] : 1.0);
            break;
        }
    }
    free(a_low);
    free(adiag);
    return L;
}

size_t seam_ichol_shifted(const seam_ichol *self) { return self->shifted; }

double seam_ichol_shift(const seam_ichol *self) { return self->alpha; }

void seam_ichol_destroy(seam_ichol **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_ichol *L = *self_p;
    free(L->row_ptr);
    free(L->col);
    free(L->val);
    free(L->diag);
    free(L->tmp);
    free(L);
    *self_p = NULL;
}

/* y = (L L^T)^-1 x: forward then backward substitution. */
static void ichol_apply(void *ctx, const double *x, double *y)
{
    seam_ichol *L = ctx;
    double *z = L->tmp;
    for (size_t i = 0; i < L->n; i++) {
        double s = x[i];
        for (int64_t a = L->row_ptr[i]; a < L->row_ptr[i + 1]; a++)
            s -= L->val[a] * z[L->col[a]];
        z[i] = s / L->diag[i];
    }
    memcpy(y, z, L->n * sizeof *y);
    for (size_t i = L->n; i-- > 0;) {
        y[i] /= L->diag[i];
        for (int64_t a = L->row_ptr[i]; a < L->row_ptr[i + 1]; a++)
            y[L->col[a]] -= L->val[a] * y[i];
    }
}

seam_linop seam_ichol_linop(seam_ichol *self) { return (seam_linop){self->n, ichol_apply, self}; }
