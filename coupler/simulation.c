/* The coupler: participants, the concatenated interface, the time loop. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "seam/loader.h"
#include "seam/log.h"
#include "seam/picture.h"
#include "remote.h"
#include "scheme.h"
#include "simulation.h"
#include "lanes.h"

/* ---- participants ------------------------------------------------------ */

typedef struct participant {
    struct seam_sim *sim;
    char *name;
    char *plugin_name;
    char *config_path;       /* "fluid", "solids[1]" */
    seam_role role;
    seam_library *lib;
    seam_remote *remote;     /* a proxy's; the instance owns it once created */
    const seam_plugin *p;
    void *self;
    seam_host host;
    char *output_dir;
    size_t offset, n_points; /* its slice of the concatenated interface (solids) */
    seam_participant_stats stats;
} participant;

struct seam_coupling {
    struct seam_sim *sim;
    size_t n;                /* points x dim */
    int dim;
    const double *Xn;
    double dt, t;
    long step;
    int fluid_calls, solid_calls, judged;
    double residual, first_residual;
    double scale;            /* interface extent, for the round-off floor */
    double *V;               /* effective velocities handed to the fluid */
    double *V_solid;         /* velocities the solids returned */
};

enum { PREDICT_NONE, PREDICT_LINEAR };

struct seam_sim {
    seam_doc *doc;
    seam_run_options opts;
    char *scene_dir;
    /* time */
    double t_end, dt_max, dt_min, frame_dt;
    double cell_size;        /* the fluid cell size the scene names, 0: none */
    /* coupling */
    const seam_scheme_ops *scheme;
    void *scheme_self;
    double tolerance, divergence;
    bool relative;
    int max_iterations;
    bool fail_unconverged;
    int predictor;
    /* participants: fluid (or coupled) first, then the solids */
    participant *parts;
    size_t n_parts;
    participant *fluid, *coupled;
    size_t first_solid;
    /* the interface */
    int dim;
    size_t n_points, n_elems, n_bodies;
    int nodes_per_elem;
    double *X0;              /* concatenated positions, as described */
    double *mass;
    int32_t *body, *elems;
    uint8_t *two_sided;
    double *Xn, *Xnm1, *X_pred, *X_out;
    double dt_prev;
    seam_coupling coupling;
    /* output */
    char *out_dir;
    bool write_stats, write_interface, write_frames;
    char *picture_field;     /* fluid field drawn into PNG frames (2D), NULL: none */
    bool picture_explicit;   /* named in the scene, so a failure is an error */
    seam_picture_opts picture_opts;
    FILE *stats_csv, *residuals_csv, *interface_csv;
    int frame;
    double next_frame;
    /* bookkeeping */
    seam_summary summary;
    int last_iterations;
    seam_participant_stats *pstats;
    char where[512];
    int errors;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void discard_log(void *ctx, seam_log_level level, const char *who, const char *message)
{
    (void)ctx, (void)level, (void)who, (void)message;
}

static void sim_log(seam_sim *sim, seam_log_level level, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void sim_log(seam_sim *sim, seam_log_level level, const char *who, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (level >= SEAM_LOG_ERROR)
        sim->errors++;
    char full[2200];
    if (level == SEAM_LOG_WARN)
        snprintf(full, sizeof full, "warning: %s", msg);
    else if (level == SEAM_LOG_ERROR)
        snprintf(full, sizeof full, "error: %s", msg);
    else
        snprintf(full, sizeof full, "%s", msg);
    sim->opts.log(sim->opts.log_ctx, level, who, full);
}

static void host_log(void *ctx, seam_log_level level, const char *message)
{
    participant *pt = ctx;
    sim_log(pt->sim, level, pt->name, "%s", message);
}

static const char *host_locate(void *ctx, const char *key_path)
{
    participant *pt = ctx;
    char full[1024];
    snprintf(full, sizeof full, "%s%s%s", pt->config_path, *key_path && *key_path != '[' ? "." : "", key_path);
    return seam_doc_locate(pt->sim->doc, full);
}

static void cfg_report(void *ctx, const char *where, const char *key_path, const char *message)
{
    seam_sim *sim = ctx;
    sim_log(sim, SEAM_LOG_ERROR, NULL, "%s%s%s: %s", where ? where : "", where ? ": " : "", key_path, message);
}

static int mkdir_p(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* ---- the scene ---------------------------------------------------------- */

static const char *const convergence_names[] = {"absolute", "relative", "cells", NULL};
enum { CONVERGE_ABSOLUTE, CONVERGE_RELATIVE, CONVERGE_CELLS };
static const char *const unconverged_names[] = {"warn", "fail", NULL};
static const char *const predictor_names[] = {"none", "linear", NULL};

static const char *locate_key(seam_sim *sim, const char *object, const char *key)
{
    char path[512];
    snprintf(path, sizeof path, "%s.%s", object, key);
    return seam_doc_locate(sim->doc, path);
}

/* Keys of `coupling` that belong to a scheme other than the chosen one:
 * accepted with a warning that they do nothing, so switching schemes with
 * --set does not need the scene edited. */
static void skip_other_scheme_keys(seam_sim *sim, seam_cfg *coupling, json_t *obj)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        for (size_t i = 0; i < seam_scheme_count(); i++) {
            const seam_scheme_ops *s = seam_scheme_at(i);
            if (s == sim->scheme)
                continue;
            bool mine = false, theirs = false;
            for (const char *const *k = sim->scheme->keys; *k; k++)
                mine |= strcmp(*k, key) == 0;
            for (const char *const *k = s->keys; *k; k++)
                theirs |= strcmp(*k, key) == 0;
            if (theirs && !mine) {
                seam_cfg_skip(coupling, key);
                sim_log(sim, SEAM_LOG_WARN, NULL, "%s: coupling.%s has no effect: scheme \"%s\" does not use it (scheme \"%s\" does)",
                        locate_key(sim, "coupling", key), key, sim->scheme->name, s->name);
                break;
            }
        }
    }
}

static char *config_without(json_t *obj, const char *const *drop)
{
    json_t *copy = json_deep_copy(obj);
    for (const char *const *k = drop; *k; k++)
        json_object_del(copy, *k);
    char *text = json_dumps(copy, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(copy);
    return text;
}

static const char *const coupler_keys[] = {"plugin", "name", "connect", "process", "timeout", "heartbeat",
                                           "start_timeout", "server_key", "client_key", NULL};

/* The participant's object in the scene document ("fluid", "solids[2]"). */
static json_t *participant_json(seam_sim *sim, const participant *pt)
{
    json_t *root = seam_doc_root(sim->doc);
    if (strncmp(pt->config_path, "solids[", 7) == 0)
        return json_array_get(json_object_get(root, "solids"), strtoul(pt->config_path + 7, NULL, 10));
    return json_object_get(root, pt->config_path);
}

/* Read one participant object; load its library (or reach its server) and
 * check its role. */
static void read_participant(seam_sim *sim, seam_cfg *obj, const char *default_name, seam_role role,
                             participant *pt)
{
    pt->sim = sim;
    pt->role = role;
    pt->config_path = strdup(seam_cfg_path(obj));
    bool connect = seam_cfg_has(obj, "connect");   /* the server names its plugin itself */
    const char *plugin = seam_cfg_str(obj, "plugin", NULL, connect ? 0 : SEAM_CFG_REQUIRED);
    pt->name = strdup(seam_cfg_str(obj, "name", default_name, 0));
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
    seam_remote *remote = NULL;
    int remote_rc = seam_remote_from_config(obj, open_name, pt->name, sim->scene_dir, &remote, err, sizeof err);
    /* The rest of the object is the plugin's, checked by its create. */
    const char *key;
    json_t *v;
    json_object_foreach(participant_json(sim, pt), key, v) seam_cfg_skip(obj, key);
    if (remote_rc != 0 || !plugin) {
        if (remote_rc < 0 && err[0])
            sim_log(sim, SEAM_LOG_ERROR, NULL, "%s: %s: %s", seam_doc_locate(sim->doc, pt->config_path),
                    pt->config_path, err);
        if (remote) {
            pt->plugin_name = strdup(seam_remote_plugin(remote)->name);
            pt->p = seam_remote_plugin(remote);
            pt->remote = remote;
            if (seam_plugin_check_role(pt->p, seam_remote_endpoint(remote), role, pt->config_path, err, sizeof err) != 0) {
                sim_log(sim, SEAM_LOG_ERROR, NULL, "%s: %s", seam_doc_locate(sim->doc, pt->config_path), err);
                seam_remote_close(&remote);
                pt->remote = NULL;
                pt->p = NULL;
            }
        }
        return;
    }
    pt->plugin_name = strdup(plugin);
    pt->lib = seam_library_open(open_name, err, sizeof err);
    if (!pt->lib) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "%s: %s.plugin: %s", seam_doc_locate(sim->doc, pt->config_path),
                pt->config_path, err);
        return;
    }
    pt->p = seam_library_plugin(pt->lib);
    if (seam_plugin_check_role(pt->p, seam_library_path(pt->lib), role, pt->config_path, err, sizeof err) != 0) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "%s: %s", seam_doc_locate(sim->doc, pt->config_path), err);
        seam_library_close(&pt->lib);
        pt->p = NULL;
    }
}

static void read_scene(seam_sim *sim, seam_cfg *root)
{
    sim->cell_size = seam_cfg_num(root, "cell_size", 0.0, 0.0, INFINITY, SEAM_CFG_LO_OPEN);
    seam_cfg *time = seam_cfg_child(root, "time", SEAM_CFG_REQUIRED);
    if (time) {
        sim->t_end = seam_cfg_num(time, "end", 1.0, 0.0, INFINITY, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN);
        sim->dt_max = seam_cfg_num(time, "dt", INFINITY, 0.0, INFINITY, SEAM_CFG_LO_OPEN);
        sim->dt_min = seam_cfg_num(time, "dt_min", 0.0, 0.0, INFINITY, 0);
        sim->frame_dt = seam_cfg_num(time, "frame", 0.0, 0.0, INFINITY, SEAM_CFG_LO_OPEN);
    }
    if (sim->opts.end > 0)
        sim->t_end = sim->opts.end;
    if (!(sim->frame_dt > 0))
        sim->frame_dt = sim->t_end / 100.0;
    if (sim->dt_min == 0.0)
        sim->dt_min = 1e-12 * sim->t_end;

    seam_cfg *coupling = seam_cfg_child(root, "coupling", 0);
    bool has_coupled = seam_cfg_has(root, "coupled");
    static const char *scheme_names[16];
    size_t ns = seam_scheme_count();
    for (size_t i = 0; i < ns && i < 15; i++)
        scheme_names[i] = seam_scheme_at(i)->name;
    scheme_names[ns < 15 ? ns : 15] = NULL;
    if (coupling) {
        int s = seam_cfg_enum(coupling, "scheme", scheme_names, 1, 0);
        sim->scheme = seam_scheme_at((size_t)s);
        sim->tolerance = seam_cfg_num(coupling, "tolerance", 1e-6, 0.0, INFINITY, SEAM_CFG_LO_OPEN);
        int mode = seam_cfg_enum(coupling, "convergence", convergence_names, CONVERGE_ABSOLUTE, 0);
        sim->relative = mode == CONVERGE_RELATIVE;
        if (mode == CONVERGE_CELLS) {
            if (sim->cell_size > 0)
                sim->tolerance *= sim->cell_size;   /* Akbay 2.6: 5% of the fluid cell size */
            else
                seam_cfg_error(coupling, "convergence", "\"cells\" needs the scene's top-level \"cell_size\"");
        }
        sim->max_iterations = (int)seam_cfg_int(coupling, "max_iterations", 50, 1, 100000, 0);
        sim->fail_unconverged = seam_cfg_enum(coupling, "on_nonconvergence", unconverged_names, 0, 0) == 1;
        sim->predictor = seam_cfg_enum(coupling, "predictor", predictor_names, PREDICT_LINEAR, 0);
        sim->divergence = seam_cfg_num(coupling, "divergence", 1e8, 1.0, INFINITY, SEAM_CFG_LO_OPEN);
        skip_other_scheme_keys(sim, coupling, seam_cfg_json(root, "coupling"));
        if (sim->scheme == &seam_scheme_explicit) {
            /* One solve each per step: nothing to converge. */
            static const char *const idle[] = {"tolerance", "convergence", "max_iterations", "on_nonconvergence", "divergence"};
            for (size_t i = 0; i < sizeof idle / sizeof idle[0]; i++)
                if (json_object_get(seam_cfg_json(root, "coupling"), idle[i]))
                    sim_log(sim, SEAM_LOG_WARN, NULL, "%s: coupling.%s has no effect: scheme \"explicit\" does not iterate",
                            locate_key(sim, "coupling", idle[i]), idle[i]);
        }
        if (has_coupled)
            sim_log(sim, SEAM_LOG_WARN, NULL, "%s: coupling has no effect: a \"coupled\" participant advances fluid and solid itself",
                    seam_doc_locate(sim->doc, "coupling"));
        sim->scheme_self = sim->scheme->create ? sim->scheme->create(coupling) : NULL;
    } else {
        sim->scheme = &seam_scheme_relaxation;
        sim->tolerance = 1e-6;
        sim->max_iterations = 50;
        sim->predictor = PREDICT_LINEAR;
        sim->divergence = 1e8;
        if (!has_coupled)
            seam_cfg_error(root, "coupling", "required key is missing (a scene with a fluid and solids needs a scheme)");
    }

    size_t n_solids = seam_cfg_count(root, "solids", 0);
    bool has_fluid = seam_cfg_has(root, "fluid");
    if (has_coupled && (has_fluid || n_solids)) {
        seam_cfg_error(root, "coupled", "a scene has either \"coupled\" or \"fluid\" and \"solids\", not both");
        return;
    }
    if (!has_coupled && (!has_fluid || n_solids == 0)) {
        seam_cfg_error(root, has_fluid ? "solids" : "fluid",
                       "required key is missing (a scene needs \"fluid\" and at least one entry in \"solids\", or \"coupled\")");
        return;
    }
    sim->n_parts = has_coupled ? 1 : 1 + n_solids;
    sim->parts = calloc(sim->n_parts, sizeof *sim->parts);
    sim->first_solid = 1;
    if (has_coupled) {
        seam_cfg *c = seam_cfg_child(root, "coupled", 0);
        if (c)
            read_participant(sim, c, "coupled", SEAM_COUPLED, &sim->parts[0]);
        sim->coupled = &sim->parts[0];
    } else {
        seam_cfg *f = seam_cfg_child(root, "fluid", 0);
        if (f)
            read_participant(sim, f, "fluid", SEAM_FLUID, &sim->parts[0]);
        sim->fluid = &sim->parts[0];
        for (size_t i = 0; i < n_solids; i++) {
            seam_cfg *s = seam_cfg_item(root, "solids", i);
            char def[32];
            snprintf(def, sizeof def, n_solids == 1 ? "solid" : "solid%zu", i);
            if (s)
                read_participant(sim, s, def, SEAM_SOLID, &sim->parts[1 + i]);
        }
    }

    seam_cfg *out = seam_cfg_child(root, "output", 0);
    const char *dir = NULL;
    sim->write_stats = true;
    sim->write_frames = true;
    const char *picture = "speed";
    if (out) {
        dir = seam_cfg_str(out, "dir", NULL, 0);
        sim->write_stats = seam_cfg_bool(out, "stats", true, 0);
        sim->write_interface = seam_cfg_bool(out, "interface", false, 0);
        sim->write_frames = seam_cfg_bool(out, "frames", true, 0);
        seam_cfg *pic = seam_cfg_child(out, "picture", 0);
        if (pic) {
            picture = seam_cfg_str(pic, "field", "speed", 0);
            sim->picture_explicit = true;
            double range[2] = {0.0, 0.0};
            if (seam_cfg_vec(pic, "range", range, 2, 0) && !(range[1] > range[0]))
                seam_cfg_error(pic, "range", "expected [low, high] with low < high");
            sim->picture_opts.range[0] = range[0];
            sim->picture_opts.range[1] = range[1];
            sim->picture_opts.pixels_per_cell = (int)seam_cfg_int(pic, "pixels_per_cell", 0, 1, 64, 0);
        } else if (seam_cfg_has(out, "picture") && json_is_false(seam_cfg_json(out, "picture")))
            picture = NULL;
    }
    sim->picture_field = picture ? strdup(picture) : NULL;
    if (sim->opts.out_dir)
        sim->out_dir = strdup(sim->opts.out_dir);
    else if (dir && dir[0] == '/')
        sim->out_dir = strdup(dir);
    else if (dir) {
        char buf[4096];
        snprintf(buf, sizeof buf, "%s/%s", sim->scene_dir, dir);
        sim->out_dir = strdup(buf);
    } else {
        /* Default: out/<scene name without .json> in the working directory. */
        const char *origin = seam_doc_origin(sim->doc);
        const char *base = strrchr(origin, '/') ? strrchr(origin, '/') + 1 : origin;
        char buf[4096];
        snprintf(buf, sizeof buf, "out/%s", base);
        char *dot = strrchr(buf, '.');
        if (dot && strcmp(dot, ".json") == 0)
            *dot = '\0';
        sim->out_dir = strdup(buf);
    }
}

/* ---- instances and the interface --------------------------------------- */

static bool create_participant(seam_sim *sim, participant *pt)
{
    char *config = config_without(participant_json(sim, pt), coupler_keys);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", sim->out_dir, pt->name);
    pt->output_dir = strdup(dir);
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
    };
    char from[4200];
    snprintf(from, sizeof from, "%s", pt->remote ? seam_remote_endpoint(pt->remote) : seam_library_path(pt->lib));
    pt->self = pt->p->create(pt->p, config, &pt->host);
    free(config);
    if (!pt->self) {
        sim_log(sim, SEAM_LOG_ERROR, pt->name, "could not be created from %s (%s); see the messages above",
                pt->config_path, from);
        return false;
    }
    pt->stats.name = pt->name;
    pt->stats.plugin = pt->p->name;
    pt->stats.role = pt->role;
    return true;
}

/* Concatenate the solids' surfaces: indices and body ids are offset. */
static bool build_interface(seam_sim *sim)
{
    size_t n_solids = sim->n_parts - sim->first_solid;
    seam_interface *ifs = calloc(n_solids, sizeof *ifs);
    bool ok = true;
    sim->dim = 0;
    for (size_t s = 0; s < n_solids; s++) {
        participant *pt = &sim->parts[sim->first_solid + s];
        if (pt->p->describe(pt->self, &ifs[s]) != SEAM_OK) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name, "describe failed");
            ok = false;
            continue;
        }
        seam_interface *f = &ifs[s];
        if (f->dim < 1 || f->dim > 3 || (f->n_points && !f->X)) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name, "describe returned an invalid interface (dim %d, %zu points)",
                    f->dim, f->n_points);
            ok = false;
            continue;
        }
        if (sim->dim && f->dim != sim->dim) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name, "its interface has dimension %d, but %s's has %d",
                    f->dim, sim->parts[sim->first_solid].name, sim->dim);
            ok = false;
        }
        sim->dim = f->dim;
        if (f->n_elems && sim->nodes_per_elem && f->nodes_per_elem != sim->nodes_per_elem) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name, "its interface elements have %d nodes, others have %d",
                    f->nodes_per_elem, sim->nodes_per_elem);
            ok = false;
        }
        if (f->n_elems)
            sim->nodes_per_elem = f->nodes_per_elem;
        for (size_t e = 0; e < f->n_elems * (size_t)f->nodes_per_elem; e++)
            if (f->elems[e] < 0 || (size_t)f->elems[e] >= f->n_points) {
                sim_log(sim, SEAM_LOG_ERROR, pt->name, "interface element %zu refers to point %d of %zu",
                        e / (size_t)f->nodes_per_elem, f->elems[e], f->n_points);
                ok = false;
                break;
            }
        pt->offset = sim->n_points;
        pt->n_points = f->n_points;
        sim->n_points += f->n_points;
        sim->n_elems += f->n_elems;
    }
    if (ok && sim->n_points == 0) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "the solids describe no interface points");
        ok = false;
    }
    if (ok) {
        size_t n = sim->n_points * (size_t)sim->dim;
        sim->X0 = calloc(n, sizeof *sim->X0);
        sim->mass = calloc(sim->n_points, sizeof *sim->mass);
        sim->body = calloc(sim->n_points, sizeof *sim->body);
        sim->elems = calloc(sim->n_elems * (size_t)(sim->nodes_per_elem ? sim->nodes_per_elem : 1) + 1, sizeof *sim->elems);
        sim->two_sided = calloc(sim->n_elems + 1, 1);
        size_t e_at = 0;
        int32_t body_base = 0;
        for (size_t s = 0; s < n_solids; s++) {
            participant *pt = &sim->parts[sim->first_solid + s];
            seam_interface *f = &ifs[s];
            memcpy(sim->X0 + pt->offset * (size_t)sim->dim, f->X, f->n_points * (size_t)f->dim * sizeof(double));
            int32_t max_body = 0;
            for (size_t i = 0; i < f->n_points; i++) {
                sim->mass[pt->offset + i] = f->mass ? f->mass[i] : 0.0;
                int32_t b = f->body ? f->body[i] : 0;
                sim->body[pt->offset + i] = body_base + b;
                if (b > max_body)
                    max_body = b;
            }
            for (size_t e = 0; e < f->n_elems; e++) {
                for (int k = 0; k < f->nodes_per_elem; k++)
                    sim->elems[e_at * (size_t)sim->nodes_per_elem + (size_t)k] =
                        (int32_t)pt->offset + f->elems[e * (size_t)f->nodes_per_elem + (size_t)k];
                sim->two_sided[e_at] = f->two_sided ? f->two_sided[e] : 0;
                e_at++;
            }
            size_t nb = f->n_bodies ? f->n_bodies : (size_t)max_body + 1;
            body_base += (int32_t)nb;
        }
        sim->n_bodies = (size_t)body_base;
        sim->Xn = malloc(n * sizeof *sim->Xn);
        sim->Xnm1 = malloc(n * sizeof *sim->Xnm1);
        sim->X_pred = malloc(n * sizeof *sim->X_pred);
        sim->X_out = malloc(n * sizeof *sim->X_out);
        memcpy(sim->Xn, sim->X0, n * sizeof *sim->Xn);
        memcpy(sim->Xnm1, sim->X0, n * sizeof *sim->Xnm1);
        sim->coupling.V = calloc(n, sizeof(double));
        sim->coupling.V_solid = calloc(n, sizeof(double));
    }
    free(ifs);
    return ok;
}

static bool bind_fluid(seam_sim *sim)
{
    seam_interface iface = {
        .dim = sim->dim,
        .n_points = sim->n_points,
        .X = sim->X0,
        .mass = sim->mass,
        .body = sim->body,
        .nodes_per_elem = sim->nodes_per_elem,
        .n_elems = sim->n_elems,
        .elems = sim->elems,
        .two_sided = sim->two_sided,
        .n_bodies = sim->n_bodies,
    };
    if (sim->fluid->p->bind(sim->fluid->self, &iface) != SEAM_OK) {
        sim_log(sim, SEAM_LOG_ERROR, sim->fluid->name, "bind failed for an interface of %zu points (dim %d)",
                sim->n_points, sim->dim);
        return false;
    }
    return true;
}

/* PNG frames need a 2D interface and a fluid that rasterizes the field. */
static bool check_picture(seam_sim *sim)
{
    if (!sim->picture_field || !sim->write_frames)
        return true;
    const char *why = NULL;
    seam_raster r;
    if (!sim->fluid || !sim->fluid->p->field)
        why = "the fluid plugin offers no fields";
    else if (sim->dim != 2)
        why = "pictures are drawn for 2D interfaces only";
    else if (sim->fluid->p->field(sim->fluid->self, sim->picture_field, &r) != SEAM_OK || r.nz != 1)
        why = "the fluid has no 2D field of that name";
    if (!why)
        return true;
    if (sim->picture_explicit) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "%s: output.picture.field \"%s\": %s",
                seam_doc_locate(sim->doc, "output.picture.field"), sim->picture_field, why);
        return false;
    }
    free(sim->picture_field);   /* the default picture is drawn only where it can be */
    sim->picture_field = NULL;
    return true;
}

seam_sim *seam_sim_new(seam_doc *doc, const seam_run_options *opts)
{
    seam_sim *sim = calloc(1, sizeof *sim);
    sim->doc = doc;
    if (opts)
        sim->opts = *opts;
    if (!sim->opts.log)
        sim->opts.log = discard_log;
    const char *origin = seam_doc_origin(doc);
    const char *slash = strrchr(origin, '/');
    sim->scene_dir = slash ? strndup(origin, (size_t)(slash - origin)) : strdup(".");
    if (slash == origin)
        sim->scene_dir[0] = '/', sim->scene_dir[1] = '\0';

    seam_cfg *root = seam_cfg_new(seam_doc_root(doc), "", doc, cfg_report, sim);
    read_scene(sim, root);
    seam_cfg_finish(root);
    seam_cfg_destroy(&root);
    /* Create every participant whose library loaded, even after errors in
     * the scene, so one validation reports the plugins' problems too. */
    for (size_t i = 0; i < sim->n_parts; i++)
        if (sim->parts[i].p)
            create_participant(sim, &sim->parts[i]);
    if (sim->errors) {
        seam_sim_destroy(&sim);
        return NULL;
    }
    if (!sim->coupled && (!build_interface(sim) || !bind_fluid(sim))) {
        seam_sim_destroy(&sim);
        return NULL;
    }
    if (!check_picture(sim)) {
        seam_sim_destroy(&sim);
        return NULL;
    }
    bool unlimited = !isfinite(sim->dt_max);
    for (size_t i = 0; i < sim->n_parts && unlimited; i++)
    {
        double m = NAN;
        unlimited = sim->parts[i].p->max_dt(sim->parts[i].self, &m) == SEAM_OK && !isfinite(m);
    }
    if (unlimited) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "%s: time.dt: required key is missing (no participant limits its step)",
                seam_doc_locate(doc, "time"));
        seam_sim_destroy(&sim);
        return NULL;
    }
    sim->pstats = calloc(sim->n_parts, sizeof *sim->pstats);
    sim->summary.n_participants = sim->n_parts;
    sim->summary.participants = sim->pstats;
    return sim;
}

void seam_sim_destroy(seam_sim **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_sim *sim = *self_p;
    for (size_t i = 0; i < sim->n_parts; i++) {
        participant *pt = &sim->parts[i];
        if (pt->self)
            pt->p->destroy(pt->self);
        else
            seam_remote_close(&pt->remote);
        seam_library_close(&pt->lib);
        free(pt->name);
        free(pt->plugin_name);
        free(pt->config_path);
        free(pt->output_dir);
    }
    free(sim->parts);
    if (sim->scheme && sim->scheme->destroy)
        sim->scheme->destroy(sim->scheme_self);
    if (sim->stats_csv)
        fclose(sim->stats_csv);
    if (sim->residuals_csv)
        fclose(sim->residuals_csv);
    if (sim->interface_csv)
        fclose(sim->interface_csv);
    free(sim->X0); free(sim->mass); free(sim->body); free(sim->elems); free(sim->two_sided);
    free(sim->Xn); free(sim->Xnm1); free(sim->X_pred); free(sim->X_out);
    free(sim->coupling.V); free(sim->coupling.V_solid);
    free(sim->out_dir);
    free(sim->picture_field);
    free(sim->scene_dir);
    free(sim->pstats);
    free(sim);
    *self_p = NULL;
}

/* ---- the coupling layer seen by schemes -------------------------------- */

size_t seam_coupling_size(const seam_coupling *c) { return c->n; }
int seam_coupling_dim(const seam_coupling *c) { return c->dim; }
const double *seam_coupling_Xn(const seam_coupling *c) { return c->Xn; }
double seam_coupling_dt(const seam_coupling *c) { return c->dt; }
long seam_coupling_step_index(const seam_coupling *c) { return c->step; }
double seam_coupling_residual(const seam_coupling *c) { return c->residual; }
int seam_coupling_iterations(const seam_coupling *c) { return c->judged; }

void seam_coupling_warn(seam_coupling *c, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sim_log(c->sim, SEAM_LOG_WARN, NULL, "step %ld (t = %.9g s): scheme %s: %s", c->step, c->t,
            c->sim->scheme->name, msg);
}

/* The per-iteration passes below are written four lanes wide, which GCC
 * vectorizes at -O2; the coupling layer must cost little next to the solvers. */

/* Whether x holds only finite values (else *bad is the first that is not):
 * x * 0 is 0 for finite x and NaN otherwise, so one summing pass decides. */
static bool all_finite(const double *x, size_t n, size_t *bad)
{
    double acc[4] = {0.0, 0.0, 0.0, 0.0};
    SEAM_LANES(j, l, n, acc[l] += x[j] * 0.0;);
    if (acc[0] + acc[1] + acc[2] + acc[3] == 0.0)
        return true;
    size_t i;
    for (i = 0; i < n && isfinite(x[i]); i++)
        ;
    *bad = i < n ? i : 0;
    return false;
}

/* The effective velocities (X - X^n) / dt handed to the fluid. */
static void effective_velocity(const double *restrict X, const double *restrict Xn, double dt, size_t n,
                               double *restrict V)
{
    double inv_dt = 1.0 / dt;
    SEAM_LANES(j, l, n, V[j] = (X[j] - Xn[j]) * inv_dt;);
}

static seam_status timed_solve(participant *pt, const seam_step *step, const seam_input *in, seam_output *out)
{
    double t0 = now_s();
    seam_status st = pt->p->solve(pt->self, step, in, out);
    pt->stats.seconds += now_s() - t0;
    pt->stats.solves++;
    return st;
}

static seam_status check_status(seam_coupling *c, participant *pt, seam_status st)
{
    if (st == SEAM_ERROR)
        sim_log(c->sim, SEAM_LOG_ERROR, pt->name, "solve failed at step %ld (t = %.9g s)", c->step, c->t);
    else if (st == SEAM_UNSTABLE)
        sim_log(c->sim, SEAM_LOG_WARN, pt->name, "step %ld (t = %.9g s, dt = %.3g s) is unstable", c->step, c->t, c->dt);
    else if (st != SEAM_OK) {
        sim_log(c->sim, SEAM_LOG_ERROR, pt->name, "solve returned unknown status %d at step %ld", (int)st, c->step);
        return SEAM_ERROR;
    }
    return st;
}

seam_status seam_coupling_fluid(seam_coupling *c, const double *X, double *F)
{
    participant *pt = c->sim->fluid;
    effective_velocity(X, c->Xn, c->dt, c->n, c->V);
    seam_step step = {c->step, c->t, c->dt, c->fluid_calls++};
    size_t np = c->n / (size_t)c->dim;
    seam_input in = {np, c->dim, X, c->V, NULL};
    seam_output out = {np, c->dim, NULL, NULL, F};
    seam_status st = check_status(c, pt, timed_solve(pt, &step, &in, &out));
    size_t bad;
    if (st == SEAM_OK && !all_finite(F, c->n, &bad)) {
        sim_log(c->sim, SEAM_LOG_ERROR, pt->name, "returned a non-finite load (%g) on interface point %zu at step %ld (t = %.9g s)",
                F[bad], bad / (size_t)c->dim, c->step, c->t);
        return SEAM_ERROR;
    }
    return st;
}

seam_status seam_coupling_solid(seam_coupling *c, const double *F, double *X)
{
    seam_sim *sim = c->sim;
    seam_step step = {c->step, c->t, c->dt, c->solid_calls++};
    for (size_t s = sim->first_solid; s < sim->n_parts; s++) {
        participant *pt = &sim->parts[s];
        size_t off = pt->offset * (size_t)c->dim, len = pt->n_points * (size_t)c->dim;
        seam_input in = {pt->n_points, c->dim, NULL, NULL, F + off};
        seam_output out = {pt->n_points, c->dim, X + off, c->V_solid + off, NULL};
        seam_status st = check_status(c, pt, timed_solve(pt, &step, &in, &out));
        if (st != SEAM_OK)
            return st;
        size_t bad;
        if (!all_finite(X + off, len, &bad) || !all_finite(c->V_solid + off, len, &bad)) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name,
                    "returned a non-finite position or velocity on its interface point %zu at step %ld (t = %.9g s)",
                    bad / (size_t)c->dim, c->step, c->t);
            return SEAM_ERROR;
        }
    }
    return SEAM_OK;
}

/* Largest per-point Euclidean distances |a - b| and, when c is given,
 * |a - c|, in one pass; NaN when any value is not finite. */
static void max_point_distances(const double *restrict a, const double *restrict b, const double *restrict c,
                                size_t n, int dim, double *ab, double *ac)
{
    double w[4] = {0.0, 0.0, 0.0, 0.0}, wc[4] = {0.0, 0.0, 0.0, 0.0}, bad[4] = {0.0, 0.0, 0.0, 0.0};
    const double *restrict cc = c ? c : b;   /* no branch in the loop: without c, |a - b| twice */
    if (dim == 1)   /* squared distances, one root at the end */
        SEAM_LANES(j, l, n, {
            double d = a[j] - b[j], e = a[j] - cc[j];
            w[l] = d * d > w[l] ? d * d : w[l];
            wc[l] = e * e > wc[l] ? e * e : wc[l];
            bad[l] += (d + e) * 0.0;   /* NaN once anything was not finite */
        });
    for (size_t i = 0; dim > 1 && i < n; i += (size_t)dim) {
        double d2 = 0.0, e2 = 0.0;
        for (int k = 0; k < dim; k++) {
            double d = a[i + (size_t)k] - b[i + (size_t)k], e = a[i + (size_t)k] - cc[i + (size_t)k];
            d2 += d * d;
            e2 += e * e;
        }
        w[0] = d2 > w[0] ? d2 : w[0];
        wc[0] = e2 > wc[0] ? e2 : wc[0];
        bad[0] += (d2 + e2) * 0.0;
    }
    double nan = bad[0] + bad[1] + bad[2] + bad[3];
    *ab = sqrt(fmax(fmax(w[0], w[1]), fmax(w[2], w[3]))) + nan;
    if (ac)
        *ac = sqrt(fmax(fmax(wc[0], wc[1]), fmax(wc[2], wc[3]))) + nan;
}

seam_verdict seam_coupling_judge(seam_coupling *c, const double *X_new, const double *X_old)
{
    seam_sim *sim = c->sim;
    double r, moved = 0.0;
    max_point_distances(X_new, X_old, sim->relative ? c->Xn : NULL, c->n, c->dim, &r, &moved);
    c->judged++;
    c->residual = r;
    if (c->judged == 1)
        c->first_residual = r;
    if (sim->residuals_csv)
        fprintf(sim->residuals_csv, "%ld,%d,%.17g\n", c->step, c->judged, r);
    if (!isfinite(r))
        return SEAM_DIVERGED;
    double goal = sim->tolerance;
    if (sim->relative)
        goal *= moved;
    if (r <= goal || r <= 1e-14 * c->scale)
        return SEAM_CONVERGED;
    if (c->judged > 1 && r > sim->divergence * fmax(c->first_residual, goal))
        return SEAM_DIVERGED;
    return c->judged >= sim->max_iterations ? SEAM_EXHAUSTED : SEAM_ITERATE;
}

/* ---- outputs ------------------------------------------------------------ */

static bool open_outputs(seam_sim *sim)
{
    if (mkdir_p(sim->out_dir) != 0) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "cannot create output directory %s: %s", sim->out_dir, strerror(errno));
        return false;
    }
    char path[4096];
    if (sim->write_stats) {
        snprintf(path, sizeof path, "%s/stats.csv", sim->out_dir);
        sim->stats_csv = fopen(path, "w");
        snprintf(path, sizeof path, "%s/residuals.csv", sim->out_dir);
        sim->residuals_csv = fopen(path, "w");
        if (!sim->stats_csv || !sim->residuals_csv) {
            sim_log(sim, SEAM_LOG_ERROR, NULL, "cannot write %s: %s", path, strerror(errno));
            return false;
        }
        fprintf(sim->stats_csv, "step,t,dt,iterations,residual,converged,fluid_s,solid_s,coupler_s\n");
        fprintf(sim->residuals_csv, "step,iteration,residual\n");
    }
    if (sim->write_interface && !sim->coupled) {
        snprintf(path, sizeof path, "%s/interface.csv", sim->out_dir);
        sim->interface_csv = fopen(path, "w");
        if (!sim->interface_csv) {
            sim_log(sim, SEAM_LOG_ERROR, NULL, "cannot write %s: %s", path, strerror(errno));
            return false;
        }
        fprintf(sim->interface_csv, "step,t");
        for (size_t i = 0; i < sim->n_points; i++)
            for (int k = 0; k < sim->dim; k++)
                fprintf(sim->interface_csv, ",p%zu_%c", i, "xyz"[k]);
        fputc('\n', sim->interface_csv);
    }
    return true;
}

static void write_interface_row(seam_sim *sim, long step, double t)
{
    if (!sim->interface_csv)
        return;
    fprintf(sim->interface_csv, "%ld,%.17g", step, t);
    for (size_t i = 0; i < sim->n_points * (size_t)sim->dim; i++)
        fprintf(sim->interface_csv, ",%.17g", sim->Xn[i]);
    fputc('\n', sim->interface_csv);
}

static seam_status write_picture(seam_sim *sim)
{
    participant *fl = sim->fluid;
    seam_raster r;
    if (fl->p->field(fl->self, sim->picture_field, &r) != SEAM_OK) {
        sim_log(sim, SEAM_LOG_ERROR, fl->name, "field \"%s\" failed at frame %d", sim->picture_field, sim->frame);
        return SEAM_ERROR;
    }
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/frames", sim->out_dir);
    if (mkdir_p(dir) != 0) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "cannot create %s: %s", dir, strerror(errno));
        return SEAM_ERROR;
    }
    snprintf(path, sizeof path, "%s/frame_%04d.png", dir, sim->frame);
    seam_interface iface = {.dim = sim->dim, .n_points = sim->n_points, .X = sim->Xn,
                            .nodes_per_elem = sim->nodes_per_elem, .n_elems = sim->n_elems,
                            .elems = sim->elems, .two_sided = sim->two_sided};
    return seam_picture_write_png(path, &r, &iface, sim->Xn, &sim->picture_opts, &fl->host);
}

static seam_status write_frame(seam_sim *sim)
{
    if (!sim->write_frames)
        return SEAM_OK;
    for (size_t i = 0; i < sim->n_parts; i++) {
        participant *pt = &sim->parts[i];
        if (!pt->p->write_output)
            continue;
        if (mkdir_p(pt->output_dir) != 0) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name, "cannot create %s: %s", pt->output_dir, strerror(errno));
            return SEAM_ERROR;
        }
        if (pt->p->write_output(pt->self, pt->output_dir, sim->frame) != SEAM_OK) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name, "write_output failed for frame %d", sim->frame);
            return SEAM_ERROR;
        }
    }
    if (sim->picture_field && write_picture(sim) != SEAM_OK)
        return SEAM_ERROR;
    sim->frame++;
    return SEAM_OK;
}

static void progress(seam_sim *sim, double t, int iterations, double t_start, bool final)
{
    if (!sim->opts.progress)
        return;
    seam_progress p = {t, sim->t_end, sim->summary.steps, iterations, now_s() - t_start, final};
    sim->opts.progress(sim->opts.progress_ctx, &p);
}

/* ---- the time loop ------------------------------------------------------ */

static double choose_dt(seam_sim *sim, double t)
{
    double dt = sim->dt_max;
    for (size_t i = 0; i < sim->n_parts; i++) {
        participant *pt = &sim->parts[i];
        double m = NAN;
        if (pt->p->max_dt(pt->self, &m) != SEAM_OK) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name, "max_dt failed at t = %.9g s", t);
            return NAN;
        }
        if (isnan(m) || m <= 0.0) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name, "max_dt returned %g at t = %.9g s", m, t);
            return NAN;
        }
        dt = fmin(dt, m);
    }
    double left = sim->t_end - t;
    if (dt >= left * (1.0 - 1e-9))   /* land on the end time exactly */
        dt = left;
    return dt;
}

static void predict(seam_sim *sim, double dt)
{
    size_t n = sim->n_points * (size_t)sim->dim;
    if (sim->predictor == PREDICT_LINEAR && sim->summary.steps > 0) {
        double ratio = dt / sim->dt_prev;
        for (size_t i = 0; i < n; i++)
            sim->X_pred[i] = sim->Xn[i] + ratio * (sim->Xn[i] - sim->Xnm1[i]);
    } else
        memcpy(sim->X_pred, sim->Xn, n * sizeof *sim->X_pred);
}

static double extent(const double *X, size_t n_points, int dim)
{
    double e = 0.0;
    for (int k = 0; k < dim; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < n_points; i++) {   /* comparisons, not fmin/fmax calls: once per step, n values */
            double x = X[i * (size_t)dim + (size_t)k];
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
        e = fmax(e, fmax(hi - lo, fmax(fabs(lo), fabs(hi))));
    }
    return e;
}

/* One attempt at a step of size dt; the verdict says how it ended. */
static seam_status attempt_step(seam_sim *sim, double t, double dt, seam_verdict *verdict)
{
    *verdict = SEAM_CONVERGED;
    if (sim->coupled) {
        participant *pt = sim->coupled;
        seam_step step = {sim->summary.steps, t, dt, 0};
        seam_coupling c = {.sim = sim, .t = t, .dt = dt, .step = sim->summary.steps};
        return check_status(&c, pt, timed_solve(pt, &step, NULL, NULL));
    }
    seam_coupling *c = &sim->coupling;
    double *V = c->V, *Vs = c->V_solid;
    *c = (seam_coupling){.sim = sim, .n = sim->n_points * (size_t)sim->dim, .dim = sim->dim, .Xn = sim->Xn,
                         .dt = dt, .t = t, .step = sim->summary.steps, .V = V, .V_solid = Vs,
                         .scale = extent(sim->Xn, sim->n_points, sim->dim)};
    predict(sim, dt);
    return sim->scheme->step(sim->scheme_self, c, sim->X_pred, sim->X_out, verdict);
}

static seam_status commit_all(seam_sim *sim)
{
    for (size_t i = 0; i < sim->n_parts; i++) {
        participant *pt = &sim->parts[i];
        double t0 = now_s();
        seam_status st = pt->p->commit(pt->self);
        pt->stats.seconds += now_s() - t0;
        if (st != SEAM_OK) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name, "commit failed at step %ld", sim->summary.steps);
            return SEAM_ERROR;
        }
    }
    return SEAM_OK;
}

seam_status seam_sim_run(seam_sim *sim)
{
    if (!open_outputs(sim))
        return SEAM_ERROR;
    double t_start = now_s();
    double t = 0.0;
    seam_status result = SEAM_OK;
    sim->next_frame = 0.0;
    write_interface_row(sim, 0, 0.0);
    if (write_frame(sim) != SEAM_OK)
        return SEAM_ERROR;
    sim->next_frame = sim->frame_dt;
    while (t < sim->t_end * (1.0 - 1e-12) && (sim->opts.max_steps <= 0 || sim->summary.steps < sim->opts.max_steps)) {
        double dt = choose_dt(sim, t);
        if (isnan(dt)) {
            result = SEAM_ERROR;
            break;
        }
        double step_t0 = now_s();
        double solver_s0 = 0.0;
        for (size_t i = 0; i < sim->n_parts; i++)
            solver_s0 += sim->parts[i].stats.seconds;
        double fluid0 = sim->fluid ? sim->fluid->stats.seconds : 0.0;
        seam_verdict verdict;
        seam_status st;
        for (;;) {
            st = attempt_step(sim, t, dt, &verdict);
            if (st != SEAM_UNSTABLE)
                break;
            if (dt / 2 < sim->dt_min) {
                sim_log(sim, SEAM_LOG_ERROR, NULL, "step %ld (t = %.9g s) is unstable even at dt = %.3g s (time.dt_min = %.3g s)",
                        sim->summary.steps, t, dt, sim->dt_min);
                break;
            }
            dt /= 2;
            sim->summary.retries++;
            sim_log(sim, SEAM_LOG_WARN, NULL, "retrying step %ld with dt = %.3g s", sim->summary.steps, dt);
        }
        if (st != SEAM_OK) {
            result = SEAM_ERROR;
            break;
        }
        long step = sim->summary.steps;
        int iterations = sim->coupled ? 1 : sim->coupling.judged;
        if (verdict == SEAM_DIVERGED) {
            sim_log(sim, SEAM_LOG_ERROR, NULL, "scheme %s diverged at step %ld (t = %.9g s): residual %.3g m after %d iterations (first %.3g m)",
                    sim->scheme->name, step, t, sim->coupling.residual, iterations, sim->coupling.first_residual);
            result = SEAM_ERROR;
            break;
        }
        if (verdict == SEAM_EXHAUSTED) {
            if (sim->fail_unconverged) {
                sim_log(sim, SEAM_LOG_ERROR, NULL, "not converged at step %ld (t = %.9g s) after %d iterations: residual %.3g m > tolerance %.3g%s",
                        step, t, iterations, sim->coupling.residual, sim->tolerance, sim->relative ? " (relative)" : " m");
                result = SEAM_ERROR;
                break;
            }
            sim->summary.not_converged++;
            sim_log(sim, SEAM_LOG_WARN, NULL, "not converged at step %ld (t = %.9g s) after %d iterations: residual %.3g; committing anyway",
                    step, t, iterations, sim->coupling.residual);
        }
        if (commit_all(sim) != SEAM_OK) {
            result = SEAM_ERROR;
            break;
        }
        if (!sim->coupled) {
            double *recycled = sim->Xnm1;   /* X^{n-1} <- X^n <- X_out by pointers, not copies */
            sim->Xnm1 = sim->Xn;
            sim->Xn = sim->X_out;
            sim->X_out = recycled;
        }
        sim->dt_prev = dt;
        t += dt;
        sim->summary.steps++;
        sim->summary.t = t;
        sim->summary.iterations += iterations;
        if (iterations > sim->summary.max_iterations)
            sim->summary.max_iterations = iterations;
        double solver_s = 0.0;
        for (size_t i = 0; i < sim->n_parts; i++)
            solver_s += sim->parts[i].stats.seconds;
        double fluid_s = sim->fluid ? sim->fluid->stats.seconds - fluid0 : 0.0;
        double step_s = now_s() - step_t0;
        double all_solvers = solver_s - solver_s0;
        double coupler_s = fmax(0.0, step_s - all_solvers);
        sim->summary.coupler_s += coupler_s;
        if (sim->stats_csv)
            fprintf(sim->stats_csv, "%ld,%.17g,%.17g,%d,%.17g,%d,%.6e,%.6e,%.6e\n", step, t, dt, iterations,
                    sim->coupled ? 0.0 : sim->coupling.residual, verdict == SEAM_CONVERGED ? 1 : 0,
                    sim->coupled ? all_solvers : fluid_s, sim->coupled ? 0.0 : all_solvers - fluid_s, coupler_s);
        write_interface_row(sim, sim->summary.steps, t);
        if (t >= sim->next_frame * (1.0 - 1e-9) || t >= sim->t_end * (1.0 - 1e-12)) {
            if (write_frame(sim) != SEAM_OK) {
                result = SEAM_ERROR;
                break;
            }
            while (sim->next_frame <= t * (1.0 + 1e-9))
                sim->next_frame += sim->frame_dt;
        }
        sim->last_iterations = iterations;
        progress(sim, t, iterations, t_start, false);
    }
    progress(sim, t, sim->last_iterations, t_start, true);
    sim->summary.wall_s = now_s() - t_start;
    for (size_t i = 0; i < sim->n_parts; i++)
        sim->pstats[i] = sim->parts[i].stats;
    if (sim->stats_csv)
        fflush(sim->stats_csv);
    if (sim->residuals_csv)
        fflush(sim->residuals_csv);
    if (sim->interface_csv)
        fflush(sim->interface_csv);
    return result;
}

const seam_summary *seam_sim_summary(const seam_sim *self) { return &self->summary; }
const char *seam_sim_output_dir(const seam_sim *self) { return self->out_dir; }

const double *seam_sim_interface(const seam_sim *self, size_t *n, int *dim)
{
    *n = self->n_points;
    *dim = self->dim;
    return self->Xn;
}

void seam_sim_describe(const seam_sim *self, char *buf, size_t n)
{
    int len = 0;
    for (size_t i = 0; i < self->n_parts && len >= 0 && (size_t)len < n; i++) {
        const participant *pt = &self->parts[i];
        len += snprintf(buf + len, n - (size_t)len, "%s%s %s (%s)", i ? ", " : "", seam_role_name(pt->role),
                        pt->name, pt->p->name);
    }
    if (!self->coupled && len >= 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, "; scheme %s; interface %zu points (dim %d)", self->scheme->name,
                 self->n_points, self->dim);
}

void seam_sim_print_summary(const seam_sim *self, FILE *out)
{
    const seam_summary *s = &self->summary;
    fprintf(out, "steps: %ld to t = %.6g s in %.3f s wall\n", s->steps, s->t, s->wall_s);
    if (!self->coupled)
        fprintf(out, "iterations per step: mean %.2f, max %d%s\n", s->steps ? (double)s->iterations / (double)s->steps : 0.0,
                s->max_iterations, s->not_converged ? " (some steps unconverged)" : "");
    if (s->not_converged)
        fprintf(out, "unconverged steps committed: %ld\n", s->not_converged);
    if (s->retries)
        fprintf(out, "steps retried with a smaller dt: %ld\n", s->retries);
    for (size_t i = 0; i < s->n_participants; i++) {
        const seam_participant_stats *p = &s->participants[i];
        fprintf(out, "  %-12s %-8s %-14s %9.3f s  %ld solves\n", p->name, seam_role_name(p->role), p->plugin,
                p->seconds, p->solves);
    }
    fprintf(out, "  %-12s %-8s %-14s %9.3f s  (%.1f%% of wall)\n", "coupler", "", "", s->coupler_s,
            s->wall_s > 0 ? 100.0 * s->coupler_s / s->wall_s : 0.0);
    if (self->out_dir)
        fprintf(out, "output: %s\n", self->out_dir);
}
