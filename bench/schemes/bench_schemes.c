/* Iterations per time step of each coupling scheme on the 1D flexible tube
 * (for kappa = c/u0 and N, at tau = u0 dt/L = 0.01) and on the added-mass
 * piston (for m_a/m_s), as in Akbay Table 2.1; and the share of wall time
 * spent in the coupling layer. Constant relaxation is tried with a ladder of
 * factors and the best converging one is reported.
 *
 *   ninja -C build bench/schemes/bench_schemes && build/bench/schemes/bench_schemes [tube|piston] [quick]
 *   build/bench/schemes/bench_schemes solvers     (RMI: Woodbury against GMRES, reuse of past steps)
 *   build/bench/schemes/bench_schemes share [REPS] (coupling-layer share on the tube, N = 1000, best of REPS)
 *   ... with KEYS   (KEYS added to every coupling object, e.g. with '"predictor": "quartic"')
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/config.h"
#include "simulation.h"

typedef struct {
    int ok;
    double mean;
    int max;
    double wall_s, coupler_s;
    long steps;
} outcome;

static void quiet(void *ctx, seam_log_level level, const char *who, const char *message)
{
    (void)ctx; (void)level; (void)who; (void)message;
}

static outcome run(const char *scene)
{
    outcome o = {0};
    char err[2048];
    seam_doc *doc = seam_doc_parse(scene, "bench", err, sizeof err);
    if (!doc) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    seam_run_options opts = {.out_dir = "/tmp/seam_bench_schemes", .log = quiet};
    seam_sim *sim = seam_sim_new(doc, &opts);
    if (!sim) {
        fprintf(stderr, "scene did not load:\n%s\n", scene);
        exit(1);
    }
    seam_status st = seam_sim_run(sim);
    const seam_summary *s = seam_sim_summary(sim);
    o.ok = st == SEAM_OK && s->not_converged == 0;
    o.mean = s->steps ? (double)s->iterations / (double)s->steps : 0.0;
    o.max = s->max_iterations;
    o.steps = s->steps;
    o.wall_s = s->wall_s;
    o.coupler_s = s->coupler_s;
    seam_sim_destroy(&sim);
    seam_doc_destroy(&doc);
    return o;
}

#define NSCHEMES 7
static const char *const names[NSCHEMES] = {"relaxation", "aitken", "iqn-ils", "iqn-ils", "rmi", "rmi", "rmi"};
static const char *const labels[NSCHEMES] = {"relaxation (best w)", "aitken", "iqn-ils", "iqn-ils q=4", "rmi",
                                             "rmi q=4", "rmi gmres"};
static const char *const extras[NSCHEMES] = {"", ", \"relaxation\": 0.05", "", ", \"reuse\": 4", "",
                                             ", \"reuse\": 4", ", \"rmi_solver\": \"gmres\""};
static const double omegas[] = {1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001};
#define NOMEGAS (sizeof omegas / sizeof omegas[0])

/* Constant relaxation for every factor of the ladder, per case (Table 2.1's P columns). */
static outcome ladder[16][NOMEGAS];
static char ladder_title[16][64];
static int n_ladder;

static void print_ladder(const char *first)
{
    printf("\nConstant relaxation by factor w (mean iterations per step, '-' = diverged or not converged)\n\n| %s |", first);
    for (size_t w = 0; w < NOMEGAS; w++)
        printf(" w=%g |", omegas[w]);
    printf("\n|---|");
    for (size_t w = 0; w < NOMEGAS; w++)
        printf("---|");
    printf("\n");
    for (int i = 0; i < n_ladder; i++) {
        printf("| %s |", ladder_title[i]);
        for (size_t w = 0; w < NOMEGAS; w++)
            if (ladder[i][w].ok)
                printf(" %.1f |", ladder[i][w].mean);
            else
                printf(" - |");
        printf("\n");
    }
    n_ladder = 0;
}

static const char *coupling_fmt =
    "\"coupling\": {\"scheme\": \"%s\", \"tolerance\": 1e-6, \"convergence\": \"relative\", "
    "\"max_iterations\": 3000, \"on_nonconvergence\": \"fail\"%s%s}";
/* `with KEYS`: more keys for every scheme's coupling object (", KEYS"), e.g. '"predictor": "quartic"' */
static char with_keys[512];
static const char *output = "\"output\": {\"stats\": false, \"interface\": false, \"frames\": false}";

typedef void (*scene_fn)(char *buf, size_t n, const char *coupling, const double *param);

static void tube_scene(char *buf, size_t n, const char *coupling, const double *param)
{
    double kappa = param[0], N = param[1], u0 = 0.1, L = 10.0, dt = 0.01 * L / u0;
    snprintf(buf, n,
             "{\"time\": {\"end\": %.17g, \"dt\": %.17g}, %s,\n"
             " \"fluid\": {\"plugin\": \"tube_fluid\", \"cells\": %d, \"length\": %g, \"velocity\": %g},\n"
             " \"solids\": [{\"plugin\": \"tube_solid\", \"cells\": %d, \"wave_speed\": %.17g}], %s}",
             param[2] * dt, dt, coupling, (int)N, L, u0, (int)N, kappa * u0, output);
}

static void piston_scene(char *buf, size_t n, const char *coupling, const double *param)
{
    double ratio = param[0];
    snprintf(buf, n,
             "{\"time\": {\"end\": 2.0, \"dt\": 0.01}, %s,\n"
             " \"fluid\": {\"plugin\": \"piston_fluid\", \"added_mass\": %.17g},\n"
             " \"solids\": [{\"plugin\": \"piston_solid\", \"mass\": 1.0, \"stiffness\": 40, \"position\": 0.1}], %s}",
             coupling, ratio, output);
}

static void cell(const outcome *o, char *buf, size_t n)
{
    if (o->ok)
        snprintf(buf, n, "%.2f / %d", o->mean, o->max);
    else
        snprintf(buf, n, "-");
}

/* row: the case as key=value pairs for its @row lines (bench/record.py) */
static void bench_case(scene_fn make, const char *title, const char *row, const double *param)
{
    static char scene[8192], coupling[1024];
    outcome res[NSCHEMES];
    double best_omega = 0;
    res[0] = (outcome){0};
    for (size_t w = 0; w < NOMEGAS; w++) {
        char extra[64];
        snprintf(extra, sizeof extra, ", \"relaxation\": %g", omegas[w]);
        snprintf(coupling, sizeof coupling, coupling_fmt, "relaxation", extra, with_keys);
        make(scene, sizeof scene, coupling, param);
        outcome o = run(scene);
        ladder[n_ladder][w] = o;
        if (o.ok && (!res[0].ok || o.mean < res[0].mean)) {
            res[0] = o;
            best_omega = omegas[w];
        }
    }
    for (int s = 1; s < NSCHEMES; s++) {
        snprintf(coupling, sizeof coupling, coupling_fmt, names[s], extras[s], with_keys);
        make(scene, sizeof scene, coupling, param);
        res[s] = run(scene);
    }
    snprintf(ladder_title[n_ladder], sizeof ladder_title[n_ladder], "%s", title);
    n_ladder++;
    char c[64];
    printf("| %-18s |", title);
    cell(&res[0], c, sizeof c);
    if (res[0].ok)
        printf(" %s (w=%g) |", c, best_omega);
    else
        printf(" - |");
    for (int s = 1; s < NSCHEMES; s++) {
        cell(&res[s], c, sizeof c);
        printf(" %s |", c);
    }
    printf("\n");
    for (int s = 0; s < NSCHEMES; s++) {
        if (res[s].ok) {
            printf("@row table=schemes %s scheme='%s' mean_it=%.3f max_it=%d coupler_us_it=%.2f coupler_share=%.3f",
                   row, labels[s], res[s].mean, res[s].max, 1e6 * res[s].coupler_s / (res[s].mean * res[s].steps),
                   res[s].coupler_s / res[s].wall_s);
            if (s == 0)   /* the best converging factor of the ladder */
                printf(" relaxation=%g", best_omega);
            printf("\n");
        } else
            printf("@row table=schemes %s scheme='%s' converged=0\n", row, labels[s]);
    }
    printf("| %-18s |", "  coupling layer");
    for (int s = 0; s < NSCHEMES; s++)
        if (res[s].ok)
            printf(" %.0f%%, %.1f us/it |", 100.0 * res[s].coupler_s / res[s].wall_s,
                   1e6 * res[s].coupler_s / (res[s].mean * res[s].steps));
        else
            printf(" - |");
    printf("\n");
    fflush(stdout);
}

/* Coupling-layer cost per iteration, the least of `reps` runs (the machine is shared). */
static outcome best_of(const char *scene, int reps)
{
    outcome best = run(scene);
    for (int i = 1; i < reps; i++) {
        outcome o = run(scene);
        if (o.ok && o.coupler_s < best.coupler_s)
            best = o;
    }
    return best;
}

/* RMI's two solvers and the reuse of past steps, on the tube. */
static void bench_rmi_solvers(int reps)
{
    static char scene[8192], coupling[1024];
    printf("RMI solver and reuse on the tube (tau = 0.01, 100 steps), best of %d runs\n\n", reps);
    printf("| kappa, N | scheme | reuse q | mean / max it | coupling layer us/it | coupling share |\n|---|---|---|---|---|---|\n");
    const double kappas[] = {10, 100};
    const char *const variants[][2] = {{"rmi", ", \"rmi_solver\": \"woodbury\""},
                                       {"rmi", ", \"rmi_solver\": \"gmres\""},
                                       {"iqn-ils", ""}};
    const char *const vnames[] = {"rmi woodbury", "rmi gmres", "iqn-ils"};
    const int qs[] = {0, 1, 2, 4, 8};
    for (int k = 0; k < 2; k++)
        for (int v = 0; v < 3; v++)
            for (int qi = 0; qi < 5; qi++) {
                char extra[256];
                snprintf(extra, sizeof extra, "%s, \"reuse\": %d", variants[v][1], qs[qi]);
                snprintf(coupling, sizeof coupling, coupling_fmt, variants[v][0], extra, with_keys);
                double param[3] = {kappas[k], 1000, 100};
                tube_scene(scene, sizeof scene, coupling, param);
                outcome o = best_of(scene, reps);
                if (!o.ok) {
                    printf("| %g, 1000 | %s | %d | - | - | - |\n", kappas[k], vnames[v], qs[qi]);
                    continue;
                }
                printf("| %g, 1000 | %s | %d | %.2f / %d | %.1f | %.0f%% |\n", kappas[k], vnames[v], qs[qi], o.mean,
                       o.max, 1e6 * o.coupler_s / (o.mean * (double)o.steps), 100.0 * o.coupler_s / o.wall_s);
                printf("@row table=rmi_solvers kappa=%g N=1000 scheme='%s' reuse=%d mean_it=%.3f max_it=%d"
                       " coupler_us_it=%.2f coupler_share=%.3f\n", kappas[k], vnames[v], qs[qi], o.mean, o.max,
                       1e6 * o.coupler_s / (o.mean * (double)o.steps), o.coupler_s / o.wall_s);
                fflush(stdout);
            }
    printf("\n");
}

/* The coupling layer's cost per iteration against the solvers', tube N = 1000,
 * each scheme with its default settings (relaxation with the best factor of
 * Table 1). The machine is shared: the least coupling and the least solver
 * time per iteration over `reps` runs are taken separately, and the share
 * is coupling / (coupling + solvers) of those. */
static void bench_share(int reps)
{
    static char scene[8192], coupling[1024];
    printf("Coupling-layer share on the tube (N = 1000, tau = 0.01, 100 steps), least of %d runs\n\n", reps);
    printf("| kappa | scheme | mean / max it | solvers us/it | coupling layer us/it | coupling share |\n"
           "|---|---|---|---|---|---|\n");
    const double kappas[] = {10, 100, 1000};
    const char *const best_w[] = {", \"relaxation\": 0.02", ", \"relaxation\": 1", ", \"relaxation\": 1"};
    const char *const schemes[] = {"relaxation", "aitken", "iqn-ils", "rmi"};
    for (int k = 0; k < 3; k++)
        for (int v = 0; v < 4; v++) {
            snprintf(coupling, sizeof coupling, coupling_fmt, schemes[v],
                     v == 0 ? best_w[k] : v == 1 ? ", \"relaxation\": 0.05" : "", with_keys);
            double param[3] = {kappas[k], 1000, 100};
            tube_scene(scene, sizeof scene, coupling, param);
            double c_min = INFINITY, s_min = INFINITY;
            outcome o = {0};
            for (int rep = 0; rep < reps; rep++) {
                o = run(scene);
                if (!o.ok)
                    break;
                double its = o.mean * (double)o.steps;
                c_min = fmin(c_min, 1e6 * o.coupler_s / its);
                s_min = fmin(s_min, 1e6 * (o.wall_s - o.coupler_s) / its);
            }
            if (!o.ok) {
                printf("| %g | %s | - | - | - | - |\n", kappas[k], schemes[v]);
                continue;
            }
            printf("| %g | %s | %.2f / %d | %.1f | %.2f | %.1f%% |\n", kappas[k], schemes[v], o.mean, o.max, s_min,
                   c_min, 100.0 * c_min / (c_min + s_min));
            printf("@row table=share kappa=%g N=1000 scheme=%s reps=%d mean_it=%.3f max_it=%d solvers_us_it=%.2f"
                   " coupler_us_it=%.2f coupler_share=%.4f\n", kappas[k], schemes[v], reps, o.mean, o.max, s_min,
                   c_min, c_min / (c_min + s_min));
            fflush(stdout);
        }
    printf("\n");
}

static void header(const char *first)
{
    printf("| %-18s |", first);
    for (int s = 0; s < NSCHEMES; s++)
        printf(" %s |", labels[s]);
    printf("\n|---|");
    for (int s = 0; s < NSCHEMES; s++)
        printf("---|");
    printf("\n");
}

int main(int argc, char **argv)
{
    int quick = 0, tube = 1, piston = 1, solvers = 0, share = 0, reps = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "solvers") == 0)
            solvers = 1, tube = 0, piston = 0;
        else if (strcmp(argv[i], "share") == 0) {
            share = 1, tube = 0, piston = 0;
            if (i + 1 < argc && atoi(argv[i + 1]) > 0)
                reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "with") == 0 && i + 1 < argc)
            snprintf(with_keys, sizeof with_keys, ", %s", argv[++i]);
        else if (strcmp(argv[i], "tube") == 0)
            piston = 0;
        else if (strcmp(argv[i], "piston") == 0)
            tube = 0;
        else {
            fprintf(stderr, "usage: %s [tube|piston|solvers|share [REPS]] [quick] [with KEYS]\n", argv[0]);
            return 2;
        }
    }
    if (with_keys[0])
        printf("every coupling object with%s\n", with_keys + 1);
    printf("mean / max iterations per step; relative tolerance 1e-6; '-' = diverged or not converged in 3000.\n"
           "coupling layer: its share of wall time and microseconds per iteration (scheme, V, judge).\n\n");
    if (solvers)
        bench_rmi_solvers(3);
    if (share)
        bench_share(reps);
    if (tube) {
        printf("Tube, tau = 0.01, %s steps\n\n", quick ? "20" : "100");
        header("kappa, N");
        const double kappas[] = {10, 100, 1000};
        const double Ns[] = {100, 1000};
        for (int k = 0; k < 3; k++)
            for (int m = 0; m < 2; m++) {
                double param[3] = {kappas[k], Ns[m], quick ? 20 : 100};
                char title[64], row[96];
                snprintf(title, sizeof title, "%g, %g", kappas[k], Ns[m]);
                snprintf(row, sizeof row, "case=tube kappa=%g N=%g steps=%g", kappas[k], Ns[m], param[2]);
                bench_case(tube_scene, title, row, param);
            }
        print_ladder("kappa, N");
        printf("\n");
    }
    if (piston) {
        printf("Piston, k = 40, dt = 0.01, 200 steps\n\n");
        header("m_a/m_s");
        const double ratios[] = {0.1, 1, 10, 100};
        for (int r = 0; r < 4; r++) {
            double param[1] = {ratios[r]};
            char title[64], row[64];
            snprintf(title, sizeof title, "%g", ratios[r]);
            snprintf(row, sizeof row, "case=piston added_mass_ratio=%g steps=200", ratios[r]);
            bench_case(piston_scene, title, row, param);
        }
        print_ladder("m_a/m_s");
    }
    return 0;
}
