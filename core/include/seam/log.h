/* Logging through the host, for plugins and library code. */
#ifndef SEAM_LOG_H
#define SEAM_LOG_H

#include "seam/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* printf-style message through host->log; does nothing when host or its log is NULL. */
void seam_logf(const seam_host *host, seam_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Name of a status or role, for messages. */
const char *seam_status_name(seam_status s);
const char *seam_role_name(seam_role r);

#ifdef __cplusplus
}
#endif

#endif
