/* Compressed sparse row matrices, assembled from triplets. */
#ifndef SEAM_SPARSE_H
#define SEAM_SPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "seam/krylov.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Triplet (coordinate) list; duplicates are summed when compressed. Out of
 * memory aborts (seam/alloc.h, docs/errors.md): _new never returns NULL and
 * an add always lands (adding to a NULL list does nothing). */
typedef struct seam_triplets seam_triplets;

seam_triplets *seam_triplets_new(size_t rows, size_t cols, size_t capacity_hint);
void seam_triplets_destroy(seam_triplets **self_p);
void seam_triplets_add(seam_triplets *self, size_t i, size_t j, double v);
void seam_triplets_clear(seam_triplets *self);   /* keep the storage */

typedef struct seam_csr {
    size_t rows, cols, nnz;
    int64_t *row_ptr;    /* rows + 1 */
    int64_t *col;        /* nnz, sorted within each row */
    double *val;         /* nnz */
} seam_csr;

/* Compress (sorted columns, duplicates summed, explicit zeros kept); NULL
 * only for a NULL list. */
seam_csr *seam_csr_from_triplets(const seam_triplets *t);
void seam_csr_destroy(seam_csr **self_p);
/* y = A x */
void seam_csr_mul(const seam_csr *A, const double *x, double *y);
/* y = A^T x */
void seam_csr_mul_t(const seam_csr *A, const double *x, double *y);
/* Pointer to A(i,j)'s value, or NULL when not stored. */
double *seam_csr_at(seam_csr *A, size_t i, size_t j);
/* Add the dense element block Ke ((nn d) x (nn d), row-major, d values per
 * node) over the nodes' rows and columns: the assembly of finite elements into
 * a pattern built from the same elements (entries outside A's pattern are
 * skipped). */
void seam_csr_add_block(seam_csr *A, int d, int nn, const int32_t *nodes, const double *Ke);
/* diag[i] = A(i,i) (0 when not stored). */
void seam_csr_diagonal(const seam_csr *A, double *diag);
/* A^T as a new matrix (sorted columns). */
seam_csr *seam_csr_transpose(const seam_csr *A);
/* The product C = A diag(d) B as a new matrix (sorted columns, only the
 * entries some product term reaches are stored); d has A->cols entries, or
 * is NULL for the identity. A->cols must equal B->rows. */
seam_csr *seam_csr_matmul(const seam_csr *A, const double *d, const seam_csr *B);
/* A as a linear operator (borrowed: A must outlive it). */
seam_linop seam_csr_linop(const seam_csr *A);

/* Jacobi (diagonal) preconditioner: apply = x ./ diag. */
typedef struct seam_jacobi seam_jacobi;
seam_jacobi *seam_jacobi_new(const seam_csr *A);
void seam_jacobi_destroy(seam_jacobi **self_p);
seam_linop seam_jacobi_linop(seam_jacobi *self);

/* Incomplete Cholesky IC(0) of a symmetric positive definite CSR matrix on
 * the pattern of its lower triangle. When a pivot falls below 1e-6 of its
 * diagonal (IC(0) of an SPD matrix that is not an M-matrix can break down,
 * or its factor grow without bound) the factorization restarts on
 * A + alpha diag(A), alpha = 1e-3 doubling until it succeeds: shifted() is
 * the number of restarts (0: plain IC(0)), shift() the final alpha. The
 * result is always a finite SPD preconditioner. Structured solvers with a
 * better factorization of their own (MIC(0) on a grid) plug theirs in as a linop. */
typedef struct seam_ichol seam_ichol;
seam_ichol *seam_ichol_new(const seam_csr *A);
size_t seam_ichol_shifted(const seam_ichol *self);
double seam_ichol_shift(const seam_ichol *self);
void seam_ichol_destroy(seam_ichol **self_p);
seam_linop seam_ichol_linop(seam_ichol *self);

#ifdef __cplusplus
}
#endif

#endif
