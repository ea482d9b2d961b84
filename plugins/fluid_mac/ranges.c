/* fluid_mac's numeric keys and the values each accepts (docs/fluid_mac.md,
 * "Configuration" and "Sources"); shared bounds are seam/config.h's. */
#include "ranges.h"

enum { LO = SEAM_CFG_LO_OPEN, HI = SEAM_CFG_HI_OPEN, EACH = SEAM_RANGE_EACH };

static const seam_range config_keys[] = {
    SEAM_COORDINATES("origin"),
    SEAM_COORDINATES("obstacles[].box"),
    SEAM_COORDINATES("liquid.fill"),
    {"dx", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"},
    {"density", false, SEAM_DENSITY_MIN, SEAM_DENSITY_MAX, 0, "kg/m^3 (kg/m^2 in 2D)"},
    /* the step's CFL number: above 10 the semi-Lagrangian traces cross 10 cells a step */
    {"cfl", false, 0, 10, LO, ""},
    {"pressure_tolerance", false, SEAM_TOLERANCE_MIN, 1, HI, ""},
    {"pressure_max_iterations", true, 1, SEAM_ITERATIONS_MAX, 0, ""},
    /* Akbay's kernel of W: dx..2dx */
    {"kernel_radius", false, 1, 2, 0, "cells"},
    /* kinematic: pitch, about 1e8 Pa s over 1e3 kg/m^3, is 1e5 m^2/s */
    {"viscosity", false, 0, 1e6, 0, "m^2/s"},
    /* accelerations per unit of density and temperature: g's bound (1e4 m/s^2) per unit */
    {"buoyancy.density", false, -1e4, 1e4, 0, "m/s^2 per kg/m^3"},
    {"buoyancy.temperature", false, -1e4, 1e4, 0, "m/s^2 per K"},
    {"initial.density", false, 0, SEAM_DENSITY_MAX, 0, "kg/m^3"},
    {"initial.temperature", false, -SEAM_TEMPERATURE_MAX, SEAM_TEMPERATURE_MAX, 0, "K"},
    /* 8 per axis is 512 particles a cell in 3D */
    {"liquid.particles_per_axis", true, 1, 8, 0, ""},
    {"liquid.flip", false, 0, 1, 0, ""},
    {"liquid.particle_radius", false, 0.25, 2, 0, "cells"},
};

static const seam_range source_keys[] = {
    SEAM_COORDINATES("center"),
    SEAM_COORDINATES("box"),
    SEAM_COORDINATES("range"),
    {"radius", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"},
    /* slower than a nanometre a second moves nothing in any run */
    {"speed", false, 1e-9, SEAM_SPEED_MAX, 0, "m/s"},
    /* a nanometre-sized cell at a nanometre a second, to SEAM_SPEED_MAX through a 1 km^2 side */
    {"rate", false, 1e-27, 1e10, 0, "m^3/s (m^2/s in 2D)"},
    {"ramp_time", false, 0, SEAM_TIME_MAX, 0, "s"},
    {"density", false, 0, SEAM_DENSITY_MAX, 0, "kg/m^3"},
    {"temperature", false, -SEAM_TEMPERATURE_MAX, SEAM_TEMPERATURE_MAX, 0, "K"},
};

const seam_range_table fluid_mac_ranges[] = {
    SEAM_RANGE_TABLE("fluid_mac", "", "docs/fluid_mac.md", "## Configuration", config_keys),
    SEAM_RANGE_TABLE("fluid_mac", "sources[]", "docs/fluid_mac.md", "### Sources", source_keys),
};
const size_t fluid_mac_n_ranges = sizeof fluid_mac_ranges / sizeof fluid_mac_ranges[0];
