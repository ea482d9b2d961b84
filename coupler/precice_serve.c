/* The coupler side of seam's preCICE participant protocol (precice_serve.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

#include "config.h"
#include "precice_couple.h"
#include "precice_serve.h"
#include "report.h"
#include "scheme.h"
#include "seam/alloc.h"
#include "seam/config.h"
#include "seam/meshmap.h"
#include "wire.h"

#define WIRE 1
#define POLL_MS 1000   /* liveness is checked this often while waiting */

bool seam_precice_is_config(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 4 && strcmp(path + n - 4, ".xml") == 0;
}

bool seam_precice_config_key(const char *path, char key[17])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    uint64_t h = 0xcbf29ce484222325ull;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++) {
            h ^= buf[i];
            h *= 0x100000001b3ull;
        }
    bool ok = !ferror(f);
    fclose(f);
    snprintf(key, 17, "%016llx", (unsigned long long)h);
    return ok;
}

/* ---- state ---------------------------------------------------------------- */

typedef struct region {
    bool on;
    double box[6];               /* min and max per coordinate, as setMeshAccessRegion gives them */
    int32_t *ids;                /* vertices of the received mesh inside the box */
    size_t n;
} region;

/* One process of a participant: rank r of its size (one for a serial
 * participant). Every rank connects on its own and holds its own request. */
typedef struct rank_conn {
    bool hello, initialized, finalized, pending, advanced;
    uint8_t id[256];             /* ROUTER identity */
    size_t id_len;
    char op[16];                 /* the request awaiting its reply */
    long pid;
    char host[256];
    char cwd[PATH_MAX];
    uint8_t *held;               /* its initialize or advance, kept until every rank sent its own */
    size_t held_len;
    double watch_since, watch_cpu;   /* a sibling waits on it since (monotonic s; 0: none), its CPU time then */
    size_t advances;             /* traffic of the coupling iterations: advance requests */
    size_t bytes_in, bytes_out;  /* their bytes, and those of the step replies to them */
} rank_conn;

typedef struct part {
    int size;                    /* ranks (0 until the first hello) */
    rank_conn *ranks;
    bool initialized, advanced;  /* every rank's request absorbed */
    /* Provided meshes: rank r's vertices are first[m][r] .. first[m][r+1]-1
     * of the global mesh, which orders them by rank, then local index. */
    size_t **first;
    region *regions;             /* per mesh */
    double **initial;            /* per write: initial data (NULL: none) */
    size_t *n_initial;           /* and its count */
} part;

/* A watch point: a row per time window in its participant's working directory. */
typedef struct watch {
    FILE *f;
    int p, mesh;
    const char *name;
    seam_csr *M;                 /* 1 row: the point from the mesh's nearest element or vertex */
} watch;

typedef struct server {
    const precice_config *cfg;
    pcs s;
    void *zctx, *sock;
    char key[17];
    char host[256];
    char run_dir[PATH_MAX + 16];   /* DIR/precice-run */
    char json_path[PATH_MAX + 48];
    part *parts;
    watch *watches;
    size_t n_watches;
    char out[PATH_MAX];          /* seam's own outputs: stats.csv, residuals.csv, probes.csv, the report */
    FILE *probes;
    bool quiet;
    bool spawned;                /* started by a participant (--precice-serve) */
    double hang_s;               /* a rank idle this long while a sibling waits is hung */
} server;

static volatile sig_atomic_t stop_signal;
static void on_stop(int sig) { stop_signal = sig; }

static const char *pname(const server *sv, int p) { return sv->cfg->participants[p].name; }

/* ---- ranks ----------------------------------------------------------------- */

/* "NAME" for a serial participant, "NAME rank R" for one of several ranks. */
static const char *who(const server *sv, int p, int r, char *buf, size_t len)
{
    if (sv->parts[p].size <= 1)
        snprintf(buf, len, "%s", pname(sv, p));
    else
        snprintf(buf, len, "%s rank %d", pname(sv, p), r);
    return buf;
}

/* Whether participant p provides mesh m (then its ranks own slices of it). */
static bool provides(const server *sv, int p, int m)
{
    const pc_participant *pp = &sv->cfg->participants[p];
    for (size_t i = 0; i < pp->n_provide; i++)
        if (pp->provide[i] == m)
            return true;
    return false;
}

/* Rank r's vertices of mesh m: the first and the count; the whole mesh for
 * a serial participant or a mesh it does not provide. */
static void rank_span(const server *sv, int p, int r, int m, size_t *off, size_t *cnt)
{
    const part *pt = &sv->parts[p];
    if (pt->size <= 1 || !provides(sv, p, m)) {
        *off = 0;
        *cnt = sv->s.meshes[m].n;
        return;
    }
    *off = pt->first[m][r];
    *cnt = pt->first[m][r + 1] - pt->first[m][r];
}

/* ---- replies -------------------------------------------------------------- */

static bool send_reply(server *sv, int p, int r, seam_wbuf *w)
{
    rank_conn *rc = &sv->parts[p].ranks[r];
    size_t size;
    char *bytes = seam_wbuf_release(w, &size);
    bool ok = zmq_send(sv->sock, rc->id, rc->id_len, ZMQ_SNDMORE) >= 0 && zmq_send(sv->sock, bytes, size, 0) >= 0;
    free(bytes);
    seam_wbuf_free(w);
    rc->pending = false;
    if (strcmp(rc->op, "advance") == 0)
        rc->bytes_out += size;
    return ok;
}

static void send_error_to(server *sv, const uint8_t *id, size_t id_len, const char *msg)
{
    seam_wbuf w;
    seam_wbuf_init(&w, 0);
    seam_w_map(&w, 2);
    seam_w_str(&w, "ok");
    seam_w_bool(&w, false);
    seam_w_str(&w, "error");
    seam_w_str(&w, msg);
    size_t size;
    char *bytes = seam_wbuf_release(&w, &size);
    zmq_send(sv->sock, id, id_len, ZMQ_SNDMORE);
    zmq_send(sv->sock, bytes, size, 0);
    free(bytes);
    seam_wbuf_free(&w);
}

static void send_ok(server *sv, int p, int r)
{
    seam_wbuf w;
    seam_wbuf_init(&w, 0);
    seam_w_map(&w, 1);
    seam_w_str(&w, "ok");
    seam_w_bool(&w, true);
    send_reply(sv, p, r, &w);
}

/* A read's values as one rank sees its mesh: its slice of the vertices
 * (v from its first one, n values), or those of its region. */
static void put_values(seam_wbuf *w, const region *rg, const double *v, size_t n, int comps)
{
    if (!rg || !rg->on) {
        seam_w_f64s(w, v, n);
        return;
    }
    double *sub = seam_xmalloc_n(rg->n * (size_t)comps + 1, sizeof *sub);
    for (size_t i = 0; i < rg->n; i++)
        for (int c = 0; c < comps; c++)
            sub[i * (size_t)comps + (size_t)c] = v[(size_t)rg->ids[i] * (size_t)comps + (size_t)c];
    seam_w_f64s(w, sub, rg->n * (size_t)comps);
    free(sub);
}

static bool send_step_to(server *sv, int p, int r)
{
    const precice_config *cfg = sv->cfg;
    const pc_participant *pp = &cfg->participants[p];
    const pcs_port *port = &sv->s.ports[p];
    part *pt = &sv->parts[p];
    bool first = strcmp(pt->ranks[r].op, "initialize") == 0;
    seam_wbuf w;
    seam_wbuf_init(&w, 0);
    seam_w_map(&w, 8 + (first ? 1 : 0));
    seam_w_str(&w, "ok");
    seam_w_bool(&w, true);
    if (first) {
        size_t nr = 0;
        for (size_t m = 0; m < cfg->n_meshes; m++)
            nr += pt->regions[m].on;
        seam_w_str(&w, "received");
        seam_w_array(&w, nr);
        for (size_t m = 0; m < cfg->n_meshes; m++) {
            const region *rg = &pt->regions[m];
            if (!rg->on)
                continue;
            const pcs_mesh *pm = &sv->s.meshes[m];
            double *X = seam_xmalloc_n(rg->n * (size_t)pm->dim + 1, sizeof *X);
            for (size_t i = 0; i < rg->n; i++)
                memcpy(X + i * (size_t)pm->dim, pm->X + (size_t)rg->ids[i] * (size_t)pm->dim,
                       (size_t)pm->dim * sizeof *X);
            seam_w_map(&w, 3);
            seam_w_str(&w, "mesh");
            seam_w_str(&w, cfg->meshes[m].name);
            seam_w_str(&w, "ids");
            seam_w_i32s(&w, rg->ids, rg->n);
            seam_w_str(&w, "coords");
            seam_w_f64s(&w, X, rg->n * (size_t)pm->dim);
            free(X);
        }
    }
    seam_w_str(&w, "time");
    seam_w_f64(&w, port->time);
    seam_w_str(&w, "window");
    seam_w_f64(&w, port->window);
    seam_w_str(&w, "ongoing");
    seam_w_bool(&w, port->ongoing);
    seam_w_str(&w, "complete");
    seam_w_bool(&w, port->complete);
    seam_w_str(&w, "write_checkpoint");
    seam_w_bool(&w, port->write_checkpoint);
    seam_w_str(&w, "read_checkpoint");
    seam_w_bool(&w, port->read_checkpoint);
    seam_w_str(&w, "read");
    seam_w_array(&w, pp->n_reads);
    for (size_t k = 0; k < pp->n_reads; k++) {
        const pcs_samples *sm = &port->reads[k];
        int d = pp->reads[k].data, m = pp->reads[k].mesh, comps = cfg->data[d].components;
        size_t off, cnt;
        rank_span(sv, p, r, m, &off, &cnt);
        seam_w_map(&w, 4);
        seam_w_str(&w, "mesh");
        seam_w_str(&w, cfg->meshes[m].name);
        seam_w_str(&w, "data");
        seam_w_str(&w, cfg->data[d].name);
        seam_w_str(&w, "times");
        seam_w_f64s(&w, sm->times, sm->n_samples);
        seam_w_str(&w, "values");
        seam_w_array(&w, sm->n_samples);
        for (size_t i = 0; i < sm->n_samples; i++)
            if (pt->regions[m].on)
                put_values(&w, &pt->regions[m], sm->values + i * sm->n, sm->n, comps);
            else
                put_values(&w, NULL, sm->values + i * sm->n + off * (size_t)comps, cnt * (size_t)comps, comps);
    }
    pt->ranks[r].advanced = false;
    return send_reply(sv, p, r, &w);
}

/* Every rank of p waiting for a step gets its own part of it. */
static bool send_step(server *sv, int p)
{
    part *pt = &sv->parts[p];
    pt->advanced = false;
    for (int r = 0; r < pt->size; r++)
        if (pt->ranks[r].pending && !send_step_to(sv, p, r))
            return false;
    return true;
}

/* ---- requests ------------------------------------------------------------- */

/* One map out of an array of maps (the cursor moves past it). */
static bool next_map(seam_mp *items, seam_msg *sub)
{
    const uint8_t *start = items->p;
    if (!seam_mp_skip(items, SEAM_WIRE_MAX_DEPTH))
        return false;
    return seam_msg_parse(sub, start, (size_t)(items->p - start));
}

/* The participant and rank (in *rank) that a ROUTER identity belongs to, or -1. */
static int participant_of(const server *sv, const uint8_t *id, size_t len, int *rank)
{
    for (size_t p = 0; p < sv->cfg->n_participants; p++) {
        const part *pt = &sv->parts[p];
        for (int r = 0; r < pt->size; r++) {
            const rank_conn *rc = &pt->ranks[r];
            if (rc->hello && rc->id_len == len && memcmp(rc->id, id, len) == 0) {
                *rank = r;
                return (int)p;
            }
        }
    }
    return -1;
}

/* A participant's ranks agree on its size; the first hello allocates them. */
static bool take_rank(server *sv, int p, int64_t rank, int64_t size, long pid, char *err, size_t errlen)
{
    part *pt = &sv->parts[p];
    const char *name = pname(sv, p);
    if (size < 1 || size > 65536 || rank < 0 || rank >= size) {
        snprintf(err, errlen, "participant %s: rank %lld of %lld is not a process of it", name, (long long)rank,
                 (long long)size);
        return false;
    }
    if (pt->size == 0) {
        pt->size = (int)size;
        pt->ranks = SEAM_NEW_N(rank_conn, (size_t)size);
        pt->first = SEAM_NEW_N(size_t *, sv->cfg->n_meshes + 1);
        for (size_t m = 0; m < sv->cfg->n_meshes; m++)
            pt->first[m] = SEAM_NEW_N(size_t, (size_t)size + 1);
    } else if (pt->size != size) {
        snprintf(err, errlen, "participant %s: rank %lld (pid %ld) says it has %lld ranks, an earlier rank said %d",
                 name, (long long)rank, pid, (long long)size, pt->size);
        return false;
    }
    if (pt->ranks[rank].hello) {
        if (size == 1)
            snprintf(err, errlen, "participant %s connected twice (pids %ld and %ld)", name, pt->ranks[0].pid, pid);
        else
            snprintf(err, errlen, "participant %s: rank %lld connected twice (pids %ld and %ld)", name,
                     (long long)rank, pt->ranks[rank].pid, pid);
        return false;
    }
    return true;
}

static bool handle_hello(server *sv, seam_msg *m, const uint8_t *id, size_t id_len, char *err, size_t errlen)
{
    char name[256] = "", key[64] = "";
    int64_t rank = 0, size = 1, pid = 0;
    uint64_t wire = 0;
    seam_msg_strcpy(m, "participant", true, name, sizeof name);
    seam_msg_strcpy(m, "config", true, key, sizeof key);
    seam_msg_int(m, "rank", false, &rank);
    seam_msg_int(m, "size", false, &size);
    seam_msg_int(m, "pid", true, &pid);
    seam_msg_uint(m, "wire", true, &wire);
    if (m->error[0]) {
        snprintf(err, errlen, "hello: %s", m->error);
        return false;
    }
    int p = precice_config_participant(sv->cfg, name);
    if (p < 0) {
        snprintf(err, errlen, "participant %s is not in the configuration %s", name, sv->cfg->path);
        return false;
    }
    if (wire != WIRE || strcmp(key, sv->key) != 0) {
        char theirs[PATH_MAX] = "its configuration file";
        seam_msg_strcpy(m, "config_path", false, theirs, sizeof theirs);
        if (wire != WIRE)
            snprintf(err, errlen, "participant %s: wire version %llu differs from the coupler's (%d)", name,
                     (unsigned long long)wire, WIRE);
        else
            snprintf(err, errlen, "participant %s: %.400s differs from the coupler's %.400s (another hash)", name,
                     theirs, sv->cfg->path);
        return false;
    }
    if (!take_rank(sv, p, rank, size, (long)pid, err, errlen))
        return false;
    rank_conn *rc = &sv->parts[p].ranks[rank];
    if (id_len > sizeof rc->id) {
        snprintf(err, errlen, "participant %s: identity too long", name);
        return false;
    }
    rc->hello = true;
    memcpy(rc->id, id, id_len);
    rc->id_len = id_len;
    rc->pid = (long)pid;
    seam_msg_strcpy(m, "host", false, rc->host, sizeof rc->host);
    seam_msg_strcpy(m, "cwd", false, rc->cwd, sizeof rc->cwd);
    if (!sv->quiet && size == 1)
        fprintf(stderr, "seam: participant %s connected (pid %ld)\n", name, rc->pid);
    else if (!sv->quiet)
        fprintf(stderr, "seam: participant %s rank %lld of %lld connected (pid %ld on %s)\n", name,
                (long long)rank, (long long)size, rc->pid, rc->host);
    strcpy(rc->op, "hello");
    send_ok(sv, p, (int)rank);
    return true;
}

/* Rank r's part of a provided mesh, appended to the global mesh after the
 * lower ranks' vertices (its cells renumbered by that offset). */
static bool read_mesh(server *sv, int p, int r, seam_msg *mm, char *err, size_t errlen)
{
    const precice_config *cfg = sv->cfg;
    char name[256] = "", me[300];
    who(sv, p, r, me, sizeof me);
    seam_msg_strcpy(mm, "name", true, name, sizeof name);
    int m = precice_config_mesh(cfg, name);
    if (m < 0 || !provides(sv, p, m)) {
        snprintf(err, errlen, "participant %s sent mesh \"%s\", which it does not provide", me, name);
        return false;
    }
    pcs_mesh *pm = &sv->s.meshes[m];
    size_t base = pm->n;
    if (base != sv->parts[p].first[m][r]) {
        snprintf(err, errlen, "participant %s sent mesh %s twice", me, name);
        return false;
    }
    int dim = cfg->meshes[m].dim;
    size_t len = 0;
    void *coords = seam_msg_bin_alloc(mm, "coords", true, &len);
    if (!coords || len % (8 * (size_t)dim)) {
        free(coords);
        snprintf(err, errlen, "participant %s, mesh %s: coords: %s", me, name,
                 mm->error[0] ? mm->error : "not a whole number of vertices");
        return false;
    }
    size_t n = len / (8 * (size_t)dim);
    pm->known = true;
    pm->dim = dim;
    pm->n = base + n;
    pm->X = seam_xrealloc(pm->X, (pm->n * (size_t)dim + 1) * sizeof *pm->X);
    seam_le_to_f64(pm->X + base * (size_t)dim, coords, n * (size_t)dim);
    free(coords);
    struct { const char *key; int per; int **out; size_t *n; } conn[] = {
        {"edges", 2, &pm->edges, &pm->n_edges},
        {"triangles", 3, &pm->triangles, &pm->n_triangles},
        {"quads", 4, &pm->quads, &pm->n_quads},
        {"tetrahedra", 4, &pm->tetrahedra, &pm->n_tetrahedra},
    };
    for (size_t k = 0; k < sizeof conn / sizeof conn[0]; k++) {
        if (!seam_msg_has(mm, conn[k].key) || seam_msg_is_nil(mm, conn[k].key))
            continue;
        size_t bytes = 0, per = (size_t)conn[k].per;
        void *raw = seam_msg_bin_alloc(mm, conn[k].key, false, &bytes);
        size_t count = bytes / (4 * per), old = *conn[k].n;
        *conn[k].out = seam_xrealloc(*conn[k].out, ((old + count) * per + 1) * sizeof **conn[k].out);
        int *cells = *conn[k].out + old * per;
        for (size_t i = 0; i < count * per; i++) {
            int32_t v;
            memcpy(&v, (const uint8_t *)raw + 4 * i, 4);   /* little-endian hosts only, as wire.c */
            if (v < 0 || (size_t)v >= n) {
                free(raw);
                snprintf(err, errlen, "participant %s, mesh %s: %s name vertex %d of %zu", me, name, conn[k].key,
                         v, n);
                return false;
            }
            cells[i] = (int)(base + (size_t)v);
        }
        *conn[k].n = old + count;
        free(raw);
    }
    return true;
}

/* Rank r's initialize: its meshes, regions and initial data. */
static bool handle_initialize(server *sv, int p, int r, seam_msg *m, char *err, size_t errlen)
{
    const precice_config *cfg = sv->cfg;
    part *pt = &sv->parts[p];
    char me[300];
    who(sv, p, r, me, sizeof me);
    seam_mp items;
    size_t count = 0;
    if (seam_msg_array(m, "meshes", false, &items, &count))
        for (size_t i = 0; i < count; i++) {
            seam_msg mm;
            if (!next_map(&items, &mm)) {
                snprintf(err, errlen, "participant %s: initialize: meshes[%zu]: %s", me, i, mm.error);
                return false;
            }
            if (!read_mesh(sv, p, r, &mm, err, errlen))
                return false;
        }
    if (seam_msg_array(m, "regions", false, &items, &count))
        for (size_t i = 0; i < count; i++) {
            seam_msg rm;
            char name[256] = "";
            if (!next_map(&items, &rm) || !seam_msg_strcpy(&rm, "mesh", true, name, sizeof name)) {
                snprintf(err, errlen, "participant %s: initialize: regions[%zu]: %s", me, i, rm.error);
                return false;
            }
            int mi = precice_config_mesh(cfg, name);
            if (mi < 0) {
                snprintf(err, errlen, "participant %s: region on unknown mesh %s", me, name);
                return false;
            }
            if (pt->size > 1) {
                snprintf(err, errlen, "participant %s: direct access to received mesh %s (setMeshAccessRegion) "
                         "with %d ranks: seam supports it for a participant of one process only", me, name,
                         pt->size);
                return false;
            }
            int dim = cfg->meshes[mi].dim;
            double box[6];
            if (!seam_msg_f64s(&rm, "box", true, box, 2 * (size_t)dim)) {
                snprintf(err, errlen, "participant %s, region of mesh %s: %s", me, name, rm.error);
                return false;
            }
            pt->regions[mi].on = true;
            memcpy(pt->regions[mi].box, box, 2 * (size_t)dim * sizeof *box);
        }
    if (seam_msg_array(m, "data", false, &items, &count))
        for (size_t i = 0; i < count; i++) {
            seam_msg dm;
            char mesh[256] = "", data[256] = "";
            if (!next_map(&items, &dm) || !seam_msg_strcpy(&dm, "mesh", true, mesh, sizeof mesh) ||
                !seam_msg_strcpy(&dm, "data", true, data, sizeof data)) {
                snprintf(err, errlen, "participant %s: initialize: data[%zu]: %s", me, i, dm.error);
                return false;
            }
            int mi = precice_config_mesh(cfg, mesh), di = precice_config_data(cfg, data), wi = -1;
            const pc_participant *pp = &cfg->participants[p];
            for (size_t w = 0; w < pp->n_writes; w++)
                if (pp->writes[w].data == di && pp->writes[w].mesh == mi)
                    wi = (int)w;
            if (wi < 0) {
                snprintf(err, errlen, "participant %s sent initial data %s on mesh %s, which it does not write",
                         me, data, mesh);
                return false;
            }
            size_t len = 0;
            void *raw = seam_msg_bin_alloc(&dm, "values", true, &len);
            if (!raw) {
                snprintf(err, errlen, "participant %s, initial data %s: %s", me, data, dm.error);
                return false;
            }
            if (r == 0) {   /* rank 0 starts the data; the others append theirs in rank order */
                free(pt->initial[wi]);
                pt->initial[wi] = NULL;
                pt->n_initial[wi] = 0;
            }
            size_t old = pt->n_initial[wi];
            pt->initial[wi] = seam_xrealloc(pt->initial[wi], (old + len / 8 + 1) * sizeof(double));
            seam_le_to_f64(pt->initial[wi] + old, raw, len / 8);
            pt->n_initial[wi] = old + len / 8;   /* checked once the mesh is known */
            free(raw);
        }
    return true;
}

/* Two sample times of the ranks of one participant that are one time. */
static bool same_time(double a, double b, double window)
{
    return fabs(a - b) <= 1e-12 * (window > 1.0 ? window : 1.0);
}

/* Rank r's writes: its samples, on its slice of each write's mesh, or on
 * its region of a received mesh (serial participants). The first rank sets
 * the sample times; every other must send the same. */
static bool handle_advance(server *sv, int p, int r, seam_msg *m, char *err, size_t errlen)
{
    const precice_config *cfg = sv->cfg;
    const pc_participant *pp = &cfg->participants[p];
    part *pt = &sv->parts[p];
    pcs_port *port = &sv->s.ports[p];
    char me[300];
    who(sv, p, r, me, sizeof me);
    seam_mp items;
    size_t count = 0;
    if (seam_msg_array(m, "writes", false, &items, &count))
        for (size_t i = 0; i < count; i++) {
            seam_msg wm;
            char mesh[256] = "", data[256] = "";
            if (!next_map(&items, &wm) || !seam_msg_strcpy(&wm, "mesh", true, mesh, sizeof mesh) ||
                !seam_msg_strcpy(&wm, "data", true, data, sizeof data)) {
                snprintf(err, errlen, "participant %s: advance: writes[%zu]: %s", me, i, wm.error);
                return false;
            }
            int mi = precice_config_mesh(cfg, mesh), di = precice_config_data(cfg, data), wi = -1;
            for (size_t w = 0; w < pp->n_writes; w++)
                if (pp->writes[w].data == di && pp->writes[w].mesh == mi)
                    wi = (int)w;
            if (wi < 0) {
                snprintf(err, errlen, "participant %s wrote data %s on mesh %s, which it does not write", me, data,
                         mesh);
                return false;
            }
            pcs_samples *sm = &port->writes[wi];
            size_t tbytes = 0;
            void *traw = seam_msg_bin_alloc(&wm, "times", true, &tbytes);
            seam_mp vals;
            size_t nv = 0;
            size_t ns = tbytes / 8;
            if (!traw || !seam_msg_array(&wm, "values", true, &vals, &nv) || nv != ns || ns == 0) {
                free(traw);
                snprintf(err, errlen, "participant %s, data %s: %s", me, data,
                         wm.error[0] ? wm.error : "times and values differ in count");
                return false;
            }
            if (sm->n_samples == 0) {
                pcs_samples_resize(sm, sm->n, ns);
                seam_le_to_f64(sm->times, traw, ns);
            } else {   /* a later rank: the ranks of one participant step together */
                double *times = seam_xmalloc_n(ns, sizeof *times);
                seam_le_to_f64(times, traw, ns);
                bool same = ns == sm->n_samples;
                for (size_t k = 0; same && k < ns; k++)
                    same = same_time(times[k], sm->times[k], port->window);
                free(times);
                if (!same) {
                    free(traw);
                    snprintf(err, errlen, "participant %s, data %s: %zu samples at other times than rank 0's %zu "
                             "(every rank must advance by the same time steps)", me, data, ns, sm->n_samples);
                    return false;
                }
            }
            free(traw);
            const region *rg = &pt->regions[mi];
            int comps = cfg->data[di].components;
            size_t off, cnt;
            rank_span(sv, p, r, mi, &off, &cnt);
            size_t expect = rg->on ? rg->n * (size_t)comps : cnt * (size_t)comps;
            for (size_t k = 0; k < ns; k++) {
                seam_mp_value v;
                if (!seam_mp_next(&vals, &v) || v.kind != SEAM_MP_BIN || v.len != 8 * expect) {
                    snprintf(err, errlen, "participant %s, data %s on mesh %s, sample %zu: expected %zu values", me,
                             data, mesh, k, expect);
                    return false;
                }
                double *dst = sm->values + k * sm->n;
                if (!rg->on) {
                    seam_le_to_f64(dst + off * (size_t)comps, v.data, expect);
                    continue;
                }
                double *sub = seam_xmalloc_n(expect + 1, sizeof *sub);
                seam_le_to_f64(sub, v.data, expect);
                memset(dst, 0, sm->n * sizeof *dst);
                for (size_t j = 0; j < rg->n; j++)
                    for (int c = 0; c < comps; c++)
                        dst[(size_t)rg->ids[j] * (size_t)comps + (size_t)c] = sub[j * (size_t)comps + (size_t)c];
                free(sub);
            }
        }
    return true;
}

/* Keep rank r's request until every rank of its participant sent its own. */
static void hold(rank_conn *rc, const void *data, size_t len, const char *op)
{
    free(rc->held);
    rc->held = seam_xmalloc(len ? len : 1);
    memcpy(rc->held, data, len);
    rc->held_len = len;
    snprintf(rc->op, sizeof rc->op, "%s", op);
    rc->pending = true;
    rc->watch_since = 0.0;
}

/* Every rank of p sent its initialize (or advance): take them in rank
 * order, so that the global vertices and values lie by rank, then local index. */
static bool absorb(server *sv, int p, bool initialize, char *err, size_t errlen)
{
    part *pt = &sv->parts[p];
    const pc_participant *pp = &sv->cfg->participants[p];
    if (!initialize)
        for (size_t w = 0; w < pp->n_writes; w++)
            sv->s.ports[p].writes[w].n_samples = 0;
    bool ok = true;
    for (int r = 0; r < pt->size && ok; r++) {
        rank_conn *rc = &pt->ranks[r];
        seam_msg m;
        if (!seam_msg_parse(&m, rc->held, rc->held_len)) {
            snprintf(err, errlen, "participant %s: %s: %s", pname(sv, p), rc->op, m.error);
            ok = false;
            break;
        }
        if (initialize) {
            for (size_t k = 0; k < pp->n_provide; k++)
                pt->first[pp->provide[k]][r] = sv->s.meshes[pp->provide[k]].n;
            ok = handle_initialize(sv, p, r, &m, err, errlen);
            for (size_t k = 0; k < pp->n_provide; k++)
                pt->first[pp->provide[k]][r + 1] = sv->s.meshes[pp->provide[k]].n;
        } else {
            ok = handle_advance(sv, p, r, &m, err, errlen);
        }
    }
    for (int r = 0; r < pt->size; r++) {
        free(pt->ranks[r].held);
        pt->ranks[r].held = NULL;
    }
    if (initialize)
        pt->initialized = ok;
    else
        pt->advanced = ok;
    return ok;
}

/* A rank's initialize or advance; absorbed once its participant's ranks all sent theirs. */
static bool handle_held(server *sv, int p, int r, const char *op, const void *data, size_t len, char *err,
                        size_t errlen)
{
    part *pt = &sv->parts[p];
    bool initialize = strcmp(op, "initialize") == 0;
    rank_conn *rc = &pt->ranks[r];
    hold(rc, data, len, op);
    if (initialize) {
        rc->initialized = true;
    } else {
        rc->advanced = true;
        rc->advances++;
        rc->bytes_in += len;
    }
    for (int q = 0; q < pt->size; q++)
        if (!(initialize ? pt->ranks[q].initialized : pt->ranks[q].advanced))
            return true;
    return absorb(sv, p, initialize, err, errlen);
}

/* ---- the loop ------------------------------------------------------------- */

static void fail(server *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(server *sv, const char *fmt, ...)
{
    if (sv->s.error[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sv->s.error, sizeof sv->s.error, fmt, ap);
    va_end(ap);
}

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The CPU time (s) a process of this host has used (/proc/PID/stat's utime
 * and stime), or -1 when unreadable. */
static double cpu_seconds(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1.0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *c = strrchr(buf, ')');   /* the command name may hold spaces */
    unsigned long ut, st;
    if (!c || sscanf(c + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1.0;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* A rank of this host whose sibling already sent its request is hung when
 * it used under 1% of a CPU for hang_s seconds (asleep, stopped, blocked on
 * something that never comes); one that computes, however slowly, is not. */
static bool check_hung(server *sv, int p)
{
    part *pt = &sv->parts[p];
    int waiting = -1;
    for (int r = 0; r < pt->size && waiting < 0; r++)
        if (pt->ranks[r].held)
            waiting = r;
    double now = monotonic_s();
    for (int r = 0; r < pt->size; r++) {
        rank_conn *rc = &pt->ranks[r];
        if (waiting < 0 || rc->held || !rc->hello || rc->finalized || strcmp(rc->host, sv->host) != 0) {
            rc->watch_since = 0.0;
            continue;
        }
        double cpu = cpu_seconds(rc->pid);
        if (cpu < 0.0)
            continue;
        if (rc->watch_since == 0.0 || cpu - rc->watch_cpu >= 0.01 * (now - rc->watch_since)) {
            if (rc->watch_since == 0.0 || now - rc->watch_since >= sv->hang_s) {
                rc->watch_since = now;   /* a new period of watching */
                rc->watch_cpu = cpu;
            }
            continue;
        }
        if (now - rc->watch_since < sv->hang_s)
            continue;
        char where[96] = "before the coupling started";
        if (sv->s.cfg && sv->s.c.ops)
            snprintf(where, sizeof where, "in time window %ld, iteration %d", sv->s.window + 1,
                     sv->s.ports[p].iterations);
        fail(sv, "participant %s rank %d of %d (pid %ld on host %s) is hung: it used no CPU for %g s while rank %d "
             "waited for it (%s)", pname(sv, p), r, pt->size, rc->pid, rc->host, sv->hang_s, waiting, where);
        return false;
    }
    return true;
}

/* Ranks on this host that died (their pid is gone) or hang end the run. */
static bool check_alive(server *sv)
{
    for (size_t p = 0; p < sv->cfg->n_participants; p++) {
        part *pt = &sv->parts[p];
        for (int r = 0; r < pt->size; r++) {
            rank_conn *rc = &pt->ranks[r];
            if (!rc->hello || rc->finalized || rc->pid <= 0 || strcmp(rc->host, sv->host) != 0)
                continue;
            if (kill((pid_t)rc->pid, 0) == 0 || errno != ESRCH)
                continue;
            char me[400];
            if (pt->size == 1)
                snprintf(me, sizeof me, "participant %s (pid %ld)", pname(sv, (int)p), rc->pid);
            else
                snprintf(me, sizeof me, "participant %s rank %d of %d (pid %ld on host %s)", pname(sv, (int)p), r,
                         pt->size, rc->pid, rc->host);
            if (sv->s.cfg && sv->s.c.ops)
                fail(sv, "%s died in time window %ld, iteration %d", me, sv->s.window + 1,
                     sv->s.ports[p].iterations);
            else
                fail(sv, "%s died before the coupling started", me);
            return false;
        }
    }
    for (size_t p = 0; p < sv->cfg->n_participants; p++)
        if (sv->parts[p].size > 1 && !check_hung(sv, (int)p))
            return false;
    if (stop_signal) {
        fail(sv, "the coupler was stopped by signal %d", (int)stop_signal);
        return false;
    }
    return true;
}

/* Every rank of p finalized. */
static bool all_finalized(const server *sv, int p)
{
    const part *pt = &sv->parts[p];
    for (int r = 0; r < pt->size; r++)
        if (!pt->ranks[r].finalized)
            return false;
    return pt->size > 0;
}

/* Receive and handle one message (or time out). False when the run failed. */
static bool receive(server *sv, bool started)
{
    zmq_pollitem_t item = {.socket = sv->sock, .events = ZMQ_POLLIN};
    int rc = zmq_poll(&item, 1, POLL_MS);
    if (rc < 0 && errno != EINTR) {
        fail(sv, "the coupler's socket failed: %s", zmq_strerror(errno));
        return false;
    }
    if (rc <= 0)
        return check_alive(sv);
    zmq_msg_t idm, body;
    zmq_msg_init(&idm);
    zmq_msg_init(&body);
    if (zmq_msg_recv(&idm, sv->sock, ZMQ_DONTWAIT) < 0) {
        zmq_msg_close(&idm);
        zmq_msg_close(&body);
        return check_alive(sv);
    }
    bool more = zmq_msg_more(&idm), got = false;
    while (more) {   /* the body is the last frame (an empty delimiter, when sent, is skipped) */
        zmq_msg_close(&body);
        zmq_msg_init(&body);
        if (seam_wire_recv_more(&body, sv->sock) < 0)
            break;
        got = true;
        more = zmq_msg_more(&body);
    }
    uint8_t id[256];
    size_t id_len = zmq_msg_size(&idm) < sizeof id ? zmq_msg_size(&idm) : sizeof id;
    memcpy(id, zmq_msg_data(&idm), id_len);
    zmq_msg_close(&idm);
    char err[1024] = "", me[300] = "";
    seam_msg m;
    char op[32] = "";
    if (!got || !seam_msg_parse(&m, zmq_msg_data(&body), zmq_msg_size(&body)) ||
        !seam_msg_strcpy(&m, "op", true, op, sizeof op)) {
        zmq_msg_close(&body);
        send_error_to(sv, id, id_len, "the coupler could not read the request (not a MessagePack map with op)");
        return true;   /* a stray peer does not end the run */
    }
    int r = 0;
    int p = participant_of(sv, id, id_len, &r);
    if (p >= 0)
        who(sv, p, r, me, sizeof me);
    bool ok = true;
    if (strcmp(op, "hello") == 0) {
        ok = p < 0 && handle_hello(sv, &m, id, id_len, err, sizeof err);
        if (!ok && !err[0])
            snprintf(err, sizeof err, "participant %s said hello twice", me);
    } else if (p < 0) {
        snprintf(err, sizeof err, "a request (%s) from a peer that did not say hello", op);
        ok = false;
    } else if (sv->parts[p].ranks[r].pending) {
        snprintf(err, sizeof err, "participant %s sent %s before its last request was answered", me, op);
        ok = false;
    } else if (strcmp(op, "initialize") == 0) {
        ok = !sv->parts[p].ranks[r].initialized &&
             handle_held(sv, p, r, op, zmq_msg_data(&body), zmq_msg_size(&body), err, sizeof err);
        if (!ok && !err[0])
            snprintf(err, sizeof err, "participant %s initialized twice", me);
    } else if (strcmp(op, "advance") == 0) {
        ok = started && handle_held(sv, p, r, op, zmq_msg_data(&body), zmq_msg_size(&body), err, sizeof err);
        if (!ok && !err[0])
            snprintf(err, sizeof err, "participant %s advanced before every participant initialized", me);
    } else if (strcmp(op, "finalize") == 0) {
        sv->parts[p].ranks[r].finalized = true;
        strcpy(sv->parts[p].ranks[r].op, "finalize");
        send_ok(sv, p, r);
        if (!sv->quiet && all_finalized(sv, p))
            fprintf(stderr, "seam: participant %s finalized\n", pname(sv, p));
        bool ended = started && !sv->s.ports[p].ongoing && sv->s.ports[p].last_window >= 0;
        if (!ended) {
            snprintf(err, sizeof err, "participant %s finalized while the coupling goes on", me);
            ok = false;
        }
    } else {
        snprintf(err, sizeof err, "participant %s sent an unknown request \"%s\"", me, op);
        ok = false;
    }
    zmq_msg_close(&body);
    if (!ok) {
        if (p < 0 || !sv->parts[p].ranks[r].finalized)
            send_error_to(sv, id, id_len, err);
        if (started && p >= 0)
            fail(sv, "%s (time window %ld, iteration %d)", err, sv->s.window + 1, sv->s.ports[p].iterations);
        else
            fail(sv, "%s", err);
        if (p >= 0)
            sv->parts[p].ranks[r].pending = false;
        return false;
    }
    return check_alive(sv);
}

/* ---- transport: the participants' solves ---------------------------------- */

static bool io_solve(void *ctx, pcs *s, const int *parts, size_t n)
{
    server *sv = ctx;
    for (size_t i = 0; i < n; i++)
        if (!send_step(sv, parts[i])) {
            pcs_fail(s, "could not answer participant %s: %s", pname(sv, parts[i]), zmq_strerror(errno));
            return false;
        }
    for (;;) {
        bool done = true;
        for (size_t i = 0; i < n; i++)
            done = done && sv->parts[parts[i]].advanced;
        if (done)
            return true;
        if (!receive(sv, true))
            return false;
    }
}

static bool io_finish(void *ctx, pcs *s)
{
    server *sv = ctx;
    for (size_t p = 0; p < sv->cfg->n_participants; p++)
        if (!send_step(sv, (int)p)) {
            pcs_fail(s, "could not answer participant %s", pname(sv, (int)p));
            return false;
        }
    for (;;) {
        bool done = true;
        for (size_t p = 0; p < sv->cfg->n_participants; p++)
            done = done && all_finalized(sv, (int)p);
        if (done)
            return true;
        if (!receive(sv, true))
            return false;
    }
}

static const pcs_transport transport = {io_solve, io_finish};

/* ---- set-up --------------------------------------------------------------- */

static bool write_address(server *sv, const char *endpoint)
{
    char tmp[PATH_MAX + 64];
    snprintf(tmp, sizeof tmp, "%s.tmp", sv->json_path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return false;
    fprintf(f, "{\"endpoint\": \"%s\", \"pid\": %ld, \"host\": \"%s\", \"config\": \"%s\", \"wire\": %d}\n", endpoint,
            (long)getpid(), sv->host, sv->key, WIRE);
    bool ok = fclose(f) == 0 && rename(tmp, sv->json_path) == 0;
    return ok;
}

/* Where to listen: 127.0.0.1, or the IPv4 address of the m2n's network
 * interface when it is not lo (participants on other hosts). */
static bool bind_address(const server *sv, char *addr, size_t n, char *err, size_t errlen)
{
    const char *net = sv->cfg->n_m2n ? sv->cfg->m2n[0].network : "lo";
    char port[16] = "*";   /* the m2n's port when given, else any */
    if (sv->cfg->n_m2n && sv->cfg->m2n[0].port > 0)
        snprintf(port, sizeof port, "%d", sv->cfg->m2n[0].port);
    if (!net || !net[0] || strcmp(net, "lo") == 0) {
        snprintf(addr, n, "tcp://127.0.0.1:%s", port);
        return true;
    }
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) != 0) {
        snprintf(err, errlen, "cannot list the network interfaces: %s", strerror(errno));
        return false;
    }
    bool found = false;
    for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && strcmp(i->ifa_name, net) == 0) {
            char ip[INET_ADDRSTRLEN];
            const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)i->ifa_addr;
            inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
            snprintf(addr, n, "tcp://%s:%s", ip, port);
            found = true;
        }
    freeifaddrs(ifs);
    if (!found)
        snprintf(err, errlen, "%s:%d: <m2n>: network \"%s\": no such interface with an IPv4 address here",
                 sv->cfg->path, sv->cfg->m2n[0].line, net);
    return found;
}

static bool open_socket(server *sv, char *err, size_t errlen)
{
    sv->zctx = zmq_ctx_new();
    sv->sock = zmq_socket(sv->zctx, ZMQ_ROUTER);
    int linger = 2000;   /* replies (an error above all) still reach the participants after close */
    zmq_setsockopt(sv->sock, ZMQ_LINGER, &linger, sizeof linger);
    int64_t max = SEAM_WIRE_MAX_MESSAGE;
    zmq_setsockopt(sv->sock, ZMQ_MAXMSGSIZE, &max, sizeof max);
    char addr[128];
    if (!bind_address(sv, addr, sizeof addr, err, errlen))
        return false;
    if (zmq_bind(sv->sock, addr) != 0) {
        snprintf(err, errlen, "cannot bind the coupler's socket to %s: %s", addr, zmq_strerror(errno));
        return false;
    }
    char endpoint[256];
    size_t len = sizeof endpoint;
    zmq_getsockopt(sv->sock, ZMQ_LAST_ENDPOINT, endpoint, &len);
    mkdir(sv->run_dir, 0777);
    if (!write_address(sv, endpoint)) {
        snprintf(err, errlen, "cannot write %.900s: %s", sv->json_path, strerror(errno));
        return false;
    }
    return true;
}

/* The regions (boxes until now) become the received mesh's vertices inside them. */
static void resolve_regions(server *sv)
{
    for (size_t p = 0; p < sv->cfg->n_participants; p++)
        for (size_t m = 0; m < sv->cfg->n_meshes; m++) {
            region *rg = &sv->parts[p].regions[m];
            if (!rg->on)
                continue;
            const double *box = rg->box;
            const pcs_mesh *pm = &sv->s.meshes[m];
            rg->ids = seam_xmalloc_n(pm->n + 1, sizeof *rg->ids);
            size_t k = 0;
            for (size_t i = 0; i < pm->n; i++) {
                bool in = true;
                for (int d = 0; d < pm->dim; d++) {
                    double x = pm->X[i * (size_t)pm->dim + (size_t)d];
                    in = in && x >= box[2 * d] && x <= box[2 * d + 1];
                }
                if (in)
                    rg->ids[k++] = (int32_t)i;
            }
            rg->n = k;
        }
}

static bool apply_initial_data(server *sv, char *err, size_t errlen)
{
    for (size_t p = 0; p < sv->cfg->n_participants; p++) {
        const pc_participant *pp = &sv->cfg->participants[p];
        for (size_t w = 0; w < pp->n_writes; w++) {
            double *v = sv->parts[p].initial[w];
            if (!v)
                continue;
            size_t n = sv->s.ports[p].writes[w].n;
            if (sv->parts[p].n_initial[w] != n) {
                snprintf(err, errlen, "participant %s: initial data %s: %zu values for %zu", pp->name,
                         sv->cfg->data[pp->writes[w].data].name, sv->parts[p].n_initial[w], n);
                return false;
            }
            pcs_initial_data(&sv->s, (int)p, w, v);
        }
    }
    return true;
}

static FILE *open_in(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static FILE *open_in(const char *dir, const char *fmt, ...)
{
    char name[512], path[PATH_MAX + 600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, "%s/%s", dir[0] ? dir : ".", name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "seam: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

/* The iterations and convergence logs, in the working directory of the
 * participant preCICE writes them for (second; multi: the controller). */
static void open_logs(server *sv)
{
    const pc_scheme *sc = &sv->cfg->scheme;
    int p = sc->kind == PC_MULTI ? sc->controller : sc->second;
    if (p < 0 || !sv->s.implicit)
        return;
    sv->s.iterations_logs = SEAM_NEW_N(FILE *, sv->cfg->n_participants);
    for (size_t q = 0; q < sv->cfg->n_participants; q++)
        sv->s.iterations_logs[q] = open_in(sv->parts[q].ranks[0].cwd, "precice-%s-iterations.log", pname(sv, (int)q));
    sv->s.convergence_log = open_in(sv->parts[p].ranks[0].cwd, "precice-%s-convergence.log", pname(sv, p));
}

/* ---- watch points --------------------------------------------------------- */

static void open_watches(server *sv)
{
    const precice_config *cfg = sv->cfg;
    size_t n = 0;
    for (size_t p = 0; p < cfg->n_participants; p++)
        n += cfg->participants[p].n_watch_points;
    sv->watches = SEAM_NEW_N(watch, n + 1);
    for (size_t p = 0; p < cfg->n_participants; p++)
        for (size_t i = 0; i < cfg->participants[p].n_watch_points; i++) {
            const pc_watch_point *wp = &cfg->participants[p].watch_points[i];
            const pcs_mesh *pm = &sv->s.meshes[wp->mesh];
            seam_meshmap_mesh src = {.dim = pm->dim, .n = pm->n, .X = pm->X, .edges = pm->edges,
                                     .n_edges = pm->n_edges, .triangles = pm->triangles,
                                     .n_triangles = pm->n_triangles, .quads = pm->quads, .n_quads = pm->n_quads};
            seam_meshmap_mesh dst = {.dim = pm->dim, .n = 1, .X = wp->coordinate};
            char err[512];
            seam_csr *M = seam_meshmap_interpolation(SEAM_MAP_NEAREST_PROJECTION, &src, &dst, NULL, err, sizeof err);
            if (!M) {
                fprintf(stderr, "seam: warning: %s:%d: watch point %s: %s (no log)\n", cfg->path, wp->line,
                        wp->name, err);
                continue;
            }
            FILE *f = open_in(sv->parts[p].ranks[0].cwd, "precice-%s-watchpoint-%s.log", pname(sv, (int)p), wp->name);
            if (!f) {
                seam_csr_destroy(&M);
                continue;
            }
            fprintf(f, "  Time");
            for (int d = 0; d < pm->dim; d++)
                fprintf(f, "  Coordinate%d", d);
            const pc_mesh *cm = &cfg->meshes[wp->mesh];
            for (size_t u = 0; u < cm->n_use_data; u++) {
                const pc_data *dd = &cfg->data[cm->use_data[u]];
                if (dd->components == 1)
                    fprintf(f, "  %s", dd->name);
                else
                    for (int c = 0; c < dd->components; c++)
                        fprintf(f, "  %s%d", dd->name, c);
            }
            fputc('\n', f);
            sv->watches[sv->n_watches++] = (watch){.f = f, .p = (int)p, .mesh = wp->mesh, .name = wp->name, .M = M};
        }
    if (!sv->probes)
        return;
    fprintf(sv->probes, "t");   /* probes.csv: POINT.DATA columns, as the report reads them */
    for (size_t i = 0; i < sv->n_watches; i++) {
        const watch *w = &sv->watches[i];
        const pc_mesh *cm = &cfg->meshes[w->mesh];
        const char *name = w->name;
        for (size_t u = 0; u < cm->n_use_data; u++) {
            const pc_data *dd = &cfg->data[cm->use_data[u]];
            for (int c = 0; c < dd->components; c++)
                fprintf(sv->probes, dd->components == 1 ? ",%s.%s" : ",%s.%s%d", name, dd->name, c);
        }
    }
    fputc('\n', sv->probes);
}

/* The values of data d on mesh m as participant p has them now: its last
 * write, or what it reads at the window's start; zero otherwise. */
static void values_at(server *sv, int p, int d, int m, double *out, size_t n)
{
    const pc_participant *pp = &sv->cfg->participants[p];
    memset(out, 0, n * sizeof *out);
    for (size_t w = 0; w < pp->n_writes; w++)
        if (pp->writes[w].data == d && pp->writes[w].mesh == m) {
            const pcs_samples *ws = &sv->s.ports[p].writes[w];
            if (ws->n_samples)
                memcpy(out, ws->values + (ws->n_samples - 1) * ws->n, n * sizeof *out);
            return;
        }
    int r = pcs_read_index(&sv->s, p, d, m);
    if (r >= 0) {
        pcs_read_start(&sv->s, p, (size_t)r, out);
        return;
    }
    for (size_t e = 0; e < sv->s.n_blocks; e++)   /* a mesh the data is exchanged on: the accepted values */
        if (sv->s.blocks[e].data == d && sv->s.blocks[e].mesh == m && sv->s.blocks[e].n == n) {
            memcpy(out, sv->s.blocks[e].start, n * sizeof *out);
            return;
        }
}

static void mkdir_p(const char *path);

/* ---- exports: each mesh a participant uses, with every data on it ------- */

typedef struct cellset { const int *v; size_t n; int per, vtk_type; } cellset;

static void export_mesh(server *sv, int p, const pc_export *ex, int m, const char *index)
{
    const precice_config *cfg = sv->cfg;
    const pcs_mesh *pm = &sv->s.meshes[m];
    const pc_mesh *cm = &cfg->meshes[m];
    static const char *const ext[] = {[PC_EXPORT_VTK] = "vtk", [PC_EXPORT_VTU] = "vtu", [PC_EXPORT_VTP] = "vtp",
                                      [PC_EXPORT_CSV] = "csv"};
    char dir[PATH_MAX + 8], path[2 * PATH_MAX];
    snprintf(dir, sizeof dir, "%s/%s", sv->parts[p].ranks[0].cwd[0] ? sv->parts[p].ranks[0].cwd : ".",
             ex->directory && ex->directory[0] ? ex->directory : ".");
    mkdir_p(dir);
    snprintf(path, sizeof path, "%s/%s-%s.%s.%s", dir, cm->name, pname(sv, p), index, ext[ex->kind]);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "seam: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    size_t n = pm->n;
    double **vals = SEAM_NEW_N(double *, cm->n_use_data + 1);
    for (size_t u = 0; u < cm->n_use_data; u++) {
        int d = cm->use_data[u];
        size_t len = n * (size_t)cfg->data[d].components;
        vals[u] = seam_xmalloc_n(len + 1, sizeof **vals);
        values_at(sv, p, d, m, vals[u], len);
    }
    const cellset cells[] = {{pm->edges, pm->n_edges, 2, 3}, {pm->triangles, pm->n_triangles, 3, 5},
                             {pm->quads, pm->n_quads, 4, 9}, {pm->tetrahedra, pm->n_tetrahedra, 4, 10}};
    size_t n_cells = 0, n_conn = 0;
    for (size_t c = 0; c < 4; c++) {
        n_cells += cells[c].n;
        n_conn += cells[c].n * (size_t)cells[c].per;
    }
    if (ex->kind == PC_EXPORT_CSV) {
        fprintf(f, pm->dim == 3 ? "PosX;PosY;PosZ;Rank" : "PosX;PosY;Rank");
        for (size_t u = 0; u < cm->n_use_data; u++) {
            const pc_data *dd = &cfg->data[cm->use_data[u]];
            if (dd->components == 1)
                fprintf(f, ";%s", dd->name);
            else
                for (int c = 0; c < dd->components; c++)
                    fprintf(f, ";%s%c", dd->name, "XYZ"[c]);
        }
        fputc('\n', f);
        const part *pt = &sv->parts[p];
        bool by_rank = pt->size > 1 && provides(sv, p, m);
        int owner = 0;   /* the rank that provided vertex i (ranks own consecutive vertices) */
        for (size_t i = 0; i < n; i++) {
            for (int d = 0; d < pm->dim; d++)
                fprintf(f, "%.17g;", pm->X[i * (size_t)pm->dim + (size_t)d]);
            while (by_rank && owner + 1 < pt->size && i >= pt->first[m][owner + 1])
                owner++;
            fprintf(f, "%d", owner);
            for (size_t u = 0; u < cm->n_use_data; u++) {
                int nc = cfg->data[cm->use_data[u]].components;
                for (int c = 0; c < nc; c++)
                    fprintf(f, ";%.17g", vals[u][i * (size_t)nc + (size_t)c]);
            }
            fputc('\n', f);
        }
    } else if (ex->kind == PC_EXPORT_VTK) {
        fprintf(f, "# vtk DataFile Version 2.0\n%s\nASCII\n\nDATASET UNSTRUCTURED_GRID\n\nPOINTS %zu double\n",
                pname(sv, p), n);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%.17g %.17g %.17g\n", pm->X[i * (size_t)pm->dim], pm->X[i * (size_t)pm->dim + 1],
                    pm->dim == 3 ? pm->X[i * (size_t)pm->dim + 2] : 0.0);
        fprintf(f, "\nCELLS %zu %zu\n", n_cells, n_cells + n_conn);
        for (size_t c = 0; c < 4; c++)
            for (size_t k = 0; k < cells[c].n; k++) {
                fprintf(f, "%d", cells[c].per);
                for (int j = 0; j < cells[c].per; j++)
                    fprintf(f, " %d", cells[c].v[k * (size_t)cells[c].per + (size_t)j]);
                fputc('\n', f);
            }
        fprintf(f, "\nCELL_TYPES %zu\n", n_cells);
        for (size_t c = 0; c < 4; c++)
            for (size_t k = 0; k < cells[c].n; k++)
                fprintf(f, "%d\n", cells[c].vtk_type);
        fprintf(f, "\nPOINT_DATA %zu\n", n);
        for (size_t u = 0; u < cm->n_use_data; u++) {
            const pc_data *dd = &cfg->data[cm->use_data[u]];
            int nc = dd->components;
            if (nc == 1)
                fprintf(f, "\nSCALARS %s double\nLOOKUP_TABLE default\n", dd->name);
            else
                fprintf(f, "\nVECTORS %s double\n", dd->name);
            for (size_t i = 0; i < n; i++)
                for (int c = 0; c < (nc == 1 ? 1 : 3); c++)
                    fprintf(f, c + 1 < (nc == 1 ? 1 : 3) ? "%.17g " : "%.17g\n",
                            c < nc ? vals[u][i * (size_t)nc + (size_t)c] : 0.0);
        }
    } else {   /* VTK XML: UnstructuredGrid (vtu) or PolyData (vtp), ASCII */
        bool vtu = ex->kind == PC_EXPORT_VTU;
        const char *type = vtu ? "UnstructuredGrid" : "PolyData";
        fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"%s\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                "<%s>\n", type, type);
        size_t n_lines = cells[0].n, n_polys = cells[1].n + cells[2].n;
        if (vtu)
            fprintf(f, "<Piece NumberOfPoints=\"%zu\" NumberOfCells=\"%zu\">\n", n, n_cells);
        else
            fprintf(f, "<Piece NumberOfPoints=\"%zu\" NumberOfLines=\"%zu\" NumberOfPolys=\"%zu\">\n", n, n_lines,
                    n_polys);
        fprintf(f, "<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n");
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%.17g %.17g %.17g\n", pm->X[i * (size_t)pm->dim], pm->X[i * (size_t)pm->dim + 1],
                    pm->dim == 3 ? pm->X[i * (size_t)pm->dim + 2] : 0.0);
        fprintf(f, "</DataArray>\n</Points>\n");
        for (int group = 0; group < (vtu ? 1 : 2); group++) {   /* vtu: all cells; vtp: lines, then polys */
            size_t c0 = vtu ? 0 : group == 0 ? 0 : 1, c1 = vtu ? 4 : group == 0 ? 1 : 3;
            fprintf(f, "<%s>\n<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n",
                    vtu ? "Cells" : group == 0 ? "Lines" : "Polys");
            for (size_t c = c0; c < c1; c++)
                for (size_t k = 0; k < cells[c].n * (size_t)cells[c].per; k++)
                    fprintf(f, "%d\n", cells[c].v[k]);
            fprintf(f, "</DataArray>\n<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n");
            size_t off = 0;
            for (size_t c = c0; c < c1; c++)
                for (size_t k = 0; k < cells[c].n; k++)
                    fprintf(f, "%zu\n", off += (size_t)cells[c].per);
            fprintf(f, "</DataArray>\n");
            if (vtu) {
                fprintf(f, "<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
                for (size_t c = 0; c < 4; c++)
                    for (size_t k = 0; k < cells[c].n; k++)
                        fprintf(f, "%d\n", cells[c].vtk_type);
                fprintf(f, "</DataArray>\n");
            }
            fprintf(f, "</%s>\n", vtu ? "Cells" : group == 0 ? "Lines" : "Polys");
        }
        fprintf(f, "<PointData>\n");
        for (size_t u = 0; u < cm->n_use_data; u++) {
            const pc_data *dd = &cfg->data[cm->use_data[u]];
            int nc = dd->components, out_c = nc == 1 ? 1 : 3;
            fprintf(f, "<DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">\n",
                    dd->name, out_c);
            for (size_t i = 0; i < n; i++)
                for (int c = 0; c < out_c; c++)
                    fprintf(f, c + 1 < out_c ? "%.17g " : "%.17g\n", c < nc ? vals[u][i * (size_t)nc + (size_t)c] : 0.0);
            fprintf(f, "</DataArray>\n");
        }
        fprintf(f, "</PointData>\n</Piece>\n</%s>\n</VTKFile>\n", type);
    }
    for (size_t u = 0; u < cm->n_use_data; u++)
        free(vals[u]);
    free(vals);
    if (fclose(f) != 0)
        fprintf(stderr, "seam: cannot write %s: %s\n", path, strerror(errno));
}

/* Every export of every participant, at the start ("init") and after every
 * every-n-time-windows-th window ("dt<N>"): the meshes it provides or receives. */
static void exports(server *sv, const pcs *s)
{
    const precice_config *cfg = sv->cfg;
    long done = s->window;   /* -1 at the start, else the index of the window just accepted */
    char index[32];
    if (done < 0)
        snprintf(index, sizeof index, "init");
    else
        snprintf(index, sizeof index, "dt%ld", done + 1);
    for (size_t p = 0; p < cfg->n_participants; p++) {
        const pc_participant *pp = &cfg->participants[p];
        for (size_t e = 0; e < pp->n_exports; e++) {
            const pc_export *ex = &pp->exports[e];
            if (done >= 0 && (done + 1) % (ex->every_n_time_windows > 0 ? ex->every_n_time_windows : 1) != 0)
                continue;
            for (size_t i = 0; i < pp->n_provide; i++)
                export_mesh(sv, (int)p, ex, pp->provide[i], index);
            for (size_t i = 0; i < pp->n_receive; i++)
                export_mesh(sv, (int)p, ex, pp->receive[i].mesh, index);
        }
    }
}

static void watch_rows(void *ctx, pcs *s)
{
    server *sv = ctx;
    exports(sv, s);
    for (size_t i = 0; i < sv->n_watches; i++) {
        const watch *w = &sv->watches[i];
        const pcs_mesh *pm = &s->meshes[w->mesh];
        const pc_mesh *cm = &sv->cfg->meshes[w->mesh];
        double x[3] = {0};
        seam_meshmap_apply(w->M, pm->dim, pm->X, x);
        fprintf(w->f, "  %15.8e", s->time);
        if (sv->probes && i == 0)
            fprintf(sv->probes, "%.17g", s->time);
        for (int d = 0; d < pm->dim; d++)
            fprintf(w->f, "  %15.8e", x[d]);
        for (size_t u = 0; u < cm->n_use_data; u++) {
            int d = cm->use_data[u], nc = sv->cfg->data[d].components;
            size_t n = pm->n * (size_t)nc;
            double *v = seam_xmalloc_n(n + 1, sizeof *v), at[3] = {0};
            values_at(sv, w->p, d, w->mesh, v, n);
            seam_meshmap_apply(w->M, nc, v, at);
            for (int c = 0; c < nc; c++) {
                fprintf(w->f, "  %15.8e", at[c]);
                if (sv->probes)
                    fprintf(sv->probes, ",%.17g", at[c]);
            }
            free(v);
        }
        fputc('\n', w->f);
        fflush(w->f);
    }
    if (sv->probes && sv->n_watches)
        fputc('\n', sv->probes);
}

/* ---- seam's own outputs ---------------------------------------------------- */

static void mkdir_p(const char *path)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *c = tmp + 1; *c; c++)
        if (*c == '/') {
            *c = '\0';
            mkdir(tmp, 0777);
            *c = '/';
        }
    mkdir(tmp, 0777);
}

static void open_outputs(server *sv)
{
    if (!sv->out[0])
        snprintf(sv->out, sizeof sv->out, "%.*s/seam-out", (int)sizeof sv->out - 16, sv->run_dir);
    mkdir_p(sv->out);
    sv->s.stats_csv = open_in(sv->out, "stats.csv");
    sv->s.residuals_csv = open_in(sv->out, "residuals.csv");
    sv->probes = open_in(sv->out, "probes.csv");
}

static void report_log(void *ctx, seam_log_level level, const char *who, const char *message)
{
    (void)ctx;
    if (level >= SEAM_LOG_WARN)
        fprintf(stderr, "seam: %s: %s\n", who, message);
}

/* Close seam's outputs and draw the report from them (index.html). */
static void close_outputs(server *sv)
{
    FILE **files[] = {&sv->s.stats_csv, &sv->s.residuals_csv, &sv->probes};
    bool any = false;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (*files[i]) {
            fclose(*files[i]);
            *files[i] = NULL;
            any = true;
        }
    if (any && seam_report_write(sv->out, report_log, NULL) == SEAM_OK && !sv->quiet)
        fprintf(stderr, "seam: report: %s/index.html\n", sv->out);
}

/* ---- the scheme ----------------------------------------------------------- */

static void cfg_report(void *ctx, const char *where, const char *key_path, const char *message)
{
    (void)ctx;
    fprintf(stderr, "seam: %s%s%s: %s\n", where ? where : "", where ? ": " : "", key_path, message);
}

static const seam_scheme_ops *make_scheme(server *sv, char **sets, int n_sets, void **self)
{
    char json[2048], err[1024];
    if (!pcs_coupling_json(sv->cfg, json, sizeof json, err, sizeof err)) {
        fprintf(stderr, "seam: %s\n", err);
        return NULL;
    }
    char text[2200], origin[PATH_MAX + 32];
    snprintf(text, sizeof text, "{\"coupling\": %s}", json);
    snprintf(origin, sizeof origin, "%s (its coupling scheme)", sv->cfg->path);
    seam_doc *doc = seam_doc_parse(text, origin, err, sizeof err);
    if (!doc) {
        fprintf(stderr, "seam: %s\n", err);
        return NULL;
    }
    for (int i = 0; i < n_sets; i++) {
        if (strncmp(sets[i], "coupling.", 9) != 0) {
            fprintf(stderr, "seam: --set %s: a preCICE configuration takes coupling.KEY overrides only\n", sets[i]);
            seam_doc_destroy(&doc);
            return NULL;
        }
        if (seam_doc_set(doc, sets[i], err, sizeof err) != SEAM_OK) {
            fprintf(stderr, "seam: %s\n", err);
            seam_doc_destroy(&doc);
            return NULL;
        }
    }
    seam_cfg *c = seam_cfg_new(json_object_get(seam_doc_root(doc), "coupling"), "coupling", doc, cfg_report, NULL);
    const char *name = seam_cfg_str(c, "scheme", "relaxation", 0);
    pcs_read(&sv->s, c);
    const seam_scheme_ops *ops = seam_scheme_find(name);
    *self = NULL;
    if (!ops) {
        seam_cfg_error(c, "scheme", "unknown scheme \"%s\"", name);
    } else if (ops->needs_bpp || ops->needs_impulse_loads) {
        seam_cfg_error(c, "scheme", "%s needs a fluid and a solid of seam's own (%s); a preCICE participant "
                       "exchanges plain data", name, ops->needs_bpp ? "the boundary pressure projection"
                                                                     : "impulse loads");
    } else if (ops->iterates && !sv->s.implicit) {
        seam_cfg_error(c, "scheme", "%s iterates, but the configuration's coupling scheme is explicit (no "
                       "convergence measures to stop it)", name);
    } else {
        *self = ops->create(c);
    }
    bool ok = seam_cfg_finish(c) == SEAM_OK && *self;
    if (!ok && *self) {
        ops->destroy(*self);
        *self = NULL;
    }
    seam_cfg_destroy(&c);
    seam_doc_destroy(&doc);
    if (ok && !sv->quiet)
        fprintf(stderr, "seam: coupling scheme %s (%s)\n", ops->name, json);
    return ok ? ops : NULL;
}

/* ---- main ----------------------------------------------------------------- */

static void usage_error(const char *msg)
{
    fprintf(stderr, "seam: %s\nusage: seam run CONFIG.xml [--precice-serve EXCH] [--set coupling.KEY=VALUE]... "
                    "[--out DIR] [--quiet]\n", msg);
}

static void close_all(server *sv)
{
    for (size_t p = 0; sv->parts && p < sv->cfg->n_participants; p++) {
        part *pt = &sv->parts[p];
        for (size_t m = 0; m < sv->cfg->n_meshes; m++)
            free(pt->regions[m].ids);
        free(pt->regions);
        for (size_t w = 0; w < sv->cfg->participants[p].n_writes; w++)
            free(pt->initial[w]);
        free(pt->initial);
        free(pt->n_initial);
        for (int r = 0; r < pt->size; r++)
            free(pt->ranks[r].held);
        free(pt->ranks);
        for (size_t m = 0; pt->first && m < sv->cfg->n_meshes; m++)
            free(pt->first[m]);
        free(pt->first);
    }
    free(sv->parts);
    for (size_t i = 0; i < sv->n_watches; i++) {
        fclose(sv->watches[i].f);
        seam_csr_destroy(&sv->watches[i].M);
    }
    free(sv->watches);
    for (size_t p = 0; sv->s.iterations_logs && p < sv->cfg->n_participants; p++)
        if (sv->s.iterations_logs[p])
            fclose(sv->s.iterations_logs[p]);
    free(sv->s.iterations_logs);
    if (sv->s.convergence_log)
        fclose(sv->s.convergence_log);
    sv->s.iterations_logs = NULL;
    sv->s.convergence_log = NULL;
    if (sv->sock)
        zmq_close(sv->sock);
    if (sv->zctx)
        zmq_ctx_term(sv->zctx);
    if (sv->json_path[0])
        unlink(sv->json_path);
    pcs_fini(&sv->s);
}

static void warn_cb(void *ctx, const char *message)
{
    (void)ctx;
    fprintf(stderr, "seam: warning: %s\n", message);
}

/* Every participant's pending request gets the failure; then exit 1. */
static int end_failed(server *sv)
{
    if (!sv->s.error[0])
        fail(sv, "the coupling failed");
    for (size_t p = 0; sv->parts && p < sv->cfg->n_participants; p++)
        for (int r = 0; r < sv->parts[p].size; r++)
            if (sv->parts[p].ranks[r].pending)
                send_error_to(sv, sv->parts[p].ranks[r].id, sv->parts[p].ranks[r].id_len, sv->s.error);
    fprintf(stderr, "seam: error: %s\n", sv->s.error);
    return 1;
}

/* Each participant's messages of the coupling iterations (advance requests
 * and the step replies to them): per rank, that of the most bytes. */
static void print_traffic(const server *sv)
{
    for (size_t p = 0; p < sv->cfg->n_participants; p++) {
        const part *pt = &sv->parts[p];
        int top = 0;
        for (int r = 1; r < pt->size; r++)
            if (pt->ranks[r].bytes_in + pt->ranks[r].bytes_out > pt->ranks[top].bytes_in + pt->ranks[top].bytes_out)
                top = r;
        const rank_conn *rc = &pt->ranks[top];
        fprintf(stderr, "seam: traffic: participant %s, %d rank%s: %zu advance requests and as many replies per rank; "
                "rank %d: %zu bytes in, %zu bytes out\n", pname(sv, (int)p), pt->size, pt->size == 1 ? "" : "s",
                rc->advances, top, rc->bytes_in, rc->bytes_out);
    }
}

static int serve(server *sv, char **sets, int n_sets)
{
    char err[1024];
    const precice_config *cfg = sv->cfg;
    if (!pcs_init(&sv->s, cfg, err, sizeof err)) {
        fprintf(stderr, "seam: %s\n", err);
        return 1;
    }
    void *self = NULL;
    const seam_scheme_ops *ops = make_scheme(sv, sets, n_sets, &self);
    if (!ops)
        return 1;
    sv->parts = SEAM_NEW_N(part, cfg->n_participants);
    for (size_t p = 0; p < cfg->n_participants; p++) {
        sv->parts[p].regions = SEAM_NEW_N(region, cfg->n_meshes ? cfg->n_meshes : 1);
        sv->parts[p].initial = SEAM_NEW_N(double *, cfg->participants[p].n_writes + 1);
        sv->parts[p].n_initial = SEAM_NEW_N(size_t, cfg->participants[p].n_writes + 1);
    }
    int rc = 1;
    if (!open_socket(sv, err, sizeof err)) {
        fprintf(stderr, "seam: %s\n", err);
        ops->destroy(self);
        return 1;
    }
    if (!sv->quiet)
        fprintf(stderr, "seam: coupler for %s waiting for %zu participants (%s)\n", cfg->path,
                cfg->n_participants, sv->json_path);
    bool ok = true;
    /* A coupler a participant started ends when none says hello in time
     * (its starter died first); one a user started waits for them. */
    double timeout = sv->spawned ? 60.0 : 0.0;
    const char *env = getenv("SEAM_PRECICE_TIMEOUT");
    if (sv->spawned && env && atof(env) > 0)
        timeout = atof(env);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {   /* every participant says hello and initializes */
        bool done = true, any = false;
        for (size_t p = 0; p < cfg->n_participants; p++) {
            done = done && sv->parts[p].initialized;
            any = any || sv->parts[p].size > 0;
        }
        if (done || !(ok = receive(sv, false)))
            break;
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (!any && timeout > 0 && (double)(t1.tv_sec - t0.tv_sec) > timeout) {
            fail(sv, "no participant connected within %g s (SEAM_PRECICE_TIMEOUT)", timeout);
            ok = false;
            break;
        }
    }
    if (ok && !pcs_build(&sv->s, err, sizeof err)) {
        fail(sv, "%s", err);
        ok = false;
    }
    if (ok) {
        resolve_regions(sv);
        if (!apply_initial_data(sv, err, sizeof err)) {
            fail(sv, "%s", err);
            ok = false;
        }
    }
    if (ok) {
        open_logs(sv);
        open_outputs(sv);
        open_watches(sv);
        sv->s.on_window = watch_rows;
        sv->s.on_window_ctx = sv;
        ok = pcs_run(&sv->s, ops, self, &transport, sv);
    }
    if (ok) {
        if (!sv->quiet) {
            fprintf(stderr, "seam: coupling done: %ld time windows, %d iterations, %ld not converged\n",
                    sv->s.window, sv->s.total_iterations, sv->s.unconverged);
            print_traffic(sv);
        }
        rc = 0;
    } else {
        rc = end_failed(sv);
    }
    close_outputs(sv);
    ops->destroy(self);
    return rc;
}

int seam_precice_main(int argc, char **argv)
{
    const char *config = NULL, *exch = NULL, *out = NULL;
    char **sets = SEAM_NEW_N(char *, (size_t)argc + 1);
    int n_sets = 0;
    bool quiet = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--precice-serve") == 0 && v) {
            exch = v;
            i++;
        } else if (strcmp(a, "--set") == 0 && v) {
            sets[n_sets++] = argv[++i];
        } else if (strncmp(a, "--set=", 6) == 0) {
            sets[n_sets++] = argv[i] + 6;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(a, "--out") == 0 && v) {
            out = v;
            i++;
        } else if (a[0] != '-' && !config) {
            config = a;
        } else {
            char msg[512];
            snprintf(msg, sizeof msg, "%s: not an option of a preCICE run", a);
            usage_error(msg);
            free(sets);
            return 2;
        }
    }
    if (!config) {
        usage_error("no configuration");
        free(sets);
        return 2;
    }
    char err[1024];
    server sv = {.quiet = quiet, .spawned = exch != NULL, .hang_s = 10.0};
    const char *hang = getenv("SEAM_PRECICE_HANG_S");   /* tests shorten it */
    if (hang && atof(hang) > 0.0)
        sv.hang_s = atof(hang);
    if (out)
        snprintf(sv.out, sizeof sv.out, "%s", out);
    precice_config *cfg = precice_config_load(config, err, sizeof err, warn_cb, NULL);
    if (!cfg) {
        fprintf(stderr, "seam: %s\n", err);
        free(sets);
        return 1;
    }
    sv.cfg = cfg;
    if (!seam_precice_config_key(config, sv.key)) {
        fprintf(stderr, "seam: cannot read %s\n", config);
        precice_config_destroy(&cfg);
        free(sets);
        return 1;
    }
    gethostname(sv.host, sizeof sv.host - 1);
    char dir[PATH_MAX];
    if (exch) {
        snprintf(dir, sizeof dir, "%s", exch);
    } else {
        snprintf(dir, sizeof dir, "%s", cfg->real_path ? cfg->real_path : config);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(dir, sizeof dir, ".");
    }
    snprintf(sv.run_dir, sizeof sv.run_dir, "%s/precice-run", dir);
    snprintf(sv.json_path, sizeof sv.json_path, "%s/seam-coupler.json", sv.run_dir);
    struct sigaction sa = {.sa_handler = on_stop};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int rc = serve(&sv, sets, n_sets);
    close_all(&sv);
    precice_config_destroy(&cfg);
    free(sets);
    return rc;
}
