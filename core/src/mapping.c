/* Normalized kernel weights W of Akbay eq. 4.6; the points within r of each
 * sample come from the core neighbour grid (seam/neighbours.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/mapping.h"
#include "seam/neighbours.h"

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

/* Adds the unnormalized weights of one sample's neighbours to its row. */
typedef struct row_ctx {
    double r, sum;
    seam_triplets *t;
    size_t row;
} row_ctx;

static void add_weight(void *p, size_t i, double d2)
{
    row_ctx *c = p;
    double w = seam_mapping_kernel(sqrt(d2), c->r);
    if (w > 0.0) {
        seam_triplets_add(c->t, c->row, i, w);
        c->sum += w;
    }
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
    seam_neighbours *B = seam_neighbours_new(dim, n_points, X, r);
    if (!B)
        return NULL;
    seam_triplets *t = seam_triplets_new(n_samples, n_points, 8 * n_samples + 1);
    double *rowsum = SEAM_NEW_N(double, n_samples);
    size_t empty = 0;
    for (size_t f = 0; f < n_samples; f++) {
        row_ctx c = {r, 0.0, t, f};
        seam_neighbours_visit(B, S + f * (size_t)dim, r, add_weight, &c);
        rowsum[f] = c.sum;
        empty += rowsum[f] > 0.0 ? 0 : 1;
    }
    seam_neighbours_destroy(&B);
    seam_mapping *self = SEAM_NEW(seam_mapping);
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
