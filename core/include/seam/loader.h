/* Finding, opening and checking plugins. */
#ifndef SEAM_LOADER_H
#define SEAM_LOADER_H

#include <stddef.h>

#include "seam/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct seam_library seam_library;

/* Open a plugin by name ("fluid_mac": searched in the build tree, the
 * install prefix, then each directory of SEAM_PLUGIN_PATH) or by path
 * (anything containing '/' or ending in ".so"). Checks the entry symbol, the
 * ABI version and that create, destroy, max_dt, solve and commit are set.
 * On failure returns NULL with a message naming the file in err. */
seam_library *seam_library_open(const char *name_or_path, char *err, size_t errlen);
void seam_library_close(seam_library **self_p);
const seam_plugin *seam_library_plugin(const seam_library *self);
const char *seam_library_path(const seam_library *self);

/* Check a plugin table against the role a scene needs (and the functions
 * that role requires: describe for solids, bind for fluids). `where` names
 * the scene slot in the message ("fluid", "solids[1]"). 0 or -1 with err. */
int seam_plugin_check_role(const seam_plugin *p, const char *path, seam_role want,
                           const char *where, char *err, size_t errlen);

/* The directories searched, in order (build tree, prefix, SEAM_PLUGIN_PATH).
 * Returns the count; dirs[i] are valid until the next call. */
size_t seam_plugin_search_path(const char ***dirs);

/* Call fn for every loadable plugin found on the search path (first of each
 * name wins), and for every file that failed to load with its reason. */
typedef void (*seam_plugin_visit)(void *ctx, const char *path, const seam_plugin *p,
                                  const char *error);
void seam_plugin_scan(seam_plugin_visit fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
