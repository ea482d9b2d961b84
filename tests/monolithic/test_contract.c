/* The monolithic plugin against the plugin contract kit
 * (tests/support/plugin_contract.h): an elastic block and a rigid plank
 * floating in a small tank, and its saved state read back by the kit's
 * independent little-endian reader. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plugin.h"
#include "seam/checkpoint.h"
#include "plugin_contract.h"
#include "test_host.h"

static const char *const scene =
    "{\"coupling\": {\"sigma\": 0.9},"
    " \"fluid\": {\"plugin\": \"fluid_mac\", \"cells\": [20, 12], \"dx\": 0.1, \"boundary\": {\"top\": \"open\"},"
    "   \"liquid\": {\"fill\": [0, 0, 2, 0.6]}},"
    " \"solids\": [{\"name\": \"block\", \"plugin\": \"solid_fem\", \"dim\": 2, \"bodies\": [{\"name\": \"block\","
    "   \"mesh\": {\"generate\": \"rectangle\", \"min\": [0.4, 0.5], \"max\": [0.8, 0.7], \"cells\": [4, 2]},"
    "   \"material\": {\"model\": \"corotated\", \"E\": 1e6, \"nu\": 0.3, \"density\": 500}}]},"
    "  {\"name\": \"plank\", \"plugin\": \"solid_rigid\", \"dim\": 2, \"spacing\": 0.05, \"bodies\": [{\"name\": \"plank\","
    "   \"shape\": \"rectangle\", \"size\": [0.4, 0.2], \"density\": 400, \"position\": [1.4, 0.6]}]}]}";
static const double gravity[3] = {0.0, -9.8, 0.0};

static void test_contract(void **state)
{
    (void)state;
    plugin_contract c = {.plugin = monolithic_table(), .config = scene, .gravity = gravity, .dt = 0.005,
                         .steps = 2, .field = "pressure", .typed_key = "coupling.sigma"};
    plugin_contract_check(&c);
}

/* The plugin made from the scene above, with its host. */
static void *make(test_host *th)
{
    test_host_init(th, "monolithic", "");
    test_host_gravity(th, 0.0, -9.8, 0.0);
    const seam_plugin *P = monolithic_table();
    void *m = P->create(P, scene, &th->host);
    assert_non_null(m);
    return m;
}

/* The image's one section counts its parts (the fluid and the two solids),
 * each an image of its plugin's own. */
static void test_image(void **state)
{
    (void)state;
    test_host th;
    const seam_plugin *P = monolithic_table();
    void *m = make(&th);
    seam_buffer buf;
    assert_int_equal(P->save(m, &buf), SEAM_OK);
    char err[256] = "";
    assert_true(contract_image_valid(buf.data, buf.size, err, sizeof err));
    contract_value v;
    assert_true(contract_image_value(buf.data, buf.size, "monolithic", 0, &v));
    assert_int_equal(v.tag, 'u');
    assert_int_equal(v.u, 3);
    for (size_t k = 1; k <= 3; k++) {
        assert_true(contract_image_value(buf.data, buf.size, "monolithic", k, &v));
        assert_int_equal(v.tag, 's');
        assert_true(v.u > 0);
    }
    assert_false(contract_image_value(buf.data, buf.size, "monolithic", 4, &v));
    P->destroy(m);
}

/* An image whose container reads back whole but one of whose parts is
 * refused (here the block's) leaves every part as it was: the fluid does not
 * keep the older state it was handed before the block refused. */
static void test_refused_part_leaves_the_state(void **state)
{
    (void)state;
    test_host th;
    const seam_plugin *P = monolithic_table();
    void *m = make(&th);
    seam_buffer buf;
    assert_int_equal(P->save(m, &buf), SEAM_OK);
    char err[256] = "";
    seam_ckpt_reader *r = seam_ckpt_reader_from_bytes(buf.data, buf.size, "step 0", err, sizeof err);
    assert_non_null(r);
    assert_true(seam_ckpt_need(r, "monolithic"));
    assert_int_equal(seam_ckpt_get_u64(r), 3);
    size_t n_fluid = 0, n_block = 0, n_plank = 0;
    const void *fluid0 = seam_ckpt_get_bytes(r, &n_fluid);
    seam_ckpt_get_bytes(r, &n_block);
    const void *plank0 = seam_ckpt_get_bytes(r, &n_plank);
    assert_true(seam_ckpt_ok(r, true));
    /* step 0's fluid and plank with a block image that is not one */
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "monolithic");
    seam_ckpt_put_u64(w, 3);
    seam_ckpt_put_bytes(w, fluid0, n_fluid);
    seam_ckpt_put_bytes(w, "not a solid_fem state", 21);
    seam_ckpt_put_bytes(w, plank0, n_plank);
    size_t n_bad = 0;
    unsigned char *bad = seam_ckpt_writer_take(w, &n_bad);
    seam_ckpt_writer_destroy(&w);
    seam_ckpt_reader_destroy(&r);

    for (int64_t k = 0; k < 3; k++) {
        seam_step step = {k, 0.005 * (double)k, 0.005, 0};
        assert_int_equal(P->solve(m, &step, NULL, NULL), SEAM_OK);
        assert_int_equal(P->commit(m), SEAM_OK);
    }
    plugin_contract_refused_load_keeps_state(P, m, bad, n_bad);
    free(bad);
    P->destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contract),
        cmocka_unit_test(test_image),
        cmocka_unit_test(test_refused_part_leaves_the_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
