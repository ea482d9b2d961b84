/* Least squares with QR and column pivoting, with filtering of near-dependent
 * columns: the reduced Jacobians of the coupling schemes (IQN-ILS, RMI) are
 * built from tall, thin difference matrices whose columns may be duplicate or
 * almost parallel, so the rank decides how many are used. */
#ifndef SEAM_LSQ_H
#define SEAM_LSQ_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct seam_lsq seam_lsq;

seam_lsq *seam_lsq_new(void);
void seam_lsq_destroy(seam_lsq **self_p);

/* Factor the n x k column-major matrix A (leading dimension lda >= n) as
 * A D P = Q R with column pivoting (LAPACK dgeqp3), D scaling every column to
 * unit length. The rank r is the number of leading diagonal entries with
 * |R_ii| > rcond |R_00|: a column is filtered (given zero weight by the solves
 * below) when it is within a relative distance ~rcond of the span of the kept
 * ones, however small it is. Zero columns and columns with a NaN or Inf are
 * filtered too. A is copied. Returns r, or -1 when LAPACK fails. */
int seam_lsq_factor(seam_lsq *self, size_t n, size_t k, const double *A, size_t lda, double rcond);

/* Rank and column count of the last factorization. */
size_t seam_lsq_rank(const seam_lsq *self);
size_t seam_lsq_cols(const seam_lsq *self);
/* Whether original column j was kept (not filtered). */
int seam_lsq_kept(const seam_lsq *self, size_t j);

/* alpha (length k) = argmin ||A alpha - b||_2 over the kept columns; the
 * filtered columns get alpha_j = 0. */
void seam_lsq_solve(seam_lsq *self, const double *b, double *alpha);

/* The same for nrhs right-hand sides: B is n x nrhs (leading dim ldb),
 * Alpha is k x nrhs (leading dim ldalpha), both column-major. */
void seam_lsq_solve_many(seam_lsq *self, size_t nrhs, const double *B, size_t ldb, double *Alpha,
                         size_t ldalpha);

/* A history of paired difference columns (A_j, B_j) of length n, each tagged
 * with the time step it came from: the secant data of IQN-ILS and the RMI.
 * Columns are kept oldest first, contiguous (column-major n x count), so A
 * and B can be handed to seam_lsq_factor directly. */
typedef struct seam_history seam_history;

/* At most max_cols pairs (0: n); beyond that the oldest pair is dropped. */
seam_history *seam_history_new(size_t n, size_t max_cols);
void seam_history_destroy(seam_history **self_p);
void seam_history_push(seam_history *self, const double *a, const double *b, long tag);
/* Drop every pair whose tag lies outside [lo, hi]. */
void seam_history_keep(seam_history *self, long lo, long hi);
size_t seam_history_count(const seam_history *self);
size_t seam_history_rows(const seam_history *self);
const double *seam_history_A(const seam_history *self);
const double *seam_history_B(const seam_history *self);

#ifdef __cplusplus
}
#endif

#endif
