/* fluid_sph's declared key ranges (seam/config.h's seam_range_table), read
 * by config.c and listed in docs/fluid_sph.md. */
#ifndef FLUID_SPH_RANGES_H
#define FLUID_SPH_RANGES_H

#include "seam/config.h"

extern const seam_range_table fluid_sph_ranges[];
extern const size_t fluid_sph_n_ranges;
#define SPH_KEYS (&fluid_sph_ranges[0])

#endif
