/* A seam_host for tests: records every message, echoes errors to stderr. */
#ifndef SEAM_TEST_HOST_H
#define SEAM_TEST_HOST_H

#include <stddef.h>

#include "seam/plugin.h"

/* cmocka 1.1's assert_float_equal converts its arguments to float, so a
 * tolerance below float precision is silently not enforced. Every test that
 * includes this header (after cmocka.h) compares in double instead. */
void test_assert_close(double a, double b, double tol, const char *ea, const char *eb,
                       const char *file, int line);
#ifdef assert_float_equal
#undef assert_float_equal
#endif
#define assert_float_equal(a, b, tol) \
    test_assert_close((double)(a), (double)(b), (double)(tol), #a, #b, __FILE__, __LINE__)

typedef struct test_host {
    seam_host host;          /* hand &th->host to create() */
    int n_messages;
    int n_errors;
    char last[1024];         /* the last message */
    char all[16384];         /* every message, one per line (truncated) */
    double gravity[3];       /* the scene's gravity, once test_host_gravity set it */
} test_host;

/* p->max_dt(self), asserting that it succeeds. */
double test_max_dt(const seam_plugin *p, void *self);

/* Fill th; name/config_path may be NULL. */
void test_host_init(test_host *th, const char *name, const char *config_path);
/* Name a scene gravity (x y z) in th's host, as a coupler does; after
 * test_host_init, before create. */
void test_host_gravity(test_host *th, double x, double y, double z);
/* Whether any message so far contains needle. */
int test_host_saw(const test_host *th, const char *needle);
/* Absolute path of a file in the source tree (SEAM_SOURCE_ROOT), static buffer. */
const char *test_source_path(const char *relative);
/* A fresh empty directory under the build tree's tmp/, static buffer. */
const char *test_tmpdir(const char *name);
/* The POINTS of a legacy ASCII VTK file: malloc'ed n x 3, their number in
 * *n; fails the test when the file cannot be read. */
double *test_read_vtk_points(const char *path, size_t *n);

#endif
