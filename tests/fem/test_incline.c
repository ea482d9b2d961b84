/* solid_fem's "irving" integrator on an inclined wall (Irving 2007, ch. 3:
 * "a particle on an inclined plane moves exactly"). The incline is the floor
 * of the walls under gravity tilted by theta, g (sin theta, -cos theta): a
 * body lying flat on it (a 2D chain, a 3D cloth: every node on the wall, no
 * strain) with friction mu
 *   - stays exactly where it is while tan(theta) < mu (static friction);
 *   - slides from rest by s = (1/2) g (sin theta - mu cos theta) T^2 when
 *     tan(theta) > mu, to round-off (Irving's scheme is exact for constant
 *     acceleration: trapezoidal positions, friction from the whole step's
 *     normal impulse);
 *   - thrown down the slope at v0 with tan(theta) < mu, stops after
 *     v0^2 / (2 |a|) and stays (exact when the stop falls on a step's end).
 * The old scheme (backward Euler, friction after the solve) is first order
 * in the position: printed for comparison. A block of triangles or tets, which
 * rocks on its own elasticity, follows the analytic slide to within that. */
#include "fem_test.h"

#define G 9.81

/* A body lying on the floor (y = 0 in 2D, z = 0 in 3D) of walls with
 * friction mu, under gravity tilted by theta about the floor's normal;
 * initial velocity v0 down the slope (+x). kind: 0 the flat chain or cloth,
 * 1 a volumetric block. */
static fem *on_incline(test_host *th, int d, int kind, double theta, double mu, double v0, const char *integrator)
{
    char json[2048], mesh[512], grav[128], vel[64];
    double gx = G * sin(theta), gn = -G * cos(theta);
    if (d == 2) {
        snprintf(grav, sizeof grav, "[%.17g, %.17g]", gx, gn);
        snprintf(vel, sizeof vel, "[%.17g, 0]", v0);
        snprintf(mesh, sizeof mesh, "%s",
                 kind == 0 ? "{\"generate\": \"chain\", \"start\": [0, 0], \"end\": [0.4, 0], \"segments\": 4}, "
                             "\"material\": {\"kind\": \"shell\", \"k_stretch\": 1e4, \"density\": 2}"
                           : "{\"generate\": \"rectangle\", \"max\": [0.2, 0.1], \"cells\": [2, 1]}, "
                             "\"material\": {\"E\": 1e6, \"nu\": 0.3, \"density\": 1000, "
                             "\"damping\": {\"beta\": 1e-3}}");
    } else {
        snprintf(grav, sizeof grav, "[%.17g, 0, %.17g]", gx, gn);
        snprintf(vel, sizeof vel, "[%.17g, 0, 0]", v0);
        snprintf(mesh, sizeof mesh, "%s",
                 kind == 0 ? "{\"generate\": \"cloth\", \"u\": [0.4, 0, 0], \"v\": [0, 0.2, 0], \"cells\": [2, 1]}, "
                             "\"material\": {\"kind\": \"shell\", \"k_stretch\": 1e3, \"density\": 0.5}"
                           : "{\"generate\": \"box\", \"max\": [0.2, 0.1, 0.1], \"cells\": [1, 1, 1]}, "
                             "\"material\": {\"E\": 1e6, \"nu\": 0.3, \"density\": 1000, "
                             "\"damping\": {\"beta\": 1e-3}}");
    }
    snprintf(json, sizeof json,
             "{\"dim\": %d, \"integrator\": \"%s\", \"gravity\": %s, \"walls\": {\"min\": %s, \"max\": %s, "
             "\"friction\": %.17g}, \"bodies\": [{\"mesh\": %s, \"velocity\": %s}]}",
             d, integrator, grav, d == 2 ? "[-1, 0]" : "[-1, -1, 0]", d == 2 ? "[20, 1]" : "[20, 1, 1]", mu, mesh,
             vel);
    return fem_make(th, json);
}

/* Mass-weighted mean of coordinate k of positions x (or the velocities). */
static double mean(const fem *f, const double *x, int k)
{
    double s = 0.0, m = 0.0;
    for (size_t i = 0; i < f->n; i++) {
        s += f->mass[i] * x[i * (size_t)f->d + (size_t)k];
        m += f->mass[i];
    }
    return s / m;
}

/* Run n steps of dt; the slide (mean x travel) and the end velocity. Every
 * node stays on or above the floor. */
static double slide(fem *f, double dt, int n, double *v_end)
{
    double x0 = mean(f, f->x, 0);
    for (int s = 0; s < n; s++) {
        fem_run(f, dt, 1);
        for (size_t i = 0; i < f->n; i++)
            assert_true(f->x[i * (size_t)f->d + (size_t)f->d - 1] >= 0.0);
    }
    *v_end = mean(f, f->v, 0);
    return mean(f, f->x, 0) - x0;
}

/* Every node is where it started and at rest, to the bit. */
static void assert_rest(const fem *f, const double *X)
{
    for (size_t r = 0; r < f->n * (size_t)f->d; r++) {
        if (f->x[r] != X[r] || f->v[r] != 0.0)
            fail_msg("coordinate %zu moved: x %.17g (was %.17g), v %.3g", r, f->x[r], X[r], f->v[r]);
    }
}

/* Below the threshold (tan theta = 0.9 mu, and a steep 0.45 rad on mu = 1):
 * nothing moves, to the bit. */
static void test_static_below_threshold(void **state)
{
    (void)state;
    static const double cases[][2] = {{0.5, 0.45}, {1.0, 0.45 / 1.0}};
    for (int d = 2; d <= 3; d++)
        for (size_t c = 0; c < 2; c++) {
            double mu = cases[c][0], theta = c == 0 ? atan(0.9 * mu) : 0.45;
            test_host th;
            fem *f = on_incline(&th, d, 0, theta, mu, 0.0, "irving");
            size_t nd = f->n * (size_t)d;
            double *X = malloc(nd * sizeof *X);
            memcpy(X, f->x, nd * sizeof *X);
            double v, s = slide(f, 1.0 / 1024, 1024, &v);
            printf("%dD static: tan(theta) %.3f, mu %.2f: slide %.3g m, v %.3g m/s, wall force %.6g %.6g N\n", d,
                   tan(theta), mu, s, v, f->newton.wall_force[0], f->newton.wall_force[d - 1]);
            assert_rest(f, X);
            /* the wall carries the weight's normal part and cancels its tangential part */
            double M = 0.0;
            for (size_t i = 0; i < f->n; i++)
                M += f->mass[i];
            assert_float_equal(f->newton.wall_force[0], -M * G * sin(theta), 1e-12 * M * G);
            assert_float_equal(f->newton.wall_force[d - 1], M * G * cos(theta), 1e-12 * M * G);
            free(X);
            fem_destroy(&f);
        }
}

/* Above the threshold: s = a T^2 / 2 and v = a T, a = g (sin - mu cos), to
 * round-off; just above it (tan theta = 1.1 mu) and well above. Backward
 * Euler's first-order slide is printed beside. */
static void test_slides_above_threshold(void **state)
{
    (void)state;
    static const double cases[][2] = {{0.5, 0}, {0.3, 0.5}, {0.0, 0.3}};   /* mu, theta (0: tan = 1.1 mu) */
    const double dt = 1.0 / 1024, T = 1.0;
    for (int d = 2; d <= 3; d++)
        for (size_t c = 0; c < 3; c++) {
            double mu = cases[c][0], theta = cases[c][1] > 0 ? cases[c][1] : atan(1.1 * mu);
            double a = G * (sin(theta) - mu * cos(theta)), want = 0.5 * a * T * T, v;
            test_host th;
            fem *f = on_incline(&th, d, 0, theta, mu, 0.0, "irving");
            double s = slide(f, dt, 1024, &v);
            fem_destroy(&f);
            fem *b = on_incline(&th, d, 0, theta, mu, 0.0, "backward_euler");
            double vb, sb = slide(b, dt, 1024, &vb);
            fem_destroy(&b);
            printf("%dD slide: mu %.2f, theta %.4f: %.15f m, a T^2/2 = %.15f m (rel %.2e); v %.15f (a T %.15f); "
                   "backward Euler %.15f m (rel %.2e)\n",
                   d, mu, theta, s, want, fabs(s - want) / want, v, a * T, sb, fabs(sb - want) / want);
            assert_float_equal(s, want, 1e-12 * want);
            assert_float_equal(v, a * T, 1e-12 * a * T);
        }
}

/* Thrown down a slope below the threshold at v0 = |a| T_stop (T_stop = 0.5 s,
 * on a step's end): stops after v0^2 / (2 |a|) and stays there at rest. */
static void test_decelerates_and_stops(void **state)
{
    (void)state;
    const double mu = 0.6, theta = 0.3, dt = 1.0 / 1024, T_stop = 0.5;
    double a = G * (sin(theta) - mu * cos(theta)), v0 = -a * T_stop, want = v0 * v0 / (-2.0 * a);
    for (int d = 2; d <= 3; d++) {
        test_host th;
        fem *f = on_incline(&th, d, 0, theta, mu, v0, "irving");
        double v, s = slide(f, dt, 512, &v);
        printf("%dD stop: v0 %.6f m/s, a %.6f m/s^2: slide %.15f m, v0^2/(2|a|) = %.15f m (rel %.2e), v %.3g\n", d, v0,
               a, s, want, fabs(s - want) / want, v);
        assert_float_equal(s, want, 1e-12 * want);
        double s_more = slide(f, dt, 512, &v);   /* and stays */
        assert_true(s_more == 0.0 && v == 0.0);
        fem_destroy(&f);
    }
}

/* A block of triangles (2D) or tets (3D) with stiffness damping: elastic
 * and damping forces and nodes off the wall; Irving's Fig. 3.3 (a tet
 * matches the analytic curve). The slide is within 2e-3 of a T^2 / 2 (the
 * normal load on the floor nodes rocks with the block's elasticity), and
 * below the threshold the block only settles from its rest shape (its floor
 * nodes shift by the Poisson spread, 2e-5 m of 0.2 m) and stays. */
static void test_block_on_incline(void **state)
{
    (void)state;
    const double dt = 1.0 / 4096;
    for (int d = 2; d <= 3; d++) {
        double mu = 0.3, theta = 0.5, a = G * (sin(theta) - mu * cos(theta)), v;
        test_host th;
        fem *f = on_incline(&th, d, 1, theta, mu, 0.0, "irving");
        assert_true(dt <= fem_max_dt(f));
        double s = slide(f, dt, 4096, &v);
        printf("%dD block: slide %.9f m, a T^2/2 = %.9f m (rel %.2e), v %.6f (a T %.6f)\n", d, s, 0.5 * a, 
               fabs(s - 0.5 * a) / (0.5 * a), v, a);
        assert_float_equal(s, 0.5 * a, 2e-3 * 0.5 * a);
        fem_destroy(&f);
        f = on_incline(&th, d, 1, atan(0.5 * mu), mu, 0.0, "irving");
        size_t nd = f->n * (size_t)d;
        double *X = malloc(nd * sizeof *X), slip = 0.0;
        memcpy(X, f->x, nd * sizeof *X);
        s = slide(f, dt, 4096, &v);
        for (size_t i = 0; i < f->n; i++)   /* the nodes on the floor hold */
            if (X[i * (size_t)d + (size_t)d - 1] == 0.0)
                slip = fmax(slip, fabs(f->x[i * (size_t)d] - X[i * (size_t)d]));
        printf("%dD block below the threshold: mean shift %.3e m, floor nodes shifted %.3e m at most (settling "
               "from the rest shape), v %.3e m/s\n", d, s, slip, v);
        assert_true(fabs(s) < 1e-4 && slip < 1e-4 && fabs(v) < 1e-5);
        free(X);
        fem_destroy(&f);
    }
}

/* Irving's collision (the crossing point, then Gamma for the rest of the
 * step, Fig. 3.1 right) on an impact: a damped block dropped 5 cm onto the
 * level floor never has a node below it, lands, and rests there carried by
 * a wall force equal to its weight. */
static void test_block_dropped_rests(void **state)
{
    (void)state;
    for (int d = 2; d <= 3; d++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"dim\": %d, \"integrator\": \"irving\", \"gravity\": %s, \"walls\": {\"min\": %s, \"max\": %s}, "
                 "\"bodies\": [{\"mesh\": {\"generate\": \"%s\", \"min\": %s, \"max\": %s, \"cells\": %s}, "
                 "\"material\": {\"E\": 1e6, \"nu\": 0.3, \"density\": 1000, \"damping\": {\"beta\": 1e-3}}}]}",
                 d, d == 2 ? "[0, -9.81]" : "[0, 0, -9.81]", d == 2 ? "[-1, 0]" : "[-1, -1, 0]",
                 d == 2 ? "[1, 1]" : "[1, 1, 1]", d == 2 ? "rectangle" : "box", d == 2 ? "[0, 0.05]" : "[0, 0, 0.05]",
                 d == 2 ? "[0.2, 0.15]" : "[0.2, 0.1, 0.15]", d == 2 ? "[2, 1]" : "[1, 1, 1]");
        test_host th;
        fem *f = fem_make(&th, json);
        double dt = 1.0 / 4096, low = INFINITY, M = 0.0, speed = 0.0;
        assert_true(dt <= fem_max_dt(f));
        for (int s = 0; s < 4096; s++) {
            fem_run(f, dt, 1);
            for (size_t i = 0; i < f->n; i++)
                low = fmin(low, f->x[i * (size_t)d + (size_t)d - 1]);
        }
        for (size_t i = 0; i < f->n; i++) {
            M += f->mass[i];
            for (int k = 0; k < d; k++)
                speed = fmax(speed, fabs(f->v[i * (size_t)d + (size_t)k]));
        }
        printf("%dD drop: lowest node %.3g m, end speed %.3g m/s, wall force %.6f N (weight %.6f N)\n", d, low, speed,
               f->newton.wall_force[d - 1], M * G);
        assert_true(low >= 0.0);
        assert_true(speed < 1e-3);
        assert_float_equal(f->newton.wall_force[d - 1], M * G, 1e-3 * M * G);
        fem_destroy(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_below_threshold),
        cmocka_unit_test(test_slides_above_threshold),
        cmocka_unit_test(test_decelerates_and_stops),
        cmocka_unit_test(test_block_on_incline),
        cmocka_unit_test(test_block_dropped_rests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
