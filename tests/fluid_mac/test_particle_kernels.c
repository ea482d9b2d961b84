/* fluid_mac's particle transfers (issue 18): the binned, slab-ordered loops
 * of particles.c give the numbers of the per-particle loops they replaced
 * (particles_reference.c) to round-off, whole scenes give the values stored
 * from the code before the change (commit 0e7c286), and a scene gives the
 * same bytes with one and with two OpenMP threads. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "mac.h"
#include "test_host.h"

const seam_plugin *fluid_mac_table(void);   /* the static library's table (plugins/fluid_mac/export.c) */

/* ---- the kernels against the reference loops --------------------------------- */

static double uniform(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (double)(*seed >> 8 & 0xffffff) / 16777216.0;
}

/* n particles: a block of liquid in the lower left, some spread low along
 * y, some in the far corner (their images count), one on a cell face exactly. */
static double *cloud(const mac_grid *g, size_t n, unsigned seed)
{
    size_t dim = (size_t)g->dim;
    double *x = malloc(dim * n * sizeof *x);
    for (size_t p = 0; p < n; p++)
        for (size_t d = 0; d < dim; d++) {
            double L = mac_n(g, (int)d) * g->dx, u = uniform(&seed);
            double spread = p % 7 == 0 ? (d == 1 ? 0.4 * u * L : u * L) : p % 7 == 1 ? L * (1.0 - 0.05 * u) : 0.6 * L * u;
            x[dim * p + d] = g->origin[d] + spread;
        }
    x[0] = g->origin[0] + 3.0 * g->dx;
    return x;
}

static double max_diff(const double *a, const double *b, size_t n)
{
    double m = 0.0;
    for (size_t k = 0; k < n; k++)
        m = fmax(m, fabs(a[k] - b[k]));
    return m;
}

static void check_kernels(const mac_grid *g, size_t n)
{
    size_t nc = mac_ncell(g), dim = (size_t)g->dim;
    double *x = cloud(g, n, 7u), *vp = cloud(g, n, 11u);
    uint8_t *solid = calloc(nc, 1);
    for (size_t c = nc / 2; c < nc / 2 + 5; c++)
        solid[c] = 1;   /* solid cells count as filled */
    mac_work w;
    mac_work_init(&w, g);
    mac_bins bins = {0};
    double *phi = malloc(nc * sizeof *phi), *phi_ref = malloc(nc * sizeof *phi_ref);
    double r = 0.54 * g->dx;
    mac_ref_level_set(g, n, x, r, solid, 2, &w, phi_ref);
    mac_level_set(g, n, x, r, solid, 2, &w, &bins, phi);
    size_t outside = 0;
    for (size_t c = 0; c < nc; c++)
        outside += phi_ref[c] == 2.0 * g->dx;
    assert_true(outside > 0 && outside < nc);   /* the cloud leaves cells out of reach, and reaches others */
    assert_true(max_diff(phi, phi_ref, nc) < 1e-12 * g->dx);
    /* particle velocities to the faces */
    double *vel[3] = {NULL, NULL, NULL}, *ref[3] = {NULL, NULL, NULL};
    for (size_t a = 0; a < dim; a++) {
        vel[a] = malloc(mac_nf(g, (int)a) * sizeof(double));
        ref[a] = malloc(mac_nf(g, (int)a) * sizeof(double));
    }
    mac_ref_particles_to_grid(g, n, x, vp, &w, ref);
    mac_particles_to_grid(g, n, x, vp, &w, &bins, vel);
    for (size_t a = 0; a < dim; a++)
        assert_true(max_diff(vel[a], ref[a], mac_nf(g, (int)a)) < 1e-12);
    /* cloud-in-cell counts */
    mac_ref_particle_density(g, n, x, phi_ref);
    mac_particle_density(g, n, x, &bins, 0, phi);
    double total = 0.0;
    for (size_t c = 0; c < nc; c++)
        total += phi[c];
    assert_float_equal(total, (double)n, 1e-9 * (double)n);   /* folded weights keep every particle */
    assert_true(max_diff(phi, phi_ref, nc) < 1e-12);
    /* grid to particles and the move: the same numbers, bit for bit */
    double *u = malloc(dim * n * sizeof *u), *u_ref = malloc(dim * n * sizeof *u_ref);
    mac_grid_to_particles(g, n, x, vel, u, 0);
    mac_grid_to_particles(g, n, x, vel, u_ref, 1);
    assert_memory_equal(u, u_ref, dim * n * sizeof *u);
    /* two fields at once: the numbers of one call per field (the second: ref turned and shifted) */
    for (size_t a = 0; a < dim; a++)
        for (size_t f = 0; f < mac_nf(g, (int)a); f++)
            ref[a][f] = 1.0 - 3.0 * ref[a][f];
    double *u2 = malloc(dim * n * sizeof *u2), *v2 = malloc(dim * n * sizeof *v2);
    mac_grid_to_particles2(g, n, x, vel, u2, ref, v2);
    assert_memory_equal(u2, u, dim * n * sizeof *u);
    mac_grid_to_particles(g, n, x, ref, u_ref, 0);
    assert_memory_equal(v2, u_ref, dim * n * sizeof *u);
    free(u2);
    free(v2);
    double *x2 = malloc(dim * n * sizeof *x2);
    memcpy(x2, x, dim * n * sizeof *x2);
    memcpy(u_ref, vp, dim * n * sizeof *u_ref);
    double *x3 = malloc(dim * n * sizeof *x3), *vp3 = malloc(dim * n * sizeof *vp3);
    memcpy(x3, x, dim * n * sizeof *x3);
    memcpy(vp3, vp, dim * n * sizeof *vp3);
    size_t kept = mac_advect_particles(g, n, x, vp, vel, 0.1 * g->dx, NULL, 0);
    size_t kept_ref = mac_advect_particles(g, n, x2, u_ref, vel, 0.1 * g->dx, NULL, 1);
    assert_int_equal(kept, kept_ref);
    assert_memory_equal(x, x2, dim * kept * sizeof *x);
    assert_memory_equal(vp, u_ref, dim * kept * sizeof *vp);
    /* the move's first stage read from the samples taken at x: the same move */
    assert_int_equal(mac_advect_particles_from(g, n, x3, vp3, vel, u, 0.1 * g->dx, NULL, 0), kept);
    assert_memory_equal(x3, x, dim * kept * sizeof *x);
    assert_memory_equal(vp3, vp, dim * kept * sizeof *vp);
    free(x3);
    free(vp3);
    for (size_t a = 0; a < dim; a++) {
        free(vel[a]);
        free(ref[a]);
    }
    free(u);
    free(u_ref);
    free(x2);
    free(x);
    free(vp);
    free(solid);
    free(phi);
    free(phi_ref);
    mac_bins_free(&bins);
    mac_work_free(&w);
}

static void test_kernels_match_reference_3d(void **state)
{
    (void)state;
    mac_grid g = {3, 20, 16, 12, 0.05, {-0.3, 0.1, 0.2}, {BC_WALL, BC_WALL, BC_WALL, BC_OPEN, BC_WALL, BC_WALL}};
    check_kernels(&g, 20000);
}

static void test_kernels_match_reference_2d(void **state)
{
    (void)state;
    mac_grid g = {2, 33, 21, 1, 0.03, {0.0, -1.0, 0.0}, {BC_WALL, BC_OPEN, BC_WALL, BC_WALL, BC_WALL, BC_WALL}};
    check_kernels(&g, 5000);
    mac_grid narrow = {2, 5, 9, 1, 0.1, {0.0, 0.0, 0.0}, {BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL}};
    check_kernels(&narrow, 400);   /* rows shorter than the scatter's window */
}

/* ---- whole scenes ---------------------------------------------------------------- */

typedef struct scene_case {
    const char *name;
    const char *json;
    int dim, steps;
    double dt;
    double stored[12];       /* from commit 0e7c286, the code before issue 18's particle loops */
} scene_case;

/* Per field (level_set, speed, pressure): the sum over the cells, the sum of
 * squares, and the values of cells nc/3 and nc/2 + 7, after `steps` steps of dt. */
static void digest(const scene_case *sc, double *out, unsigned char **state, size_t *state_n)
{
    const seam_plugin *P = fluid_mac_table();
    test_host th;
    test_host_init(&th, "fluid", "fluid");
    void *fl = P->create(P, sc->json, &th.host);
    assert_non_null(fl);
    seam_interface none = {sc->dim, 0, NULL, NULL, NULL, sc->dim, 0, NULL, NULL, 0};
    assert_int_equal(P->bind(fl, &none), SEAM_OK);
    for (int n = 0; n < sc->steps; n++) {
        seam_step st = {n, n * sc->dt, sc->dt, 0};
        seam_input in = {0, sc->dim, NULL, NULL, NULL};
        seam_output o = {0, sc->dim, NULL, NULL, NULL};
        assert_int_equal(P->solve(fl, &st, &in, &o), SEAM_OK);
        assert_int_equal(P->commit(fl), SEAM_OK);
    }
    static const char *const names[] = {"level_set", "speed", "pressure"};
    for (int f = 0; out && f < 3; f++) {
        seam_raster r;
        assert_int_equal(P->field(fl, names[f], &r), SEAM_OK);
        size_t nc = (size_t)r.nx * (size_t)r.ny * (size_t)r.nz;
        double s = 0.0, s2 = 0.0;
        for (size_t c = 0; c < nc; c++) {
            s += r.data[c];
            s2 += r.data[c] * r.data[c];
        }
        out[4 * f] = s;
        out[4 * f + 1] = s2;
        out[4 * f + 2] = r.data[nc / 3];
        out[4 * f + 3] = r.data[nc / 2 + 7];
    }
    if (state) {
        seam_buffer b;
        assert_int_equal(P->save(fl, &b), SEAM_OK);
        *state = malloc(b.size);
        memcpy(*state, b.data, b.size);
        *state_n = b.size;
    }
    P->destroy(fl);
}

static const scene_case cases[] = {
    {"3D dam break, 16^3", "{\"cells\": [16, 16, 16], \"dx\": 0.0625, \"pressure_tolerance\": 1e-8,"
     " \"gravity\": [0, -9.81, 0], \"liquid\": {\"fill\": [0, 0, 0, 0.5, 0.75, 1]}}", 3, 8, 0.005,
     {221.29888067081515, 33.161270685146867, -0.0338324024957571, -0.025382018052731908, 817.1219823687087,
      284.77081917152009, 0.3242089663790842, 0.58628904357032863, 1488604.2175297753, 2676963708.380424,
      674.81634487038559, 808.8279438190059}},
    {"2D dam break over an obstacle, open right side", "{\"cells\": [40, 32], \"dx\": 0.025,"
     " \"pressure_tolerance\": 1e-8, \"boundary\": {\"right\": \"open\"},"
     " \"obstacles\": [{\"box\": [[0.6, 0], [0.7, 0.2]]}],"
     " \"liquid\": {\"fill\": [0, 0, 0.4, 0.6], \"particles_per_axis\": 3}}", 2, 50, 0.005,
     {33.614952061816545, 1.9777343954939683, 0.0038083314227978036, -0.0097019756773177902, 737.50932536994571,
      1954.621643547548, 3.1290807205523437, 0.71660270332157816, 1133838.7430535043, 4542919489.5496397, 0,
      266.33186028877361}},
};

/* The level set, speeds and pressures of two dam breaks (one losing
 * liquid through an open side) as stored before the change, to 1e-9. */
static void test_scenes_match_stored(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double d[12];
        digest(&cases[k], d, NULL, NULL);
        for (int q = 0; q < 12; q++)
            if (!(fabs(d[q] - cases[k].stored[q]) <= 1e-9 * (fabs(cases[k].stored[q]) + 1e-6)))
                fail_msg("%s: digest value %d is %.17g, stored %.17g", cases[k].name, q, d[q], cases[k].stored[q]);
    }
}

/* A 32^3 dam break (every threaded loop over its threshold) saves the same
 * bytes after 3 steps with one thread and with two. */
static void test_threads_same_bytes(void **state)
{
    (void)state;
    scene_case sc = {"3D dam break, 32^3", "{\"cells\": [32, 32, 32], \"dx\": 0.03125, \"pressure_tolerance\": 1e-8,"
                     " \"gravity\": [0, -9.81, 0], \"liquid\": {\"fill\": [0, 0, 0, 0.5, 0.75, 1]}}", 3, 3, 0.004, {0}};
    unsigned char *one = NULL, *two = NULL;
    size_t n_one = 0, n_two = 0;
    double d1[12], d2[12];
#ifdef _OPENMP
    int before = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    digest(&sc, d1, &one, &n_one);
#ifdef _OPENMP
    omp_set_num_threads(2);
#endif
    digest(&sc, d2, &two, &n_two);
#ifdef _OPENMP
    omp_set_num_threads(before);
#endif
    assert_true(d1[0] != 0.0 && d1[4] > 0.0);   /* a level set, and the liquid moves */
    assert_int_equal(n_one, n_two);
    assert_memory_equal(one, two, n_one);
    assert_memory_equal(d1, d2, sizeof d1);
    free(one);
    free(two);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_kernels_match_reference_3d),
                                       cmocka_unit_test(test_kernels_match_reference_2d),
                                       cmocka_unit_test(test_scenes_match_stored),
                                       cmocka_unit_test(test_threads_same_bytes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
