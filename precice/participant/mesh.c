/* A participant's meshes (vertices, connectivity) and data buffers, and
 * the checks preCICE makes on every access to them. */
#include "participant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <seam/alloc.h>

static void add_mesh(participant *pt, int mesh, bool provided, bool direct_access)
{
    const pc_mesh *cm = &pt->config->meshes[mesh];
    pt->meshes = seam_xrealloc_n(pt->meshes, pt->n_meshes + 1, sizeof *pt->meshes);
    pmesh *m = &pt->meshes[pt->n_meshes++];
    memset(m, 0, sizeof *m);
    m->mesh = mesh;
    m->name = cm->name;
    m->dim = cm->dim;
    m->provided = provided;
    m->direct_access = direct_access;
}

static size_t mesh_slot(const participant *pt, int mesh, int line)
{
    for (size_t i = 0; i < pt->n_meshes; i++)
        if (pt->meshes[i].mesh == mesh)
            return i;
    participant_fail(pt, "createParticipant", "%s:%d: data on mesh \"%s\", which the participant neither "
                     "provides nor receives", pt->config->path, line, pt->config->meshes[mesh].name);
}

/* Does the participant send data d with the given exchange property? */
static bool exchanged(const participant *pt, int d, bool want_substeps, bool want_initialize)
{
    const pc_scheme *s = &pt->config->scheme;
    for (size_t i = 0; i < s->n_exchanges; i++) {
        const pc_exchange *e = &s->exchanges[i];
        if (e->data != d || e->from != pt->p)
            continue;
        if ((want_substeps && e->substeps) || (want_initialize && e->initialize))
            return true;
    }
    return false;
}

static void add_data(participant *pt, const pc_data_use *use, bool write)
{
    const pc_data *cd = &pt->config->data[use->data];
    size_t slot = mesh_slot(pt, use->mesh, use->line);
    pt->data = seam_xrealloc_n(pt->data, pt->n_data + 1, sizeof *pt->data);
    pdata *d = &pt->data[pt->n_data++];
    memset(d, 0, sizeof *d);
    d->data = use->data;
    d->mesh = slot;
    d->name = cd->name;
    d->components = cd->vector ? pt->meshes[slot].dim : 1;
    d->write = write;
    d->degree = cd->waveform_degree;
    d->substeps = write && exchanged(pt, use->data, true, false);
    d->initial = write && exchanged(pt, use->data, false, true);
}

void participant_build_meshes(participant *pt)
{
    const pc_participant *cp = &pt->config->participants[pt->p];
    for (size_t i = 0; i < cp->n_provide; i++)
        add_mesh(pt, cp->provide[i], true, false);
    for (size_t i = 0; i < cp->n_receive; i++)
        add_mesh(pt, cp->receive[i].mesh, false, cp->receive[i].direct_access);
    for (size_t i = 0; i < cp->n_writes; i++)
        add_data(pt, &cp->writes[i], true);
    for (size_t i = 0; i < cp->n_reads; i++)
        add_data(pt, &cp->reads[i], false);
}

pmesh *participant_mesh(const participant *pt, const char *call, const char *mesh)
{
    if (!mesh)
        participant_fail(pt, call, "the mesh name is NULL");
    for (size_t i = 0; i < pt->n_meshes; i++)
        if (strcmp(pt->meshes[i].name, mesh) == 0)
            return &pt->meshes[i];
    participant_fail(pt, call, "the participant neither provides nor receives a mesh \"%s\" in %s", mesh,
                     pt->config->path);
}

pmesh *participant_provided_mesh(const participant *pt, const char *call, const char *mesh)
{
    pmesh *m = participant_mesh(pt, call, mesh);
    if (!m->provided)
        participant_fail(pt, call, "mesh \"%s\" is received, not provided, by this participant: "
                         "only provided meshes are defined through the API", mesh);
    if (pt->state != PARTICIPANT_CREATED)
        participant_fail(pt, call, "mesh \"%s\" is defined before initialize(), not after", mesh);
    return m;
}

pdata *participant_data(const participant *pt, const char *call, const char *mesh, const char *data,
                        bool write)
{
    pmesh *m = participant_mesh(pt, call, mesh);
    if (!data)
        participant_fail(pt, call, "the data name is NULL");
    for (size_t i = 0; i < pt->n_data; i++) {
        pdata *d = &pt->data[i];
        if (d->write == write && &pt->meshes[d->mesh] == m && strcmp(d->name, data) == 0)
            return d;
    }
    participant_fail(pt, call, "the participant has no <%s-data name=\"%s\" mesh=\"%s\"/> in %s",
                     write ? "write" : "read", data, mesh, pt->config->path);
}

int participant_data_dimensions(const participant *pt, const char *call, const char *mesh,
                                const char *data)
{
    const pmesh *m = participant_mesh(pt, call, mesh);
    const pc_mesh *cm = &pt->config->meshes[m->mesh];
    for (size_t i = 0; data && i < cm->n_use_data; i++) {
        const pc_data *cd = &pt->config->data[cm->use_data[i]];
        if (strcmp(cd->name, data) == 0)
            return cd->vector ? m->dim : 1;
    }
    participant_fail(pt, call, "mesh \"%s\" uses no data \"%s\" in %s", mesh, data ? data : "(null)",
                     pt->config->path);
}

/* Nearest-projection mappings project onto the mesh's edges or faces. */
bool participant_connectivity_required(const participant *pt, const pmesh *m)
{
    const precice_config *c = pt->config;
    for (size_t p = 0; p < c->n_participants; p++)
        for (size_t i = 0; i < c->participants[p].n_mappings; i++) {
            const pc_mapping *map = &c->participants[p].mappings[i];
            if (map->method == PC_MAP_NEAREST_PROJECTION && (map->from == m->mesh || map->to == m->mesh))
                return true;
        }
    return false;
}

int mesh_add_vertex(pmesh *m, const double *x)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->coords = seam_xrealloc_n(m->coords, m->cap, (size_t)m->dim * sizeof(double));
    }
    memcpy(m->coords + m->n * (size_t)m->dim, x, (size_t)m->dim * sizeof(double));
    return (int)m->n++;
}

void mesh_add_cells(const participant *pt, const char *call, pmesh *m, int_list *list, int per_cell,
                    const int *ids, size_t n_cells)
{
    size_t n = n_cells * (size_t)per_cell;
    if (n && !ids)
        participant_fail(pt, call, "the vertex ids are NULL");
    for (size_t i = 0; i < n; i++)
        if (ids[i] < 0 || (size_t)ids[i] >= m->n)
            participant_fail(pt, call, "vertex id %d is not a vertex of mesh \"%s\" (it has %zu)", ids[i],
                             m->name, m->n);
    if (list->n + n > list->cap) {
        list->cap = 2 * (list->n + n);
        list->v = seam_xrealloc_n(list->v, list->cap, sizeof(int));
    }
    memcpy(list->v + list->n, ids, n * sizeof(int));
    list->n += n;
}

/* A received mesh's positions in ascending id order (the coupler's order
 * is kept for values): a binary search instead of a scan per vertex. */
static const pmesh *sort_mesh;
static int by_id(const void *a, const void *b)
{
    int ia = sort_mesh->ids[*(const size_t *)a], ib = sort_mesh->ids[*(const size_t *)b];
    return (ia > ib) - (ia < ib);
}

void mesh_index_received(pmesh *m)
{
    free(m->by_id);
    m->by_id = seam_xmalloc_n(m->n ? m->n : 1, sizeof(size_t));
    for (size_t i = 0; i < m->n; i++)
        m->by_id[i] = i;
    sort_mesh = m;
    qsort(m->by_id, m->n, sizeof *m->by_id, by_id);
}

size_t mesh_position(const participant *pt, const char *call, const pmesh *m, int id)
{
    if (m->provided) {
        if (id < 0 || (size_t)id >= m->n)
            participant_fail(pt, call, "vertex id %d is not a vertex of mesh \"%s\" (it has %zu)", id,
                             m->name, m->n);
        return (size_t)id;
    }
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->ids[m->by_id[mid]] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == m->n || m->ids[m->by_id[lo]] != id)
        participant_fail(pt, call, "vertex id %d is not in the access region of mesh \"%s\"", id, m->name);
    return m->by_id[lo];
}

static void size_values(pdata *d, const pmesh *m)
{
    size_t n = m->n * (size_t)d->components;
    if (n > d->n_values) {
        d->values = seam_xrealloc_n(d->values, n, sizeof(double));
        memset(d->values + d->n_values, 0, (n - d->n_values) * sizeof(double));
        d->n_values = n;
    }
}

void data_write(const participant *pt, const char *call, pdata *d, const pmesh *m, size_t n,
                const int *ids, const double *values)
{
    if (n && (!ids || !values))
        participant_fail(pt, call, "the vertex ids or values are NULL");
    size_values(d, m);
    size_t c = (size_t)d->components;
    for (size_t k = 0; k < n; k++) {
        size_t pos = mesh_position(pt, call, m, ids[k]);
        for (size_t j = 0; j < c; j++) {
            double v = values[k * c + j];
            if (!isfinite(v))
                participant_fail(pt, call, "value %g of vertex %d of data \"%s\" is not finite", v, ids[k],
                                 d->name);
            d->values[pos * c + j] = v;
        }
    }
}

void data_read(const participant *pt, const char *call, const pdata *d, const pmesh *m, size_t n,
               const int *ids, double t, double *values)
{
    if (n && (!ids || !values))
        participant_fail(pt, call, "the vertex ids or values are NULL");
    if (d->wave.n_samples == 0)
        participant_fail(pt, call, "the coupler sent no values of data \"%s\" on mesh \"%s\"", d->name, m->name);
    size_t c = (size_t)d->components;
    size_t *index = seam_xmalloc_n(n * c > 0 ? n * c : 1, sizeof(size_t));
    for (size_t k = 0; k < n; k++) {
        size_t pos = mesh_position(pt, call, m, ids[k]);
        for (size_t j = 0; j < c; j++)
            index[k * c + j] = pos * c + j;
    }
    if (n)
        precice_waveform_eval(&d->wave, d->degree, t, index, n * c, values);
    free(index);
}

void data_keep_sample(pdata *d, double t)
{
    if (!d->substeps)
        d->n_samples = 0;   /* only the window's last sample is sent */
    d->sample_times = seam_xrealloc_n(d->sample_times, d->n_samples + 1, sizeof(double));
    d->sample_values = seam_xrealloc_n(d->sample_values, (d->n_samples + 1) * (d->n_values ? d->n_values : 1),
                                       sizeof(double));
    d->sample_times[d->n_samples] = t;
    if (d->n_values)   /* a rank with no vertices has no values (and may have no array) */
        memcpy(d->sample_values + d->n_samples * d->n_values, d->values, d->n_values * sizeof(double));
    d->n_samples++;
}

void participant_free_meshes(participant *pt)
{
    for (size_t i = 0; i < pt->n_meshes; i++) {
        pmesh *m = &pt->meshes[i];
        free(m->coords); free(m->ids); free(m->by_id);
        free(m->edges.v); free(m->triangles.v); free(m->quads.v); free(m->tetrahedra.v);
    }
    for (size_t i = 0; i < pt->n_data; i++) {
        pdata *d = &pt->data[i];
        free(d->values); free(d->sample_times); free(d->sample_values);
        precice_waveform_clear(&d->wave);
    }
    free(pt->meshes); free(pt->data);
    pt->meshes = NULL; pt->data = NULL;
    pt->n_meshes = pt->n_data = 0;
}
