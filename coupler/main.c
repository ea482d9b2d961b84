/* The `seam` command: run, validate, report, plugins, info. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seam/config.h"
#include "seam/csv.h"
#include "seam/loader.h"
#include "seam/log.h"
#include "keys.h"
#include "precice_serve.h"
#include "report.h"
#include "scheme.h"
#include "simulation.h"
#include "wire.h"

#ifndef SEAM_VERSION
#define SEAM_VERSION "unknown"
#endif

/* SIGINT, SIGTERM: finish the step under way, write its outputs and the
 * summary, exit 128 + the signal; a second signal ends the process at once. */
static volatile sig_atomic_t stop_requested, stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
    stop_requested = 1;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: seam run SCENE [--out DIR] [--end T] [--steps N] [--set KEY=VALUE]... [--quiet] [--log-level L]\n"
            "                      [--progress S] [--no-report] [--force]\n"
            "       seam run --resume DIR [--quiet] [--log-level L] [--progress S]\n"
            "       seam report DIR\n"
            "       seam compare DIR_A DIR_B\n"
            "       seam validate SCENE [--set KEY=VALUE]... [--log-level L] [--allow-any-plugin]\n"
            "       seam plugins\n"
            "       seam info PLUGIN\n"
            "       seam keygen NAME\n"
            "       seam --version\n"
            "\n"
            "  run       run a scene; writes stats.csv, frames and the report to the output directory\n"
            "  report    write DIR/index.html and its plots from a run's files (done by run unless --no-report)\n"
            "  compare   the distance between two runs' interfaces (their interface.csv) over time\n"
            "  validate  check a scene and every participant's configuration without running\n"
            "  plugins   list the plugins found (build tree, install prefix, SEAM_PLUGIN_PATH); exit 1 when a library\n"
            "            there could not be loaded (each named on stderr)\n"
            "  info      describe one plugin, by name or path\n"
            "  keygen    write a CURVE key pair: NAME.key (secret, mode 0600) and NAME.pub\n"
            "\n"
            "  --set coupling.scheme=relaxation   override any key of the scene (JSON value or string)\n"
            "  --force   empty an output directory that holds an earlier run (refused without it)\n"
            "  --quiet   print only warnings and errors (no header, progress or summary of a run that converged)\n"
            "  --log-level L   the least level of message printed: debug, info (default), warning, error\n"
            "  --progress S    stdout not a terminal: a progress line every S seconds (default 5; 0: none)\n"
            "  --resume  continue the run whose checkpoint (output.checkpoint) is in DIR, with its scene and options\n"
            "  --allow-any-plugin   validate: also load plugins outside the search path (runs their code)\n");
}

typedef struct {
    const char *scene;
    const char *out;
    double end;
    long steps;
    bool quiet;
    seam_log_level log_level;   /* messages below it are not printed */
    double progress_s;          /* seconds between progress lines when stdout is no terminal, 0: none */
    bool force;
    const char *resume;
    bool allow_any_plugin;
    const char **sets;
    int n_sets;
} run_args;

static int parse_run_args(int argc, char **argv, bool allow_run_flags, run_args *a)
{
    memset(a, 0, sizeof *a);
    a->log_level = SEAM_LOG_INFO;
    a->progress_s = 5.0;
    bool level_given = false;
    a->sets = calloc((size_t)argc, sizeof *a->sets);
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        const char *set = strcmp(arg, "--set") == 0 ? val : strncmp(arg, "--set=", 6) == 0 ? arg + 6 : NULL;
        if (set && (set[0] == '=' || !strchr(set, '='))) {   /* a wrong command line, not a wrong scene */
            fprintf(stderr, "seam: --set: expected KEY=VALUE, got \"%s\"\n", set);
            return -1;
        }
        if (strcmp(arg, "--set") == 0 && val) {
            a->sets[a->n_sets++] = val;
            i++;
        } else if (set) {
            a->sets[a->n_sets++] = set;
        } else if (allow_run_flags && strcmp(arg, "--out") == 0 && val) {
            a->out = val;
            i++;
        } else if (allow_run_flags && strcmp(arg, "--end") == 0 && val) {
            char *endp;
            a->end = strtod(val, &endp);
            if (*endp || !(a->end > 0) || !isfinite(a->end)) {
                fprintf(stderr, "seam: --end: expected a positive number of seconds, got \"%s\"\n", val);
                return -1;
            }
            i++;
        } else if (allow_run_flags && strcmp(arg, "--steps") == 0 && val) {
            char *endp;
            a->steps = strtol(val, &endp, 10);
            if (*endp || a->steps <= 0) {
                fprintf(stderr, "seam: --steps: expected a positive integer, got \"%s\"\n", val);
                return -1;
            }
            i++;
        } else if (allow_run_flags && strcmp(arg, "--quiet") == 0) {
            a->quiet = true;
        } else if (strcmp(arg, "--log-level") == 0 && val) {
            static const char *const names[] = {"debug", "info", "warning", "error"};
            int k = 0;
            while (k < 4 && strcmp(val, names[k]) != 0)
                k++;
            if (k == 4) {
                fprintf(stderr, "seam: --log-level: expected debug, info, warning or error, got \"%s\"\n", val);
                return -1;
            }
            a->log_level = (seam_log_level)k;
            level_given = true;
            i++;
        } else if (allow_run_flags && strcmp(arg, "--progress") == 0 && val) {
            char *endp;
            a->progress_s = strtod(val, &endp);
            if (*endp || !(a->progress_s >= 0) || !isfinite(a->progress_s)) {
                fprintf(stderr, "seam: --progress: expected seconds >= 0, got \"%s\"\n", val);
                return -1;
            }
            i++;
        } else if (allow_run_flags && strcmp(arg, "--no-report") == 0) {
            a->sets[a->n_sets++] = "output.report=false";   /* the scene key, so both say the same */
        } else if (allow_run_flags && strcmp(arg, "--force") == 0) {
            a->force = true;
        } else if (allow_run_flags && strcmp(arg, "--resume") == 0 && val) {
            a->resume = val;
            i++;
        } else if (!allow_run_flags && strcmp(arg, "--allow-any-plugin") == 0) {
            a->allow_any_plugin = true;
        } else if (arg[0] == '-') {
            fprintf(stderr, "seam: unknown or incomplete option %s\n", arg);
            return -1;
        } else if (!a->scene) {
            a->scene = arg;
        } else {
            fprintf(stderr, "seam: unexpected argument %s\n", arg);
            return -1;
        }
    }
    if (a->quiet && !level_given)
        a->log_level = SEAM_LOG_WARN;
    if (a->resume) {   /* the checkpoint holds the scene and the options the run was started with */
        if (a->scene || a->out || a->end > 0 || a->steps > 0 || a->force || a->n_sets > 0) {
            fprintf(stderr, "seam: --resume takes the scene and its options from the checkpoint: only --quiet, "
                    "--log-level and --progress go with it\n");
            return -1;
        }
        return 0;
    }
    if (!a->scene) {
        fprintf(stderr, "seam: missing SCENE\n");
        return -1;
    }
    return 0;
}

/* Messages of the run on stderr: "seam: [participant] text", those below
 * the least level (ctx, --log-level; NULL: info) left out. */
static void print_log(void *ctx, seam_log_level level, const char *who, const char *message)
{
    const seam_log_level *least = ctx;
    if (level < (least ? *least : SEAM_LOG_INFO))
        return;
    if (who)
        fprintf(stderr, "seam: [%s] %s\n", who, message);
    else
        fprintf(stderr, "seam: %s\n", message);
}

/* The progress bar: simulated time, step, iterations of the last step,
 * elapsed and remaining wall time; drawn only on a terminal, 10 times a second. */
static void draw_progress(void *ctx, const seam_progress *p)
{
    double *last = ctx;
    if (!p->final && p->elapsed_s - *last < 0.1)
        return;
    *last = p->elapsed_s;
    double frac = p->t_end > 0 ? fmin(1.0, p->t / p->t_end) : 1.0;
    double left = seam_progress_eta(p);   /* from this process's pace: right for a resumed run too */
    left = isfinite(left) ? left : 0.0;
    enum { WIDTH = 30 };
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < (int)(frac * WIDTH) ? '#' : '.';
    bar[WIDTH] = '\0';
    printf("\r[%s] t %.4g/%.4g s  step %ld  it %d  %.1f s elapsed  %.1f s left   ", bar, p->t, p->t_end,
           p->step, p->iterations, p->elapsed_s, left);
    if (p->final)
        putchar('\n');
    fflush(stdout);
}

/* Progress when stdout is no terminal (a log file, a pipe): one whole line
 * every so many seconds of wall time, the first after the first step. */
typedef struct progress_lines {
    double every_s, last;
} progress_lines;

static void print_progress_line(void *ctx, const seam_progress *p)
{
    progress_lines *pl = ctx;
    if (p->final || p->step == 0 || (pl->last >= 0 && p->elapsed_s - pl->last < pl->every_s))
        return;
    pl->last = p->elapsed_s;
    double eta = seam_progress_eta(p);
    printf("seam: step %ld  t %.6g/%.6g s (%.1f%%)  dt %.3g s  it %d  elapsed %.1f s  ETA ", p->step, p->t, p->t_end,
           p->t_end > 0 ? 100.0 * fmin(1.0, p->t / p->t_end) : 100.0, p->dt, p->iterations, p->elapsed_s);
    if (isfinite(eta))
        printf("%.1f s\n", eta);
    else
        printf("unknown\n");
    fflush(stdout);
}

static seam_doc *load_scene(const run_args *a)
{
    char err[2048];
    seam_doc *doc = seam_doc_load(a->scene, err, sizeof err);
    if (!doc) {
        fprintf(stderr, "seam: error: %s\n", err);
        return NULL;
    }
    for (int i = 0; i < a->n_sets; i++)
        if (seam_doc_set(doc, a->sets[i], err, sizeof err) != 0) {
            fprintf(stderr, "seam: error: %s\n", err);
            seam_doc_destroy(&doc);
            return NULL;
        }
    return doc;
}

/* --resume DIR: the scene and options the checkpoint in DIR was written with. */
static seam_doc *resume_scene(run_args *a, seam_resume_info *info)
{
    char err[2048];
    if (seam_resume_info_read(a->resume, info, err, sizeof err) != 0) {
        fprintf(stderr, "seam: error: cannot resume: %s\n", err);
        return NULL;
    }
    seam_doc *doc = seam_doc_parse(info->scene, info->origin, err, sizeof err);
    if (!doc) {
        fprintf(stderr, "seam: error: cannot resume: the scene kept in %s/checkpoint.seam: %s\n", a->resume, err);
        return NULL;
    }
    a->scene = info->origin;
    a->out = a->resume;
    a->end = info->end;
    a->steps = info->max_steps;
    return doc;
}

static int cmd_run(int argc, char **argv, bool validate_only)
{
    run_args a;
    if (parse_run_args(argc, argv, !validate_only, &a) != 0) {
        free(a.sets);
        usage(stderr);
        return 2;
    }
    if (!validate_only)   /* solvers free and allocate grid-sized arrays every step (wire.h) */
        seam_wire_tune_malloc();
    seam_resume_info info = {0};
    seam_doc *doc = a.resume ? resume_scene(&a, &info) : load_scene(&a);
    free(a.sets);
    if (!doc) {
        seam_resume_info_free(&info);
        return 1;
    }
    double last_drawn = -1.0;
    progress_lines lines = {a.progress_s, -1.0};
    seam_run_options opts = {.out_dir = a.out, .end = a.end, .max_steps = a.steps, .log = print_log,
                             .log_ctx = &a.log_level,
                             .stop = &stop_requested,
                             .stale_output = a.resume ? SEAM_OUTPUT_OVERWRITE
                                           : a.force ? SEAM_OUTPUT_CLEAN_STALE : SEAM_OUTPUT_REFUSE_STALE,
                             .resume = a.resume != NULL,
                             .plugins_on_path_only = validate_only && !a.allow_any_plugin};
    if (!a.quiet && isatty(STDOUT_FILENO)) {
        opts.progress = draw_progress;
        opts.progress_ctx = &last_drawn;
    } else if (!a.quiet && a.progress_s > 0) {
        opts.progress = print_progress_line;
        opts.progress_ctx = &lines;
    }
    seam_sim *sim = seam_sim_new(doc, &opts);
    if (!sim) {
        fprintf(stderr, "seam: %s: not valid\n", a.scene);
        seam_doc_destroy(&doc);
        seam_resume_info_free(&info);
        return 1;
    }
    int rc = 0;
    char desc[1024];
    seam_sim_describe(sim, desc, sizeof desc);
    if (validate_only) {
        printf("%s: ok: %s\n", a.scene, desc);
    } else {
        if (!a.quiet)
            printf("seam: %s: %s\n", a.scene, desc);
        if (!a.quiet && seam_sim_description(sim))
            printf("seam: %s\n", seam_sim_description(sim));
        struct sigaction sa = {.sa_handler = on_stop, .sa_flags = SA_RESETHAND};
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        seam_status st = seam_sim_run(sim);
        seam_outcome outcome = seam_sim_summary(sim)->outcome;
        if (outcome == SEAM_RUN_UNCONVERGED)
            fprintf(stderr, "seam: %s: finished, but %ld steps were committed unconverged (exit status 3)\n", a.scene,
                    seam_sim_summary(sim)->not_converged);
        if (!a.quiet || outcome != SEAM_RUN_CONVERGED)
            seam_sim_print_summary(sim, st == SEAM_OK ? stdout : stderr);
        rc = seam_outcome_exit_status(outcome, stop_signal);
    }
    seam_sim_destroy(&sim);
    seam_doc_destroy(&doc);
    seam_resume_info_free(&info);
    return rc;
}

static int cmd_report(const char *dir)
{
    if (seam_report_write(dir, print_log, NULL) != SEAM_OK)
        return 1;
    printf("%s/index.html\n", dir);
    return 0;
}

static void list_one(void *ctx, const char *path, const seam_plugin *p, const char *error)
{
    int *bad = ctx;
    if (p)
        printf("%-18s %-8s abi %-3u %s\n", p->name, seam_role_name(p->role), p->abi, path);
    else {
        fprintf(stderr, "seam: skipped %s\n", error);
        (*bad)++;
    }
}

static int cmd_plugins(void)
{
    const char **dirs;
    size_t n = seam_plugin_search_path(&dirs);
    printf("search path:");
    for (size_t i = 0; i < n; i++)
        printf(" %s", dirs[i]);
    printf("\n");
    int bad = 0;
    seam_plugin_scan(list_one, &bad);
    if (bad)
        fprintf(stderr, "seam: %d librar%s on the search path could not be loaded\n", bad, bad == 1 ? "y" : "ies");
    return bad ? 1 : 0;
}

/* Two runs of the same scene (partitioned and monolithic, two schemes):
 * their interface.csv files must hold the same points at the same times;
 * prints, at every time both reached, the largest and the mean distance
 * between the same point in the two. Exit 0, or 1 when the files cannot be
 * read or do not match point for point. */
static int cmd_compare(const char *a_dir, const char *b_dir)
{
    char path[2][4200], err[1024];
    seam_csv *t[2];
    const char *dirs[2] = {a_dir, b_dir};
    for (int k = 0; k < 2; k++) {
        snprintf(path[k], sizeof path[k], "%s/interface.csv", dirs[k]);
        if (!(t[k] = seam_csv_read(path[k], err, sizeof err))) {
            fprintf(stderr, "seam: compare: %s (a run writes it with output.interface: true)\n", err);
            if (k)
                seam_csv_destroy(&t[0]);
            return 1;
        }
    }
    int rc = 0;
    size_t cols = seam_csv_cols(t[0]);
    if (cols != seam_csv_cols(t[1]) || cols < 3 || strcmp(seam_csv_name(t[0], 0), "step") != 0 ||
        strcmp(seam_csv_name(t[0], 1), "t") != 0) {
        fprintf(stderr, "seam: compare: %s has %zu columns and %s %zu: not the same interface\n", path[0], cols,
                path[1], seam_csv_cols(t[1]));
        rc = 1;
    }
    for (size_t j = 0; rc == 0 && j < cols; j++)
        if (strcmp(seam_csv_name(t[0], j), seam_csv_name(t[1], j)) != 0) {
            fprintf(stderr, "seam: compare: column %zu is %s in %s and %s in %s\n", j + 1, seam_csv_name(t[0], j),
                    path[0], seam_csv_name(t[1], j), path[1]);
            rc = 1;
        }
    /* columns p0_x[, p0_y[, p0_z]], p1_x, ...: point 0's give the dimension */
    int dim = 0;
    while (rc == 0 && 2 + (size_t)dim < cols && strncmp(seam_csv_name(t[0], 2 + (size_t)dim), "p0_", 3) == 0)
        dim++;
    if (rc == 0 && dim == 0) {
        fprintf(stderr, "seam: compare: %s: column 3 is %s, not p0_x\n", path[0], seam_csv_name(t[0], 2));
        rc = 1;
    }
    if (rc == 0 && (cols - 2) % (size_t)dim != 0) {
        fprintf(stderr, "seam: compare: %s: %zu position columns are not points of dimension %d\n", path[0],
                cols - 2, dim);
        rc = 1;
    }
    if (rc == 0) {
        size_t points = (cols - 2) / (size_t)dim, rows = 0, ia = 0, ib = 0;
        const double *ta = seam_csv_values(t[0], 1), *tb = seam_csv_values(t[1], 1);
        double worst = 0.0, worst_t = 0.0;
        printf("# %s against %s: %zu points of dimension %d\n# t (s), largest distance (m), mean distance (m)\n",
               a_dir, b_dir, points, dim);
        while (ia < seam_csv_rows(t[0]) && ib < seam_csv_rows(t[1])) {
            double scale = fmax(1.0, fmax(fabs(ta[ia]), fabs(tb[ib])));
            if (ta[ia] < tb[ib] - 1e-12 * scale) {   /* times one run reached and the other did not */
                ia++;
                continue;
            }
            if (tb[ib] < ta[ia] - 1e-12 * scale) {
                ib++;
                continue;
            }
            double largest = 0.0, sum = 0.0;
            for (size_t p = 0; p < points; p++) {
                double d2 = 0.0;
                for (int k = 0; k < dim; k++) {
                    size_t j = 2 + p * (size_t)dim + (size_t)k;
                    double d = seam_csv_values(t[0], j)[ia] - seam_csv_values(t[1], j)[ib];
                    d2 += d * d;
                }
                largest = fmax(largest, sqrt(d2));
                sum += sqrt(d2);
            }
            printf("%.9g,%.6e,%.6e\n", ta[ia], largest, sum / (double)points);
            if (largest > worst || rows == 0) {
                worst = largest;
                worst_t = ta[ia];
            }
            rows++;
            ia++;
            ib++;
        }
        if (rows == 0) {
            fprintf(stderr, "seam: compare: %s and %s share no time\n", path[0], path[1]);
            rc = 1;
        } else
            printf("# %zu common times; largest distance %.6e m at t = %.9g s\n", rows, worst, worst_t);
    }
    seam_csv_destroy(&t[0]);
    seam_csv_destroy(&t[1]);
    return rc;
}

static int cmd_info(const char *name)
{
    char err[2048];
    seam_library *lib = seam_library_open(name, err, sizeof err);
    if (!lib) {
        fprintf(stderr, "seam: %s\n", err);
        return 1;
    }
    const seam_plugin *p = seam_library_plugin(lib);
    printf("name:     %s\nrole:     %s\nabi:      %u\npath:     %s\nsummary:  %s\n", p->name,
           seam_role_name(p->role), p->abi, seam_library_path(lib), p->summary ? p->summary : "");
    /* The entries it provides, from plugin.h's entry list: the required
     * ones, the optional ones, and those it lacks (with the ABI that
     * introduced each one newer than the plugin). */
    size_t n_entries;
    const seam_entry_info *entries = seam_plugin_entries(&n_entries);
    const char *labels[3] = {"required:", "optional:", "absent:  "};
    for (int kind = 0; kind < 3; kind++) {
        printf("%s", labels[kind]);
        for (size_t i = 0; i < n_entries; i++) {
            int has = seam_plugin_has(p, &entries[i]);
            /* describe is required of a solid, bind of a fluid (plugin.h's "need") */
            int need = entries[i].need;
            int required = need == SEAM_NEED_ALL || (need == SEAM_NEED_SOLID && p->role == SEAM_SOLID) ||
                           (need == SEAM_NEED_FLUID && p->role == SEAM_FLUID);
            if ((kind == 0 && has && required) || (kind == 1 && has && !required) || (kind == 2 && !has)) {
                printf(" %s", entries[i].name);
                if (kind == 2 && entries[i].abi > p->abi)
                    printf(" (abi %u)", entries[i].abi);
            }
        }
        printf("\n");
    }
    if (!p->capabilities) {   /* otherwise they depend on an instance's configuration */
        char caps[256];
        seam_caps_describe(seam_plugin_caps(p, NULL), caps, sizeof caps);
        printf("capabilities: %s (from its entries)\n", caps);
    }
    printf("schemes this seam offers:");
    for (size_t i = 0; i < seam_scheme_count(); i++)
        printf(" %s", seam_scheme_at(i)->name);
    printf("\n");
    seam_library_close(&lib);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") == 0 && argc > 2 && seam_precice_is_config(argv[2]))   /* a preCICE configuration */
        return seam_precice_main(argc - 2, argv + 2);
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 2, argv + 2, false);
    if (strcmp(cmd, "validate") == 0)
        return cmd_run(argc - 2, argv + 2, true);
    if (strcmp(cmd, "report") == 0 && argc == 3)
        return cmd_report(argv[2]);
    if (strcmp(cmd, "compare") == 0 && argc == 4)
        return cmd_compare(argv[2], argv[3]);
    if (strcmp(cmd, "plugins") == 0 && argc == 2)
        return cmd_plugins();
    if (strcmp(cmd, "info") == 0 && argc == 3)
        return cmd_info(argv[2]);
    if (strcmp(cmd, "keygen") == 0 && argc == 3) {
        char err[1024];
        if (seam_keygen(argv[2], err, sizeof err) != 0) {
            fprintf(stderr, "seam: keygen: %s\n", err);
            return 1;
        }
        printf("wrote %s.key (keep it secret) and %s.pub\n", argv[2], argv[2]);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("seam %s (plugin ABI %u)\n", SEAM_VERSION, SEAM_ABI_VERSION);
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    usage(stderr);
    return 2;
}
