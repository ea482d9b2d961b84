/* Rigid motions: exp/log of rotations and the best rigid fit of a point set
 * (seam/motion.h). */
#include <math.h>
#include <string.h>

#include <lapacke.h>

#include "seam/motion.h"

void seam_rotation_exp(int dim, const double *w, double R[9])
{
    if (dim == 2) {
        double c = cos(w[0]), s = sin(w[0]);
        double M[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
        memcpy(R, M, sizeof M);
        return;
    }
    double th = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    /* R = I + a [w]x + b [w]x^2, a = sin(th)/th, b = (1 - cos th)/th^2 (series below 1e-4) */
    double a, b;
    if (th < 1e-4) {
        a = 1.0 - th * th / 6.0;
        b = 0.5 - th * th / 24.0;
    } else {
        a = sin(th) / th;
        b = (1.0 - cos(th)) / (th * th);
    }
    double x = w[0], y = w[1], z = w[2];
    R[0] = 1.0 - b * (y * y + z * z), R[1] = -a * z + b * x * y, R[2] = a * y + b * x * z;
    R[3] = a * z + b * x * y, R[4] = 1.0 - b * (x * x + z * z), R[5] = -a * x + b * y * z;
    R[6] = -a * y + b * x * z, R[7] = a * x + b * y * z, R[8] = 1.0 - b * (x * x + y * y);
}

/* The rotation vector of a unit quaternion (w, x, y, z), angle in [0, pi]. */
static void quat_log(const double q[4], double *w)
{
    double s = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), c = q[0];
    if (c < 0)
        c = -c, s = -s;   /* the same rotation, the shorter way round */
    double th = 2.0 * atan2(fabs(s), c);
    double k = fabs(s) > 1e-300 ? th / fabs(s) : 2.0 / (c > 0 ? c : 1.0);   /* th/sin(th/2) -> 2 as th -> 0 */
    double sign = q[0] < 0 ? -1.0 : 1.0;
    for (int d = 0; d < 3; d++)
        w[d] = sign * k * q[1 + d];
}

/* The unit quaternion of rotation R (Shepperd: from the largest of the four squares). */
static void mat_quat(const double R[9], double q[4])
{
    double tr = R[0] + R[4] + R[8];
    double sq[4] = {1 + tr, 1 + 2 * R[0] - tr, 1 + 2 * R[4] - tr, 1 + 2 * R[8] - tr};
    int k = 0;
    for (int i = 1; i < 4; i++)
        if (sq[i] > sq[k])
            k = i;
    double s = 0.5 * sqrt(sq[k] > 0 ? sq[k] : 0), f = 0.25 / s;
    switch (k) {
    case 0: q[0] = s, q[1] = (R[7] - R[5]) * f, q[2] = (R[2] - R[6]) * f, q[3] = (R[3] - R[1]) * f; break;
    case 1: q[1] = s, q[0] = (R[7] - R[5]) * f, q[2] = (R[1] + R[3]) * f, q[3] = (R[2] + R[6]) * f; break;
    case 2: q[2] = s, q[0] = (R[2] - R[6]) * f, q[1] = (R[1] + R[3]) * f, q[3] = (R[5] + R[7]) * f; break;
    default: q[3] = s, q[0] = (R[3] - R[1]) * f, q[1] = (R[2] + R[6]) * f, q[2] = (R[5] + R[7]) * f; break;
    }
}

void seam_rotation_log(int dim, const double R[9], double *w)
{
    if (dim == 2) {
        w[0] = atan2(R[3], R[0]);
        return;
    }
    double q[4];
    mat_quat(R, q);
    quat_log(q, w);
}

static void quat_mat(const double q[4], double R[9])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

bool seam_rigid_fit(int dim, size_t n, const double *r, const double *X, double c[3], double R[9])
{
    double rb[3] = {0, 0, 0}, xb[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < dim; d++)
            rb[d] += r[3 * i + (size_t)d], xb[d] += X[i * (size_t)dim + (size_t)d];
    for (int d = 0; d < 3; d++)
        rb[d] /= n ? (double)n : 1.0, xb[d] /= n ? (double)n : 1.0;
    double spread = 0.0;
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < dim; d++)
            spread += (r[3 * i + (size_t)d] - rb[d]) * (r[3 * i + (size_t)d] - rb[d]);
    if (n < 2 || !(spread > 0))
        return false;
    if (dim == 2) {
        double sd = 0.0, sc = 0.0;   /* sums of dot and cross products of centred arms and positions */
        for (size_t i = 0; i < n; i++) {
            double a0 = r[3 * i] - rb[0], a1 = r[3 * i + 1] - rb[1];
            double x0 = X[2 * i] - xb[0], x1 = X[2 * i + 1] - xb[1];
            sd += a0 * x0 + a1 * x1;
            sc += a0 * x1 - a1 * x0;
        }
        double th = atan2(sc, sd);
        seam_rotation_exp(2, &th, R);
    } else {
        double S[9] = {0};   /* S_ab = sum (r - rb)_a (x - xb)_b */
        for (size_t i = 0; i < n; i++)
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    S[3 * a + b] += (r[3 * i + (size_t)a] - rb[a]) * (X[3 * i + (size_t)b] - xb[b]);
        /* Horn (1987): the rotation's quaternion is the top eigenvector of N */
        double Sxx = S[0], Sxy = S[1], Sxz = S[2], Syx = S[3], Syy = S[4], Syz = S[5], Szx = S[6], Szy = S[7],
               Szz = S[8];
        double N[16] = {Sxx + Syy + Szz, Syz - Szy,        Szx - Sxz,        Sxy - Syx,
                        Syz - Szy,       Sxx - Syy - Szz,  Sxy + Syx,        Szx + Sxz,
                        Szx - Sxz,       Sxy + Syx,        -Sxx + Syy - Szz, Syz + Szy,
                        Sxy - Syx,       Szx + Sxz,        Syz + Szy,        -Sxx - Syy + Szz};
        double ev[4];
        if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', 4, N, 4, ev) != 0)
            return false;
        /* a rotation is fixed unless the two largest eigenvalues coincide (points on one line) */
        if (!(ev[3] - ev[2] > 1e-12 * (fabs(ev[3]) + fabs(ev[0]))))
            return false;
        double q[4] = {N[3], N[7], N[11], N[15]};
        quat_mat(q, R);
    }
    for (int a = 0; a < 3; a++) {
        c[a] = a < dim ? xb[a] : 0.0;
        for (int b = 0; b < dim; b++)
            c[a] -= a < dim ? R[3 * a + b] * rb[b] : 0.0;
    }
    return true;
}
