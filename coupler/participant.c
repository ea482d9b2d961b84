/* Participants: one solver each, in this process (a library) or another
 * (the remote proxy, an ordinary plugin table); the host they are handed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "remote_keys.h"
#include "seam/vtk.h"
#include "sim_internal.h"

static void host_log(void *ctx, seam_log_level level, const char *message)
{
    participant *pt = ctx;
    if (level == SEAM_LOG_WARN) {
        pt->stats.warnings++;
        snprintf(pt->last_warning, sizeof pt->last_warning, "%s", message);
    }
    sim_log(pt->sim, level, pt->name, "%s", message);
}

static const char *host_locate(void *ctx, const char *key_path)
{
    participant *pt = ctx;
    char full[1024];
    bool dot = *pt->config_path && *key_path && *key_path != '[';   /* "" is the scene itself (monolithic) */
    snprintf(full, sizeof full, "%s%s%s", pt->config_path, dot ? "." : "", key_path);
    return seam_doc_locate(pt->sim->doc, full);
}

/* The participant's object in the scene document ("fluid", "solids[2]"). */
static json_t *participant_json(seam_sim *sim, const participant *pt)
{
    if (pt->config)
        return pt->config;
    json_t *root = seam_doc_root(sim->doc);
    if (strncmp(pt->config_path, "solids[", 7) == 0)
        return json_array_get(json_object_get(root, "solids"), strtoul(pt->config_path + 7, NULL, 10));
    return json_object_get(root, pt->config_path);
}

static char *xstrdup(seam_sim *sim, const char *s)
{
    char *d = strdup(s);
    if (!d)
        sim_log(sim, SEAM_LOG_ERROR, NULL, "out of memory");
    return d;
}

/* Read one participant object; load its library (or reach its server) and
 * check its role. */
void participant_read(seam_sim *sim, seam_cfg *obj, const char *default_name, seam_role role, participant *pt)
{
    pt->sim = sim;
    pt->role = role;
    pt->config_path = xstrdup(sim, seam_cfg_path(obj));
    bool connect = seam_cfg_has(obj, "connect");   /* the server names its plugin itself */
    bool command = seam_cfg_has(obj, "command");   /* so does a program the coupler starts */
    const char *plugin = seam_cfg_str(obj, "plugin", NULL, connect || command ? 0 : SEAM_CFG_REQUIRED);
    pt->name = xstrdup(sim, seam_cfg_str(obj, "name", default_name, 0));
    pt->vtk = seam_cfg_enum(obj, "vtk", seam_vtk_format_names, -1, 0);   /* a host setting, not the plugin's key */
    if (!pt->config_path || !pt->name)
        return;
    char why[256];
    if (seam_participant_name_check(pt->name, why, sizeof why) != 0)
        seam_cfg_error(obj, "name", "%s", why);
    for (size_t i = 0; i < sim->n_parts; i++)
        if (&sim->parts[i] != pt && sim->parts[i].name && strcmp(sim->parts[i].name, pt->name) == 0)
            seam_cfg_error(obj, "name", "participant name \"%s\" is used twice", pt->name);
    char path[4096];
    const char *open_name = plugin;
    if (plugin && strchr(plugin, '/') && plugin[0] != '/') {   /* relative paths are relative to the scene */
        snprintf(path, sizeof path, "%s/%s", sim->scene_dir, plugin);
        open_name = path;
    }
    char err[2048];
    if (command && sim->opts.plugins_on_path_only) {   /* starting it would run the scene's program */
        seam_cfg_error(obj, "command", "not started: a command runs a program the scene names, which seam validate "
                       "does not do; --allow-any-plugin starts it (docs/security.md)");
        const char *key;
        json_t *v;
        json_object_foreach(participant_json(sim, pt), key, v) seam_cfg_skip(obj, key);
        return;
    }
    if (plugin && !connect && !command && sim->opts.plugins_on_path_only && !seam_plugin_on_search_path(open_name)) {
        /* loading it would run its constructors: an untrusted scene's code */
        const char **dirs;
        size_t n = seam_plugin_search_path(&dirs);
        char list[2048] = "";
        for (size_t i = 0, len = 0; i < n && len < sizeof list; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? " " : "", dirs[i]);
        seam_cfg_error(obj, "plugin", "\"%s\" is a library outside the plugin search path (%s): not loaded, since "
                       "loading a library runs its code; --allow-any-plugin loads it (docs/security.md)", plugin, list);
        const char *key;
        json_t *v;
        json_object_foreach(participant_json(sim, pt), key, v) seam_cfg_skip(obj, key);
        return;
    }
    seam_remote *remote = NULL;
    int remote_rc = remote_from_scene(obj, open_name, pt->name, sim->scene_dir, &remote, err, sizeof err);
    /* The rest of the object is the plugin's, checked by its create. */
    const char *key;
    json_t *v;
    json_object_foreach(participant_json(sim, pt), key, v) seam_cfg_skip(obj, key);
    const char *where = seam_doc_locate(sim->doc, pt->config_path);
    if (remote_rc != 0 || !plugin) {
        if (remote_rc < 0 && err[0])
            sim_log(sim, SEAM_LOG_ERROR, NULL, "%s: %s: %s", where, pt->config_path, err);
        pt->remote = remote;   /* starting: participant_ready waits for its hello */
        return;
    }
    pt->plugin_name = xstrdup(sim, plugin);
    pt->lib = seam_library_open(open_name, err, sizeof err);
    if (!pt->lib) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "%s: %s.plugin: %s", where, pt->config_path, err);
        return;
    }
    pt->p = seam_library_plugin(pt->lib);
    if (seam_plugin_check_role(pt->p, seam_library_path(pt->lib), role, pt->config_path, err, sizeof err) != 0) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "%s: %s", where, err);
        seam_library_close(&pt->lib);
        pt->p = NULL;
    }
}

bool participant_ready(seam_sim *sim, participant *pt)
{
    char err[2048];
    const char *where = seam_doc_locate(sim->doc, pt->config_path);
    if (seam_remote_ready(pt->remote, err, sizeof err) != 0) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "%s: %s: %s", where, pt->config_path, err);
        seam_remote_close(&pt->remote);
        return false;
    }
    if (seam_remote_program(pt->remote))   /* which server: an installed seam starts its own prefix's */
        sim_log(sim, SEAM_LOG_INFO, pt->name, "started %s (pid %ld) on %s", seam_remote_program(pt->remote),
                seam_remote_pid(pt->remote), seam_remote_endpoint(pt->remote));
    pt->p = seam_remote_plugin(pt->remote);
    free(pt->plugin_name);
    pt->plugin_name = xstrdup(sim, pt->p->name);
    /* the server as its other messages name it: a started one by its program (its socket is a private file) */
    char server[1100];
    if (seam_remote_program(pt->remote))
        snprintf(server, sizeof server, "%s (pid %ld)", seam_remote_program(pt->remote), seam_remote_pid(pt->remote));
    else
        snprintf(server, sizeof server, "%s", seam_remote_endpoint(pt->remote));
    if (seam_plugin_check_role(pt->p, server, pt->role, pt->config_path, err, sizeof err) != 0) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "%s: %s: %s", where, pt->config_path, err);
        seam_remote_close(&pt->remote);
        pt->p = NULL;
        return false;
    }
    return true;
}

bool monolithic_key(const char *key)
{
    static char declared[32][64];   /* the plugin's keys entry, asked once */
    static int n = -1;
    if (n < 0) {
        char err[2048];
        seam_keys k = {0};
        seam_library *lib = seam_library_open("monolithic", err, sizeof err);
        const seam_plugin *p = lib ? seam_library_plugin(lib) : NULL;
        n = 0;
        if (p && p->keys && p->keys(p, &k) == SEAM_OK)
            for (size_t i = 0; i < k.count && n < 32; i++)
                if (strncmp(k.name[i], "coupling.", 9) == 0)
                    snprintf(declared[n++], sizeof declared[0], "%s", k.name[i] + 9);
        seam_library_close(&lib);
    }
    for (int i = 0; i < n; i++)
        if (strcmp(declared[i], key) == 0)
            return true;
    return false;
}

/* A participant's objects as one coupled solver sees them: one in-process
 * library each (the plugin creates them itself). */
static void refuse_remote(seam_cfg *obj)
{
    for (const char *const *k = remote_scene_keys; *k; k++)
        if (strcmp(*k, "process") != 0 && seam_cfg_has(obj, *k))
            seam_cfg_error(obj, *k, "scheme \"monolithic\" runs every solver inside its own plugin, in this process: "
                           "a remote participant cannot take part");
    if (seam_cfg_has(obj, "vtk"))   /* one host for all: the run's output.vtk */
        seam_cfg_error(obj, "vtk", "scheme \"monolithic\" writes every solver's frames alike: set output.vtk");
    const char *process = seam_cfg_str(obj, "process", "inline", 0);
    if (process && strcmp(process, "inline") != 0)
        seam_cfg_error(obj, "process", "scheme \"monolithic\" runs every solver inside its own plugin, in this process "
                       "(\"%s\" is not possible)", process);
}

void participant_read_monolithic(seam_sim *sim, seam_cfg *root, participant *pt)
{
    pt->sim = sim;
    pt->role = SEAM_COUPLED;
    pt->vtk = -1;
    pt->config_path = xstrdup(sim, "");
    pt->name = xstrdup(sim, "monolithic");
    pt->plugin_name = xstrdup(sim, "monolithic");
    json_t *scene = seam_doc_root(sim->doc);
    pt->config = json_object();
    json_t *mine = json_object();
    json_t *coupling = json_object_get(scene, "coupling");
    const char *ck;
    json_t *cv;
    json_object_foreach(coupling, ck, cv) {   /* the keys the plugin declares */
        if (monolithic_key(ck))
            json_object_set(mine, ck, cv);
    }
    if (!pt->config || !mine || json_object_set(pt->config, "fluid", json_object_get(scene, "fluid")) ||
        json_object_set(pt->config, "solids", json_object_get(scene, "solids")) ||
        json_object_set_new(pt->config, "coupling", mine)) {
        seam_cfg_error(root, "coupling", "out of memory");
        return;
    }
    seam_cfg *f = seam_cfg_child(root, "fluid", 0);
    if (f) {
        refuse_remote(f);
        const char *key;
        json_t *v;
        json_object_foreach(json_object_get(scene, "fluid"), key, v) seam_cfg_skip(f, key);
    }
    for (size_t i = 0; i < seam_cfg_count(root, "solids", 0); i++) {
        seam_cfg *s = seam_cfg_item(root, "solids", i);
        if (!s)
            continue;
        refuse_remote(s);
        const char *key;
        json_t *v;
        json_object_foreach(json_array_get(json_object_get(scene, "solids"), i), key, v) seam_cfg_skip(s, key);
    }
    char err[2048];
    pt->lib = seam_library_open("monolithic", err, sizeof err);
    if (!pt->lib) {
        seam_cfg_error(root, "coupling", "scheme \"monolithic\": %s", err);
        return;
    }
    pt->p = seam_library_plugin(pt->lib);
    if (seam_plugin_check_role(pt->p, seam_library_path(pt->lib), SEAM_COUPLED, "monolithic", err, sizeof err) != 0) {
        seam_cfg_error(root, "coupling", "scheme \"monolithic\": %s", err);
        seam_library_close(&pt->lib);
        pt->p = NULL;
    }
}

/* The plugin's configuration: obj without the keys the coupler consumes
 * (its own, and those of a participant in another process). */
static char *config_without(json_t *obj)
{
    static const char *const coupler_keys[] = {"plugin", "name", "vtk", NULL};
    json_t *copy = json_deep_copy(obj);
    if (!copy)
        return NULL;
    for (const char *const *k = coupler_keys; *k; k++)
        json_object_del(copy, *k);
    for (const char *const *k = remote_scene_keys; *k; k++)
        json_object_del(copy, *k);
    char *text = json_dumps(copy, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(copy);
    return text;
}

bool participant_create(seam_sim *sim, participant *pt)
{
    char *config = config_without(participant_json(sim, pt));
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", sim->out.dir, pt->name);
    pt->output_dir = strdup(dir);
    if (!config || !pt->output_dir) {
        free(config);
        sim_log(sim, SEAM_LOG_ERROR, pt->name, "out of memory");
        return false;
    }
    pt->host = (seam_host){
        .abi = SEAM_ABI_VERSION,
        .name = pt->name,
        .config_path = pt->config_path,
        .output_dir = pt->output_dir,
        .ctx = pt,
        .log = host_log,
        .locate = host_locate,
        .scene_dir = sim->scene_dir,
        .cell_size = sim->cell_size,
        .gravity = sim->gravity,
        .vtk_format = (uint32_t)(pt->vtk >= 0 ? pt->vtk : sim->out.vtk),
    };
    char from[4200];
    snprintf(from, sizeof from, "%s", pt->remote ? seam_remote_endpoint(pt->remote) : seam_library_path(pt->lib));
    pt->self = pt->p->create(pt->p, config, &pt->host);
    free(config);
    if (!pt->self) {
        sim_log(sim, SEAM_LOG_ERROR, pt->name, "could not be created from %s (%s); see the messages above",
                *pt->config_path ? pt->config_path : "the scene's fluid and solids", from);
        return false;
    }
    pt->proxy = pt->remote ? pt->self : NULL;   /* a proxy's instance is its remote (remote.h) */
    pt->remote = NULL;   /* the instance owns it now */
    pt->caps = seam_plugin_caps(pt->p, pt->self);
    pt->stats.name = pt->name;
    pt->stats.plugin = pt->p->name;
    pt->stats.role = pt->role;
    return true;
}

void participant_free(participant *pt)
{
    if (pt->self)
        pt->p->destroy(pt->self);
    seam_remote_close(&pt->remote);
    seam_library_close(&pt->lib);
    free(pt->name);
    free(pt->plugin_name);
    free(pt->config_path);
    free(pt->output_dir);
    json_decref(pt->config);
}

seam_status participant_solve(participant *pt, const seam_step *step, const seam_input *in, seam_output *out)
{
    double t0 = sim_now();
    seam_status st = pt->p->solve(pt->self, step, in, out);
    pt->stats.seconds += sim_now() - t0;
    pt->stats.solves++;
    return participant_check(pt, "solve", step, st);
}

seam_status participant_check(participant *pt, const char *what, const seam_step *step, seam_status st)
{
    if (st == SEAM_ERROR)
        sim_log(pt->sim, SEAM_LOG_ERROR, pt->name, "%s failed at step %lld (t = %.9g s)", what, (long long)step->index,
                step->t);
    else if (st == SEAM_UNSTABLE) {
        pt->sim->unstable = pt;
        sim_log(pt->sim, SEAM_LOG_WARN, pt->name, "step %lld (t = %.9g s, dt = %.3g s) is unstable",
                (long long)step->index, step->t, step->dt);
    }
    else if (st != SEAM_OK) {
        sim_log(pt->sim, SEAM_LOG_ERROR, pt->name, "%s returned unknown status %d at step %lld", what, (int)st,
                (long long)step->index);
        return SEAM_ERROR;
    }
    return st;
}

static seam_status commit_failed(participant *pt, long step)
{
    sim_log(pt->sim, SEAM_LOG_ERROR, pt->name, "commit failed at step %ld", step);
    return SEAM_ERROR;
}

/* The remote participants' commits are sent first and their replies awaited
 * last, so that their servers commit at once, and while the local ones do.
 * Each participant is charged the time spent on its own part: sending, its
 * local commit, then waiting for its reply after the ones before it. */
seam_status participants_commit(seam_sim *sim, long step)
{
    seam_status result = SEAM_OK;
    for (size_t i = 0; i < sim->n_parts; i++) {
        participant *pt = &sim->parts[i];
        if (!pt->proxy)
            continue;
        double t0 = sim_now();
        pt->committing = seam_remote_commit_begin(pt->proxy) == 0;
        pt->stats.seconds += sim_now() - t0;
        if (!pt->committing) {
            result = commit_failed(pt, step);
            break;
        }
    }
    for (size_t i = 0; i < sim->n_parts && result == SEAM_OK; i++) {
        participant *pt = &sim->parts[i];
        if (pt->proxy)
            continue;
        double t0 = sim_now();
        seam_status st = pt->p->commit(pt->self);
        pt->stats.seconds += sim_now() - t0;
        if (st != SEAM_OK)
            result = commit_failed(pt, step);
    }
    for (size_t i = 0; i < sim->n_parts; i++) {   /* every commit begun is seen through, whatever failed */
        participant *pt = &sim->parts[i];
        if (!pt->committing)
            continue;
        pt->committing = false;
        double t0 = sim_now();
        seam_status st = seam_remote_commit_end(pt->proxy);
        pt->stats.seconds += sim_now() - t0;
        if (st != SEAM_OK)
            result = commit_failed(pt, step);
    }
    return result;
}
