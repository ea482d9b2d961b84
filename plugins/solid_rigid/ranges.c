/* solid_rigid's numeric keys and the values each accepts
 * (docs/solid_rigid.md, "Configuration"); shared bounds are seam/config.h's. */
#include "ranges.h"

enum { LO = SEAM_CFG_LO_OPEN, HI = SEAM_CFG_HI_OPEN, EACH = SEAM_RANGE_EACH };

/* Coulomb coefficients: rubber on dry rock reaches 1-4; 100 is any contact that sticks */
#define FRICTION_MAX 100
/* An angle or phase past 1e6 rad keeps less than 1e-10 rad of it in a double */
#define ANGLE_MAX 1e6
/* Angular velocities: a GHz vibration turns 6.3e9 rad/s */
#define SPIN_MAX 1e10
/* Forces: the heaviest body (1e15 kg) at the largest gravity (1e4 m/s^2) weighs 1e19 N;
 * torques: that force at the largest length (1e6 m) */
#define FORCE_MAX 1e20
#define TORQUE_MAX 1e26
/* A direction's components (normalised when read): any scale, short of an overflow */
#define DIRECTION_MAX 1e6

static const seam_range config_keys[] = {
    {"spacing", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"},
    {"contact_iterations", true, 1, 100000, 0, ""},
    {"contact_tolerance", false, 0, SEAM_SPEED_MAX, 0, "m/s"},
};

static const seam_range wall_keys[] = {
    SEAM_COORDINATES("min"),
    SEAM_COORDINATES("max"),
    {"restitution", false, 0, 1, 0, ""},
    {"friction", false, 0, FRICTION_MAX, 0, ""},
};

static const seam_range body_keys[] = {
    {"size", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, EACH, "m"},
    SEAM_COORDINATES("vertices"),
    SEAM_COORDINATES("position"),
    {"velocity", false, -SEAM_SPEED_MAX, SEAM_SPEED_MAX, EACH, "m/s"},
    {"orientation", false, -DIRECTION_MAX, DIRECTION_MAX, EACH, ""},
    /* a number in 2D, a vector in 3D */
    {"angular_velocity", false, -SPIN_MAX, SPIN_MAX, EACH, "rad/s"},
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
    {"velocity", false, -SEAM_SPEED_MAX, SEAM_SPEED_MAX, EACH, "m/s"},
    SEAM_COORDINATES("amplitude"),
    {"angular_velocity", false, -SPIN_MAX, SPIN_MAX, EACH, "rad/s"},
    /* a GHz vibration is the fastest any continuum body is driven at */
    {"frequency", false, 0, 1e9, 0, "Hz"},
    {"phase", false, -ANGLE_MAX, ANGLE_MAX, 0, "rad"},
};

static const seam_range constraint_keys[] = {
    {"translate_along", false, -DIRECTION_MAX, DIRECTION_MAX, EACH, ""},
    SEAM_COORDINATES("rotate_about"),
    {"axis", false, -DIRECTION_MAX, DIRECTION_MAX, EACH, ""},
};

static const seam_range force_keys[] = {
    {"force", false, -FORCE_MAX, FORCE_MAX, EACH, "N (N/m in 2D)"},
    {"torque", false, -TORQUE_MAX, TORQUE_MAX, EACH, "N m"},
    SEAM_COORDINATES("point"),
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
    SEAM_RANGE_TABLE("solid_rigid", "bodies[].constraint", "docs/solid_rigid.md", "### `constraint`", constraint_keys),
};
const size_t solid_rigid_n_ranges = sizeof solid_rigid_ranges / sizeof solid_rigid_ranges[0];
