/* What the two interface quasi-Newton schemes share (iqn_ils.c, IQN-ILS;
 * iqn_imvj.c, IQN-IMVJ): their common keys, the secant columns of this step
 * (V: residual differences, W: solid output differences, in a QR of V kept
 * by seam_qr) and the vectors of the fixed-point iteration on
 * r(X) = S(F(X)) - X. */
#ifndef SEAM_COUPLER_IQN_H
#define SEAM_COUPLER_IQN_H

#include <stdbool.h>
#include <stddef.h>

#include "scheme.h"
#include "seam/lsq.h"

typedef struct iqn_secant {
    double omega;        /* relaxation of the first iteration when nothing else is known */
    double filter;       /* rcond of the QR filter */
    long reuse;          /* q: steps whose columns are kept besides the current one */
    long max_columns;    /* cap on the secant columns kept (the oldest go first) */
    size_t n;
    seam_qr *VW;         /* C = V, B = W, updated QR of V */
    double *X;           /* the iterate X^k; NULL until the interface is first seen */
    double *r, *r_old;   /* r^k, and r^{k-1} (swapped by iqn_next) */
    double *Xt_old;      /* X~^{k-1} */
    double *F;           /* the fluid's loads for X^k */
    double *extra;       /* n_extra more vectors of n, as iqn_reserve asked */
    double *alpha;       /* n + 1: least-squares coefficients */
} iqn_secant;

/* The keys both read: relaxation (0.1), filter (1e-3), reuse (0), max_columns (100). */
void iqn_read(iqn_secant *s, seam_cfg *coupling, const seam_range_table *keys);
/* Size the vectors and the QR for n interface values (kept when n is
 * unchanged: returns true at once). False when out of memory (then freed). */
bool iqn_reserve(iqn_secant *s, size_t n, size_t n_extra);
void iqn_free(iqn_secant *s);
/* After X~^k = S(F(X^k)) in Xt: r^k = X~^k - X^k; from the second iteration
 * on, the new columns r^k - r^{k-1} and X~^k - X~^{k-1} go into VW (and
 * first into `also`, when given), else r^0 is tracked by the QR. */
void iqn_record(iqn_secant *s, int k, const double *Xt, long step, seam_qr *also);
/* Before the update of X: r^k becomes r_old. */
void iqn_next(iqn_secant *s);
/* X^{k+1} = X^k + omega r^k (no secant information yet). */
void iqn_relax(iqn_secant *s);

/* The fluid refused the iterate an update made (SEAM_UNSTABLE: the
 * interface it was handed is no shape of the solid, e.g. torn). Up to
 * IQN_MAX_REJECTED times a step the iterate is rejected: the step's secant
 * columns go (they made it), and X^{k+1} = X^k + omega r^k, from the last
 * iterate the solvers took, with a warning. False when the step has rejected
 * that many already (the failure then stands: the coupler retries the step
 * with half the step size). */
#define IQN_MAX_REJECTED 3
bool iqn_reject(iqn_secant *s, seam_coupling *c, long step, int k, int *rejected);

#endif
