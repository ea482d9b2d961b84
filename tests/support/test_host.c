#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_host.h"

void test_assert_close(double a, double b, double tol, const char *ea, const char *eb,
                       const char *file, int line)
{
    if (fabs(a - b) <= tol)
        return;
    print_error("%s = %.17g and %s = %.17g differ by %.3g, more than %.3g\n", ea, a, eb, b, fabs(a - b), tol);
    _fail(file, line);
}

static void th_log(void *ctx, seam_log_level level, const char *message)
{
    test_host *th = ctx;
    th->n_messages++;
    if (level >= SEAM_LOG_ERROR) {
        th->n_errors++;
        fprintf(stderr, "[%s] %s\n", th->host.name ? th->host.name : "plugin", message);
    }
    snprintf(th->last, sizeof th->last, "%s", message);
    size_t len = strlen(th->all);
    if (len + 2 < sizeof th->all)
        snprintf(th->all + len, sizeof th->all - len, "%s\n", message);
}

void test_host_init(test_host *th, const char *name, const char *config_path)
{
    memset(th, 0, sizeof *th);
    th->host.abi = SEAM_ABI_VERSION;
    th->host.name = name ? name : "test";
    th->host.config_path = config_path ? config_path : "";
    th->host.ctx = th;
    th->host.log = th_log;
}

void test_host_gravity(test_host *th, double x, double y, double z)
{
    th->gravity[0] = x;
    th->gravity[1] = y;
    th->gravity[2] = z;
    th->host.gravity = th->gravity;
}

int test_host_saw(const test_host *th, const char *needle) { return strstr(th->all, needle) != NULL; }

const char *test_source_path(const char *relative)
{
    static char buf[4096];
    const char *root = getenv("SEAM_SOURCE_ROOT");
    snprintf(buf, sizeof buf, "%s/%s", root ? root : ".", relative);
    return buf;
}

const char *test_tmpdir(const char *name)
{
    static char buf[4096];
    const char *root = getenv("SEAM_BUILD_ROOT");
    char cmd[2 * sizeof buf + 64];
    snprintf(buf, sizeof buf, "%s/tmp/%s", root ? root : ".", name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", buf, buf);
    if (system(cmd) != 0)
        return NULL;
    return buf;
}

double *test_read_vtk_points(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("%s: cannot open", path);
    char word[64];
    *n = 0;
    while (fscanf(f, "%63s", word) == 1 && strcmp(word, "POINTS") != 0)
        ;
    if (fscanf(f, "%zu %63s", n, word) != 2)
        fail_msg("%s: no POINTS", path);
    double *x = malloc((*n ? *n : 1) * 3 * sizeof *x);
    for (size_t k = 0; k < 3 * *n; k++)
        if (fscanf(f, "%lf", &x[k]) != 1)
            fail_msg("%s: point %zu is cut short", path, k / 3);
    fclose(f);
    return x;
}

double test_max_dt(const seam_plugin *p, void *self)
{
    double dt = NAN;
    assert_int_equal(p->max_dt(self, &dt), SEAM_OK);
    return dt;
}
