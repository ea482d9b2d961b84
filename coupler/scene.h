/* A scene as the run reads it: time, gravity, how to couple, where the
 * output goes. Filled once by scene_read, then only read; the
 * participants' objects are read into the participants, the output keys
 * into the outputs (their options), by the same pass. */
#ifndef SEAM_COUPLER_SCENE_H
#define SEAM_COUPLER_SCENE_H

#include <stdbool.h>

#include "log.h"
#include "outputs.h"
#include "participant.h"
#include "run.h"
#include "seam/config.h"
#include "stepper.h"

typedef struct sim_scene {
    seam_doc *doc;
    const seam_run_options *opts;
    coupler_log *log;
    char *scene_dir;
    char *description;       /* the scene's own words about itself, NULL: none */
    double t_end, dt_max, dt_min, frame_dt;
    double cell_size;        /* the fluid cell size the scene names, 0: none */
    double gravity[3];       /* the scene's, handed to every participant */
    bool fail_unconverged;
    bool retry_unconverged;  /* on_nonconvergence "retry": a badly unconverged step is retried with half the dt */
    const char *builtin_coupled;   /* the fluid and solids run as one participant of this built-in plugin
                                      (coupling.scheme "monolithic"), NULL: as the scene names them */
    const sim_stepper *stepper;    /* how a step is advanced (stepper.h's registry) */
    sim_stepping stepping;   /* its scheme, convergence test, projection and predictor */
} sim_scene;

/* Start a scene of doc (which must outlive it): its directory. */
void scene_init(sim_scene *sc, seam_doc *doc, const seam_run_options *opts, coupler_log *log);
/* Every key of root: the scene's own into sc, the participants' objects
 * into ps (its env set here), the output's into out's options. */
void scene_read(sim_scene *sc, seam_cfg *root, sim_participants *ps, sim_outputs *out);
void scene_free(sim_scene *sc);

#endif
