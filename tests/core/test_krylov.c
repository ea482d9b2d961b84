/* Krylov solvers and sparse storage against systems with known solutions. */
#include <math.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "seam/alloc.h"
#include "seam/cholesky.h"
#include "seam/sparse.h"
#include "test_host.h"

/* 1D Laplacian with Dirichlet ends: SPD, condition number ~ n^2. */
static seam_csr *laplacian(size_t n)
{
    seam_triplets *t = seam_triplets_new(n, n, 3 * n);
    for (size_t i = 0; i < n; i++) {
        seam_triplets_add(t, i, i, 1.0);   /* duplicates must be summed */
        seam_triplets_add(t, i, i, 1.0);
        if (i > 0)
            seam_triplets_add(t, i, i - 1, -1.0);
        if (i + 1 < n)
            seam_triplets_add(t, i, i + 1, -1.0);
    }
    seam_csr *A = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    return A;
}

static void test_csr_assembly(void **state)
{
    (void)state;
    seam_csr *A = laplacian(5);
    assert_int_equal(A->nnz, 13);
    assert_float_equal(*seam_csr_at(A, 2, 2), 2.0, 0.0);
    assert_float_equal(*seam_csr_at(A, 2, 1), -1.0, 0.0);
    assert_null(seam_csr_at(A, 0, 4));
    double x[5] = {1, 2, 3, 4, 5}, y[5], yt[5];
    seam_csr_mul(A, x, y);
    seam_csr_mul_t(A, x, yt);
    double want[5] = {0, 0, 0, 0, 6};
    for (int i = 0; i < 5; i++) {
        assert_float_equal(y[i], want[i], 1e-15);
        assert_float_equal(yt[i], y[i], 1e-15);   /* symmetric */
    }
    seam_csr_destroy(&A);
    assert_null(A);
}

/* A random sparse rows x cols matrix (about a third of the entries stored,
 * some explicit zeros among them) and its dense copy. */
static seam_csr *random_sparse(size_t rows, size_t cols, unsigned *seed, double *dense)
{
    seam_triplets *t = seam_triplets_new(rows, cols, rows * cols);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            *seed = *seed * 1103515245u + 12345u;
            unsigned r = (*seed >> 16) % 6;
            double v = r < 2 ? ((double)((*seed >> 4) % 1000) - 500.0) / 250.0 : 0.0;
            dense[i * cols + j] = v;
            if (r < 2 || r == 5)
                seam_triplets_add(t, i, j, v);
        }
    seam_csr *A = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    return A;
}

/* Long rows (sorted by qsort, not insertion) with many duplicates per entry,
 * in scrambled order: summed, sorted, explicit zeros kept. */
static void test_triplets_long_rows(void **state)
{
    (void)state;
    enum { R = 3, C = 200 };
    double want[R][C] = {{0}};
    seam_triplets *t = seam_triplets_new(R, C, 8);   /* grows */
    for (int rep = 0; rep < 5; rep++)
        for (int k = 0; k < C; k++) {
            int c = (k * 37 + rep * 11) % C;   /* a permutation of the columns */
            for (int r = 0; r < R; r++) {
                double v = r == 1 && c % 4 == 0 ? 0.0 : (double)(rep + 1) * (c + 1) * (r + 1);
                seam_triplets_add(t, (size_t)r, (size_t)c, v);
                want[r][c] += v;
            }
        }
    seam_csr *A = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    assert_int_equal(A->nnz, R * C);
    for (size_t r = 0; r < R; r++) {
        assert_int_equal(A->row_ptr[r + 1] - A->row_ptr[r], C);
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++) {
            assert_int_equal(A->col[k], k - A->row_ptr[r]);
            assert_float_equal(A->val[k], want[r][A->col[k]], 0.0);
        }
    }
    seam_csr_destroy(&A);
}

/* Transpose and C = A diag(d) B against the dense products. */
static void test_csr_products(void **state)
{
    (void)state;
    enum { R = 6, K = 9, C = 5 };
    unsigned seed = 7;
    double Ad[R * K], Bd[K * C], d[K];
    seam_csr *A = random_sparse(R, K, &seed, Ad), *B = random_sparse(K, C, &seed, Bd);
    for (int k = 0; k < K; k++)
        d[k] = 0.5 + k;
    seam_csr *At = seam_csr_transpose(A);
    assert_int_equal(At->rows, K);
    assert_int_equal(At->cols, R);
    assert_int_equal(At->nnz, A->nnz);
    for (size_t i = 0; i < K; i++)
        for (int64_t p = At->row_ptr[i]; p < At->row_ptr[i + 1]; p++) {
            if (p > At->row_ptr[i])
                assert_true(At->col[p] > At->col[p - 1]);
            assert_float_equal(At->val[p], Ad[At->col[p] * K + (int64_t)i], 0.0);
        }
    for (int scaled = 0; scaled < 2; scaled++) {
        seam_csr *P = seam_csr_matmul(A, scaled ? d : NULL, B);
        assert_int_equal(P->rows, R);
        assert_int_equal(P->cols, C);
        for (size_t i = 0; i < R; i++) {
            for (int64_t p = P->row_ptr[i] + 1; p < P->row_ptr[i + 1]; p++)
                assert_true(P->col[p] > P->col[p - 1]);
            for (size_t j = 0; j < C; j++) {
                double want = 0.0;
                for (int k = 0; k < K; k++)
                    want += Ad[i * K + (size_t)k] * (scaled ? d[k] : 1.0) * Bd[(size_t)k * C + j];
                double *got = seam_csr_at(P, i, j);
                assert_float_equal(got ? *got : 0.0, want, 1e-12);
            }
        }
        seam_csr_destroy(&P);
    }
    /* A A^T is symmetric with the squared row norms on its diagonal. */
    seam_csr *AAt = seam_csr_matmul(A, NULL, At);
    for (size_t i = 0; i < R; i++) {
        double nrm = 0.0;
        for (int k = 0; k < K; k++)
            nrm += Ad[i * K + (size_t)k] * Ad[i * K + (size_t)k];
        double *g = seam_csr_at(AAt, i, i);
        assert_float_equal(g ? *g : 0.0, nrm, 1e-12);
    }
    seam_csr_destroy(&AAt);
    seam_csr_destroy(&At);
    seam_csr_destroy(&A);
    seam_csr_destroy(&B);
}

/* Solve A x = A x_true for a smooth x_true with each preconditioner. */
static void check_solver(int use_gmres, int precond)
{
    size_t n = 400;
    seam_csr *A = laplacian(n);
    double *xt = seam_xmalloc_n(n, sizeof *xt), *b = seam_xmalloc_n(n, sizeof *b), *x = seam_xcalloc(n, sizeof *x);
    for (size_t i = 0; i < n; i++)
        xt[i] = sin(3.0 * (double)i / (double)n) + 0.1 * (double)(i % 7);
    seam_csr_mul(A, xt, b);
    seam_linop Aop = seam_csr_linop(A);
    seam_jacobi *J = seam_jacobi_new(A);
    seam_ichol *L = seam_ichol_new(A);
    seam_linop Jop = seam_jacobi_linop(J), Lop = seam_ichol_linop(L);
    const seam_linop *M = precond == 0 ? NULL : precond == 1 ? &Jop : &Lop;
    seam_krylov_opts o = {1e-12, 0.0, 4000, 400};
    seam_krylov_stats st;
    int rc = use_gmres ? seam_gmres(&Aop, M, b, x, &o, &st) : seam_pcg(&Aop, M, b, x, &o, &st);
    assert_int_equal(rc, 0);
    assert_true(st.converged);
    double err = 0, nx = 0;
    for (size_t i = 0; i < n; i++) {
        err = fmax(err, fabs(x[i] - xt[i]));
        nx = fmax(nx, fabs(xt[i]));
    }
    /* cond ~ 6.5e4: 1e-12 relative residual gives about 1e-7 relative error. */
    assert_true(err < 1e-6 * nx);
    if (precond == 2) {
        /* IC(0) of a tridiagonal matrix is its exact Cholesky factor. */
        assert_int_equal(seam_ichol_shifted(L), 0);
        assert_true(st.iterations <= 2);
    }
    seam_ichol_destroy(&L);
    seam_jacobi_destroy(&J);
    seam_csr_destroy(&A);
    free(xt);
    free(b);
    free(x);
}

static void test_cg_plain(void **s) { (void)s; check_solver(0, 0); }
static void test_cg_jacobi(void **s) { (void)s; check_solver(0, 1); }
static void test_cg_ichol(void **s) { (void)s; check_solver(0, 2); }
static void test_gmres_plain(void **s) { (void)s; check_solver(1, 0); }
static void test_gmres_ichol(void **s) { (void)s; check_solver(1, 2); }

/* GMRES on a nonsymmetric (upwinded convection-diffusion) matrix. */
static void test_gmres_nonsymmetric(void **state)
{
    (void)state;
    size_t n = 200;
    seam_triplets *t = seam_triplets_new(n, n, 3 * n);
    for (size_t i = 0; i < n; i++) {
        seam_triplets_add(t, i, i, 3.0);
        if (i > 0)
            seam_triplets_add(t, i, i - 1, -2.0);
        if (i + 1 < n)
            seam_triplets_add(t, i, i + 1, -0.5);
    }
    seam_csr *A = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    double *xt = seam_xmalloc_n(n, sizeof *xt), *b = seam_xmalloc_n(n, sizeof *b), *x = seam_xcalloc(n, sizeof *x),
           *r = seam_xmalloc_n(n, sizeof *r);
    for (size_t i = 0; i < n; i++)
        xt[i] = cos((double)i);
    seam_csr_mul(A, xt, b);
    seam_linop Aop = seam_csr_linop(A);
    seam_krylov_opts o = {1e-12, 0.0, 2000, 30};
    seam_krylov_stats st;
    assert_int_equal(seam_gmres(&Aop, NULL, b, x, &o, &st), 0);
    seam_csr_mul(A, x, r);
    for (size_t i = 0; i < n; i++)
        r[i] -= b[i];
    assert_true(seam_norm2(n, r) <= 1e-11 * seam_norm2(n, b));
    for (size_t i = 0; i < n; i++)
        assert_float_equal(x[i], xt[i], 1e-9);
    seam_csr_destroy(&A);
    free(xt); free(b); free(x); free(r);
}

/* seam_pcg_until: the caller's test stops CG at the first iterate it accepts
 * (here max |r_i| <= 1e-2 max |b_i|), long before the relative tolerance. */
typedef struct stop_ctx {
    size_t n;
    double goal;
    int calls, met;
    const seam_csr *A;
    const double *b;
    double *Ax, mismatch;    /* the largest |r - (b - A x)| seen */
} stop_ctx;

static int max_residual_below(void *p, const double *x, const double *r)
{
    stop_ctx *c = p;
    double m = 0.0;
    seam_csr_mul(c->A, x, c->Ax);
    for (size_t i = 0; i < c->n; i++) {
        m = fmax(m, fabs(r[i]));
        c->mismatch = fmax(c->mismatch, fabs(r[i] - (c->b[i] - c->Ax[i])));
    }
    c->calls++;
    c->met = m <= c->goal;
    return c->met;
}

static void test_cg_until(void **state)
{
    (void)state;
    size_t n = 400;
    seam_csr *A = laplacian(n);
    double *b = seam_xmalloc_n(n, sizeof *b), *x = seam_xcalloc(n, sizeof *x),
           *x_full = seam_xcalloc(n, sizeof *x_full), *r = seam_xmalloc_n(n, sizeof *r), bmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        b[i] = sin(3.0 * (double)i / (double)n) + 0.1 * (double)(i % 7);
        bmax = fmax(bmax, fabs(b[i]));
    }
    seam_linop Aop = seam_csr_linop(A);
    seam_krylov_opts o = {1e-12, 0.0, 4000, 0};
    seam_krylov_stats st, full;
    double *Ax = seam_xmalloc_n(n, sizeof *Ax);
    stop_ctx c = {n, 1e-2 * bmax, 0, 0, A, b, Ax, 0.0};
    assert_int_equal(seam_pcg_until(&Aop, NULL, b, x, &o, max_residual_below, &c, &st), 0);
    assert_int_equal(seam_pcg(&Aop, NULL, b, x_full, &o, &full), 0);
    assert_true(st.converged && c.met);
    assert_true(c.mismatch < 1e-9 * bmax);          /* it is handed x and r = b - A x */
    assert_int_equal(c.calls, st.iterations + 1);   /* asked at the start and after each iteration */
    assert_true(st.iterations < full.iterations);
    seam_csr_mul(A, x, r);
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(b[i] - r[i]));
    assert_true(m <= 1.001 * c.goal);   /* the true residual, not only CG's recurrence */
    printf("stopped after %d iterations (full tolerance: %d), max |r| %.3g\n", st.iterations, full.iterations, m);
    seam_csr_destroy(&A);
    free(b); free(x); free(x_full); free(r); free(Ax);
}

/* seam_pcg_work: CG in the caller's workspace, the iterates of seam_pcg bit
 * for bit, twice in the same (dirty) workspace. */
static void test_cg_work(void **state)
{
    (void)state;
    size_t n = 300;
    seam_csr *A = laplacian(n);
    double *b = seam_xmalloc_n(n, sizeof *b), *x = seam_xcalloc(n, sizeof *x), *y = seam_xcalloc(n, sizeof *y);
    double *work = seam_xmalloc_n(4 * n, sizeof *work);
    for (size_t i = 0; i < n; i++)
        b[i] = cos(5.0 * (double)i / (double)n);
    seam_linop Aop = seam_csr_linop(A);
    seam_krylov_opts o = {1e-10, 0.0, 2000, 0};
    seam_krylov_stats st, sw;
    assert_int_equal(seam_pcg(&Aop, NULL, b, x, &o, &st), 0);
    for (int run = 0; run < 2; run++) {
        memset(y, 0, n * sizeof *y);
        for (size_t i = 0; i < 4 * n; i++)
            work[i] = 1e300;   /* what the workspace held before must not matter */
        assert_int_equal(seam_pcg_work(&Aop, NULL, b, y, &o, work, &sw), 0);
        assert_int_equal(sw.iterations, st.iterations);
        assert_true(sw.iterations > 10);
        assert_memory_equal(x, y, n * sizeof *x);
    }
    seam_csr_destroy(&A);
    free(b); free(x); free(y); free(work);
}

/* The fused forms of a CSR matrix and its Jacobi preconditioner. */
typedef struct fused_ctx {
    const seam_csr *A;
    seam_linop J;
} fused_ctx;

static double csr_apply_dot(void *ctx, const double *x, double *y)
{
    const fused_ctx *f = ctx;
    seam_csr_mul(f->A, x, y);
    return seam_dot_ordered((size_t)f->A->rows, x, y);
}

static double jacobi_apply_dot(void *ctx, const double *r, double *z)
{
    const fused_ctx *f = ctx;
    f->J.apply(f->J.ctx, r, z);
    return seam_dot_ordered((size_t)f->A->rows, r, z);
}

static int fused_solve(const seam_csr *A, seam_jacobi *J, const double *b, double *x, int max_iter,
                       seam_krylov_stats *st)
{
    fused_ctx f = {A, seam_jacobi_linop(J)};
    seam_dot_linop Aop = {(size_t)A->rows, csr_apply_dot, &f}, Mop = {(size_t)A->rows, jacobi_apply_dot, &f};
    seam_krylov_opts o = {1e-10, 0.0, max_iter, 0};
    return seam_pcg_fused(&Aop, &Mop, b, x, &o, NULL, st);
}

/* seam_pcg_fused reaches seam_pcg's solution (the same iterates up to
 * rounding: the same iteration count within one), and on a system long
 * enough for threads its iterates are the same bits with 1, 2 and 4. */
static void test_cg_fused(void **state)
{
    (void)state;
    size_t n = 400;
    seam_csr *A = laplacian(n);
    seam_jacobi *J = seam_jacobi_new(A);
    double *b = seam_xmalloc_n(n, sizeof *b), *x = seam_xcalloc(n, sizeof *x), *y = seam_xcalloc(n, sizeof *y);
    for (size_t i = 0; i < n; i++)
        b[i] = cos(5.0 * (double)i / (double)n) + 0.01 * (double)(i % 7);
    seam_linop Aop = seam_csr_linop(A), Jop = seam_jacobi_linop(J);
    seam_krylov_opts o = {1e-10, 0.0, 4000, 0};
    seam_krylov_stats st, sf;
    assert_int_equal(seam_pcg(&Aop, &Jop, b, x, &o, &st), 0);
    assert_int_equal(fused_solve(A, J, b, y, 4000, &sf), 0);
    printf("fused CG: %d iterations, plain %d\n", sf.iterations, st.iterations);
    assert_true(sf.iterations > 100);
    assert_true(abs(sf.iterations - st.iterations) <= 1);
    double dmax = 0.0, xmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        dmax = fmax(dmax, fabs(x[i] - y[i]));
        xmax = fmax(xmax, fabs(x[i]));
    }
    assert_true(dmax <= 1e-7 * xmax);
    seam_jacobi_destroy(&J);
    seam_csr_destroy(&A);
    free(b); free(x); free(y);
#ifdef _OPENMP
    n = 100000;   /* above the kernels' threshold for threads */
    A = laplacian(n);
    J = seam_jacobi_new(A);
    b = seam_xmalloc_n(n, sizeof *b);
    double *x1 = seam_xcalloc(n, sizeof *x1), *x2 = seam_xmalloc_n(n, sizeof *x2);
    for (size_t i = 0; i < n; i++)
        b[i] = sin(40.0 * (double)i / (double)n);
    int before = omp_get_max_threads();
    omp_set_num_threads(1);
    fused_solve(A, J, b, x1, 60, &st);
    assert_int_equal(st.iterations, 60);
    for (int threads = 2; threads <= 4; threads += 2) {
        omp_set_num_threads(threads);
        memset(x2, 0, n * sizeof *x2);
        fused_solve(A, J, b, x2, 60, &sf);
        assert_int_equal(sf.iterations, st.iterations);
        assert_memory_equal(&sf.residual, &st.residual, sizeof st.residual);
        assert_memory_equal(x1, x2, n * sizeof *x1);
    }
    omp_set_num_threads(before);
    seam_jacobi_destroy(&J);
    seam_csr_destroy(&A);
    free(b); free(x1); free(x2);
#endif
}

/* Fused CG's x is whole on every exit: it updates x in p's pass, after the
 * V-cycle, so the iteration that stops (converged, or at max_iter) must still
 * add its alpha p. Checked by b - A x against the residual CG reports (its
 * recurrence for r, the same to rounding): a missing last update leaves
 * |b - A x| at the iteration before's. */
static void test_cg_fused_final_x(void **state)
{
    (void)state;
    size_t n = 400;
    seam_csr *A = laplacian(n);
    seam_jacobi *J = seam_jacobi_new(A);
    fused_ctx f = {A, seam_jacobi_linop(J)};
    seam_dot_linop Aop = {n, csr_apply_dot, &f}, Mop = {n, jacobi_apply_dot, &f};
    double *b = seam_xmalloc_n(n, sizeof *b), *x = seam_xmalloc_n(n, sizeof *x), *r = seam_xmalloc_n(n, sizeof *r);
    for (size_t i = 0; i < n; i++)
        b[i] = cos(5.0 * (double)i / (double)n) + 0.01 * (double)(i % 7);
    double bnorm = sqrt(seam_dot(n, b, b));
    /* {tol, max_iter}: stops at max_iter twice, then converged at a loose tolerance */
    const double cases[3][2] = {{0.0, 7}, {0.0, 30}, {1e-3, 4000}};
    for (int c = 0; c < 3; c++) {
        memset(x, 0, n * sizeof *x);
        seam_krylov_opts o = {cases[c][0], 0.0, (int)cases[c][1], 0};
        seam_krylov_stats st;
        int rc = seam_pcg_fused(&Aop, &Mop, b, x, &o, NULL, &st);
        assert_int_equal(rc, c < 2 ? 1 : 0);
        if (c < 2)
            assert_int_equal(st.iterations, (int)cases[c][1]);
        else
            assert_true(st.iterations > 5 && st.residual <= 1e-3 * bnorm);
        seam_csr_mul(A, x, r);
        for (size_t i = 0; i < n; i++)
            r[i] = b[i] - r[i];
        double true_res = sqrt(seam_dot(n, r, r));
        printf("fused CG, %d iterations: |b - A x| %.6e, reported %.6e\n", st.iterations, true_res, st.residual);
        assert_true(fabs(true_res - st.residual) <= 1e-9 * bnorm);
    }
    seam_jacobi_destroy(&J);
    seam_csr_destroy(&A);
    free(b); free(x); free(r);
}

/* CG must report breakdown on an indefinite operator instead of returning garbage. */
static void test_cg_indefinite(void **state)
{
    (void)state;
    seam_triplets *t = seam_triplets_new(2, 2, 2);
    seam_triplets_add(t, 0, 0, 1.0);
    seam_triplets_add(t, 1, 1, -1.0);
    seam_csr *A = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    double b[2] = {1, 1}, x[2] = {0, 0};
    seam_linop Aop = seam_csr_linop(A);
    seam_krylov_stats st;
    assert_int_equal(seam_pcg(&Aop, NULL, b, x, NULL, &st), 1);
    assert_true(st.breakdown);
    seam_csr_destroy(&A);
}

/* Threads of this process (Linux: /proc/self/task). */
static int threads_now(void)
{
    int n = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    fclose(f);
    return n;
}

/* A factorization starts no OpenMP team of its own: Debian's CHOLMOD asks
 * for four threads in its supernodes' loops whatever OMP_NUM_THREADS says
 * (core/src/cholesky.c). A dense 120 x 120 SPD block is one supernode wide
 * enough for those loops; the solve must still be right. Runs first, while
 * this process has no OpenMP threads yet. */
static void test_cholesky_starts_no_threads(void **state)
{
    (void)state;
    const size_t n = 120;
    seam_triplets *T = seam_triplets_new(n, n, n * n);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            seam_triplets_add(T, i, j, i == j ? 2.0 * (double)n : 1.0 / (1.0 + (double)(i > j ? i - j : j - i)));
    seam_csr *A = seam_csr_from_triplets(T);
    seam_triplets_destroy(&T);
    int before = threads_now();
    assert_true(before >= 1);
    seam_cholesky *C = seam_cholesky_new(A);
    assert_non_null(C);
    assert_int_equal(seam_cholesky_factor(C, A), 0);
    assert_int_equal(threads_now(), before);
    double b[120], x[120], Ax[120];
    for (size_t i = 0; i < n; i++)
        b[i] = sin((double)i);
    assert_int_equal(seam_cholesky_solve(C, b, x), 0);
    seam_csr_mul(A, x, Ax);
    for (size_t i = 0; i < n; i++)
        assert_float_equal(Ax[i], b[i], 1e-10);
    seam_cholesky_destroy(&C);
    seam_csr_destroy(&A);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cholesky_starts_no_threads),
        cmocka_unit_test(test_csr_assembly),
        cmocka_unit_test(test_csr_products),
        cmocka_unit_test(test_triplets_long_rows),
        cmocka_unit_test(test_cg_plain),
        cmocka_unit_test(test_cg_jacobi),
        cmocka_unit_test(test_cg_ichol),
        cmocka_unit_test(test_gmres_plain),
        cmocka_unit_test(test_gmres_ichol),
        cmocka_unit_test(test_gmres_nonsymmetric),
        cmocka_unit_test(test_cg_indefinite),
        cmocka_unit_test(test_cg_until),
        cmocka_unit_test(test_cg_work),
        cmocka_unit_test(test_cg_fused),
        cmocka_unit_test(test_cg_fused_final_x),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
