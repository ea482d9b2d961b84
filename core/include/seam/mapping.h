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

#ifdef __cplusplus
}
#endif

#endif
