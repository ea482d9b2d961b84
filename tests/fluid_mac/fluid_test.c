/* Helpers shared by the 2D and 3D fluid_mac plugin tests. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fluid_test.h"

void *fluid_make(const seam_plugin *P, test_host *th, const char *json)
{
    test_host_init(th, "fluid", "fluids[0]");
    void *fl = P->create(P, json, &th->host);
    assert_non_null(fl);
    return fl;
}

const seam_interface *fluid_no_solid(int dim)
{
    static const seam_interface none[2] = {{2, 0, NULL, NULL, NULL, 2, 0, NULL, NULL, 0},
                                           {3, 0, NULL, NULL, NULL, 3, 0, NULL, NULL, 0}};
    return &none[dim == 3];
}

/* The sum over the cells of field `name` (each value through clip when
 * clip is set) times the cell volume. */
static double cell_integral(const seam_plugin *P, void *fl, const char *name, int dim, int clip)
{
    seam_raster r;
    assert_int_equal(P->field(fl, name, &r), SEAM_OK);
    int n = r.nx * r.ny * (dim == 3 ? r.nz : 1);
    double sum = 0.0;
    for (int c = 0; c < n; c++) {
        double v = clip ? fmin(1.0, fmax(0.0, 0.5 - r.data[c] / r.dx)) : r.data[c];
        sum += dim == 3 ? v * r.dx * r.dx * r.dx : v * r.dx * r.dx;
    }
    return sum;
}

double fluid_liquid_volume(const seam_plugin *P, void *fl, int dim)
{
    return cell_integral(P, fl, "level_set", dim, 1);
}

double fluid_total_smoke(const seam_plugin *P, void *fl, int dim)
{
    return cell_integral(P, fl, "density", dim, 0);
}

size_t fluid_particles_right_of(const char *dir, int frame, const double *a, const double *b, size_t *wrong)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/fluid_mac_particles_%06d.vtp", dir, frame);
    size_t n;
    double *p = test_read_vtk_points(path, &n);
    *wrong = 0;
    for (size_t k = 0; k < n; k++)
        *wrong += (b[0] - a[0]) * (p[3 * k + 1] - a[1]) - (b[1] - a[1]) * (p[3 * k] - a[0]) < 0.0;
    free(p);
    return n;
}
