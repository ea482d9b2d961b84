/* The run report: plots drawn from a run's files (stats.csv, residuals.csv,
 * regions.csv, summary.csv, frames/) and DIR/index.html showing them. It
 * reads only files, so it serves a finished run (`seam report DIR`) as well
 * as the end of `seam run`. */
#ifndef SEAM_COUPLER_REPORT_H
#define SEAM_COUPLER_REPORT_H

#include "seam/plugin.h"
#include "run.h"

/* Write into dir: iterations.png, residuals.png (when residuals.csv has
 * rows), times.png, regions_p0.png and regions_volume_error.png (when
 * regions.csv has rows), and index.html. Messages go to log (who "report").
 * SEAM_ERROR when dir has no readable stats.csv or a file cannot be written. */
seam_status seam_report_write(const char *dir, seam_sim_log log, void *log_ctx);

#endif
