/* solid_fem's declared key ranges (seam/config.h's seam_range_table), read
 * by config.c and walls.c and listed in docs/solid_fem.md. */
#ifndef SOLID_FEM_RANGES_H
#define SOLID_FEM_RANGES_H

#include "seam/config.h"

extern const seam_range_table solid_fem_ranges[];
extern const size_t solid_fem_n_ranges;
#define FEM_KEYS (&solid_fem_ranges[0])         /* the participant's own keys */
#define FEM_WALL_KEYS (&solid_fem_ranges[1])    /* "walls" */
#define FEM_BODY_KEYS (&solid_fem_ranges[2])    /* each of "bodies" */
#define FEM_SOLID_KEYS (&solid_fem_ranges[3])   /* a volumetric body's "material" */
#define FEM_SHELL_KEYS (&solid_fem_ranges[4])   /* a shell's "material" */
#define FEM_MESH_KEYS (&solid_fem_ranges[5])    /* a generated "mesh" */

#endif
