/* How many OpenMP threads seam's loops use (docs/performance.md, "Threads").
 *
 * libgomp's threads spin at every barrier; when another process holds a
 * core, the spinning thread burns its time slice waiting for a descheduled
 * partner, and two threads on a busy 2-core machine ran 2-20x slower than
 * one (issue 33). The wait policy cannot be changed once libgomp has read
 * its environment (when libseam is loaded), so seam changes the count
 * instead: each step it measures the CPU time that other processes took on
 * this process's cores over the last window, and uses more than one thread
 * only where a core is free for each of them. Every threaded loop gives the
 * same bits with any count, so the choice changes timings, never results.
 *
 * An explicit OMP_NUM_THREADS is honoured as it is: the policy steps aside. */
#ifndef SEAM_THREADS_H
#define SEAM_THREADS_H

#include <stdbool.h>

/* The most threads a loop may use: OMP_NUM_THREADS, or the cores OpenMP
 * found at start-up (1 without OpenMP). Sizes per-thread scratch. */
int seam_threads_max(void);

/* True when the user fixed the count (OMP_NUM_THREADS set): no adapting. */
bool seam_threads_fixed(void);

/* Called at the start of a step, on the thread that runs the step's loops:
 * re-measures the other processes' load when the last window is at least
 * SEAM_THREADS_WINDOW seconds old, and sets this thread's OpenMP count to
 * the policy's choice. Cheap (a clock read) between windows; does nothing
 * inside a parallel region or when the count is fixed. */
void seam_threads_tick(void);

/* The count the policy chose last (seam_threads_max() when fixed). */
int seam_threads_current(void);

/* The rule, on its own: the threads for `cpus` cores of which `others`
 * (in cores, averaged over the window) were busy with other processes, at
 * most `max`. A thread needs a core nearly free (others below
 * SEAM_THREADS_SLACK per extra thread), since one descheduled thread stalls
 * every barrier. */
int seam_threads_choose(int cpus, double others, int max);

/* One measurement: the cores this process may run on, their busy time
 * (all processes, /proc/stat), this process's CPU time and the wall clock,
 * in seconds. False where /proc/stat cannot be read (the count then stays
 * OpenMP's own). */
typedef struct seam_cpu_sample {
    int cpus;
    double busy, own, wall;
} seam_cpu_sample;
bool seam_cpu_sample_take(seam_cpu_sample *s);

/* Other processes' load between two samples, in cores (>= 0). */
double seam_cpu_others(const seam_cpu_sample *a, const seam_cpu_sample *b);

#define SEAM_THREADS_WINDOW 0.3   /* seconds between measurements: 30 ticks of /proc/stat per core */
#define SEAM_THREADS_SLACK 0.3    /* cores of others' load that one more thread tolerates */

#endif
