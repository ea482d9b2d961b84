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
#include "test_scene.h"

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

/* One cell array of a legacy ASCII VTK file (STRUCTURED_POINTS, CELL_DATA). */
static double *vtk_cells(const char *path, const char *name, size_t *n)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256], want[128];
    snprintf(want, sizeof want, "SCALARS %s ", name);
    double *v = NULL;
    *n = 0;
    while (fgets(line, sizeof line, f)) {
        size_t cells;
        if (sscanf(line, "CELL_DATA %zu", &cells) == 1)
            *n = cells;
        if (strncmp(line, want, strlen(want)) == 0) {
            assert_non_null(fgets(line, sizeof line, f));   /* LOOKUP_TABLE */
            v = malloc(*n * sizeof *v);
            for (size_t i = 0; i < *n; i++)
                assert_int_equal(fscanf(f, "%lf", &v[i]), 1);
            break;
        }
    }
    fclose(f);
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
    snprintf(path, sizeof path, "%s/fluid/fluid_mac_00001.vtk", r->out);
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
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_supported_body),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
