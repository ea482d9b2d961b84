/* The scene's own numeric keys and the values each accepts (docs/scenes.md,
 * "Keys"; the coupling's in docs/coupling.md, a participant's remote keys in
 * docs/remote.md); shared bounds are seam/config.h's. Each plugin's keys
 * are declared beside the code that reads them. */
#include "ranges.h"

enum { LO = SEAM_CFG_LO_OPEN, HI = SEAM_CFG_HI_OPEN, EACH = SEAM_RANGE_EACH };

/* A measure's tolerance, absolute (m, N, N/m), relative or in cells: below
 * 1e-30 no double resolves a change of a scene's quantities (a nanometre
 * keeps 16 digits, to 1e-25 m); above 1e12 (a dam's load in N) nothing is
 * measured. A relative one is also refused from 1 up (convergence.c). */
#define MEASURE_TOL_MIN 1e-30
#define MEASURE_TOL_MAX 1e12
/* Relaxation and mixing factors: below double's epsilon a step leaves the
 * iterate as it was. */
#define FACTOR_MIN SEAM_TOLERANCE_MIN
/* Iteration and column counts (convergence.c, iqn.c, rmi.c): past 1e5 a
 * step's history outgrows any interface's memory and any run's time. */
#define COUNT_MAX 100000

static const seam_range scene_keys[] = {
    {"cell_size", false, SEAM_LENGTH_MIN, SEAM_LENGTH_MAX, 0, "m"},
};

static const seam_range time_keys[] = {
    {"end", false, SEAM_TIME_MIN, SEAM_TIME_MAX, 0, "s"},
    {"dt", false, SEAM_TIME_MIN, SEAM_TIME_MAX, 0, "s"},
    {"dt_min", false, SEAM_TIME_MIN, SEAM_TIME_MAX, 0, "s"},
    {"frame", false, SEAM_TIME_MIN, SEAM_TIME_MAX, 0, "s"},
};

static const seam_range picture_keys[] = {
    /* 64 pixels a cell draw a 256-cell grid 16384 pixels wide */
    {"pixels_per_cell", true, 1, 64, 0, "pixels"},
    /* the colour map's ends: past any pressure (moduli reach 1e13 Pa), speed or temperature a scene makes */
    {"range", false, -1e15, 1e15, EACH, "(the field's unit)"},
    SEAM_COORDINATES("slice.at"),
};

static const seam_range checkpoint_keys[] = {
    /* a step counter of a trillion steps is years of any run */
    {"every_steps", true, 1, 1e12, 0, "steps"},
    /* a millisecond of wall time is less than any step takes: a checkpoint each step */
    {"every_seconds", false, 1e-3, SEAM_TIME_MAX, 0, "s"},
};

static const seam_range coupling_keys[] = {
    {"tolerance", false, MEASURE_TOL_MIN, MEASURE_TOL_MAX, 0, ""},
    {"load_tolerance", false, SEAM_TOLERANCE_MIN, 1, HI, ""},
    {"max_iterations", true, 1, COUNT_MAX, 0, ""},
    /* a residual 1e30 times its first is no step any solver recovers from */
    {"divergence", false, 1, 1e30, LO, ""},
};

static const seam_range measure_keys[] = {
    {"tolerance", false, MEASURE_TOL_MIN, MEASURE_TOL_MAX, 0, ""},
};

static const seam_range bpp_keys[] = {
    /* a pressure change: the moduli's bound, SEAM_MODULUS_MAX Pa */
    {"p0_tolerance", false, 0, SEAM_MODULUS_MAX, 0, "Pa"},
    {"volume_tolerance", false, SEAM_TOLERANCE_MIN, 1, HI, ""},
    {"max_solves", true, 2, 100, 0, ""},
};

static const seam_range relaxation_keys[] = {
    {"relaxation", false, FACTOR_MIN, 1, 0, ""},
};

static const seam_range aitken_keys[] = {
    {"relaxation", false, FACTOR_MIN, 1, 0, ""},
    {"aitken_first_max", false, FACTOR_MIN, 2, 0, ""},
};

/* the secant schemes' shared keys (iqn.c, rmi.c) */
#define SECANT_KEYS \
    {"relaxation", false, FACTOR_MIN, 1, 0, ""}, {"filter", false, 0, 1, HI, ""}, \
    {"reuse", true, 0, 1000, 0, ""}, {"max_columns", true, 1, COUNT_MAX, 0, ""}

static const seam_range iqn_ils_keys[] = {
    SECANT_KEYS,
    {"mixing", false, FACTOR_MIN, 1, 0, ""},
};

static const seam_range iqn_imvj_keys[] = {
    SECANT_KEYS,
    {"chunk", true, 1, COUNT_MAX, 0, ""},
    {"restart_reuse", true, 1, 1000, 0, ""},
    {"truncation", false, 0, 1, HI, ""},
};

static const seam_range newton_fd_keys[] = {
    /* a difference step below double's epsilon differences nothing */
    {"fd_step", false, SEAM_TOLERANCE_MIN, 1e-2, 0, ""},
    {"jacobian_age", true, 0, COUNT_MAX, 0, ""},
};

static const seam_range rmi_keys[] = {
    SECANT_KEYS,
};

/* a separate or remote participant's waits (docs/remote.md); 0: none */
static const seam_range remote_keys[] = {
    {"timeout", false, 0, SEAM_TIME_MAX, 0, "s"},
    {"heartbeat", false, 0, 3600, 0, "s"},
    /* a millisecond is less than any server takes to answer hello */
    {"start_timeout", false, 1e-3, SEAM_TIME_MAX, 0, "s"},
};

static const seam_range probe_keys[] = {
    SEAM_COORDINATES("point"),
    /* a solid's own body id */
    {"body", true, 0, 2147483647, 0, ""},
};

const seam_range_table scene_ranges[] = {
    SEAM_RANGE_TABLE(NULL, "", "docs/scenes.md", "### `cell_size`", scene_keys),
    SEAM_RANGE_TABLE(NULL, "time", "docs/scenes.md", "### `time`", time_keys),
    SEAM_RANGE_TABLE(NULL, "output.picture", "docs/scenes.md", "`output.picture`:", picture_keys),
    SEAM_RANGE_TABLE(NULL, "output.checkpoint", "docs/scenes.md", "`output.checkpoint`", checkpoint_keys),
    SEAM_RANGE_TABLE(NULL, "coupling", "docs/coupling.md", "## Keys read for every scheme", coupling_keys),
    SEAM_RANGE_TABLE(NULL, "coupling.measures[]", "docs/coupling.md", "Each measure has", measure_keys),
    SEAM_RANGE_TABLE(NULL, "coupling.bpp", "docs/coupling.md", "## `bpp`: the boundary", bpp_keys),
    SEAM_RANGE_TABLE(NULL, "coupling", "docs/coupling.md", "## `relaxation`", relaxation_keys),
    SEAM_RANGE_TABLE(NULL, "coupling", "docs/coupling.md", "## `aitken`", aitken_keys),
    SEAM_RANGE_TABLE(NULL, "coupling", "docs/coupling.md", "## `iqn-ils`", iqn_ils_keys),
    SEAM_RANGE_TABLE(NULL, "coupling", "docs/coupling.md", "## `iqn-imvj`", iqn_imvj_keys),
    SEAM_RANGE_TABLE(NULL, "coupling", "docs/coupling.md", "## `newton-fd`", newton_fd_keys),
    SEAM_RANGE_TABLE(NULL, "coupling", "docs/coupling.md", "## `rmi`", rmi_keys),
    SEAM_RANGE_TABLE(NULL, "fluid", "docs/remote.md", "## Keys the coupler consumes", remote_keys),
    SEAM_RANGE_TABLE(NULL, "solids[]", "docs/remote.md", "## Keys the coupler consumes", remote_keys),
    SEAM_RANGE_TABLE(NULL, "coupled", "docs/remote.md", "## Keys the coupler consumes", remote_keys),
    SEAM_RANGE_TABLE(NULL, "output.probes[]", "docs/scenes.md", "### Probes", probe_keys),
};
const size_t scene_n_ranges = sizeof scene_ranges / sizeof scene_ranges[0];

const seam_range_table *scheme_keys_declaring(const char *key)
{
    for (size_t i = SCHEME_TABLES_FIRST; i < SCHEME_TABLES_END; i++)
        if (seam_range_find(&scene_ranges[i], key))
            return &scene_ranges[i];
    return NULL;
}
