/* Interface quasi-Newton with a multi-vector Jacobian update (IQN-IMVJ,
 * Lindner, Mehl, Scheufele, Uekermann 2015), with the restarts of Scheufele
 * and Mehl 2017 (RS-0, RS-LS, RS-SVD), on the fixed-point residual
 * r(X) = S(F(X)) - X.
 *
 * J approximates the inverse Jacobian as the map from residual changes to
 * solid output changes (J V = W, with V and W the differences of r and of
 * X~ = S(F(X)) between the iterations of this step, and with `reuse` of the
 * last q steps: preCICE's time-windows-reused). IQN-ILS takes the
 * least-norm J = W Z, Z = (V^T V)^-1 V^T; IMVJ takes the J closest to the
 * last step's J_prev that meets the secant equations:
 *     J = J_prev + (W - J_prev V) Z                       (Lindner eq. 12)
 * and X^{k+1} = X~^k - J r^k. With alpha = Z r^k = argmin ||V alpha - r^k||:
 *     J r^k = W alpha + J_prev (r^k - V alpha)
 * so one product with J_prev per iteration; at a step's first iteration
 * (no columns yet) X^1 = X~^0 - J_prev r^0. With V = Q R (this step's QR),
 * W - J_prev V times Z is (W R^-1 - J_prev Q) Q^T, so a step hands on
 *     J_prev <- J_prev + Psi_s Q^T,   Psi_s = W R^-1 - J_prev Q   (rank k).
 * restart "none" keeps J_prev as a dense n x n matrix (Lindner's form);
 * the others keep J_prev = Psi Phi^T (n x m each) and, every `chunk` steps,
 * restart it: rs-0 from zero, rs-ls from the least-squares J = W R^-1 Q^T of
 * the columns of the last `restart_reuse` steps, rs-svd by a truncated SVD
 * of Psi Phi^T (modes below `truncation` times the largest dropped). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "ranges.h"
#include "iqn.h"
#include "seam/alloc.h"

enum { RESTART_NONE, RESTART_ZERO, RESTART_LS, RESTART_SVD };
static const char *const restart_names[] = {"none", "rs-0", "rs-ls", "rs-svd", NULL};

typedef struct {
    iqn_secant s;        /* keys, this step's columns (C = V, B = W) and vectors (iqn.h); its extra vector is y */
    double truncation;   /* rs-svd: modes below this times the largest are dropped */
    long chunk;          /* steps between restarts */
    long restart_reuse;  /* rs-ls: steps whose columns start J_prev again */
    int restart;
    seam_qr *LS;         /* rs-ls: the columns of the last restart_reuse steps */
    double *J;           /* restart none: J_prev, n x n column-major (NULL until a step was folded) */
    double *Psi, *Phi;   /* otherwise J_prev = Psi Phi^T, n x m each, room for cap columns */
    size_t m, cap;
    long folded;         /* steps folded into J_prev since its last restart */
    long last_folded;    /* the last step folded in (-1: none) */
    long total_columns;  /* restart none: columns folded in, for the rank bound */
    unsigned long restarts, truncated;
    double *coef;        /* Phi^T x, room for cap values */
    double *Q, *R, *Wn;  /* explicit factors (n x k, k x k, n x k), grown */
    size_t cap_k;
    double *lwork;       /* LAPACK's workspace for the restarts, grown */
    size_t cap_lwork;
    bool jprev_off;      /* this step rejected an iterate: J_prev is not used again in it */
} imvj;

static void *imvj_create(seam_cfg *coupling)
{
    imvj *q = SEAM_NEW(imvj);
    iqn_read(&q->s, coupling, IQN_IMVJ_KEYS);
    q->restart = seam_cfg_enum(coupling, "restart", restart_names, RESTART_SVD, 0);
    q->chunk = seam_cfg_key_int(coupling, IQN_IMVJ_KEYS, "chunk", 8, 0);
    q->restart_reuse = seam_cfg_key_int(coupling, IQN_IMVJ_KEYS, "restart_reuse", 8, 0);
    q->truncation = seam_cfg_key(coupling, IQN_IMVJ_KEYS, "truncation", 1e-4, 0);
    q->last_folded = -1;
    return q;
}

static void imvj_free_vectors(imvj *q)
{
    iqn_free(&q->s);
    seam_qr_destroy(&q->LS);
    free(q->J);
    free(q->Psi);
    free(q->Phi);
    free(q->Q);
    free(q->coef);
    free(q->lwork);
    q->J = q->Psi = q->Phi = q->Q = q->coef = q->lwork = NULL;
    q->m = q->cap = q->cap_k = q->cap_lwork = 0;
    q->folded = q->total_columns = 0;
    q->last_folded = -1;
}

static void imvj_destroy(void *self)
{
    imvj *q = self;
    if (!q)
        return;
    imvj_free_vectors(q);
    free(q);
}

static size_t cap_of(const imvj *q, long cols) { return (size_t)cols < q->s.n ? (size_t)cols : q->s.n; }

/* Vectors are sized when the interface is first seen (and if it changes). */
static bool imvj_reserve(imvj *q, size_t n)
{
    if (q->s.X && q->s.n == n)
        return true;
    imvj_free_vectors(q);
    if (!iqn_reserve(&q->s, n, 1))
        return false;
    if (q->restart == RESTART_LS && !(q->LS = seam_qr_new(n, cap_of(q, q->s.max_columns * q->restart_reuse), q->s.filter))) {
        imvj_free_vectors(q);
        return false;
    }
    return true;
}

/* Room for k explicit columns of Q, R and W. */
static bool reserve_k(imvj *q, size_t k)
{
    if (k <= q->cap_k)
        return true;
    free(q->Q);
    q->Q = seam_xmalloc_n(2 * q->s.n * k + k * k, sizeof *q->Q);
    q->Wn = q->Q + q->s.n * k;
    q->R = q->Wn + q->s.n * k;
    q->cap_k = k;
    return true;
}

/* Room for m columns of Psi and Phi (contents kept). */
static bool reserve_m(imvj *q, size_t m)
{
    if (m <= q->cap)
        return true;
    size_t cap = q->cap ? q->cap : 16;
    while (cap < m)
        cap *= 2;
    q->Psi = seam_xrealloc_n(q->Psi, q->s.n * cap, sizeof *q->Psi);
    q->Phi = seam_xrealloc_n(q->Phi, q->s.n * cap, sizeof *q->Phi);
    q->coef = seam_xrealloc_n(q->coef, cap, sizeof *q->coef);
    q->cap = cap;
    return true;
}

static bool have_jprev(const imvj *q)
{
    return !q->jprev_off && (q->restart == RESTART_NONE ? q->J != NULL : q->m > 0);
}

/* y = J_prev x */
static void apply_jprev(imvj *q, const double *x, double *y)
{
    int n = (int)q->s.n;
    if (q->restart == RESTART_NONE) {
        cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, q->J, n, x, 1, 0.0, y, 1);
        return;
    }
    if (q->m == 0) {   /* BLAS returns at once for no columns, leaving y as it was */
        memset(y, 0, q->s.n * sizeof *y);
        return;
    }
    cblas_dgemv(CblasColMajor, CblasTrans, n, (int)q->m, 1.0, q->Phi, n, x, 1, 0.0, q->coef, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, (int)q->m, 1.0, q->Psi, n, q->coef, 1, 0.0, y, 1);
}

/* Q (n x k), R (k x k) and W (n x k) of a QR's columns, newest first, so
 * V = Q R and W pair column by column. */
static bool explicit_factors(imvj *q, seam_qr *qr, size_t k)
{
    if (!reserve_k(q, k))
        return false;
    seam_qr_explicit(qr, q->Q, q->R);
    const double *B = seam_qr_B(qr);   /* oldest first */
    for (size_t j = 0; j < k; j++)
        memcpy(q->Wn + j * q->s.n, B + (k - 1 - j) * q->s.n, q->s.n * sizeof *q->Wn);
    return true;
}

/* Psi_s = W R^-1 (in q->Wn), the least-squares J = Psi_s Q^T. */
static void w_rinv(imvj *q, size_t k)
{
    cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, (int)q->s.n, (int)k, 1.0, q->R,
                (int)k, q->Wn, (int)q->s.n);
}

/* The restarts call LAPACK as LAPACKE's high-level calls do (a workspace
 * query, then the work routine with the size it returned), so the bits are
 * the same, but with the workspace kept and without scanning every input
 * for NaN (a NaN still fails the restart: svd_truncate checks Ra Rb^T). */
static double *lapack_work(imvj *q, double query, lapack_int *lwork)
{
    *lwork = (lapack_int)query;
    size_t need = *lwork > 0 ? (size_t)*lwork : 1;
    if (need > q->cap_lwork) {
        free(q->lwork);
        q->lwork = seam_xmalloc_n(need, sizeof *q->lwork);
        q->cap_lwork = need;
    }
    return q->lwork;
}

/* A = Q R in LAPACK's compact form (n x m, ld n). */
static bool geqrf(imvj *q, size_t n, size_t m, double *A, double *tau)
{
    double query;
    lapack_int lwork;
    if (LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)m, A, (lapack_int)n, tau, &query, -1) != 0)
        return false;
    double *work = lapack_work(q, query, &lwork);
    return LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)m, A, (lapack_int)n, tau, work, lwork) == 0;
}

/* The first p columns of Q from geqrf's A and tau, in place. */
static bool orgqr(imvj *q, size_t n, size_t p, double *A, const double *tau)
{
    double query;
    lapack_int lwork;
    if (LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)p, (lapack_int)p, A, (lapack_int)n, tau,
                            &query, -1) != 0)
        return false;
    double *work = lapack_work(q, query, &lwork);
    return LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)p, (lapack_int)p, A, (lapack_int)n, tau,
                               work, lwork) == 0;
}

/* M (p x p, overwritten) = U diag(S) Vt, all singular vectors. */
static bool gesvd(imvj *q, size_t p, double *M, double *S, double *U, double *Vt)
{
    double query;
    lapack_int lwork, lp = (lapack_int)p;
    if (LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'A', 'A', lp, lp, M, lp, S, U, lp, Vt, lp, &query, -1) != 0)
        return false;
    double *work = lapack_work(q, query, &lwork);
    return LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'A', 'A', lp, lp, M, lp, S, U, lp, Vt, lp, work, lwork) == 0;
}

/* Truncated SVD of J_prev = Psi Phi^T (Scheufele and Mehl 2017, RS-SVD):
 * Psi = Qa Ra, Phi = Qb Rb, Ra Rb^T = U S V^T, keep S_i > truncation S_0:
 * Psi <- Qa U S, Phi <- Qb V. */
static bool svd_truncate(imvj *q)
{
    size_t n = q->s.n, m = q->m, p = m < n ? m : n;
    int ok = 1;
    double *tau = seam_xmalloc_n(2 * p + 3 * p * p + m * m, sizeof *tau);
    double *tau_b = tau + p, *M = tau_b + p, *U = M + p * p, *Vt = U + p * p, *Rb = Vt + p * p;
    ok &= geqrf(q, n, m, q->Psi, tau);
    ok &= geqrf(q, n, m, q->Phi, tau_b);
    if (!ok) {
        free(tau);
        return false;
    }
    /* M = Ra Rb^T (p x p): Ra, Rb are the upper p x m parts */
    for (size_t j = 0; j < m; j++)
        for (size_t i = 0; i < p; i++)
            Rb[i + j * p] = i <= j ? q->Phi[i + j * n] : 0.0;
    for (size_t i = 0; i < p; i++)
        for (size_t l = 0; l < p; l++) {
            double s = 0.0;
            for (size_t j = i; j < m; j++)   /* Ra[i, j] is zero below the diagonal */
                s += q->Psi[i + j * n] * Rb[l + j * p];
            M[i + l * p] = s;
            ok &= isfinite(s);   /* a NaN or Inf in Psi or Phi reaches every factor */
        }
    double *S = q->s.alpha;   /* p <= n values */
    ok = ok && gesvd(q, p, M, S, U, Vt);
    ok = ok && orgqr(q, n, p, q->Psi, tau);
    ok = ok && orgqr(q, n, p, q->Phi, tau_b);
    if (!ok) {
        free(tau);
        return false;
    }
    size_t keep = 0;
    while (keep < p && S[keep] > q->truncation * S[0] && S[keep] > 0.0)
        keep++;
    /* Psi <- Qa (U S) and Phi <- Qb V, the first keep columns; through scratch of n x keep */
    double *tmp = seam_xmalloc_n(n * (keep ? keep : 1), sizeof *tmp);
    for (size_t j = 0; j < keep; j++)
        cblas_dscal((int)p, S[j], U + j * p, 1);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)keep, (int)p, 1.0, q->Psi, (int)n, U,
                (int)p, 0.0, tmp, (int)n);
    memcpy(q->Psi, tmp, n * keep * sizeof *tmp);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)n, (int)keep, (int)p, 1.0, q->Phi, (int)n, Vt,
                (int)p, 0.0, tmp, (int)n);
    memcpy(q->Phi, tmp, n * keep * sizeof *tmp);
    q->truncated += (unsigned long)(m - keep);
    q->m = keep;
    free(tmp);
    free(tau);
    return true;
}

/* Every chunk steps: start J_prev again. */
static bool restart(imvj *q)
{
    q->restarts++;
    q->folded = 0;
    if (q->restart == RESTART_ZERO) {
        q->m = 0;
        return true;
    }
    if (q->restart == RESTART_SVD)
        return svd_truncate(q);
    size_t k = seam_qr_cols(q->LS);   /* rs-ls */
    q->m = 0;
    if (k == 0)
        return true;
    if (!explicit_factors(q, q->LS, k) || !reserve_m(q, k))
        return false;
    w_rinv(q, k);
    memcpy(q->Psi, q->Wn, q->s.n * k * sizeof *q->Psi);
    memcpy(q->Phi, q->Q, q->s.n * k * sizeof *q->Phi);
    q->m = k;
    return true;
}

/* The committed step's columns into J_prev (Lindner eq. 12 in the factored
 * form above), then a restart when chunk steps have been folded. */
static bool fold(imvj *q)
{
    size_t n = q->s.n, k = seam_qr_cols(q->s.VW);
    if (k == 0)
        return true;
    if (!explicit_factors(q, q->s.VW, k))
        return false;
    w_rinv(q, k);   /* Wn <- W R^-1 */
    if (q->restart == RESTART_NONE) {
        if (!q->J)
            q->J = seam_xcalloc(n * n, sizeof *q->J);
        for (size_t j = 0; j < k; j++) {   /* Psi_s = W R^-1 - J_prev Q */
            apply_jprev(q, q->Q + j * n, q->s.extra);
            cblas_daxpy((int)n, -1.0, q->s.extra, 1, q->Wn + j * n, 1);
        }
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)k, 1.0, q->Wn, (int)n, q->Q,
                    (int)n, 1.0, q->J, (int)n);
        q->total_columns += (long)k;
        return true;
    }
    if (!reserve_m(q, q->m + k))
        return false;
    for (size_t j = 0; j < k; j++) {
        apply_jprev(q, q->Q + j * n, q->s.extra);
        cblas_daxpy((int)n, -1.0, q->s.extra, 1, q->Wn + j * n, 1);
    }
    memcpy(q->Psi + q->m * n, q->Wn, n * k * sizeof *q->Psi);
    memcpy(q->Phi + q->m * n, q->Q, n * k * sizeof *q->Phi);
    q->m += k;
    return ++q->folded < q->chunk ? true : restart(q);
}

/* X^{k+1} = X~^k - J r^k, J r^k = W alpha + J_prev (r^k - V alpha). */
static bool imvj_update(imvj *q, const double *Xt, const double *r)
{
    size_t n = q->s.n, k = seam_qr_cols(q->s.VW);
    memcpy(q->s.X, Xt, n * sizeof *q->s.X);
    if (k > 0) {
        seam_qr_solve_tracked(q->s.VW, q->s.alpha);
        cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, (int)k, -1.0, seam_qr_B(q->s.VW), (int)n, q->s.alpha, 1, 1.0,
                    q->s.X, 1);
    }
    if (!have_jprev(q))
        return true;
    double *rp = q->s.extra;   /* r - V alpha = r - Q Q^T r */
    memcpy(rp, r, n * sizeof *rp);
    if (k > 0) {
        if (!reserve_k(q, k))   /* Q alone: W is not needed here */
            return false;
        seam_qr_explicit(q->s.VW, q->Q, q->R);
        cblas_dgemv(CblasColMajor, CblasTrans, (int)n, (int)k, 1.0, q->Q, (int)n, r, 1, 0.0, q->s.alpha, 1);
        cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, (int)k, -1.0, q->Q, (int)n, q->s.alpha, 1, 1.0, rp, 1);
    }
    double *Jr = q->s.F;   /* free until the next fluid call fills it */
    apply_jprev(q, rp, Jr);
    cblas_daxpy((int)n, -1.0, Jr, 1, q->s.X, 1);
    return true;
}

static seam_status imvj_step(void *self, seam_coupling *c, const double *X_pred, double *X_out, seam_verdict *verdict)
{
    imvj *q = self;
    size_t n = seam_coupling_size(c);
    if (!imvj_reserve(q, n)) {
        seam_coupling_warn(c, "out of memory for %zu interface values", n);
        return SEAM_ERROR;
    }
    long step = seam_coupling_step_index(c);
    q->jprev_off = false;
    /* the columns of the committed steps go into J_prev (those of the last one
     * are new to it; the reused ones it meets already); a failed attempt's are dropped */
    seam_qr_keep(q->s.VW, step - 1 - q->s.reuse, step - 1);
    if (q->last_folded < step - 1 && seam_qr_cols(q->s.VW) > 0) {
        if (!fold(q)) {
            seam_coupling_warn(c, "out of memory for the carried Jacobian (%zu values)", n);
            return SEAM_ERROR;
        }
        q->last_folded = step - 1;
    }
    seam_qr_keep(q->s.VW, step - q->s.reuse, step - 1);   /* the reused steps' columns stay in the least squares */
    if (q->LS)
        seam_qr_keep(q->LS, step - q->restart_reuse, step - 1);
    memcpy(q->s.X, X_pred, n * sizeof *q->s.X);
    int rejected = 0;
    seam_status st = seam_coupling_fluid(c, q->s.X, q->s.F);
    for (int k = 0; st == SEAM_OK; k++) {
        st = seam_coupling_solid(c, q->s.F, X_out);                /* X~^k = S(F(X^k)) */
        if (st != SEAM_OK)
            break;
        iqn_record(&q->s, k, X_out, step, q->LS);
        *verdict = seam_coupling_judge(c, X_out, q->s.X);
        if (*verdict != SEAM_ITERATE)
            break;
        iqn_next(&q->s);
        if (seam_qr_cols(q->s.VW) == 0 && !have_jprev(q))
            iqn_relax(&q->s);                                    /* constant relaxation to start */
        else if (!imvj_update(q, X_out, q->s.r_old)) {
            seam_coupling_warn(c, "out of memory for the update");
            return SEAM_ERROR;
        }
        st = seam_coupling_fluid(c, q->s.X, q->s.F);
        if (st == SEAM_UNSTABLE && iqn_reject(&q->s, c, step, k, &rejected)) {
            q->jprev_off = true;   /* the carried Jacobian may have made it too */
            st = seam_coupling_fluid(c, q->s.X, q->s.F);
        }
    }
    return st;
}

static void imvj_report(void *self, seam_scheme_report *out)
{
    imvj *q = self;
    *out = (seam_scheme_report){0};
    if (!q->s.VW)
        return;
    out->columns = (long)seam_qr_cols(q->s.VW);
    out->filtered = seam_qr_filtered(q->s.VW);
    out->modes = q->restart == RESTART_NONE ? (q->total_columns < (long)q->s.n ? q->total_columns : (long)q->s.n)
                                            : (long)q->m;
    out->restarts = q->restarts;
    out->truncated = q->truncated;
}

/* What crosses steps: the columns (this step's and rs-ls's), the carried
 * Jacobian (J, or Psi and Phi) and the restart bookkeeping. */
static void imvj_save(const void *self, seam_ckpt_writer *w)
{
    const imvj *q = self;
    seam_ckpt_put_u64(w, q->s.X ? q->s.n : UINT64_MAX);   /* UINT64_MAX: no step has run */
    if (!q->s.X)
        return;
    seam_qr_save(q->s.VW, w);
    if (q->LS)
        seam_qr_save(q->LS, w);
    seam_ckpt_put_u64(w, q->J != NULL);
    seam_ckpt_put_f64s(w, q->J, q->J ? q->s.n * q->s.n : 0);
    seam_ckpt_put_f64s(w, q->Psi, q->m * q->s.n);
    seam_ckpt_put_f64s(w, q->Phi, q->m * q->s.n);
    seam_ckpt_put_i64(w, q->folded);
    seam_ckpt_put_i64(w, q->last_folded);
    seam_ckpt_put_i64(w, q->total_columns);
    seam_ckpt_put_u64(w, q->restarts);
    seam_ckpt_put_u64(w, q->truncated);
}

static void imvj_load(void *self, seam_ckpt_reader *r)
{
    imvj *q = self;
    uint64_t n = seam_ckpt_get_u64(r);
    if (n == UINT64_MAX || !seam_ckpt_ok(r, false))
        return;
    if (n > ((uint64_t)1 << 30) || !imvj_reserve(q, (size_t)n)) {
        seam_ckpt_fail(r, "no room for %llu interface values", (unsigned long long)n);
        return;
    }
    seam_qr_load(q->s.VW, r);
    if (q->LS)
        seam_qr_load(q->LS, r);
    bool has_j = seam_ckpt_get_u64(r) != 0;
    if (has_j)
        q->J = seam_xmalloc_n(q->s.n ? q->s.n * q->s.n : 1, sizeof *q->J);
    seam_ckpt_get_f64s(r, q->J, has_j ? q->s.n * q->s.n : 0);
    size_t m = seam_ckpt_peek_count(r) / (q->s.n ? q->s.n : 1);
    if (!seam_ckpt_ok(r, false) || !reserve_m(q, m)) {
        seam_ckpt_fail(r, "no room for %zu carried modes", m);
        return;
    }
    seam_ckpt_get_f64s(r, q->Psi, m * q->s.n);
    seam_ckpt_get_f64s(r, q->Phi, m * q->s.n);
    q->m = m;
    q->folded = (long)seam_ckpt_get_i64(r);
    q->last_folded = (long)seam_ckpt_get_i64(r);
    q->total_columns = (long)seam_ckpt_get_i64(r);
    q->restarts = (unsigned long)seam_ckpt_get_u64(r);
    q->truncated = (unsigned long)seam_ckpt_get_u64(r);
}

const seam_scheme_ops seam_scheme_iqn_imvj = {
    .name = "iqn-imvj",
    .summary = "interface quasi-Newton, multi-vector Jacobian carried across steps, with restarts (IQN-IMVJ)",
    .keys = (const char *const[]){"relaxation", "filter", "max_columns", "reuse", "restart", "chunk",
                                  "restart_reuse", "truncation", NULL},
    .create = imvj_create,
    .destroy = imvj_destroy,
    .step = imvj_step,
    .report = imvj_report,
    .save = imvj_save,
    .load = imvj_load,
    .iterates = true,
};
