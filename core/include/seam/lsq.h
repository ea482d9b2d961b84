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

/* An updated QR factorization of a column history, for the schemes'
 * per-iteration least squares at O(n k) instead of a factorization from
 * scratch at O(n k^2). Columns C = [c_0 c_1 ...] are ordered newest first,
 * each paired with a column of B (same length n) and tagged with its time
 * step. C = Qb G R with Qb (n x m) orthonormal and only ever appended to
 * (classical Gram-Schmidt with one re-orthogonalization when needed), G
 * (m x k) orthonormal columns collecting every Givens rotation, R (k x k)
 * upper triangular; m - k "dead" directions left by deletions are squeezed
 * out now and then by Qb <- Qb G. The filter (the meaning of seam_lsq's
 * rcond): a column is removed for good when its distance from the span of
 * the newer kept columns, |R_jj|, is at most rcond times its length, so the
 * newest data win (Haelterman et al.'s QR2 filter). */
typedef struct seam_qr seam_qr;

/* At most max_cols columns (0: n); beyond that the oldest is dropped. */
seam_qr *seam_qr_new(size_t n, size_t max_cols, double rcond);
void seam_qr_destroy(seam_qr **self_p);
/* Insert c (newest, paired with b, tagged) and filter. Zero or non-finite c
 * is refused (returns 0; 1 when inserted). When t_new is given it becomes
 * the tracked vector: if the previous tracked vector was t_new - c, its
 * coordinates are updated at O(n) instead of recomputed at O(n m). */
int seam_qr_push(seam_qr *self, const double *c, const double *b, long tag, const double *t_new);
/* Track t: its coordinates Qb^T t are kept for seam_qr_solve_tracked. */
void seam_qr_track(seam_qr *self, const double *t);
/* Remove every column whose tag lies outside [lo, hi], and column j
 * (physical order, oldest first). */
void seam_qr_keep(seam_qr *self, long lo, long hi);
void seam_qr_remove(seam_qr *self, size_t j);
size_t seam_qr_cols(const seam_qr *self);
/* The paired columns, oldest first, n x cols contiguous (leading dim n). */
const double *seam_qr_B(const seam_qr *self);
/* alpha (cols, oldest first) = argmin ||C alpha - t|| for the tracked t, for
 * a given b, or for nrhs right-hand sides (Alpha cols x nrhs, ld ldalpha). */
void seam_qr_solve_tracked(seam_qr *self, double *alpha);
void seam_qr_solve(seam_qr *self, const double *b, double *alpha);
void seam_qr_solve_many(seam_qr *self, size_t nrhs, const double *Bm, size_t ldb, double *Alpha, size_t ldalpha);
/* What products with Qb need to be kept up to date elsewhere (RMI's
 * cross products Qb^T M): Qb (n x m, ld n), an epoch that changes whenever
 * Qb is rewritten rather than appended to, and a serial number for each
 * pair, oldest first (increasing). */
const double *seam_qr_basis(const seam_qr *self, size_t *m);
unsigned long seam_qr_epoch(const seam_qr *self);
const unsigned long *seam_qr_ids(const seam_qr *self);
/* Alpha (cols x nrhs, oldest first) = argmin ||C alpha - b|| for right-hand
 * sides given by their coordinates W = Qb^T b (m x nrhs, ld ldw). */
void seam_qr_solve_coords(seam_qr *self, size_t nrhs, const double *W, size_t ldw, double *Alpha, size_t ldalpha);
/* For tests: Q = Qb G (n x cols) and the upper triangular R (cols x cols),
 * column-major, newest column first, so C (newest first) = Q R. */
void seam_qr_explicit(const seam_qr *self, double *Q, double *Rm);

#ifdef __cplusplus
}
#endif

#endif
