/* fluid_mac features of Akbay's chapter-4 scenes: implicit viscosity, the
 * cosine source ramp, circular (spherical) sources, static obstacles and the
 * fluid masses of enclosed regions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "seam/plugin.h"
#include "fluid_test.h"
#include "test_host.h"

/* One solve and commit at step n of size dt, with no interface. */
static seam_status step_free(const seam_plugin *P, void *fl, int dim, int64_t n, double dt)
{
    seam_step st = {n, n * dt, dt, 0};
    seam_input in = {0, dim, NULL, NULL, NULL};
    seam_output out = {0, dim, NULL, NULL, NULL};
    seam_status s = P->solve(fl, &st, &in, &out);
    return s == SEAM_OK ? P->commit(fl) : s;
}

/* The saved state copied out (two fluids in the same state save the same bytes). */
static unsigned char *state_copy(const seam_plugin *P, void *fl, size_t *n)
{
    seam_buffer b;
    assert_int_equal(P->save(fl, &b), SEAM_OK);
    unsigned char *copy = malloc(b.size);
    memcpy(copy, b.data, b.size);
    *n = b.size;
    return copy;
}

/* Set u = sin(k y) on every x face (the other components stay 0) and load it. */
static void load_shear(const seam_plugin *P, void *fl, int nx, int ny, int nz, double dx, double k)
{
    size_t n;
    double *u = fluid_state_velocities(P, fl, &n);
    for (int kk = 0; kk < nz; kk++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i <= nx; i++)
                u[(size_t)i + (size_t)(nx + 1) * ((size_t)j + (size_t)ny * (size_t)kk)] = sin(k * (j + 0.5) * dx);
    fluid_state_set_velocities(P, fl, u);
    free(u);
}

/* The amplitude of u = A sin(k y) on the committed x faces, checking that the
 * shape is kept (every face within 1e-9 of A sin(k y)). */
static double shear_amplitude(const seam_plugin *P, void *fl, int nx, int ny, int nz, double dx, double k)
{
    size_t n;
    double *u = fluid_state_velocities(P, fl, &n);
    double A = u[(size_t)(nx / 2) + (size_t)(nx + 1) * (size_t)(ny / 2)] / sin(k * (ny / 2 + 0.5) * dx);
    for (int kk = 0; kk < nz; kk++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i <= nx; i++)
                assert_float_equal(u[(size_t)i + (size_t)(nx + 1) * ((size_t)j + (size_t)ny * (size_t)kk)],
                                   A * sin(k * (j + 0.5) * dx), 1e-9);
    free(u);
    return A;
}

/* u = sin(k y) between no-slip walls at y = 0 and H (k = pi / H), open ends
 * along x (and z): the shear decays as exp(-nu k^2 t); backward Euler on the
 * grid gives exactly (1 + nu dt lambda)^-n, lambda = (4/dx^2) sin^2(k dx / 2). */
static void check_shear_decay(int dim)
{
    const seam_plugin *P = fluid_mac_table();
    test_host th;
    int nx = 4, ny = dim == 3 ? 16 : 32, nz = dim == 3 ? 4 : 1, steps = dim == 3 ? 50 : 100;
    double dx = 1.0 / ny, nu = 0.05, dt = dim == 3 ? 0.04 : 0.02, k = M_PI;
    char json[512];
    if (dim == 3)
        snprintf(json, sizeof json,
                 "{\"cells\": [%d, %d, %d], \"dx\": %.17g, \"gravity\": [0, 0, 0], \"viscosity\": %g,"
                 " \"pressure_tolerance\": 1e-13, \"boundary\": {\"left\": \"open\", \"right\": \"open\","
                 " \"back\": \"open\", \"front\": \"open\"}}", nx, ny, nz, dx, nu);
    else
        snprintf(json, sizeof json,
                 "{\"cells\": [%d, %d], \"dx\": %.17g, \"gravity\": [0, 0], \"viscosity\": %g,"
                 " \"pressure_tolerance\": 1e-13, \"boundary\": {\"left\": \"open\", \"right\": \"open\"}}",
                 nx, ny, dx, nu);
    void *fl = fluid_make(P, &th, json);
    assert_int_equal(P->bind(fl, fluid_no_solid(dim)), SEAM_OK);
    load_shear(P, fl, nx, ny, nz, dx, k);
    for (int n = 0; n < steps; n++)
        assert_int_equal(step_free(P, fl, dim, n, dt), SEAM_OK);
    double A = shear_amplitude(P, fl, nx, ny, nz, dx, k), t = steps * dt;
    double s = sin(0.5 * k * dx), lambda = 4.0 / (dx * dx) * s * s;
    double discrete = pow(1.0 + nu * dt * lambda, -steps), exact = exp(-nu * k * k * t);
    fprintf(stderr, "%dD shear decay after %g s: amplitude %.9f, backward Euler on the grid %.9f, exp(-nu k^2 t) %.9f "
            "(%.2f%% off)\n", dim, t, A, discrete, exact, 100.0 * (A / exact - 1.0));
    assert_float_equal(A, discrete, 1e-8);
    assert_float_equal(A, exact, 0.02 * exact);
    P->destroy(fl);
}

static void test_viscous_shear_decay_2d(void **state)
{
    (void)state;
    check_shear_decay(2);
}

static void test_viscous_shear_decay_3d(void **state)
{
    (void)state;
    check_shear_decay(3);
}

/* Sum of u^2 + v^2 over the committed faces. */
static double kinetic(const seam_plugin *P, void *fl, int nx, int ny)
{
    size_t n;
    double *u = fluid_state_velocities(P, fl, &n);
    size_t nf = (size_t)(nx + 1) * (size_t)ny + (size_t)nx * (size_t)(ny + 1);
    double e = 0.0;
    for (size_t f = 0; f < nf; f++)
        e += u[f] * u[f];
    free(u);
    return e;
}

/* nu = 9 m^2/s (Akbay 4.3.3) in a closed box at the inviscid step: max_dt is
 * the same as without viscosity (nu dt / dx^2 = 150 here, explicit diffusion
 * would need < 0.25), the flow stays finite and its energy only falls. */
static void test_viscous_large_stable(void **state)
{
    (void)state;
    const seam_plugin *P = fluid_mac_table();
    test_host th, th0;
    int nx = 16, ny = 16;
    double dx = 1.0 / 16;
    void *fl = fluid_make(P, &th, "{\"cells\": [16, 16], \"dx\": 0.0625, \"viscosity\": 9}");
    void *fl0 = fluid_make(P, &th0, "{\"cells\": [16, 16], \"dx\": 0.0625}");
    assert_int_equal(P->bind(fl, fluid_no_solid(2)), SEAM_OK);
    assert_int_equal(P->bind(fl0, fluid_no_solid(2)), SEAM_OK);
    load_shear(P, fl, nx, ny, 1, dx, M_PI);
    load_shear(P, fl0, nx, ny, 1, dx, M_PI);
    double e = kinetic(P, fl, nx, ny), e0 = e, dt = 0.0, dt0 = 0.0;
    for (int n = 0; n < 40; n++) {
        assert_int_equal(P->max_dt(fl, &dt), SEAM_OK);
        if (n == 0) {
            assert_int_equal(P->max_dt(fl0, &dt0), SEAM_OK);
            assert_true(dt == dt0);
            fprintf(stderr, "nu = 9: dt = %.4g s, nu dt / dx^2 = %.1f\n", dt, 9.0 * dt / (dx * dx));
        }
        seam_step st = {n, n * dt, dt, 0};
        seam_input in = {0, 2, NULL, NULL, NULL};
        assert_int_equal(P->solve(fl, &st, &in, NULL), SEAM_OK);
        assert_int_equal(P->commit(fl), SEAM_OK);
        double e1 = kinetic(P, fl, nx, ny);
        assert_true(isfinite(e1));
        assert_true(e1 <= e + 1e-12 * e0);   /* down to the pressure solve's noise, about 1e-15 e0 */
        e = e1;
    }
    fprintf(stderr, "nu = 9: energy %.3g of the start after 40 steps\n", e / e0);
    assert_true(e < 1e-6 * e0);
    P->destroy(fl);
    P->destroy(fl0);
}

/* Couette flow: a thin shell along y = 0.5 slides along x at U0 between no-slip
 * walls at y = 0 and 1 (open ends): the steady state is linear, u = U0 y / 0.5
 * below and U0 (1 - y) / 0.5 above, exactly on the grid (walls and the shell
 * at dx/2 from the nearest faces). With viscous_loads the shell receives the
 * shear stress mu U0 / 0.5 of each side against its motion, over the nx + 1
 * rows of x faces dx apart (the two open ends' faces count whole, as the
 * viscous solve has them): -2 rho nu U0 / 0.5 (nx + 1) dx in all, and no
 * pressure load (p = 0 everywhere). */
static void test_viscous_couette_shell(void **state)
{
    (void)state;
    const seam_plugin *P = fluid_mac_table();
    test_host th;
    int nx = 4, ny = 16;
    double dx = 1.0 / ny, U0 = 0.2, dt = 0.05;
    void *fl = fluid_make(P, &th, "{\"cells\": [4, 16], \"dx\": 0.0625, \"gravity\": [0, 0], \"viscosity\": 1,"
                                  " \"pressure_tolerance\": 1e-12, \"boundary\": {\"left\": \"open\", \"right\": \"open\"},"
                                  " \"viscous_loads\": true}");
    enum { NP = 97 };
    static double X[2 * NP], V[2 * NP];
    static int32_t elems[2 * (NP - 1)];
    static uint8_t two_sided[NP - 1];
    for (int k = 0; k < NP; k++) {
        X[2 * k] = -1.0 + k * dx / 2;
        X[2 * k + 1] = 0.5;
        V[2 * k] = U0;
        V[2 * k + 1] = 0.0;
    }
    for (int e = 0; e < NP - 1; e++) {
        elems[2 * e] = e;
        elems[2 * e + 1] = e + 1;
        two_sided[e] = 1;
    }
    seam_interface iface = {2, NP, X, NULL, NULL, 2, NP - 1, elems, two_sided, 1};
    assert_int_equal(P->bind(fl, &iface), SEAM_OK);
    static double F[2 * NP];
    for (int n = 0; n < 100; n++) {
        for (int k = 0; k < NP; k++)   /* the shell slides; its ends stay far outside the grid */
            X[2 * k] = -1.0 + k * dx / 2 + (n + 1) * dt * U0;
        seam_step st = {n, n * dt, dt, 0};
        seam_input in = {NP, 2, X, V, NULL};
        seam_output out = {NP, 2, NULL, NULL, F};
        assert_int_equal(P->solve(fl, &st, &in, &out), SEAM_OK);
        assert_int_equal(P->commit(fl), SEAM_OK);
    }
    size_t size;
    double *u = fluid_state_velocities(P, fl, &size);
    double err = 0.0;
    for (int j = 0; j < ny; j++) {
        double y = (j + 0.5) * dx, want = y < 0.5 ? U0 * y / 0.5 : U0 * (1.0 - y) / 0.5;
        for (int i = 0; i <= nx; i++)
            err = fmax(err, fabs(u[(size_t)i + (size_t)(nx + 1) * (size_t)j] - want));
    }
    fprintf(stderr, "Couette flow beside a sliding shell: max error %.3g m/s of %g\n", err, U0);
    assert_true(err < 1e-6 * U0);
    double fx = 0.0, fy = 0.0, want = -2.0 * 1000.0 * 1.0 * U0 / 0.5 * (nx + 1) * dx;
    for (int k = 0; k < NP; k++) {
        fx += F[2 * k];
        fy += F[2 * k + 1];
    }
    fprintf(stderr, "viscous load on the shell: %.9g N/m (mu U0 / h over both sides: %.9g), %.3g across\n", fx, want,
            fy);
    assert_true(fabs(fx - want) < 1e-5 * fabs(want));
    assert_true(fabs(fy) < 1e-9 * fabs(want));
    free(u);
    P->destroy(fl);
}

/* A viscous liquid at rest around an obstacle (no particles seeded in it): still, hydrostatic. */
static void test_viscous_liquid_still(void **state)
{
    (void)state;
    const seam_plugin *P = fluid_mac_table();
    test_host th;
    void *fl = fluid_make(P, &th, "{\"cells\": [16, 24], \"dx\": 0.05, \"pressure_tolerance\": 1e-10, \"viscosity\": 0.5,"
                                  " \"obstacles\": [{\"box\": [[0.3, 0.1], [0.5, 0.3]]}],"
                                  " \"liquid\": {\"fill\": [0, 0, 0.8, 0.6]}}");
    assert_int_equal(P->bind(fl, fluid_no_solid(2)), SEAM_OK);
    double H = 0.6, rho = 1000, g = 9.81, dt;
    for (int n = 0; n < 60; n++) {
        assert_int_equal(P->max_dt(fl, &dt), SEAM_OK);
        assert_int_equal(step_free(P, fl, 2, n, dt), SEAM_OK);
    }
    seam_raster r;
    assert_int_equal(P->field(fl, "speed", &r), SEAM_OK);
    double vmax = 0.0;
    for (int j = 0; j < 12; j++)   /* in the liquid */
        for (int i = 0; i < r.nx; i++)
            vmax = fmax(vmax, r.data[j * r.nx + i]);
    fprintf(stderr, "viscous liquid around an obstacle: max speed %.3g m/s\n", vmax);
    assert_true(vmax < 1e-6 * sqrt(g * H));
    assert_int_equal(P->field(fl, "pressure", &r), SEAM_OK);
    for (int j = 0; j < 12; j++)
        for (int i = 0; i < r.nx; i++) {
            int obstacle = i >= 6 && i < 10 && j >= 2 && j < 6;
            assert_float_equal(r.data[j * r.nx + i], obstacle ? 0.0 : rho * g * (H - (j + 0.5) * r.dx),
                               1e-3 * rho * g * H);
        }
    P->destroy(fl);
}

/* viscosity 0 is the inviscid solver bit for bit (a smoke plume with a box source). */
static void test_viscosity_zero_is_inviscid(void **state)
{
    (void)state;
    const seam_plugin *P = fluid_mac_table();
    test_host th;
    const char *base = "{\"cells\": [16, 24], \"dx\": 0.0625, \"density\": 1.2, \"boundary\": {\"top\": \"open\"},"
                       " \"buoyancy\": {\"temperature\": 0.05},"
                       " \"sources\": [{\"side\": \"bottom\", \"range\": [0.375, 0.625], \"speed\": 0.5,"
                       " \"ramp_time\": 0.1, \"temperature\": 50}]%s}";
    char a[1024], b[1024];
    snprintf(a, sizeof a, base, "");
    snprintf(b, sizeof b, base, ", \"viscosity\": 0");
    void *fa = fluid_make(P, &th, a), *fb = fluid_make(P, &th, b);
    assert_int_equal(P->bind(fa, fluid_no_solid(2)), SEAM_OK);
    assert_int_equal(P->bind(fb, fluid_no_solid(2)), SEAM_OK);
    for (int n = 0; n < 10; n++) {
        assert_int_equal(step_free(P, fa, 2, n, 0.02), SEAM_OK);
        assert_int_equal(step_free(P, fb, 2, n, 0.02), SEAM_OK);
    }
    size_t na, nb;
    unsigned char *sa = state_copy(P, fa, &na), *sb = state_copy(P, fb, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(sa, sb, na);
    free(sa);
    free(sb);
    P->destroy(fa);
    P->destroy(fb);
}

/* ---- the cosine ramp ---- */

/* q of the closed box at mid-step time t for an inflow of 2 m/s through 0.25 m. */
static double ramped_q(const seam_plugin *P, void *fl, double t)
{
    seam_step st = {0, t - 0.005, 0.01, 0};
    seam_regions R;
    memset(&R, 0, sizeof R);
    assert_int_equal(P->regions(fl, &st, NULL, &R), SEAM_OK);
    assert_int_equal(R.count, 1);
    return R.q[0];
}

static void test_cosine_ramp(void **state)
{
    (void)state;
    const seam_plugin *P = fluid_mac_table();
    test_host th;
    const char *fmt = "{\"cells\": [16, 16], \"dx\": 0.0625, \"gravity\": [0, 0],"
                      " \"sources\": [{\"side\": \"left\", \"range\": [0.25, 0.5], \"speed\": 2.0,"
                      " \"ramp_time\": 1.0%s}]}";
    char json[512];
    snprintf(json, sizeof json, fmt, ", \"ramp\": \"cosine\"");
    void *fc = fluid_make(P, &th, json);
    snprintf(json, sizeof json, fmt, "");
    void *fs = fluid_make(P, &th, json);
    assert_int_equal(P->bind(fc, fluid_no_solid(2)), SEAM_OK);
    assert_int_equal(P->bind(fs, fluid_no_solid(2)), SEAM_OK);
    double full = 2.0 * 0.25;
    /* 0.5 (1 - cos(pi t / T)): half at T/2, 0.1464 at T/4; the smooth step 3x^2 - 2x^3 gives 0.15625 there */
    assert_float_equal(ramped_q(P, fc, 0.5), 0.5 * full, 1e-12);
    assert_float_equal(ramped_q(P, fc, 0.25), 0.5 * (1.0 - cos(M_PI / 4)) * full, 1e-12);
    assert_float_equal(ramped_q(P, fc, 2.0), full, 1e-12);
    assert_float_equal(ramped_q(P, fs, 0.25), 0.15625 * full, 1e-12);
    P->destroy(fc);
    P->destroy(fs);
    /* The flux: smoke brought in by time T/2 is d U w (T/4 - T/(2 pi)) (3% below the smooth ramp's d U w 3T/32). */
    void *fl = fluid_make(P, &th, "{\"cells\": [32, 64], \"dx\": 0.03125, \"density\": 1.2, \"gravity\": [0, 0],"
                                  " \"boundary\": {\"top\": \"open\"},"
                                  " \"sources\": [{\"side\": \"bottom\", \"range\": [0.375, 0.625], \"speed\": 1.0,"
                                  " \"ramp\": \"cosine\", \"ramp_time\": 1.0}]}");
    assert_int_equal(P->bind(fl, fluid_no_solid(2)), SEAM_OK);
    double dt = 0.01, T = 1.0;
    for (int n = 0; n < 50; n++)
        assert_int_equal(step_free(P, fl, 2, n, dt), SEAM_OK);
    double M = fluid_total_smoke(P, fl, 2), want = 1.0 * 0.25 * T * (0.25 - 1.0 / (2.0 * M_PI));
    fprintf(stderr, "cosine ramp: smoke in by T/2 %.7g, analytic %.7g (smooth ramp %.7g)\n", M, want,
            0.25 * 3.0 / 32.0);
    assert_float_equal(M, want, 1e-4 * want);
    P->destroy(fl);
    /* A misspelt ramp is refused by its key. */
    test_host_init(&th, "fluid", "fluids[0]");
    assert_null(P->create(P, "{\"cells\": [8, 8], \"dx\": 0.1, \"sources\": [{\"side\": \"left\", \"speed\": 1,"
                             " \"ramp\": \"sine\"}]}", &th.host));
    assert_true(test_host_saw(&th, "sources[0].ramp"));
}

/* ---- circular and spherical sources ---- */

/* A circle of radius 0.45 m pushing 1 m/s out (Akbay 4.3.7) in a closed box:
 * q = 2 pi R u; with an open top the divergence the projection leaves adds up
 * to the same rate, all of it in the circle's cells. */
static void test_circle_source(void **state)
{
    (void)state;
    const seam_plugin *P = fluid_mac_table();
    test_host th;
    const char *fmt = "{\"cells\": [64, 64], \"dx\": 0.02, \"gravity\": [0, 0], \"pressure_tolerance\": 1e-12,%s"
                      " \"sources\": [{\"shape\": \"circle\", \"center\": [0.64, 0.64], \"radius\": 0.45,"
                      " \"speed\": 1.0, \"ramp\": \"cosine\", \"ramp_time\": 1.0}]}";
    char json[512];
    snprintf(json, sizeof json, fmt, "");
    void *fl = fluid_make(P, &th, json);
    assert_int_equal(P->bind(fl, fluid_no_solid(2)), SEAM_OK);
    double rate = 2.0 * M_PI * 0.45 * 1.0;
    assert_float_equal(ramped_q(P, fl, 2.0), rate, 1e-12);
    assert_float_equal(ramped_q(P, fl, 0.5), 0.5 * rate, 1e-12);
    P->destroy(fl);
    snprintf(json, sizeof json, fmt, " \"boundary\": {\"top\": \"open\"},");
    fl = fluid_make(P, &th, json);
    assert_int_equal(P->bind(fl, fluid_no_solid(2)), SEAM_OK);
    seam_step st = {0, 1.5, 0.01, 0};
    seam_input in = {0, 2, NULL, NULL, NULL};
    assert_int_equal(P->solve(fl, &st, &in, NULL), SEAM_OK);
    assert_int_equal(P->commit(fl), SEAM_OK);
    seam_raster r;
    assert_int_equal(P->field(fl, "divergence", &r), SEAM_OK);
    double total = 0.0, outside = 0.0;
    for (int j = 0; j < r.ny; j++)
        for (int i = 0; i < r.nx; i++) {
            double x = (i + 0.5) * r.dx - 0.64, y = (j + 0.5) * r.dx - 0.64, v = r.data[j * r.nx + i] * r.dx * r.dx;
            total += v;
            if (x * x + y * y > 0.45 * 0.45)
                outside += fabs(v);
        }
    fprintf(stderr, "circle source: divergence integral %.9g, 2 pi R u %.9g, outside the circle %.3g\n", total, rate,
            outside);
    assert_float_equal(total, rate, 1e-8 * rate);
    assert_true(outside < 1e-8 * rate);
    P->destroy(fl);
    /* 3D: a sphere brings 4 pi R^2 u. */
    fl = fluid_make(P, &th, "{\"cells\": [12, 12, 12], \"dx\": 0.1, \"gravity\": [0, 0, 0],"
                            " \"sources\": [{\"shape\": \"circle\", \"center\": [0.6, 0.6, 0.6], \"radius\": 0.3,"
                            " \"speed\": 0.5}]}");
    assert_int_equal(P->bind(fl, fluid_no_solid(3)), SEAM_OK);
    assert_float_equal(ramped_q(P, fl, 0.5), 4.0 * M_PI * 0.09 * 0.5, 1e-12);
    P->destroy(fl);
    /* Refusals name the key. */
    test_host_init(&th, "fluid", "fluids[0]");
    assert_null(P->create(P, "{\"cells\": [8, 8], \"dx\": 0.1, \"sources\": [{\"shape\": \"circle\","
                             " \"center\": [0.4, 0.4], \"radius\": 0.01, \"speed\": 1}]}", &th.host));
    assert_true(test_host_saw(&th, "sources[0].radius"));
    assert_null(P->create(P, "{\"cells\": [8, 8], \"dx\": 0.1, \"sources\": [{\"shape\": \"circle\","
                             " \"center\": [0.4, 0.4], \"speed\": 1}]}", &th.host));
    assert_true(test_host_saw(&th, "sources[0].radius"));
    assert_null(P->create(P, "{\"cells\": [8, 8], \"dx\": 0.1, \"sources\": [{\"box\": [0.1, 0.1, 0.5, 0.5],"
                             " \"rate\": 1, \"shape\": \"disc\"}]}", &th.host));
    assert_true(test_host_saw(&th, "sources[0].shape"));
    assert_null(P->create(P, "{\"cells\": [8, 8], \"dx\": 0.1, \"sources\": [{\"shape\": \"circle\","
                             " \"center\": [0.4, 0.4], \"radius\": 0.2, \"speed\": 1, \"side\": \"left\"}]}",
                          &th.host));
    assert_true(test_host_saw(&th, "sources[0].shape"));
}

/* ---- static obstacles ---- */

/* A bar of obstacle across a closed box makes two enclosed regions; a source
 * in the lower one is its q only; the bar adds nothing to C (no interface). */
static void test_obstacle_regions(void **state)
{
    (void)state;
    const seam_plugin *P = fluid_mac_table();
    test_host th;
    void *fl = fluid_make(P, &th, "{\"cells\": [20, 20], \"dx\": 0.05, \"gravity\": [0, 0],"
                                  " \"obstacles\": [{\"box\": [[0, 0.45], [1, 0.55]]}],"
                                  " \"sources\": [{\"box\": [0.2, 0.1, 0.4, 0.3], \"rate\": 0.3}]}");
    assert_int_equal(P->bind(fl, fluid_no_solid(2)), SEAM_OK);
    seam_step st = {0, 0.0, 0.01, 0};
    seam_regions R;
    memset(&R, 0, sizeof R);
    assert_int_equal(P->regions(fl, &st, NULL, &R), SEAM_OK);
    assert_int_equal(R.count, 2);
    assert_int_equal(R.n, 0);
    assert_float_equal(R.q[0], 0.3, 1e-12);
    assert_float_equal(R.q[1], 0.0, 0.0);
    /* The obstacle's cells are solid and its faces shut. */
    seam_input in = {0, 2, NULL, NULL, NULL};
    assert_int_equal(P->solve(fl, &st, &in, NULL), SEAM_OK);
    assert_int_equal(P->commit(fl), SEAM_OK);
    seam_raster r;
    assert_int_equal(P->field(fl, "solid", &r), SEAM_OK);
    for (int j = 0; j < r.ny; j++)
        assert_float_equal(r.data[j * r.nx + 7], j == 9 || j == 10 ? 1.0 : 0.0, 0.0);
    P->destroy(fl);
    /* 3D: a wall of obstacle splits a closed box. */
    fl = fluid_make(P, &th, "{\"cells\": [8, 8, 8], \"dx\": 0.125, \"gravity\": [0, 0, 0],"
                            " \"obstacles\": [{\"box\": [[0.5, 0, 0], [0.625, 1, 1]]}]}");
    assert_int_equal(P->bind(fl, fluid_no_solid(3)), SEAM_OK);
    assert_int_equal(P->regions(fl, &st, NULL, &R), SEAM_OK);
    assert_int_equal(R.count, 2);
    P->destroy(fl);
    /* Refusals name the key. */
    test_host_init(&th, "fluid", "fluids[0]");
    assert_null(P->create(P, "{\"cells\": [8, 8], \"dx\": 0.1, \"obstacles\": [{\"box\": [[0.1, 0.1]]}]}", &th.host));
    assert_true(test_host_saw(&th, "obstacles[0].box"));
    assert_null(P->create(P, "{\"cells\": [8, 8], \"dx\": 0.1, \"obstacles\": [{\"box\": [[0.5, 0.5], [0.1, 0.1]]}]}",
                          &th.host));
    assert_true(test_host_saw(&th, "obstacles[0].box"));
    assert_null(P->create(P, "{\"cells\": [8, 8], \"dx\": 0.1, \"obstacle\": []}", &th.host));
    assert_true(test_host_saw(&th, "obstacles"));
    assert_null(P->create(P, "{\"cells\": [8, 8], \"dx\": 0.1, \"viscosty\": 1}", &th.host));
    assert_true(test_host_saw(&th, "viscosity"));
    assert_null(P->create(P, "{\"cells\": [8, 8], \"dx\": 0.1, \"viscosity\": -1}", &th.host));
    assert_true(test_host_saw(&th, "viscosity"));
}

/* Water at rest around an obstacle in an open tank, in a viscous fluid: still,
 * p = rho g depth in every fluid cell. */
static void test_obstacle_hydrostatic(void **state)
{
    (void)state;
    const seam_plugin *P = fluid_mac_table();
    test_host th;
    void *fl = fluid_make(P, &th, "{\"cells\": [16, 24], \"dx\": 0.05, \"boundary\": {\"top\": \"open\"},"
                                  " \"pressure_tolerance\": 1e-10, \"viscosity\": 0.1,"
                                  " \"obstacles\": [{\"box\": [[0.2, 0.3], [0.5, 0.6]]}, {\"box\": [[0.6, 0], [0.7, 0.9]]}]}");
    assert_int_equal(P->bind(fl, fluid_no_solid(2)), SEAM_OK);
    double H = 24 * 0.05, rho = 1000, g = 9.81, dt;
    assert_int_equal(P->max_dt(fl, &dt), SEAM_OK);
    for (int n = 0; n < 100; n++)
        assert_int_equal(step_free(P, fl, 2, n, dt), SEAM_OK);
    seam_raster r, solid;
    assert_int_equal(P->field(fl, "speed", &r), SEAM_OK);
    double vmax = 0.0;
    for (int c = 0; c < r.nx * r.ny; c++)
        vmax = fmax(vmax, r.data[c]);
    fprintf(stderr, "still tank with obstacles: max speed %.3g m/s\n", vmax);
    assert_true(vmax < 1e-6 * sqrt(g * H));
    assert_int_equal(P->field(fl, "solid", &solid), SEAM_OK);
    double *is_solid = malloc((size_t)(r.nx * r.ny) * sizeof *is_solid);
    memcpy(is_solid, solid.data, (size_t)(r.nx * r.ny) * sizeof *is_solid);
    assert_int_equal(P->field(fl, "pressure", &r), SEAM_OK);
    int n_solid = 0;
    for (int j = 0; j < r.ny; j++)
        for (int i = 0; i < r.nx; i++) {
            double depth = H - (j + 0.5) * r.dx;
            n_solid += is_solid[j * r.nx + i] != 0.0;
            assert_float_equal(r.data[j * r.nx + i], is_solid[j * r.nx + i] != 0.0 ? 0.0 : rho * g * depth,
                               1e-6 * rho * g * H);
        }
    assert_int_equal(n_solid, 6 * 6 + 2 * 18);
    free(is_solid);
    P->destroy(fl);
}

/* ---- fluid masses of enclosed regions ---- */

/* A counter-clockwise ring of points about h apart around a rectangle, its segments in elems. */
static size_t ring(double x0, double y0, double x1, double y1, double h, double *X, int32_t *elems)
{
    const double c[5][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}, {x0, y0}};
    size_t n = 0;
    for (int s = 0; s < 4; s++) {
        int m = (int)ceil(hypot(c[s + 1][0] - c[s][0], c[s + 1][1] - c[s][1]) / h - 1e-9);
        for (int k = 0; k < m; k++, n++) {
            X[2 * n] = c[s][0] + (double)k / m * (c[s + 1][0] - c[s][0]);
            X[2 * n + 1] = c[s][1] + (double)k / m * (c[s + 1][1] - c[s][1]);
        }
    }
    for (size_t e = 0; e < n; e++) {
        elems[2 * e] = (int32_t)e;
        elems[2 * e + 1] = (int32_t)((e + 1) % n);
    }
    return n;
}

/* A plank across a closed box: the upper region has 20 faces against it, the
 * lower one 16 (an obstacle covers 4), so the rows of M add up to rho 16 A dx / 2
 * and rho 20 A dx / 2, >= 0 (> 0 where C is not 0); a box in one region: 32 faces. */
static void test_region_masses(void **state)
{
    (void)state;
    const seam_plugin *P = fluid_mac_table();
    test_host th;
    static double X[2048];
    static int32_t elems[2048];
    double dx = 0.05, rho = 1000.0, M_face = rho * dx * dx / 2.0;
    void *fl = fluid_make(P, &th, "{\"cells\": [20, 20], \"dx\": 0.05, \"obstacles\": [{\"box\": [[0, 0.3], [0.2, 0.45]]}]}");
    size_t n = ring(-0.1, 0.45, 1.1, 0.55, 0.025, X, elems);
    seam_interface iface = {2, n, X, NULL, NULL, 2, n, elems, NULL, 1};
    assert_int_equal(P->bind(fl, &iface), SEAM_OK);
    seam_step st = {0, 0.0, 0.01, 0};
    seam_regions R;
    memset(&R, 0, sizeof R);
    assert_int_equal(P->regions(fl, &st, X, &R), SEAM_OK);
    assert_int_equal(R.count, 2);
    assert_non_null(R.M);
    for (size_t r = 0; r < 2; r++) {
        double sum = 0.0;
        for (size_t k = 0; k < R.n; k++) {
            assert_true(R.M[r * R.n + k] >= 0.0);
            if (R.C[r * R.n + k] != 0.0)
                assert_true(R.M[r * R.n + k] > 0.0);
            sum += R.M[r * R.n + k];
        }
        double faces = r == 0 ? 16 : 20;
        fprintf(stderr, "plank region %zu: sum of M %.12g, rho %g A dx / 2 = %.12g\n", r, sum, faces, faces * M_face);
        assert_float_equal(sum, faces * M_face, 1e-9 * M_face);
    }
    P->destroy(fl);
    fl = fluid_make(P, &th, "{\"cells\": [20, 20], \"dx\": 0.05}");
    n = ring(0.3, 0.3, 0.7, 0.7, 0.025, X, elems);
    iface.n_points = iface.n_elems = n;
    assert_int_equal(P->bind(fl, &iface), SEAM_OK);
    assert_int_equal(P->regions(fl, &st, X, &R), SEAM_OK);
    assert_int_equal(R.count, 1);
    double sum = 0.0;
    for (size_t k = 0; k < R.n; k++)
        sum += R.M[k];
    assert_float_equal(sum, 32 * M_face, 1e-9 * M_face);
    P->destroy(fl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_viscous_shear_decay_2d), cmocka_unit_test(test_viscous_shear_decay_3d),
        cmocka_unit_test(test_viscous_large_stable),   cmocka_unit_test(test_viscosity_zero_is_inviscid),
        cmocka_unit_test(test_viscous_couette_shell),  cmocka_unit_test(test_viscous_liquid_still),
        cmocka_unit_test(test_cosine_ramp),            cmocka_unit_test(test_circle_source),
        cmocka_unit_test(test_obstacle_regions),       cmocka_unit_test(test_obstacle_hydrostatic),
        cmocka_unit_test(test_region_masses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
