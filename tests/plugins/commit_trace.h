/* For tests that look at when participants commit (tests/protocol): the
 * piston plugins' keys "commit_delay" (s, slept in every commit) and
 * "commit_log" (a file: each commit appends its start and end on
 * CLOCK_MONOTONIC, which every process on the machine shares, in seconds). */
#ifndef TEST_PLUGINS_COMMIT_TRACE_H
#define TEST_PLUGINS_COMMIT_TRACE_H

#include <math.h>
#include <stdio.h>
#include <time.h>

#include "seam/config.h"

typedef struct commit_trace {
    double delay;
    char log[1024];   /* "": none */
} commit_trace;

static inline void commit_trace_read(seam_cfg *c, const seam_range_table *keys, commit_trace *t)
{
    t->delay = seam_cfg_key(c, keys, "commit_delay", 0.0, 0);
    t->log[0] = '\0';
    seam_cfg_file(c, "commit_log", NULL, t->log, sizeof t->log, 0);
}

static inline double commit_trace_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Call at the start of a commit; returns the start time for commit_trace_end. */
static inline double commit_trace_begin(const commit_trace *t)
{
    double t0 = commit_trace_now();
    if (t->delay > 0) {
        struct timespec ts = {(time_t)t->delay, (long)(1e9 * (t->delay - floor(t->delay)))};
        while (nanosleep(&ts, &ts) != 0)
            continue;   /* interrupted: sleep what is left */
    }
    return t0;
}

/* False when the log cannot be written (the commit then fails). */
static inline bool commit_trace_end(const commit_trace *t, double t0)
{
    if (!t->log[0])
        return true;
    FILE *f = fopen(t->log, "a");
    if (!f)
        return false;
    bool ok = fprintf(f, "%.9f %.9f\n", t0, commit_trace_now()) > 0;
    return fclose(f) == 0 && ok;
}

#endif
