/* Where the coupler's parts say things: the run's log callback, with the
 * count of errors said (a part that reported one has failed), and the
 * wall clock they time themselves by. */
#ifndef SEAM_COUPLER_LOG_H
#define SEAM_COUPLER_LOG_H

#include "run.h"
#include "seam/log.h"

typedef struct coupler_log {
    seam_sim_log fn;         /* never NULL */
    void *ctx;
    int errors;              /* messages said at error level */
} coupler_log;

/* "warning: ..." / "error: ..." prefixed by level; who: a participant's name, NULL: the coupler. */
void sim_log(coupler_log *log, seam_log_level level, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Seconds of monotonic wall time. */
double sim_now(void);

#endif
