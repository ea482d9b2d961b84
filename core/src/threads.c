/* The thread policy of seam/threads.h: OpenMP's count per step from the
 * load that other processes put on this process's cores. */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_ISSET */
#include "seam/threads.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Busy jiffies of one /proc/stat "cpuN" line: all but idle and iowait
 * (steal counts: a core the hypervisor gave away is not ours to use). */
static bool busy_jiffies(const char *line, int *cpu, double *busy)
{
    unsigned long long v[8] = {0};
    if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
               &v[6], &v[7]) < 8)
        return false;
    *busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]);   /* user nice system irq softirq steal */
    return true;
}

bool seam_cpu_sample_take(seam_cpu_sample *s)
{
    cpu_set_t mask;
    bool masked = sched_getaffinity(0, sizeof mask, &mask) == 0;
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return false;
    double hz = (double)sysconf(_SC_CLK_TCK), busy = 0.0;
    int cpus = 0;
    char line[512];
    while (fgets(line, sizeof line, f) && strncmp(line, "cpu", 3) == 0) {
        int cpu = -1;
        double b = 0.0;
        if (line[3] == ' ' || !busy_jiffies(line, &cpu, &b))   /* the "cpu" total line covers cores we may not use */
            continue;
        if (masked && (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &mask)))
            continue;
        busy += b;
        cpus++;
    }
    fclose(f);
    if (cpus == 0 || !(hz > 0.0))
        return false;
    *s = (seam_cpu_sample){cpus, busy / hz, clock_s(CLOCK_PROCESS_CPUTIME_ID), clock_s(CLOCK_MONOTONIC)};
    return true;
}

double seam_cpu_others(const seam_cpu_sample *a, const seam_cpu_sample *b)
{
    double wall = b->wall - a->wall;
    if (!(wall > 0.0))
        return 0.0;
    double others = ((b->busy - a->busy) - (b->own - a->own)) / wall;
    return others > 0.0 ? others : 0.0;   /* /proc/stat's ticks lag this process's exact clock */
}

int seam_threads_choose(int cpus, double others, int max)
{
    double free_cores = (double)cpus - others + SEAM_THREADS_SLACK;
    int t = free_cores >= (double)max ? max : (int)floor(free_cores);
    return t < 1 ? 1 : t > max ? max : t;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t window_lock = PTHREAD_MUTEX_INITIALIZER;
static int ceiling = 1;
static bool fixed_count = true;
static bool measuring;            /* /proc/stat could be read at start-up */
static seam_cpu_sample last;      /* the window's start, under window_lock */
static atomic_int chosen = 1;

static void init(void)
{
#ifdef _OPENMP
    ceiling = omp_get_max_threads();
#endif
    fixed_count = getenv("OMP_NUM_THREADS") != NULL || ceiling <= 1;
    measuring = !fixed_count && seam_cpu_sample_take(&last);
    /* one thread until a window has been measured; OpenMP's own count where nothing can be */
    atomic_store(&chosen, measuring ? 1 : ceiling);
}

int seam_threads_max(void)
{
    pthread_once(&once, init);
    return ceiling;
}

bool seam_threads_fixed(void)
{
    pthread_once(&once, init);
    return fixed_count;
}

int seam_threads_current(void)
{
    pthread_once(&once, init);
    return atomic_load(&chosen);
}

void seam_threads_tick(void)
{
    pthread_once(&once, init);
#ifdef _OPENMP
    if (fixed_count || omp_in_parallel())
        return;
    if (measuring && pthread_mutex_trylock(&window_lock) == 0) {   /* another thread measuring: use its choice */
        seam_cpu_sample s;
        if (clock_s(CLOCK_MONOTONIC) - last.wall >= SEAM_THREADS_WINDOW && seam_cpu_sample_take(&s)) {
            atomic_store(&chosen, seam_threads_choose(s.cpus, seam_cpu_others(&last, &s), ceiling));
            last = s;
        }
        pthread_mutex_unlock(&window_lock);
    }
    int c = atomic_load(&chosen);
    if (omp_get_max_threads() != c)
        omp_set_num_threads(c);   /* this thread's count: the one its parallel regions read */
#endif
}
