/* Kernel weights W (Akbay eq. 4.6): partition of unity, exact interpolation of
 * constant and (where the support is symmetric) linear fields, and W^T
 * preserving totals. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "seam/mapping.h"
#include "test_host.h"

/* Points on a regular lattice of spacing h, n per axis, in `dim` dimensions. */
static double *lattice(int dim, int n, double h, size_t *count)
{
    size_t m = 1;
    for (int d = 0; d < dim; d++)
        m *= (size_t)n;
    double *X = malloc(m * (size_t)dim * sizeof *X);
    for (size_t p = 0; p < m; p++) {
        size_t q = p;
        for (int d = 0; d < dim; d++) {
            X[p * (size_t)dim + (size_t)d] = h * (double)(q % (size_t)n);
            q /= (size_t)n;
        }
    }
    *count = m;
    return X;
}

static void test_kernel_shape(void **state)
{
    (void)state;
    assert_float_equal(seam_mapping_kernel(0.0, 1.0), 1.0, 0.0);
    assert_float_equal(seam_mapping_kernel(1.0, 1.0), 0.0, 0.0);
    assert_float_equal(seam_mapping_kernel(1.5, 1.0), 0.0, 0.0);
    double prev = 1.0;
    for (int k = 1; k < 100; k++) {   /* positive and decreasing inside the support */
        double w = seam_mapping_kernel(k / 100.0, 1.0);
        assert_true(w > 0.0 && w < prev);
        prev = w;
    }
}

/* Each dimension: rows sum to one; constants exact; linear exact at lattice
 * cell centres away from the edge; W^T keeps the total of any sample data. */
static void check_dim(int dim)
{
    size_t np;
    double h = 0.1;
    double *X = lattice(dim, 9, h, &np);
    /* Samples: centres of lattice cells in the interior plus a few scattered ones. */
    size_t ns = 40;
    double *S = malloc(ns * (size_t)dim * sizeof *S);
    for (size_t s = 0; s < ns; s++)
        for (int d = 0; d < dim; d++)
            S[s * (size_t)dim + (size_t)d] = s < 20 ? h * (3.5 + (double)((s >> d) % 2))
                                                    : h * (0.2 + 7.5 * fmod(0.37 * (double)(s * (size_t)(d + 3)), 1.0));
    double r = 1.5 * h;
    size_t empty = 99;
    seam_mapping *M = seam_mapping_new(dim, np, X, ns, S, r, &empty);
    assert_non_null(M);
    assert_int_equal(empty, 0);
    const seam_csr *W = seam_mapping_weights(M);
    for (size_t s = 0; s < ns; s++) {
        double sum = 0.0;
        for (int64_t k = W->row_ptr[s]; k < W->row_ptr[s + 1]; k++)
            sum += W->val[k];
        assert_float_equal(sum, 1.0, 1e-14);
        assert_true(seam_mapping_covered(M, s));
    }
    /* Constant vector field and a linear field v = a + B x. */
    double *v = malloc(np * (size_t)dim * sizeof *v), *u = malloc(ns * (size_t)dim * sizeof *u);
    for (size_t i = 0; i < np; i++)
        for (int d = 0; d < dim; d++) {
            double val = 2.0 + d;
            for (int e = 0; e < dim; e++)
                val += (1.0 + d - 0.5 * e) * X[i * (size_t)dim + (size_t)e];
            v[i * (size_t)dim + (size_t)d] = val;
        }
    seam_mapping_interpolate(M, dim, v, u);
    for (size_t s = 0; s < 20; s++)   /* symmetric supports */
        for (int d = 0; d < dim; d++) {
            double want = 2.0 + d;
            for (int e = 0; e < dim; e++)
                want += (1.0 + d - 0.5 * e) * S[s * (size_t)dim + (size_t)e];
            assert_float_equal(u[s * (size_t)dim + (size_t)d], want, 1e-12);
        }
    for (size_t i = 0; i < np; i++)
        v[i] = -3.25;
    seam_mapping_interpolate(M, 1, v, u);
    for (size_t s = 0; s < ns; s++)
        assert_float_equal(u[s], -3.25, 1e-13);
    /* Conservation: sum_i (W^T f)_i = sum_s f_s, per component. */
    double *f = malloc(ns * 2 * sizeof *f), *F = malloc(np * 2 * sizeof *F);
    double tot[2] = {0, 0};
    for (size_t s = 0; s < ns; s++)
        for (int c = 0; c < 2; c++) {
            f[2 * s + (size_t)c] = sin(1.0 + (double)s * (c + 1.3));
            tot[c] += f[2 * s + (size_t)c];
        }
    seam_mapping_distribute(M, 2, f, F);
    double got[2] = {0, 0};
    for (size_t i = 0; i < np; i++)
        for (int c = 0; c < 2; c++)
            got[c] += F[2 * i + (size_t)c];
    assert_float_equal(got[0], tot[0], 1e-12);
    assert_float_equal(got[1], tot[1], 1e-12);
    /* W^T is the adjoint of W: <W v, f> = <v, W^T f>. */
    double *g = malloc(ns * sizeof *g), *G = malloc(np * sizeof *G);
    for (size_t i = 0; i < np; i++)
        v[i] = cos(0.3 * (double)i);
    for (size_t s = 0; s < ns; s++)
        g[s] = 1.0 + 0.1 * (double)s;
    seam_mapping_interpolate(M, 1, v, u);
    seam_mapping_distribute(M, 1, g, G);
    double a = 0, b = 0;
    for (size_t s = 0; s < ns; s++)
        a += u[s] * g[s];
    for (size_t i = 0; i < np; i++)
        b += v[i] * G[i];
    assert_float_equal(a, b, 1e-12);
    free(g);
    free(G);
    free(f);
    free(F);
    free(v);
    free(u);
    seam_mapping_destroy(&M);
    assert_null(M);
    free(S);
    free(X);
}

static void test_dim1(void **state) { (void)state; check_dim(1); }
static void test_dim2(void **state) { (void)state; check_dim(2); }
static void test_dim3(void **state) { (void)state; check_dim(3); }

/* A sample beyond the radius of every point has an empty row, is reported,
 * and its data is not distributed (nothing is invented). */
static void test_uncovered(void **state)
{
    (void)state;
    double X[4] = {0, 0, 1, 0};
    double S[4] = {0.1, 0, 5, 5};
    size_t empty = 0;
    seam_mapping *M = seam_mapping_new(2, 2, X, 2, S, 0.5, &empty);
    assert_int_equal(empty, 1);
    assert_true(seam_mapping_covered(M, 0));
    assert_false(seam_mapping_covered(M, 1));
    double f[4] = {1, 2, 7, 7}, F[4];
    seam_mapping_distribute(M, 2, f, F);
    assert_float_equal(F[0] + F[2], 1.0, 1e-15);
    assert_float_equal(F[1] + F[3], 2.0, 1e-15);
    seam_mapping_destroy(&M);
    assert_null(seam_mapping_new(4, 2, X, 2, S, 0.5, NULL));
    /* Points spread far apart (coarse buckets): each sample still finds only its own. */
    double Xf[6] = {0, 0, 0.2, 0, 1e6, -3e5};
    double Sf[4] = {0.1, 0.0, 1e6 + 0.1, -3e5};
    seam_mapping *Mf = seam_mapping_new(2, 3, Xf, 2, Sf, 0.5, &empty);
    assert_int_equal(empty, 0);
    const seam_csr *W = seam_mapping_weights(Mf);
    assert_int_equal(W->row_ptr[1] - W->row_ptr[0], 2);
    assert_float_equal(W->val[0], 0.5, 1e-15);   /* equidistant: equal weights */
    assert_int_equal(W->row_ptr[2] - W->row_ptr[1], 1);
    assert_int_equal(W->col[W->row_ptr[1]], 2);
    seam_mapping_destroy(&Mf);
    assert_null(seam_mapping_new(2, 2, X, 2, S, 0.0, NULL));
    S[3] = NAN;
    assert_null(seam_mapping_new(2, 2, X, 2, S, 0.5, NULL));
    S[3] = 5.0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_shape), cmocka_unit_test(test_dim1),
        cmocka_unit_test(test_dim2),         cmocka_unit_test(test_dim3),
        cmocka_unit_test(test_uncovered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
