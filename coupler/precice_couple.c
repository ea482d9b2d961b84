/* A preCICE configuration's coupling on seam's schemes (precice_couple.h). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "precice_couple.h"
#include "predict.h"
#include "seam/alloc.h"
#include "seam/meshmap.h"

/* ---- samples -------------------------------------------------------------- */

void pcs_samples_resize(pcs_samples *s, size_t n, size_t n_samples)
{
    if (n != s->n || n_samples > s->cap) {
        size_t cap = n_samples > s->cap ? n_samples : s->cap;
        if (cap < 2)
            cap = 2;
        s->times = seam_xrealloc(s->times, cap * sizeof *s->times);
        s->values = seam_xrealloc(s->values, cap * (n ? n : 1) * sizeof *s->values);
        s->cap = cap;
        s->n = n;
    }
    s->n_samples = n_samples;
}

void pcs_samples_free(pcs_samples *s)
{
    free(s->times);
    free(s->values);
    *s = (pcs_samples){0};
}

/* ---- failures ------------------------------------------------------------- */

void pcs_fail(pcs *s, const char *fmt, ...)
{
    if (s->error[0])
        return;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(s->error, sizeof s->error, "%s (time window %ld, iteration %d)", msg, s->window + 1,
             s->c.judged + 1);
}

/* ---- set-up --------------------------------------------------------------- */

static const char *data_name(const pcs *s, int d) { return s->cfg->data[d].name; }
static const char *mesh_name(const pcs *s, int m) { return s->cfg->meshes[m].name; }
static const char *part_name(const pcs *s, int p) { return s->cfg->participants[p].name; }

int pcs_read_index(const pcs *s, int p, int data, int mesh)
{
    const pc_participant *pp = &s->cfg->participants[p];
    for (size_t r = 0; r < pp->n_reads; r++)
        if (pp->reads[r].data == data && pp->reads[r].mesh == mesh)
            return (int)r;
    return -1;
}

static int find_map(const pcs *s, int p, bool write, int from, int to);

/* The write of participant p that feeds an exchange of data on mesh: the
 * one on that mesh, else one with a write mapping to it, else any. */
static int write_index(const pcs *s, int p, int data, int mesh)
{
    const pc_participant *pp = &s->cfg->participants[p];
    int any = -1, mapped = -1;
    for (size_t w = 0; w < pp->n_writes; w++) {
        if (pp->writes[w].data != data)
            continue;
        if (pp->writes[w].mesh == mesh)
            return (int)w;
        if (mapped < 0 && find_map(s, p, true, pp->writes[w].mesh, mesh) >= 0)
            mapped = (int)w;
        if (any < 0)
            any = (int)w;
    }
    return mapped >= 0 ? mapped : any;
}

/* The mapping of participant p in the direction asked, from mesh `from` to `to`; -1 when none. */
static int find_map(const pcs *s, int p, bool write, int from, int to)
{
    const pc_participant *pp = &s->cfg->participants[p];
    for (size_t i = 0; i < pp->n_mappings; i++) {
        const pc_mapping *m = &pp->mappings[i];
        if (m->write == write && m->from == from && m->to == to)
            return (int)i;
    }
    return -1;
}

static bool refuse(char *err, size_t errlen, const precice_config *cfg, int line, const char *element,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static bool refuse(char *err, size_t errlen, const precice_config *cfg, int line, const char *element,
                   const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s:%d: <%s>: %s", cfg->path, line, element, msg);
    return false;
}

static bool check_mappings(const precice_config *cfg, char *err, size_t errlen)
{
    for (size_t p = 0; p < cfg->n_participants; p++) {
        const pc_participant *pp = &cfg->participants[p];
        for (size_t i = 0; i < pp->n_exports; i++)
            if (pp->exports[i].every_iteration)
                return refuse(err, errlen, cfg, pp->exports[i].line, "export",
                              "every-iteration=\"true\": seam's coupler exports after each time window only");
        for (size_t i = 0; i < pp->n_mappings; i++) {
            const pc_mapping *m = &pp->mappings[i];
            if (m->constraint == PC_SCALED_CONSISTENT_SURFACE || m->constraint == PC_SCALED_CONSISTENT_VOLUME)
                return refuse(err, errlen, cfg, m->line, "mapping",
                              "constraint scaled-consistent-* is not supported by seam (use consistent or "
                              "conservative)");
        }
    }
    return true;
}

static bool check_scheme(const precice_config *cfg, const pc_scheme *sc, char *err, size_t errlen)
{
    if (sc->max_time <= 0 && sc->max_time_windows < 0)
        return refuse(err, errlen, cfg, sc->line, "coupling-scheme",
                      "neither max-time nor max-time-windows is given: the coupling would never end");
    const pc_acceleration *a = &sc->acceleration;
    if ((a->kind == PC_ACCEL_IQN_ILS || a->kind == PC_ACCEL_IQN_IMVJ) && !a->reduced_time_grid)
        return refuse(err, errlen, cfg, a->line, "acceleration",
                      "reduced-time-grid=\"false\": seam's schemes iterate on the window-end values only");
    for (size_t e = 0; e < sc->n_exchanges; e++) {
        const pc_exchange *x = &sc->exchanges[e];
        if (sc->kind == PC_SERIAL_EXPLICIT || sc->kind == PC_SERIAL_IMPLICIT || sc->kind == PC_PARALLEL_EXPLICIT ||
            sc->kind == PC_PARALLEL_IMPLICIT) {
            bool ab = x->from == sc->first && x->to == sc->second, ba = x->from == sc->second && x->to == sc->first;
            if (!ab && !ba)
                return refuse(err, errlen, cfg, x->line, "exchange",
                              "exchange from %s to %s: a two-participant scheme exchanges between %s and %s only",
                              cfg->participants[x->from].name, cfg->participants[x->to].name,
                              cfg->participants[sc->first].name, cfg->participants[sc->second].name);
        }
        if (write_index(&(pcs){.cfg = cfg}, x->from, x->data, x->mesh) < 0)
            return refuse(err, errlen, cfg, x->line, "exchange", "participant %s exchanges data %s it does not write",
                          cfg->participants[x->from].name, cfg->data[x->data].name);
    }
    return true;
}

bool pcs_init(pcs *s, const precice_config *cfg, char *err, size_t errlen)
{
    *s = (pcs){.cfg = cfg, .sc = &cfg->scheme};
    const pc_scheme *sc = s->sc;
    s->serial = sc->kind == PC_SERIAL_EXPLICIT || sc->kind == PC_SERIAL_IMPLICIT;
    s->implicit = sc->kind == PC_SERIAL_IMPLICIT || sc->kind == PC_PARALLEL_IMPLICIT || sc->kind == PC_MULTI;
    if (!check_mappings(cfg, err, errlen) || !check_scheme(cfg, sc, err, errlen))
        return false;
    s->meshes = SEAM_NEW_N(pcs_mesh, cfg->n_meshes ? cfg->n_meshes : 1);
    s->ports = SEAM_NEW_N(pcs_port, cfg->n_participants);
    s->maps = SEAM_NEW_N(pcs_map *, cfg->n_participants);
    for (size_t p = 0; p < cfg->n_participants; p++) {
        const pc_participant *pp = &cfg->participants[p];
        pcs_port *port = &s->ports[p];
        port->last_window = -1;
        port->reads = SEAM_NEW_N(pcs_samples, pp->n_reads ? pp->n_reads : 1);
        port->writes = SEAM_NEW_N(pcs_samples, pp->n_writes ? pp->n_writes : 1);
        port->read_block = SEAM_NEW_N(int, pp->n_reads ? pp->n_reads : 1);
        port->read_map = SEAM_NEW_N(int, pp->n_reads ? pp->n_reads : 1);
        s->maps[p] = SEAM_NEW_N(pcs_map, pp->n_mappings ? pp->n_mappings : 1);
        for (size_t i = 0; i < pp->n_mappings; i++)
            s->maps[p][i].cfg = &pp->mappings[i];
    }
    s->n_blocks = sc->n_exchanges;
    s->blocks = SEAM_NEW_N(pcs_block, s->n_blocks ? s->n_blocks : 1);
    for (size_t e = 0; e < s->n_blocks; e++) {
        const pc_exchange *x = &sc->exchanges[e];
        pcs_block *b = &s->blocks[e];
        *b = (pcs_block){.exchange = (int)e, .data = x->data, .mesh = x->mesh, .from = x->from, .to = x->to,
                         .components = cfg->data[x->data].components, .in_x = s->serial && x->from == sc->second,
                         .weight = 1.0, .write_index = write_index(s, x->from, x->data, x->mesh), .write_map = -1};
    }
    /* every read is fed by an exchange to its reader */
    for (size_t p = 0; p < cfg->n_participants; p++) {
        const pc_participant *pp = &cfg->participants[p];
        for (size_t r = 0; r < pp->n_reads; r++) {
            const pc_data_use *u = &pp->reads[r];
            /* the exchange on the read's mesh, else one with a read mapping to it, else any to p */
            int found = -1, mapped = -1, any = -1;
            for (size_t e = 0; e < s->n_blocks; e++) {
                const pcs_block *b = &s->blocks[e];
                if (b->data != u->data || b->to != (int)p)
                    continue;
                if (b->mesh == u->mesh && found < 0)
                    found = (int)e;
                if (mapped < 0 && find_map(s, (int)p, false, b->mesh, u->mesh) >= 0)
                    mapped = (int)e;
                if (any < 0)
                    any = (int)e;
            }
            found = found >= 0 ? found : mapped >= 0 ? mapped : any;
            if (found < 0)
                return refuse(err, errlen, cfg, u->line, "read-data",
                              "participant %s reads data %s, but no exchange of the coupling scheme sends it to %s",
                              pp->name, cfg->data[u->data].name, pp->name), pcs_fini(s), false;
            const pcs_block *b = &s->blocks[found];
            s->ports[p].read_block[r] = found;
            s->ports[p].read_map[r] = b->mesh == u->mesh ? -1 : find_map(s, (int)p, false, b->mesh, u->mesh);
            if (b->mesh != u->mesh && s->ports[p].read_map[r] < 0)
                return refuse(err, errlen, cfg, u->line, "read-data",
                              "participant %s reads %s on mesh %s, exchanged on mesh %s, with no read mapping "
                              "from %s to %s", pp->name, cfg->data[u->data].name, cfg->meshes[u->mesh].name,
                              cfg->meshes[b->mesh].name, cfg->meshes[b->mesh].name, cfg->meshes[u->mesh].name),
                       pcs_fini(s), false;
        }
    }
    for (size_t e = 0; e < s->n_blocks; e++) {
        pcs_block *b = &s->blocks[e];
        int wm = cfg->participants[b->from].writes[b->write_index].mesh;
        if (wm != b->mesh) {
            b->write_map = find_map(s, b->from, true, wm, b->mesh);
            if (b->write_map < 0)
                return refuse(err, errlen, cfg, sc->exchanges[e].line, "exchange",
                              "participant %s writes %s on mesh %s, exchanged on mesh %s, with no write mapping "
                              "from %s to %s", part_name(s, b->from), data_name(s, b->data), mesh_name(s, wm),
                              mesh_name(s, b->mesh), mesh_name(s, wm), mesh_name(s, b->mesh)),
                       pcs_fini(s), false;
        }
    }
    s->measure_first = SEAM_NEW_N(double, sc->n_measures + 1);
    s->measure_value = SEAM_NEW_N(double, sc->n_measures + 1);
    s->measure_norm = SEAM_NEW_N(double, sc->n_measures + 1);
    s->measure_block = SEAM_NEW_N(int, sc->n_measures + 1);
    for (size_t i = 0; i < sc->n_measures; i++) {
        const pc_measure *m = &sc->measures[i];
        s->measure_block[i] = -1;
        if (m->kind == PC_MEASURE_MIN_ITERATIONS)
            continue;
        for (size_t e = 0; e < s->n_blocks && s->measure_block[i] < 0; e++)
            if (s->blocks[e].data == m->data && s->blocks[e].mesh == m->mesh)
                s->measure_block[i] = (int)e;
        if (s->measure_block[i] < 0)
            return refuse(err, errlen, cfg, m->line, "convergence-measure",
                          "data %s on mesh %s is not exchanged by the coupling scheme", data_name(s, m->data),
                          mesh_name(s, m->mesh)), pcs_fini(s), false;
    }
    return true;
}

void pcs_fini(pcs *s)
{
    if (!s->cfg)
        return;
    for (size_t m = 0; m < s->cfg->n_meshes && s->meshes; m++) {
        pcs_mesh *pm = &s->meshes[m];
        free(pm->X);
        free(pm->edges);
        free(pm->triangles);
        free(pm->quads);
        free(pm->tetrahedra);
    }
    free(s->meshes);
    for (size_t p = 0; p < s->cfg->n_participants && s->ports; p++) {
        const pc_participant *pp = &s->cfg->participants[p];
        pcs_port *port = &s->ports[p];
        for (size_t r = 0; r < pp->n_reads; r++)
            pcs_samples_free(&port->reads[r]);
        for (size_t w = 0; w < pp->n_writes; w++)
            pcs_samples_free(&port->writes[w]);
        free(port->reads);
        free(port->writes);
        free(port->read_block);
        free(port->read_map);
        for (size_t i = 0; i < pp->n_mappings; i++)
            seam_csr_destroy(&s->maps[p][i].M);
        free(s->maps[p]);
    }
    free(s->ports);
    free(s->maps);
    for (size_t e = 0; e < s->n_blocks && s->blocks; e++) {
        free(s->blocks[e].start);
        pcs_samples_free(&s->blocks[e].raw);
    }
    free(s->blocks);
    free(s->measure_first);
    free(s->measure_value);
    free(s->measure_norm);
    free(s->measure_block);
    for (int j = 0; j < PCS_PAST; j++)
        free(s->past[j]);
    *s = (pcs){0};
}

/* ---- mappings ------------------------------------------------------------- */

static seam_meshmap_mesh as_map_mesh(const pcs_mesh *m)
{
    return (seam_meshmap_mesh){.dim = m->dim, .n = m->n, .X = m->X, .edges = m->edges, .n_edges = m->n_edges,
                               .triangles = m->triangles, .n_triangles = m->n_triangles, .quads = m->quads,
                               .n_quads = m->n_quads};
}

/* The configuration's RBF enums are the mapping library's, value for value (cast below). */
_Static_assert((int)PC_RBF_COMPACT_POLYNOMIAL_C0 == (int)SEAM_RBF_COMPACT_POLYNOMIAL_C0 &&
                   (int)PC_RBF_COMPACT_TPS_C2 == (int)SEAM_RBF_COMPACT_TPS_C2 &&
                   (int)PC_RBF_GAUSSIAN == (int)SEAM_RBF_GAUSSIAN && (int)PC_RBF_VOLUME_SPLINES == (int)SEAM_RBF_VOLUME_SPLINES,
               "pc_rbf_basis and seam_rbf_basis differ");
_Static_assert((int)PC_POLY_SEPARATE == (int)SEAM_RBF_POLY_SEPARATE && (int)PC_POLY_ON == (int)SEAM_RBF_POLY_ON &&
                   (int)PC_POLY_OFF == (int)SEAM_RBF_POLY_OFF,
               "pc_rbf_polynomial and seam_rbf_polynomial differ");

static bool build_map(pcs *s, int p, pcs_map *map, char *err, size_t errlen)
{
    const pc_mapping *m = map->cfg;
    static const seam_meshmap_method methods[] = {
        [PC_MAP_NEAREST_NEIGHBOR] = SEAM_MAP_NEAREST_NEIGHBOR,
        [PC_MAP_NEAREST_PROJECTION] = SEAM_MAP_NEAREST_PROJECTION,
        [PC_MAP_RBF] = SEAM_MAP_RBF,
    };
    seam_rbf_params rbf = {.basis = (seam_rbf_basis)m->basis, .support_radius = m->support_radius,
                           .shape_parameter = m->shape_parameter,
                           .polynomial = (seam_rbf_polynomial)m->polynomial,
                           .dead = {m->dead[0], m->dead[1], m->dead[2]}};
    /* consistent: M from `from` to `to`; conservative: M from `to` to `from`, applied transposed */
    bool cons = m->constraint == PC_CONSERVATIVE;
    const pcs_mesh *src = &s->meshes[cons ? m->to : m->from], *dst = &s->meshes[cons ? m->from : m->to];
    seam_meshmap_mesh a = as_map_mesh(src), b = as_map_mesh(dst);
    char why[512];
    map->M = seam_meshmap_interpolation(methods[m->method], &a, &b, &rbf, why, sizeof why);
    if (!map->M)
        return refuse(err, errlen, s->cfg, m->line, "mapping", "participant %s, mapping from %s to %s: %s",
                      part_name(s, p), mesh_name(s, m->from), mesh_name(s, m->to), why);
    return true;
}

/* out (on the mapping's `to` mesh) from in (on its `from` mesh), ncomp values per vertex. */
static void apply_map(const pcs_map *map, int ncomp, const double *in, double *out, size_t n_out)
{
    memset(out, 0, n_out * sizeof *out);
    if (map->cfg->constraint == PC_CONSERVATIVE)
        seam_meshmap_apply_t(map->M, ncomp, in, out);
    else
        seam_meshmap_apply(map->M, ncomp, in, out);
}

static double norm2_diff(const double *a, const double *b, size_t n, double w);

/* The constant preconditioner's weights: 1 / the data's scaling in the acceleration element. */
static void constant_weights(pcs *s)
{
    const pc_acceleration *a = &s->sc->acceleration;
    for (size_t e = 0; e < s->n_blocks; e++)
        for (size_t i = 0; i < a->n_data; i++)
            if (a->data[i].data == s->blocks[e].data && a->data[i].mesh == s->blocks[e].mesh && a->scaling &&
                a->scaling[i] > 0)
                s->blocks[e].weight = 1.0 / a->scaling[i];
}

/* After a window: the weights of the next one. The schemes see one scaling
 * per window (their least squares need consistent columns), so value,
 * residual and residual-sum take the window's values or residuals at its end
 * (preCICE updates within the window too); freeze-after stops updates. */
static void update_weights(pcs *s)
{
    const pc_acceleration *a = &s->sc->acceleration;
    if (a->preconditioner == PC_PRECOND_NONE || a->preconditioner == PC_PRECOND_CONSTANT)
        return;
    bool frozen = a->preconditioner_freeze_after >= 0 && s->window + 1 >= a->preconditioner_freeze_after;
    bool reset = s->window == 0 || !a->preconditioner_update_on_threshold;
    for (size_t e = 0; e < s->n_blocks && !reset; e++) {
        const pcs_block *b = &s->blocks[e];
        if ((s->serial && !b->in_x) || b->res_sum == 0)
            continue;
        double factor = b->prev_res_sum / b->res_sum;
        reset = a->preconditioner != PC_PRECOND_RESIDUAL_SUM || factor > 10.0 || factor < 0.1;
    }
    for (size_t e = 0; e < s->n_blocks; e++) {
        pcs_block *b = &s->blocks[e];
        if (s->serial && !b->in_x)
            continue;
        double scale = a->preconditioner == PC_PRECOND_VALUE      ? norm2_diff(b->start, NULL, b->n, 1.0)
                       : a->preconditioner == PC_PRECOND_RESIDUAL ? b->res_norm
                                                                  : b->res_sum;
        if (!frozen && reset && scale > 1e-14 && isfinite(scale)) {
            b->weight = 1.0 / scale;
            b->prev_res_sum = b->res_sum;
        }
        b->res_sum = 0;
    }
}

void pcs_read(pcs *s, seam_cfg *coupling)
{
    static const char *const names[] = {"none", "linear", "quadratic", "cubic", "quartic", NULL};
    s->predictor = seam_cfg_enum(coupling, "predictor", names, 0, 0);
}

bool pcs_build(pcs *s, char *err, size_t errlen)
{
    const precice_config *cfg = s->cfg;
    for (size_t m = 0; m < cfg->n_meshes; m++)
        if (!s->meshes[m].known)
            return refuse(err, errlen, cfg, cfg->meshes[m].line, "mesh",
                          "mesh %s: no participant provided it at initialize", cfg->meshes[m].name);
    for (size_t p = 0; p < cfg->n_participants; p++)
        for (size_t i = 0; i < cfg->participants[p].n_mappings; i++)
            if (!build_map(s, (int)p, &s->maps[p][i], err, errlen))
                return false;
    size_t off_x = 0, off_f = 0;
    for (size_t e = 0; e < s->n_blocks; e++) {
        pcs_block *b = &s->blocks[e];
        b->n = s->meshes[b->mesh].n * (size_t)b->components;
        if (b->in_x || !s->serial) {
            b->offset = off_x;
            off_x += b->n;
        } else {
            b->offset = off_f;
            off_f += b->n;
        }
        b->start = seam_xcalloc(2 * (b->n ? b->n : 1), sizeof *b->start);
        b->end = b->start + (b->n ? b->n : 1);
    }
    s->n_x = off_x;
    s->n_f = s->serial ? off_f : off_x;
    if (s->sc->acceleration.preconditioner == PC_PRECOND_CONSTANT)
        constant_weights(s);
    s->n = s->n_x > s->n_f ? s->n_x : s->n_f;
    for (size_t p = 0; p < cfg->n_participants; p++) {
        const pc_participant *pp = &cfg->participants[p];
        for (size_t r = 0; r < pp->n_reads; r++)
            pcs_samples_resize(&s->ports[p].reads[r],
                               s->meshes[pp->reads[r].mesh].n * (size_t)cfg->data[pp->reads[r].data].components, 2);
        for (size_t w = 0; w < pp->n_writes; w++) {
            pcs_samples *ws = &s->ports[p].writes[w];
            pcs_samples_resize(ws, s->meshes[pp->writes[w].mesh].n * (size_t)cfg->data[pp->writes[w].data].components,
                               1);
            ws->times[0] = 0;
            memset(ws->values, 0, ws->n * sizeof *ws->values);   /* nothing written yet */
        }
    }
    return true;
}

/* Writer values on its write mesh -> the block's mesh. */
static void to_block(const pcs *s, const pcs_block *b, const double *in, double *out)
{
    if (b->write_map < 0)
        memcpy(out, in, b->n * sizeof *out);
    else
        apply_map(&s->maps[b->from][b->write_map], b->components, in, out, b->n);
}

void pcs_initial_data(pcs *s, int p, size_t wi, const double *values)
{
    for (size_t e = 0; e < s->n_blocks; e++) {
        pcs_block *b = &s->blocks[e];
        if (b->from == p && b->write_index == (int)wi && s->sc->exchanges[e].initialize) {
            to_block(s, b, values, b->start);
            memcpy(b->end, b->start, b->n * sizeof *b->end);
        }
    }
}

/* ---- one solve ------------------------------------------------------------ */

/* The samples a reader gets of block b: the start at 0, the writer's samples
 * moved by the end value's correction times t/T, the end value at T. */
static void block_samples(const pcs *s, const pcs_block *b, double T, pcs_samples *out)
{
    const pcs_samples *raw = &b->raw;
    size_t inner = 0;   /* raw samples strictly inside the window */
    for (size_t i = 0; i + 1 < raw->n_samples; i++)
        if (raw->times[i] > 0 && raw->times[i] < T)
            inner++;
    if (T <= 0) {       /* the coupling ended: the accepted values */
        pcs_samples_resize(out, b->n, 1);
        out->times[0] = 0;
        memcpy(out->values, b->start, b->n * sizeof *out->values);
        return;
    }
    pcs_samples_resize(out, b->n, inner + 2);
    out->times[0] = 0;
    memcpy(out->values, b->start, b->n * sizeof *out->values);
    const double *last = raw->n_samples ? raw->values + (raw->n_samples - 1) * b->n : NULL;
    size_t k = 1;
    for (size_t i = 0; i + 1 < raw->n_samples; i++) {
        double t = raw->times[i];
        if (!(t > 0 && t < T))
            continue;
        double *v = out->values + k * b->n;
        const double *r = raw->values + i * b->n;
        for (size_t j = 0; j < b->n; j++)
            v[j] = r[j] + t / T * (b->end[j] - last[j]);
        out->times[k++] = t;
    }
    out->times[k] = T;
    memcpy(out->values + k * b->n, b->end, b->n * sizeof *out->values);
    (void)s;
}

void pcs_read_start(pcs *s, int p, size_t r, double *out)
{
    const pcs_port *port = &s->ports[p];
    const pcs_block *b = &s->blocks[port->read_block[r]];
    if (port->read_map[r] < 0)
        memcpy(out, b->start, b->n * sizeof *out);
    else
        apply_map(&s->maps[p][port->read_map[r]], b->components, b->start, out, port->reads[r].n);
}

static void fill_reads(pcs *s, int p)
{
    const pc_participant *pp = &s->cfg->participants[p];
    pcs_port *port = &s->ports[p];
    pcs_samples tmp = {0};
    for (size_t r = 0; r < pp->n_reads; r++) {
        const pcs_block *b = &s->blocks[port->read_block[r]];
        pcs_samples *out = &port->reads[r];
        if (port->read_map[r] < 0) {
            block_samples(s, b, port->window, out);
            continue;
        }
        block_samples(s, b, port->window, &tmp);
        const pcs_map *map = &s->maps[p][port->read_map[r]];
        pcs_samples_resize(out, out->n, tmp.n_samples);
        for (size_t i = 0; i < tmp.n_samples; i++) {
            out->times[i] = tmp.times[i];
            apply_map(map, b->components, tmp.values + i * tmp.n, out->values + i * out->n, out->n);
        }
    }
    pcs_samples_free(&tmp);
}

/* The flags and reads of participant p's next solve, in the window under way. */
static void prepare(pcs *s, int p)
{
    pcs_port *port = &s->ports[p];
    port->time = s->time;
    port->window = s->c.dt;
    port->ongoing = true;
    if (s->implicit && port->last_window == s->window) {
        port->read_checkpoint = true;
        port->write_checkpoint = false;
        port->complete = false;
    } else {
        port->read_checkpoint = false;
        port->write_checkpoint = s->implicit;
        port->complete = port->last_window >= 0;
        port->iterations = 0;
    }
    port->last_window = s->window;
    port->iterations++;
    fill_reads(s, p);
}

/* p's writes into the raw samples of the blocks it sends. */
static bool take_writes(pcs *s, int p)
{
    for (size_t e = 0; e < s->n_blocks; e++) {
        pcs_block *b = &s->blocks[e];
        if (b->from != p)
            continue;
        const pcs_samples *w = &s->ports[p].writes[b->write_index];
        size_t first = w->n_samples && w->times[0] <= 0 ? 1 : 0;   /* a sample at the window's start is not new */
        if (w->n_samples <= first) {
            pcs_fail(s, "participant %s wrote no value of data %s in the window", part_name(s, p),
                     data_name(s, b->data));
            return false;
        }
        pcs_samples_resize(&b->raw, b->n, w->n_samples - first);
        for (size_t i = first; i < w->n_samples; i++) {
            b->raw.times[i - first] = w->times[i];
            to_block(s, b, w->values + i * w->n, b->raw.values + (i - first) * b->n);
        }
        const double *last = b->raw.values + (b->raw.n_samples - 1) * b->n;
        for (size_t j = 0; j < b->n; j++)
            if (!isfinite(last[j])) {
                pcs_fail(s, "participant %s wrote a value that is not finite in data %s on mesh %s",
                         part_name(s, p), data_name(s, b->data), mesh_name(s, b->mesh));
                return false;
            }
    }
    return true;
}

static bool solve(pcs *s, const int *parts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        prepare(s, parts[i]);
    if (!s->io->solve(s->io_ctx, s, parts, n)) {
        if (!s->error[0])
            pcs_fail(s, "a participant failed");
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (!take_writes(s, parts[i]))
            return false;
    return true;
}

/* The blocks' end values from a scheme vector (weighted), and back from the writers' last samples. */
static void set_ends(pcs *s, bool x_part, const double *v)
{
    for (size_t e = 0; e < s->n_blocks; e++) {
        pcs_block *b = &s->blocks[e];
        if (s->serial && b->in_x != x_part)
            continue;
        for (size_t j = 0; j < b->n; j++)
            b->end[j] = v[b->offset + j] / b->weight;
    }
}

static void get_raw_ends(const pcs *s, bool x_part, double *v)
{
    memset(v, 0, s->n * sizeof *v);
    for (size_t e = 0; e < s->n_blocks; e++) {
        const pcs_block *b = &s->blocks[e];
        if (s->serial && b->in_x != x_part)
            continue;
        const double *last = b->raw.values + (b->raw.n_samples - 1) * b->n;
        for (size_t j = 0; j < b->n; j++)
            v[b->offset + j] = last[j] * b->weight;
    }
}

/* Serial: fluid = the first participant on X; parallel and multi: the identity. */
static seam_status op_fluid(void *ctx, const seam_coupling *c, const double *X, double *F)
{
    pcs *s = ctx;
    (void)c;
    if (!s->serial) {
        memcpy(F, X, s->n * sizeof *F);
        return SEAM_OK;
    }
    set_ends(s, true, X);
    int a = s->sc->first;
    if (!solve(s, &a, 1))
        return SEAM_ERROR;
    get_raw_ends(s, false, F);
    return SEAM_OK;
}

static seam_status op_solid(void *ctx, const seam_coupling *c, const double *F, double *X)
{
    pcs *s = ctx;
    (void)c;
    if (s->serial) {
        set_ends(s, false, F);
        int b = s->sc->second;
        if (!solve(s, &b, 1))
            return SEAM_ERROR;
        get_raw_ends(s, true, X);
        return SEAM_OK;
    }
    set_ends(s, true, F);
    const pc_scheme *sc = s->sc;
    if (!solve(s, sc->participants, sc->n_participants))
        return SEAM_ERROR;
    get_raw_ends(s, true, X);
    return SEAM_OK;
}

/* ---- the judge (preCICE's convergence measures, per data) ---------------- */

static double norm2_diff(const double *a, const double *b, size_t n, double w)
{
    double scale = 0, ssq = 1;   /* LAPACK's dnrm2 recurrence: no overflow on finite data */
    for (size_t i = 0; i < n; i++) {
        double d = fabs((a[i] - (b ? b[i] : 0.0)) / w);
        if (d == 0)
            continue;
        if (!isfinite(d))
            return NAN;
        if (scale < d) {
            ssq = 1 + ssq * (scale / d) * (scale / d);
            scale = d;
        } else {
            ssq += (d / scale) * (d / scale);
        }
    }
    return scale * sqrt(ssq);
}

/* Each iterated block's ||x~ - x|| (unscaled), and the residual-sum preconditioner's sums. */
static void block_residuals(pcs *s, const seam_iterate *it)
{
    double total = 0;
    for (size_t e = 0; e < s->n_blocks; e++) {
        pcs_block *b = &s->blocks[e];
        if (s->serial && !b->in_x)
            continue;
        b->res_norm = norm2_diff(it->X_new + b->offset, it->X_old + b->offset, b->n, b->weight);
        total += b->res_norm * b->res_norm;
    }
    total = sqrt(total);
    s->residual = total;
    for (size_t e = 0; e < s->n_blocks && total > 0 && isfinite(total); e++)
        if (!s->serial || s->blocks[e].in_x)
            s->blocks[e].res_sum += s->blocks[e].res_norm / total;
}

static const char *measure_abbrev(pc_measure_kind k)
{
    return k == PC_MEASURE_ABSOLUTE ? "Abs" : k == PC_MEASURE_RELATIVE ? "Rel" : "Drop";
}

/* What the convergence log shows: the absolute norm, or the ratio the measure compares to its limit. */
static double measure_logged(const pcs *s, size_t i)
{
    const pc_measure *m = &s->sc->measures[i];
    double v = s->measure_value[i];
    if (m->kind == PC_MEASURE_RELATIVE)
        return s->measure_norm[i] == 0 ? INFINITY : v / s->measure_norm[i];
    if (m->kind == PC_MEASURE_RESIDUAL_RELATIVE)
        return s->measure_first[i] == 0 ? INFINITY : v / s->measure_first[i];
    return v;
}

static bool measure_holds(const pcs *s, size_t i, int k)
{
    const pc_measure *m = &s->sc->measures[i];
    double v = s->measure_value[i];
    switch (m->kind) {
    case PC_MEASURE_ABSOLUTE: return v <= m->limit;
    case PC_MEASURE_RELATIVE: return v <= m->limit * s->measure_norm[i];
    case PC_MEASURE_RESIDUAL_RELATIVE: return v < m->limit * s->measure_first[i];
    case PC_MEASURE_MIN_ITERATIONS: return k >= m->min_iterations;
    }
    return false;
}

static void log_convergence(pcs *s, int k)
{
    FILE *f = s->convergence_log;
    if (!f)
        return;
    fprintf(f, "  %6ld  %6d", s->window + 1, k);
    for (size_t i = 0; i < s->sc->n_measures; i++)
        if (s->sc->measures[i].kind != PC_MEASURE_MIN_ITERATIONS)
            fprintf(f, "  %15.8e", measure_logged(s, i));
    fputc('\n', f);
    fflush(f);
}

static seam_verdict op_judge(void *ctx, seam_coupling *c, const seam_iterate *it)
{
    pcs *s = ctx;
    const pc_scheme *sc = s->sc;
    int k = c->judged;
    bool all = true, one_suffices = false, finite = true;
    size_t required = 0;
    block_residuals(s, it);
    for (size_t i = 0; i < sc->n_measures; i++) {
        const pc_measure *m = &sc->measures[i];
        if (s->measure_block[i] >= 0) {
            const pcs_block *b = &s->blocks[s->measure_block[i]];
            bool on_f = s->serial && !b->in_x;
            const double *nw = (on_f ? it->F : it->X_new) + b->offset;
            const double *old = (on_f ? it->F_prev : it->X_old) + b->offset;
            s->measure_value[i] = norm2_diff(nw, old, b->n, b->weight);
            s->measure_norm[i] = norm2_diff(nw, NULL, b->n, b->weight);
            if (k == 1)
                s->measure_first[i] = s->measure_value[i];
            finite = finite && isfinite(s->measure_value[i]);
            if (i == 0 || c->residual == 0) {
                c->residual = s->measure_value[i];
                if (k == 1)
                    c->first_residual = c->residual;
            }
        }
        bool holds = measure_holds(s, i, k);
        if (!m->suffices) {
            required++;
            all = all && holds;
        } else if (holds) {
            one_suffices = true;
        }
    }
    log_convergence(s, k);
    if (s->residuals_csv)
        fprintf(s->residuals_csv, "%ld,%d,%.17g\n", s->window, k, s->residual);
    if (!finite)
        return SEAM_DIVERGED;
    bool converged = sc->n_measures > 0 && ((required > 0 && all) || one_suffices) && k >= sc->min_iterations;
    if (converged)
        return SEAM_CONVERGED;
    return sc->max_iterations > 0 && k >= sc->max_iterations ? SEAM_EXHAUSTED : SEAM_ITERATE;
}

static void op_warn(void *ctx, const seam_coupling *c, const char *message)
{
    pcs *s = ctx;
    (void)c;
    fprintf(stderr, "seam: time window %ld: %s\n", s->window + 1, message);
}

static const seam_coupling_ops pcs_ops = {op_fluid, op_solid, op_judge, op_warn};

/* ---- the windows ---------------------------------------------------------- */

double pcs_window_size(const pcs *s, double t)
{
    const pc_scheme *sc = s->sc;
    if (sc->max_time_windows >= 0 && s->window >= sc->max_time_windows)
        return 0;
    double dt = sc->window_size;
    if (sc->max_time > 0) {
        double left = sc->max_time - t;
        if (left <= 1e-10 * sc->max_time)   /* preCICE's tolerance on reaching max-time, relative */
            return 0;
        if (left < dt)
            dt = left;
    }
    return dt;
}

/* The stacked window-start values (weighted) of X (or Z). */
static void stack_starts(const pcs *s, double *v)
{
    memset(v, 0, s->n * sizeof *v);
    for (size_t e = 0; e < s->n_blocks; e++) {
        const pcs_block *b = &s->blocks[e];
        if (s->serial && !b->in_x)
            continue;
        for (size_t j = 0; j < b->n; j++)
            v[b->offset + j] = b->start[j] * b->weight;
    }
}

/* The first iterate of window w: the stacked start values, or their
 * extrapolation in time (Lagrange through this start and the past ones,
 * at dt), weighted; then this start joins the past. */
static void predict(pcs *s, double dt, const double *U0, double *X_pred)
{
    int p = s->predictor < s->n_past ? s->predictor : s->n_past;
    double l[PREDICT_MAX_ORDER + 1];
    predict_weights(p, s->dt_past, dt, l);
    for (size_t e = 0; e < s->n_blocks; e++) {
        const pcs_block *b = &s->blocks[e];
        if (s->serial && !b->in_x)
            continue;
        for (size_t i = b->offset; i < b->offset + b->n; i++) {
            double x = l[0] * U0[i];
            for (int j = 1; j <= p; j++)
                x += l[j] * s->past[j - 1][i];
            X_pred[i] = x * b->weight;
        }
    }
}

/* The accepted window's start values join the past (newest first). */
static void remember(pcs *s, const double *U0, double dt)
{
    if (s->predictor <= 0)
        return;
    double *oldest = s->past[PCS_PAST - 1];
    memmove(s->past + 1, s->past, (PCS_PAST - 1) * sizeof *s->past);
    memmove(s->dt_past + 1, s->dt_past, (PCS_PAST - 1) * sizeof *s->dt_past);
    s->past[0] = oldest ? oldest : seam_xmalloc_n(s->n ? s->n : 1, sizeof *oldest);
    memcpy(s->past[0], U0, s->n * sizeof *U0);
    s->dt_past[0] = dt;
    if (s->n_past < PCS_PAST)
        s->n_past++;
}

/* A strict measure that did not hold when the iterations ran out ends the run. */
static bool check_strict(pcs *s)
{
    for (size_t i = 0; i < s->sc->n_measures; i++) {
        const pc_measure *m = &s->sc->measures[i];
        if (m->strict && !measure_holds(s, i, s->c.judged)) {
            if (m->kind == PC_MEASURE_MIN_ITERATIONS)
                continue;
            pcs_fail(s, "%s:%d: the strict %s convergence measure of data %s on mesh %s did not converge within "
                     "max-iterations %d (residual %.3e, limit %g)", s->cfg->path, m->line,
                     m->kind == PC_MEASURE_ABSOLUTE ? "absolute" : m->kind == PC_MEASURE_RELATIVE ? "relative"
                                                                                              : "residual-relative",
                     data_name(s, m->data), mesh_name(s, m->mesh), s->sc->max_iterations, measure_logged(s, i),
                     m->limit);
            return false;
        }
    }
    return true;
}

static void log_headers(pcs *s)
{
    if (s->stats_csv)
        fprintf(s->stats_csv, "step,t,dt,iterations,converged\n");
    if (s->residuals_csv)
        fprintf(s->residuals_csv, "step,iteration,residual\n");
    for (size_t p = 0; s->iterations_logs && p < s->cfg->n_participants; p++)
        if (s->iterations_logs[p]) {
            fprintf(s->iterations_logs[p], "  TimeWindow  TotalIterations  Iterations  Convergence\n");
            fflush(s->iterations_logs[p]);
        }
    if (s->convergence_log) {
        fprintf(s->convergence_log, "  TimeWindow  Iteration");
        for (size_t i = 0; i < s->sc->n_measures; i++) {
            const pc_measure *m = &s->sc->measures[i];
            if (m->kind != PC_MEASURE_MIN_ITERATIONS)
                fprintf(s->convergence_log, "  Res%s(%s:%s)", measure_abbrev(m->kind), mesh_name(s, m->mesh),
                        data_name(s, m->data));
        }
        fputc('\n', s->convergence_log);
        fflush(s->convergence_log);
    }
}

static bool finish(pcs *s)
{
    s->c.dt = 0;
    for (size_t p = 0; p < s->cfg->n_participants; p++) {
        pcs_port *port = &s->ports[p];
        port->time = s->time;
        port->window = 0;
        port->ongoing = false;
        port->complete = true;
        port->write_checkpoint = port->read_checkpoint = false;
        fill_reads(s, (int)p);
    }
    return !s->io->finish || s->io->finish(s->io_ctx, s);
}

bool pcs_run(pcs *s, const seam_scheme_ops *scheme, void *scheme_self, const pcs_transport *io, void *io_ctx)
{
    s->scheme = scheme;
    s->scheme_self = scheme_self;
    s->io = io;
    s->io_ctx = io_ctx;
    seam_coupling_init(&s->c, &pcs_ops, s, s->n, 1);
    size_t m = s->n ? s->n : 1;
    double *Xn = seam_xcalloc(4 * m, sizeof *Xn), *X_pred = Xn + m, *X_out = X_pred + m, *U0 = X_out + m;
    log_headers(s);
    bool ok = true;
    s->time = 0;
    s->window = -1;   /* the start: watch points write their first row */
    if (s->on_window)
        s->on_window(s->on_window_ctx, s);
    for (s->window = 0; ok; s->window++) {
        double dt = pcs_window_size(s, s->time);
        if (dt <= 0)
            break;
        for (size_t e = 0; e < s->n_blocks; e++) {   /* a window starts from the accepted values */
            pcs_block *b = &s->blocks[e];
            b->raw.n_samples = 0;
            memcpy(b->end, b->start, b->n * sizeof *b->end);
        }
        stack_starts(s, Xn);
        for (size_t e = 0; e < s->n_blocks; e++)   /* unscaled, for the predictor */
            for (size_t i = 0; i < s->blocks[e].n && (!s->serial || s->blocks[e].in_x); i++)
                U0[s->blocks[e].offset + i] = Xn[s->blocks[e].offset + i] / s->blocks[e].weight;
        memcpy(X_pred, Xn, s->n * sizeof *X_pred);
        predict(s, dt, U0, X_pred);
        seam_coupling_begin(&s->c, Xn, s->time, dt, s->window);
        seam_verdict verdict = SEAM_ITERATE;
        seam_status st = scheme->step(scheme_self, &s->c, X_pred, X_out, &verdict);
        if (st != SEAM_OK) {
            pcs_fail(s, "the coupling scheme %s failed", scheme->name);
            ok = false;
            break;
        }
        if (verdict == SEAM_DIVERGED) {
            pcs_fail(s, "the coupling iteration diverged: a residual is not finite");
            ok = false;
            break;
        }
        bool converged = verdict == SEAM_CONVERGED;
        if (verdict == SEAM_EXHAUSTED && !check_strict(s)) {
            ok = false;
            break;
        }
        if (verdict == SEAM_EXHAUSTED) {   /* accepted, as preCICE does, but never quietly */
            s->unconverged++;
            op_warn(s, &s->c, "not converged within max-iterations; accepted as preCICE does "
                              "(a strict convergence measure stops the run instead)");
        }
        seam_coupling_accept(&s->c);
        for (size_t e = 0; e < s->n_blocks; e++) {
            pcs_block *b = &s->blocks[e];
            if (b->raw.n_samples)
                memcpy(b->start, b->raw.values + (b->raw.n_samples - 1) * b->n, b->n * sizeof *b->start);
        }
        s->last_iterations = s->c.judged;
        s->total_iterations += s->c.judged;
        s->last_converged = converged || !s->implicit;
        for (size_t p = 0; s->iterations_logs && s->implicit && p < s->cfg->n_participants; p++)
            if (s->iterations_logs[p]) {
                fprintf(s->iterations_logs[p], "  %6ld  %6d  %6d  %6d\n", s->window + 1, s->total_iterations,
                        s->last_iterations, s->last_converged ? 1 : 0);
                fflush(s->iterations_logs[p]);
            }
        if (s->stats_csv)
            fprintf(s->stats_csv, "%ld,%.17g,%.17g,%d,%d\n", s->window, s->time + dt, dt, s->last_iterations,
                    s->last_converged ? 1 : 0);
        s->time += dt;
        remember(s, U0, dt);
        update_weights(s);
        if (s->on_window)
            s->on_window(s->on_window_ctx, s);
    }
    if (ok)
        ok = finish(s);
    free(Xn);
    seam_coupling_fini(&s->c);
    return ok;
}

/* ---- the scheme from the acceleration element ----------------------------- */

bool pcs_coupling_json(const precice_config *cfg, char *json, size_t n, char *err, size_t errlen)
{
    const pc_scheme *sc = &cfg->scheme;
    const pc_acceleration *a = &sc->acceleration;
    bool implicit = sc->kind == PC_SERIAL_IMPLICIT || sc->kind == PC_PARALLEL_IMPLICIT || sc->kind == PC_MULTI;
    if (!implicit) {
        if (a->kind != PC_ACCEL_NONE)
            return refuse(err, errlen, cfg, a->line, "acceleration",
                          "an explicit coupling scheme does not iterate: acceleration has nothing to act on");
        snprintf(json, n, "{\"scheme\": \"explicit\"}");
        return true;
    }
    switch (a->kind) {
    case PC_ACCEL_NONE:   /* plain fixed-point iteration */
        snprintf(json, n, "{\"scheme\": \"relaxation\", \"relaxation\": 1}");
        return true;
    case PC_ACCEL_CONSTANT:
        snprintf(json, n, "{\"scheme\": \"relaxation\", \"relaxation\": %.17g}", a->relaxation);
        return true;
    case PC_ACCEL_AITKEN:
        snprintf(json, n, "{\"scheme\": \"aitken\", \"relaxation\": %.17g}", a->relaxation > 0 ? a->relaxation : 0.5);
        return true;
    case PC_ACCEL_IQN_ILS:
    case PC_ACCEL_IQN_IMVJ:
        break;
    }
    /* QR3 (preCICE 3's default) applies QR2's test, only when the columns become ill-conditioned:
     * seam's filter applies it at every insertion, which removes the same kind of column */
    if (a->filter == PC_FILTER_QR1 || a->filter == PC_FILTER_QR1_ABSOLUTE)
        return refuse(err, errlen, cfg, a->line, "acceleration",
                      "<filter type=\"QR1%s\">: seam's quasi-Newton schemes filter as QR2 does (a column within relative "
                      "distance limit of the others' span goes); use type=\"QR2\" or \"QR3\"",
                      a->filter == PC_FILTER_QR1_ABSOLUTE ? "-absolute" : "");
    if (a->enforce_initial_relaxation)
        return refuse(err, errlen, cfg, a->line, "acceleration",
                      "<initial-relaxation enforce=\"true\">: seam's quasi-Newton schemes relax only while they hold no secant columns");
    int len = snprintf(json, n, "{\"scheme\": \"%s\", \"relaxation\": %.17g, \"filter\": %.17g",
                       a->kind == PC_ACCEL_IQN_ILS ? "iqn-ils" : "iqn-imvj", a->relaxation > 0 ? a->relaxation : 0.1,
                       a->filter == PC_FILTER_NONE ? 0.0 : a->filter_limit);
    if (a->max_used_iterations > 0)
        len += snprintf(json + len, n - (size_t)len, ", \"max_columns\": %d", a->max_used_iterations);
    if (a->time_windows_reused >= 0)
        len += snprintf(json + len, n - (size_t)len, ", \"reuse\": %d", a->time_windows_reused);
    if (a->kind == PC_ACCEL_IQN_IMVJ && a->imvj_restart_mode) {
        static const char *const from[] = {"no-restart", "RS-0", "RS-LS", "RS-SVD"};
        static const char *const to[] = {"none", "rs-0", "rs-ls", "rs-svd"};
        int r = -1;
        for (int i = 0; i < 4; i++)
            if (strcmp(a->imvj_restart_mode, from[i]) == 0)
                r = i;
        if (r < 0)
            return refuse(err, errlen, cfg, a->line, "acceleration",
                          "<imvj-restart-mode type=\"%s\">: seam's iqn-imvj restarts with no-restart, RS-0, RS-LS or RS-SVD",
                          a->imvj_restart_mode);
        len += snprintf(json + len, n - (size_t)len, ", \"restart\": \"%s\"", to[r]);
        if (r > 0 && a->imvj_chunk_size > 0)
            len += snprintf(json + len, n - (size_t)len, ", \"chunk\": %d", a->imvj_chunk_size);
        if (r == 2 && a->imvj_reused_time_windows_at_restart > 0)
            len += snprintf(json + len, n - (size_t)len, ", \"restart_reuse\": %d",
                            a->imvj_reused_time_windows_at_restart);
        if (r == 3 && a->imvj_truncation_threshold > 0)
            len += snprintf(json + len, n - (size_t)len, ", \"truncation\": %.17g", a->imvj_truncation_threshold);
    }
    if ((size_t)len + 2 > n)
        return refuse(err, errlen, cfg, a->line, "acceleration", "too many keys");
    snprintf(json + len, n - (size_t)len, "}");
    return true;
}
