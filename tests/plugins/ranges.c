/* The test plugins' numeric keys and the values each accepts
 * (tests/plugins/README.md); shared bounds are seam/config.h's. */
#include "ranges.h"

enum { EACH = SEAM_RANGE_EACH };

/* Masses: a bacterium is 1e-15 kg, a mountain 1e15 kg (solid_rigid's bound) */
#define MASS_MIN 1e-18
#define MASS_MAX 1e15
/* a commit that waits longer than 5 s would hold a test past its time */
#define COMMIT_DELAY {"commit_delay", false, 0, 5, 0, "s"}

static const seam_range field_fluid_keys[] = {
    /* a drag coefficient: the moduli's bound */
    {"drag", false, 0, SEAM_MODULUS_MAX, 0, "N s/m"},
    {"p0", false, -SEAM_MODULUS_MAX, SEAM_MODULUS_MAX, 0, "Pa"},
    {"gradient", false, -SEAM_MODULUS_MAX, SEAM_MODULUS_MAX, EACH, "Pa/m"},
};

static const seam_range piston_fluid_keys[] = {
    {"added_mass", false, 0, MASS_MAX, 0, "kg"},
    {"delay", false, 0, 1, 0, "s"},
    /* a participant slow to start: seconds (the liveness tests take 1 s) */
    {"create_delay", false, 0, 2, 0, "s"},
    COMMIT_DELAY,
    /* a step counter of a trillion steps is years of any run */
    {"fault.step", true, 0, 1e12, 0, ""},
    {"fault.unstable_above_dt", false, SEAM_TIME_MIN, SEAM_TIME_MAX, 0, "s"},
    {"fault.unstable_until", false, SEAM_TIME_MIN, SEAM_TIME_MAX, 0, "s"},
};

static const seam_range piston_solid_keys[] = {
    {"mass", false, MASS_MIN, MASS_MAX, 0, "kg"},
    {"stiffness", false, 0, SEAM_MODULUS_MAX, 0, "N/m"},
    {"position", false, -SEAM_LENGTH_MAX, SEAM_LENGTH_MAX, 0, "m"},
    {"velocity", false, -SEAM_SPEED_MAX, SEAM_SPEED_MAX, 0, "m/s"},
    /* a million points: the largest interface bench/coupler/overhead.sh drives */
    {"count", true, 1, 1e6, 0, ""},
    COMMIT_DELAY,
};

static const seam_range probe_solid_keys[] = {
    {"position", false, -SEAM_LENGTH_MAX, SEAM_LENGTH_MAX, 0, "m"},
    {"mass", false, MASS_MIN, MASS_MAX, 0, "kg"},
    {"hang_at_step", true, -1, 1e9, 0, ""},
    /* a test's hang or work lasts seconds; 1e6 s is eleven days */
    {"hang_s", false, 0, 1e6, 0, "s"},
    {"work_s", false, 0, 1e6, 0, "s"},
};

const seam_range_table test_plugin_ranges[] = {
    SEAM_RANGE_TABLE("field_fluid", "", "tests/plugins/README.md", "## field_fluid", field_fluid_keys),
    SEAM_RANGE_TABLE("piston_fluid", "", "tests/plugins/README.md", "## piston_fluid", piston_fluid_keys),
    SEAM_RANGE_TABLE("piston_solid", "", "tests/plugins/README.md", "## piston_solid", piston_solid_keys),
    SEAM_RANGE_TABLE("probe_solid", "", "tests/plugins/README.md", "## probe_solid", probe_solid_keys),
};
const size_t test_plugin_n_ranges = sizeof test_plugin_ranges / sizeof test_plugin_ranges[0];
