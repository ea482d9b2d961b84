/* Unit quaternions for the rigid-body solver (vectors: seam/vec.h).
 * Everything is 3D; a 2D scene keeps z = 0 and rotates about the z axis. */
#ifndef SEAM_RIGID_QUAT_H
#define SEAM_RIGID_QUAT_H

#include <math.h>

#include "seam/vec.h"

/* Quaternions q = (w, x, y, z), unit, rotating body vectors into the world. */
static inline void q_mul(double *r, const double *a, const double *b)
{
    double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    r[0] = w; r[1] = x; r[2] = y; r[3] = z;
}
static inline void q_normalize(double *q)
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++)
        q[i] /= n;
}
/* exp of the rotation vector w (angle |w| about w/|w|) as a quaternion. */
static inline void q_exp(double *q, const double *w)
{
    double th = seam_v3_norm(w);
    double s = th > 1e-300 ? sin(0.5 * th) / th : 0.5;
    q[0] = cos(0.5 * th); q[1] = s * w[0]; q[2] = s * w[1]; q[3] = s * w[2];
}
/* The rotation vector of unit quaternion q (log, inverse of q_exp), angle in [0, pi]. */
static inline void q_log(double *w, const double *q)
{
    double sgn = q[0] < 0 ? -1.0 : 1.0, s = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double f = s > 1e-300 ? 2.0 * atan2(s, sgn * q[0]) / s : 2.0;
    w[0] = sgn * f * q[1]; w[1] = sgn * f * q[2]; w[2] = sgn * f * q[3];
}
/* Rotation matrix of a unit quaternion, row-major. */
static inline void q_to_mat(double *R, const double *q)
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
}
#endif
