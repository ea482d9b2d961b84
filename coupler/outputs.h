/* What a run leaves on disk: one observer called once per committed step
 * (stats.csv, interface.csv, regions.csv with the pressure projection, probes.csv,
 * frames: each participant's write_output and the PNG picture), and the residual of every iteration (residuals.csv). */
#ifndef SEAM_COUPLER_OUTPUTS_H
#define SEAM_COUPLER_OUTPUTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bpp.h"
#include "convergence.h"
#include "interface.h"
#include "log.h"
#include "participant.h"
#include "run.h"
#include "seam/checkpoint.h"
#include "seam/picture.h"
#include "seam/plugin.h"
#include "probes.h"
#include "scheme.h"

/* The CSV files, in the order of outputs_positions. */
enum { SIM_CSV_STATS, SIM_CSV_RESIDUALS, SIM_CSV_INTERFACE, SIM_CSV_REGIONS, SIM_CSV_PROBES, SIM_CSV_MEASURES,
       SIM_CSV_COUNT };

/* One CSV file: the rows of the step under way are kept in memory and
 * reach the file in one write when the step is done, so a run killed or
 * out of disk space leaves whole steps of whole rows. */
typedef struct sim_csv {
    FILE *rows;              /* the rows not yet written (open_memstream); NULL: the run does not write it */
    char *buf;               /* the stream's buffer and length, as its last fflush left them */
    size_t len;
    int fd;
    int64_t end;             /* the file's length: the rows written */
    bool fresh;              /* still NAME.tmp: put in place once its header is written, never an empty file */
} sim_csv;

typedef struct sim_outputs {
    /* what it observes: set before outputs_open */
    coupler_log *log;
    seam_doc *doc;
    const seam_run_options *opts;
    sim_participants *ps;
    sim_interface *in;
    seam_bpp *bpp;           /* the pressure projection (regions.csv), NULL: none */
    const seam_convergence *conv;   /* the measures judged (measures.csv), each iteration's values and goals */
    const seam_summary *summary;
    double t_end, frame_dt;  /* the scene's (a frame every frame_dt, and at the end) */
    /* the scene's output keys (scene.c) */
    char *dir;               /* NULL: no output at all */
    bool stats, interface, frames;
    int vtk;                 /* output.vtk: the participants' frame format (seam_vtk_format) unless they name one */
    bool report;             /* plots and index.html at the end of the run (report.h), with stats */
    bool report_written;     /* ... and it was written: the summary's last line names it */
    char *picture_field;     /* fluid field drawn into PNG frames (2D), NULL: none */
    bool picture_explicit;   /* named in the scene, so a failure is an error */
    seam_picture_opts picture_opts;   /* range fixed by the scene or from the first non-uniform frame */
    bool picture_surface;    /* the scene lets the free surface be drawn (output.picture.surface) */
    bool has_surface;        /* ... and the fluid has a level_set field to draw it from */
    /* 3D: the plane drawn (output.picture.slice), normal to slice_axis (0 x, 1 y, 2 z) at slice_at */
    int slice_axis;
    double slice_at;
    bool slice_given;        /* output.picture.slice in the scene (else z) */
    bool slice_at_given;     /* ... with its "at" (else through the middle of the field) */
    sim_csv csv[SIM_CSV_COUNT];
    bool csv_failed;         /* a write failed: nothing more is written to them */
    bool measures_new;       /* the checkpoint resumed predates measures.csv */
    sim_probes probes;       /* output.probes; probes.csv when there are any */
    int frame;
    double next_frame;
    /* output.checkpoint: every this many steps (0: not by steps), every
     * this many seconds of wall time (0: not by time) */
    long checkpoint_steps;
    double checkpoint_seconds;
    /* no output.checkpoint in the scene: every SIM_CHECKPOINT_DEFAULT_S,
     * and no sooner than SIM_CHECKPOINT_COST times the last write took;
     * off when a participant cannot save; removed when the run finishes */
    bool checkpoint_default;
    double checkpoint_write_s;   /* wall time the last checkpoint took to write */
} sim_outputs;

/* The default checkpoint's interval (s of wall time), and the least ratio
 * of that interval to the time a checkpoint takes: it costs at most 1%. */
#define SIM_CHECKPOINT_DEFAULT_S 300.0
#define SIM_CHECKPOINT_COST 100.0

/* The checkpoint's file in the output directory. */
#define SIM_CHECKPOINT_FILE "checkpoint.seam"

/* One committed step, as the observer records it. */
typedef struct sim_step_record {
    long step;               /* its index */
    double t, dt;            /* time reached, step size */
    int iterations;
    double residual;         /* the last position residual (m); 0 for a coupled plugin */
    bool converged;
    double fluid_s, solid_s, coupler_s;
    seam_scheme_report scheme;   /* columns and modes now; filtered, restarts, truncated: this step's */
    double residual_goal, load_goal; /* the goals of the first position and load measures at the step's last
                                      * iteration, what residuals.csv's two columns were held to (NaN: none) */
} sim_step_record;

/* One observer of the run: each call may be NULL. open: at the run's start
 * (frames: frame 0); residual: every iteration's; step: after each
 * committed step (frames: only when a frame is due, after the step's CSV
 * rows reached the disk); finish: at the end; save and load: its values in
 * the checkpoint's section "outputs". The instances (outputs.c): csv,
 * probes, vtk (the participants' own files), picture, report. */
typedef struct sim_observer {
    const char *name;
    bool frames;             /* called at frame times only */
    seam_status (*open)(sim_outputs *o);
    void (*residual)(sim_outputs *o, long step, int iteration, double residual, double loads);
    seam_status (*step)(sim_outputs *o, const sim_step_record *rec);
    seam_status (*finish)(sim_outputs *o);
    void (*save)(sim_outputs *o, seam_ckpt_writer *w);
    void (*load)(sim_outputs *o, seam_ckpt_reader *r);
} sim_observer;

/* Check the picture can be drawn (2D, a fluid with that field). */
bool outputs_check_picture(sim_outputs *o);
/* Create the directory and the CSV files; write frame 0. */
seam_status outputs_open(sim_outputs *o);
/* A row of residuals.csv for one iteration (loads: the load change, NaN when none). */
void outputs_residual(sim_outputs *o, long step, int iteration, double residual, double loads);
/* The observer: the step's rows, and a frame when one is due. */
seam_status outputs_step(sim_outputs *o, const sim_step_record *rec);
/* Write the rows not written yet (a failed step's residuals), at the end of a run. */
seam_status outputs_flush(sim_outputs *o);
/* What the outputs carry across steps (frame counter, next frame time,
 * picture range, where each CSV file ended, which other files existed) as
 * the checkpoint's section "outputs"; and back, taking up the outputs of
 * the run at the checkpoint: the CSV files cut back and opened to append,
 * every file written after it removed. */
void outputs_save(sim_outputs *o, seam_ckpt_writer *w);
void outputs_load(sim_outputs *o, seam_ckpt_reader *r);
/* At the end of a run (wall time known): summary.csv, then the report;
 * SEAM_ERROR (said) when either could not be written. */
seam_status outputs_finish(sim_outputs *o);
void outputs_close(sim_outputs *out);

#endif
