/* Least squares over a history of difference columns, with filtering of
 * near-dependent columns: the reduced Jacobians of the coupling schemes
 * (IQN-ILS, RMI) are built from tall, thin difference matrices whose columns
 * may be duplicate or almost parallel, so the rank decides how many are used,
 * and one column arrives per iteration, so the factorization is updated. */
#ifndef SEAM_LSQ_H
#define SEAM_LSQ_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An updated QR factorization of a column history, for the schemes'
 * per-iteration least squares at O(n k) instead of a factorization from
 * scratch at O(n k^2). Columns C = [c_0 c_1 ...] are ordered newest first,
 * each paired with a column of B (same length n) and tagged with its time
 * step. C = Qb G R with Qb (n x m) orthonormal and only ever appended to
 * (classical Gram-Schmidt with one re-orthogonalization when needed), G
 * (m x k) orthonormal columns collecting every Givens rotation, R (k x k)
 * upper triangular; m - k "dead" directions left by deletions are squeezed
 * out now and then by Qb <- Qb G. The filter: a column is removed for good
 * when its distance from the span of the newer kept columns, |R_jj|, is at
 * most rcond times its length, i.e. when it is within relative distance
 * rcond of their span, however small it is; so the newest data win
 * (Haelterman et al.'s QR2 filter). */
typedef struct seam_qr seam_qr;

/* At most max_cols columns (0: n); beyond that the oldest is dropped. */
seam_qr *seam_qr_new(size_t n, size_t max_cols, double rcond);
void seam_qr_destroy(seam_qr **self_p);
/* Insert c (newest, paired with b, tagged) and filter. Zero or non-finite c
 * is refused (returns 0; 1 when inserted). When t_new is given it becomes
 * the tracked vector: if the previous tracked vector was t_new - c, its
 * coordinates are updated at O(n) instead of recomputed at O(n m). */
int seam_qr_push(seam_qr *self, const double *c, const double *b, long tag, const double *t_new);
/* Where the next push will store its column and its pair: a caller that
 * computes them there saves two copies of n values (push sees they are in
 * place). Valid until the next push, keep or remove. */
void seam_qr_slots(seam_qr *self, double **c, double **b);
/* Track t: its coordinates Qb^T t are kept for seam_qr_solve_tracked. */
void seam_qr_track(seam_qr *self, const double *t);
/* Remove every column whose tag lies outside [lo, hi]. */
void seam_qr_keep(seam_qr *self, long lo, long hi);
/* Remove column j (physical order, oldest first). */
void seam_qr_remove(seam_qr *self, size_t j);
size_t seam_qr_cols(const seam_qr *self);
/* Columns the filter has removed since seam_qr_new (not counting those
 * dropped by max_cols, keep or remove). */
unsigned long seam_qr_filtered(const seam_qr *self);
/* The paired columns, oldest first, n x cols contiguous (leading dim n). */
const double *seam_qr_B(const seam_qr *self);
/* alpha (cols, oldest first) = argmin ||C alpha - t|| for the tracked t, or for a given b. */
void seam_qr_solve_tracked(seam_qr *self, double *alpha);
void seam_qr_solve(seam_qr *self, const double *b, double *alpha);
/* p (n) = the tracked t's projection onto the span of the kept columns,
 * C alpha for alpha = argmin ||C alpha - t|| (zero without columns). */
void seam_qr_project_tracked(seam_qr *self, double *p);
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
/* The whole state to a checkpoint, in one value list of the open section,
 * and back into a history made by seam_qr_new with the same n, max_cols
 * and rcond (else an error on the reader): restored, it computes the same
 * bits as the history that was saved. */
struct seam_ckpt_writer;
struct seam_ckpt_reader;
void seam_qr_save(const seam_qr *self, struct seam_ckpt_writer *w);
void seam_qr_load(seam_qr *self, struct seam_ckpt_reader *r);
/* For tests: Q = Qb G (n x cols) and the upper triangular R (cols x cols),
 * column-major, newest column first, so C (newest first) = Q R. */
void seam_qr_explicit(const seam_qr *self, double *Q, double *Rm);

#ifdef __cplusplus
}
#endif

#endif
