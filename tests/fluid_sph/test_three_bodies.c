/* Akbay Fig. 3.4 at reduced size (examples/sph_three_bodies.json): a sphere
 * (rho_s / rho_f = 0.05), an upright cylinder (2) and a flat torus (0.7)
 * released together in 3D SPH water (2792 particles, s = 0.025 m; the
 * thesis had 24389), coupled by the RMI with xpm's settings (Akbay's XPM on
 * SPH has no projection). Shortened to 1 s: the run converges every step,
 * the sphere floats high, the cylinder sinks to the floor and stays upright,
 * the torus floats flat at about 0.7 submerged, and no particle is lost.
 * Each body's centre is the mean of its interface points (their sampling is
 * symmetric about the centre); the water level comes from the fluid's
 * volume, as in the 2D tests: A H = n V0 + the bodies' volumes below H. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sph_test.h"
#include "test_scene.h"

static const char *const SCENE = "examples/sph_three_bodies.json";
static const double AREA = 0.7 * 0.35, RS = 0.06, RC = 0.05, HC = 0.1, RT = 0.1, AT = 0.05, FLOOR = 0.025;

/* Area of the circle of radius a below a line h above its lowest point. */
static double segment(double a, double h)
{
    if (h <= 0.0)
        return 0.0;
    if (h >= 2.0 * a)
        return M_PI * a * a;
    double c = a - h;
    return a * a * acos(c / a) - c * sqrt(a * a - c * c);
}

/* The bodies' volumes below the level H (centre heights y[3]): a spherical
 * cap, an upright cylinder, a flat torus (Pappus: the tube's segment swept
 * about the axis at radius R, the segment's centroid radius). */
static void below(double H, const double *y, double *v)
{
    double h = fmin(fmax(H - (y[0] - RS), 0.0), 2.0 * RS);
    v[0] = M_PI * h * h * (3.0 * RS - h) / 3.0;
    v[1] = M_PI * RC * RC * fmin(fmax(H - (y[1] - 0.5 * HC), 0.0), HC);
    v[2] = 2.0 * M_PI * RT * segment(AT, H - (y[2] - AT));
}

static double level(double fluid_volume, const double *y)
{
    double lo = 0.0, hi = 0.35, v[3];
    for (int it = 0; it < 60; it++) {
        double H = 0.5 * (lo + hi);
        below(H, y, v);
        if (AREA * H - v[0] - v[1] - v[2] < fluid_volume)
            lo = H;
        else
            hi = H;
    }
    return 0.5 * (lo + hi);
}

static void test_three_bodies(void **state)
{
    (void)state;
    test_host th;
    fluid_sph *fl = sph_make(&th, "{\"domain\": [0, 0, 0, 0.7, 0.35, 0.35], \"spacing\": 0.025, "
                                  "\"fill\": [0, 0, 0, 0.7, 0.2, 0.35]}", NULL);
    double V0 = fl->V0;
    seam_plugin_v1()->destroy(fl);
    const char *sets[] = {"time.end=1.0", "time.frame=1.0", "output.picture=false", NULL};
    test_run *r = test_run_scene("sph_three_bodies", NULL, SCENE, sets);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->summary.not_converged, 0);
    size_t n = sph_bound_particles(r->log), np = r->n / 3;
    double volume = (double)n * V0;
    /* the bodies' points, told apart by where they start: sphere x < 0.2, cylinder x < 0.365, torus beyond */
    int *body = malloc(np * sizeof *body);
    size_t count[3] = {0, 0, 0};
    for (size_t i = 0; i < np; i++) {
        double x = r->X[3 * i];
        body[i] = x < 0.2 ? 0 : x < 0.365 ? 1 : 2;
        count[body[i]]++;
    }
    assert_true(count[0] > 0 && count[1] > 0 && count[2] > 0);
    double sum_s = 0.0, sum_t = 0.0, lo_t = 1.0, hi_t = 0.0, worst_tilt = 0.0, worst_cyl = 0.0, lowest_s = 1.0;
    double y[3] = {0.0, 0.0, 0.0}, ylo[3], yhi[3];
    int rows = 0;
    for (size_t k = 0; k < r->rows; k++) {
        const double *X = r->X + k * r->n;
        for (int b = 0; b < 3; b++) {
            y[b] = 0.0;
            ylo[b] = INFINITY;
            yhi[b] = -INFINITY;
        }
        for (size_t i = 0; i < np; i++) {
            y[body[i]] += X[3 * i + 1] / (double)count[body[i]];
            ylo[body[i]] = fmin(ylo[body[i]], X[3 * i + 1]);
            yhi[body[i]] = fmax(yhi[body[i]], X[3 * i + 1]);
        }
        if (r->t[k] < 0.5 - 1e-9)
            continue;
        double H = level(volume, y), v[3];
        below(H, y, v);
        double fs = v[0] / (4.0 / 3.0 * M_PI * RS * RS * RS), ft = v[2] / (2.0 * M_PI * M_PI * RT * AT * AT);
        sum_s += fs;
        sum_t += ft;
        lo_t = fmin(lo_t, ft);
        hi_t = fmax(hi_t, ft);
        lowest_s = fmin(lowest_s, y[0] - H);
        worst_tilt = fmax(worst_tilt, yhi[2] - ylo[2] - 2.0 * AT);
        worst_cyl = fmax(worst_cyl, yhi[1] - ylo[1] - HC);
        rows++;
    }
    double ms = sum_s / rows, mt = sum_t / rows, bottom = y[1] - 0.5 * HC;
    printf("%ld steps (%.2f iterations per step, max %d), %zu particles; over [0.5, 1] s: sphere %.3f submerged "
           "(Archimedes 0.05), its centre at least %.4f m above the water; torus %.3f (%.3f .. %.3f; Archimedes 0.7), "
           "tilted by at most %.4f m across; cylinder's bottom %.4f m above its floor at 1 s, tilted by %.4f m\n",
           r->summary.steps, (double)r->summary.iterations / (double)r->summary.steps, r->summary.max_iterations, n,
           ms, lowest_s, mt, lo_t, hi_t, worst_tilt, bottom - FLOOR, worst_cyl);
    assert_true(rows >= 50);
    /* the sphere floats high: centre above the water (the cap below it at 5% is 0.27 R = 0.65 s deep) */
    assert_true(lowest_s > 0.0);
    assert_true(ms < 0.15);
    /* the cylinder rests on its floor, upright */
    assert_true(fabs(bottom - FLOOR) < 2e-3);
    assert_true(worst_cyl < 0.01);
    /* the torus floats flat at 0.7: the fraction moves by 0.3 per spacing of depth (the tube is 4 s across),
     * so 0.12 is 0.4 s; its surface mesh is inscribed (1.9% less volume), it floats a little deep */
    assert_true(fabs(mt - 0.7) < 0.12);
    assert_true(lo_t > 0.5 && hi_t < 0.9);
    assert_true(worst_tilt < 0.015);
    /* no particle created or lost: the last frame holds every particle bound */
    char path[1200], buf[512];
    snprintf(path, sizeof path, "%s/fluid/fluid_sph_000001.vtp", r->out);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    const char *at = strstr(buf, "NumberOfPoints=\"");
    assert_non_null(at);
    assert_int_equal(strtoul(at + strlen("NumberOfPoints=\""), NULL, 10), n);
    free(body);
    test_run_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_bodies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
