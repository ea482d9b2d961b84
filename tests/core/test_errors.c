/* The failure contract (docs/errors.md): allocation failure logs one line
 * and aborts; every other failure is a value with its message. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "seam/alloc.h"
#include "seam/checkpoint.h"
#include "seam/config.h"
#include "seam/csv.h"
#include "seam/neighbours.h"
#include "seam/sparse.h"
#include "test_host.h"

typedef void (*doomed_fn)(void);

/* Run fn in a child; its stderr into out (n bytes); whether it died of SIGABRT. */
static int dies_of_abort(doomed_fn fn, char *out, size_t n)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);   /* an expected abort leaves no core file */
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        fn();
        _exit(0);   /* reached only if fn returned: the test fails */
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t k;
    while (got + 1 < n && (k = read(fds[0], out + got, n - 1 - got)) > 0)
        got += (size_t)k;
    out[got] = '\0';
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static volatile size_t huge = SIZE_MAX / 2 + 2;   /* volatile: the compiler must not see the overflow coming */
static void *sink;

static void overflowing_malloc_n(void) { sink = seam_xmalloc_n(huge, 2); }
static const int overflow_line = __LINE__ - 1;

static void overflowing_realloc_n(void)
{
    void *p = seam_xmalloc(16);
    sink = seam_xrealloc_n(p, 4, huge);
}

static void overflowing_new_n(void) { sink = SEAM_NEW_N(double, huge); }

/* n * size past SIZE_MAX is refused as calloc refuses it: one line naming
 * the request and the call's place, then abort (never a short block). */
static void test_count_overflow_aborts(void **state)
{
    (void)state;
    char out[512], want[256];
    assert_true(dies_of_abort(overflowing_malloc_n, out, sizeof out));
    snprintf(want, sizeof want, "seam: out of memory: %zu x 2 bytes at ", (size_t)huge);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want, "test_errors.c:%d\n", overflow_line);
    assert_non_null(strstr(out, want));
    assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);   /* one line */

    assert_true(dies_of_abort(overflowing_realloc_n, out, sizeof out));
    snprintf(want, sizeof want, "seam: out of memory: 4 x %zu bytes at ", (size_t)huge);
    assert_non_null(strstr(out, want));

    assert_true(dies_of_abort(overflowing_new_n, out, sizeof out));
    snprintf(want, sizeof want, "seam: out of memory: %zu x %zu bytes at ", (size_t)huge, sizeof(double));
    assert_non_null(strstr(out, want));
}

/* Zero-size requests give unique pointers, never NULL; realloc keeps the
 * contents; the string copies are whole or cut at n. */
static void test_wrappers_return_memory(void **state)
{
    (void)state;
    char *a = seam_xmalloc(0), *b = seam_xmalloc_n(0, 8);
    double *z = SEAM_NEW_N(double, 0);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(z);
    assert_ptr_not_equal(a, b);
    int *v = SEAM_NEW_N(int, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(v[i], 0);
    v[3] = 7;
    v = seam_xrealloc_n(v, 1000, sizeof *v);
    assert_int_equal(v[3], 7);
    v = seam_xrealloc(v, 0);
    assert_non_null(v);
    char *s = seam_xstrdup("fluid"), *t = seam_xstrndup("fluid", 3), *u = seam_xstrndup("ab", 9);
    assert_string_equal(s, "fluid");
    assert_string_equal(t, "flu");
    assert_string_equal(u, "ab");
    free(a), free(b), free(z), free(v), free(s), free(t), free(u);
}

/* Failures that are not about memory stay values, with their messages. */
static void test_failures_are_values(void **state)
{
    (void)state;
    char err[512];
    const char *dir = test_tmpdir("core_errors");

    char path[600];
    snprintf(path, sizeof path, "%s/absent.csv", dir);
    assert_null(seam_csv_read(path, err, sizeof err));
    assert_non_null(strstr(err, "absent.csv: cannot open: "));
    snprintf(path, sizeof path, "%s/empty.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    assert_null(seam_csv_read(path, err, sizeof err));
    assert_non_null(strstr(err, "empty.csv: empty file (no header)"));

    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "s");
    seam_ckpt_put_u64(w, 1);
    snprintf(path, sizeof path, "%s/no/such/dir/c.ckpt", dir);
    assert_int_equal(seam_ckpt_writer_save(w, path, err, sizeof err), SEAM_ERROR);
    assert_non_null(strstr(err, "cannot create"));
    snprintf(path, sizeof path, "%s/c.ckpt", dir);
    assert_int_equal(seam_ckpt_writer_save(w, path, err, sizeof err), SEAM_ERROR);   /* spent by the first */
    assert_non_null(strstr(err, "saved or taken already"));
    size_t n = 1;
    assert_null(seam_ckpt_writer_take(w, &n));
    assert_int_equal(n, 0);
    seam_ckpt_writer_destroy(&w);

    seam_doc *doc = seam_doc_parse("{\"a\": 1}", "d.json", err, sizeof err);
    assert_int_equal(seam_doc_set(doc, "a=2", err, sizeof err), SEAM_OK);
    assert_int_equal(seam_doc_set(doc, "=2", err, sizeof err), SEAM_ERROR);
    assert_string_equal(err, "--set =2: expected KEY=VALUE");
    seam_doc_destroy(&doc);

    double X[2] = {0.0, 1.0};
    assert_null(seam_neighbours_new(0, 2, X, 1.0));
    assert_null(seam_neighbours_new(1, 2, X, -1.0));
    assert_null(seam_csr_from_triplets(NULL));
    seam_triplets_add(NULL, 0, 0, 1.0);   /* adding to no list does nothing */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_overflow_aborts),
        cmocka_unit_test(test_wrappers_return_memory),
        cmocka_unit_test(test_failures_are_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
