/* solid_rigid benchmark: accuracy figures (bounce heights, conservation over
 * long runs) and cost per step with contact and per mobility call.
 * Prints one line per figure; not run by CI. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rigid.h"
#include "seam/alloc.h"
#include "rigid_math.h"

static void quiet(void *ctx, seam_log_level level, const char *message)
{
    (void)ctx;
    if (level >= SEAM_LOG_WARN)
        fprintf(stderr, "%s\n", message);
}

static const seam_host host = {.abi = SEAM_ABI_VERSION, .name = "bench", .config_path = "bench", .log = quiet};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static rigid_solver *make(const char *json)
{
    rigid_solver *rs = rigid_create(NULL, json, &host);
    if (!rs) {
        fprintf(stderr, "bench: configuration refused\n");
        exit(1);
    }
    return rs;
}

static void step(rigid_solver *rs, int64_t n, double dt, double *X, double *V, size_t np, int dim)
{
    seam_step st = {n, (double)n * dt, dt, 0};
    seam_output out = {np, dim, X, V, NULL};
    if (rigid_solve(rs, &st, NULL, &out) != SEAM_OK || rigid_commit(rs) != SEAM_OK) {
        fprintf(stderr, "bench: step %lld failed\n", (long long)n);
        exit(1);
    }
}

/* Apex of the first bounce over the drop height, divided by e^2. */
static void bounce(int dim, double e, double dt)
{
    char json[768];
    if (dim == 2)
        snprintf(json, sizeof json, "{\"dim\": 2, \"spacing\": 0.05, \"walls\": {\"min\": [-1, 0], \"max\": [1, 3]},"
                 " \"bodies\": [{\"shape\": \"circle\", \"radius\": 0.1, \"density\": 1000, \"restitution\": %g,"
                 " \"position\": [0, 1.1]}]}", e);
    else
        snprintf(json, sizeof json, "{\"dim\": 3, \"gravity\": [0, -9.81, 0], \"spacing\": 0.05,"
                 " \"walls\": {\"min\": [-1, 0, -1], \"max\": [1, 3, 1]}, \"bodies\": [{\"shape\": \"sphere\","
                 " \"radius\": 0.1, \"density\": 1000, \"restitution\": %g, \"position\": [0, 1.1, 0]}]}", e);
    rigid_solver *rs = make(json);
    seam_interface I;
    rigid_describe(rs, &I);
    double *X = seam_xmalloc_n(I.n_points * (size_t)dim, sizeof *X), *V = seam_xmalloc_n(I.n_points * (size_t)dim, sizeof *V);
    const rigid_state *S = rigid_get_state(rs, 0);
    int bounced = 0;
    double apex = 0;
    for (int64_t n = 0; n < (int64_t)(4.0 / dt); n++) {
        step(rs, n, dt, X, V, I.n_points, dim);
        if (!bounced && S->v[1] > 0)
            bounced = 1;
        if (bounced) {
            apex = fmax(apex, S->x[1] - 0.1);
            if (S->v[1] < 0)
                break;
        }
    }
    printf("bounce dim=%d e=%.1f dt=%.0e: apex/(e^2 h) = %.5f\n", dim, e, dt, apex / (e * e));
    printf("@row figure=bounce dim=%d restitution=%.1f dt=%g apex_over_e2h=%.6f\n", dim, e, dt, apex / (e * e));
    free(X);
    free(V);
    rigid_destroy(rs);
}

/* Relative drift of energy and |L| of a box spinning near its middle axis. */
static void tumbling(double dt, int64_t steps)
{
    rigid_solver *rs = make("{\"dim\": 3, \"gravity\": [0, 0, 0], \"spacing\": 0.5, \"bodies\": [{\"shape\": \"box\","
                            " \"size\": [1, 2, 3], \"density\": 10, \"angular_velocity\": [0.05, 2.0, 0.04]}]}");
    seam_interface I;
    rigid_describe(rs, &I);
    double *X = seam_xmalloc_n(3 * I.n_points, sizeof *X), *V = seam_xmalloc_n(3 * I.n_points, sizeof *V);
    const rigid_state *S = rigid_get_state(rs, 0);
    double E0 = 0.5 * v3_dot(S->w, S->L), L0 = v3_norm(S->L), L0v[3];
    v3_copy(L0v, S->L);
    double t0 = now();
    for (int64_t n = 0; n < steps; n++)
        step(rs, n, dt, X, V, I.n_points, 3);
    double el = now() - t0, dL[3];
    v3_sub(dL, S->L, L0v);
    printf("tumbling box dt=%.0e steps=%lld: |dE|/E = %.2e, |dL|/|L| = %.2e, %.2f us/step (%zu points)\n", dt,
           (long long)steps, fabs(0.5 * v3_dot(S->w, S->L) - E0) / E0, v3_norm(dL) / L0, 1e6 * el / (double)steps,
           I.n_points);
    printf("@row figure=tumbling dt=%g steps=%lld dE_over_E=%.3e dL_over_L=%.3e us_step=%.3f points=%zu\n", dt,
           (long long)steps, fabs(0.5 * v3_dot(S->w, S->L) - E0) / E0, v3_norm(dL) / L0, 1e6 * el / (double)steps,
           I.n_points);
    free(X);
    free(V);
    rigid_destroy(rs);
}

/* Energy of a swinging rod pendulum (rotate_about) after many periods. */
static void pendulum(double dt, double periods)
{
    rigid_solver *rs = make("{\"dim\": 2, \"spacing\": 0.1, \"bodies\": [{\"shape\": \"rectangle\", \"size\": [0.02, 1],"
                            " \"density\": 50, \"position\": [0, -0.5], \"angular_velocity\": 2.0,"
                            " \"constraint\": {\"rotate_about\": [0, 0]}}]}");
    seam_interface I;
    rigid_describe(rs, &I);
    double *X = seam_xmalloc_n(2 * I.n_points, sizeof *X), *V = seam_xmalloc_n(2 * I.n_points, sizeof *V);
    const rigid_body *b = rigid_get_body(rs, 0);
    const rigid_state *S = rigid_get_state(rs, 0);
    double E0 = 0.5 * b->m_axis * S->sdot * S->sdot + b->m * 9.81 * S->x[1];
    double T = 2 * M_PI / sqrt(b->m * 9.81 * 0.5 / b->m_axis);
    int64_t steps = (int64_t)(periods * T / dt);
    double worst = 0;
    for (int64_t n = 0; n < steps; n++) {
        step(rs, n, dt, X, V, I.n_points, 2);
        double E = 0.5 * b->m_axis * S->sdot * S->sdot + b->m * 9.81 * S->x[1];
        worst = fmax(worst, fabs(E - E0));
    }
    double Eend = 0.5 * b->m_axis * S->sdot * S->sdot + b->m * 9.81 * S->x[1];
    printf("pendulum (amplitude ~0.75 rad) dt=%.0e, %.0f periods: max |dE| / (m g d) = %.2e, end drift = %.2e\n", dt,
           periods, worst / (b->m * 9.81 * 0.5), (Eend - E0) / (b->m * 9.81 * 0.5));
    printf("@row figure=pendulum dt=%g periods=%.0f max_dE_over_mgd=%.3e end_drift=%.3e\n", dt, periods,
           worst / (b->m * 9.81 * 0.5), (Eend - E0) / (b->m * 9.81 * 0.5));
    free(X);
    free(V);
    rigid_destroy(rs);
}

/* n balls dropped into a 2D tank (or 3D box): time per step once they pile up. */
static void tank(int dim, int n, double seconds)
{
    size_t cap = 256 + 256 * (size_t)n;
    char *json = seam_xmalloc(cap);
    int len = snprintf(json, cap, dim == 2 ? "{\"dim\": 2, \"spacing\": 0.02, \"walls\": {\"min\": [0, 0], \"max\": [1, 4]}, \"bodies\": ["
                                           : "{\"dim\": 3, \"gravity\": [0, -9.81, 0], \"spacing\": 0.03, \"walls\": {\"min\": [0, 0, 0], \"max\": [0.6, 4, 0.6]}, \"bodies\": [");
    for (int i = 0; i < n; i++) {
        int per = dim == 2 ? 8 : 9;   /* balls per layer, staggered a little so they do not land flat */
        double y = 0.1 + 0.12 * (i / per) + 0.003 * (i % 5);
        if (dim == 2)
            len += snprintf(json + len, cap - (size_t)len, "%s{\"shape\": \"circle\", \"radius\": 0.05, \"density\": %d,"
                            " \"restitution\": 0.3, \"position\": [%g, %g]}", i ? "," : "", 300 + 200 * (i % 5),
                            0.06 + 0.12 * (i % per), y);
        else
            len += snprintf(json + len, cap - (size_t)len, "%s{\"shape\": \"sphere\", \"radius\": 0.05, \"density\": %d,"
                            " \"restitution\": 0.3, \"position\": [%g, %g, %g]}", i ? "," : "", 300 + 200 * (i % 5),
                            0.1 + 0.18 * (i % 3), y, 0.1 + 0.18 * (i % per / 3));
    }
    snprintf(json + len, cap - (size_t)len, "]}");
    rigid_solver *rs = make(json);
    free(json);
    seam_interface I;
    rigid_describe(rs, &I);
    double *X = seam_xmalloc_n(I.n_points * (size_t)dim, sizeof *X), *V = seam_xmalloc_n(I.n_points * (size_t)dim, sizeof *V);
    double dt = 1e-3, t0 = now();
    int64_t steps = (int64_t)(seconds / dt);
    for (int64_t k = 0; k < steps; k++)
        step(rs, k, dt, X, V, I.n_points, dim);
    double el = now() - t0, vmax = 0, ymin = INFINITY;
    for (int i = 0; i < n; i++) {
        const rigid_state *S = rigid_get_state(rs, (size_t)i);
        vmax = fmax(vmax, v3_norm(S->v));
        ymin = fmin(ymin, S->x[1]);
    }
    double *J = SEAM_NEW_N(double, I.n_points * (size_t)dim), *dv = seam_xmalloc_n(I.n_points * (size_t)dim, sizeof *dv);
    J[1] = 1.0;
    double tm = now();
    for (int k = 0; k < 100; k++)
        rigid_mobility(rs, J, dv);
    double mob = (now() - tm) / 100;
    printf("tank dim=%d balls=%d points=%zu: %.3f ms/step over %.1f s simulated; after: max |v| = %.2e m/s, "
           "lowest centre %.4f (radius 0.05); mobility %.1f us\n", dim, n, I.n_points, 1e3 * el / (double)steps, seconds,
           vmax, ymin, 1e6 * mob);
    printf("@row figure=tank dim=%d balls=%d points=%zu ms_step=%.4f seconds=%.1f max_v=%.3e lowest_centre=%.5f"
           " mobility_us=%.2f\n", dim, n, I.n_points, 1e3 * el / (double)steps, seconds, vmax, ymin, 1e6 * mob);
    free(J);
    free(dv);
    free(X);
    free(V);
    rigid_destroy(rs);
}

int main(void)
{
    double es[4] = {0.3, 0.5, 0.8, 1.0};
    for (int d = 2; d <= 3; d++)
        for (int k = 0; k < 4; k++) {
            bounce(d, es[k], 1e-3);
            bounce(d, es[k], 1e-4);
        }
    tumbling(1e-3, 100000);
    tumbling(1e-2, 10000);
    pendulum(1e-3, 100);
    pendulum(1e-2, 100);
    tank(2, 24, 3.0);
    tank(2, 96, 3.0);
    tank(3, 27, 3.0);
    return 0;
}
