/* solid_rigid's declared key ranges (seam/config.h's seam_range_table), read
 * by config.c and listed in docs/solid_rigid.md. */
#ifndef SOLID_RIGID_RANGES_H
#define SOLID_RIGID_RANGES_H

#include "seam/config.h"

extern const seam_range_table solid_rigid_ranges[];
extern const size_t solid_rigid_n_ranges;
#define RIGID_KEYS (&solid_rigid_ranges[0])           /* the participant's own keys */
#define RIGID_WALL_KEYS (&solid_rigid_ranges[1])      /* "walls" */
#define RIGID_BODY_KEYS (&solid_rigid_ranges[2])      /* each of "bodies" */
#define RIGID_KINEMATIC_KEYS (&solid_rigid_ranges[3]) /* a body's "kinematic" */
#define RIGID_FORCE_KEYS (&solid_rigid_ranges[4])     /* each of a body's "forces" */
#define RIGID_CONSTRAINT_KEYS (&solid_rigid_ranges[5]) /* a body's "constraint" */

#endif
