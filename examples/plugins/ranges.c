/* The tube plugins' numeric keys and the values each accepts
 * (docs/coupling.md, "The 1D flexible tube"); shared bounds are
 * seam/config.h's. */
#include "ranges.h"

/* Pressures, Pa: the moduli's bound (SEAM_MODULUS_MAX) */
#define TUBE_PRESSURE(name) {name, false, -SEAM_MODULUS_MAX, SEAM_MODULUS_MAX, 0, "Pa"}

/* every tube plugin's: 1e5 cells resolve 1e-5 of the tube (the examples use 100); the monolithic
 * reference's setup grows with them, so more would only make a scene slow to load */
#define TUBE_SHARED \
    {"cells", true, 2, 1e5, 0, ""}, {"density", false, SEAM_DENSITY_MIN, SEAM_DENSITY_MAX, 0, "kg/m^3"}

/* the flow's: the inflow u0 (1 + A sin^2(pi t/T)); A a fraction of u0, a pulse 1e4 times the mean at most */
#define TUBE_FLOW \
    {"length", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"}, \
    {"velocity", false, 1e-9, SEAM_SPEED_MAX, 0, "m/s"}, {"pulse_amplitude", false, 0, 1e4, 0, ""}, \
    {"pulse_period", false, SEAM_TIME_MIN, SEAM_TIME_MAX, 0, "s"}, TUBE_PRESSURE("outlet_pressure")

/* the wave speed, slower than a nanometre a second to SEAM_SPEED_MAX */
#define TUBE_WAVE_SPEED {"wave_speed", false, 1e-9, SEAM_SPEED_MAX, 0, "m/s"}

/* the wall's: a cross-section from a square nanometre to a square of 1000 km */
#define TUBE_WALL \
    {"area", false, 1e-18, 1e12, 0, "m^2"}, TUBE_WAVE_SPEED, TUBE_PRESSURE("reference_pressure")

#define TUBE_NEWTON \
    {"newton_tolerance", false, SEAM_TOLERANCE_MIN, 1, 0, ""}, {"newton_max_iterations", true, 1, 1000, 0, ""}

static const seam_range fluid_keys[] = {TUBE_SHARED, TUBE_FLOW, TUBE_WAVE_SPEED, TUBE_NEWTON};
static const seam_range solid_keys[] = {TUBE_SHARED, TUBE_WALL};
static const seam_range monolithic_keys[] = {TUBE_SHARED, TUBE_FLOW, TUBE_WALL, TUBE_NEWTON};

const seam_range_table tube_ranges[] = {
    SEAM_RANGE_TABLE("tube_fluid", "", "docs/coupling.md", "`tube_fluid`'s numbers", fluid_keys),
    SEAM_RANGE_TABLE("tube_solid", "", "docs/coupling.md", "`tube_solid`'s numbers", solid_keys),
    SEAM_RANGE_TABLE("tube_monolithic", "", "docs/coupling.md", "`tube_monolithic`'s numbers", monolithic_keys),
};
const size_t tube_n_ranges = sizeof tube_ranges / sizeof tube_ranges[0];
