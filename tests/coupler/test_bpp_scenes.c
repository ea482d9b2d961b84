/* Fluid enclosed by solids, through the real solvers (fluid_mac with
 * solid_rigid) and the boundary pressure projection: Akbay's chapter-4
 * scenes at coarse resolution, each against its analytic answer. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_host.h"
#include "test_check.h"
#include "test_scene.h"

/* Tolerances of the balloons' checks, each a few times what the projection
 * as shipped measured (walls' rows) and under what the fluid's rows (the
 * thesis's, `bpp.rows: "fluid"`) leave, which the twins run: */
#define TOL_NESTED_ANNULI 0.001   /* annuli: 2.4e-5 (fluid rows 6.1e-4) */
#define TOL_NESTED_GROWTH 0.0025  /* inner growth: -0.01% (fluid rows -0.79%) */
#define TOL_THIN_SHELL 0.001      /* +0.001% (fluid rows -0.34%) */
#define TOL_TWO_BALLOONS 0.005    /* +0.27% (fluid rows +0.10%: no twin by rows) */

/* Mean y of the interface points in row `row` of a run. */
static double mean_y(const test_run *r, size_t row)
{
    double s = 0.0;
    for (size_t k = 0; k < r->n / 2; k++)
        s += r->X[row * r->n + 2 * k + 1];
    return s / (double)(r->n / 2);
}

/* The last row of regions.csv: p0 of region `id`. */
static double last_p0(const test_run *r, long id)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/regions.csv", r->out);
    size_t rows, cols;
    double *v = test_read_csv(path, 0, &rows, &cols);
    assert_non_null(v);
    assert_int_equal(cols, 6);
    double p0 = NAN;
    for (size_t i = 0; i < rows; i++)
        if ((long)v[i * cols + 2] == id)
            p0 = v[i * cols + 3];
    free(v);
    return p0;
}

/* One cell array of the fluid's ImageData frame. */
static double *vtk_cells(const char *path, const char *name, size_t *n)
{
    double *v = test_read_vtk_xml(path, name, n);
    assert_non_null(v);
    return v;
}

/* Akbay 4.3.1 at dx = 0.0125 (48 x 80 cells): a 900 kg/m body resting on
 * 0.6 x 0.8 m of enclosed fluid. With the projection it does not move
 * (to 1e-9 m over 0.2 s: the fluid's total force on it equals M g to about
 * 5e-9 of it), p0 = M g / A + rho g H / 2 (the zero-mean fluid pressure
 * pulls at the body's face with rho g H / 2), and the fluid's own pressure
 * p - p0 spans +-rho g (H - dx) / 2 at the cell centres. Without it the
 * body falls freely (the fluid leaks its volume away). */
static void test_supported_body(void **state)
{
    (void)state;
    const double g = 9.8, rho = 1.0, H = 0.8, dx = 0.0125, M = 1e4 * 0.6 * 0.15, A = 0.6;
    const char *const sets[] = {"cell_size=0.0125", "fluid.cells=[48, 80]", "time.end=0.2", "time.frame=0.2",
                                NULL};
    test_run *r = test_run_scene("bpp_supported", NULL, "examples/supported_body.json", sets);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->rows, 21);
    for (size_t i = 1; i < r->rows; i++)
        assert_float_equal(mean_y(r, i), mean_y(r, 0), 1e-9);
    double p0 = last_p0(r, 0);
    assert_float_equal(p0, M * g / A + rho * g * H / 2, 1e-4 * p0);
    char path[1200];
    snprintf(path, sizeof path, "%s/fluid/fluid_mac_000001.vti", r->out);
    size_t n;
    double *p = vtk_cells(path, "pressure", &n), *solid = vtk_cells(path, "solid", &n);
    assert_int_equal(n, 48 * 80);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t c = 0; c < n; c++)
        if (solid[c] == 0.0 && (double)(c / 48) * dx < H) {
            lo = fmin(lo, p[c]);
            hi = fmax(hi, p[c]);
        }
    assert_float_equal(hi, rho * g * (H - dx) / 2, 1e-9);
    assert_float_equal(lo, -rho * g * (H - dx) / 2, 1e-9);
    free(p);
    free(solid);
    test_run_free(r);

    const char *const off[] = {"cell_size=0.0125", "fluid.cells=[48, 80]", "time.end=0.1", "output.frames=false",
                               "coupling.bpp=false", NULL};
    r = test_run_scene("bpp_supported_off", NULL, "examples/supported_body.json", off);
    double fall = mean_y(r, 0) - mean_y(r, r->rows - 1);
    if (!(fall > 0.5 * 0.5 * g * 0.1 * 0.1))
        fail_msg("without the projection the body fell only %g m in 0.1 s", fall);
    test_run_free(r);

    /* The fluid-momentum form (ch. 2) weighs the increments by the fluid's
     * masses: under a body 1e4 times denser p0 creeps up far too slowly and
     * the body falls almost freely (Akbay Fig. 4.7). */
    const char *const fluid_form[] = {"cell_size=0.0125", "fluid.cells=[48, 80]", "time.end=0.05",
                                      "output.frames=false", "coupling.max_iterations=20",
                                      "coupling.bpp={\"form\": \"fluid\"}", NULL};
    r = test_run_scene("bpp_supported_fluid_form", NULL, "examples/supported_body.json", fluid_form);
    fall = mean_y(r, 0) - mean_y(r, r->rows - 1);
    double t = r->t[r->rows - 1];
    if (!(fall > 0.8 * 0.5 * g * t * t))
        fail_msg("with the fluid form the body fell only %g m in %g s (free fall %g m)", fall, t, 0.5 * g * t * t);
    assert_true(last_p0(r, 0) < 0.05 * p0);
    test_run_free(r);
}

/* Akbay 4.3.5, test 1 (examples/hydraulic_piston.json at dx = 0.1): two
 * pistons of equal weight per area (4900 Pa) on one enclosed region at the
 * same height stay put (Pascal), and p0 adds to the weight the zero-mean
 * fluid field's value at the pistons' faces, rho g (y_face - y_mean) with
 * y_mean = 1.3 m the region's mean height, and the 1.5 m of the same fluid
 * above the pistons: 4900 + 9.8 * 1.7 + 9.8 * 1.5 Pa. */
static void test_hydraulic_piston(void **state)
{
    (void)state;
    const char *const sets[] = {"cell_size=0.1", "fluid.cells=[70, 50]", "time.end=0.5", "output.frames=false", NULL};
    test_run *r = test_run_scene("bpp_hydraulic", NULL, "examples/hydraulic_piston.json", sets);
    assert_int_equal(r->status, SEAM_OK);
    for (size_t i = 1; i < r->rows; i++)
        for (size_t k = 0; k < r->n; k++)
            assert_float_equal(r->X[i * r->n + k], r->X[k], 1e-9);
    assert_float_equal(last_p0(r, 0), 4900.0 + 9.8 * (3.0 - 1.3) + 9.8 * 1.5, 1e-6);
    test_run_free(r);
}

/* Akbay 4.3.5, test 2 (examples/hydraulic_piston_release.json at dx = 0.1),
 * its first second: water below the pistons only, the left piston 0.1 m
 * low and the right 0.3 m high, held there by f_max = rho g 0.4 m 3 m.
 * Pascal's law with the water's zero-mean pressure (mean height y_m =
 * 19.56 / 15 m) gives p0 = m g / A + rho g (3.3 - y_m) = 117.5608 Pa on the
 * right piston and (m g + f_max) / A + rho g (2.9 - y_m), the same, on the
 * left: nothing moves (1 mm) and the water keeps its volume. The release
 * that follows (the thesis's test 2) is in bench/bpp/chapter4_scenes.sh. */
static void test_hydraulic_piston_held_out_of_level(void **state)
{
    (void)state;
    const char *const sets[] = {"cell_size=0.1", "fluid.cells=[70, 50]", "time.end=1", "output.frames=false", NULL};
    test_run *r = test_run_scene("bpp_hydraulic_release", NULL, "examples/hydraulic_piston_release.json", sets);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->n, 2 * 100);   /* 70 points on the left piston's outline, 30 on the right's */
    size_t last = r->rows - 1;
    double yl = 0.0, yr = 0.0;
    for (size_t k = 0; k < 100; k++) {
        double dy = r->X[last * r->n + 2 * k + 1] - r->X[2 * k + 1];
        if (k < 70)
            yl += dy / 70.0;
        else
            yr += dy / 30.0;
    }
    if (fabs(yl) > 1e-3 || fabs(yr) > 1e-3)
        fail_msg("held pistons moved by %.3g (left) and %.3g m (right) in 1 s", yl, yr);
    assert_true(fabs(3.0 * yl + yr) < 1e-4);
    double p0 = 98.0 + 9.8 * (3.3 - 19.56 / 15.0);
    assert_float_equal(last_p0(r, 0), p0, 1e-3 * p0);
    test_run_free(r);
}

/* All rows of regions.csv: ids in column 2, p0 in 3, volume error in 5. */
static double *regions_table(const test_run *r, size_t *rows)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/regions.csv", r->out);
    size_t cols;
    double *v = test_read_csv(path, 0, rows, &cols);
    assert_non_null(v);
    assert_int_equal(cols, 6);
    return v;
}

/* Akbay 4.3.8 (examples/multi_section_piston.json at dx = 0.25): three
 * enclosed regions, two of them between pistons; p0 of each is the weight
 * above per area plus the fluid's heads (the scene's description derives
 * them), nothing moves, and no region's volume changes by 1e-8 m^2/s. */
static void test_multi_section_piston(void **state)
{
    (void)state;
    const char *const sets[] = {"cell_size=0.25", "fluid.cells=[40, 48]", "time.end=1", "output.frames=false", NULL};
    test_run *r = test_run_scene("bpp_multi_section", NULL, "examples/multi_section_piston.json", sets);
    assert_int_equal(r->status, SEAM_OK);
    for (size_t i = 1; i < r->rows; i++)
        for (size_t k = 0; k < r->n; k++)
            assert_float_equal(r->X[i * r->n + k], r->X[k], 1e-9);
    const double g = 9.8;
    double expect[3] = {14700.0 + g * 7.0 + g * (4.0 - 68.0 / 36.0), 4900.0 + g * 1.25 + g * 4.5,
                        9800.0 + g * 1.25 + g * 4.5};
    size_t rows;
    double *v = regions_table(r, &rows);
    assert_int_equal(rows, 3 * (r->rows - 1));
    for (size_t i = 0; i < rows; i++) {
        long id = (long)v[i * 6 + 2];
        assert_true(id >= 0 && id < 3);
        assert_float_equal(v[i * 6 + 3], expect[id], 1e-6 * expect[id]);
        assert_true(fabs(v[i * 6 + 5]) < 1e-8);
    }
    free(v);
    test_run_free(r);
}

/* Akbay 4.3.7 (examples/nested_balloons.json at dx = 0.2): three shells
 * around a circular source, coupled with xpm. The annuli between them keep
 * their areas within TOL_NESTED_ANNULI while the inner region grows at the
 * source's 2 pi 0.45 m * 1 m/s = 2.827 m^2/s once the ramp is over (within
 * TOL_NESTED_GROWTH). `rows`: an override of the projection (NULL: none). */
static bool nested_balloons_keep(const char *name, const char *rows)
{
    const char *const sets[] = {"cell_size=0.2", "fluid.cells=[50, 50]", "time.end=1.5", "output.frames=false", rows,
                                NULL};
    test_run *r = test_run_scene(name, NULL, "examples/nested_balloons.json", sets);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->n, 2 * (94 + 157 + 220));
    double a1_0 = test_run_ring_area(r, 0, 94, 157) - test_run_ring_area(r, 0, 0, 94);
    double a2_0 = test_run_ring_area(r, 0, 251, 220) - test_run_ring_area(r, 0, 94, 157);
    assert_float_equal(a1_0, 4 * M_PI, 0.01 * 4 * M_PI);
    assert_float_equal(a2_0, 6 * M_PI, 0.01 * 6 * M_PI);
    size_t i12 = 0;
    double worst = 0.0;
    for (size_t i = 0; i < r->rows; i++) {
        double a1 = test_run_ring_area(r, i, 94, 157) - test_run_ring_area(r, i, 0, 94);
        double a2 = test_run_ring_area(r, i, 251, 220) - test_run_ring_area(r, i, 94, 157);
        worst = fmax(worst, fmax(fabs(a1 / a1_0 - 1.0), fabs(a2 / a2_0 - 1.0)));
        if (r->t[i] <= 1.2 + 1e-9)
            i12 = i;
    }
    size_t last = r->rows - 1;
    double growth = (test_run_ring_area(r, last, 0, 94) - test_run_ring_area(r, i12, 0, 94)) / (r->t[last] - r->t[i12]);
    test_run_free(r);
    bool kept = test_within("nested balloons: largest relative change of an annulus", worst, 0.0, TOL_NESTED_ANNULI);
    bool grew = test_within("nested balloons: inner growth rate / source", growth / (2 * M_PI * 0.45), 1.0,
                            TOL_NESTED_GROWTH);
    return kept && grew;
}

static void test_nested_balloons(void **state)
{
    (void)state;
    test_expect_pass(nested_balloons_keep("bpp_nested_balloons", NULL), "nested balloons");
    test_expect_fail(nested_balloons_keep("bpp_nested_balloons_fluid_rows", "coupling.bpp={\"rows\": \"fluid\"}"),
                     "nested balloons with the fluid's rows");
    /* Without the projection (rmi alone) the balloons do not inflate: the
     * fluid makes the source's inflow compatible by removing it (Akbay
     * Figs. 2.6, 2.12); with it, the first second's ramp brings in half a
     * second of the full rate, 1.41 m^2. */
    const char *const off[] = {"cell_size=0.2", "fluid.cells=[50, 50]", "time.end=1", "output.frames=false",
                               "coupling.scheme=rmi", "coupling.relaxation=1", "coupling.convergence=cells",
                               "coupling.tolerance=0.05", NULL};
    test_run *r = test_run_scene("bpp_nested_balloons_off", NULL, "examples/nested_balloons.json", off);
    assert_int_equal(r->status, SEAM_OK);
    double grown = test_run_ring_area(r, r->rows - 1, 0, 94) - test_run_ring_area(r, 0, 0, 94);
    if (!(fabs(grown) < 0.05 * 0.5 * 2 * M_PI * 0.45))
        fail_msg("without the projection the inner balloon still grew by %g m^2", grown);
    test_run_free(r);
}


/* Akbay 4.3.4 (examples/thin_shell_balloon.json at dx = 0.1): a shell on a
 * tube whose floor lets in a parabolic 1 m/s over 10 faces, q = (2/3 +
 * 1/300) m^2/s after a cosine ramp over 1 s that brings in half a second's
 * worth. The balloon's area (the shell's nodes closed across the tube's
 * mouth) grows by that volume: with xpm within TOL_THIN_SHELL, its twin
 * with the fluid's rows must fail; with underrelaxation and the projection
 * (P-BPP) within 1%; underrelaxation alone (P) lets the fluid drop the
 * inflow to stay compatible, and the balloon does not inflate (Akbay Figs.
 * 2.6, 2.12). */
static bool thin_shell_grows(const char *name, const char *rows)
{
    const double q = 2.0 / 3.0 + 1.0 / 300.0;
    const char *const xpm[] = {"cell_size=0.1", "fluid.cells=[40, 40]", "time.end=2", "output.frames=false", rows, NULL};
    test_run *r = test_run_scene(name, NULL, "examples/thin_shell_balloon.json", xpm);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->n, 2 * 95);
    size_t last = r->rows - 1;
    double grown = test_run_ring_area(r, last, 0, 95) - test_run_ring_area(r, 0, 0, 95), want = q * (r->t[last] - 0.5);
    assert_float_equal(r->t[last], 2.0, 1e-9);
    size_t rows_n;
    double *v = regions_table(r, &rows_n);
    assert_int_equal(rows_n, last);
    double worst = 0.0;
    for (size_t i = 0; i < rows_n; i++)
        worst = fmax(worst, fabs(v[i * 6 + 5]));
    free(v);
    test_run_free(r);
    printf("thin-shell balloon: largest volume error of the region %.3g m^2/s\n", worst);
    assert_true(worst < 1e-4 * q);
    return test_within("thin-shell balloon, xpm: growth / inflow", grown / want, 1.0, TOL_THIN_SHELL);
}

static void test_thin_shell_balloon(void **state)
{
    (void)state;
    const double q = 2.0 / 3.0 + 1.0 / 300.0;
    test_expect_pass(thin_shell_grows("bpp_thin_shell_balloon", NULL), "thin-shell balloon");
    test_expect_fail(thin_shell_grows("bpp_thin_shell_balloon_fluid_rows", "coupling.bpp={\"rows\": \"fluid\"}"),
                     "thin-shell balloon with the fluid's rows");
    test_run *r;
    size_t last;
    double grown, want;
    for (int bpp = 0; bpp <= 1; bpp++) {
        const char *const p[] = {"cell_size=0.1", "fluid.cells=[40, 40]", "time.end=1.2", "output.frames=false",
                                 "coupling.scheme=relaxation", "coupling.relaxation=0.2", "fluid.loads=pressure",
                                 "coupling.measures=[{\"quantity\": \"positions\", \"kind\": \"cells\", \"tolerance\": 0.05}]",
                                 bpp ? "coupling.bpp=true" : "coupling.bpp=false", NULL};
        r = test_run_scene(bpp ? "bpp_thin_shell_balloon_p_bpp" : "bpp_thin_shell_balloon_p", NULL,
                           "examples/thin_shell_balloon.json", p);
        assert_int_equal(r->status, SEAM_OK);
        last = r->rows - 1;
        grown = test_run_ring_area(r, last, 0, 95) - test_run_ring_area(r, 0, 0, 95);
        want = q * (r->t[last] - 0.5);
        if (bpp ? fabs(grown - want) > 0.01 * want : fabs(grown) > 0.01 * want)
            fail_msg("%s: the balloon grew by %.5f m^2, its source brought in %.5f m^2", bpp ? "P-BPP" : "P", grown, want);
        test_run_free(r);
    }
}


/* Signed area of the polygon through the points of row i listed in idx. */
static double polygon_area(const test_run *r, size_t i, const size_t *idx, size_t k)
{
    const double *X = r->X + i * r->n;
    double a = 0.0;
    for (size_t j = 0; j < k; j++) {
        size_t p = idx[j], q = idx[(j + 1) % k];
        a += X[2 * p] * X[2 * q + 1] - X[2 * q] * X[2 * p + 1];
    }
    return 0.5 * a;
}

/* Akbay 4.3.6 (examples/two_balloons.json at dx = 0.1): two balloons share
 * a shell on x = 3 m (points 0..103, bottom to top; then the left balloon's
 * outer shell, 158 points from the post down, and the right's, 158 points
 * up to the post). Fed alike, the centre line stays within 1e-3 of the
 * 6 m width and each region grows by its source's volume; with the right
 * source at half speed the line bows right by far more than that, and
 * each region still takes exactly its own source's volume (each within
 * TOL_TWO_BALLOONS: measured +0.27%). The growth check cannot tell the
 * projections apart here (the fluid's rows give +0.10%), so its twin feeds
 * the right balloon 20% less (speed 0.8) and must fail against the full
 * inflow. `right_speed`: the right source's speed as run; `expect`: its
 * speed the check assumes (1 or 0.5). */
static bool two_balloons_grow(const char *name, double right_speed, double expect)
{
    const double q = 2.0 / 3.0 + 1.0 / 300.0;
    static size_t left[104 + 158], right[158 + 104];
    for (size_t j = 0; j < 104; j++) {
        left[j] = j;
        right[158 + j] = 103 - j;
    }
    for (size_t j = 0; j < 158; j++) {
        left[104 + j] = 104 + j;
        right[j] = 262 + j;
    }
    char speed[64];
    snprintf(speed, sizeof speed, "fluid.sources[1].speed=%g", right_speed);
    const char *const sets[] = {"cell_size=0.1", "fluid.cells=[60, 40]", "time.end=2", "output.frames=false", speed,
                                NULL};
    test_run *r = test_run_scene(name, NULL, "examples/two_balloons.json", sets);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->n, 2 * (104 + 158 + 158));
    size_t last = r->rows - 1;
    double shift = 0.0, worst = 0.0;
    for (size_t j = 0; j < 104; j++) {
        double dx = r->X[last * r->n + 2 * j] - 3.0;
        shift += dx / 104.0;
        worst = fmax(worst, fabs(dx));
    }
    double t = r->t[last] - 0.5;
    double gl = fabs(polygon_area(r, last, left, 262)) - fabs(polygon_area(r, 0, left, 262));
    double gr = fabs(polygon_area(r, last, right, 262)) - fabs(polygon_area(r, 0, right, 262));
    double wl = q * t, wr = expect * q * t;
    test_run_free(r);
    if (right_speed == 1.0 && worst > 6e-3)
        fail_msg("symmetric: the centre line moved by %.3g m at most", worst);
    if (right_speed == 0.5 && !(shift > 10 * 6e-3))
        fail_msg("asymmetric: the centre line moved by %.3g m on average", shift);
    bool l = test_within("two balloons: left growth / its inflow", gl / wl, 1.0, TOL_TWO_BALLOONS);
    bool g = test_within("two balloons: right growth / its inflow", gr / wr, 1.0, TOL_TWO_BALLOONS);
    return l && g;
}

static void test_two_balloons(void **state)
{
    (void)state;
    test_expect_pass(two_balloons_grow("bpp_two_balloons", 1.0, 1.0), "two balloons");
    test_expect_pass(two_balloons_grow("bpp_two_balloons_asym", 0.5, 0.5), "two balloons, the right fed at half speed");
    test_expect_fail(two_balloons_grow("bpp_two_balloons_weak", 0.8, 1.0),
                     "two balloons, the right source 20% weaker than assumed");
}


/* Akbay 4.3.2 (examples/volumetric_balloon.json at dx = 0.1, the band's
 * mesh halved: 47 segments, 4 layers): the region under the band's inner
 * surface (its interface points on the circle of radius 0.5 m at the start,
 * closed across the tube's mouth) grows by the inflow's volume, 1.00125 m^2
 * over 2 s, within 0.25%: measured +0.01% with the walls' own rows. Its
 * mutated twin keeps the fluid's rows (`bpp.rows: "fluid"`, the thesis's
 * projection), which leaves the region 0.73% short here (2.0% at dx =
 * 0.05): the check must fail it. */
static bool volumetric_balloon_grows(const char *name, const char *rows)
{
    const double q = 2.0 / 3.0 + 1.0 / 300.0;
    const char *const sets[] = {"cell_size=0.1", "fluid.cells=[40, 40]", "time.end=2", "output.frames=false",
                                "solids.0.bodies.0.mesh.segments=47", "solids.0.bodies.0.mesh.layers=4", rows, NULL};
    test_run *r = test_run_scene(name, NULL, "examples/volumetric_balloon.json", sets);
    assert_int_equal(r->status, SEAM_OK);
    size_t np = r->n / 2, k = 0;
    size_t *inner = malloc(np * sizeof *inner);
    double *angle = malloc(np * sizeof *angle);
    for (size_t i = 0; i < np; i++) {
        double dx = r->X[2 * i] - 2.0, dy = r->X[2 * i + 1] - 1.0;
        if (fabs(hypot(dx, dy) - 0.5) < 1e-9) {
            inner[k] = i;
            angle[k++] = atan2(dy, dx);
        }
    }
    assert_int_equal(k, 48);
    for (size_t a = 1; a < k; a++)   /* by angle: the inner arc from the right end to the left */
        for (size_t b = a; b > 0 && angle[b - 1] > angle[b]; b--) {
            double t = angle[b];
            angle[b] = angle[b - 1];
            angle[b - 1] = t;
            size_t u = inner[b];
            inner[b] = inner[b - 1];
            inner[b - 1] = u;
        }
    size_t last = r->rows - 1;
    assert_float_equal(r->t[last], 2.0, 1e-9);
    double grown = fabs(polygon_area(r, last, inner, k)) - fabs(polygon_area(r, 0, inner, k));
    double want = q * (r->t[last] - 0.5);
    free(inner);
    free(angle);
    test_run_free(r);
    return test_within("volumetric balloon: growth / inflow", grown / want, 1.0, 0.0025);
}

static void test_volumetric_balloon(void **state)
{
    (void)state;
    test_expect_pass(volumetric_balloon_grows("bpp_volumetric_balloon", NULL), "volumetric balloon");
    test_expect_fail(volumetric_balloon_grows("bpp_volumetric_balloon_fluid_rows", "coupling.bpp={\"rows\": \"fluid\"}"),
                     "volumetric balloon with the fluid's rows");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_supported_body),
        cmocka_unit_test(test_hydraulic_piston),
        cmocka_unit_test(test_hydraulic_piston_held_out_of_level),
        cmocka_unit_test(test_multi_section_piston),
        cmocka_unit_test(test_nested_balloons),
        cmocka_unit_test(test_thin_shell_balloon),
        cmocka_unit_test(test_two_balloons),
        cmocka_unit_test(test_volumetric_balloon),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
