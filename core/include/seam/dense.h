/* Small dense matrices (n <= 12, row-major): symmetric eigenproblems, the
 * rotation-preserving SVD of Irving's invertible finite elements, positive
 * semidefinite projection. Anything larger belongs to LAPACKE, which does
 * not pay at these sizes: LAPACKE_dsyev_work, without allocation, takes
 * 1.6-3.4x as long as seam_sym_eig at n = 2 and 3, about as long at n = 6,
 * and 0.6-0.7x only at n = 12 (bench/core/bench_dense, docs/performance.md);
 * solids call these per element or hinge in every Newton iteration. */
#ifndef SEAM_DENSE_H
#define SEAM_DENSE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Largest n the routines below accept. */
#define SEAM_DENSE_MAX 12

/* Eigen-decomposition of the symmetric n x n matrix A by cyclic Jacobi:
 * A = Q diag(lambda) Q^T, eigenvalues in descending order, eigenvectors in
 * the columns of Q. Returns 0, or -1 when n is out of range. */
int seam_sym_eig(int n, const double *A, double *lambda, double *Q);

/* Replace symmetric A by its nearest positive semidefinite matrix
 * (negative eigenvalues set to zero). Returns how many were clamped. */
int seam_sym_project_psd(int n, double *A);

/* F = U diag(sigma) V^T for d = 2 or 3 with det U = det V = +1 (both
 * rotations) and sigma sorted by decreasing magnitude; only the last entry
 * may be negative, and it is when det F < 0 (Irving eq. 2.1 and section 2.5).
 * Degenerate F (a flat, line or point element) still gives rotations. */
void seam_svd_rotation(int d, const double *F, double *U, double *sigma, double *V);

/* Determinant and inverse of a d x d matrix, d = 2 or 3. Inverse returns the
 * determinant and leaves inv untouched when it is zero. */
double seam_det(int d, const double *A);
double seam_inverse(int d, const double *A, double *inv);

#ifdef __cplusplus
}
#endif

#endif
