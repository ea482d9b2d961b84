/* Akbay 2018, chapter 2's scenes (spec xpm.md 10.5) as examples, shortened
 * and on reduced grids, each coupled by xpm:
 * - examples/water_balls.json (Fig. 2.5): discs of density 0.1, 0.5 and 0.9
 *   times the water's float at those submerged fractions of their area
 *   (Archimedes), the one of 10 sinks to the floor;
 * - examples/smoke_plank.json (Fig. 2.2): a smoke jet lifts a light plank;
 * - examples/water_balloon.json (Fig. 2.4): a balloon filled by a stream of
 *   water grows by the stream's volume;
 * - examples/water_complex.json (Fig. 2.13): a cloth and spheres of three
 *   densities in 3D water: light ones float, the heavy one sinks.
 * The full runs and the thesis's Tables 2.3/2.4 quantities are in
 * docs/performance.md (bench/schemes/chapter2_scenes.sh). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_check.h"
#include "test_scene.h"

/* Every step of the run converged (stats.csv's `converged`); the number of steps. */
static size_t all_converged(const test_run *r)
{
    char path[1200];
    size_t rows, cols;
    snprintf(path, sizeof path, "%s/stats.csv", r->out);
    double *s = test_read_csv(path, 0, &rows, &cols);
    assert_non_null(s);
    assert_int_equal(rows, r->rows - 1);
    for (size_t i = 0; i < rows; i++)
        if (s[i * cols + 5] != 1.0)
            fail_msg("step %zu did not converge (residual %g m)", i, s[i * cols + 4]);
    free(s);
    return rows;
}

/* Area of the part of a disc of radius R below a line h above its lowest point. */
static double segment_area(double R, double h)
{
    if (h <= 0.0)
        return 0.0;
    if (h >= 2.0 * R)
        return M_PI * R * R;
    return R * R * acos((R - h) / R) - (R - h) * sqrt(2.0 * R * h - h * h);
}

/* Fig. 2.5. The submerged fraction is measured against the water's own
 * free surface: the zero of its level set, found in two columns of level
 * set probes at cell centres, 0.15 m (1.5 radii) either side of each disc's
 * start (they drift by about 3 cm), averaged; not from the surface
 * particles, whose mean lies below the surface (tests/fluid_sph/test_float.c).
 * The fraction is the disc's area below that level over pi R^2, averaged
 * over 0.3 to 1 s: the inviscid water keeps the discs bobbing by a few per
 * cent of their area (0.08 to 0.13 for the light one). Measured: 0.102,
 * 0.499, 0.905. The floating discs start where Archimedes puts them in the
 * still tank; as the heavy one sinks and the level shifts they must follow.
 * The mutated twin, the water 20% denser (1200 kg/m^3: density ratios 0.083,
 * 0.42, 0.75), must fail the same check. `water`: the water's density. */
#define NCOL 6
#define NLEV 13
static bool water_balls_float(const char *name, double water)
{
    const double R = 0.1, dx = 0.0125, want[3] = {0.1, 0.5, 0.9};
    const double col_x[NCOL] = {0.05, 0.35, 0.45, 0.75, 0.85, 1.15};
    char probe_set[16384], density[64];
    int len = snprintf(probe_set, sizeof probe_set, "output.probes=[");
    for (int b = 0; b < 4; b++)
        len += snprintf(probe_set + len, sizeof probe_set - (size_t)len, "%s{\"name\": \"b%d\", \"solid\": \"balls\", "
                        "\"body\": %d}", b ? ", " : "", b, b);
    for (int c = 0; c < NCOL; c++)
        for (int j = 0; j < NLEV; j++)
            len += snprintf(probe_set + len, sizeof probe_set - (size_t)len, ", {\"name\": \"s%d_%d\", \"point\": "
                            "[%g, %.17g], \"field\": \"level_set\"}", c, j, col_x[c], (28 + j + 0.5) * dx);
    snprintf(probe_set + len, sizeof probe_set - (size_t)len, "]");
    snprintf(density, sizeof density, "fluid.density=%g", water);
    const char *const sets[] = {"time.end=1.0", "output.frames=false", "output.picture=false", probe_set, density, NULL};
    test_run *r = test_run_scene(name, NULL, "examples/water_balls.json", sets);
    if (r->status != SEAM_OK)
        fail_msg("%s", r->log);
    all_converged(r);
    size_t rows, cols;
    double *p = test_run_probes(r, &rows, &cols);
    assert_int_equal(cols, 2 + 4 * 4 + NCOL * NLEV);
    double sum[3] = {0, 0, 0};
    size_t count = 0;
    for (size_t i = 0; i < rows; i++) {
        const double *row = p + i * cols;
        double H[NCOL];
        for (int c = 0; c < NCOL; c++) {
            const double *phi = row + 18 + c * NLEV;
            H[c] = NAN;
            for (int j = 0; j + 1 < NLEV && isnan(H[c]); j++)
                if (phi[j] < 0.0 && phi[j + 1] >= 0.0)
                    H[c] = (28 + j + 0.5) * dx + dx * phi[j] / (phi[j] - phi[j + 1]);
            if (isnan(H[c]))
                fail_msg("t = %g s: no free surface in the probe column at x = %g", row[1], col_x[c]);
        }
        if (row[1] < 0.3 - 1e-9)
            continue;
        for (int b = 0; b < 3; b++) {
            double level = 0.5 * (H[2 * b] + H[2 * b + 1]), cy = row[2 + 4 * b + 1];
            sum[b] += segment_area(R, level - (cy - R)) / (M_PI * R * R);
        }
        count++;
    }
    assert_true(count >= 60);
    bool pass = true;
    for (int b = 0; b < 3; b++) {
        char what[128];
        snprintf(what, sizeof what, "water %g kg/m^3, disc of %g kg/m^2: mean submerged fraction", water,
                 1000.0 * want[b]);
        pass = test_within(what, sum[b] / (double)count, want[b], 0.05 * want[b]) && pass;
    }
    /* The heavy disc rests on the floor: its centre one radius up (the
     * contact leaves no overlap with the walls). */
    double heavy_y = p[(rows - 1) * cols + 2 + 4 * 3 + 1];
    print_message("heavy disc's centre at %.6f m after %g s\n", heavy_y, p[(rows - 1) * cols + 1]);
    assert_true(fabs(heavy_y - R) < 1e-3);
    free(p);
    test_run_free(r);
    return pass;
}

static void test_water_balls(void **state)
{
    (void)state;
    test_expect_pass(water_balls_float("chapter2_water_balls", 1000.0), "water balls");
    test_expect_fail(water_balls_float("chapter2_water_balls_dense", 1200.0), "water balls in water 20% denser");
}

/* Fig. 2.2: the jet (4 m/s) lifts the plank (5 kg/m^2) against its weight;
 * every step converges, and jet and plank being mirror images about x =
 * 0.5, it rises straight. Measured: 0.40 m higher after 1 s. */
static void test_smoke_plank(void **state)
{
    (void)state;
    const char *const sets[] = {"time.end=1.0", "output.frames=false", "output.picture=false", NULL};
    test_run *r = test_run_scene("chapter2_smoke_plank", NULL, "examples/smoke_plank.json", sets);
    if (r->status != SEAM_OK)
        fail_msg("%s", r->log);
    all_converged(r);
    size_t points = r->n / 2, last = r->rows - 1;
    double y0 = 0.0, y1 = 0.0, x1 = 0.0;
    for (size_t k = 0; k < points; k++) {
        y0 += r->X[2 * k + 1] / (double)points;
        y1 += r->X[last * r->n + 2 * k + 1] / (double)points;
        x1 += r->X[last * r->n + 2 * k] / (double)points;
    }
    print_message("plank after %g s: %.4f m higher, centre x %.6f m\n", r->t[last], y1 - y0, x1);
    assert_true(y1 - y0 > 0.25);
    assert_true(fabs(x1 - 0.5) < 1e-3);
    test_run_free(r);
}

/* Fig. 2.4 at dx = 0.1: a parabolic stream of 2 m/s through 10 faces brings
 * in q = 2 (2/3 + 1/300) m^2/s after a cosine ramp over 0.5 s, which brings
 * half of 0.5 s's worth; the balloon (its shell's nodes closed across the
 * tube's mouth) grows by that within 1% (measured: 0.04% after 2 s). */
static void test_water_balloon(void **state)
{
    (void)state;
    const double q = 2.0 * (2.0 / 3.0 + 1.0 / 300.0);
    const char *const sets[] = {"cell_size=0.1", "fluid.cells=[40, 40]", "time.end=1.0", "output.frames=false",
                                "output.picture=false", NULL};
    test_run *r = test_run_scene("chapter2_water_balloon", NULL, "examples/water_balloon.json", sets);
    if (r->status != SEAM_OK)
        fail_msg("%s", r->log);
    all_converged(r);
    assert_int_equal(r->n, 2 * 95);
    size_t last = r->rows - 1;
    double grown = test_run_ring_area(r, last, 0, 95) - test_run_ring_area(r, 0, 0, 95), want = q * (r->t[last] - 0.25);
    print_message("water balloon after %g s: grew by %.5f m^2, the stream brought %.5f m^2\n", r->t[last], grown, want);
    assert_float_equal(r->t[last], 1.0, 1e-9);
    if (!(fabs(grown - want) <= 0.01 * want))
        fail_msg("the balloon grew by %.5f m^2, its stream brought in %.5f m^2", grown, want);
    test_run_free(r);
}

/* Fig. 2.13 on 24 x 15 x 12 cells: every step converges; the spheres of
 * 0.2 and 0.6 times the water's density stay afloat (their centres within
 * a cell of where Archimedes puts them in the still tank), the one of 3
 * rests on the floor, the curtain's pinned edge has not moved and the rest
 * of it has. */
static void test_water_complex(void **state)
{
    (void)state;
    const double R = 0.08, dx = 1.0 / 24.0, start[2] = {0.3341, 0.2893};
    const char *const sets[] = {"cell_size=0.041666666666666664", "fluid.cells=[24, 15, 12]", "time.end=0.3",
                                "output.frames=false", "output.picture=false", NULL};
    test_run *r = test_run_scene("chapter2_water_complex", NULL, "examples/water_complex.json", sets);
    if (r->status != SEAM_OK)
        fail_msg("%s", r->log);
    all_converged(r);
    size_t rows, cols;
    double *p = test_run_probes(r, &rows, &cols);
    assert_int_equal(cols, 2 + 4 * 6);
    const double *end = p + (rows - 1) * cols;
    for (int b = 0; b < 2; b++) {
        print_message("sphere %d: centre y %.4f m after %g s (started at %.4f)\n", b, end[2 + 6 * b + 1], end[1],
                      start[b]);
        assert_true(fabs(end[2 + 6 * b + 1] - start[b]) < dx);
    }
    print_message("heavy sphere: centre y %.5f m\n", end[2 + 12 + 1]);
    assert_true(fabs(end[2 + 12 + 1] - R) < 2e-3);
    free(p);
    /* the curtain: the last 121 interface points */
    size_t first = r->n / 3 - 121, last = r->rows - 1;
    double moved = 0.0;
    for (size_t k = first; k < r->n / 3; k++) {
        const double *a = r->X + 3 * k, *b = r->X + last * r->n + 3 * k;
        double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
        if (a[1] > 0.55 - 1e-9)
            assert_true(d == 0.0);
        moved = fmax(moved, d);
    }
    print_message("curtain: largest displacement %.4f m\n", moved);
    assert_true(moved > 1e-3);
    test_run_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_water_balls),
        cmocka_unit_test(test_smoke_plank),
        cmocka_unit_test(test_water_balloon),
        cmocka_unit_test(test_water_complex),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
