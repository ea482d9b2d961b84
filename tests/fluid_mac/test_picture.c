/* PNG frames: the file has the promised size, y points up, the interface is drawn. */
#include <cairo.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "seam/picture.h"
#include "test_host.h"

static uint32_t pixel(cairo_surface_t *s, int x, int y)
{
    unsigned char *px = cairo_image_surface_get_data(s);
    return ((uint32_t *)(px + (size_t)y * (size_t)cairo_image_surface_get_stride(s)))[x] & 0xffffffu;
}

static void test_png_roundtrip(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "picture", NULL);
    enum { NX = 20, NY = 10 };
    double data[NX * NY];
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            data[j * NX + i] = j;   /* grows upward */
    seam_raster r = {NX, NY, 1, {0, 0, 0}, 0.1, data, "m"};
    /* A square outline well inside the left half. */
    double X[8] = {0.2, 0.2, 0.8, 0.2, 0.8, 0.8, 0.2, 0.8};
    int32_t el[8] = {0, 1, 1, 2, 2, 3, 3, 0};
    uint8_t two[4] = {0, 0, 0, 0};
    seam_interface iface = {2, 4, X, NULL, NULL, 2, 4, el, two, 1};
    seam_picture_opts o = {.pixels_per_cell = 6};
    const char *dir = test_tmpdir("picture");
    char path[4200];
    snprintf(path, sizeof path, "%s/frame.png", dir);
    assert_int_equal(seam_picture_write_png(path, &r, &iface, NULL, &o, &th.host), SEAM_OK);
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    assert_int_equal(cairo_image_surface_get_width(s), NX * 6);
    assert_int_equal(cairo_image_surface_get_height(s), NY * 6);
    int w, h;
    seam_picture_size(&r, &o, &w, &h);
    assert_int_equal(w, NX * 6);
    assert_int_equal(h, NY * 6);
    /* Top-right pixel shows the largest value (yellow end), bottom-right the smallest. */
    uint32_t top = pixel(s, NX * 6 - 1, 0), bottom = pixel(s, NX * 6 - 1, NY * 6 - 1);
    assert_true(((top >> 16) & 0xff) > 200 && ((top >> 8) & 0xff) > 200);
    assert_true(((bottom >> 16) & 0xff) < 100 && ((bottom >> 8) & 0xff) < 20);
    /* The square's bottom edge (y = 0.2 m, 12 px above the image bottom) is white. */
    uint32_t edge = pixel(s, 30, NY * 6 - 12 - 1);
    assert_true((edge & 0xff) > 200 && ((edge >> 8) & 0xff) > 200);
    cairo_surface_destroy(s);
    /* A 3D raster is refused with a message. */
    r.nz = 2;
    assert_int_equal(seam_picture_write_png(path, &r, NULL, NULL, NULL, &th.host), SEAM_ERROR);
    assert_true(test_host_saw(&th, "2D raster"));
}

static cairo_surface_t *load(const char *path)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    return s;
}

static bool greyish(uint32_t p, int level)
{
    int r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
    return abs(r - level) < 12 && abs(g - level) < 12 && abs(b - level) < 12;
}

/* A run's frames: one colour range for all, a colour bar beside the field. */
static void test_frames_share_a_range(void **state)
{
    (void)state;
    enum { NX = 40, NY = 30, S = 8 };
    static double a[NX * NY], b[NX * NY], flat[NX * NY];
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            a[j * NX + i] = b[j * NX + i] = (double)i / (NX - 1);   /* 0 .. 1, growing to the right */
    b[0] = 100.0;   /* the second frame has an outlier, bottom-left */
    seam_raster ra = {NX, NY, 1, {0, 0, 0}, 0.1, a, "m/s"}, rb = ra, rf = ra;
    rb.data = b;
    rf.data = flat;
    seam_picture_opts o = {.pixels_per_cell = S, .colour_bar = true, .label = "speed", .show_time = true, .time = 0.25};
    /* A uniform first frame does not set the range; the first varied one does, later ones widen it
     * (a run's speeds grow: no frame saturates), and a uniform one after them leaves it. */
    assert_false(seam_picture_track_range(&o, &rf));
    assert_true(o.range[0] == o.range[1]);
    assert_true(seam_picture_track_range(&o, &ra));
    assert_float_equal(o.range[0], 0.0, 0.0);
    assert_float_equal(o.range[1], 1.0, 0.0);
    assert_true(seam_picture_track_range(&o, &rb));
    assert_float_equal(o.range[0], 0.0, 0.0);
    assert_float_equal(o.range[1], 100.0, 0.0);
    assert_true(seam_picture_track_range(&o, &rf));
    assert_float_equal(o.range[1], 100.0, 0.0);
    /* The scene's range stays as given: the outlier takes the end colour. */
    o.range[0] = 0.0, o.range[1] = 1.0, o.range_fixed = true;
    assert_true(seam_picture_track_range(&o, &rb));
    assert_float_equal(o.range[1], 1.0, 0.0);
    char pa[4200], pb[4200];
    const char *dir = test_tmpdir("picture_frames");
    snprintf(pa, sizeof pa, "%s/a.png", dir);
    snprintf(pb, sizeof pb, "%s/b.png", dir);
    assert_int_equal(seam_picture_write_png(pa, &ra, NULL, NULL, &o, NULL), SEAM_OK);
    assert_int_equal(seam_picture_write_png(pb, &rb, NULL, NULL, &o, NULL), SEAM_OK);
    cairo_surface_t *A = load(pa), *B = load(pb);
    int W = NX * S, H = NY * S;
    assert_int_equal(cairo_image_surface_get_width(A), W + SEAM_PICTURE_BAR_WIDTH);
    assert_int_equal(cairo_image_surface_get_height(A), H);
    /* Equal values, equal colours, whatever else the frame holds. */
    for (int i = 1; i < NX; i += 7) {
        int x = i * S + S / 2, y = H - 3 * S;
        assert_int_equal(pixel(A, x, y), pixel(B, x, y));
    }
    /* The outlier is clipped to the top of the map (yellow); the value 0 there in A is dark. */
    uint32_t hot = pixel(B, S / 2, H - S / 2), cold = pixel(A, S / 2, H - S / 2);
    assert_true(((hot >> 16) & 0xff) > 200 && ((hot >> 8) & 0xff) > 200);
    assert_true(((cold >> 8) & 0xff) < 30);
    /* The colour bar: high values at its top, low at its bottom, on a white panel. */
    uint32_t top = pixel(A, W + 20, 14), bottom = pixel(A, W + 20, H - 14);
    assert_true(((top >> 16) & 0xff) > 200 && ((top >> 8) & 0xff) > 200);
    assert_true(((bottom >> 8) & 0xff) < 30);
    assert_int_equal(pixel(A, W + 3, H / 2), 0xffffffu);
    assert_int_equal(pixel(A, W + SEAM_PICTURE_BAR_WIDTH - 2, 2), 0xffffffu);
    /* The panel carries text (tick values, "speed (m/s)"): dark pixels right of the bar. */
    int dark = 0;
    for (int y = 0; y < H; y++)
        for (int x = W + 32; x < W + SEAM_PICTURE_BAR_WIDTH; x++)
            dark += (pixel(A, x, y) & 0xff) < 100;
    assert_true(dark > 100);
    /* The time is written in the top-left corner: white text on a dark box. */
    int white = 0;
    for (int y = 4; y < 24; y++)
        for (int x = 4; x < 80; x++)
            white += pixel(A, x, y) == 0xffffffu;
    assert_true(white > 10);
    cairo_surface_destroy(A);
    cairo_surface_destroy(B);
}

/* Solids filled (a container's outside too), shells thick, the free surface drawn. */
static void test_solids_and_surface(void **state)
{
    (void)state;
    enum { NX = 40, NY = 40, S = 5 };
    static double zero[NX * NY], phi[NX * NY];
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            phi[j * NX + i] = (j + 0.5) * 0.1 - 3.0;   /* the surface at y = 3 m */
    seam_raster r = {NX, NY, 1, {0, 0, 0}, 0.1, zero, "m"}, ls = r;
    ls.data = phi;
    /* Body 0: a counter-clockwise square (a solid) at [0.5, 1.5]^2; body 1: a
     * clockwise square at [0.2, 3.8]^2 (a container); a shell from (2, 2) to (3.5, 2). */
    double X[] = {0.5, 0.5, 1.5, 0.5, 1.5, 1.5, 0.5, 1.5,
                  0.2, 0.2, 0.2, 3.8, 3.8, 3.8, 3.8, 0.2,
                  2.0, 2.0, 3.5, 2.0};
    int32_t body[] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2};
    int32_t el[] = {0, 1, 1, 2, 2, 3, 3, 0, 4, 5, 5, 6, 6, 7, 7, 4, 8, 9};
    uint8_t two[] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
    seam_interface iface = {2, 10, X, NULL, body, 2, 9, el, two, 3};
    seam_picture_opts o = {.pixels_per_cell = S, .range = {-1, 1}, .fill_solids = true, .surface = &ls};
    char path[4200];
    snprintf(path, sizeof path, "%s/solids.png", test_tmpdir("picture_solids"));
    assert_int_equal(seam_picture_write_png(path, &r, &iface, NULL, &o, NULL), SEAM_OK);
    cairo_surface_t *img = load(path);
    int H = NY * S;
#define AT(x, y) pixel(img, (int)((x) / 0.1 * S), (int)(H - (y) / 0.1 * S))
    assert_true(greyish(AT(1.0, 1.0), 204));    /* inside the solid square */
    assert_true(greyish(AT(0.1, 0.1), 204));    /* outside the container */
    assert_false(greyish(AT(2.5, 1.0), 204));   /* the fluid between them */
    assert_false(greyish(AT(2.5, 1.0), 38));
    assert_true(greyish(AT(2.75, 2.0), 38));    /* the shell: a dark line... */
    assert_true(greyish(pixel(img, (int)(2.75 / 0.1 * S), (int)(H - 2.0 / 0.1 * S) - 1), 38));   /* ...thick */
    assert_int_equal(AT(2.5, 3.0), 0xffffffu);   /* the free surface, white */
    assert_true(AT(2.5, 3.3) != 0xffffffu);
#undef AT
    cairo_surface_destroy(img);
    /* A 3D level set is refused. */
    ls.nz = 2;
    assert_int_equal(seam_picture_write_png(path, &r, &iface, NULL, &o, NULL), SEAM_ERROR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_png_roundtrip), cmocka_unit_test(test_frames_share_a_range),
                                       cmocka_unit_test(test_solids_and_surface)};
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    cairo_debug_reset_static_data();   /* the font caches text drawing fills, so valgrind sees no leak */
    return failed;
}
