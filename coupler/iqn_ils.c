/* Interface quasi-Newton with an inverse Jacobian from least squares
 * (IQN-ILS, Degroote, Bruggeman, Haelterman, Vierendeels 2009) on the fixed
 * point residual r(X) = S(F(X)) - X. The secant data are the changes of the
 * residual (V) and of the solid's output (W) between iterations, optionally
 * kept from the last q steps; the QR of V is updated column by column, and
 * near-dependent older columns are filtered out (seam_qr, seam/lsq.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "scheme.h"
#include "seam/lsq.h"
#include "lanes.h"

#define REUSE_MISLED 10.0

typedef struct {
    double omega;        /* relaxation of the first iteration when no columns exist */
    double filter;       /* rcond of the QR filter */
    long reuse;          /* q: steps whose columns are kept besides the current one */
    long max_columns;    /* cap on the secant columns kept (the oldest go first) */
    size_t n;
    seam_qr *VW;         /* C = V (residual differences), B = W (output differences), updated QR of V */
    double *X, *r, *r_old, *Xt_old, *alpha, *F;
} iqn_ils;

static void *iqn_create(seam_cfg *coupling)
{
    iqn_ils *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->omega = seam_cfg_num(coupling, "relaxation", 0.1, 0.0, 1.0, SEAM_CFG_LO_OPEN);
    q->filter = seam_cfg_num(coupling, "filter", 1e-3, 0.0, 1.0, SEAM_CFG_HI_OPEN);
    q->reuse = seam_cfg_int(coupling, "reuse", 0, 0, 1000, 0);
    q->max_columns = seam_cfg_int(coupling, "max_columns", 100, 1, 100000, 0);
    return q;
}

static void iqn_free_vectors(iqn_ils *q)
{
    seam_qr_destroy(&q->VW);
    free(q->X);
    q->X = NULL;
}

static void iqn_destroy(void *self)
{
    iqn_ils *q = self;
    if (!q)
        return;
    iqn_free_vectors(q);
    free(q);
}

/* Vectors are sized when the interface is first seen (and if it changes). */
static bool iqn_reserve(iqn_ils *q, size_t n)
{
    if (q->X && q->n == n)
        return true;
    iqn_free_vectors(q);
    q->n = n;
    size_t m = n ? n : 1;
    q->VW = seam_qr_new(n, (size_t)q->max_columns < n ? (size_t)q->max_columns : n, q->filter);   /* at most n columns: alpha fits in m + 1 */
    q->X = malloc(5 * m * sizeof *q->X + (m + 1) * sizeof *q->alpha);
    if (!q->X || !q->VW) {
        iqn_free_vectors(q);
        return false;
    }
    q->r = q->X + m;
    q->r_old = q->r + m;
    q->Xt_old = q->r_old + m;
    q->F = q->Xt_old + m;
    q->alpha = q->F + m;
    return true;
}

/* r^k = X~^k - X^k and the new columns V: r^k - r^{k-1}, W: X~^k - X~^{k-1}
 * in one pass, four lanes wide (GCC vectorizes that at -O2; restrict
 * parameters tell it the vectors are distinct). */
static void iqn_differences(size_t n, const double *restrict Xt, const double *restrict X,
                            const double *restrict r_old, double *restrict r, double *restrict dr,
                            double *restrict dXt, double *restrict Xt_old)
{
    SEAM_LANES(j, l, n, {
        double rj = Xt[j] - X[j];
        dr[j] = rj - r_old[j];
        dXt[j] = Xt[j] - Xt_old[j];
        r[j] = rj;
        Xt_old[j] = Xt[j];
    });
}

/* The first iteration of a step: r^0 and X~^0 only. */
static void iqn_first_residual(size_t n, const double *restrict Xt, const double *restrict X, double *restrict r,
                               double *restrict Xt_old)
{
    for (size_t i = 0; i < n; i++) {
        r[i] = Xt[i] - X[i];
        Xt_old[i] = Xt[i];
    }
}

/* X^{k+1} = X~^k + W alpha with alpha = argmin ||V alpha + r^k|| (the IQN-ILS update),
 * Q^T r^k carried over from the last iteration by the QR update. */
static void iqn_quasi_newton(iqn_ils *q, const double *Xt)
{
    size_t n = q->n, k = seam_qr_cols(q->VW);
    seam_qr_solve_tracked(q->VW, q->alpha);
    memcpy(q->X, Xt, n * sizeof *q->X);
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, (int)k, -1.0, seam_qr_B(q->VW), (int)n, q->alpha, 1, 1.0, q->X,
                1);
}

static seam_status iqn_step(void *self, seam_coupling *c, const double *X_pred, double *X_out,
                            seam_verdict *verdict)
{
    iqn_ils *q = self;
    size_t n = seam_coupling_size(c);
    if (!iqn_reserve(q, n)) {
        seam_coupling_warn(c, "out of memory for %zu interface values", n);
        return SEAM_ERROR;
    }
    long step = seam_coupling_step_index(c);
    /* Keep the last q steps' columns; drop any left by a failed attempt at this step. */
    seam_qr_keep(q->VW, step - q->reuse, step - 1);
    memcpy(q->X, X_pred, n * sizeof *q->X);
    bool own_only = q->reuse == 0;
    seam_status st = seam_coupling_fluid(c, q->X, q->F);
    for (int k = 0; st == SEAM_OK; k++) {
        st = seam_coupling_solid(c, q->F, X_out);                /* X~^k = S(F(X^k)) */
        if (st != SEAM_OK)
            break;
        if (k == 0) {
            iqn_first_residual(n, X_out, q->X, q->r, q->Xt_old);
            seam_qr_track(q->VW, q->r);
        } else {   /* the new columns are formed where the QR keeps them; kept even when this iterate converges */
            double *dr, *dXt;
            seam_qr_slots(q->VW, &dr, &dXt);
            iqn_differences(n, X_out, q->X, q->r_old, q->r, dr, dXt, q->Xt_old);
            seam_qr_push(q->VW, dr, dXt, step, q->r);
        }
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
        double *t = q->r_old;
        q->r_old = q->r, q->r = t;
        if (seam_qr_cols(q->VW) == 0)
            for (size_t i = 0; i < n; i++)                       /* constant relaxation to start */
                q->X[i] += q->omega * q->r_old[i];
        else
            iqn_quasi_newton(q, X_out);
        st = seam_coupling_fluid(c, q->X, q->F);
    }
    return st;
}

static void iqn_report(void *self, seam_scheme_report *out)
{
    iqn_ils *q = self;
    *out = (seam_scheme_report){0};
    if (q->VW) {
        out->columns = (long)seam_qr_cols(q->VW);
        out->filtered = seam_qr_filtered(q->VW);
    }
}

const seam_scheme_ops seam_scheme_iqn_ils = {
    .name = "iqn-ils",
    .summary = "interface quasi-Newton, inverse Jacobian by least squares (IQN-ILS)",
    .keys = (const char *const[]){"relaxation", "filter", "reuse", "max_columns", NULL},
    .create = iqn_create,
    .destroy = iqn_destroy,
    .step = iqn_step,
    .report = iqn_report,
};
