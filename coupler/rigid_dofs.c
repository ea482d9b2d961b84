/* Rigid bodies on their own coordinates for the reduced model interface
 * (rigid_dofs.h; Akbay 2.3.4). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "rigid_dofs.h"
#include "seam/motion.h"
#include "seam/vec.h"

typedef struct {
    size_t first, count, at;   /* points, and where its dofs start in the reduced vector */
    double *arms;              /* count x 3, body frame, from the centre */
    double radius;             /* mean arm length: the scale of the rotation dofs */
    double cn[3], Rn[9];       /* the committed pose of the step */
} body;

struct rigid_dofs {
    int dim, nd;               /* nd: dofs per body, 3 (2D) or 6 (3D) */
    size_t n_points, n_full, n_reduced, n_bodies;
    body *b;
    long *free_at;             /* per point: its first reduced index, -1 for a body's point */
};

static void mat_mul(const double A[9], const double B[9], double *C, bool transpose_b)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++)
                s += A[3 * i + k] * (transpose_b ? B[3 * j + k] : B[3 * k + j]);
            C[3 * i + j] = s;
        }
}

rigid_dofs *rigid_dofs_new(int dim, size_t n_points, const double *X0, const rigid_dofs_body *bodies,
                           size_t n_bodies, char *err, size_t errlen, size_t *failed)
{
    if (failed)
        *failed = n_bodies;
    rigid_dofs *rd = calloc(1, sizeof *rd);
    if (!rd || !(rd->b = calloc(n_bodies ? n_bodies : 1, sizeof *rd->b)) ||
        !(rd->free_at = malloc((n_points ? n_points : 1) * sizeof *rd->free_at))) {
        snprintf(err, errlen, "out of memory for %zu rigid bodies", n_bodies);
        rigid_dofs_free(rd);
        return NULL;
    }
    rd->dim = dim, rd->nd = dim == 2 ? 3 : 6;
    rd->n_points = n_points, rd->n_full = n_points * (size_t)dim, rd->n_bodies = n_bodies;
    for (size_t i = 0; i < n_points; i++)
        rd->free_at[i] = 0;
    for (size_t k = 0; k < n_bodies; k++)
        for (size_t i = bodies[k].first; i < bodies[k].first + bodies[k].count; i++)
            rd->free_at[i] = -1;
    size_t at = 0;
    for (size_t i = 0; i < n_points; i++)
        if (rd->free_at[i] == 0)
            rd->free_at[i] = (long)at, at += (size_t)dim;
    for (size_t k = 0; k < n_bodies; k++) {
        body *b = &rd->b[k];
        b->first = bodies[k].first, b->count = bodies[k].count, b->at = at;
        at += (size_t)rd->nd;
        b->arms = malloc((b->count ? b->count : 1) * 3 * sizeof *b->arms);
        if (!b->arms) {
            snprintf(err, errlen, "out of memory for rigid body %zu", k);
            rigid_dofs_free(rd);
            return NULL;
        }
        double sum = 0.0;
        for (size_t i = 0; i < b->count; i++) {
            double d[3] = {0, 0, 0};
            for (int c = 0; c < dim; c++)
                d[c] = X0[(b->first + i) * (size_t)dim + (size_t)c] - bodies[k].centre[c];
            seam_m3_mul_tv(b->arms + 3 * i, bodies[k].rotation, d);
            if (dim == 2)
                b->arms[3 * i + 2] = 0.0;
            sum += sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        }
        b->radius = b->count ? sum / (double)b->count : 0.0;
        double c[3], R[9];
        if (!(b->radius > 0) || !seam_rigid_fit(dim, b->count, b->arms, X0 + b->first * (size_t)dim, c, R)) {
            snprintf(err, errlen, "rigid body %zu (points %zu to %zu): its points do not fix a pose (%s)", k,
                     b->first, b->first + b->count - 1, dim == 2 ? "fewer than two distinct points" :
                     "fewer than three points off one line");
            if (failed)
                *failed = k;
            rigid_dofs_free(rd);
            return NULL;
        }
    }
    rd->n_reduced = at;
    return rd;
}

void rigid_dofs_free(rigid_dofs *rd)
{
    if (!rd)
        return;
    for (size_t k = 0; rd->b && k < rd->n_bodies; k++)
        free(rd->b[k].arms);
    free(rd->b);
    free(rd->free_at);
    free(rd);
}

size_t rigid_dofs_full(const rigid_dofs *rd) { return rd->n_full; }
size_t rigid_dofs_reduced(const rigid_dofs *rd) { return rd->n_reduced; }
size_t rigid_dofs_bodies(const rigid_dofs *rd) { return rd->n_bodies; }

bool rigid_dofs_begin(rigid_dofs *rd, const double *Xn)
{
    bool ok = true;
    for (size_t k = 0; k < rd->n_bodies; k++) {
        body *b = &rd->b[k];
        ok = seam_rigid_fit(rd->dim, b->count, b->arms, Xn + b->first * (size_t)rd->dim, b->cn, b->Rn) && ok;
    }
    return ok;
}

static void copy_free(const rigid_dofs *rd, const double *from_full, double *to_red, bool to_reduced)
{
    for (size_t i = 0; i < rd->n_points; i++) {
        long a = rd->free_at[i];
        if (a < 0)
            continue;
        for (int c = 0; c < rd->dim; c++) {
            if (to_reduced)
                to_red[(size_t)a + (size_t)c] = from_full[i * (size_t)rd->dim + (size_t)c];
            else
                to_red[i * (size_t)rd->dim + (size_t)c] = from_full[(size_t)a + (size_t)c];
        }
    }
}

void rigid_dofs_reduce_X(const rigid_dofs *rd, const double *X, double *y)
{
    int dim = rd->dim, nw = dim == 2 ? 1 : 3;
    copy_free(rd, X, y, true);
    for (size_t k = 0; k < rd->n_bodies; k++) {
        const body *b = &rd->b[k];
        double c[3], R[9], Rrel[9], w[3];
        if (!seam_rigid_fit(dim, b->count, b->arms, X + b->first * (size_t)dim, c, R)) {
            for (int d = 0; d < rd->nd; d++)
                y[b->at + (size_t)d] = NAN;   /* cannot happen for the arms rigid_dofs_new accepted */
            continue;
        }
        mat_mul(R, b->Rn, Rrel, true);   /* R = exp(w) R^n: the turn since the committed pose, world frame */
        seam_rotation_log(dim, Rrel, w);
        for (int d = 0; d < dim; d++)
            y[b->at + (size_t)d] = c[d] - b->cn[d];
        for (int d = 0; d < nw; d++)
            y[b->at + (size_t)dim + (size_t)d] = b->radius * w[dim == 2 ? 0 : d];
    }
}

void rigid_dofs_expand_X(const rigid_dofs *rd, const double *y, double *X)
{
    int dim = rd->dim, nw = dim == 2 ? 1 : 3;
    copy_free(rd, y, X, false);
    for (size_t k = 0; k < rd->n_bodies; k++) {
        const body *b = &rd->b[k];
        double w[3] = {0, 0, 0}, E[9], R[9], c[3] = {0, 0, 0};
        for (int d = 0; d < nw; d++)
            w[d] = y[b->at + (size_t)dim + (size_t)d] / b->radius;
        seam_rotation_exp(dim, w, E);
        mat_mul(E, b->Rn, R, false);
        for (int d = 0; d < dim; d++)
            c[d] = b->cn[d] + y[b->at + (size_t)d];
        for (size_t i = 0; i < b->count; i++) {
            double a[3];
            seam_m3_mul_v(a, R, b->arms + 3 * i);
            for (int d = 0; d < dim; d++)
                X[(b->first + i) * (size_t)dim + (size_t)d] = c[d] + a[d];
        }
    }
}

/* The arms of body b's points at positions X: from the centre of the pose fitted to them. */
static bool arms_at(const rigid_dofs *rd, const body *b, const double *X, double *arms)
{
    double c[3], R[9];
    if (!seam_rigid_fit(rd->dim, b->count, b->arms, X + b->first * (size_t)rd->dim, c, R))
        return false;
    for (size_t i = 0; i < b->count; i++) {
        double *a = arms + 3 * i;
        a[2] = 0.0;
        for (int d = 0; d < rd->dim; d++)
            a[d] = X[(b->first + i) * (size_t)rd->dim + (size_t)d] - c[d];
    }
    return true;
}

/* Force and torque (3 + 3 values; 2D: the torque in [5]) of loads p at arms. */
static void wrench(const rigid_dofs *rd, const body *b, const double *arms, const double *p, double *F, double *tau)
{
    int dim = rd->dim;
    for (int d = 0; d < 3; d++)
        F[d] = tau[d] = 0.0;
    for (size_t i = 0; i < b->count; i++) {
        const double *a = arms + 3 * i, *f = p + (b->first + i) * (size_t)dim;
        double f3[3] = {f[0], f[1], dim == 3 ? f[2] : 0.0};
        for (int d = 0; d < 3; d++)
            F[d] += f3[d];
        tau[0] += a[1] * f3[2] - a[2] * f3[1];
        tau[1] += a[2] * f3[0] - a[0] * f3[2];
        tau[2] += a[0] * f3[1] - a[1] * f3[0];
    }
}

static void put_wrench(const rigid_dofs *rd, const body *b, const double *F, const double *tau, double *G)
{
    int dim = rd->dim;
    for (int d = 0; d < dim; d++)
        G[b->at + (size_t)d] = F[d];
    if (dim == 2)
        G[b->at + 2] = tau[2] / b->radius;
    else
        for (int d = 0; d < 3; d++)
            G[b->at + 3 + (size_t)d] = tau[d] / b->radius;
}

void rigid_dofs_reduce_F(const rigid_dofs *rd, const double *X, const double *p, double *G)
{
    copy_free(rd, p, G, true);
    for (size_t k = 0; k < rd->n_bodies; k++) {
        const body *b = &rd->b[k];
        double *arms = malloc(b->count * 3 * sizeof *arms), F[3], tau[3];
        if (!arms || !arms_at(rd, b, X, arms)) {
            for (int d = 0; d < rd->nd; d++)
                G[b->at + (size_t)d] = NAN;
            free(arms);
            continue;
        }
        wrench(rd, b, arms, p, F, tau);
        put_wrench(rd, b, F, tau, G);
        free(arms);
    }
}

void rigid_dofs_lift_F(const rigid_dofs *rd, const double *X, const double *G, const double *base, double *p)
{
    int dim = rd->dim;
    copy_free(rd, G, p, false);
    for (size_t k = 0; k < rd->n_bodies; k++) {
        const body *b = &rd->b[k];
        double *arms = malloc(b->count * 3 * sizeof *arms);
        bool ok = arms && arms_at(rd, b, X, arms);
        /* the wrench still missing: dF, dtau */
        double F0[3], tau0[3], dF[3] = {0, 0, 0}, dtau[3] = {0, 0, 0};
        if (ok) {
            wrench(rd, b, arms, base, F0, tau0);
            for (int d = 0; d < dim; d++)
                dF[d] = G[b->at + (size_t)d] - F0[d];
            if (dim == 2)
                dtau[2] = G[b->at + 2] * b->radius - tau0[2];
            else
                for (int d = 0; d < 3; d++)
                    dtau[d] = G[b->at + 3 + (size_t)d] * b->radius - tau0[d];
        }
        /* least-norm f_i = l + m x a_i with sum f_i = dF, sum a_i x f_i = dtau:
         * [ N I     -[A]x ] [l]   [dF  ]
         * [ [A]x    sum(|a|^2 I - a a^T) ] [m] = [dtau], A = sum a_i (a 6 x 6 system, symmetric) */
        double K[36] = {0}, rhs[6] = {dF[0], dF[1], dF[2], dtau[0], dtau[1], dtau[2]}, A[3] = {0, 0, 0};
        for (size_t i = 0; ok && i < b->count; i++) {
            const double *a = arms + 3 * i;
            double aa = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
            for (int r = 0; r < 3; r++) {
                A[r] += a[r];
                for (int c = 0; c < 3; c++)
                    K[6 * (3 + r) + 3 + c] += (r == c ? aa : 0.0) - a[r] * a[c];
            }
        }
        double Ax[9] = {0, -A[2], A[1], A[2], 0, -A[0], -A[1], A[0], 0};
        for (int r = 0; r < 3; r++) {
            K[6 * r + r] = (double)b->count;
            for (int c = 0; c < 3; c++) {
                K[6 * r + 3 + c] = -Ax[3 * r + c];
                K[6 * (3 + r) + c] = Ax[3 * r + c];
            }
        }
        /* 2D: only l_x, l_y and m_z are unknowns; the other three stay 0 */
        int idx2[3] = {0, 1, 5}, m = dim == 2 ? 3 : 6;
        double Ks[36], xs[6];
        for (int r = 0; r < m; r++) {
            int ir = dim == 2 ? idx2[r] : r;
            xs[r] = rhs[ir];
            for (int c = 0; c < m; c++)
                Ks[m * r + c] = K[6 * ir + (dim == 2 ? idx2[c] : c)];
        }
        lapack_int ipiv[6];
        ok = ok && LAPACKE_dgesv(LAPACK_ROW_MAJOR, m, 1, Ks, m, ipiv, xs, 1) == 0;
        double l[3] = {0, 0, 0}, mu[3] = {0, 0, 0};
        for (int r = 0; ok && r < m; r++) {
            int ir = dim == 2 ? idx2[r] : r;
            if (ir < 3)
                l[ir] = xs[r];
            else
                mu[ir - 3] = xs[r];
        }
        for (size_t i = 0; i < b->count; i++) {
            const double *a = ok ? arms + 3 * i : (const double[3]){0, 0, 0};
            double f[3] = {l[0] + mu[1] * a[2] - mu[2] * a[1], l[1] + mu[2] * a[0] - mu[0] * a[2],
                           l[2] + mu[0] * a[1] - mu[1] * a[0]};
            for (int d = 0; d < dim; d++) {
                size_t j = (b->first + i) * (size_t)dim + (size_t)d;
                p[j] = base[j] + (ok ? f[d] : NAN);
            }
        }
        free(arms);
    }
}
