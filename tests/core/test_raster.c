/* Rasters read between cell centres (seam/raster.h) and the outline where a
 * plane cuts a 3D interface (seam_picture_cut_plane). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "seam/alloc.h"
#include "seam/picture.h"
#include "seam/raster.h"

static double linear(const double *x) { return 1.5 + 2.0 * x[0] - 3.0 * x[1] + 0.5 * x[2]; }

/* A field linear in space, sampled at cell centres, is read back exactly
 * between the centres, and sliced exactly. */
static void test_linear_field(void **state)
{
    (void)state;
    enum { NX = 5, NY = 4, NZ = 3 };
    static double data[NX * NY * NZ];
    const double dx = 0.25, origin[3] = {-1.0, 0.5, 2.0};
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                double c[3] = {origin[0] + (i + 0.5) * dx, origin[1] + (j + 0.5) * dx, origin[2] + (k + 0.5) * dx};
                data[i + NX * (j + NY * k)] = linear(c);
            }
    seam_raster r = {NX, NY, NZ, {origin[0], origin[1], origin[2]}, dx, data, "Pa"};
    double inside[3] = {-0.61, 1.13, 2.44};
    assert_true(seam_raster_contains(&r, inside));
    assert_float_equal(seam_raster_at(&r, inside), linear(inside), 1e-12);
    double outside[3] = {-0.61, 1.13, 2.8};
    assert_false(seam_raster_contains(&r, outside));
    /* past the outermost centres: the outermost value (z centre 2.625) */
    double edge[3] = {-0.61, 1.13, 2.74}, centre[3] = {-0.61, 1.13, 2.625};
    assert_float_equal(seam_raster_at(&r, edge), linear(centre), 1e-12);
    /* each plane: values linear in the plane's own axes (right, up) */
    static double plane[NX * NY * NZ];
    for (int axis = 0; axis < 3; axis++) {
        double at = origin[axis] + 0.37 * (axis == 0 ? NX : axis == 1 ? NY : NZ) * dx;
        seam_raster s;
        seam_raster_slice(&r, axis, at, plane, &s);
        int right, up;
        seam_raster_plane_axes(axis, &right, &up);
        assert_int_equal(s.nz, 1);
        assert_int_equal(s.nx, right == 0 ? NX : NY);
        assert_int_equal(s.ny, up == 1 ? NY : NZ);
        for (int v = 0; v < s.ny; v++)
            for (int u = 0; u < s.nx; u++) {
                double x[3];
                x[axis] = at;
                x[right] = s.origin[0] + (u + 0.5) * dx;
                x[up] = s.origin[1] + (v + 0.5) * dx;
                assert_float_equal(plane[u + s.nx * v], linear(x), 1e-12);
            }
    }
    /* a 2D raster: z is not read */
    seam_raster flat = {NX, NY, 1, {origin[0], origin[1], 0.0}, dx, data, NULL};
    double p[3] = {-0.5, 1.0, 99.0}, p0[3] = {-0.5, 1.0, origin[2] + 0.5 * dx};
    assert_true(seam_raster_contains(&flat, p));
    assert_float_equal(seam_raster_at(&flat, p), linear(p0), 1e-12);
}

/* The unit cube [0, 1]^3 as 12 outward triangles (b - a) x (c - a). */
static const double cube_X[8 * 3] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
static const int32_t cube_tris[12 * 3] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                          2, 3, 7, 2, 7, 6, 1, 2, 6, 1, 6, 5, 0, 4, 7, 0, 7, 3};

/* Signed area of the cut's segments (shoelace) and whether they close:
 * every point starts exactly one segment and ends exactly one. */
static double cut_area(const seam_picture_cut *c, int *closed)
{
    double twice = 0.0;
    int *starts = seam_xcalloc(c->iface.n_points + 1, sizeof *starts),
        *ends = seam_xcalloc(c->iface.n_points + 1, sizeof *ends);
    for (size_t e = 0; e < c->iface.n_elems; e++) {
        int a = c->elems[2 * e], b = c->elems[2 * e + 1];
        twice += c->X[2 * a] * c->X[2 * b + 1] - c->X[2 * b] * c->X[2 * a + 1];
        starts[a]++, ends[b]++;
    }
    *closed = 1;
    for (size_t i = 0; i < c->iface.n_points; i++)
        *closed &= starts[i] == 1 && ends[i] == 1;
    free(starts), free(ends);
    return 0.5 * twice;
}

static void test_cut_cube(void **state)
{
    (void)state;
    const uint8_t one_sided[12] = {0};
    int32_t body[8] = {0};
    seam_interface cube = {.dim = 3, .n_points = 8, .X = cube_X, .body = body, .nodes_per_elem = 3, .n_elems = 12,
                           .elems = cube_tris, .two_sided = one_sided, .n_bodies = 1};
    for (int axis = 0; axis < 3; axis++) {
        seam_picture_cut c;
        assert_int_equal(seam_picture_cut_plane(&cube, NULL, axis, 0.3, &c, NULL), SEAM_OK);
        int closed;
        /* a unit square, counter-clockwise in the plane's axes: the 2D outline of a volume */
        assert_float_equal(cut_area(&c, &closed), 1.0, 1e-12);
        assert_true(closed);
        assert_int_equal(c.iface.dim, 2);
        assert_int_equal(c.iface.nodes_per_elem, 2);
        for (size_t i = 0; i < 2 * c.iface.n_points; i++)
            assert_true(c.X[i] >= -1e-15 && c.X[i] <= 1.0 + 1e-15);
        seam_picture_cut_free(&c);
    }
    /* turned inside out (a container seen from inside): clockwise */
    int32_t inside_out[12 * 3];
    for (int e = 0; e < 12; e++) {
        inside_out[3 * e] = cube_tris[3 * e];
        inside_out[3 * e + 1] = cube_tris[3 * e + 2];
        inside_out[3 * e + 2] = cube_tris[3 * e + 1];
    }
    cube.elems = inside_out;
    seam_picture_cut c;
    assert_int_equal(seam_picture_cut_plane(&cube, NULL, 2, 0.6, &c, NULL), SEAM_OK);
    int closed;
    assert_float_equal(cut_area(&c, &closed), -1.0, 1e-12);
    assert_true(closed);
    seam_picture_cut_free(&c);
    /* missing the cube, or through a layer of vertices (on the plane counts as above: at z = 0 the whole
     * cube is above, at z = 1 only the top face), nothing or a closed square */
    assert_int_equal(seam_picture_cut_plane(&cube, NULL, 2, 1.5, &c, NULL), SEAM_OK);
    assert_int_equal(c.iface.n_elems, 0);
    seam_picture_cut_free(&c);
    cube.elems = cube_tris;
    assert_int_equal(seam_picture_cut_plane(&cube, NULL, 2, 0.0, &c, NULL), SEAM_OK);
    assert_int_equal(c.iface.n_elems, 0);
    seam_picture_cut_free(&c);
    assert_int_equal(seam_picture_cut_plane(&cube, NULL, 2, 1.0, &c, NULL), SEAM_OK);
    assert_float_equal(cut_area(&c, &closed), 1.0, 1e-12);
    assert_true(closed);
    seam_picture_cut_free(&c);
    /* a 2D interface has no plane to cut */
    seam_interface flat = {.dim = 2, .n_points = 0};
    assert_int_equal(seam_picture_cut_plane(&flat, NULL, 2, 0.0, &c, NULL), SEAM_ERROR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_field),
        cmocka_unit_test(test_cut_cube),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
