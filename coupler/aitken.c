/* Gauss-Seidel with Aitken's dynamic relaxation (Irons-Tuck form, as used for
 * FSI by Kuettler and Wall): the factor is the secant estimate of the inverse
 * slope of the interface residual, projected on the last residual change. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "scheme.h"
#include "lanes.h"
#include "seam/alloc.h"

typedef struct {
    double omega0;       /* factor of the first iteration of the first step */
    double first_max;    /* bound on |omega| at the first iteration of later steps */
    double omega;        /* the factor last used, carried to the next step */
    bool started;
    size_t n;
    double *X, *r, *r_old;   /* iterate X^k, residual r^k = X~ - X^k, r^{k-1} */
    double *F;               /* the loads on X^k */
} aitken;

static void *aitken_create(seam_cfg *coupling)
{
    aitken *a = SEAM_NEW(aitken);
    a->omega0 = seam_cfg_key(coupling, AITKEN_KEYS, "relaxation", 0.5, 0);
    a->first_max = seam_cfg_key(coupling, AITKEN_KEYS, "aitken_first_max", a->omega0, 0);
    return a;
}

static void aitken_destroy(void *self)
{
    aitken *a = self;
    if (!a)
        return;
    free(a->X);
    free(a);
}

static void aitken_reserve(aitken *a, size_t n)
{
    if (a->n == n && a->X)
        return;
    free(a->X);
    a->n = n;
    a->X = seam_xmalloc_n(4 * (n ? n : 1), sizeof *a->X);
    a->r = a->X + n;
    a->r_old = a->r + n;
    a->F = a->r_old + n;
}

/* The factor of a step's first iteration: the last one, bounded, sign kept. */
static double aitken_first_factor(aitken *a)
{
    if (!a->started)
        return a->omega0;
    double w = fmin(fabs(a->omega), a->first_max);
    return a->omega < 0 ? -w : w;
}

/* omega_k = -omega_{k-1} r^{k-1}.(r^k - r^{k-1}) / |r^k - r^{k-1}|^2, with
 * r^k = X~ - X^k formed in the same pass; four lanes wide for GCC's vectorizer. */
static double aitken_update(double omega, size_t n, const double *restrict Xt, const double *restrict X,
                            double *restrict r, const double *restrict r_old)
{
    double num[4] = {0.0, 0.0, 0.0, 0.0}, den[4] = {0.0, 0.0, 0.0, 0.0};
    SEAM_LANES(j, l, n, {
        r[j] = Xt[j] - X[j];
        double d = r[j] - r_old[j];
        num[l] += r_old[j] * d;
        den[l] += d * d;
    });
    double nu = (num[0] + num[1]) + (num[2] + num[3]), de = (den[0] + den[1]) + (den[2] + den[3]);
    return de > 0.0 ? -omega * nu / de : omega;
}

/* X^{k+1} = X^k + omega r^k, and r^k kept as r^{k-1} for the next update. */
static void aitken_relax(size_t n, double omega, double *restrict X, double *restrict r_old, const double *restrict r)
{
    SEAM_LANES(j, l, n, X[j] += omega * r[j]; r_old[j] = r[j];);
}

static seam_status aitken_step(void *self, seam_coupling *c, const double *X_pred, double *X_out,
                               seam_verdict *verdict)
{
    aitken *a = self;
    size_t n = seam_coupling_size(c);
    aitken_reserve(a, n);
    double *F = a->F;
    memcpy(a->X, X_pred, n * sizeof *a->X);
    double omega = aitken_first_factor(a);
    seam_status st = seam_coupling_fluid(c, a->X, F);
    for (int k = 0; st == SEAM_OK; k++) {
        st = seam_coupling_solid(c, F, X_out);
        if (st != SEAM_OK)
            break;
        *verdict = seam_coupling_judge(c, X_out, a->X);
        if (*verdict != SEAM_ITERATE)
            break;
        if (k > 0)
            omega = aitken_update(omega, n, X_out, a->X, a->r, a->r_old);
        else
            for (size_t i = 0; i < n; i++)
                a->r[i] = X_out[i] - a->X[i];
        aitken_relax(n, omega, a->X, a->r_old, a->r);
        a->omega = omega;
        a->started = true;
        st = seam_coupling_fluid(c, a->X, F);
    }
    return st;
}

/* Only the factor and whether a step has run cross steps; the vectors are refilled each step. */
static void aitken_save(const void *self, seam_ckpt_writer *w)
{
    const aitken *a = self;
    seam_ckpt_put_f64(w, a->omega);
    seam_ckpt_put_u64(w, a->started);
}

static void aitken_load(void *self, seam_ckpt_reader *r)
{
    aitken *a = self;
    a->omega = seam_ckpt_get_f64(r);
    a->started = seam_ckpt_get_u64(r) != 0;
}

const seam_scheme_ops seam_scheme_aitken = {
    .name = "aitken",
    .summary = "Gauss-Seidel with Aitken's dynamic relaxation",
    .keys = (const char *const[]){"relaxation", "aitken_first_max", NULL},
    .create = aitken_create,
    .destroy = aitken_destroy,
    .step = aitken_step,
    .save = aitken_save,
    .load = aitken_load,
    .iterates = true,
};
