/* Helpers of the fluid_sph tests. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sph_test.h"

fluid_sph *sph_make(test_host *th, const char *json, const seam_interface *iface)
{
    const seam_plugin *P = seam_plugin_v1();
    test_host_init(th, "fluid", "fluid");
    fluid_sph *fl = P->create(P, json, &th->host);
    assert_non_null(fl);
    static const seam_interface none2 = {2, 0, NULL, NULL, NULL, 2, 0, NULL, NULL, 0};
    static const seam_interface none3 = {3, 0, NULL, NULL, NULL, 3, 0, NULL, NULL, 0};
    if (!iface)
        iface = fl->cfg.dim == 3 ? &none3 : &none2;
    assert_int_equal(P->bind(fl, iface), SEAM_OK);
    return fl;
}

double sph_run(fluid_sph *fl, double t, double t_end, double dt_cap, const double *X, double *F)
{
    const seam_plugin *P = seam_plugin_v1();
    size_t np = fl->iface.n_points, d = (size_t)fl->cfg.dim;
    double *V = calloc(d * np + 1, sizeof *V), *Fo = calloc(d * np + 1, sizeof *Fo);
    for (int64_t step = 0; t < t_end - 1e-12; step++) {
        double dt;
        assert_int_equal(P->max_dt(fl, &dt), SEAM_OK);
        dt = fmin(dt, dt_cap);
        dt = (t_end - t) / ceil((t_end - t) / dt - 1e-9);   /* no sliver of a step at the end */
        seam_step s = {step, t, dt, 0};
        seam_input in = {np, fl->cfg.dim, X, V, NULL};
        seam_output out = {np, fl->cfg.dim, NULL, NULL, Fo};
        seam_status st = P->solve(fl, &s, &in, &out);
        if (st != SEAM_OK)
            fail_msg("step %lld at t = %g: %s", (long long)step, t, ((const test_host *)fl->host->ctx)->last);
        assert_int_equal(P->commit(fl), SEAM_OK);
        t += dt;
    }
    if (F)
        memcpy(F, Fo, d * np * sizeof *F);
    free(V);
    free(Fo);
    return t;
}

double sph_max_speed(const fluid_sph *fl)
{
    size_t d = (size_t)fl->cfg.dim;
    double vmax = 0.0;
    for (size_t i = 0; i < fl->n; i++) {
        double s2 = 0.0;
        for (size_t c = 0; c < d; c++)
            s2 += fl->v_n[d * i + c] * fl->v_n[d * i + c];
        vmax = fmax(vmax, sqrt(s2));
    }
    return vmax;
}

double sph_density_error(const fluid_sph *fl)
{
    const sph_geometry *G = &fl->geo[fl->start];
    assert_true(fl->start_valid);
    double e = 0.0;
    for (size_t i = 0; i < fl->n; i++)
        e += fmax(G->rho[i] - fl->f.rho0, 0.0) / fl->f.rho0;
    return fl->n ? e / (double)fl->n : 0.0;
}

/* Area of the disc of radius R below a line at height h above its lowest point. */
double sph_disc_segment(double R, double h)
{
    if (h <= 0.0)
        return 0.0;
    if (h >= 2.0 * R)
        return M_PI * R * R;
    double d = R - h;
    return R * R * acos(d / R) - d * sqrt(R * R - d * d);
}

double sph_disc_fraction(double W, double R, double volume, double cy)
{
    double bottom = cy - R, lo = 0.0, hi = (volume + M_PI * R * R) / W;   /* H <= hi: the segment is at most the disc */
    for (int it = 0; it < 60; it++) {   /* W H - segment(H - bottom) grows with H: bisection */
        double H = 0.5 * (lo + hi);
        if (W * H - sph_disc_segment(R, H - bottom) < volume)
            lo = H;
        else
            hi = H;
    }
    return sph_disc_segment(R, 0.5 * (lo + hi) - bottom) / (M_PI * R * R);
}

size_t sph_bound_particles(const char *log)
{
    const char *key = "surface samples, ", *at = strstr(log, key);
    assert_non_null(at);
    return strtoul(at + strlen(key), NULL, 10);
}

/* The colour sum_i V0 W(|(x, y) - x_i|) at (x, y). */
static double colour(const sph_kernel *K, double V0, const double *P, size_t n, double x, double y)
{
    double c = 0.0;
    for (size_t i = 0; i < n; i++)
        c += V0 * sph_W(K, hypot(P[3 * i] - x, P[3 * i + 1] - y));
    return c;
}

double sph_surface_level(const sph_kernel *K, double V0, const double *P, size_t n, double x, double lo, double hi)
{
    /* only the particles within the kernel's reach of the line count */
    double *near = malloc((3 * n + 3) * sizeof *near);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(P[3 * i] - x) < K->h) {
            for (size_t d = 0; d < 3; d++)
                near[3 * m + d] = P[3 * i + d];
            m++;
        }
    double level = NAN;
    if (colour(K, V0, near, m, x, lo) > 0.5 && colour(K, V0, near, m, x, hi) <= 0.5) {
        for (int it = 0; it < 50; it++) {   /* the colour falls through the surface: bisection */
            double y = 0.5 * (lo + hi);
            if (colour(K, V0, near, m, x, y) > 0.5)
                lo = y;
            else
                hi = y;
        }
        level = 0.5 * (lo + hi);
    }
    free(near);
    return level;
}
