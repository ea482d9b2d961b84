/* Uniform bucket grid for fixed-radius neighbour queries (seam/neighbours.h):
 * a counting sort of the points by bucket, then a scan of the buckets within
 * reach of each query. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/neighbours.h"

struct seam_neighbours {
    int dim;
    size_t n;
    const double *X;   /* borrowed */
    double lo[3], h;
    long nb[3];
    size_t *start;     /* nb[0]*nb[1]*nb[2] + 1 */
    size_t *item;      /* point indices sorted by bucket */
};

/* The bucket of coordinate x along d, clamped to the grid (a NaN position
 * lands in the first bucket): converted only once in range, so no position
 * overflows a long. */
static long bucket_coord(const seam_neighbours *B, int d, double x)
{
    double q = floor((x - B->lo[d]) / B->h);
    if (q >= (double)(B->nb[d] - 1))
        return B->nb[d] - 1;
    return q >= 0.0 ? (long)q : 0;
}

static size_t bucket_index(const seam_neighbours *B, const long c[3])
{
    return (size_t)c[0] + (size_t)B->nb[0] * ((size_t)c[1] + (size_t)B->nb[1] * (size_t)c[2]);
}

seam_neighbours *seam_neighbours_new(int dim, size_t n, const double *X, double r)
{
    if (dim < 1 || dim > 3 || !(r > 0.0) || !isfinite(r) || (n && !X))
        return NULL;
    seam_neighbours *B = SEAM_NEW(seam_neighbours);
    B->dim = dim;
    B->n = n;
    B->X = X;
    double hi[3] = {0, 0, 0};
    for (int d = 0; d < 3; d++) {
        B->lo[d] = 0.0;
        B->nb[d] = 1;
    }
    for (int d = 0; d < dim; d++) {
        B->lo[d] = n ? X[d] : 0.0;
        hi[d] = B->lo[d];
        for (size_t i = 0; i < n; i++) {
            B->lo[d] = fmin(B->lo[d], X[i * (size_t)dim + (size_t)d]);
            hi[d] = fmax(hi[d], X[i * (size_t)dim + (size_t)d]);
        }
        if (!isfinite(hi[d] - B->lo[d])) {   /* an infinite position, or a span past DBL_MAX: no grid holds it */
            free(B);
            return NULL;
        }
    }
    /* Buckets of size r, coarsened until there are at most a few per point. */
    double limit = 4.0 * (double)n + 64.0, count;
    B->h = r;
    do {
        count = 1.0;
        for (int d = 0; d < dim; d++)
            count *= floor((hi[d] - B->lo[d]) / B->h) + 1.0;
        if (count > limit)
            B->h *= 2.0;
    } while (count > limit);
    for (int d = 0; d < dim; d++)
        B->nb[d] = (long)floor((hi[d] - B->lo[d]) / B->h) + 1;
    size_t nbk = (size_t)B->nb[0] * (size_t)B->nb[1] * (size_t)B->nb[2];
    B->start = SEAM_NEW_N(size_t, nbk + 1);
    B->item = seam_xmalloc_n(n, sizeof *B->item);
    size_t *slot = seam_xmalloc_n(n, sizeof *slot);
    size_t *fill = seam_xmalloc_n(nbk, sizeof *fill);
    for (size_t i = 0; i < n; i++) {
        long c[3] = {0, 0, 0};
        for (int d = 0; d < dim; d++)
            c[d] = bucket_coord(B, d, X[i * (size_t)dim + (size_t)d]);
        slot[i] = bucket_index(B, c);
        B->start[slot[i] + 1]++;
    }
    for (size_t b = 0; b < nbk; b++)
        B->start[b + 1] += B->start[b];
    memcpy(fill, B->start, nbk * sizeof *fill);
    for (size_t i = 0; i < n; i++)
        B->item[fill[slot[i]]++] = i;
    free(fill);
    free(slot);
    return B;
}

void seam_neighbours_destroy(seam_neighbours **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->start);
    free((*self_p)->item);
    free(*self_p);
    *self_p = NULL;
}

size_t seam_neighbours_count(const seam_neighbours *self) { return self->n; }

void seam_neighbours_visit(const seam_neighbours *self, const double *x, double r,
                           seam_neighbour_fn fn, void *ctx)
{
    const seam_neighbours *B = self;
    int dim = B->dim;
    if (!B->n)
        return;
    long c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
    /* The bucket range in doubles, clamped to the grid before it becomes a
     * long: a query far off the grid or a radius of many buckets overflows
     * nothing. A range that is NaN (infinite reach from an overflowed
     * offset) scans the whole grid, where the exact distance decides. */
    double reach = ceil(r / B->h);
    for (int d = 0; d < dim; d++) {
        if (!isfinite(x[d]))
            return;
        double c = floor((x[d] - B->lo[d]) / B->h), first = c - reach, last = c + reach, top = (double)(B->nb[d] - 1);
        if (last < 0.0 || first > top)
            return;   /* every point is farther than r along d */
        c0[d] = first > 0.0 ? (long)first : 0;
        c1[d] = last < top ? (long)last : B->nb[d] - 1;
    }
    double r2 = r * r;
    long c[3];
    for (c[2] = c0[2]; c[2] <= c1[2]; c[2]++)
        for (c[1] = c0[1]; c[1] <= c1[1]; c[1]++)
            for (c[0] = c0[0]; c[0] <= c1[0]; c[0]++) {
                size_t b = bucket_index(B, c);
                for (size_t k = B->start[b]; k < B->start[b + 1]; k++) {
                    size_t i = B->item[k];
                    double d2 = 0.0;
                    for (int d = 0; d < dim; d++) {
                        double e = B->X[i * (size_t)dim + (size_t)d] - x[d];
                        d2 += e * e;
                    }
                    if (d2 <= r2)
                        fn(ctx, i, d2);
                }
            }
}

typedef struct find_ctx {
    size_t *idx;
    double *d2;
    size_t cap, count;
} find_ctx;

static void find_one(void *p, size_t i, double d2)
{
    find_ctx *f = p;
    if (f->count < f->cap) {
        f->idx[f->count] = i;
        if (f->d2)
            f->d2[f->count] = d2;
    }
    f->count++;
}

size_t seam_neighbours_find(const seam_neighbours *self, const double *x, double r,
                            size_t *idx, double *d2, size_t cap)
{
    find_ctx f = {idx, d2, cap, 0};
    seam_neighbours_visit(self, x, r, find_one, &f);
    return f.count;
}
