/* Small fixed-size vectors and 3x3 matrices on plain double arrays: the
 * one set of helpers for geometry in plugins and the coupler.
 *
 * Vectors are `double[2]` or `double[3]`, matrices `double[9]` row-major.
 * Results may alias arguments (each result is computed before it is
 * stored), so `seam_v3_cross(a, a, b)` is safe. */
#ifndef SEAM_VEC_H
#define SEAM_VEC_H

#include <math.h>

/* ---- 2D ---- */
static inline double seam_v2_dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1]; }
/* The z component of (a, 0) x (b, 0): twice the signed area of the triangle (0, a, b). */
static inline double seam_v2_cross(const double *a, const double *b) { return a[0] * b[1] - a[1] * b[0]; }
static inline double seam_v2_norm(const double *a) { return sqrt(seam_v2_dot(a, a)); }

/* ---- 3D ---- */
static inline void seam_v3_set(double *r, double x, double y, double z)
{
    r[0] = x;
    r[1] = y;
    r[2] = z;
}
static inline void seam_v3_copy(double *r, const double *a) { seam_v3_set(r, a[0], a[1], a[2]); }
static inline double seam_v3_dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double seam_v3_norm(const double *a) { return sqrt(seam_v3_dot(a, a)); }
static inline void seam_v3_add(double *r, const double *a, const double *b)
{
    seam_v3_set(r, a[0] + b[0], a[1] + b[1], a[2] + b[2]);
}
static inline void seam_v3_sub(double *r, const double *a, const double *b)
{
    seam_v3_set(r, a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}
/* r = s a */
static inline void seam_v3_scale(double *r, double s, const double *a) { seam_v3_set(r, s * a[0], s * a[1], s * a[2]); }
/* r += s a */
static inline void seam_v3_axpy(double *r, double s, const double *a)
{
    seam_v3_set(r, r[0] + s * a[0], r[1] + s * a[1], r[2] + s * a[2]);
}
static inline void seam_v3_cross(double *r, const double *a, const double *b)
{
    seam_v3_set(r, a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]);
}

/* ---- 3x3 matrices, row-major ---- */
/* r = M a */
static inline void seam_m3_mul_v(double *r, const double *M, const double *a)
{
    seam_v3_set(r, M[0] * a[0] + M[1] * a[1] + M[2] * a[2], M[3] * a[0] + M[4] * a[1] + M[5] * a[2],
                M[6] * a[0] + M[7] * a[1] + M[8] * a[2]);
}
/* r = M^T a */
static inline void seam_m3_mul_tv(double *r, const double *M, const double *a)
{
    seam_v3_set(r, M[0] * a[0] + M[3] * a[1] + M[6] * a[2], M[1] * a[0] + M[4] * a[1] + M[7] * a[2],
                M[2] * a[0] + M[5] * a[1] + M[8] * a[2]);
}

#endif
