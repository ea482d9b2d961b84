/* Takahashi's buckling contrast (thesis ch. 4.5.4, Fig. 4.6) in 2D: a tall
 * slender column of very viscous fluid (6 x 80 particles, s = 0.005 m, 0.03 x
 * 0.4 m, mu = 1000 kg/s per unit depth: nu = 1 m^2/s) falls at 1 m/s onto
 * the floor, with the full form and with the Laplacian form of the
 * viscosity, both implicit, at the fluid's CFL steps. The full form resists
 * the column's shortening (a uniaxial compression is a strain rate it sees;
 * the Laplacian of that linear flow is zero), so the column buckles
 * sideways; the Laplacian form lets it squash. A small sideways velocity,
 * 0.02 sin(pi (y - y0) / L) m/s, the same in both, breaks the symmetry.
 * Writes the particles at several times to CSV (form,t,x,y) and prints per
 * run the column's height, its width and the largest sideways excursion of
 * its centre line (the mean x of each 2 cm band) at each time. Not a test.
 *
 *     ninja -C build bench/fluid_sph/bench_buckling
 *     OMP_NUM_THREADS=1 ./build/bench/fluid_sph/bench_buckling OUT.csv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fluid_sph.h"

enum { BANDS = 40 };
static const double X0 = 0.25, Y0 = 0.05, L = 0.4;

static void warn_log(void *ctx, seam_log_level level, const char *message)
{
    (void)ctx;
    if (level >= SEAM_LOG_WARN)
        fprintf(stderr, "fluid_sph: %s\n", message);
}

/* Height, width and the centre line's largest excursion from X0 (m). */
static void shape(const fluid_sph *fl, double *height, double *width, double *bend)
{
    double sum[BANDS] = {0.0}, lo = INFINITY, hi = -INFINITY;
    int count[BANDS] = {0};
    *height = 0.0;
    for (size_t i = 0; i < fl->n; i++) {
        double x = fl->x_n[2 * i], y = fl->x_n[2 * i + 1];
        int b = (int)(y / 0.02);
        if (b >= 0 && b < BANDS) {
            sum[b] += x;
            count[b]++;
        }
        lo = fmin(lo, x);
        hi = fmax(hi, x);
        *height = fmax(*height, y);
    }
    *width = hi - lo;
    *bend = 0.0;
    for (int b = 0; b < BANDS; b++)
        if (count[b] >= 3)
            *bend = fmax(*bend, fabs(sum[b] / count[b] - X0));
}

static int run(const char *form, FILE *csv)
{
    const seam_plugin *P = seam_plugin_v1();
    seam_host host = {.abi = SEAM_ABI_VERSION, .name = "bench", .config_path = "fluid", .log = warn_log};
    char json[512];
    snprintf(json, sizeof json, "{\"domain\": [0, 0, 0.5, 0.5], \"spacing\": 0.005, \"fill\": [%g, %g, %g, %g], "
             "\"viscosity\": 1000, \"viscosity_form\": \"%s\", \"max_iterations\": 5000}", X0 - 0.015, Y0, X0 + 0.015,
             Y0 + L, form);
    fluid_sph *fl = P->create(P, json, &host);
    seam_interface none = {2, 0, NULL, NULL, NULL, 2, 0, NULL, NULL, 0};
    if (!fl || P->bind(fl, &none) != SEAM_OK)
        return 1;
    for (size_t i = 0; i < fl->n; i++) {
        fl->v_n[2 * i] = 0.02 * sin(M_PI * (fl->x_n[2 * i + 1] - Y0) / L);
        fl->v_n[2 * i + 1] = -1.0;
    }
    static const double frames[] = {0.0, 0.15, 0.3, 0.6, 1.0};
    double t = 0.0;
    long steps = 0, cg = 0;
    for (size_t k = 0; k < sizeof frames / sizeof frames[0]; k++) {
        while (t < frames[k] - 1e-12) {
            double dt;
            if (P->max_dt(fl, &dt) != SEAM_OK)
                return 1;
            dt = fmin(dt, frames[k] - t);
            seam_step st = {steps, t, dt, 0};
            seam_input in = {0, 2, NULL, NULL, NULL};
            seam_output out = {0, 2, NULL, NULL, NULL};
            if (P->solve(fl, &st, &in, &out) != SEAM_OK || P->commit(fl) != SEAM_OK) {
                fprintf(stderr, "%s: step %ld at t = %g failed\n", form, steps, t);
                return 1;
            }
            t += dt;
            steps++;
            cg += fl->last_visc.iterations;
        }
        double height, width, bend;
        shape(fl, &height, &width, &bend);
        printf("%-9s t %.2f s: height %.3f m, width %.3f m, centre line off by up to %.3f m (%ld steps, %.1f CG "
               "iterations a step)\n", form, t, height, width, bend, steps, steps ? (double)cg / steps : 0.0);
        printf("@row form=%s t=%.2f particles=%zu height_m=%.4f width_m=%.4f bend_m=%.4f steps=%ld cg_it_step=%.2f\n",
               form, t, fl->n, height, width, bend, steps, steps ? (double)cg / steps : 0.0);
        for (size_t i = 0; i < fl->n; i++)
            fprintf(csv, "%s,%.2f,%.5f,%.5f\n", form, t, fl->x_n[2 * i], fl->x_n[2 * i + 1]);
    }
    P->destroy(fl);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_buckling OUT.csv\n");
        return 2;
    }
    FILE *csv = fopen(argv[1], "w");
    if (!csv)
        return 1;
    fprintf(csv, "form,t,x,y\n");
    int rc = run("full", csv) || run("laplacian", csv);
    fclose(csv);
    return rc;
}
