/* Mesh mappings (seam/meshmap.h) against known answers: nearest neighbour
 * finds permuted points exactly, nearest projection and RBF with a
 * polynomial reproduce linear fields, smooth fields converge at the
 * methods' orders, and conservative maps keep the total force. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "seam/alloc.h"
#include "seam/meshmap.h"

/* Deterministic uniform numbers in [0, 1) (xorshift64*). */
static uint64_t rng_state = 88172645463325252ULL;
static double uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

static double linear(int dim, const double *x)
{
    return 1.5 + 2.0 * x[0] - 3.0 * x[1] + (dim == 3 ? 0.75 * x[2] : 0.0);
}

static double smooth(const double *x) { return sin(2.0 * x[0]) * cos(3.0 * x[1]); }

static seam_meshmap_mesh points(int dim, size_t n, const double *X)
{
    seam_meshmap_mesh m = {.dim = dim, .n = n, .X = X};
    return m;
}

static seam_csr *map_or_fail(seam_meshmap_method method, const seam_meshmap_mesh *src, const seam_meshmap_mesh *dst,
                             const seam_rbf_params *rbf)
{
    char err[256] = "";
    seam_csr *M = seam_meshmap_interpolation(method, src, dst, rbf, err, sizeof err);
    if (!M)
        fail_msg("mapping refused: %s", err);
    assert_int_equal(M->rows, dst->n);
    assert_int_equal(M->cols, src->n);
    return M;
}

/* Largest |M f(src) - f(dst)| for the linear field. */
static double linear_error(const seam_csr *M, const seam_meshmap_mesh *src, const seam_meshmap_mesh *dst)
{
    double *u = SEAM_NEW_N(double, src->n), *v = SEAM_NEW_N(double, dst->n), e = 0.0;
    for (size_t j = 0; j < src->n; j++)
        u[j] = linear(src->dim, src->X + j * (size_t)src->dim);
    seam_meshmap_apply(M, 1, u, v);
    for (size_t i = 0; i < dst->n; i++)
        e = fmax(e, fabs(v[i] - linear(dst->dim, dst->X + i * (size_t)dst->dim)));
    free(u);
    free(v);
    return e;
}

static double max_row_sum_defect(const seam_csr *M)
{
    double e = 0.0;
    for (size_t i = 0; i < M->rows; i++) {
        double s = 0.0;
        for (int64_t k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++)
            s += M->val[k];
        e = fmax(e, fabs(s - 1.0));
    }
    return e;
}

/* ---- nearest neighbour ---- */

static void test_nearest_neighbour_permuted(void **state)
{
    (void)state;
    enum { N = 2000 };
    double *X = SEAM_NEW_N(double, 3 * N), *Y = SEAM_NEW_N(double, 3 * N);
    size_t perm[N];
    for (size_t i = 0; i < N; i++) {
        perm[i] = i;
        for (int d = 0; d < 3; d++)
            X[3 * i + d] = uniform() * (d == 2 ? 0.01 : 1.0);   /* a thin slab: uneven extents */
    }
    for (size_t i = N - 1; i > 0; i--) {
        size_t k = (size_t)(uniform() * (double)(i + 1));
        size_t t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
    }
    for (size_t i = 0; i < N; i++)
        memcpy(Y + 3 * i, X + 3 * perm[i], 3 * sizeof *Y);
    seam_meshmap_mesh src = points(3, N, X), dst = points(3, N, Y);
    seam_csr *M = map_or_fail(SEAM_MAP_NEAREST_NEIGHBOR, &src, &dst, NULL);
    assert_int_equal(M->nnz, N);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(M->row_ptr[i + 1] - M->row_ptr[i], 1);
        assert_int_equal(M->col[M->row_ptr[i]], perm[i]);
        assert_true(M->val[M->row_ptr[i]] == 1.0);
    }
    seam_csr_destroy(&M);
    free(X);
    free(Y);
}

/* Equal distances go to the lowest index; a far point still finds its nearest. */
static void test_nearest_neighbour_ties_and_far(void **state)
{
    (void)state;
    const double X[] = {1.0, 0.0, -1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 5.0, 5.0};   /* points 0 and 3 coincide */
    const double Y[] = {0.0, 0.0, 1.0, 0.0, 1e6, 1e6, -1e5, 3.0};
    seam_meshmap_mesh src = points(2, 5, X), dst = points(2, 4, Y);
    seam_csr *M = map_or_fail(SEAM_MAP_NEAREST_NEIGHBOR, &src, &dst, NULL);
    const int64_t want[] = {0, 0, 4, 1};   /* the origin is 1 from 0, 1, 2 and 3: index 0 */
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(M->col[M->row_ptr[i]], want[i]);
    seam_csr_destroy(&M);
}

/* ---- nearest projection ---- */

static void test_nearest_projection_curve_2d(void **state)
{
    (void)state;
    enum { N = 60, M_DST = 500 };
    double X[2 * N], Y[2 * M_DST];
    int edges[2 * (N - 1)];
    /* a wavy open curve, its vertices numbered in a scrambled order */
    int order[N];
    for (int k = 0; k < N; k++)
        order[k] = (k * 37) % N;
    for (int k = 0; k < N; k++) {
        double t = (double)k / (N - 1);
        X[2 * order[k]] = 3.0 * t;
        X[2 * order[k] + 1] = 0.4 * sin(5.0 * t) + 0.1 * uniform();
    }
    for (int e = 0; e < N - 1; e++) {
        edges[2 * e] = order[e];
        edges[2 * e + 1] = order[e + 1];
    }
    for (int i = 0; i < M_DST; i++) {
        int e = (int)(uniform() * (N - 1));
        double t = uniform();
        for (int d = 0; d < 2; d++)
            Y[2 * i + d] = (1.0 - t) * X[2 * edges[2 * e] + d] + t * X[2 * edges[2 * e + 1] + d];
    }
    seam_meshmap_mesh src = {.dim = 2, .n = N, .X = X, .edges = edges, .n_edges = N - 1};
    seam_meshmap_mesh dst = points(2, M_DST, Y);
    seam_csr *M = map_or_fail(SEAM_MAP_NEAREST_PROJECTION, &src, &dst, NULL);
    assert_true(linear_error(M, &src, &dst) < 1e-12);
    assert_true(max_row_sum_defect(M) < 1e-15);
    for (size_t i = 0; i < M->rows; i++)
        assert_true(M->row_ptr[i + 1] - M->row_ptr[i] <= 2);
    seam_csr_destroy(&M);
}

/* A curved triangulated surface (height field) and a tilted plane of quads
 * given in scrambled vertex order: dst points on them get the linear field. */
static void test_nearest_projection_surface_3d(void **state)
{
    (void)state;
    enum { G = 12, NV = (G + 1) * (G + 1), M_DST = 600 };
    double X[3 * NV], Q[3 * NV], Y[3 * M_DST];
    int tri[6 * G * G], quad[4 * G * G];
    for (int j = 0; j <= G; j++)
        for (int i = 0; i <= G; i++) {
            int v = i + (G + 1) * j;
            double x = (double)i / G + 0.02 * uniform(), y = (double)j / G + 0.02 * uniform();
            X[3 * v] = x, X[3 * v + 1] = y, X[3 * v + 2] = 0.3 * sin(3.0 * x) * cos(2.0 * y);
            Q[3 * v] = (double)i / G, Q[3 * v + 1] = (double)j / G, Q[3 * v + 2] = 0.2 * Q[3 * v] - 0.4 * Q[3 * v + 1];
        }
    for (int j = 0; j < G; j++)
        for (int i = 0; i < G; i++) {
            int c = i + G * j, a = i + (G + 1) * j, b = a + 1, d = a + G + 1, e = d + 1;
            int t[6] = {a, b, e, a, e, d};
            memcpy(tri + 6 * c, t, sizeof t);
            int q[4] = {a, e, b, d};   /* not cyclic: the split must find the diagonals */
            if (c % 2)
                q[0] = b, q[1] = d, q[2] = e, q[3] = a;
            memcpy(quad + 4 * c, q, sizeof q);
        }
    for (int pass = 0; pass < 2; pass++) {
        const double *V = pass ? Q : X;
        for (int i = 0; i < M_DST; i++) {
            int c = (int)(uniform() * G * G), k = (int)(uniform() * 2);
            const int *t = tri + 6 * c + 3 * k;
            double u = uniform(), w = uniform();
            if (u + w > 1.0)
                u = 1.0 - u, w = 1.0 - w;
            for (int d = 0; d < 3; d++)
                Y[3 * i + d] = (1.0 - u - w) * V[3 * t[0] + d] + u * V[3 * t[1] + d] + w * V[3 * t[2] + d];
        }
        seam_meshmap_mesh src = {.dim = 3, .n = NV, .X = V};
        if (pass)
            src.quads = quad, src.n_quads = G * G;
        else
            src.triangles = tri, src.n_triangles = 2 * G * G;
        seam_meshmap_mesh dst = points(3, M_DST, Y);
        seam_csr *M = map_or_fail(SEAM_MAP_NEAREST_PROJECTION, &src, &dst, NULL);
        double e = linear_error(M, &src, &dst);
        assert_true(e < 1e-12);
        assert_true(max_row_sum_defect(M) < 1e-15);
        seam_csr_destroy(&M);
    }
}

/* Without connectivity the projection is the nearest neighbour. */
static void test_nearest_projection_without_elements(void **state)
{
    (void)state;
    const double X[] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, Y[] = {0.9, 0.2, 0, 0.1, 0.7, 0};
    seam_meshmap_mesh src = points(3, 3, X), dst = points(3, 2, Y);
    seam_csr *M = map_or_fail(SEAM_MAP_NEAREST_PROJECTION, &src, &dst, NULL);
    assert_int_equal(M->nnz, 2);
    assert_int_equal(M->col[0], 1);
    assert_int_equal(M->col[1], 2);
    seam_csr_destroy(&M);
}

/* ---- radial basis functions ---- */

static const seam_rbf_basis all_bases[] = {
    SEAM_RBF_COMPACT_POLYNOMIAL_C0, SEAM_RBF_COMPACT_POLYNOMIAL_C2, SEAM_RBF_COMPACT_POLYNOMIAL_C4,
    SEAM_RBF_COMPACT_POLYNOMIAL_C6, SEAM_RBF_COMPACT_POLYNOMIAL_C8, SEAM_RBF_COMPACT_TPS_C2,
    SEAM_RBF_THIN_PLATE_SPLINES,    SEAM_RBF_GAUSSIAN,              SEAM_RBF_MULTIQUADRICS,
    SEAM_RBF_INVERSE_MULTIQUADRICS, SEAM_RBF_VOLUME_SPLINES};

static seam_rbf_params rbf_for(seam_rbf_basis basis, seam_rbf_polynomial poly)
{
    seam_rbf_params p = {.basis = basis, .polynomial = poly};
    if (basis <= SEAM_RBF_COMPACT_TPS_C2)
        p.support_radius = 0.6;
    else if (basis == SEAM_RBF_GAUSSIAN)
        p.shape_parameter = 4.0;
    else if (basis == SEAM_RBF_MULTIQUADRICS || basis == SEAM_RBF_INVERSE_MULTIQUADRICS)
        p.shape_parameter = 0.3;
    return p;
}

/* The bases' formulas at hand-computed points: compact ones at half their
 * support radius R = 2 and zero from R on. */
static void test_rbf_basis_values(void **state)
{
    (void)state;
    const struct {
        seam_rbf_basis basis;
        double R, s, r, want;
    } cases[] = {
        {SEAM_RBF_COMPACT_POLYNOMIAL_C0, 2.0, 0.0, 1.0, 0.25},
        {SEAM_RBF_COMPACT_POLYNOMIAL_C2, 2.0, 0.0, 1.0, 0.1875},
        {SEAM_RBF_COMPACT_POLYNOMIAL_C4, 2.0, 0.0, 1.0, 20.75 / 64.0},
        {SEAM_RBF_COMPACT_POLYNOMIAL_C6, 2.0, 0.0, 1.0, 15.25 / 256.0},
        {SEAM_RBF_COMPACT_POLYNOMIAL_C8, 2.0, 0.0, 1.0, 496.6875 / 1024.0},
        {SEAM_RBF_COMPACT_TPS_C2, 2.0, 0.0, 1.0, -5.125 + 7.5 * log(2.0)},
        {SEAM_RBF_COMPACT_TPS_C2, 2.0, 0.0, 0.0, 1.0},
        {SEAM_RBF_THIN_PLATE_SPLINES, 0.0, 0.0, 2.0, 4.0 * log(2.0)},
        {SEAM_RBF_THIN_PLATE_SPLINES, 0.0, 0.0, 0.0, 0.0},
        {SEAM_RBF_GAUSSIAN, 0.0, 2.0, 0.5, exp(-1.0)},
        {SEAM_RBF_GAUSSIAN, 0.0, 2.0, 2.3, 0.0},   /* beyond sqrt(-ln 1e-9) / 2 = 2.28 */
        {SEAM_RBF_GAUSSIAN, 2.0, 0.0, 2.0 / sqrt(-log(1e-9)), exp(-1.0)},
        {SEAM_RBF_MULTIQUADRICS, 0.0, 3.0, 4.0, 5.0},
        {SEAM_RBF_INVERSE_MULTIQUADRICS, 0.0, 3.0, 4.0, 0.2},
        {SEAM_RBF_VOLUME_SPLINES, 0.0, 0.0, 0.7, 0.7},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        seam_rbf_params p = {.basis = cases[c].basis, .support_radius = cases[c].R, .shape_parameter = cases[c].s};
        double got = seam_rbf_value(&p, cases[c].r);
        if (!(fabs(got - cases[c].want) <= 1e-14 * (1.0 + fabs(cases[c].want))))
            fail_msg("basis %d at r = %g: %.17g, want %.17g", (int)cases[c].basis, cases[c].r, got, cases[c].want);
        if (cases[c].R > 0.0 && cases[c].basis != SEAM_RBF_GAUSSIAN) {
            assert_true(seam_rbf_value(&p, cases[c].R) == 0.0);
            assert_true(seam_rbf_value(&p, 3.0 * cases[c].R) == 0.0);
        }
    }
    seam_rbf_params bad = {.basis = SEAM_RBF_MULTIQUADRICS};
    assert_true(isnan(seam_rbf_value(&bad, 1.0)));
}

/* Every basis with the polynomial on or separate maps a linear field exactly,
 * in 2D and on a curved 3D surface (whose points determine all four terms). */
static void test_rbf_linear_every_basis(void **state)
{
    (void)state;
    enum { NS = 80, ND = 50 };
    double X2[2 * NS], Y2[2 * ND], X3[3 * NS], Y3[3 * ND];
    for (int i = 0; i < NS; i++) {
        X2[2 * i] = uniform(), X2[2 * i + 1] = uniform();
        double u = uniform(), v = uniform();
        X3[3 * i] = u, X3[3 * i + 1] = v, X3[3 * i + 2] = 0.3 * u * u - 0.2 * v;
    }
    for (int i = 0; i < ND; i++) {
        Y2[2 * i] = uniform(), Y2[2 * i + 1] = uniform();
        double u = uniform(), v = uniform();
        Y3[3 * i] = u, Y3[3 * i + 1] = v, Y3[3 * i + 2] = 0.3 * u * u - 0.2 * v + 0.01;
    }
    seam_meshmap_mesh src2 = points(2, NS, X2), dst2 = points(2, ND, Y2);
    seam_meshmap_mesh src3 = points(3, NS, X3), dst3 = points(3, ND, Y3);
    for (size_t b = 0; b < sizeof all_bases / sizeof *all_bases; b++)
        for (int poly = SEAM_RBF_POLY_SEPARATE; poly <= SEAM_RBF_POLY_ON; poly++) {
            seam_rbf_params p = rbf_for(all_bases[b], (seam_rbf_polynomial)poly);
            for (int dim = 2; dim <= 3; dim++) {
                const seam_meshmap_mesh *src = dim == 2 ? &src2 : &src3, *dst = dim == 2 ? &dst2 : &dst3;
                seam_csr *M = map_or_fail(SEAM_MAP_RBF, src, dst, &p);
                double e = linear_error(M, src, dst), s = max_row_sum_defect(M);
                if (!(e < 1e-10) || !(s < 1e-10))
                    fail_msg("basis %d polynomial %d dim %d: linear error %.3g, row sum defect %.3g", (int)all_bases[b],
                             poly, dim, e, s);
                seam_csr_destroy(&M);
            }
        }
}

/* Every basis interpolates: M restricted to dst = src is the identity. */
static void test_rbf_interpolates(void **state)
{
    (void)state;
    enum { N = 40 };
    double X[2 * N];
    for (int i = 0; i < 2 * N; i++)
        X[i] = uniform();
    seam_meshmap_mesh src = points(2, N, X);
    for (size_t b = 0; b < sizeof all_bases / sizeof *all_bases; b++)
        for (int poly = SEAM_RBF_POLY_SEPARATE; poly <= SEAM_RBF_POLY_OFF; poly++) {
            seam_rbf_params p = rbf_for(all_bases[b], (seam_rbf_polynomial)poly);
            seam_csr *M = map_or_fail(SEAM_MAP_RBF, &src, &src, &p);
            double e = 0.0;
            for (size_t i = 0; i < N; i++)
                for (int64_t k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++)
                    e = fmax(e, fabs(M->val[k] - ((size_t)M->col[k] == i ? 1.0 : 0.0)));
            if (!(e < 1e-8))
                fail_msg("basis %d polynomial %d: |M - I| = %.3g", (int)all_bases[b], poly, e);
            seam_csr_destroy(&M);
        }
}

/* A gaussian given by its support radius R is preCICE's shape sqrt(-ln 1e-9) / R. */
static void test_rbf_gaussian_support_radius(void **state)
{
    (void)state;
    enum { N = 30 };
    double X[2 * N], Y[2 * N];
    for (int i = 0; i < 2 * N; i++)
        X[i] = uniform(), Y[i] = uniform();
    seam_meshmap_mesh src = points(2, N, X), dst = points(2, N, Y);
    seam_rbf_params a = {.basis = SEAM_RBF_GAUSSIAN, .support_radius = 0.5, .polynomial = SEAM_RBF_POLY_SEPARATE};
    seam_rbf_params b = a;
    b.support_radius = 0.0;
    b.shape_parameter = sqrt(-log(1e-9)) / 0.5;
    seam_csr *Ma = map_or_fail(SEAM_MAP_RBF, &src, &dst, &a), *Mb = map_or_fail(SEAM_MAP_RBF, &src, &dst, &b);
    assert_int_equal(Ma->nnz, Mb->nnz);
    for (size_t k = 0; k < Ma->nnz; k++)
        assert_true(fabs(Ma->val[k] - Mb->val[k]) <= 1e-12 * (1.0 + fabs(Mb->val[k])));
    seam_csr_destroy(&Ma);
    seam_csr_destroy(&Mb);
}

/* A dead axis leaves that coordinate out: moving dst along it changes nothing. */
static void test_rbf_dead_axis(void **state)
{
    (void)state;
    enum { N = 50 };
    double X[3 * N], Y[3 * N], Z[3 * N];
    for (int i = 0; i < N; i++) {
        X[3 * i] = uniform(), X[3 * i + 1] = uniform(), X[3 * i + 2] = 0.0;   /* a flat mesh */
        Y[3 * i] = uniform(), Y[3 * i + 1] = uniform(), Y[3 * i + 2] = 0.0;
        memcpy(Z + 3 * i, Y + 3 * i, 2 * sizeof *Z);
        Z[3 * i + 2] = 0.5 * uniform();
    }
    seam_meshmap_mesh src = points(3, N, X), dy = points(3, N, Y), dz = points(3, N, Z);
    seam_rbf_params p = rbf_for(SEAM_RBF_THIN_PLATE_SPLINES, SEAM_RBF_POLY_ON);
    p.dead[2] = true;
    seam_csr *My = map_or_fail(SEAM_MAP_RBF, &src, &dy, &p), *Mz = map_or_fail(SEAM_MAP_RBF, &src, &dz, &p);
    assert_int_equal(My->nnz, Mz->nnz);
    for (size_t k = 0; k < My->nnz; k++)
        assert_true(My->val[k] == Mz->val[k]);
    /* alive, z moves the points off the plane and the weights change */
    p.dead[2] = false;
    seam_csr *Mz_live = map_or_fail(SEAM_MAP_RBF, &src, &dz, &p);
    double diff = 0.0;
    for (size_t k = 0; k < My->nnz && k < Mz_live->nnz; k++)
        diff = fmax(diff, fabs(My->val[k] - Mz_live->val[k]));
    assert_true(diff > 1e-6);
    seam_csr_destroy(&My);
    seam_csr_destroy(&Mz);
    seam_csr_destroy(&Mz_live);
}

/* ---- convergence of a smooth field ---- */

static double smooth_error(seam_meshmap_method method, int g, const seam_rbf_params *rbf, size_t nd, const double *Y)
{
    size_t n = (size_t)(g + 1) * (size_t)(g + 1);
    double *X = SEAM_NEW_N(double, 2 * n), *u = SEAM_NEW_N(double, n), *v = SEAM_NEW_N(double, nd), e = 0.0;
    for (int j = 0; j <= g; j++)
        for (int i = 0; i <= g; i++) {
            size_t k = (size_t)(i + (g + 1) * j);
            X[2 * k] = (double)i / g, X[2 * k + 1] = (double)j / g;
            u[k] = smooth(X + 2 * k);
        }
    seam_meshmap_mesh src = points(2, n, X), dst = points(2, nd, Y);
    seam_csr *M = map_or_fail(method, &src, &dst, rbf);
    seam_meshmap_apply(M, 1, u, v);
    for (size_t i = 0; i < nd; i++)
        e = fmax(e, fabs(v[i] - smooth(Y + 2 * i)));
    seam_csr_destroy(&M);
    free(X);
    free(u);
    free(v);
    return e;
}

/* Max error at dst points inside the unit square as src grids refine
 * (h = 1/8, 1/16, 1/32): the measured orders (docs/mapping.md). */
static void test_smooth_field_convergence(void **state)
{
    (void)state;
    enum { ND = 300 };
    double Y[2 * ND];
    for (int i = 0; i < 2 * ND; i++)
        Y[i] = 0.1 + 0.8 * uniform();
    const struct {
        const char *name;
        seam_meshmap_method method;
        seam_rbf_params rbf;
        double min_order;
    } cases[] = {
        {"nearest-neighbor", SEAM_MAP_NEAREST_NEIGHBOR, {0}, 0.9},
        {"thin-plate-splines", SEAM_MAP_RBF, rbf_for(SEAM_RBF_THIN_PLATE_SPLINES, SEAM_RBF_POLY_SEPARATE), 1.8},
        {"compact-polynomial-c6 r=0.3", SEAM_MAP_RBF,
         {.basis = SEAM_RBF_COMPACT_POLYNOMIAL_C6, .support_radius = 0.3, .polynomial = SEAM_RBF_POLY_SEPARATE}, 3.0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        double e[3];
        for (int r = 0; r < 3; r++)
            e[r] = smooth_error(cases[c].method, 8 << r, &cases[c].rbf, ND, Y);
        double order = log2(e[1] / e[2]);
        printf("# %s: max error %.3e %.3e %.3e, order %.2f %.2f\n", cases[c].name, e[0], e[1], e[2], log2(e[0] / e[1]),
               order);
        if (!(order >= cases[c].min_order))
            fail_msg("%s converges at order %.2f < %.2f", cases[c].name, order, cases[c].min_order);
    }
}

/* Nearest projection onto a polygon inscribed in a circle: order 2 in h. */
static void test_nearest_projection_order(void **state)
{
    (void)state;
    enum { ND = 400 };
    double Y[2 * ND], e[3];
    for (int i = 0; i < ND; i++) {
        double t = 2.0 * M_PI * uniform();
        Y[2 * i] = cos(t), Y[2 * i + 1] = sin(t);
    }
    for (int r = 0; r < 3; r++) {
        int n = 16 << r;
        double *X = SEAM_NEW_N(double, 2 * (size_t)n), *u = SEAM_NEW_N(double, (size_t)n), v[ND];
        int *edges = SEAM_NEW_N(int, 2 * (size_t)n);
        for (int k = 0; k < n; k++) {
            X[2 * k] = cos(2.0 * M_PI * k / n), X[2 * k + 1] = sin(2.0 * M_PI * k / n);
            u[k] = smooth(X + 2 * k);
            edges[2 * k] = k, edges[2 * k + 1] = (k + 1) % n;
        }
        seam_meshmap_mesh src = {.dim = 2, .n = (size_t)n, .X = X, .edges = edges, .n_edges = (size_t)n};
        seam_meshmap_mesh dst = points(2, ND, Y);
        seam_csr *M = map_or_fail(SEAM_MAP_NEAREST_PROJECTION, &src, &dst, NULL);
        seam_meshmap_apply(M, 1, u, v);
        e[r] = 0.0;
        for (int i = 0; i < ND; i++)
            e[r] = fmax(e[r], fabs(v[i] - smooth(Y + 2 * i)));
        seam_csr_destroy(&M);
        free(X);
        free(u);
        free(edges);
    }
    printf("# nearest-projection on a circle: max error %.3e %.3e %.3e, order %.2f %.2f\n", e[0], e[1], e[2],
           log2(e[0] / e[1]), log2(e[1] / e[2]));
    assert_true(log2(e[1] / e[2]) > 1.8);
}

/* ---- conservative mappings ---- */

/* f_B = M^T f_A with M = interpolation(src = B, dst = A) keeps sum f for
 * NN and NP to 1e-12, and for RBF with a polynomial (rows sum to one);
 * without one it does not. Vector data map component by component. */
static void test_conservative_sum(void **state)
{
    (void)state;
    enum { NA = 700, NB = 90 };
    double A[2 * NA], B[2 * NB], fA[2 * NA], fB[2 * NB];
    int edges[2 * (NB - 1)];
    for (int k = 0; k < NB; k++) {
        double t = (double)k / (NB - 1);
        B[2 * k] = t, B[2 * k + 1] = 0.2 * sin(4.0 * t);
        if (k < NB - 1)
            edges[2 * k] = k, edges[2 * k + 1] = k + 1;
    }
    double total[2] = {0, 0};
    for (int i = 0; i < NA; i++) {
        double t = uniform();
        A[2 * i] = t, A[2 * i + 1] = 0.2 * sin(4.0 * t) + 0.01 * (uniform() - 0.5);
        fA[2 * i] = uniform() - 0.3, fA[2 * i + 1] = 1e3 * uniform();
        total[0] += fA[2 * i], total[1] += fA[2 * i + 1];
    }
    seam_meshmap_mesh mb = {.dim = 2, .n = NB, .X = B, .edges = edges, .n_edges = NB - 1}, ma = points(2, NA, A);
    for (int c = 0; c < 5; c++) {
        seam_rbf_params p = rbf_for(SEAM_RBF_COMPACT_POLYNOMIAL_C6, c == 2   ? SEAM_RBF_POLY_SEPARATE
                                                                    : c == 3 ? SEAM_RBF_POLY_ON
                                                                             : SEAM_RBF_POLY_OFF);
        seam_meshmap_method method = c == 0 ? SEAM_MAP_NEAREST_NEIGHBOR : c == 1 ? SEAM_MAP_NEAREST_PROJECTION : SEAM_MAP_RBF;
        seam_csr *M = map_or_fail(method, &mb, &ma, &p);
        seam_meshmap_apply_t(M, 2, fA, fB);
        double got[2] = {0, 0};
        for (int k = 0; k < NB; k++)
            got[0] += fB[2 * k], got[1] += fB[2 * k + 1];
        double rel = fmax(fabs(got[0] - total[0]) / fabs(total[0]), fabs(got[1] - total[1]) / fabs(total[1]));
        printf("# conservative case %d: relative change of the total force %.3e\n", c, rel);
        if (c < 4)
            assert_true(rel < 1e-12);
        else
            assert_true(rel > 1e-6);   /* polynomial off: rows do not sum to one */
        /* the transpose is M's: f_B . u_B = f_A . (M u_B) for any u_B */
        double uB[NB], uA[NA], lhs = 0.0, rhs = 0.0;
        for (int k = 0; k < NB; k++)
            uB[k] = uniform();
        double f0[NA], g0[NB];
        for (int i = 0; i < NA; i++)
            f0[i] = fA[2 * i];
        seam_meshmap_apply_t(M, 1, f0, g0);
        seam_meshmap_apply(M, 1, uB, uA);
        for (int k = 0; k < NB; k++)
            lhs += g0[k] * uB[k];
        for (int i = 0; i < NA; i++)
            rhs += f0[i] * uA[i];
        assert_true(fabs(lhs - rhs) <= 1e-10 * (fabs(lhs) + 1.0));
        for (int k = 0; k < NB; k++)
            assert_true(g0[k] == fB[2 * k]);
        seam_csr_destroy(&M);
    }
}

/* ---- refusals ---- */

static void expect_refusal(seam_meshmap_method method, const seam_meshmap_mesh *src, const seam_meshmap_mesh *dst,
                           const seam_rbf_params *rbf, const char *needle)
{
    char err[256] = "";
    seam_csr *M = seam_meshmap_interpolation(method, src, dst, rbf, err, sizeof err);
    if (M)
        fail_msg("accepted a mapping that should be refused (%s)", needle);
    if (!strstr(err, needle))
        fail_msg("message \"%s\" does not say \"%s\"", err, needle);
}

static void test_refusals(void **state)
{
    (void)state;
    const double X[] = {0, 0, 1, 0, 0, 1, 1, 1}, X3[] = {0, 0, 0, 1, 0, 0}, bad[] = {0, 0, NAN, 1};
    const double dup[] = {0, 0, 1, 0, 1, 0, 0, 1};
    seam_meshmap_mesh src = points(2, 4, X), d3 = points(3, 2, X3), dnan = points(2, 2, bad), empty = points(2, 0, X);
    seam_meshmap_mesh sdup = points(2, 4, dup);
    seam_rbf_params tps = rbf_for(SEAM_RBF_THIN_PLATE_SPLINES, SEAM_RBF_POLY_SEPARATE);
    seam_rbf_params c6 = rbf_for(SEAM_RBF_COMPACT_POLYNOMIAL_C6, SEAM_RBF_POLY_OFF);
    expect_refusal(SEAM_MAP_NEAREST_NEIGHBOR, &src, &d3, NULL, "dimensions differ");
    expect_refusal(SEAM_MAP_NEAREST_NEIGHBOR, &src, &dnan, NULL, "not finite");
    expect_refusal(SEAM_MAP_NEAREST_NEIGHBOR, &empty, &src, NULL, "no points");
    expect_refusal(SEAM_MAP_RBF, &sdup, &src, &tps, "singular");
    expect_refusal(SEAM_MAP_RBF, &sdup, &src, &c6, "positive definite");
    /* points 1 and 2 1e-10 apart: no zero pivot, but a reciprocal condition ~1e-19 */
    const double near[] = {0, 0, 1, 0, 1 + 1e-10, 0, 0, 1, 0.5, 0.7, 0.3, 0.2};
    seam_meshmap_mesh snear = points(2, 6, near);
    expect_refusal(SEAM_MAP_RBF, &snear, &src, &tps, "singular");
    seam_rbf_params no_radius = c6;
    no_radius.support_radius = 0.0;
    expect_refusal(SEAM_MAP_RBF, &src, &src, &no_radius, "support radius");
    seam_rbf_params both = {.basis = SEAM_RBF_GAUSSIAN, .support_radius = 1.0, .shape_parameter = 2.0};
    expect_refusal(SEAM_MAP_RBF, &src, &src, &both, "exactly one");
    seam_rbf_params dead = tps;
    dead.dead[0] = dead.dead[1] = true;
    expect_refusal(SEAM_MAP_RBF, &src, &src, &dead, "every axis is dead");
    const int edge[] = {0, 7};
    seam_meshmap_mesh broken = {.dim = 2, .n = 4, .X = X, .edges = edge, .n_edges = 1};
    expect_refusal(SEAM_MAP_NEAREST_PROJECTION, &broken, &src, NULL, "outside");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nearest_neighbour_permuted),
        cmocka_unit_test(test_nearest_neighbour_ties_and_far),
        cmocka_unit_test(test_nearest_projection_curve_2d),
        cmocka_unit_test(test_nearest_projection_surface_3d),
        cmocka_unit_test(test_nearest_projection_without_elements),
        cmocka_unit_test(test_rbf_basis_values),
        cmocka_unit_test(test_rbf_linear_every_basis),
        cmocka_unit_test(test_rbf_interpolates),
        cmocka_unit_test(test_rbf_gaussian_support_radius),
        cmocka_unit_test(test_rbf_dead_axis),
        cmocka_unit_test(test_smooth_field_convergence),
        cmocka_unit_test(test_nearest_projection_order),
        cmocka_unit_test(test_conservative_sum),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
