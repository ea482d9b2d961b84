/* Sparse Cholesky factorization of symmetric positive definite CSR matrices
 * (SuiteSparse's CHOLMOD: supernodal, or simplicial LL' where the analysis
 * predicts a thin factor, CHOLMOD's own rule). The fill-reducing ordering and the
 * symbolic factorization are computed once for a pattern; every later
 * factorization of a matrix with that pattern is numeric only, and one of a
 * matrix with another pattern analyses that pattern first. */
#ifndef SEAM_CHOLESKY_H
#define SEAM_CHOLESKY_H

#include <stddef.h>

#include "seam/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct seam_cholesky seam_cholesky;

/* Analyse the pattern of A (square, symmetric, sorted columns; only the
 * upper triangle is read). NULL when CHOLMOD fails (out of memory). */
seam_cholesky *seam_cholesky_new(const seam_csr *A);
void seam_cholesky_destroy(seam_cholesky **self_p);
/* Whether A has the pattern self was analysed for: the same size, row
 * pointers and column indices (the values may differ). */
int seam_cholesky_fits(const seam_cholesky *self, const seam_csr *A);
/* Numeric factorization of A, after a new symbolic analysis when A's pattern
 * is not the analysed one (fits()): 0 when done, 1 when A is not positive
 * definite (no factor: the column is in minor()), -1 when CHOLMOD fails
 * otherwise (status(); a failed analysis leaves no pattern: the next call analyses). */
int seam_cholesky_factor(seam_cholesky *self, const seam_csr *A);
/* Symbolic analyses (orderings and symbolic factorizations) made since new(): 1 + the pattern changes. */
size_t seam_cholesky_analyses(const seam_cholesky *self);
/* x = A^-1 b with the last successful factorization: 0, or -1 when the solve
 * fails or its result is not finite. */
int seam_cholesky_solve(seam_cholesky *self, const double *b, double *x);
/* The column of A (A's numbering) where the last factorization met a
 * non-positive pivot; n when it met none. */
size_t seam_cholesky_minor(const seam_cholesky *self);
/* CHOLMOD's status of the last call (0 = CHOLMOD_OK, negative = error). */
int seam_cholesky_status(const seam_cholesky *self);
/* Nonzeros of the factor, known from the analysis. */
double seam_cholesky_factor_nnz(const seam_cholesky *self);
/* The fill-reducing ordering the analysis chose (CHOLMOD_AMD, CHOLMOD_METIS, ...). */
int seam_cholesky_ordering(const seam_cholesky *self);

#ifdef __cplusplus
}
#endif

#endif
