/* The scene's own numeric keys and their declared ranges (seam/config.h's
 * seam_range_table), read by scene.c and listed in docs/scenes.md. */
#ifndef SEAM_COUPLER_RANGES_H
#define SEAM_COUPLER_RANGES_H

#include "seam/config.h"

extern const seam_range_table scene_ranges[];
extern const size_t scene_n_ranges;
#define SCENE_KEYS (&scene_ranges[0])        /* the scene's top level */
#define TIME_KEYS (&scene_ranges[1])         /* "time" */
#define PICTURE_KEYS (&scene_ranges[2])      /* "output.picture" */
#define CHECKPOINT_KEYS (&scene_ranges[3])   /* "output.checkpoint" */

#endif
