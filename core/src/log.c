#include <stdarg.h>
#include <stdio.h>

#include "seam/log.h"

void seam_logf(const seam_host *host, seam_log_level level, const char *fmt, ...)
{
    if (!host || !host->log)
        return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    host->log(host->ctx, level, msg);
}

const char *seam_status_name(seam_status s)
{
    switch (s) {
    case SEAM_OK: return "ok";
    case SEAM_ERROR: return "error";
    case SEAM_UNSTABLE: return "unstable";
    }
    return "unknown status";
}

const char *seam_role_name(seam_role r)
{
    switch (r) {
    case SEAM_FLUID: return "fluid";
    case SEAM_SOLID: return "solid";
    case SEAM_COUPLED: return "coupled";
    }
    return "unknown role";
}
