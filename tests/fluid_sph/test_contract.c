/* fluid_sph against the plugin contract kit (tests/support/plugin_contract.h),
 * with each pressure solver, and its saved state read back by an independent
 * little-endian reader: a state saved on one host loads on any other. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plugin_contract.h"
#include "seam/checkpoint.h"
#include "sph_test.h"

/* A two-sided plate standing in the water near the block's face, pushed into it. */
static double plate_X[6] = {0.2, 0.05, 0.2, 0.1, 0.2, 0.15}, plate_mass[3] = {1, 1, 1};
static int32_t plate_elems[4] = {0, 1, 1, 2};
static uint8_t plate_two[2] = {1, 1};
static const seam_interface plate = {2, 3, plate_X, plate_mass, NULL, 2, 2, plate_elems, plate_two, 1};

static void check(const char *config)
{
    plugin_contract c = {.plugin = seam_plugin_v1(), .config = config, .iface = &plate, .dt = 2e-3, .steps = 3,
                         .speed = 0.5, .field = "speed", .typed_key = "spacing"};
    plugin_contract_check(&c);
}

static void test_dfsph(void **state)
{
    (void)state;
    check("{\"domain\": [0, 0, 0.4, 0.3], \"spacing\": 0.02, \"fill\": [0.215, 0, 0.4, 0.2]}");
}

static void test_takahashi(void **state)
{
    (void)state;
    check("{\"domain\": [0, 0, 0.4, 0.3], \"spacing\": 0.02, \"fill\": [0.215, 0, 0.4, 0.2], "
          "\"pressure_solver\": \"takahashi\", \"viscosity\": 20, \"step_cache\": false}");
}

/* The image holds dim, the counts and the particles' positions as
 * little-endian numbers, read here without core's reader; the same image
 * with every number byte-swapped (a host-endian writer on a machine of the
 * other byte order) is refused by its version, not misread. */
static void test_byte_order(void **state)
{
    (void)state;
    test_host th;
    fluid_sph *fl = sph_make(&th, "{\"domain\": [0, 0, 0.2, 0.2], \"spacing\": 0.02, \"fill\": [0, 0, 0.2, 0.1]}",
                             NULL);
    sph_run(fl, 0.0, 0.01, 2e-3, NULL, NULL);
    const seam_plugin *P = seam_plugin_v1();
    seam_buffer buf;
    assert_int_equal(P->save(fl, &buf), SEAM_OK);
    char err[256] = "";
    assert_true(contract_image_valid(buf.data, buf.size, err, sizeof err));
    contract_value v;
    assert_true(contract_image_value(buf.data, buf.size, "fluid_sph", 0, &v));
    assert_int_equal(v.tag, 'u');
    assert_int_equal(v.u, 2);
    assert_true(contract_image_value(buf.data, buf.size, "fluid_sph", 1, &v));
    assert_int_equal(v.u, fl->n);
    assert_true(contract_image_value(buf.data, buf.size, "fluid_sph", 3, &v));
    assert_int_equal(v.tag, 'D');
    assert_int_equal(v.u, 2 * fl->n);
    for (size_t k = 0; k < 2 * fl->n; k++)
        assert_memory_equal(&(double){contract_le_f64(v.at + 8 * k)}, &fl->x_n[k], sizeof(double));
    size_t n = buf.size;
    unsigned char *swapped = contract_image_swapped(buf.data, n);
    assert_false(contract_image_valid(swapped, n, err, sizeof err));
    assert_int_equal(P->load(fl, swapped, n), SEAM_ERROR);
    assert_true(test_host_saw(&th, "version"));
    free(swapped);
    P->destroy(fl);
}

/* An image that reads back whole up to its last array, which is one value
 * too long, is refused and leaves the committed state: the particles do not
 * keep the older positions and velocities that came before the bad array. */
static void test_refused_image_leaves_the_state(void **state)
{
    (void)state;
    test_host th;
    fluid_sph *fl = sph_make(&th, "{\"domain\": [0, 0, 0.2, 0.2], \"spacing\": 0.02, \"fill\": [0, 0, 0.2, 0.1]}",
                             NULL);
    const seam_plugin *P = seam_plugin_v1();
    seam_buffer buf;
    assert_int_equal(P->save(fl, &buf), SEAM_OK);
    char err[256] = "";
    seam_ckpt_reader *r = seam_ckpt_reader_from_bytes(buf.data, buf.size, "start", err, sizeof err);
    assert_non_null(r);
    assert_true(seam_ckpt_need(r, "fluid_sph"));
    uint64_t d = seam_ckpt_get_u64(r), n = seam_ckpt_get_u64(r), np = seam_ckpt_get_u64(r);
    size_t len[5] = {d * n, d * n, n, n, n};
    double *start[5];
    for (int a = 0; a < 5; a++) {
        start[a] = malloc((len[a] + 1) * sizeof(double));
        seam_ckpt_get_f64s(r, start[a], len[a]);
    }
    seam_ckpt_reader_destroy(&r);
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "fluid_sph");
    seam_ckpt_put_u64(w, d);
    seam_ckpt_put_u64(w, n);
    seam_ckpt_put_u64(w, np);
    for (int a = 0; a < 5; a++)
        seam_ckpt_put_f64s(w, start[a], len[a]);
    double *extra = calloc(d * np + 1, sizeof *extra);   /* the interface's X^n and one value more */
    seam_ckpt_put_f64s(w, extra, d * np + 1);
    free(extra);
    size_t n_bad = 0;
    unsigned char *bad = seam_ckpt_writer_take(w, &n_bad);
    seam_ckpt_writer_destroy(&w);

    sph_run(fl, 0.0, 0.01, 2e-3, NULL, NULL);
    plugin_contract_refused_load_keeps_state(P, fl, bad, n_bad);
    free(bad);
    for (int a = 0; a < 5; a++)
        free(start[a]);
    P->destroy(fl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dfsph),
        cmocka_unit_test(test_takahashi),
        cmocka_unit_test(test_byte_order),
        cmocka_unit_test(test_refused_image_leaves_the_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
