/* Finding, opening and checking plugins. */
#ifndef SEAM_LOADER_H
#define SEAM_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "seam/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct seam_library seam_library;

/* Participant names become directory names (DIR/<name>/) and prefixes of
 * messages: 1 to 64 of A-Z a-z 0-9 _ - ., not starting with '.'. 0, or -1
 * with the reason in why. */
#define SEAM_NAME_MAX 64
int seam_participant_name_check(const char *name, char *why, size_t whylen);

/* Open a plugin by name ("fluid_mac": searched in the build tree, the
 * install prefix, then each directory of SEAM_PLUGIN_PATH) or by path
 * (anything containing '/' or ending in ".so"). Checks the entry symbol, the
 * ABI version and the required entries (seam_plugin_normalize); the table
 * seam_library_plugin returns is the normalized copy.
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

/* One entry of the plugin table, from SEAM_PLUGIN_ENTRIES. */
typedef struct seam_entry_info {
    const char *name;        /* "regions" */
    uint32_t abi;            /* the version that introduced it */
    int need;                /* SEAM_NEED_* */
    size_t offset;           /* of its function pointer in seam_plugin */
} seam_entry_info;

/* Every entry, in table order; their number in *n. */
const seam_entry_info *seam_plugin_entries(size_t *n);
/* The entry called name, or NULL. */
const seam_entry_info *seam_plugin_entry_find(const char *name);
/* Whether table p (normalized) provides entry e. */
int seam_plugin_has(const seam_plugin *p, const seam_entry_info *e);
/* Bytes of the table a plugin of version abi defines (the header fields and
 * the entries up to that version); 0 for a version outside
 * [SEAM_ABI_OLDEST, SEAM_ABI_VERSION]. */
size_t seam_plugin_table_size(uint32_t abi);
/* Check a table a plugin returned (abi range, name, role, the entries every
 * role needs) and copy the part its version defines into *full, the rest
 * NULL, so a host reads every entry without knowing the plugin's version.
 * 0, or -1 with a message naming `path` in err. */
int seam_plugin_normalize(const seam_plugin *p, const char *path, seam_plugin *full, char *err, size_t errlen);
/* SEAM_CAP_* of an instance: the plugin's capabilities entry when it has
 * one, else what the table's entries imply; flags whose entry is NULL are
 * cleared. */
uint32_t seam_plugin_caps(const seam_plugin *p, void *self);
/* "loads=impulse, rigid, regions, ..." for messages and `seam info`. */
void seam_caps_describe(uint32_t caps, char *buf, size_t n);

/* The directories searched, in order (build tree, prefix, SEAM_PLUGIN_PATH).
 * Returns the count; dirs[i] are valid until the next call. */
size_t seam_plugin_search_path(const char ***dirs);
/* Whether seam_library_open(name_or_path) would load a file from a directory
 * of the search path: always for a plain name; for a path, when the file
 * (symbolic links resolved) lies directly in one of those directories. */
bool seam_plugin_on_search_path(const char *name_or_path);

/* Call fn for every loadable plugin found on the search path (first of each
 * name wins), and for every file that failed to load with its reason. */
typedef void (*seam_plugin_visit)(void *ctx, const char *path, const seam_plugin *p,
                                  const char *error);
void seam_plugin_scan(seam_plugin_visit fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
