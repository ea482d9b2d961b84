/* A participant's keys that place it in another process (process, connect,
 * command, timeout, heartbeat, start_timeout, server_key, client_key): the
 * coupler reads them and hands protocol/ a plain seam_remote_start. */
#ifndef SEAM_REMOTE_KEYS_H
#define SEAM_REMOTE_KEYS_H

#include <stddef.h>

#include "remote.h"
#include "seam/config.h"

/* The keys, "process" first: none of them reaches the plugin. */
extern const char *const remote_scene_keys[];

/* Read the keys of participant object obj and, when they ask for another
 * process, start its server (seam_remote_begin; `plugin` is the plugin's
 * name or resolved path, NULL allowed with connect or command). Returns 1
 * with *out set, 0 for an in-process participant, -1 after reporting
 * (through the reader, or in err). */
int remote_from_scene(seam_cfg *obj, const char *plugin, const char *participant, const char *scene_dir,
                      seam_remote **out, char *err, size_t errlen);

#endif
