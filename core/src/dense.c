/* Small dense linear algebra: Jacobi eigen-solver, Irving's SVD, inverses. */
#include <math.h>
#include <string.h>

#include "seam/dense.h"

int seam_sym_eig(int n, const double *A, double *lambda, double *Q)
{
    if (n < 1 || n > SEAM_DENSE_MAX)
        return -1;
    double a[SEAM_DENSE_MAX * SEAM_DENSE_MAX];
    memcpy(a, A, (size_t)(n * n) * sizeof *a);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            Q[i * n + j] = i == j ? 1.0 : 0.0;
    double scale = 0.0;
    for (int i = 0; i < n * n; i++)
        scale += a[i] * a[i];
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0.0;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++)
                off += a[p * n + q] * a[p * n + q];
        if (off <= 1e-32 * scale || off == 0.0)
            break;
        for (int p = 0; p < n; p++) {
            for (int q = p + 1; q < n; q++) {
                double apq = a[p * n + q];
                if (apq == 0.0)
                    continue;
                /* Rotation angle that zeroes a_pq (Golub & Van Loan, symmetric Schur). */
                double tau = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                double t = (tau >= 0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1.0 + tau * tau));
                double c = 1.0 / sqrt(1.0 + t * t), s = t * c;
                for (int k = 0; k < n; k++) {
                    double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; k++) {
                    double apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < n; k++) {
                    double qkp = Q[k * n + p], qkq = Q[k * n + q];
                    Q[k * n + p] = c * qkp - s * qkq;
                    Q[k * n + q] = s * qkp + c * qkq;
                }
            }
        }
    }
    for (int i = 0; i < n; i++)
        lambda[i] = a[i * n + i];
    /* Selection sort, descending, columns of Q along. */
    for (int i = 0; i < n; i++) {
        int m = i;
        for (int j = i + 1; j < n; j++)
            if (lambda[j] > lambda[m])
                m = j;
        if (m != i) {
            double t = lambda[i];
            lambda[i] = lambda[m];
            lambda[m] = t;
            for (int k = 0; k < n; k++) {
                t = Q[k * n + i];
                Q[k * n + i] = Q[k * n + m];
                Q[k * n + m] = t;
            }
        }
    }
    return 0;
}

int seam_sym_project_psd(int n, double *A)
{
    double lambda[SEAM_DENSE_MAX], Q[SEAM_DENSE_MAX * SEAM_DENSE_MAX];
    if (seam_sym_eig(n, A, lambda, Q) != 0)
        return 0;
    int clamped = 0;
    for (int i = 0; i < n; i++)
        if (lambda[i] < 0.0) {
            lambda[i] = 0.0;
            clamped++;
        }
    if (!clamped)
        return 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += Q[i * n + k] * lambda[k] * Q[j * n + k];
            A[i * n + j] = s;
        }
    return clamped;
}

double seam_det(int d, const double *A)
{
    if (d == 2)
        return A[0] * A[3] - A[1] * A[2];
    return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
           A[2] * (A[3] * A[7] - A[4] * A[6]);
}

double seam_inverse(int d, const double *A, double *inv)
{
    double det = seam_det(d, A);
    if (det == 0.0)
        return 0.0;
    if (d == 2) {
        inv[0] = A[3] / det;
        inv[1] = -A[1] / det;
        inv[2] = -A[2] / det;
        inv[3] = A[0] / det;
        return det;
    }
    inv[0] = (A[4] * A[8] - A[5] * A[7]) / det;
    inv[1] = (A[2] * A[7] - A[1] * A[8]) / det;
    inv[2] = (A[1] * A[5] - A[2] * A[4]) / det;
    inv[3] = (A[5] * A[6] - A[3] * A[8]) / det;
    inv[4] = (A[0] * A[8] - A[2] * A[6]) / det;
    inv[5] = (A[2] * A[3] - A[0] * A[5]) / det;
    inv[6] = (A[3] * A[7] - A[4] * A[6]) / det;
    inv[7] = (A[1] * A[6] - A[0] * A[7]) / det;
    inv[8] = (A[0] * A[4] - A[1] * A[3]) / det;
    return det;
}

/* u_col = F v_col (column j of V). */
static void apply_col(int d, const double *F, const double *V, int j, double *out)
{
    for (int i = 0; i < d; i++) {
        out[i] = 0.0;
        for (int k = 0; k < d; k++)
            out[i] += F[i * d + k] * V[k * d + j];
    }
}

static double normalize(int d, double *x)
{
    double n = 0.0;
    for (int i = 0; i < d; i++)
        n += x[i] * x[i];
    n = sqrt(n);
    if (n > 0.0)
        for (int i = 0; i < d; i++)
            x[i] /= n;
    return n;
}

/* A unit vector orthogonal to the unit vector a (3D). */
static void any_orthogonal(const double *a, double *out)
{
    double e[3] = {0, 0, 0};
    int m = fabs(a[0]) < fabs(a[1]) ? (fabs(a[0]) < fabs(a[2]) ? 0 : 2) : (fabs(a[1]) < fabs(a[2]) ? 1 : 2);
    e[m] = 1.0;
    double dot = a[0] * e[0] + a[1] * e[1] + a[2] * e[2];
    for (int i = 0; i < 3; i++)
        out[i] = e[i] - dot * a[i];
    normalize(3, out);
}

void seam_svd_rotation(int d, const double *F, double *U, double *sigma, double *V)
{
    /* Irving 2.5: eigenvectors of F^T F give V; make V a rotation first. */
    double C[9] = {0}, lambda[3];
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double s = 0.0;
            for (int k = 0; k < d; k++)
                s += F[k * d + i] * F[k * d + j];
            C[i * d + j] = s;
        }
    seam_sym_eig(d, C, lambda, V);
    if (seam_det(d, V) < 0.0)
        for (int k = 0; k < d; k++)
            V[k * d + d - 1] = -V[k * d + d - 1];
    double fnorm = 0.0;
    for (int i = 0; i < d * d; i++)
        fnorm += F[i] * F[i];
    double tiny = 1e-12 * sqrt(fnorm);
    double u[3][3];
    /* Columns of U from F v_i / sigma_i while sigma_i is not tiny, else any
     * orthogonal completion; the last column closes a rotation. */
    apply_col(d, F, V, 0, u[0]);
    if (normalize(d, u[0]) <= tiny || fnorm == 0.0) {
        memset(u[0], 0, sizeof u[0]);
        u[0][0] = 1.0;
    }
    if (d == 2) {
        u[1][0] = -u[0][1];
        u[1][1] = u[0][0];
    } else {
        apply_col(3, F, V, 1, u[1]);
        double dot = u[1][0] * u[0][0] + u[1][1] * u[0][1] + u[1][2] * u[0][2];
        for (int i = 0; i < 3; i++)
            u[1][i] -= dot * u[0][i];
        if (normalize(3, u[1]) <= tiny)
            any_orthogonal(u[0], u[1]);
        u[2][0] = u[0][1] * u[1][2] - u[0][2] * u[1][1];
        u[2][1] = u[0][2] * u[1][0] - u[0][0] * u[1][2];
        u[2][2] = u[0][0] * u[1][1] - u[0][1] * u[1][0];
    }
    for (int j = 0; j < d; j++) {
        double fv[3];
        apply_col(d, F, V, j, fv);
        sigma[j] = 0.0;
        for (int i = 0; i < d; i++) {
            sigma[j] += u[j][i] * fv[i];   /* signed: the last one carries det F's sign */
            U[i * d + j] = u[j][i];
        }
    }
}
