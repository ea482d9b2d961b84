/* The tube plugins' declared key ranges (seam/config.h's seam_range_table),
 * read by tube.c and the plugins, listed in docs/coupling.md. */
#ifndef TUBE_RANGES_H
#define TUBE_RANGES_H

#include "seam/config.h"

extern const seam_range_table tube_ranges[];
extern const size_t tube_n_ranges;
#define TUBE_FLUID_KEYS (&tube_ranges[0])
#define TUBE_SOLID_KEYS (&tube_ranges[1])
#define TUBE_MONOLITHIC_KEYS (&tube_ranges[2])

#endif
