/* The VTK XML writers of core/src/vtk.c read back without VTK (the test
 * support's reader inflates every zlib block and checks its header): 2D and
 * 3D grids, meshes and point sets, every value bit for bit; the .pvd
 * collection of a series (times, parts, a resumed run); the legacy switch;
 * and the .pvd times of a short coupled run (examples/rising_disc.json). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "seam/vtk.h"
#include "test_host.h"
#include "test_scene.h"

/* Values no compressor can guess and no printf round-trip keeps bit for bit in 9 digits. */
static double *values(size_t n, double seed)
{
    double *v = malloc((n + 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = sin(seed + 0.37 * (double)i) * 1e3 + (double)i / 3.0;
    return v;
}

/* The array equals want (n values) bit for bit. */
static void expect_array(const char *path, const char *name, const double *want, size_t n, int comps)
{
    size_t got_n = 0;
    double *got = test_read_vtk_xml(path, name, &got_n);
    if (!got)
        fail_msg("%s: no array %s", path, name);
    assert_int_equal(got_n, n);
    assert_memory_equal(got, want, n * sizeof *got);
    assert_int_equal(test_vtk_xml_components(path, name), comps);
    free(got);
}

static char *slurp_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A vector field of dim components padded to 3, as the file must hold it. */
static double *padded(const double *v, size_t n, int dim)
{
    double *p = calloc(3 * n + 1, sizeof *p);
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < dim; c++)
            p[3 * i + (size_t)c] = v[i * (size_t)dim + (size_t)c];
    return p;
}

static void check_image(const char *dir, int nx, int ny, int nz)
{
    test_host th;
    test_host_init(&th, "grid", NULL);
    size_t n = (size_t)nx * (size_t)ny * (size_t)nz;
    int dim = nz == 1 ? 2 : 3;
    double *s = values(n, 0.1), *v = values((size_t)dim * n, 0.7);
    seam_vtk_field f[] = {{"s", 1, 1, s}, {"v", 3, dim, v}};
    const double origin[3] = {-0.25, 1.0 / 3.0, 0.0};
    char path[4300];
    snprintf(path, sizeof path, "%s/grid_%d.vti", dir, nz);
    assert_int_equal(seam_vtk_xml_image(path, &th.host, nx, ny, nz, origin, 0.1, f, 2, false), SEAM_OK);
    expect_array(path, "s", s, n, 1);
    double *vp = padded(v, n, dim);
    expect_array(path, "v", vp, 3 * n, 3);
    const char *text = slurp_text(path);
    char want[256];
    snprintf(want, sizeof want, "<ImageData WholeExtent=\"0 %d 0 %d 0 %d\" Origin=\"-0.25 %.17g 0\" "
                                "Spacing=\"0.10000000000000001 0.10000000000000001 0.10000000000000001\">",
             nx, ny, nz, 1.0 / 3.0);
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "<CellData>"));
    struct stat st;
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    assert_int_not_equal(stat(tmp, &st), 0);   /* renamed into place */
    free(s);
    free(v);
    free(vp);
}

/* Grids: 2D, 3D with a partial last block (40x30x20 doubles: 6 blocks), 3D
 * with exactly one full block per scalar (16^3 doubles = 32768 bytes). */
static void test_images(void **state)
{
    (void)state;
    const char *dir = test_tmpdir("vtk_images");
    check_image(dir, 3, 2, 1);
    check_image(dir, 40, 30, 20);
    check_image(dir, 16, 16, 16);
}

static void check_cells(const char *path, int dim, size_t np, const double *X, int type, int per, size_t nc,
                        const int32_t *cells)
{
    test_host th;
    test_host_init(&th, "mesh", NULL);
    double *pf = values(np, 2.0), *cf = values(nc, 3.0), *vel = values((size_t)dim * np, 4.0);
    seam_vtk_field pfs[] = {{"p", 1, 1, pf}, {"velocity", 3, dim, vel}}, cfs[] = {{"c", 1, 1, cf}};
    assert_int_equal(seam_vtk_xml_cells(path, &th.host, dim, np, X, type, per, nc, cells, pfs, 2, cfs, 1, false), SEAM_OK);
    double *Xp = padded(X, np, dim), *vp = padded(vel, np, dim);
    expect_array(path, "Points", Xp, 3 * np, 3);
    expect_array(path, "p", pf, np, 1);
    expect_array(path, "velocity", vp, 3 * np, 3);
    expect_array(path, "c", cf, nc, 1);
    double *conn = malloc(nc * (size_t)per * sizeof *conn), *offs = malloc(nc * sizeof *offs);
    double *types = malloc(nc * sizeof *types);
    for (size_t e = 0; e < nc; e++) {
        for (int k = 0; k < per; k++)
            conn[e * (size_t)per + (size_t)k] = cells[e * (size_t)per + (size_t)k];
        offs[e] = (double)((e + 1) * (size_t)per);
        types[e] = type;
    }
    expect_array(path, "connectivity", conn, nc * (size_t)per, 1);
    expect_array(path, "offsets", offs, nc, 1);
    expect_array(path, "types", types, nc, 1);
    char want[128];
    snprintf(want, sizeof want, "<Piece NumberOfPoints=\"%zu\" NumberOfCells=\"%zu\">", np, nc);
    assert_non_null(strstr(slurp_text(path), want));
    free(pf);
    free(cf);
    free(vel);
    free(Xp);
    free(vp);
    free(conn);
    free(offs);
    free(types);
}

/* Meshes: two triangles in 2D, two tetrahedra in 3D. */
static void test_meshes(void **state)
{
    (void)state;
    const char *dir = test_tmpdir("vtk_meshes");
    char path[4300];
    const double X2[] = {0, 0, 1, 0, 1, 1, 0, 1.0 / 7.0};
    const int32_t tri[] = {0, 1, 2, 0, 2, 3};
    snprintf(path, sizeof path, "%s/mesh2.vtu", dir);
    check_cells(path, 2, 4, X2, SEAM_VTK_TRIANGLE, 3, 2, tri);
    const double X3[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1.0 / 3.0};
    const int32_t tet[] = {0, 1, 2, 3, 1, 2, 3, 4};
    snprintf(path, sizeof path, "%s/mesh3.vtu", dir);
    check_cells(path, 3, 5, X3, SEAM_VTK_TETRA, 4, 2, tet);
}

static void check_points(const char *path, int dim, size_t n)
{
    test_host th;
    test_host_init(&th, "points", NULL);
    double *X = values((size_t)dim * n, 5.0), *v = values((size_t)dim * n, 6.0), *p = values(n, 7.0);
    seam_vtk_field f[] = {{"velocity", 3, dim, v}, {"pressure", 1, 1, p}};
    assert_int_equal(seam_vtk_xml_points(path, &th.host, dim, n, X, f, 2, false), SEAM_OK);
    double *Xp = padded(X, n, dim), *vp = padded(v, n, dim);
    expect_array(path, "Points", Xp, 3 * n, 3);
    expect_array(path, "velocity", vp, 3 * n, 3);
    expect_array(path, "pressure", p, n, 1);
    double *conn = malloc((n + 1) * sizeof *conn), *offs = malloc((n + 1) * sizeof *offs);
    for (size_t i = 0; i < n; i++) {
        conn[i] = (double)i;
        offs[i] = (double)(i + 1);
    }
    expect_array(path, "connectivity", conn, n, 1);
    expect_array(path, "offsets", offs, n, 1);
    char want[128];
    snprintf(want, sizeof want, "<Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\"", n, n);
    assert_non_null(strstr(slurp_text(path), want));
    free(X);
    free(v);
    free(p);
    free(Xp);
    free(vp);
    free(conn);
    free(offs);
}

/* Point sets: 2D, 3D over several blocks, and none at all. */
static void test_points(void **state)
{
    (void)state;
    const char *dir = test_tmpdir("vtk_points");
    char path[4300];
    snprintf(path, sizeof path, "%s/p2.vtp", dir);
    check_points(path, 2, 17);
    snprintf(path, sizeof path, "%s/p3.vtp", dir);
    check_points(path, 3, 5000);
    snprintf(path, sizeof path, "%s/p0.vtp", dir);
    check_points(path, 3, 0);
}

/* "xml_float32": every value the float nearest the double given, typed Float32. */
static void test_float32(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "f32", NULL);
    const char *dir = test_tmpdir("vtk_float32");
    size_t n = 40 * 30 * 20;
    double *s = values(n, 0.1), *X = values(3 * 500, 0.2), *r = malloc(n * sizeof *r);
    seam_vtk_field f = {"s", 1, 1, s};
    const double origin[3] = {0, 0, 0};
    char path[4300];
    snprintf(path, sizeof path, "%s/g.vti", dir);
    assert_int_equal(seam_vtk_xml_image(path, &th.host, 40, 30, 20, origin, 0.1, &f, 1, true), SEAM_OK);
    for (size_t i = 0; i < n; i++)
        r[i] = (float)s[i];
    expect_array(path, "s", r, n, 1);
    assert_non_null(strstr(slurp_text(path), "<DataArray type=\"Float32\" Name=\"s\""));
    snprintf(path, sizeof path, "%s/p.vtp", dir);
    assert_int_equal(seam_vtk_xml_points(path, &th.host, 3, 500, X, &f, 1, true), SEAM_OK);
    for (size_t i = 0; i < 3 * 500; i++)
        r[i] = (float)X[i];
    expect_array(path, "Points", r, 3 * 500, 3);
    for (size_t i = 0; i < 500; i++)
        r[i] = (float)s[i];
    expect_array(path, "s", r, 500, 1);
    free(s);
    free(X);
    free(r);
}

/* The (time, part, file) entries of a .pvd, in order. */
static size_t read_pvd(const char *path, double *t, int *part, char (*file)[64], size_t max)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("%s: cannot open", path);
    char line[512];
    size_t n = 0;
    while (fgets(line, sizeof line, f) && n < max)
        if (sscanf(line, " <DataSet timestep=\"%lf\" part=\"%d\" file=\"%63[^\"]\"/>", &t[n], &part[n], file[n]) == 3)
            n++;
    fclose(f);
    return n;
}

static void test_series(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "fluid", NULL);
    const char *dir = test_tmpdir("vtk_series");
    double X[] = {0, 0, 1, 0}, s[] = {1, 2, 3, 4, 5, 6};
    seam_vtk_field f = {"s", 1, 1, s};
    const double origin[3] = {0, 0, 0};
    seam_vtk_series a = {.format = SEAM_VTK_XML};
    const double times[] = {0.0, 0.1 + 0.2, 0.7};   /* 0.30000000000000004 must survive */
    char stem[64], pvd[4300];
    snprintf(pvd, sizeof pvd, "%s/fluid.pvd", dir);
    for (int k = 0; k < 3; k++) {
        snprintf(stem, sizeof stem, "g_%d", k);
        assert_int_equal(seam_vtk_frame_image(&a, &th.host, dir, stem, 3, 2, 1, origin, 0.5, &f, 1), SEAM_OK);
        snprintf(stem, sizeof stem, "p_%d", k);
        assert_int_equal(seam_vtk_frame_points(&a, &th.host, dir, stem, 2, 2, X, &f, 1), SEAM_OK);
        assert_int_equal(seam_vtk_frame_done(&a, &th.host, dir, "fluid", times[k]), SEAM_OK);
        double t[16];
        int part[16];
        char file[16][64];
        assert_int_equal(read_pvd(pvd, t, part, file, 16), 2 * (size_t)(k + 1));   /* valid after every frame */
        for (int j = 0; j <= k; j++) {
            assert_memory_equal(&t[2 * j], &times[j], sizeof(double));
            assert_memory_equal(&t[2 * j + 1], &times[j], sizeof(double));
            assert_int_equal(part[2 * j], 0);
            assert_int_equal(part[2 * j + 1], 1);
            snprintf(stem, sizeof stem, "g_%d.vti", j);
            assert_string_equal(file[2 * j], stem);
            snprintf(stem, sizeof stem, "p_%d.vtp", j);
            assert_string_equal(file[2 * j + 1], stem);
        }
    }
    assert_non_null(strstr(slurp_text(pvd), "<VTKFile type=\"Collection\""));
    seam_vtk_series_free(&a);
    /* A resumed run from t = 0.5 keeps the frames before it and drops the later one. */
    seam_vtk_series b = {.format = SEAM_VTK_XML};
    assert_int_equal(seam_vtk_frame_image(&b, &th.host, dir, "g_r", 3, 2, 1, origin, 0.5, &f, 1), SEAM_OK);
    assert_int_equal(seam_vtk_frame_done(&b, &th.host, dir, "fluid", 0.5), SEAM_OK);
    double t[16];
    int part[16];
    char file[16][64];
    assert_int_equal(read_pvd(pvd, t, part, file, 16), 5);
    assert_true(t[3] == times[1] && t[4] == 0.5);
    assert_string_equal(file[4], "g_r.vti");
    seam_vtk_series_free(&b);
    /* Legacy: .vtk files, no collection. */
    const char *ldir = test_tmpdir("vtk_series_legacy");
    seam_vtk_series c = {.format = SEAM_VTK_LEGACY};
    assert_int_equal(seam_vtk_frame_points(&c, &th.host, ldir, "p", 2, 2, X, &f, 1), SEAM_OK);
    assert_int_equal(seam_vtk_frame_done(&c, &th.host, ldir, "fluid", 0.0), SEAM_OK);
    char path[4300];
    snprintf(path, sizeof path, "%s/p.vtk", ldir);
    size_t n;
    double *pts = test_read_vtk_points(path, &n);
    assert_int_equal(n, 2);
    assert_true(pts[3] == 1.0 && pts[5] == 0.0);
    free(pts);
    struct stat st;
    snprintf(path, sizeof path, "%s/fluid.pvd", ldir);
    assert_int_not_equal(stat(path, &st), 0);
    seam_vtk_series_free(&c);
}

/* A short coupled run: each participant's .pvd lists its frames at the
 * frame times 0, 0.05, 0.1 (time.frame 0.05; steps of 0.01 land on them),
 * every file it names exists, and the fluid's grid holds the 32 x 48 cells. */
static void test_coupled_run(void **state)
{
    (void)state;
    const char *const sets[] = {"time.end=0.1", "output.picture=false", NULL};
    test_run *r = test_run_scene("vtk_rising_disc", NULL, "examples/rising_disc.json", sets);
    assert_int_equal(r->status, SEAM_OK);
    const char *who[] = {"fluid", "disc"};
    const double want[] = {0.0, 0.05, 0.1};
    for (int w = 0; w < 2; w++) {
        char pvd[2200], path[2400];
        snprintf(pvd, sizeof pvd, "%s/%s/%s.pvd", r->out, who[w], who[w]);
        double t[16];
        int part[16];
        char file[16][64];
        size_t n = read_pvd(pvd, t, part, file, 16);
        assert_int_equal(n, 3);   /* water has no particles here: one part a frame */
        for (size_t k = 0; k < n; k++) {
            assert_float_equal(t[k], want[k], 1e-12);
            assert_int_equal(part[k], 0);
            snprintf(path, sizeof path, "%s/%s/%s", r->out, who[w], file[k]);
            struct stat st;
            assert_int_equal(stat(path, &st), 0);
        }
    }
    char path[2400];
    snprintf(path, sizeof path, "%s/fluid/fluid_mac_000002.vti", r->out);
    size_t n;
    double *p = test_read_vtk_xml(path, "pressure", &n);
    assert_non_null(p);
    assert_int_equal(n, 32 * 48);
    free(p);
    test_run_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_images),
        cmocka_unit_test(test_meshes),
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_float32),
        cmocka_unit_test(test_series),
        cmocka_unit_test(test_coupled_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
