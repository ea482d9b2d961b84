/* Small symmetric eigenproblems: core's seam_sym_eig (cyclic Jacobi) against
 * LAPACKE_dsyev_work (column-major, workspace given, so no allocation), on
 * the same random symmetric matrices, for the sizes solids use per element
 * or hinge (2, 3, 6) and the largest core accepts (12).
 *
 *     bench_dense [MATRICES]
 *
 * Prints microseconds per call and the ratio; checks that both give the
 * same eigenvalues (to 1e-12 relative), so a wrong routine cannot look fast. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "seam/alloc.h"
#include "seam/dense.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 20000;
    if (count < 1) {
        fprintf(stderr, "usage: bench_dense [MATRICES >= 1]\n");
        return 2;
    }
    static const int sizes[] = {2, 3, 6, 12};
    printf("# %d random symmetric matrices per size, one thread\n", count);
    printf("%4s %14s %14s %10s\n", "n", "jacobi us", "dsyev us", "dsyev/jac");
    int bad = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s];
        double *A = seam_xmalloc_n((size_t)(n * n) * (size_t)count, sizeof *A);
        double *lj = seam_xmalloc_n((size_t)n * (size_t)count, sizeof *lj), *ll = seam_xmalloc_n((size_t)n * (size_t)count, sizeof *ll);
        srand(1);
        for (int m = 0; m < count; m++)
            for (int i = 0; i < n; i++)
                for (int j = 0; j <= i; j++)
                    A[(size_t)m * n * n + i * n + j] = A[(size_t)m * n * n + j * n + i] = rand() / (double)RAND_MAX - 0.5;
        double Q[SEAM_DENSE_MAX * SEAM_DENSE_MAX], Z[SEAM_DENSE_MAX * SEAM_DENSE_MAX], work[SEAM_DENSE_MAX * 66];
        double t0 = now_s();
        for (int m = 0; m < count; m++)
            seam_sym_eig(n, A + (size_t)m * n * n, lj + (size_t)m * n, Q);
        double t1 = now_s();
        for (int m = 0; m < count; m++) {
            for (int i = 0; i < n * n; i++)
                Z[i] = A[(size_t)m * n * n + i];
            LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'U', n, Z, n, ll + (size_t)m * n, work,
                               (lapack_int)(sizeof work / sizeof *work));
        }
        double t2 = now_s();
        for (int m = 0; m < count; m++)   /* ascending from LAPACK, descending from core */
            for (int i = 0; i < n; i++)
                bad += fabs(lj[(size_t)m * n + i] - ll[(size_t)m * n + n - 1 - i]) > 1e-12 * (1.0 + fabs(ll[(size_t)m * n]));
        printf("%4d %14.3f %14.3f %10.2f\n", n, 1e6 * (t1 - t0) / count, 1e6 * (t2 - t1) / count, (t2 - t1) / (t1 - t0));
        printf("@row n=%d matrices=%d jacobi_us=%.4f dsyev_us=%.4f dsyev_over_jacobi=%.3f\n", n, count,
               1e6 * (t1 - t0) / count, 1e6 * (t2 - t1) / count, (t2 - t1) / (t1 - t0));
        free(A);
        free(lj);
        free(ll);
    }
    if (bad)
        fprintf(stderr, "%d eigenvalues differ between the two\n", bad);
    return bad != 0;
}
