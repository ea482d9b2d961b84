/* Interface quasi-Newton with an inverse Jacobian from least squares
 * (IQN-ILS, Degroote, Bruggeman, Haelterman, Vierendeels 2009) on the fixed
 * point residual r(X) = S(F(X)) - X. The secant data are the changes of the
 * residual (V) and of the solid's output (W) between iterations, optionally
 * kept from the last q steps; near-dependent columns are filtered by QR with
 * column pivoting (seam/lsq.h). */
#include <stdlib.h>
#include <string.h>

#include "scheme.h"
#include "seam/lsq.h"

typedef struct {
    double omega;        /* relaxation of the first iteration when no columns exist */
    double filter;       /* rcond of the QR filter */
    long reuse;          /* q: steps whose columns are kept besides the current one */
    size_t n;
    seam_history *VW;    /* A = V (residual differences), B = W (output differences) */
    seam_lsq *lsq;
    double *X, *r, *r_old, *Xt_old, *alpha, *dr, *dXt;
    int lapack_failures;     /* this step, reported at its end */
} iqn_ils;

static void *iqn_create(seam_cfg *coupling)
{
    iqn_ils *q = calloc(1, sizeof *q);
    q->omega = seam_cfg_num(coupling, "relaxation", 0.1, 0.0, 1.0, SEAM_CFG_LO_OPEN);
    q->filter = seam_cfg_num(coupling, "filter", 1e-3, 0.0, 1.0, SEAM_CFG_HI_OPEN);
    q->reuse = seam_cfg_int(coupling, "reuse", 0, 0, 1000, 0);
    q->lsq = seam_lsq_new();
    return q;
}

static void iqn_free_vectors(iqn_ils *q)
{
    seam_history_destroy(&q->VW);
    free(q->X);
    q->X = NULL;
}

static void iqn_destroy(void *self)
{
    iqn_ils *q = self;
    if (!q)
        return;
    iqn_free_vectors(q);
    seam_lsq_destroy(&q->lsq);
    free(q);
}

/* Vectors are sized when the interface is first seen (and if it changes). */
static void iqn_reserve(iqn_ils *q, size_t n)
{
    if (q->X && q->n == n)
        return;
    iqn_free_vectors(q);
    q->n = n;
    size_t m = n ? n : 1;
    q->VW = seam_history_new(n, 0);   /* at most n columns: alpha fits in m + 1 */
    q->X = malloc(6 * m * sizeof *q->X + (m + 1) * sizeof *q->alpha);
    q->r = q->X + m;
    q->r_old = q->r + m;
    q->Xt_old = q->r_old + m;
    q->dr = q->Xt_old + m;
    q->dXt = q->dr + m;
    q->alpha = q->dXt + m;
}

/* X^{k+1} = X~^k + W alpha with alpha = argmin ||V alpha + r^k|| (the IQN-ILS update). */
static void iqn_quasi_newton(iqn_ils *q, const double *Xt)
{
    size_t n = q->n, m = seam_history_count(q->VW);
    if (seam_lsq_factor(q->lsq, n, m, seam_history_A(q->VW), n, q->filter) < 0)
        q->lapack_failures++;   /* the solve below then gives alpha = 0: a plain step */
    for (size_t i = 0; i < n; i++)
        q->dr[i] = -q->r[i];
    seam_lsq_solve(q->lsq, q->dr, q->alpha);
    memcpy(q->X, Xt, n * sizeof *q->X);
    const double *W = seam_history_B(q->VW);
    for (size_t j = 0; j < m; j++)
        if (q->alpha[j] != 0.0)
            for (size_t i = 0; i < n; i++)
                q->X[i] += q->alpha[j] * W[j * n + i];
}

static seam_status iqn_step(void *self, seam_coupling *c, const double *X_pred, double *X_out,
                            seam_verdict *verdict)
{
    iqn_ils *q = self;
    size_t n = seam_coupling_size(c);
    iqn_reserve(q, n);
    long step = seam_coupling_step_index(c);
    /* Keep the last q steps' columns; drop any left by a failed attempt at this step. */
    seam_history_keep(q->VW, step - q->reuse, step - 1);
    double *F = malloc((n ? n : 1) * sizeof *F);
    memcpy(q->X, X_pred, n * sizeof *q->X);
    seam_status st = seam_coupling_fluid(c, q->X, F);
    for (int k = 0; st == SEAM_OK; k++) {
        st = seam_coupling_solid(c, F, X_out);                   /* X~^k = S(F(X^k)) */
        if (st != SEAM_OK)
            break;
        for (size_t i = 0; i < n; i++)
            q->r[i] = X_out[i] - q->X[i];                        /* r^k = X~^k - X^k */
        if (k > 0) {   /* kept even when this iterate converges: later steps reuse it */
            for (size_t i = 0; i < n; i++) {
                q->dr[i] = q->r[i] - q->r_old[i];
                q->dXt[i] = X_out[i] - q->Xt_old[i];
            }
            seam_history_push(q->VW, q->dr, q->dXt, step);
        }
        *verdict = seam_coupling_judge(c, X_out, q->X);
        if (*verdict != SEAM_ITERATE)
            break;
        memcpy(q->r_old, q->r, n * sizeof *q->r);
        memcpy(q->Xt_old, X_out, n * sizeof *q->Xt_old);
        if (seam_history_count(q->VW) == 0)
            for (size_t i = 0; i < n; i++)                       /* constant relaxation to start */
                q->X[i] += q->omega * q->r[i];
        else
            iqn_quasi_newton(q, X_out);
        st = seam_coupling_fluid(c, q->X, F);
    }
    free(F);
    if (q->lapack_failures)
        seam_coupling_warn(c, "LAPACK failed %d times factoring the difference matrix; those updates took "
                              "the unaccelerated step", q->lapack_failures);
    q->lapack_failures = 0;
    return st;
}

const seam_scheme_ops seam_scheme_iqn_ils = {
    .name = "iqn-ils",
    .summary = "interface quasi-Newton, inverse Jacobian by least squares (IQN-ILS)",
    .keys = (const char *const[]){"relaxation", "filter", "reuse", NULL},
    .create = iqn_create,
    .destroy = iqn_destroy,
    .step = iqn_step,
};
