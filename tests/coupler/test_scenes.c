/* Real solvers through the coupler: examples/rising_disc.json, a rigid disc
 * (solid_rigid) in a closed tank of water (fluid_mac), and
 * examples/smoke_cloth.json, a 3D smoke jet (fluid_mac) at a cloth (solid_fem).
 *
 * A disc of density rho_s in a fluid of density rho_f starts with
 *     a = g (rho_f - rho_s) / (rho_s + C_a rho_f),
 * C_a = 1 for a circle in unbounded fluid (its added mass is the displaced
 * mass); the tank's walls raise C_a and the grid's staircase disc lowers it,
 * so the measured start is checked against the unbounded value within 20%. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cairo.h>

#include "seam/config.h"
#include "test_host.h"
#include "seam/picture.h"
#include "test_scene.h"

/* Run the disc scene with overrides; the disc centre (mean of its interface
 * points) at the start and after every step. */
static test_run *run_disc(const char *name, const char *const *sets, double *cx, double *cy, size_t max_rows)
{
    test_run *r = test_run_scene(name, NULL, "examples/rising_disc.json", sets);
    for (size_t i = 0; i < r->rows && i < max_rows; i++) {
        double sx = 0, sy = 0;
        size_t points = r->n / 2;
        for (size_t k = 0; k < points; k++) {
            sx += r->X[i * r->n + 2 * k];
            sy += r->X[i * r->n + 2 * k + 1];
        }
        cx[i] = sx / (double)points;
        cy[i] = sy / (double)points;
    }
    return r;
}

static void test_buoyancy(void **state)
{
    (void)state;
    const double g = 9.81, rho_f = 1000.0, dt = 0.01;
    struct { const char *set; double rho_s; } cases[] = {
        {"solids.0.bodies.0.density=1000", 1000.0},
        {"solids.0.bodies.0.density=600", 600.0},
        {"solids.0.bodies.0.density=1400", 1400.0},
    };
    for (size_t c = 0; c < 3; c++) {
        const char *const sets[] = {"time.end=0.2", "output.frames=false", cases[c].set, NULL};
        double cx[64], cy[64];
        test_run *r = run_disc("scene_buoyancy", sets, cx, cy, 64);
        assert_int_equal(r->status, SEAM_OK);
        size_t rows = r->rows;
        test_run_free(r);
        assert_int_equal(rows, 21);
        /* The tank and the disc are symmetric about x = 0.5: the sideways drift
         * (from the grid and the surface samples, not exactly mirror-symmetric)
         * stays below 1% of the vertical travel. */
        double travel = 0.0;
        for (size_t i = 0; i < rows; i++)
            travel = fmax(travel, fabs(cy[i] - cy[0]));
        for (size_t i = 0; i < rows; i++)
            assert_true(fabs(cx[i] - cx[0]) <= 0.01 * travel + 1e-5);
        double a_free = g * (rho_f - cases[c].rho_s) / (cases[c].rho_s + rho_f);
        double t = 10 * dt, a = 2.0 * (cy[10] - cy[0]) / (t * t);
        if (a_free == 0.0) {
            /* Neutral buoyancy: the coupled hydrostatic balance holds it within 1 mm. */
            assert_true(fabs(cy[20] - cy[0]) < 1e-3);
        } else {
            /* a_free is for an unbounded fluid; the tank's walls and floor only add
             * to the added mass (a disc of diameter 0.3 W in a channel of width W:
             * about 30% more), so the coupled start lies below it, not far. */
            if (!(a / a_free <= 1.02 && a / a_free >= 0.7))
                fail_msg("rho_s %g: start acceleration %g, unbounded estimate %g", cases[c].rho_s, a, a_free);
            assert_true((cy[20] - cy[10]) * a_free > 0.0);   /* still moving the same way */
        }
    }
}

/* Converged partitioned schemes are different ways to one solution. */
static void test_schemes_agree(void **state)
{
    (void)state;
    const char *schemes[] = {"coupling.scheme=relaxation", "coupling.scheme=iqn-ils", "coupling.scheme=rmi"};
    double cy[3][16], cx[16];
    for (int s = 0; s < 3; s++) {
        const char *const sets[] = {"time.end=0.1", "output.frames=false", "coupling.tolerance=1e-10",
                                    "coupling.max_iterations=200", "coupling.on_nonconvergence=fail",
                                    "coupling.relaxation=0.5", schemes[s], NULL};
        test_run *r = run_disc("scene_schemes", sets, cx, cy[s], 16);
        assert_int_equal(r->status, SEAM_OK);
        assert_int_equal(r->rows, 11);
        test_run_free(r);
    }
    for (int i = 0; i < 11; i++) {
        assert_float_equal(cy[1][i], cy[0][i], 1e-8);
        assert_float_equal(cy[2][i], cy[0][i], 1e-8);
    }
    assert_true(cy[0][10] - cy[0][0] > 1e-3);   /* and it did move */
}

static void test_pictures(void **state)
{
    (void)state;
    const char *const sets[] = {"time.end=0.1", "time.frame=0.05", NULL};
    double cx[16], cy[16];
    test_run *r = run_disc("scene_pictures", sets, cx, cy, 16);
    assert_int_equal(r->status, SEAM_OK);
    for (int frame = 0; frame < 3; frame++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/frames/frame_%06d.png", r->out, frame);
        cairo_surface_t *img = cairo_image_surface_create_from_png(path);
        assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
        /* 32 x 48 cells at 10 pixels a cell, y up, and the colour bar's panel. */
        assert_int_equal(cairo_image_surface_get_width(img), 320 + SEAM_PICTURE_BAR_WIDTH);
        assert_int_equal(cairo_image_surface_get_height(img), 480);
        cairo_surface_destroy(img);
    }
    test_run_free(r);

    /* A field the fluid does not have is refused before the run. */
    char log[8192];
    const char *const bad[] = {"output.picture.field=vorticityy", NULL};
    assert_true(test_scene_refused(NULL, "examples/rising_disc.json", bad, log, sizeof log));
    assert_non_null(strstr(log, "output.picture.field \"vorticityy\": the fluid has no field of that name"));
}

/* The ARGB pixel of a PNG at (x, y) from the top-left. */
static uint32_t pixel(const char *path, int x, int y, int *w, int *h)
{
    cairo_surface_t *img = cairo_image_surface_create_from_png(path);
    assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
    *w = cairo_image_surface_get_width(img);
    *h = cairo_image_surface_get_height(img);
    cairo_surface_flush(img);
    const unsigned char *px = cairo_image_surface_get_data(img);
    uint32_t v = *(const uint32_t *)(px + (size_t)y * (size_t)cairo_image_surface_get_stride(img) + 4 * (size_t)x);
    cairo_surface_destroy(img);
    return v & 0xffffffu;
}

/* The colour range follows the run: half a second into the rising disc, whose
 * water moves faster than in its first frames, the last frame does not
 * saturate (few pixels in the colour map's top yellow: the fastest cells; with
 * the range of the first varied frame kept, 47% of them were). */
static void test_picture_range_follows_the_run(void **state)
{
    (void)state;
    const char *const sets[] = {"time.end=0.5", "time.frame=0.05", NULL};
    double cx[64], cy[64];
    test_run *r = run_disc("scene_picture_range", sets, cx, cy, 64);
    assert_int_equal(r->status, SEAM_OK);
    char path[4200];
    snprintf(path, sizeof path, "%s/frames/frame_000010.png", r->out);
    cairo_surface_t *img = cairo_image_surface_create_from_png(path);
    assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
    cairo_surface_flush(img);
    const unsigned char *px = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img), at_top = 0;
    for (int y = 0; y < 480; y++)
        for (int x = 0; x < 320; x++) {
            uint32_t c = *(const uint32_t *)(px + (size_t)y * (size_t)stride + 4 * (size_t)x);
            at_top += ((c >> 16) & 0xff) >= 250 && ((c >> 8) & 0xff) >= 225 && (c & 0xff) <= 45;
        }
    cairo_surface_destroy(img);
    if (at_top > 320 * 480 / 50)
        fail_msg("%d of %d pixels of the last frame take the colour map's top colour: saturated", at_top, 320 * 480);
    test_run_free(r);
}

/* 3D runs draw a plane through the field with the solids cut by it, filled. */
static void test_pictures_3d(void **state)
{
    (void)state;
    const char *scene =
        "{\"cell_size\": 0.0625, \"time\": {\"end\": 0.02, \"dt\": 0.01, \"frame\": 0.01},"
        " \"coupling\": {\"scheme\": \"iqn-ils\", \"convergence\": \"cells\", \"tolerance\": 0.02},"
        " \"fluid\": {\"plugin\": \"fluid_mac\", \"cells\": [16, 16, 16], \"density\": 1000, \"loads\": \"impulse\"},"
        " \"solids\": [{\"name\": \"ball\", \"plugin\": \"solid_rigid\", \"dim\": 3, \"bodies\": [{\"name\": \"ball\","
        " \"shape\": \"sphere\", \"radius\": 0.25, \"density\": 1000, \"position\": [0.5, 0.4, 0.5]}]}],"
        " \"output\": {\"picture\": {\"field\": \"pressure\"}}}";
    const uint32_t grey = 0xcccccc;   /* a solid's fill, 0.8 */
    struct { const char *slice; int bx, by; } cases[] = {
        {NULL, 256, 512 - 205},                                    /* default: z = 0.5, x right, y up */
        {"output.picture.slice={\"axis\": \"x\"}", 205, 256},   /* through the middle, x = 0.5: y right, z up */
        {"output.picture.slice={\"axis\": \"y\", \"at\": 0.3}", 256, 256},   /* x right, z up */
        {"output.picture.slice={\"axis\": \"z\", \"at\": 0.9}", -1, -1},     /* above the ball: no solid */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *const sets[] = {cases[c].slice, NULL};
        test_run *r = test_run_scene("scene_pictures_3d", scene, NULL, sets);
        assert_int_equal(r->status, SEAM_OK);
        char path[4200];
        snprintf(path, sizeof path, "%s/frames/frame_%06d.png", r->out, 2);
        int w, h;
        uint32_t far = pixel(path, 40, 470, &w, &h);   /* (0.08, 0.08) in the plane: water */
        assert_int_equal(w, 16 * 32 + SEAM_PICTURE_BAR_WIDTH);   /* 16 cells at 32 pixels, the colour bar */
        assert_int_equal(h, 16 * 32);
        assert_true(far != grey);
        if (cases[c].bx >= 0)
            assert_int_equal(pixel(path, cases[c].bx, cases[c].by, &w, &h), grey);
        else
            for (int y = 40; y < 512; y += 37)
                for (int x = 0; x < 512; x += 37)
                    assert_true(pixel(path, x, y, &w, &h) != grey);
        test_run_free(r);
    }
    char log[8192];
    const char *const outside[] = {"output.picture.slice={\"axis\": \"y\", \"at\": 1.5}", NULL};
    assert_true(test_scene_refused(scene, NULL, outside, log, sizeof log));
    assert_non_null(strstr(log, "output.picture.slice.at: 1.5 lies outside the fluid's field, which covers [0, 1] "
                                "along y"));
    const char *const flat[] = {"output.picture.slice={\"axis\": \"z\", \"at\": 0}", NULL};
    assert_true(test_scene_refused(NULL, "examples/rising_disc.json", flat, log, sizeof log));
    assert_non_null(strstr(log, "output.picture.slice: the fluid's field \"speed\" is 2D: it is drawn whole"));
}

/* The scene's cell_size reaches the solids (surface samples one cell apart)
 * and scales a tolerance given in cells. */
static void test_cell_size(void **state)
{
    (void)state;
    size_t points[2];
    const double cells[2] = {0.03125, 0.0625};
    for (int i = 0; i < 2; i++) {
        char err[1024], set[64];
        seam_doc *doc = seam_doc_load(test_source_path("examples/rising_disc.json"), err, sizeof err);
        snprintf(set, sizeof set, "cell_size=%g", cells[i]);
        assert_int_equal(seam_doc_set(doc, set, err, sizeof err), 0);
        seam_run_options opts = {.out_dir = test_tmpdir("scene_cell_size")};
        seam_sim *sim = seam_sim_new(doc, &opts);
        assert_non_null(sim);
        int dim;
        seam_sim_interface(sim, &points[i], &dim);
        seam_sim_destroy(&sim);
        seam_doc_destroy(&doc);
    }
    /* A circle of radius 0.15 sampled every cell: about 2 pi r / dx points. */
    assert_true(labs((long)points[0] - lround(2 * M_PI * 0.15 / cells[0])) <= 1);
    assert_true(labs((long)points[1] - lround(2 * M_PI * 0.15 / cells[1])) <= 1);

    char log[8192];
    const char *const none[] = {"cell_size=null", NULL};
    assert_true(test_scene_refused(NULL, "examples/rising_disc.json", none, log, sizeof log));
    assert_non_null(strstr(log, "cell_size: expected a number in [1e-9, 1e6] m, got null"));
    const char *const missing[] = {"coupling.convergence=cells", NULL};
    assert_true(test_scene_refused(NULL, "examples/piston.json", missing, log, sizeof log));
    assert_non_null(strstr(log, "coupling.convergence: \"cells\" needs the scene's top-level \"cell_size\""));
}

/* examples/smoke_cloth.json, shortened to 0.5 s: a 3D smoke jet (fluid_mac,
 * round parabolic inflow 0.3 m across through the left wall, open right side)
 * blowing at a hanging cloth (solid_fem) pinned along its top edge, coupled
 * by iqn-ils. Every step converges; the pinned edge stays put; the cloth is
 * pushed downstream (+x) and keeps moving that way; its free bottom edge,
 * in the jet, goes further than the pinned top; jet, cloth and grid are
 * mirror-symmetric about z = 0.5, and so is the motion. */
static void test_smoke_cloth(void **state)
{
    (void)state;
    const char *const sets[] = {"time.end=0.5", "output.frames=false", NULL};
    test_run *r = test_run_scene("scene_smoke_cloth", NULL, "examples/smoke_cloth.json", sets);
    assert_int_equal(r->status, SEAM_OK);
    assert_true(r->rows > 20);
    char path[1200];
    size_t rows, cols;
    snprintf(path, sizeof path, "%s/stats.csv", r->out);
    double *stats = test_read_csv(path, 0, &rows, &cols);
    assert_non_null(stats);
    assert_int_equal(rows, r->rows - 1);
    for (size_t i = 0; i < rows; i++)
        if (stats[i * cols + 5] != 1.0)
            fail_msg("step %zu did not converge (residual %g)", i, stats[i * cols + 4]);
    free(stats);
    size_t points = r->n / 3, last = r->rows - 1;
    double mean_prev = 0.0, top = 0.0, bottom = 0.0, zmean = 0.0;
    for (size_t i = 0; i <= last; i++) {
        const double *X = r->X + i * r->n, *X0 = r->X;
        double mean = 0.0;
        for (size_t k = 0; k < points; k++)
            mean += (X[3 * k] - X0[3 * k]) / (double)points;
        assert_true(mean >= mean_prev - 1e-9);   /* downstream all the way */
        mean_prev = mean;
    }
    const double *X = r->X + last * r->n, *X0 = r->X;
    for (size_t k = 0; k < points; k++) {
        double y0 = X0[3 * k + 1], dxk = X[3 * k] - X0[3 * k];
        if (y0 > 0.8 - 1e-9)
            top = fmax(top, fabs(dxk));                     /* the pinned edge */
        if (y0 < 0.3 + 1e-9)
            bottom += dxk / 13.0;                           /* the free edge, 13 nodes */
        zmean += X[3 * k + 2] / (double)points;
    }
    fprintf(stderr, "smoke cloth after %g s: mean x travel %.4g m, bottom edge %.4g m, pinned edge %g m, "
            "mean z %.9f\n", r->t[last], mean_prev, bottom, top, zmean);
    assert_float_equal(top, 0.0, 0.0);
    assert_true(mean_prev > 0.01);        /* pushed by more than 1 cm in 0.5 s */
    assert_true(bottom > 1.5 * mean_prev);   /* hinged at the top: a straight swing gives 2 */
    assert_float_equal(zmean, 0.5, 1e-6 * mean_prev);
    test_run_free(r);
}

/* Gravity named once, at the scene level, reaches every participant: a FEM
 * block as dense as the water around it stays where it is under the scene's
 * [0, -2]. With the solid's own gravity set to -9.81 (a loud override) its
 * weight outgrows the buoyancy the fluid computes under -2, and it sinks. */
static double block_drop(const char *name, const char *solid_extra)
{
    char scene[2048];
    snprintf(scene, sizeof scene,
             "{\"cell_size\": 0.0625, \"gravity\": [0, -2],\n"
             " \"time\": {\"end\": 0.3, \"dt\": 0.01},\n"
             " \"coupling\": {\"scheme\": \"iqn-ils\", \"convergence\": \"cells\", \"tolerance\": 0.02,"
             " \"max_iterations\": 30},\n"
             " \"fluid\": {\"plugin\": \"fluid_mac\", \"cells\": [16, 16], \"density\": 1000},\n"
             " \"solids\": [{\"name\": \"block\", \"plugin\": \"solid_fem\", \"dim\": 2%s, \"bodies\": [{\"mesh\":"
             " {\"generate\": \"rectangle\", \"min\": [0.375, 0.375], \"max\": [0.625, 0.625], \"cells\": [4, 4]},"
             " \"material\": {\"E\": 1e6, \"density\": 1000}}]}],\n"
             " \"output\": {\"frames\": false}}\n", solid_extra);
    test_run *r = test_run_scene(name, scene, NULL, NULL);
    if (r->status != SEAM_OK)
        fail_msg("%s", r->log);
    size_t np = r->n / 2, last = r->rows - 1;
    double y0 = 0.0, y1 = 0.0;
    for (size_t i = 0; i < np; i++) {
        y0 += r->X[2 * i + 1] / (double)np;
        y1 += r->X[last * r->n + 2 * i + 1] / (double)np;
    }
    if (*solid_extra)
        assert_non_null(strstr(r->log, "overrides the scene's gravity"));
    test_run_free(r);
    return y0 - y1;
}

static void test_scene_gravity_reaches_everyone(void **state)
{
    (void)state;
    double same = block_drop("scene_gravity_same", "");
    double own = block_drop("scene_gravity_own", ", \"gravity\": [0, -9.81]");
    print_message("neutral block after 0.3 s: drop %.3g m under the scene's gravity, %.3g m with its own\n", same, own);
    assert_true(fabs(same) < 2e-3);
    assert_true(own > 0.02);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scene_gravity_reaches_everyone),
        cmocka_unit_test(test_buoyancy),
        cmocka_unit_test(test_schemes_agree),
        cmocka_unit_test(test_pictures),
        cmocka_unit_test(test_picture_range_follows_the_run),
        cmocka_unit_test(test_pictures_3d),
        cmocka_unit_test(test_cell_size),
        cmocka_unit_test(test_smoke_cloth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
