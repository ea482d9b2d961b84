/* Reading a scene: time, gravity, coupling, participants, output. The
 * participants' own objects are read by their plugins' create. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "scene.h"
#include "seam/alloc.h"
#include "seam/vtk.h"

static const char *const unconverged_names[] = {"warn", "fail", "retry", NULL};
/* in the order of PREDICT_* (the polynomial ones at their order) */
static const char *const predictor_names[] = {"none", "linear", "quadratic", "cubic", "quartic", "velocity", NULL};

/* Bounds on what a scene may ask for: beyond them it is a typo or a unit
 * slip, not a simulation (docs/scenes.md, "Limits"). */
#define MAX_FRAMES 1e6          /* frames a run writes */
#define MAX_GRAVITY SEAM_GRAVITY_MAX   /* m/s^2: about 1000 times the Earth's (seam/config.h) */

static const char *locate_key(sim_scene *sc, const char *object, const char *key)
{
    char path[512];
    snprintf(path, sizeof path, "%s.%s", object, key);
    return seam_doc_locate(sc->doc, path);
}

/* Keys of `coupling` that belong to a scheme other than the chosen one:
 * accepted with a warning that they do nothing, so switching schemes with
 * --set does not need the scene edited. */
static void skip_other_scheme_keys(sim_scene *sc, seam_cfg *coupling, json_t *obj)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        for (size_t i = 0; i < sim_stepper_count(); i++) {
            const sim_stepper *st = sim_stepper_at(i);
            for (const char *const *k = st->keys; st->scheme_name && *k; k++)
                if (strcmp(*k, key) == 0) {
                    seam_cfg_skip(coupling, key);   /* the stepper's plugin declares and checks its numbers */
                    sim_log(sc->log, SEAM_LOG_WARN, NULL, "%s: coupling.%s has no effect: scheme \"%s\" does not use it "
                            "(scheme \"%s\" does)", locate_key(sc, "coupling", key), key, sc->stepping.scheme->name,
                            st->scheme_name);
                }
        }
        for (size_t i = 0; i < seam_scheme_count(); i++) {
            const seam_scheme_ops *s = seam_scheme_at(i);
            if (s == sc->stepping.scheme)
                continue;
            bool mine = false, theirs = false;
            for (const char *const *k = sc->stepping.scheme->keys; *k; k++)
                mine |= strcmp(*k, key) == 0;
            for (const char *const *k = s->keys; *k; k++)
                theirs |= strcmp(*k, key) == 0;
            if (theirs && !mine) {
                seam_cfg_skip(coupling, key);
                const seam_range_table *t = scheme_keys_declaring(key);
                if (t)   /* unused, yet a number that scheme would refuse is a slip all the same */
                    seam_cfg_key(coupling, t, key, 0.0, 0);
                sim_log(sc->log, SEAM_LOG_WARN, NULL, "%s: coupling.%s has no effect: scheme \"%s\" does not use it (scheme \"%s\" does)",
                        locate_key(sc, "coupling", key), key, sc->stepping.scheme->name, s->name);
                break;
            }
        }
    }
}

/* Returns the reader of "time" (NULL when absent), for check_frames. */
static seam_cfg *read_time(sim_scene *sc, seam_cfg *root)
{
    seam_cfg *time = seam_cfg_child(root, "time", SEAM_CFG_REQUIRED);
    if (time) {
        sc->t_end = seam_cfg_key(time, TIME_KEYS, "end", 1.0, SEAM_CFG_REQUIRED);
        sc->dt_max = seam_cfg_key(time, TIME_KEYS, "dt", INFINITY, 0);
        sc->dt_min = seam_cfg_key(time, TIME_KEYS, "dt_min", 0.0, 0);
        sc->frame_dt = seam_cfg_key(time, TIME_KEYS, "frame", 0.0, 0);
    }
    if (sc->opts->end > 0)
        sc->t_end = sc->opts->end;
    if (!(sc->frame_dt > 0))
        sc->frame_dt = sc->t_end / 100.0;

    if (sc->dt_min == 0.0)   /* a stable step a million times below the one asked for is a blow-up */
        sc->dt_min = isfinite(sc->dt_max) ? fmin(1e-6 * sc->dt_max, 1e-3 * sc->t_end) : 1e-12 * sc->t_end;
    /* never 0: of a dt of 5e-324 s the default underflows, and an unstable step was retried at dt = 0 for ever */
    sc->dt_min = fmax(sc->dt_min, nextafter(0.0, 1.0));
    return time;
}

/* One gravity for every participant: [gx, gy] or [gx, gy, gz], y up by default. */
static void read_gravity(sim_scene *sc, seam_cfg *root)
{
    sc->gravity[0] = sc->gravity[2] = 0.0;
    sc->gravity[1] = -9.81;
    json_t *g = seam_cfg_json(root, "gravity");
    if (!g)
        return;
    size_t n = json_is_array(g) ? json_array_size(g) : 0;
    if (n != 2 && n != 3) {
        seam_cfg_error(root, "gravity", "expected [gx, gy] or [gx, gy, gz] (m/s^2)");
        return;
    }
    double v[3] = {0.0, 0.0, 0.0};
    if (!seam_cfg_vec(root, "gravity", v, n, 0))
        return;
    double size = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (size > MAX_GRAVITY)
        seam_cfg_error(root, "gravity", "|g| = %g m/s^2 is more than %g m/s^2 (1000 times the Earth's 9.81): a "
                       "typo or a unit slip", size, MAX_GRAVITY);
    else
        memcpy(sc->gravity, v, sizeof v);
}

/* A stepper named by coupling.scheme (stepper.c, its scheme_name): its own
 * keys go to its built-in plugin (which checks them); the partitioned
 * schemes' keys do nothing. */
static void read_builtin_coupled(sim_scene *sc, seam_cfg *root, seam_cfg *coupling, const sim_stepper *st,
                                 bool has_coupled)
{
    sc->builtin_coupled = has_coupled ? NULL : st->scheme_name;
    sc->stepping.scheme = NULL;   /* the coupled stepper advances the run */
    seam_convergence_read(&sc->stepping.conv, NULL, sc->cell_size);
    const char *key;
    json_t *v;
    json_object_foreach(seam_cfg_json(root, "coupling"), key, v) {
        if (strcmp(key, "scheme") == 0)
            continue;
        seam_cfg_skip(coupling, key);
        bool mine = false;
        for (const char *const *k = st->keys; *k; k++)
            mine |= strcmp(*k, key) == 0;
        if (!mine || has_coupled) {
            char why[256];
            if (has_coupled)
                snprintf(why, sizeof why, "the \"coupled\" participant advances fluid and solid itself");
            else
                snprintf(why, sizeof why, "scheme \"%s\" solves fluid and solids as one system, without iterations",
                         st->scheme_name);
            sim_log(sc->log, SEAM_LOG_WARN, NULL, "%s: coupling.%s has no effect: %s", locate_key(sc, "coupling", key),
                    key, why);
        }
    }
    if (has_coupled)
        sim_log(sc->log, SEAM_LOG_WARN, NULL, "%s: coupling has no effect: a \"coupled\" participant advances fluid and solid itself",
                seam_doc_locate(sc->doc, "coupling"));
}

/* The names coupling.scheme takes: every scheme, then every stepper that a
 * scheme name selects ("monolithic"); NULL-terminated, *ns the schemes'. */
static const char **scheme_names(size_t *ns)
{
    *ns = seam_scheme_count();
    const char **names = SEAM_NEW_N(const char *, *ns + sim_stepper_count() + 1);
    size_t n = 0;
    for (size_t i = 0; i < *ns; i++)
        names[n++] = seam_scheme_at(i)->name;
    for (size_t i = 0; i < sim_stepper_count(); i++)
        if (sim_stepper_at(i)->scheme_name)
            names[n++] = sim_stepper_at(i)->scheme_name;
    return names;
}

static void read_coupling(sim_scene *sc, seam_cfg *root, bool has_coupled)
{
    seam_cfg *coupling = seam_cfg_child(root, "coupling", 0);
    sc->stepping.scheme = seam_scheme_find("relaxation");
    sc->stepping.predictor = PREDICT_LINEAR;
    if (!coupling) {
        seam_convergence_read(&sc->stepping.conv, NULL, sc->cell_size);
        if (!has_coupled)
            seam_cfg_error(root, "coupling", "required key is missing (a scene with a fluid and solids says how to "
                           "couple them; {} takes the defaults, scheme relaxation)");
        return;
    }
    size_t ns;
    const char **names = scheme_names(&ns);
    int s = seam_cfg_enum(coupling, "scheme", names, 1, 0);
    const char *chosen = names[s];
    free(names);
    if ((size_t)s >= ns) {
        read_builtin_coupled(sc, root, coupling, sim_stepper_by_scheme(chosen), has_coupled);
        return;
    }
    sc->stepping.scheme = seam_scheme_at((size_t)s);
    const seam_scheme_ops *scheme = sc->stepping.scheme;
    seam_convergence_defaults defaults = scheme->defaults;
    if (defaults.max_iterations == 0)
        defaults = (seam_convergence_defaults){50, 1e-6, false, false};
    if (defaults.cells && !(sc->cell_size > 0) && !seam_cfg_has(coupling, "tolerance") &&
        !seam_cfg_has(coupling, "measures")) {
        seam_cfg_error(coupling, "scheme",
                       "%s measures convergence in cells (%g cell sizes, Akbay 2.6): give the scene's top-level "
                       "\"cell_size\", or coupling.tolerance", scheme->name, defaults.tolerance);
        defaults = (seam_convergence_defaults){defaults.max_iterations, 1e-6, false, true};
    }
    seam_convergence_read_defaults(&sc->stepping.conv, coupling, sc->cell_size, &defaults);
    bpp_read_options(coupling, scheme->needs_bpp, &sc->stepping.bpp_on, &sc->stepping.bpp_opts);
    if (scheme->needs_bpp && !sc->stepping.bpp_on)
        seam_cfg_error(coupling, "bpp", "%s includes the boundary pressure projection; for the RMI without it use "
                       "scheme \"rmi\"", scheme->name);
    int unconverged = seam_cfg_enum(coupling, "on_nonconvergence", unconverged_names, 0, 0);
    sc->fail_unconverged = unconverged == 1;
    sc->retry_unconverged = unconverged == 2;
    sc->stepping.predictor = seam_cfg_enum(coupling, "predictor", predictor_names, PREDICT_LINEAR, 0);
    skip_other_scheme_keys(sc, coupling, seam_cfg_json(root, "coupling"));
    if (!scheme->iterates) {
        /* One solve each per step: nothing to converge. */
        static const char *const idle[] = {"tolerance", "convergence", "load_tolerance", "measures",
                                           "max_iterations", "on_nonconvergence", "divergence", "bpp"};
        for (size_t i = 0; i < sizeof idle / sizeof idle[0]; i++)
            if (json_object_get(seam_cfg_json(root, "coupling"), idle[i]))
                sim_log(sc->log, SEAM_LOG_WARN, NULL, "%s: coupling.%s has no effect: scheme \"%s\" does not iterate",
                        locate_key(sc, "coupling", idle[i]), idle[i], scheme->name);
    }
    if (has_coupled)
        sim_log(sc->log, SEAM_LOG_WARN, NULL, "%s: coupling has no effect: a \"coupled\" participant advances fluid and solid itself",
                seam_doc_locate(sc->doc, "coupling"));
    sc->stepping.scheme_self = scheme->create ? scheme->create(coupling) : NULL;
    if (scheme->create && !sc->stepping.scheme_self)
        seam_cfg_error(coupling, "scheme", "scheme \"%s\" could not be set up (out of memory)", scheme->name);
}

static void read_participants(sim_scene *sc, seam_cfg *root, bool has_coupled, sim_participants *ps)
{
    ps->env = (participant_env){.log = sc->log, .doc = sc->doc, .scene_dir = sc->scene_dir,
                                .plugins_on_path_only = sc->opts->plugins_on_path_only, .cell_size = sc->cell_size,
                                .gravity = sc->gravity};   /* .vtk once output is read */
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
    participants_init(ps, has_coupled || sc->builtin_coupled ? 1 : 1 + n_solids);
    if (sc->builtin_coupled) {
        const sim_stepper *st = sim_stepper_by_scheme(sc->builtin_coupled);
        participant_read_builtin(ps, root, st->scheme_name, st->keys, &ps->parts[0]);
        ps->coupled = &ps->parts[0];
        ps->first_solid = 0;   /* it describes the solids' surfaces (docs/plugins.md, "Coupled plugins") */
        return;
    }
    if (has_coupled) {
        seam_cfg *c = seam_cfg_child(root, "coupled", 0);
        if (c)
            participant_read(ps, c, "coupled", SEAM_COUPLED, &ps->parts[0]);
        ps->coupled = &ps->parts[0];
        ps->first_solid = 0;
        return;
    }
    seam_cfg *f = seam_cfg_child(root, "fluid", 0);
    if (f)
        participant_read(ps, f, "fluid", SEAM_FLUID, &ps->parts[0]);
    ps->fluid = &ps->parts[0];
    for (size_t i = 0; i < n_solids; i++) {
        seam_cfg *s = seam_cfg_item(root, "solids", i);
        char def[32];
        snprintf(def, sizeof def, n_solids == 1 ? "solid" : "solid%zu", i);
        if (s)
            participant_read(ps, s, def, SEAM_SOLID, &ps->parts[1 + i]);
    }
}

static void read_output(sim_scene *sc, seam_cfg *root, sim_participants *ps, sim_outputs *o)
{
    seam_cfg *out = seam_cfg_child(root, "output", 0);
    const char *dir = NULL;
    o->stats = true;
    o->frames = true;
    o->report = true;
    o->picture_surface = true;
    o->slice_axis = 2;   /* 3D: the plane normal to z through the middle of the field, unless the scene names one */
    /* resumable by default: a checkpoint every few minutes of wall time (docs/scenes.md) */
    o->checkpoint_default = true;
    o->checkpoint_seconds = SIM_CHECKPOINT_DEFAULT_S;
    const char *picture = "speed";
    if (out) {
        dir = seam_cfg_str(out, "dir", NULL, 0);
        o->stats = seam_cfg_bool(out, "stats", true, 0);
        o->interface = seam_cfg_bool(out, "interface", false, 0);
        o->frames = seam_cfg_bool(out, "frames", true, 0);
        o->vtk = seam_cfg_enum(out, "vtk", seam_vtk_format_names, SEAM_VTK_XML, 0);
        o->report = seam_cfg_bool(out, "report", true, 0);
        bool no_picture = json_is_false(json_object_get(seam_cfg_json(root, "output"), "picture"));
        seam_cfg *pic = no_picture ? NULL : seam_cfg_child(out, "picture", 0);
        if (no_picture) {
            seam_cfg_skip(out, "picture");
            picture = NULL;
        } else if (pic) {
            picture = seam_cfg_str(pic, "field", "speed", 0);
            o->picture_explicit = true;
            double range[2] = {0.0, 0.0};
            if (seam_cfg_key_vec(pic, PICTURE_KEYS, "range", range, 2, 0) && !(range[1] > range[0]))
                seam_cfg_error(pic, "range", "expected [low, high] with low < high");
            o->picture_opts.range[0] = range[0];
            o->picture_opts.range[1] = range[1];
            o->picture_opts.range_fixed = range[1] > range[0];
            o->picture_opts.pixels_per_cell = (int)seam_cfg_key_int(pic, PICTURE_KEYS, "pixels_per_cell", 0, 0);
            o->picture_surface = seam_cfg_bool(pic, "surface", true, 0);
            seam_cfg *slice = seam_cfg_child(pic, "slice", 0);
            if (slice) {
                static const char *const axes[] = {"x", "y", "z", NULL};
                o->slice_axis = seam_cfg_enum(slice, "axis", axes, 2, 0);
                o->slice_at_given = seam_cfg_has(slice, "at");
                o->slice_at = seam_cfg_key(slice, PICTURE_KEYS, "slice.at", 0.0, 0);
                o->slice_given = true;
            }
        }
        probes_read(ps, sc->builtin_coupled != NULL, out, &o->probes);
        bool no_checkpoint = json_is_false(json_object_get(seam_cfg_json(root, "output"), "checkpoint"));
        seam_cfg *ck = no_checkpoint ? NULL : seam_cfg_child(out, "checkpoint", 0);
        if (no_checkpoint) {
            seam_cfg_skip(out, "checkpoint");
            o->checkpoint_default = false;
            o->checkpoint_seconds = 0.0;
        } else if (ck) {
            o->checkpoint_default = false;
            o->checkpoint_steps = seam_cfg_key_int(ck, CHECKPOINT_KEYS, "every_steps", 0, 0);
            o->checkpoint_seconds = seam_cfg_key(ck, CHECKPOINT_KEYS, "every_seconds", 0.0, 0);
            if (!seam_cfg_has(ck, "every_steps") && !seam_cfg_has(ck, "every_seconds"))
                seam_cfg_error(out, "checkpoint", "expected every_steps, every_seconds or both");
        }
    }
    char buf[4096];
    if (sc->opts->out_dir)
        snprintf(buf, sizeof buf, "%s", sc->opts->out_dir);
    else if (dir && dir[0] == '/')
        snprintf(buf, sizeof buf, "%s", dir);
    else if (dir)
        snprintf(buf, sizeof buf, "%s/%s", sc->scene_dir, dir);
    else {
        /* Default: out/<scene name without .json> in the working directory. */
        const char *origin = seam_doc_origin(sc->doc);
        const char *base = strrchr(origin, '/') ? strrchr(origin, '/') + 1 : origin;
        snprintf(buf, sizeof buf, "out/%s", base);
        char *dot = strrchr(buf, '.');
        if (dot && strcmp(dot, ".json") == 0)
            *dot = '\0';
    }
    o->dir = seam_xstrdup(buf);
    o->picture_field = picture ? seam_xstrdup(picture) : NULL;
}

/* Frames land at most once a step, so a run writes at least
 * min(end / frame, end / dt) of them: past MAX_FRAMES that is no output
 * anyone asked for. */
static void check_frames(sim_scene *sc, seam_cfg *time, const sim_outputs *out)
{
    if (!out->frames)
        return;
    double at_least = sc->t_end / fmax(sc->frame_dt, isfinite(sc->dt_max) ? sc->dt_max : 0.0);
    if (at_least > MAX_FRAMES)
        seam_cfg_error(time, "frame", "%g s would write at least %.3g frames over the "
                       "run's %g s (a frame each step of at most %g s), more than %g: a frame interval this small is "
                       "a typo or a unit slip (or set output.frames to false)", sc->frame_dt, at_least, sc->t_end,
                       sc->dt_max, MAX_FRAMES);
}

void scene_init(sim_scene *sc, seam_doc *doc, const seam_run_options *opts, coupler_log *log)
{
    *sc = (sim_scene){.doc = doc, .opts = opts, .log = log};
    const char *origin = seam_doc_origin(doc);
    const char *slash = strrchr(origin, '/');
    sc->scene_dir = slash == origin ? seam_xstrdup("/") : slash ? seam_xstrndup(origin, (size_t)(slash - origin))
                                                                : seam_xstrdup(".");
}

void scene_free(sim_scene *sc)
{
    if (sc->stepping.scheme && sc->stepping.scheme->destroy && sc->stepping.scheme_self)
        sc->stepping.scheme->destroy(sc->stepping.scheme_self);
    free(sc->scene_dir);
    free(sc->description);
    *sc = (sim_scene){0};
}

void scene_read(sim_scene *sc, seam_cfg *root, sim_participants *ps, sim_outputs *out)
{
    const char *description = seam_cfg_str(root, "description", NULL, 0);
    sc->description = description ? seam_xstrdup(description) : NULL;
    sc->cell_size = seam_cfg_key(root, SCENE_KEYS, "cell_size", 0.0, 0);
    seam_cfg *time = read_time(sc, root);   /* one reader: a second would find its keys unread */
    read_gravity(sc, root);
    bool has_coupled = seam_cfg_has(root, "coupled");
    read_coupling(sc, root, has_coupled);
    read_participants(sc, root, has_coupled, ps);
    out->frame_dt = sc->frame_dt;
    out->t_end = sc->t_end;
    read_output(sc, root, ps, out);
    ps->env.vtk = out->vtk;   /* the frame format of participants that name none */
    check_frames(sc, time, out);
    sc->stepper = sim_stepper_find(has_coupled || sc->builtin_coupled ? "coupled" : "partitioned");
}
