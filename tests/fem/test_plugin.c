/* solid_fem through its plugin table: the interface (outward orientation by
 * the divergence theorem, two-sided shells, masses), mobility, the purity of
 * solve, save/load, VTK output, and refusal of bad input with located messages. */
#include <sys/stat.h>

#include "fem_test.h"
#include "plugin_contract.h"

static const seam_plugin *P(void) { return solid_fem_table(); }

static void *create(test_host *th, const char *json)
{
    test_host_init(th, "solid", "solids[0]");
    void *s = P()->create(P(), json, &th->host);
    if (!s)
        fprintf(stderr, "create failed: %s\n", th->all);
    assert_non_null(s);
    return s;
}

static void test_table(void **state)
{
    (void)state;
    const seam_plugin *p = P();
    assert_int_equal(p->abi, SEAM_ABI_VERSION);
    assert_string_equal(p->name, "solid_fem");
    assert_int_equal(p->role, SEAM_SOLID);
    assert_non_null(p->describe);
    assert_non_null(p->mobility);
    assert_null(p->bind);
    assert_non_null(p->capabilities);
    assert_int_equal(p->capabilities(NULL), SEAM_CAP_MOBILITY | SEAM_CAP_SAVE);   /* deformable: not rigid */
}

/* Closed outward boundary: sum of normals is zero and (1/d) sum x.n dA is the
 * enclosed area (2D) or volume (3D). */
static void check_closed_outward(const seam_interface *in, double measure)
{
    int d = in->dim;
    double nsum[3] = {0, 0, 0}, flux = 0.0;
    for (size_t e = 0; e < in->n_elems; e++) {
        const int32_t *el = in->elems + e * (size_t)d;
        assert_int_equal(in->two_sided[e], 0);
        double n[3], c[3] = {0, 0, 0};
        if (d == 2) {
            const double *a = in->X + 2 * el[0], *b = in->X + 2 * el[1];
            n[0] = b[1] - a[1];   /* (dy, -dx): outward for a CCW boundary */
            n[1] = -(b[0] - a[0]);
            for (int k = 0; k < 2; k++)
                c[k] = 0.5 * (a[k] + b[k]);
        } else {
            const double *a = in->X + 3 * el[0], *b = in->X + 3 * el[1], *q = in->X + 3 * el[2];
            double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {q[0] - a[0], q[1] - a[1], q[2] - a[2]};
            n[0] = 0.5 * (u[1] * w[2] - u[2] * w[1]);
            n[1] = 0.5 * (u[2] * w[0] - u[0] * w[2]);
            n[2] = 0.5 * (u[0] * w[1] - u[1] * w[0]);
            for (int k = 0; k < 3; k++)
                c[k] = (a[k] + b[k] + q[k]) / 3.0;
        }
        for (int k = 0; k < d; k++) {
            nsum[k] += n[k];
            flux += c[k] * n[k];
        }
    }
    for (int k = 0; k < d; k++)
        assert_float_equal(nsum[k], 0.0, 1e-12);
    printf("  boundary flux / d = %.12f, expected %.12f\n", flux / d, measure);
    assert_float_equal(flux / d, measure, 1e-9 * measure);
}

static void test_interface_volumes(void **state)
{
    (void)state;
    test_host th;
    void *s = create(&th, "{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"rectangle\", \"max\": [2, 1], "
                          "\"cells\": [4, 3]}, \"material\": {\"E\": 1e5, \"density\": 10}}, {\"mesh\": {\"generate\": "
                          "\"ring\", \"center\": [5, 0], \"inner_radius\": 0.5, \"outer_radius\": 1, \"segments\": 24, "
                          "\"layers\": 2}, \"material\": {\"E\": 1e5, \"density\": 10}}]}");
    seam_interface in;
    assert_int_equal(P()->describe(s, &in), SEAM_OK);
    assert_int_equal(in.dim, 2);
    assert_int_equal(in.nodes_per_elem, 2);
    assert_int_equal(in.n_bodies, 2);
    /* Rectangle boundary 2(4+3) segments and points; ring 24 outside + 24 inside. */
    assert_int_equal(in.n_elems, 14 + 48);
    assert_int_equal(in.n_points, 14 + 48);
    /* The ring's inner boundary runs clockwise, so the total flux is the area
     * of the rectangle plus that of the annulus polygon. */
    double ring = 0.5 * 24 * sin(2 * 3.14159265358979323846 / 24) * (1.0 - 0.25);
    check_closed_outward(&in, 2.0 + ring);
    int bodies[2] = {0, 0};
    double mass = 0.0;
    for (size_t p = 0; p < in.n_points; p++) {
        bodies[in.body[p]]++;
        mass += in.mass[p];
    }
    assert_int_equal(bodies[0], 14);
    assert_int_equal(bodies[1], 48);
    assert_true(mass > 0.0);
    P()->destroy(s);

    s = create(&th, "{\"dim\": 3, \"bodies\": [{\"mesh\": {\"generate\": \"box\", \"min\": [0, 0, 0], \"max\": [1, 2, "
                    "0.5], \"cells\": [2, 3, 2]}, \"material\": {\"model\": \"neo_hookean\", \"E\": 1e5, "
                    "\"density\": 10}}]}");
    assert_int_equal(P()->describe(s, &in), SEAM_OK);
    assert_int_equal(in.nodes_per_elem, 3);
    assert_int_equal(in.n_elems, 2 * 2 * (2 * 3 + 3 * 2 + 2 * 2));
    check_closed_outward(&in, 1.0);
    P()->destroy(s);
}

static void test_interface_shell(void **state)
{
    (void)state;
    test_host th;
    void *s = create(&th, "{\"dim\": 2, \"bodies\": [{\"name\": \"balloon\", \"mesh\": {\"generate\": \"ring\", "
                          "\"radius\": 1, \"segments\": 50}, \"material\": {\"kind\": \"shell\", \"k_stretch\": 5e4, "
                          "\"b_stretch\": 1500, \"k_bend\": 5e4, \"b_bend\": 800, \"density\": 200}}]}");
    seam_interface in;
    assert_int_equal(P()->describe(s, &in), SEAM_OK);
    assert_int_equal(in.n_points, 50);
    assert_int_equal(in.n_elems, 50);
    double mass = 0.0, perimeter = 50 * 2 * sin(3.14159265358979323846 / 50);
    for (size_t p = 0; p < in.n_points; p++)
        mass += in.mass[p];
    for (size_t e = 0; e < in.n_elems; e++)
        assert_int_equal(in.two_sided[e], 1);
    assert_float_equal(mass, 200 * perimeter, 1e-9);
    /* Mobility: dv = impulse / m. */
    double *imp = calloc(2 * in.n_points, sizeof *imp), *dv = calloc(2 * in.n_points, sizeof *dv);
    imp[0] = 3.0;
    imp[3] = -2.0;
    assert_int_equal(P()->mobility(s, imp, dv), SEAM_OK);
    assert_float_equal(dv[0], 3.0 / in.mass[0], 1e-15);
    assert_float_equal(dv[3], -2.0 / in.mass[1], 1e-15);
    assert_float_equal(dv[2], 0.0, 0.0);
    free(imp);
    free(dv);
    P()->destroy(s);
}

/* An inflating load on a shell loop: solve is repeatable, commit advances,
 * save/load rewinds, and a uniform outward pressure keeps the loop round. */
static void test_solve_commit_save_load(void **state)
{
    (void)state;
    test_host th;
    void *s = create(&th, "{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"ring\", \"radius\": 1, "
                          "\"segments\": 40}, \"material\": {\"kind\": \"shell\", \"k_stretch\": 5e4, \"b_stretch\": "
                          "1500, \"k_bend\": 5e4, \"b_bend\": 800, \"density\": 200}}]}");
    seam_interface in;
    P()->describe(s, &in);
    size_t n = in.n_points;
    double *F = malloc(2 * n * sizeof *F), *X1 = malloc(2 * n * sizeof *X1), *V1 = malloc(2 * n * sizeof *V1);
    double *X2 = malloc(2 * n * sizeof *X2), *V2 = malloc(2 * n * sizeof *V2);
    double p = 1000.0, seg = 2 * sin(3.14159265358979323846 / 40);   /* N/m^2 on segments of length seg */
    for (size_t i = 0; i < n; i++) {
        double x = in.X[2 * i], y = in.X[2 * i + 1], r = hypot(x, y);
        F[2 * i] = p * seg * x / r;
        F[2 * i + 1] = p * seg * y / r;
    }
    seam_input io_in = {n, 2, NULL, NULL, F};
    seam_output out1 = {n, 2, X1, V1, NULL};
    seam_output out2 = {n, 2, X2, V2, NULL};
    seam_step st = {0, 0.0, 0.01, 0};
    assert_int_equal(P()->solve(s, &st, &io_in, &out1), SEAM_OK);
    seam_input zero_in = {n, 2, NULL, NULL, NULL};
    assert_int_equal(P()->solve(s, &st, &zero_in, &out2), SEAM_OK);   /* a different input */
    assert_int_equal(P()->solve(s, &st, &io_in, &out2), SEAM_OK);
    assert_memory_equal(X1, X2, 2 * n * sizeof *X1);                    /* same input, same answer */
    assert_memory_equal(V1, V2, 2 * n * sizeof *V1);
    seam_buffer buf;
    assert_int_equal(P()->save(s, &buf), SEAM_OK);
    void *copy = malloc(buf.size);
    memcpy(copy, buf.data, buf.size);
    size_t size = buf.size;
    assert_int_equal(P()->commit(s), SEAM_OK);
    for (int k = 1; k < 200; k++) {
        st.index = k;
        assert_int_equal(P()->solve(s, &st, &io_in, &out1), SEAM_OK);
        assert_int_equal(P()->commit(s), SEAM_OK);
    }
    /* Uniform pressure: every point at the same radius (round to 1e-9). */
    double rmin = INFINITY, rmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        double r = hypot(X1[2 * i], X1[2 * i + 1]);
        rmin = fmin(rmin, r);
        rmax = fmax(rmax, r);
    }
    printf("inflated loop: radius %.9f .. %.9f\n", rmin, rmax);
    /* Hoop tension T = p R0 (the load is per rest length), strain T / k_stretch. */
    assert_float_equal(rmin, 1.0 * (1.0 + p * 1.0 / 5e4), 1e-5);
    assert_true(rmax - rmin < 1e-9);
    /* Rewind to the saved state and repeat the first step. */
    assert_int_equal(P()->load(s, copy, size), SEAM_OK);
    st.index = 0;
    assert_int_equal(P()->solve(s, &st, &io_in, &out2), SEAM_OK);
    out1.X = X1;
    P()->load(s, copy, size);
    double *X3 = malloc(2 * n * sizeof *X3);
    seam_output out3 = {n, 2, X3, NULL, NULL};
    assert_int_equal(P()->solve(s, &st, &io_in, &out3), SEAM_OK);
    assert_memory_equal(X2, X3, 2 * n * sizeof *X2);
    assert_int_equal(P()->load(s, copy, size - 1), SEAM_ERROR);
    assert_true(test_host_saw(&th, "load:"));
    /* core's format, read by the contract kit's own little-endian reader: dim, nodes, steps, time, x, v */
    contract_value v;
    assert_true(contract_image_value(copy, size, "solid_fem", 0, &v) && v.tag == 'u' && v.u == 2);
    assert_true(contract_image_value(copy, size, "solid_fem", 1, &v) && v.tag == 'u' && v.u == 40);
    assert_true(contract_image_value(copy, size, "solid_fem", 4, &v) && v.tag == 'D' && v.u == 80);
    assert_true(contract_le_f64(v.at) == 1.0);   /* node 0 of the ring at rest: (1, 0) */
    /* one flipped bit anywhere is refused, and the committed state stays: the next solve is the same */
    for (size_t k = 0; k < size; k += 5) {
        unsigned char *bad = malloc(size);
        memcpy(bad, copy, size);
        bad[k] ^= 0x08;
        assert_int_equal(P()->load(s, bad, size), SEAM_ERROR);
        free(bad);
    }
    assert_true(test_host_saw(&th, "solid_fem state"));
    assert_int_equal(P()->solve(s, &st, &io_in, &out3), SEAM_OK);
    assert_memory_equal(X2, X3, 2 * n * sizeof *X2);
    /* another mesh's image is refused by what differs */
    test_host th2;
    void *s2 = create(&th2, "{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"ring\", \"radius\": 1, "
                            "\"segments\": 30}, \"material\": {\"kind\": \"shell\", \"k_stretch\": 5e4, "
                            "\"density\": 200}}]}");
    assert_int_equal(P()->load(s2, copy, size), SEAM_ERROR);
    assert_true(test_host_saw(&th2, "a state of 40 nodes in 2D, this mesh has 30 in 2D"));
    P()->destroy(s2);
    free(copy);
    free(F);
    free(X1);
    free(V1);
    free(X2);
    free(V2);
    free(X3);
    P()->destroy(s);
}

static void test_write_output(void **state)
{
    (void)state;
    test_host th;
    void *s = create(&th, "{\"dim\": 2, \"bodies\": [{\"name\": \"block\", \"mesh\": {\"generate\": \"disc\", "
                          "\"radius\": 1, \"rings\": 2}, \"material\": {\"E\": 1e5, \"density\": 10}}]}");
    const char *dir = test_tmpdir("fem_vtk");
    assert_non_null(dir);
    assert_int_equal(P()->write_output(s, dir, 3), SEAM_OK);
    char path[4200];
    snprintf(path, sizeof path, "%s/solid_block_000003.vtu", dir);
    size_t n;
    double *x = test_read_vtk_points(path, &n);
    assert_int_equal(n, 19);     /* 1 + 6 + 12 nodes */
    free(x);
    x = test_read_vtk_xml(path, "types", &n);
    assert_int_equal(n, 24);     /* 6 * 2^2 triangles */
    for (size_t e = 0; e < n; e++)
        assert_true(x[e] == SEAM_VTK_TRIANGLE);
    free(x);
    P()->destroy(s);
}

/* Bad configurations are refused with the key or the file and element. */
static void expect_refused(const char *json, const char *needle)
{
    test_host th;
    test_host_init(&th, "solid", "solids[0]");
    void *s = P()->create(P(), json, &th.host);
    if (s || !test_host_saw(&th, needle))
        fprintf(stderr, "expected refusal mentioning \"%s\", got: %s\n", needle, th.all);
    assert_null(s);
    assert_true(test_host_saw(&th, needle));
}

static const char *write_file(const char *name, const char *text)
{
    static char path[4200];
    const char *dir = test_tmpdir(name);
    snprintf(path, sizeof path, "%s/mesh.msh", dir);
    FILE *fp = fopen(path, "w");
    fputs(text, fp);
    fclose(fp);
    return path;
}

#define MSH_HEAD "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 4 1 4\n2 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n$EndNodes\n"

static void test_bad_input(void **state)
{
    (void)state;
    expect_refused("{\"dim\": 2, \"gravty\": [0, -9.8], \"bodies\": [{\"mesh\": {\"generate\": \"disc\", \"radius\": 1, "
                   "\"rings\": 1}, \"material\": {\"E\": 1e5, \"density\": 10}}]}",
                   "did you mean \"gravity\"");
    expect_refused("{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"disc\", \"radius\": 1, \"rings\": 1}, "
                   "\"material\": {\"E\": 1e5, \"nu\": 0.5, \"density\": 10}}]}",
                   "nu");
    expect_refused("{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"disc\", \"radius\": 1, \"rings\": 1}, "
                   "\"material\": {\"E\": 1e5, \"density\": 10}, \"pin\": {\"box\": {\"min\": [5, 5], \"max\": [6, 6]}}}]}",
                   "selects no node");
    expect_refused("{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"disc\", \"radius\": 1, \"rings\": 1}, "
                   "\"material\": {\"E\": 1e5, \"density\": 10}, \"pin\": {\"nodes\": [0, 99]}}]}",
                   "not a node");
    expect_refused("{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"disc\", \"radius\": 1, \"rings\": 1}, "
                   "\"material\": {\"E\": 1e5, \"density\": 10, \"compression_limit\": 0.2}}]}",
                   "compression_limit: unknown key");
    expect_refused("{\"dim\": 3, \"bodies\": [{\"mesh\": {\"generate\": \"ring\", \"radius\": 1, \"segments\": 8}, "
                   "\"material\": {\"kind\": \"shell\", \"k_stretch\": 1, \"density\": 1}}]}",
                   "generate");
    expect_refused("{\"dim\": 3, \"bodies\": [{\"mesh\": {\"file\": \"x.msh\"}, "
                   "\"material\": {\"kind\": \"shell\", \"k_stretch\": 1, \"density\": 1}}]}",
                   ".obj");
    /* a mesh too large to allocate is refused before anything is allocated */
    expect_refused("{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"rectangle\", \"max\": [1, 1], "
                   "\"cells\": [100000, 100000]}, \"material\": {\"E\": 1e5, \"density\": 3000}}]}",
                   "10000200001 nodes and 20000000000 cells (at most 4000000 nodes)");
    expect_refused("{\"dim\": 3, \"bodies\": [{\"mesh\": {\"generate\": \"box\", \"max\": [1, 1, 1], "
                   "\"cells\": [1000, 1000, 1000]}, \"material\": {\"E\": 1e5, \"density\": 3000}}]}",
                   "use fewer cells");
    char json[5000];
    const char *p = write_file("fem_bad1", MSH_HEAD "$Elements\n1 2 1 2\n2 1 2 2\n7 1 2 3\n8 1 4 3\n$EndElements\n");
    snprintf(json, sizeof json, "{\"dim\": 2, \"bodies\": [{\"mesh\": {\"file\": \"%s\"}, \"material\": {\"E\": 1, "
                                "\"density\": 1}}]}", p);
    expect_refused(json, "element 8 is inverted");
    p = write_file("fem_bad2", MSH_HEAD "$Elements\n1 1 1 1\n2 1 3 1\n7 1 2 3 4\n$EndElements\n");
    snprintf(json, sizeof json, "{\"dim\": 2, \"bodies\": [{\"mesh\": {\"file\": \"%s\"}, \"material\": {\"E\": 1, "
                                "\"density\": 1}}]}", p);
    expect_refused(json, "unsupported element type 3");
    p = write_file("fem_bad3", MSH_HEAD "$Elements\n1 1 1 1\n2 1 2 1\n7 1 2 9\n$EndElements\n");
    snprintf(json, sizeof json, "{\"dim\": 2, \"bodies\": [{\"mesh\": {\"file\": \"%s\"}, \"material\": {\"E\": 1, "
                                "\"density\": 1}}]}", p);
    expect_refused(json, "element 7 refers to missing node 9");
    p = write_file("fem_bad4", MSH_HEAD "$Elements\n1 1 1 1\n2 1 2 1\n5 1 2 1\n$EndElements\n");
    snprintf(json, sizeof json, "{\"dim\": 2, \"bodies\": [{\"mesh\": {\"file\": \"%s\"}, \"material\": {\"E\": 1, "
                                "\"density\": 1}}]}", p);
    expect_refused(json, "element 5 is degenerate");
    expect_refused("{\"dim\": 2, \"bodies\": [{\"mesh\": {\"file\": \"/nonexistent/x.msh\"}, \"material\": {\"E\": 1, "
                   "\"density\": 1}}]}",
                   "/nonexistent/x.msh: cannot open");
}

/* A good file: two triangles of a unit square, lines and points skipped. */
static void test_msh_reader(void **state)
{
    (void)state;
    const char *p = write_file("fem_good", MSH_HEAD "$Elements\n3 4 1 4\n0 1 15 1\n1 1\n1 1 1 1\n2 1 2\n"
                                                    "2 1 2 2\n3 1 2 3\n4 1 3 4\n$EndElements\n");
    char json[5000];
    snprintf(json, sizeof json, "{\"dim\": 2, \"bodies\": [{\"mesh\": {\"file\": \"%s\"}, \"material\": {\"E\": 1, "
                                "\"density\": 3}}]}", p);
    test_host th;
    fem *f = fem_make(&th, json);
    assert_int_equal(f->n, 4);
    assert_int_equal(f->n_elems, 2);
    double m = 0.0;
    for (size_t i = 0; i < f->n; i++)
        m += f->mass[i];
    assert_float_equal(m, 3.0, 1e-14);   /* density times the unit area */
    fem_destroy(&f);
}

/* The plugin contract kit (tests/support): a 2D block with walls and gravity, backward Euler through CHOLMOD,
 * and a 3D cloth under its own weight, pinned along an edge. */
static void test_contract(void **state)
{
    (void)state;
    static const double g[3] = {0, -9.81, 0};
    plugin_contract c = {
        .plugin = P(),
        .config = "{\"dim\": 2, \"walls\": {\"min\": [-1, -0.05], \"max\": [1, 2]}, \"linear_solver\": {\"method\": "
                  "\"cholmod\"}, \"bodies\": [{\"name\": \"block\", \"mesh\": {\"generate\": \"rectangle\", "
                  "\"min\": [-0.2, 0], \"max\": [0.2, 0.3], \"cells\": [4, 3]}, \"material\": {\"model\": "
                  "\"neo_hookean\", \"E\": 1e5, \"nu\": 0.3, \"density\": 500}}]}",
        .gravity = g,
        .dt = 2e-3,
        .steps = 5,
        .load = 20.0,
    };
    plugin_contract_check(&c);
    c.config = "{\"dim\": 3, \"bodies\": [{\"name\": \"sheet\", \"mesh\": {\"generate\": \"cloth\", \"u\": [0.5, 0, 0], "
               "\"v\": [0, 0, 0.5], \"cells\": [4, 4]}, \"material\": {\"kind\": \"shell\", \"k_stretch\": 1000, "
               "\"k_bend\": 1e-3, \"density\": 0.2}, \"pin\": {\"nodes\": [0, 4]}}]}";
    c.load = 0.05;
    plugin_contract_check(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_interface_volumes),
        cmocka_unit_test(test_interface_shell),
        cmocka_unit_test(test_solve_commit_save_load),
        cmocka_unit_test(test_contract),
        cmocka_unit_test(test_write_output),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_msh_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
