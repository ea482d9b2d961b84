/* What a run leaves on disk: one observer called once per committed step
 * (stats.csv, interface.csv, regions.csv with the pressure projection,
 * frames: each participant's write_output and the PNG picture), and the residual of every iteration (residuals.csv). */
#ifndef SEAM_COUPLER_OUTPUTS_H
#define SEAM_COUPLER_OUTPUTS_H

#include <stdbool.h>
#include <stdio.h>

#include "seam/picture.h"
#include "seam/plugin.h"
#include "scheme.h"

struct seam_sim;

typedef struct sim_outputs {
    char *dir;               /* NULL: no output at all */
    bool stats, interface, frames;
    bool report;             /* plots and index.html at the end of the run (report.h), with stats */
    char *picture_field;     /* fluid field drawn into PNG frames (2D), NULL: none */
    bool picture_explicit;   /* named in the scene, so a failure is an error */
    seam_picture_opts picture_opts;   /* range fixed by the scene or from the first non-uniform frame */
    bool picture_surface;    /* the scene lets the free surface be drawn (output.picture.surface) */
    bool has_surface;        /* ... and the fluid has a level_set field to draw it from */
    FILE *stats_csv, *residuals_csv, *interface_csv, *regions_csv;
    int frame;
    double next_frame;
} sim_outputs;

/* One committed step, as the observer records it. */
typedef struct sim_step_record {
    long step;               /* its index */
    double t, dt;            /* time reached, step size */
    int iterations;
    double residual;         /* the last position residual (m); 0 for a coupled plugin */
    bool converged;
    double fluid_s, solid_s, coupler_s;
    seam_scheme_report scheme;   /* columns and modes now; filtered, restarts, truncated: this step's */
} sim_step_record;

/* Check the picture can be drawn (2D, a fluid with that field). */
bool outputs_check_picture(struct seam_sim *sim);
/* Create the directory and the CSV files; write frame 0. */
seam_status outputs_open(struct seam_sim *sim);
/* A row of residuals.csv for one iteration (loads: the load change, NaN when none). */
void outputs_residual(struct seam_sim *sim, long step, int iteration, double residual, double loads);
/* The observer: the step's rows, and a frame when one is due. */
seam_status outputs_step(struct seam_sim *sim, const sim_step_record *rec);
/* At the end of a run (wall time known): summary.csv, then the report. */
void outputs_finish(struct seam_sim *sim);
void outputs_close(sim_outputs *out);

#endif
