/* Fixed-radius neighbour search over points on a uniform bucket grid.
 *
 * The points are sorted into cubic buckets of side h >= r (coarsened when the
 * points' bounding box would need more than a few buckets per point), so
 * every point within r of a query lies in the buckets within ceil(r / h) of
 * the query's bucket. Used by the mapping kernels (seam/mapping.h) and by
 * particle fluids. Works for any dimension 1..3.
 *
 * The grid borrows the positions: X must stay valid and unchanged while the
 * grid is queried. Queries only read the grid, so they may run from several
 * threads at once. */
#ifndef SEAM_NEIGHBOURS_H
#define SEAM_NEIGHBOURS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct seam_neighbours seam_neighbours;

/* A grid over n points X (interleaved, dim components) for queries of radius
 * up to r. It has at most 4 n + 64 buckets, whatever the positions, so its
 * memory and its build time are linear in n. Returns NULL for invalid
 * arguments (dim outside 1..3, r not a positive number) and for positions
 * no grid can hold: an infinite one, or a span along one axis past the
 * largest double (-1e308 and 1e308). n = 0 is allowed; NaN positions land in
 * the first bucket and are never found. */
seam_neighbours *seam_neighbours_new(int dim, size_t n, const double *X, double r);
void seam_neighbours_destroy(seam_neighbours **self_p);

size_t seam_neighbours_count(const seam_neighbours *self);

/* Called for each point i within the query radius, with its squared distance. */
typedef void (*seam_neighbour_fn)(void *ctx, size_t i, double d2);

/* Visit every point with |X_i - x|^2 <= r^2 (r no larger than the grid's), bucket
 * by bucket (z slowest, x fastest) and in point order within a bucket. Any
 * finite x is allowed (one far off the grid visits nothing); a non-finite x
 * visits nothing. A larger r is answered too, by scanning more buckets (at
 * most all of them). */
void seam_neighbours_visit(const seam_neighbours *self, const double *x, double r,
                           seam_neighbour_fn fn, void *ctx);

/* The points with |X_i - x|^2 <= r^2: up to cap indices (and squared distances
 * when d2 is not NULL) in the order of visit. Returns how many there are,
 * which may exceed cap (then only the first cap were written). */
size_t seam_neighbours_find(const seam_neighbours *self, const double *x, double r,
                            size_t *idx, double *d2, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
