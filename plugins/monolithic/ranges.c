/* The monolithic plugin's numeric keys, in the scene's "coupling", and the
 * values each accepts (docs/monolithic.md, "Keys"). */
#include "ranges.h"

enum { LO = SEAM_CFG_LO_OPEN, HI = SEAM_CFG_HI_OPEN };

static const seam_range coupling_keys[] = {
    /* Zarifi's split (5.31) */
    {"sigma", false, 0, 1, LO | HI, ""},
    /* alpha of (5.36), 0: chosen each step; past 1e12 the solid rows drop below the fluid's round-off */
    {"row_scaling", false, 0, 1e12, 0, ""},
    {"pcg_tolerance", false, SEAM_TOLERANCE_MIN, 1, HI, ""},
    {"pcg_max_iterations", true, 1, SEAM_ITERATIONS_MAX, 0, ""},
};

const seam_range_table monolithic_ranges[] = {
    SEAM_RANGE_TABLE("monolithic", "coupling", "docs/monolithic.md", "## Keys", coupling_keys),
};
const size_t monolithic_n_ranges = sizeof monolithic_ranges / sizeof monolithic_ranges[0];
