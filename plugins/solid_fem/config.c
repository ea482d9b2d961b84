/* solid_fem's configuration: the participant's keys into fem_settings and
 * each body's material, mesh and constraints. Every key is read here, with
 * its default (each number's range is declared in ranges.c, which the
 * reading call takes); a refused key is reported at its place in the scene
 * file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/config.h"
#include "seam/log.h"
#include "fem.h"
#include "ranges.h"

/* Defaults of the settings a scene may leave out. */
static const fem_settings defaults = {
    .integrator = FEM_BACKWARD_EULER,
    .newton_tol = 1e-6,
    .newton_max = 50,
    .line_search = 1,
    .lin_method = FEM_LIN_AUTO,
    .lin_tol = 1e-8,
    .lin_max = 2000,
    .precond = FEM_JACOBI,
    .cfl = 0.5,
    .dt_limit = INFINITY,
};

void fem_read_settings(fem *self, seam_cfg *cfg)
{
    fem_settings *s = &self->set;
    *s = defaults;
    self->d = (int)seam_cfg_int(cfg, "dim", 2, 2, 3, SEAM_CFG_REQUIRED);
    /* The scene's gravity; without one, none. Its own key wins, loudly. */
    seam_cfg_gravity(cfg, self->host, self->d, NULL, self->gravity);
    static const char *const integrators[] = {"backward_euler", "explicit", "irving", NULL};
    s->integrator = (fem_integrator)seam_cfg_enum(cfg, "integrator", integrators, defaults.integrator, 0);
    seam_cfg *nc = seam_cfg_child(cfg, "newton", 0);
    if (nc) {
        s->newton_tol = seam_cfg_key(nc, FEM_KEYS, "newton.tolerance", defaults.newton_tol, 0);
        s->newton_max = (int)seam_cfg_key_int(nc, FEM_KEYS, "newton.max_iterations", defaults.newton_max, 0);
        s->line_search = seam_cfg_bool(nc, "line_search", defaults.line_search, 0);
    }
    seam_cfg *lc = seam_cfg_child(cfg, "linear_solver", 0);
    if (lc) {
        static const char *const pre[] = {"jacobi", "ic0", NULL}, *const methods[] = {"cholmod", "cg", "auto", NULL};
        s->lin_method = (fem_lin_method)seam_cfg_enum(lc, "method", methods, defaults.lin_method, 0);
        s->lin_tol = seam_cfg_key(lc, FEM_KEYS, "linear_solver.tolerance", defaults.lin_tol, 0);
        s->lin_max = (int)seam_cfg_key_int(lc, FEM_KEYS, "linear_solver.max_iterations", defaults.lin_max, 0);
        s->precond = (fem_precond)seam_cfg_enum(lc, "preconditioner", pre, defaults.precond, 0);
    }
    s->cfl = seam_cfg_key(cfg, FEM_KEYS, "cfl", defaults.cfl, 0);
    s->dt_limit = seam_cfg_key(cfg, FEM_KEYS, "max_dt", defaults.dt_limit, 0);
}

/* The mesh of a body; a file's path (resolved against the scene's
 * directory) goes to file_buf, "" for a generated mesh. */
static int read_mesh(seam_cfg *body, int d, fem_kind kind, fem_mesh *m, const seam_host *host, char *file_buf,
                     size_t file_len)
{
    seam_cfg *c = seam_cfg_child(body, "mesh", SEAM_CFG_REQUIRED);
    if (!c)
        return -1;
    file_buf[0] = '\0';
    if (seam_cfg_has(c, "file")) {
        const char *file = seam_cfg_file(c, "file", NULL, file_buf, file_len, SEAM_CFG_REQUIRED);
        if (!file)
            return -1;
        size_t len = strlen(file);
        int obj = len > 4 && strcmp(file + len - 4, ".obj") == 0;
        if (kind == FEM_SHELL && (d == 2 || !obj)) {
            seam_cfg_error(c, "file", "shells are read from .obj files, in 3D only");
            return -1;
        }
        if (kind == FEM_VOLUME && obj) {
            seam_cfg_error(c, "file", "volumetric solids are read from Gmsh .msh files");
            return -1;
        }
        return obj ? fem_mesh_read_obj(file, m, host) : fem_mesh_read_msh(file, d, m, host);
    }
    return fem_mesh_generate(c, d, kind, m);
}

static int read_material(seam_cfg *body, int d, fem_body *b)
{
    seam_cfg *c = seam_cfg_child(body, "material", SEAM_CFG_REQUIRED);
    if (!c)
        return -1;
    static const char *const kinds[] = {"solid", "shell", NULL};
    b->kind = (fem_kind)seam_cfg_enum(c, "kind", kinds, FEM_VOLUME, 0);
    seam_cfg *damp = seam_cfg_child(c, "damping", 0);
    if (damp)
        b->alpha = seam_cfg_key(damp, b->kind == FEM_SHELL ? FEM_SHELL_KEYS : FEM_SOLID_KEYS, "damping.alpha", 0, 0);
    if (b->kind == FEM_SHELL) {
        b->k_stretch = seam_cfg_key(c, FEM_SHELL_KEYS, "k_stretch", 0, SEAM_CFG_REQUIRED);
        b->b_stretch = seam_cfg_key(c, FEM_SHELL_KEYS, "b_stretch", 0, 0);
        b->k_bend = seam_cfg_key(c, FEM_SHELL_KEYS, "k_bend", 0, 0);
        b->b_bend = seam_cfg_key(c, FEM_SHELL_KEYS, "b_bend", 0, 0);
        b->density = seam_cfg_key(c, FEM_SHELL_KEYS, "density", 1, SEAM_CFG_REQUIRED);
        if (d == 3)
            b->nu = seam_cfg_key(c, FEM_SHELL_KEYS, "nu", 0.3, 0);
        return 0;
    }
    static const char *const models[] = {"corotated", "neo_hookean", "stvk", NULL};
    b->mat.model = (fem_model)seam_cfg_enum(c, "model", models, FEM_COROTATED, 0);
    double E = seam_cfg_key(c, FEM_SOLID_KEYS, "E", 1, SEAM_CFG_REQUIRED);
    double nu = seam_cfg_key(c, FEM_SOLID_KEYS, "nu", 0.3, 0);
    b->density = seam_cfg_key(c, FEM_SOLID_KEYS, "density", 1000, SEAM_CFG_REQUIRED);
    /* Corotated is linear in the singular values and needs no extension. */
    if (b->mat.model != FEM_COROTATED)
        b->mat.compression_limit = seam_cfg_key(c, FEM_SOLID_KEYS, "compression_limit",
                                                b->mat.model == FEM_STVK ? 0.6 : 0.3, 0);
    if (damp)
        b->beta = seam_cfg_key(damp, FEM_SOLID_KEYS, "damping.beta", 0, 0);
    fem_lame(E, nu, &b->mat.mu, &b->mat.lambda);
    return 0;
}

/* Mark nodes of a body selected by {"box": {"min","max"}} or {"nodes": [..]}. */
static int select_nodes(seam_cfg *c, const char *which, const fem *self, const fem_body *b, uint8_t *mark)
{
    int d = self->d, any = 0;
    seam_cfg *box = seam_cfg_child(c, "box", 0);
    if (box) {
        double lo[3], hi[3];
        char min_key[32], max_key[32];   /* "pin.box.min": the declaration's name */
        snprintf(min_key, sizeof min_key, "%s.box.min", which);
        snprintf(max_key, sizeof max_key, "%s.box.max", which);
        int ok = seam_cfg_key_vec(box, FEM_BODY_KEYS, min_key, lo, (size_t)d, SEAM_CFG_REQUIRED);
        ok &= seam_cfg_key_vec(box, FEM_BODY_KEYS, max_key, hi, (size_t)d, SEAM_CFG_REQUIRED);
        if (!ok)
            return -1;
        for (size_t i = b->node0; i < b->node0 + b->n_nodes; i++) {
            int in = 1;
            for (int k = 0; k < d; k++)
                in &= self->X0[i * (size_t)d + (size_t)k] >= lo[k] && self->X0[i * (size_t)d + (size_t)k] <= hi[k];
            if (in) {
                mark[i] = 1;
                any = 1;
            }
        }
        if (!any) {
            seam_cfg_error(c, "box", "selects no node of body \"%s\"", b->name);
            return -1;
        }
    }
    size_t len = 0;
    double *ids = seam_cfg_numbers(c, "nodes", &len, 0);
    for (size_t k = 0; k < len; k++) {
        if (ids[k] < 0 || ids[k] != floor(ids[k]) || ids[k] >= (double)b->n_nodes) {
            seam_cfg_error(c, "nodes", "entry %zu (%g) is not a node of body \"%s\" (0..%zu)", k, ids[k],
                           b->name, b->n_nodes - 1);
            free(ids);
            return -1;
        }
        mark[b->node0 + (size_t)ids[k]] = 1;
        any = 1;
    }
    free(ids);
    if (!box && !len) {
        seam_cfg_error(c, NULL, "needs \"box\" or \"nodes\"");
        return -1;
    }
    return 0;
}


int fem_read_body(fem *self, seam_cfg *c, size_t bi)
{
    fem_body *b = &self->bodies[bi];
    const char *name = seam_cfg_str(c, "name", NULL, 0);
    snprintf(b->name, sizeof b->name, "%s", name ? name : "");
    if (!name)
        snprintf(b->name, sizeof b->name, "body%zu", bi);
    if (read_material(c, self->d, b) != 0 || seam_cfg_error_count(c))
        return -1;
    fem_mesh m;
    memset(&m, 0, sizeof m);
    char file[4096];
    if (read_mesh(c, self->d, b->kind, &m, self->host, file, sizeof file) != 0) {
        fem_mesh_free(&m);
        return -1;
    }
    char where[4200];
    snprintf(where, sizeof where, "%s", file[0] ? file : seam_cfg_path(c));
    int rc = fem_add_body(self, bi, &m, file[0] ? NULL : c, where);
    fem_mesh_free(&m);
    if (rc != 0)
        return -1;
    return 0;
}

int fem_read_constraints(fem *self, seam_cfg *c, size_t bi)
{
    fem_body *b = &self->bodies[bi];
    int d = self->d;
    double v0[3] = {0, 0, 0};
    seam_cfg_key_vec(c, FEM_BODY_KEYS, "velocity", v0, (size_t)d, 0);
    for (size_t i = b->node0; i < b->node0 + b->n_nodes; i++)
        memcpy(self->v + i * (size_t)d, v0, (size_t)d * sizeof *v0);
    seam_cfg *pin = seam_cfg_child(c, "pin", 0);
    uint8_t *mark = seam_xcalloc(self->n + 1, 1);
    if (pin && select_nodes(pin, "pin", self, b, mark) != 0) {
        free(mark);
        return -1;
    }
    for (size_t i = 0; i < self->n; i++)
        if (mark[i]) {
            self->fixed[i] = 1;
            for (int k = 0; k < d; k++)
                self->v[i * (size_t)d + (size_t)k] = self->v_fixed[i * (size_t)d + (size_t)k] = 0.0;
        }
    seam_cfg *pre = seam_cfg_child(c, "prescribed", 0);
    if (pre) {
        memset(mark, 0, self->n + 1);
        double vp[3] = {0, 0, 0};
        int ok = seam_cfg_key_vec(pre, FEM_BODY_KEYS, "prescribed.velocity", vp, (size_t)d, SEAM_CFG_REQUIRED);
        if (!ok || select_nodes(pre, "prescribed", self, b, mark) != 0) {
            free(mark);
            return -1;
        }
        for (size_t i = 0; i < self->n; i++)
            if (mark[i]) {
                self->fixed[i] = 2;
                memcpy(self->v_fixed + i * (size_t)d, vp, (size_t)d * sizeof *vp);
                memcpy(self->v + i * (size_t)d, vp, (size_t)d * sizeof *vp);
            }
    }
    free(mark);
    return 0;
}
