/* solid_rigid dynamics against analytic answers: free flight, torque-free
 * rotation, load patterns, mobility, rigidity, prescribed and constrained motion. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"

static void rot2(double th, const double *a, double *out)
{
    out[0] = cos(th) * a[0] - sin(th) * a[1];
    out[1] = sin(th) * a[0] + cos(th) * a[1];
}

/* The scene's gravity through the host when the configuration names none;
 * a configured gravity wins, with a warning. */
static void test_gravity_from_the_host(void **state)
{
    (void)state;
    const double scene[3] = {0.5, -2.0, 0};
    const char *ball = "\"spacing\": 0.05, \"bodies\": [{\"name\": \"ball\", \"shape\": \"circle\", \"radius\": 0.1,"
                       " \"density\": 500, \"position\": [0, 0]}]}";
    char json[512];
    const char *own[3] = {"", "\"gravity\": [0, -9.81], ", "\"gravity\": [0.5, -2], "};
    const double want[3][2] = {{0.5, -2.0}, {0.0, -9.81}, {0.5, -2.0}};
    for (int i = 0; i < 3; i++) {
        snprintf(json, sizeof json, "{\"dim\": 2, %s%s", own[i], ball);
        fixture *f = fixture_new_in(scene, json);
        assert_non_null(f->rs);
        for (int n = 0; n < 100; n++)
            assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
        const rigid_state *S = fixture_state(f, 0);
        assert_close(S->v[0], want[i][0] * 0.1, 1e-12);
        assert_close(S->v[1], want[i][1] * 0.1, 1e-12);
        assert_true(test_host_saw(&f->th, "overrides the scene's gravity") == (i == 1));
        if (i == 1)
            assert_true(test_host_saw(&f->th, "solids[0].gravity: gravity [0, -9.81] from the configuration overrides "
                                              "the scene's gravity [0.5, -2]"));
        fixture_destroy(f);
    }
    /* no scene gravity: the default, -9.81 along y */
    snprintf(json, sizeof json, "{\"dim\": 3, \"spacing\": 0.1, \"bodies\": [{\"name\": \"box\", \"shape\": \"box\","
             " \"size\": [0.2, 0.2, 0.2], \"density\": 500}]}");
    fixture *f = fixture_new(json);
    assert_non_null(f->rs);
    assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
    assert_close(fixture_state(f, 0)->v[1], -9.81e-3, 1e-15);
    assert_close(fixture_state(f, 0)->v[0], 0.0, 1e-15);
    assert_int_equal(solid_rigid_table()->capabilities(f->rs), SEAM_CAP_RIGID | SEAM_CAP_MOBILITY | SEAM_CAP_SAVE);
    fixture_destroy(f);
}

/* A projectile in 2D and a spinning 3D box under gravity and a constant force
 * follow x0 + v0 t + a t^2 / 2 to round-off. */
static void test_projectile(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.05, \"bodies\": ["
                             "{\"name\": \"ball\", \"shape\": \"circle\", \"radius\": 0.1, \"density\": 500,"
                             " \"position\": [0.5, 2.0], \"velocity\": [3.0, 4.0], \"angular_velocity\": 2.5}]}");
    assert_non_null(f->rs);
    double dt = 1e-3;
    for (int n = 0; n < 1000; n++)
        assert_int_equal(fixture_step(f, dt, NULL), SEAM_OK);
    const rigid_state *S = fixture_state(f, 0);
    double t = 1000 * dt;
    assert_close(S->x[0], 0.5 + 3.0 * t, 1e-12);
    assert_close(S->x[1], 2.0 + 4.0 * t - 0.5 * 9.81 * t * t, 1e-12);
    assert_close(S->v[1], 4.0 - 9.81 * t, 1e-12);
    assert_close(S->w[2], 2.5, 1e-15);
    fixture_destroy(f);

    f = fixture_new("{\"dim\": 3, \"gravity\": [0, -9.81, 0], \"spacing\": 0.1, \"bodies\": ["
                    "{\"name\": \"brick\", \"shape\": \"box\", \"size\": [0.4, 0.2, 0.1], \"mass\": 2.0,"
                    " \"position\": [0, 1, 0], \"velocity\": [1, 2, -1], \"angular_velocity\": [0.3, 1.1, -0.7],"
                    " \"forces\": [{\"force\": [4, 0, 2]}]}]}");
    assert_non_null(f->rs);
    for (int n = 0; n < 1000; n++)
        assert_int_equal(fixture_step(f, dt, NULL), SEAM_OK);
    S = fixture_state(f, 0);
    double a[3] = {2.0, -9.81, 1.0}, x0[3] = {0, 1, 0}, v0[3] = {1, 2, -1};
    for (int k = 0; k < 3; k++) {
        assert_close(S->x[k], x0[k] + v0[k] * t + 0.5 * a[k] * t * t, 1e-12);
        assert_close(S->v[k], v0[k] + a[k] * t, 1e-12);
    }
    fixture_destroy(f);
}

static double energy(const rigid_body *b, const rigid_state *S)
{
    return 0.5 * b->m * (S->v[0] * S->v[0] + S->v[1] * S->v[1] + S->v[2] * S->v[2]) +
           0.5 * (S->w[0] * S->L[0] + S->w[1] * S->L[1] + S->w[2] * S->L[2]);
}

/* A box with three different moments spinning near its unstable middle axis:
 * energy and angular momentum stay put over 10^4 steps. */
static void test_torque_free_asymmetric(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 3, \"gravity\": [0, 0, 0], \"spacing\": 0.5, \"bodies\": ["
                             "{\"name\": \"racket\", \"shape\": \"box\", \"size\": [1, 2, 3], \"density\": 10,"
                             " \"angular_velocity\": [0.05, 2.0, 0.04]}]}");
    assert_non_null(f->rs);
    const rigid_body *b = rigid_get_body(f->rs, 0);
    const rigid_state *S = fixture_state(f, 0);
    double E0 = energy(b, S), L0[3] = {S->L[0], S->L[1], S->L[2]}, Ln = sqrt(L0[0] * L0[0] + L0[1] * L0[1] + L0[2] * L0[2]);
    double wy_min = INFINITY;
    for (int n = 0; n < 10000; n++) {
        assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
        double R[9], wb[3];
        q_to_mat(R, S->q);
        seam_m3_mul_tv(wb, R, S->w);
        wy_min = fmin(wy_min, wb[1]);
    }
    assert_true(fabs(energy(b, S) - E0) <= 1e-6 * E0);
    for (int k = 0; k < 3; k++)
        assert_true(fabs(S->L[k] - L0[k]) <= 1e-6 * Ln);
    assert_true(wy_min < -1.0);   /* the spin about the middle axis flipped (Dzhanibekov), yet E and L held */
    fixture_destroy(f);
}

/* A symmetric top (I1 = I2): the body-frame angular velocity turns about the
 * symmetry axis at Omega = (I3 - I1) w3 / I1 (Euler's equations). */
static void test_precession(void **state)
{
    (void)state;
    double A = 0.3, w3 = 2.0;
    char json[512];
    snprintf(json, sizeof json, "{\"dim\": 3, \"gravity\": [0, 0, 0], \"spacing\": 0.5, \"bodies\": ["
             "{\"name\": \"top\", \"shape\": \"box\", \"size\": [1, 1, 2], \"density\": 3,"
             " \"angular_velocity\": [%.17g, 0, %.17g]}]}", A, w3);
    fixture *f = fixture_new(json);
    assert_non_null(f->rs);
    const rigid_body *b = rigid_get_body(f->rs, 0);
    double Om = (b->I0[2] - b->I0[0]) * w3 / b->I0[0];
    assert_close(Om, (2.0 - 5.0) / 5.0 * w3, 1e-12);
    double dt = 1e-3;
    for (int n = 1; n <= 5000; n++) {
        assert_int_equal(fixture_step(f, dt, NULL), SEAM_OK);
        if (n % 1000)
            continue;
        const rigid_state *S = fixture_state(f, 0);
        double R[9], wb[3], t = n * dt;
        q_to_mat(R, S->q);
        seam_m3_mul_tv(wb, R, S->w);
        assert_close(wb[0], A * cos(Om * t), 1e-5);
        assert_close(wb[1], A * sin(Om * t), 1e-5);
        assert_close(wb[2], w3, 1e-12);
    }
    fixture_destroy(f);
}

/* A pattern of point loads gives a = sum F / m and alpha = I^-1 sum r x F. */
static void test_load_pattern(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, 0], \"spacing\": 0.05, \"bodies\": ["
                             "{\"name\": \"plank\", \"shape\": \"rectangle\", \"size\": [0.4, 0.2], \"density\": 100,"
                             " \"position\": [1, 2]}]}");
    assert_non_null(f->rs);
    size_t n = f->iface.n_points;
    double *F = malloc(2 * n * sizeof *F), Fs[2] = {0, 0}, tau = 0.0;
    for (size_t i = 0; i < n; i++) {
        F[2 * i] = sin((double)i);
        F[2 * i + 1] = cos(2.0 * (double)i) + 0.3;
        Fs[0] += F[2 * i];
        Fs[1] += F[2 * i + 1];
        tau += (f->iface.X[2 * i] - 1.0) * F[2 * i + 1] - (f->iface.X[2 * i + 1] - 2.0) * F[2 * i];
    }
    double m = 100 * 0.4 * 0.2, I = m * (0.16 + 0.04) / 12.0, dt = 1e-6;
    assert_int_equal(fixture_step(f, dt, F), SEAM_OK);
    const rigid_state *S = fixture_state(f, 0);
    assert_close(S->v[0] / dt, Fs[0] / m, 1e-12 * fabs(Fs[0] / m));
    assert_close(S->v[1] / dt, Fs[1] / m, 1e-12 * fabs(Fs[1] / m));
    assert_close(S->w[2] / dt, tau / I, 1e-12 * fabs(tau / I));
    assert_close(S->x[0], 1.0 + 0.5 * dt * dt * Fs[0] / m, 1e-14);
    free(F);
    fixture_destroy(f);

    f = fixture_new("{\"dim\": 3, \"gravity\": [0, 0, 0], \"spacing\": 0.05, \"bodies\": ["
                    "{\"name\": \"brick\", \"shape\": \"box\", \"size\": [0.3, 0.2, 0.1], \"density\": 700}]}");
    assert_non_null(f->rs);
    n = f->iface.n_points;
    F = malloc(3 * n * sizeof *F);
    double F3[3] = {0, 0, 0}, T3[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        double *Fi = F + 3 * i;
        seam_v3_set(Fi, sin(1.3 * (double)i), cos(0.7 * (double)i), 0.2 * sin(2.1 * (double)i) + 0.1);
        seam_v3_add(F3, F3, Fi);
    }
    m = 700 * 0.3 * 0.2 * 0.1;
    double I0[3] = {m * (0.04 + 0.01) / 12, m * (0.09 + 0.01) / 12, m * (0.09 + 0.04) / 12};
    dt = 1e-5;
    assert_int_equal(fixture_step(f, dt, F), SEAM_OK);
    S = fixture_state(f, 0);
    for (size_t i = 0; i < n; i++) {   /* the loads act where the step ends: their arms are taken there */
        double arm[3], t[3];
        seam_v3_sub(arm, f->X + 3 * i, S->x);
        seam_v3_cross(t, arm, F + 3 * i);
        seam_v3_add(T3, T3, t);
    }
    for (int k = 0; k < 3; k++) {
        assert_close(S->v[k], dt * F3[k] / m, 1e-14);
        assert_close(S->L[k] / dt, T3[k], 1e-12 * seam_v3_norm(T3));   /* dL/dt = tau */
        /* the box turned by ~dt |w| / 2 during the step: alpha = I^-1 tau to that order */
        assert_close(S->w[k] / dt, T3[k] / I0[k], 1e-6 * fabs(T3[k] / I0[k]) + 1e-9);
    }
    free(F);
    fixture_destroy(f);
}

/* Consistent nodal loads of the hydrostatic pressure p = rho g (h - y) on the
 * interface at positions X, as a fluid would hand them over:
 * F_a = -int N_a p n dA per element (exact for linear p on flat elements). */
static void hydrostatic_loads(const seam_interface *I, const double *X, double rho, double g, double h, double *F)
{
    int dim = I->dim;
    memset(F, 0, I->n_points * (size_t)dim * sizeof *F);
    for (size_t e = 0; e < I->n_elems; e++) {
        const int32_t *el = I->elems + (size_t)dim * e;
        double p[3], N[3] = {0, 0, 0};
        for (int k = 0; k < dim; k++)
            p[k] = rho * g * (h - X[(size_t)dim * (size_t)el[k] + 1]);
        if (dim == 2) {
            const double *a = X + 2 * el[0], *b = X + 2 * el[1];
            seam_v3_set(N, b[1] - a[1], -(b[0] - a[0]), 0);   /* length times outward normal */
            for (int d = 0; d < 2; d++) {
                F[2 * (size_t)el[0] + (size_t)d] -= (2 * p[0] + p[1]) / 6.0 * N[d];
                F[2 * (size_t)el[1] + (size_t)d] -= (p[0] + 2 * p[1]) / 6.0 * N[d];
            }
        } else {
            double ab[3], ac[3];
            seam_v3_sub(ab, X + 3 * el[1], X + 3 * el[0]);
            seam_v3_sub(ac, X + 3 * el[2], X + 3 * el[0]);
            seam_v3_cross(N, ab, ac);
            seam_v3_scale(N, 0.5, N);   /* area times outward normal */
            for (int k = 0; k < 3; k++) {
                double w = (2 * p[k] + p[(k + 1) % 3] + p[(k + 2) % 3]) / 12.0;
                for (int d = 0; d < 3; d++)
                    F[3 * (size_t)el[k] + (size_t)d] -= w * N[d];
            }
        }
    }
}

/* Archimedes: a tilted body as dense as the fluid floats at rest under the
 * hydrostatic loads on its samples; a body of half that density rises at g. */
static void check_archimedes(const char *json_fmt, int dim)
{
    double rho_f = 1000.0, g = 9.81;
    for (int k = 0; k < 2; k++) {
        char json[512];
        snprintf(json, sizeof json, json_fmt, k == 0 ? rho_f : 0.5 * rho_f);
        fixture *f = fixture_new(json);
        assert_non_null(f->rs);
        double *F = malloc(f->nd * sizeof *F), *X = malloc(f->nd * sizeof *X);
        memcpy(X, f->iface.X, f->nd * sizeof *X);
        const rigid_state *S = fixture_state(f, 0);
        for (int s = 0; s < (k == 0 ? 100 : 1); s++) {
            hydrostatic_loads(&f->iface, X, rho_f, g, 5.0, F);
            assert_int_equal(fixture_step(f, 1e-2, F), SEAM_OK);
            memcpy(X, f->X, f->nd * sizeof *X);
        }
        if (k == 0) {
            assert_true(seam_v3_norm(S->v) < 1e-12 && seam_v3_norm(S->w) < 1e-11);
        } else {
            assert_close(S->v[1] / 1e-2, g, 1e-10);   /* (rho_f / rho - 1) g */
            assert_close(S->v[0], 0.0, 1e-13);
            assert_true(seam_v3_norm(S->w) < 1e-11);
        }
        (void)dim;
        free(F);
        free(X);
        fixture_destroy(f);
    }
}

static void test_archimedes(void **state)
{
    (void)state;
    check_archimedes("{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.05, \"bodies\": [{\"name\": \"log\","
                     " \"shape\": \"rectangle\", \"size\": [0.6, 0.2], \"density\": %g, \"position\": [1, 2],"
                     " \"angle\": 0.4}]}", 2);
    check_archimedes("{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.05, \"bodies\": [{\"name\": \"ell\","
                     " \"shape\": \"polygon\", \"vertices\": [[0,0],[0.3,0],[0.3,0.1],[0.1,0.1],[0.1,0.25],[0,0.25]],"
                     " \"density\": %g, \"position\": [1, 2], \"angle\": -0.3}]}", 2);
    check_archimedes("{\"dim\": 3, \"gravity\": [0, -9.81, 0], \"spacing\": 0.1, \"bodies\": [{\"name\": \"crate\","
                     " \"shape\": \"box\", \"size\": [0.5, 0.3, 0.2], \"density\": %g, \"position\": [1, 2, 0],"
                     " \"orientation\": [0.9, 0.2, 0.3, -0.1]}]}", 3);
}

/* Consistent loads of a uniform pressure p0 on the interface at positions X. */
static void uniform_pressure_loads(const seam_interface *I, const double *X, double p0, double *F)
{
    int dim = I->dim;
    memset(F, 0, I->n_points * (size_t)dim * sizeof *F);
    for (size_t e = 0; e < I->n_elems; e++) {
        const int32_t *el = I->elems + (size_t)dim * e;
        double N[3];
        if (dim == 2) {
            const double *a = X + 2 * el[0], *b = X + 2 * el[1];
            seam_v3_set(N, b[1] - a[1], -(b[0] - a[0]), 0);   /* length times outward normal */
        } else {
            double ab[3], ac[3];
            seam_v3_sub(ab, X + 3 * el[1], X + 3 * el[0]);
            seam_v3_sub(ac, X + 3 * el[2], X + 3 * el[0]);
            seam_v3_cross(N, ab, ac);
            seam_v3_scale(N, 0.5, N);   /* area times outward normal */
        }
        for (int k = 0; k < dim; k++)
            for (int d = 0; d < dim; d++)
                F[(size_t)dim * (size_t)el[k] + (size_t)d] -= p0 / dim * N[d];
    }
}

/* A uniform pressure pushes on no closed body, whatever its level (a fluid's
 * pressure is known up to a constant): a spinning body keeps its angular
 * velocity. The loads are those of the positions where each step ends, found
 * as a coupler finds them (solve, load the new positions, solve again); with
 * the loads' arms taken a step's turn behind, p0 alone spun the body up or
 * down by dt^2 p0 (2 x area) / I per step (2.4 % here; the rising disc's
 * blow-up at the lid). */
static void check_uniform_pressure_keeps_the_spin(const char *json, int axis, double w0)
{
    for (int sign = -1; sign <= 1; sign += 2) {
        fixture *f = fixture_new(json);
        assert_non_null(f->rs);
        double *F = malloc(f->nd * sizeof *F), *X = malloc(f->nd * sizeof *X);
        memcpy(X, f->iface.X, f->nd * sizeof *X);
        double dt = 0.01, p0 = sign * 2000.0;
        for (int s = 0; s < 100; s++) {
            double moved = INFINITY;
            for (int it = 0; it < 100 && moved > 1e-14; it++) {
                uniform_pressure_loads(&f->iface, X, p0, F);
                assert_int_equal(fixture_solve(f, dt, F), SEAM_OK);
                moved = 0.0;
                for (size_t i = 0; i < f->nd; i++)
                    moved = fmax(moved, fabs(f->X[i] - X[i]));
                memcpy(X, f->X, f->nd * sizeof *X);
            }
            assert_true(moved <= 1e-14);
            f->t += dt;
            f->step++;
            assert_int_equal(rigid_commit(f->rs), SEAM_OK);
        }
        const rigid_state *S = fixture_state(f, 0);
        assert_close(S->w[axis], w0, 1e-9 * w0);
        assert_true(seam_v3_norm(S->v) < 1e-12);
        free(F);
        free(X);
        fixture_destroy(f);
    }
}

static void test_uniform_pressure_keeps_the_spin(void **state)
{
    (void)state;
    /* a 0.6 x 0.2 plank of 500 kg/m^3: I = 2 kg m, 2 x area 0.24 m^2 */
    check_uniform_pressure_keeps_the_spin("{\"dim\": 2, \"gravity\": [0, 0], \"spacing\": 0.05, \"bodies\": ["
                                          "{\"name\": \"plank\", \"shape\": \"rectangle\", \"size\": [0.6, 0.2],"
                                          " \"density\": 500, \"position\": [1, 2], \"angular_velocity\": 2}]}",
                                          2, 2.0);
    /* a cube spinning about an axis of symmetry stays on it */
    check_uniform_pressure_keeps_the_spin("{\"dim\": 3, \"gravity\": [0, 0, 0], \"spacing\": 0.1, \"bodies\": ["
                                          "{\"name\": \"cube\", \"shape\": \"box\", \"size\": [0.4, 0.4, 0.4],"
                                          " \"density\": 500, \"angular_velocity\": [0, 0, 2]}]}",
                                          2, 2.0);
}

/* A light disc (100 kg/m^2, R = 0.15 m) at rest under a uniform pressure p0
 * whose loads the fluid computed with the disc turned by delta: with the
 * arms turned by theta the loads' torque is K sin(theta - delta), K = p0
 * 2 x area, and the step (kick, then the drift with the mean angular
 * velocity) ends at theta = c sin(theta - delta), c = dt^2 K / (2 I). At
 * c = 3 plain sweeps of the arms multiply their change by about -3 and
 * diverge; the secant sweeps find the root near delta (1.5 delta to first
 * order; Newton below). */
static void test_light_body_arms_settle(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, 0], \"spacing\": 0.03, \"bodies\": [{\"name\": \"disc\", "
                             "\"shape\": \"circle\", \"radius\": 0.15, \"density\": 100, \"position\": [0.5, 0.5]}]}");
    assert_non_null(f->rs);
    size_t n = f->iface.n_points;
    double R = 0.15, m = 100 * M_PI * R * R, I = 0.5 * m * R * R, dt = 0.01, c = 3.0, delta = 0.01;
    double K = c * 2.0 * I / (dt * dt), L = 2.0 * M_PI * R / (double)n, p0 = K / (2.0 * M_PI * R * R);
    double *F = calloc(2 * n, sizeof *F);
    for (size_t i = 0; i < n; i++) {
        double ax = f->iface.X[2 * i] - 0.5, ay = f->iface.X[2 * i + 1] - 0.5, r = hypot(ax, ay);
        double nx = (cos(delta) * ax - sin(delta) * ay) / r, ny = (sin(delta) * ax + cos(delta) * ay) / r;
        F[2 * i] = -p0 * L * nx * (r / R), F[2 * i + 1] = -p0 * L * ny * (r / R);
    }
    /* the samples lie on the circle, so the torque is exactly K' sin(theta - delta) with K' from them */
    double Kp = 0.0;
    for (size_t i = 0; i < n; i++) {
        double ax = f->iface.X[2 * i] - 0.5, ay = f->iface.X[2 * i + 1] - 0.5;
        Kp += (ax * F[2 * i + 1] - ay * F[2 * i]) / sin(-delta);   /* tau(0) = K' sin(-delta) */
    }
    double cp = dt * dt * Kp / (2.0 * I), th = 1.5 * delta;
    for (int it = 0; it < 60; it++)
        th -= (th - cp * sin(th - delta)) / (1.0 - cp * cos(th - delta));
    assert_true(cp > 2.5);   /* plain sweeps diverge */
    assert_int_equal(fixture_step(f, dt, F), SEAM_OK);
    const rigid_state *S = fixture_state(f, 0);
    assert_close(2.0 * atan2(S->q[3], S->q[0]), th, 1e-12);
    free(F);
    fixture_destroy(f);
}

/* The same in 3D: a light ball (100 kg/m^3, R = 0.15 m, I = 2/5 m R^2) at
 * rest under a uniform pressure p0 whose loads the fluid computed with the
 * ball turned by D (0.01 rad about a tilted axis). With the arms turned by
 * a (rotation vector) the loads' torque is about K sin(|a - D|) about the
 * axis from D to a, K = 2 p0 x volume, and the step ends at
 * a = dt^2 tau(a) / (2 I). At dt^2 K / (2 I) = 3 plain sweeps diverge; the
 * Broyden sweeps must end at that fixed point, checked with the torque of
 * the given loads on the arms where the ball ends. */
static void test_light_ball_arms_settle(void **state)
{
    (void)state;
    double R = 0.15, rho = 100.0, m = rho * 4.0 / 3.0 * M_PI * R * R * R, I = 0.4 * m * R * R, dt = 0.01;
    double K = 3.0 * 2.0 * I / (dt * dt), p0 = K / (2.0 * 4.0 / 3.0 * M_PI * R * R * R);
    fixture *f = fixture_new("{\"dim\": 3, \"gravity\": [0, 0, 0], \"spacing\": 0.04, \"bodies\": [{\"name\": "
                             "\"ball\", \"shape\": \"sphere\", \"radius\": 0.15, \"density\": 100, \"position\": "
                             "[0.5, 0.5, 0.5]}]}");
    assert_non_null(f->rs);
    size_t n = f->iface.n_points;
    double D[3] = {0.006, -0.0048, 0.0064}, qd[4], Rd[9], c[3] = {0.5, 0.5, 0.5};   /* |D| = 0.01 */
    q_exp(qd, D);
    q_to_mat(Rd, qd);
    double area = 4.0 * M_PI * R * R / (double)n, *F = calloc(3 * n, sizeof *F);
    for (size_t i = 0; i < n; i++) {
        double x[3], nrm[3];
        seam_v3_sub(x, f->iface.X + 3 * i, c);
        seam_m3_mul_v(nrm, Rd, x);
        seam_v3_scale(F + 3 * i, -p0 * area / seam_v3_norm(x), nrm);
    }
    assert_int_equal(fixture_step(f, dt, F), SEAM_OK);
    const rigid_state *S = fixture_state(f, 0);
    double a[3], tau[3] = {0, 0, 0};
    q_log(a, S->q);
    for (size_t i = 0; i < n; i++) {
        double arm[3], t[3];
        seam_v3_sub(arm, f->X + 3 * i, S->x);
        seam_v3_cross(t, arm, F + 3 * i);
        seam_v3_add(tau, tau, t);
    }
    for (int d = 0; d < 3; d++)
        assert_close(a[d], dt * dt * tau[d] / (2.0 * I), 1e-9 * seam_v3_norm(a));
    double moved[3];
    seam_v3_sub(moved, a, D);
    print_message("ball turned by |a| = %.6g (D %.6g), |a - D| = %.3g\n", seam_v3_norm(a), seam_v3_norm(D), seam_v3_norm(moved));
    assert_true(seam_v3_norm(a) > 1.2 * seam_v3_norm(D));   /* the fixed point beyond D, as in 2D (about 1.5 D) */
    free(F);
    fixture_destroy(f);
}

/* bodies: each body's committed centre of mass and rotation, and its point range. */
static void test_bodies_entry(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.05, \"bodies\": ["
                             "{\"name\": \"a\", \"shape\": \"rectangle\", \"size\": [0.4, 0.2], \"density\": 500,"
                             " \"position\": [1, 2], \"angle\": 0.3},"
                             "{\"name\": \"b\", \"shape\": \"circle\", \"radius\": 0.1, \"density\": 500,"
                             " \"position\": [3, 2]}]}");
    assert_non_null(f->rs);
    seam_bodies b;
    assert_int_equal(rigid_bodies(f->rs, &b), SEAM_OK);
    assert_int_equal(b.count, 2);
    assert_int_equal(b.first[0], 0);
    assert_int_equal(b.first[1], b.points[0]);
    assert_int_equal((size_t)(b.first[1] + b.points[1]), f->iface.n_points);
    for (size_t k = 0; k < 2; k++)
        for (int64_t i = b.first[k]; i < b.first[k] + b.points[k]; i++)
            assert_int_equal(f->iface.body[i], (int32_t)k);
    assert_close(b.centre[0], 1.0, 1e-15);
    assert_close(b.centre[1], 2.0, 1e-15);
    assert_close(b.rotation[0], cos(0.3), 1e-15);
    assert_close(b.rotation[3], sin(0.3), 1e-15);
    assert_close(b.rotation[8], 1.0, 1e-15);
    assert_close(b.centre[3], 3.0, 1e-15);
    /* after a step under gravity: the committed pose, x = x0 + g dt^2 / 2 */
    assert_int_equal(fixture_step(f, 0.1, NULL), SEAM_OK);
    assert_int_equal(rigid_bodies(f->rs, &b), SEAM_OK);
    assert_close(b.centre[1], 2.0 - 0.5 * 9.81 * 0.01, 1e-12);
    fixture_destroy(f);
}

/* mobility equals the finite-difference response of solve to an impulse
 * pattern, for free, constrained and kinematic bodies. */
static void check_mobility(const char *json)
{
    fixture *f = fixture_new(json);
    assert_non_null(f->rs);
    size_t nd = f->nd;
    double *J = malloc(nd * sizeof *J), *dv = malloc(nd * sizeof *dv), *F = malloc(nd * sizeof *F),
           *V0 = malloc(nd * sizeof *V0);
    for (size_t i = 0; i < nd; i++)
        J[i] = sin(0.37 * (double)i + 0.1) + 0.5 * cos(1.9 * (double)i);
    assert_int_equal(rigid_mobility(f->rs, J, dv), SEAM_OK);
    double dt = 1e-7, eps = 1e-3, scale = 0.0;   /* a short step: the body barely turns */
    assert_int_equal(fixture_solve(f, dt, NULL), SEAM_OK);
    memcpy(V0, f->V, nd * sizeof *V0);
    for (size_t i = 0; i < nd; i++) {
        F[i] = eps * J[i] / dt;   /* the impulse J delivered as a load over one step */
        scale = fmax(scale, fabs(dv[i]));
    }
    assert_true(scale > 0);
    assert_int_equal(fixture_solve(f, dt, F), SEAM_OK);
    for (size_t i = 0; i < nd; i++)
        assert_close((f->V[i] - V0[i]) / eps, dv[i], 1e-6 * scale);
    free(J);
    free(dv);
    free(F);
    free(V0);
    fixture_destroy(f);
}

static void test_mobility(void **state)
{
    (void)state;
    check_mobility("{\"dim\": 2, \"gravity\": [0, 0], \"spacing\": 0.05, \"bodies\": ["
                   "{\"name\": \"ell\", \"shape\": \"polygon\", \"vertices\": [[0,0],[0.3,0],[0.3,0.1],[0.1,0.1],"
                   "[0.1,0.25],[0,0.25]], \"density\": 300, \"velocity\": [0.2, 0.1], \"angular_velocity\": 0.3},"
                   "{\"name\": \"slider\", \"shape\": \"rectangle\", \"size\": [0.2, 0.1], \"density\": 200,"
                   " \"position\": [1, 0], \"constraint\": {\"translate_along\": [1, 1]}},"
                   "{\"name\": \"door\", \"shape\": \"rectangle\", \"size\": [0.4, 0.05], \"density\": 200,"
                   " \"position\": [2, 0], \"constraint\": {\"rotate_about\": [1.8, 0]}},"
                   "{\"name\": \"wall\", \"shape\": \"circle\", \"radius\": 0.1, \"position\": [3, 0],"
                   " \"kinematic\": {\"velocity\": [1, 0]}}]}");
    check_mobility("{\"dim\": 3, \"gravity\": [0, 0, 0], \"spacing\": 0.1, \"bodies\": ["
                   "{\"name\": \"brick\", \"shape\": \"box\", \"size\": [0.4, 0.2, 0.3], \"density\": 300,"
                   " \"orientation\": [0.9, 0.1, 0.3, -0.2]},"
                   "{\"name\": \"ball\", \"shape\": \"sphere\", \"radius\": 0.2, \"density\": 100, \"position\": [1,0,0]},"
                   "{\"name\": \"flap\", \"shape\": \"box\", \"size\": [0.4, 0.05, 0.2], \"density\": 100,"
                   " \"position\": [2, 0, 0], \"constraint\": {\"rotate_about\": [2, 0.3, 0], \"axis\": [0, 0, 1]}}]}");
}

/* A unit impulse at every point of a body at rest: dv = n / m everywhere (no torque by symmetry of the sum). */
static void test_mobility_uniform(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 3, \"gravity\": [0, 0, 0], \"spacing\": 0.1, \"bodies\": ["
                             "{\"name\": \"ball\", \"shape\": \"sphere\", \"radius\": 0.3, \"mass\": 2.0}]}");
    assert_non_null(f->rs);
    double *J = calloc(f->nd, sizeof *J), *dv = calloc(f->nd, sizeof *dv);
    size_t n = f->iface.n_points;
    for (size_t i = 0; i < n; i++)
        J[3 * i + 1] = 1.0;
    assert_int_equal(rigid_mobility(f->rs, J, dv), SEAM_OK);
    for (size_t i = 0; i < n; i++) {
        assert_close(dv[3 * i + 1], (double)n / 2.0, 1e-9 * (double)n);
        assert_close(dv[3 * i], 0.0, 1e-9 * (double)n);
    }
    free(J);
    free(dv);
    fixture_destroy(f);
}

/* The samples of a tumbling, falling box keep their pairwise distances. */
static void test_rigid_samples(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 3, \"gravity\": [0, -9.81, 0], \"spacing\": 0.1, \"bodies\": ["
                             "{\"name\": \"brick\", \"shape\": \"box\", \"size\": [0.5, 0.3, 0.2], \"density\": 300,"
                             " \"velocity\": [1, 3, 0], \"angular_velocity\": [3, -5, 7]}]}");
    assert_non_null(f->rs);
    size_t n = f->iface.n_points < 60 ? f->iface.n_points : 60;
    double *X0 = malloc(3 * n * sizeof *X0);
    memcpy(X0, f->iface.X, 3 * n * sizeof *X0);
    for (int s = 0; s < 300; s++)
        assert_int_equal(fixture_step(f, 2e-3, NULL), SEAM_OK);
    double moved = 0.0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n; j++) {
            double d0[3], d1[3];
            seam_v3_sub(d0, X0 + 3 * i, X0 + 3 * j);
            seam_v3_sub(d1, f->X + 3 * i, f->X + 3 * j);
            assert_close(seam_v3_norm(d1), seam_v3_norm(d0), 1e-13);
        }
        double d[3];
        seam_v3_sub(d, f->X + 3 * i, X0 + 3 * i);
        moved = fmax(moved, seam_v3_norm(d));
    }
    assert_true(moved > 0.5);
    free(X0);
    fixture_destroy(f);
}

/* Kinematic bodies follow x0 + v t + A (sin(2 pi f t + phi) - sin phi) and turn at their angular velocity. */
static void test_kinematic(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.05, \"bodies\": ["
                             "{\"name\": \"piston\", \"shape\": \"rectangle\", \"size\": [0.5, 0.1],"
                             " \"position\": [1, 1], \"kinematic\": {\"velocity\": [0.1, 0], \"amplitude\": [0, 0.05],"
                             " \"frequency\": 2, \"phase\": 0.3, \"angular_velocity\": 0.7}}]}");
    assert_non_null(f->rs);
    size_t n = f->iface.n_points;
    double *X0 = malloc(2 * n * sizeof *X0);
    memcpy(X0, f->iface.X, 2 * n * sizeof *X0);
    for (int s = 1; s <= 500; s++) {
        assert_int_equal(fixture_step(f, 2e-3, NULL), SEAM_OK);
        double t = s * 2e-3, ph = 4.0 * M_PI * t + 0.3;
        double c[2] = {1.0 + 0.1 * t, 1.0 + 0.05 * (sin(ph) - sin(0.3))};
        double cv[2] = {0.1, 0.05 * 4.0 * M_PI * cos(ph)};
        for (size_t i = 0; i < n; i++) {
            double r0[2] = {X0[2 * i] - 1.0, X0[2 * i + 1] - 1.0}, r[2];
            rot2(0.7 * t, r0, r);
            assert_close(f->X[2 * i], c[0] + r[0], 1e-12);
            assert_close(f->X[2 * i + 1], c[1] + r[1], 1e-12);
            assert_close(f->V[2 * i], cv[0] - 0.7 * r[1], 1e-12);
            assert_close(f->V[2 * i + 1], cv[1] + 0.7 * r[0], 1e-12);
        }
    }
    free(X0);
    fixture_destroy(f);
}

/* Rodrigues: v turned by |w| about w. */
static void rodrigues(const double *w, const double *v, double *out)
{
    double th = seam_v3_norm(w), k[3], kxv[3];
    seam_v3_scale(k, 1.0 / th, w);
    seam_v3_cross(kxv, k, v);
    for (int i = 0; i < 3; i++)
        out[i] = v[i] * cos(th) + kxv[i] * sin(th) + k[i] * seam_v3_dot(k, v) * (1.0 - cos(th));
}

/* 3D kinematic body: X_i(t) = x0 + v t + Rot(w t) (X_i(0) - x0), V_i = v + w x (X_i - x). */
static void test_kinematic_3d(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 3, \"spacing\": 0.1, \"bodies\": [{\"name\": \"stirrer\", \"shape\": \"box\","
                             " \"size\": [0.4, 0.1, 0.2], \"position\": [1, 2, 3], \"orientation\": [0.8, 0.2, -0.1, 0.3],"
                             " \"kinematic\": {\"velocity\": [0.1, 0, 0.2], \"angular_velocity\": [0.3, -0.5, 0.8]}}]}");
    assert_non_null(f->rs);
    size_t n = f->iface.n_points;
    double *X0 = malloc(3 * n * sizeof *X0), w[3] = {0.3, -0.5, 0.8};
    memcpy(X0, f->iface.X, 3 * n * sizeof *X0);
    for (int s = 1; s <= 400; s++) {
        assert_int_equal(fixture_step(f, 5e-3, NULL), SEAM_OK);
        double t = s * 5e-3, wt[3], c[3] = {1 + 0.1 * t, 2, 3 + 0.2 * t};
        seam_v3_scale(wt, t, w);
        for (size_t i = 0; i < n; i++) {
            double r0[3] = {X0[3 * i] - 1, X0[3 * i + 1] - 2, X0[3 * i + 2] - 3}, r[3], wr[3];
            rodrigues(wt, r0, r);
            seam_v3_cross(wr, w, r);
            double vw[3] = {0.1 + wr[0], wr[1], 0.2 + wr[2]};
            for (int k = 0; k < 3; k++) {
                assert_close(f->X[3 * i + (size_t)k], c[k] + r[k], 1e-12);
                assert_close(f->V[3 * i + (size_t)k], vw[k], 1e-12);
            }
        }
    }
    free(X0);
    fixture_destroy(f);
}

/* max_dt bounds the turn per step of a free 3D body (0.5 rad); far beyond
 * it the rotation update fails to converge and solve reports SEAM_UNSTABLE,
 * leaving the committed state alone. */
static void test_max_dt_rotation(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 3, \"gravity\": [0, 0, 0], \"spacing\": 0.5, \"bodies\": [{\"name\": \"racket\","
                             " \"shape\": \"box\", \"size\": [1, 2, 3], \"density\": 10, \"angular_velocity\": [1, 2, 0.5]}]}");
    assert_non_null(f->rs);
    double wn = sqrt(1 + 4 + 0.25), q0[4];
    memcpy(q0, fixture_state(f, 0)->q, sizeof q0);
    assert_close(test_max_dt(solid_rigid_table(), f->rs), 0.5 / wn, 1e-15);
    assert_int_equal(fixture_solve(f, 1.0, NULL), SEAM_UNSTABLE);
    assert_int_equal(rigid_commit(f->rs), SEAM_ERROR);
    assert_memory_equal(fixture_state(f, 0)->q, q0, sizeof q0);
    assert_int_equal(fixture_step(f, test_max_dt(solid_rigid_table(), f->rs), NULL), SEAM_OK);
    fixture_destroy(f);
}

/* translate_along: s(t) = (g . a) t^2 / 2; rotate_about: a pendulum's small oscillation. */
static void test_constraints(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.05, \"bodies\": ["
                             "{\"name\": \"slider\", \"shape\": \"rectangle\", \"size\": [0.2, 0.1], \"density\": 50,"
                             " \"position\": [0, 0], \"constraint\": {\"translate_along\": [1, -1]}}]}");
    assert_non_null(f->rs);
    for (int s = 0; s < 1000; s++)
        assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
    const rigid_state *S = fixture_state(f, 0);
    double sa = 0.5 * (9.81 / sqrt(2.0)) * 1.0;
    assert_close(S->x[0], sa / sqrt(2.0), 1e-12);
    assert_close(S->x[1], -sa / sqrt(2.0), 1e-12);
    assert_close(S->w[2], 0.0, 0.0);
    fixture_destroy(f);

    /* a rod of length 1 hanging from its top end, pushed gently */
    double w0 = 0.01;
    char json[512];
    snprintf(json, sizeof json, "{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.1, \"bodies\": ["
             "{\"name\": \"rod\", \"shape\": \"rectangle\", \"size\": [0.02, 1.0], \"density\": 50,"
             " \"position\": [0, -0.5], \"angular_velocity\": %g, \"constraint\": {\"rotate_about\": [0, 0]}}]}", w0);
    f = fixture_new(json);
    assert_non_null(f->rs);
    const rigid_body *b = rigid_get_body(f->rs, 0);
    double Ip = b->m * (0.02 * 0.02 + 1.0) / 12.0 + b->m * 0.25;
    assert_close(b->m_axis, Ip, 1e-12 * Ip);
    double Om = sqrt(b->m * 9.81 * 0.5 / Ip), dt = 1e-4;
    int quarter = (int)lround(0.5 * M_PI / Om / dt);
    for (int s = 0; s < quarter; s++)
        assert_int_equal(fixture_step(f, dt, NULL), SEAM_OK);
    S = fixture_state(f, 0);
    double t = quarter * dt;
    assert_close(S->s, w0 / Om * sin(Om * t), 1e-4 * w0 / Om);
    /* the centre stays on its circle about the pivot */
    assert_close(hypot(S->x[0], S->x[1]), 0.5, 1e-12);
    fixture_destroy(f);
}

/* Step-averaged profiles: the velocity gained equals the integral of f / m. */
static void test_force_profiles(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, 0], \"spacing\": 0.05, \"bodies\": ["
                             "{\"name\": \"puck\", \"shape\": \"circle\", \"radius\": 0.1, \"mass\": 2.0, \"forces\": ["
                             "{\"force\": [2, 0], \"profile\": \"cosine_release\", \"start\": 1, \"duration\": 5},"
                             "{\"force\": [0, 3], \"profile\": \"ramp\", \"start\": 0.5, \"duration\": 1, \"end\": 3},"
                             "{\"torque\": 0.5, \"start\": 2, \"end\": 4}]}]}");
    assert_non_null(f->rs);
    for (int s = 0; s < 7000; s++)
        assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
    const rigid_state *S = fixture_state(f, 0);
    double I = 0.5 * 2.0 * 0.01;
    assert_close(S->v[0], 2.0 * (1.0 + 2.5) / 2.0, 1e-12);   /* 1 s full, then half of 5 s */
    assert_close(S->v[1], 3.0 * (0.5 + 1.5) / 2.0, 1e-12);
    assert_close(S->w[2], 0.5 * 2.0 / I, 1e-12);
    fixture_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_projectile),
        cmocka_unit_test(test_torque_free_asymmetric),
        cmocka_unit_test(test_precession),
        cmocka_unit_test(test_load_pattern),
        cmocka_unit_test(test_archimedes),
        cmocka_unit_test(test_uniform_pressure_keeps_the_spin),
        cmocka_unit_test(test_light_body_arms_settle),
        cmocka_unit_test(test_light_ball_arms_settle),
        cmocka_unit_test(test_bodies_entry),
        cmocka_unit_test(test_mobility),
        cmocka_unit_test(test_mobility_uniform),
        cmocka_unit_test(test_rigid_samples),
        cmocka_unit_test(test_kinematic),
        cmocka_unit_test(test_kinematic_3d),
        cmocka_unit_test(test_max_dt_rotation),
        cmocka_unit_test(test_constraints),
        cmocka_unit_test(test_gravity_from_the_host),
        cmocka_unit_test(test_force_profiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
