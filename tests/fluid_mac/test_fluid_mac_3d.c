/* fluid_mac in 3D (cells: [nx, ny, nz]) through its plugin table: hydrostatics
 * with an open top and in a closed box, the free-surface still tank and a
 * sloshing tank with FLIP particles, save/load and what 3D refuses. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "seam/plugin.h"
#include "test_host.h"

const seam_plugin *seam_plugin_v1(void);

static seam_interface no_solid = {3, 0, NULL, NULL, NULL, 3, 0, NULL, NULL, 0};

static void *make(const seam_plugin *P, test_host *th, const char *json)
{
    test_host_init(th, "fluid", "fluids[0]");
    void *fl = P->create(json, &th->host);
    assert_non_null(fl);
    return fl;
}

static seam_status step(const seam_plugin *P, void *fl, int64_t n, double dt)
{
    seam_step st = {n, n * dt, dt, 0};
    seam_io in = {0, 3, NULL, NULL, NULL}, out = {0, 3, NULL, NULL, NULL};
    seam_status s = P->solve(fl, &st, &in, &out);
    return s == SEAM_OK ? P->commit(fl) : s;
}

static double field_max(const seam_plugin *P, void *fl, const char *name)
{
    seam_raster r;
    assert_int_equal(P->field(fl, name, &r), SEAM_OK);
    double m = 0.0;
    for (int c = 0; c < r.nx * r.ny * r.nz; c++)
        m = fmax(m, fabs(r.data[c]));
    return m;
}

/* Volume inside the level set, each cell counted by its centre value clipped to [0, 1] cells. */
static double liquid_volume(const seam_plugin *P, void *fl)
{
    seam_raster r;
    assert_int_equal(P->field(fl, "level_set", &r), SEAM_OK);
    double V = 0.0;
    for (int c = 0; c < r.nx * r.ny * r.nz; c++)
        V += fmin(1.0, fmax(0.0, 0.5 - r.data[c] / r.dx)) * r.dx * r.dx * r.dx;
    return V;
}

static void test_config_3d(void **state)
{
    (void)state;
    const seam_plugin *P = seam_plugin_v1();
    test_host th;
    test_host_init(&th, "fluid", "fluids[0]");
    assert_null(P->create("{\"cells\": [4, 4, 4, 4], \"dx\": 0.1}", &th.host));
    assert_true(test_host_saw(&th, "[nx, ny, nz]"));
    assert_null(P->create("{\"cells\": [4, 4, 4], \"dx\": 0.1, \"gravity\": [0, -9.81]}", &th.host));
    assert_true(test_host_saw(&th, "gravity"));
    assert_null(P->create("{\"cells\": [4, 4, 4], \"dx\": 0.1, \"liquid\": {\"fill\": [0, 0, 0.4, 0.2]}}", &th.host));
    assert_true(test_host_saw(&th, "x0 y0 z0 x1 y1 z1"));
    assert_null(P->create("{\"cells\": [4, 4, 4], \"dx\": 0.1, \"sources\": [{\"side\": \"bottom\", \"speed\": 1}]}",
                          &th.host));
    assert_true(test_host_saw(&th, "2D only"));
    assert_null(P->create("{\"cells\": [4, 4], \"dx\": 0.1, \"boundary\": {\"front\": \"open\"}}", &th.host));
    assert_true(test_host_saw(&th, "front"));
    /* A 2D interface does not fit a 3D grid, and 3D solids are not taken. */
    void *fl = make(P, &th, "{\"cells\": [4, 4, 4], \"dx\": 0.1, \"boundary\": {\"front\": \"open\"}}");
    seam_interface flat = {2, 0, NULL, NULL, NULL, 2, 0, NULL, NULL, 0};
    double X[9] = {0.1, 0.1, 0.1, 0.2, 0.1, 0.1, 0.1, 0.2, 0.1};
    int32_t tri[3] = {0, 1, 2};
    flat.n_points = 3;
    flat.X = X;
    assert_int_equal(P->bind(fl, &flat), SEAM_ERROR);
    assert_true(test_host_saw(&th, "dimension 2"));
    seam_interface solid = {3, 3, X, NULL, NULL, 3, 1, tri, NULL, 1};
    assert_int_equal(P->bind(fl, &solid), SEAM_ERROR);
    assert_true(test_host_saw(&th, "no solids"));
    assert_int_equal(P->bind(fl, &no_solid), SEAM_OK);
    P->destroy(fl);
}

/* Fluid filling a box with an open top: still, p = rho g depth in every cell
 * (the open side is p = 0 half a cell above the top centres). */
static void test_open_tank_3d(void **state)
{
    (void)state;
    const seam_plugin *P = seam_plugin_v1();
    test_host th;
    void *fl = make(P, &th, "{\"cells\": [6, 10, 5], \"dx\": 0.05, \"boundary\": {\"top\": \"open\"},"
                            " \"pressure_tolerance\": 1e-12}");
    assert_int_equal(P->bind(fl, &no_solid), SEAM_OK);
    double H = 10 * 0.05, rho = 1000, g = 9.81, dt = P->max_dt(fl);
    assert_float_equal(dt, 0.05 / sqrt(g * 0.05), 1e-12);   /* cfl dx / sqrt(|g| dx) at rest */
    for (int n = 0; n < 20; n++)
        assert_int_equal(step(P, fl, n, dt), SEAM_OK);
    assert_true(field_max(P, fl, "speed") < 1e-6 * sqrt(g * H));
    seam_raster r;
    assert_int_equal(P->field(fl, "pressure", &r), SEAM_OK);
    assert_int_equal(r.nz, 5);
    for (int k = 0; k < r.nz; k++)
        for (int j = 0; j < r.ny; j++)
            for (int i = 0; i < r.nx; i++)
                assert_float_equal(r.data[i + r.nx * (j + r.ny * k)], rho * g * (H - (j + 0.5) * r.dx),
                                   1e-6 * rho * g * H);
    P->destroy(fl);
}

/* A closed box with gravity along z: an enclosed region, solvable, mean
 * pressure 0, and p drops by rho g dx per cell upwards (here +z). */
static void test_closed_box_3d(void **state)
{
    (void)state;
    const seam_plugin *P = seam_plugin_v1();
    test_host th;
    void *fl = make(P, &th, "{\"cells\": [5, 4, 6], \"dx\": 0.1, \"gravity\": [0, 0, -9.81],"
                            " \"pressure_tolerance\": 1e-12}");
    assert_int_equal(P->bind(fl, &no_solid), SEAM_OK);
    seam_step st = {0, 0.0, 0.01, 0};
    seam_regions R;
    assert_int_equal(P->regions(fl, &st, NULL, &R), SEAM_OK);
    assert_int_equal(R.count, 1);   /* no open side, no free surface */
    assert_float_equal(R.q[0], 0.0, 0.0);
    for (int n = 0; n < 10; n++)
        assert_int_equal(step(P, fl, n, 0.01), SEAM_OK);
    seam_raster r;
    assert_int_equal(P->field(fl, "pressure", &r), SEAM_OK);
    double mean = 0.0;
    int nc = r.nx * r.ny * r.nz;
    for (int c = 0; c < nc; c++) {
        assert_true(isfinite(r.data[c]));
        mean += r.data[c] / nc;
    }
    assert_float_equal(mean, 0.0, 1e-6);
    for (int k = 1; k < r.nz; k++)
        assert_float_equal(r.data[2 + r.nx * (1 + r.ny * (k - 1))] - r.data[2 + r.nx * (1 + r.ny * k)],
                           1000 * 9.81 * 0.1, 1e-5);
    assert_true(field_max(P, fl, "speed") < 1e-8);
    assert_true(field_max(P, fl, "divergence") < 1e-8);
    P->destroy(fl);
}

/* Water 0.3 m deep under a free surface in a 12^3 box: still after 100 steps
 * (spurious speed below 1e-6 sqrt(g H)), p = rho g depth below the surface,
 * zero in the air, volume kept. */
static void test_liquid_still_tank_3d(void **state)
{
    (void)state;
    const seam_plugin *P = seam_plugin_v1();
    test_host th;
    void *fl = make(P, &th, "{\"cells\": [10, 12, 10], \"dx\": 0.05, \"pressure_tolerance\": 1e-10,"
                            " \"liquid\": {\"fill\": [0, 0, 0, 0.5, 0.3, 0.5]}}");
    assert_int_equal(P->bind(fl, &no_solid), SEAM_OK);
    double H = 0.3, rho = 1000, g = 9.81, V0 = 0.5 * 0.3 * 0.5;
    assert_float_equal(liquid_volume(P, fl), V0, 1e-3 * V0);
    for (int n = 0; n < 100; n++)
        assert_int_equal(step(P, fl, n, P->max_dt(fl)), SEAM_OK);
    double vmax = field_max(P, fl, "speed");
    fprintf(stderr, "3D still liquid: max speed %.3g m/s (limit %.3g)\n", vmax, 1e-6 * sqrt(g * H));
    assert_true(vmax < 1e-6 * sqrt(g * H));
    seam_raster r;
    assert_int_equal(P->field(fl, "pressure", &r), SEAM_OK);
    for (int k = 0; k < r.nz; k++)
        for (int i = 0; i < r.nx; i++) {
            for (int j = 0; j < 5; j++)
                assert_float_equal(r.data[i + r.nx * (j + r.ny * k)], rho * g * (H - (j + 0.5) * r.dx),
                                   1e-3 * rho * g * H);
            assert_float_equal(r.data[i + r.nx * (7 + r.ny * k)], 0.0, 0.0);   /* air */
        }
    assert_float_equal(liquid_volume(P, fl), V0, 1e-3 * V0);
    P->destroy(fl);
}

/* Water stepped from 0.3 m on one half to 0.15 m on the other sloshes in a
 * 16 x 12 x 6 tank; its volume stays within 2%, the grid velocities stay
 * divergence free in the liquid, save/load restores the state. */
static void test_liquid_sloshing_3d(void **state)
{
    (void)state;
    const seam_plugin *P = seam_plugin_v1();
    test_host th;
    void *fl = make(P, &th, "{\"cells\": [16, 12, 6], \"dx\": 0.05,"
                            " \"liquid\": {\"fill\": [0, 0, 0, 0.4, 0.3, 0.3, 0.4, 0, 0, 0.8, 0.15, 0.3]}}");
    assert_int_equal(P->bind(fl, &no_solid), SEAM_OK);
    double V0 = liquid_volume(P, fl), worst = 0.0, fastest = 0.0, t = 0.0;
    for (int n = 0; n < 60; n++) {
        double dt = P->max_dt(fl);
        assert_int_equal(step(P, fl, n, dt), SEAM_OK);
        t += dt;
        worst = fmax(worst, fabs(liquid_volume(P, fl) / V0 - 1.0));
        fastest = fmax(fastest, field_max(P, fl, "speed"));
    }
    fprintf(stderr, "3D sloshing: %.2f s, largest volume change %.3f%%, fastest %.3g m/s\n", t, 100 * worst,
            fastest);
    assert_true(worst < 0.02);
    assert_true(fastest > 0.2);   /* it did slosh */
    /* Save, step, load, step again: the same pressure bit for bit. */
    seam_buffer buf;
    assert_int_equal(P->save(fl, &buf), SEAM_OK);
    void *copy = malloc(buf.size);
    memcpy(copy, buf.data, buf.size);
    size_t size = buf.size;
    double dt = P->max_dt(fl);
    assert_int_equal(step(P, fl, 60, dt), SEAM_OK);
    seam_raster r;
    P->field(fl, "pressure", &r);
    double *p1 = malloc((size_t)(r.nx * r.ny * r.nz) * sizeof *p1);
    memcpy(p1, r.data, (size_t)(r.nx * r.ny * r.nz) * sizeof *p1);
    assert_int_equal(P->load(fl, copy, size), SEAM_OK);
    assert_int_equal(step(P, fl, 60, dt), SEAM_OK);
    P->field(fl, "pressure", &r);
    assert_memory_equal(p1, r.data, (size_t)(r.nx * r.ny * r.nz) * sizeof *p1);
    assert_int_equal(P->load(fl, copy, size - 8), SEAM_ERROR);
    free(p1);
    free(copy);
    P->destroy(fl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_3d),           cmocka_unit_test(test_open_tank_3d),
        cmocka_unit_test(test_closed_box_3d),       cmocka_unit_test(test_liquid_still_tank_3d),
        cmocka_unit_test(test_liquid_sloshing_3d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
