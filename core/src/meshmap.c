/* Mappings between meshes that do not share points (seam/meshmap.h):
 * nearest neighbour and nearest projection by an exact search on bucket grids
 * of growing radius, radial basis functions by dense LAPACK solves that give
 * the explicit interpolation matrix M (dst x src). Formulas: docs/mapping.md. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "seam/alloc.h"
#include "seam/meshmap.h"
#include "seam/neighbours.h"

/* Largest src mesh an RBF mapping takes: its dense system holds n^2 doubles (2 GiB). */
#define RBF_MAX_SRC 16384
/* preCICE's cut-off of the gaussian: exp(-(s r)^2) is taken as zero below this value. */
#define GAUSSIAN_CUTOFF 1e-9

static void fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- CSR rows appended one after another ------------------------------- */

typedef struct rows_builder {
    seam_csr *M;
    size_t cap;
} rows_builder;

static void rows_begin(rows_builder *b, size_t rows, size_t cols, size_t cap)
{
    b->M = SEAM_NEW(seam_csr);
    b->M->rows = rows;
    b->M->cols = cols;
    b->M->row_ptr = SEAM_NEW_N(int64_t, rows + 1);
    b->cap = cap ? cap : 1;
    b->M->col = seam_xmalloc_n(b->cap, sizeof *b->M->col);
    b->M->val = seam_xmalloc_n(b->cap, sizeof *b->M->val);
}

static void rows_add(rows_builder *b, size_t j, double v)
{
    if (b->M->nnz == b->cap) {
        b->cap *= 2;
        b->M->col = seam_xrealloc_n(b->M->col, b->cap, sizeof *b->M->col);
        b->M->val = seam_xrealloc_n(b->M->val, b->cap, sizeof *b->M->val);
    }
    b->M->col[b->M->nnz] = (int64_t)j;
    b->M->val[b->M->nnz] = v;
    b->M->nnz++;
}

static void rows_end(rows_builder *b, size_t i)
{
    b->M->row_ptr[i + 1] = (int64_t)b->M->nnz;
}

static double dist2_points(int dim, const double *a, const double *b)
{
    double s = 0.0;
    for (int d = 0; d < dim; d++)
        s += (a[d] - b[d]) * (a[d] - b[d]);
    return s;
}

/* ---- exact nearest search over items with a bounding point --------------- */

/* Items (points, or elements by their centroids) on bucket grids of radius
 * r0 2^k, built when first needed. An item whose exact distance is d has its
 * key point within d + slack, so a query that found its best d at level k
 * with d + slack <= r_k has seen every item that could be nearer. */
#define SEARCH_LEVELS 64

typedef struct nearest_search {
    int dim;
    size_t n;
    const double *key;
    double lo[3], hi[3], diam, r0;
    seam_neighbours *level[SEARCH_LEVELS];
} nearest_search;

static void search_init(nearest_search *S, int dim, size_t n, const double *key)
{
    memset(S, 0, sizeof *S);
    S->dim = dim;
    S->n = n;
    S->key = key;
    for (int d = 0; d < dim; d++) {
        S->lo[d] = S->hi[d] = key[d];
        for (size_t i = 1; i < n; i++) {
            S->lo[d] = fmin(S->lo[d], key[i * (size_t)dim + (size_t)d]);
            S->hi[d] = fmax(S->hi[d], key[i * (size_t)dim + (size_t)d]);
        }
    }
    double vol = 1.0, d2 = 0.0;
    int k = 0;
    for (int d = 0; d < dim; d++) {
        double e = S->hi[d] - S->lo[d];
        d2 += e * e;
        if (e > 0.0) {
            vol *= e;
            k++;
        }
    }
    S->diam = sqrt(d2);
    /* Half the mean spacing over the extents the points fill. */
    S->r0 = k ? 0.5 * pow(vol / (double)n, 1.0 / k) : 1.0;
    if (!(S->r0 > 0.0) || !isfinite(S->r0))
        S->r0 = S->diam > 0.0 ? S->diam : 1.0;
}

static void search_free(nearest_search *S)
{
    for (int k = 0; k < SEARCH_LEVELS; k++)
        seam_neighbours_destroy(&S->level[k]);
}

/* Distance from x to the keys' bounding box plus its diameter: a radius that reaches every key. */
static double search_reach_all(const nearest_search *S, const double *x)
{
    double o2 = 0.0;
    for (int d = 0; d < S->dim; d++) {
        double o = fmax(0.0, fmax(S->lo[d] - x[d], x[d] - S->hi[d]));
        o2 += o * o;
    }
    return sqrt(o2) + S->diam;
}

typedef struct candidate_ctx {
    double (*dist2)(void *ctx, size_t i, const double *x);   /* exact squared distance of item i */
    void *ctx;
    const double *x;
    size_t best;
    double best_d2;
} candidate_ctx;

static void visit_candidate(void *p, size_t i, double key_d2)
{
    candidate_ctx *c = p;
    double d2 = c->dist2 ? c->dist2(c->ctx, i, c->x) : key_d2;
    if (d2 < c->best_d2 || (d2 == c->best_d2 && i < c->best)) {   /* ties: lowest index */
        c->best_d2 = d2;
        c->best = i;
    }
}

/* The item nearest to x (exact distance given by dist2, or the key's when NULL). */
static size_t search_nearest(nearest_search *S, const double *x, double slack,
                             double (*dist2)(void *, size_t, const double *), void *ctx)
{
    candidate_ctx c = {dist2, ctx, x, S->n, INFINITY};
    double all = search_reach_all(S, x) + slack;
    double r = S->r0;
    for (int k = 0; k < SEARCH_LEVELS; k++, r *= 2.0) {
        if (!S->level[k])
            S->level[k] = seam_neighbours_new(S->dim, S->n, S->key, r);
        seam_neighbours_visit(S->level[k], x, r, visit_candidate, &c);
        if (r >= all || (c.best < S->n && sqrt(c.best_d2) + slack <= r))
            return c.best;
    }
    for (size_t i = 0; i < S->n; i++)   /* x beyond every level's reach */
        visit_candidate(&c, i, dist2_points(S->dim, S->key + i * (size_t)S->dim, x));
    return c.best;
}

/* ---- nearest neighbour ------------------------------------------------- */

static seam_csr *nearest_neighbour(const seam_meshmap_mesh *src, const seam_meshmap_mesh *dst)
{
    nearest_search S;
    search_init(&S, src->dim, src->n, src->X);
    rows_builder b;
    rows_begin(&b, dst->n, src->n, dst->n);
    for (size_t i = 0; i < dst->n; i++) {
        size_t j = search_nearest(&S, dst->X + i * (size_t)dst->dim, 0.0, NULL, NULL);
        rows_add(&b, j, 1.0);
        rows_end(&b, i);
    }
    search_free(&S);
    return b.M;
}

/* ---- nearest projection ------------------------------------------------ */

/* A segment (nv = 2) or triangle (nv = 3) of src; quads are split in two. */
typedef struct facet {
    int nv;
    int v[3];
} facet;

typedef struct projection {
    int dim;
    const double *X;
    const facet *f;
} projection;

static double dot(int dim, const double *a, const double *b)
{
    double s = 0.0;
    for (int d = 0; d < dim; d++)
        s += a[d] * b[d];
    return s;
}

/* Closest point of segment ab to p as weights (w[0] on a, w[1] on b). */
static void closest_on_segment(int dim, const double *a, const double *b, const double *p, double *w)
{
    double ab[3], ap[3];
    for (int d = 0; d < dim; d++) {
        ab[d] = b[d] - a[d];
        ap[d] = p[d] - a[d];
    }
    double len2 = dot(dim, ab, ab);
    double t = len2 > 0.0 ? dot(dim, ap, ab) / len2 : 0.0;
    t = fmin(1.0, fmax(0.0, t));
    w[0] = 1.0 - t;
    w[1] = t;
}

static double weighted_dist2(int dim, const double *const *v, int nv, const double *w, const double *p)
{
    double d2 = 0.0;
    for (int d = 0; d < dim; d++) {
        double q = 0.0;
        for (int k = 0; k < nv; k++)
            q += w[k] * v[k][d];
        d2 += (p[d] - q) * (p[d] - q);
    }
    return d2;
}

/* Closest point of triangle abc (3D) to p as barycentric weights, by the
 * Voronoi regions of its vertices, edges and face; a triangle with no area
 * takes the closest of its edges. */
static void closest_on_triangle(const double *a, const double *b, const double *c, const double *p, double *w)
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int d = 0; d < 3; d++) {
        ab[d] = b[d] - a[d];
        ac[d] = c[d] - a[d];
        ap[d] = p[d] - a[d];
        bp[d] = p[d] - b[d];
        cp[d] = p[d] - c[d];
    }
    double nrm[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]};
    double scale = fmax(dot(3, ab, ab), dot(3, ac, ac));
    if (!(dot(3, nrm, nrm) > 1e-24 * scale * scale)) {
        const double *v[3] = {a, b, c};
        double best = INFINITY;
        for (int e = 0; e < 3; e++) {
            double we[2], wt[3] = {0, 0, 0};
            closest_on_segment(3, v[e], v[(e + 1) % 3], p, we);
            wt[e] = we[0];
            wt[(e + 1) % 3] = we[1];
            double d2 = weighted_dist2(3, v, 3, wt, p);
            if (d2 < best) {
                best = d2;
                memcpy(w, wt, sizeof wt);
            }
        }
        return;
    }
    double d1 = dot(3, ab, ap), d2 = dot(3, ac, ap);
    double d3 = dot(3, ab, bp), d4 = dot(3, ac, bp);
    double d5 = dot(3, ab, cp), d6 = dot(3, ac, cp);
    double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    if (d1 <= 0.0 && d2 <= 0.0) {
        w[0] = 1.0, w[1] = 0.0, w[2] = 0.0;
    } else if (d3 >= 0.0 && d4 <= d3) {
        w[0] = 0.0, w[1] = 1.0, w[2] = 0.0;
    } else if (d6 >= 0.0 && d5 <= d6) {
        w[0] = 0.0, w[1] = 0.0, w[2] = 1.0;
    } else if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double t = d1 / (d1 - d3);
        w[0] = 1.0 - t, w[1] = t, w[2] = 0.0;
    } else if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double t = d2 / (d2 - d6);
        w[0] = 1.0 - t, w[1] = 0.0, w[2] = t;
    } else if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        w[0] = 0.0, w[1] = 1.0 - t, w[2] = t;
    } else {
        double s = 1.0 / (va + vb + vc);
        w[1] = vb * s;
        w[2] = vc * s;
        w[0] = 1.0 - w[1] - w[2];
    }
}

static double facet_project(const projection *P, size_t i, const double *x, double *w)
{
    const facet *f = &P->f[i];
    const double *v[3];
    for (int k = 0; k < f->nv; k++)
        v[k] = P->X + (size_t)f->v[k] * (size_t)P->dim;
    if (f->nv == 2)
        closest_on_segment(P->dim, v[0], v[1], x, w);
    else
        closest_on_triangle(v[0], v[1], v[2], x, w);
    return weighted_dist2(P->dim, v, f->nv, w, x);
}

static double facet_dist2(void *ctx, size_t i, const double *x)
{
    double w[3];
    return facet_project(ctx, i, x, w);
}

/* A quad's two triangles: its diagonals are the vertex pairing of largest
 * summed length (so any vertex order of a convex quad works), split along
 * the shorter diagonal. */
static void quad_split(const double *X, const int *q, facet *t)
{
    static const int pairing[3][4] = {{0, 2, 1, 3}, {0, 1, 2, 3}, {0, 3, 1, 2}};
    int best = 0;
    double best_len = -1.0, len[3][2];
    for (int k = 0; k < 3; k++) {
        for (int e = 0; e < 2; e++)
            len[k][e] = sqrt(dist2_points(3, X + 3 * (size_t)q[pairing[k][2 * e]], X + 3 * (size_t)q[pairing[k][2 * e + 1]]));
        if (len[k][0] + len[k][1] > best_len) {
            best_len = len[k][0] + len[k][1];
            best = k;
        }
    }
    const int *p = pairing[best];
    int e = len[best][0] <= len[best][1] ? 0 : 1;   /* the diagonal the triangles share */
    int d0 = q[p[2 * e]], d1 = q[p[2 * e + 1]], o0 = q[p[2 * (1 - e)]], o1 = q[p[2 * (1 - e) + 1]];
    t[0] = (facet){3, {d0, d1, o0}};
    t[1] = (facet){3, {d0, d1, o1}};
}

/* src's facets for the projection: edges in 2D; triangles and quads in 3D,
 * or its edges when it has neither. */
static facet *collect_facets(const seam_meshmap_mesh *src, size_t *nf)
{
    bool faces = src->dim == 3 && (src->n_triangles || src->n_quads);
    size_t n = faces ? src->n_triangles + 2 * src->n_quads : src->n_edges;
    facet *f = seam_xmalloc_n(n ? n : 1, sizeof *f);
    size_t k = 0;
    if (faces) {
        for (size_t t = 0; t < src->n_triangles; t++, k++)
            f[k] = (facet){3, {src->triangles[3 * t], src->triangles[3 * t + 1], src->triangles[3 * t + 2]}};
        for (size_t q = 0; q < src->n_quads; q++, k += 2)
            quad_split(src->X, src->quads + 4 * q, f + k);
    } else {
        for (size_t e = 0; e < src->n_edges; e++, k++)
            f[k] = (facet){2, {src->edges[2 * e], src->edges[2 * e + 1], 0}};
    }
    *nf = n;
    return f;
}

/* One row of weights on up to three vertices, sorted, repeated vertices summed. */
static void add_weights_row(rows_builder *b, const facet *f, const double *w)
{
    int idx[3];
    double val[3];
    int m = 0;
    for (int k = 0; k < f->nv; k++) {
        int a = 0;
        while (a < m && idx[a] != f->v[k])
            a++;
        if (a == m) {
            idx[m] = f->v[k];
            val[m++] = 0.0;
        }
        val[a] += w[k];
    }
    for (int a = 1; a < m; a++)
        for (int c = a; c > 0 && idx[c - 1] > idx[c]; c--) {
            int ti = idx[c];
            double tv = val[c];
            idx[c] = idx[c - 1], val[c] = val[c - 1];
            idx[c - 1] = ti, val[c - 1] = tv;
        }
    for (int a = 0; a < m; a++)
        if (val[a] != 0.0)
            rows_add(b, (size_t)idx[a], val[a]);
}

static seam_csr *nearest_projection(const seam_meshmap_mesh *src, const seam_meshmap_mesh *dst)
{
    size_t nf;
    facet *f = collect_facets(src, &nf);
    if (!nf) {
        free(f);
        return nearest_neighbour(src, dst);
    }
    int dim = src->dim;
    double *centroid = seam_xmalloc_n(nf * (size_t)dim, sizeof *centroid);
    double slack = 0.0;   /* largest distance from a facet's centroid to its vertices */
    for (size_t i = 0; i < nf; i++) {
        double *c = centroid + i * (size_t)dim;
        for (int d = 0; d < dim; d++) {
            c[d] = 0.0;
            for (int k = 0; k < f[i].nv; k++)
                c[d] += src->X[(size_t)f[i].v[k] * (size_t)dim + (size_t)d] / f[i].nv;
        }
        for (int k = 0; k < f[i].nv; k++)
            slack = fmax(slack, sqrt(dist2_points(dim, c, src->X + (size_t)f[i].v[k] * (size_t)dim)));
    }
    slack *= 1.0 + 1e-12;
    projection P = {dim, src->X, f};
    nearest_search S;
    search_init(&S, dim, nf, centroid);
    rows_builder b;
    rows_begin(&b, dst->n, src->n, 3 * dst->n);
    for (size_t i = 0; i < dst->n; i++) {
        const double *x = dst->X + i * (size_t)dim;
        size_t k = search_nearest(&S, x, slack, facet_dist2, &P);
        double w[3];
        facet_project(&P, k, x, w);
        add_weights_row(&b, &f[k], w);
        rows_end(&b, i);
    }
    search_free(&S);
    free(centroid);
    free(f);
    return b.M;
}

/* ---- radial basis functions -------------------------------------------- */

static bool basis_compact(seam_rbf_basis basis)
{
    return basis <= SEAM_RBF_COMPACT_TPS_C2;
}

/* Strictly positive definite bases (a Cholesky solve); the others are only
 * conditionally so and take a symmetric indefinite one. */
static bool basis_definite(seam_rbf_basis basis)
{
    return basis_compact(basis) || basis == SEAM_RBF_GAUSSIAN || basis == SEAM_RBF_INVERSE_MULTIQUADRICS;
}

typedef struct rbf_kernel {
    seam_rbf_basis basis;
    double inv_R;    /* compact: 1 / support radius */
    double s;        /* gaussian, multiquadrics: shape */
    double cut;      /* gaussian: zero beyond this distance */
    int live[3], nlive;
} rbf_kernel;

/* q^k by squaring (libm's pow dominates the matrix fill otherwise). */
static double ipow(double q, int k)
{
    double v = 1.0;
    for (; k; k >>= 1, q *= q)
        if (k & 1)
            v *= q;
    return v;
}

static double rbf_phi(const rbf_kernel *K, double r)
{
    double p = r * K->inv_R, q = 1.0 - p;
    switch (K->basis) {
    case SEAM_RBF_COMPACT_POLYNOMIAL_C0:
        return p >= 1.0 ? 0.0 : q * q;
    case SEAM_RBF_COMPACT_POLYNOMIAL_C2:
        return p >= 1.0 ? 0.0 : ipow(q, 4) * (4.0 * p + 1.0);
    case SEAM_RBF_COMPACT_POLYNOMIAL_C4:
        return p >= 1.0 ? 0.0 : ipow(q, 6) * (35.0 * p * p + 18.0 * p + 3.0);
    case SEAM_RBF_COMPACT_POLYNOMIAL_C6:
        return p >= 1.0 ? 0.0 : ipow(q, 8) * (32.0 * p * p * p + 25.0 * p * p + 8.0 * p + 1.0);
    case SEAM_RBF_COMPACT_POLYNOMIAL_C8:
        return p >= 1.0 ? 0.0
                        : ipow(q, 10) * (1287.0 * p * p * p * p + 1350.0 * p * p * p + 630.0 * p * p + 150.0 * p + 15.0);
    case SEAM_RBF_COMPACT_TPS_C2:
        /* the p^3 log p term tends to 0 at p = 0 */
        return p >= 1.0 ? 0.0
                        : 1.0 - 30.0 * p * p - 10.0 * p * p * p + 45.0 * ipow(p, 4) - 6.0 * ipow(p, 5) -
                              (p > 0.0 ? 60.0 * p * p * p * log(p) : 0.0);
    case SEAM_RBF_THIN_PLATE_SPLINES:
        return r > 0.0 ? r * r * log(r) : 0.0;
    case SEAM_RBF_GAUSSIAN:
        return r > K->cut ? 0.0 : exp(-(K->s * r) * (K->s * r));
    case SEAM_RBF_MULTIQUADRICS:
        return sqrt(K->s * K->s + r * r);
    case SEAM_RBF_INVERSE_MULTIQUADRICS:
        return 1.0 / sqrt(K->s * K->s + r * r);
    case SEAM_RBF_VOLUME_SPLINES:
        return r;
    }
    return 0.0;
}

/* Distance over the live (not dead) axes. */
static double rbf_dist(const rbf_kernel *K, int dim, const double *a, const double *b)
{
    double s = 0.0;
    for (int k = 0; k < K->nlive; k++) {
        double d = a[K->live[k]] - b[K->live[k]];
        s += d * d;
    }
    (void)dim;
    return sqrt(s);
}

static bool rbf_kernel_init(rbf_kernel *K, int dim, const seam_rbf_params *rbf, char *err, size_t errlen)
{
    memset(K, 0, sizeof *K);
    K->basis = rbf->basis;
    if ((int)rbf->basis < 0 || rbf->basis > SEAM_RBF_VOLUME_SPLINES) {
        fail(err, errlen, "unknown radial basis function %d", (int)rbf->basis);
        return false;
    }
    if (dim == 2 && rbf->dead[2]) {
        fail(err, errlen, "z-dead is set on a 2D mesh");
        return false;
    }
    for (int d = 0; d < dim; d++)
        if (!rbf->dead[d])
            K->live[K->nlive++] = d;
    if (!K->nlive) {
        fail(err, errlen, "every axis is dead: the radial basis function has no distance left");
        return false;
    }
    double R = rbf->support_radius, s = rbf->shape_parameter;
    if (basis_compact(rbf->basis)) {
        if (!(R > 0.0) || !isfinite(R)) {
            fail(err, errlen, "a compact radial basis function needs a support radius > 0 (got %g)", R);
            return false;
        }
        K->inv_R = 1.0 / R;
    } else if (rbf->basis == SEAM_RBF_GAUSSIAN) {
        /* as preCICE: a support radius R alone gives the shape sqrt(-ln 1e-9) / R */
        bool has_s = s != 0.0, has_R = R != 0.0;
        if (has_s == has_R || (has_s && (!(s > 0.0) || !isfinite(s))) || (has_R && (!(R > 0.0) || !isfinite(R)))) {
            fail(err, errlen, "the gaussian needs exactly one of shape-parameter > 0 or support-radius > 0 (got %g and %g)",
                 s, R);
            return false;
        }
        K->s = has_s ? s : sqrt(-log(GAUSSIAN_CUTOFF)) / R;
        K->cut = sqrt(-log(GAUSSIAN_CUTOFF)) / K->s;
    } else if (rbf->basis == SEAM_RBF_MULTIQUADRICS || rbf->basis == SEAM_RBF_INVERSE_MULTIQUADRICS) {
        if (!(s > 0.0) || !isfinite(s)) {
            fail(err, errlen, "(inverse) multiquadrics need a shape-parameter > 0 (got %g)", s);
            return false;
        }
        K->s = s;
    }
    if ((int)rbf->polynomial < 0 || rbf->polynomial > SEAM_RBF_POLY_OFF) {
        fail(err, errlen, "unknown polynomial option %d", (int)rbf->polynomial);
        return false;
    }
    return true;
}

double seam_rbf_value(const seam_rbf_params *rbf, double r)
{
    rbf_kernel K;
    if (!rbf || !rbf_kernel_init(&K, 3, rbf, NULL, 0))
        return NAN;
    return rbf_phi(&K, r);
}

/* The linear polynomial's columns [1, live coordinates] at n points,
 * centred and scaled by src's box for conditioning (the span is the same);
 * column-major n x (1 + nlive). */
typedef struct poly_frame {
    double c[3], scale;
} poly_frame;

static void poly_matrix(const rbf_kernel *K, const poly_frame *F, int dim, size_t n, const double *X, double *V)
{
    for (size_t i = 0; i < n; i++) {
        V[i] = 1.0;
        for (int k = 0; k < K->nlive; k++) {
            int d = K->live[k];
            V[i + n * (size_t)(k + 1)] = (X[i * (size_t)dim + (size_t)d] - F->c[d]) / F->scale;
        }
    }
}

/* Which polynomial columns src's points determine (pivoted QR, the constant
 * kept first): points on a line or plane cannot fit the slope across it. */
static int poly_columns(size_t n, int p, const double *V, int *keep)
{
    double *A = seam_xmalloc_n(n * (size_t)p, sizeof *A);
    memcpy(A, V, n * (size_t)p * sizeof *A);
    lapack_int jpvt[4] = {1, 0, 0, 0};
    double tau[4];
    LAPACKE_dgeqp3(LAPACK_COL_MAJOR, (lapack_int)n, p, A, (lapack_int)n, jpvt, tau);
    double r00 = fabs(A[0]);
    int m = 0;
    for (int k = 0; k < p && k < (int)n; k++)
        if (fabs(A[(size_t)k + n * (size_t)k]) > 1e-9 * r00)
            keep[m++] = jpvt[k] - 1;
    free(A);
    for (int a = 1; a < m; a++)   /* ascending column order */
        for (int c = a; c > 0 && keep[c - 1] > keep[c]; c--) {
            int t = keep[c];
            keep[c] = keep[c - 1];
            keep[c - 1] = t;
        }
    return m;
}

static void select_columns(size_t n, const double *V, int m, const int *keep, double *out)
{
    for (int k = 0; k < m; k++)
        memcpy(out + n * (size_t)k, V + n * (size_t)keep[k], n * sizeof *out);
}

/* Solve the symmetric K (n x n, lower triangle read) for nrhs columns in B;
 * false (with a message) when K is singular to working precision. */
static bool solve_symmetric(size_t n, double *K, size_t nrhs, double *B, bool definite, char *err, size_t errlen)
{
    lapack_int N = (lapack_int)n, info;
    double anorm = LAPACKE_dlansy(LAPACK_COL_MAJOR, '1', 'L', N, K, N), rcond = 0.0;
    lapack_int *ipiv = NULL;
    if (definite) {
        info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', N, K, N);
        if (info > 0) {
            fail(err, errlen, "the RBF system is not positive definite (pivot %d): src points repeated, or the basis "
                              "too wide for double precision", (int)info);
            return false;
        }
        LAPACKE_dpocon(LAPACK_COL_MAJOR, 'L', N, K, N, anorm, &rcond);
    } else {
        ipiv = seam_xmalloc_n(n, sizeof *ipiv);
        info = LAPACKE_dsytrf(LAPACK_COL_MAJOR, 'L', N, K, N, ipiv);
        if (info == 0)
            LAPACKE_dsycon(LAPACK_COL_MAJOR, 'L', N, K, N, ipiv, anorm, &rcond);
    }
    if (info != 0 || !(rcond >= DBL_EPSILON)) {
        fail(err, errlen, "the RBF system is singular (reciprocal condition %.3g): src points repeated, or the "
                          "basis/polynomial cannot separate them", rcond);
        free(ipiv);
        return false;
    }
    if (definite)
        info = LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', N, (lapack_int)nrhs, K, N, B, N);
    else
        info = LAPACKE_dsytrs2(LAPACK_COL_MAJOR, 'L', N, (lapack_int)nrhs, K, N, ipiv, B, N);
    free(ipiv);
    if (info != 0) {
        fail(err, errlen, "the RBF solve failed (LAPACK info %d)", (int)info);
        return false;
    }
    return true;
}

/* M^T (n x m, column i = row i of M) into CSR, exact zeros left out. */
static seam_csr *rows_from_transpose(size_t n, size_t m, const double *Mt, size_t ld)
{
    rows_builder b;
    rows_begin(&b, m, n, n * m);
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++)
            if (Mt[j + ld * i] != 0.0)
                rows_add(&b, j, Mt[j + ld * i]);
        rows_end(&b, i);
    }
    return b.M;
}

/* u(y) = sum_j gamma_j phi(|y - x_j|) + polynomial, with gamma from the
 * interpolation conditions at src; M's rows are that map's weights:
 *   off:      M = A Phi^-1
 *   on:       M = [A V_dst] [Phi V; V^T 0]^-1 [I; 0]
 *   separate: M = V_dst P + A Phi^-1 (I - V P),  P = V^+ (least squares)
 * with A_ij = phi(|y_i - x_j|), Phi_jk = phi(|x_j - x_k|), V = src's polynomial columns. */
static seam_csr *radial_basis(const seam_meshmap_mesh *src, const seam_meshmap_mesh *dst, const seam_rbf_params *rbf,
                              char *err, size_t errlen)
{
    rbf_kernel K;
    if (!rbf_kernel_init(&K, src->dim, rbf, err, errlen))
        return NULL;
    if (src->n > RBF_MAX_SRC) {
        fail(err, errlen, "an RBF mapping takes at most %d src points (got %zu): its system is dense", RBF_MAX_SRC,
             src->n);
        return NULL;
    }
    int dim = src->dim;
    size_t n = src->n, m = dst->n;
    bool definite = basis_definite(rbf->basis);

    poly_frame F = {{0, 0, 0}, 0.0};
    for (int d = 0; d < dim; d++) {
        double lo = src->X[d], hi = src->X[d];
        for (size_t j = 0; j < n; j++) {
            lo = fmin(lo, src->X[j * (size_t)dim + (size_t)d]);
            hi = fmax(hi, src->X[j * (size_t)dim + (size_t)d]);
        }
        F.c[d] = 0.5 * (lo + hi);
        F.scale = fmax(F.scale, hi - lo);
    }
    if (!(F.scale > 0.0))
        F.scale = 1.0;
    int p = 0, keep[4];
    double *Vs = NULL, *Vd = NULL;
    if (rbf->polynomial != SEAM_RBF_POLY_OFF) {
        int p_all = 1 + K.nlive;
        double *Vs_all = seam_xmalloc_n(n * (size_t)p_all, sizeof *Vs_all);
        double *Vd_all = seam_xmalloc_n((m ? m : 1) * (size_t)p_all, sizeof *Vd_all);
        poly_matrix(&K, &F, dim, n, src->X, Vs_all);
        poly_matrix(&K, &F, dim, m, dst->X, Vd_all);
        p = poly_columns(n, p_all, Vs_all, keep);
        Vs = seam_xmalloc_n(n * (size_t)p, sizeof *Vs);
        Vd = seam_xmalloc_n((m ? m : 1) * (size_t)p, sizeof *Vd);
        select_columns(n, Vs_all, p, keep, Vs);
        select_columns(m, Vd_all, p, keep, Vd);
        free(Vs_all);
        free(Vd_all);
    }
    bool augmented = rbf->polynomial == SEAM_RBF_POLY_ON;
    size_t N = n + (augmented ? (size_t)p : 0);

    /* System matrix (lower triangle) and right-hand sides [A^T; V_dst^T], column-major. */
    double *Ks = seam_xcalloc(N * N, sizeof *Ks);
    for (size_t k = 0; k < n; k++)
        for (size_t j = k; j < n; j++)
            Ks[j + N * k] = rbf_phi(&K, rbf_dist(&K, dim, src->X + j * (size_t)dim, src->X + k * (size_t)dim));
    if (augmented)
        for (int c = 0; c < p; c++)
            for (size_t k = 0; k < n; k++)
                Ks[n + (size_t)c + N * k] = Vs[k + n * (size_t)c];
    double *Y = seam_xcalloc(N * (m ? m : 1), sizeof *Y);
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++)
            Y[j + N * i] = rbf_phi(&K, rbf_dist(&K, dim, dst->X + i * (size_t)dim, src->X + j * (size_t)dim));
        if (augmented)
            for (int c = 0; c < p; c++)
                Y[n + (size_t)c + N * i] = Vd[i + m * (size_t)c];
    }
    seam_csr *M = NULL;
    if (!solve_symmetric(N, Ks, m, Y, definite && !augmented, err, errlen))
        goto done;
    if (rbf->polynomial == SEAM_RBF_POLY_SEPARATE && m) {
        /* P^T = Q R^-T from V_src = Q R: M^T = Y + P^T (V_dst^T - V_src^T Y) */
        double *Q = seam_xmalloc_n(n * (size_t)p, sizeof *Q), tau[4];
        memcpy(Q, Vs, n * (size_t)p * sizeof *Q);
        LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (lapack_int)n, p, Q, (lapack_int)n, tau);
        double *R = seam_xcalloc((size_t)p * (size_t)p, sizeof *R);
        for (int c = 0; c < p; c++)
            for (int r = 0; r <= c; r++)
                R[r + p * c] = Q[(size_t)r + n * (size_t)c];
        LAPACKE_dorgqr(LAPACK_COL_MAJOR, (lapack_int)n, p, p, Q, (lapack_int)n, tau);
        double *W = seam_xmalloc_n((size_t)p * m, sizeof *W);   /* V_dst^T - V_src^T Y, p x m */
        for (size_t i = 0; i < m; i++)
            for (int c = 0; c < p; c++)
                W[(size_t)c + (size_t)p * i] = Vd[i + m * (size_t)c];
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, p, (int)m, (int)n, -1.0, Vs, (int)n, Y, (int)N, 1.0, W, p);
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, p, (int)m, 1.0, R, p, W, p);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)m, p, 1.0, Q, (int)n, W, p, 1.0, Y, (int)N);
        free(W);
        free(R);
        free(Q);
    }
    M = rows_from_transpose(n, m, Y, N);
done:
    free(Y);
    free(Ks);
    free(Vs);
    free(Vd);
    return M;
}

/* ---- entry points ------------------------------------------------------ */

static bool mesh_valid(const char *which, const seam_meshmap_mesh *mesh, char *err, size_t errlen)
{
    if (mesh->n && !mesh->X) {
        fail(err, errlen, "%s mesh has %zu points but no coordinates", which, mesh->n);
        return false;
    }
    for (size_t i = 0; i < mesh->n * (size_t)mesh->dim; i++)
        if (!isfinite(mesh->X[i])) {
            fail(err, errlen, "%s point %zu has a coordinate that is not finite", which, i / (size_t)mesh->dim);
            return false;
        }
    const struct {
        const char *name;
        const int *v;
        size_t count;
        int nv;
    } conn[3] = {{"edge", mesh->edges, mesh->n_edges, 2},
                 {"triangle", mesh->triangles, mesh->n_triangles, 3},
                 {"quad", mesh->quads, mesh->n_quads, 4}};
    for (int c = 0; c < 3; c++) {
        if (conn[c].count && !conn[c].v) {
            fail(err, errlen, "%s mesh has %zu %ss but no vertex list", which, conn[c].count, conn[c].name);
            return false;
        }
        for (size_t e = 0; e < conn[c].count * (size_t)conn[c].nv; e++)
            if (conn[c].v[e] < 0 || (size_t)conn[c].v[e] >= mesh->n) {
                fail(err, errlen, "%s %s %zu names point %d, outside 0..%zu", which, conn[c].name,
                     e / (size_t)conn[c].nv, conn[c].v[e], mesh->n ? mesh->n - 1 : 0);
                return false;
            }
    }
    return true;
}

seam_csr *seam_meshmap_interpolation(seam_meshmap_method method, const seam_meshmap_mesh *src,
                                     const seam_meshmap_mesh *dst, const seam_rbf_params *rbf,
                                     char *err, size_t errlen)
{
    if (!src || !dst) {
        fail(err, errlen, "a mapping needs a src and a dst mesh");
        return NULL;
    }
    if (src->dim != dst->dim || src->dim < 2 || src->dim > 3) {
        fail(err, errlen, "mesh dimensions differ or are not 2 or 3 (src %d, dst %d)", src->dim, dst->dim);
        return NULL;
    }
    if (!src->n) {
        fail(err, errlen, "the src mesh has no points to map from");
        return NULL;
    }
    if (!mesh_valid("src", src, err, errlen) || !mesh_valid("dst", dst, err, errlen))
        return NULL;
    switch (method) {
    case SEAM_MAP_NEAREST_NEIGHBOR:
        return nearest_neighbour(src, dst);
    case SEAM_MAP_NEAREST_PROJECTION:
        return nearest_projection(src, dst);
    case SEAM_MAP_RBF:
        if (!rbf) {
            fail(err, errlen, "an RBF mapping needs its parameters");
            return NULL;
        }
        return radial_basis(src, dst, rbf, err, errlen);
    }
    fail(err, errlen, "unknown mapping method %d", (int)method);
    return NULL;
}

void seam_meshmap_apply(const seam_csr *M, int ncomp, const double *u_src, double *u_dst)
{
    for (size_t i = 0; i < M->rows; i++)
        for (int c = 0; c < ncomp; c++) {
            double s = 0.0;
            for (int64_t k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++)
                s += M->val[k] * u_src[(size_t)M->col[k] * (size_t)ncomp + (size_t)c];
            u_dst[i * (size_t)ncomp + (size_t)c] = s;
        }
}

void seam_meshmap_apply_t(const seam_csr *M, int ncomp, const double *f_src, double *f_dst)
{
    memset(f_dst, 0, M->cols * (size_t)ncomp * sizeof *f_dst);
    for (size_t i = 0; i < M->rows; i++)
        for (int64_t k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++)
            for (int c = 0; c < ncomp; c++)
                f_dst[(size_t)M->col[k] * (size_t)ncomp + (size_t)c] += M->val[k] * f_src[i * (size_t)ncomp + (size_t)c];
}
