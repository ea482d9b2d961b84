/* solid_rigid's numeric keys and the values each accepts
 * (docs/solid_rigid.md, "Configuration"); shared bounds are seam/config.h's. */
#include "ranges.h"

enum { LO = SEAM_CFG_LO_OPEN, HI = SEAM_CFG_HI_OPEN };

/* Coulomb coefficients: rubber on dry rock reaches 1-4; 100 is any contact that sticks */
#define FRICTION_MAX 100
/* An angle or phase past 1e6 rad keeps less than 1e-10 rad of it in a double */
#define ANGLE_MAX 1e6

static const seam_range config_keys[] = {
    {"spacing", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"},
    {"contact_iterations", true, 1, 100000, 0, ""},
    {"contact_tolerance", false, 0, SEAM_SPEED_MAX, 0, "m/s"},
};

static const seam_range wall_keys[] = {
    {"restitution", false, 0, 1, 0, ""},
    {"friction", false, 0, FRICTION_MAX, 0, ""},
};

static const seam_range body_keys[] = {
    {"radius", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"},
    {"height", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"},
    {"tube_radius", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"},
    /* an OBJ file in nanometres to one in 1000 km units, read in metres */
    {"scale", false, 1e-12, 1e12, 0, ""},
    {"density", false, SEAM_DENSITY_MIN, SEAM_DENSITY_MAX, 0, "kg/m^3 (kg/m^2 in 2D)"},
    /* a bacterium is 1e-15 kg, a mountain 1e15 kg */
    {"mass", false, 1e-18, 1e15, 0, "kg (kg/m in 2D)"},
    {"angle", false, -ANGLE_MAX, ANGLE_MAX, 0, "rad"},
    {"restitution", false, 0, 1, 0, ""},
    {"friction", false, 0, FRICTION_MAX, 0, ""},
};

static const seam_range kinematic_keys[] = {
    /* a GHz vibration is the fastest any continuum body is driven at */
    {"frequency", false, 0, 1e9, 0, "Hz"},
    {"phase", false, -ANGLE_MAX, ANGLE_MAX, 0, "rad"},
};

static const seam_range force_keys[] = {
    {"start", false, -SEAM_TIME_MAX, SEAM_TIME_MAX, 0, "s"},
    {"duration", false, SEAM_TIME_MIN, SEAM_TIME_MAX, 0, "s"},
    {"end", false, -SEAM_TIME_MAX, SEAM_TIME_MAX, 0, "s"},
};

const seam_range_table solid_rigid_ranges[] = {
    SEAM_RANGE_TABLE("solid_rigid", "", "docs/solid_rigid.md", "## Configuration", config_keys),
    SEAM_RANGE_TABLE("solid_rigid", "walls", "docs/solid_rigid.md", "### `walls`", wall_keys),
    SEAM_RANGE_TABLE("solid_rigid", "bodies[]", "docs/solid_rigid.md", "### A body", body_keys),
    SEAM_RANGE_TABLE("solid_rigid", "bodies[].kinematic", "docs/solid_rigid.md", "### `kinematic`", kinematic_keys),
    SEAM_RANGE_TABLE("solid_rigid", "bodies[].forces[]", "docs/solid_rigid.md", "### `forces`", force_keys),
};
const size_t solid_rigid_n_ranges = sizeof solid_rigid_ranges / sizeof solid_rigid_ranges[0];
