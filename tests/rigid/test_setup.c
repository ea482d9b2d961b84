/* solid_rigid setup: interface geometry, mass properties, bad input, state
 * save/load, the solve/commit contract, output files. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <dlfcn.h>

#include "fixture.h"
#include "plugin_contract.h"

/* 2D: points on the circle about one spacing apart, a closed counter-clockwise loop
 * whose normals (dy, -dx) point out; lumped masses add up to the body's mass. */
static void test_interface_2d(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"spacing\": 0.05, \"bodies\": ["
                             "{\"name\": \"ball\", \"shape\": \"circle\", \"radius\": 0.3, \"density\": 10,"
                             " \"position\": [1, 2]},"
                             "{\"name\": \"ell\", \"shape\": \"polygon\", \"vertices\": [[0,0],[0,0.25],[0.1,0.25],"
                             "[0.1,0.1],[0.3,0.1],[0.3,0]], \"density\": 10, \"position\": [3, 2]}]}");
    assert_non_null(f->rs);
    const seam_interface *I = &f->iface;
    assert_int_equal(I->dim, 2);
    assert_int_equal(I->nodes_per_elem, 2);
    assert_int_equal(I->n_bodies, 2);
    const rigid_body *b0 = rigid_get_body(f->rs, 0), *b1 = rigid_get_body(f->rs, 1);
    assert_int_equal(b0->n_pts, (size_t)ceil(2 * M_PI * 0.3 / 0.05));
    double msum[2] = {0, 0};
    int visits[2] = {0, 0};
    for (size_t i = 0; i < I->n_points; i++)
        msum[I->body[i]] += I->mass[i];
    assert_close(msum[0], b0->m, 1e-12);
    assert_close(msum[1], b1->m, 1e-12);
    assert_close(b0->m, 10 * M_PI * 0.09, 1e-12);
    for (size_t e = 0; e < I->n_elems; e++) {
        const double *a = I->X + 2 * I->elems[2 * e], *b = I->X + 2 * I->elems[2 * e + 1];
        int body = I->body[I->elems[2 * e]];
        assert_int_equal(body, I->body[I->elems[2 * e + 1]]);
        assert_int_equal(I->two_sided[e], 0);
        const rigid_state *S = fixture_state(f, (size_t)body);
        double dx = b[0] - a[0], dy = b[1] - a[1], len = hypot(dx, dy);
        assert_true(len <= 0.05 + 1e-12);
        double mid[2] = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])}, nrm[2] = {dy / len, -dx / len};
        double eps = 5e-3, p[3] = {mid[0] + eps * nrm[0] - S->x[0], mid[1] + eps * nrm[1] - S->x[1], 0}, pb[3], d, n[3];
        double R[9];
        q_to_mat(R, S->q);
        seam_m3_mul_tv(pb, R, p);
        rigid_shape_sdf(&rigid_get_body(f->rs, (size_t)body)->shape, pb, &d, n);
        assert_true(d > 0);   /* stepping along the normal leaves the body */
        visits[body]++;
    }
    assert_int_equal(visits[0], (int)b0->n_pts);   /* closed loops: as many segments as points */
    assert_int_equal(visits[1], (int)b1->n_pts);
    /* the concave L: area, centroid (its "position") and polar moment from two rectangles */
    double A1 = 0.03, A2 = 0.015, A = A1 + A2, cx = (A1 * 0.15 + A2 * 0.05) / A, cy = (A1 * 0.05 + A2 * 0.175) / A;
    double J = A1 * (0.09 + 0.01) / 12 + A1 * (pow(0.15 - cx, 2) + pow(0.05 - cy, 2)) + A2 * (0.01 + 0.0225) / 12 +
               A2 * (pow(0.05 - cx, 2) + pow(0.175 - cy, 2));
    assert_close(b1->m, 10 * A, 1e-13);
    assert_close(b1->I0[2], 10 * J, 1e-13);
    /* given clockwise, stored counter-clockwise from the last vertex, about the centroid */
    assert_close(b1->shape.verts[0], 0.3 - cx, 1e-14);
    assert_close(b1->shape.verts[1], 0.0 - cy, 1e-14);
    fixture_destroy(f);
}

/* 3D: closed surfaces (every edge in two triangles) with outward normals. */
static void check_closed_outward(const seam_interface *I, const rigid_solver *rs)
{
    for (size_t e = 0; e < I->n_elems; e++) {
        const int32_t *t = I->elems + 3 * e;
        const double *a = I->X + 3 * t[0], *b = I->X + 3 * t[1], *c = I->X + 3 * t[2];
        double ab[3], ac[3], n[3], cen[3], d[3];
        seam_v3_sub(ab, b, a);
        seam_v3_sub(ac, c, a);
        seam_v3_cross(n, ab, ac);
        assert_true(seam_v3_norm(n) > 0);
        const rigid_state *S = rigid_get_state(rs, (size_t)I->body[t[0]]);
        for (int k = 0; k < 3; k++)
            cen[k] = (a[k] + b[k] + c[k]) / 3.0;
        seam_v3_sub(d, cen, S->x);
        assert_true(seam_v3_dot(n, d) > 0);   /* convex shapes: the normal points away from the centre */
    }
    /* every directed edge appears once and its reverse once: signed count sums to zero */
    long *count = calloc(I->n_points * I->n_points, sizeof *count);
    for (size_t e = 0; e < I->n_elems; e++)
        for (int k = 0; k < 3; k++) {
            int32_t a = I->elems[3 * e + (size_t)k], b = I->elems[3 * e + (size_t)(k + 1) % 3];
            count[(size_t)a * I->n_points + (size_t)b]++;
        }
    for (size_t a = 0; a < I->n_points; a++)
        for (size_t b = 0; b < I->n_points; b++)
            assert_int_equal(count[a * I->n_points + b], count[b * I->n_points + a]);
    free(count);
}

static void test_interface_3d(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 3, \"spacing\": 0.1, \"bodies\": ["
                             "{\"name\": \"ball\", \"shape\": \"sphere\", \"radius\": 0.3, \"density\": 10},"
                             "{\"name\": \"brick\", \"shape\": \"box\", \"size\": [0.4, 0.2, 0.3], \"density\": 10,"
                             " \"position\": [1, 0, 0], \"orientation\": [1, 0.2, 0, 0.1]}]}");
    assert_non_null(f->rs);
    assert_int_equal(f->iface.nodes_per_elem, 3);
    check_closed_outward(&f->iface, f->rs);
    for (size_t i = 0; i < f->iface.n_points; i++)
        if (f->iface.body[i] == 0)
            assert_close(seam_v3_norm(f->iface.X + 3 * i), 0.3, 1e-12);
    fixture_destroy(f);
}

/* Every directed edge once and its reverse once (closed, consistently oriented),
 * each triangle's normal along the shape's outward normal at its centroid;
 * returns the enclosed volume (divergence theorem). Body-frame points. */
static double closed_outward_volume(const rigid_shape *sh, const double *p, size_t np, const int32_t *tris, size_t nt)
{
    long *count = calloc(np * np, sizeof *count);
    double V = 0.0;
    for (size_t e = 0; e < nt; e++) {
        const int32_t *t = tris + 3 * e;
        const double *a = p + 3 * t[0], *b = p + 3 * t[1], *c = p + 3 * t[2];
        double ab[3], ac[3], n[3], cen[3], d, out[3], bc[3];
        seam_v3_sub(ab, b, a);
        seam_v3_sub(ac, c, a);
        seam_v3_cross(n, ab, ac);
        assert_true(seam_v3_norm(n) > 0);
        for (int k = 0; k < 3; k++)
            cen[k] = (a[k] + b[k] + c[k]) / 3.0;
        assert_true(rigid_shape_sdf(sh, cen, &d, out));
        assert_true(seam_v3_dot(n, out) > 0);
        seam_v3_cross(bc, b, c);
        V += seam_v3_dot(a, bc) / 6.0;
        for (int k = 0; k < 3; k++)
            count[(size_t)t[k] * np + (size_t)t[(k + 1) % 3]]++;
    }
    for (size_t a = 0; a < np; a++)
        for (size_t b = 0; b < np; b++) {
            assert_true(count[a * np + b] <= 1);
            assert_int_equal(count[a * np + b], count[b * np + a]);
        }
    free(count);
    return V;
}

/* The cylinder and the torus (axis y): mass and principal moments from the
 * closed forms, a closed outward surface inscribed in the solid (its
 * volume a little less, as its polygons' areas are less than their
 * circles'), points on the surface, and signed distances. */
static void test_cylinder_torus(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 3, \"spacing\": 0.02, \"bodies\": ["
                             "{\"name\": \"can\", \"shape\": \"cylinder\", \"radius\": 0.1, \"height\": 0.3,"
                             " \"density\": 2},"
                             "{\"name\": \"ring\", \"shape\": \"torus\", \"radius\": 0.2, \"tube_radius\": 0.06,"
                             " \"density\": 0.7, \"position\": [1, 0, 0], \"orientation\": [1, 0.3, 0, 0]}]}");
    assert_non_null(f->rs);
    const rigid_body *can = rigid_get_body(f->rs, 0), *ring = rigid_get_body(f->rs, 1);
    double Vc = M_PI * 0.01 * 0.3, Vt = 2.0 * M_PI * M_PI * 0.2 * 0.0036;
    assert_close(can->m, 2.0 * Vc, 1e-15);
    assert_close(can->I0[0], 2.0 * Vc * (0.03 + 0.09) / 12.0, 1e-15);
    assert_close(can->I0[1], 2.0 * Vc * 0.01 / 2.0, 1e-15);
    assert_close(can->I0[2], can->I0[0], 0.0);
    assert_close(ring->m, 0.7 * Vt, 1e-15);
    assert_close(ring->I0[1], 0.7 * Vt * (0.04 + 0.75 * 0.0036), 1e-15);
    assert_close(ring->I0[0], 0.7 * Vt * (0.02 + 0.625 * 0.0036), 1e-15);
    const rigid_shape *sh[2] = {&can->shape, &ring->shape};
    double want[2] = {Vc, Vt};
    for (int k = 0; k < 2; k++) {
        double *p;
        int32_t *tris;
        size_t np, nt;
        rigid_shape_sample(sh[k], 0.02, &p, &np, &tris, &nt);
        double V = closed_outward_volume(sh[k], p, np, tris, nt);
        printf("%s: %zu points, %zu triangles, volume %.6g (solid %.6g, %.2f%% less)\n", k ? "torus" : "cylinder", np,
               nt, V, want[k], 100.0 * (1.0 - V / want[k]));
        /* inscribed: the cylinder's 32-gon holds 0.64% less, the torus's 19-gon tube
         * swept by a 76-gon 1.91% less (1 - (2 pi / 19)^2 / 6 - (2 pi / 76)^2 / 6 = 1 - 1.93%) */
        assert_true(V < want[k] && V > (k ? 0.978 : 0.992) * want[k]);
        for (size_t i = 0; i < np; i++) {
            double d, n[3];
            rigid_shape_sdf(sh[k], p + 3 * i, &d, n);
            assert_true(fabs(d) < 1e-12);
            assert_close(seam_v3_norm(n), 1.0, 1e-12);
        }
        assert_true(rigid_shape_sample_estimate(sh[k], 0.02) >= (double)np);
        free(p);
        free(tris);
    }
    double q[4][3] = {{0, 0, 0}, {0.2, 0, 0}, {0, 0.25, 0}, {0.13, -0.19, 0}}, dc[4] = {-0.1, 0.1, 0.1, 0.05};
    double u[3][3] = {{0.2, 0, 0}, {0, 0, 0}, {0, 0.1, 0.2}}, dt[3] = {-0.06, 0.14, 0.04};
    for (int k = 0; k < 4; k++) {
        double d, n[3];
        rigid_shape_sdf(sh[0], q[k], &d, n);
        assert_close(d, dc[k], 1e-15);
    }
    for (int k = 0; k < 3; k++) {
        double d, n[3];
        rigid_shape_sdf(sh[1], u[k], &d, n);
        assert_close(d, dt[k], 1e-15);
    }
    fixture_destroy(f);
}

/* A box given as a (turned) OBJ mesh has the box's mass and principal moments. */
static void test_mesh(void **state)
{
    (void)state;
    const char *dir = test_tmpdir("rigid_mesh");
    char path[4200], json[4600];
    snprintf(path, sizeof path, "%s/box.obj", dir);
    double c = cos(0.4), s = sin(0.4), R[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    assert_int_equal(write_box_obj(path, false, R), 0);
    snprintf(json, sizeof json, "{\"dim\": 3, \"spacing\": 0.25, \"bodies\": [{\"name\": \"crate\", \"shape\": \"mesh\","
             " \"mesh\": \"%s\", \"density\": 3, \"position\": [0, 5, 0]}]}", path);
    fixture *f = fixture_new(json);
    assert_non_null(f->rs);
    const rigid_body *b = rigid_get_body(f->rs, 0);
    double m = 3.0;   /* volume 1 */
    double want[3] = {m * (1 + 4) / 12, m * (4 + 0.25) / 12, m * (1 + 0.25) / 12};   /* z, x and y axes */
    double got[3] = {b->I0[0], b->I0[1], b->I0[2]};
    assert_close(b->m, m, 1e-12);
    /* dsyev sorts ascending: about y (long x, thin z), about x, about z */
    assert_close(got[0], want[2], 1e-12);
    assert_close(got[1], want[1], 1e-12);
    assert_close(got[2], want[0], 1e-12);
    check_closed_outward(&f->iface, f->rs);
    /* signed distance in the principal frame: axis 0 along the 2 m side, axis 2 along the 0.5 m side */
    double q[4][3] = {{0, 0, 0}, {0, 0, 0.35}, {1.2, 0, 0}, {0.9, 0.1, 0.1}}, want_d[4] = {-0.25, 0.1, 0.2, -0.1};
    for (int k = 0; k < 4; k++) {
        double d, n[3];
        assert_true(rigid_shape_sdf(&b->shape, q[k], &d, n));
        assert_close(d, want_d[k], 1e-12);
        assert_close(seam_v3_norm(n), 1.0, 1e-12);
    }
    for (size_t e = 0; e < f->iface.n_elems; e++) {
        const int32_t *t = f->iface.elems + 3 * e;
        for (int k = 0; k < 3; k++) {
            double d[3];
            seam_v3_sub(d, f->iface.X + 3 * t[k], f->iface.X + 3 * t[(k + 1) % 3]);
            assert_true(seam_v3_norm(d) <= 0.25 + 1e-12);
        }
    }
    fixture_destroy(f);
}

/* Refusals name the body and the key. */
static void expect_refused(const char *json, const char *name, const char *key)
{
    fixture *f = fixture_new(json);
    assert_null(f->rs);
    if (!test_host_saw(&f->th, name) || !test_host_saw(&f->th, key))
        fail_msg("expected \"%s\" and \"%s\" in:\n%s", name, key, f->th.all);
    fixture_destroy(f);
}

static void test_bad_input(void **state)
{
    (void)state;
    expect_refused("{\"dim\": 2, \"bodies\": [{\"name\": \"lead\", \"shape\": \"circle\", \"radius\": 1,"
                   " \"density\": 0}]}", "\"lead\"", "bodies[0].density");
    expect_refused("{\"dim\": 2, \"bodies\": [{\"shape\": \"circle\", \"radius\": 1, \"density\": 1},"
                   "{\"name\": \"ghost\", \"shape\": \"circle\", \"radius\": 1, \"density\": -5}]}",
                   "\"ghost\"", "bodies[1].density");
    expect_refused("{\"dim\": 3, \"bodies\": [{\"name\": \"donut\", \"shape\": \"torus\", \"radius\": 0.1,"
                   " \"tube_radius\": 0.1, \"density\": 1}]}", "\"donut\"", "bodies[0].tube_radius");
    expect_refused("{\"dim\": 3, \"bodies\": [{\"name\": \"can\", \"shape\": \"cylinder\", \"radius\": 0.1,"
                   " \"density\": 1}]}", "\"can\"", "height");
    expect_refused("{\"dim\": 2, \"bodies\": [{\"name\": \"blob\", \"shape\": \"ellipse\", \"radius\": 1,"
                   " \"density\": 1}]}", "\"blob\"", "bodies[0].shape");
    expect_refused("{\"dim\": 3, \"bodies\": [{\"name\": \"flat\", \"shape\": \"circle\", \"radius\": 1,"
                   " \"density\": 1}]}", "\"flat\"", "bodies[0].shape");
    expect_refused("{\"dim\": 2, \"bodies\": [{\"name\": \"heavy\", \"shape\": \"circle\", \"radius\": 1,"
                   " \"density\": 1, \"mass\": 2}]}", "\"heavy\"", "bodies[0].mass");
    expect_refused("{\"dim\": 2, \"bodies\": [{\"name\": \"bow\", \"shape\": \"polygon\", \"density\": 1,"
                   " \"vertices\": [[0,0],[2,2],[2,0],[0,1]]}]}", "\"bow\"", "cross");
    expect_refused("{\"dim\": 2, \"bodies\": [{\"name\": \"typo\", \"shape\": \"circle\", \"radius\": 1,"
                   " \"densty\": 1}]}", "\"typo\"", "bodies[0].densty");
    expect_refused("{\"dim\": 2, \"bodies\": [{\"name\": \"tilt\", \"shape\": \"circle\", \"radius\": 1,"
                   " \"density\": 1, \"restitution\": 1.5}]}", "\"tilt\"", "bodies[0].restitution");
    /* a spacing that would sample 1e9 points (rising_disc with cell_size 1e-9), or a box lattice of 1e18 */
    expect_refused("{\"dim\": 2, \"spacing\": 1e-9, \"bodies\": [{\"name\": \"disc\", \"shape\": \"circle\","
                   " \"radius\": 0.15, \"density\": 600}]}", "bodies[0]: spacing 1e-09 m",
                   "of them on this one (at most 4e+06)");
    expect_refused("{\"dim\": 3, \"spacing\": 1e-6, \"bodies\": [{\"name\": \"brick\", \"shape\": \"box\","
                   " \"size\": [1, 1, 1], \"density\": 600}]}", "spacing 1e-06 m", "raise spacing");
    const char *dir = test_tmpdir("rigid_bad_mesh");
    char path[4200], json[4600];
    snprintf(path, sizeof path, "%s/open.obj", dir);
    double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_int_equal(write_box_obj(path, true, I), 0);
    snprintf(json, sizeof json, "{\"dim\": 3, \"bodies\": [{\"name\": \"bucket\", \"shape\": \"mesh\","
             " \"mesh\": \"%s\", \"density\": 3}]}", path);
    expect_refused(json, "\"bucket\"", "bodies[0].mesh");
    fixture *f = fixture_new(json);
    assert_true(test_host_saw(&f->th, "not closed"));
    fixture_destroy(f);
    /* a face naming a vertex that does not exist: file and line */
    snprintf(path, sizeof path, "%s/broken.obj", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 9\n");
    fclose(fp);
    snprintf(json, sizeof json, "{\"dim\": 3, \"bodies\": [{\"name\": \"shard\", \"shape\": \"mesh\","
             " \"mesh\": \"%s\", \"density\": 3}]}", path);
    expect_refused(json, "\"shard\"", "broken.obj:5:");
}

/* solve is a pure function of the committed state; commit takes the last solve. */
static void test_solve_commit(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"gravity\": [0, -9.81], \"spacing\": 0.05, \"bodies\": ["
                             "{\"name\": \"plank\", \"shape\": \"rectangle\", \"size\": [0.4, 0.1], \"density\": 100}]}");
    assert_non_null(f->rs);
    assert_int_equal(rigid_commit(f->rs), SEAM_ERROR);   /* nothing to commit yet */
    size_t nd = f->nd;
    double *F = malloc(nd * sizeof *F), *X1 = malloc(nd * sizeof *X1);
    for (size_t i = 0; i < nd; i++)
        F[i] = cos((double)i);
    assert_int_equal(fixture_solve(f, 1e-2, F), SEAM_OK);
    memcpy(X1, f->X, nd * sizeof *X1);
    assert_int_equal(fixture_solve(f, 1e-2, NULL), SEAM_OK);
    assert_int_equal(fixture_solve(f, 1e-2, F), SEAM_OK);
    assert_memory_equal(X1, f->X, nd * sizeof *X1);
    assert_int_equal(rigid_commit(f->rs), SEAM_OK);
    seam_interface I;
    rigid_describe(f->rs, &I);
    assert_memory_equal(I.X, X1, nd * sizeof *X1);
    assert_true(isinf(test_max_dt(solid_rigid_table(), f->rs)));
    free(F);
    free(X1);
    fixture_destroy(f);
}

/* save, run, load, run again: the same trajectory bit for bit. */
static void test_save_load(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 3, \"gravity\": [0, -9.81, 0], \"spacing\": 0.1,"
                             " \"walls\": {\"min\": [-1, 0, -1], \"max\": [1, 2, 1]}, \"bodies\": ["
                             "{\"name\": \"brick\", \"shape\": \"box\", \"size\": [0.3, 0.2, 0.1], \"density\": 300,"
                             " \"position\": [0, 0.3, 0], \"angular_velocity\": [1, 2, 3], \"restitution\": 0.4}]}");
    assert_non_null(f->rs);
    for (int s = 0; s < 50; s++)
        assert_int_equal(fixture_step(f, 2e-3, NULL), SEAM_OK);
    seam_buffer buf;
    assert_int_equal(rigid_save_state(f->rs, &buf), SEAM_OK);
    void *copy = malloc(buf.size);
    memcpy(copy, buf.data, buf.size);
    for (int s = 0; s < 200; s++)
        assert_int_equal(fixture_step(f, 2e-3, NULL), SEAM_OK);
    double *Xa = malloc(f->nd * sizeof *Xa);
    memcpy(Xa, f->X, f->nd * sizeof *Xa);
    assert_int_equal(rigid_load_state(f->rs, copy, buf.size), SEAM_OK);
    f->t -= 200 * 2e-3;
    for (int s = 0; s < 200; s++)
        assert_int_equal(fixture_step(f, 2e-3, NULL), SEAM_OK);
    assert_memory_equal(Xa, f->X, f->nd * sizeof *Xa);
    assert_int_equal(rigid_load_state(f->rs, copy, buf.size - 8), SEAM_ERROR);
    assert_true(test_host_saw(&f->th, "load:"));
    /* core's format, read by the contract kit's own little-endian reader: the dimension, the body count,
     * the committed time, then the body's name and its state (x first) */
    contract_value v;
    assert_true(contract_image_value(copy, buf.size, "solid_rigid", 0, &v) && v.tag == 'u' && v.u == 3);
    assert_true(contract_image_value(copy, buf.size, "solid_rigid", 1, &v) && v.tag == 'u' && v.u == 1);
    assert_true(contract_image_value(copy, buf.size, "solid_rigid", 3, &v) && v.tag == 's' && v.u == 5);
    assert_memory_equal(v.at, "brick", 5);
    assert_true(contract_image_value(copy, buf.size, "solid_rigid", 4, &v) && v.tag == 'D' && v.u == 3);
    /* one flipped bit anywhere is refused, and the committed state stays */
    rigid_state before = *rigid_get_state(f->rs, 0);
    for (size_t k = 0; k < buf.size; k += 7) {
        unsigned char *bad = malloc(buf.size);
        memcpy(bad, copy, buf.size);
        bad[k] ^= 0x10;
        assert_int_equal(rigid_load_state(f->rs, bad, buf.size), SEAM_ERROR);
        free(bad);
    }
    assert_memory_equal(&before, rigid_get_state(f->rs, 0), sizeof before);
    assert_true(test_host_saw(&f->th, "solid_rigid state"));
    /* another scene's image is refused by what differs */
    fixture *g = fixture_new("{\"dim\": 3, \"spacing\": 0.1, \"bodies\": [{\"name\": \"block\", \"shape\": \"box\","
                             " \"size\": [0.3, 0.2, 0.1], \"density\": 300}]}");
    assert_int_equal(rigid_load_state(g->rs, copy, buf.size), SEAM_ERROR);
    assert_true(test_host_saw(&g->th, "body 0 is \"brick\" in the image, \"block\" here"));
    fixture_destroy(g);
    free(copy);
    free(Xa);
    fixture_destroy(f);
}

/* The plugin contract kit (tests/support): bodies in 2D on a floor with a constraint, and a 3D body spinning. */
static void test_contract(void **state)
{
    (void)state;
    static const double g[3] = {0, -9.81, 0};
    plugin_contract c = {
        .plugin = solid_rigid_table(),
        .config = "{\"dim\": 2, \"spacing\": 0.05, \"walls\": {\"min\": [-1, 0], \"max\": [1, 2]}, \"bodies\": ["
                  "{\"name\": \"disc\", \"shape\": \"circle\", \"radius\": 0.15, \"density\": 600, \"position\": "
                  "[0, 0.152]}, {\"name\": \"flap\", \"shape\": \"rectangle\", \"size\": [0.4, 0.05], \"density\": "
                  "800, \"position\": [0.5, 1], \"constraint\": {\"rotate_about\": [0.3, 1]}}]}",
        .gravity = g,
        .dt = 2e-3,
        .steps = 5,
        .load = 2.0,
    };
    plugin_contract_check(&c);
    c.config = "{\"dim\": 3, \"spacing\": 0.1, \"bodies\": [{\"name\": \"brick\", \"shape\": \"box\", \"size\": "
               "[0.3, 0.2, 0.1], \"density\": 300, \"angular_velocity\": [1, 2, 3]}]}";
    plugin_contract_check(&c);
}

static void test_output_and_table(void **state)
{
    (void)state;
    fixture *f = fixture_new("{\"dim\": 2, \"spacing\": 0.1, \"bodies\": ["
                             "{\"name\": \"ball\", \"shape\": \"circle\", \"radius\": 0.2, \"density\": 10}]}");
    assert_non_null(f->rs);
    const char *dir = test_tmpdir("rigid_output");
    assert_int_equal(rigid_write_output(f->rs, dir, 7), SEAM_OK);
    char path[4200];
    snprintf(path, sizeof path, "%s/bodies_000007.vtu", dir);
    size_t n;
    double *v = test_read_vtk_points(path, &n);
    assert_int_equal(n, f->iface.n_points);
    free(v);
    v = test_read_vtk_xml(path, "connectivity", &n);
    assert_int_equal(n, 2 * f->iface.n_elems);   /* segments */
    free(v);
    fixture_destroy(f);
    /* 3D: triangle cells */
    f = fixture_new("{\"dim\": 3, \"spacing\": 0.2, \"bodies\": ["
                    "{\"name\": \"ball\", \"shape\": \"sphere\", \"radius\": 0.2, \"density\": 10}]}");
    assert_non_null(f->rs);
    assert_int_equal(rigid_write_output(f->rs, dir, 8), SEAM_OK);
    snprintf(path, sizeof path, "%s/bodies_000008.vtu", dir);
    v = test_read_vtk_xml(path, "types", &n);
    size_t triangles = 0;
    for (size_t e = 0; e < n; e++)
        triangles += v[e] == 5;   /* VTK_TRIANGLE cell types */
    free(v);
    assert_int_equal(triangles, f->iface.n_elems);
    const seam_plugin *p = solid_rigid_table();
    assert_int_equal(p->abi, SEAM_ABI_VERSION);
    assert_string_equal(p->name, "solid_rigid");
    assert_int_equal(p->role, SEAM_SOLID);
    assert_non_null(p->mobility);
    assert_null(p->bind);
    fixture_destroy(f);
}

/* The shared module exports the entry point and nothing else. */
static void test_shared_module(void **state)
{
    (void)state;
    const char *root = getenv("SEAM_BUILD_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/plugins/solid_rigid/solid_rigid.so", root ? root : "build");
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        fail_msg("dlopen: %s", dlerror());
    seam_plugin_entry entry = (seam_plugin_entry)dlsym(h, SEAM_PLUGIN_SYMBOL);
    assert_non_null(entry);
    const seam_plugin *p = entry();
    assert_string_equal(p->name, "solid_rigid");
    assert_null(dlsym(h, "rigid_create"));
    assert_null(dlsym(h, "rigid_contacts_solve"));
    dlclose(h);
}

/* The example participant objects in examples/ are accepted. */
static void test_examples(void **state)
{
    (void)state;
    const char *names[] = {"examples/participants/solid_rigid_balls.json", "examples/participants/solid_rigid_piston.json",
                           "examples/participants/solid_rigid_plank3d.json"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        FILE *fp = fopen(test_source_path(names[k]), "r");
        assert_non_null(fp);
        char text[8192];
        size_t len = fread(text, 1, sizeof text - 1, fp);
        fclose(fp);
        text[len] = 0;
        fixture *f = fixture_new(text);
        if (!f->rs)
            fail_msg("%s refused:\n%s", names[k], f->th.all);
        for (int s = 0; s < 10; s++)
            assert_int_equal(fixture_step(f, 1e-3, NULL), SEAM_OK);
        fixture_destroy(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interface_2d),
        cmocka_unit_test(test_interface_3d),
        cmocka_unit_test(test_mesh),
        cmocka_unit_test(test_cylinder_torus),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_solve_commit),
        cmocka_unit_test(test_save_load),
        cmocka_unit_test(test_contract),
        cmocka_unit_test(test_output_and_table),
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_shared_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
