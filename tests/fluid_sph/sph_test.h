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

/* Submerged fraction of a disc of radius R, centre height cy, floating in a
 * tank of width W that holds `volume` of fluid (area per unit depth): the
 * free surface H is where W H = volume + the disc's area below H, so it is
 * measured from the fluid's volume, not from its top particles (on a
 * stirred surface they sink between each other, s/5 to s/2 below it). */
double sph_disc_fraction(double W, double R, double volume, double cy);
/* The fluid particles left after bind, from fluid_sph's "bound to ..." line
 * in a captured log; fails the test when the line is missing. */
size_t sph_bound_particles(const char *log);
/* Area of the segment of a disc of radius R below a chord h above its lowest point. */
double sph_disc_segment(double R, double h);
/* The free surface measured from particles (2D, positions P as n x 3): on
 * the vertical line at x, the height in [lo, hi] where the fluid's colour
 * sum_i V0 W(|x - x_i|) (the kernel K, the rest lattice's particle volume
 * V0) falls to 1/2. On a rest lattice whose top row is at y it is y + s/2
 * (to 2e-5 s); unlike the column tops plus s/2, it counts particles that
 * sank between each other. NAN when the colour does not cross 1/2 there. */
double sph_surface_level(const sph_kernel *K, double V0, const double *P, size_t n, double x, double lo, double hi);

#endif
