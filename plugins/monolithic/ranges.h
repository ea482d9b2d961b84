/* The monolithic plugin's declared key ranges (seam/config.h's
 * seam_range_table), read by config.c, handed on by the keys entry
 * (monolithic.c) and listed in docs/monolithic.md. */
#ifndef MONOLITHIC_RANGES_H
#define MONOLITHIC_RANGES_H

#include "seam/config.h"

extern const seam_range_table monolithic_ranges[];
extern const size_t monolithic_n_ranges;
#define MONO_COUPLING_KEYS (&monolithic_ranges[0])   /* the scene's "coupling" */

#endif
