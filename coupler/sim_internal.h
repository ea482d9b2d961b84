/* What the coupler's parts share: the participants, the simulation, and the
 * functions each part offers the others. Private to coupler/. */
#ifndef SEAM_COUPLER_SIM_INTERNAL_H
#define SEAM_COUPLER_SIM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "bpp.h"
#include "convergence.h"
#include "outputs.h"
#include "remote.h"
#include "scheme.h"
#include "seam/loader.h"
#include "seam/log.h"
#include "simulation.h"

typedef struct seam_sim seam_sim;

/* One solver of the scene, local (a library) or remote (a proxy). */
typedef struct participant {
    seam_sim *sim;
    char *name;
    char *plugin_name;
    char *config_path;       /* "fluid", "solids[1]" */
    seam_role role;
    seam_library *lib;
    seam_remote *remote;     /* a proxy's; the instance owns it once created */
    seam_remote *proxy;      /* once created: the instance when it is a proxy (it is its remote), else NULL */
    bool committing;         /* the proxy's commit is sent and its reply not yet taken (participants_commit) */
    const seam_plugin *p;
    void *self;
    uint32_t caps;           /* SEAM_CAP_* of the instance */
    int vtk;                 /* its "vtk" key (seam_vtk_format), -1: the run's output.vtk */
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

/* Committed steps the predictors look back beyond X^n (the quartic's four). */
enum { SIM_PAST = 4 };

/* The concatenated interface of all solids, and its history. */
typedef struct sim_interface {
    int dim;
    size_t n_points, n_elems, n_bodies;
    int nodes_per_elem;
    double *X0;              /* positions as described */
    double *mass;
    int32_t *body, *elems;
    uint8_t *two_sided;
    double *Xn, *X_pred, *X_out;   /* committed, predicted, the step's result */
    double *Xpast[SIM_PAST]; /* X^{n-1}, ..., X^{n-SIM_PAST}: the predictors' history */
    double *F_solid;         /* the loads each solid received in its last solve (the committed ones after a step) */
    double *V;               /* effective velocities handed to the fluid */
    double *V_solid, *Vn;    /* velocities the solids returned: last solve, committed */
    double *block;           /* the one allocation behind the vectors above */
} sim_interface;

/* How one step is advanced: the partitioned schemes, or a coupled plugin. */
typedef struct sim_stepper {
    const char *name;
    seam_status (*attempt)(seam_sim *sim, double t, double dt, seam_verdict *verdict);
    int (*iterations)(const seam_sim *sim);
    seam_status (*accept)(seam_sim *sim);   /* after every participant committed */
} sim_stepper;

/* The polynomial predictors are numbered by their order (PREDICT_LINEAR 1 to PREDICT_QUARTIC 4). */
enum { PREDICT_NONE, PREDICT_LINEAR, PREDICT_QUADRATIC, PREDICT_CUBIC, PREDICT_QUARTIC, PREDICT_VELOCITY };

struct seam_sim {
    seam_doc *doc;
    seam_run_options opts;
    char *scene_dir;
    char *description;       /* the scene's own words about itself, NULL: none */
    /* time */
    double t_end, dt_max, dt_min, frame_dt;
    double cell_size;        /* the fluid cell size the scene names, 0: none */
    bool has_domain;         /* the fluid told its box (its domain entry) */
    double domain_lo[3], domain_hi[3];
    double gravity[3];       /* the scene's, handed to every participant */
    /* coupling */
    const seam_scheme_ops *scheme;
    void *scheme_self;
    seam_scheme_report scheme_totals;   /* the scheme's running totals after the last committed step */
    bool bpp_on;             /* the boundary pressure projection between the scheme and the participants */
    bpp_options bpp_opts;
    seam_bpp *bpp;
    seam_convergence conv;
    bool fail_unconverged;
    bool retry_unconverged;  /* on_nonconvergence "retry": a badly unconverged step is retried with half the dt */
    int predictor;
    const sim_stepper *stepper;
    bool monolithic;         /* scheme "monolithic": the fluid and solids run as one coupled plugin */
    /* participants: fluid (or coupled) first, then the solids */
    participant *parts;
    size_t n_parts;
    participant *fluid, *coupled;
    size_t first_solid;
    sim_interface in;
    double dt_past[SIM_PAST];   /* the last committed step sizes, newest first (dt_past[0]: the last step's) */
    seam_coupling coupling;
    struct rigid_dofs *rigid;   /* the solids' rigid bodies (their bodies entries), NULL: none */
    /* output */
    sim_outputs out;
    /* bookkeeping */
    seam_summary summary;
    int last_iterations;
    /* divergence across steps: how many steps in a row the interface's
     * fastest point sped up, and the committed residual grew, by GROWTH */
    double last_speed, last_residual;
    int speed_growth, residual_growth;
    bool diverged;
    participant *unstable;   /* the participant whose SEAM_UNSTABLE made the last retry, NULL: none */
    seam_participant_stats *pstats;
    int errors;
};

/* simulation.c */
void sim_log(seam_sim *sim, seam_log_level level, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
double sim_now(void);

/* scene.c: every key of the scene except the participants' own objects. */
void sim_read_scene(seam_sim *sim, seam_cfg *root);

/* participant.c */
void participant_read(seam_sim *sim, seam_cfg *obj, const char *default_name, seam_role role, participant *pt);
/* A participant in another process, started by participant_read: wait for
 * its server's hello and check its role. False after reporting. */
bool participant_ready(seam_sim *sim, participant *pt);
bool participant_create(seam_sim *sim, participant *pt);
/* Scheme "monolithic": the scene's fluid and solids (and the coupling keys
 * monolithic_key accepts) as one participant of the built-in plugin "monolithic". */
void participant_read_monolithic(seam_sim *sim, seam_cfg *root, participant *pt);
/* Whether scheme "monolithic" reads coupling.KEY: the monolithic plugin declares it (its keys entry). */
bool monolithic_key(const char *key);
void participant_free(participant *pt);
seam_status participant_solve(participant *pt, const seam_step *step, const seam_input *in, seam_output *out);
/* Log the failure of a call (what: "solve", "regions", ...) with the
 * participant, step and time; unknown statuses become SEAM_ERROR. */
seam_status participant_check(participant *pt, const char *what, const seam_step *step, seam_status st);
/* Commit every participant's step (the remote ones at once); each failure
 * is logged with its participant and step, and SEAM_ERROR returned once
 * every remote commit begun has been answered. */
seam_status participants_commit(seam_sim *sim, long step);

/* interface.c */
bool interface_build(seam_sim *sim);
/* Ask every solid with a bodies entry for its rigid bodies (plugin.h
 * seam_bodies), check them and build sim->rigid (NULL when none). */
bool interface_rigid_bodies(seam_sim *sim);
/* A coupled plugin's described surfaces in the committed state into in->Xn
 * (shift: the older positions move back one step first); nothing when it
 * describes none. */
seam_status interface_from_coupled(seam_sim *sim, bool shift);
bool interface_bind(seam_sim *sim);
void interface_free(sim_interface *in);
double interface_extent(const double *X, size_t n_points, int dim);
/* Whether every point of X (the concatenated interface) lies in the fluid's
 * domain; else an error naming the solid, its point, where and the step
 * (step < 0: the scene as described, before the first step). */
bool interface_check_domain(seam_sim *sim, const double *X, long step, double t);

/* outputs.c: who draws the fields (pictures, probes): the fluid, or a coupled plugin */
participant *sim_field_source(seam_sim *sim);

/* stepper.c */
extern const sim_stepper sim_stepper_partitioned;
extern const sim_stepper sim_stepper_coupled;
seam_status sim_coupling_init(seam_sim *sim);

/* resume.c: checkpoints (output.checkpoint) and resuming from them */
/* Every participant can save and load, when the run checkpoints or resumes. */
bool sim_checkpoint_check(seam_sim *sim);
/* Whether a checkpoint is due after the step just done (the last one, or
 * the run's start, was at wall time last_time). */
bool sim_checkpoint_due(const seam_sim *sim, double last_time);
/* The state after the step just done, at time t, wall_s seconds of wall
 * time into the run, to the output directory's checkpoint. */
seam_status sim_checkpoint_write(seam_sim *sim, double t, double wall_s);
/* Everything back from the output directory's checkpoint, and the outputs
 * cut back to it: the time reached and the wall time spent until then. */
seam_status sim_checkpoint_restore(seam_sim *sim, double *t, double *wall_s);

#endif
