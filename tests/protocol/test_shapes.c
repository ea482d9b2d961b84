/* The wire derived from plugin.h's entry list: every shaped entry called
 * through the remote proxy and seam-serve's session (a server thread, an
 * ipc socket) gives what the same plugin gives in-process, bit for bit
 * (NaN payloads and signed zeros in the arrays), and what the plugin was
 * handed arrives bit for bit; the keys entry, asked of the table before
 * any create, travels too. The test knows which entries it covers and
 * fails when the list gains a shaped entry it does not call. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "remote.h"
#include "seam/alloc.h"
#include "seam/vtk.h"
#include "serve.h"
#include "shape.h"

/* ---- a plugin whose answers are functions of what it was handed -------- */

typedef struct probe {
    char record[8192];       /* one line per call: what it was handed, hashed bit for bit */
    size_t len;
    double C[12], q[2], M[12];
} probe;

static uint64_t fnv(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; p && i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return p ? h : 0;
}

static void note(probe *pr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(pr->record + pr->len, sizeof pr->record - pr->len, fmt, ap);
    va_end(ap);
    if (n > 0 && pr->len + (size_t)n < sizeof pr->record)
        pr->len += (size_t)n;
}

static void *p_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    probe *pr = SEAM_NEW(probe);
    note(pr, "create %s vtk %u\n", config_json, host->vtk_format);
    return pr;
}
static void p_destroy(void *self) { free(self); }
static seam_status p_max_dt(void *self, double *dt) { (void)self; *dt = INFINITY; return SEAM_OK; }
static seam_status p_solve(void *self, const seam_step *s, const seam_input *in, seam_output *out)
{
    (void)self, (void)s, (void)in, (void)out;
    return SEAM_OK;
}
static seam_status p_commit(void *self) { (void)self; return SEAM_OK; }

static double X0[6] = {0.5, -0.0, 1.25, 2.0, 3.0, 4.0};
static const double mass0[3] = {1.0, 2.0, 3.0};
static const int32_t body0[3] = {0, 0, 1}, elems0[4] = {0, 1, 1, 2};
static const uint8_t two_sided0[2] = {1, 0};

static seam_status p_describe(void *self, seam_interface *f)
{
    note(self, "describe\n");
    *f = (seam_interface){.dim = 2, .n_points = 3, .X = X0, .mass = mass0, .body = body0, .nodes_per_elem = 2,
                          .n_elems = 2, .elems = elems0, .two_sided = two_sided0, .n_bodies = 2};
    return SEAM_OK;
}

static seam_status p_bind(void *self, const seam_interface *f)
{
    size_t ne = f->n_elems * (size_t)f->nodes_per_elem;
    note(self, "bind %d %zu %d %zu %zu X %llx mass %llx body %llx elems %llx two_sided %llx\n", f->dim, f->n_points,
         f->nodes_per_elem, f->n_elems, f->n_bodies, (unsigned long long)fnv(f->X, f->n_points * (size_t)f->dim * 8),
         (unsigned long long)fnv(f->mass, f->n_points * 8), (unsigned long long)fnv(f->body, f->n_points * 4),
         (unsigned long long)fnv(f->elems, ne * 4), (unsigned long long)fnv(f->two_sided, f->n_elems));
    return SEAM_OK;
}

static seam_status p_regions(void *self, const seam_step *s, const double *X, seam_regions *out)
{
    probe *pr = self;
    note(pr, "regions %lld %a %a %d X %llx\n", (long long)s->index, s->t, s->dt, s->iteration,
         (unsigned long long)fnv(X, 6 * 8));
    for (int i = 0; i < 12; i++)
        pr->C[i] = X[i % 6] * (i + 1) - s->t, pr->M[i] = -0.0 * X[i % 6];
    pr->q[0] = s->dt, pr->q[1] = -s->dt;
    *out = (seam_regions){.count = 2, .n = 6, .C = pr->C, .q = pr->q, .M = pr->M};
    return SEAM_OK;
}

static seam_status p_mobility(void *self, const double *impulse, double *dv)
{
    note(self, "mobility %llx\n", (unsigned long long)fnv(impulse, 6 * 8));
    for (int i = 0; i < 6; i++)
        dv[i] = 0.5 * impulse[i] + i;
    return SEAM_OK;
}

static seam_status p_save(void *self, seam_buffer *out)
{
    probe *pr = self;
    *out = (seam_buffer){pr->record, pr->len};
    return SEAM_OK;
}

static seam_status p_load(void *self, const void *bytes, size_t n)
{
    note(self, "load %zu %llx\n", n, (unsigned long long)fnv(bytes, n));
    return SEAM_OK;
}

static seam_status p_write_output(void *self, const char *dir, int frame)
{
    note(self, "write_output %s %d\n", dir, frame);
    return SEAM_OK;
}

static seam_status p_domain(void *self, double lo[3], double hi[3])
{
    note(self, "domain\n");
    const double l[3] = {-1.0, -0.0, 0.0}, h[3] = {2.0, 3.0, 0.0};
    memcpy(lo, l, sizeof l);
    memcpy(hi, h, sizeof h);
    return SEAM_OK;
}

static const char *const k_name[] = {"a", "coupling.b", "c"};
static const int32_t k_type[] = {SEAM_KEY_NUMBER, SEAM_KEY_ENUM, SEAM_KEY_INTEGER};
static const double k_lo[] = {-INFINITY, NAN, 1.0}, k_hi[] = {INFINITY, NAN, 9.0};
static const char *const k_choices[] = {"", "x|y", ""};
static const char *const k_doc[] = {"a number", "one of two", "\xc3\xa9 a count"};

static seam_status p_keys(const seam_plugin *plugin, seam_keys *out)
{
    (void)plugin;
    *out = (seam_keys){3, k_name, k_type, k_lo, k_hi, k_choices, k_doc};
    return SEAM_OK;
}

static const seam_plugin probe_table = {
    .abi = SEAM_ABI_VERSION, .name = "shapes_probe", .role = SEAM_SOLID, .summary = "every shaped entry",
    .create = p_create, .destroy = p_destroy, .max_dt = p_max_dt, .solve = p_solve, .commit = p_commit,
    .describe = p_describe, .bind = p_bind, .regions = p_regions, .mobility = p_mobility, .save = p_save,
    .load = p_load, .write_output = p_write_output, .domain = p_domain, .keys = p_keys,
};

/* ---- a server thread ------------------------------------------------------ */

typedef struct server {
    pthread_t thread;
    volatile sig_atomic_t stop, ready;
    char endpoint[512], dir[256];
} server;

static void on_ready(void *ctx, const char *endpoint)
{
    server *s = ctx;
    snprintf(s->endpoint, sizeof s->endpoint, "%s", endpoint);
    s->ready = 1;
}

static void *serve_thread(void *ctx)
{
    server *s = ctx;
    char bind[512], err[512];
    snprintf(bind, sizeof bind, "ipc://%s/s.sock", s->dir);
    seam_serve_options o = {.bind = bind, .heartbeat_s = 0, .stop = &s->stop, .on_ready = on_ready, .ready_ctx = s};
    if (seam_serve(&probe_table, &o, err, sizeof err) != 0)
        fprintf(stderr, "seam_serve: %s\n", err);
    return NULL;
}

static void log_to_stderr(void *ctx, seam_log_level level, const char *message)
{
    (void)ctx;
    fprintf(stderr, "[%d] %s\n", (int)level, message);
}

static const char *tested[] = {"describe", "bind", "regions", "mobility", "save", "load", "write_output", "domain",
                               "keys"};

static void assert_same_doubles(const double *a, const double *b, size_t n)
{
    assert_true(n == 0 || (a && b));
    if (n)
        assert_memory_equal(a, b, n * sizeof *a);
}

static void test_every_shaped_entry_round_trips(void **state)
{
    (void)state;
    for (int e = 0; e < WIRE_E_COUNT; e++) {   /* a shaped entry this test does not call fails it */
        const wire_entry *d = wire_entry_at(e);
        bool covered = !d->name;
        for (size_t i = 0; i < sizeof tested / sizeof tested[0]; i++)
            covered |= d->name && strcmp(d->name, tested[i]) == 0;
        if (!covered)
            fail_msg("shaped entry \"%s\" has no round trip here", d->name);
    }
    server s = {0};
    snprintf(s.dir, sizeof s.dir, "/tmp/seam-shapes-XXXXXX");
    assert_non_null(mkdtemp(s.dir));
    assert_int_equal(pthread_create(&s.thread, NULL, serve_thread, &s), 0);
    while (!s.ready)
        usleep(1000);
    char err[1024];
    seam_remote_options o = {.name = "probe", .timeout_s = 10, .start_timeout_s = 10};
    seam_remote *r = seam_remote_connect(s.endpoint, &o, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    const seam_plugin *P = seam_remote_plugin(r), *L = &probe_table;

    /* keys: of the table, before any create */
    seam_keys kr = {0}, kl = {0};
    assert_int_equal(P->keys(P, &kr), SEAM_OK);
    L->keys(L, &kl);
    assert_int_equal(kr.count, kl.count);
    for (size_t i = 0; i < kl.count; i++) {
        assert_string_equal(kr.name[i], kl.name[i]);
        assert_string_equal(kr.choices[i], kl.choices[i]);
        assert_string_equal(kr.doc[i], kl.doc[i]);
        assert_int_equal(kr.type[i], kl.type[i]);
    }
    assert_same_doubles(kr.lo, kl.lo, kl.count);
    assert_same_doubles(kr.hi, kl.hi, kl.count);

    seam_host host = {.abi = SEAM_ABI_VERSION, .name = "probe", .log = log_to_stderr, .vtk_format = SEAM_VTK_LEGACY};
    void *rs = P->create(P, "{\"k\": 1}", &host), *ls = L->create(L, "{\"k\": 1}", &host);
    assert_non_null(rs);

    seam_interface fr, fl;
    assert_int_equal(P->describe(rs, &fr), SEAM_OK);
    L->describe(ls, &fl);
    assert_true(fr.dim == fl.dim && fr.n_points == fl.n_points && fr.nodes_per_elem == fl.nodes_per_elem &&
                fr.n_elems == fl.n_elems && fr.n_bodies == fl.n_bodies);
    assert_same_doubles(fr.X, fl.X, 6);
    assert_same_doubles(fr.mass, fl.mass, 3);
    assert_memory_equal(fr.body, fl.body, sizeof body0);
    assert_memory_equal(fr.elems, fl.elems, sizeof elems0);
    assert_memory_equal(fr.two_sided, fl.two_sided, sizeof two_sided0);

    uint64_t nan_bits = 0x7ff8000000012345ull;   /* a NaN with a payload */
    double Xb[6] = {1.0, -0.0, 0.0, 2.5, 1e-300, 0.0};
    memcpy(&Xb[5], &nan_bits, sizeof nan_bits);
    seam_interface b = {.dim = 2, .n_points = 3, .X = Xb, .body = body0, .nodes_per_elem = 2, .n_elems = 2,
                        .elems = elems0, .n_bodies = 2};   /* mass and two_sided NULL */
    assert_int_equal(P->bind(rs, &b), SEAM_OK);
    L->bind(ls, &b);

    seam_step st = {.index = 7, .t = 0.125, .dt = 1e-3, .iteration = 2};
    seam_regions rr, rl;
    assert_int_equal(P->regions(rs, &st, Xb, &rr), SEAM_OK);
    L->regions(ls, &st, Xb, &rl);
    assert_true(rr.count == rl.count && rr.n == rl.n);
    assert_same_doubles(rr.C, rl.C, rl.count * rl.n);
    assert_same_doubles(rr.q, rl.q, rl.count);
    assert_same_doubles(rr.M, rl.M, rl.count * rl.n);

    double dvr[6], dvl[6];
    assert_int_equal(P->mobility(rs, Xb, dvr), SEAM_OK);
    L->mobility(ls, Xb, dvl);
    assert_same_doubles(dvr, dvl, 6);

    const char blob[] = "\x00\x01state\xff";
    assert_int_equal(P->load(rs, blob, sizeof blob), SEAM_OK);
    L->load(ls, blob, sizeof blob);
    assert_int_equal(P->write_output(rs, "/tmp/frames here", 12), SEAM_OK);
    L->write_output(ls, "/tmp/frames here", 12);

    double lor[3], hir[3], lol[3], hil[3];
    assert_int_equal(P->domain(rs, lor, hir), SEAM_OK);
    L->domain(ls, lol, hil);
    assert_same_doubles(lor, lol, 3);
    assert_same_doubles(hir, hil, 3);

    /* save: what the plugin was handed by every call above, as it recorded it */
    seam_buffer br, bl;
    assert_int_equal(P->save(rs, &br), SEAM_OK);
    L->save(ls, &bl);
    assert_int_equal(br.size, bl.size);
    assert_memory_equal(br.data, bl.data, bl.size);
    assert_non_null(strstr(bl.data, "vtk 1\n"));   /* the host's frame format reached create */

    P->destroy(rs);
    L->destroy(ls);
    s.stop = 1;
    pthread_join(s.thread, NULL);
    rmdir(s.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_shaped_entry_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
