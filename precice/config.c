/* The preCICE (version 3) configuration reader: libxml2 builds the tree,
 * then one function per element reads it into precice_config (config.h),
 * refusing every element and attribute seam cannot honour, and a last
 * pass checks the names against each other. docs/precice-config.md is the
 * table of what is read, warned about and refused. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "seam/alloc.h"
#include "seam/config.h"

/* Grow arr by one zeroed element and return it. */
#define PUSH(arr, n)                                                   \
    ((arr) = seam_xrealloc_n((arr), (n) + 1, sizeof *(arr)),           \
     memset(&(arr)[(n)], 0, sizeof *(arr)), &(arr)[(n)++])

typedef struct reader {
    const char *path;
    char *err;
    size_t errlen;
    precice_config_warn warn;
    void *warn_ctx;
    precice_config *c;
    bool failed;
} reader;

static const char *el(const xmlNode *n) { return (const char *)n->name; }
static int line_of(const xmlNode *n) { return (int)xmlGetLineNo(n); }

static void vreport(reader *r, const xmlNode *n, bool error, const char *fmt, va_list ap)
{
    char msg[768];
    vsnprintf(msg, sizeof msg, fmt, ap);
    char full[1024];
    snprintf(full, sizeof full, "%s:%d: <%s>: %s", r->path, n ? line_of(n) : 0, n ? el(n) : "precice-configuration", msg);
    if (error && !r->failed) {   /* the first problem is the caller's message; later ones are told as they come */
        if (r->err && r->errlen)
            snprintf(r->err, r->errlen, "%s", full);
        r->failed = true;
        return;
    }
    if (r->warn)
        r->warn(r->warn_ctx, full);
}

/* Records an error (the first one goes to err); returns false. */
__attribute__((format(printf, 3, 4)))
static bool fail(reader *r, const xmlNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(r, n, true, fmt, ap);
    va_end(ap);
    return false;
}

__attribute__((format(printf, 3, 4)))
static void warn(reader *r, const xmlNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(r, n, false, fmt, ap);
    va_end(ap);
}

/* The known name nearest to given, or NULL when none is close. */
static const char *nearest(const char *given, const char *const *known)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; known[i]; i++) {
        size_t d = seam_edit_distance(given, known[i]);
        if (d < best_d) {
            best_d = d;
            best = known[i];
        }
    }
    size_t len = strlen(given);
    return best && best_d <= (len < 6 ? 2 : 3) ? best : NULL;
}

static void hint(char *out, size_t n, const char *given, const char *const *known, const char *open, const char *close)
{
    const char *near = nearest(given, known);
    if (near)
        snprintf(out, n, " (did you mean %s%s%s?)", open, near, close);
    else
        *out = '\0';
}

/* ---------- attributes ---------- */

static bool attrs_known(reader *r, const xmlNode *n, const char *const *known)
{
    bool ok = true;
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        const char *name = (const char *)a->name;
        bool found = false;
        for (size_t i = 0; known[i] && !found; i++)
            found = strcmp(known[i], name) == 0;
        if (!found) {
            char h[128];
            hint(h, sizeof h, name, known, "\"", "\"");
            ok = fail(r, n, "seam does not support the attribute \"%s\"%s", name, h);
        }
    }
    return ok;
}

/* The attribute's value as a seam_xstrdup copy, or NULL when absent. */
static char *prop(const xmlNode *n, const char *name)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v)
        return NULL;
    char *s = seam_xstrdup((const char *)v);
    xmlFree(v);
    return s;
}

static bool need_str(reader *r, const xmlNode *n, const char *name, char **out)
{
    *out = prop(n, name);
    if (!*out)
        return fail(r, n, "the attribute \"%s\" is required", name);
    return true;
}

static bool get_double(reader *r, const xmlNode *n, const char *name, bool required, double *out)
{
    char *v = prop(n, name);
    if (!v)
        return required ? fail(r, n, "the attribute \"%s\" is required", name) : true;
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    while (isspace((unsigned char)*end))
        end++;
    bool ok = end != v && !*end && errno == 0 && isfinite(d);
    if (ok)
        *out = d;
    else
        fail(r, n, "%s=\"%s\" is not a number", name, v);
    free(v);
    return ok;
}

static bool get_int(reader *r, const xmlNode *n, const char *name, bool required, int *out)
{
    char *v = prop(n, name);
    if (!v)
        return required ? fail(r, n, "the attribute \"%s\" is required", name) : true;
    char *end;
    errno = 0;
    long l = strtol(v, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    bool ok = end != v && !*end && errno == 0 && l >= INT_MIN && l <= INT_MAX;
    if (ok)
        *out = (int)l;
    else
        fail(r, n, "%s=\"%s\" is not an integer", name, v);
    free(v);
    return ok;
}

static bool get_bool(reader *r, const xmlNode *n, const char *name, bool *out)
{
    char *v = prop(n, name);
    if (!v)
        return true;
    bool ok = true;
    if (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "on"))
        *out = true;
    else if (!strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "off"))
        *out = false;
    else
        ok = fail(r, n, "%s=\"%s\" is not a boolean (true or false)", name, v);
    free(v);
    return ok;
}

/* Index of the value in options, or -1 (reported) when absent/unknown. */
static int get_choice(reader *r, const xmlNode *n, const char *name, const char *const *options, int absent)
{
    char *v = prop(n, name);
    if (!v) {
        if (absent < 0)
            fail(r, n, "the attribute \"%s\" is required", name);
        return absent;
    }
    for (int i = 0; options[i]; i++)
        if (!strcmp(options[i], v)) {
            free(v);
            return i;
        }
    char h[128];
    hint(h, sizeof h, v, options, "\"", "\"");
    fail(r, n, "%s=\"%s\" is not one seam supports%s", name, v, h);
    free(v);
    return -1;
}

/* ---------- elements ---------- */

static bool is_element(const xmlNode *n) { return n->type == XML_ELEMENT_NODE; }

static bool refuse_element(reader *r, const xmlNode *n, const char *const *known)
{
    char h[128];
    hint(h, sizeof h, el(n), known, "<", ">");
    return fail(r, n, "seam does not support this element here%s", h);
}

/* An element that takes no children. */
static bool no_children(reader *r, const xmlNode *n)
{
    static const char *const none[] = {NULL};
    bool ok = true;
    for (const xmlNode *k = n->children; k; k = k->next)
        if (is_element(k))
            ok = refuse_element(r, k, none);
    return ok;
}

/* Resolves a name among the first members (char *name) of an array. */
static int find_name(const void *base, size_t stride, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = *(char *const *)(const void *)((const char *)base + i * stride);
        if (s && name && !strcmp(s, name))
            return (int)i;
    }
    return -1;
}

static int resolve(reader *r, const xmlNode *n, const char *what, const void *base, size_t stride, size_t count,
                   const char *name)
{
    if (!name)
        return -1;
    int i = find_name(base, stride, count, name);
    if (i >= 0)
        return i;
    const char **known = seam_xcalloc(count + 1, sizeof *known);
    for (size_t k = 0; k < count; k++)
        known[k] = *(char *const *)(const void *)((const char *)base + k * stride);
    char h[160];
    hint(h, sizeof h, name, known, "\"", "\"");
    free(known);
    fail(r, n, "unknown %s \"%s\"%s", what, name, h);
    return -1;
}

static int attr_index(reader *r, const xmlNode *n, const char *attr, const char *what)
{
    char *name = NULL;
    if (!need_str(r, n, attr, &name))
        return -1;
    const precice_config *c = r->c;
    int i = -1;
    if (!strcmp(what, "data"))
        i = resolve(r, n, what, c->data, sizeof *c->data, c->n_data, name);
    else if (!strcmp(what, "mesh"))
        i = resolve(r, n, what, c->meshes, sizeof *c->meshes, c->n_meshes, name);
    else
        i = resolve(r, n, what, c->participants, sizeof *c->participants, c->n_participants, name);
    free(name);
    return i;
}

static bool mesh_uses(const precice_config *c, int mesh, int data)
{
    if (mesh < 0 || data < 0)
        return true;    /* already reported */
    for (size_t i = 0; i < c->meshes[mesh].n_use_data; i++)
        if (c->meshes[mesh].use_data[i] == data)
            return true;
    return false;
}

static bool check_uses(reader *r, const xmlNode *n, int mesh, int data)
{
    if (mesh_uses(r->c, mesh, data))
        return true;
    return fail(r, n, "mesh \"%s\" does not use data \"%s\" (add <use-data name=\"%s\"/> to the mesh)",
                r->c->meshes[mesh].name, r->c->data[data].name, r->c->data[data].name);
}

/* ---------- data and meshes ---------- */

static const char *const DATA_ATTRS[] = {"name", "waveform-degree", NULL};
static const char *const DATA_BOUND_ATTRS[] = {"lower-bound", "upper-bound", "lower-bound-x", "lower-bound-y",
                                               "lower-bound-z", "upper-bound-x", "upper-bound-y", "upper-bound-z", NULL};

static bool read_data(reader *r, const xmlNode *n, bool vector)
{
    for (size_t i = 0; DATA_BOUND_ATTRS[i]; i++)
        if (xmlHasProp(n, (const xmlChar *)DATA_BOUND_ATTRS[i]))
            return fail(r, n, "seam does not support data bounds (%s)", DATA_BOUND_ATTRS[i]);
    bool ok = attrs_known(r, n, DATA_ATTRS) && no_children(r, n);
    precice_config *c = r->c;
    pc_data *d = PUSH(c->data, c->n_data);
    d->vector = vector;
    d->components = vector ? 0 : 1;
    d->waveform_degree = 1;
    d->line = line_of(n);
    ok = need_str(r, n, "name", &d->name) && ok;
    ok = get_int(r, n, "waveform-degree", false, &d->waveform_degree) && ok;
    if (d->waveform_degree < 0 || d->waveform_degree > 3)
        ok = fail(r, n, "seam does not support waveform-degree=\"%d\" (0 to 3)", d->waveform_degree);
    if (d->name && find_name(c->data, sizeof *c->data, c->n_data - 1, d->name) >= 0)
        ok = fail(r, n, "duplicate data name \"%s\"", d->name);
    return ok;
}

static bool read_mesh(reader *r, const xmlNode *n)
{
    static const char *const attrs[] = {"name", "dimensions", NULL};
    static const char *const kids[] = {"use-data", NULL};
    static const char *const use_attrs[] = {"name", NULL};
    precice_config *c = r->c;
    bool ok = attrs_known(r, n, attrs);
    pc_mesh *m = PUSH(c->meshes, c->n_meshes);
    m->line = line_of(n);
    ok = need_str(r, n, "name", &m->name) && ok;
    if (get_int(r, n, "dimensions", true, &m->dim) && m->dim != 2 && m->dim != 3)
        ok = fail(r, n, "dimensions=\"%d\": a mesh has 2 or 3 dimensions", m->dim);
    if (m->name && find_name(c->meshes, sizeof *c->meshes, c->n_meshes - 1, m->name) >= 0)
        ok = fail(r, n, "duplicate mesh name \"%s\"", m->name);
    for (const xmlNode *k = n->children; k; k = k->next) {
        if (!is_element(k))
            continue;
        if (strcmp(el(k), "use-data")) {
            ok = refuse_element(r, k, kids);
            continue;
        }
        ok = attrs_known(r, k, use_attrs) && no_children(r, k) && ok;
        int d = attr_index(r, k, "name", "data");
        if (d < 0) {
            ok = false;
            continue;
        }
        for (size_t i = 0; i < m->n_use_data; i++)
            if (m->use_data[i] == d)
                ok = fail(r, k, "mesh \"%s\" uses data \"%s\" twice", m->name, c->data[d].name);
        *PUSH(m->use_data, m->n_use_data) = d;
        pc_data *dd = &c->data[d];
        if (dd->vector && dd->components && dd->components != m->dim)
            ok = fail(r, k, "seam does not support vector data \"%s\" on meshes of %d and %d dimensions",
                      dd->name, dd->components, m->dim);
        else if (dd->vector)
            dd->components = m->dim;
    }
    return ok;
}

/* ---------- participants ---------- */

static bool provides(const pc_participant *p, int mesh)
{
    for (size_t i = 0; i < p->n_provide; i++)
        if (p->provide[i] == mesh)
            return true;
    return false;
}

static bool receives(const pc_participant *p, int mesh)
{
    for (size_t i = 0; i < p->n_receive; i++)
        if (p->receive[i].mesh == mesh)
            return true;
    return false;
}

static bool has_mesh(const pc_participant *p, int mesh) { return provides(p, mesh) || receives(p, mesh); }

static bool read_provide(reader *r, const xmlNode *n, pc_participant *p)
{
    static const char *const attrs[] = {"name", NULL};
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    int m = attr_index(r, n, "name", "mesh");
    if (m < 0)
        return false;
    if (has_mesh(p, m))
        return fail(r, n, "participant \"%s\" names mesh \"%s\" twice", p->name, r->c->meshes[m].name);
    *PUSH(p->provide, p->n_provide) = m;
    return ok;
}

static bool read_receive(reader *r, const xmlNode *n, pc_participant *p)
{
    static const char *const attrs[] = {"name", "from", "safety-factor", "api-access", "direct-access",
                                        "geometric-filter", NULL};
    static const char *const filters[] = {"no-filter", "on-primary-rank", "on-secondary-ranks", NULL};
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    int m = attr_index(r, n, "name", "mesh");
    int from = attr_index(r, n, "from", "participant");
    if (m < 0 || from < 0)
        return false;
    if (has_mesh(p, m))
        return fail(r, n, "participant \"%s\" names mesh \"%s\" twice", p->name, r->c->meshes[m].name);
    pc_receive *rc = PUSH(p->receive, p->n_receive);
    rc->mesh = m;
    rc->from = from;
    rc->safety_factor = 0.5;
    rc->line = line_of(n);
    bool api = false, direct = false;
    ok = get_double(r, n, "safety-factor", false, &rc->safety_factor) && ok;
    if (rc->safety_factor < 0)
        ok = fail(r, n, "safety-factor=\"%g\" must not be negative", rc->safety_factor);
    ok = get_bool(r, n, "api-access", &api) && ok;
    ok = get_bool(r, n, "direct-access", &direct) && ok;
    rc->direct_access = api || direct;
    if (xmlHasProp(n, (const xmlChar *)"geometric-filter")) {
        ok = get_choice(r, n, "geometric-filter", filters, 0) >= 0 && ok;
        warn(r, n, "geometric-filter changes nothing in seam (the coupler holds every mesh whole)");
    }
    return ok;
}

static bool read_data_use(reader *r, const xmlNode *n, pc_participant *p, bool write)
{
    static const char *const attrs[] = {"name", "mesh", NULL};
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    int d = attr_index(r, n, "name", "data");
    int m = attr_index(r, n, "mesh", "mesh");
    if (d < 0 || m < 0)
        return false;
    const precice_config *c = r->c;
    if (!has_mesh(p, m))
        return fail(r, n, "participant \"%s\" %s data \"%s\" on mesh \"%s\", which it neither provides nor receives",
                    p->name, write ? "writes" : "reads", c->data[d].name, c->meshes[m].name);
    ok = check_uses(r, n, m, d) && ok;
    pc_data_use *u = write ? PUSH(p->writes, p->n_writes) : PUSH(p->reads, p->n_reads);
    u->data = d;
    u->mesh = m;
    u->line = line_of(n);
    return ok;
}

static const char *const RBF_BASES[] = {
    "compact-polynomial-c0", "compact-polynomial-c2", "compact-polynomial-c4", "compact-polynomial-c6",
    "compact-polynomial-c8", "compact-tps-c2", "thin-plate-splines", "gaussian", "multiquadrics",
    "inverse-multiquadrics", "volume-splines", NULL};

static bool read_basis(reader *r, const xmlNode *n, pc_mapping *m)
{
    const char *name = el(n) + strlen("basis-function:");
    int b = -1;
    for (int i = 0; RBF_BASES[i]; i++)
        if (!strcmp(RBF_BASES[i], name))
            b = i;
    if (b < 0) {
        char h[128];
        hint(h, sizeof h, name, RBF_BASES, "\"", "\"");
        return fail(r, n, "seam does not support the basis function \"%s\"%s", name, h);
    }
    m->basis = (pc_rbf_basis)b;
    static const char *const radius[] = {"support-radius", NULL};
    static const char *const shape[] = {"shape-parameter", NULL};
    static const char *const both[] = {"shape-parameter", "support-radius", NULL};
    static const char *const none[] = {NULL};
    bool ok = no_children(r, n);
    if (b <= PC_RBF_COMPACT_TPS_C2) {
        ok = attrs_known(r, n, radius) && get_double(r, n, "support-radius", true, &m->support_radius) && ok;
        if (m->support_radius <= 0)
            ok = fail(r, n, "support-radius must be positive");
    } else if (b == PC_RBF_GAUSSIAN) {
        ok = attrs_known(r, n, both) && ok;
        ok = get_double(r, n, "shape-parameter", false, &m->shape_parameter) && ok;
        ok = get_double(r, n, "support-radius", false, &m->support_radius) && ok;
        if ((m->shape_parameter > 0) == (m->support_radius > 0))
            ok = fail(r, n, "give exactly one of shape-parameter and support-radius, positive");
    } else if (b == PC_RBF_MULTIQUADRICS || b == PC_RBF_INVERSE_MULTIQUADRICS) {
        ok = attrs_known(r, n, shape) && get_double(r, n, "shape-parameter", true, &m->shape_parameter) && ok;
        if (m->shape_parameter <= 0)
            ok = fail(r, n, "shape-parameter must be positive");
    } else {
        ok = attrs_known(r, n, none) && ok;
    }
    return ok;
}

static bool read_mapping_children(reader *r, const xmlNode *n, pc_mapping *m)
{
    static const char *const kids[] = {"basis-function:compact-polynomial-c6", "executor:cpu", NULL};
    bool ok = true, basis = false;
    for (const xmlNode *k = n->children; k; k = k->next) {
        if (!is_element(k))
            continue;
        if (m->method == PC_MAP_RBF && !strncmp(el(k), "basis-function:", 15)) {
            if (basis)
                ok = fail(r, k, "a mapping has one basis function");
            ok = read_basis(r, k, m) && ok;
            basis = true;
        } else if (m->method == PC_MAP_RBF && !strncmp(el(k), "executor:", 9)) {
            static const char *const executors[] = {"executor:cpu", "executor:cuda", "executor:hip",
                                                    "executor:openmp", "executor:sycl", NULL};
            bool known = false;
            for (size_t i = 0; executors[i]; i++)
                known = known || !strcmp(executors[i], el(k));
            if (!known)
                ok = refuse_element(r, k, executors);
            else
                warn(r, k, "the executor changes nothing in seam (the coupler solves the RBF system on the CPU)");
        } else {
            ok = refuse_element(r, k, kids);
        }
    }
    if (m->method == PC_MAP_RBF && !basis)
        ok = fail(r, n, "an RBF mapping needs a <basis-function:...> child");
    return ok;
}

static bool read_mapping(reader *r, const xmlNode *n, pc_participant *p)
{
    static const char *const methods[] = {"nearest-neighbor", "nearest-projection", "rbf", "rbf-global-direct",
                                          "rbf-global-iterative", NULL};
    static const char *const refused[] = {"nearest-neighbor-gradient", "linear-cell-interpolation",
                                          "rbf-pum-direct", "coarse-graining", "axial-geometric-multiscale",
                                          "radial-geometric-multiscale", NULL};
    static const char *const plain[] = {"direction", "from", "to", "constraint", NULL};
    static const char *const rbf_alias[] = {"direction", "from", "to", "constraint", "x-dead", "y-dead", "z-dead", NULL};
    static const char *const rbf_direct[] = {"direction", "from", "to", "constraint", "polynomial",
                                             "x-dead", "y-dead", "z-dead", NULL};
    static const char *const rbf_iter[] = {"direction", "from", "to", "constraint", "polynomial",
                                           "x-dead", "y-dead", "z-dead", "solver-rtol", NULL};
    static const char *const directions[] = {"write", "read", NULL};
    static const char *const constraints[] = {"consistent", "conservative", "scaled-consistent-surface",
                                              "scaled-consistent-volume", NULL};
    static const char *const polys[] = {"separate", "on", "off", NULL};
    const char *method = el(n) + strlen("mapping:");
    for (size_t i = 0; refused[i]; i++)
        if (!strcmp(refused[i], method))
            return fail(r, n, "seam does not support the %s mapping (seam maps by nearest-neighbor, "
                        "nearest-projection and rbf)", method);
    int mi = -1;
    for (int i = 0; methods[i]; i++)
        if (!strcmp(methods[i], method))
            mi = i;
    if (mi < 0) {
        char h[128];
        hint(h, sizeof h, method, methods, "<mapping:", ">");
        return fail(r, n, "seam does not support this mapping%s", h);
    }
    const char *const *attrs = mi < 2 ? plain : mi == 2 ? rbf_alias : mi == 3 ? rbf_direct : rbf_iter;
    bool ok = attrs_known(r, n, attrs);
    pc_mapping *m = PUSH(p->mappings, p->n_mappings);
    m->method = mi == 0 ? PC_MAP_NEAREST_NEIGHBOR : mi == 1 ? PC_MAP_NEAREST_PROJECTION : PC_MAP_RBF;
    m->solver = mi == 3 ? PC_RBF_GLOBAL_DIRECT : mi == 4 ? PC_RBF_GLOBAL_ITERATIVE : PC_RBF_AUTO;
    m->solver_rtol = mi == 4 ? 1e-9 : 0;
    m->line = line_of(n);
    m->from = m->to = -1;
    int dir = get_choice(r, n, "direction", directions, -1);
    m->write = dir == 0;
    int con = get_choice(r, n, "constraint", constraints, -1);
    m->constraint = con < 0 ? PC_CONSISTENT : (pc_constraint)con;
    ok = ok && dir >= 0 && con >= 0;
    int poly = get_choice(r, n, "polynomial", polys, 0);
    m->polynomial = poly < 0 ? PC_POLY_SEPARATE : (pc_rbf_polynomial)poly;
    ok = poly >= 0 && ok;
    ok = get_bool(r, n, "x-dead", &m->dead[0]) && ok;
    ok = get_bool(r, n, "y-dead", &m->dead[1]) && ok;
    ok = get_bool(r, n, "z-dead", &m->dead[2]) && ok;
    ok = get_double(r, n, "solver-rtol", false, &m->solver_rtol) && ok;
    char *from = prop(n, "from"), *to = prop(n, "to");
    if (!from || !to || !*from || !*to)
        ok = fail(r, n, "seam does not support just-in-time mapping (give both from and to)");
    free(from);
    free(to);
    if (!ok)
        return false;
    const precice_config *c = r->c;
    m->from = attr_index(r, n, "from", "mesh");
    m->to = attr_index(r, n, "to", "mesh");
    if (m->from < 0 || m->to < 0)
        return false;
    /* read: from a received mesh to a provided one; write: the other way. */
    int own = m->write ? m->from : m->to, remote = m->write ? m->to : m->from;
    if (!provides(p, own))
        ok = fail(r, n, "participant \"%s\" has a %s mapping %s mesh \"%s\", which it does not provide", p->name,
                  m->write ? "write" : "read", m->write ? "from" : "to", c->meshes[own].name);
    if (!receives(p, remote))
        ok = fail(r, n, "participant \"%s\" has a %s mapping %s mesh \"%s\", which it does not receive", p->name,
                  m->write ? "write" : "read", m->write ? "to" : "from", c->meshes[remote].name);
    if (c->meshes[m->from].dim != c->meshes[m->to].dim)
        ok = fail(r, n, "meshes \"%s\" and \"%s\" differ in dimensions", c->meshes[m->from].name,
                  c->meshes[m->to].name);
    if (m->from == m->to)
        ok = fail(r, n, "a mapping needs two different meshes");
    return read_mapping_children(r, n, m) && ok;
}

static bool read_watch_point(reader *r, const xmlNode *n, pc_participant *p)
{
    static const char *const attrs[] = {"name", "mesh", "coordinate", NULL};
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    pc_watch_point *w = PUSH(p->watch_points, p->n_watch_points);
    w->line = line_of(n);
    w->mesh = attr_index(r, n, "mesh", "mesh");
    ok = need_str(r, n, "name", &w->name) && w->mesh >= 0 && ok;
    char *coord = NULL;
    if (!need_str(r, n, "coordinate", &coord) || !ok) {
        free(coord);
        return false;
    }
    if (!has_mesh(p, w->mesh))
        ok = fail(r, n, "participant \"%s\" watches mesh \"%s\", which it neither provides nor receives",
                  p->name, r->c->meshes[w->mesh].name);
    int count = 0;
    const char *s = coord;
    for (;;) {
        char *end;
        double x = strtod(s, &end);
        if (end == s || count == 3) {
            ok = fail(r, n, "coordinate=\"%s\" is not a list of numbers separated by \";\"", coord);
            break;
        }
        w->coordinate[count++] = x;
        while (isspace((unsigned char)*end))
            end++;
        if (!*end)
            break;
        if (*end != ';') {
            ok = fail(r, n, "coordinate=\"%s\" is not a list of numbers separated by \";\"", coord);
            break;
        }
        s = end + 1;
    }
    if (ok && count != r->c->meshes[w->mesh].dim)
        ok = fail(r, n, "coordinate=\"%s\" has %d components; mesh \"%s\" has %d dimensions", coord, count,
                  r->c->meshes[w->mesh].name, r->c->meshes[w->mesh].dim);
    free(coord);
    for (size_t i = 0; ok && i + 1 < p->n_watch_points; i++)
        if (!strcmp(p->watch_points[i].name, w->name))
            ok = fail(r, n, "duplicate watch-point name \"%s\"", w->name);
    return ok;
}

static bool read_export(reader *r, const xmlNode *n, pc_participant *p)
{
    static const char *const kinds[] = {"vtk", "vtu", "vtp", "csv", NULL};
    static const char *const attrs[] = {"directory", "every-n-time-windows", "every-iteration", "update-series", NULL};
    const char *kind = el(n) + strlen("export:");
    int k = -1;
    for (int i = 0; kinds[i]; i++)
        if (!strcmp(kinds[i], kind))
            k = i;
    if (k < 0) {
        char h[128];
        hint(h, sizeof h, kind, kinds, "<export:", ">");
        return fail(r, n, "seam does not support this export%s", h);
    }
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    pc_export *e = PUSH(p->exports, p->n_exports);
    e->kind = (pc_export_kind)k;
    e->line = line_of(n);
    e->every_n_time_windows = 1;
    e->directory = prop(n, "directory");
    if (!e->directory)
        e->directory = seam_xstrdup(".");
    bool series = false;
    ok = get_int(r, n, "every-n-time-windows", false, &e->every_n_time_windows) && ok;
    ok = get_bool(r, n, "every-iteration", &e->every_iteration) && ok;
    ok = get_bool(r, n, "update-series", &series) && ok;
    if (e->every_n_time_windows < 1)
        ok = fail(r, n, "every-n-time-windows must be at least 1");
    if (series)
        ok = fail(r, n, "seam does not support update-series=\"true\" (seam writes one file per export)");
    return ok;
}

static bool read_participant(reader *r, const xmlNode *n, pc_participant *p)
{
    static const char *const kids[] = {"provide-mesh", "receive-mesh", "write-data", "read-data", "mapping:nearest-neighbor",
                                       "watch-point", "export:vtu", "intra-comm:sockets", NULL};
    bool ok = true;
    /* Meshes first: data uses, mappings and watch points refer to them. */
    for (int pass = 0; pass < 2; pass++) {
        for (const xmlNode *k = n->children; k; k = k->next) {
            if (!is_element(k))
                continue;
            const char *name = el(k);
            bool mesh_el = !strcmp(name, "provide-mesh") || !strcmp(name, "receive-mesh");
            if ((pass == 0) != mesh_el)
                continue;
            if (!strcmp(name, "provide-mesh"))
                ok = read_provide(r, k, p) && ok;
            else if (!strcmp(name, "receive-mesh"))
                ok = read_receive(r, k, p) && ok;
            else if (!strcmp(name, "write-data") || !strcmp(name, "read-data"))
                ok = read_data_use(r, k, p, name[0] == 'w') && ok;
            else if (!strncmp(name, "mapping:", 8))
                ok = read_mapping(r, k, p) && ok;
            else if (!strcmp(name, "watch-point"))
                ok = read_watch_point(r, k, p) && ok;
            else if (!strncmp(name, "export:", 7))
                ok = read_export(r, k, p) && ok;
            else if (!strncmp(name, "action:", 7))
                ok = fail(r, k, "seam does not support actions");
            else if (!strcmp(name, "watch-integral"))
                ok = fail(r, k, "seam does not support watch-integral (watch-point is supported)");
            else if (!strncmp(name, "intra-comm:", 11))
                warn(r, k, "intra-comm changes nothing in seam (each rank of a participant talks to the coupler itself)");
            else
                ok = refuse_element(r, k, kids);
        }
    }
    return ok;
}

/* ---------- m2n ---------- */

static bool read_m2n(reader *r, const xmlNode *n)
{
    static const char *const kinds[] = {"sockets", "mpi", "mpi-multiple-ports", NULL};
    static const char *const sockets[] = {"acceptor", "connector", "exchange-directory", "network", "port",
                                          "enforce-gather-scatter", "use-two-level-initialization", NULL};
    static const char *const mpi[] = {"acceptor", "connector", "exchange-directory", "enforce-gather-scatter",
                                      "use-two-level-initialization", NULL};
    const char *kind = el(n) + strlen("m2n:");
    int k = -1;
    for (int i = 0; kinds[i]; i++)
        if (!strcmp(kinds[i], kind))
            k = i;
    if (k < 0) {
        char h[128];
        hint(h, sizeof h, kind, kinds, "<m2n:", ">");
        return fail(r, n, "seam does not support this m2n%s", h);
    }
    bool ok = attrs_known(r, n, k == 0 ? sockets : mpi) && no_children(r, n);
    precice_config *c = r->c;
    pc_m2n *m = PUSH(c->m2n, c->n_m2n);
    m->line = line_of(n);
    m->acceptor = attr_index(r, n, "acceptor", "participant");
    m->connector = attr_index(r, n, "connector", "participant");
    ok = ok && m->acceptor >= 0 && m->connector >= 0;
    if (ok && m->acceptor == m->connector)
        ok = fail(r, n, "acceptor and connector are the same participant");
    m->exchange_directory = prop(n, "exchange-directory");
    if (!m->exchange_directory)
        m->exchange_directory = seam_xstrdup("");
    m->network = prop(n, "network");
    if (!m->network)
        m->network = seam_xstrdup("lo");
    ok = get_int(r, n, "port", false, &m->port) && ok;
    if (m->port < 0 || m->port > 65535)
        ok = fail(r, n, "port=\"%d\" is not a port number", m->port);
    static const char *const idle[] = {"enforce-gather-scatter", "use-two-level-initialization", NULL};
    for (size_t i = 0; idle[i]; i++) {
        bool v = false;
        ok = get_bool(r, n, idle[i], &v) && ok;
        if (xmlHasProp(n, (const xmlChar *)idle[i]))
            warn(r, n, "%s changes nothing in seam (each rank of a participant talks to the coupler itself)", idle[i]);
    }
    for (size_t i = 0; ok && i + 1 < c->n_m2n; i++) {
        const pc_m2n *o = &c->m2n[i];
        if ((o->acceptor == m->acceptor && o->connector == m->connector) ||
            (o->acceptor == m->connector && o->connector == m->acceptor))
            ok = fail(r, n, "a second m2n between \"%s\" and \"%s\"", c->participants[m->acceptor].name,
                      c->participants[m->connector].name);
    }
    return ok;
}

/* ---------- coupling scheme ---------- */

/* <element value="..."/>, the value positive. */
static bool read_value_child(reader *r, const xmlNode *n, bool integer, double *d, int *i)
{
    static const char *const attrs[] = {"value", NULL};
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    if (!(integer ? get_int(r, n, "value", true, i) : get_double(r, n, "value", true, d)))
        return false;
    if (integer ? *i <= 0 : *d <= 0)
        return fail(r, n, "the value must be positive");
    return ok;
}

/* A count that may be zero (time-windows-reused: 0 reuses no window). */
static bool read_count_child(reader *r, const xmlNode *n, int *i)
{
    static const char *const attrs[] = {"value", NULL};
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    if (!get_int(r, n, "value", true, i))
        return false;
    if (*i < 0)
        return fail(r, n, "the value must be at least 0");
    return ok;
}

static bool read_scheme_participants(reader *r, const xmlNode *n, pc_scheme *s)
{
    static const char *const attrs[] = {"first", "second", NULL};
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    if (s->n_participants)
        return fail(r, n, "the participants are already given");
    s->first = attr_index(r, n, "first", "participant");
    s->second = attr_index(r, n, "second", "participant");
    if (s->first < 0 || s->second < 0)
        return false;
    if (s->first == s->second)
        return fail(r, n, "first and second are the same participant");
    *PUSH(s->participants, s->n_participants) = s->first;
    *PUSH(s->participants, s->n_participants) = s->second;
    return ok;
}

static bool read_multi_participant(reader *r, const xmlNode *n, pc_scheme *s)
{
    static const char *const attrs[] = {"name", "control", NULL};
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    int p = attr_index(r, n, "name", "participant");
    bool control = false;
    ok = get_bool(r, n, "control", &control) && ok;
    if (p < 0)
        return false;
    for (size_t i = 0; i < s->n_participants; i++)
        if (s->participants[i] == p)
            return fail(r, n, "participant \"%s\" is named twice", r->c->participants[p].name);
    *PUSH(s->participants, s->n_participants) = p;
    if (control) {
        if (s->controller >= 0)
            return fail(r, n, "a multi coupling scheme has exactly one participant with control=\"yes\"");
        s->controller = p;
    }
    return ok;
}

static bool read_exchange(reader *r, const xmlNode *n, pc_scheme *s, bool implicit)
{
    static const char *const attrs[] = {"data", "mesh", "from", "to", "initialize", "substeps", NULL};
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    pc_exchange *e = PUSH(s->exchanges, s->n_exchanges);
    e->line = line_of(n);
    e->data = attr_index(r, n, "data", "data");
    e->mesh = attr_index(r, n, "mesh", "mesh");
    e->from = attr_index(r, n, "from", "participant");
    e->to = attr_index(r, n, "to", "participant");
    e->substeps = implicit;     /* preCICE 3: true for implicit schemes, false for explicit ones */
    ok = get_bool(r, n, "initialize", &e->initialize) && ok;
    ok = get_bool(r, n, "substeps", &e->substeps) && ok;
    return ok && e->data >= 0 && e->mesh >= 0 && e->from >= 0 && e->to >= 0;
}

static bool read_measure(reader *r, const xmlNode *n, pc_scheme *s, pc_measure_kind kind)
{
    static const char *const attrs[] = {"data", "mesh", "limit", "suffices", "strict", NULL};
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    pc_measure *m = PUSH(s->measures, s->n_measures);
    m->kind = kind;
    m->line = line_of(n);
    m->data = attr_index(r, n, "data", "data");
    m->mesh = attr_index(r, n, "mesh", "mesh");
    ok = get_double(r, n, "limit", true, &m->limit) && ok;
    ok = get_bool(r, n, "suffices", &m->suffices) && ok;
    ok = get_bool(r, n, "strict", &m->strict) && ok;
    if (m->limit <= 0 || (kind != PC_MEASURE_ABSOLUTE && m->limit > 1))
        ok = fail(r, n, "%s", kind == PC_MEASURE_ABSOLUTE ? "limit must be positive" : "a relative limit lies in (0, 1]");
    return ok && m->data >= 0 && m->mesh >= 0;
}

static bool read_accel_data(reader *r, const xmlNode *n, pc_acceleration *a)
{
    static const char *const attrs[] = {"name", "mesh", "scaling", NULL};
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    pc_data_use *u = PUSH(a->data, a->n_data);
    size_t nd = a->n_data - 1;
    double *scaling = PUSH(a->scaling, nd);
    *scaling = 1.0;
    u->line = line_of(n);
    u->data = attr_index(r, n, "name", "data");
    u->mesh = attr_index(r, n, "mesh", "mesh");
    ok = get_double(r, n, "scaling", false, scaling) && ok;
    if (*scaling <= 0)
        ok = fail(r, n, "scaling must be positive");
    return ok && u->data >= 0 && u->mesh >= 0;
}

static bool read_filter(reader *r, const xmlNode *n, pc_acceleration *a)
{
    static const char *const attrs[] = {"type", "limit", NULL};
    static const char *const types[] = {"QR1", "QR2", "QR3", "QR1-absolute", NULL};
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    int t = get_choice(r, n, "type", types, 2);
    a->filter = t < 0 ? PC_FILTER_QR3 : (pc_filter)(t + 1);
    a->filter_limit = 1e-16;
    ok = get_double(r, n, "limit", false, &a->filter_limit) && ok;
    return ok && t >= 0;
}

static bool read_preconditioner(reader *r, const xmlNode *n, pc_acceleration *a)
{
    static const char *const iqn_attrs[] = {"type", "freeze-after", "update-on-threshold", NULL};
    static const char *const aitken_attrs[] = {"type", "freeze-after", NULL};
    static const char *const types[] = {"constant", "value", "residual", "residual-sum", NULL};
    bool iqn = a->kind == PC_ACCEL_IQN_ILS || a->kind == PC_ACCEL_IQN_IMVJ;
    bool ok = attrs_known(r, n, iqn ? iqn_attrs : aitken_attrs) && no_children(r, n);
    int t = get_choice(r, n, "type", types, -1);
    if (t >= 0)
        a->preconditioner = (pc_preconditioner)(t + 1);
    ok = get_int(r, n, "freeze-after", false, &a->preconditioner_freeze_after) && ok;
    ok = get_bool(r, n, "update-on-threshold", &a->preconditioner_update_on_threshold) && ok;
    return ok && t >= 0;
}

static bool read_restart(reader *r, const xmlNode *n, pc_acceleration *a)
{
    static const char *const attrs[] = {"type", "chunk-size", "reused-time-windows-at-restart",
                                        "truncation-threshold", NULL};
    static const char *const types[] = {"no-restart", "RS-0", "RS-LS", "RS-SVD", "RS-SLIDE", NULL};
    bool ok = attrs_known(r, n, attrs) && no_children(r, n);
    int t = get_choice(r, n, "type", types, 3);
    if (t >= 0) {
        free(a->imvj_restart_mode);
        a->imvj_restart_mode = seam_xstrdup(types[t]);
    }
    ok = get_int(r, n, "chunk-size", false, &a->imvj_chunk_size) && ok;
    ok = get_int(r, n, "reused-time-windows-at-restart", false, &a->imvj_reused_time_windows_at_restart) && ok;
    ok = get_double(r, n, "truncation-threshold", false, &a->imvj_truncation_threshold) && ok;
    if (a->imvj_chunk_size < 1)
        ok = fail(r, n, "chunk-size must be at least 1");
    if (t > 0 && a->always_build_jacobian)
        ok = fail(r, n, "a restart mode cannot go with always-build-jacobian=\"true\" (use type=\"no-restart\")");
    return ok && t >= 0;
}

static void accel_defaults(pc_acceleration *a)
{
    a->preconditioner_freeze_after = -1;
    a->preconditioner_update_on_threshold = true;
    a->reduced_time_grid = true;
    switch (a->kind) {
    case PC_ACCEL_AITKEN:
        a->relaxation = 0.5;
        a->preconditioner = PC_PRECOND_RESIDUAL_SUM;
        break;
    case PC_ACCEL_IQN_ILS:
    case PC_ACCEL_IQN_IMVJ:
        a->relaxation = 0.1;
        a->max_used_iterations = a->kind == PC_ACCEL_IQN_ILS ? 100 : 20;
        a->time_windows_reused = a->kind == PC_ACCEL_IQN_ILS ? 10 : 0;
        a->filter = PC_FILTER_QR3;
        a->filter_limit = 1e-2;
        a->preconditioner = PC_PRECOND_RESIDUAL_SUM;
        break;
    default:
        break;
    }
    if (a->kind == PC_ACCEL_IQN_IMVJ) {
        a->imvj_restart_mode = seam_xstrdup("RS-SVD");
        a->imvj_chunk_size = 8;
        a->imvj_reused_time_windows_at_restart = 8;
        a->imvj_truncation_threshold = 1e-4;
    }
}

/* preCICE's IMVJ: without <imvj-restart-mode>, restarts (RS-SVD) only when
 * the Jacobian is not built every iteration; with RS-SVD the preconditioner
 * freezes after at most chunk-size windows. */
static void imvj_effective(const xmlNode *n, pc_acceleration *a)
{
    bool restart_given = false;
    for (const xmlNode *k = n->children; k; k = k->next)
        restart_given = restart_given || (is_element(k) && !strcmp(el(k), "imvj-restart-mode"));
    if (!restart_given && a->always_build_jacobian) {
        free(a->imvj_restart_mode);
        a->imvj_restart_mode = seam_xstrdup("no-restart");
    }
    if (!strcmp(a->imvj_restart_mode, "RS-SVD") && a->preconditioner_freeze_after > a->imvj_chunk_size)
        a->preconditioner_freeze_after = a->imvj_chunk_size;
}

static bool read_acceleration(reader *r, const xmlNode *n, pc_scheme *s)
{
    static const char *const kinds[] = {"constant", "aitken", "IQN-ILS", "IQN-IMVJ", NULL};
    static const char *const iqn_attrs[] = {"reduced-time-grid", "on-bound-violation", NULL};
    static const char *const imvj_attrs[] = {"always-build-jacobian", "reduced-time-grid", "on-bound-violation", NULL};
    static const char *const none[] = {NULL};
    static const char *const bounds[] = {"ignore", "clamp", "discard", "scale", NULL};
    const char *kind = el(n) + strlen("acceleration:");
    int k = -1;
    for (int i = 0; kinds[i]; i++)
        if (!strcmp(kinds[i], kind))
            k = i;
    if (k < 0) {
        char h[128];
        hint(h, sizeof h, kind, kinds, "<acceleration:", ">");
        return fail(r, n, "seam does not support this acceleration%s", h);
    }
    pc_acceleration *a = &s->acceleration;
    if (a->kind != PC_ACCEL_NONE)
        return fail(r, n, "a coupling scheme has one acceleration");
    a->kind = (pc_accel_kind)(k + 1);
    a->line = line_of(n);
    accel_defaults(a);
    bool iqn = k >= 2;
    bool ok = attrs_known(r, n, k == 3 ? imvj_attrs : iqn ? iqn_attrs : none);
    ok = get_bool(r, n, "always-build-jacobian", &a->always_build_jacobian) && ok;
    ok = get_bool(r, n, "reduced-time-grid", &a->reduced_time_grid) && ok;
    if (xmlHasProp(n, (const xmlChar *)"on-bound-violation")) {
        ok = get_choice(r, n, "on-bound-violation", bounds, 0) >= 0 && ok;
        warn(r, n, "on-bound-violation changes nothing in seam (data bounds are refused)");
    }
    bool relax = false;
    static const char *const c_kids[] = {"relaxation", NULL};
    static const char *const a_kids[] = {"initial-relaxation", "data", "preconditioner", NULL};
    static const char *const i_kids[] = {"initial-relaxation", "data", "preconditioner", "filter",
                                         "max-used-iterations", "time-windows-reused", NULL};
    static const char *const v_kids[] = {"initial-relaxation", "data", "preconditioner", "filter", "max-used-iterations",
                                         "time-windows-reused", "imvj-restart-mode", NULL};
    const char *const *kids = k == 0 ? c_kids : k == 1 ? a_kids : k == 2 ? i_kids : v_kids;
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (!is_element(c))
            continue;
        const char *name = el(c);
        bool known = false;
        for (size_t i = 0; kids[i]; i++)
            known = known || !strcmp(kids[i], name);
        if (!known) {
            ok = refuse_element(r, c, kids);
        } else if (!strcmp(name, "relaxation")) {
            ok = read_value_child(r, c, false, &a->relaxation, NULL) && ok;
            relax = true;
        } else if (!strcmp(name, "initial-relaxation")) {
            static const char *const attrs[] = {"value", "enforce", NULL};
            ok = attrs_known(r, c, attrs) && no_children(r, c) && get_double(r, c, "value", true, &a->relaxation) &&
                 get_bool(r, c, "enforce", &a->enforce_initial_relaxation) && ok;
            if (!iqn && xmlHasProp(c, (const xmlChar *)"enforce"))
                ok = fail(r, c, "enforce belongs to the IQN accelerations");
        } else if (!strcmp(name, "data")) {
            ok = read_accel_data(r, c, a) && ok;
        } else if (!strcmp(name, "preconditioner")) {
            ok = read_preconditioner(r, c, a) && ok;
        } else if (!strcmp(name, "filter")) {
            ok = read_filter(r, c, a) && ok;
        } else if (!strcmp(name, "max-used-iterations")) {
            ok = read_value_child(r, c, true, NULL, &a->max_used_iterations) && ok;
        } else if (!strcmp(name, "time-windows-reused")) {
            ok = read_count_child(r, c, &a->time_windows_reused) && ok;
        } else {
            ok = read_restart(r, c, a) && ok;
        }
    }
    if (k == 3)
        imvj_effective(n, a);
    if (k == 0 && !relax)
        ok = fail(r, n, "constant acceleration needs <relaxation value=\"...\"/>");
    if (k != 0 && a->n_data == 0)
        ok = fail(r, n, "the acceleration needs at least one <data name=\"...\" mesh=\"...\"/>");
    if (a->relaxation <= 0 || a->relaxation > 1)
        ok = fail(r, n, "the relaxation factor must lie in (0, 1]");
    if (iqn && (a->max_used_iterations < 1 || a->time_windows_reused < 0))
        ok = fail(r, n, "max-used-iterations must be at least 1 and time-windows-reused at least 0");
    return ok;
}

static const char *const SCHEMES[] = {"serial-explicit", "parallel-explicit", "serial-implicit",
                                      "parallel-implicit", "multi", NULL};

static bool read_scheme_child(reader *r, const xmlNode *k, pc_scheme *s, bool *window)
{
    static const char *const explicit_kids[] = {"participants", "max-time", "max-time-windows", "time-window-size",
                                                "exchange", NULL};
    static const char *const implicit_kids[] = {
        "participants", "max-time", "max-time-windows", "time-window-size", "exchange", "max-iterations",
        "min-iterations", "absolute-convergence-measure", "relative-convergence-measure",
        "residual-relative-convergence-measure", "acceleration:IQN-ILS", NULL};
    bool implicit = s->kind >= PC_SERIAL_IMPLICIT;
    bool multi = s->kind == PC_MULTI;
    const char *name = el(k);
    if (!strcmp(name, multi ? "participant" : "participants"))
        return multi ? read_multi_participant(r, k, s) : read_scheme_participants(r, k, s);
    if (!strcmp(name, "max-time"))
        return read_value_child(r, k, false, &s->max_time, NULL);
    if (!strcmp(name, "max-time-windows")) {
        int v = 0;
        bool ok = read_value_child(r, k, true, NULL, &v);
        s->max_time_windows = v;
        return ok;
    }
    if (!strcmp(name, "time-window-size")) {
        static const char *const attrs[] = {"value", "method", NULL};
        bool ok = attrs_known(r, k, attrs) && no_children(r, k);
        char *method = prop(k, "method");
        if (method && !strcmp(method, "first-participant"))
            ok = fail(r, k, "seam does not support method=\"first-participant\" (the window size is fixed)");
        else if (method && strcmp(method, "fixed"))
            ok = fail(r, k, "method=\"%s\" is not one seam supports (\"fixed\")", method);
        free(method);
        *window = true;
        ok = get_double(r, k, "value", true, &s->window_size) && ok;
        if (s->window_size <= 0)
            ok = fail(r, k, "the time-window size must be positive");
        return ok;
    }
    if (!strcmp(name, "exchange"))
        return read_exchange(r, k, s, implicit);
    if (implicit && !strcmp(name, "max-iterations"))
        return read_value_child(r, k, true, NULL, &s->max_iterations);
    if (implicit && !strcmp(name, "min-iterations"))
        return read_value_child(r, k, true, NULL, &s->min_iterations);
    if (implicit && !strcmp(name, "absolute-convergence-measure"))
        return read_measure(r, k, s, PC_MEASURE_ABSOLUTE);
    if (implicit && !strcmp(name, "relative-convergence-measure"))
        return read_measure(r, k, s, PC_MEASURE_RELATIVE);
    if (implicit && !strcmp(name, "residual-relative-convergence-measure"))
        return read_measure(r, k, s, PC_MEASURE_RESIDUAL_RELATIVE);
    if (implicit && !strcmp(name, "absolute-or-relative-convergence-measure"))
        return fail(r, k, "seam does not support absolute-or-relative-convergence-measure (use an "
                    "absolute and a relative measure)");
    if (implicit && !strncmp(name, "acceleration:", 13))
        return read_acceleration(r, k, s);
    const char *const *kids = implicit ? implicit_kids : explicit_kids;
    if (multi) {
        static const char *const multi_kids[] = {"participant", "max-time", "max-time-windows", "time-window-size",
                                                 "exchange", "max-iterations", "min-iterations",
                                                 "absolute-convergence-measure", "relative-convergence-measure",
                                                 "residual-relative-convergence-measure", NULL};
        kids = multi_kids;
    }
    return refuse_element(r, k, kids);
}

static bool read_scheme(reader *r, const xmlNode *n)
{
    static const char *const none[] = {NULL};
    precice_config *c = r->c;
    pc_scheme *s = &c->scheme;
    const char *kind = el(n) + strlen("coupling-scheme:");
    int k = -1;
    for (int i = 0; SCHEMES[i]; i++)
        if (!strcmp(SCHEMES[i], kind))
            k = i;
    if (k < 0) {
        char h[128];
        hint(h, sizeof h, kind, SCHEMES, "<coupling-scheme:", ">");
        return fail(r, n, "seam does not support this coupling scheme%s", h);
    }
    static const pc_scheme_kind kinds[] = {PC_SERIAL_EXPLICIT, PC_PARALLEL_EXPLICIT, PC_SERIAL_IMPLICIT,
                                           PC_PARALLEL_IMPLICIT, PC_MULTI};
    s->kind = kinds[k];
    s->line = line_of(n);
    bool ok = attrs_known(r, n, none), window = false;
    for (const xmlNode *ch = n->children; ch; ch = ch->next)
        if (is_element(ch))
            ok = read_scheme_child(r, ch, s, &window) && ok;
    if (!window)
        ok = fail(r, n, "a coupling scheme needs <time-window-size value=\"...\"/>");
    if (s->max_time < 0 && s->max_time_windows < 0)
        ok = fail(r, n, "a coupling scheme needs <max-time value=\"...\"/> or <max-time-windows value=\"...\"/>");
    if (s->kind == PC_MULTI) {
        if (s->controller < 0)
            ok = fail(r, n, "a multi coupling scheme has exactly one participant with control=\"yes\"");
        if (s->n_participants < 2)
            ok = fail(r, n, "a multi coupling scheme needs at least two <participant name=\"...\"/>");
    } else if (s->n_participants != 2) {
        ok = fail(r, n, "a %s coupling scheme needs <participants first=\"...\" second=\"...\"/>", kind);
    }
    if (s->kind >= PC_SERIAL_IMPLICIT) {
        if (s->n_measures == 0 && s->max_iterations < 0)
            ok = fail(r, n, "an implicit coupling scheme needs a convergence measure or <max-iterations value=\"...\"/>");
        if (s->max_iterations > 0 && s->min_iterations > s->max_iterations)
            ok = fail(r, n, "min-iterations (%d) exceeds max-iterations (%d)", s->min_iterations, s->max_iterations);
    }
    return ok;
}

/* ---------- cross-checks ---------- */

static bool exchanged(const pc_scheme *s, int data, int mesh)
{
    for (size_t i = 0; i < s->n_exchanges; i++)
        if (s->exchanges[i].data == data && s->exchanges[i].mesh == mesh)
            return true;
    return false;
}

static bool in_scheme(const pc_scheme *s, int p)
{
    for (size_t i = 0; i < s->n_participants; i++)
        if (s->participants[i] == p)
            return true;
    return false;
}

static bool joined(const precice_config *c, int a, int b)
{
    for (size_t i = 0; i < c->n_m2n; i++)
        if ((c->m2n[i].acceptor == a && c->m2n[i].connector == b) ||
            (c->m2n[i].acceptor == b && c->m2n[i].connector == a))
            return true;
    return false;
}

static bool check_exchange(reader *r, const xmlNode *n, const pc_exchange *e)
{
    const precice_config *c = r->c;
    const pc_scheme *s = &c->scheme;
    bool ok = check_uses(r, n, e->mesh, e->data);
    for (int k = 0; k < 2; k++) {
        int p = k ? e->to : e->from;
        if (!in_scheme(s, p))
            ok = fail(r, n, "participant \"%s\" is not in the coupling scheme", c->participants[p].name);
        else if (!has_mesh(&c->participants[p], e->mesh))
            ok = fail(r, n, "participant \"%s\" neither provides nor receives mesh \"%s\"", c->participants[p].name,
                      c->meshes[e->mesh].name);
    }
    if (e->from == e->to)
        ok = fail(r, n, "from and to are the same participant");
    else if (!joined(c, e->from, e->to))
        ok = fail(r, n, "no m2n joins \"%s\" and \"%s\"", c->participants[e->from].name, c->participants[e->to].name);
    for (const pc_exchange *o = s->exchanges; o < e; o++)
        if (o->data == e->data && o->mesh == e->mesh && o->from == e->from && o->to == e->to)
            ok = fail(r, n, "the same exchange twice");
    return ok;
}

/* The element named name at a line, for messages about already-read items. */
static const xmlNode *at_line(const xmlNode *n, int line, const char *name)
{
    for (; n; n = n->next) {
        if (!is_element(n))
            continue;
        if (line_of(n) == line && !strcmp(el(n), name))
            return n;
        const xmlNode *k = at_line(n->children, line, name);
        if (k)
            return k;
    }
    return NULL;
}

static bool cross_check(reader *r, const xmlNode *root)
{
    const precice_config *c = r->c;
    const pc_scheme *s = &c->scheme;
    bool ok = true;
    for (size_t p = 0; p < c->n_participants; p++) {
        const pc_participant *pp = &c->participants[p];
        for (size_t i = 0; i < pp->n_receive; i++) {
            const pc_receive *rc = &pp->receive[i];
            const pc_participant *from = &c->participants[rc->from];
            bool provides = false;
            for (size_t k = 0; k < from->n_provide; k++)
                provides = provides || from->provide[k] == rc->mesh;
            if (!provides)
                ok = fail(r, at_line(root, rc->line, "receive-mesh"), "participant \"%s\" does not provide mesh \"%s\"", from->name,
                          c->meshes[rc->mesh].name);
        }
    }
    for (size_t p = 0; p < c->n_participants; p++)
        for (size_t q = 0; q < p; q++)
            for (size_t i = 0; i < c->participants[p].n_provide; i++)
                if (provides(&c->participants[q], c->participants[p].provide[i]))
                    ok = fail(r, at_line(root, c->participants[p].line, "participant"),
                              "mesh \"%s\" is provided by \"%s\" already", c->meshes[c->participants[p].provide[i]].name,
                              c->participants[q].name);
    for (size_t p = 0; p < c->n_participants; p++)
        if (!in_scheme(s, (int)p))
            ok = fail(r, at_line(root, c->participants[p].line, "participant"),
                      "participant \"%s\" is in no coupling scheme", c->participants[p].name);
    for (size_t i = 0; i < s->n_exchanges; i++)
        ok = check_exchange(r, at_line(root, s->exchanges[i].line, "exchange"), &s->exchanges[i]) && ok;
    for (size_t i = 0; i < s->n_measures; i++) {
        static const char *const names[] = {"absolute-convergence-measure", "relative-convergence-measure",
                                            "residual-relative-convergence-measure"};
        const pc_measure *m = &s->measures[i];
        if (!exchanged(s, m->data, m->mesh))
            ok = fail(r, at_line(root, m->line, names[m->kind]), "data \"%s\" on mesh \"%s\" is not exchanged", c->data[m->data].name,
                      c->meshes[m->mesh].name);
    }
    for (size_t i = 0; i < s->acceleration.n_data; i++) {
        const pc_data_use *u = &s->acceleration.data[i];
        if (!exchanged(s, u->data, u->mesh))
            ok = fail(r, at_line(root, u->line, "data"), "data \"%s\" on mesh \"%s\" is not exchanged", c->data[u->data].name,
                      c->meshes[u->mesh].name);
    }
    return ok;
}

/* ---------- the document ---------- */

static bool read_participant_names(reader *r, const xmlNode *root)
{
    static const char *const attrs[] = {"name", NULL};
    precice_config *c = r->c;
    bool ok = true;
    for (const xmlNode *n = root->children; n; n = n->next) {
        if (!is_element(n) || strcmp(el(n), "participant"))
            continue;
        pc_participant *p = PUSH(c->participants, c->n_participants);
        p->line = line_of(n);
        ok = attrs_known(r, n, attrs) && need_str(r, n, "name", &p->name) && ok;
        if (p->name && find_name(c->participants, sizeof *c->participants, c->n_participants - 1, p->name) >= 0)
            ok = fail(r, n, "duplicate participant name \"%s\"", p->name);
    }
    return ok;
}

static bool read_root(reader *r, const xmlNode *root)
{
    static const char *const attrs[] = {"experimental", "allow-remeshing", "wait-in-finalize", NULL};
    static const char *const kids[] = {"data:scalar", "data:vector", "mesh", "participant", "m2n:sockets",
                                       "coupling-scheme:serial-implicit", "log", "profiling", NULL};
    if (strcmp(el(root), "precice-configuration"))
        return fail(r, root, "the root element must be <precice-configuration>");
    bool ok = attrs_known(r, root, attrs);
    bool remesh = false, experimental = false, wait = false;
    ok = get_bool(r, root, "allow-remeshing", &remesh) && get_bool(r, root, "experimental", &experimental) &&
         get_bool(r, root, "wait-in-finalize", &wait) && ok;
    if (remesh)
        ok = fail(r, root, "seam does not support allow-remeshing=\"true\"");
    for (size_t i = 0; i < 2; i++)
        if (xmlHasProp(root, (const xmlChar *)attrs[2 * i]))
            warn(r, root, "%s changes nothing in seam", attrs[2 * i]);
    /* Data, then meshes, then participants' names: later elements refer to earlier kinds. */
    for (const xmlNode *n = root->children; n; n = n->next)
        if (is_element(n) && !strncmp(el(n), "data:", 5)) {
            if (!strcmp(el(n), "data:scalar") || !strcmp(el(n), "data:vector"))
                ok = read_data(r, n, el(n)[5] == 'v') && ok;
            else
                ok = refuse_element(r, n, kids);
        }
    for (const xmlNode *n = root->children; n; n = n->next)
        if (is_element(n) && !strcmp(el(n), "mesh"))
            ok = read_mesh(r, n) && ok;
    ok = read_participant_names(r, root) && ok;
    size_t p = 0, schemes = 0;
    for (const xmlNode *n = root->children; n; n = n->next) {
        if (!is_element(n))
            continue;
        const char *name = el(n);
        if (!strncmp(name, "data:", 5) || !strcmp(name, "mesh")) {
            continue;
        } else if (!strcmp(name, "participant")) {
            ok = read_participant(r, n, &r->c->participants[p++]) && ok;
        } else if (!strncmp(name, "m2n:", 4)) {
            ok = read_m2n(r, n) && ok;
        } else if (!strncmp(name, "coupling-scheme:", 16)) {
            if (schemes++)
                ok = fail(r, n, "seam does not support several coupling schemes (compositional coupling)");
            else
                ok = read_scheme(r, n) && ok;
        } else if (!strcmp(name, "log") || !strcmp(name, "profiling")) {
            warn(r, n, "<%s> changes nothing in seam (seam writes its own log and timings)", name);
        } else {
            ok = refuse_element(r, n, kids);
        }
    }
    if (!schemes)
        ok = fail(r, root, "a configuration needs one <coupling-scheme:...>");
    if (r->c->n_participants < 2)
        ok = fail(r, root, "a configuration needs at least two participants");
    /* Cross-checks need every index resolved. */
    return ok && cross_check(r, root);
}

static void parse_error(reader *r, xmlParserCtxtPtr ctx)
{
    const xmlError *e = xmlCtxtGetLastError(ctx);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "cannot be read");
    size_t len = strlen(msg);
    while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
        msg[--len] = '\0';
    char full[1024];
    snprintf(full, sizeof full, "%s:%d: %s", r->path, e ? e->line : 0, msg);
    if (r->err && r->errlen)
        snprintf(r->err, r->errlen, "%s", full);
    if (r->warn)
        r->warn(r->warn_ctx, full);
}

precice_config *precice_config_load(const char *path, char *err, size_t errlen, precice_config_warn warn_fn,
                                    void *warn_ctx)
{
    reader r = {.path = path, .err = err, .errlen = errlen, .warn = warn_fn, .warn_ctx = warn_ctx};
    if (err && errlen)
        err[0] = '\0';
    /* Checked here: libxml2 would print its own I/O warning. */
    FILE *f = fopen(path, "r");
    if (!f) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s: cannot open: %s", path, strerror(errno));
        if (err && errlen)
            snprintf(err, errlen, "%s", msg);
        if (warn_fn)
            warn_fn(warn_ctx, msg);
        return NULL;
    }
    fclose(f);
    xmlParserCtxtPtr ctx = xmlNewParserCtxt();
    if (!ctx)
        abort();
    xmlDocPtr doc = xmlCtxtReadFile(ctx, path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc || !ctx->wellFormed) {
        parse_error(&r, ctx);
        xmlFreeDoc(doc);
        xmlFreeParserCtxt(ctx);
        return NULL;
    }
    precice_config *c = SEAM_NEW(precice_config);
    r.c = c;
    c->path = seam_xstrdup(path);
    char *real = realpath(path, NULL);
    c->real_path = seam_xstrdup(real ? real : path);
    free(real);
    c->scheme.first = c->scheme.second = c->scheme.controller = -1;
    c->scheme.max_time = -1;
    c->scheme.max_time_windows = -1;
    c->scheme.max_iterations = -1;
    c->scheme.min_iterations = 1;
    bool ok = read_root(&r, xmlDocGetRootElement(doc));
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctx);
    if (!ok || r.failed) {
        precice_config_destroy(&c);
        return NULL;
    }
    return c;
}

static void free_participant(pc_participant *p)
{
    free(p->name);
    free(p->provide);
    free(p->receive);
    free(p->reads);
    free(p->writes);
    free(p->mappings);
    for (size_t i = 0; i < p->n_watch_points; i++)
        free(p->watch_points[i].name);
    free(p->watch_points);
    for (size_t i = 0; i < p->n_exports; i++)
        free(p->exports[i].directory);
    free(p->exports);
}

void precice_config_destroy(precice_config **self_p)
{
    precice_config *c = *self_p;
    if (!c)
        return;
    for (size_t i = 0; i < c->n_data; i++)
        free(c->data[i].name);
    free(c->data);
    for (size_t i = 0; i < c->n_meshes; i++) {
        free(c->meshes[i].name);
        free(c->meshes[i].use_data);
    }
    free(c->meshes);
    for (size_t i = 0; i < c->n_participants; i++)
        free_participant(&c->participants[i]);
    free(c->participants);
    for (size_t i = 0; i < c->n_m2n; i++) {
        free(c->m2n[i].exchange_directory);
        free(c->m2n[i].network);
    }
    free(c->m2n);
    free(c->scheme.participants);
    free(c->scheme.exchanges);
    free(c->scheme.measures);
    free(c->scheme.acceleration.data);
    free(c->scheme.acceleration.scaling);
    free(c->scheme.acceleration.imvj_restart_mode);
    free(c->path);
    free(c->real_path);
    free(c);
    *self_p = NULL;
}

int precice_config_participant(const precice_config *c, const char *name)
{
    return find_name(c->participants, sizeof *c->participants, c->n_participants, name);
}

int precice_config_mesh(const precice_config *c, const char *name)
{
    return find_name(c->meshes, sizeof *c->meshes, c->n_meshes, name);
}

int precice_config_data(const precice_config *c, const char *name)
{
    return find_name(c->data, sizeof *c->data, c->n_data, name);
}

const char *precice_config_exchange_directory(const precice_config *c, int p)
{
    for (size_t i = 0; i < c->n_m2n; i++)
        if (c->m2n[i].acceptor == p || c->m2n[i].connector == p)
            return c->m2n[i].exchange_directory;
    return "";
}
