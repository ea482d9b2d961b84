/* A coupled simulation built from a scene: participants, scheme, time loop. */
#ifndef SEAM_SIMULATION_H
#define SEAM_SIMULATION_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "run.h"
#include "seam/config.h"
#include "seam/plugin.h"

typedef struct seam_sim seam_sim;

/* Read the scene in doc (which must outlive the simulation), load and create
 * every participant, and bind the interface. Returns NULL after reporting
 * every problem found through the log. */
seam_sim *seam_sim_new(seam_doc *doc, const seam_run_options *opts);
void seam_sim_destroy(seam_sim **self_p);
/* Run to the end time (or the step limit). SEAM_OK, or SEAM_ERROR after a
 * message naming the participant, step and time. Outputs written so far stay. */
seam_status seam_sim_run(seam_sim *self);
const seam_summary *seam_sim_summary(const seam_sim *self);
/* The exit status of a run that ended so: 0, 3, 4, 1; `signal` is the
 * signal that interrupted it (128 + signal), 0 when none. */
int seam_outcome_exit_status(seam_outcome o, int signal);
const char *seam_outcome_name(seam_outcome o);
/* Print the end-of-run summary. */
void seam_sim_print_summary(const seam_sim *self, FILE *out);
/* The output directory (NULL when output is off). */
const char *seam_sim_output_dir(const seam_sim *self);
/* The scene's top-level "description", NULL when it has none. */
const char *seam_sim_description(const seam_sim *self);
/* A one-line description: participants and scheme, for `seam validate`. */
void seam_sim_describe(const seam_sim *self, char *buf, size_t n);

/* Committed interface positions (points x dim) and their count, for tests. */
const double *seam_sim_interface(const seam_sim *self, size_t *n, int *dim);

#endif
