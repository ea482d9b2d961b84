/* solid_fem dynamics against known answers: conservation of momentum,
 * energy behaviour of each integrator, recovery from collapsed and inverted
 * elements, Newton's quadratic convergence, Euler-Bernoulli cantilever
 * deflection under refinement, the catenary, free fall, prescribed motion. */
#include "fem_test.h"
#include "seam/dense.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static double total_momentum(const fem *f, int k)
{
    double p = 0.0;
    for (size_t i = 0; i < f->n; i++)
        p += f->mass[i] * f->v[i * (size_t)f->d + (size_t)k];
    return p;
}

static void test_momentum_conservation(void **state)
{
    (void)state;
    for (int d = 2; d <= 3; d++) {
        test_host th;
        fem *f = fem_make(&th, d == 2 ? "{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"disc\", \"radius\": 1, "
                                        "\"rings\": 3}, \"material\": {\"model\": \"neo_hookean\", \"E\": 1e4, "
                                        "\"nu\": 0.4, \"density\": 100}}]}"
                                      : "{\"dim\": 3, \"bodies\": [{\"mesh\": {\"generate\": \"box\", \"max\": [1, 1, 1], "
                                        "\"cells\": [2, 2, 2]}, \"material\": {\"model\": \"stvk\", \"E\": 1e4, "
                                        "\"nu\": 0.3, \"density\": 100}}]}");
        size_t nd = f->n * (size_t)d;
        srand(3);
        for (size_t r = 0; r < nd; r++) {
            f->x[r] += 0.1 * (2.0 * rand() / RAND_MAX - 1.0);
            f->v[r] = 2.0 * rand() / RAND_MAX - 1.0;
        }
        /* Internal forces: zero resultant and zero moment. */
        double *force = malloc(nd * sizeof *force);
        fem_elastic(f, f->x, force, NULL);
        double sum[3] = {0, 0, 0}, torque = 0.0, scale = 0.0;
        for (size_t i = 0; i < f->n; i++) {
            for (int k = 0; k < d; k++) {
                sum[k] += force[i * d + k];
                scale = fmax(scale, fabs(force[i * d + k]));
            }
            torque += f->x[i * d] * force[i * d + 1] - f->x[i * d + 1] * force[i * d];
        }
        for (int k = 0; k < d; k++)
            assert_true(fabs(sum[k]) < 1e-12 * scale * (double)f->n);
        assert_true(fabs(torque) < 1e-12 * scale * (double)f->n);
        free(force);
        double p0[3];
        for (int k = 0; k < d; k++)
            p0[k] = total_momentum(f, k);
        fem_run(f, 0.01, 10);
        for (int k = 0; k < d; k++) {
            printf("%dD momentum[%d]: %.15e -> %.15e\n", d, k, p0[k], total_momentum(f, k));
            assert_float_equal(total_momentum(f, k), p0[k], 1e-9 * (fabs(p0[k]) + 1.0));
        }
        fem_destroy(&f);
    }
}

/* Energy error of an undamped, pre-stretched free body after time T. */
static double energy_error(const char *integrator, double dt, double T, int worst)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"dim\": 2, \"integrator\": \"%s\", \"newton\": {\"tolerance\": 1e-12}, "
             "\"linear_solver\": {\"tolerance\": 1e-12}, \"bodies\": [{\"mesh\": {\"generate\": \"rectangle\", "
             "\"max\": [1, 0.5], \"cells\": [4, 2]}, \"material\": {\"model\": \"corotated\", \"E\": 1e5, "
             "\"nu\": 0.3, \"density\": 1000}}]}",
             integrator);
    test_host th;
    fem *f = fem_make(&th, json);
    for (size_t i = 0; i < f->n; i++)
        f->x[2 * i] *= 1.05;
    double E0 = fem_energy(f), err = 0.0;
    int n = (int)lround(T / dt);
    for (int s = 0; s < n; s++) {
        fem_run(f, dt, 1);
        double e = fabs(fem_energy(f) - E0);
        err = worst ? fmax(err, e) : e;
    }
    fem_destroy(&f);
    return err / E0;
}

static void test_energy_order(void **state)
{
    (void)state;
    /* Backward Euler dissipates O(dt): halving dt halves the loss. */
    double T = 0.2;
    double be1 = energy_error("backward_euler", T / 2000, T, 0), be2 = energy_error("backward_euler", T / 4000, T, 0);
    printf("backward Euler energy loss after %.2f s: dt %.4g: %.4e, dt/2: %.4e, ratio %.3f\n", T, T / 2000, be1, be2,
           be1 / be2);
    assert_true(be1 / be2 > 1.6 && be1 / be2 < 2.4);
    /* Symplectic Euler: bounded energy error of first order. */
    test_host th;
    fem *f = fem_make(&th, "{\"dim\": 2, \"integrator\": \"explicit\", \"bodies\": [{\"mesh\": {\"generate\": "
                           "\"rectangle\", \"max\": [1, 0.5], \"cells\": [4, 2]}, \"material\": {\"model\": "
                           "\"corotated\", \"E\": 1e5, \"nu\": 0.3, \"density\": 1000}}]}");
    double dt = fem_max_dt(f);
    fem_destroy(&f);
    assert_true(dt > 0.0 && isfinite(dt));
    double ex0 = energy_error("explicit", dt, T, 1);
    double ex1 = energy_error("explicit", dt / 4, T, 1), ex2 = energy_error("explicit", dt / 8, T, 1);
    printf("explicit: max_dt %.4e; max energy error over %.2f s: max_dt: %.4e, max_dt/4: %.4e, max_dt/8: %.4e, "
           "ratio %.3f\n", dt, T, ex0, ex1, ex2, ex1 / ex2);
    assert_true(ex0 < 0.3);   /* stable (bounded) at the reported step */
    assert_true(ex1 / ex2 > 1.6 && ex1 / ex2 < 2.4);
}

/* Write a one-element Gmsh file in dir, return its path. */
static const char *one_element_msh(int d)
{
    static char path[4200];
    const char *dir = test_tmpdir(d == 2 ? "fem_tri" : "fem_tet");
    snprintf(path, sizeof path, "%s/one.msh", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    if (d == 2)
        fprintf(fp, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n"
                    "$EndNodes\n$Elements\n1 1 1 1\n2 1 2 1\n1 1 2 3\n$EndElements\n");
    else
        fprintf(fp, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n"
                    "0 1 0\n0 0 1\n$EndNodes\n$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 4\n$EndElements\n");
    fclose(fp);
    return path;
}

static void test_inversion_recovery(void **state)
{
    (void)state;
    static const char *const models[] = {"corotated", "neo_hookean", "stvk"};
    /* Collapsed shapes: 0 point, 1 line, 2 plane (3D only), 3 inverted. */
    static const char *const shapes[] = {"point", "line", "plane", "inverted"};
    for (int d = 2; d <= 3; d++) {
        const char *path = one_element_msh(d);
        for (int m = 0; m < 3; m++)
            for (int c = 0; c < 4; c++) {
                if (d == 2 && c == 2)
                    continue;
                char json[5000];
                snprintf(json, sizeof json,
                         "{\"dim\": %d, \"bodies\": [{\"mesh\": {\"file\": \"%s\"}, \"material\": {\"model\": \"%s\", "
                         "\"E\": 1000, \"nu\": 0.3, \"density\": 1, \"damping\": {\"alpha\": 20}}}]}",
                         d, path, models[m]);
                test_host th;
                fem *f = fem_make(&th, json);
                double *x = f->x;
                switch (c) {
                case 0:
                    for (size_t r = 0; r < f->n * (size_t)d; r++)
                        x[r] = 0.25;
                    break;
                case 1:   /* every node on the x axis */
                    for (size_t i = 0; i < f->n; i++)
                        for (int k = 0; k < d; k++)
                            x[i * d + k] = k == 0 ? 0.3 * (double)i * (i % 2 ? 1.0 : -1.0) : 0.0;
                    break;
                case 2:
                    x[3 * 3 + 0] = 0.3;
                    x[3 * 3 + 1] = 0.3;
                    x[3 * 3 + 2] = 0.0;
                    break;
                default:   /* last node through the opposite side */
                    x[d * d] = 0.2;
                    x[d * d + 1] = d == 2 ? -0.5 : 0.1;
                    if (d == 3)
                        x[d * d + 2] = -0.5;
                    break;
                }
                double F[9];
                fem_test_F(f, 0, x, F);
                double det0 = seam_det(d, F);
                fem_run(f, 0.01, 400);
                fem_test_F(f, 0, f->x, F);
                /* Rest shape up to a rotation: F^T F = I and det F = 1. */
                double err = 0.0;
                for (int i = 0; i < d; i++)
                    for (int j = 0; j < d; j++) {
                        double s = 0.0;
                        for (int k = 0; k < d; k++)
                            s += F[k * d + i] * F[k * d + j];
                        err = fmax(err, fabs(s - (i == j)));
                    }
                printf("%dD %-11s %-8s: det F %+.3f -> %+.6f, |F^T F - I| = %.2e\n", d, models[m], shapes[c], det0,
                       seam_det(d, F), err);
                assert_true(err < 1e-3);
                assert_float_equal(seam_det(d, F), 1.0, 1e-3);
                fem_destroy(&f);
            }
    }
}

static void test_newton_quadratic(void **state)
{
    (void)state;
    test_host th;
    fem *f = fem_make(&th, "{\"dim\": 2, \"newton\": {\"tolerance\": 1e-14, \"max_iterations\": 30}, "
                           "\"linear_solver\": {\"tolerance\": 1e-14, \"preconditioner\": \"ic0\"}, "
                           "\"bodies\": [{\"mesh\": {\"generate\": \"rectangle\", \"max\": [1, 0.5], \"cells\": [8, 4]},"
                           " \"material\": {\"model\": \"neo_hookean\", \"E\": 1e5, \"nu\": 0.3, \"density\": 1000},"
                           " \"pin\": {\"box\": {\"min\": [-1, -1], \"max\": [0.01, 1]}}}]}");
    for (size_t i = 0; i < f->n; i++)
        if (!f->fixed[i]) {
            f->x[2 * i] *= 1.3;
            f->x[2 * i + 1] += 0.1 * f->x[2 * i] * f->x[2 * i];
        }
    fem_step(f, 0.05, NULL);
    const fem_newton_log *nl = &f->newton;
    printf("Newton residuals (N/m):");
    for (int k = 0; k <= nl->iterations; k++)
        printf(" %.3e", nl->residual[k]);
    printf("\n");
    assert_true(nl->converged);
    /* Order estimate p = log(r_{k+1}/r_0) / log(r_k/r_0) in the asymptotic range. */
    double best = 0.0, r0 = nl->residual[0];
    for (int k = 1; k < nl->iterations; k++) {
        double a = nl->residual[k] / r0, b = nl->residual[k + 1] / r0;
        if (a < 1e-2 && b > 1e-13) {
            double p = log(b) / log(a);
            printf("  iteration %d -> %d: order %.2f\n", k, k + 1, p);
            best = fmax(best, p);
        }
    }
    assert_true(best > 1.8);
    fem_destroy(&f);
}

/* Static tip deflection of a clamped beam under its weight (one huge backward
 * Euler step is a static Newton solve) vs Euler-Bernoulli q L^4 / (8 E I). */
static double cantilever_error(int nx, int ny, double *tip)
{
    double L = 2.0, h = 0.1, E = 1e10, rho = 1000, g = 9.81;
    char json[1024];
    snprintf(json, sizeof json,
             "{\"dim\": 2, \"gravity\": [0, %g], \"newton\": {\"tolerance\": 1e-10}, \"linear_solver\": "
             "{\"tolerance\": 1e-12, \"max_iterations\": 100000, \"preconditioner\": \"ic0\"}, \"bodies\": [{\"mesh\": "
             "{\"generate\": \"rectangle\", \"max\": [%g, %g], \"cells\": [%d, %d]}, \"material\": {\"model\": "
             "\"corotated\", \"E\": %g, \"nu\": 0, \"density\": %g}, \"pin\": {\"box\": {\"min\": [-1, -1], \"max\": "
             "[1e-9, 1]}}}]}",
             -g, L, h, nx, ny, E, rho);
    test_host th;
    fem *f = fem_make(&th, json);
    assert_int_equal(fem_step(f, 1e4, NULL), SEAM_OK);
    fem_commit(f);
    double sum = 0.0;
    int count = 0;
    for (size_t i = 0; i < f->n; i++)
        if (f->X0[2 * i] > L - 1e-9) {
            sum += f->x[2 * i + 1] - f->X0[2 * i + 1];
            count++;
        }
    *tip = -sum / count;
    double I = h * h * h / 12.0, q = rho * g * h;
    double exact = q * L * L * L * L / (8.0 * E * I);
    fem_destroy(&f);
    return fabs(*tip - exact) / exact;
}

static void test_cantilever_convergence(void **state)
{
    (void)state;
    int levels[4][2] = {{20, 1}, {40, 2}, {80, 4}, {160, 8}};
    double prev = INFINITY;
    for (int l = 0; l < 4; l++) {
        double tip, err = cantilever_error(levels[l][0], levels[l][1], &tip);
        printf("cantilever %3dx%d: tip deflection %.6e m, relative error vs Euler-Bernoulli %.4f\n", levels[l][0],
               levels[l][1], tip, err);
        assert_true(err < prev);
        prev = err;
    }
    assert_true(prev < 0.05);
}

/* A chain of stiff springs between two pins settles onto the catenary
 * y = a cosh((x - 1/2)/a) - a cosh(1/(2a)) whose length is the chain's. */
static void test_catenary(void **state)
{
    (void)state;
    double len = 1.2;
    test_host th;
    fem *f = fem_make(&th, "{\"dim\": 2, \"gravity\": [0, -9.81], \"bodies\": [{\"mesh\": {\"generate\": \"chain\", "
                           "\"start\": [0, 0], \"end\": [1, 0], \"length\": 1.2, \"segments\": 60}, \"material\": "
                           "{\"kind\": \"shell\", \"k_stretch\": 1e7, \"b_stretch\": 1e3, \"density\": 1, "
                           "\"damping\": {\"alpha\": 2}}, \"pin\": {\"nodes\": [0, 60]}}]}");
    fem_run(f, 0.05, 300);
    double lo = 0.01, hi = 100.0;   /* 2 a sinh(1/(2a)) = len, decreasing in a */
    for (int it = 0; it < 200; it++) {
        double a = 0.5 * (lo + hi);
        if (2 * a * sinh(0.5 / a) > len)
            lo = a;
        else
            hi = a;
    }
    double a = 0.5 * (lo + hi), worst = 0.0, sag = a * cosh(0.5 / a) - a;
    for (size_t i = 0; i < f->n; i++) {
        double x = f->x[2 * i], y = f->x[2 * i + 1];
        double yc = a * cosh((x - 0.5) / a) - a * cosh(0.5 / a);
        worst = fmax(worst, fabs(y - yc));
    }
    double kinetic = 0.0;
    for (size_t r = 0; r < 2 * f->n; r++)
        kinetic += 0.5 * f->mass[r / 2] * f->v[r] * f->v[r];
    printf("catenary: a = %.6f, sag %.6f m, max |y - y_catenary| = %.3e m, kinetic energy %.2e J/m\n", a, sag,
           worst, kinetic);
    assert_true(kinetic < 1e-10);
    assert_true(worst < 1e-4 * sag);
    fem_destroy(&f);
}

/* Centre-of-mass height of a free disc after n backward-Euler steps, created
 * with `extra` config keys under the scene gravity g (NULL: none named). */
static double disc_fall(const double *g, const char *extra, test_host *th, double dt, int n)
{
    char json[1024];
    snprintf(json, sizeof json, "{\"dim\": 2, %s\"bodies\": [{\"mesh\": {\"generate\": \"disc\", \"radius\": 0.5, "
             "\"rings\": 2}, \"material\": {\"model\": \"neo_hookean\", \"E\": 1e6, \"nu\": 0.45, \"density\": 500}}]}",
             extra);
    test_host_init(th, "solid", "solids[0]");
    if (g)
        test_host_gravity(th, g[0], g[1], g[2]);
    fem *f = fem_new(json, &th->host);
    assert_non_null(f);
    fem_run(f, dt, n);
    double cy = 0.0, m = 0.0;
    for (size_t i = 0; i < f->n; i++) {
        cy += f->mass[i] * f->x[2 * i + 1];
        m += f->mass[i];
    }
    fem_destroy(&f);
    return cy / m;
}

/* The scene's gravity through the host when the configuration names none
 * (none at all without one); a configured gravity wins, with a warning. */
static void test_gravity_from_the_host(void **state)
{
    (void)state;
    double dt = 0.01, fall = dt * dt * 10 * 11 / 2.0;   /* 10 steps: g dt^2 n (n+1) / 2 */
    const double moon[3] = {0, -1.62, 0};
    test_host th;
    assert_float_equal(disc_fall(moon, "", &th, dt, 10), -1.62 * fall, 1e-10);
    assert_false(test_host_saw(&th, "overrides"));
    assert_float_equal(disc_fall(NULL, "", &th, dt, 10), 0.0, 1e-12);
    assert_float_equal(disc_fall(moon, "\"gravity\": [0, -9.81], ", &th, dt, 10), -9.81 * fall, 1e-10);
    assert_true(test_host_saw(&th, "solids[0].gravity: gravity [0, -9.81] from the configuration overrides the "
                                   "scene's gravity [0, -1.62]"));
    assert_float_equal(disc_fall(moon, "\"gravity\": [0, -1.62], ", &th, dt, 10), -1.62 * fall, 1e-10);
    assert_false(test_host_saw(&th, "overrides"));
}

/* Free fall: backward Euler gives x_n = x_0 + g dt^2 n (n+1) / 2 exactly, and
 * prescribed nodes move at their velocity while pinned ones stay. */
static void test_free_fall_and_constraints(void **state)
{
    (void)state;
    test_host th;
    fem *f = fem_make(&th, "{\"dim\": 2, \"gravity\": [0, -9.81], \"bodies\": [{\"mesh\": {\"generate\": \"disc\", "
                           "\"radius\": 0.5, \"rings\": 2}, \"material\": {\"model\": \"neo_hookean\", \"E\": 1e6, "
                           "\"nu\": 0.45, \"density\": 500}}, {\"name\": \"bar\", \"mesh\": {\"generate\": "
                           "\"rectangle\", \"min\": [2, 0], \"max\": [3, 0.2], \"cells\": [5, 1]}, \"material\": "
                           "{\"E\": 1e6, \"density\": 500}, \"pin\": {\"box\": {\"min\": [1.9, -1], \"max\": [2.01, 1]}}, "
                           "\"prescribed\": {\"box\": {\"min\": [2.99, -1], \"max\": [3.1, 1]}, \"velocity\": [0.5, 0]}}]}");
    double dt = 0.01;
    int n = 20;
    fem_run(f, dt, n);
    const fem_body *disc = &f->bodies[0];
    double cy = 0.0, m = 0.0;
    for (size_t i = disc->node0; i < disc->node0 + disc->n_nodes; i++) {
        cy += f->mass[i] * f->x[2 * i + 1];
        m += f->mass[i];
    }
    double expect = -9.81 * dt * dt * n * (n + 1) / 2.0;
    printf("free fall: centre of mass y %.12f, expected %.12f\n", cy / m, expect);
    assert_float_equal(cy / m, expect, 1e-10);
    int pinned = 0, moved = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (f->fixed[i] == 1) {
            assert_float_equal(f->x[2 * i], f->X0[2 * i], 0.0);
            assert_float_equal(f->x[2 * i + 1], f->X0[2 * i + 1], 0.0);
            pinned++;
        } else if (f->fixed[i] == 2) {
            assert_float_equal(f->x[2 * i], f->X0[2 * i] + 0.5 * dt * n, 1e-12);
            assert_float_equal(f->x[2 * i + 1], f->X0[2 * i + 1], 1e-12);
            moved++;
        }
    }
    assert_int_equal(pinned, 2);
    assert_int_equal(moved, 2);
    fem_destroy(&f);
}

/* Rayleigh damping on a rigid translation: alpha M gives v_n = v_0 / (1 + alpha dt)^n
 * under backward Euler, beta K leaves it untouched (K annihilates translations). */
static void test_rayleigh_damping(void **state)
{
    (void)state;
    for (int which = 0; which < 2; which++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"disc\", \"radius\": 1, \"rings\": 2}, "
                 "\"material\": {\"model\": \"neo_hookean\", \"E\": 1e5, \"density\": 100, \"damping\": "
                 "{\"alpha\": %g, \"beta\": %g}}, \"velocity\": [1.5, -0.5]}]}",
                 which == 0 ? 3.0 : 0.0, which == 0 ? 0.0 : 0.05);
        test_host th;
        fem *f = fem_make(&th, json);
        double dt = 0.01;
        int n = 30;
        fem_run(f, dt, n);
        double expect = which == 0 ? 1.5 / pow(1.0 + 3.0 * dt, n) : 1.5;
        /* Newton and CG stop at relative residuals near 1e-8, so the velocities
         * are that accurate, no more. */
        for (size_t i = 0; i < f->n; i++) {
            assert_float_equal(f->v[2 * i], expect, 1e-8);
            assert_float_equal(f->v[2 * i + 1], -0.5 * expect / 1.5, 1e-8);
        }
        printf("%s damping: v_x after %d steps %.12f, expected %.12f\n", which == 0 ? "alpha" : "beta", n, f->v[0],
               expect);
        fem_destroy(&f);
    }
}

/* A sagging block of 2592 tetrahedra (over the threaded-assembly threshold):
 * two steps with one thread and with two give the same bits (positions,
 * velocities, the energy and forces of the end state). */
static void test_threads_same_bits(void **state)
{
    (void)state;
    const char *json = "{\"dim\": 3, \"bodies\": [{\"mesh\": {\"generate\": \"box\", \"max\": [2, 1, 1], "
                       "\"cells\": [12, 6, 6]}, \"material\": {\"model\": \"neo_hookean\", \"E\": 1e5, "
                       "\"nu\": 0.3, \"density\": 100}, \"pin\": {\"box\": {\"min\": [-1, -1, -1], \"max\": [0.01, 2, 2]}}}]}";
    double *x[2], *v[2], energy[2], *force[2];
    size_t nd = 0;
#ifdef _OPENMP
    int before = omp_get_max_threads();
#endif
    for (int run = 0; run < 2; run++) {
#ifdef _OPENMP
        omp_set_num_threads(run + 1);
#endif
        test_host th;
        fem *f = fem_make(&th, json);
        assert_true(f->n_elems >= 2048);
        fem_run(f, 0.01, 2);
        nd = f->n * 3;
        x[run] = malloc(nd * sizeof(double));
        v[run] = malloc(nd * sizeof(double));
        force[run] = malloc(nd * sizeof(double));
        memcpy(x[run], f->x, nd * sizeof(double));
        memcpy(v[run], f->v, nd * sizeof(double));
        energy[run] = fem_elastic(f, f->x, force[run], NULL);
        fem_destroy(&f);
    }
#ifdef _OPENMP
    omp_set_num_threads(before);
#endif
    assert_true(energy[0] > 0.0);   /* it sagged */
    assert_memory_equal(x[0], x[1], nd * sizeof(double));
    assert_memory_equal(v[0], v[1], nd * sizeof(double));
    assert_memory_equal(force[0], force[1], nd * sizeof(double));
    assert_memory_equal(&energy[0], &energy[1], sizeof(double));
    for (int run = 0; run < 2; run++) {
        free(x[run]);
        free(v[run]);
        free(force[run]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_momentum_conservation),
        cmocka_unit_test(test_energy_order),
        cmocka_unit_test(test_inversion_recovery),
        cmocka_unit_test(test_newton_quadratic),
        cmocka_unit_test(test_cantilever_convergence),
        cmocka_unit_test(test_catenary),
        cmocka_unit_test(test_free_fall_and_constraints),
        cmocka_unit_test(test_gravity_from_the_host),
        cmocka_unit_test(test_rayleigh_damping),
                                       cmocka_unit_test(test_threads_same_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
