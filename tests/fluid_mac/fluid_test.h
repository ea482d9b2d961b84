/* Helpers shared by the 2D and 3D fluid_mac plugin tests (test_fluid_mac.c,
 * test_fluid_mac_3d.c). Include after cmocka.h. */
#ifndef FLUID_MAC_FLUID_TEST_H
#define FLUID_MAC_FLUID_TEST_H

#include "seam/plugin.h"
#include "test_host.h"

/* fluid_mac's table, from the static library the tests link (plugins/fluid_mac/export.c
 * exports it from the module). */
const seam_plugin *fluid_mac_table(void);

/* A fluid_mac instance from json, its messages in th; fails the test when create does. */
void *fluid_make(const seam_plugin *P, test_host *th, const char *json);

/* An interface of dimension dim (2 or 3) with no points: the fluid alone. */
const seam_interface *fluid_no_solid(int dim);

/* Volume inside the level set, each cell counted by its centre value clipped
 * to [0, 1] cells (m^3 in 3D, m^2 per unit depth in 2D). */
double fluid_liquid_volume(const seam_plugin *P, void *fl, int dim);

/* Smoke mass in the domain: density times cell volume, summed. */
double fluid_total_smoke(const seam_plugin *P, void *fl, int dim);

/* Liquid particles in the VTK output of frame `frame` in dir: their number,
 * and in *wrong how many lie right of the line a -> b in the x-y plane (a
 * 3D particle is judged by its x and y). */
size_t fluid_particles_right_of(const char *dir, int frame, const double *a, const double *b, size_t *wrong);

/* The committed face velocities of fl's saved state (u, v[, w] one after
 * another, each in the grid's face order), malloc'd, *n their count; and
 * the state with vel in their place loaded back into fl. */
double *fluid_state_velocities(const seam_plugin *P, void *fl, size_t *n);
void fluid_state_set_velocities(const seam_plugin *P, void *fl, const double *vel);

#endif
