/* The test plugins' declared key ranges (seam/config.h's seam_range_table),
 * listed in tests/plugins/README.md. */
#ifndef TEST_PLUGIN_RANGES_H
#define TEST_PLUGIN_RANGES_H

#include "seam/config.h"

extern const seam_range_table test_plugin_ranges[];
extern const size_t test_plugin_n_ranges;
#define FIELD_FLUID_KEYS (&test_plugin_ranges[0])
#define PISTON_FLUID_KEYS (&test_plugin_ranges[1])
#define PISTON_SOLID_KEYS (&test_plugin_ranges[2])
#define PROBE_SOLID_KEYS (&test_plugin_ranges[3])

#endif
