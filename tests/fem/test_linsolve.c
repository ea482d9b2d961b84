/* solid_fem's Newton solves: every linear solver gives the same motion, and a
 * solver breakdown never passes as a converged step (issue 18: IC(0)-PCG broke
 * down on light cloth, reported success with zero iterations, and the cloth
 * froze). */
#include "fem_test.h"
#include "seam/cholesky.h"

/* A 24 x 24 cloth pinned along one edge, 0.2 kg/m^2: light enough that IC(0)
 * of its Newton systems is not positive definite. */
static fem *light_cloth(test_host *th, const char *linear_solver)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"dim\": 3, \"gravity\": [0, 0, -9.81], \"linear_solver\": {%s}, \"bodies\": [{\"mesh\": "
             "{\"generate\": \"cloth\", \"u\": [1, 0, 0], \"v\": [0, 1, 0], \"cells\": [24, 24]}, \"material\": "
             "{\"kind\": \"shell\", \"k_stretch\": 5000, \"b_stretch\": 50, \"k_bend\": 1e-3, \"b_bend\": 1e-3, "
             "\"density\": 0.2}, \"pin\": {\"box\": {\"min\": [-1, -1, -1], \"max\": [2, 1e-9, 1]}}}]}",
             linear_solver);
    return fem_make(th, json);
}

static double lowest(const fem *f)
{
    double z = 0.0;
    for (size_t i = 0; i < f->n; i++)
        z = fmin(z, f->x[3 * i + 2]);
    return z;
}

/* The cloth falls the same way with CHOLMOD, Jacobi-PCG and IC(0)-PCG; the
 * shifted IC(0) no longer breaks down on it (plain IC(0)'s factor overflowed
 * to NaN on every Newton system) and saves most of Jacobi's CG iterations. */
static void test_light_cloth_falls_with_every_solver(void **state)
{
    (void)state;
    static const char *const solvers[] = {"\"method\": \"cholmod\"", "\"method\": \"cg\", \"tolerance\": 1e-12",
                                          "\"method\": \"cg\", \"preconditioner\": \"ic0\", \"tolerance\": 1e-12"};
    double *ref = NULL;
    int cg[3] = {0, 0, 0};
    for (int s = 0; s < 3; s++) {
        test_host th;
        fem *f = light_cloth(&th, solvers[s]);
        int newton = 0;
        for (int i = 0; i < 10; i++) {
            assert_int_equal(fem_step(f, 0.01, NULL), SEAM_OK);
            newton += f->newton.iterations;
            cg[s] += f->newton.cg_iterations;
            assert_int_equal(f->newton.fallbacks, 0);
            fem_commit(f);
        }
        /* After 0.1 s the free edge has fallen at least as far as free fall
         * would take it, 4.9 cm (the cloth swings down about its pins). */
        printf("%-60s lowest z %.6f m, %d Newton iterations, %d CG iterations\n", solvers[s], lowest(f), newton,
               cg[s]);
        assert_true(lowest(f) < -0.049);
        assert_true(newton > 10);   /* never a single zero step taken for converged */
        size_t nd = 3 * f->n;
        if (!ref) {
            ref = malloc(nd * sizeof *ref);
            memcpy(ref, f->x, nd * sizeof *ref);
        } else {
            for (size_t r = 0; r < nd; r++)
                assert_float_equal(f->x[r], ref[r], 1e-7);
        }
        fem_destroy(&f);
    }
    free(ref);
    assert_true(cg[2] < cg[1] / 2);
}

/* PCG cut short (linear_solver.max_iterations 1) gives inexact Newton
 * directions: counted as truncated, and their short steps never end Newton,
 * so a step either reaches CHOLMOD's motion or fails; never a wrong success.
 * With newton.tolerance 1e-3 a step below 1.4 mm would end Newton: the
 * first truncated direction's is (the cloth falls about g dt^2 = 1 mm). */
static void test_truncated_cg_is_no_convergence(void **state)
{
    (void)state;
    test_host th;
    fem *ref = light_cloth(&th, "\"method\": \"cholmod\"");
    fem *f = light_cloth(&th, "\"method\": \"cg\", \"max_iterations\": 1}, \"newton\": {\"tolerance\": 1e-3");
    int ok = 0, failed = 0;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fem_step(ref, 0.01, NULL), SEAM_OK);
        seam_status st = fem_step(f, 0.01, NULL);
        assert_true(f->newton.truncated > 0);
        printf("step %d: %s after %d Newton iterations (%d truncated PCG solves)\n", i,
               st == SEAM_OK ? "converged" : "failed", f->newton.iterations, f->newton.truncated);
        if (st != SEAM_OK) {
            assert_int_equal(st, SEAM_UNSTABLE);
            assert_true(test_host_saw(&th, "Newton did not converge in 50 iterations (at most 50)"));
            failed++;
            break;
        }
        ok++;
        double worst = 0.0;
        for (size_t r = 0; r < 3 * f->n; r++)
            worst = fmax(worst, fabs(f->x_new[r] - ref->x_new[r]));
        printf("  largest difference to CHOLMOD %.3e m\n", worst);
        assert_true(worst < 1e-5);   /* |g| down by 1e-3: within 1e-3 of the step's 1 mm */
        fem_commit(f);
        fem_commit(ref);
    }
    assert_true(ok + failed > 0);
    fem_destroy(&f);
    fem_destroy(&ref);
}

/* The shifted IC(0) of the light cloth's Newton matrix is a finite SPD
 * preconditioner, found after a few restarts. */
static void test_ic0_of_cloth_is_finite(void **state)
{
    (void)state;
    test_host th;
    fem *f = light_cloth(&th, "\"method\": \"cholmod\"");
    fem_run(f, 0.01, 2);   /* K now holds the last Newton matrix */
    seam_ichol *L = seam_ichol_new(f->K);
    size_t n = f->K->rows;
    double *r = malloc(n * sizeof *r), *z = malloc(n * sizeof *z);
    srand(7);
    for (size_t i = 0; i < n; i++)
        r[i] = 2.0 * rand() / RAND_MAX - 1.0;
    seam_linop M = seam_ichol_linop(L);
    M.apply(M.ctx, r, z);
    for (size_t i = 0; i < n; i++)
        assert_true(isfinite(z[i]));
    printf("IC(0) of the cloth: %zu restarts, shift %g, r.z %.6e\n", seam_ichol_shifted(L), seam_ichol_shift(L),
           seam_dot(n, r, z));
    assert_true(seam_ichol_shifted(L) > 0 && seam_ichol_shift(L) > 0.0 && seam_ichol_shift(L) < 1.0);
    assert_true(seam_dot(n, r, z) > 0.0);
    free(r);
    free(z);
    seam_ichol_destroy(&L);
    fem_destroy(&f);
}

/* A system that is not positive definite fails the solve with every method:
 * SEAM_UNSTABLE and a message, never SEAM_OK with a zero update. */
static void test_indefinite_system_is_reported(void **state)
{
    (void)state;
    static const char *const solvers[] = {"\"method\": \"cholmod\"", "\"method\": \"cg\"",
                                          "\"method\": \"cg\", \"preconditioner\": \"ic0\""};
    for (int s = 0; s < 3; s++) {
        test_host th;
        fem *f = light_cloth(&th, solvers[s]);
        seam_csr *K = f->K;
        for (size_t i = 0; i < K->rows; i++)   /* S = -I */
            for (int64_t p = K->row_ptr[i]; p < K->row_ptr[i + 1]; p++)
                K->val[p] = (size_t)K->col[p] == i ? -1.0 : 0.0;
        double *b = malloc(K->rows * sizeof *b), *x = malloc(K->rows * sizeof *x);
        for (size_t i = 0; i < K->rows; i++)
            b[i] = 1.0;
        assert_int_equal(fem_linear_solve(f, b, x), SEAM_UNSTABLE);
        assert_true(test_host_saw(&th, "could not be solved"));
        free(b);
        free(x);
        fem_destroy(&f);
    }
}

/* CHOLMOD analyses the pattern once and refactors every Newton step. */
static void test_symbolic_analysis_is_kept(void **state)
{
    (void)state;
    test_host th;
    fem *f = light_cloth(&th, "\"method\": \"cholmod\"");
    assert_int_equal(fem_step(f, 0.01, NULL), SEAM_OK);
    fem_commit(f);
    const seam_cholesky *first = f->direct;
    assert_non_null(first);
    assert_true(f->newton.factorizations >= 1 && f->newton.factorizations <= f->newton.iterations);
    assert_int_equal(fem_step(f, 0.01, NULL), SEAM_OK);
    assert_ptr_equal(f->direct, first);
    assert_true(f->newton.factorizations >= 2);
    assert_int_equal(seam_cholesky_analyses(f->direct), 1);
    assert_int_equal(f->newton.cg_iterations, 0);
    fem_destroy(&f);
}

/* auto takes CHOLMOD for cloth (a surface: its factor stays sparse) and CG
 * for tetrahedra (whose factor fills). */
static void test_auto_choice(void **state)
{
    (void)state;
    test_host th;
    fem *f = light_cloth(&th, "\"method\": \"auto\"");
    assert_int_equal(fem_step(f, 0.01, NULL), SEAM_OK);
    assert_int_equal(f->lin_active, FEM_LIN_CHOLMOD);
    fem_destroy(&f);
    f = fem_make(&th, "{\"dim\": 3, \"gravity\": [0, 0, -9.81], \"bodies\": [{\"mesh\": {\"generate\": \"box\", "
                      "\"max\": [4, 1, 1], \"cells\": [8, 2, 2]}, \"material\": {\"model\": \"neo_hookean\", "
                      "\"E\": 1e6, \"nu\": 0.4, \"density\": 1000}, \"pin\": {\"box\": {\"min\": [-1, -1, -1], "
                      "\"max\": [1e-9, 2, 2]}}}]}");
    assert_int_equal(fem_step(f, 0.01, NULL), SEAM_OK);
    assert_int_equal(f->lin_active, FEM_LIN_CG);
    assert_null(f->direct);
    assert_true(f->newton.cg_iterations > 0);
    fem_destroy(&f);
}

/* core's CHOLMOD wrapper: the tridiagonal s I + L (L the 1D Laplacian) solved
 * to round-off for two shifts with one analysis; a negative pivot at a known
 * column is reported there and leaves nothing to solve with; a matrix of
 * another size, or of the same size and nonzeros with another pattern, is
 * analysed anew and solved. */
static seam_csr *shifted_laplacian(size_t n, double s, size_t negative_at)
{
    seam_triplets *t = seam_triplets_new(n, n, 3 * n);
    for (size_t i = 0; i < n; i++) {
        seam_triplets_add(t, i, i, i == negative_at ? -1.0 : 2.0 + s);
        if (i > 0)
            seam_triplets_add(t, i, i - 1, -1.0);
        if (i + 1 < n)
            seam_triplets_add(t, i, i + 1, -1.0);
    }
    seam_csr *A = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    return A;
}

/* n x n with 4 on the diagonal and -1 at (i, i + 1), (i + 1, i) for i >= 1,
 * and at (0, 2), (2, 0) instead of (0, 1), (1, 0): the size and nonzeros of
 * a tridiagonal matrix, another pattern. */
static seam_csr *moved_coupling(size_t n)
{
    seam_triplets *t = seam_triplets_new(n, n, 3 * n);
    for (size_t i = 0; i < n; i++)
        seam_triplets_add(t, i, i, 4.0);
    for (size_t i = 0; i + 1 < n; i++) {
        size_t j = i == 0 ? 2 : i + 1;
        seam_triplets_add(t, i, j, -1.0);
        seam_triplets_add(t, j, i, -1.0);
    }
    seam_csr *A = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    return A;
}

static void test_core_cholesky(void **state)
{
    (void)state;
    size_t n = 200;
    double *xt = malloc(n * sizeof *xt), *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        xt[i] = sin(0.1 * (double)i) + 0.01 * (double)i;
    seam_csr *A = shifted_laplacian(n, 1e-3, n);
    seam_cholesky *C = seam_cholesky_new(A);
    assert_non_null(C);
    assert_true(seam_cholesky_factor_nnz(C) >= (double)(2 * n - 1));
    for (int k = 0; k < 2; k++) {
        if (k == 1)   /* new values, same pattern: numeric refactorization only */
            for (size_t r = 0; r < n; r++)
                *seam_csr_at(A, r, r) = 3.0;
        seam_csr_mul(A, xt, b);
        assert_int_equal(seam_cholesky_factor(C, A), 0);
        assert_int_equal(seam_cholesky_solve(C, b, x), 0);
        for (size_t i = 0; i < n; i++)
            assert_float_equal(x[i], xt[i], 1e-9);   /* cond(A) <= 4e3 at s = 1e-3 */
    }
    seam_csr *B = shifted_laplacian(n, 1.0, 57);
    assert_true(seam_cholesky_fits(C, B));
    assert_int_equal(seam_cholesky_factor(C, B), 1);
    assert_int_equal(seam_cholesky_minor(C), 57);   /* every leading block without it is positive definite */
    assert_int_equal(seam_cholesky_solve(C, b, x), -1);
    assert_int_equal(seam_cholesky_analyses(C), 1);   /* three factorizations of one pattern */
    /* The size and nonzeros of A with another pattern, again, then another size: analysed anew when new, solved. */
    seam_csr *D = shifted_laplacian(n + 1, 1.0, n + 1), *E = moved_coupling(n);
    assert_int_equal(E->rows, A->rows);
    assert_int_equal(E->nnz, A->nnz);
    const seam_csr *next[3] = {E, E, D};
    for (int k = 0; k < 3; k++) {
        size_t m = next[k]->rows;
        assert_int_equal(seam_cholesky_fits(C, next[k]), k == 1);
        double *bk = malloc(m * sizeof *bk), *xk = malloc(m * sizeof *xk), *xs = malloc(m * sizeof *xs);
        for (size_t i = 0; i < m; i++)
            xs[i] = cos(0.3 * (double)i);
        seam_csr_mul(next[k], xs, bk);
        assert_int_equal(seam_cholesky_factor(C, next[k]), 0);
        assert_int_equal(seam_cholesky_analyses(C), (size_t)(k == 2 ? 3 : 2));
        assert_int_equal(seam_cholesky_solve(C, bk, xk), 0);
        for (size_t i = 0; i < m; i++)
            assert_float_equal(xk[i], xs[i], 1e-12);   /* diagonally dominant: cond <= 2 (E), 3 (D) */
        free(bk);
        free(xk);
        free(xs);
    }
    seam_csr_destroy(&A);
    seam_csr_destroy(&B);
    seam_csr_destroy(&D);
    seam_csr_destroy(&E);
    seam_cholesky_destroy(&C);
    free(xt);
    free(b);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_light_cloth_falls_with_every_solver),
        cmocka_unit_test(test_ic0_of_cloth_is_finite),
        cmocka_unit_test(test_indefinite_system_is_reported),
        cmocka_unit_test(test_truncated_cg_is_no_convergence),
        cmocka_unit_test(test_symbolic_analysis_is_kept),
        cmocka_unit_test(test_auto_choice),
        cmocka_unit_test(test_core_cholesky),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
