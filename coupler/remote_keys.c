/* The scene keys of a participant in another process, read into the plain
 * seam_remote_start that protocol/ takes (docs/remote.md). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ranges.h"
#include "keys.h"
#include "remote_keys.h"
#include "seam/alloc.h"

const char *const remote_scene_keys[] = {"process", "connect", "command", "timeout", "heartbeat", "start_timeout",
                                         "server_key", "client_key", NULL};

/* A key file named in the scene: relative to the scene's directory; failing
 * that, the spec as given, which may be the 40-character key itself. */
static bool read_key(seam_cfg *obj, const char *key, const char *spec, const char *scene_dir, char *pub, char *sec)
{
    char path[4096], err[1024];
    snprintf(path, sizeof path, "%s", spec);
    if (spec[0] != '/' && scene_dir) {
        char in_scene[4096];
        snprintf(in_scene, sizeof in_scene, "%s/%s", scene_dir, spec);
        if (access(in_scene, F_OK) == 0)
            snprintf(path, sizeof path, "%s", in_scene);
    }
    if (seam_key_read(path, pub, sec, err, sizeof err) != 0) {
        seam_cfg_error(obj, key, "%s", err);
        return false;
    }
    return true;
}

/* server_key and client_key into o (keys filled, they outlive the start). */
static void read_curve(seam_cfg *obj, bool connect, const char *scene_dir, seam_remote_options *o,
                       char keys[3][SEAM_KEY_Z85])
{
    const char *server_key = seam_cfg_str(obj, "server_key", NULL, 0);
    const char *client_key = seam_cfg_str(obj, "client_key", NULL, 0);
    if ((server_key || client_key) && !connect)
        seam_cfg_error(obj, server_key ? "server_key" : "client_key",
                       "CURVE keys are for \"connect\"; a spawned server listens on a private ipc socket");
    if (!server_key != !client_key)
        seam_cfg_error(obj, server_key ? "client_key" : "server_key",
                       "CURVE needs both server_key (the server's public key) and client_key (this coupler's key pair)");
    char ignored[SEAM_KEY_Z85];
    if (!server_key || !client_key || !read_key(obj, "server_key", server_key, scene_dir, keys[0], ignored) ||
        !read_key(obj, "client_key", client_key, scene_dir, keys[1], keys[2]))
        return;
    if (!keys[2][0])
        seam_cfg_error(obj, "client_key", "%s has no secret key (name the .key file `seam keygen` wrote)", client_key);
    o->server_key = keys[0];
    o->client_public = keys[1];
    o->client_secret = keys[2];
}

/* "command": a NULL-terminated copy of its strings (the caller frees the
 * array, not the strings), or NULL after an error. */
static const char **read_command(seam_cfg *obj)
{
    json_t *cmd = seam_cfg_json(obj, "command");
    size_t n = json_is_array(cmd) ? json_array_size(cmd) : 0;
    const char **command = SEAM_NEW_N(const char *, n + 1);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        command[i] = json_string_value(json_array_get(cmd, i));
    while (bad < n && command[bad] && command[bad][0])
        bad++;
    if (n == 0)
        seam_cfg_error(obj, "command", "expected a non-empty array of strings: the program, then its arguments "
                       "([\"python3\", \"solver.py\"])");
    else if (bad < n)
        seam_cfg_error(obj, "command", "item %zu: expected a non-empty string", bad);
    return command;
}

int remote_from_scene(seam_cfg *obj, const char *plugin, const char *participant, const char *scene_dir,
                      seam_remote **out, char *err, size_t errlen)
{
    static const char *const process_names[] = {"inline", "separate", NULL};
    *out = NULL;
    err[0] = '\0';
    seam_remote_start s = {
        .connect = seam_cfg_str(obj, "connect", NULL, 0),
        .cwd = scene_dir,
        .plugin = plugin,
        .o = {
            .name = participant,
            .timeout_s = seam_cfg_key(obj, REMOTE_KEYS, "timeout", SEAM_REMOTE_TIMEOUT_S, 0),
            .adaptive = !seam_cfg_has(obj, "timeout"),
            .heartbeat_s = seam_cfg_key(obj, REMOTE_KEYS, "heartbeat", SEAM_REMOTE_HEARTBEAT_S, 0),
            .start_timeout_s = seam_cfg_key(obj, REMOTE_KEYS, "start_timeout", SEAM_REMOTE_START_TIMEOUT_S, 0),
        },
    };
    bool separate = seam_cfg_enum(obj, "process", process_names, 0, 0) == 1;
    int errors = seam_cfg_error_count(obj);
    if (s.connect && separate)
        seam_cfg_error(obj, "process", "\"separate\" starts a server itself; with \"connect\" the server runs already");
    if (!s.connect && !separate) {
        for (size_t i = 2; remote_scene_keys[i]; i++)   /* after process and connect */
            if (seam_cfg_has(obj, remote_scene_keys[i]))
                seam_cfg_error(obj, remote_scene_keys[i], "only for a participant in another process "
                               "(\"connect\" or \"process\": \"separate\")");
        return seam_cfg_error_count(obj) > errors ? -1 : 0;
    }
    char keys[3][SEAM_KEY_Z85];
    read_curve(obj, s.connect != NULL, scene_dir, &s.o, keys);
    const char **command = NULL;
    if (seam_cfg_has(obj, "command") && s.connect)
        seam_cfg_error(obj, "command", "with \"connect\" the server runs already; a command is started by "
                       "\"process\": \"separate\"");
    else if (seam_cfg_has(obj, "command"))   /* with "separate": without either, refused above */
        s.command = command = read_command(obj);
    if (seam_cfg_error_count(obj) == errors)
        *out = seam_remote_begin(&s, err, errlen);
    free(command);
    return seam_cfg_error_count(obj) > errors || !*out ? -1 : 1;
}
