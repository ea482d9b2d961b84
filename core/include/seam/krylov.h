/* Krylov solvers over operation tables: they never touch matrix storage, so a
 * CSR matrix, a matrix-free grid stencil or a low-rank operator all work. */
#ifndef SEAM_KRYLOV_H
#define SEAM_KRYLOV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y = A x, for vectors of length n. */
typedef void (*seam_apply_fn)(void *ctx, const double *x, double *y);

typedef struct seam_linop {
    size_t n;
    seam_apply_fn apply;
    void *ctx;
} seam_linop;

typedef struct seam_krylov_opts {
    double tol;          /* stop when ||r|| <= tol * ||b|| (relative), or abs_tol */
    double abs_tol;      /* absolute floor on ||r|| (default 0) */
    int max_iter;        /* default n */
    int restart;         /* GMRES restart length (default 50) */
} seam_krylov_opts;

typedef struct seam_krylov_stats {
    int iterations;
    double residual;     /* final ||b - A x|| (preconditioned CG reports the true residual) */
    int converged;       /* 1 when the tolerance was met */
    int breakdown;       /* 1 when the method broke down (indefinite operator for CG, ...) */
} seam_krylov_stats;

/* Preconditioned conjugate gradients for symmetric positive (semi)definite A.
 * M applies the inverse of the preconditioner (NULL: identity). x holds the
 * initial guess on entry. Returns 0 when converged, 1 otherwise. */
int seam_pcg(const seam_linop *A, const seam_linop *M, const double *b, double *x,
             const seam_krylov_opts *opts, seam_krylov_stats *stats);

/* A stopping test of the caller's own: nonzero when the iterate x with
 * residual r = b - A x (both of length n) is good enough. */
typedef int (*seam_krylov_stop_fn)(void *ctx, const double *x, const double *r);

/* seam_pcg that also stops (converged) as soon as stop says so, checked
 * with the tolerance of opts before each iteration; stop NULL: seam_pcg. */
int seam_pcg_until(const seam_linop *A, const seam_linop *M, const double *b, double *x,
                   const seam_krylov_opts *opts, seam_krylov_stop_fn stop, void *stop_ctx,
                   seam_krylov_stats *stats);

/* seam_pcg in the caller's workspace of 4 n doubles (NULL: allocated per
 * call): a solve repeated every step then reuses pages already mapped (a
 * fresh 4 n block costs page faults of the order of the solve's iterations). */
int seam_pcg_work(const seam_linop *A, const seam_linop *M, const double *b, double *x,
                  const seam_krylov_opts *opts, double *work, seam_krylov_stats *stats);

/* An operator that returns, from the same pass, the dot product of its input
 * and output: y = A x, returns x . y. */
typedef double (*seam_apply_dot_fn)(void *ctx, const double *x, double *y);

typedef struct seam_dot_linop {
    size_t n;
    seam_apply_dot_fn apply_dot;
    void *ctx;
} seam_dot_linop;

/* seam_pcg_work with fused passes, for solves where memory traffic is the
 * cost: per iteration q = A p with p . q (A), r -= alpha q with |r|^2,
 * z = M r with r . z (M; NULL: z = r), and x += alpha p with p = z + beta p
 * in one pass: four passes over the vectors where seam_pcg makes eight.
 * Core's sums here run over blocks fixed by n, in a fixed order, so the
 * iterates do not depend on the thread count when A's and M's dots do not.
 * The iterates are seam_pcg's up to rounding. work: 4 n doubles or NULL. */
int seam_pcg_fused(const seam_dot_linop *A, const seam_dot_linop *M, const double *b, double *x,
                   const seam_krylov_opts *opts, double *work, seam_krylov_stats *stats);

/* Restarted GMRES(m) with right preconditioning M (NULL: identity), for
 * general nonsymmetric A. Returns 0 when converged. */
int seam_gmres(const seam_linop *A, const seam_linop *M, const double *b, double *x,
               const seam_krylov_opts *opts, seam_krylov_stats *stats);

/* Small vector kernels shared by the solvers (BLAS underneath). */
double seam_dot(size_t n, const double *x, const double *y);
/* BLAS in one thread for the whole process: OpenBLAS splits a dot product
 * or a matrix-vector product over as many threads as it is given
 * (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, the cores) and sums their parts,
 * so its results change with the thread count. Every program that solves
 * calls it first (seam run, seam-serve); the dense systems here are small. */
void seam_blas_serial(void);
double seam_norm2(size_t n, const double *x);
void seam_axpy(size_t n, double a, const double *x, double *y);   /* y += a x */
/* x . y summed in an order fixed by n alone (blocks on OpenMP threads, then
 * the blocks' sums in order): the same bits with any thread count. */
double seam_dot_ordered(size_t n, const double *x, const double *y);

#ifdef __cplusplus
}
#endif

#endif
