/* monolithic: the scene object's keys into mono_config. Its own keys are
 * "coupling"'s (Zarifi's choices, sec. 5.2, 6); "fluid" and "solids" are
 * participant objects whose keys are their plugins', checked by those. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/config.h"
#include "plugin.h"
#include "ranges.h"

/* Zarifi's choices (sec. 5.2, 6): sigma 0.9, alpha 1e-3, CG to 1e-10. */
static const mono_solve_opts opts_default = {0.9, 1e-3, 1e-10, 10000, MONO_PRECOND_MG};

static void read_coupling(seam_cfg *c, mono_solve_opts *o)
{
    if (!c)
        return;
    o->sigma = seam_cfg_key(c, MONO_COUPLING_KEYS, "sigma", 0.9, 0);
    o->alpha = seam_cfg_key(c, MONO_COUPLING_KEYS, "row_scaling", 1e-3, 0);
    o->tol = seam_cfg_key(c, MONO_COUPLING_KEYS, "pcg_tolerance", 1e-10, 0);
    o->max_iter = (int)seam_cfg_key_int(c, MONO_COUPLING_KEYS, "pcg_max_iterations", 10000, 0);
    static const char *const precond_names[] = {"ic0", "multigrid", "direct", "amg", NULL};
    o->precond = (mono_precond)seam_cfg_enum(c, "preconditioner", precond_names, MONO_PRECOND_MG, 0);
}

/* The keys of a participant object that belong to the coupler, not the plugin. */
static const char *const coupler_keys[] = {"plugin", "name", "process", NULL};

/* The participant object as its plugin's create takes it (NULL: jansson ran out of memory). */
static char *plugin_json(json_t *obj)
{
    json_t *copy = json_deep_copy(obj);
    if (!copy)
        return NULL;
    for (const char *const *k = coupler_keys; *k; k++)
        json_object_del(copy, *k);
    char *text = json_dumps(copy, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(copy);
    return text;
}

/* The plugin the object names must be one of `want` (NULL-terminated);
 * returns its index, its name (or `def`) into name; -1 otherwise. */
static int participant_plugin(seam_cfg *obj, const char *const *want, const char *def, char *name, size_t n)
{
    const char *plugin = seam_cfg_str(obj, "plugin", NULL, SEAM_CFG_REQUIRED);
    snprintf(name, n, "%s", seam_cfg_str(obj, "name", def, 0));
    const char *process = seam_cfg_str(obj, "process", "inline", 0);
    if (process && strcmp(process, "inline") != 0)
        seam_cfg_error(obj, "process", "the monolithic solver runs its fluid and solids inside itself: \"%s\" is not "
                       "possible", process);
    if (!plugin)
        return -1;
    const char *base = strrchr(plugin, '/') ? strrchr(plugin, '/') + 1 : plugin;
    size_t len = strcspn(base, ".");
    for (int i = 0; want[i]; i++)
        if (strlen(want[i]) == len && strncmp(base, want[i], len) == 0)
            return i;
    seam_cfg_error(obj, "plugin", "scheme \"monolithic\" couples fluid_mac with solid_fem's volumetric solids and "
                   "solid_rigid's bodies: \"%s\" is none of them", plugin);
    return -1;
}

/* The fluid's object: fluid_mac, whose "viscous_loads" the coupled solve cannot honour. */
static bool read_fluid(mono_config *c, seam_cfg *cfg, seam_cfg *fo)
{
    static const char *const fluids[] = {"fluid_mac", NULL};
    if (!fo || participant_plugin(fo, fluids, "fluid", c->fluid.name, sizeof c->fluid.name) != 0)
        return false;
    snprintf(c->fluid.path, sizeof c->fluid.path, "fluid");
    c->fluid.json = plugin_json(seam_cfg_json(cfg, "fluid"));
    return true;
}

/* Solid s's object: solid_fem or solid_rigid. */
static bool read_solid(mono_config *c, seam_cfg *cfg, seam_cfg *so, size_t s)
{
    static const char *const solids[] = {"solid_fem", "solid_rigid", NULL};
    mono_participant *pa = &c->solids[s];
    char def[32];
    snprintf(def, sizeof def, c->ns == 1 ? "solid" : "solid%zu", s);
    snprintf(pa->path, sizeof pa->path, "solids[%zu]", s);
    int which = so ? participant_plugin(so, solids, def, pa->name, sizeof pa->name) : -1;
    if (which < 0)
        return false;
    pa->rigid = which == 1;
    pa->json = plugin_json(json_array_get(seam_cfg_json(cfg, "solids"), s));
    return true;
}

bool mono_config_read(mono_config *c, const char *config_json, const seam_host *host)
{
    memset(c, 0, sizeof *c);
    seam_cfg *cfg = seam_cfg_from_host(config_json, host);
    if (!cfg)
        return false;
    c->opts = opts_default;
    read_coupling(seam_cfg_child(cfg, "coupling", 0), &c->opts);
    seam_cfg *fo = seam_cfg_child(cfg, "fluid", SEAM_CFG_REQUIRED);
    size_t ns = seam_cfg_count(cfg, "solids", SEAM_CFG_REQUIRED);
    bool ok = fo && ns > 0;
    if (!read_fluid(c, cfg, fo))
        ok = false;
    c->ns = ns;
    c->solids = SEAM_NEW_N(mono_participant, ns + 1);
    seam_cfg **solid_cfg = SEAM_NEW_N(seam_cfg *, ns + 1);
    for (size_t s = 0; s < ns; s++)
        solid_cfg[s] = seam_cfg_item(cfg, "solids", s);
    for (size_t s = 0; ok && s < ns; s++)
        ok = read_solid(c, cfg, solid_cfg[s], s);
    /* The objects' other keys are their plugins'; those check them. */
    const char *key;
    json_t *v;
    if (fo && json_is_true(json_object_get(seam_cfg_json(cfg, "fluid"), "viscous_loads")))
        seam_cfg_error(fo, "viscous_loads", "has no effect in the coupled solve: the solids take the pressure loads "
                       "G^T p of the coupled projection (5.13), no viscous stress");
    if (fo)
        json_object_foreach(seam_cfg_json(cfg, "fluid"), key, v) seam_cfg_skip(fo, key);
    for (size_t s = 0; s < ns; s++)
        json_object_foreach(json_array_get(seam_cfg_json(cfg, "solids"), s), key, v) seam_cfg_skip(solid_cfg[s], key);
    free(solid_cfg);
    if (seam_cfg_finish(cfg) != SEAM_OK)
        ok = false;
    seam_cfg_destroy(&cfg);
    return ok;
}

void mono_config_free(mono_config *c)
{
    free(c->fluid.json);
    for (size_t s = 0; c->solids && s < c->ns; s++)
        free(c->solids[s].json);
    free(c->solids);
    memset(c, 0, sizeof *c);
}
