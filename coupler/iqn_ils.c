/* Interface quasi-Newton with an inverse Jacobian from least squares
 * (IQN-ILS, Degroote, Bruggeman, Haelterman, Vierendeels 2009) on the fixed
 * point residual r(X) = S(F(X)) - X. The secant data are the changes of the
 * residual (V) and of the solid's output (W) between iterations, optionally
 * kept from the last q steps; the QR of V is updated column by column, and
 * near-dependent older columns are filtered out (seam_qr, seam/lsq.h).
 * With `mixing` beta < 1, the part of r^k the columns do not explain is
 * damped (Anderson mixing, Walker and Ni 2011). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "ranges.h"
#include "iqn.h"
#include "seam/alloc.h"

#define REUSE_MISLED 10.0

typedef struct {
    iqn_secant s;        /* keys, columns and vectors (iqn.h) */
    double mixing;       /* beta: the share of r^k - V alpha the update takes */
} iqn_ils;

static void *iqn_create(seam_cfg *coupling)
{
    iqn_ils *q = SEAM_NEW(iqn_ils);
    iqn_read(&q->s, coupling, IQN_ILS_KEYS);
    q->mixing = seam_cfg_key(coupling, IQN_ILS_KEYS, "mixing", 1.0, 0);
    return q;
}

static void iqn_destroy(void *self)
{
    iqn_ils *q = self;
    if (!q)
        return;
    iqn_free(&q->s);
    free(q);
}

/* X^{k+1} = X~^k - W alpha with alpha = argmin ||V alpha - r^k|| (the IQN-ILS update),
 * Q^T r^k carried over from the last iteration by the QR update. With
 * mixing beta < 1 (Anderson acceleration with a mixing parameter, as
 * Walker and Ni 2011 write it; IQN-ILS is beta = 1):
 * X^{k+1} = X~^k - W alpha - (1 - beta)(r^k - V alpha), V alpha being r^k's
 * projection onto the columns' span. */
static void iqn_quasi_newton(iqn_secant *q, double mixing, const double *Xt)
{
    size_t n = q->n, k = seam_qr_cols(q->VW);
    seam_qr_solve_tracked(q->VW, q->alpha);
    memcpy(q->X, Xt, n * sizeof *q->X);
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, (int)k, -1.0, seam_qr_B(q->VW), (int)n, q->alpha, 1, 1.0, q->X,
                1);
    if (mixing < 1.0) {
        double *Va = q->F;   /* free until the next fluid call fills it */
        seam_qr_project_tracked(q->VW, Va);
        for (size_t i = 0; i < n; i++)
            q->X[i] -= (1.0 - mixing) * (q->r_old[i] - Va[i]);
    }
}

static seam_status iqn_step(void *self, seam_coupling *c, const double *X_pred, double *X_out,
                            seam_verdict *verdict)
{
    iqn_secant *q = &((iqn_ils *)self)->s;
    double mixing = ((iqn_ils *)self)->mixing;
    size_t n = seam_coupling_size(c);
    if (!iqn_reserve(q, n, 0)) {
        seam_coupling_warn(c, "out of memory for %zu interface values", n);
        return SEAM_ERROR;
    }
    long step = seam_coupling_step_index(c);
    /* Keep the last q steps' columns; drop any left by a failed attempt at this step. */
    seam_qr_keep(q->VW, step - q->reuse, step - 1);
    memcpy(q->X, X_pred, n * sizeof *q->X);
    bool own_only = q->reuse == 0;
    int rejected = 0;
    seam_status st = seam_coupling_fluid(c, q->X, q->F);
    for (int k = 0; st == SEAM_OK; k++) {
        st = seam_coupling_solid(c, q->F, X_out);                /* X~^k = S(F(X^k)) */
        if (st != SEAM_OK)
            break;
        iqn_record(q, k, X_out, step, NULL);
        *verdict = seam_coupling_judge(c, X_out, q->X);
        if (*verdict != SEAM_ITERATE)
            break;
        /* Columns kept from past steps describe past Jacobians: when an
         * update built on them sends the residual past REUSE_MISLED times
         * the step's first, they misled it, and the step goes on with its
         * own columns only (a cloth's iterate torn by stale secants). */
        size_t cols = seam_qr_cols(q->VW);
        if (!own_only && k > 0 && c->residual > REUSE_MISLED * c->first_residual) {
            own_only = true;
            seam_qr_keep(q->VW, step, step);
            seam_qr_track(q->VW, q->r);   /* r^k's coordinates in what is left */
            if (seam_qr_cols(q->VW) < cols)
                seam_coupling_warn(c, "the columns reused from past steps sent the residual from %.3g m to %.3g m: "
                                   "dropped %zu of them, the step goes on with its own", c->first_residual,
                                   c->residual, cols - seam_qr_cols(q->VW));
        }
        iqn_next(q);
        if (seam_qr_cols(q->VW) == 0)
            iqn_relax(q);                                        /* constant relaxation to start */
        else
            iqn_quasi_newton(q, mixing, X_out);
        st = seam_coupling_fluid(c, q->X, q->F);
        if (st == SEAM_UNSTABLE && iqn_reject(q, c, step, k, &rejected)) {
            own_only = true;
            st = seam_coupling_fluid(c, q->X, q->F);
        }
    }
    return st;
}

static void iqn_report(void *self, seam_scheme_report *out)
{
    const iqn_secant *q = &((iqn_ils *)self)->s;
    *out = (seam_scheme_report){0};
    if (q->VW) {
        out->columns = (long)seam_qr_cols(q->VW);
        out->filtered = seam_qr_filtered(q->VW);
    }
}

/* The secant columns kept for reuse cross steps; the vectors are refilled each step. */
static void iqn_save(const void *self, seam_ckpt_writer *w)
{
    const iqn_secant *q = &((const iqn_ils *)self)->s;
    seam_ckpt_put_u64(w, q->X ? q->n : UINT64_MAX);   /* UINT64_MAX: no step has run */
    if (q->X)
        seam_qr_save(q->VW, w);
}

static void iqn_load(void *self, seam_ckpt_reader *r)
{
    iqn_secant *q = &((iqn_ils *)self)->s;
    uint64_t n = seam_ckpt_get_u64(r);
    if (n == UINT64_MAX || !seam_ckpt_ok(r, false))
        return;
    if (n > ((uint64_t)1 << 40) || !iqn_reserve(q, (size_t)n, 0))
        seam_ckpt_fail(r, "no room for %llu interface values", (unsigned long long)n);
    else
        seam_qr_load(q->VW, r);
}

const seam_scheme_ops seam_scheme_iqn_ils = {
    .name = "iqn-ils",
    .summary = "interface quasi-Newton, inverse Jacobian by least squares (IQN-ILS)",
    .keys = (const char *const[]){"relaxation", "filter", "reuse", "max_columns", "mixing", NULL},
    .create = iqn_create,
    .destroy = iqn_destroy,
    .step = iqn_step,
    .save = iqn_save,
    .load = iqn_load,
    .report = iqn_report,
    .iterates = true,
};
