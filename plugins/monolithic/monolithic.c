/* monolithic: the built-in coupled solver (role SEAM_COUPLED). It takes a
 * scene's fluid (fluid_mac: a liquid, or smoke filling the domain, with its
 * obstacles, sources and viscosity) and solids (solid_fem volumes,
 * solid_rigid bodies) and advances them as one system with Zarifi's coupled
 * pressure projection (Zarifi 2017, Algorithm 4; docs/monolithic.md). This
 * file is its table; plugin.h says where each part lives. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/log.h"
#include "plugin.h"
#include "ranges.h"

static void p_destroy(void *p)
{
    mono *self = p;
    if (!self)
        return;
    mono_cut_free(&self->cut);
    mono_fluid_free(&self->F);
    mono_kept_free(&self->kept);
    for (size_t s = 0; self->blk && s < self->ns; s++)
        mono_block_free(&self->blk[s]);
    free(self->blk);
    mono_participants_destroy(self);
    free(self->v_perp);
    free(self->Fn);
    free(self->X);
    free(self->V);
    free(self->mass);
    free(self->body);
    free(self->elems);
    free(self->two_sided);
    free(self->p);
    free(self->v);
    free(self->saved);
    free(self->all_fluid);
    free(self->phi);
    free(self);
}

static void *p_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    mono_config c;
    if (!mono_config_read(&c, config_json, host)) {
        mono_config_free(&c);
        return NULL;
    }
    mono *self = SEAM_NEW(mono);
    self->host = host;
    self->opts = c.opts;
    bool ok = mono_participants_create(self, &c);
    mono_config_free(&c);
    if (ok) {
        size_t nc = mac_ncell(&self->fl->cfg.g);
        if (!self->fl->cfg.liquid) {   /* smoke fills the domain: its level set is "liquid everywhere" */
            self->all_fluid = SEAM_NEW_N(double, nc);
            for (size_t k = 0; k < nc; k++)
                self->all_fluid[k] = -self->fl->cfg.g.dx;
        }
        self->phi = SEAM_NEW_N(double, nc);
        ok = mono_surface_build(self);
    }
    if (!ok) {
        p_destroy(self);
        return NULL;
    }
    self->blk = SEAM_NEW_N(mono_block, self->ns);
    return self;
}

static seam_status p_max_dt(void *p, double *dt)
{
    mono *self = p;
    seam_status st = fluid_mac_table()->max_dt(self->fl, dt);
    for (size_t s = 0; st == SEAM_OK && s < self->ns; s++) {
        double ds;
        st = self->sol[s].P->max_dt(self->sol[s].self, &ds);
        *dt = fmin(*dt, ds);
    }
    return st;
}


static seam_status p_commit(void *p)
{
    mono *self = p;
    if (!self->solved) {
        seam_logf(self->host, SEAM_LOG_ERROR, "commit without a successful solve");
        return SEAM_ERROR;
    }
    seam_status st = fluid_mac_table()->commit(self->fl);
    for (size_t s = 0; st == SEAM_OK && s < self->ns; s++)
        st = self->sol[s].P->commit(self->sol[s].self);
    self->solved = 0;
    return st;
}

/* The solids' surfaces in the committed state: interface.csv and the
 * pictures' outlines, as a partitioned run has them. */
static seam_status p_describe(void *p, seam_interface *iface)
{
    mono *self = p;
    if (mono_gather_positions(self) != SEAM_OK)
        return SEAM_ERROR;
    *iface = (seam_interface){.dim = self->dim, .n_points = self->n_nodes, .X = self->X, .mass = self->mass,
                              .body = self->body, .nodes_per_elem = self->dim, .n_elems = self->n_elems,
                              .elems = self->elems, .two_sided = self->two_sided, .n_bodies = self->n_bodies};
    return SEAM_OK;
}

static seam_status p_field(void *p, const char *name, seam_raster *out)
{
    mono *self = p;
    return fluid_mac_table()->field(self->fl, name, out);
}

/* The fluid's and the solids' own frames, side by side (their names differ). */
static seam_status p_write_output(void *p, const char *dir, int frame)
{
    mono *self = p;
    seam_status st = fluid_mac_table()->write_output(self->fl, dir, frame);
    for (size_t s = 0; st == SEAM_OK && s < self->ns; s++)
        st = self->sol[s].P->write_output(self->sol[s].self, dir, frame);
    return st;
}

static uint32_t p_capabilities(void *p)
{
    (void)p;
    return SEAM_CAP_SAVE;
}

/* The "coupling" keys p_create reads, declared so the coupler forwards them (the keys entry). */
static const char *const key_name[] = {"coupling.sigma", "coupling.row_scaling", "coupling.pcg_tolerance",
                                       "coupling.pcg_max_iterations", "coupling.preconditioner"};
static const int32_t key_type[] = {SEAM_KEY_NUMBER, SEAM_KEY_NUMBER, SEAM_KEY_NUMBER, SEAM_KEY_INTEGER, SEAM_KEY_ENUM};
/* lo and hi from the declared ranges (ranges.c); NAN for the enum */
static double key_lo[5], key_hi[5];
static const char *const key_choices[] = {"", "", "", "", "ic0|multigrid|direct|amg"};
static const char *const key_doc[] = {
    "sigma of the solid block (Zarifi 5.31), in (0, 1)", "row scaling alpha of the coupled system",
    "relative tolerance of the coupled PCG", "iterations the coupled PCG may take",
    "preconditioner of the coupled PCG"};

static seam_status p_keys(const seam_plugin *plugin, seam_keys *out)
{
    (void)plugin;
    for (size_t i = 0; i < sizeof key_name / sizeof key_name[0]; i++) {
        const seam_range *r = seam_range_find(MONO_COUPLING_KEYS, key_name[i] + strlen("coupling."));
        key_lo[i] = r ? r->lo : NAN;
        key_hi[i] = r ? r->hi : NAN;
    }
    *out = (seam_keys){sizeof key_name / sizeof key_name[0], key_name, key_type, key_lo, key_hi, key_choices, key_doc};
    return SEAM_OK;
}

static const seam_plugin table = {
    .abi = SEAM_ABI_VERSION,
    .name = "monolithic",
    .role = SEAM_COUPLED,
    .summary = "built-in monolithic solver: fluid_mac's liquid and solid_fem's solids in one coupled projection (Zarifi 2017)",
    .create = p_create,
    .destroy = p_destroy,
    .max_dt = p_max_dt,
    .solve = mono_plugin_solve,
    .commit = p_commit,
    .describe = p_describe,
    .save = mono_plugin_save,
    .load = mono_plugin_load,
    .field = p_field,
    .write_output = p_write_output,
    .capabilities = p_capabilities,
    .keys = p_keys,
};

const seam_plugin *monolithic_table(void) { return &table; }
