/* fluid_mac's declared key ranges (seam/config.h's seam_range_table), read
 * by config.c and listed in docs/fluid_mac.md. */
#ifndef FLUID_MAC_RANGES_H
#define FLUID_MAC_RANGES_H

#include "seam/config.h"

extern const seam_range_table fluid_mac_ranges[];
extern const size_t fluid_mac_n_ranges;
#define FM_KEYS (&fluid_mac_ranges[0])      /* the participant's own keys */
#define FM_SOURCE_KEYS (&fluid_mac_ranges[1])   /* each of "sources" */

#endif
