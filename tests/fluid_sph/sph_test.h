/* Helpers of the fluid_sph tests: drive the plugin alone (no coupler) and
 * measure its particles. Include after cmocka.h. */
#ifndef FLUID_SPH_SPH_TEST_H
#define FLUID_SPH_SPH_TEST_H

#include "fluid_sph.h"
#include "test_host.h"

/* A fluid_sph instance from json bound to iface (NULL: no solid); fails the test when create or bind does. */
fluid_sph *sph_make(test_host *th, const char *json, const seam_interface *iface);
/* Advance by steps of max_dt (at most dt_cap) until time t_end; X, V: the
 * interface (held still when V is NULL); the loads of the last step into F
 * when not NULL. Returns the time reached. */
double sph_run(fluid_sph *fl, double t, double t_end, double dt_cap, const double *X, double *F);
/* Largest particle speed of the committed state. */
double sph_max_speed(const fluid_sph *fl);
/* Mean of max(rho - rho0, 0) / rho0 over the committed particles. */
double sph_density_error(const fluid_sph *fl);

#endif
