/* Participants: one solver each, in this process (a library) or another
 * (the remote proxy, an ordinary plugin table); the host they are handed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "participant.h"
#include "remote_keys.h"
#include "seam/alloc.h"
#include "seam/threads.h"
#include "seam/vtk.h"

static void host_log(void *ctx, seam_log_level level, const char *message)
{
    participant *pt = ctx;
    if (level == SEAM_LOG_WARN) {
        pt->stats.warnings++;
        snprintf(pt->last_warning, sizeof pt->last_warning, "%s", message);
    }
    sim_log(pt->all->env.log, level, pt->name, "%s", message);
}

static const char *host_locate(void *ctx, const char *key_path)
{
    participant *pt = ctx;
    char full[1024];
    bool dot = *pt->config_path && *key_path && *key_path != '[';   /* "" is the scene itself (monolithic) */
    snprintf(full, sizeof full, "%s%s%s", pt->config_path, dot ? "." : "", key_path);
    return seam_doc_locate(pt->all->env.doc, full);
}

/* The participant's object in the scene document ("fluid", "solids[2]"). */
static json_t *participant_json(sim_participants *ps, const participant *pt)
{
    if (pt->config)
        return pt->config;
    json_t *root = seam_doc_root(ps->env.doc);
    if (strncmp(pt->config_path, "solids[", 7) == 0)
        return json_array_get(json_object_get(root, "solids"), strtoul(pt->config_path + 7, NULL, 10));
    return json_object_get(root, pt->config_path);
}

/* Read one participant object; load its library (or reach its server) and
 * check its role. */
void participant_read(sim_participants *ps, seam_cfg *obj, const char *default_name, seam_role role, participant *pt)
{
    pt->all = ps;
    pt->role = role;
    pt->config_path = seam_xstrdup(seam_cfg_path(obj));
    bool connect = seam_cfg_has(obj, "connect");   /* the server names its plugin itself */
    bool command = seam_cfg_has(obj, "command");   /* so does a program the coupler starts */
    const char *plugin = seam_cfg_str(obj, "plugin", NULL, connect || command ? 0 : SEAM_CFG_REQUIRED);
    pt->name = seam_xstrdup(seam_cfg_str(obj, "name", default_name, 0));
    pt->vtk = seam_cfg_enum(obj, "vtk", seam_vtk_format_names, -1, 0);   /* a host setting, not the plugin's key */
    char why[256];
    if (seam_participant_name_check(pt->name, why, sizeof why) != 0)
        seam_cfg_error(obj, "name", "%s", why);
    for (size_t i = 0; i < ps->n_parts; i++)
        if (&ps->parts[i] != pt && ps->parts[i].name && strcmp(ps->parts[i].name, pt->name) == 0)
            seam_cfg_error(obj, "name", "participant name \"%s\" is used twice", pt->name);
    char path[4096];
    const char *open_name = plugin;
    if (plugin && strchr(plugin, '/') && plugin[0] != '/') {   /* relative paths are relative to the scene */
        snprintf(path, sizeof path, "%s/%s", ps->env.scene_dir, plugin);
        open_name = path;
    }
    char err[2048];
    if (command && ps->env.plugins_on_path_only) {   /* starting it would run the scene's program */
        seam_cfg_error(obj, "command", "not started: a command runs a program the scene names, which seam validate "
                       "does not do; --allow-any-plugin starts it (docs/security.md)");
        const char *key;
        json_t *v;
        json_object_foreach(participant_json(ps, pt), key, v) seam_cfg_skip(obj, key);
        return;
    }
    if (plugin && !connect && !command && ps->env.plugins_on_path_only && !seam_plugin_on_search_path(open_name)) {
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
        json_object_foreach(participant_json(ps, pt), key, v) seam_cfg_skip(obj, key);
        return;
    }
    seam_remote *remote = NULL;
    int remote_rc = remote_from_scene(obj, open_name, pt->name, ps->env.scene_dir, &remote, err, sizeof err);
    /* The rest of the object is the plugin's, checked by its create. */
    const char *key;
    json_t *v;
    json_object_foreach(participant_json(ps, pt), key, v) seam_cfg_skip(obj, key);
    const char *where = seam_doc_locate(ps->env.doc, pt->config_path);
    if (remote_rc != 0 || !plugin) {
        if (remote_rc < 0 && err[0])
            sim_log(ps->env.log, SEAM_LOG_ERROR, NULL, "%s: %s: %s", where, pt->config_path, err);
        pt->remote = remote;   /* starting: participant_ready waits for its hello */
        return;
    }
    pt->plugin_name = seam_xstrdup(plugin);
    pt->lib = seam_library_open(open_name, err, sizeof err);
    if (!pt->lib) {
        sim_log(ps->env.log, SEAM_LOG_ERROR, NULL, "%s: %s.plugin: %s", where, pt->config_path, err);
        return;
    }
    pt->p = seam_library_plugin(pt->lib);
    if (seam_plugin_check_role(pt->p, seam_library_path(pt->lib), role, pt->config_path, err, sizeof err) != 0) {
        sim_log(ps->env.log, SEAM_LOG_ERROR, NULL, "%s: %s", where, err);
        seam_library_close(&pt->lib);
        pt->p = NULL;
    }
}

bool participant_ready(sim_participants *ps, participant *pt)
{
    char err[2048];
    const char *where = seam_doc_locate(ps->env.doc, pt->config_path);
    if (seam_remote_ready(pt->remote, err, sizeof err) != 0) {
        sim_log(ps->env.log, SEAM_LOG_ERROR, NULL, "%s: %s: %s", where, pt->config_path, err);
        seam_remote_close(&pt->remote);
        return false;
    }
    if (seam_remote_program(pt->remote))   /* which server: an installed seam starts its own prefix's */
        sim_log(ps->env.log, SEAM_LOG_INFO, pt->name, "started %s (pid %ld) on %s", seam_remote_program(pt->remote),
                seam_remote_pid(pt->remote), seam_remote_endpoint(pt->remote));
    pt->p = seam_remote_plugin(pt->remote);
    free(pt->plugin_name);
    pt->plugin_name = seam_xstrdup(pt->p->name);
    /* the server as its other messages name it: a started one by its program (its socket is a private file) */
    char server[1100];
    if (seam_remote_program(pt->remote))
        snprintf(server, sizeof server, "%s (pid %ld)", seam_remote_program(pt->remote), seam_remote_pid(pt->remote));
    else
        snprintf(server, sizeof server, "%s", seam_remote_endpoint(pt->remote));
    if (seam_plugin_check_role(pt->p, server, pt->role, pt->config_path, err, sizeof err) != 0) {
        sim_log(ps->env.log, SEAM_LOG_ERROR, NULL, "%s: %s: %s", where, pt->config_path, err);
        seam_remote_close(&pt->remote);
        pt->p = NULL;
        return false;
    }
    return true;
}

/* A participant's objects as one coupled solver sees them: one in-process
 * library each (the plugin creates them itself). */
static void refuse_remote(seam_cfg *obj, const char *plugin)
{
    for (const char *const *k = remote_scene_keys; *k; k++)
        if (strcmp(*k, "process") != 0 && seam_cfg_has(obj, *k))
            seam_cfg_error(obj, *k, "scheme \"%s\" runs every solver inside its own plugin, in this process: "
                           "a remote participant cannot take part", plugin);
    if (seam_cfg_has(obj, "vtk"))   /* one host for all: the run's output.vtk */
        seam_cfg_error(obj, "vtk", "scheme \"%s\" writes every solver's frames alike: set output.vtk", plugin);
    const char *process = seam_cfg_str(obj, "process", "inline", 0);
    if (process && strcmp(process, "inline") != 0)
        seam_cfg_error(obj, "process", "scheme \"%s\" runs every solver inside its own plugin, in this process "
                       "(\"%s\" is not possible)", plugin, process);
}

void participant_read_builtin(sim_participants *ps, seam_cfg *root, const char *plugin, const char *const *keys,
                              participant *pt)
{
    pt->all = ps;
    pt->role = SEAM_COUPLED;
    pt->vtk = -1;
    pt->config_path = seam_xstrdup("");
    pt->name = seam_xstrdup(plugin);
    pt->plugin_name = seam_xstrdup(plugin);
    json_t *scene = seam_doc_root(ps->env.doc);
    pt->config = json_object();
    json_t *mine = json_object();
    json_t *coupling = json_object_get(scene, "coupling");
    for (const char *const *k = keys; *k; k++)
        if (json_object_get(coupling, *k))
            json_object_set(mine, *k, json_object_get(coupling, *k));
    if (!pt->config || !mine || json_object_set(pt->config, "fluid", json_object_get(scene, "fluid")) ||
        json_object_set(pt->config, "solids", json_object_get(scene, "solids")) ||
        json_object_set_new(pt->config, "coupling", mine)) {
        seam_cfg_error(root, "coupling", "out of memory");
        return;
    }
    seam_cfg *f = seam_cfg_child(root, "fluid", 0);
    if (f) {
        refuse_remote(f, plugin);
        const char *key;
        json_t *v;
        json_object_foreach(json_object_get(scene, "fluid"), key, v) seam_cfg_skip(f, key);
    }
    for (size_t i = 0; i < seam_cfg_count(root, "solids", 0); i++) {
        seam_cfg *s = seam_cfg_item(root, "solids", i);
        if (!s)
            continue;
        refuse_remote(s, plugin);
        const char *key;
        json_t *v;
        json_object_foreach(json_array_get(json_object_get(scene, "solids"), i), key, v) seam_cfg_skip(s, key);
    }
    char err[2048];
    pt->lib = seam_library_open(plugin, err, sizeof err);
    if (!pt->lib) {
        seam_cfg_error(root, "coupling", "scheme \"%s\": %s", plugin, err);
        return;
    }
    pt->p = seam_library_plugin(pt->lib);
    if (seam_plugin_check_role(pt->p, seam_library_path(pt->lib), SEAM_COUPLED, plugin, err, sizeof err) != 0) {
        seam_cfg_error(root, "coupling", "scheme \"%s\": %s", plugin, err);
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

static bool participant_create(sim_participants *ps, participant *pt, const char *out_dir)
{
    char *config = config_without(participant_json(ps, pt));
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", out_dir, pt->name);
    pt->output_dir = seam_xstrdup(dir);
    if (!config) {
        sim_log(ps->env.log, SEAM_LOG_ERROR, pt->name, "out of memory");
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
        .scene_dir = ps->env.scene_dir,
        .cell_size = ps->env.cell_size,
        .gravity = ps->env.gravity,
        .vtk_format = (uint32_t)(pt->vtk >= 0 ? pt->vtk : ps->env.vtk),
    };
    char from[4200];
    snprintf(from, sizeof from, "%s", pt->remote ? seam_remote_endpoint(pt->remote) : seam_library_path(pt->lib));
    pt->self = pt->p->create(pt->p, config, &pt->host);
    free(config);
    if (!pt->self) {
        sim_log(ps->env.log, SEAM_LOG_ERROR, pt->name, "could not be created from %s (%s); see the messages above",
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

bool participants_create(sim_participants *ps, const char *out_dir)
{
    bool ok = true;
    for (size_t i = 0; i < ps->n_parts; i++)
        if (ps->parts[i].p && !ps->parts[i].remote)
            ok &= participant_create(ps, &ps->parts[i], out_dir);
    for (size_t i = 0; i < ps->n_parts; i++)
        if (ps->parts[i].remote)
            ok &= participant_ready(ps, &ps->parts[i]) && participant_create(ps, &ps->parts[i], out_dir);
    return ok;
}

static void participant_free(participant *pt)
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
    seam_threads_tick();   /* each step on the policy's thread count (docs/performance.md, "Threads") */
    seam_status st = pt->p->solve(pt->self, step, in, out);
    pt->stats.seconds += sim_now() - t0;
    pt->stats.solves++;
    return participant_check(pt, "solve", step, st);
}

seam_status participant_check(participant *pt, const char *what, const seam_step *step, seam_status st)
{
    if (st == SEAM_ERROR)
        sim_log(pt->all->env.log, SEAM_LOG_ERROR, pt->name, "%s failed at step %lld (t = %.9g s)", what, (long long)step->index,
                step->t);
    else if (st == SEAM_UNSTABLE) {
        pt->all->unstable = pt;
        sim_log(pt->all->env.log, SEAM_LOG_WARN, pt->name, "step %lld (t = %.9g s, dt = %.3g s) is unstable",
                (long long)step->index, step->t, step->dt);
    }
    else if (st != SEAM_OK) {
        sim_log(pt->all->env.log, SEAM_LOG_ERROR, pt->name, "%s returned unknown status %d at step %lld", what, (int)st,
                (long long)step->index);
        return SEAM_ERROR;
    }
    return st;
}

static seam_status commit_failed(participant *pt, long step)
{
    sim_log(pt->all->env.log, SEAM_LOG_ERROR, pt->name, "commit failed at step %ld", step);
    return SEAM_ERROR;
}

/* The remote participants' commits are sent first and their replies awaited
 * last, so that their servers commit at once, and while the local ones do.
 * Each participant is charged the time spent on its own part: sending, its
 * local commit, then waiting for its reply after the ones before it. */
seam_status participants_commit(sim_participants *ps, long step)
{
    seam_status result = SEAM_OK;
    for (size_t i = 0; i < ps->n_parts; i++) {
        participant *pt = &ps->parts[i];
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
    for (size_t i = 0; i < ps->n_parts && result == SEAM_OK; i++) {
        participant *pt = &ps->parts[i];
        if (pt->proxy)
            continue;
        double t0 = sim_now();
        seam_status st = pt->p->commit(pt->self);
        pt->stats.seconds += sim_now() - t0;
        if (st != SEAM_OK)
            result = commit_failed(pt, step);
    }
    for (size_t i = 0; i < ps->n_parts; i++) {   /* every commit begun is seen through, whatever failed */
        participant *pt = &ps->parts[i];
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

void participants_init(sim_participants *ps, size_t n)
{
    ps->parts = SEAM_NEW_N(participant, n);
    ps->n_parts = n;
    ps->first_solid = 1;
}

void participants_free(sim_participants *ps)
{
    for (size_t i = 0; i < ps->n_parts; i++)
        participant_free(&ps->parts[i]);
    free(ps->parts);
    ps->parts = NULL;
    ps->n_parts = 0;
}

void participants_begin_attempt(sim_participants *ps)
{
    ps->unstable = NULL;
    for (size_t i = 0; i < ps->n_parts; i++)   /* the cause quoted after this attempt is its own */
        ps->parts[i].last_warning[0] = '\0';
}

double participants_max_dt(sim_participants *ps, double dt_max, double dt_min, long step, double t)
{
    double dt = dt_max;
    for (size_t i = 0; i < ps->n_parts; i++) {
        participant *pt = &ps->parts[i];
        double m = NAN;
        if (pt->p->max_dt(pt->self, &m) != SEAM_OK) {
            sim_log(ps->env.log, SEAM_LOG_ERROR, pt->name, "max_dt failed at step %ld (t = %.9g s)", step, t);
            return NAN;
        }
        if (isnan(m) || m <= 0.0) {
            sim_log(ps->env.log, SEAM_LOG_ERROR, pt->name, "max_dt returned %g at step %ld (t = %.9g s)", m, step, t);
            return NAN;
        }
        if (m < dt_min) {   /* a solver whose stable step collapsed: its state has blown up */
            sim_log(ps->env.log, SEAM_LOG_ERROR, pt->name, "its stable step fell to %.3g s at step %ld (t = %.9g s), "
                    "below time.dt_min = %.3g s: its state is blowing up (see its messages above) or dt_min is too "
                    "large", m, step, t, dt_min);
            return NAN;
        }
        dt = fmin(dt, m);
    }
    return dt;
}

double participants_seconds(const sim_participants *ps)
{
    double s = 0.0;
    for (size_t i = 0; i < ps->n_parts; i++)
        s += ps->parts[i].stats.seconds;
    return s;
}

participant *participants_field_source(sim_participants *ps)
{
    return ps->fluid ? ps->fluid : ps->coupled;
}

bool participants_check_save(sim_participants *ps, const char *where, const char *what)
{
    bool ok = true;
    for (size_t i = 0; i < ps->n_parts; i++) {
        participant *pt = &ps->parts[i];
        if (pt->p->save && pt->p->load && (pt->caps & SEAM_CAP_SAVE))
            continue;
        sim_log(ps->env.log, SEAM_LOG_ERROR, pt->name, "%s: %s needs every participant's save and load; %s (%s) has "
                "none", where, what, pt->name, pt->p->name);
        ok = false;
    }
    return ok;
}

seam_status participants_save(sim_participants *ps, seam_ckpt_writer *w, long step, double t)
{
    for (size_t i = 0; i < ps->n_parts; i++) {
        participant *pt = &ps->parts[i];
        seam_buffer buf = {NULL, 0};
        seam_status st = pt->p->save(pt->self, &buf);
        if (st != SEAM_OK) {
            sim_log(ps->env.log, SEAM_LOG_ERROR, pt->name, "save failed for the checkpoint after step %ld (t = %.9g s)",
                    step, t);
            return SEAM_ERROR;
        }
        char name[512];
        snprintf(name, sizeof name, "participant/%s", pt->name);
        seam_ckpt_section(w, name);
        seam_ckpt_put_str(w, pt->p->name);
        seam_ckpt_put_f64(w, pt->stats.seconds);
        seam_ckpt_put_i64(w, pt->stats.solves);
        seam_ckpt_put_bytes(w, buf.data, buf.size);
        /* a section of its own, so checkpoints written before the count existed still load */
        snprintf(name, sizeof name, "warnings/%s", pt->name);
        seam_ckpt_section(w, name);
        seam_ckpt_put_i64(w, pt->stats.warnings);
    }
    return SEAM_OK;
}

void participants_load(sim_participants *ps, seam_ckpt_reader *r, long steps, double t)
{
    for (size_t i = 0; i < ps->n_parts && seam_ckpt_ok(r, false); i++) {
        participant *pt = &ps->parts[i];
        char name[512];
        snprintf(name, sizeof name, "participant/%s", pt->name);
        if (!seam_ckpt_need(r, name))
            return;
        char *plugin = seam_ckpt_get_str(r);
        if (plugin && strcmp(plugin, pt->p->name) != 0)
            seam_ckpt_fail(r, "saved by plugin %s, this run's %s is %s", plugin, pt->name, pt->p->name);
        free(plugin);
        pt->stats.seconds = seam_ckpt_get_f64(r);
        pt->stats.solves = (long)seam_ckpt_get_i64(r);
        size_t n;
        const void *bytes = seam_ckpt_get_bytes(r, &n);
        if (!seam_ckpt_ok(r, true))
            return;
        if (pt->proxy)
            seam_remote_at(pt->proxy, steps, t);
        if (pt->p->load(pt->self, bytes, n) != SEAM_OK)
            seam_ckpt_fail(r, "%s (%s) could not load its state of %zu bytes, saved after step %ld (t = %.9g s) "
                           "(see its message above)", pt->name, pt->p->name, n, steps - 1, t);
        snprintf(name, sizeof name, "warnings/%s", pt->name);
        if (seam_ckpt_ok(r, false) && seam_ckpt_find(r, name)) {   /* absent in older checkpoints */
            pt->stats.warnings += (long)seam_ckpt_get_i64(r);
            seam_ckpt_ok(r, true);
        }
    }
}
