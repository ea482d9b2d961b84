/* Constitutive models: the rotation-keeping SVD, the tangent against finite
 * differences, and patch tests (uniform stretch: uniform stress, no interior
 * force, boundary force equal to the traction) for every material. */
#include "fem_test.h"
#include "seam/dense.h"

static const char *const model_names[] = {"corotated", "neo_hookean", "stvk"};

static void matmul(int d, const double *A, const double *B, double *C, int transB)
{
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double s = 0.0;
            for (int k = 0; k < d; k++)
                s += A[i * d + k] * (transB ? B[j * d + k] : B[k * d + j]);
            C[i * d + j] = s;
        }
}

static void check_svd(int d, const double *F)
{
    double U[9], s[3], V[9], US[9], R[9];
    seam_svd_rotation(d, F, U, s, V);
    assert_float_equal(seam_det(d, U), 1.0, 1e-12);
    assert_float_equal(seam_det(d, V), 1.0, 1e-12);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++)
            US[i * d + j] = U[i * d + j] * s[j];
    matmul(d, US, V, R, 1);
    for (int i = 0; i < d * d; i++)
        assert_float_equal(R[i], F[i], 1e-12);
    for (int i = 0; i + 1 < d; i++) {
        assert_true(s[i] >= 0.0);
        assert_true(s[i] >= fabs(s[i + 1]) - 1e-14);
    }
    /* Only the smallest may be negative, and exactly when det F < 0 (Irving 2.5). */
    double det = seam_det(d, F);
    if (det < -1e-12)
        assert_true(s[d - 1] < 0.0);
    if (det > 1e-12)
        assert_true(s[d - 1] > 0.0);
}

static void test_svd_sign_convention(void **state)
{
    (void)state;
    double inv2[4] = {-1.2, 0.3, 0.1, 0.8};                    /* reflected */
    double flat2[4] = {1.0, 2.0, 0.5, 1.0};                    /* rank 1 */
    double zero2[4] = {0, 0, 0, 0};                            /* a point */
    double inv3[9] = {0.9, 0.1, 0.0, 0.2, 1.1, 0.3, 0.0, 0.1, -0.7};
    double flat3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 0};             /* a plane */
    double line3[9] = {1, 2, 3, 0, 0, 0, 0, 0, 0};             /* a line */
    double zero3[9] = {0};
    check_svd(2, inv2);
    check_svd(2, flat2);
    check_svd(2, zero2);
    check_svd(3, inv3);
    check_svd(3, flat3);
    check_svd(3, line3);
    check_svd(3, zero3);
    srand(7);
    for (int t = 0; t < 200; t++) {
        double F[9];
        for (int i = 0; i < 9; i++)
            F[i] = 2.0 * rand() / RAND_MAX - 1.0;
        check_svd(2, F);
        check_svd(3, F);
    }
}

/* dP/dF against central differences of P, where the model is definite. */
static void test_tangent_matches_stress(void **state)
{
    (void)state;
    for (int d = 2; d <= 3; d++)
        for (int m = 0; m < 3; m++) {
            fem_material mat = {(fem_model)m, 0, 0, 0.3};
            fem_lame(1e6, 0.3, &mat.mu, &mat.lambda);
            double F[9] = {1.3, 0.1, 0.05, -0.08, 1.2, 0.02, 0.03, 0.04, 1.15};
            if (d == 2) {
                F[2] = -0.08;
                F[3] = 1.2;
            }
            double P[9], dPdF[81], Pp[9], Pm[9];
            fem_first_piola(&mat, d, F, P, dPdF);
            double h = 1e-6, worst = 0.0, scale = 0.0;
            for (int q = 0; q < d * d; q++) {
                double Fp[9], Fm[9];
                memcpy(Fp, F, sizeof Fp);
                memcpy(Fm, F, sizeof Fm);
                Fp[q] += h;
                Fm[q] -= h;
                fem_first_piola(&mat, d, Fp, Pp, NULL);
                fem_first_piola(&mat, d, Fm, Pm, NULL);
                for (int p = 0; p < d * d; p++) {
                    double fd = (Pp[p] - Pm[p]) / (2 * h);
                    worst = fmax(worst, fabs(fd - dPdF[p * d * d + q]));
                    scale = fmax(scale, fabs(fd));
                }
            }
            printf("tangent d=%d %s: max |dP/dF - FD| / max = %.2e\n", d, model_names[m], worst / scale);
            assert_true(worst < 1e-6 * scale);
        }
}

/* Uniaxial stretch s: P_xx of each model in closed form. */
static double uniaxial_Pxx(int m, double mu, double la, double s)
{
    switch (m) {
    case FEM_COROTATED: return (2 * mu + la) * (s - 1);
    case FEM_NEO_HOOKEAN: return mu * (s - 1 / s) + la * log(s) / s;
    default: return s * (2 * mu + la) * 0.5 * (s * s - 1);
    }
}

static void patch_test(int d, int m)
{
    char json[1024];
    const char *mesh = d == 2 ? "{\"generate\": \"rectangle\", \"min\": [0, 0], \"max\": [2, 1], \"cells\": [6, 3]}"
                              : "{\"generate\": \"box\", \"min\": [0, 0, 0], \"max\": [2, 1, 1], \"cells\": [4, 2, 2]}";
    snprintf(json, sizeof json,
             "{\"dim\": %d, \"bodies\": [{\"mesh\": %s, \"material\": {\"model\": \"%s\", \"E\": 1e6, \"nu\": 0.3, "
             "\"density\": 1000}}]}",
             d, mesh, model_names[m]);
    test_host th;
    fem *f = fem_make(&th, json);
    double s = 1.1;   /* uniform stretch along x */
    size_t nd = f->n * (size_t)d;
    double *x = malloc(nd * sizeof *x), *force = malloc(nd * sizeof *force);
    for (size_t i = 0; i < f->n; i++)
        for (int k = 0; k < d; k++)
            x[i * d + k] = f->X0[i * d + k] * (k == 0 ? s : 1.0);
    fem_elastic(f, x, force, NULL);
    const fem_material *mat = &f->bodies[0].mat;
    double Pxx = uniaxial_Pxx(m, mat->mu, mat->lambda, s);
    /* Every element carries the same stress, the closed-form one. */
    for (size_t e = 0; e < f->n_elems; e++) {
        double F[9], P[9];
        fem_test_F(f, e, x, F);
        fem_first_piola(mat, d, F, P, NULL);
        assert_float_equal(P[0], Pxx, 1e-9 * fabs(Pxx));
        for (int q = 1; q < d * d; q++)
            if (q % (d + 1) != 0)
                assert_float_equal(P[q], 0.0, 1e-9 * fabs(Pxx));
    }
    /* Interior nodes feel no force; the right face carries -P N times its area. */
    double right = 0.0, fmax_int = 0.0, area = 1.0;
    for (size_t i = 0; i < f->n; i++) {
        int interior = 1;
        for (int k = 0; k < d; k++) {
            double X = f->X0[i * d + k], hi = k == 0 ? 2.0 : 1.0;
            interior &= X > 1e-9 && X < hi - 1e-9;
        }
        if (interior)
            for (int k = 0; k < d; k++)
                fmax_int = fmax(fmax_int, fabs(force[i * d + k]));
        if (f->X0[i * d] > 2.0 - 1e-9)
            right += force[i * d];
    }
    printf("patch %dD %s: P_xx %.6e, max interior |f| %.2e, right-face force %.6e (expected %.6e)\n", d,
           model_names[m], Pxx, fmax_int, right, -Pxx * area);
    assert_true(fmax_int < 1e-9 * fabs(Pxx));
    assert_float_equal(right, -Pxx * area, 1e-9 * fabs(Pxx));
    free(x);
    free(force);
    fem_destroy(&f);
}

static void test_patch_2d(void **state)
{
    (void)state;
    for (int m = 0; m < 3; m++)
        patch_test(2, m);
}

static void test_patch_3d(void **state)
{
    (void)state;
    for (int m = 0; m < 3; m++)
        patch_test(3, m);
}

/* Past the compression limit the stress continues linearly and pushes out. */
static void test_extrapolation_restores(void **state)
{
    (void)state;
    fem_material mat = {FEM_NEO_HOOKEAN, 0, 0, 0.3};
    fem_lame(1e6, 0.45, &mat.mu, &mat.lambda);
    double prev = -INFINITY;
    for (double s = 1.0; s >= -1.0; s -= 0.05) {
        double sig[2] = {1.0, s}, P[2], A[4];
        double psi = fem_diag_stress(&mat, 2, sig, P, A);
        assert_true(isfinite(psi) && isfinite(P[1]));
        if (s < 0.99)
            assert_true(P[1] < 0.0);   /* compressive: acts to restore */
        if (s < 0.3) {
            /* Linear: constant slope, monotone decrease of the stress. */
            assert_true(P[1] < prev);
        }
        prev = P[1];
    }
}

/* A 2D hinge's block Ke = E^T M E (E: the nodes to the edges b - a and c - b,
 * so translations go to zero) projected in the 4 relative motions equals the
 * full 6x6 projection, and is left alone when it is semidefinite already. */
static void test_hinge_projection(void **state)
{
    (void)state;
    static const double E[4][6] = {{-1, 0, 1, 0, 0, 0}, {0, -1, 0, 1, 0, 0}, {0, 0, -1, 0, 1, 0}, {0, 0, 0, -1, 0, 1}};
    srand(7);
    int indefinite = 0;
    for (int c = 0; c < 200; c++) {
        double R[16], M[16], Ke[36], full[36], before[36], lambda[6], Q[36];
        for (int i = 0; i < 16; i++)
            R[i] = rand() / (double)RAND_MAX - 0.5;
        bool semidefinite = c % 4 == 0;   /* M = R R^T, else the symmetric part of R */
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                double s = 0.0;
                for (int k = 0; k < 4; k++)
                    s += R[i * 4 + k] * R[j * 4 + k];
                M[i * 4 + j] = semidefinite ? s : 0.5 * (R[i * 4 + j] + R[j * 4 + i]);
            }
        double scale = 0.0;
        for (int p = 0; p < 6; p++)
            for (int q = 0; q <= p; q++) {
                double s = 0.0;
                for (int a = 0; a < 4; a++)
                    for (int b = 0; b < 4; b++)
                        s += E[a][p] * M[a * 4 + b] * E[b][q];
                Ke[p * 6 + q] = Ke[q * 6 + p] = s;
                scale = fmax(scale, fabs(s));
            }
        memcpy(before, Ke, sizeof before);
        memcpy(full, Ke, sizeof full);
        seam_sym_eig(6, Ke, lambda, Q);
        indefinite += lambda[5] < -1e-6 * scale;
        seam_sym_project_psd(6, full);
        fem_hinge_project_psd(Ke);
        seam_sym_eig(6, Ke, lambda, Q);
        assert_true(lambda[5] >= -1e-12 * scale);
        for (int i = 0; i < 36; i++) {
            if (semidefinite)
                assert_true(Ke[i] == before[i]);
            assert_float_equal(Ke[i], full[i], 1e-12 * scale);
        }
    }
    assert_true(indefinite > 100);   /* the projection had work to do */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_svd_sign_convention),
        cmocka_unit_test(test_tangent_matches_stress),
        cmocka_unit_test(test_patch_2d),
        cmocka_unit_test(test_patch_3d),
        cmocka_unit_test(test_extrapolation_restores),
        cmocka_unit_test(test_hinge_projection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
