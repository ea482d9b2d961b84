/* monolithic: the fluid and the solids it runs inside itself. Each is its
 * plugin's own object (plugins/fluid_mac fluid.h, plugins/solid_fem fem.h,
 * plugins/solid_rigid rigid.h), created from the scene's objects with the
 * same configuration reader, so every key means what it means in a
 * partitioned run, and talks through a sub host that names it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/log.h"
#include "plugin.h"
#include "rigid.h"

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

bool mono_participants_create(mono *self, const mono_config *c)
{
    const seam_host *host = self->host;
    self->ns = c->ns;
    self->sh = SEAM_NEW_N(sub_host, c->ns + 1);
    self->sol = SEAM_NEW_N(solid, c->ns + 1);
    sub_init(&self->fh, host, c->fluid.name, c->fluid.path);
    for (size_t s = 0; s < c->ns; s++) {
        self->sol[s].rigid = c->solids[s].rigid;
        self->sol[s].P = c->solids[s].rigid ? solid_rigid_table() : solid_fem_table();
        sub_init(&self->sh[s], host, c->solids[s].name, c->solids[s].path);
    }
    if (!(self->fl = fluid_mac_table()->create(fluid_mac_table(), c->fluid.json, &self->fh.host)))
        return false;
    for (size_t s = 0; s < c->ns; s++)
        if (!(self->sol[s].self = self->sol[s].P->create(self->sol[s].P, c->solids[s].json, &self->sh[s].host)))
            return false;
    return true;
}

void mono_participants_destroy(mono *self)
{
    if (self->fl)
        fluid_mac_table()->destroy(self->fl);
    for (size_t s = 0; self->sol && s < self->ns; s++)
        if (self->sol[s].self)
            self->sol[s].P->destroy(self->sol[s].self);
    free(self->sol);
    free(self->sh);
}

seam_status mono_gather_positions(mono *self)
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

/* solid_fem's nodal v, solid_rigid's body velocity at each point. */
void mono_gather_velocities(mono *self)
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

bool mono_surface_build(mono *self)
{
    int d = self->fl->cfg.g.dim;
    self->dim = d;
    seam_interface *f = SEAM_NEW_N(seam_interface, self->ns + 1);
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
        self->X = SEAM_NEW_N(double, n * (size_t)d + 1);
        self->mass = SEAM_NEW_N(double, n + 1);
        self->body = SEAM_NEW_N(int32_t, n + 1);
        self->elems = SEAM_NEW_N(int32_t, ne * (size_t)d + 1);
        self->two_sided = SEAM_NEW_N(uint8_t, ne + 1);
        self->v_perp = SEAM_NEW_N(double, n * (size_t)d + 1);
        self->Fn = SEAM_NEW_N(double, n * (size_t)d + 1);
        self->V = SEAM_NEW_N(double, n * (size_t)d + 1);
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
        return false;
    self->n_bodies = (size_t)body_base;
    if (mono_gather_positions(self) != SEAM_OK)
        return false;
    seam_interface iface = {.dim = d, .n_points = n, .X = self->X, .mass = self->mass, .body = self->body,
                            .nodes_per_elem = d, .n_elems = ne, .elems = self->elems,
                            .two_sided = self->two_sided, .n_bodies = self->n_bodies};
    return fluid_mac_table()->bind(self->fl, &iface) == SEAM_OK;
}

