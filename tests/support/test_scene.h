/* Running a scene from a test: load it (a file or JSON text), apply
 * overrides, run it to the end with every message captured, and read back
 * its interface trajectory and per-step statistics. */
#ifndef SEAM_TEST_SCENE_H
#define SEAM_TEST_SCENE_H

#include <stddef.h>

#include "simulation.h"
#include "test_host.h"

typedef struct test_run {
    seam_status status;          /* of seam_sim_run */
    seam_summary summary;        /* participants left NULL; see names and solves */
    char names[8][64];
    long solves[8];
    long warnings[8];            /* each participant's messages at warning level */
    char out[1024];              /* the output directory */
    char log[65536];             /* every message: "[who] text\n" */
    size_t rows;                 /* rows of interface.csv: the start, then one a step */
    size_t n;                    /* interface values per row (points x dim) */
    double *t;                   /* rows: time of each row */
    double *X;                   /* rows x n: committed interface positions */
    double *dt;                  /* rows - 1: the step sizes */
} test_run;

/* Run scene `name` from json_text (or the file scene_path when json_text is
 * NULL, relative to the source tree), with the NULL-terminated overrides
 * `sets`; output goes to a fresh build/tmp/<name>. interface.csv is written
 * by forcing output.interface; output.report is turned off. Fails the test when the scene does not load. */
test_run *test_run_scene(const char *name, const char *json_text, const char *scene_path, const char *const *sets);
void test_run_free(test_run *r);

/* Area enclosed by the closed polygon of 2D interface points first..first+n-1
 * in row i (the shoelace formula). */
double test_run_ring_area(const test_run *r, size_t i, size_t first, size_t n);

/* The run's probes.csv (malloc'ed rows x cols, the step and time columns first); fails the test
 * when it cannot be read. */
double *test_run_probes(const test_run *r, size_t *rows, size_t *cols);

/* Load (not run) a scene that must be refused: returns 1 when the
 * simulation could not be built, with every message in log (size n). */
int test_scene_refused(const char *json_text, const char *scene_path, const char *const *sets, char *log, size_t n);

/* Numbers of a CSV with a header line, skip_cols leading columns dropped;
 * malloc'ed rows x cols, NULL when the file cannot be read. */
double *test_read_csv(const char *path, size_t skip_cols, size_t *rows, size_t *cols);

#endif
