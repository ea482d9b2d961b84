/* The participant library's waveform interpolation (precice/participant/
 * waveform.c): each degree reproduces polynomials of its degree exactly at
 * any time, from uneven samples; too few samples lower the degree. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "waveform.h"

static double cubic(double t) { return 2.0 - t + 3.0 * t * t - 4.0 * t * t * t; }
static double quadratic(double t) { return 1.5 + 2.0 * t - 5.0 * t * t; }

/* Samples of f at the times, two values per sample (f and 2 f). */
static void sample(precice_waveform *w, const double *times, size_t n, double (*f)(double))
{
    double values[16];
    for (size_t i = 0; i < n; i++) {
        values[2 * i] = f(times[i]);
        values[2 * i + 1] = 2.0 * f(times[i]);
    }
    precice_waveform_set(w, n, times, 2, values);
}

static void check_exact(const precice_waveform *w, int degree, double (*f)(double))
{
    size_t index[2] = { 1, 0 };
    for (double t = 0.0; t <= 0.1 + 1e-15; t += 0.1 / 37) {
        double out[2];
        precice_waveform_eval(w, degree, t, index, 2, out);
        assert_true(fabs(out[0] - 2.0 * f(t)) < 1e-13);
        assert_true(fabs(out[1] - f(t)) < 1e-13);
    }
}

static void test_cubic_and_quadratic_exact(void **state)
{
    (void)state;
    const double times[] = { 0.0, 0.013, 0.04, 0.071, 0.1 };
    precice_waveform w = { 0 };
    sample(&w, times, 5, cubic);
    check_exact(&w, 3, cubic);
    sample(&w, times, 5, quadratic);
    check_exact(&w, 2, quadratic);
    /* degree 2 cannot follow a cubic everywhere: the spline is not the cubic */
    size_t index = 0;
    double out, worst = 0.0;
    sample(&w, times, 5, cubic);
    for (double t = 0.0; t <= 0.1; t += 0.001) {
        precice_waveform_eval(&w, 2, t, &index, 1, &out);
        worst = fmax(worst, fabs(out - cubic(t)));
    }
    assert_true(worst > 1e-9);
    precice_waveform_clear(&w);
}

static void test_too_few_samples_lower_the_degree(void **state)
{
    (void)state;
    const double times[] = { 0.0, 0.1 };
    double values[] = { 1.0, 3.0 };
    precice_waveform w = { 0 };
    precice_waveform_set(&w, 2, times, 1, values);
    assert_int_equal(precice_waveform_degree(&w, 3), 1);
    size_t index = 0;
    double out;
    precice_waveform_eval(&w, 3, 0.025, &index, 1, &out);
    assert_true(fabs(out - 1.5) < 1e-14);   /* linear between the two samples */
    precice_waveform_set(&w, 1, times, 1, values);
    assert_int_equal(precice_waveform_degree(&w, 2), 0);
    precice_waveform_eval(&w, 2, 0.07, &index, 1, &out);
    assert_true(out == 1.0);
    precice_waveform_clear(&w);
}

static void test_degree_zero_takes_the_sample_at_or_after(void **state)
{
    (void)state;
    const double times[] = { 0.0, 0.03, 0.1 };
    double values[] = { 1.0, 2.0, 3.0 };
    precice_waveform w = { 0 };
    precice_waveform_set(&w, 3, times, 1, values);
    size_t index = 0;
    const double t[] = { 0.0, 0.01, 0.03, 0.0300001, 0.1 };
    const double want[] = { 1.0, 2.0, 2.0, 3.0, 3.0 };
    for (size_t i = 0; i < 5; i++) {
        double out;
        precice_waveform_eval(&w, 0, t[i], &index, 1, &out);
        assert_true(out == want[i]);
    }
    precice_waveform_clear(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cubic_and_quadratic_exact),
        cmocka_unit_test(test_too_few_samples_lower_the_degree),
        cmocka_unit_test(test_degree_zero_takes_the_sample_at_or_after),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
