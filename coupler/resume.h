/* Checkpoints (output.checkpoint) and resuming from them: each part of the
 * run saves and loads itself into its own sections; this file only orders
 * them and opens the file. */
#ifndef SEAM_COUPLER_RESUME_H
#define SEAM_COUPLER_RESUME_H

#include <stdbool.h>

#include "interface.h"
#include "log.h"
#include "outputs.h"
#include "participant.h"
#include "run.h"
#include "seam/checkpoint.h"
#include "stepper.h"

/* The parts a checkpoint holds, and the time loop's own values (section
 * "coupler"), which the loop saves and loads itself through save_loop and
 * load_loop. */
typedef struct sim_checkpoint {
    coupler_log *log;
    seam_doc *doc;
    const seam_run_options *opts;
    sim_participants *ps;
    sim_interface *in;
    stepper *st;
    sim_outputs *out;
    const seam_summary *summary;
    void (*save_loop)(void *loop, seam_ckpt_writer *w, double t, double wall_s);
    void (*load_loop)(void *loop, seam_ckpt_reader *r, double *t, double *wall_s);
    void *loop;
} sim_checkpoint;

/* Every participant can save and load, when the run checkpoints or resumes;
 * the default checkpoint is turned off (said) when one cannot. */
bool checkpoint_check(const sim_checkpoint *ck);
/* Whether a checkpoint is due after the step just done (the last one, or
 * the run's start, was at wall time last_time). */
bool checkpoint_due(const sim_checkpoint *ck, double last_time);
/* The state after the step just done, at time t, wall_s seconds of wall
 * time into the run, to the output directory's checkpoint. */
seam_status checkpoint_write(const sim_checkpoint *ck, double t, double wall_s);
/* The run finished: a checkpoint the scene did not ask for goes (it only
 * served a run that did not finish). */
void checkpoint_discard(const sim_checkpoint *ck);
/* Everything back from the output directory's checkpoint, and the outputs
 * cut back to it: the time reached and the wall time spent until then. */
seam_status checkpoint_restore(const sim_checkpoint *ck, double *t, double *wall_s);

#endif
