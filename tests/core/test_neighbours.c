/* The neighbour grid (seam/neighbours.h): the same points as a brute-force
 * search for ordinary clouds, and exact answers for positions a peer may
 * send on purpose: one coordinate of 5.4e307, a span past the largest
 * double, infinities, NaN, queries far off the grid and radii of many
 * buckets. None may overflow, loop or allocate past the bucket bound. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "seam/neighbours.h"

/* How many of the n points lie within r of x, by looking at each. */
static size_t brute_count(int dim, size_t n, const double *X, const double *x, double r)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double d2 = 0.0;
        for (int d = 0; d < dim; d++)
            d2 += (X[i * (size_t)dim + (size_t)d] - x[d]) * (X[i * (size_t)dim + (size_t)d] - x[d]);
        k += d2 <= r * r;
    }
    return k;
}

static void test_same_points_as_brute_force(void **state)
{
    (void)state;
    enum { N = 400 };
    double X[3 * N];
    srand(11);
    for (int dim = 1; dim <= 3; dim++) {
        for (size_t k = 0; k < (size_t)dim * N; k++)
            X[k] = (double)rand() / RAND_MAX;
        seam_neighbours *B = seam_neighbours_new(dim, N, X, 0.1);
        assert_non_null(B);
        for (int q = 0; q < 50; q++) {
            double x[3] = {1.4 * rand() / RAND_MAX - 0.2, 1.4 * rand() / RAND_MAX - 0.2, 1.4 * rand() / RAND_MAX - 0.2};
            assert_int_equal(seam_neighbours_find(B, x, 0.1, NULL, NULL, 0), brute_count(dim, N, X, x, 0.1));
            assert_int_equal(seam_neighbours_find(B, x, 0.05, NULL, NULL, 0), brute_count(dim, N, X, x, 0.05));
        }
        seam_neighbours_destroy(&B);
    }
}

/* One coordinate of 5.4e307 among points in the unit square (the fluid_sph
 * `regions` request that used to overflow): the grid is built (coarsened to
 * at most 4 n + 64 buckets), finds the near points and the far one, and a
 * query anywhere, however far, answers at once. */
static void test_huge_coordinates(void **state)
{
    (void)state;
    double X[10] = {0.0, 0.0, 0.5, 0.5, 1.0, 1.0, 5.4e307, 0.25, 0.5, 0.51};
    seam_neighbours *B = seam_neighbours_new(2, 5, X, 0.02);
    assert_non_null(B);
    double near[2] = {0.5, 0.5}, far[2] = {5.4e307, 0.25}, off[2] = {1.7e308, -1.7e308}, low[2] = {-1e308, 0.0};
    assert_int_equal(seam_neighbours_find(B, near, 0.02, NULL, NULL, 0), 2);
    size_t idx[4];
    assert_int_equal(seam_neighbours_find(B, far, 0.02, idx, NULL, 4), 1);
    assert_int_equal(idx[0], 3);
    assert_int_equal(seam_neighbours_find(B, off, 0.02, NULL, NULL, 0), 0);
    assert_int_equal(seam_neighbours_find(B, low, 0.02, NULL, NULL, 0), 0);
    seam_neighbours_destroy(&B);

    /* a grid of the unit points, queried from far away and with radii of
     * many buckets: a long overflows nowhere */
    double U[4] = {0.0, 0.0, 1.0, 1.0};
    B = seam_neighbours_new(2, 2, U, 1e-300);
    assert_non_null(B);
    assert_int_equal(seam_neighbours_find(B, off, 1e-300, NULL, NULL, 0), 0);
    assert_int_equal(seam_neighbours_find(B, far, 1e-300, NULL, NULL, 0), 0);
    double o[2] = {0.0, 0.0};
    assert_int_equal(seam_neighbours_find(B, o, 1e300, NULL, NULL, 0), 2);
    assert_int_equal(seam_neighbours_find(B, far, INFINITY, NULL, NULL, 0), 2);
    assert_int_equal(seam_neighbours_find(B, o, NAN, NULL, NULL, 0), 0);
    seam_neighbours_destroy(&B);
}

/* Positions no grid holds are refused; NaN ones are kept and never found. */
static void test_what_no_grid_holds(void **state)
{
    (void)state;
    double span[4] = {-1e308, 0.0, 1e308, 0.0};   /* 2e308 across: past DBL_MAX */
    assert_null(seam_neighbours_new(2, 2, span, 0.1));
    double inf[4] = {0.0, 0.0, INFINITY, 0.0};
    assert_null(seam_neighbours_new(2, 2, inf, 0.1));
    double ninf[3] = {0.0, -INFINITY, 1.0};
    assert_null(seam_neighbours_new(1, 3, ninf, 0.1));
    double nan[4] = {NAN, NAN, 0.5, 0.5};
    seam_neighbours *B = seam_neighbours_new(2, 2, nan, 0.1);
    assert_non_null(B);
    double x[2] = {0.5, 0.5};
    size_t idx[2];
    assert_int_equal(seam_neighbours_find(B, x, 1.0, idx, NULL, 2), 1);
    assert_int_equal(idx[0], 1);
    seam_neighbours_destroy(&B);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_points_as_brute_force),
        cmocka_unit_test(test_huge_coordinates),
        cmocka_unit_test(test_what_no_grid_holds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
