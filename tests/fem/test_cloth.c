/* 3D cloth: membrane patch test, the dihedral angle's gradient, a pinned
 * sheet settling to a steady drape whose pins carry its weight, the closed
 * spherical shell, and the OBJ reader. */
#include "fem_test.h"
#include "seam/mesh_io.h"

/* A sheet in a tilted plane stretched uniformly along u: no force inside,
 * the far edge pulled by the membrane traction P = (2 mu + lambda)(s - 1). */
static void test_membrane_patch(void **state)
{
    (void)state;
    test_host th;
    fem *f = fem_make(&th, "{\"dim\": 3, \"bodies\": [{\"mesh\": {\"generate\": \"cloth\", \"origin\": [0, 0, 0], "
                           "\"u\": [0.6, 0.8, 0], \"v\": [0, 0, 2], \"cells\": [5, 6]}, \"material\": {\"kind\": "
                           "\"shell\", \"k_stretch\": 1000, \"nu\": 0.3, \"density\": 0.2}}]}");
    double s = 1.2, u[3] = {0.6, 0.8, 0};
    size_t nd = 3 * f->n;
    double *x = malloc(nd * sizeof *x), *force = calloc(nd, sizeof *force);
    for (size_t i = 0; i < f->n; i++) {
        double a = f->X0[3 * i] * u[0] + f->X0[3 * i + 1] * u[1];   /* coordinate along u */
        for (int k = 0; k < 3; k++)
            x[3 * i + k] = f->X0[3 * i + k] + (s - 1.0) * a * u[k];
    }
    fem_elastic(f, x, force, NULL);
    double nu = 0.3, k = 1000, mu = k / (2 * (1 + nu)), la = k * nu / (1 - nu * nu);
    double P = (2 * mu + la) * (s - 1), far = 0.0, inner = 0.0;
    for (size_t i = 0; i < f->n; i++) {
        double a = f->X0[3 * i] * u[0] + f->X0[3 * i + 1] * u[1], z = f->X0[3 * i + 2];
        double along = force[3 * i] * u[0] + force[3 * i + 1] * u[1] + force[3 * i + 2] * u[2];
        if (a > 1e-9 && a < 1 - 1e-9 && z > 1e-9 && z < 2 - 1e-9)
            for (int c = 0; c < 3; c++)
                inner = fmax(inner, fabs(force[3 * i + c]));
        if (a > 1 - 1e-9)
            far += along;
    }
    printf("membrane patch: traction %.6f N/m, far-edge force %.6f N (expected %.6f), max interior |f| %.2e\n", P,
           far, -P * 2.0, inner);
    assert_float_equal(far, -P * 2.0, 1e-9 * P);
    assert_true(inner < 1e-9 * P);
    free(x);
    free(force);
    fem_destroy(&f);
}

static void test_dihedral_gradient(void **state)
{
    (void)state;
    double x[12] = {0, 0, 0, 1, 0, 0, 0.3, 1, 0.2, 0.6, -1, 0.4};
    fem_hinge3 h = {{0, 1, 2, 3}, 0, 0.0};
    double G[12];
    double theta = fem_hinge3_angle(&h, x, G);
    assert_true(fabs(theta) > 0.1);
    for (int p = 0; p < 12; p++) {
        double xp[12], xm[12], eps = 1e-7;
        memcpy(xp, x, sizeof xp);
        memcpy(xm, x, sizeof xm);
        xp[p] += eps;
        xm[p] -= eps;
        double fd = (fem_hinge3_angle(&h, xp, NULL) - fem_hinge3_angle(&h, xm, NULL)) / (2 * eps);
        assert_float_equal(G[p], fd, 1e-7);
    }
    /* Flat hinge: zero angle. */
    double flat[12] = {0, 0, 0, 1, 0, 0, 0.3, 1, 0, 0.6, -1, 0};
    assert_float_equal(fem_hinge3_angle(&h, flat, NULL), 0.0, 1e-15);
}

/* A sheet pinned along one edge hangs down; at rest the pins carry the whole
 * weight and nothing moves. */
static void test_drape(void **state)
{
    (void)state;
    test_host th;
    fem *f = fem_make(&th, "{\"dim\": 3, \"gravity\": [0, 0, -9.81], \"bodies\": [{\"mesh\": {\"generate\": "
                           "\"cloth\", \"u\": [1, 0, 0], \"v\": [0, 1, 0], \"cells\": [6, 6]}, \"material\": "
                           "{\"kind\": \"shell\", \"k_stretch\": 5000, \"b_stretch\": 50, \"k_bend\": 1e-3, "
                           "\"b_bend\": 1e-3, \"density\": 0.2, \"damping\": {\"alpha\": 4}}, \"pin\": {\"box\": "
                           "{\"min\": [-1, -1, -1], \"max\": [2, 1e-9, 1]}}}]}");
    fem_run(f, 0.05, 200);
    int last_newton = f->newton.iterations;
    size_t nd = 3 * f->n;
    double *force = calloc(nd, sizeof *force), kinetic = 0.0, weight = 0.0, reaction = 0.0, zmin = 0.0;
    fem_elastic(f, f->x, force, NULL);
    for (size_t i = 0; i < f->n; i++) {
        weight += f->mass[i] * 9.81;
        for (int k = 0; k < 3; k++)
            kinetic += 0.5 * f->mass[i] * f->v[3 * i + k] * f->v[3 * i + k];
        if (f->fixed[i])
            reaction += -force[3 * i + 2] + f->mass[i] * 9.81;   /* what the pin must supply */
        zmin = fmin(zmin, f->x[3 * i + 2]);
    }
    printf("drape: lowest point z = %.6f m, kinetic %.2e J, pin reaction %.9f N, weight %.9f N\n", zmin, kinetic,
           reaction, weight);
    assert_true(zmin < -0.9);   /* it hangs: the free edge is about one sheet length down */
    printf("drape: Newton iterations in the last step %d\n", last_newton);
    assert_true(kinetic < 1e-8 * weight);
    assert_float_equal(reaction, weight, 1e-6 * weight);
    free(force);
    fem_destroy(&f);
}

/* Closed sphere: outward triangles (flux / 3 = enclosed volume), two-sided. */
static void test_spherical_shell(void **state)
{
    (void)state;
    test_host th;
    fem *f = fem_make(&th, "{\"dim\": 3, \"bodies\": [{\"mesh\": {\"generate\": \"spherical_shell\", \"radius\": 2, "
                           "\"subdivisions\": 3}, \"material\": {\"kind\": \"shell\", \"k_stretch\": 1e4, "
                           "\"density\": 1}}]}");
    const seam_plugin *p = solid_fem_table();
    seam_interface in;
    assert_int_equal(p->describe(f, &in), SEAM_OK);
    assert_int_equal(in.n_elems, 20 * 64);
    assert_int_equal(in.n_points, 10 * 64 + 2);   /* Euler: V = F/2 + 2 */
    double vol = 0.0, area = 0.0;
    for (size_t e = 0; e < in.n_elems; e++) {
        const double *a = in.X + 3 * in.elems[3 * e], *b = in.X + 3 * in.elems[3 * e + 1],
                     *c = in.X + 3 * in.elems[3 * e + 2];
        double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
        vol += (a[0] * n[0] + a[1] * n[1] + a[2] * n[2]) / 6.0;
        area += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        assert_int_equal(in.two_sided[e], 1);
    }
    double sphere = 4.0 / 3.0 * 3.14159265358979323846 * 8.0;
    printf("spherical shell: polyhedron volume %.6f (sphere %.6f), area %.6f\n", vol, sphere, area);
    assert_true(vol > 0.97 * sphere && vol < sphere);
    double mass = 0.0;
    for (size_t i = 0; i < f->n; i++)
        mass += f->mass[i];
    assert_float_equal(mass, area, 1e-9);
    assert_true(f->n_hinges3 == 30 * 64);   /* every edge of a closed surface */
    fem_destroy(&f);
}

static void test_obj_reader(void **state)
{
    (void)state;
    const char *dir = test_tmpdir("fem_obj");
    char path[4200], json[5000];
    snprintf(path, sizeof path, "%s/quad.obj", dir);
    FILE *fp = fopen(path, "w");
    fputs("# a unit square as one quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1 -1//1\n", fp);
    fclose(fp);
    snprintf(json, sizeof json, "{\"dim\": 3, \"bodies\": [{\"mesh\": {\"file\": \"%s\"}, \"material\": {\"kind\": "
                                "\"shell\", \"k_stretch\": 10, \"density\": 2}}]}", path);
    test_host th;
    fem *f = fem_make(&th, json);
    assert_int_equal(f->n_tris, 2);
    assert_int_equal(f->n_hinges3, 1);
    double mass = 0.0;
    for (size_t i = 0; i < f->n; i++)
        mass += f->mass[i];
    assert_float_equal(mass, 2.0, 1e-14);
    fem_destroy(&f);
    fp = fopen(path, "w");
    fputs("v 0 0 0\nv 1 0 0\nf 1 2 7\n", fp);
    fclose(fp);
    test_host_init(&th, "solid", "solids[0]");
    assert_null(fem_new(json, &th.host));
    assert_true(test_host_saw(&th, "quad.obj:3: face refers to missing vertex 7"));
    /* core's reader itself: relative indices, fans from the first vertex, other lines skipped; errors name
     * the file and line */
    fp = fopen(path, "w");
    fputs("# pentagon\no shape\nv 0 0 0\nv 1 0 0\n  v 1.5 1 0\nvt 0 0\nv 0.5 1.5 0\nv -0.5 1 0 1\n"
          "f -5/1 -4/1 -3/1 -2/1 -1/1\n", fp);
    fclose(fp);
    seam_trimesh m;
    char err[512];
    assert_int_equal(seam_obj_read(path, &m, err, sizeof err), SEAM_OK);
    assert_int_equal(m.n_verts, 5);
    assert_int_equal(m.n_tris, 3);
    static const int32_t fan[9] = {0, 1, 2, 0, 2, 3, 0, 3, 4};
    assert_memory_equal(m.tris, fan, sizeof fan);
    assert_float_equal(m.X[3 * 2], 1.5, 0.0);
    seam_trimesh_free(&m);
    static const char *const bad[][2] = {{"v 0 0 0\nv 1 0\n", "quad.obj:2: a vertex needs three coordinates"},
                                         {"v 0 0 0\nv 1 0 0\nf 1 2\n", "quad.obj:3: a face needs at least three"},
                                         {"v 0 0 0\nf 1 x 1\n", "quad.obj:2: bad vertex index \"x\""},
                                         {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", "missing vertex -4"},
                                         {"v 0 0 0\n", "quad.obj: no faces in the file"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        fp = fopen(path, "w");
        fputs(bad[k][0], fp);
        fclose(fp);
        assert_int_equal(seam_obj_read(path, &m, err, sizeof err), SEAM_ERROR);
        if (!strstr(err, bad[k][1]))
            fail_msg("\"%s\" lacks \"%s\"", err, bad[k][1]);
        assert_null(m.X);
    }
}

/* The assembled stiffness K = -df/dx against central differences of the
 * forces, at a stretched and bent state where no definiteness clamp acts. */
static void check_stiffness(const char *json, double stretch)
{
    test_host th;
    fem *f = fem_make(&th, json);
    int d = f->d;
    size_t nd = (size_t)d * f->n;
    double *x = malloc(nd * sizeof *x), *fp = calloc(nd, sizeof *fp), *fm = calloc(nd, sizeof *fm);
    srand(11);
    for (size_t r = 0; r < nd; r++)
        x[r] = f->X0[r] * stretch + 0.01 * (2.0 * rand() / RAND_MAX - 1.0);
    fem_elastic(f, x, fp, f->K);
    double worst = 0.0, scale = 0.0, h = 1e-6;
    for (size_t c = 0; c < nd; c++) {
        double keep = x[c];
        x[c] = keep + h;
        fem_elastic(f, x, fp, NULL);
        x[c] = keep - h;
        fem_elastic(f, x, fm, NULL);
        x[c] = keep;
        for (size_t r = 0; r < nd; r++) {
            double fd = -(fp[r] - fm[r]) / (2 * h), *k = seam_csr_at(f->K, r, c), kv = k ? *k : 0.0;
            worst = fmax(worst, fabs(fd - kv));
            scale = fmax(scale, fabs(fd));
        }
    }
    printf("stiffness vs finite differences (%zu DOFs): max error / max entry = %.2e\n", nd, worst / scale);
    assert_true(worst < 1e-5 * scale);
    free(x);
    free(fp);
    free(fm);
    fem_destroy(&f);
}

static void test_stiffness_matches_forces(void **state)
{
    (void)state;
    /* Cloth membrane out of its plane (hinges off: their tangent is Gauss-Newton). */
    check_stiffness("{\"dim\": 3, \"bodies\": [{\"mesh\": {\"generate\": \"cloth\", \"u\": [1, 0, 0], \"v\": "
                    "[0, 1, 0.3], \"cells\": [2, 2]}, \"material\": {\"kind\": \"shell\", \"k_stretch\": 100, "
                    "\"density\": 1}}]}", 1.1);
    check_stiffness("{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"rectangle\", \"max\": [1, 1], "
                    "\"cells\": [2, 2]}, \"material\": {\"model\": \"neo_hookean\", \"E\": 100, \"density\": 1}}]}",
                    1.1);
    check_stiffness("{\"dim\": 3, \"bodies\": [{\"mesh\": {\"generate\": \"box\", \"max\": [1, 1, 1], "
                    "\"cells\": [1, 1, 1]}, \"material\": {\"model\": \"stvk\", \"E\": 100, \"density\": 1}}]}",
                    1.1);
    /* 2D chain of stretched springs (joints off: their tangent is projected). */
    check_stiffness("{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"ring\", \"radius\": 1, "
                    "\"segments\": 6}, \"material\": {\"kind\": \"shell\", \"k_stretch\": 100, "
                    "\"density\": 1}}]}", 1.2);
}

/* Forces are minus the gradient of the energy, bending included. */
static void check_gradient(const char *json)
{
    test_host th;
    fem *f = fem_make(&th, json);
    size_t nd = (size_t)f->d * f->n;
    double *x = malloc(nd * sizeof *x), *force = calloc(nd, sizeof *force), *tmp = calloc(nd, sizeof *tmp);
    srand(5);
    for (size_t r = 0; r < nd; r++)
        x[r] = f->X0[r] * 1.05 + 0.05 * (2.0 * rand() / RAND_MAX - 1.0);
    fem_elastic(f, x, force, NULL);
    double worst = 0.0, scale = 0.0, h = 1e-6;
    for (size_t c = 0; c < nd; c++) {
        double keep = x[c];
        x[c] = keep + h;
        double ep = fem_elastic(f, x, tmp, NULL);
        x[c] = keep - h;
        double em = fem_elastic(f, x, tmp, NULL);
        x[c] = keep;
        worst = fmax(worst, fabs(-(ep - em) / (2 * h) - force[c]));
        scale = fmax(scale, fabs(force[c]));
    }
    printf("forces vs -dE/dx (%zu DOFs): max error / max force = %.2e\n", nd, worst / scale);
    assert_true(worst < 1e-6 * scale);
    free(x);
    free(force);
    free(tmp);
    fem_destroy(&f);
}

static void test_forces_are_energy_gradient(void **state)
{
    (void)state;
    check_gradient("{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"ring\", \"radius\": 1, \"segments\": 7}, "
                   "\"material\": {\"kind\": \"shell\", \"k_stretch\": 100, \"k_bend\": 3, \"density\": 1}}]}");
    check_gradient("{\"dim\": 3, \"bodies\": [{\"mesh\": {\"generate\": \"spherical_shell\", \"radius\": 1, "
                   "\"subdivisions\": 1}, \"material\": {\"kind\": \"shell\", \"k_stretch\": 100, \"k_bend\": 3, "
                   "\"density\": 1}}]}");
    check_gradient("{\"dim\": 3, \"bodies\": [{\"mesh\": {\"generate\": \"box\", \"max\": [1, 1, 1], "
                   "\"cells\": [1, 1, 1]}, \"material\": {\"model\": \"neo_hookean\", \"E\": 100, \"density\": 1}}]}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_membrane_patch),
        cmocka_unit_test(test_stiffness_matches_forces),
        cmocka_unit_test(test_forces_are_energy_gradient),
        cmocka_unit_test(test_dihedral_gradient),
        cmocka_unit_test(test_drape),
        cmocka_unit_test(test_spherical_shell),
        cmocka_unit_test(test_obj_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
