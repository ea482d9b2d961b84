/* The interface: the solids' coupling surfaces concatenated (indices and
 * body ids offset), handed to the fluid once, and its history: the
 * committed positions and velocities, the older positions the predictors
 * look back on, and the step sizes between them. It saves and loads that
 * history itself. */
#ifndef SEAM_COUPLER_INTERFACE_H
#define SEAM_COUPLER_INTERFACE_H

#include <stdbool.h>
#include <stdint.h>

#include "convergence.h"
#include "log.h"
#include "participant.h"
#include "predict.h"
#include "seam/checkpoint.h"

/* Committed steps the predictors look back beyond X^n (the quartic's four). */
enum { SIM_PAST = PREDICT_MAX_ORDER };

typedef struct sim_interface {
    sim_participants *ps;    /* whose solids it concatenates */
    coupler_log *log;
    seam_doc *doc;           /* for locating messages */
    int dim;
    size_t n_points, n_elems, n_bodies;
    int nodes_per_elem;
    double *X0;              /* positions as described */
    double *mass;
    int32_t *body, *elems;
    uint8_t *two_sided;
    double *Xn, *X_pred, *X_out;   /* committed, predicted, the step's result */
    double *Xpast[SIM_PAST]; /* X^{n-1}, ..., X^{n-SIM_PAST}: the predictors' history */
    double dt_past[SIM_PAST];   /* the last committed step sizes, newest first (dt_past[0]: the last step's) */
    double *F_solid;         /* the loads each solid received in its last solve (the committed ones after a step) */
    double *V;               /* effective velocities handed to the fluid */
    double *V_solid, *Vn;    /* velocities the solids returned: last solve, committed */
    double *block;           /* the one allocation behind the vectors above */
    bool has_domain;         /* the fluid told its box (its domain entry) */
    double domain_lo[3], domain_hi[3];
    struct rigid_dofs *rigid;   /* the solids' rigid bodies (their bodies entries), NULL: none */
} sim_interface;

/* An interface of the solids of ps (or of the coupled plugin's described surfaces). */
void interface_init(sim_interface *in, sim_participants *ps, coupler_log *log, seam_doc *doc);
bool interface_build(sim_interface *in);
/* Ask every solid with a bodies entry for its rigid bodies (plugin.h
 * seam_bodies), check them and build in->rigid (NULL when none). */
bool interface_rigid_bodies(sim_interface *in);
/* A coupled plugin's described surfaces in the committed state into in->Xn
 * (shift: the older positions move back one step first); nothing when it
 * describes none. step: the step just committed, for messages. */
seam_status interface_from_coupled(sim_interface *in, bool shift, long step);
/* Hand the interface to the fluid, after checking it against the fluid's
 * domain and conv's absolute tolerances against the domain's size. */
bool interface_bind(sim_interface *in, const seam_convergence *conv);
void interface_free(sim_interface *in);
double interface_extent(const double *X, size_t n_points, int dim);
/* Whether every point of X (the concatenated interface) lies in the fluid's
 * domain; else an error naming the solid, its point, where and the step
 * (step < 0: the scene as described, before the first step). */
bool interface_check_domain(sim_interface *in, const double *X, long step, double t);
/* The step of size dt is committed: X_out becomes X^n, the older ones move
 * back (by pointers), the solids' last velocities become V^n. */
void interface_commit(sim_interface *in, double dt);
/* A step of size dt committed by a coupled plugin: only the sizes move back. */
void interface_commit_dt(sim_interface *in, double dt);
/* The history, as the checkpoint's section "interface" (left open: a
 * stepper appends its committed loads), and back. */
void interface_save(const sim_interface *in, seam_ckpt_writer *w);
void interface_load(sim_interface *in, seam_ckpt_reader *r);

#endif
