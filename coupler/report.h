/* The run report: plots drawn from a run's files (stats.csv, residuals.csv,
 * regions.csv, summary.csv, frames/) and DIR/index.html showing them. It
 * reads only files, so it serves a finished run (`seam report DIR`) as well
 * as the end of `seam run`. */
#ifndef SEAM_COUPLER_REPORT_H
#define SEAM_COUPLER_REPORT_H

#include <stdbool.h>

#include "seam/csv.h"
#include "seam/plugin.h"
#include "run.h"

/* Write into dir: iterations.png, residuals.png and load_changes.png (a
 * position and a load measure with its tolerance at every iteration, from
 * measures.csv; residuals.csv and stats.csv for an older run), measure_K.png
 * for each further measure, times.png, regions_p0.png and regions_volume_error.png (when
 * regions.csv has rows), and index.html. Messages go to log (who "report").
 * SEAM_ERROR when dir has no readable stats.csv or a file cannot be written. */
seam_status seam_report_write(const char *dir, seam_sim_log log, void *log_ctx);

/* One convergence measure as the report plots it (measures.csv): at every
 * iteration its value ||d|| and the tolerance it was held to, each step's
 * iterations spread over [step, step + 1) of x, a NaN break between steps. */
typedef struct seam_report_measure {
    char name[64];           /* the column's: "loads_2_relative" */
    double *x, *value, *goal;
    size_t count;
} seam_report_measure;

/* Measure k (from 0) of a run's measures.csv into m; false (m empty) when
 * there is none. Free m with seam_report_measure_free. */
bool seam_report_measure_get(const seam_csv *measures, size_t k, seam_report_measure *m);
void seam_report_measure_free(seam_report_measure *m);

#endif
