/* The coupler's log and clock. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "log.h"

double sim_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sim_log(coupler_log *log, seam_log_level level, const char *who, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (level >= SEAM_LOG_ERROR)
        log->errors++;
    char full[2200];
    if (level == SEAM_LOG_WARN)
        snprintf(full, sizeof full, "warning: %s", msg);
    else if (level == SEAM_LOG_ERROR)
        snprintf(full, sizeof full, "error: %s", msg);
    else
        snprintf(full, sizeof full, "%s", msg);
    log->fn(log->ctx, level, who, full);
}
