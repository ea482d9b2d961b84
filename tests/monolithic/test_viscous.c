/* Viscosity and sources in the monolithic mode's fluid step: with no solid
 * in the domain the coupled projection is fluid_mac's own, so a step of
 * fluid_mac_begin (transport, forces, the sources' faces, implicit
 * viscosity), the coupled projection (plugins/monolithic: cut cells, B,
 * E u*, the sources' prescribed flux) and fluid_mac_end must give what a
 * partitioned solve of the same fluid gives, step after step. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fluid.h"
#include "mono.h"
#include "test_host.h"

/* A smoke box open at the top, a parabolic inflow through part of its floor
 * and a volume source: the flow it drives is sheared, so viscosity acts. */
static const char *const box_json =
    "{\"cells\": [16, 16], \"dx\": 0.0625, \"density\": 1.1, \"boundary\": {\"top\": \"open\"},"
    " \"pressure_tolerance\": 1e-13, \"pressure_max_iterations\": 100000, \"viscosity\": %g,"
    " \"sources\": [{\"side\": \"bottom\", \"range\": [0.25, 0.5], \"speed\": 1, \"profile\": \"parabolic\"},"
    "               {\"box\": [0.6, 0.2, 0.8, 0.4], \"rate\": 0.05}]}";

static fluid_mac *make_fluid(test_host *th, double nu)
{
    char json[1024];
    snprintf(json, sizeof json, box_json, nu);
    const seam_plugin *P = fluid_mac_table();
    fluid_mac *fl = P->create(P, json, &th->host);
    assert_non_null(fl);
    seam_interface none = {.dim = 2};
    assert_int_equal(P->bind(fl, &none), SEAM_OK);
    return fl;
}

static int is_active(const void *ctx, size_t c) { return ((const mono_fluid *)ctx)->index[c] >= 0; }

/* One step of the monolithic plugin's fluid part with no solid (as
 * monolithic.c's p_solve runs it). */
static void mono_step(fluid_mac *fl, double t, double dt, const seam_host *host)
{
    const mac_grid *g = &fl->cfg.g;
    assert_int_equal(fluid_mac_begin(fl, NULL, NULL, t, dt), SEAM_OK);
    mono_boundary b = {2, 0, NULL, 0, NULL};
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, g, &b, host), SEAM_OK);
    size_t nc = mac_ncell(g);
    double *phi = malloc(nc * sizeof *phi);
    for (size_t c = 0; c < nc; c++)
        phi[c] = -g->dx;   /* smoke fills the domain */
    mono_fluid F;
    assert_int_equal(mono_fluid_build(&F, g, &cut, &b, phi, fl->vel, fl->vel, fl->cfg.rho, dt, host), SEAM_OK);
    if (fluid_mac_volume_sources(fl, is_active, &F, t + 0.5 * dt))
        for (size_t r = 0; r < F.n; r++)
            F.Eu[r] += fl->src_s[F.cell[r]] * mac_cell_volume(g);
    double *p = calloc(F.n, sizeof *p);
    mono_solve_opts opts = {0.9, 1e-3, 1e-13, 100000, MONO_PRECOND_IC0};
    assert_int_equal(mono_solve(&F, NULL, 0, dt, &opts, p, NULL, NULL, host), SEAM_OK);
    for (size_t c = 0; c < nc; c++)
        fl->p[c] = F.index[c] >= 0 ? p[F.index[c]] : 0.0;
    mono_fluid_update(&F, g, &cut, phi, p, fl->vel, fl->cfg.rho, dt, fl->vel);
    mono_extrapolate(g, &cut, phi, 2, fl->vel);
    assert_int_equal(fluid_mac_end(fl, dt), SEAM_OK);
    assert_int_equal(fluid_mac_table()->commit(fl), SEAM_OK);
    free(p);
    free(phi);
    mono_fluid_free(&F);
    mono_cut_free(&cut);
}

static void partitioned_step(fluid_mac *fl, double t, double dt, int index)
{
    seam_step step = {.t = t, .dt = dt, .index = index};
    seam_input in = {.dim = 2};
    seam_output out = {0};
    assert_int_equal(fluid_mac_table()->solve(fl, &step, &in, &out), SEAM_OK);
    assert_int_equal(fluid_mac_table()->commit(fl), SEAM_OK);
}

/* The largest difference of the committed face velocities of a and b, and the largest velocity. */
static double vel_diff(const fluid_mac *a, const fluid_mac *b, double *umax)
{
    double d = 0.0;
    *umax = 0.0;
    for (int ax = 0; ax < 2; ax++)
        for (size_t f = 0; f < mac_nf(&a->cfg.g, ax); f++) {
            d = fmax(d, fabs(a->vel_n[ax][f] - b->vel_n[ax][f]));
            *umax = fmax(*umax, fabs(a->vel_n[ax][f]));
        }
    return d;
}

/* Viscous (nu = 0.01 m^2/s: nu dt / dx^2 = 0.05, an implicit diffusion that
 * changes the flow by a few percent a step) and inviscid, 5 steps of 0.02 s:
 * the monolithic steps match the partitioned ones to the solvers'
 * tolerances (1e-9 of the flow), and the viscous flow differs from the
 * inviscid one by far more, so the match is viscosity's. */
static void test_viscous_step_matches_partitioned(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "fluid", NULL);
    double dt = 0.02, diff[2], umax[2];
    fluid_mac *runs[2][2];
    for (int v = 0; v < 2; v++) {
        double nu = v ? 0.01 : 0.0;
        fluid_mac *part = make_fluid(&th, nu), *mono = make_fluid(&th, nu);
        for (int k = 0; k < 5; k++) {
            partitioned_step(part, k * dt, dt, k);
            mono_step(mono, k * dt, dt, &th.host);
        }
        diff[v] = vel_diff(part, mono, &umax[v]);
        runs[v][0] = part;
        runs[v][1] = mono;
    }
    double u;
    double visc_effect = vel_diff(runs[0][1], runs[1][1], &u);
    print_message("after 5 steps: monolithic - partitioned %.3e m/s inviscid, %.3e m/s viscous (flow up to %.3f m/s); "
                  "viscous - inviscid %.3e m/s\n", diff[0], diff[1], umax[1], visc_effect);
    assert_true(diff[0] <= 1e-9 * umax[0]);
    assert_true(diff[1] <= 1e-9 * umax[1]);
    assert_true(visc_effect >= 1e-3 * umax[1]);
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < 2; k++)
            fluid_mac_table()->destroy(runs[v][k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_viscous_step_matches_partitioned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
