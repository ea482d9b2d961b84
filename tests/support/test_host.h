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
/* The points of a VTK file, legacy ASCII (a path ending in .vtk: its POINTS)
 * or XML (test_read_vtk_xml "Points"): malloc'ed n x 3, their number in *n;
 * fails the test when the file cannot be read. */
double *test_read_vtk_points(const char *path, size_t *n);
/* One array of a VTK XML file with appended raw zlib-compressed data and
 * UInt64 headers, read without VTK: the DataArray named `name` ("Points": the
 * one inside <Points>), every block inflated and checked against the block
 * header, Float64 values copied bit for bit and Float32 / Int64 / UInt8 ones converted.
 * malloc'ed; the number of values (components included) in *n. Fails the
 * test on any inconsistency; NULL when the file has no such array. */
double *test_read_vtk_xml(const char *path, const char *name, size_t *n);
/* The same array's NumberOfComponents attribute (1 when absent), -1 when the array is absent. */
int test_vtk_xml_components(const char *path, const char *name);

#endif
