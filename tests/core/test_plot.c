/* Plots and the CSV reader: files written at the promised size, a known
 * series drawn where the frame says, log axes with zeros, empty input. */
#include <cairo.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "seam/csv.h"
#include "seam/plot.h"
#include "test_host.h"

static uint32_t pixel(cairo_surface_t *s, int x, int y)
{
    unsigned char *px = cairo_image_surface_get_data(s);
    return ((uint32_t *)(px + (size_t)y * (size_t)cairo_image_surface_get_stride(s)))[x] & 0xffffffu;
}

/* Distance of a pixel from colour rgb, in 0..255 per channel (largest). */
static int colour_distance(uint32_t p, const double rgb[3])
{
    int d = 0;
    for (int c = 0; c < 3; c++) {
        int v = (int)((p >> (16 - 8 * c)) & 0xff), want = (int)lround(rgb[c] * 255);
        d = abs(v - want) > d ? abs(v - want) : d;
    }
    return d;
}

/* The closest any pixel within 1 px of (x, y) comes to colour rgb. */
static int near_colour(cairo_surface_t *s, double x, double y, const double rgb[3])
{
    int best = 255;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int d = colour_distance(pixel(s, (int)floor(x) + dx, (int)floor(y) + dy), rgb);
            best = d < best ? d : best;
        }
    return best;
}

static cairo_surface_t *load(const char *path)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    return s;
}

static void test_lines_where_the_frame_says(void **state)
{
    (void)state;
    enum { N = 50 };
    double x[N], y[N], y2[N];
    for (int k = 0; k < N; k++) {
        x[k] = 0.1 * k;
        y[k] = 3.0;                 /* a flat line at 3 */
        y2[k] = 10.0 - 0.2 * k;     /* falling from 10 */
    }
    seam_plot_series s[2] = {{"flat", x, y, N, SEAM_PLOT_LINES}, {"falling", x, y2, N, SEAM_PLOT_STEPS}};
    seam_plot p = {.title = "A test", .x_label = "time (s)", .y_label = "value (m)", .series = s, .n_series = 2};
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/lines.png", test_tmpdir("plot"));
    assert_int_equal(seam_plot_write_png(path, &p, err, sizeof err), SEAM_PLOT_OK);
    cairo_surface_t *img = load(path);
    assert_int_equal(cairo_image_surface_get_width(img), 800);
    assert_int_equal(cairo_image_surface_get_height(img), 500);
    seam_plot_frame f;
    assert_int_equal(seam_plot_layout(&p, &f), SEAM_PLOT_OK);
    /* The range covers the data, with whole ticks. */
    assert_true(f.x_lo <= 0.0 && f.x_hi >= 4.9 && f.x_hi <= 5.0 + 1e-9);
    assert_true(f.y_lo <= 0.2 && f.y_hi >= 10.0 && f.y_hi <= 12.0);
    double rgb0[3], rgb1[3], px, py;
    seam_plot_colour(0, rgb0);
    seam_plot_colour(1, rgb1);
    /* The flat line is drawn at y = 3 in the middle of the plot... */
    seam_plot_to_pixel(&f, 2.05, 3.0, &px, &py);
    assert_true(near_colour(img, px, py, rgb0) < 40);
    /* ...and nothing of it 30 pixels above. */
    assert_true(near_colour(img, px, py - 30, rgb0) > 100);
    /* The falling series at x = 1.05 still holds its value at 1.0 (steps). */
    seam_plot_to_pixel(&f, 1.05, 10.0 - 0.2 * 10, &px, &py);
    assert_true(near_colour(img, px, py, rgb1) < 40);
    /* A corner of the image is white background. */
    assert_int_equal(pixel(img, 2, 2), 0xffffffu);
    cairo_surface_destroy(img);

    /* Another size is honoured. */
    p.width = 400, p.height = 300;
    assert_int_equal(seam_plot_write_png(path, &p, err, sizeof err), SEAM_PLOT_OK);
    img = load(path);
    assert_int_equal(cairo_image_surface_get_width(img), 400);
    assert_int_equal(cairo_image_surface_get_height(img), 300);
    cairo_surface_destroy(img);
}

static void test_log_axis_skips_zeros(void **state)
{
    (void)state;
    double x[6] = {0, 1, 2, 3, 4, 5};
    double y[6] = {1.0, 0.1, 0.0, 1e-3, -1.0, 1e-5};   /* a zero and a negative: skipped */
    seam_plot_series s = {"residual", x, y, 6, SEAM_PLOT_LINES};
    seam_plot p = {.x_label = "iteration", .y_label = "residual (m)", .log_y = true, .series = &s, .n_series = 1};
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/log.png", test_tmpdir("plot_log"));
    assert_int_equal(seam_plot_write_png(path, &p, err, sizeof err), SEAM_PLOT_OK);
    seam_plot_frame f;
    assert_int_equal(seam_plot_layout(&p, &f), SEAM_PLOT_OK);
    assert_float_equal(f.y_lo, -5.0, 1e-12);   /* decades 1e-5 .. 1e0 */
    assert_float_equal(f.y_hi, 0.0, 1e-12);
    cairo_surface_t *img = load(path);
    double rgb[3], px, py;
    seam_plot_colour(0, rgb);
    seam_plot_to_pixel(&f, 0.5, sqrt(0.1), &px, &py);   /* halfway along the log segment 1 -> 0.1 */
    assert_true(near_colour(img, px, py, rgb) < 40);
    seam_plot_to_pixel(&f, 5.0, 1e-5, &px, &py);   /* the isolated last point is a dot */
    assert_true(near_colour(img, px - 1, py, rgb) < 40);
    cairo_surface_destroy(img);
}

static void test_empty_is_said(void **state)
{
    (void)state;
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/empty.png", test_tmpdir("plot_empty"));
    double x[2] = {0, 1}, y[2] = {0.0, -2.0};
    seam_plot_series s = {"nothing", x, y, 0, SEAM_PLOT_LINES};
    seam_plot p = {.title = "empty", .x_label = "x", .y_label = "y", .series = &s, .n_series = 1};
    assert_int_equal(seam_plot_write_png(path, &p, err, sizeof err), SEAM_PLOT_EMPTY);
    assert_non_null(strstr(err, "nothing to plot"));
    assert_null(fopen(path, "r"));
    p.n_series = 0;
    assert_int_equal(seam_plot_write_png(path, &p, err, sizeof err), SEAM_PLOT_EMPTY);
    /* Values that exist but are not positive, on a log axis. */
    s.n = 2;
    p.n_series = 1;
    p.log_y = true;
    assert_int_equal(seam_plot_write_png(path, &p, err, sizeof err), SEAM_PLOT_EMPTY);
    assert_non_null(strstr(err, "positive"));
    /* A single value: a range around it, drawn. */
    y[0] = 4.0;
    s.n = 1;
    p.log_y = false;
    assert_int_equal(seam_plot_write_png(path, &p, err, sizeof err), SEAM_PLOT_OK);
    seam_plot_frame f;
    assert_int_equal(seam_plot_layout(&p, &f), SEAM_PLOT_OK);
    assert_true(f.y_lo < 4.0 && f.y_hi > 4.0 && f.x_lo < 0.0 && f.x_hi > 0.0);
    /* Round-off around one value is drawn as that value, not magnified. */
    double noisy[2] = {4931.36, 4931.36 + 2e-12};
    s.y = noisy;
    s.n = 2;
    assert_int_equal(seam_plot_layout(&p, &f), SEAM_PLOT_OK);
    assert_true(f.y_lo < 4931.0 && f.y_hi > 4932.0);
    s.y = y;
    s.n = 1;
    p.y_from_zero = true;   /* counts: the axis starts at 0 */
    assert_int_equal(seam_plot_layout(&p, &f), SEAM_PLOT_OK);
    assert_true(f.y_lo == 0.0 && f.y_hi >= 4.0);
}

static void test_csv_reads_columns(void **state)
{
    (void)state;
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/t.csv", test_tmpdir("csv"));
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("step, t ,name,value\r\n0,0.5,abc,1e-3\n\n1,1.0,,nan\n2,1.5\n", f);
    fclose(f);
    seam_csv *t = seam_csv_read(path, err, sizeof err);
    assert_non_null(t);
    assert_int_equal(seam_csv_rows(t), 3);
    assert_int_equal(seam_csv_cols(t), 4);
    assert_string_equal(seam_csv_name(t, 1), "t");
    assert_int_equal(seam_csv_column(t, "value"), 3);
    assert_int_equal(seam_csv_column(t, "nope"), -1);
    assert_null(seam_csv_named(t, "nope"));
    const double *tt = seam_csv_named(t, "t"), *v = seam_csv_values(t, 3), *name = seam_csv_named(t, "name");
    assert_float_equal(tt[2], 1.5, 0.0);
    assert_float_equal(v[0], 1e-3, 0.0);
    assert_true(isnan(v[1]) && isnan(v[2]));   /* "nan", and a short row */
    assert_true(isnan(name[0]) && isnan(name[1]));   /* text and empty fields */
    assert_string_equal(seam_csv_text(t, 0, 2), "abc");
    assert_null(seam_csv_text(t, 1, 2));   /* empty */
    assert_null(seam_csv_text(t, 0, 1));   /* a number */
    assert_null(seam_csv_text(t, 1, 3));   /* "nan" is a number */
    seam_csv_destroy(&t);
    assert_null(t);
    /* Header only: no rows, columns known. */
    f = fopen(path, "w");
    fputs("a,b\n", f);
    fclose(f);
    t = seam_csv_read(path, err, sizeof err);
    assert_non_null(t);
    assert_int_equal(seam_csv_rows(t), 0);
    assert_int_equal(seam_csv_column(t, "b"), 1);
    assert_non_null(seam_csv_named(t, "b"));
    seam_csv_destroy(&t);
    /* Many rows, text in one column: every row kept. */
    f = fopen(path, "w");
    fputs("name,value\n", f);
    for (int i = 0; i < 1000; i++)
        fprintf(f, "p%d,%d\n", i, i);
    fclose(f);
    t = seam_csv_read(path, err, sizeof err);
    assert_non_null(t);
    assert_int_equal(seam_csv_rows(t), 1000);
    assert_string_equal(seam_csv_text(t, 999, 0), "p999");
    assert_float_equal(seam_csv_values(t, 1)[777], 777.0, 0.0);
    seam_csv_destroy(&t);
    /* An empty file and a missing one are refused with the reason. */
    fclose(fopen(path, "w"));
    assert_null(seam_csv_read(path, err, sizeof err));
    assert_non_null(strstr(err, "no header"));
    snprintf(path + strlen(path), 16, ".none");
    assert_null(seam_csv_read(path, err, sizeof err));
    assert_non_null(strstr(err, "cannot open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_where_the_frame_says),
        cmocka_unit_test(test_log_axis_skips_zeros),
        cmocka_unit_test(test_empty_is_said),
        cmocka_unit_test(test_csv_reads_columns),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    cairo_debug_reset_static_data();   /* the font caches text drawing fills, so valgrind sees no leak */
    return failed;
}
