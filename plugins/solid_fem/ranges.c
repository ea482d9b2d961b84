/* solid_fem's numeric keys and the values each accepts (docs/solid_fem.md,
 * "Configuration", "Walls", "Materials"); shared bounds are seam/config.h's. */
#include "ranges.h"

enum { LO = SEAM_CFG_LO_OPEN, HI = SEAM_CFG_HI_OPEN, EACH = SEAM_RANGE_EACH };

static const seam_range config_keys[] = {
    {"newton.tolerance", false, SEAM_TOLERANCE_MIN, 1, 0, ""},
    /* a step's log keeps 64 residuals (step.c) */
    {"newton.max_iterations", true, 1, 63, 0, ""},
    {"linear_solver.tolerance", false, SEAM_TOLERANCE_MIN, 1, 0, ""},
    {"linear_solver.max_iterations", true, 1, SEAM_ITERATIONS_MAX, 0, ""},
    /* the explicit step's fraction of the stability limit 2 / omega_max */
    {"cfl", false, 0, 1, LO, ""},
    {"max_dt", false, SEAM_TIME_MIN, SEAM_TIME_MAX, 0, "s"},
};

/* Coulomb coefficients: rubber on dry rock reaches 1-4; 100 is any contact that sticks */
static const seam_range wall_keys[] = {
    SEAM_COORDINATES("min"),
    SEAM_COORDINATES("max"),
    {"friction", false, 0, 100, 0, ""},
};

/* a body's node selections (corners) and velocities, each component */
static const seam_range body_keys[] = {
    {"velocity", false, -SEAM_SPEED_MAX, SEAM_SPEED_MAX, EACH, "m/s"},
    SEAM_COORDINATES("pin.box.min"),
    SEAM_COORDINATES("pin.box.max"),
    SEAM_COORDINATES("prescribed.box.min"),
    SEAM_COORDINATES("prescribed.box.max"),
    {"prescribed.velocity", false, -SEAM_SPEED_MAX, SEAM_SPEED_MAX, EACH, "m/s"},
};

/* damping: a mass-proportional rate of 1e6 1/s stops a body within a microsecond;
 * a stiffness-proportional time of 1e3 s overdamps every mode of any mesh */
static const seam_range solid_keys[] = {
    /* the softest gels are some 10 Pa, diamond 1.2e12 Pa */
    {"E", false, 1e-3, SEAM_MODULUS_MAX, 0, "Pa"},
    {"nu", false, -1, 0.5, LO | HI, ""},
    {"density", false, SEAM_DENSITY_MIN, SEAM_DENSITY_MAX, 0, "kg/m^3 (kg/m^2 in 2D)"},
    {"compression_limit", false, 0, 1, LO | HI, ""},
    {"damping.alpha", false, 0, 1e6, 0, "1/s"},
    {"damping.beta", false, 0, 1e3, 0, "s"},
};

static const seam_range shell_keys[] = {
    /* E times thickness: a 1 nm film of a 1e-3 Pa gel to a 10 m plate of 1e12 Pa */
    {"k_stretch", false, 1e-12, SEAM_MODULUS_MAX, 0, "N/m"},
    {"b_stretch", false, 0, SEAM_MODULUS_MAX, 0, "N s/m"},
    {"k_bend", false, 0, SEAM_MODULUS_MAX, 0, "J/m per rad^2"},
    {"b_bend", false, 0, SEAM_MODULUS_MAX, 0, "J s/m per rad^2"},
    {"density", false, SEAM_DENSITY_MIN, SEAM_DENSITY_MAX, 0, "kg/m^2 (kg/m in 2D)"},
    {"nu", false, -1, 0.5, LO | HI, ""},
    {"damping.alpha", false, 0, 1e6, 0, "1/s"},
};

/* a generated mesh's numbers: element counts bounded so the mesh stays within memory and seconds */
static const seam_range mesh_keys[] = {
    SEAM_COORDINATES("min"),
    SEAM_COORDINATES("max"),
    SEAM_COORDINATES("center"),
    SEAM_COORDINATES("start"),
    SEAM_COORDINATES("end"),
    SEAM_COORDINATES("origin"),
    SEAM_COORDINATES("u"),
    SEAM_COORDINATES("v"),
    /* a ring's band: past 1e6 degrees a double keeps less than 1e-10 of one */
    {"angles", false, -1e6, 1e6, EACH, "degrees"},
    {"radius", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"},
    {"inner_radius", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"},
    {"outer_radius", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"},
    {"length", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"},
    /* 6 rings^2 triangles: 2.4e7 at 2000 */
    {"rings", true, 1, 2000, 0, ""},
    {"segments", true, 1, 1e7, 0, ""},
    {"layers", true, 1, 100000, 0, ""},
    /* 20 4^s triangles: 1.3e6 at 8 */
    {"subdivisions", true, 0, 8, 0, ""},
};

const seam_range_table solid_fem_ranges[] = {
    SEAM_RANGE_TABLE("solid_fem", "", "docs/solid_fem.md", "## Configuration", config_keys),
    SEAM_RANGE_TABLE("solid_fem", "walls", "docs/solid_fem.md", "### Walls", wall_keys),
    SEAM_RANGE_TABLE("solid_fem", "bodies[]", "docs/solid_fem.md", "### A body", body_keys),
    SEAM_RANGE_TABLE("solid_fem", "bodies[].material", "docs/solid_fem.md", "Volumetric (`\"kind\": \"solid\"`",
                     solid_keys),
    SEAM_RANGE_TABLE("solid_fem", "bodies[].material", "docs/solid_fem.md", "Shells (`\"kind\": \"shell\"`",
                     shell_keys),
    SEAM_RANGE_TABLE("solid_fem", "bodies[].mesh", "docs/solid_fem.md", "The numbers of the generators", mesh_keys),
};
const size_t solid_fem_n_ranges = sizeof solid_fem_ranges / sizeof solid_fem_ranges[0];
