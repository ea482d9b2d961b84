/* The Turek-Hron benchmark (Turek and Hron 2006; examples/turek_hron_cfd1.json
 * and turek_hron_fsi1.json), shortened. The full runs and their errors are in
 * docs/performance.md (bench/schemes/turek_hron.sh).
 * - CFD1 (rigid cylinder and flag) on a coarse grid, 21 cells across the
 *   channel (dx = 0.41 / 21 m, 128 x 21 cells, the cylinder 5 cells across),
 *   dt 0.04 s, to 5 s (steady within 0.4%): the drag within 5% of 14.29 N/m;
 *   the flag's own drag is positive: the viscous shear along it outweighs the
 *   pressure on its end (without fluid_mac's viscous_loads it is -0.67 N/m
 *   and the total drag 42% low).
 * - FSI1 (the elastic flag) on the scene's grid, 250 x 41 (dx = 0.01 m; on 21
 *   cells across the staircase cylinder's lift has the wrong sign and the
 *   flag bends down), dt 0.05 s, means over t in (5, 6] s: every step
 *   converges, the drag within 5% of 14.295 N/m, the tip A stretched
 *   downstream (ux within a factor 2 of 0.0227 mm), A lifted (uy > 0, the
 *   benchmark's sign) and uy within 50% of 0.8209 mm. Measured +37%: the
 *   bend, a tenth of a cell, moves no voxel of the flag, so the fluid acts on
 *   the unbent flag and its lift is CFD1's (docs/performance.md); the band
 *   is what this solver can claim, and the twins below show it still bites.
 * - Mutation twins, the same checks on a scene with the physics changed,
 *   which must fail: the flag 20% softer (E x 0.8: uy +23%, out of the band)
 *   and the scene mirrored about the channel's centre line y = 0.205 m (the
 *   cylinder at y = 0.21 m: the lift and the bend change sign). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_scene.h"

#define GRID "cell_size=0.01952380952380952", "fluid.cells=[128, 21]", "time.dt=0.04", "time.end=5"
#define QUIET "output.frames=false", "output.picture=false"

/* Mean of probes.csv's column col over the rows with t in (t0, t1]. */
static double window_mean(const double *p, size_t rows, size_t cols, size_t col, double t0, double t1)
{
    double sum = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < rows; i++)
        if (p[i * cols + 1] > t0 && p[i * cols + 1] <= t1 + 1e-9) {
            sum += p[i * cols + col];
            n++;
        }
    assert_true(n > 0);
    return sum / (double)n;
}

static void test_cfd1(void **state)
{
    (void)state;
    const char *const sets[] = {GRID, QUIET, NULL};
    test_run *r = test_run_scene("turek_hron_cfd1", NULL, "examples/turek_hron_cfd1.json", sets);
    if (r->status != SEAM_OK)
        fail_msg("%s", r->log);
    size_t rows, cols;
    double *p = test_run_probes(r, &rows, &cols);
    assert_int_equal(cols, 14);   /* step, t, body, circle, flag: x y fx fy each */
    double drag = window_mean(p, rows, cols, 4, 4.0, 5.0), lift = window_mean(p, rows, cols, 5, 4.0, 5.0);
    double before = window_mean(p, rows, cols, 4, 3.0, 4.0), flag = window_mean(p, rows, cols, 12, 4.0, 5.0);
    print_message("CFD1 at 21 cells across: drag %.4f N/m (%+.2f%% of 14.29; %+.3f%% over the last second), "
                  "lift %.4f N/m, the flag's drag %.4f N/m\n", drag, 100 * (drag / 14.29 - 1),
                  100 * (drag / before - 1), lift, flag);
    assert_true(fabs(drag / 14.29 - 1.0) < 0.05);
    assert_true(fabs(drag / before - 1.0) < 0.01);
    assert_true(flag > 0.0);
    free(p);
    test_run_free(r);
}

#define FSI1_GRID "fluid.cells=[250, 41]", "time.dt=0.05", "time.end=6"

/* The FSI1 checks, each a bit of fsi1_failures' answer. */
enum {
    FSI1_UNCONVERGED = 1,   /* a step ended without converging */
    FSI1_DRAG = 2,          /* drag not within 5% of 14.295 N/m */
    FSI1_UX = 4,            /* ux not within a factor 2 of 0.0227e-3 m */
    FSI1_UY_SIGN = 8,       /* the tip bends down */
    FSI1_UY_SIZE = 16,      /* |uy| not within 50% of 0.8209e-3 m */
};

/* Mean displacement of the interface point that starts at (ax, ay) over
 * the rows with t in (t0, t1]. */
static void tip_mean(const test_run *r, double ax, double ay, double t0, double t1, double *ux, double *uy)
{
    size_t tip = 0, points = r->n / 2;
    for (size_t k = 1; k < points; k++)
        if (hypot(r->X[2 * k] - ax, r->X[2 * k + 1] - ay) < hypot(r->X[2 * tip] - ax, r->X[2 * tip + 1] - ay))
            tip = k;
    assert_true(hypot(r->X[2 * tip] - ax, r->X[2 * tip + 1] - ay) < 1e-9);
    size_t n = 0;
    *ux = *uy = 0.0;
    for (size_t i = 1; i < r->rows; i++)
        if (r->t[i] > t0 && r->t[i] <= t1 + 1e-9) {
            *ux += r->X[i * r->n + 2 * tip] - r->X[2 * tip];
            *uy += r->X[i * r->n + 2 * tip + 1] - r->X[2 * tip + 1];
            n++;
        }
    assert_true(n > 0);
    *ux /= (double)n;
    *uy /= (double)n;
}

/* Run FSI1 with the overrides `mutation` (NULL-terminated, may be empty), its
 * tip A at (0.6, ay), and return the checks it fails (0: it passes). */
static unsigned fsi1_failures(const char *name, const char *const *mutation, double ay)
{
    const char *sets[16] = {FSI1_GRID, QUIET};
    size_t m = 5;
    for (size_t i = 0; mutation[i]; i++)
        sets[m++] = mutation[i];
    sets[m] = NULL;
    test_run *r = test_run_scene(name, NULL, "examples/turek_hron_fsi1.json", sets);
    if (r->status != SEAM_OK)
        fail_msg("%s", r->log);
    size_t rows, cols;
    double *p = test_run_probes(r, &rows, &cols);
    assert_int_equal(cols, 10);   /* step, t, cylinder and flag: x y fx fy each */
    double drag = window_mean(p, rows, cols, 4, 5.0, 6.0) + window_mean(p, rows, cols, 8, 5.0, 6.0);
    double lift = window_mean(p, rows, cols, 5, 5.0, 6.0) + window_mean(p, rows, cols, 9, 5.0, 6.0);
    double ux, uy;
    tip_mean(r, 0.6, ay, 5.0, 6.0, &ux, &uy);
    char path[1200];
    snprintf(path, sizeof path, "%s/stats.csv", r->out);
    size_t srows, scols;
    double *s = test_read_csv(path, 0, &srows, &scols);
    assert_non_null(s);
    unsigned fails = 0;
    for (size_t i = 0; i < srows; i++)
        if (s[i * scols + 5] != 1.0)
            fails |= FSI1_UNCONVERGED;
    if (!(fabs(drag / 14.295 - 1.0) < 0.05))
        fails |= FSI1_DRAG;
    if (!(ux > 0.5 * 0.0227e-3 && ux < 2.0 * 0.0227e-3))
        fails |= FSI1_UX;
    if (!(uy > 0.0))
        fails |= FSI1_UY_SIGN;
    if (!(fabs(fabs(uy) / 0.8209e-3 - 1.0) < 0.5))
        fails |= FSI1_UY_SIZE;
    print_message("%s at 41 cells across: drag %.4f N/m (%+.2f%% of 14.295), lift %.4f N/m, tip ux %.4g m "
                  "(%.3g of 0.0227e-3), uy %.4g m (%.3g of 0.8209e-3): failed checks 0x%x\n", name, drag,
                  100 * (drag / 14.295 - 1), lift, ux, ux / 0.0227e-3, uy, uy / 0.8209e-3, fails);
    free(s);
    free(p);
    test_run_free(r);
    return fails;
}

static void test_fsi1(void **state)
{
    (void)state;
    const char *const none[] = {NULL};
    assert_int_equal(fsi1_failures("turek_hron_fsi1", none, 0.2), 0);
}

/* The twin with the flag 20% softer: it bends 23% further, out of the band. */
static void test_fsi1_softer_fails(void **state)
{
    (void)state;
    const char *const softer[] = {"solids[1].bodies[0].material.E=1.12e6", NULL};
    assert_true(fsi1_failures("turek_hron_fsi1_softer", softer, 0.2) & FSI1_UY_SIZE);
}

/* The twin mirrored about y = 0.205 m (the channel's centre line): the lift
 * and the bend change sign, and the sign check fails. */
static void test_fsi1_mirrored_fails(void **state)
{
    (void)state;
    const char *const mirrored[] = {
        "solids[0].bodies[0].position=[0.2, 0.21]",
        "solids[1].bodies[0].mesh.min=[0.2489898, 0.2]", "solids[1].bodies[0].mesh.max=[0.6, 0.22]",
        "solids[1].bodies[0].pin.box.min=[0.2489, 0.199]", "solids[1].bodies[0].pin.box.max=[0.2490, 0.221]",
        NULL};
    assert_true(fsi1_failures("turek_hron_fsi1_mirrored", mirrored, 0.21) & FSI1_UY_SIGN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cfd1),
        cmocka_unit_test(test_fsi1),
        cmocka_unit_test(test_fsi1_softer_fails),
        cmocka_unit_test(test_fsi1_mirrored_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
