/* The coupler side of a preCICE configuration without sockets: seam's
 * schemes on the stacked exchanged data (coupler/precice_couple.c), with
 * participants that are analytic maps.
 *
 * A writes F = a X + b and B writes X = c F + d, vertex by vertex (A
 * reads X, B reads F): the coupled answer is X* = (c b + d) / (1 - c a),
 * F* = a X* + b. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "precice_couple.h"
#include "scheme.h"
#include "seam/config.h"

#define NV 4

static const double coef_a[NV] = {0.5, -0.3, 0.8, 0.1}, coef_b[NV] = {1.0, 2.0, -1.0, 0.5};
static const double coef_c[NV] = {0.9, 0.7, -0.6, 0.4}, coef_d[NV] = {0.2, -0.5, 0.3, 1.0};

typedef struct solver_log {
    int solves[2];
    int write_ckpt[2], read_ckpt[2], complete[2];
    /* the waveform test: what A read at its last solve */
    size_t n_samples;
    double times[8], first_values[8];
    bool substeps;             /* B writes two samples (T/2 and T) */
    double mid_offset;         /* B's sample at T/2 is its end value plus this */
    double raw_end0;           /* B's end value at vertex 0, at its first solve */
    double drift;              /* B writes X = c F + d + drift t (t: the window's end) */
    int per_window[16];        /* B's solves in each window */
} solver_log;

/* Participant 0 is A, 1 is B (the configurations below list them so). */
static bool analytic_solve(void *ctx, pcs *s, const int *parts, size_t n)
{
    solver_log *lg = ctx;
    for (size_t i = 0; i < n; i++) {
        int p = parts[i];
        pcs_port *port = &s->ports[p];
        lg->solves[p]++;
        if (p == 1 && port->window > 0)
            lg->per_window[(int)lround(port->time / port->window) & 15]++;
        lg->write_ckpt[p] += port->write_checkpoint;
        lg->read_ckpt[p] += port->read_checkpoint;
        lg->complete[p] += port->complete;
        const pcs_samples *in = &port->reads[0];
        const double *end = in->values + (in->n_samples - 1) * in->n;
        pcs_samples *out = &port->writes[0];
        if (p == 0) {
            lg->n_samples = in->n_samples;
            for (size_t k = 0; k < in->n_samples && k < 8; k++) {
                lg->times[k] = in->times[k];
                lg->first_values[k] = in->values[k * in->n];
            }
        }
        bool two = p == 1 && lg->substeps;
        pcs_samples_resize(out, out->n, two ? 2 : 1);
        double *v = out->values + (two ? out->n : 0);
        for (size_t j = 0; j < NV; j++)
            v[j] = p == 0 ? coef_a[j] * end[j] + coef_b[j]
                          : coef_c[j] * end[j] + coef_d[j] + lg->drift * (port->time + port->window);
        out->times[two ? 1 : 0] = port->window;
        if (two) {
            out->times[0] = port->window / 2;
            for (size_t j = 0; j < NV; j++)
                out->values[j] = v[j] + lg->mid_offset;
            if (lg->solves[1] == 1)
                lg->raw_end0 = v[0];
        }
    }
    return true;
}

static const pcs_transport analytic = {analytic_solve, NULL};

/* A configuration: two participants on meshes MA (A's) and MB (B's), the
 * same points, nearest-neighbour read mappings; scheme and extra elements as given. */
static char *write_config(const char *scheme, const char *scheme_body, const char *b_exchange_attrs, int windows)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/test_server_couple_%d.xml", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "<?xml version=\"1.0\"?>\n"
            "<precice-configuration>\n"
            "  <data:scalar name=\"F\" />\n"
            "  <data:scalar name=\"X\" />\n"
            "  <mesh name=\"MA\" dimensions=\"2\"><use-data name=\"F\" /><use-data name=\"X\" /></mesh>\n"
            "  <mesh name=\"MB\" dimensions=\"2\"><use-data name=\"F\" /><use-data name=\"X\" /></mesh>\n"
            "  <participant name=\"A\">\n"
            "    <provide-mesh name=\"MA\" />\n"
            "    <receive-mesh name=\"MB\" from=\"B\" />\n"
            "    <write-data name=\"F\" mesh=\"MA\" />\n"
            "    <read-data name=\"X\" mesh=\"MA\" />\n"
            "    <mapping:nearest-neighbor direction=\"read\" from=\"MB\" to=\"MA\" constraint=\"consistent\" />\n"
            "  </participant>\n"
            "  <participant name=\"B\">\n"
            "    <provide-mesh name=\"MB\" />\n"
            "    <receive-mesh name=\"MA\" from=\"A\" />\n"
            "    <write-data name=\"X\" mesh=\"MB\" />\n"
            "    <read-data name=\"F\" mesh=\"MB\" />\n"
            "    <mapping:nearest-neighbor direction=\"read\" from=\"MA\" to=\"MB\" constraint=\"consistent\" />\n"
            "  </participant>\n"
            "  <m2n:sockets acceptor=\"A\" connector=\"B\" />\n"
            "  <coupling-scheme:%s>\n"
            "    <participants first=\"A\" second=\"B\" />\n"
            "    <max-time-windows value=\"%d\" />\n"
            "    <time-window-size value=\"0.1\" />\n"
            "    <exchange data=\"F\" mesh=\"MA\" from=\"A\" to=\"B\" />\n"
            "    <exchange data=\"X\" mesh=\"MB\" from=\"B\" to=\"A\" %s/>\n"
            "%s"
            "  </coupling-scheme:%s>\n"
            "</precice-configuration>\n",
            scheme, windows, b_exchange_attrs ? b_exchange_attrs : "", scheme_body, scheme);
    fclose(f);
    return path;
}

static precice_config *load(const char *path, char *err, size_t n)
{
    precice_config *c = precice_config_load(path, err, n, NULL, NULL);
    return c;
}

/* Every mesh: NV points on a line, the same in all. */
static void give_meshes(pcs *s)
{
    for (size_t m = 0; m < s->cfg->n_meshes; m++) {
        pcs_mesh *pm = &s->meshes[m];
        pm->known = true;
        pm->dim = 2;
        pm->n = NV;
        pm->X = calloc(2 * NV, sizeof *pm->X);
        for (int i = 0; i < NV; i++)
            pm->X[2 * i] = i;
    }
}

/* Run a configuration with the scheme its acceleration names (or the --set override). */
static bool run_config_with(const pcs_transport *io, const char *path, const char *override, void *lg, pcs *s,
                            precice_config **cfg_out, char *err, size_t n)
{
    precice_config *cfg = load(path, err, n);
    assert_non_null(cfg);
    *cfg_out = cfg;
    if (!pcs_init(s, cfg, err, n))
        return false;
    give_meshes(s);
    assert_true(pcs_build(s, err, n));
    char json[2048], text[2300];
    if (!pcs_coupling_json(cfg, json, sizeof json, err, n))
        return false;
    snprintf(text, sizeof text, "{\"coupling\": %s}", json);
    seam_doc *doc = seam_doc_parse(text, "test", err, n);
    assert_non_null(doc);
    if (override)
        assert_int_equal(seam_doc_set(doc, override, err, n), SEAM_OK);
    seam_cfg *c = seam_cfg_new(json_object_get(seam_doc_root(doc), "coupling"), "coupling", doc, NULL, NULL);
    const seam_scheme_ops *ops = seam_scheme_find(seam_cfg_str(c, "scheme", "", 0));
    pcs_read(s, c);
    assert_non_null(ops);
    void *self = ops->create(c);
    assert_int_equal(seam_cfg_finish(c), SEAM_OK);
    bool ok = pcs_run(s, ops, self, io, lg);
    ops->destroy(self);
    seam_cfg_destroy(&c);
    seam_doc_destroy(&doc);
    return ok;
}

static bool run_config(const char *path, const char *override, solver_log *lg, pcs *s, precice_config **cfg_out,
                       char *err, size_t n)
{
    return run_config_with(&analytic, path, override, lg, s, cfg_out, err, n);
}

static double x_star(int j) { return (coef_c[j] * coef_b[j] + coef_d[j]) / (1 - coef_c[j] * coef_a[j]); }

static const char *iqn_body =
    "    <max-iterations value=\"30\" />\n"
    "    <absolute-convergence-measure data=\"X\" mesh=\"MB\" limit=\"1e-12\" />\n"
    "    <acceleration:IQN-ILS>\n"
    "      <data name=\"X\" mesh=\"MB\" />\n"
    "      <initial-relaxation value=\"0.5\" />\n"
    "      <preconditioner type=\"residual-sum\" />\n"
    "      <filter type=\"QR2\" limit=\"1e-8\" />\n"
    "    </acceleration:IQN-ILS>\n";

/* Serial implicit with IQN-ILS: the blocks hold the coupled answer, and A
 * is told to write a checkpoint at each window's first solve, to read it on
 * each repeat. */
static void serial_implicit_iqn_converges(void **state)
{
    (void)state;
    char err[1024];
    const char *path = write_config("serial-implicit", iqn_body, NULL, 3);
    solver_log lg = {0};
    pcs s;
    precice_config *cfg;
    assert_true(run_config(path, NULL, &lg, &s, &cfg, err, sizeof err));
    for (size_t e = 0; e < s.n_blocks; e++) {
        const pcs_block *b = &s.blocks[e];
        for (int j = 0; j < NV; j++) {
            double want = b->in_x ? x_star(j) : coef_a[j] * x_star(j) + coef_b[j];
            assert_true(fabs(b->start[j] - want) < 1e-9);
        }
    }
    assert_int_equal(s.window, 3);
    /* IQN on a linear map of 4 unknowns: at most 4 secant steps past the first relaxation */
    assert_true(s.total_iterations <= 3 * 7);
    assert_int_equal(lg.write_ckpt[0], 3);
    assert_int_equal(lg.read_ckpt[0], lg.solves[0] - 3);
    assert_int_equal(lg.complete[0], 2);   /* windows 2 and 3 start after an accepted window */
    assert_int_equal(lg.solves[0], lg.solves[1]);
    pcs_fini(&s);
    precice_config_destroy(&cfg);
    unlink(path);
}

/* Parallel implicit: Z = (F, X), fluid the identity, both solve each iteration. */
static void parallel_implicit_iqn_converges(void **state)
{
    (void)state;
    char err[1024];
    const char *body =
        "    <max-iterations value=\"30\" />\n"
        "    <absolute-convergence-measure data=\"X\" mesh=\"MB\" limit=\"1e-12\" />\n"
        "    <absolute-convergence-measure data=\"F\" mesh=\"MA\" limit=\"1e-12\" />\n"
        "    <acceleration:IQN-ILS>\n"
        "      <data name=\"X\" mesh=\"MB\" />\n"
        "      <data name=\"F\" mesh=\"MA\" />\n"
        "      <initial-relaxation value=\"0.5\" />\n"
        "      <filter type=\"QR2\" limit=\"1e-8\" />\n"
        "    </acceleration:IQN-ILS>\n";
    const char *path = write_config("parallel-implicit", body, NULL, 3);
    solver_log lg = {0};
    pcs s;
    precice_config *cfg;
    assert_true(run_config(path, NULL, &lg, &s, &cfg, err, sizeof err));
    assert_false(s.serial);
    for (size_t e = 0; e < s.n_blocks; e++) {
        const pcs_block *b = &s.blocks[e];
        for (int j = 0; j < NV; j++) {
            double want = b->from == 1 ? x_star(j) : coef_a[j] * x_star(j) + coef_b[j];
            assert_true(fabs(b->start[j] - want) < 1e-9);
        }
    }
    assert_int_equal(lg.solves[0], lg.solves[1]);
    assert_int_equal(lg.read_ckpt[1], lg.solves[1] - 3);
    pcs_fini(&s);
    precice_config_destroy(&cfg);
    unlink(path);
}

/* Plain fixed-point iteration (no acceleration) on a map whose residual
 * shrinks by c a each iteration: the absolute measure stops at the first
 * iteration k with ||r_0|| |c a|^(k-1) <= limit, as preCICE's does. */
static void absolute_measure_counts_iterations(void **state)
{
    (void)state;
    char err[1024];
    const char *body =
        "    <max-iterations value=\"200\" />\n"
        "    <absolute-convergence-measure data=\"X\" mesh=\"MB\" limit=\"1e-6\" />\n";
    const char *path = write_config("serial-implicit", body, NULL, 1);
    solver_log lg = {0};
    pcs s;
    precice_config *cfg;
    assert_true(run_config(path, NULL, &lg, &s, &cfg, err, sizeof err));
    /* from X = 0: e_k = X^k - X* shrinks by c_j a_j per vertex; r_k = (c a - 1) e_k */
    int want = 0;
    for (int k = 1; k < 200 && !want; k++) {
        double r2 = 0;
        for (int j = 0; j < NV; j++) {
            double ca = coef_c[j] * coef_a[j], e = -x_star(j) * pow(ca, k - 1);
            r2 += (ca - 1) * e * (ca - 1) * e;
        }
        if (sqrt(r2) <= 1e-6)
            want = k;
    }
    assert_true(want > 3);
    assert_int_equal(s.total_iterations, want);
    assert_int_equal(lg.solves[1], want);
    assert_true(s.last_converged);
    pcs_fini(&s);
    precice_config_destroy(&cfg);
    unlink(path);
}

/* A strict measure not met at max-iterations ends the run naming it; without strict the window is accepted. */
static void strict_measure_fails_at_max_iterations(void **state)
{
    (void)state;
    char err[1024];
    const char *strict =
        "    <max-iterations value=\"3\" />\n"
        "    <absolute-convergence-measure data=\"X\" mesh=\"MB\" limit=\"1e-12\" strict=\"true\" />\n";
    const char *path = write_config("serial-implicit", strict, NULL, 3);
    solver_log lg = {0};
    pcs s;
    precice_config *cfg;
    assert_false(run_config(path, NULL, &lg, &s, &cfg, err, sizeof err));
    assert_non_null(strstr(s.error, "strict absolute convergence measure of data X on mesh MB"));
    assert_non_null(strstr(s.error, "time window 1"));
    assert_int_equal(lg.solves[1], 3);
    pcs_fini(&s);
    precice_config_destroy(&cfg);
    unlink(path);
    const char *loose =
        "    <max-iterations value=\"3\" />\n"
        "    <absolute-convergence-measure data=\"X\" mesh=\"MB\" limit=\"1e-12\" />\n";
    path = write_config("serial-implicit", loose, NULL, 3);
    solver_log lg2 = {0};
    assert_true(run_config(path, NULL, &lg2, &s, &cfg, err, sizeof err));
    assert_int_equal(s.total_iterations, 9);
    assert_false(s.last_converged);
    assert_int_equal(s.unconverged, 3);   /* every window accepted unconverged, and counted */
    pcs_fini(&s);
    precice_config_destroy(&cfg);
    unlink(path);
}

/* A measure marked suffices ends the iteration on its own, even when another has not converged. */
static void suffices_measure_is_enough(void **state)
{
    (void)state;
    char err[1024];
    const char *body =
        "    <max-iterations value=\"50\" />\n"
        "    <absolute-convergence-measure data=\"X\" mesh=\"MB\" limit=\"1e-12\" />\n"
        "    <absolute-convergence-measure data=\"F\" mesh=\"MA\" limit=\"1e30\" suffices=\"true\" />\n";
    const char *path = write_config("serial-implicit", body, NULL, 3);
    solver_log lg = {0};
    pcs s;
    precice_config *cfg;
    assert_true(run_config(path, NULL, &lg, &s, &cfg, err, sizeof err));
    assert_int_equal(s.total_iterations, 3);   /* one iteration per window */
    pcs_fini(&s);
    precice_config_destroy(&cfg);
    unlink(path);
}

/* Waveforms: B writes samples at T/2 and T; the relaxed end value x moves
 * the mid sample by half of its correction: s(T/2) + (x - s(T)) / 2. */
static void waveform_samples_follow_the_end_value(void **state)
{
    (void)state;
    char err[1024];
    const char *body =
        "    <max-iterations value=\"2\" />\n"
        "    <absolute-convergence-measure data=\"X\" mesh=\"MB\" limit=\"1e-14\" />\n"
        "    <acceleration:constant><relaxation value=\"0.5\" /></acceleration:constant>\n";
    const char *path = write_config("serial-implicit", body, "substeps=\"true\" ", 1);
    solver_log lg = {.substeps = true, .mid_offset = 0.25};
    pcs s;
    precice_config *cfg;
    /* one window: A's second solve reads x = 0.5 s(T) (relaxation from 0) */
    assert_true(run_config(path, NULL, &lg, &s, &cfg, err, sizeof err));
    assert_int_equal(lg.solves[0], 2);
    assert_int_equal(lg.n_samples, 3);
    assert_true(fabs(lg.times[1] - 0.05) < 1e-15 && fabs(lg.times[2] - 0.1) < 1e-15);
    double raw_end = lg.raw_end0;   /* B's end value at its first solve */
    double x = 0.5 * raw_end, mid = raw_end + 0.25;
    assert_true(fabs(lg.first_values[0] - 0.0) < 1e-15);
    assert_true(fabs(lg.first_values[2] - x) < 1e-14);
    assert_true(fabs(lg.first_values[1] - (mid + 0.5 * (x - raw_end))) < 1e-14);
    pcs_fini(&s);
    precice_config_destroy(&cfg);
    unlink(path);
}

/* --set coupling.scheme=... runs another seam scheme on the same configuration. */
static void override_scheme_converges(void **state)
{
    (void)state;
    char err[1024];
    const char *path = write_config("serial-implicit", iqn_body, NULL, 3);
    solver_log lg = {0};
    pcs s;
    precice_config *cfg;
    assert_true(run_config(path, "coupling.scheme=iqn-imvj", &lg, &s, &cfg, err, sizeof err));
    for (int j = 0; j < NV; j++)
        assert_true(fabs(s.blocks[1].start[j] - x_star(j)) < 1e-9);
    pcs_fini(&s);
    precice_config_destroy(&cfg);
    unlink(path);
}

/* What seam cannot honour is refused with file:line and the element. */
static void refusals_name_file_and_line(void **state)
{
    (void)state;
    char err[1024];
    const char *qr1 =
        "    <max-iterations value=\"30\" />\n"
        "    <absolute-convergence-measure data=\"X\" mesh=\"MB\" limit=\"1e-12\" />\n"
        "    <acceleration:IQN-ILS>\n"
        "      <data name=\"X\" mesh=\"MB\" />\n"
        "      <filter type=\"QR1\" limit=\"1e-8\" />\n"
        "    </acceleration:IQN-ILS>\n";
    const char *path = write_config("serial-implicit", qr1, NULL, 3);
    solver_log lg = {0};
    pcs s;
    precice_config *cfg;
    assert_false(run_config(path, NULL, &lg, &s, &cfg, err, sizeof err));
    char want[128];
    snprintf(want, sizeof want, "%s:30: <acceleration>: <filter type=\"QR1\">", path);
    assert_non_null(strstr(err, want));
    pcs_fini(&s);
    precice_config_destroy(&cfg);
    /* an explicit scheme with acceleration has nothing to act on */
    path = write_config("serial-explicit",
                        "    <acceleration:constant><relaxation value=\"0.5\" /></acceleration:constant>\n", NULL, 3);
    cfg = load(path, err, sizeof err);
    if (cfg) {   /* the reader may refuse it itself */
        char json[512];
        assert_false(pcs_coupling_json(cfg, json, sizeof json, err, sizeof err));
        assert_non_null(strstr(err, "<acceleration>"));
        precice_config_destroy(&cfg);
    }
    unlink(path);
}

/* Serial explicit: one solve each per window, A first, with B's last values. */
static void serial_explicit_one_solve_each(void **state)
{
    (void)state;
    char err[1024];
    const char *path = write_config("serial-explicit", "", NULL, 3);
    solver_log lg = {0};
    pcs s;
    precice_config *cfg;
    assert_true(run_config(path, NULL, &lg, &s, &cfg, err, sizeof err));
    assert_int_equal(lg.solves[0], 3);
    assert_int_equal(lg.solves[1], 3);
    assert_int_equal(lg.write_ckpt[0] + lg.read_ckpt[0], 0);
    /* X after three explicit windows: X_{w+1} = c (a X_w + b) + d from 0 */
    for (int j = 0; j < NV; j++) {
        double x = 0;
        for (int w = 0; w < 3; w++)
            x = coef_c[j] * (coef_a[j] * x + coef_b[j]) + coef_d[j];
        assert_true(fabs(s.blocks[1].start[j] - x) < 1e-14);
    }
    pcs_fini(&s);
    precice_config_destroy(&cfg);
    unlink(path);
}

/* Multi: Core (the controller) between Left and Right, each side its own
 * pair of maps: Left and Right write HF = a T + b, Core writes T = c HF + d
 * on each side (its read i feeds its write i). */
static const double multi_a[3][2] = {{0.4, 0}, {-0.5, 0}, {0.7, -0.2}};
static const double multi_b[3][2] = {{1.0, 0}, {2.0, 0}, {0.3, -0.4}};

static bool multi_solve(void *ctx, pcs *s, const int *parts, size_t n)
{
    int *solves = ctx;
    for (size_t i = 0; i < n; i++) {
        int p = parts[i];
        solves[p]++;
        pcs_port *port = &s->ports[p];
        for (size_t w = 0; w < s->cfg->participants[p].n_writes; w++) {
            const pcs_samples *in = &port->reads[w];
            const double *x = in->values + (in->n_samples - 1) * in->n;
            pcs_samples *out = &port->writes[w];
            pcs_samples_resize(out, out->n, 1);
            out->times[0] = port->window;
            for (size_t j = 0; j < out->n; j++)
                out->values[j] = multi_a[p][w] * x[j] + multi_b[p][w];
        }
    }
    return true;
}

static void multi_aitken_converges(void **state)
{
    (void)state;
    static const pcs_transport multi = {multi_solve, NULL};
    char err[1024];
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_server_multi_%d.xml", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("<?xml version=\"1.0\"?>\n<precice-configuration>\n"
          "  <data:scalar name=\"HF\" />\n  <data:scalar name=\"T\" />\n"
          "  <mesh name=\"LF\" dimensions=\"2\"><use-data name=\"HF\" /><use-data name=\"T\" /></mesh>\n"
          "  <mesh name=\"RF\" dimensions=\"2\"><use-data name=\"HF\" /><use-data name=\"T\" /></mesh>\n"
          "  <mesh name=\"CL\" dimensions=\"2\"><use-data name=\"HF\" /><use-data name=\"T\" /></mesh>\n"
          "  <mesh name=\"CR\" dimensions=\"2\"><use-data name=\"HF\" /><use-data name=\"T\" /></mesh>\n"
          "  <participant name=\"Left\"><provide-mesh name=\"LF\" /><write-data name=\"HF\" mesh=\"LF\" />"
          "<read-data name=\"T\" mesh=\"LF\" /></participant>\n"
          "  <participant name=\"Right\"><provide-mesh name=\"RF\" /><write-data name=\"HF\" mesh=\"RF\" />"
          "<read-data name=\"T\" mesh=\"RF\" /></participant>\n"
          "  <participant name=\"Core\">\n"
          "    <provide-mesh name=\"CL\" /><provide-mesh name=\"CR\" />\n"
          "    <receive-mesh name=\"LF\" from=\"Left\" /><receive-mesh name=\"RF\" from=\"Right\" />\n"
          "    <read-data name=\"HF\" mesh=\"CL\" /><read-data name=\"HF\" mesh=\"CR\" />\n"
          "    <write-data name=\"T\" mesh=\"CL\" /><write-data name=\"T\" mesh=\"CR\" />\n"
          "    <mapping:nearest-neighbor direction=\"read\" from=\"LF\" to=\"CL\" constraint=\"consistent\" />\n"
          "    <mapping:nearest-neighbor direction=\"read\" from=\"RF\" to=\"CR\" constraint=\"consistent\" />\n"
          "    <mapping:nearest-neighbor direction=\"write\" from=\"CL\" to=\"LF\" constraint=\"conservative\" />\n"
          "    <mapping:nearest-neighbor direction=\"write\" from=\"CR\" to=\"RF\" constraint=\"consistent\" />\n"
          "  </participant>\n"
          "  <m2n:sockets acceptor=\"Core\" connector=\"Left\" />\n"
          "  <m2n:sockets acceptor=\"Core\" connector=\"Right\" />\n"
          "  <coupling-scheme:multi>\n"
          "    <participant name=\"Left\" /><participant name=\"Core\" control=\"yes\" /><participant name=\"Right\" />\n"
          "    <max-time-windows value=\"2\" />\n    <time-window-size value=\"0.5\" />\n"
          "    <max-iterations value=\"60\" />\n"
          "    <exchange data=\"HF\" mesh=\"LF\" from=\"Left\" to=\"Core\" />\n"
          "    <exchange data=\"HF\" mesh=\"RF\" from=\"Right\" to=\"Core\" />\n"
          "    <exchange data=\"T\" mesh=\"LF\" from=\"Core\" to=\"Left\" />\n"
          "    <exchange data=\"T\" mesh=\"RF\" from=\"Core\" to=\"Right\" />\n"
          "    <absolute-convergence-measure data=\"T\" mesh=\"LF\" limit=\"1e-11\" />\n"
          "    <absolute-convergence-measure data=\"T\" mesh=\"RF\" limit=\"1e-11\" />\n"
          "    <acceleration:aitken><data name=\"T\" mesh=\"LF\" /><data name=\"T\" mesh=\"RF\" /></acceleration:aitken>\n"
          "  </coupling-scheme:multi>\n</precice-configuration>\n",
          f);
    fclose(f);
    int solves[3] = {0};
    pcs s;
    precice_config *cfg;
    assert_true(run_config_with(&multi, path, NULL, solves, &s, &cfg, err, sizeof err));
    assert_int_equal(solves[0], solves[2]);
    assert_int_equal(solves[1], solves[2]);
    /* each side's fixed point: T = c (a T + b) + d */
    for (size_t e = 0; e < s.n_blocks; e++) {
        const pcs_block *b = &s.blocks[e];
        int side = b->mesh == precice_config_mesh(cfg, "LF") ? 0 : 1, outer = side;   /* Left 0, Right 1 */
        double a = multi_a[outer][0], bb = multi_b[outer][0], c = multi_a[2][side], d = multi_b[2][side];
        double T = (c * bb + d) / (1 - c * a), HF = a * T + bb;
        double want = b->data == precice_config_data(cfg, "T") ? T : HF;
        for (size_t j = 0; j < b->n; j++)
            assert_true(fabs(b->start[j] - want) < 1e-9);
    }
    pcs_fini(&s);
    precice_config_destroy(&cfg);
    unlink(path);
}

/* coupling.predictor=linear: with a coupled answer linear in time, the
 * prediction from two accepted windows is exact from the third window on,
 * which then converges at its first iteration; without it, it does not. */
static void linear_predictor_is_exact_on_linear_drift(void **state)
{
    (void)state;
    char err[1024];
    const char *body =
        "    <max-iterations value=\"50\" />\n"
        "    <absolute-convergence-measure data=\"X\" mesh=\"MB\" limit=\"1e-10\" />\n"
        "    <acceleration:IQN-ILS>\n"
        "      <data name=\"X\" mesh=\"MB\" />\n"
        "      <initial-relaxation value=\"0.5\" />\n"
        "      <filter type=\"QR2\" limit=\"1e-8\" />\n"
        "    </acceleration:IQN-ILS>\n";
    const char *path = write_config("serial-implicit", body, NULL, 5);
    for (int with = 0; with < 2; with++) {
        solver_log lg = {.drift = 3.0};
        pcs s;
        precice_config *cfg;
        assert_true(run_config(path, with ? "coupling.predictor=linear" : NULL, &lg, &s, &cfg, err, sizeof err));
        assert_int_equal(s.predictor, with);
        for (int w = 2; w < 5; w++)
            if (with)
                assert_int_equal(lg.per_window[w], 1);
            else
                assert_true(lg.per_window[w] > 1);
        for (int j = 0; j < NV; j++)   /* X*(0.5) */
            assert_true(fabs(s.blocks[1].start[j] - (coef_c[j] * coef_b[j] + coef_d[j] + 3.0 * 0.5) /
                                                        (1 - coef_c[j] * coef_a[j])) < 1e-9);
        pcs_fini(&s);
        precice_config_destroy(&cfg);
    }
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(serial_implicit_iqn_converges),
        cmocka_unit_test(parallel_implicit_iqn_converges),
        cmocka_unit_test(absolute_measure_counts_iterations),
        cmocka_unit_test(strict_measure_fails_at_max_iterations),
        cmocka_unit_test(suffices_measure_is_enough),
        cmocka_unit_test(waveform_samples_follow_the_end_value),
        cmocka_unit_test(override_scheme_converges),
        cmocka_unit_test(refusals_name_file_and_line),
        cmocka_unit_test(serial_explicit_one_solve_each),
        cmocka_unit_test(multi_aitken_converges),
        cmocka_unit_test(linear_predictor_is_exact_on_linear_drift),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
