#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "seam/config.h"
#include "test_host.h"
#include "test_scene.h"

static void capture(void *ctx, seam_log_level level, const char *who, const char *message)
{
    test_run *r = ctx;
    (void)level;
    size_t len = strlen(r->log);
    snprintf(r->log + len, sizeof r->log - len, "[%s] %s\n", who ? who : "seam", message);
}

double *test_read_csv(const char *path, size_t skip_cols, size_t *rows, size_t *cols)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap_line = 1 << 16;
    char *line = malloc(cap_line);
    if (!fgets(line, (int)cap_line, f)) {
        free(line);
        fclose(f);
        return NULL;
    }
    size_t ncol = 1;
    for (char *p = line; *p; p++)
        ncol += *p == ',';
    *cols = ncol - skip_cols;
    size_t cap = 256, n = 0;
    double *data = malloc(cap * (*cols ? *cols : 1) * sizeof *data);
    while (fgets(line, (int)cap_line, f)) {
        if (n == cap) {
            cap *= 2;
            data = realloc(data, cap * (*cols ? *cols : 1) * sizeof *data);
        }
        char *p = line;
        for (size_t c = 0; c < ncol; c++) {
            double v = strtod(p, &p);
            if (c >= skip_cols)
                data[n * *cols + c - skip_cols] = v;
            if (*p == ',')
                p++;
        }
        n++;
    }
    free(line);
    fclose(f);
    *rows = n;
    return data;
}

test_run *test_run_scene(const char *name, const char *json_text, const char *scene_path, const char *const *sets)
{
    test_run *r = calloc(1, sizeof *r);
    char err[2048];
    seam_doc *doc = json_text ? seam_doc_parse(json_text, name, err, sizeof err)
                              : seam_doc_load(test_source_path(scene_path), err, sizeof err);
    if (!doc)
        fail_msg("%s", err);
    if (seam_doc_set(doc, "output.interface=true", err, sizeof err) != 0 ||
        seam_doc_set(doc, "output.report=false", err, sizeof err) != 0)   /* many runs: plots only where tested */
        fail_msg("%s", err);
    for (int i = 0; sets && sets[i]; i++)
        if (seam_doc_set(doc, sets[i], err, sizeof err) != 0)
            fail_msg("%s", err);
    snprintf(r->out, sizeof r->out, "%s", test_tmpdir(name));
    seam_run_options opts = {.out_dir = r->out, .log = capture, .log_ctx = r};
    seam_sim *sim = seam_sim_new(doc, &opts);
    if (!sim) {
        fprintf(stderr, "%s", r->log);
        fail_msg("scene %s did not load", name);
    }
    r->status = seam_sim_run(sim);
    r->summary = *seam_sim_summary(sim);
    for (size_t i = 0; i < r->summary.n_participants && i < 8; i++) {
        snprintf(r->names[i], sizeof r->names[i], "%s", r->summary.participants[i].name);
        r->solves[i] = r->summary.participants[i].solves;
        r->warnings[i] = r->summary.participants[i].warnings;
    }
    r->summary.participants = NULL;   /* owned by the simulation */
    seam_sim_destroy(&sim);
    seam_doc_destroy(&doc);

    char path[1200];
    size_t rows, cols;
    snprintf(path, sizeof path, "%s/interface.csv", r->out);
    double *all = test_read_csv(path, 1, &rows, &cols);   /* drop `step`, keep t */
    if (!all)
        fail_msg("%s: no interface.csv", name);
    r->rows = rows;
    r->n = cols - 1;
    r->t = malloc((rows ? rows : 1) * sizeof *r->t);
    r->X = malloc((rows ? rows : 1) * (r->n ? r->n : 1) * sizeof *r->X);
    for (size_t i = 0; i < rows; i++) {
        r->t[i] = all[i * cols];
        memcpy(r->X + i * r->n, all + i * cols + 1, r->n * sizeof *r->X);
    }
    free(all);
    snprintf(path, sizeof path, "%s/stats.csv", r->out);
    double *stats = test_read_csv(path, 0, &rows, &cols);
    r->dt = malloc((rows ? rows : 1) * sizeof *r->dt);
    for (size_t i = 0; stats && i < rows; i++)
        r->dt[i] = stats[i * cols + 2];
    free(stats);
    return r;
}

typedef struct {
    char *buf;
    size_t n;
} sink;

static void to_sink(void *ctx, seam_log_level level, const char *who, const char *message)
{
    sink *k = ctx;
    (void)level;
    size_t len = strlen(k->buf);
    if (len + 1 < k->n)
        snprintf(k->buf + len, k->n - len, "[%s] %s\n", who ? who : "seam", message);
}

int test_scene_refused(const char *json_text, const char *scene_path, const char *const *sets, char *log, size_t n)
{
    char err[2048];
    log[0] = '\0';
    seam_doc *doc = json_text ? seam_doc_parse(json_text, "scene.json", err, sizeof err)
                              : seam_doc_load(test_source_path(scene_path), err, sizeof err);
    if (!doc) {
        snprintf(log, n, "%s\n", err);
        return 1;
    }
    for (int i = 0; sets && sets[i]; i++)
        if (seam_doc_set(doc, sets[i], err, sizeof err) != 0) {
            snprintf(log, n, "%s\n", err);
            seam_doc_destroy(&doc);
            return 1;
        }
    sink k = {log, n};
    seam_run_options opts = {.out_dir = test_tmpdir("refused"), .log = to_sink, .log_ctx = &k};
    seam_sim *sim = seam_sim_new(doc, &opts);
    int refused = sim == NULL;
    seam_sim_destroy(&sim);
    seam_doc_destroy(&doc);
    return refused;
}

void test_run_free(test_run *r)
{
    if (!r)
        return;
    free(r->t);
    free(r->X);
    free(r->dt);
    free(r);
}

double *test_run_probes(const test_run *r, size_t *rows, size_t *cols)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/probes.csv", r->out);
    double *p = test_read_csv(path, 0, rows, cols);
    assert_non_null(p);
    return p;
}

double test_run_ring_area(const test_run *r, size_t i, size_t first, size_t n)
{
    const double *X = r->X + i * r->n + 2 * first;
    double a = 0.0;
    for (size_t k = 0; k < n; k++) {
        size_t l = (k + 1) % n;
        a += X[2 * k] * X[2 * l + 1] - X[2 * l] * X[2 * k + 1];
    }
    return 0.5 * fabs(a);
}
