/* Reading a scene: time, gravity, coupling, participants, output. The
 * participants' own objects are read by their plugins' create. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/vtk.h"
#include "sim_internal.h"

static const char *const unconverged_names[] = {"warn", "fail", "retry", NULL};
/* in the order of PREDICT_* (the polynomial ones at their order) */
static const char *const predictor_names[] = {"none", "linear", "quadratic", "cubic", "quartic", "velocity", NULL};

/* Bounds on what a scene may ask for: beyond them it is a typo or a unit
 * slip, not a simulation (docs/scenes.md, "Limits"). */
#define MAX_FRAMES 1e6          /* frames a run writes */
#define MAX_GRAVITY 1e4         /* m/s^2: about 1000 times the Earth's */

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
        if (monolithic_key(key)) {
            seam_cfg_skip(coupling, key);
            sim_log(sim, SEAM_LOG_WARN, NULL, "%s: coupling.%s has no effect: scheme \"%s\" does not use it (scheme "
                    "\"monolithic\" does)", locate_key(sim, "coupling", key), key, sim->scheme->name);
        }
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

/* Returns the reader of "time" (NULL when absent), for check_frames. */
static seam_cfg *read_time(seam_sim *sim, seam_cfg *root)
{
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

    if (sim->dt_min == 0.0)   /* a stable step a million times below the one asked for is a blow-up */
        sim->dt_min = isfinite(sim->dt_max) ? fmin(1e-6 * sim->dt_max, 1e-3 * sim->t_end) : 1e-12 * sim->t_end;
    /* never 0: of a dt of 5e-324 s the default underflows, and an unstable step was retried at dt = 0 for ever */
    sim->dt_min = fmax(sim->dt_min, nextafter(0.0, 1.0));
    return time;
}

/* One gravity for every participant: [gx, gy] or [gx, gy, gz], y up by default. */
static void read_gravity(seam_sim *sim, seam_cfg *root)
{
    sim->gravity[0] = sim->gravity[2] = 0.0;
    sim->gravity[1] = -9.81;
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
        memcpy(sim->gravity, v, sizeof v);
}

/* Scheme "monolithic": its own keys go to the plugin (which checks them);
 * the partitioned schemes' keys do nothing. */
static void read_monolithic(seam_sim *sim, seam_cfg *root, seam_cfg *coupling, bool has_coupled)
{
    sim->monolithic = !has_coupled;
    sim->scheme = &seam_scheme_explicit;   /* never stepped: the coupled stepper advances the run */
    seam_convergence_read(&sim->conv, NULL, sim->cell_size);
    const char *key;
    json_t *v;
    json_object_foreach(seam_cfg_json(root, "coupling"), key, v) {
        if (strcmp(key, "scheme") == 0)
            continue;
        seam_cfg_skip(coupling, key);
        bool mine = monolithic_key(key);
        if (!mine || has_coupled)
            sim_log(sim, SEAM_LOG_WARN, NULL, "%s: coupling.%s has no effect: %s", locate_key(sim, "coupling", key),
                    key, has_coupled ? "the \"coupled\" participant advances fluid and solid itself"
                                     : "scheme \"monolithic\" solves fluid and solids as one system, without iterations");
    }
    if (has_coupled)
        sim_log(sim, SEAM_LOG_WARN, NULL, "%s: coupling has no effect: a \"coupled\" participant advances fluid and solid itself",
                seam_doc_locate(sim->doc, "coupling"));
}

static void read_coupling(seam_sim *sim, seam_cfg *root, bool has_coupled)
{
    seam_cfg *coupling = seam_cfg_child(root, "coupling", 0);
    static const char *scheme_names[16];
    size_t ns = seam_scheme_count();
    ns = ns < 14 ? ns : 14;
    for (size_t i = 0; i < ns; i++)
        scheme_names[i] = seam_scheme_at(i)->name;
    scheme_names[ns] = "monolithic";   /* not a partitioned scheme: the coupled stepper */
    scheme_names[ns + 1] = NULL;
    sim->scheme = &seam_scheme_relaxation;
    sim->predictor = PREDICT_LINEAR;
    if (!coupling) {
        seam_convergence_read(&sim->conv, NULL, sim->cell_size);
        if (!has_coupled)
            seam_cfg_error(root, "coupling", "required key is missing (a scene with a fluid and solids says how to "
                           "couple them; {} takes the defaults, scheme relaxation)");
        return;
    }
    int s = seam_cfg_enum(coupling, "scheme", scheme_names, 1, 0);
    if ((size_t)s == ns) {
        read_monolithic(sim, root, coupling, has_coupled);
        return;
    }
    sim->scheme = seam_scheme_at((size_t)s);
    bool xpm = sim->scheme == &seam_scheme_xpm;
    /* xpm: the thesis's defaults, 30 iterations and 0.05 cell sizes on the
     * positions alone (Akbay 2.6); the projection holds the volumes. */
    seam_convergence_defaults defaults = {xpm ? 30 : 50, xpm ? 0.05 : 1e-6, xpm, xpm};
    if (xpm && !(sim->cell_size > 0) && !seam_cfg_has(coupling, "tolerance") && !seam_cfg_has(coupling, "measures")) {
        seam_cfg_error(coupling, "scheme",
                       "xpm measures convergence in cells (0.05 cell sizes, Akbay 2.6): give the scene's top-level "
                       "\"cell_size\", or coupling.tolerance");
        defaults = (seam_convergence_defaults){30, 1e-6, false, true};
    }
    seam_convergence_read_defaults(&sim->conv, coupling, sim->cell_size, &defaults);
    bpp_read_options(coupling, xpm, &sim->bpp_on, &sim->bpp_opts);
    if (xpm && !sim->bpp_on)
        seam_cfg_error(coupling, "bpp", "xpm includes the boundary pressure projection; for the RMI without it use scheme \"rmi\"");
    int unconverged = seam_cfg_enum(coupling, "on_nonconvergence", unconverged_names, 0, 0);
    sim->fail_unconverged = unconverged == 1;
    sim->retry_unconverged = unconverged == 2;
    sim->predictor = seam_cfg_enum(coupling, "predictor", predictor_names, PREDICT_LINEAR, 0);
    skip_other_scheme_keys(sim, coupling, seam_cfg_json(root, "coupling"));
    if (sim->scheme == &seam_scheme_explicit) {
        /* One solve each per step: nothing to converge. */
        static const char *const idle[] = {"tolerance", "convergence", "load_tolerance", "measures",
                                           "max_iterations", "on_nonconvergence", "divergence", "bpp"};
        for (size_t i = 0; i < sizeof idle / sizeof idle[0]; i++)
            if (json_object_get(seam_cfg_json(root, "coupling"), idle[i]))
                sim_log(sim, SEAM_LOG_WARN, NULL, "%s: coupling.%s has no effect: scheme \"explicit\" does not iterate",
                        locate_key(sim, "coupling", idle[i]), idle[i]);
    }
    if (has_coupled)
        sim_log(sim, SEAM_LOG_WARN, NULL, "%s: coupling has no effect: a \"coupled\" participant advances fluid and solid itself",
                seam_doc_locate(sim->doc, "coupling"));
    sim->scheme_self = sim->scheme->create ? sim->scheme->create(coupling) : NULL;
    if (sim->scheme->create && !sim->scheme_self)
        seam_cfg_error(coupling, "scheme", "scheme \"%s\" could not be set up (out of memory)", sim->scheme->name);
}

static void read_participants(seam_sim *sim, seam_cfg *root, bool has_coupled)
{
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
    sim->n_parts = has_coupled || sim->monolithic ? 1 : 1 + n_solids;
    sim->parts = calloc(sim->n_parts, sizeof *sim->parts);
    if (!sim->parts) {
        sim->n_parts = 0;
        seam_cfg_error(root, has_coupled ? "coupled" : "solids", "out of memory");
        return;
    }
    sim->first_solid = 1;
    if (sim->monolithic) {
        participant_read_monolithic(sim, root, &sim->parts[0]);
        sim->coupled = &sim->parts[0];
        sim->first_solid = 0;   /* it describes the solids' surfaces (docs/plugins.md, "Coupled plugins") */
        return;
    }
    if (has_coupled) {
        seam_cfg *c = seam_cfg_child(root, "coupled", 0);
        if (c)
            participant_read(sim, c, "coupled", SEAM_COUPLED, &sim->parts[0]);
        sim->coupled = &sim->parts[0];
        sim->first_solid = 0;
        return;
    }
    seam_cfg *f = seam_cfg_child(root, "fluid", 0);
    if (f)
        participant_read(sim, f, "fluid", SEAM_FLUID, &sim->parts[0]);
    sim->fluid = &sim->parts[0];
    for (size_t i = 0; i < n_solids; i++) {
        seam_cfg *s = seam_cfg_item(root, "solids", i);
        char def[32];
        snprintf(def, sizeof def, n_solids == 1 ? "solid" : "solid%zu", i);
        if (s)
            participant_read(sim, s, def, SEAM_SOLID, &sim->parts[1 + i]);
    }
}

static void read_output(seam_sim *sim, seam_cfg *root)
{
    sim_outputs *o = &sim->out;
    seam_cfg *out = seam_cfg_child(root, "output", 0);
    const char *dir = NULL;
    o->stats = true;
    o->frames = true;
    o->report = true;
    o->picture_surface = true;
    o->slice_axis = 2;   /* 3D: the plane normal to z through the middle of the field, unless the scene names one */
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
            if (seam_cfg_vec(pic, "range", range, 2, 0) && !(range[1] > range[0]))
                seam_cfg_error(pic, "range", "expected [low, high] with low < high");
            o->picture_opts.range[0] = range[0];
            o->picture_opts.range[1] = range[1];
            o->picture_opts.pixels_per_cell = (int)seam_cfg_int(pic, "pixels_per_cell", 0, 1, 64, 0);
            o->picture_surface = seam_cfg_bool(pic, "surface", true, 0);
            seam_cfg *slice = seam_cfg_child(pic, "slice", 0);
            if (slice) {
                static const char *const axes[] = {"x", "y", "z", NULL};
                o->slice_axis = seam_cfg_enum(slice, "axis", axes, 2, 0);
                o->slice_at_given = seam_cfg_has(slice, "at");
                o->slice_at = seam_cfg_num(slice, "at", 0.0, -INFINITY, INFINITY, 0);
                o->slice_given = true;
            }
        }
        probes_read(sim, out, &o->probes);
        seam_cfg *ck = seam_cfg_child(out, "checkpoint", 0);
        if (ck) {
            o->checkpoint_steps = seam_cfg_int(ck, "every_steps", 0, 1, LONG_MAX, 0);
            o->checkpoint_seconds = seam_cfg_num(ck, "every_seconds", 0.0, 0.0, INFINITY, SEAM_CFG_LO_OPEN);
            if (!seam_cfg_has(ck, "every_steps") && !seam_cfg_has(ck, "every_seconds"))
                seam_cfg_error(out, "checkpoint", "expected every_steps, every_seconds or both");
        }
    }
    char buf[4096];
    if (sim->opts.out_dir)
        snprintf(buf, sizeof buf, "%s", sim->opts.out_dir);
    else if (dir && dir[0] == '/')
        snprintf(buf, sizeof buf, "%s", dir);
    else if (dir)
        snprintf(buf, sizeof buf, "%s/%s", sim->scene_dir, dir);
    else {
        /* Default: out/<scene name without .json> in the working directory. */
        const char *origin = seam_doc_origin(sim->doc);
        const char *base = strrchr(origin, '/') ? strrchr(origin, '/') + 1 : origin;
        snprintf(buf, sizeof buf, "out/%s", base);
        char *dot = strrchr(buf, '.');
        if (dot && strcmp(dot, ".json") == 0)
            *dot = '\0';
    }
    o->dir = strdup(buf);
    o->picture_field = picture ? strdup(picture) : NULL;
    if (!o->dir || (picture && !o->picture_field))
        seam_cfg_error(root, "output", "out of memory");
}

/* Frames land at most once a step, so a run writes at least
 * min(end / frame, end / dt) of them: past MAX_FRAMES that is no output
 * anyone asked for. */
static void check_frames(seam_sim *sim, seam_cfg *time)
{
    if (!sim->out.frames)
        return;
    double at_least = sim->t_end / fmax(sim->frame_dt, isfinite(sim->dt_max) ? sim->dt_max : 0.0);
    if (at_least > MAX_FRAMES)
        seam_cfg_error(time, "frame", "%g s would write at least %.3g frames over the "
                       "run's %g s (a frame each step of at most %g s), more than %g: a frame interval this small is "
                       "a typo or a unit slip (or set output.frames to false)", sim->frame_dt, at_least, sim->t_end,
                       sim->dt_max, MAX_FRAMES);
}

void sim_read_scene(seam_sim *sim, seam_cfg *root)
{
    const char *description = seam_cfg_str(root, "description", NULL, 0);
    if (description && !(sim->description = strdup(description)))
        seam_cfg_error(root, "description", "out of memory");
    sim->cell_size = seam_cfg_num(root, "cell_size", 0.0, 0.0, INFINITY, SEAM_CFG_LO_OPEN);
    seam_cfg *time = read_time(sim, root);   /* one reader: a second would find its keys unread */
    read_gravity(sim, root);
    bool has_coupled = seam_cfg_has(root, "coupled");
    read_coupling(sim, root, has_coupled);
    read_participants(sim, root, has_coupled);
    read_output(sim, root);
    check_frames(sim, time);
    sim->stepper = has_coupled || sim->monolithic ? &sim_stepper_coupled : &sim_stepper_partitioned;
}
