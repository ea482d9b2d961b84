/* The added-mass piston: a piston of mass m_s on a spring k pushes an
 * incompressible column of mass m_a (tests/plugins/piston_*.c).
 *
 * Exact coupled motion: x'' = -w^2 x with w^2 = k / (m_s + m_a).
 * Backward Euler on the coupled system (the monolithic discretization the
 * strongly coupled iterations must reproduce):
 *     (m_s + m_a)(v' - v)/dt = -k x',  x' = x + dt v'
 *     =>  x' = (x + dt v) / (1 + k dt^2 / (m_s + m_a)),
 * whose oscillation advances atan(w dt) per step: period 2 pi dt / atan(w dt).
 *
 * Gauss-Seidel with relaxation omega: the solid gives dX/dF = dt^2/(m_s + k dt^2),
 * the fluid dF/dX = -m_a/dt^2, so one iteration maps an error e to
 * (1 - omega (1 + r)) e with r = m_a / (m_s + k dt^2): it converges iff
 * 0 < omega < 2 / (1 + r), and the residual shrinks by |1 - omega (1 + r)|
 * per iteration.
 *
 * Explicit coupling with the linear predictor hands the fluid the solid's
 * last velocity, so the fluid answers with the previous step's acceleration:
 * m_s a^{n+1} + k dt^2 (...) = -m_a a^n, an amplification of -r per step:
 * stable iff r < 1 (the added-mass instability). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "seam/config.h"
#include "simulation.h"
#include "test_host.h"

typedef struct {
    char text[65536];
    int errors;
} capture;

static void capture_log(void *ctx, seam_log_level level, const char *who, const char *message)
{
    capture *c = ctx;
    size_t len = strlen(c->text);
    snprintf(c->text + len, sizeof c->text - len, "[%s] %s\n", who ? who : "seam", message);
    if (level >= SEAM_LOG_ERROR)
        c->errors++;
}

typedef struct {
    seam_status status;
    seam_summary summary;
    double *x;          /* interface trajectory, steps+1 rows of n values */
    double *dt;         /* dt per step */
    size_t rows, n;
    char out[1024];
    char names[4][64];  /* participants' names and solve counts */
    long solves[4];
    capture log;
} run_result;

/* Read a CSV of numbers (header skipped) into a row-major array. */
static double *read_csv(const char *path, size_t skip_cols, size_t *rows, size_t *cols)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char line[65536];
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return NULL;
    }
    size_t ncol = 1;
    for (char *p = line; *p; p++)
        ncol += *p == ',';
    *cols = ncol - skip_cols;
    size_t cap = 1024, n = 0;
    double *data = malloc(cap * *cols * sizeof *data);
    while (fgets(line, sizeof line, f)) {
        if (n == cap) {
            cap *= 2;
            data = realloc(data, cap * *cols * sizeof *data);
        }
        char *p = line;
        for (size_t c = 0; c < ncol; c++) {
            double v = strtod(p, &p);
            if (c >= skip_cols)
                data[n * *cols + c - skip_cols] = v;
            if (*p == ',')
                p++;
        }
        n++;
    }
    fclose(f);
    *rows = n;
    return data;
}

static run_result *run_scene(const char *name, const char *scene_json, const char **sets)
{
    run_result *r = calloc(1, sizeof *r);
    char err[2048];
    seam_doc *doc = seam_doc_parse(scene_json, name, err, sizeof err);
    if (!doc)
        fail_msg("%s", err);
    for (int i = 0; sets && sets[i]; i++)
        assert_int_equal(seam_doc_set(doc, sets[i], err, sizeof err), 0);
    snprintf(r->out, sizeof r->out, "%s", test_tmpdir(name));
    seam_run_options opts = {.out_dir = r->out, .log = capture_log, .log_ctx = &r->log};
    seam_sim *sim = seam_sim_new(doc, &opts);
    if (!sim) {
        fprintf(stderr, "%s", r->log.text);
        fail_msg("scene %s did not load", name);
    }
    r->status = seam_sim_run(sim);
    r->summary = *seam_sim_summary(sim);
    for (size_t i = 0; i < r->summary.n_participants && i < 4; i++) {
        snprintf(r->names[i], sizeof r->names[i], "%s", r->summary.participants[i].name);
        r->solves[i] = r->summary.participants[i].solves;
    }
    r->summary.participants = NULL;   /* owned by the simulation */
    seam_sim_destroy(&sim);
    seam_doc_destroy(&doc);
    char path[1200];
    snprintf(path, sizeof path, "%s/interface.csv", r->out);
    r->x = read_csv(path, 2, &r->rows, &r->n);
    size_t rows, cols;
    snprintf(path, sizeof path, "%s/stats.csv", r->out);
    double *stats = read_csv(path, 0, &rows, &cols);
    assert_non_null(stats);
    assert_int_equal(cols, 9);
    r->dt = malloc((rows + 1) * sizeof *r->dt);
    for (size_t i = 0; i < rows; i++)
        r->dt[i] = stats[i * cols + 2];
    free(stats);
    return r;
}

static void free_result(run_result *r)
{
    free(r->x);
    free(r->dt);
    free(r);
}

static char *piston_scene(const char *scheme, double m_s, double m_a, double k, double dt, double end,
                          double tolerance, int max_iterations, double omega)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"time\": {\"end\": %.17g, \"dt\": %.17g},\n"
             " \"coupling\": {\"scheme\": \"%s\", \"tolerance\": %.17g, \"max_iterations\": %d,\n"
             "              \"on_nonconvergence\": \"fail\"%s%.17g},\n"
             " \"fluid\": {\"plugin\": \"piston_fluid\", \"added_mass\": %.17g},\n"
             " \"solids\": [{\"name\": \"piston\", \"plugin\": \"piston_solid\", \"mass\": %.17g,\n"
             "              \"stiffness\": %.17g, \"position\": 0.1}],\n"
             " \"output\": {\"interface\": true, \"frames\": false}}\n",
             end, dt, scheme, tolerance, max_iterations,
             strcmp(scheme, "relaxation") == 0 ? ", \"relaxation\": " : ", \"divergence\": ",
             strcmp(scheme, "relaxation") == 0 ? omega : 1e8, m_a, m_s, k);
    return buf;
}

/* Largest deviation of trajectory column col from the monolithic backward-Euler recursion. */
static double deviation_from_monolithic(const run_result *r, size_t col, double m, double k, double x0)
{
    double x = x0, v = 0.0, worst = fabs(r->x[col] - x0);
    for (size_t s = 1; s < r->rows; s++) {
        double dt = r->dt[s - 1];
        double x_new = (x + dt * v) / (1.0 + k * dt * dt / m);
        v = (x_new - x) / dt;
        x = x_new;
        worst = fmax(worst, fabs(r->x[s * r->n + col] - x));
    }
    return worst;
}

/* Mean spacing of upward zero crossings, linearly interpolated. */
static double measured_period(const run_result *r, double dt)
{
    double first = -1, last = -1;
    int count = 0;
    for (size_t s = 1; s < r->rows; s++) {
        double a = r->x[(s - 1) * r->n], b = r->x[s * r->n];
        if (a < 0 && b >= 0) {
            double t = ((double)(s - 1) + a / (a - b)) * dt;
            if (first < 0)
                first = t;
            last = t;
            count++;
        }
    }
    assert_true(count >= 3);
    return (last - first) / (count - 1);
}

static void test_strong_coupling_matches_monolithic_and_period(void **state)
{
    (void)state;
    double m_s = 1.0, m_a = 2.0, w = 2.0 * M_PI, k = w * w * (m_s + m_a), dt = 0.005;
    run_result *r = run_scene("piston_strong", piston_scene("relaxation", m_s, m_a, k, dt, 5.0, 1e-12, 100, 0.3), NULL);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->summary.steps, 1000);
    assert_int_equal(r->summary.not_converged, 0);
    /* Converged iterations reproduce the monolithic discretization. */
    assert_true(deviation_from_monolithic(r, 0, m_s + m_a, k, 0.1) < 1e-10);
    /* The period is backward Euler's, within interpolation error, and the
     * analytic one within BE's phase error (w dt)^2 / 3. */
    double T = measured_period(r, dt);
    double T_be = 2.0 * M_PI * dt / atan(w * dt), T_exact = 2.0 * M_PI / w;
    assert_true(fabs(T - T_be) < 1e-4 * T_be);
    assert_true(fabs(T - T_exact) / T_exact < (w * dt) * (w * dt) / 3.0 * 1.1);
    assert_true(fabs(T - T_exact) / T_exact > (w * dt) * (w * dt) / 3.0 * 0.9);
    /* With omega = 0.3 and r ~ 2 the contraction is |1 - 0.3 * 3| = 0.1 per iteration. */
    assert_true(r->summary.max_iterations <= 14);
    free_result(r);
}

static void test_explicit_added_mass_instability(void **state)
{
    (void)state;
    double m_s = 1.0, k = 40.0, dt = 0.01;
    double m_stable = 0.5 * (m_s + k * dt * dt), m_unstable = 1.5 * (m_s + k * dt * dt);   /* r = 0.5, 1.5 */
    run_result *ok = run_scene("piston_explicit_small", piston_scene("explicit", m_s, m_stable, k, dt, 20.0, 1e-9, 1, 0), NULL);
    assert_int_equal(ok->status, SEAM_OK);
    assert_int_equal(ok->summary.steps, 2000);
    double peak = 0;
    for (size_t s = 0; s < ok->rows; s++)
        peak = fmax(peak, fabs(ok->x[s]));
    assert_true(peak <= 0.1 + 1e-12);   /* never grows past the release amplitude */
    free_result(ok);

    run_result *bad = run_scene("piston_explicit_large", piston_scene("explicit", m_s, m_unstable, k, dt, 20.0, 1e-9, 1, 0), NULL);
    assert_int_equal(bad->status, SEAM_ERROR);
    assert_non_null(strstr(bad->log.text, "diverged"));
    assert_true(bad->summary.steps < 2000);
    free_result(bad);
}

/* Contraction factors of step 0 from residuals.csv. */
static double observed_contraction(const run_result *r, int at)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/residuals.csv", r->out);
    size_t rows, cols;
    double *res = read_csv(path, 0, &rows, &cols);
    assert_non_null(res);
    assert_true(rows > (size_t)at + 1);
    double q = res[(size_t)(at + 1) * cols + 2] / res[(size_t)at * cols + 2];
    free(res);
    return q;
}

static void test_relaxation_limit(void **state)
{
    (void)state;
    double m_s = 1.0, m_a = 3.0, k = 40.0, dt = 0.01;
    double r = m_a / (m_s + k * dt * dt);
    double omega_max = 2.0 / (1.0 + r);

    double below = 0.97 * omega_max;
    run_result *conv = run_scene("piston_below", piston_scene("relaxation", m_s, m_a, k, dt, 0.2, 1e-11, 3000, below), NULL);
    assert_int_equal(conv->status, SEAM_OK);
    assert_int_equal(conv->summary.not_converged, 0);
    assert_true(deviation_from_monolithic(conv, 0, m_s + m_a, k, 0.1) < 1e-9);
    assert_float_equal(observed_contraction(conv, 20), fabs(1.0 - below * (1.0 + r)), 1e-6);
    free_result(conv);

    double above = 1.03 * omega_max;
    run_result *div = run_scene("piston_above", piston_scene("relaxation", m_s, m_a, k, dt, 0.2, 1e-11, 3000, above), NULL);
    assert_int_equal(div->status, SEAM_ERROR);
    assert_non_null(strstr(div->log.text, "diverged at step 0"));
    assert_float_equal(observed_contraction(div, 20), fabs(1.0 - above * (1.0 + r)), 1e-6);
    free_result(div);
}

static void test_two_solids_concatenate(void **state)
{
    (void)state;
    const char *scene =
        "{\"time\": {\"end\": 1.0, \"dt\": 0.01},\n"
        " \"coupling\": {\"scheme\": \"relaxation\", \"relaxation\": 0.25, \"tolerance\": 1e-12, \"max_iterations\": 200},\n"
        " \"fluid\": {\"plugin\": \"piston_fluid\", \"added_mass\": 2.0},\n"
        " \"solids\": [{\"name\": \"light\", \"plugin\": \"piston_solid\", \"mass\": 1.0, \"stiffness\": 30, \"position\": 0.1},\n"
        "            {\"name\": \"heavy\", \"plugin\": \"piston_solid\", \"mass\": 3.0, \"stiffness\": 90, \"position\": -0.05}],\n"
        " \"output\": {\"interface\": true}}\n";
    run_result *r = run_scene("piston_two", scene, NULL);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->n, 2);
    assert_true(deviation_from_monolithic(r, 0, 3.0, 30.0, 0.1) < 1e-10);
    assert_true(deviation_from_monolithic(r, 1, 5.0, 90.0, -0.05) < 1e-10);
    assert_int_equal(r->summary.n_participants, 3);
    assert_string_equal(r->names[1], "light");
    assert_true(r->solves[2] >= r->summary.steps);
    free_result(r);
}

static void test_nan_is_reported(void **state)
{
    (void)state;
    const char *sets[] = {"fluid.fault={\"kind\": \"nan\", \"step\": 5}", NULL};
    run_result *r = run_scene("piston_nan", piston_scene("relaxation", 1, 1, 40, 0.01, 1.0, 1e-10, 100, 0.4), sets);
    assert_int_equal(r->status, SEAM_ERROR);
    assert_int_equal(r->summary.steps, 5);   /* nothing non-finite was committed */
    assert_non_null(strstr(r->log.text, "[fluid] error: returned a non-finite load (nan) on interface point 0 at step 5 (t = 0.05 s)"));
    free_result(r);
}

static void test_solver_error_is_reported(void **state)
{
    (void)state;
    const char *sets[] = {"fluid.fault={\"kind\": \"error\", \"step\": 3}", NULL};
    run_result *r = run_scene("piston_error", piston_scene("relaxation", 1, 1, 40, 0.01, 1.0, 1e-10, 100, 0.4), sets);
    assert_int_equal(r->status, SEAM_ERROR);
    assert_int_equal(r->summary.steps, 3);
    assert_non_null(strstr(r->log.text, "[fluid] error: injected failure at step 3"));
    assert_non_null(strstr(r->log.text, "[fluid] error: solve failed at step 3 (t = 0.03 s)"));
    free_result(r);
}

static void test_unstable_step_is_retried_smaller(void **state)
{
    (void)state;
    const char *sets[] = {"fluid.fault={\"unstable_above_dt\": 0.004}", NULL};
    run_result *r = run_scene("piston_unstable", piston_scene("relaxation", 1, 1, 40, 0.01, 0.1, 1e-12, 100, 0.4), sets);
    assert_int_equal(r->status, SEAM_OK);
    /* Every step was halved from 0.01 s until it fit under 0.004 s, never further. */
    assert_float_equal(r->summary.t, 0.1, 1e-15);
    assert_true(r->summary.steps >= 38 && r->summary.steps <= 41);
    assert_true(r->summary.retries >= 2 * (r->summary.steps - 2));
    for (long s = 0; s < r->summary.steps; s++)
        assert_true(r->dt[s] <= 0.004 && r->dt[s] > 0.002);
    assert_true(deviation_from_monolithic(r, 0, 2.0, 40.0, 0.1) < 1e-10);
    free_result(r);
}

static void test_nonconvergence_policy(void **state)
{
    (void)state;
    const char *warn[] = {"coupling.max_iterations=2", "coupling.on_nonconvergence=warn", NULL};
    run_result *w = run_scene("piston_warn", piston_scene("relaxation", 1, 1, 40, 0.01, 0.1, 1e-14, 100, 0.4), warn);
    assert_int_equal(w->status, SEAM_OK);
    assert_int_equal(w->summary.not_converged, 10);
    assert_non_null(strstr(w->log.text, "not converged at step 0"));
    free_result(w);
    const char *fail[] = {"coupling.max_iterations=2", NULL};
    run_result *f = run_scene("piston_fail", piston_scene("relaxation", 1, 1, 40, 0.01, 0.1, 1e-14, 100, 0.4), fail);
    assert_int_equal(f->status, SEAM_ERROR);
    assert_int_equal(f->summary.steps, 0);
    assert_non_null(strstr(f->log.text, "error: not converged at step 0 (t = 0 s) after 2 iterations"));
    free_result(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strong_coupling_matches_monolithic_and_period),
        cmocka_unit_test(test_explicit_added_mass_instability),
        cmocka_unit_test(test_relaxation_limit),
        cmocka_unit_test(test_two_solids_concatenate),
        cmocka_unit_test(test_nan_is_reported),
        cmocka_unit_test(test_solver_error_is_reported),
        cmocka_unit_test(test_unstable_step_is_retried_smaller),
        cmocka_unit_test(test_nonconvergence_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
