/* solid_rigid's solver: its settings, its state, and the functions its
 * files share (config.c reads the scene, interface.c samples the surfaces,
 * step.c advances the bodies, state.c saves and loads, rigid.c is the table). */
#ifndef SEAM_RIGID_SOLVER_H
#define SEAM_RIGID_SOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "seam/config.h"
#include "seam/plugin.h"
#include "seam/vtk.h"

#include "body.h"
#include "contact.h"
#include "rigid.h"

/* The top-level keys of a solid_rigid participant; defaults and ranges are
 * in config.c's read_settings, the one place that reads them. */
typedef struct rigid_settings {
    int dim;                  /* "dim": 2 or 3 */
    double gravity[3];        /* the scene's gravity or "gravity"; -9.81 along y without either */
    double spacing;           /* "spacing" of the interface samples (m); the fluid's cell size by default */
    int contact_iterations;   /* "contact_iterations": most Gauss-Seidel sweeps of the impulse solver */
    double contact_tolerance; /* "contact_tolerance": the sweeps' stop (m/s) */
} rigid_settings;

struct rigid_solver {
    const seam_host *host;
    rigid_settings set;
    /* output: the frames written, and the time of the trial and committed states (s) */
    seam_vtk_series vtk;
    double t_trial, t_n;
    rigid_body *bodies;
    size_t n_bodies;
    rigid_world world;
    rigid_state *S;          /* committed */
    rigid_state *T;          /* result of the last solve */
    rigid_state *A;          /* where the interface loads' arms are taken: T, once a solve converged */
    bool have_trial;
    rigid_contacts contacts;
    double *sweep;           /* RIGID_SWEEP_STRIDE per body: the arm sweeps' last rotation, its change, and Jacobian */
    /* the interface */
    size_t n_pts, n_elems;
    double *X;               /* handed out by describe; changed only by describe */
    double *Xs;              /* scratch positions for mobility */
    double *mass;
    int32_t *body_id;
    int32_t *elems;
    uint8_t *two_sided;
    unsigned char *saved;    /* handed out by save */
    double *pose;            /* handed out by bodies: centres (3 per body), rotations (9 per body) */
    int64_t *ranges;         /* handed out by bodies: first points, then point counts */
};

/* Per body in rs->sweep: a (3), g (3) of the last sweep and the Broyden Jacobian J (3 x 3). */
#define RIGID_SWEEP_STRIDE 15

/* ---- config.c ---- */
/* Settings, walls, bodies and their initial states from the participant's
 * keys into rs (bodies, S, world); 0, or -1 after reporting through cfg.
 * The caller finishes cfg. */
int rigid_config_read(rigid_solver *rs, seam_cfg *cfg);
/* Refuse (through cfg) a body the walls hold whose centre starts beyond
 * them; warn of one whose surface does. Needs the samples (interface.c). */
bool rigid_config_inside_walls(const rigid_solver *rs, seam_cfg *cfg);

/* ---- interface.c ---- */
/* Sample every body's surface into the interface arrays. */
void rigid_interface_build(rigid_solver *rs);
/* World positions (and velocities when V is not NULL) of all samples in state S. */
void rigid_sample_points(const rigid_solver *rs, const rigid_state *S, double *X, double *V);

/* ---- step.c ---- */
typedef enum rigid_step_result {
    RIGID_STEP_OK,
    RIGID_STEP_FAILED,       /* the rotation update did not converge or the state is not finite */
    RIGID_STEP_UNSETTLED     /* the interface loads' arms did not settle */
} rigid_step_result;
/* The step from the committed states S into T (docs/solid_rigid.md). */
rigid_step_result rigid_step(rigid_solver *rs, const seam_step *step, const seam_input *in);
/* The sweeps of the interface loads' arms a step may take. */
#define RIGID_ARM_SWEEPS 60

#endif
