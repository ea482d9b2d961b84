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
#define COUPLING_KEYS (&scene_ranges[4])     /* "coupling": every scheme's */
#define MEASURE_KEYS (&scene_ranges[5])      /* each of "coupling.measures" */
#define BPP_KEYS (&scene_ranges[6])          /* "coupling.bpp" */
#define RELAXATION_KEYS (&scene_ranges[7])   /* "coupling", one scheme's own: relaxation */
#define AITKEN_KEYS (&scene_ranges[8])       /* aitken */
#define IQN_ILS_KEYS (&scene_ranges[9])      /* iqn-ils */
#define IQN_IMVJ_KEYS (&scene_ranges[10])    /* iqn-imvj */
#define NEWTON_FD_KEYS (&scene_ranges[11])   /* newton-fd */
#define RMI_KEYS (&scene_ranges[12])         /* rmi and xpm */
#define SCHEME_TABLES_FIRST 7                /* the schemes' own tables: 7 to 12 */
#define SCHEME_TABLES_END 13
#define REMOTE_KEYS (&scene_ranges[13])      /* a separate or remote participant's (13-15: fluid, solids, coupled) */
#define PROBE_KEYS (&scene_ranges[16])       /* each of "output.probes" */

/* The table of a scheme's own keys that declares key; NULL when none does. */
const seam_range_table *scheme_keys_declaring(const char *key);

#endif
