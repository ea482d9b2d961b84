/* monolithic: the built-in coupled solver (role SEAM_COUPLED). It takes a
 * scene's fluid (fluid_mac: a liquid, or smoke filling the domain, with its
 * obstacles, sources and viscosity) and solids (solid_fem volumes,
 * solid_rigid bodies) and
 * advances them as one system with Zarifi's coupled pressure projection
 * (Zarifi 2017, Algorithm 4; docs/monolithic.md):
 *
 *   1. the solids' positions are the committed ones (x^n);
 *   2. the liquid's particle velocities go to the grid (smoke: its velocities
 *      are advected), gravity is added, walls and sources' faces take their
 *      velocities, viscosity diffuses them (fluid_mac_begin: u*);
 *   3. the solids' boundaries are cut against the grid (sec. 5.1.1, 4.6) and
 *      the liquid's level set is continued through them (mono_liquid_phi);
 *   4. (5.17) is assembled and solved through its SPD form (5.25-5.31);
 *   5. u = u* - dt/rho grad p (5.4), the velocities are extrapolated (4.6),
 *      the particles take the change and move (smoke: its scalars are
 *      transported), as fluid_mac's own solve does; the solids take
 *      x^{n+1} = x^n + dt v (5.2).
 *
 * The fluid and the solids are the plugins' own objects (plugins/fluid_mac
 * fluid.h, plugins/solid_fem fem.h), created from the scene's objects with
 * the same configuration reader, so every key means what it means in a
 * partitioned run, and the outputs are theirs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/config.h"
#include "seam/log.h"
#include "fluid.h"
#include "mono.h"
#include "rigid.h"

/* A participant run inside this plugin: its own host, whose messages and
 * key locations go through the outer one with its name and key path. */
typedef struct sub_host {
    seam_host host;
    const seam_host *outer;
    char name[64];
    char path[64];           /* "fluid", "solids[1]" */
} sub_host;

/* A solid: solid_fem (its block from the corotated linear model) or
 * solid_rigid (its block from its mobility), both driven through their tables. */
typedef struct solid {
    const seam_plugin *P;
    void *self;
    int rigid;
    size_t first, n_pts;     /* its boundary nodes */
    size_t n_bodies;
} solid;

typedef struct mono {
    const seam_host *host;
    sub_host fh;
    fluid_mac *fl;
    size_t ns;
    sub_host *sh;
    solid *sol;
    /* the solids' surfaces, concatenated (the fluid is bound to them) */
    int dim;
    size_t n_nodes, n_elems, n_bodies;
    double *X, *mass;
    double *V;               /* dim per boundary node: the solids' committed velocities (the fluid's viscosity) */
    int32_t *body, *elems;
    uint8_t *two_sided;
    mono_solve_opts opts;
    /* the last solve */
    mono_cut cut;
    mono_fluid F;
    mono_block *blk;
    double *p, *v;
    double *v_perp, *Fn;     /* dim per boundary node: prescribed velocities, pressure loads */
    double *all_fluid;       /* smoke: the level set of a domain full of fluid (-dx per cell) */
    double *phi;             /* the last solve's level set, continued through the solids (mono_liquid_phi) */
    size_t m;                /* solid unknowns of the last solve */
    mono_solve_stats stats;
    mono_kept kept;          /* what the solves keep (the solid block's CHOLMOD analysis) */
    int solved;
    /* save */
    unsigned char *saved;
} mono;

static void sub_log(void *ctx, seam_log_level level, const char *message)
{
    sub_host *s = ctx;
    if (!s->outer || !s->outer->log)
        return;
    char line[2048];
    snprintf(line, sizeof line, "%s: %s", s->name, message);
    s->outer->log(s->outer->ctx, level, line);
}

static const char *sub_locate(void *ctx, const char *key_path)
{
    sub_host *s = ctx;
    if (!s->outer || !s->outer->locate)
        return NULL;
    char full[1024];
    snprintf(full, sizeof full, "%s%s%s", s->path, *key_path && *key_path != '[' ? "." : "", key_path);
    return s->outer->locate(s->outer->ctx, full);
}

static void sub_init(sub_host *s, const seam_host *outer, const char *name, const char *path)
{
    s->outer = outer;
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->path, sizeof s->path, "%s", path);
    s->host = *outer;
    s->host.name = s->name;
    s->host.config_path = s->path;
    s->host.ctx = s;
    s->host.log = sub_log;
    s->host.locate = sub_locate;
}

/* The keys of a participant object that belong to the coupler, not the plugin. */
static const char *const coupler_keys[] = {"plugin", "name", "process", NULL};

/* The participant object as its plugin's create takes it (NULL: out of memory). */
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
    if (self->fl)
        fluid_mac_table()->destroy(self->fl);
    for (size_t s = 0; self->sol && s < self->ns; s++)
        if (self->sol[s].self)
            self->sol[s].P->destroy(self->sol[s].self);
    free(self->sol);
    free(self->sh);
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

/* The solids' surfaces at their committed positions, concatenated. */
static seam_status gather_positions(mono *self)
{
    size_t d = (size_t)self->dim;
    for (size_t s = 0; s < self->ns; s++) {
        seam_interface f;
        if (self->sol[s].P->describe(self->sol[s].self, &f) != SEAM_OK || f.n_points != self->sol[s].n_pts) {
            seam_logf(&self->sh[s].host, SEAM_LOG_ERROR, "describe failed or changed its number of points");
            return SEAM_ERROR;
        }
        memcpy(self->X + self->sol[s].first * d, f.X, f.n_points * d * sizeof(double));
    }
    return SEAM_OK;
}

/* The solids' committed velocities at their boundary nodes: solid_fem's
 * nodal v, solid_rigid's body velocity at each point. */
static void gather_velocities(mono *self)
{
    size_t d = (size_t)self->dim;
    for (size_t s = 0; s < self->ns; s++) {
        const solid *so = &self->sol[s];
        double *V = self->V + so->first * d;
        if (!so->rigid) {
            const fem *f = so->self;
            for (size_t q = 0; q < so->n_pts; q++)
                memcpy(V + q * d, f->v + (size_t)f->iface_node[q] * d, d * sizeof *V);
            continue;
        }
        const rigid_solver *rs = so->self;
        for (size_t i = 0; i < rigid_body_count(rs); i++) {
            const rigid_body *b = rigid_get_body(rs, i);
            const rigid_state *S = rigid_get_state(rs, i);
            for (size_t k = 0; k < b->n_pts; k++) {
                double x[3], v[3];
                rigid_body_point(S, b->r + 3 * k, x);
                rigid_body_velocity_at(S, x, v);
                memcpy(V + (b->first + k) * d, v, d * sizeof *V);
            }
        }
    }
}

/* Where solid s is written in the scene ("file:line:col: solids[1]"), for a refusal that no key of its own
 * causes; "solids[1]" alone when the host cannot locate it. */
static const char *solid_where(mono *self, size_t s, char *buf, size_t n)
{
    const seam_host *h = &self->sh[s].host;
    const char *at = h->locate ? h->locate(h->ctx, "") : NULL;
    snprintf(buf, n, "%s%s%s", at ? at : "", at ? ": " : "", self->sh[s].path);
    return buf;
}

/* Concatenate the solids' surfaces (volumes only) and bind the fluid to them. */
static int build_surface(mono *self)
{
    int d = self->fl->g.dim;
    self->dim = d;
    seam_interface *f = calloc(self->ns + 1, sizeof *f);
    if (!f)
        return -1;
    int ok = 1;
    for (size_t s = 0; ok && s < self->ns; s++) {
        solid *so = &self->sol[s];
        if (so->P->describe(so->self, &f[s]) != SEAM_OK) {
            ok = 0;
            break;
        }
        char where[1200];
        if (f[s].dim != d || f[s].nodes_per_elem != d) {
            seam_logf(&self->sh[s].host, SEAM_LOG_ERROR, "%s: is %dD and the fluid %dD",
                      solid_where(self, s, where, sizeof where), f[s].dim, d);
            ok = 0;
        }
        for (size_t e = 0; ok && e < f[s].n_elems; e++)
            if (f[s].two_sided && f[s].two_sided[e]) {
                seam_logf(&self->sh[s].host, SEAM_LOG_ERROR, "%s: interface element %zu is a shell: scheme "
                          "\"monolithic\" couples volumetric solids only (Zarifi's cut cells need a closed surface)",
                          solid_where(self, s, where, sizeof where), e);
                ok = 0;
            }
        so->first = self->n_nodes;
        so->n_pts = f[s].n_points;
        so->n_bodies = f[s].n_bodies ? f[s].n_bodies : 1;
        self->n_nodes += f[s].n_points;
        self->n_elems += f[s].n_elems;
    }
    size_t n = self->n_nodes, ne = self->n_elems;
    if (ok) {
        self->X = calloc(n * (size_t)d + 1, sizeof *self->X);
        self->mass = calloc(n + 1, sizeof *self->mass);
        self->body = calloc(n + 1, sizeof *self->body);
        self->elems = calloc(ne * (size_t)d + 1, sizeof *self->elems);
        self->two_sided = calloc(ne + 1, 1);
        self->v_perp = calloc(n * (size_t)d + 1, sizeof *self->v_perp);
        self->Fn = calloc(n * (size_t)d + 1, sizeof *self->Fn);
        self->V = calloc(n * (size_t)d + 1, sizeof *self->V);
        ok = self->X && self->mass && self->body && self->elems && self->two_sided && self->v_perp && self->Fn &&
             self->V;
    }
    size_t e_at = 0;
    int32_t body_base = 0;
    for (size_t s = 0; ok && s < self->ns; s++) {
        size_t first = self->sol[s].first;
        for (size_t q = 0; q < f[s].n_points; q++) {
            self->mass[first + q] = f[s].mass ? f[s].mass[q] : 0.0;
            self->body[first + q] = body_base + (f[s].body ? f[s].body[q] : 0);
        }
        for (size_t e = 0; e < f[s].n_elems; e++, e_at++)
            for (int k = 0; k < d; k++)
                self->elems[e_at * (size_t)d + (size_t)k] = (int32_t)first + f[s].elems[e * (size_t)d + (size_t)k];
        body_base += (int32_t)self->sol[s].n_bodies;
    }
    free(f);
    if (!ok)
        return -1;
    self->n_bodies = (size_t)body_base;
    if (gather_positions(self) != SEAM_OK)
        return -1;
    seam_interface iface = {.dim = d, .n_points = n, .X = self->X, .mass = self->mass, .body = self->body,
                            .nodes_per_elem = d, .n_elems = ne, .elems = self->elems,
                            .two_sided = self->two_sided, .n_bodies = self->n_bodies};
    return fluid_mac_table()->bind(self->fl, &iface) == SEAM_OK ? 0 : -1;
}

static void *p_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *cfg = seam_cfg_from_host(config_json, host);
    if (!cfg)
        return NULL;
    mono *self = calloc(1, sizeof *self);
    if (!self) {
        seam_cfg_destroy(&cfg);
        return NULL;
    }
    self->host = host;
    /* Zarifi's choices (sec. 5.2, 6): sigma 0.9, alpha 1e-3, CG to 1e-10. */
    self->opts = (mono_solve_opts){0.9, 1e-3, 1e-10, 10000, MONO_PRECOND_MG};
    seam_cfg *c = seam_cfg_child(cfg, "coupling", 0);
    if (c) {
        self->opts.sigma = seam_cfg_num(c, "sigma", 0.9, 0.0, 1.0, SEAM_CFG_LO_OPEN | SEAM_CFG_HI_OPEN);
        self->opts.alpha = seam_cfg_num(c, "row_scaling", 1e-3, 0.0, INFINITY, 0);
        self->opts.tol = seam_cfg_num(c, "pcg_tolerance", 1e-10, 0.0, 1.0, SEAM_CFG_LO_OPEN | SEAM_CFG_HI_OPEN);
        self->opts.max_iter = (int)seam_cfg_int(c, "pcg_max_iterations", 10000, 1, 100000000, 0);
        static const char *const precond_names[] = {"ic0", "multigrid", NULL};
        self->opts.precond = (mono_precond)seam_cfg_enum(c, "preconditioner", precond_names, MONO_PRECOND_MG, 0);
    }
    seam_cfg *fo = seam_cfg_child(cfg, "fluid", SEAM_CFG_REQUIRED);
    size_t ns = seam_cfg_count(cfg, "solids", SEAM_CFG_REQUIRED);
    int ok = fo && ns > 0;
    char name[64];
    char *text = NULL;
    static const char *const fluids[] = {"fluid_mac", NULL}, *const solids[] = {"solid_fem", "solid_rigid", NULL};
    if (fo && participant_plugin(fo, fluids, "fluid", name, sizeof name) == 0) {
        sub_init(&self->fh, host, name, "fluid");
        text = plugin_json(seam_cfg_json(cfg, "fluid"));
    } else {
        ok = 0;
    }
    self->ns = ns;
    self->sh = calloc(ns + 1, sizeof *self->sh);
    self->sol = calloc(ns + 1, sizeof *self->sol);
    char **solid_text = calloc(ns + 1, sizeof *solid_text);
    seam_cfg **solid_cfg = calloc(ns + 1, sizeof *solid_cfg);
    if (!self->sh || !self->sol || !solid_text || !solid_cfg)
        ok = 0;
    for (size_t s = 0; solid_cfg && s < ns; s++)
        solid_cfg[s] = seam_cfg_item(cfg, "solids", s);
    for (size_t s = 0; ok && s < ns; s++) {
        seam_cfg *so = solid_cfg[s];
        char def[32], path[32];
        snprintf(def, sizeof def, ns == 1 ? "solid" : "solid%zu", s);
        snprintf(path, sizeof path, "solids[%zu]", s);
        int which = so ? participant_plugin(so, solids, def, name, sizeof name) : -1;
        if (which < 0) {
            ok = 0;
            continue;
        }
        self->sol[s].rigid = which == 1;
        self->sol[s].P = which == 1 ? solid_rigid_table() : solid_fem_table();
        sub_init(&self->sh[s], host, name, path);
        solid_text[s] = plugin_json(json_array_get(seam_cfg_json(cfg, "solids"), s));
    }
    /* The objects' other keys are their plugins'; those check them. */
    const char *key;
    json_t *v;
    if (fo && json_is_true(json_object_get(seam_cfg_json(cfg, "fluid"), "viscous_loads")))
        seam_cfg_error(fo, "viscous_loads", "has no effect in the coupled solve: the solids take the pressure loads "
                       "G^T p of the coupled projection (5.13), no viscous stress");
    if (fo)
        json_object_foreach(seam_cfg_json(cfg, "fluid"), key, v) seam_cfg_skip(fo, key);
    for (size_t s = 0; solid_cfg && s < ns; s++)
        json_object_foreach(json_array_get(seam_cfg_json(cfg, "solids"), s), key, v) seam_cfg_skip(solid_cfg[s], key);
    free(solid_cfg);
    if (seam_cfg_finish(cfg) != SEAM_OK)
        ok = 0;
    seam_cfg_destroy(&cfg);
    if (ok && !(self->fl = fluid_mac_table()->create(fluid_mac_table(), text, &self->fh.host)))
        ok = 0;
    for (size_t s = 0; ok && s < ns; s++)
        if (!(self->sol[s].self = self->sol[s].P->create(self->sol[s].P, solid_text[s], &self->sh[s].host)))
            ok = 0;
    free(text);
    for (size_t s = 0; solid_text && s < ns; s++)
        free(solid_text[s]);
    free(solid_text);
    /* Smoke fills the domain: its level set is "liquid everywhere". */
    if (ok && !self->fl->liquid) {
        size_t nc = mac_ncell(&self->fl->g);
        if (!(self->all_fluid = malloc(nc * sizeof *self->all_fluid)))
            ok = 0;
        for (size_t c = 0; ok && c < nc; c++)
            self->all_fluid[c] = -self->fl->g.dx;
    }
    if (ok && !(self->phi = malloc(mac_ncell(&self->fl->g) * sizeof *self->phi)))
        ok = 0;
    if (ok && build_surface(self) != 0)
        ok = 0;
    if (ok && !(self->blk = calloc(ns, sizeof *self->blk)))
        ok = 0;
    if (!ok) {
        p_destroy(self);
        return NULL;
    }
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


/* An active cell that holds both sides of a solid: its patches'
 * area-weighted normals cancel to under a third of their area (a corner of
 * 90 degrees keeps 0.71 of it; cells with patches of under a tenth of a
 * cell's side in all, and patches facing an obstacle or the domain's
 * outside, are not counted). One pressure per cell (5.13) would join the fluid on the two
 * sides, which the solid no longer separates (an enclosed region leaks):
 * SEAM_ERROR, naming the first such cell. */
static seam_status thin_solid_cells(mono *self, const mac_grid *g, const seam_step *step)
{
    size_t nc = mac_ncell(g), d = (size_t)g->dim;
    double *acc = calloc(nc * (d + 1), sizeof *acc);
    if (!acc) {
        seam_logf(self->host, SEAM_LOG_ERROR, "out of memory checking the %zu cut cells", nc);
        return SEAM_ERROR;
    }
    seam_status st = SEAM_OK;
    for (size_t q = 0; q < self->cut.n_patches; q++) {
        const mono_patch *pa = &self->cut.patches[q];
        /* a patch with no fluid on its side (an obstacle, or the domain's
         * outside, a hundredth of a cell from its centroid against n) parts nothing */
        double xc[3] = {0.0, 0.0, 0.0};
        int ijk[3] = {0, 0, 0}, outside = 0;
        for (size_t k = 0; k < d; k++)
            for (size_t e = 0; e < d; e++)
                xc[e] += pa->w[k] * self->X[(size_t)self->elems[pa->elem * d + k] * d + e];
        for (size_t e = 0; e < d; e++) {
            double v = floor((xc[e] - 0.01 * g->dx * pa->n[e] - g->origin[e]) / g->dx);
            outside |= v < 0.0 || v >= mac_n(g, (int)e);
            ijk[e] = outside ? 0 : (int)v;
        }
        if (outside || (self->fl->obstacle && self->fl->obstacle[mac_c(g, ijk[0], ijk[1], ijk[2])]))
            continue;
        double *a = acc + pa->cell * (d + 1);
        for (size_t k = 0; k < d; k++)
            a[k] += pa->area * pa->n[k];
        a[d] += pa->area;
    }
    for (size_t c = 0; c < nc; c++) {
        const double *a = acc + c * (d + 1);
        double len = sqrt(a[0] * a[0] + a[1] * a[1] + (d == 3 ? a[2] * a[2] : 0.0));
        if (self->F.index[c] < 0 || !(a[d] > 0.1 * (d == 2 ? g->dx : g->dx * g->dx)) || len >= a[d] / 3.0)
            continue;
        seam_logf(self->host, SEAM_LOG_ERROR, "step %lld (t = %g s): cell (%zu, %zu, %zu) holds both sides of a solid "
                  "(its boundary's normals cancel to %.2f of its %s): its one pressure would join the fluid on both "
                  "sides (Zarifi 5.13); the solid is thinner than about two cells there: refine the grid",
                  (long long)step->index, step->t, c % (size_t)g->nx, c / (size_t)g->nx % (size_t)g->ny,
                  c / ((size_t)g->nx * (size_t)g->ny), len / a[d], d == 2 ? "length" : "area");
        st = SEAM_ERROR;
        break;
    }
    free(acc);
    return st;
}

static int active_cell(const void *ctx, size_t c) { return ((const mono_fluid *)ctx)->index[c] >= 0; }

static seam_status p_solve(void *p, const seam_step *step, const seam_input *in, seam_output *out)
{
    (void)in, (void)out;
    mono *self = p;
    double dt = step->dt;
    self->solved = 0;
    if (!(dt > 0.0) || !isfinite(dt)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve: step size %g is not a positive number", dt);
        return SEAM_ERROR;
    }
    fluid_mac *fl = self->fl;
    const mac_grid *g = &fl->g;
    seam_status st = gather_positions(self);
    gather_velocities(self);
    if (st == SEAM_OK)
        st = fluid_mac_begin(fl, self->X, self->V, step->t, dt);
    if (st != SEAM_OK)
        return st;
    const double *phi = self->phi;
    mono_boundary b = {self->dim, self->n_nodes, self->X, self->n_elems, self->elems};
    mono_cut_free(&self->cut);
    mono_fluid_free(&self->F);
    st = mono_cut_build(&self->cut, g, &b, self->host);
    if (st == SEAM_OK)
        mono_cut_obstacles(&self->cut, g, fl->obstacle);
    if (st == SEAM_OK)
        st = mono_liquid_phi(g, &self->cut, fl->liquid ? fl->phi_n : self->all_fluid, self->phi, self->host);
    if (st == SEAM_OK)
        st = mono_fluid_build(&self->F, g, &self->cut, &b, phi, fl->vel, fl->vel, fl->rho, dt, self->host);
    if (st == SEAM_OK)
        st = thin_solid_cells(self, g, step);
    /* Volume sources: their rate over the active cells, a prescribed divergence, so B p + G v = E u* + s V. */
    if (st == SEAM_OK && fluid_mac_volume_sources(fl, active_cell, &self->F, step->t + 0.5 * dt))
        for (size_t r = 0; r < self->F.n; r++)
            self->F.Eu[r] += fl->src_s[self->F.cell[r]] * mac_cell_volume(g);
    size_t m = 0, d = (size_t)self->dim, nd = self->n_nodes * d;
    memset(self->v_perp, 0, nd * sizeof *self->v_perp);
    for (size_t s = 0; st == SEAM_OK && s < self->ns; s++) {
        solid *so = &self->sol[s];
        mono_block_free(&self->blk[s]);
        if (so->rigid) {
            int rank = (self->dim == 2 ? 3 : 6) * (int)so->n_bodies;
            st = mono_rigid_block(&self->blk[s], so->P, so->self, step, so->n_pts, self->dim, rank, so->first,
                                  self->n_nodes, self->v_perp, &self->sh[s].host);
        } else {
            const fem *f = so->self;
            st = mono_fem_block(&self->blk[s], f, dt, self->opts.sigma, NULL, so->first, self->n_nodes,
                                &self->sh[s].host);
            for (size_t q = 0; q < so->n_pts; q++) {   /* prescribed nodes: their flux is known */
                size_t node = (size_t)f->iface_node[q];
                if (f->fixed[node] == 2)
                    memcpy(self->v_perp + (so->first + q) * d, f->v_fixed + node * d, d * sizeof(double));
            }
        }
        m += self->blk[s].m;
    }
    if (st != SEAM_OK)
        return st;
    /* B p + G T w = E u* - G v_perp */
    double *Gv = calloc(self->F.n + 1, sizeof *Gv);
    if (!Gv) {
        seam_logf(self->host, SEAM_LOG_ERROR, "out of memory for %zu pressures", self->F.n);
        return SEAM_ERROR;
    }
    seam_csr_mul(self->F.G, self->v_perp, Gv);
    for (size_t r = 0; r < self->F.n; r++)
        self->F.Eu[r] -= Gv[r];
    free(Gv);
    free(self->p);
    free(self->v);
    self->p = calloc(self->F.n + 1, sizeof *self->p);
    self->v = calloc(m + 1, sizeof *self->v);
    self->m = m;
    if (!self->p || !self->v) {
        seam_logf(self->host, SEAM_LOG_ERROR, "out of memory for %zu pressures and %zu solid velocities", self->F.n, m);
        return SEAM_ERROR;
    }
    st = mono_solve_kept(&self->kept, &self->F, self->blk, self->ns, dt, &self->opts, self->p, self->v, &self->stats,
                         self->host);
    if (st != SEAM_OK)
        return st;
    size_t nc = mac_ncell(g);
    for (size_t c = 0; c < nc; c++)
        fl->p[c] = self->F.index[c] >= 0 ? self->p[self->F.index[c]] : 0.0;
    mono_fluid_update(&self->F, g, &self->cut, phi, self->p, fl->vel, fl->rho, dt, fl->vel);
    if (mono_extrapolate(g, &self->cut, phi, 2, fl->vel) != SEAM_OK) {
        seam_logf(self->host, SEAM_LOG_ERROR, "out of memory extending the velocities of a %zu-cell grid",
                  mac_ncell(g));
        return SEAM_ERROR;
    }
    /* the solids' steps: FEM with the solved velocities (5.2), rigid bodies by
     * their own integrator under the pressure loads G^T p (5.13) */
    seam_csr_mul_t(self->F.G, self->p, self->Fn);
    for (size_t s = 0, at = 0; st == SEAM_OK && s < self->ns; at += self->blk[s].m, s++) {
        solid *so = &self->sol[s];
        if (so->rigid)
            st = mono_rigid_advance(so->P, so->self, step, so->n_pts, self->dim, self->Fn + so->first * d);
        else {
            ((fem *)so->self)->t_trial = step->t + dt;   /* what solid_fem's commit takes as the new time */
            mono_fem_advance(so->self, &self->blk[s], self->v + at, dt);
        }
    }
    if (st == SEAM_OK)
        st = fluid_mac_end(fl, dt);
    if (st != SEAM_OK)
        return st;
    seam_logf(self->host, SEAM_LOG_DEBUG, "step %lld: %zu pressures, %zu solid velocities, PCG %d iterations, "
              "residual %.3g", (long long)step->index, self->F.n, m, self->stats.iterations, self->stats.residual);
    self->solved = 1;
    return SEAM_OK;
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
    if (gather_positions(self) != SEAM_OK)
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

/* Saved state: a count, then each part's size and bytes (fluid, then solids). */
static seam_status p_save(void *p, seam_buffer *out)
{
    mono *self = p;
    size_t parts = self->ns + 1;
    seam_buffer *b = calloc(parts, sizeof *b);
    if (!b)
        return SEAM_ERROR;
    seam_status st = fluid_mac_table()->save(self->fl, &b[0]);
    for (size_t s = 0; st == SEAM_OK && s < self->ns; s++)
        st = self->sol[s].P->save(self->sol[s].self, &b[1 + s]);
    size_t size = sizeof(uint64_t);
    for (size_t i = 0; st == SEAM_OK && i < parts; i++)
        size += sizeof(uint64_t) + b[i].size;
    unsigned char *buf = st == SEAM_OK ? malloc(size) : NULL;
    if (buf) {
        uint64_t count = parts;
        unsigned char *at = buf;
        memcpy(at, &count, sizeof count);
        at += sizeof count;
        for (size_t i = 0; i < parts; i++) {
            uint64_t len = b[i].size;
            memcpy(at, &len, sizeof len);
            memcpy(at + sizeof len, b[i].data, b[i].size);
            at += sizeof len + b[i].size;
        }
        free(self->saved);
        self->saved = buf;
        out->data = buf;
        out->size = size;
    }
    free(b);
    if (st == SEAM_OK && !buf) {
        seam_logf(self->host, SEAM_LOG_ERROR, "save: out of memory for %zu bytes", size);
        return SEAM_ERROR;
    }
    return st;
}

static seam_status p_load(void *p, const void *bytes, size_t n)
{
    mono *self = p;
    const unsigned char *at = bytes, *end = at + n;
    uint64_t count;
    if (n < sizeof count || (memcpy(&count, at, sizeof count), count != self->ns + 1)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: not the state of a fluid and %zu solids", self->ns);
        return SEAM_ERROR;
    }
    at += sizeof count;
    for (size_t i = 0; i <= self->ns; i++) {
        uint64_t len;
        if ((size_t)(end - at) < sizeof len || (memcpy(&len, at, sizeof len), len > (uint64_t)(end - at - sizeof len))) {
            seam_logf(self->host, SEAM_LOG_ERROR, "load: the state is cut short in part %zu", i);
            return SEAM_ERROR;
        }
        at += sizeof len;
        seam_status st = i == 0 ? fluid_mac_table()->load(self->fl, at, len)
                                : self->sol[i - 1].P->load(self->sol[i - 1].self, at, len);
        if (st != SEAM_OK)
            return st;
        at += len;
    }
    self->solved = 0;
    return SEAM_OK;
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
static const double key_lo[] = {0.0, 0.0, 0.0, 1.0, NAN}, key_hi[] = {1.0, INFINITY, 1.0, 1e8, NAN};
static const char *const key_choices[] = {"", "", "", "", "ic0|multigrid"};
static const char *const key_doc[] = {
    "sigma of the solid block (Zarifi 5.31), in (0, 1)", "row scaling alpha of the coupled system",
    "relative tolerance of the coupled PCG", "iterations the coupled PCG may take",
    "preconditioner of the coupled PCG"};

static seam_status p_keys(const seam_plugin *plugin, seam_keys *out)
{
    (void)plugin;
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
    .solve = p_solve,
    .commit = p_commit,
    .describe = p_describe,
    .save = p_save,
    .load = p_load,
    .field = p_field,
    .write_output = p_write_output,
    .capabilities = p_capabilities,
    .keys = p_keys,
};

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &table; }
