/* The scene's own numeric keys and the values each accepts (docs/scenes.md,
 * "Keys"); shared bounds are seam/config.h's. Each scheme's and plugin's keys
 * are declared beside the code that reads them. */
#include "ranges.h"

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
};

static const seam_range checkpoint_keys[] = {
    /* a step counter of a trillion steps is years of any run */
    {"every_steps", true, 1, 1e12, 0, "steps"},
    /* a millisecond of wall time is less than any step takes: a checkpoint each step */
    {"every_seconds", false, 1e-3, SEAM_TIME_MAX, 0, "s"},
};

const seam_range_table scene_ranges[] = {
    SEAM_RANGE_TABLE(NULL, "", "docs/scenes.md", "### `cell_size`", scene_keys),
    SEAM_RANGE_TABLE(NULL, "time", "docs/scenes.md", "### `time`", time_keys),
    SEAM_RANGE_TABLE(NULL, "output.picture", "docs/scenes.md", "`output.picture`:", picture_keys),
    SEAM_RANGE_TABLE(NULL, "output.checkpoint", "docs/scenes.md", "`output.checkpoint`", checkpoint_keys),
};
const size_t scene_n_ranges = sizeof scene_ranges / sizeof scene_ranges[0];
