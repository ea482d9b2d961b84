/* What a run is given and what it reports: its options, its progress, its
 * summary, and what its checkpoint keeps of how it was started. Plain
 * values, shared by every part of the coupler and by its callers. */
#ifndef SEAM_COUPLER_RUN_H
#define SEAM_COUPLER_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "seam/plugin.h"

/* Where every message of the run goes: who is a participant's name or "seam". */
typedef void (*seam_sim_log)(void *ctx, seam_log_level level, const char *who, const char *message);

/* Where the run stands, after each step and once at the end (final). */
typedef struct seam_progress {
    double t, t_end;         /* simulated time reached, end time (s) */
    long step;               /* steps done */
    int iterations;          /* coupling iterations of the last step */
    double elapsed_s;        /* wall time since the run (this process's part of it) started */
    bool final;
    double dt;               /* the last step's size (s); 0 before the first */
    double t_begin;          /* simulated time this process started from (0, or a resumed run's checkpoint) */
} seam_progress;

/* Seconds of wall time left, estimated from the pace so far: elapsed_s
 * times the simulated time left over the simulated time done by this
 * process; NAN before anything was done. */
double seam_progress_eta(const seam_progress *p);

/* How a run ended; `seam run` exits with seam_outcome_exit_status of it
 * (the table is in docs/scenes.md, "Exit status"). */
typedef enum seam_outcome {
    SEAM_RUN_CONVERGED,      /* every step converged: 0 */
    SEAM_RUN_UNCONVERGED,    /* ran to the end, but committed unconverged steps: 3 */
    SEAM_RUN_DIVERGED,       /* stopped: the coupling diverged, within a step or across steps: 4 */
    SEAM_RUN_ERROR,          /* stopped: a participant or the coupler failed: 1 */
    SEAM_RUN_INTERRUPTED,    /* stopped between steps by opts.stop (SIGINT, SIGTERM): 128 + the signal */
} seam_outcome;

typedef struct seam_run_options {
    const char *out_dir;     /* overrides output.dir when non-NULL */
    double end;              /* overrides time.end when > 0 */
    long max_steps;          /* stop after this many steps when > 0 */
    seam_sim_log log;        /* NULL: messages are dropped (the library never prints) */
    void *log_ctx;
    void (*progress)(void *ctx, const seam_progress *p);   /* NULL: none */
    void *progress_ctx;
    /* Set (by a signal handler) to stop after the step under way, its
     * outputs written; NULL: never. */
    volatile sig_atomic_t *stop;
    /* An output directory that holds an earlier run (its stats.csv): written
     * over (SEAM_OUTPUT_OVERWRITE, the library's default), refused
     * (SEAM_OUTPUT_REFUSE_STALE, `seam run`), or emptied first
     * (SEAM_OUTPUT_CLEAN_STALE, `seam run --force`). */
    int stale_output;
    /* Take up the run whose checkpoint (output.checkpoint) is in the output
     * directory: state restored, outputs of later steps removed, the run
     * continued to its end (docs/scenes.md, "Checkpoint and resume"). */
    bool resume;
    /* Load only plugins from the search path (a plain name, or a path into
     * one of its directories): `seam validate` of a scene it does not trust
     * (docs/security.md); another library is refused unloaded. */
    bool plugins_on_path_only;
} seam_run_options;

enum { SEAM_OUTPUT_OVERWRITE, SEAM_OUTPUT_REFUSE_STALE, SEAM_OUTPUT_CLEAN_STALE };

typedef struct seam_participant_stats {
    const char *name;        /* valid while the simulation lives */
    const char *plugin;
    seam_role role;
    double seconds;          /* wall time inside its solve and commit */
    long solves;
    long warnings;           /* messages it logged at warning level (a capped solve, an unstable step, ...) */
} seam_participant_stats;

typedef struct seam_summary {
    long steps;
    double t;                /* simulated time reached */
    long iterations;         /* total over all steps */
    int max_iterations;      /* most in one step */
    long not_converged;      /* steps committed unconverged (on_nonconvergence = "warn") */
    long retries;            /* steps retried with a smaller dt */
    seam_outcome outcome;    /* set by seam_sim_run */
    double wall_s;
    double coupler_s;        /* wall time in the coupling layer itself */
    size_t n_participants;
    const seam_participant_stats *participants;
} seam_summary;

/* What a run was started with, as its checkpoint in dir keeps it: the
 * scene's text (every --set applied), the absolute path of its file (for
 * relative paths and messages), and the end time and step limit given on
 * the command line (0: none). */
typedef struct seam_resume_info {
    char *scene;
    char *origin;
    double end;
    long max_steps;
} seam_resume_info;
/* 0, or -1 with err naming the file and the cause. */
int seam_resume_info_read(const char *dir, seam_resume_info *info, char *err, size_t errlen);
void seam_resume_info_free(seam_resume_info *info);

#endif
