/* Least squares with the updated QR (seam_qr, seam/lsq.h): the reduced
 * Jacobian J^ = P R_1^{-1} Q_1^T of Akbay sec. 2.3.2 built from difference
 * pairs of an exact linear map of rank r equals the map once r independent
 * differences (r + 1 pairs) span its row space; rank-deficient, duplicate or
 * non-finite columns are filtered without NaN; after random appends and
 * deletions Q^T Q = I and Q R = C. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* cmocka's assert_float_equal compares floats; these are doubles. */
#define assert_close(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

#include "seam/lsq.h"
#include "test_host.h"

#define N 30
#define R 4

static double urand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) & 0xffffff) / (double)0xffffff - 0.5;
}

/* J = A B^T (n x n, rank R); x_i = x_0 + B c_i, y_i = J x_i + y_0. */
typedef struct {
    double A[N * R], B[N * R], x0[N], y0[N];
} linear_map;

static void map_init(linear_map *m, unsigned seed)
{
    for (int i = 0; i < N * R; i++) {
        m->A[i] = urand(&seed);
        m->B[i] = urand(&seed);
    }
    for (int i = 0; i < N; i++) {
        m->x0[i] = urand(&seed);
        m->y0[i] = urand(&seed);
    }
}

static void map_apply(const linear_map *m, const double *x, double *y)   /* y = A B^T x */
{
    double t[R] = {0};
    for (int k = 0; k < R; k++)
        for (int i = 0; i < N; i++)
            t[k] += m->B[k * N + i] * x[i];
    for (int i = 0; i < N; i++) {
        y[i] = 0;
        for (int k = 0; k < R; k++)
            y[i] += m->A[k * N + i] * t[k];
    }
}

/* Largest |J^ z - J z| / |J z| over a few random z, J^ from `pairs` pairs. */
static double jacobian_error(const linear_map *m, int pairs, unsigned seed)
{
    double X[(R + 2) * N], Y[(R + 2) * N], V[(R + 1) * N], P[(R + 1) * N];
    for (int p = 0; p < pairs; p++) {
        double c[R];
        for (int k = 0; k < R; k++)
            c[k] = urand(&seed);
        for (int i = 0; i < N; i++) {
            X[p * N + i] = m->x0[i];
            for (int k = 0; k < R; k++)
                X[p * N + i] += m->B[k * N + i] * c[k];
        }
        map_apply(m, X + p * N, Y + p * N);
        for (int i = 0; i < N; i++)
            Y[p * N + i] += m->y0[i];
    }
    int k = pairs - 1;
    for (int j = 0; j < k; j++)          /* Delta x_j = x_k - x_j, Delta p_j = y_k - y_j */
        for (int i = 0; i < N; i++) {
            V[j * N + i] = X[k * N + i] - X[j * N + i];
            P[j * N + i] = Y[k * N + i] - Y[j * N + i];
        }
    /* Pairs oldest first; the filter drops the dependent extra difference. */
    seam_qr *qr = seam_qr_new(N, 0, 1e-12);
    for (int j = 0; j < k; j++)
        seam_qr_push(qr, V + j * N, P + j * N, 0, NULL);
    size_t kept = seam_qr_cols(qr);
    assert_int_equal(kept, k < R ? k : R);
    const double *Pk = seam_qr_B(qr);
    double worst = 0;
    for (int trial = 0; trial < 5; trial++) {
        double z[N], Jz[N], alpha[R + 1], Jhz[N] = {0};
        for (int i = 0; i < N; i++)
            z[i] = urand(&seed);
        map_apply(m, z, Jz);
        seam_qr_solve(qr, z, alpha);   /* J^ z = P R_1^{-1} Q_1^T z (Akbay sec. 2.3.2) */
        for (size_t j = 0; j < kept; j++)
            for (int i = 0; i < N; i++)
                Jhz[i] += Pk[j * N + i] * alpha[j];
        double e = 0, s = 0;
        for (int i = 0; i < N; i++) {
            e += (Jhz[i] - Jz[i]) * (Jhz[i] - Jz[i]);
            s += Jz[i] * Jz[i];
        }
        worst = fmax(worst, sqrt(e / s));
    }
    seam_qr_destroy(&qr);
    return worst;
}

static void test_rank_r_map_recovered_after_r_plus_1_pairs(void **state)
{
    (void)state;
    linear_map m;
    map_init(&m, 7);
    assert_true(jacobian_error(&m, R + 1, 11) < 1e-10);
    assert_true(jacobian_error(&m, R + 2, 13) < 1e-10);   /* a dependent extra pair changes nothing */
    assert_true(jacobian_error(&m, R, 17) > 1e-3);         /* one pair short: a direction is missing */
}

static void test_duplicates_and_zero_columns_are_filtered(void **state)
{
    (void)state;
    unsigned seed = 3;
    /* pushed oldest first: a, b, a (duplicate), 0, a + 1e-15 b (numerically a), 2b (parallel) */
    double a[N], b[N], A[6 * N], rhs[N];
    for (int i = 0; i < N; i++) {
        a[i] = urand(&seed);
        b[i] = urand(&seed);
        A[0 * N + i] = a[i];
        A[1 * N + i] = b[i];
        A[2 * N + i] = a[i];
        A[3 * N + i] = 0.0;
        A[4 * N + i] = a[i] + 1e-15 * b[i];
        A[5 * N + i] = 2.0 * b[i];
        rhs[i] = 3.0 * a[i] - 2.0 * b[i];
    }
    seam_qr *qr = seam_qr_new(N, 0, 1e-10);
    for (int j = 0; j < 6; j++)
        assert_int_equal(seam_qr_push(qr, A + j * N, A + j * N, 0, NULL), j != 3);   /* the zero column never enters */
    /* The newest of each dependent group stays: a + 1e-15 b and 2b. */
    assert_int_equal(seam_qr_cols(qr), 2);
    const double *B = seam_qr_B(qr);
    for (int i = 0; i < N; i++) {
        assert_close(B[i], A[4 * N + i], 0);
        assert_close(B[N + i], A[5 * N + i], 0);
    }
    double alpha[2];
    seam_qr_solve(qr, rhs, alpha);
    assert_true(isfinite(alpha[0]) && isfinite(alpha[1]));
    for (int i = 0; i < N; i++)   /* the rhs lies in the span: exact fit */
        assert_close(B[i] * alpha[0] + B[N + i] * alpha[1], rhs[i], 1e-12);
    /* A column with a NaN is refused and changes nothing. */
    double bad[N];
    memcpy(bad, a, sizeof a);
    bad[5] = NAN;
    assert_int_equal(seam_qr_push(qr, bad, bad, 0, NULL), 0);
    assert_int_equal(seam_qr_cols(qr), 2);
    seam_qr_destroy(&qr);
    /* Filtering measures dependence, not size: a tiny independent column is kept. */
    qr = seam_qr_new(N, 0, 1e-6);
    double tiny[N];
    for (int i = 0; i < N; i++)
        tiny[i] = 1e-12 * (i % 2 ? 1.0 : -1.0) * (1.0 + i);
    seam_qr_push(qr, a, a, 0, NULL);
    seam_qr_push(qr, b, b, 0, NULL);
    seam_qr_push(qr, tiny, tiny, 0, NULL);
    assert_int_equal(seam_qr_cols(qr), 3);
    seam_qr_destroy(&qr);
}

static void test_least_squares_residual_is_orthogonal(void **state)
{
    (void)state;
    unsigned seed = 5;
    double A[3 * N], b[N], alpha[3];
    for (int i = 0; i < 3 * N; i++)
        A[i] = urand(&seed);
    for (int i = 0; i < N; i++)
        b[i] = urand(&seed);
    seam_qr *qr = seam_qr_new(N, 0, 1e-12);
    for (int j = 0; j < 3; j++)
        seam_qr_push(qr, A + j * N, A + j * N, 0, NULL);
    assert_int_equal(seam_qr_cols(qr), 3);
    seam_qr_solve(qr, b, alpha);
    double res[N];
    for (int i = 0; i < N; i++)
        res[i] = b[i] - A[i] * alpha[0] - A[N + i] * alpha[1] - A[2 * N + i] * alpha[2];
    for (int j = 0; j < 3; j++) {   /* normal equations: A^T (b - A alpha) = 0 */
        double d = 0;
        for (int i = 0; i < N; i++)
            d += A[j * N + i] * res[i];
        assert_true(fabs(d) < 1e-12);
    }
    seam_qr_destroy(&qr);
}

static void test_columns_kept_by_tag_and_count(void **state)
{
    (void)state;
    unsigned seed = 9;
    seam_qr *qr = seam_qr_new(N, 3, 1e-10);
    double A[4 * N];
    for (int i = 0; i < 4 * N; i++)
        A[i] = urand(&seed);
    for (int j = 0; j < 4; j++)
        seam_qr_push(qr, A + j * N, A + j * N, j / 2, NULL);   /* tags 0 0 1 1 */
    assert_int_equal(seam_qr_cols(qr), 3);                     /* the oldest pair fell out */
    assert_close(seam_qr_B(qr)[0], A[N], 0);
    seam_qr_keep(qr, 1, 1);
    assert_int_equal(seam_qr_cols(qr), 2);
    assert_close(seam_qr_B(qr)[0], A[2 * N], 0);
    assert_close(seam_qr_B(qr)[N + 7], A[3 * N + 7], 0);
    seam_qr_keep(qr, 5, 7);
    assert_int_equal(seam_qr_cols(qr), 0);
    seam_qr_destroy(&qr);
    assert_null(qr);
}

/* ---- the updated QR (seam_qr) ------------------------------------------ */

#define QN 40
#define QMAX 12

/* Q^T Q = I and Q R = C (columns newest first, as the test keeps them). */
static void check_factorization(const seam_qr *qr, const double *C, size_t k)
{
    assert_int_equal(seam_qr_cols(qr), k);
    double Q[QN * QMAX], Rm[QMAX * QMAX];
    seam_qr_explicit(qr, Q, Rm);
    for (size_t a = 0; a < k; a++)
        for (size_t b = 0; b < k; b++) {
            double d = 0.0;
            for (size_t i = 0; i < QN; i++)
                d += Q[a * QN + i] * Q[b * QN + i];
            assert_close(d, a == b ? 1.0 : 0.0, 1e-12);
        }
    for (size_t j = 0; j < k; j++)
        for (size_t i = 0; i < QN; i++) {
            double qr_ij = 0.0;
            for (size_t l = 0; l <= j; l++)
                qr_ij += Q[l * QN + i] * Rm[j * k + l];
            assert_close(qr_ij, C[j * QN + i], 1e-12);
        }
    /* The paired columns (here equal to C) are the same columns, oldest first. */
    const double *B = seam_qr_B(qr);
    for (size_t j = 0; j < k; j++)
        for (size_t i = 0; i < QN; i++)
            assert_close(B[(k - 1 - j) * QN + i], C[j * QN + i], 0);
}

static void test_updated_qr_after_random_appends_and_deletions(void **state)
{
    (void)state;
    unsigned seed = 21;
    seam_qr *qr = seam_qr_new(QN, QMAX, 1e-8);
    double C[QN * QMAX], c[QN];
    long tags[QMAX];
    size_t k = 0;
    for (int op = 0; op < 400; op++) {
        unsigned pick = (unsigned)((urand(&seed) + 0.5) * 10);
        if (pick < 6 || k == 0) {   /* push a random column, tagged op / 10 */
            for (int i = 0; i < QN; i++)
                c[i] = urand(&seed) * (1.0 + pick);
            if (pick % 2) {   /* formed in the QR's own slots, as the schemes do */
                double *cs, *bs;
                seam_qr_slots(qr, &cs, &bs);
                memcpy(cs, c, sizeof c);
                memcpy(bs, c, sizeof c);
                assert_int_equal(seam_qr_push(qr, cs, bs, op / 10, NULL), 1);
            } else
                assert_int_equal(seam_qr_push(qr, c, c, op / 10, NULL), 1);
            if (k == QMAX)   /* the oldest falls out */
                k--;
            memmove(C + QN, C, k * QN * sizeof *C);
            memmove(tags + 1, tags, k * sizeof *tags);
            memcpy(C, c, sizeof c);
            tags[0] = op / 10;
            k++;
        } else if (pick < 9) {      /* remove one column, physical (oldest first) index p */
            size_t p = (size_t)((urand(&seed) + 0.5) * (double)k) % k, j = k - 1 - p;
            seam_qr_remove(qr, p);
            memmove(C + j * QN, C + (j + 1) * QN, (k - 1 - j) * QN * sizeof *C);
            memmove(tags + j, tags + j + 1, (k - 1 - j) * sizeof *tags);
            k--;
        } else {                    /* keep the last two tags only */
            long lo = op / 10 - 1;
            size_t w = 0;
            for (size_t j = 0; j < k; j++)
                if (tags[j] >= lo) {
                    memmove(C + w * QN, C + j * QN, QN * sizeof *C);
                    tags[w++] = tags[j];
                }
            k = w;
            seam_qr_keep(qr, lo, op / 10);
        }
        check_factorization(qr, C, k);
    }
    assert_true(seam_qr_epoch(qr) > 2);   /* Qb was squeezed (Qb <- Qb G) along the way, and stayed right */
    seam_qr_destroy(&qr);
    assert_null(qr);
}

static void test_updated_qr_slots_with_a_single_column(void **state)
{
    (void)state;
    unsigned seed = 12;
    seam_qr *qr = seam_qr_new(QN, 1, 1e-8);   /* every push evicts the previous column */
    double c[QN];
    for (int it = 0; it < 3; it++) {
        double *cs, *bs;
        seam_qr_slots(qr, &cs, &bs);
        for (int i = 0; i < QN; i++)
            c[i] = cs[i] = bs[i] = urand(&seed);
        assert_int_equal(seam_qr_push(qr, cs, bs, it, NULL), 1);
        check_factorization(qr, c, 1);
    }
    seam_qr_destroy(&qr);
}

static void test_updated_qr_filters_the_older_dependent_column(void **state)
{
    (void)state;
    unsigned seed = 8;
    double a[QN], b[QN], e[QN], f[QN], ab[QN], C[3 * QN], x[QN], alpha[3];
    for (int i = 0; i < QN; i++) {
        a[i] = urand(&seed), b[i] = urand(&seed), e[i] = urand(&seed), f[i] = urand(&seed);
        ab[i] = 2.0 * a[i] - b[i] + 1e-11 * f[i];   /* within 1e-11 of span(a, b), f a new direction */
    }
    seam_qr *qr = seam_qr_new(QN, 0, 1e-8);
    seam_qr_push(qr, a, a, 0, NULL);
    seam_qr_push(qr, e, e, 0, NULL);
    seam_qr_push(qr, b, b, 0, NULL);
    assert_int_equal(seam_qr_cols(qr), 3);
    /* The newest, ab, stays; a, now within ~1e-11 of span(ab, b), leaves for good. */
    assert_int_equal(seam_qr_push(qr, ab, ab, 0, NULL), 1);
    memcpy(C, ab, sizeof ab), memcpy(C + QN, b, sizeof b), memcpy(C + 2 * QN, e, sizeof e);
    check_factorization(qr, C, 3);
    /* Least squares over the kept columns: x = 3 ab + 0.5 b - e exactly. */
    for (int i = 0; i < QN; i++)
        x[i] = 3.0 * ab[i] + 0.5 * b[i] - e[i];
    seam_qr_solve(qr, x, alpha);   /* oldest first: e, b, ab */
    assert_close(alpha[0], -1.0, 1e-12);
    assert_close(alpha[1], 0.5, 1e-12);
    assert_close(alpha[2], 3.0, 1e-12);
    /* Zero and non-finite columns are refused, nothing changes, no NaN. */
    double zero[QN] = {0}, bad[QN];
    memcpy(bad, a, sizeof a);
    bad[3] = NAN;
    assert_int_equal(seam_qr_push(qr, zero, zero, 0, NULL), 0);
    assert_int_equal(seam_qr_push(qr, bad, bad, 0, NULL), 0);
    check_factorization(qr, C, 3);
    seam_qr_destroy(&qr);
}

static void test_updated_qr_tracked_solve_matches_direct_solve(void **state)
{
    (void)state;
    unsigned seed = 4;
    seam_qr *qr = seam_qr_new(QN, 0, 1e-8);
    double r[QN], r_old[QN], dr[QN], alpha[QN], beta[QN];
    for (int i = 0; i < QN; i++)
        r[i] = urand(&seed);
    seam_qr_track(qr, r);
    for (int it = 0; it < 30; it++) {   /* r moves by dr each time, as IQN-ILS's residual does */
        memcpy(r_old, r, sizeof r);
        for (int i = 0; i < QN; i++) {
            r[i] = r_old[i] + urand(&seed);
            dr[i] = r[i] - r_old[i];
        }
        if (it == 12)
            seam_qr_keep(qr, 5, 100);   /* deletions keep the tracked coordinates valid */
        seam_qr_push(qr, dr, dr, it, r);
        size_t k = seam_qr_cols(qr);
        seam_qr_solve_tracked(qr, alpha);
        seam_qr_solve(qr, r, beta);
        for (size_t j = 0; j < k; j++)
            assert_close(alpha[j], beta[j], 1e-12 * (1.0 + fabs(beta[j])));
        /* The same from coordinates in the basis, as RMI's cross products give them. */
        size_t m;
        const double *Qb = seam_qr_basis(qr, &m);
        double W[2 * QN], gamma[QN];
        for (size_t i = 0; i < m; i++) {
            W[i] = 0.0;
            for (size_t l = 0; l < QN; l++)
                W[i] += Qb[i * QN + l] * r[l];
        }
        seam_qr_solve_coords(qr, 1, W, m, gamma, k);
        for (size_t j = 0; j < k; j++)
            assert_close(gamma[j], beta[j], 1e-12 * (1.0 + fabs(beta[j])));
        /* The projection of the tracked r onto the columns' span is C alpha (the
         * pairs are the columns here), and r minus it is orthogonal to every column. */
        double p[QN];
        seam_qr_project_tracked(qr, p);
        const double *B = seam_qr_B(qr);
        for (int i = 0; i < QN; i++) {
            double Ca = 0.0;
            for (size_t j = 0; j < k; j++)
                Ca += B[j * QN + (size_t)i] * alpha[j];
            assert_close(p[i], Ca, 1e-11 * (1.0 + fabs(Ca)));
        }
        for (size_t j = 0; j < k; j++) {
            double dot = 0.0, len = 0.0;
            for (int i = 0; i < QN; i++) {
                dot += B[j * QN + (size_t)i] * (r[i] - p[i]);
                len += B[j * QN + (size_t)i] * B[j * QN + (size_t)i];
            }
            assert_close(dot, 0.0, 1e-12 * sqrt(len) * (1.0 + sqrt(len)));
        }
    }
    seam_qr_destroy(&qr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_r_map_recovered_after_r_plus_1_pairs),
        cmocka_unit_test(test_duplicates_and_zero_columns_are_filtered),
        cmocka_unit_test(test_least_squares_residual_is_orthogonal),
        cmocka_unit_test(test_columns_kept_by_tag_and_count),
        cmocka_unit_test(test_updated_qr_after_random_appends_and_deletions),
        cmocka_unit_test(test_updated_qr_filters_the_older_dependent_column),
        cmocka_unit_test(test_updated_qr_slots_with_a_single_column),
        cmocka_unit_test(test_updated_qr_tracked_solve_matches_direct_solve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
