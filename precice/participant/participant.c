/* The participant's life cycle: construction (configuration, coupler,
 * hello), initialize, advance with subcycling inside a window, finalize;
 * the step replies set the window, the checkpoints and the read samples
 * (precice/PROTOCOL.md). */
#include "participant.h"

#include <fenv.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <seam/alloc.h>

#include "message.h"

#define WIRE_VERSION 1

_Noreturn void participant_fail(const participant *pt, const char *call, const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "preCICE (seam): ERROR: participant %s, %s: %s\n", pt && pt->name ? pt->name : "(none)",
            call, msg);
    fflush(NULL);
    exit(1);
}

/* Two times in a window closer than this are one time. */
static double time_tolerance(double window)
{
    return 1e-12 * (window > 1.0 ? window : 1.0);
}

/* An absolute path: relative ones are taken from the working directory. */
static char *absolute(const char *path)
{
    if (path[0] == '/')
        return seam_xstrdup(path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, ".");
    size_t n = strlen(cwd) + strlen(path) + 2;
    char *out = seam_xmalloc(n);
    snprintf(out, n, "%s%s%s", cwd, path[0] ? "/" : "", path);
    return out;
}

static bool request(participant *pt, const char *call, msgpack_sbuffer *buf, msgpack_unpacked *reply)
{
    char err[4096];
    bool ok = precice_link_request(pt->link, buf, reply, err, sizeof err);
    msgpack_sbuffer_destroy(buf);
    if (!ok)
        participant_fail(pt, call, "%s", err);
    return true;
}

static void hello(participant *pt, const char *config_path, const char *hash, int rank, int size)
{
    msgpack_sbuffer buf;
    msgpack_packer pk;
    msgpack_sbuffer_init(&buf);
    msgpack_packer_init(&pk, &buf, msgpack_sbuffer_write);
    char host[256], cwd[PATH_MAX];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = '\0';
    msgpack_pack_map(&pk, 10);
    msg_str(&pk, "op"); msg_str(&pk, "hello");
    msg_str(&pk, "participant"); msg_str(&pk, pt->name);
    msg_str(&pk, "rank"); msgpack_pack_int(&pk, rank);
    msg_str(&pk, "size"); msgpack_pack_int(&pk, size);
    msg_str(&pk, "pid"); msgpack_pack_long(&pk, (long)getpid());
    msg_str(&pk, "host"); msg_str(&pk, host);
    msg_str(&pk, "cwd"); msg_str(&pk, cwd);
    msg_str(&pk, "config"); msg_str(&pk, hash);
    msg_str(&pk, "config_path"); msg_str(&pk, config_path);
    msg_str(&pk, "wire"); msgpack_pack_int(&pk, WIRE_VERSION);
    msgpack_unpacked reply;
    request(pt, "createParticipant", &buf, &reply);
    msgpack_unpacked_destroy(&reply);
}

participant *participant_create(const char *name, const char *config_path, int rank, int size,
                                bool with_communicator)
{
    participant *pt = SEAM_NEW(participant);
    pt->name = seam_xstrdup(name ? name : "(null)");
    const char *call = with_communicator ? "createParticipant (with communicator)" : "createParticipant";
    if (!name || !config_path)
        participant_fail(pt, call, "the participant or configuration name is NULL");
    // every rank of a parallel participant connects to the coupler on its own
    // and hands it its own vertices; the coupler orders them by rank
    if (size < 1 || rank < 0 || rank >= size)
        participant_fail(pt, call, "rank %d of %d is not a process of the participant", rank, size);
    char err[4096];
    // libxml2 computes its NaN and infinities as 0/0 and 1/0 when it first
    // parses: under a solver that traps floating-point exceptions (OpenFOAM's
    // FOAM_SIGFPE) that is a SIGFPE, so traps are held off while it reads
    fenv_t caller_fenv;
    feholdexcept(&caller_fenv);
    pt->config = precice_config_load(config_path, err, sizeof err, NULL, NULL);
    fesetenv(&caller_fenv);
    if (!pt->config)
        participant_fail(pt, call, "%s", err);
    pt->p = precice_config_participant(pt->config, name);
    if (pt->p < 0)
        participant_fail(pt, call, "%s names no participant \"%s\"", config_path, name);
    participant_build_meshes(pt);
    char hash[17];
    char *config_abs = absolute(config_path);
    char *exchange = absolute(precice_config_exchange_directory(pt->config, pt->p));
    if (!precice_link_config_hash(config_abs, hash, err, sizeof err))
        participant_fail(pt, call, "%s", err);
    pt->link = precice_link_open(config_abs, hash, exchange, err, sizeof err);
    if (!pt->link)
        participant_fail(pt, call, "%s", err);
    hello(pt, config_abs, hash, rank, size);
    free(config_abs);
    free(exchange);
    pt->ongoing = true;
    return pt;
}

bool participant_requires_initial_data(const participant *pt)
{
    for (size_t i = 0; i < pt->n_data; i++)
        if (pt->data[i].write && pt->data[i].initial)
            return true;
    return false;
}

static pdata *find_read(const participant *pt, const char *mesh, const char *data)
{
    for (size_t i = 0; i < pt->n_data; i++) {
        pdata *d = &pt->data[i];
        if (!d->write && strcmp(pt->meshes[d->mesh].name, mesh) == 0 && strcmp(d->name, data) == 0)
            return d;
    }
    return NULL;
}

/* One entry of a step reply's "read": the samples of a data this participant reads. */
static void take_read(participant *pt, const char *call, const msgpack_object *entry)
{
    char mesh[256], data[256];
    if (!msg_string(entry, "mesh", mesh, sizeof mesh) || !msg_string(entry, "data", data, sizeof data))
        participant_fail(pt, call, "the coupler sent a read entry without mesh or data");
    pdata *d = find_read(pt, mesh, data);
    if (!d)
        participant_fail(pt, call, "the coupler sent data \"%s\" on mesh \"%s\", which this participant "
                         "does not read", data, mesh);
    const pmesh *m = &pt->meshes[d->mesh];
    double *times = NULL;
    size_t n_times = 0;
    const msgpack_object *values = msg_get(entry, "values");
    if (!msg_f64_array(msg_get(entry, "times"), &times, &n_times) || n_times == 0 || !values ||
        values->type != MSGPACK_OBJECT_ARRAY || values->via.array.size != n_times)
        participant_fail(pt, call, "the coupler sent data \"%s\" on mesh \"%s\" without matching times and "
                         "values", data, mesh);
    size_t per_sample = m->n * (size_t)d->components;
    double *all = seam_xmalloc_n(n_times * (per_sample ? per_sample : 1), sizeof(double));
    for (size_t s = 0; s < n_times; s++) {
        double *v = NULL;
        size_t n = 0;
        if (!msg_f64_array(&values->via.array.ptr[s], &v, &n) || n != per_sample)
            participant_fail(pt, call, "the coupler sent %zu values of data \"%s\" on mesh \"%s\" where %zu "
                             "vertices x %d components were expected", n, data, mesh, m->n, d->components);
        memcpy(all + s * per_sample, v, per_sample * sizeof(double));
        free(v);
    }
    precice_waveform_set(&d->wave, n_times, times, per_sample, all);
    free(times);
    free(all);
}

/* The fields of a step reply: the window to solve and what to do first. */
static void take_step(participant *pt, const char *call, const msgpack_object *r)
{
    double time = 0.0, window = 0.0;
    bool ongoing = false, complete = false, wc = false, rc = false;
    if (!msg_double(r, "time", &time) || !msg_double(r, "window", &window) || !msg_bool(r, "ongoing", &ongoing) ||
        !msg_bool(r, "complete", &complete) || !msg_bool(r, "write_checkpoint", &wc) ||
        !msg_bool(r, "read_checkpoint", &rc))
        participant_fail(pt, call, "the coupler's step reply lacks time, window, ongoing, complete or a "
                         "checkpoint flag");
    if (ongoing && !(window > 0.0))
        participant_fail(pt, call, "the coupler sent a window of %g s while the coupling goes on", window);
    pt->time = time;
    pt->window = window;
    pt->t_in = 0.0;
    pt->ongoing = ongoing;
    pt->complete = complete;
    pt->write_checkpoint = wc;
    pt->read_checkpoint = rc;
    const msgpack_object *reads = msg_get(r, "read");
    if (reads && reads->type == MSGPACK_OBJECT_ARRAY)
        for (uint32_t i = 0; i < reads->via.array.size; i++)
            take_read(pt, call, &reads->via.array.ptr[i]);
    for (size_t i = 0; i < pt->n_data; i++)
        pt->data[i].n_samples = 0;
}

static void pack_cells(msgpack_packer *pk, const char *key, const int_list *l)
{
    msg_str(pk, key);
    msg_i32(pk, l->v, l->n);
}

static void pack_meshes(const participant *pt, msgpack_packer *pk)
{
    size_t n = 0;
    for (size_t i = 0; i < pt->n_meshes; i++)
        n += pt->meshes[i].provided;
    msg_str(pk, "meshes");
    msgpack_pack_array(pk, n);
    for (size_t i = 0; i < pt->n_meshes; i++) {
        const pmesh *m = &pt->meshes[i];
        if (!m->provided)
            continue;
        msgpack_pack_map(pk, 6);
        msg_str(pk, "name"); msg_str(pk, m->name);
        msg_str(pk, "coords"); msg_f64(pk, m->coords, m->n * (size_t)m->dim);
        pack_cells(pk, "edges", &m->edges);
        pack_cells(pk, "triangles", &m->triangles);
        pack_cells(pk, "quads", &m->quads);
        pack_cells(pk, "tetrahedra", &m->tetrahedra);
    }
}

static void pack_regions(const participant *pt, msgpack_packer *pk)
{
    size_t n = 0;
    for (size_t i = 0; i < pt->n_meshes; i++) {
        const pmesh *m = &pt->meshes[i];
        if (m->direct_access && !m->has_region)
            participant_fail(pt, "initialize", "received mesh \"%s\" has direct access but no "
                             "setMeshAccessRegion() before initialize()", m->name);
        n += m->direct_access;
    }
    msg_str(pk, "regions");
    msgpack_pack_array(pk, n);
    for (size_t i = 0; i < pt->n_meshes; i++) {
        const pmesh *m = &pt->meshes[i];
        if (!m->direct_access)
            continue;
        msgpack_pack_map(pk, 2);
        msg_str(pk, "mesh"); msg_str(pk, m->name);
        msg_str(pk, "box"); msg_f64(pk, m->region, 2 * (size_t)m->dim);
    }
}

static void pack_initial_data(const participant *pt, msgpack_packer *pk)
{
    size_t n = 0;
    for (size_t i = 0; i < pt->n_data; i++)
        n += pt->data[i].write && pt->data[i].initial;
    msg_str(pk, "data");
    msgpack_pack_array(pk, n);
    for (size_t i = 0; i < pt->n_data; i++) {
        const pdata *d = &pt->data[i];
        if (!d->write || !d->initial)
            continue;
        msgpack_pack_map(pk, 3);
        msg_str(pk, "mesh"); msg_str(pk, pt->meshes[d->mesh].name);
        msg_str(pk, "data"); msg_str(pk, d->name);
        msg_str(pk, "values"); msg_f64(pk, d->values, d->n_values);
    }
}

/* A received mesh with direct access: the vertices in the region. */
static void take_received(participant *pt, const msgpack_object *entry)
{
    char name[256];
    if (!msg_string(entry, "mesh", name, sizeof name))
        participant_fail(pt, "initialize", "the coupler sent a received mesh without a name");
    pmesh *m = participant_mesh(pt, "initialize", name);
    size_t n_ids = 0, n_coords = 0;
    free(m->ids); free(m->coords);
    m->ids = NULL; m->coords = NULL;
    if (!msg_i32_array(msg_get(entry, "ids"), &m->ids, &n_ids) ||
        !msg_f64_array(msg_get(entry, "coords"), &m->coords, &n_coords) || n_coords != n_ids * (size_t)m->dim)
        participant_fail(pt, "initialize", "the coupler sent mesh \"%s\" with %zu ids and %zu coordinates",
                         name, n_ids, n_coords);
    m->n = m->cap = n_ids;
    mesh_index_received(m);
}

void participant_initialize(participant *pt)
{
    if (pt->state != PARTICIPANT_CREATED)
        participant_fail(pt, "initialize", "initialize() is called once, after construction");
    for (size_t i = 0; i < pt->n_data; i++)   /* unwritten values are zero, as in preCICE */
        if (pt->data[i].write && pt->meshes[pt->data[i].mesh].provided)
            data_write(pt, "initialize", &pt->data[i], &pt->meshes[pt->data[i].mesh], 0, NULL, NULL);
    msgpack_sbuffer buf;
    msgpack_packer pk;
    msgpack_sbuffer_init(&buf);
    msgpack_packer_init(&pk, &buf, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 4);
    msg_str(&pk, "op"); msg_str(&pk, "initialize");
    pack_meshes(pt, &pk);
    pack_regions(pt, &pk);
    pack_initial_data(pt, &pk);
    msgpack_unpacked reply;
    request(pt, "initialize", &buf, &reply);
    const msgpack_object *received = msg_get(&reply.data, "received");
    if (received && received->type == MSGPACK_OBJECT_ARRAY)
        for (uint32_t i = 0; i < received->via.array.size; i++)
            take_received(pt, &received->via.array.ptr[i]);
    for (size_t i = 0; i < pt->n_data; i++)   /* written values on received meshes: sized now */
        if (pt->data[i].write)
            data_write(pt, "initialize", &pt->data[i], &pt->meshes[pt->data[i].mesh], 0, NULL, NULL);
    pt->state = PARTICIPANT_INITIALIZED;
    take_step(pt, "initialize", &reply.data);
    msgpack_unpacked_destroy(&reply);
}

double participant_max_time_step(const participant *pt)
{
    double left = pt->window - pt->t_in;
    return left > 0.0 ? left : 0.0;
}

static void pack_writes(const participant *pt, msgpack_packer *pk)
{
    size_t n = 0;
    for (size_t i = 0; i < pt->n_data; i++)
        n += pt->data[i].write;
    msg_str(pk, "writes");
    msgpack_pack_array(pk, n);
    for (size_t i = 0; i < pt->n_data; i++) {
        const pdata *d = &pt->data[i];
        if (!d->write)
            continue;
        msgpack_pack_map(pk, 4);
        msg_str(pk, "mesh"); msg_str(pk, pt->meshes[d->mesh].name);
        msg_str(pk, "data"); msg_str(pk, d->name);
        msg_str(pk, "times"); msg_f64(pk, d->sample_times, d->n_samples);
        msg_str(pk, "values");
        msgpack_pack_array(pk, d->n_samples);
        for (size_t s = 0; s < d->n_samples; s++)
            msg_f64(pk, d->sample_values + s * d->n_values, d->n_values);
    }
}

void participant_advance(participant *pt, double dt)
{
    if (pt->state != PARTICIPANT_INITIALIZED)
        participant_fail(pt, "advance", "advance() comes after initialize() and before finalize()");
    if (!pt->ongoing)
        participant_fail(pt, "advance", "the coupling has ended (isCouplingOngoing() is false)");
    double max = participant_max_time_step(pt), tol = time_tolerance(pt->window);
    if (!(dt > 0.0))
        participant_fail(pt, "advance", "the time step size %g is not positive", dt);
    if (dt > max + tol)
        participant_fail(pt, "advance", "the time step size %.17g exceeds getMaxTimeStepSize() = %.17g", dt, max);
    pt->t_in += dt;
    bool window_end = pt->window - pt->t_in <= tol;
    if (window_end)
        pt->t_in = pt->window;   /* the last sample sits exactly at the window's end */
    for (size_t i = 0; i < pt->n_data; i++)
        if (pt->data[i].write)
            data_keep_sample(&pt->data[i], pt->t_in);
    pt->write_checkpoint = pt->read_checkpoint = false;
    if (!window_end) {   /* subcycling: the coupler hears of it at the window's end */
        pt->complete = false;
        return;
    }
    msgpack_sbuffer buf;
    msgpack_packer pk;
    msgpack_sbuffer_init(&buf);
    msgpack_packer_init(&pk, &buf, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 3);
    msg_str(&pk, "op"); msg_str(&pk, "advance");
    msg_str(&pk, "dt"); msgpack_pack_double(&pk, pt->window);
    pack_writes(pt, &pk);
    msgpack_unpacked reply;
    request(pt, "advance", &buf, &reply);
    take_step(pt, "advance", &reply.data);
    msgpack_unpacked_destroy(&reply);
}

void participant_finalize(participant **pt_p)
{
    participant *pt = *pt_p;
    if (!pt)
        return;
    if (pt->link) {
        msgpack_sbuffer buf;
        msgpack_packer pk;
        msgpack_sbuffer_init(&buf);
        msgpack_packer_init(&pk, &buf, msgpack_sbuffer_write);
        msgpack_pack_map(&pk, 1);
        msg_str(&pk, "op"); msg_str(&pk, "finalize");
        msgpack_unpacked reply;
        request(pt, "finalize", &buf, &reply);
        msgpack_unpacked_destroy(&reply);
        precice_link_close(&pt->link);
    }
    participant_free_meshes(pt);
    precice_config_destroy(&pt->config);
    free(pt->name);
    free(pt);
    *pt_p = NULL;
}
