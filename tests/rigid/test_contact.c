/* solid_rigid contact: restitution, Coulomb friction, collisions, resting stacks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"

/* Drop a ball from gap h onto the floor (sliding along y alone when
 * constrained); return the gap at the top of its first bounce. */
static double bounce_apex_of(int dim, double e, double h, bool constrained)
{
    char json[768];
    double r = 0.1, y0 = r + h;
    const char *slide = !constrained ? "" : dim == 2 ? ", \"constraint\": {\"translate_along\": [0, 1]}"
                                                     : ", \"constraint\": {\"translate_along\": [0, 1, 0]}";
    if (dim == 2)
        snprintf(json, sizeof json, "{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.05,"
                 " \"walls\": {\"min\": [-1, 0], \"max\": [1, 3]}, \"bodies\": [{\"name\": \"ball\","
                 " \"shape\": \"circle\", \"radius\": %g, \"density\": 1000, \"restitution\": %g,"
                 " \"position\": [0, %.17g]%s}]}", r, e, y0, slide);
    else
        snprintf(json, sizeof json, "{\"dim\": 3, \"gravity\": [0, -9.81, 0], \"spacing\": 0.05,"
                 " \"walls\": {\"min\": [-1, 0, -1], \"max\": [1, 3, 1]}, \"bodies\": [{\"name\": \"ball\","
                 " \"shape\": \"sphere\", \"radius\": %g, \"density\": 1000, \"restitution\": %g,"
                 " \"position\": [0, %.17g, 0]%s}]}", r, e, y0, slide);
    fixture *f = fixture_new(json);
    assert_non_null(f->rs);
    const rigid_state *S = fixture_state(f, 0);
    bool bounced = false;
    double apex = -INFINITY;
    for (int s = 0; s < 40000; s++) {
        assert_int_equal(fixture_step(f, 1e-4, NULL), SEAM_OK);
        assert_true(S->x[1] > r - 1e-3);   /* never sinks into the floor */
        if (!bounced && S->v[1] > 0)
            bounced = true;
        if (bounced) {
            apex = fmax(apex, S->x[1] - r);
            if (S->v[1] < 0)
                break;
        }
    }
    assert_true(bounced);
    fixture_destroy(f);
    return apex;
}

static double bounce_apex(int dim, double e, double h) { return bounce_apex_of(dim, e, h, false); }

/* Bounce height e^2 h. */
static void test_bounce(void **state)
{
    (void)state;
    double h = 1.0;
    assert_close(bounce_apex(2, 0.5, h), 0.25 * h, 2e-3);
    assert_close(bounce_apex(2, 0.8, h), 0.64 * h, 2e-3);
    assert_close(bounce_apex(3, 0.5, h), 0.25 * h, 2e-3);
    assert_close(bounce_apex(3, 1.0, h), 1.0 * h, 2e-3);
}

/* A body that slides along y alone bounces as a free one: the floor's
 * friction acts along x (and z), where such a body has no inverse mass
 * (the constraint carries it); dividing by that 0 made its state NaN. */
static void test_constrained_bounce(void **state)
{
    (void)state;
    double h = 1.0;
    assert_close(bounce_apex_of(2, 0.5, h, true), 0.25 * h, 2e-3);
    assert_close(bounce_apex_of(3, 0.5, h, true), 0.25 * h, 2e-3);
}

/* A block sliding on the floor slows at mu g and stops after v0^2 / (2 mu g). */
static void test_friction(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.05,"
                             " \"walls\": {\"min\": [-1, 0], \"max\": [5, 3], \"friction\": 0.3},"
                             " \"bodies\": [{\"name\": \"block\", \"shape\": \"rectangle\", \"size\": [0.2, 0.2],"
                             " \"density\": 500, \"friction\": 0.3, \"position\": [0, 0.1], \"velocity\": [2, 0]}]}");
    assert_non_null(f->rs);
    const rigid_state *S = fixture_state(f, 0);
    double mu_g = 0.3 * 9.81, dt = 1e-3;
    for (int s = 1; s <= 1000; s++) {
        assert_int_equal(fixture_step(f, dt, NULL), SEAM_OK);
        if (s == 300)
            assert_close(S->v[0], 2.0 - mu_g * 0.3, 2e-3);
    }
    assert_close(S->v[0], 0.0, 1e-9);
    assert_close(S->x[0], 4.0 / (2.0 * mu_g), 3e-3);
    assert_close(S->x[1], 0.1, 1e-4);
    assert_close(S->w[2], 0.0, 1e-6);
    fixture_destroy(f);
}

/* A disc (sphere) launched sliding without spin: friction turns sliding into
 * rolling at v = v0 / (1 + I / (m r^2)) = 2/3 v0 (5/7 v0), then w r = -v. */
static void test_slide_to_roll(void **state)
{
    (void)state;
    const char *json[2] = {
        "{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.05, \"walls\": {\"min\": [-1, 0], \"max\": [9, 3],"
        " \"friction\": 0.3}, \"bodies\": [{\"name\": \"disc\", \"shape\": \"circle\", \"radius\": 0.1,"
        " \"density\": 500, \"friction\": 0.3, \"position\": [0, 0.1], \"velocity\": [2, 0]}]}",
        "{\"dim\": 3, \"gravity\": [0, -9.81, 0], \"spacing\": 0.05, \"walls\": {\"min\": [-1, 0, -1],"
        " \"max\": [9, 3, 1], \"friction\": 0.3}, \"bodies\": [{\"name\": \"ball\", \"shape\": \"sphere\","
        " \"radius\": 0.1, \"density\": 500, \"friction\": 0.3, \"position\": [0, 0.1, 0], \"velocity\": [2, 0, 0]}]}"};
    double want[2] = {2.0 * 2.0 / 3.0, 2.0 * 5.0 / 7.0};
    for (int k = 0; k < 2; k++) {
        fixture *f = fixture_new(json[k]);
        assert_non_null(f->rs);
        for (int s = 0; s < 1000; s++)
            assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
        const rigid_state *S = fixture_state(f, 0);
        assert_close(S->v[0], want[k], 2e-3);
        assert_close(S->w[2] * 0.1, -S->v[0], 1e-6);   /* rolling: the contact point is at rest */
        assert_close(S->v[1], 0.0, 1e-6);
        fixture_destroy(f);
    }
}

/* Elastic head-on collision of unequal discs: v1' = (m1 - m2) v / M, v2' = 2 m1 v / M. */
static void test_collision(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, 0], \"spacing\": 0.05, \"bodies\": ["
                             "{\"name\": \"a\", \"shape\": \"circle\", \"radius\": 0.1, \"mass\": 1, \"restitution\": 1,"
                             " \"position\": [0, 0], \"velocity\": [1, 0]},"
                             "{\"name\": \"b\", \"shape\": \"circle\", \"radius\": 0.1, \"mass\": 3, \"restitution\": 1,"
                             " \"position\": [0.5, 0]}]}");
    assert_non_null(f->rs);
    for (int s = 0; s < 600; s++)
        assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
    const rigid_state *A = fixture_state(f, 0), *B = fixture_state(f, 1);
    assert_close(A->v[0], -0.5, 1e-9);
    assert_close(B->v[0], 0.5, 1e-9);
    assert_close(A->v[0] + 3.0 * B->v[0], 1.0, 1e-12);   /* momentum */
    assert_close(A->v[1], 0.0, 1e-12);
    assert_true(B->x[0] - A->x[0] > 0.2);
    fixture_destroy(f);
}

/* Boxes stacked with small gaps settle and come to rest on each other. */
static void test_stack(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.05,"
                             " \"walls\": {\"min\": [-1, 0], \"max\": [1, 3]}, \"bodies\": ["
                             "{\"name\": \"b0\", \"shape\": \"rectangle\", \"size\": [0.2, 0.2], \"density\": 500,"
                             " \"position\": [0, 0.105]},"
                             "{\"name\": \"b1\", \"shape\": \"rectangle\", \"size\": [0.2, 0.2], \"density\": 500,"
                             " \"position\": [0.01, 0.315]},"
                             "{\"name\": \"b2\", \"shape\": \"rectangle\", \"size\": [0.2, 0.2], \"density\": 500,"
                             " \"position\": [-0.01, 0.525]}]}");
    assert_non_null(f->rs);
    for (int s = 0; s < 2000; s++)
        assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
    for (size_t i = 0; i < 3; i++) {
        const rigid_state *S = fixture_state(f, i);
        assert_close(S->x[1], 0.1 + 0.2 * (double)i, 2e-3);
        assert_true(hypot(S->v[0], S->v[1]) < 1e-3);
        assert_true(fabs(S->w[2]) < 1e-2);
    }
    fixture_destroy(f);

    f = fixture_new("{\"dim\": 3, \"gravity\": [0, -9.81, 0], \"spacing\": 0.1,"
                    " \"walls\": {\"min\": [-1, 0, -1], \"max\": [1, 3, 1]}, \"bodies\": ["
                    "{\"name\": \"b0\", \"shape\": \"box\", \"size\": [0.3, 0.2, 0.3], \"density\": 500,"
                    " \"position\": [0, 0.105, 0]},"
                    "{\"name\": \"b1\", \"shape\": \"box\", \"size\": [0.2, 0.2, 0.2], \"density\": 500,"
                    " \"position\": [0.02, 0.32, -0.01]},"
                    "{\"name\": \"ball\", \"shape\": \"sphere\", \"radius\": 0.05, \"density\": 500,"
                    " \"position\": [0.0, 0.5, 0.0]}]}");
    assert_non_null(f->rs);
    for (int s = 0; s < 1500; s++)
        assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
    double want[3] = {0.1, 0.3, 0.45};
    for (size_t i = 0; i < 3; i++) {
        const rigid_state *S = fixture_state(f, i);
        assert_close(S->x[1], want[i], 3e-3);
        assert_true(seam_v3_norm(S->v) < 2e-3);
    }
    fixture_destroy(f);
}

/* A column of bouncy balls of different densities dropped onto each other
 * settles completely: no velocity left, each ball on the one below. */
static void test_ball_column(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.02,"
                             " \"walls\": {\"min\": [0, 0], \"max\": [1, 4]}, \"bodies\": ["
                             "{\"shape\": \"circle\", \"radius\": 0.05, \"density\": 300, \"restitution\": 0.3, \"position\": [0.5, 0.1]},"
                             "{\"shape\": \"circle\", \"radius\": 0.05, \"density\": 900, \"restitution\": 0.3, \"position\": [0.5, 0.22]},"
                             "{\"shape\": \"circle\", \"radius\": 0.05, \"density\": 500, \"restitution\": 0.3, \"position\": [0.5, 0.34]}]}");
    assert_non_null(f->rs);
    for (int s = 0; s < 1500; s++)
        assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
    for (size_t i = 0; i < 3; i++) {
        const rigid_state *S = fixture_state(f, i);
        assert_true(seam_v3_norm(S->v) < 1e-6);
        assert_close(S->x[1], 0.05 + 0.1 * (double)i, 2e-5);   /* within g dt^2 of touching */
    }
    fixture_destroy(f);
}

/* A ball resting on a kinematic plate that moves up rides with it. */
static void test_kinematic_push(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.05, \"bodies\": ["
                             "{\"name\": \"plate\", \"shape\": \"rectangle\", \"size\": [1, 0.1],"
                             " \"position\": [0, 0], \"kinematic\": {\"velocity\": [0, 0.5]}},"
                             "{\"name\": \"ball\", \"shape\": \"circle\", \"radius\": 0.1, \"density\": 100,"
                             " \"position\": [0, 0.15]}]}");
    assert_non_null(f->rs);
    for (int s = 0; s < 1000; s++)
        assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
    const rigid_state *P = fixture_state(f, 0), *B = fixture_state(f, 1);
    assert_close(P->x[1], 0.5, 1e-12);
    assert_close(B->x[1] - P->x[1], 0.15, 1e-3);
    assert_close(B->v[1], 0.5, 1e-3);
    fixture_destroy(f);
}

/* Bodies that start overlapping (a ball sunk into the floor, two boxes into
 * each other) are pushed apart within a few steps and stay apart. */
static void test_overlap_resolved(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.05,"
                             " \"walls\": {\"min\": [-1, 0], \"max\": [1, 3]}, \"bodies\": ["
                             "{\"name\": \"sunk\", \"shape\": \"circle\", \"radius\": 0.1, \"density\": 100,"
                             " \"position\": [-0.5, 0.07]},"
                             "{\"name\": \"low\", \"shape\": \"rectangle\", \"size\": [0.2, 0.2], \"density\": 100,"
                             " \"position\": [0.3, 0.1]},"
                             "{\"name\": \"high\", \"shape\": \"rectangle\", \"size\": [0.2, 0.2], \"density\": 100,"
                             " \"position\": [0.3, 0.27]}]}");
    assert_non_null(f->rs);
    for (int s = 0; s < 20; s++)
        assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
    assert_true(fixture_state(f, 0)->x[1] > 0.1 - 1e-4);
    assert_true(fixture_state(f, 1)->x[1] > 0.1 - 1e-4);
    assert_true(fixture_state(f, 2)->x[1] - fixture_state(f, 1)->x[1] > 0.2 - 1e-4);
    fixture_destroy(f);
}

/* A body resting on a wall stays inside the walls: its surface samples never
 * cross them (the fluid's domain is often the same box, and a sample past
 * it stops a coupled run). A heavy ball dropped onto the floor, a box
 * tipped onto it and a sphere in 3D, 400 steps each: no sample below the
 * floor by more than round-off (1e-12 m). Between bodies the correction
 * leaves its overlap of 1e-4 spacing so resting contacts persist. */
static void test_resting_inside_walls(void **state)
{
    (void)state;
    const char *cases[] = {
        "{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.0125,"
        " \"walls\": {\"min\": [0, 0], \"max\": [1.6, 0.8]}, \"bodies\": ["
        "{\"name\": \"heavy\", \"shape\": \"circle\", \"radius\": 0.1, \"density\": 10000,"
        " \"position\": [1.4, 0.4]},"
        "{\"name\": \"tipped\", \"shape\": \"rectangle\", \"size\": [0.2, 0.1], \"density\": 500,"
        " \"angle\": 0.3, \"position\": [0.5, 0.3]}]}",
        "{\"dim\": 3, \"gravity\": [0, -9.81, 0], \"spacing\": 0.05,"
        " \"walls\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]}, \"bodies\": ["
        "{\"name\": \"ball\", \"shape\": \"sphere\", \"radius\": 0.1, \"density\": 3000,"
        " \"position\": [0.5, 0.5, 0.5]}]}",
    };
    for (size_t c = 0; c < 2; c++) {
        fixture *f = fixture_new(cases[c]);
        assert_non_null(f->rs);
        size_t dim = (size_t)f->iface.dim;
        double lowest = INFINITY;
        for (int s = 0; s < 400; s++) {
            assert_int_equal(fixture_step(f, 2e-3, NULL), SEAM_OK);
            for (size_t i = 0; i < f->iface.n_points; i++)
                lowest = fmin(lowest, f->X[i * dim + 1]);
        }
        if (!(lowest >= -1e-12))
            fail_msg("case %zu: a surface sample went %.3g m below the floor", c, -lowest);
        assert_true(lowest < 1e-3);   /* and it did land */
        fixture_destroy(f);
    }
}

/* Meshes collide: a mesh crate falls onto the floor and lands on its 1 x 0.5
 * face's long side, and a ball dropped on the crate rests on its top. */
static void test_mesh_contact(void **state)
{
    (void)state;
    const char *dir = test_tmpdir("rigid_mesh_contact");
    char path[4200], json[4800];
    snprintf(path, sizeof path, "%s/crate.obj", dir);
    double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_int_equal(write_box_obj(path, false, I), 0);
    snprintf(json, sizeof json, "{\"dim\": 3, \"gravity\": [0, -9.81, 0], \"spacing\": 0.25,"
             " \"walls\": {\"min\": [-2, 0, -2], \"max\": [2, 3, 2]}, \"bodies\": ["
             "{\"name\": \"crate\", \"shape\": \"mesh\", \"mesh\": \"%s\", \"density\": 300,"
             " \"position\": [0, 0.55, 0]},"
             "{\"name\": \"ball\", \"shape\": \"sphere\", \"radius\": 0.1, \"density\": 300,"
             " \"position\": [0.3, 1.3, 0.1]}]}", path);
    fixture *f = fixture_new(json);
    if (!f->rs)
        fail_msg("refused:\n%s", f->th.all);
    for (int s = 0; s < 1500; s++)
        assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
    const rigid_state *C = fixture_state(f, 0), *B = fixture_state(f, 1);
    assert_close(C->x[1], 0.5, 2e-3);
    assert_close(B->x[1], 1.0 + 0.1, 3e-3);
    assert_true(seam_v3_norm(C->v) < 1e-3 && seam_v3_norm(B->v) < 1e-2);
    fixture_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounce),
        cmocka_unit_test(test_constrained_bounce),
        cmocka_unit_test(test_friction),
        cmocka_unit_test(test_slide_to_roll),
        cmocka_unit_test(test_collision),
        cmocka_unit_test(test_stack),
        cmocka_unit_test(test_ball_column),
        cmocka_unit_test(test_kinematic_push),
        cmocka_unit_test(test_overlap_resolved),
        cmocka_unit_test(test_resting_inside_walls),
        cmocka_unit_test(test_mesh_contact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
