/* Normalized kernel weights W of Akbay eq. 4.6, found through a uniform
 * bucket grid of the points with bucket size at least r (only the buckets
 * within r of a sample can hold points within r). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/mapping.h"

struct seam_mapping {
    int dim;
    size_t n_points, n_samples;
    seam_csr *W;
};

double seam_mapping_kernel(double d, double r)
{
    /* Cubic B-spline in q = 2 d / r, scaled so that w(0) = 1 and w(r) = 0. */
    double q = 2.0 * d / r;
    if (q >= 2.0)
        return 0.0;
    if (q >= 1.0) {
        double t = 2.0 - q;
        return 0.25 * t * t * t;
    }
    return 1.0 - 1.5 * q * q + 0.75 * q * q * q;
}

/* Bucket grid over the points. */
typedef struct buckets {
    int dim;
    double lo[3], h;
    long n[3];
    size_t *start;   /* n[0]*n[1]*n[2] + 1 */
    size_t *item;    /* point indices sorted by bucket */
} buckets;

static long bucket_coord(const buckets *B, int d, double x)
{
    long c = (long)floor((x - B->lo[d]) / B->h);
    return c;
}

static size_t bucket_index(const buckets *B, const long c[3])
{
    return (size_t)c[0] + (size_t)B->n[0] * ((size_t)c[1] + (size_t)B->n[1] * (size_t)c[2]);
}

static int buckets_build(buckets *B, int dim, size_t n, const double *X, double r)
{
    B->dim = dim;
    double hi[3] = {0, 0, 0};
    for (int d = 0; d < 3; d++) {
        B->lo[d] = 0.0;
        B->n[d] = 1;
    }
    for (int d = 0; d < dim; d++) {
        B->lo[d] = n ? X[d] : 0.0;
        hi[d] = B->lo[d];
        for (size_t i = 0; i < n; i++) {
            B->lo[d] = fmin(B->lo[d], X[i * (size_t)dim + (size_t)d]);
            hi[d] = fmax(hi[d], X[i * (size_t)dim + (size_t)d]);
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
        B->n[d] = (long)floor((hi[d] - B->lo[d]) / B->h) + 1;
    size_t nb = (size_t)B->n[0] * (size_t)B->n[1] * (size_t)B->n[2];
    B->start = calloc(nb + 1, sizeof *B->start);
    B->item = malloc((n ? n : 1) * sizeof *B->item);
    size_t *slot = malloc((n ? n : 1) * sizeof *slot);
    size_t *fill = malloc(nb * sizeof *fill);
    if (!B->start || !B->item || !slot || !fill) {
        free(B->start);
        free(B->item);
        free(slot);
        free(fill);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        long c[3] = {0, 0, 0};
        for (int d = 0; d < dim; d++) {
            c[d] = bucket_coord(B, d, X[i * (size_t)dim + (size_t)d]);
            if (c[d] >= B->n[d])
                c[d] = B->n[d] - 1;
        }
        slot[i] = bucket_index(B, c);
        B->start[slot[i] + 1]++;
    }
    for (size_t b = 0; b < nb; b++)
        B->start[b + 1] += B->start[b];
    memcpy(fill, B->start, nb * sizeof *fill);
    for (size_t i = 0; i < n; i++)
        B->item[fill[slot[i]]++] = i;
    free(fill);
    free(slot);
    return 0;
}

static void buckets_free(buckets *B)
{
    free(B->start);
    free(B->item);
}

/* Add the unnormalized weights of one sample's neighbours; returns their sum. */
static double sample_weights(const buckets *B, size_t n_points, const double *X, const double *s,
                             double r, seam_triplets *t, size_t row)
{
    (void)n_points;
    int dim = B->dim;
    long c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
    for (int d = 0; d < dim; d++) {
        long c = bucket_coord(B, d, s[d]);
        long reach = (long)ceil(r / B->h);
        c0[d] = c - reach < 0 ? 0 : c - reach;
        c1[d] = c + reach >= B->n[d] ? B->n[d] - 1 : c + reach;
        if (c0[d] > c1[d])
            return 0.0;
    }
    double sum = 0.0;
    long c[3];
    for (c[2] = c0[2]; c[2] <= c1[2]; c[2]++)
        for (c[1] = c0[1]; c[1] <= c1[1]; c[1]++)
            for (c[0] = c0[0]; c[0] <= c1[0]; c[0]++) {
                size_t b = bucket_index(B, c);
                for (size_t k = B->start[b]; k < B->start[b + 1]; k++) {
                    size_t i = B->item[k];
                    double d2 = 0.0;
                    for (int d = 0; d < dim; d++) {
                        double e = X[i * (size_t)dim + (size_t)d] - s[d];
                        d2 += e * e;
                    }
                    double w = seam_mapping_kernel(sqrt(d2), r);
                    if (w > 0.0) {
                        seam_triplets_add(t, row, i, w);
                        sum += w;
                    }
                }
            }
    return sum;
}

seam_mapping *seam_mapping_new(int dim, size_t n_points, const double *X,
                               size_t n_samples, const double *S, double r,
                               size_t *n_empty)
{
    if (dim < 1 || dim > 3 || !(r > 0.0) || !isfinite(r))
        return NULL;
    for (size_t k = 0; k < n_points * (size_t)dim; k++)
        if (!isfinite(X[k]))
            return NULL;
    for (size_t k = 0; k < n_samples * (size_t)dim; k++)
        if (!isfinite(S[k]))
            return NULL;
    buckets B;
    if (buckets_build(&B, dim, n_points, X, r) != 0)
        return NULL;
    seam_triplets *t = seam_triplets_new(n_samples, n_points, 8 * n_samples + 1);
    double *rowsum = calloc(n_samples ? n_samples : 1, sizeof *rowsum);
    size_t empty = 0;
    for (size_t f = 0; f < n_samples; f++) {
        rowsum[f] = n_points ? sample_weights(&B, n_points, X, S + f * (size_t)dim, r, t, f) : 0.0;
        empty += rowsum[f] > 0.0 ? 0 : 1;
    }
    buckets_free(&B);
    seam_mapping *self = calloc(1, sizeof *self);
    self->dim = dim;
    self->n_points = n_points;
    self->n_samples = n_samples;
    self->W = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    /* Eq. 4.6: W_fi = w_fi / sum_j w_fj. */
    for (size_t f = 0; f < n_samples; f++)
        for (int64_t k = self->W->row_ptr[f]; k < self->W->row_ptr[f + 1]; k++)
            self->W->val[k] /= rowsum[f];
    free(rowsum);
    if (n_empty)
        *n_empty = empty;
    return self;
}

void seam_mapping_destroy(seam_mapping **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_csr_destroy(&(*self_p)->W);
    free(*self_p);
    *self_p = NULL;
}

const seam_csr *seam_mapping_weights(const seam_mapping *self) { return self->W; }

int seam_mapping_covered(const seam_mapping *self, size_t s)
{
    return self->W->row_ptr[s + 1] > self->W->row_ptr[s];
}

void seam_mapping_interpolate(const seam_mapping *self, int ncomp, const double *v, double *u)
{
    const seam_csr *W = self->W;
    for (size_t f = 0; f < self->n_samples; f++)
        for (int c = 0; c < ncomp; c++) {
            double acc = 0.0;
            for (int64_t k = W->row_ptr[f]; k < W->row_ptr[f + 1]; k++)
                acc += W->val[k] * v[(size_t)W->col[k] * (size_t)ncomp + (size_t)c];
            u[f * (size_t)ncomp + (size_t)c] = acc;
        }
}

void seam_mapping_distribute(const seam_mapping *self, int ncomp, const double *f, double *F)
{
    const seam_csr *W = self->W;
    memset(F, 0, self->n_points * (size_t)ncomp * sizeof *F);
    for (size_t s = 0; s < self->n_samples; s++)
        for (int64_t k = W->row_ptr[s]; k < W->row_ptr[s + 1]; k++)
            for (int c = 0; c < ncomp; c++)
                F[(size_t)W->col[k] * (size_t)ncomp + (size_t)c] +=
                    W->val[k] * f[s * (size_t)ncomp + (size_t)c];
}
