/* How a step is advanced, chosen by name from a registry: "partitioned"
 * (predict the interface, then a scheme iterates over the participants'
 * maps) or "coupled" (one solve of a SEAM_COUPLED plugin). A stepper is
 * handed the participants and the interface, and owns the scheme, its
 * convergence test, the pressure projection and the step's loads. */
#ifndef SEAM_COUPLER_STEPPER_H
#define SEAM_COUPLER_STEPPER_H

#include <stdbool.h>

#include "bpp.h"
#include "convergence.h"
#include "interface.h"
#include "log.h"
#include "participant.h"
#include "scheme.h"
#include "seam/checkpoint.h"

/* The polynomial predictors are numbered by their order (PREDICT_LINEAR 1 to PREDICT_QUARTIC 4). */
enum { PREDICT_NONE, PREDICT_LINEAR, PREDICT_QUADRATIC, PREDICT_CUBIC, PREDICT_QUARTIC, PREDICT_VELOCITY };

/* What the scene says about stepping (scene.c fills it). */
typedef struct sim_stepping {
    const seam_scheme_ops *scheme;   /* NULL: a coupled stepper */
    void *scheme_self;       /* created from coupling; the stepper owns it once set up */
    seam_convergence conv;
    bool bpp_on;             /* the boundary pressure projection between the scheme and the participants */
    bpp_options bpp_opts;
    int predictor;
} sim_stepping;

typedef struct stepper stepper;

/* One way of advancing a step: an entry of the registry. */
typedef struct sim_stepper {
    const char *name;
    /* The coupling.scheme that selects it for a scene's fluid and solids,
     * run as one participant of the built-in plugin of that name, and the
     * keys of coupling handed to that plugin; NULL: none. */
    const char *scheme_name;
    const char *const *keys;
    /* Set up for the built participants and interface; false after reporting. */
    bool (*setup)(stepper *st);
    /* One attempt at step `step` from t to t + dt. */
    seam_status (*attempt)(stepper *st, long step, double t, double dt, seam_verdict *verdict);
    int (*iterations)(const stepper *st);
    /* After every participant committed: the interface's history moves on. */
    seam_status (*accept)(stepper *st, long step, double dt);
} sim_stepper;

/* Where the judge's residual of every iteration goes (residuals.csv); loads: NaN when not measured. */
typedef void (*stepper_residual_fn)(void *ctx, long step, int iteration, double residual, double loads);

struct stepper {
    const sim_stepper *ops;
    sim_participants *ps;
    sim_interface *in;
    coupler_log *log;
    seam_doc *doc;
    const seam_scheme_ops *scheme;
    void *scheme_self;
    seam_scheme_report scheme_totals;   /* the scheme's running totals after the last committed step */
    seam_convergence conv;
    bool bpp_on;
    bpp_options bpp_opts;
    seam_bpp *bpp;
    int predictor;
    seam_coupling coupling;
    stepper_residual_fn on_residual;
    void *on_residual_ctx;
};

/* The registry: by name ("partitioned", "coupled"), by the coupling.scheme
 * that selects it (NULL when none does), by index. */
const sim_stepper *sim_stepper_find(const char *name);
const sim_stepper *sim_stepper_by_scheme(const char *scheme_name);
size_t sim_stepper_count(void);
const sim_stepper *sim_stepper_at(size_t i);

/* A stepper of kind ops over ps and in, taking over what the scene said
 * (its scheme instance among it). */
void stepper_init(stepper *st, const sim_stepper *ops, sim_stepping *from_scene, sim_participants *ps,
                  sim_interface *in, coupler_log *log, seam_doc *doc);
void stepper_free(stepper *st);
/* What the scheme keeps after this step: its counts, and how much its
 * running totals grew during the step. */
void stepper_report(stepper *st, seam_scheme_report *rec);
/* The committed loads (appended to the interface's open section), then the
 * scheme's section and the projection's; and back. Nothing for a coupled stepper. */
void stepper_save(const stepper *st, seam_ckpt_writer *w);
void stepper_load(stepper *st, seam_ckpt_reader *r);

#endif
