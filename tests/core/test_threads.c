/* The thread policy (seam/threads.h): its rule gives exact counts, the
 * other processes' load comes out of two samples exactly, a sample counts
 * this process's cores and time, and a step's tick sets OpenMP's count to
 * the policy's choice, or leaves an explicit OMP_NUM_THREADS alone (the
 * suite runs this file with and without it). */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "seam/threads.h"

static void test_rule(void **state)
{
    (void)state;
    /* 2 cores: the second thread only with (nearly) a whole core free */
    assert_int_equal(seam_threads_choose(2, 0.0, 2), 2);
    assert_int_equal(seam_threads_choose(2, 0.2, 2), 2);
    assert_int_equal(seam_threads_choose(2, 0.5, 2), 1);
    assert_int_equal(seam_threads_choose(2, 1.0, 2), 1);
    assert_int_equal(seam_threads_choose(2, 8.0, 2), 1);   /* under heavy load, never fewer than one */
    assert_int_equal(seam_threads_choose(2, 0.0, 1), 1);   /* never more than OpenMP allows */
    assert_int_equal(seam_threads_choose(16, 3.5, 16), 12);
    assert_int_equal(seam_threads_choose(4, 0.0, 8), 4);   /* never more than the cores */
}

static void test_others(void **state)
{
    (void)state;
    /* 2 s of wall time: 5 s busy on the cores, 3 of them ours -> 1 core of others' load */
    seam_cpu_sample a = {2, 100.0, 10.0, 50.0}, b = {2, 105.0, 13.0, 52.0};
    assert_true(seam_cpu_others(&a, &b) == 1.0);
    b.busy = 102.0;   /* /proc/stat's ticks behind this process's clock: no negative load */
    assert_true(seam_cpu_others(&a, &b) == 0.0);
    assert_true(seam_cpu_others(&a, &a) == 0.0);   /* no time elapsed: nothing measured */
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_sample(void **state)
{
    (void)state;
    cpu_set_t mask;
    assert_int_equal(sched_getaffinity(0, sizeof mask, &mask), 0);
    seam_cpu_sample a, b;
    assert_true(seam_cpu_sample_take(&a));
    assert_int_equal(a.cpus, CPU_COUNT(&mask));   /* the cores this process may run on, each once */
    volatile double x = 0.0;
    for (double t0 = cpu_now(); cpu_now() - t0 < 0.2;)   /* 0.2 s of this process's CPU time */
        x += 1.0;
    assert_true(seam_cpu_sample_take(&b));
    double own = b.own - a.own, busy = b.busy - a.busy;
    assert_true(own >= 0.2 && b.wall - a.wall >= own - 0.01);
    /* our own time shows in the cores' busy time (a tick of 10 ms per core of slack) */
    assert_true(busy >= own - 0.01 * a.cpus - 0.01);
}

static void test_tick(void **state)
{
    (void)state;
#ifdef _OPENMP
    int start = omp_get_max_threads();
    assert_int_equal(seam_threads_max(), start);
    bool fixed = getenv("OMP_NUM_THREADS") != NULL || start == 1;
    assert_true(seam_threads_fixed() == fixed);
    seam_threads_tick();
    if (fixed) {   /* the user's count, untouched */
        assert_int_equal(omp_get_max_threads(), start);
        assert_int_equal(seam_threads_current(), start);
        return;
    }
    assert_int_equal(seam_threads_current(), 1);   /* one thread until a window is measured */
    assert_int_equal(omp_get_max_threads(), 1);
    struct timespec pause = {0, 350000000};   /* > SEAM_THREADS_WINDOW */
    nanosleep(&pause, NULL);
    seam_threads_tick();
    int c = seam_threads_current();
    assert_true(c >= 1 && c <= start);
    assert_int_equal(omp_get_max_threads(), c);
#pragma omp parallel num_threads(2)
    {
        seam_threads_tick();   /* inside a region: no change */
    }
    assert_int_equal(omp_get_max_threads(), c);
#else
    assert_int_equal(seam_threads_max(), 1);
    assert_true(seam_threads_fixed());
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_others),
        cmocka_unit_test(test_sample),
        cmocka_unit_test(test_tick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
