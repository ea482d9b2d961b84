/* fluid_sph in its own process: examples/sph_ball.json (the disc at density
 * ratio 0.5, iqn-ils) run with "fluid": {"process": "separate"} writes every
 * output the in-process run writes, with the same bytes: the interface
 * trajectory (%.17g), the residuals, the step statistics (the wall-time
 * columns excepted), the fluid's VTK frames (written by the server) and the
 * PNG pictures (its field, sent over the wire). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "test_scene.h"

/* The whole file, NUL-terminated; *size its length. Fails the test when it cannot be read. */
static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* Keep the first `cols` columns of each CSV line (drops the wall times). */
static void keep_columns(char *text, int cols)
{
    char *out = text;
    for (char *p = text; *p;) {
        int c = 0;
        while (*p && *p != '\n') {
            if (*p == ',' && ++c >= cols) {
                while (*p && *p != '\n')
                    p++;
                break;
            }
            *out++ = *p++;
        }
        if (*p == '\n')
            *out++ = *p++;
    }
    *out = '\0';
}

/* Every file of a/sub has the same bytes in b/sub; returns how many were compared. */
static int same_files(const char *a, const char *b, const char *sub)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/%s", a, sub);
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("no output folder %s", dir);
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char pa[1600], pb[1600];
        snprintf(pa, sizeof pa, "%s/%s/%s", a, sub, e->d_name);
        snprintf(pb, sizeof pb, "%s/%s/%s", b, sub, e->d_name);
        size_t na, nb;
        char *x = slurp(pa, &na), *y = slurp(pb, &nb);
        if (na != nb || memcmp(x, y, na) != 0)
            fail_msg("%s/%s differs out of process (%zu against %zu bytes)", sub, e->d_name, nb, na);
        free(x);
        free(y);
        count++;
    }
    closedir(d);
    return count;
}

static void test_same_bytes_out_of_process(void **state)
{
    (void)state;
    /* The coupler starts $SEAM_SERVE: a wrapper that leaves a mark, so the
     * separate run is seen to have gone through a server. */
    char dir[1024], wrapper[1200], mark[1200];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("sph_ball_wrapper"));
    snprintf(wrapper, sizeof wrapper, "%s/serve.sh", dir);
    snprintf(mark, sizeof mark, "%s/served", dir);
    FILE *w = fopen(wrapper, "w");
    assert_non_null(w);
    fprintf(w, "#!/bin/sh\necho \"$@\" > '%s'\nexec '%s/protocol/seam-serve' \"$@\"\n", mark, getenv("SEAM_BUILD_ROOT"));
    fclose(w);
    assert_int_equal(chmod(wrapper, 0700), 0);
    assert_int_equal(setenv("SEAM_SERVE", wrapper, 1), 0);
    const char *const inline_sets[] = {"time.end=0.2", NULL};
    const char *const separate_sets[] = {"time.end=0.2", "fluid.process=separate", NULL};
    test_run *a = test_run_scene("sph_ball_inline", NULL, "examples/sph_ball.json", inline_sets);
    test_run *b = test_run_scene("sph_ball_separate", NULL, "examples/sph_ball.json", separate_sets);
    if (a->status != SEAM_OK || b->status != SEAM_OK)
        fail_msg("inline: %s\nseparate: %s", a->log, b->log);
    size_t nm;
    char *served = slurp(mark, &nm);
    assert_non_null(strstr(served, "--plugin fluid_sph"));
    free(served);
    assert_true(a->summary.steps >= 20);
    assert_int_equal(a->summary.steps, b->summary.steps);
    assert_int_equal(a->summary.iterations, b->summary.iterations);
    assert_int_equal(a->rows, b->rows);
    assert_int_equal(a->n, b->n);
    assert_memory_equal(a->X, b->X, a->rows * a->n * sizeof(double));
    const char *files[] = {"interface.csv", "residuals.csv", "stats.csv"};
    for (size_t f = 0; f < 3; f++) {
        char pa[1200], pb[1200];
        snprintf(pa, sizeof pa, "%s/%s", a->out, files[f]);
        snprintf(pb, sizeof pb, "%s/%s", b->out, files[f]);
        size_t na, nb;
        char *x = slurp(pa, &na), *y = slurp(pb, &nb);
        if (f == 2) {   /* step,t,dt,iterations,residual,converged; then wall times */
            keep_columns(x, 6);
            keep_columns(y, 6);
        }
        assert_string_equal(x, y);
        free(x);
        free(y);
    }
    int vtk = same_files(a->out, b->out, "fluid"), png = same_files(a->out, b->out, "frames");
    printf("%ld steps, %ld iterations: interface, residuals, step statistics, %d fluid frame files and %d pictures "
           "identical out of process\n", a->summary.steps, a->summary.iterations, vtk, png);
    assert_true(vtk >= 5);   /* frames at 0, 0.05, ..., 0.2 s and the .pvd */
    assert_true(png >= 5);
    test_run_free(a);
    test_run_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes_out_of_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
