/* Takahashi's Table 4.1 (thesis ch. 4.5) on fluid_sph: the full-form SPH
 * viscosity integrated explicitly (forward Euler, Andrade et al. 2014) and
 * implicitly (Takahashi's backward-Euler CG, eta = 1e-4) on a viscous block
 * the size of his bunny (5.5k particles): a cube of 18^3 = 5832 particles,
 * s = 0.01 m (kernel radius h = 0.02 m: Andrade's condition 0.1 rho h^2 /
 * (8 mu) is then 5e-6 s at mu = 1000 Pa s, the thesis's explicit step),
 * standing on the floor of a 0.4 m box under gravity, released at rest (his
 * bunny is dropped: here the slump starts at once). Fixed steps; a run
 * "fails" at the first step the plugin refuses (non-finite values, or a
 * particle moving more than a spacing: SEAM_UNSTABLE). Not a test.
 *
 *     ninja -C build bench/fluid_sph/bench_viscosity
 *     OMP_NUM_THREADS=1 ./build/bench/fluid_sph/bench_viscosity [STEPS] [SCAN_STEPS]
 *
 * Prints the thesis's rows (mu 1000: explicit at 5e-6 and 1.3e-3, implicit
 * at 1.3e-3; mu 50000: explicit at 5e-6, implicit at 1e-4), each run STEPS
 * steps (default 40) or to its failure, with the time per step, the part of
 * it the viscosity takes, CG iterations per step and the kinetic energy;
 * then the largest stable explicit step at each mu (steps doubling from a
 * quarter of Andrade's condition, SCAN_STEPS steps each, default 100). The
 * viscosity's time is the step's own viscosity work replayed on the same
 * inputs after the step (the start geometry, u*, the boundary's velocities:
 * the same iterations), timed apart and not counted in the step's time.
 * Times are the thread's CPU time (run it with OMP_NUM_THREADS=1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fluid_sph.h"

/* The thread's CPU time: one thread, and a shared machine's load does not count. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void quiet_log(void *ctx, seam_log_level level, const char *message)
{
    char *last = ctx;
    if (level >= SEAM_LOG_WARN)
        snprintf(last, 512, "%s", message);
}

typedef struct result {
    int steps;               /* committed before the first failure (= asked: none failed) */
    size_t n;
    double ms_step, ms_visc, cg_step, energy;
    char why[512];
} result;

static double kinetic_energy(const fluid_sph *fl)
{
    double e = 0.0;
    for (size_t k = 0; k < 3 * fl->n; k++)
        e += 0.5 * fl->f.m * fl->v_n[k] * fl->v_n[k];
    return e;
}

/* The viscosity work of the last solve again, on its inputs: seconds. */
static double replay_viscosity(fluid_sph *fl, double dt, int *iterations)
{
    const sph_geometry *G = &fl->geo[fl->start];
    size_t nd = 3 * fl->n, nbd = 3 * (fl->nw + fl->ns);
    double *v = malloc(nd * sizeof *v), *fb = calloc(nbd + 1, sizeof *fb);
    memcpy(v, fl->v_pre, nd * sizeof *v);
    sph_solve_stats st = {0};
    double t0 = now();
    if (fl->cfg.visc_explicit)
        sph_viscosity_explicit(&fl->f, G, fl->cfg.mu, fl->cfg.visc_form, dt, fl->vb, v, fb);
    else
        sph_viscosity_solve(&fl->f, G, fl->cfg.mu, fl->cfg.visc_form, dt, fl->vb, fl->cfg.eta_visc, fl->cfg.max_iter, v, fb, &st);
    double t = now() - t0;
    *iterations = st.iterations;
    free(v);
    free(fb);
    return t;
}

static result run(const char *integration, double mu, double dt, int steps, int time_visc)
{
    const seam_plugin *P = seam_plugin_v1();
    result r = {0};
    seam_host host = {.abi = SEAM_ABI_VERSION, .name = "bench", .config_path = "fluid", .ctx = r.why,
                      .log = quiet_log};
    char json[512];
    snprintf(json, sizeof json, "{\"domain\": [0, 0, 0, 0.4, 0.4, 0.4], \"spacing\": 0.01, "
             "\"fill\": [0.11, 0, 0.11, 0.29, 0.18, 0.29], \"viscosity\": %g, \"viscosity_integration\": \"%s\", "
             "\"max_iterations\": 5000}", mu, integration);
    fluid_sph *fl = P->create(P, json, &host);
    seam_interface none = {3, 0, NULL, NULL, NULL, 3, 0, NULL, NULL, 0};
    if (!fl || P->bind(fl, &none) != SEAM_OK) {
        fprintf(stderr, "bench_viscosity: %s\n", r.why);
        exit(1);
    }
    r.n = fl->n;
    double elapsed = 0.0, visc = 0.0;
    long cg = 0;
    for (r.steps = 0; r.steps < steps; r.steps++) {
        seam_step st = {r.steps, r.steps * dt, dt, 0};
        seam_input in = {0, 3, NULL, NULL, NULL};
        seam_output out = {0, 3, NULL, NULL, NULL};
        double t0 = now();
        seam_status s = P->solve(fl, &st, &in, &out);
        elapsed += now() - t0;
        if (s != SEAM_OK)
            break;
        if (time_visc) {
            int it;
            visc += replay_viscosity(fl, dt, &it);
            cg += it;
        }
        if (P->commit(fl) != SEAM_OK)
            break;
    }
    int timed = r.steps + (r.steps < steps);   /* the failed step was timed too */
    r.ms_step = 1e3 * elapsed / timed;
    r.ms_visc = r.steps ? 1e3 * visc / r.steps : 0.0;
    r.cg_step = r.steps ? (double)cg / r.steps : 0.0;
    r.energy = kinetic_energy(fl);
    if (r.steps == steps)
        r.why[0] = '\0';
    P->destroy(fl);
    return r;
}

/* One of the thesis's rows beside ours. */
static void table_row(const char *fig, const char *integration, double mu, double dt, int steps, const char *thesis)
{
    result r = run(integration, mu, dt, steps, 1);
    char outcome[64];
    if (r.steps == steps)
        snprintf(outcome, sizeof outcome, "held %d steps", steps);
    else
        snprintf(outcome, sizeof outcome, "FAILED at step %d", r.steps);
    printf("%-7s %-8s %5zu %8.0f %8.1e  %-20s %9.2f %9.2f %7.1f %10.3e   %s\n", fig, integration, r.n, mu, dt, outcome,
           r.ms_visc, r.ms_step, r.cg_step, r.energy, thesis);
    if (r.steps < steps)
        printf("        (%s)\n", r.why);
    printf("@row mode=table fig=%s integration=%s particles=%zu mu=%g dt=%g steps=%d held=%d ms_visc_step=%.3f "
           "ms_step=%.3f cg_it_step=%.2f kinetic_J=%.4e\n", fig, integration, r.n, mu, dt, r.steps,
           r.steps == steps, r.ms_visc, r.ms_step, r.cg_step, r.energy);
    fflush(stdout);
}

/* The largest explicit step that holds scan_steps steps: doubling from a
 * quarter of Andrade's condition until a run fails. */
static void explicit_scan(double mu, int scan_steps)
{
    double andrade = 0.1 * 1000.0 * 0.02 * 0.02 / (8.0 * mu), held = 0.0, failed = 0.0;
    for (double dt = 0.25 * andrade; dt < 0.1; dt *= 2.0) {
        result r = run("explicit", mu, dt, scan_steps, 0);
        printf("  explicit mu %g dt %.3e (%.2f x Andrade): %s\n", mu, dt, dt / andrade,
               r.steps == scan_steps ? "held" : "failed");
        fflush(stdout);
        if (r.steps < scan_steps) {
            failed = dt;
            break;
        }
        held = dt;
    }
    printf("explicit, mu %g: Andrade's condition %.2e s; held %d steps at %.2e s (%.1f x), failed at %.2e s\n", mu,
           andrade, scan_steps, held, held / andrade, failed);
    printf("@row mode=scan mu=%g andrade_dt=%.4e scan_steps=%d held_dt=%.4e failed_dt=%.4e\n", mu, andrade, scan_steps,
           held, failed);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 40, scan_steps = argc > 2 ? atoi(argv[2]) : 100;
    printf("Takahashi Table 4.1 beside fluid_sph (3D block, s = 0.01 m, h = 0.02 m; %d fixed steps a row; per step: "
           "viscosity ms, total ms, CG iterations; kinetic energy at the end, J)\n", steps);
    printf("%-7s %-8s %5s %8s %8s  %-20s %9s %9s %7s %10s   %s\n", "fig", "integr.", "N", "mu", "dt", "outcome",
           "visc ms", "total ms", "CG it", "E_kin J", "thesis: N, dt, t_visc / t_total s per frame, result");
    table_row("4.3(b)", "explicit", 1000.0, 5e-6, steps, "5.5k, 5e-6, 6.3 / 51.7, plausible");
    table_row("4.3(c)", "explicit", 1000.0, 1.3e-3, steps, "5.5k, 1.3e-3, 0.0 / 0.5, fails");
    table_row("4.3(d)", "implicit", 1000.0, 1.3e-3, steps, "5.5k, 1.3e-3, 15.0 / 15.4, plausible");
    table_row("4.3(e)", "explicit", 50000.0, 5e-6, steps, "5.5k, 5e-6, 2.9 / 40.1, fails");
    table_row("4.3(f)", "implicit", 50000.0, 1e-4, steps, "5.5k, 1e-4, 361.4 / 366.1, plausible");
    if (scan_steps > 0) {
        explicit_scan(1000.0, scan_steps);
        explicit_scan(50000.0, scan_steps);
    }
    return 0;
}
