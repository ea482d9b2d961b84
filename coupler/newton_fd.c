/* Exact Newton on the fixed-point residual r(X) = S(F(X)) - X, its
 * Jacobian by forward differences at every iterate: a reference for what
 * the quasi-Newton schemes could reach with a perfect Jacobian (issue 32,
 * item 6), not a scheme to run. Each iteration costs n + 1 more calls of
 * each solver than it is counted for: the count is the judged iterates, as
 * for the other schemes. Newton: J_r(X^k) dX = -r^k, X^{k+1} = X^k + dX.
 * With `jacobian_age` a >= 1 it is the chord method instead: J_r from the
 * first iterate of a step, kept for a steps, which measures what a Jacobian
 * that many steps old costs (a secant scheme's reused columns are old). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "ranges.h"
#include "scheme.h"
#include "seam/alloc.h"

/* Interface values beyond which n + 1 solver pairs per iteration and the
 * dense n x n solve are no reference anyone waits for. */
#define NEWTON_MAX_N 2000

typedef struct {
    double fd_step;      /* relative size of the difference steps */
    long age;            /* 0: J_r at every iterate; a: at a step's first iterate, every a steps */
    long made;           /* the step J_r was last made at (chord), -1: none */
    size_t n;
    double *J;           /* J_r, n x n column-major, then its LU */
    double *X, *r, *F, *Xp, *Fp, *Xtp;
    lapack_int *piv;
} newton_fd;

static void *newton_create(seam_cfg *coupling)
{
    newton_fd *q = SEAM_NEW(newton_fd);
    q->fd_step = seam_cfg_key(coupling, NEWTON_FD_KEYS, "fd_step", 1e-7, 0);
    q->age = seam_cfg_key_int(coupling, NEWTON_FD_KEYS, "jacobian_age", 0, 0);
    q->made = -1;
    return q;
}

static void newton_free(newton_fd *q)
{
    free(q->J);
    free(q->piv);
    q->J = NULL;
    q->piv = NULL;
    q->made = -1;
}

static void newton_destroy(void *self)
{
    newton_fd *q = self;
    if (!q)
        return;
    newton_free(q);
    free(q);
}

static void newton_reserve(newton_fd *q, size_t n)
{
    if (q->J && q->n == n)
        return;
    newton_free(q);
    q->n = n;
    q->J = seam_xmalloc_n(n * n + 6 * n, sizeof *q->J);   /* the LU of J_r in place */
    q->X = q->J + n * n;
    q->r = q->X + n;
    q->F = q->r + n;
    q->Xp = q->F + n;
    q->Fp = q->Xp + n;
    q->Xtp = q->Fp + n;
    q->piv = SEAM_NEW_N(lapack_int, n);
}

/* Column j of J_r: (r(X^k + h e_j) - r^k) / h, h scaled by the iterate's
 * largest value so that zero entries are perturbed too. */
static seam_status jacobian(newton_fd *q, seam_coupling *c)
{
    size_t n = q->n;
    double scale = 0.0;
    for (size_t i = 0; i < n; i++)
        scale = fmax(scale, fabs(q->X[i]));
    memcpy(q->Xp, q->X, n * sizeof *q->Xp);
    for (size_t j = 0; j < n; j++) {
        double h = q->fd_step * (scale > 0.0 ? fmax(fabs(q->X[j]), scale) : 1.0);
        q->Xp[j] = q->X[j] + h;
        seam_status st = seam_coupling_fluid(c, q->Xp, q->Fp);
        if (st == SEAM_OK)
            st = seam_coupling_solid(c, q->Fp, q->Xtp);
        if (st != SEAM_OK)
            return st;
        for (size_t i = 0; i < n; i++)
            q->J[i + j * n] = (q->Xtp[i] - q->Xp[i] - q->r[i]) / h;
        q->Xp[j] = q->X[j];
    }
    if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, q->J, (lapack_int)n, q->piv)) {
        seam_coupling_warn(c, "newton-fd: the residual's Jacobian is singular");
        return SEAM_ERROR;
    }
    /* the judge compares the fluid's last two loads: F(X^k) is the last again */
    return seam_coupling_fluid(c, q->X, q->F);
}

/* J_r now: at every iterate (Newton), or at the first of every age-th step (chord). */
static bool jacobian_due(const newton_fd *q, long step, int k)
{
    if (q->age == 0)
        return true;
    return k == 0 && (q->made < 0 || step - q->made >= q->age || step < q->made);
}

static seam_status newton_step(void *self, seam_coupling *c, const double *X_pred, double *X_out,
                               seam_verdict *verdict)
{
    newton_fd *q = self;
    size_t n = seam_coupling_size(c);
    if (n > NEWTON_MAX_N) {
        seam_coupling_warn(c, "newton-fd is a reference for small interfaces: %zu values, at most %d", n,
                           NEWTON_MAX_N);
        return SEAM_ERROR;
    }
    newton_reserve(q, n);
    long step = seam_coupling_step_index(c);
    memcpy(q->X, X_pred, n * sizeof *q->X);
    seam_status st = seam_coupling_fluid(c, q->X, q->F);
    for (int k = 0; st == SEAM_OK; k++) {
        st = seam_coupling_solid(c, q->F, X_out);                /* X~^k = S(F(X^k)) */
        if (st != SEAM_OK)
            break;
        for (size_t i = 0; i < n; i++)
            q->r[i] = X_out[i] - q->X[i];
        *verdict = seam_coupling_judge(c, X_out, q->X);
        if (*verdict != SEAM_ITERATE)
            break;
        if (jacobian_due(q, step, k)) {
            st = jacobian(q, c);
            if (st != SEAM_OK)
                break;
            q->made = step;
        }
        for (size_t i = 0; i < n; i++)
            q->Xp[i] = -q->r[i];
        LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', (lapack_int)n, 1, q->J, (lapack_int)n, q->piv, q->Xp, (lapack_int)n);
        for (size_t i = 0; i < n; i++)
            q->X[i] += q->Xp[i];
        st = seam_coupling_fluid(c, q->X, q->F);
    }
    return st;
}

/* What crosses steps: the chord's LU of J_r, its pivots and the step it was
 * made at (Newton at every iterate carries nothing, but writes the same). */
static void newton_save(const void *self, seam_ckpt_writer *w)
{
    const newton_fd *q = self;
    bool has = q->J && q->made >= 0;
    seam_ckpt_put_u64(w, has ? q->n : UINT64_MAX);   /* UINT64_MAX: no Jacobian kept */
    if (!has)
        return;
    seam_ckpt_put_i64(w, q->made);
    seam_ckpt_put_f64s(w, q->J, q->n * q->n);
    int64_t *piv = SEAM_NEW_N(int64_t, q->n);
    for (size_t i = 0; i < q->n; i++)
        piv[i] = q->piv[i];
    seam_ckpt_put_i64s(w, piv, q->n);
    free(piv);
}

static void newton_load(void *self, seam_ckpt_reader *r)
{
    newton_fd *q = self;
    uint64_t n = seam_ckpt_get_u64(r);
    if (n == UINT64_MAX || !seam_ckpt_ok(r, false))
        return;
    if (n > NEWTON_MAX_N) {
        seam_ckpt_fail(r, "newton-fd: %llu interface values, at most %d", (unsigned long long)n, NEWTON_MAX_N);
        return;
    }
    newton_reserve(q, (size_t)n);
    q->made = (long)seam_ckpt_get_i64(r);
    seam_ckpt_get_f64s(r, q->J, q->n * q->n);
    int64_t *piv = SEAM_NEW_N(int64_t, q->n);
    seam_ckpt_get_i64s(r, piv, q->n);
    for (size_t i = 0; i < q->n; i++)
        q->piv[i] = (lapack_int)piv[i];
    free(piv);
}

const seam_scheme_ops seam_scheme_newton_fd = {
    .name = "newton-fd",
    .summary = "exact Newton, the residual's Jacobian by finite differences each iteration (a reference: n + 1 "
               "solver pairs per iteration)",
    .keys = (const char *const[]){"fd_step", "jacobian_age", NULL},
    .create = newton_create,
    .destroy = newton_destroy,
    .step = newton_step,
    .save = newton_save,
    .load = newton_load,
    .iterates = true,
};
