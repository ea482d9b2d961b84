/* solid_rigid on an inclined wall (Irving 2007, ch. 3: a particle on an
 * inclined plane moves exactly). The incline is the floor y = 0 of the walls
 * under gravity tilted by theta, g (sin theta, -cos theta, 0). A box resting
 * on it with friction mu
 *   - stays where it is while tan(theta) < mu (static friction);
 *   - slides from rest by s = (1/2) g (sin theta - mu cos theta) T^2 when
 *     tan(theta) > mu, to round-off, without turning;
 *   - thrown down the slope at v0 with tan(theta) < mu, stops after the
 *     exact discrete distance and stays.
 * Its kick, contact impulses and drift with the mean of the old and new
 * velocities are Irving's split for a resting contact (docs/solid_rigid.md,
 * "Friction on an incline"): the friction of the step's whole normal impulse
 * on the velocity, positions by the trapezoidal rule. In 3D the box rests on
 * four contacts, whose impulses are solved to round-off here (2000 sweeps
 * allowed, no tolerance); the default 30 sweeps leave 4e-12 of the slide. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fixture.h"

#define G 9.81

/* A 0.2 x 0.1 (x 0.1) box on the floor, friction mu (its own and the walls'). */
static fixture *box_on_incline(int d, double theta, double mu, double v0)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"dim\": %d, \"gravity\": [%.17g, %.17g%s], \"spacing\": 0.05,"
             " \"contact_tolerance\": 0, \"contact_iterations\": 2000,"
             " \"walls\": {\"min\": %s, \"max\": %s, \"friction\": %.17g},"
             " \"bodies\": [{\"name\": \"box\", \"shape\": \"%s\", \"size\": %s, \"density\": 500,"
             " \"friction\": %.17g, \"position\": %s, \"velocity\": [%.17g, 0%s]}]}",
             d, G * sin(theta), -G * cos(theta), d == 3 ? ", 0" : "", d == 2 ? "[-1, 0]" : "[-1, 0, -1]",
             d == 2 ? "[20, 1]" : "[20, 1, 1]", mu, d == 2 ? "rectangle" : "box",
             d == 2 ? "[0.2, 0.1]" : "[0.2, 0.1, 0.1]", mu, d == 2 ? "[0, 0.05]" : "[0, 0.05, 0]", v0,
             d == 3 ? ", 0" : "");
    fixture *f = fixture_new(json);
    assert_non_null(f->rs);
    return f;
}

/* n steps of dt; the slide along x and the end velocity. The box never
 * turns nor leaves the floor. */
static double slide(fixture *f, double dt, int n, double *v_end)
{
    const rigid_state *S = fixture_state(f, 0);
    double x0 = S->x[0];
    double lift = 0.0, turn = 0.0;
    for (int s = 0; s < n; s++) {
        assert_int_equal(fixture_step(f, dt, NULL), SEAM_OK);
        lift = fmax(lift, fabs(S->x[1] - 0.05));
        turn = fmax(turn, 2.0 * acos(fmin(1.0, fabs(S->q[0]))));
    }
    assert_true(lift < 1e-11 && turn < 1e-12);   /* it neither lifts nor tips */
    *v_end = S->v[0];
    return S->x[0] - x0;
}

/* Below the threshold (tan theta = 0.9 mu): at rest. */
static void test_static_below_threshold(void **state)
{
    (void)state;
    for (int d = 2; d <= 3; d++) {
        double mu = 0.5, theta = atan(0.9 * mu), v;
        fixture *f = box_on_incline(d, theta, mu, 0.0);
        double s = slide(f, 1.0 / 1024, 1024, &v);
        printf("%dD static: tan(theta) %.3f, mu %.2f: slide %.3g m, v %.3g m/s\n", d, tan(theta), mu, s, v);
        assert_close(s, 0.0, 1e-15);
        assert_close(v, 0.0, 1e-15);
        fixture_destroy(f);
    }
}

/* Above the threshold, from rest: s = a T^2 / 2, v = a T, to round-off. */
static void test_slides_above_threshold(void **state)
{
    (void)state;
    static const double cases[][2] = {{0.5, 0}, {0.3, 0.5}, {0.0, 0.3}};   /* mu, theta (0: tan = 1.1 mu) */
    for (int d = 2; d <= 3; d++)
        for (size_t c = 0; c < 3; c++) {
            double mu = cases[c][0], theta = cases[c][1] > 0 ? cases[c][1] : atan(1.1 * mu), T = 1.0, v;
            double a = G * (sin(theta) - mu * cos(theta)), want = 0.5 * a * T * T;
            fixture *f = box_on_incline(d, theta, mu, 0.0);
            double s = slide(f, 1.0 / 1024, 1024, &v);
            printf("%dD slide: mu %.2f, theta %.4f: %.15f m, a T^2/2 = %.15f m (rel %.2e); v %.15f (a T %.15f)\n", d,
                   mu, theta, s, want, fabs(s - want) / want, v, a * T);
            assert_close(s, want, 1e-12 * want);
            assert_close(v, a * T, 1e-12 * a * T);
            fixture_destroy(f);
        }
}

/* Thrown down the slope below the threshold at v0 = |a| (N + 1/2) dt: v_n =
 * v0 - n |a| dt down to v_N = |a| dt / 2, which the next step's friction
 * stops (it could take |a| dt more). The drift moves by the mean of the old
 * and new velocities, so the exact discrete slide is
 *   dt sum_{n<N} (v_n + v_{n+1}) / 2 + dt v_N / 2 = v0^2 / (2 |a|) + |a| dt^2 / 8,
 * the analytic stop plus a quarter of the stopping step's own s = |a| dt^2 / 2.
 * Then it stays. */
static void test_decelerates_and_stops(void **state)
{
    (void)state;
    const double mu = 0.6, theta = 0.3, dt = 1.0 / 1024;
    const int N = 512;
    double a = G * (sin(theta) - mu * cos(theta)), v0 = -a * (N + 0.5) * dt, v;
    double want = v0 * v0 / (-2.0 * a) - a * dt * dt / 8.0;
    for (int d = 2; d <= 3; d++) {
        fixture *f = box_on_incline(d, theta, mu, v0);
        double s = slide(f, dt, N + 1, &v);
        printf("%dD stop: v0 %.6f m/s: slide %.15f m, v0^2/(2|a|) + |a| dt^2/8 = %.15f m (rel %.2e), v %.3g\n", d,
               v0, s, want, fabs(s - want) / want, v);
        assert_close(s, want, 1e-12 * want);
        assert_close(v, 0.0, 1e-15);
        double more = slide(f, dt, 512, &v);
        assert_close(more, 0.0, 1e-15);
        assert_close(v, 0.0, 1e-15);
        fixture_destroy(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_below_threshold),
        cmocka_unit_test(test_slides_above_threshold),
        cmocka_unit_test(test_decelerates_and_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
