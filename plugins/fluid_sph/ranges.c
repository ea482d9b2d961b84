/* fluid_sph's numeric keys and the values each accepts (docs/fluid_sph.md,
 * "Configuration"); shared bounds are seam/config.h's. */
#include "ranges.h"

enum { LO = SEAM_CFG_LO_OPEN, HI = SEAM_CFG_HI_OPEN };

static const seam_range config_keys[] = {
    SEAM_COORDINATES("domain"),
    SEAM_COORDINATES("fill"),
    {"spacing", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"},
    {"density", false, SEAM_DENSITY_MIN, SEAM_DENSITY_MAX, 0, "kg/m^3 (kg/m^2 in 2D)"},
    /* the CFL number of the step: a particle moves at most a fraction of its spacing */
    {"cfl", false, 0, 1, LO, ""},
    {"xsph", false, 0, 1, 0, ""},
    /* relative density errors: 10% is no incompressible liquid any more */
    {"density_tolerance", false, SEAM_TOLERANCE_MIN, 0.1, 0, ""},
    {"divergence_tolerance", false, SEAM_TOLERANCE_MIN, 1, 0, ""},
    {"max_iterations", true, 1, 100000, 0, ""},
    /* dynamic: pitch is about 1e8 Pa s (glass near its melting point more; 1e9 bounds it) */
    {"viscosity", false, 0, 1e9, 0, "Pa s (kg/s in 2D)"},
    {"viscosity_tolerance", false, SEAM_TOLERANCE_MIN, 0.1, 0, ""},
    {"multigrid_lambda", false, 0, 10, LO, ""},
};

const seam_range_table fluid_sph_ranges[] = {
    SEAM_RANGE_TABLE("fluid_sph", "", "docs/fluid_sph.md", "## Configuration", config_keys),
};
const size_t fluid_sph_n_ranges = sizeof fluid_sph_ranges / sizeof fluid_sph_ranges[0];
