/* Samples on interface elements (seam/mapping.h): barycentric combinations
 * of each element's points, about a given spacing apart. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/mapping.h"

struct seam_samples {
    size_t n_points, n_samples;
    seam_csr *S;
};

static double distance(int dim, const double *a, const double *b)
{
    double d2 = 0.0;
    for (int d = 0; d < dim; d++)
        d2 += (a[d] - b[d]) * (a[d] - b[d]);
    return sqrt(d2);
}

/* Pieces of a length at the spacing: at least one. */
static long pieces(double length, double spacing)
{
    double m = ceil(length / spacing - 1e-9);
    return m < 1.0 ? 1 : m > 1e6 ? 1000000 : (long)m;
}

/* One edge of a triangle, its points in increasing order, for sampling each edge once. */
typedef struct edge {
    int32_t a, b;
} edge;

static int edge_cmp(const void *x, const void *y)
{
    const edge *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* Samples splitting the segment (a, b) into m equal parts, its ends excluded
 * (t NULL: only counted). */
static void add_segment(seam_triplets *t, size_t *row, int32_t a, int32_t b, long m)
{
    for (long k = 1; k < m; k++, (*row)++) {
        double s = (double)k / (double)m;
        if (t) {
            seam_triplets_add(t, *row, (size_t)a, 1.0 - s);
            seam_triplets_add(t, *row, (size_t)b, s);
        }
    }
}

/* Every sample's weights into t (NULL: count only); the edges of a 3D
 * interface come sorted and unique. Returns the number of samples. */
static size_t make_samples(const seam_interface *iface, const double *X, double spacing, const edge *edges,
                           size_t n_edges, seam_triplets *t)
{
    size_t np = iface->n_points, ne = iface->n_elems, row = 0;
    const int32_t *el = iface->elems;
    for (; row < np; row++)
        if (t)
            seam_triplets_add(t, row, row, 1.0);
    if (iface->dim == 2) {
        for (size_t e = 0; e < ne; e++) {
            int32_t a = el[2 * e], b = el[2 * e + 1];
            add_segment(t, &row, a, b, pieces(distance(2, X + 2 * (size_t)a, X + 2 * (size_t)b), spacing));
        }
        return row;
    }
    for (size_t k = 0; k < n_edges; k++) {
        const double *xa = X + 3 * (size_t)edges[k].a, *xb = X + 3 * (size_t)edges[k].b;
        add_segment(t, &row, edges[k].a, edges[k].b, pieces(distance(3, xa, xb), spacing));
    }
    /* Inside each triangle: lattice nodes (i, j, m - i - j) / m with all three positive. */
    for (size_t e = 0; e < ne; e++) {
        const int32_t *v = el + 3 * e;
        double longest = 0.0;
        for (int k = 0; k < 3; k++)
            longest = fmax(longest, distance(3, X + 3 * (size_t)v[k], X + 3 * (size_t)v[(k + 1) % 3]));
        long m = pieces(longest, spacing);
        for (long i = 1; i < m; i++)
            for (long j = 1; i + j < m; j++, row++)
                if (t) {
                    seam_triplets_add(t, row, (size_t)v[0], (double)i / (double)m);
                    seam_triplets_add(t, row, (size_t)v[1], (double)j / (double)m);
                    seam_triplets_add(t, row, (size_t)v[2], (double)(m - i - j) / (double)m);
                }
    }
    return row;
}

seam_samples *seam_samples_new(const seam_interface *iface, const double *X, double spacing)
{
    if (!iface || !(spacing > 0.0) || !isfinite(spacing))
        return NULL;
    int dim = iface->dim;
    size_t np = iface->n_points, ne = iface->n_elems;
    if (!X)
        X = iface->X;
    if (ne && ((dim != 2 && dim != 3) || iface->nodes_per_elem != dim || !iface->elems))
        return NULL;
    if (np && !X)
        return NULL;
    size_t npe = (size_t)iface->nodes_per_elem;
    for (size_t k = 0; k < ne * npe; k++)
        if (iface->elems[k] < 0 || (size_t)iface->elems[k] >= np)
            return NULL;
    edge *edges = NULL;
    size_t n_edges = 0;
    if (dim == 3 && ne) {
        edges = seam_xmalloc_n(3 * ne, sizeof *edges);
        const int32_t *el = iface->elems;
        for (size_t e = 0; e < ne; e++)
            for (size_t k = 0; k < 3; k++) {
                int32_t a = el[3 * e + k], b = el[3 * e + (k + 1) % 3];
                edges[3 * e + k] = (edge){a < b ? a : b, a < b ? b : a};
            }
        qsort(edges, 3 * ne, sizeof *edges, edge_cmp);
        for (size_t k = 0; k < 3 * ne; k++)
            if (k == 0 || edge_cmp(&edges[k], &edges[n_edges - 1]) != 0)
                edges[n_edges++] = edges[k];
    }
    size_t rows = make_samples(iface, X, spacing, edges, n_edges, NULL);
    seam_triplets *t = seam_triplets_new(rows, np, 3 * rows + 1);
    seam_samples *self = SEAM_NEW(seam_samples);
    make_samples(iface, X, spacing, edges, n_edges, t);
    self->S = seam_csr_from_triplets(t);
    free(edges);
    seam_triplets_destroy(&t);
    self->n_points = np;
    self->n_samples = rows;
    return self;
}

void seam_samples_destroy(seam_samples **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_csr_destroy(&(*self_p)->S);
    free(*self_p);
    *self_p = NULL;
}

size_t seam_samples_count(const seam_samples *self) { return self->n_samples; }

const seam_csr *seam_samples_weights(const seam_samples *self) { return self->S; }

void seam_samples_interpolate(const seam_samples *self, int ncomp, const double *v, double *u)
{
    const seam_csr *S = self->S;
    size_t nc = (size_t)ncomp;
    for (size_t s = 0; s < self->n_samples; s++)
        for (size_t c = 0; c < nc; c++) {
            double acc = 0.0;
            for (int64_t k = S->row_ptr[s]; k < S->row_ptr[s + 1]; k++)
                acc += S->val[k] * v[(size_t)S->col[k] * nc + c];
            u[s * nc + c] = acc;
        }
}

void seam_samples_distribute(const seam_samples *self, int ncomp, const double *f, double *F)
{
    const seam_csr *S = self->S;
    size_t nc = (size_t)ncomp;
    memset(F, 0, self->n_points * nc * sizeof *F);
    for (size_t s = 0; s < self->n_samples; s++)
        for (int64_t k = S->row_ptr[s]; k < S->row_ptr[s + 1]; k++)
            for (size_t c = 0; c < nc; c++)
                F[(size_t)S->col[k] * nc + c] += S->val[k] * f[s * nc + c];
}
