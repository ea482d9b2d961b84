/* The run report (report.h): plots from the run's CSV files, and index.html. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "seam/alloc.h"
#include "seam/csv.h"
#include "seam/frame.h"
#include "seam/plot.h"

typedef struct report {
    const char *dir;
    seam_sim_log log;
    void *log_ctx;
    FILE *html;
    int errors;
} report;

static void say(report *r, seam_log_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(report *r, seam_log_level level, const char *fmt, ...)
{
    char msg[2048], full[2200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (level >= SEAM_LOG_ERROR)
        r->errors++;
    snprintf(full, sizeof full, "%s%s", level == SEAM_LOG_ERROR ? "error: " : level == SEAM_LOG_WARN ? "warning: " : "",
             msg);
    if (r->log)
        r->log(r->log_ctx, level, "report", full);
}

static void path_of(const report *r, const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", r->dir, name);
}

/* A table from the run's directory, NULL (and no message) when the file is absent. */
static seam_csv *read_table(report *r, const char *name)
{
    char path[4200], err[4400];
    path_of(r, name, path, sizeof path);
    FILE *probe = fopen(path, "r");
    if (!probe)
        return NULL;
    fclose(probe);
    seam_csv *t = seam_csv_read(path, err, sizeof err);
    if (!t)
        say(r, SEAM_LOG_WARN, "%s", err);
    return t;
}

static void html_text(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

/* Draw plot into DIR/name and show it in the page with a heading; when there
 * is nothing to draw, the page says so and no stale image is left behind. */
static void figure(report *r, const char *heading, const char *name, const seam_plot *plot, const char *alt)
{
    char path[4200], err[4400];
    path_of(r, name, path, sizeof path);
    fprintf(r->html, "<h2>");
    html_text(r->html, heading);
    fprintf(r->html, "</h2>\n");
    seam_plot_result res = seam_plot_write_png(path, plot, err, sizeof err);
    if (res == SEAM_PLOT_OK) {
        seam_plot_frame f;
        seam_plot_layout(plot, &f);
        fprintf(r->html, "<p><img src=\"%s\" width=\"%d\" height=\"%d\" alt=\"", name, f.width, f.height);
        html_text(r->html, alt);
        fprintf(r->html, "\"></p>\n");
        return;
    }
    remove(path);
    if (res == SEAM_PLOT_ERROR)
        say(r, SEAM_LOG_ERROR, "%s", err);
    fprintf(r->html, "<p class=\"none\">Nothing to plot: ");
    html_text(r->html, err + strlen(path) + 2);   /* the reason, without the path */
    fprintf(r->html, ".</p>\n");
}

/* A section without a plot; an image of that name from an earlier run is removed. */
static void missing(report *r, const char *heading, const char *image, const char *what)
{
    char path[4200];
    if (image) {
        path_of(r, image, path, sizeof path);
        remove(path);
    }
    fprintf(r->html, "<h2>%s</h2>\n<p class=\"none\">%s</p>\n", heading, what);
}

/* ---- summary --------------------------------------------------------------- */

static double column_sum(const double *v, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            s += v[i];
    return s;
}

static bool is_time_column(const char *name)
{
    size_t n = strlen(name);
    return n > 2 && strcmp(name + n - 2, "_s") == 0;
}

static void summary_row(report *r, const char *id, const char *label, const char *fmt, double v)
{
    fprintf(r->html, "<tr><th>%s</th><td id=\"%s\">", label, id);
    fprintf(r->html, fmt, v);
    fprintf(r->html, "</td></tr>\n");
}

static void write_summary(report *r, const seam_csv *stats, const seam_csv *summary)
{
    size_t n = seam_csv_rows(stats);
    const double *t = seam_csv_named(stats, "t"), *it = seam_csv_named(stats, "iterations"),
                 *conv = seam_csv_named(stats, "converged");
    fprintf(r->html, "<h2>Summary</h2>\n<table id=\"summary\">\n");
    summary_row(r, "steps", "steps", "%.0f", (double)n);
    if (t && n)
        summary_row(r, "time", "simulated time reached (s)", "%.6g", t[n - 1]);
    if (it && n) {
        double max = 0.0;
        for (size_t i = 0; i < n; i++)
            max = fmax(max, it[i]);
        summary_row(r, "iterations_mean", "coupling iterations per step, mean", "%.2f", column_sum(it, n) / (double)n);
        summary_row(r, "iterations_max", "coupling iterations per step, max", "%.0f", max);
    }
    if (conv) {
        long bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += conv[i] == 0.0;
        summary_row(r, "unconverged", "steps committed unconverged", "%.0f", (double)bad);
    }
    /* Wall time: the run's own record when it left one, else the steps' times added. */
    int sec = summary ? seam_csv_column(summary, "seconds") : -1, name = summary ? seam_csv_column(summary, "name") : -1;
    double wall = NAN;
    for (size_t i = 0; sec >= 0 && name >= 0 && i < seam_csv_rows(summary); i++) {
        const char *nm = seam_csv_text(summary, i, (size_t)name);
        if (nm && strcmp(nm, "wall") == 0)
            wall = seam_csv_values(summary, (size_t)sec)[i];
    }
    if (isfinite(wall))
        summary_row(r, "wall", "wall time (s)", "%.4g", wall);
    else {
        double steps_s = 0.0;
        for (size_t j = 0; j < seam_csv_cols(stats); j++)
            if (is_time_column(seam_csv_name(stats, j)))
                steps_s += column_sum(seam_csv_values(stats, j), n);
        summary_row(r, "wall", "wall time of the steps (s)", "%.4g", steps_s);
    }
    fprintf(r->html, "</table>\n");

    /* Where the time went: per participant from summary.csv, else per stats.csv column. */
    fprintf(r->html, "<h3>Time per participant</h3>\n<table id=\"participants\">\n");
    int role = summary ? seam_csv_column(summary, "role") : -1, plugin = summary ? seam_csv_column(summary, "plugin") : -1,
        solves = summary ? seam_csv_column(summary, "solves") : -1,
        warnings = summary ? seam_csv_column(summary, "warnings") : -1;
    if (sec >= 0 && name >= 0 && role >= 0) {
        fprintf(r->html, "<tr><th>name</th><th>role</th><th>plugin</th><th>seconds</th><th>share of wall</th>"
                "<th>solves</th><th>warnings</th></tr>\n");
        for (size_t i = 0; i < seam_csv_rows(summary); i++) {
            const char *nm = seam_csv_text(summary, i, (size_t)name), *rl = seam_csv_text(summary, i, (size_t)role);
            const char *pl = plugin >= 0 ? seam_csv_text(summary, i, (size_t)plugin) : NULL;
            double s = seam_csv_values(summary, (size_t)sec)[i];
            double k = solves >= 0 ? seam_csv_values(summary, (size_t)solves)[i] : NAN;
            double w = warnings >= 0 ? seam_csv_values(summary, (size_t)warnings)[i] : NAN;
            if (!nm || (rl && strcmp(rl, "wall") == 0))
                continue;
            fprintf(r->html, "<tr><th>");
            html_text(r->html, nm);
            fprintf(r->html, "</th><td>");
            html_text(r->html, rl ? rl : "");
            fprintf(r->html, "</td><td>");
            html_text(r->html, pl ? pl : "");
            fprintf(r->html, "</td><td>%.4g</td><td>", s);
            if (isfinite(wall) && wall > 0)
                fprintf(r->html, "%.1f%%", 100.0 * s / wall);
            fprintf(r->html, "</td><td>");
            if (isfinite(k))
                fprintf(r->html, "%.0f", k);
            fprintf(r->html, "</td><td>");
            if (isfinite(w))
                fprintf(r->html, "%.0f", w);
            fprintf(r->html, "</td></tr>\n");
        }
    } else {
        fprintf(r->html, "<tr><th>phase (stats.csv column)</th><th>seconds, all steps</th></tr>\n");
        for (size_t j = 0; j < seam_csv_cols(stats); j++)
            if (is_time_column(seam_csv_name(stats, j))) {
                fprintf(r->html, "<tr><th>");
                html_text(r->html, seam_csv_name(stats, j));
                fprintf(r->html, "</th><td>%.4g</td></tr>\n", column_sum(seam_csv_values(stats, j), n));
            }
    }
    fprintf(r->html, "</table>\n");
}

/* ---- plots ----------------------------------------------------------------- */

static void plot_iterations(report *r, const seam_csv *stats)
{
    size_t n = seam_csv_rows(stats);
    const double *step = seam_csv_named(stats, "step"), *it = seam_csv_named(stats, "iterations"),
                 *conv = seam_csv_named(stats, "converged");
    if (!step || !it) {
        missing(r, "Coupling iterations per step", "iterations.png", "stats.csv has no step or iterations column.");
        return;
    }
    /* The unconverged steps again, as dots on the line. */
    double *bad = malloc((n ? n : 1) * sizeof *bad);
    size_t n_bad = 0;
    for (size_t i = 0; bad && conv && i < n; i++)
        bad[i] = conv[i] == 0.0 ? (n_bad++, it[i]) : NAN;
    seam_plot_series s[2] = {{"iterations", step, it, n, SEAM_PLOT_STEPS},
                             {"unconverged step", step, bad, n, SEAM_PLOT_POINTS}};
    seam_plot p = {.title = "Coupling iterations per step", .x_label = "step", .y_label = "iterations",
                   .series = s, .n_series = n_bad ? 2 : 1, .y_from_zero = true};
    figure(r, "Coupling iterations per step", "iterations.png", &p, "iterations per step");
    free(bad);
}

static void plot_times(report *r, const seam_csv *stats)
{
    size_t n = seam_csv_rows(stats), cols = seam_csv_cols(stats), k = 0;
    const double *step = seam_csv_named(stats, "step");
    seam_plot_series *s = calloc(cols + 1, sizeof *s);
    char (*labels)[64] = calloc(cols + 1, sizeof *labels);
    double *total = calloc(n ? n : 1, sizeof *total);
    if (!s || !labels || !total || !step) {
        if (step)
            say(r, SEAM_LOG_ERROR, "out of memory");
        free(s), free(labels), free(total);
        return;
    }
    for (size_t j = 0; j < cols; j++) {
        const char *name = seam_csv_name(stats, j);
        if (!is_time_column(name))
            continue;
        snprintf(labels[k], sizeof labels[k], "%.*s", (int)(strlen(name) - 2), name);
        const double *v = seam_csv_values(stats, j);
        for (size_t i = 0; i < n; i++)
            total[i] += isfinite(v[i]) ? v[i] : 0.0;
        s[k] = (seam_plot_series){labels[k], step, v, n, SEAM_PLOT_LINES};
        k++;
    }
    if (k > 1)
        s[k++] = (seam_plot_series){"total", step, total, n, SEAM_PLOT_LINES};
    seam_plot p = {.title = "Wall time per step (log scale)", .x_label = "step", .y_label = "time (s)", .log_y = true,
                   .series = s, .n_series = k};
    figure(r, "Wall time per step", "times.png", &p, "wall time per step by phase");
    free(s), free(labels), free(total);
}

/* The residual of every iteration, each step's iterations spread over [step, step + 1). */
/* One measure of residuals.csv (column) at every iteration, each step's
 * iterations spread over its unit of the x axis, a break between steps. */
/* The goal a measure was held to in each step (stats.csv's column goal), as a
 * level segment over the step's unit of the x axis; NULL when there is none. */
static double *goal_line(const seam_csv *stats, const char *goal, size_t *m, double **xs)
{
    size_t n = stats ? seam_csv_rows(stats) : 0;
    const double *step = stats ? seam_csv_named(stats, "step") : NULL, *g = stats ? seam_csv_named(stats, goal) : NULL;
    bool any = false;
    for (size_t i = 0; g && i < n && !any; i++)
        any = isfinite(g[i]);
    if (!any || !step)
        return NULL;
    double *x = seam_xmalloc_n(3 * n, sizeof *x), *y = seam_xmalloc_n(3 * n, sizeof *y);
    for (size_t i = 0; i < n; i++) {
        x[3 * i] = step[i], x[3 * i + 1] = step[i] + 1.0, x[3 * i + 2] = NAN;
        y[3 * i] = y[3 * i + 1] = g[i], y[3 * i + 2] = NAN;
    }
    *m = 3 * n;
    *xs = x;
    return y;
}

static void plot_measure(report *r, const seam_csv *res, const seam_csv *stats, const char *column, const char *goal,
                         const char *heading, const char *file, const char *series, const char *title,
                         const char *y_label, const char *alt)
{
    size_t n = res ? seam_csv_rows(res) : 0;
    const double *step = res ? seam_csv_named(res, "step") : NULL, *val = res ? seam_csv_named(res, column) : NULL;
    if (!n || !step || !val) {
        missing(r, heading, file, "No residuals.csv rows in this directory.");
        return;
    }
    double *x = malloc(2 * n * sizeof *x), *y = malloc(2 * n * sizeof *y);
    size_t m = 0;
    for (size_t i = 0; x && y && i < n;) {
        size_t end = i;
        while (end < n && step[end] == step[i])
            end++;
        for (size_t k = i; k < end; k++, m++) {
            x[m] = step[i] + (double)(k - i) / (double)(end - i);
            y[m] = val[k];
        }
        x[m] = y[m] = NAN;   /* a break between steps */
        m++;
        i = end;
    }
    if (!x || !y)
        say(r, SEAM_LOG_ERROR, "out of memory");
    else {
        size_t m_goal = 0;
        double *x_goal = NULL, *y_goal = goal_line(stats, goal, &m_goal, &x_goal);
        seam_plot_series s[2] = {{series, x, y, m, SEAM_PLOT_LINES},
                                 {"tolerance (the step's goal)", x_goal, y_goal, m_goal, SEAM_PLOT_LINES}};
        seam_plot p = {.title = title, .x_label = "step (its iterations in order)", .y_label = y_label, .log_y = true,
                       .series = s, .n_series = y_goal ? 2 : 1};
        figure(r, heading, file, &p, alt);
        free(x_goal), free(y_goal);
    }
    free(x), free(y);
}

bool seam_report_measure_get(const seam_csv *measures, size_t k, seam_report_measure *m)
{
    *m = (seam_report_measure){0};
    size_t j = 2 + 2 * k, n = measures ? seam_csv_rows(measures) : 0;   /* after step and iteration */
    const double *step = measures ? seam_csv_named(measures, "step") : NULL;
    if (!step || j + 1 >= seam_csv_cols(measures))
        return false;
    const char *name = seam_csv_name(measures, j), *tol = seam_csv_name(measures, j + 1);
    size_t len = strlen(name);
    if (strncmp(tol, name, len) != 0 || strcmp(tol + len, "_tolerance") != 0)
        return false;   /* not a pair of measures.csv */
    snprintf(m->name, sizeof m->name, "%s", name);
    const double *val = seam_csv_values(measures, j), *goal = seam_csv_values(measures, j + 1);
    m->x = seam_xmalloc_n(2 * n + 1, sizeof *m->x);
    m->value = seam_xmalloc_n(2 * n + 1, sizeof *m->value);
    m->goal = seam_xmalloc_n(2 * n + 1, sizeof *m->goal);
    for (size_t i = 0; i < n;) {   /* each step's iterations spread over its unit of x, a break between steps */
        size_t end = i;
        while (end < n && step[end] == step[i])
            end++;
        for (size_t q = i; q < end; q++, m->count++) {
            m->x[m->count] = step[i] + (double)(q - i) / (double)(end - i);
            m->value[m->count] = val[q];
            m->goal[m->count] = goal[q];
        }
        m->x[m->count] = m->value[m->count] = m->goal[m->count] = NAN;
        m->count++;
        i = end;
    }
    return true;
}

void seam_report_measure_free(seam_report_measure *m)
{
    free(m->x), free(m->value), free(m->goal);
    *m = (seam_report_measure){0};
}

/* Every measure of measures.csv with its tolerance at every iteration: the
 * first position measure as residuals.png, the first load measure as
 * load_changes.png, any other as measure_K.png (K its place in the list,
 * from 1). False when the run wrote no measures.csv (an older run). */
static bool plot_measures(report *r, const seam_csv *measures)
{
    seam_report_measure m;
    bool positions = false, loads = false;
    size_t k = 0;
    for (; seam_report_measure_get(measures, k, &m); k++, seam_report_measure_free(&m)) {
        bool pos = strncmp(m.name, "positions_", 10) == 0;
        bool any = false;
        for (size_t i = 0; i < m.count && !any; i++)
            any = isfinite(m.value[i]);
        if (!any)
            continue;
        char file[64], heading[160], title[200], series[96], tol[112], alt[200];
        if (pos ? !positions : !loads)
            snprintf(file, sizeof file, "%s", pos ? "residuals.png" : "load_changes.png");
        else
            snprintf(file, sizeof file, "measure_%zu.png", k + 1);
        positions = positions || pos, loads = loads || !pos;
        snprintf(heading, sizeof heading, "%s %s, every iteration", pos ? "Interface residual" : "Load change", m.name);
        snprintf(title, sizeof title, "%s %s at every iteration (log scale)", pos ? "Position residual" : "Load change",
                 m.name);
        snprintf(series, sizeof series, "%s", m.name);
        snprintf(tol, sizeof tol, "its tolerance");
        snprintf(alt, sizeof alt, "%s history with its tolerance at every iteration", m.name);
        seam_plot_series sr[2] = {{series, m.x, m.value, m.count, SEAM_PLOT_LINES},
                                  {tol, m.x, m.goal, m.count, SEAM_PLOT_LINES}};
        seam_plot p = {.title = title, .x_label = "step (its iterations in order)",
                       .y_label = pos ? "residual (m)" : "load change (N; N/m in 2D)", .log_y = true, .series = sr,
                       .n_series = 2};
        figure(r, heading, file, &p, alt);
    }
    if (!k)
        return false;
    if (!positions)
        missing(r, "Interface residual, every iteration", "residuals.png", "This run judged no position measure.");
    if (!loads)
        missing(r, "Load change, every iteration", "load_changes.png", "This run judged no load measure.");
    return true;
}

/* Every measure with its tolerance per iteration (measures.csv); for a run
 * without it, both measures residuals.csv records, the positions' residual
 * and the loads' change (NaN in every row when the run judges no load
 * measure: no plot), with each step's goal from stats.csv. */
static void plot_residuals(report *r, const seam_csv *res, const seam_csv *stats, const seam_csv *measures)
{
    if (plot_measures(r, measures))
        return;
    plot_measure(r, res, stats, "residual", "residual_goal", "Interface residual, every iteration", "residuals.png",
                 "position residual", "Interface residual at every iteration (log scale)", "residual (m)",
                 "residual history with its tolerance");
    const double *loads = res ? seam_csv_named(res, "load_change") : NULL;
    bool any = false;
    for (size_t i = 0; loads && i < seam_csv_rows(res) && !any; i++)
        any = isfinite(loads[i]);
    if (any)
        plot_measure(r, res, stats, "load_change", "load_goal", "Load change, every iteration", "load_changes.png",
                     "load change", "Change of the fluid's loads at every iteration (log scale)",
                     "load change (N; N/m in 2D)", "load change history with its tolerance");
    else
        missing(r, "Load change, every iteration", "load_changes.png", "This run judged no load measure.");
}

/* The unit of a fluid field a probe reads, by the name the shipped fluids
 * serve it under (their field(): fluid_mac, fluid_sph); NULL when unknown. */
static const char *field_unit(const char *field)
{
    static const char *const units[][2] = {{"speed", "m/s"},  {"pressure", "Pa"}, {"divergence", "1/s"},
                                           {"level_set", "m"}, {"density", "kg/m³"}, {"temperature", "K"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(field, units[i][0]) == 0)
            return units[i][1];
    return NULL;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* p0 and |volume error| of each enclosed region over time (BPP, regions.csv). */
static void plot_regions(report *r, const seam_csv *reg)
{
    size_t n = reg ? seam_csv_rows(reg) : 0;
    const double *t = reg ? seam_csv_named(reg, "time") : NULL, *id = reg ? seam_csv_named(reg, "region") : NULL,
                 *p0 = reg ? seam_csv_named(reg, "p0") : NULL, *ve = reg ? seam_csv_named(reg, "volume_error") : NULL;
    if (!n || !t || !id || !p0 || !ve) {   /* no enclosed regions in this run: no section */
        char path[4200];
        path_of(r, "regions_p0.png", path, sizeof path);
        remove(path);
        path_of(r, "regions_volume_error.png", path, sizeof path);
        remove(path);
        return;
    }
    double *ids = malloc(n * sizeof *ids), *xs = malloc(n * sizeof *xs), *ps = malloc(n * sizeof *ps),
           *es = malloc(n * sizeof *es);
    seam_plot_series *sp = calloc(n, sizeof *sp), *se = calloc(n, sizeof *se);
    char (*labels)[32] = calloc(n, sizeof *labels);
    if (!ids || !xs || !ps || !es || !sp || !se || !labels) {
        say(r, SEAM_LOG_ERROR, "out of memory");
        goto done;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(id[i]))
            ids[m++] = id[i];
    qsort(ids, m, sizeof *ids, compare_doubles);
    size_t n_regions = 0, used = 0;
    for (size_t i = 0; i < m; i++) {
        if (i > 0 && ids[i] == ids[i - 1])
            continue;
        size_t first = used;
        for (size_t k = 0; k < n; k++)   /* rows of this region, in file order (time order) */
            if (id[k] == ids[i]) {
                xs[used] = t[k];
                ps[used] = p0[k];
                es[used] = fabs(ve[k]);
                used++;
            }
        snprintf(labels[n_regions], sizeof labels[n_regions], "region %.0f", ids[i]);
        sp[n_regions] = (seam_plot_series){labels[n_regions], xs + first, ps + first, used - first, SEAM_PLOT_LINES};
        se[n_regions] = sp[n_regions];
        se[n_regions].y = es + first;
        n_regions++;
    }
    seam_plot pp = {.title = "Pressure constant p0 per enclosed region", .x_label = "time (s)", .y_label = "p0 (Pa)",
                    .series = sp, .n_series = n_regions};
    figure(r, "p0 per enclosed region", "regions_p0.png", &pp, "p0 per region over time");
    seam_plot pe = {.title = "|volume error| per enclosed region (log scale)", .x_label = "time (s)",
                    .y_label = "|volume error| (m³/s; m²/s in 2D)", .log_y = true, .series = se, .n_series = n_regions};
    figure(r, "Volume error per enclosed region", "regions_volume_error.png", &pe,
           "log10 of the volume error per region over time");
done:
    free(ids), free(xs), free(ps), free(es), free(sp), free(se), free(labels);
}

/* ---- probes (probes.csv) --------------------------------------------------- */

/* Column j's probe name and quantity, split at the last '.' ("disc.fy"). */
static bool probe_column(const seam_csv *pr, size_t j, char *name, size_t n_name, const char **what)
{
    const char *col = seam_csv_name(pr, j), *dot = strrchr(col, '.');
    if (!dot || dot == col || (size_t)(dot - col) >= n_name)
        return false;
    snprintf(name, n_name, "%.*s", (int)(dot - col), col);
    *what = dot + 1;
    return true;
}

static bool is_solid_quantity(const char *what)
{
    static const char *const q[] = {"x", "y", "z", "fx", "fy", "fz"};
    for (size_t i = 0; i < 6; i++)
        if (strcmp(what, q[i]) == 0)
            return true;
    return false;
}

/* One plot per fluid field (every point probe of it), and per solid probe
 * one of its mean position and one of its load, all over time. */
static void plot_probes(report *r, const seam_csv *pr)
{
    size_t n = pr ? seam_csv_rows(pr) : 0, cols = pr ? seam_csv_cols(pr) : 0;
    const double *t = pr ? seam_csv_named(pr, "t") : NULL;
    if (!pr)
        return;
    if (!t || !n) {
        missing(r, "Probes", NULL, "probes.csv has no rows.");
        return;
    }
    seam_plot_series *s = calloc(cols, sizeof *s);
    char (*labels)[160] = calloc(cols, sizeof *labels);
    bool *done = calloc(cols, sizeof *done);
    if (!s || !labels || !done) {
        say(r, SEAM_LOG_ERROR, "out of memory");
        free(s), free(labels), free(done);
        return;
    }
    for (size_t j = 0; j < cols; j++) {
        char name[128], other[128], file[300], heading[300];
        const char *what, *w2;
        if (done[j] || !probe_column(pr, j, name, sizeof name, &what))
            continue;
        size_t k = 0;
        if (!is_solid_quantity(what)) {   /* a field: every probe of it */
            for (size_t i = j; i < cols; i++)
                if (!done[i] && probe_column(pr, i, other, sizeof other, &w2) && strcmp(w2, what) == 0) {
                    snprintf(labels[k], sizeof labels[k], "%s", other);
                    s[k] = (seam_plot_series){labels[k], t, seam_csv_values(pr, i), n, SEAM_PLOT_LINES};
                    k++;
                    done[i] = true;
                }
            snprintf(file, sizeof file, "probes_%s.png", what);
            snprintf(heading, sizeof heading, "Probes: %s", what);
            char y_label[200], alt[sizeof heading + sizeof y_label + 16];
            const char *unit = field_unit(what);
            if (unit)
                snprintf(y_label, sizeof y_label, "%s (%s)", what, unit);
            else
                snprintf(y_label, sizeof y_label, "%s (the solver's own units)", what);
            snprintf(alt, sizeof alt, "%s over time, %s", heading, y_label);
            seam_plot p = {.title = heading, .x_label = "time (s)", .y_label = y_label, .series = s, .n_series = k};
            figure(r, heading, file, &p, alt);
            continue;
        }
        for (int force = 0; force < 2; force++) {   /* the solid probe's position, then its load */
            k = 0;
            for (size_t i = j; i < cols; i++)
                if (probe_column(pr, i, other, sizeof other, &w2) && strcmp(other, name) == 0 &&
                    is_solid_quantity(w2) && (w2[0] == 'f') == force) {
                    snprintf(labels[k], sizeof labels[k], "%s", w2);
                    s[k] = (seam_plot_series){labels[k], t, seam_csv_values(pr, i), n, SEAM_PLOT_LINES};
                    k++;
                    done[i] = true;
                }
            snprintf(file, sizeof file, "probes_%s_%s.png", name, force ? "force" : "position");
            snprintf(heading, sizeof heading, "Probe %s: %s", name,
                     force ? "load received, summed over its points" : "mean position of its points");
            seam_plot p = {.title = heading, .x_label = "time (s)",
                           .y_label = force ? "force (N; N/m in 2D)" : "position (m)", .series = s, .n_series = k};
            figure(r, heading, file, &p, heading);
        }
    }
    free(s), free(labels), free(done);
}

/* ---- frames ---------------------------------------------------------------- */

typedef struct frame_file {
    long number;             /* the digits before .png, -1 when none */
    char name[256];
} frame_file;

static int compare_frames(const void *a, const void *b)
{
    const frame_file *x = a, *y = b;
    if (x->number != y->number)
        return (x->number > y->number) - (x->number < y->number);
    return strcmp(x->name, y->name);
}

static void show_frames(report *r)
{
    char path[4200];
    path_of(r, "frames", path, sizeof path);
    DIR *d = opendir(path);
    frame_file *files = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || len >= sizeof files->name || strcmp(e->d_name + len - 4, ".png") != 0)
            continue;
        if (n == cap) {
            frame_file *more = realloc(files, (cap = cap ? 2 * cap : 64) * sizeof *more);
            if (!more)
                break;
            files = more;
        }
        frame_file *f = &files[n++];
        snprintf(f->name, sizeof f->name, "%s", e->d_name);
        size_t k = len - 4;
        while (k > 0 && f->name[k - 1] >= '0' && f->name[k - 1] <= '9')
            k--;
        f->number = k < len - 4 ? strtol(f->name + k, NULL, 10) : -1;
    }
    if (d)
        closedir(d);
    if (n == 0) {
        missing(r, "Frames", NULL, "This run wrote no PNG frames (frames/*.png).");
        free(files);
        return;
    }
    qsort(files, n, sizeof *files, compare_frames);
    size_t pick[3] = {0, n / 2, n - 1};
    const char *what[3] = {"first", "middle", "last"};
    fprintf(r->html, "<h2>Frames</h2>\n<p>%zu frames in frames/; the first, middle and last:</p>\n<div class=\"frames\">\n", n);
    for (int i = 0; i < 3; i++) {
        if (i > 0 && pick[i] == pick[i - 1])
            continue;
        fprintf(r->html, "<figure><img src=\"frames/");
        html_text(r->html, files[pick[i]].name);
        fprintf(r->html, "\" alt=\"%s frame\"><figcaption>%s: ", what[i], what[i]);
        html_text(r->html, files[pick[i]].name);
        fprintf(r->html, "</figcaption></figure>\n");
    }
    fprintf(r->html, "</div>\n");
    free(files);
}

/* ---- the page -------------------------------------------------------------- */

static const char *const STYLE =
    "body{font-family:sans-serif;max-width:880px;margin:2em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;margin:0.5em 0}th,td{border:1px solid #ccc;padding:3px 10px}"
    "td{text-align:right}th{text-align:left;font-weight:normal;background:#f4f4f4}"
    "img{max-width:100%;height:auto}.none{color:#777}"
    ".frames{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}figcaption{color:#555}";

seam_status seam_report_write(const char *dir, seam_sim_log log, void *log_ctx)
{
    report r = {.dir = dir, .log = log, .log_ctx = log_ctx};
    char path[4200], err[4400];
    path_of(&r, "stats.csv", path, sizeof path);
    seam_csv *stats = seam_csv_read(path, err, sizeof err);
    if (!stats) {
        say(&r, SEAM_LOG_ERROR, "%s (a report needs the run's stats.csv)", err);
        return SEAM_ERROR;
    }
    path_of(&r, "index.html", path, sizeof path);
    char tmp[4300];
    if (!(r.html = seam_output_open(path, tmp, sizeof tmp))) {
        say(&r, SEAM_LOG_ERROR, "cannot write %s: %s", path, strerror(errno));
        seam_csv_destroy(&stats);
        return SEAM_ERROR;
    }
    seam_csv *summary = read_table(&r, "summary.csv"), *residuals = read_table(&r, "residuals.csv"),
             *regions = read_table(&r, "regions.csv"), *probes = read_table(&r, "probes.csv"),
             *measures = read_table(&r, "measures.csv");
    const char *base = strrchr(dir, '/') && strrchr(dir, '/')[1] ? strrchr(dir, '/') + 1 : dir;
    fprintf(r.html, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>seam run ");
    html_text(r.html, base);
    fprintf(r.html, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>seam run: ", STYLE);
    html_text(r.html, base);
    fprintf(r.html, "</h1>\n<p>Drawn from the files in this directory: stats.csv%s%s%s%s%s.</p>\n",
            summary ? ", summary.csv" : "", residuals ? ", residuals.csv" : "", measures ? ", measures.csv" : "",
            regions ? ", regions.csv" : "", probes ? ", probes.csv" : "");
    write_summary(&r, stats, summary);
    plot_iterations(&r, stats);
    plot_residuals(&r, residuals, stats, measures);
    plot_times(&r, stats);
    plot_regions(&r, regions);
    plot_probes(&r, probes);
    show_frames(&r);
    fprintf(r.html, "</body>\n</html>\n");
    if (seam_output_close(r.html, path, tmp, 0) != 0)
        say(&r, SEAM_LOG_ERROR, "cannot write %s: %s", path, strerror(errno));
    seam_csv_destroy(&stats);
    seam_csv_destroy(&summary);
    seam_csv_destroy(&residuals);
    seam_csv_destroy(&regions);
    seam_csv_destroy(&probes);
    seam_csv_destroy(&measures);
    if (r.errors)
        return SEAM_ERROR;
    say(&r, SEAM_LOG_INFO, "wrote %s", path);
    return SEAM_OK;
}
