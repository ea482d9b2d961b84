/* The participants: every solver of the scene, local (a library) or remote
 * (a proxy), as one object: read from the scene, created, solved,
 * committed, saved and loaded. The fluid (or one coupled plugin) comes
 * first, then the solids. */
#ifndef SEAM_COUPLER_PARTICIPANT_H
#define SEAM_COUPLER_PARTICIPANT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "log.h"
#include "remote.h"
#include "run.h"
#include "seam/checkpoint.h"
#include "seam/config.h"
#include "seam/loader.h"

typedef struct sim_participants sim_participants;

/* One solver of the scene. */
typedef struct participant {
    sim_participants *all;   /* the set it belongs to */
    char *name;
    char *plugin_name;
    char *config_path;       /* "fluid", "solids[1]" */
    seam_role role;
    int vtk;                 /* its "vtk" key (seam_vtk_format), -1: the run's output.vtk */
    seam_library *lib;
    seam_remote *remote;     /* a proxy's; the instance owns it once created */
    seam_remote *proxy;      /* once created: the instance when it is a proxy (it is its remote), else NULL */
    bool committing;         /* the proxy's commit is sent and its reply not yet taken (participants_commit) */
    const seam_plugin *p;
    void *self;
    uint32_t caps;           /* SEAM_CAP_* of the instance */
    seam_host host;
    char *output_dir;
    size_t offset, n_points; /* its slice of the concatenated interface (solids) */
    int32_t body_base;       /* its body ids in the concatenated interface: body_base + its own */
    size_t n_bodies;
    seam_participant_stats stats;
    char last_warning[512];  /* its latest warning: the cause when its step stays unstable */
    json_t *config;          /* the object handed to create when the coupler built it (scheme
                                "monolithic": the scene's fluid and solids), NULL: the scene's own */
} participant;

/* What the participants are handed by the run: set before they are read. */
typedef struct participant_env {
    coupler_log *log;
    seam_doc *doc;
    const char *scene_dir;
    bool plugins_on_path_only;   /* seam validate: no program started, no library off the search path */
    double cell_size;            /* the scene's, for the host (0: none) */
    const double *gravity;       /* the scene's three components */
    int vtk;                     /* output.vtk: the frame format of participants that name none */
} participant_env;

struct sim_participants {
    participant_env env;
    participant *parts;
    size_t n_parts;
    participant *fluid, *coupled;   /* the fluid, or the one coupled plugin; the other NULL */
    size_t first_solid;
    participant *unstable;   /* the participant whose SEAM_UNSTABLE made the last retry, NULL: none */
};

/* Room for n participants, none read yet. */
void participants_init(sim_participants *ps, size_t n);
void participants_free(sim_participants *ps);

void participant_read(sim_participants *ps, seam_cfg *obj, const char *default_name, seam_role role, participant *pt);
/* A participant in another process, started by participant_read: wait for
 * its server's hello and check its role. False after reporting. */
bool participant_ready(sim_participants *ps, participant *pt);
/* A built-in coupled stepper (coupling.scheme "monolithic"): the scene's
 * fluid and solids (and coupling's keys) as one participant of the built-in
 * plugin `plugin`. */
void participant_read_builtin(sim_participants *ps, seam_cfg *root, const char *plugin, const char *const *keys,
                              participant *pt);
/* Create every participant whose library loaded (those in this process
 * first, while the servers of the others start); out_dir: the run's output
 * directory, each writes into out_dir/NAME. False after reporting. */
bool participants_create(sim_participants *ps, const char *out_dir);
seam_status participant_solve(participant *pt, const seam_step *step, const seam_input *in, seam_output *out);
/* Log the failure of a call (what: "solve", "regions", ...) with the
 * participant, step and time; unknown statuses become SEAM_ERROR. */
seam_status participant_check(participant *pt, const char *what, const seam_step *step, seam_status st);
/* Commit every participant's step (the remote ones at once); each failure
 * is logged with its participant and step, and SEAM_ERROR returned once
 * every remote commit begun has been answered. */
seam_status participants_commit(sim_participants *ps, long step);
/* Forget the last attempt's unstable participant and warnings. */
void participants_begin_attempt(sim_participants *ps);
/* The smallest step every participant allows (dt_max when none is
 * smaller), NaN after reporting a failure or a collapsed step below dt_min. */
double participants_max_dt(sim_participants *ps, double dt_max, double dt_min, long step, double t);
/* Wall time spent in every participant's calls so far. */
double participants_seconds(const sim_participants *ps);
/* Who draws the fields (pictures, probes): the fluid, or a coupled plugin. */
participant *participants_field_source(sim_participants *ps);
/* Every participant can save and load (what = "--resume" or the scene's
 * key asking for checkpoints); false after reporting each one that cannot. */
bool participants_check_save(sim_participants *ps, const char *where, const char *what);
/* Each participant's plugin name, statistics and save bytes, one section
 * each (participant/NAME); step, t: the step just committed, for messages. */
seam_status participants_save(sim_participants *ps, seam_ckpt_writer *w, long step, double t);
/* Back from the reader; steps, t: the checkpoint's step count and time
 * (a remote server is told them). */
void participants_load(sim_participants *ps, seam_ckpt_reader *r, long steps, double t);

#endif
