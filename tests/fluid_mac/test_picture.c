/* PNG frames: the file has the promised size, y points up, the interface is drawn. */
#include <cairo.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_png_roundtrip)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
