/* The stages of fluid_mac's solve (step.c: the grid's, liquid.c: the
 * liquid's particles). Each takes the plugin object and the step's input
 * and returns a status; step.c lists them in the order of the algorithm.
 * Private to plugins/fluid_mac. */
#ifndef FLUID_MAC_STEP_H
#define FLUID_MAC_STEP_H

#include "fluid.h"

/* One solve's input: the step, the interface points' positions X and
 * velocities V at its end (NULL without points), where the loads go (NULL:
 * none asked). */
typedef struct trial {
    const seam_step *step;
    const double *X, *V;
    double *F;
} trial;

typedef seam_status (*stage_fn)(fluid_mac *self, const trial *tr);

/* A liquid (Zhu & Bridson 2005, FLIP/PIC): u^A from the committed particles
 * (transport_velocities calls it); after the projection the stages: the
 * velocities extended into the air, the particles' velocity update, their
 * move, the level set, and the crowded cells spread. */
void liquid_to_grid(fluid_mac *self);
seam_status liquid_extrapolate(fluid_mac *self, const trial *tr);
seam_status liquid_to_particles(fluid_mac *self, const trial *tr);
seam_status liquid_advect(fluid_mac *self, const trial *tr);
seam_status liquid_level_set(fluid_mac *self, const trial *tr);
seam_status liquid_spread(fluid_mac *self, const trial *tr);
seam_status liquid_spread_move(fluid_mac *self, const trial *tr);

#endif
