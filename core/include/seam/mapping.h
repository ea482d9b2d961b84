/* Normalized kernel weights between interface points and sample locations
 * (fluid faces, particles): W of Akbay eq. 4.6,
 *
 *     W_fi = w_fi / sum_j w_fj,   w_fi = w(|x_i - x_f| / r),
 *
 * with a spherical cubic kernel of support radius r (dx <= r <= 2 dx in the
 * thesis). Each row of W sums to one, so W interpolates interface values to
 * the samples (U = W V, eq. 4.5) and W^T distributes sample values back to
 * the points with their total preserved (F = W^T f). W is stored sparsely
 * (rows = samples, columns = points). Works for any dimension 1..3. */
#ifndef SEAM_MAPPING_H
#define SEAM_MAPPING_H

#include <stddef.h>

#include "seam/plugin.h"
#include "seam/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct seam_mapping seam_mapping;

/* The spherical cubic kernel (cubic B-spline) at distance d for support
 * radius r: positive for d < r, zero beyond; w(0) = 1. */
double seam_mapping_kernel(double d, double r);

/* W from n_points positions X to n_samples positions S (both interleaved,
 * `dim` components). A sample with no point within r gets an empty row;
 * their number is returned in *n_empty (may be NULL). Returns NULL only
 * for invalid arguments (dim outside 1..3, r not a positive number, a
 * position not finite). */
seam_mapping *seam_mapping_new(int dim, size_t n_points, const double *X,
                               size_t n_samples, const double *S, double r,
                               size_t *n_empty);
void seam_mapping_destroy(seam_mapping **self_p);

/* The weights (borrowed; rows = samples, columns = points). */
const seam_csr *seam_mapping_weights(const seam_mapping *self);
/* Whether sample s has at least one point within the radius. */
int seam_mapping_covered(const seam_mapping *self, size_t s);

/* u = W v: ncomp values per point in v -> ncomp values per sample in u. */
void seam_mapping_interpolate(const seam_mapping *self, int ncomp, const double *v, double *u);
/* F = W^T f: ncomp values per sample -> ncomp values per point (overwritten).
 * The sum over points equals the sum over covered samples. */
void seam_mapping_distribute(const seam_mapping *self, int ncomp, const double *f, double *F);

/* ---- surface samples ------------------------------------------------------
 * Points on the interface's elements about `spacing` apart, for particle
 * fluids whose boundary needs samples denser than the solid's points (Akbay
 * 3.3: boundary particles on the solid surface). Each sample is a fixed
 * barycentric combination of its element's points (rows of S sum to one), so
 * it moves with them: x_s = S X, v_s = S V, and F = S^T f hands sample forces
 * to the points keeping their sum and, the weights being barycentric, their
 * moment about any point. */
typedef struct seam_samples seam_samples;

/* The samples of iface's elements at positions X (n_points * iface->dim;
 * iface->X when NULL): every interface point; in 2D the points splitting
 * each segment into ceil(L / spacing) equal parts; in 3D the same on every
 * edge (an edge two triangles share is sampled once) and, inside each
 * triangle, the off-edge nodes of its barycentric lattice of order
 * ceil(longest edge / spacing). An interface without elements gets its
 * points only. NULL for invalid arguments (dim not 2 or 3 with elements of
 * dim nodes, spacing not a positive number, an element naming a point that
 * does not exist) only. */
seam_samples *seam_samples_new(const seam_interface *iface, const double *X, double spacing);
void seam_samples_destroy(seam_samples **self_p);
size_t seam_samples_count(const seam_samples *self);
/* S (borrowed; rows = samples, columns = interface points). */
const seam_csr *seam_samples_weights(const seam_samples *self);
/* u = S v: ncomp values per point -> per sample. */
void seam_samples_interpolate(const seam_samples *self, int ncomp, const double *v, double *u);
/* F = S^T f: ncomp values per sample -> per point (overwritten). */
void seam_samples_distribute(const seam_samples *self, int ncomp, const double *f, double *F);

#ifdef __cplusplus
}
#endif

#endif
