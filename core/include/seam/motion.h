/* Rigid motions of point sets: the exponential and logarithm maps between a
 * rotation vector and a rotation matrix, and the rigid motion that best
 * carries a body's points (Akbay 2.3.4: the reduced model on a rigid body's
 * own coordinates, B = [t, w] with w = log of a rotation, following Park et
 * al.). Rotations are 3 x 3 row-major; in 2D the rotation vector is the one
 * angle about z and the matrices turn about z. */
#ifndef SEAM_MOTION_H
#define SEAM_MOTION_H

#include <stdbool.h>
#include <stddef.h>

/* R = exp(w): dim 2, the turn by w[0] about z; dim 3, Rodrigues' formula. */
void seam_rotation_exp(int dim, const double *w, double R[9]);
/* w = log(R), the rotation vector of angle in [0, pi] (dim 2: the angle in
 * (-pi, pi]); R must be a rotation. */
void seam_rotation_log(int dim, const double R[9], double *w);

/* The rigid motion x_i = c + R r_i that fits n points X (n x dim) to the
 * body-frame arms r (n x 3, z 0 in 2D) in the least-squares sense, equal
 * weights (2D: the angle of the summed cross and dot products; 3D: Horn's
 * quaternion, the eigenvector of the largest eigenvalue of a 4 x 4
 * symmetric matrix). Exact when X is a rigid motion of r. False when the
 * arms do not fix a rotation (fewer than 2 distinct points in 2D, all on
 * one line in 3D) or the eigensolver failed. */
bool seam_rigid_fit(int dim, size_t n, const double *r, const double *X, double c[3], double R[9]);

#endif
