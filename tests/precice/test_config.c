/* The preCICE configuration reader (precice/config.c): the five example
 * configurations under configs/ read field by field, with preCICE's
 * defaults where they are silent; and every refusal and semantic error
 * reported as "FILE:LINE: <element>: ..." at the exact line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "test_host.h"

typedef struct warnings {
    int n;
    char all[8192];
} warnings;

static void collect(void *ctx, const char *message)
{
    warnings *w = ctx;
    w->n++;
    size_t len = strlen(w->all);
    snprintf(w->all + len, sizeof w->all - len, "%s\n", message);
}

static precice_config *load(const char *name, warnings *w)
{
    char path[4096], err[1024];
    snprintf(path, sizeof path, "%s", test_source_path("tests/precice/configs/"));
    strncat(path, name, sizeof path - strlen(path) - 1);
    memset(w, 0, sizeof *w);
    precice_config *c = precice_config_load(path, err, sizeof err, collect, w);
    if (!c)
        fail_msg("%s: %s", name, err);
    return c;
}

static int P(const precice_config *c, const char *n) { return precice_config_participant(c, n); }
static int M(const precice_config *c, const char *n) { return precice_config_mesh(c, n); }
static int D(const precice_config *c, const char *n) { return precice_config_data(c, n); }

static void serial_implicit(void **state)
{
    (void)state;
    warnings w;
    precice_config *c = load("serial_implicit.xml", &w);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.all, "serial_implicit.xml:4: <log>: "));
    assert_non_null(strstr(c->real_path, "tests/precice/configs/serial_implicit.xml"));
    assert_true(c->real_path[0] == '/');

    assert_int_equal(c->n_data, 2);
    assert_string_equal(c->data[0].name, "Pressure");
    assert_false(c->data[0].vector);
    assert_int_equal(c->data[0].components, 1);
    assert_int_equal(c->data[0].waveform_degree, 2);
    assert_int_equal(c->data[0].line, 8);
    assert_true(c->data[1].vector);
    assert_int_equal(c->data[1].components, 2);
    assert_int_equal(c->data[1].waveform_degree, 1);

    assert_int_equal(c->n_meshes, 2);
    int ch = M(c, "Channel"), beam = M(c, "Beam"), pr = D(c, "Pressure"), disp = D(c, "Displacement");
    assert_int_equal(ch, 0);
    assert_int_equal(beam, 1);
    assert_int_equal(c->meshes[beam].dim, 2);
    assert_int_equal(c->meshes[beam].n_use_data, 2);
    assert_int_equal(c->meshes[beam].use_data[0], disp);
    assert_int_equal(c->meshes[beam].use_data[1], pr);
    assert_int_equal(c->meshes[beam].line, 15);
    assert_int_equal(M(c, "Nowhere"), -1);

    int flow = P(c, "Flow"), st = P(c, "Structure");
    assert_int_equal(c->n_participants, 2);
    assert_int_equal(flow, 0);
    assert_int_equal(st, 1);
    const pc_participant *f = &c->participants[flow];
    assert_int_equal(f->line, 20);
    assert_int_equal(f->n_provide, 1);
    assert_int_equal(f->provide[0], ch);
    assert_int_equal(f->n_receive, 1);
    assert_int_equal(f->receive[0].mesh, beam);
    assert_int_equal(f->receive[0].from, st);
    assert_float_equal(f->receive[0].safety_factor, 0.25, 0);
    assert_false(f->receive[0].direct_access);
    assert_int_equal(f->n_writes, 1);
    assert_int_equal(f->writes[0].data, pr);
    assert_int_equal(f->writes[0].mesh, ch);
    assert_int_equal(f->n_reads, 1);
    assert_int_equal(f->reads[0].data, disp);
    assert_int_equal(f->reads[0].line, 24);
    assert_int_equal(f->n_mappings, 1);
    assert_int_equal(f->mappings[0].method, PC_MAP_NEAREST_NEIGHBOR);
    assert_false(f->mappings[0].write);
    assert_int_equal(f->mappings[0].from, beam);
    assert_int_equal(f->mappings[0].to, ch);
    assert_int_equal(f->mappings[0].constraint, PC_CONSISTENT);
    assert_int_equal(f->n_watch_points, 1);
    assert_string_equal(f->watch_points[0].name, "Inlet");
    assert_int_equal(f->watch_points[0].mesh, ch);
    assert_float_equal(f->watch_points[0].coordinate[0], 0.5, 0);
    assert_float_equal(f->watch_points[0].coordinate[1], -1e-3, 0);
    assert_int_equal(f->n_exports, 1);
    assert_int_equal(f->exports[0].kind, PC_EXPORT_VTU);
    assert_string_equal(f->exports[0].directory, "out/flow");
    assert_int_equal(f->exports[0].every_n_time_windows, 4);
    assert_true(f->exports[0].every_iteration);

    const pc_participant *s = &c->participants[st];
    assert_int_equal(s->receive[0].mesh, ch);
    assert_float_equal(s->receive[0].safety_factor, 0.5, 0);
    assert_true(s->receive[0].direct_access);
    assert_int_equal(s->mappings[0].method, PC_MAP_NEAREST_PROJECTION);
    assert_int_equal(s->exports[0].kind, PC_EXPORT_CSV);
    assert_string_equal(s->exports[0].directory, ".");
    assert_int_equal(s->exports[0].every_n_time_windows, 1);
    assert_false(s->exports[0].every_iteration);

    assert_int_equal(c->n_m2n, 1);
    assert_int_equal(c->m2n[0].acceptor, flow);
    assert_int_equal(c->m2n[0].connector, st);
    assert_string_equal(c->m2n[0].exchange_directory, "../exchange");
    assert_string_equal(c->m2n[0].network, "eth0");
    assert_int_equal(c->m2n[0].port, 5012);
    assert_string_equal(precice_config_exchange_directory(c, st), "../exchange");

    const pc_scheme *sc = &c->scheme;
    assert_int_equal(sc->kind, PC_SERIAL_IMPLICIT);
    assert_int_equal(sc->line, 41);
    assert_int_equal(sc->first, flow);
    assert_int_equal(sc->second, st);
    assert_int_equal(sc->n_participants, 2);
    assert_int_equal(sc->controller, -1);
    assert_float_equal(sc->max_time, 2.5, 0);
    assert_int_equal(sc->max_time_windows, -1);
    assert_float_equal(sc->window_size, 0.05, 0);
    assert_int_equal(sc->max_iterations, 30);
    assert_int_equal(sc->min_iterations, 2);
    assert_int_equal(sc->n_exchanges, 2);
    assert_int_equal(sc->exchanges[0].data, pr);
    assert_int_equal(sc->exchanges[0].mesh, ch);
    assert_int_equal(sc->exchanges[0].from, flow);
    assert_int_equal(sc->exchanges[0].to, st);
    assert_false(sc->exchanges[0].initialize);
    assert_true(sc->exchanges[0].substeps);
    assert_true(sc->exchanges[1].initialize);
    assert_false(sc->exchanges[1].substeps);
    assert_int_equal(sc->exchanges[1].line, 48);
    assert_int_equal(sc->n_measures, 3);
    assert_int_equal(sc->measures[0].kind, PC_MEASURE_RELATIVE);
    assert_int_equal(sc->measures[0].data, disp);
    assert_int_equal(sc->measures[0].mesh, beam);
    assert_float_equal(sc->measures[0].limit, 1e-6, 0);
    assert_false(sc->measures[0].strict);
    assert_false(sc->measures[0].suffices);
    assert_int_equal(sc->measures[1].kind, PC_MEASURE_ABSOLUTE);
    assert_true(sc->measures[1].strict);
    assert_int_equal(sc->measures[2].kind, PC_MEASURE_RESIDUAL_RELATIVE);
    assert_true(sc->measures[2].suffices);

    const pc_acceleration *a = &sc->acceleration;
    assert_int_equal(a->kind, PC_ACCEL_IQN_ILS);
    assert_int_equal(a->n_data, 1);
    assert_int_equal(a->data[0].data, disp);
    assert_int_equal(a->data[0].mesh, beam);
    assert_float_equal(a->scaling[0], 1, 0);
    assert_float_equal(a->relaxation, 0.2, 0);
    assert_true(a->enforce_initial_relaxation);
    assert_int_equal(a->max_used_iterations, 40);
    assert_int_equal(a->time_windows_reused, 6);
    assert_int_equal(a->filter, PC_FILTER_QR2);
    assert_float_equal(a->filter_limit, 1e-4, 0);
    assert_int_equal(a->preconditioner, PC_PRECOND_VALUE);
    assert_int_equal(a->preconditioner_freeze_after, 12);
    assert_true(a->preconditioner_update_on_threshold);
    assert_false(a->reduced_time_grid);
    assert_null(a->imvj_restart_mode);
    precice_config_destroy(&c);
    assert_null(c);
}

static void parallel_imvj(void **state)
{
    (void)state;
    warnings w;
    precice_config *c = load("parallel_imvj.xml", &w);
    assert_int_equal(w.n, 0);
    int force = D(c, "Force"), vel = D(c, "Velocity"), shell = M(c, "Shell");
    int fluid = P(c, "Fluid"), solid = P(c, "Solid");
    assert_int_equal(c->data[force].components, 3);
    assert_int_equal(c->data[vel].waveform_degree, 0);
    const pc_participant *f = &c->participants[fluid];
    assert_int_equal(f->n_mappings, 2);
    assert_true(f->mappings[0].write);
    assert_int_equal(f->mappings[0].constraint, PC_CONSERVATIVE);
    assert_int_equal(f->mappings[0].to, shell);
    const pc_watch_point *wp = &c->participants[solid].watch_points[0];
    assert_float_equal(wp->coordinate[0], 1, 0);
    assert_float_equal(wp->coordinate[1], 2, 0);
    assert_float_equal(wp->coordinate[2], 3.5, 0);
    assert_int_equal(c->m2n[0].acceptor, solid);
    assert_string_equal(c->m2n[0].exchange_directory, "");
    assert_string_equal(c->m2n[0].network, "lo");
    assert_int_equal(c->m2n[0].port, 0);
    assert_string_equal(precice_config_exchange_directory(c, fluid), "");

    const pc_scheme *sc = &c->scheme;
    assert_int_equal(sc->kind, PC_PARALLEL_IMPLICIT);
    assert_float_equal(sc->max_time, -1, 0);
    assert_int_equal(sc->max_time_windows, 120);
    assert_float_equal(sc->window_size, 1e-3, 0);
    assert_int_equal(sc->max_iterations, -1);    /* preCICE 3: no limit unless given */
    assert_int_equal(sc->min_iterations, 1);
    assert_true(sc->exchanges[0].substeps);
    const pc_acceleration *a = &sc->acceleration;
    assert_int_equal(a->kind, PC_ACCEL_IQN_IMVJ);
    assert_int_equal(a->n_data, 2);
    assert_float_equal(a->scaling[0], 2.5, 0);
    assert_float_equal(a->scaling[1], 1, 0);
    assert_float_equal(a->relaxation, 0.1, 0);      /* defaults of IQN-IMVJ */
    assert_false(a->enforce_initial_relaxation);
    assert_int_equal(a->max_used_iterations, 20);
    assert_int_equal(a->time_windows_reused, 0);
    assert_int_equal(a->filter, PC_FILTER_QR1_ABSOLUTE);
    assert_float_equal(a->filter_limit, 1e-16, 0);
    assert_int_equal(a->preconditioner, PC_PRECOND_RESIDUAL);
    assert_false(a->preconditioner_update_on_threshold);
    assert_int_equal(a->preconditioner_freeze_after, -1);
    assert_true(a->reduced_time_grid);
    assert_false(a->always_build_jacobian);
    assert_string_equal(a->imvj_restart_mode, "RS-LS");
    assert_int_equal(a->imvj_chunk_size, 5);
    assert_int_equal(a->imvj_reused_time_windows_at_restart, 3);
    assert_float_equal(a->imvj_truncation_threshold, 1e-4, 0);
    precice_config_destroy(&c);
}

static void multi(void **state)
{
    (void)state;
    warnings w;
    precice_config *c = load("multi.xml", &w);
    assert_int_equal(w.n, 3);
    assert_non_null(strstr(w.all, "multi.xml:4: <profiling>: "));
    assert_non_null(strstr(w.all, "multi.xml:34: <intra-comm:sockets>: "));
    assert_non_null(strstr(w.all, "multi.xml:52: <m2n:mpi-multiple-ports>: enforce-gather-scatter"));
    int left = P(c, "Left"), right = P(c, "Right"), core = P(c, "Core");
    assert_int_equal(c->n_participants, 3);
    assert_int_equal(c->participants[core].n_provide, 2);
    assert_int_equal(c->participants[core].n_receive, 2);
    assert_int_equal(c->participants[core].n_reads, 2);
    assert_int_equal(c->participants[core].n_mappings, 4);
    assert_int_equal(c->n_m2n, 2);
    assert_string_equal(precice_config_exchange_directory(c, right), "run");
    const pc_scheme *sc = &c->scheme;
    assert_int_equal(sc->kind, PC_MULTI);
    assert_int_equal(sc->n_participants, 3);
    assert_int_equal(sc->participants[0], left);
    assert_int_equal(sc->participants[1], core);
    assert_int_equal(sc->participants[2], right);
    assert_int_equal(sc->controller, core);
    assert_int_equal(sc->first, -1);
    assert_int_equal(sc->second, -1);
    assert_int_equal(sc->max_iterations, 25);
    assert_int_equal(sc->n_exchanges, 4);
    assert_int_equal(sc->exchanges[3].to, right);
    assert_true(sc->exchanges[3].substeps);
    assert_int_equal(sc->n_measures, 2);
    assert_float_equal(sc->measures[1].limit, 1e-8, 0);
    const pc_acceleration *a = &sc->acceleration;
    assert_int_equal(a->kind, PC_ACCEL_AITKEN);
    assert_float_equal(a->relaxation, 0.5, 0);     /* preCICE's Aitken default */
    assert_int_equal(a->preconditioner, PC_PRECOND_RESIDUAL_SUM);
    assert_int_equal(a->n_data, 2);
    assert_int_equal(a->data[1].mesh, M(c, "Right-Face"));
    precice_config_destroy(&c);
}

static void rbf(void **state)
{
    (void)state;
    warnings w;
    precice_config *c = load("rbf.xml", &w);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.all, "rbf.xml:30: <executor:cpu>: "));
    assert_int_equal(c->data[D(c, "Gap")].components, 1);
    assert_int_equal(c->data[D(c, "Load")].components, 3);
    const pc_participant *aero = &c->participants[P(c, "Aerodynamics")];
    assert_int_equal(aero->n_mappings, 2);
    const pc_mapping *m = &aero->mappings[0];
    assert_int_equal(m->method, PC_MAP_RBF);
    assert_int_equal(m->solver, PC_RBF_AUTO);
    assert_true(m->write);
    assert_int_equal(m->constraint, PC_CONSERVATIVE);
    assert_int_equal(m->basis, PC_RBF_COMPACT_POLYNOMIAL_C6);
    assert_float_equal(m->support_radius, 0.75, 0);
    assert_float_equal(m->shape_parameter, 0, 0);
    assert_int_equal(m->polynomial, PC_POLY_SEPARATE);
    assert_false(m->dead[0]);
    assert_false(m->dead[1]);
    assert_true(m->dead[2]);
    assert_int_equal(m->line, 25);
    m = &aero->mappings[1];
    assert_int_equal(m->solver, PC_RBF_GLOBAL_DIRECT);
    assert_int_equal(m->basis, PC_RBF_THIN_PLATE_SPLINES);
    assert_int_equal(m->polynomial, PC_POLY_OFF);
    assert_float_equal(m->solver_rtol, 0, 0);
    m = &c->participants[P(c, "Structure")].mappings[0];
    assert_int_equal(m->solver, PC_RBF_GLOBAL_ITERATIVE);
    assert_float_equal(m->solver_rtol, 1e-7, 0);
    assert_int_equal(m->basis, PC_RBF_GAUSSIAN);
    assert_float_equal(m->shape_parameter, 4.5, 0);
    assert_float_equal(m->support_radius, 0, 0);
    assert_int_equal(m->polynomial, PC_POLY_ON);
    assert_int_equal(m->constraint, PC_SCALED_CONSISTENT_SURFACE);
    assert_true(m->dead[0]);
    assert_false(m->dead[2]);
    const pc_scheme *sc = &c->scheme;
    assert_int_equal(sc->kind, PC_SERIAL_EXPLICIT);
    assert_int_equal(sc->first, P(c, "Structure"));
    assert_int_equal(sc->acceleration.kind, PC_ACCEL_NONE);
    assert_int_equal(sc->n_measures, 0);
    assert_false(sc->exchanges[0].substeps);    /* explicit schemes: false unless given */
    assert_true(sc->exchanges[2].initialize);
    precice_config_destroy(&c);
}

static void explicit_scheme(void **state)
{
    (void)state;
    warnings w;
    precice_config *c = load("explicit.xml", &w);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.all, "explicit.xml:3: <precice-configuration>: experimental changes nothing"));
    const pc_scheme *sc = &c->scheme;
    assert_int_equal(sc->kind, PC_PARALLEL_EXPLICIT);
    assert_int_equal(sc->max_time_windows, 50);
    assert_float_equal(sc->max_time, -1, 0);
    assert_int_equal(sc->first, P(c, "A"));
    assert_int_equal(sc->second, P(c, "B"));
    assert_false(sc->exchanges[0].substeps);
    assert_true(sc->exchanges[1].substeps);
    assert_int_equal(c->m2n[0].acceptor, P(c, "B"));
    assert_string_equal(precice_config_exchange_directory(c, P(c, "A")), "/tmp/seam-exchange");
    assert_int_equal(precice_config_exchange_directory(c, 7)[0], '\0');
    precice_config_destroy(&c);
}

/* ---------- refusals ---------- */

/* A valid serial-implicit configuration; %s marks where a test puts its text:
 * (1) at the top level, (2) in participant One, (3) in the scheme. */
static const char BASE[] =
    "<?xml version=\"1.0\"?>\n"
    "<precice-configuration>\n"
    "  <data:scalar name=\"U\" />\n"
    "  <data:scalar name=\"V\" />\n"
    "  <mesh name=\"M1\" dimensions=\"2\"><use-data name=\"U\" /><use-data name=\"V\" /></mesh>\n"
    "  <mesh name=\"M2\" dimensions=\"2\"><use-data name=\"U\" /><use-data name=\"V\" /></mesh>\n"
    "%s"
    "  <participant name=\"One\">\n"
    "    <provide-mesh name=\"M1\" />\n"
    "    <receive-mesh name=\"M2\" from=\"Two\" />\n"
    "    <write-data name=\"U\" mesh=\"M1\" />\n"
    "    <read-data name=\"V\" mesh=\"M1\" />\n"
    "%s"
    "    <mapping:nearest-neighbor direction=\"read\" from=\"M2\" to=\"M1\" constraint=\"consistent\" />\n"
    "  </participant>\n"
    "  <participant name=\"Two\">\n"
    "    <provide-mesh name=\"M2\" />\n"
    "    <receive-mesh name=\"M1\" from=\"One\" />\n"
    "    <write-data name=\"V\" mesh=\"M2\" />\n"
    "    <read-data name=\"U\" mesh=\"M2\" />\n"
    "    <mapping:nearest-neighbor direction=\"read\" from=\"M1\" to=\"M2\" constraint=\"consistent\" />\n"
    "  </participant>\n"
    "  <m2n:sockets acceptor=\"One\" connector=\"Two\" />\n"
    "  <coupling-scheme:serial-implicit>\n"
    "    <participants first=\"One\" second=\"Two\" />\n"
    "    <max-time value=\"1\" />\n"
    "    <time-window-size value=\"0.1\" />\n"
    "    <exchange data=\"U\" mesh=\"M1\" from=\"One\" to=\"Two\" />\n"
    "    <exchange data=\"V\" mesh=\"M2\" from=\"Two\" to=\"One\" />\n"
    "    <relative-convergence-measure data=\"V\" mesh=\"M2\" limit=\"1e-6\" />\n"
    "%s"
    "  </coupling-scheme:serial-implicit>\n"
    "%s"
    "</precice-configuration>\n";

static char *write_config(const char *text)
{
    static int count;
    static char path[4096];
    const char *dir = test_tmpdir("precice_config");
    assert_non_null(dir);
    snprintf(path, sizeof path, "%s/bad%d.xml", dir, count++);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static char *base_with(const char *top, const char *participant, const char *scheme, const char *after)
{
    size_t n = sizeof BASE + strlen(top) + strlen(participant) + strlen(scheme) + strlen(after);
    char *s = malloc(n);
    assert_non_null(s);
    snprintf(s, n, BASE, top, participant, scheme, after);
    return s;
}

/* The line of the first occurrence of needle in text. */
static int line_of_text(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    assert_non_null(at);
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

/* Loading text fails with "PATH:LINE: <element>: ...message..." where LINE is
 * that of the first "<element" (or of anchor when given) in text. */
static void expect_error_at(const char *text, const char *element, const char *anchor, const char *message)
{
    const char *path = write_config(text);
    char err[1024];
    warnings w = {0};
    precice_config *c = precice_config_load(path, err, sizeof err, collect, &w);
    assert_null(c);
    char open[128];
    snprintf(open, sizeof open, "<%s", element);
    char want[4096];
    snprintf(want, sizeof want, "%s:%d: <%s>: ", path, line_of_text(text, anchor ? anchor : open), element);
    if (strncmp(err, want, strlen(want)) != 0)
        fail_msg("got \"%s\", want a message starting \"%s\"", err, want);
    if (!strstr(err, message))
        fail_msg("got \"%s\", want it to contain \"%s\"", err, message);
    assert_null(strstr(w.all, err));   /* the error is told once, not again as a warning */
}

/* The element is the first "<element" inside the inserted text, else the
 * first in the whole text. */
static void expect_error(const char *top, const char *participant, const char *scheme, const char *after,
                         const char *element, const char *message)
{
    char *text = base_with(top, participant, scheme, after);
    char open[128];
    snprintf(open, sizeof open, "<%s", element);
    const char *slots[] = {top, participant, scheme, after};
    const char *anchor = NULL;
    for (size_t i = 0; i < 4 && !anchor; i++)
        anchor = strstr(slots[i], open);
    expect_error_at(text, element, anchor, message);
    free(text);
}

static void base_loads(void **state)
{
    (void)state;
    char *text = base_with("", "", "", "");
    char err[1024];
    precice_config *c = precice_config_load(write_config(text), err, sizeof err, NULL, NULL);
    if (!c)
        fail_msg("%s", err);
    assert_int_equal(c->scheme.n_exchanges, 2);
    precice_config_destroy(&c);
    free(text);
}

/* BASE with text in its coupling scheme, loaded (the test fails if refused). */
static precice_config *load_base_scheme(const char *scheme)
{
    char *text = base_with("", "", scheme, "");
    char err[1024];
    precice_config *c = precice_config_load(write_config(text), err, sizeof err, NULL, NULL);
    free(text);
    if (!c)
        fail_msg("%s", err);
    return c;
}

static void imvj_restart_defaults(void **state)
{
    (void)state;
    /* Building the Jacobian every iteration: no restart unless asked. */
    precice_config *c = load_base_scheme(
        "    <acceleration:IQN-IMVJ always-build-jacobian=\"true\"><data name=\"V\" mesh=\"M2\" /></acceleration:IQN-IMVJ>\n");
    assert_true(c->scheme.acceleration.always_build_jacobian);
    assert_string_equal(c->scheme.acceleration.imvj_restart_mode, "no-restart");
    precice_config_destroy(&c);
    /* RS-SVD (the default) freezes the preconditioner after at most chunk-size windows. */
    c = load_base_scheme("    <acceleration:IQN-IMVJ><data name=\"V\" mesh=\"M2\" />"
                         "<preconditioner type=\"value\" freeze-after=\"20\" /></acceleration:IQN-IMVJ>\n");
    assert_string_equal(c->scheme.acceleration.imvj_restart_mode, "RS-SVD");
    assert_int_equal(c->scheme.acceleration.imvj_chunk_size, 8);
    assert_int_equal(c->scheme.acceleration.preconditioner_freeze_after, 8);
    precice_config_destroy(&c);
    c = load_base_scheme("    <acceleration:IQN-IMVJ><data name=\"V\" mesh=\"M2\" /><preconditioner type=\"value\" freeze-after=\"20\" />"
                         "<imvj-restart-mode type=\"RS-0\" chunk-size=\"6\" /></acceleration:IQN-IMVJ>\n");
    assert_string_equal(c->scheme.acceleration.imvj_restart_mode, "RS-0");
    assert_int_equal(c->scheme.acceleration.preconditioner_freeze_after, 20);
    precice_config_destroy(&c);
    /* IQN-ILS without <filter>: QR3 at 1e-2; with <filter> and no limit: 1e-16. */
    c = load_base_scheme("    <acceleration:IQN-ILS><data name=\"V\" mesh=\"M2\" /></acceleration:IQN-ILS>\n");
    const pc_acceleration *a = &c->scheme.acceleration;
    assert_int_equal(a->filter, PC_FILTER_QR3);
    assert_float_equal(a->filter_limit, 1e-2, 0);
    assert_float_equal(a->relaxation, 0.1, 0);
    assert_int_equal(a->max_used_iterations, 100);
    assert_int_equal(a->time_windows_reused, 10);
    assert_int_equal(a->preconditioner, PC_PRECOND_RESIDUAL_SUM);
    assert_null(a->imvj_restart_mode);
    precice_config_destroy(&c);
    /* Reusing no earlier window is a valid choice (0). */
    c = load_base_scheme("    <acceleration:IQN-ILS><data name=\"V\" mesh=\"M2\" /><time-windows-reused value=\"0\" />"
                         "</acceleration:IQN-ILS>\n");
    assert_int_equal(c->scheme.acceleration.time_windows_reused, 0);
    precice_config_destroy(&c);
    c = load_base_scheme("    <acceleration:constant><relaxation value=\"0.3\" /></acceleration:constant>\n");
    assert_int_equal(c->scheme.acceleration.kind, PC_ACCEL_CONSTANT);
    assert_float_equal(c->scheme.acceleration.relaxation, 0.3, 0);
    assert_int_equal(c->scheme.acceleration.n_data, 0);
    precice_config_destroy(&c);
}

static void refuses_unsupported(void **state)
{
    (void)state;
    expect_error("", "", "",
                 "  <coupling-scheme:parallel-explicit><participants first=\"One\" second=\"Two\" /></coupling-scheme:parallel-explicit>\n",
                 "coupling-scheme:parallel-explicit", "seam does not support several coupling schemes");
    expect_error("", "", "    <time-window-size value=\"0.1\" method=\"first-participant\" />\n", "",
                 "time-window-size", "seam does not support method=\"first-participant\"");
    expect_error("", "    <action:multiply-by-area mesh=\"M1\" timing=\"write-mapping-post\"><target-data name=\"U\" /></action:multiply-by-area>\n",
                 "", "", "action:multiply-by-area", "seam does not support actions");
    expect_error("", "    <mapping:nearest-neighbor-gradient direction=\"write\" from=\"M1\" to=\"M2\" constraint=\"consistent\" />\n",
                 "", "", "mapping:nearest-neighbor-gradient", "seam does not support the nearest-neighbor-gradient mapping");
    expect_error("", "    <mapping:rbf-pum-direct direction=\"write\" from=\"M1\" to=\"M2\" constraint=\"consistent\"><basis-function:thin-plate-splines /></mapping:rbf-pum-direct>\n",
                 "", "", "mapping:rbf-pum-direct", "seam does not support the rbf-pum-direct mapping");
    expect_error("", "    <mapping:linear-cell-interpolation direction=\"write\" from=\"M1\" to=\"M2\" constraint=\"consistent\" />\n",
                 "", "", "mapping:linear-cell-interpolation", "seam does not support");
    expect_error("", "    <mapping:axial-geometric-multiscale direction=\"write\" from=\"M1\" to=\"M2\" constraint=\"consistent\" />\n",
                 "", "", "mapping:axial-geometric-multiscale", "seam does not support");
    expect_error("", "    <watch-integral name=\"I\" mesh=\"M1\" />\n", "", "", "watch-integral",
                 "seam does not support watch-integral");
    expect_error("", "", "    <absolute-or-relative-convergence-measure data=\"V\" mesh=\"M2\" abs-limit=\"1\" rel-limit=\"1\" />\n",
                 "", "absolute-or-relative-convergence-measure", "seam does not support");
    expect_error("  <data:scalar name=\"T\" lower-bound=\"0\" />\n", "", "", "", "data:scalar",
                 "seam does not support data bounds");
    expect_error("", "    <export:vtu update-series=\"true\" />\n", "", "", "export:vtu",
                 "seam does not support update-series");
    expect_error("", "", "", "  <solver-interface dimensions=\"2\" />\n", "solver-interface",
                 "seam does not support this element here");
}

static void refuses_typos_with_suggestions(void **state)
{
    (void)state;
    expect_error("  <meshh name=\"M3\" dimensions=\"2\" />\n", "", "", "", "meshh", "(did you mean <mesh>?)");
    expect_error("", "    <mapping:nearest-neighbour direction=\"read\" from=\"M2\" to=\"M1\" constraint=\"consistent\" />\n",
                 "", "", "mapping:nearest-neighbour", "(did you mean <mapping:nearest-neighbor>?)");
    expect_error("", "", "    <exchange data=\"U\" mesh=\"M1\" from=\"One\" to=\"Two\" intialize=\"true\" />\n", "",
                 "exchange", "seam does not support the attribute \"intialize\" (did you mean \"initialize\"?)");
    expect_error("", "", "    <acceleration:IQN-ILZ><data name=\"V\" mesh=\"M2\" /></acceleration:IQN-ILZ>\n", "",
                 "acceleration:IQN-ILZ", "(did you mean <acceleration:IQN-ILS>?)");
    expect_error("", "", "    <acceleration:IQN-ILS><data name=\"V\" mesh=\"M2\" /><filter type=\"QR2\" limit=\"1e-3\" /><initial-relaxation vale=\"0.1\" /></acceleration:IQN-ILS>\n",
                 "", "initial-relaxation", "(did you mean \"value\"?)");
    expect_error("", "    <read-data name=\"Vv\" mesh=\"M1\" />\n", "", "", "read-data",
                 "unknown data \"Vv\" (did you mean \"V\"?)");
    expect_error("", "", "    <max-iteration value=\"3\" />\n", "", "max-iteration", "(did you mean <max-iterations>?)");
    expect_error("", "", "    <acceleration:aitken><data name=\"V\" mesh=\"M2\" /><filter type=\"QR2\" /></acceleration:aitken>\n", "",
                 "filter", "seam does not support this element here");
}

static void semantic_errors(void **state)
{
    (void)state;
    expect_error("", "    <read-data name=\"U\" mesh=\"M3\" />\n", "", "", "read-data", "unknown mesh \"M3\"");
    expect_error("  <mesh name=\"M3\" dimensions=\"2\"><use-data name=\"U\" /></mesh>\n",
                 "    <write-data name=\"U\" mesh=\"M3\" />\n", "", "", "write-data",
                 "participant \"One\" writes data \"U\" on mesh \"M3\", which it neither provides nor receives");
    expect_error("  <data:scalar name=\"W\" />\n", "    <write-data name=\"W\" mesh=\"M1\" />\n", "", "", "write-data",
                 "mesh \"M1\" does not use data \"W\"");
    expect_error("", "", "    <absolute-convergence-measure data=\"U\" mesh=\"M2\" limit=\"1\" />\n", "",
                 "absolute-convergence-measure", "data \"U\" on mesh \"M2\" is not exchanged");
    expect_error("", "", "    <acceleration:IQN-ILS><data name=\"U\" mesh=\"M2\" /></acceleration:IQN-ILS>\n", "",
                 "data", "data \"U\" on mesh \"M2\" is not exchanged");
    expect_error("", "", "    <exchange data=\"U\" mesh=\"M2\" from=\"One\" to=\"Three\" />\n", "", "exchange",
                 "unknown participant \"Three\"");
    expect_error("  <mesh name=\"M4\" dimensions=\"4\" />\n", "", "", "", "mesh", "a mesh has 2 or 3 dimensions");
    expect_error("  <data:vector name=\"U\" />\n", "", "", "", "data:vector", "duplicate data name \"U\"");
    expect_error("  <mesh name=\"M1\" dimensions=\"3\" />\n", "", "", "", "mesh", "duplicate mesh name \"M1\"");
    expect_error("", "", "", "  <participant name=\"Two\" />\n", "participant", "duplicate participant name \"Two\"");
    expect_error("", "", "", "  <participant name=\"Three\" />\n", "participant",
                 "participant \"Three\" is in no coupling scheme");
    expect_error("", "", "", "  <participant name=\"Three\"><provide-mesh name=\"M2\" /></participant>\n", "participant",
                 "mesh \"M2\" is provided by \"Two\" already");
    expect_error("", "", "    <max-time-windows value=\"0\" />\n", "", "max-time-windows", "the value must be positive");
    expect_error("", "", "    <max-iterations value=\"2\" />\n    <min-iterations value=\"3\" />\n", "",
                 "coupling-scheme:serial-implicit", "min-iterations (3) exceeds max-iterations (2)");
    expect_error("", "", "    <relative-convergence-measure data=\"U\" mesh=\"M1\" limit=\"2\" />\n", "",
                 "relative-convergence-measure", "a relative limit lies in (0, 1]");
    expect_error("", "    <mapping:nearest-neighbor direction=\"write\" from=\"M2\" to=\"M1\" constraint=\"conservative\" />\n",
                 "", "", "mapping:nearest-neighbor",
                 "participant \"One\" has a write mapping from mesh \"M2\", which it does not provide");
    expect_error("", "    <mapping:nearest-neighbor direction=\"read\" from=\"M1\" to=\"M2\" constraint=\"consistent\" />\n",
                 "", "", "mapping:nearest-neighbor",
                 "participant \"One\" has a read mapping to mesh \"M2\", which it does not provide");
    expect_error("", "    <watch-point name=\"P\" mesh=\"M1\" coordinate=\"1;2;3\" />\n", "", "", "watch-point",
                 "has 3 components; mesh \"M1\" has 2 dimensions");

    /* Whole-scheme errors are reported at the scheme's line. */
    char *text = base_with("", "", "", "");
    char *cut = strstr(text, "    <time-window-size");
    memmove(cut, strchr(cut, '\n') + 1, strlen(strchr(cut, '\n') + 1) + 1);
    expect_error_at(text, "coupling-scheme:serial-implicit", NULL, "needs <time-window-size value=\"...\"/>");
    free(text);
    text = base_with("", "", "", "");
    cut = strstr(text, "    <participants");
    memmove(cut, strchr(cut, '\n') + 1, strlen(strchr(cut, '\n') + 1) + 1);
    expect_error_at(text, "coupling-scheme:serial-implicit", NULL, "needs <participants first=\"...\" second=\"...\"/>");
    free(text);
    text = base_with("", "", "", "");
    cut = strstr(text, "    <relative-convergence-measure");
    memmove(cut, strchr(cut, '\n') + 1, strlen(strchr(cut, '\n') + 1) + 1);
    expect_error_at(text, "coupling-scheme:serial-implicit", NULL, "needs a convergence measure or <max-iterations");
    free(text);
}

static void multi_needs_one_controller(void **state)
{
    (void)state;
    static const char scheme[] =
        "  <coupling-scheme:multi>\n"
        "    <participant name=\"One\" %s/>\n"
        "    <participant name=\"Two\" %s/>\n"
        "    <max-time value=\"1\" />\n"
        "    <time-window-size value=\"0.1\" />\n"
        "    <max-iterations value=\"5\" />\n"
        "    <exchange data=\"U\" mesh=\"M1\" from=\"One\" to=\"Two\" />\n"
        "  </coupling-scheme:multi>\n";
    char *text = base_with("", "", "", "");
    char *start = strstr(text, "  <coupling-scheme:serial-implicit>");
    *start = '\0';
    char buf[8192], body[2048];
    snprintf(body, sizeof body, scheme, "", "");
    snprintf(buf, sizeof buf, "%s%s</precice-configuration>\n", text, body);
    expect_error_at(buf, "coupling-scheme:multi", NULL, "exactly one participant with control=\"yes\"");
    snprintf(body, sizeof body, scheme, "control=\"yes\" ", "control=\"true\" ");
    snprintf(buf, sizeof buf, "%s%s</precice-configuration>\n", text, body);
    expect_error_at(buf, "participant", "<participant name=\"Two\" control", "exactly one participant with control=\"yes\"");
    snprintf(body, sizeof body, scheme, "", "control=\"yes\" ");
    snprintf(buf, sizeof buf, "%s%s</precice-configuration>\n", text, body);
    char err[1024];
    precice_config *c = precice_config_load(write_config(buf), err, sizeof err, NULL, NULL);
    if (!c)
        fail_msg("%s", err);
    assert_int_equal(c->scheme.controller, 1);
    precice_config_destroy(&c);
    free(text);
}

static void warns_once_each(void **state)
{
    (void)state;
    char *text = base_with("  <log><sink filter=\"%Severity% > debug\" /></log>\n  <profiling mode=\"all\" />\n",
                           "    <intra-comm:mpi />\n", "", "");
    char *m2n = strstr(text, "connector=\"Two\"");
    char buf[8192];
    snprintf(buf, sizeof buf, "%.*s connector=\"Two\" use-two-level-initialization=\"true\"%s", (int)(m2n - text), text,
             m2n + strlen("connector=\"Two\""));
    warnings w = {0};
    char err[1024];
    precice_config *c = precice_config_load(write_config(buf), err, sizeof err, collect, &w);
    if (!c)
        fail_msg("%s", err);
    assert_int_equal(w.n, 4);
    assert_non_null(strstr(w.all, ":7: <log>: "));
    assert_non_null(strstr(w.all, ":8: <profiling>: "));
    assert_non_null(strstr(w.all, "<intra-comm:mpi>: intra-comm changes nothing"));
    assert_non_null(strstr(w.all, "<m2n:sockets>: use-two-level-initialization changes nothing"));
    precice_config_destroy(&c);
    free(text);
}

static void syntax_error_has_line(void **state)
{
    (void)state;
    const char *path = write_config("<?xml version=\"1.0\"?>\n<precice-configuration>\n  <mesh name=\"A\"\n</precice-configuration>\n");
    char err[1024];
    assert_null(precice_config_load(path, err, sizeof err, NULL, NULL));
    char want[4200];
    snprintf(want, sizeof want, "%s:4: ", path);
    if (strncmp(err, want, strlen(want)) != 0)
        fail_msg("got \"%s\", want \"%s...\"", err, want);
    assert_null(precice_config_load("/nonexistent/precice-config.xml", err, sizeof err, NULL, NULL));
    assert_non_null(strstr(err, "/nonexistent/precice-config.xml"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(serial_implicit),
        cmocka_unit_test(parallel_imvj),
        cmocka_unit_test(multi),
        cmocka_unit_test(rbf),
        cmocka_unit_test(explicit_scheme),
        cmocka_unit_test(base_loads),
        cmocka_unit_test(imvj_restart_defaults),
        cmocka_unit_test(refuses_unsupported),
        cmocka_unit_test(refuses_typos_with_suggestions),
        cmocka_unit_test(semantic_errors),
        cmocka_unit_test(multi_needs_one_controller),
        cmocka_unit_test(warns_once_each),
        cmocka_unit_test(syntax_error_has_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
