/* plugins/monolithic/cutcell.c in 3D: boxes (aligned and turned) against
 * independent clipping of each face square by the box's half-spaces, the
 * divergence theorem per cell and over the grid, still water (spec 1.7 M2),
 * free slip along an inclined plane (M5), the flux of a moving box through G
 * and the extrapolation beside the plane. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mono.h"
#include "seam/krylov.h"
#include "seam/sparse.h"
#include "test_host.h"

/* A box: centre c, half sizes h, axes R (columns), as 8 corners and 12
 * triangles oriented outward, and its 6 outward face planes. */
typedef struct box {
    double c[3], h[3], R[3][3];
    double x[8 * 3];
    int32_t tri[12 * 3];
    mono_boundary b;
} box;

static void box_make(box *B, const double *c, const double *h, double yaw, double pitch)
{
    double cz = cos(yaw), sz = sin(yaw), cx = cos(pitch), sx = sin(pitch);
    /* R = Rz(yaw) Rx(pitch) */
    double R[3][3] = {{cz, -sz * cx, sz * sx}, {sz, cz * cx, -cz * sx}, {0.0, sx, cx}};
    memcpy(B->R, R, sizeof R);
    memcpy(B->c, c, sizeof B->c);
    memcpy(B->h, h, sizeof B->h);
    for (int v = 0; v < 8; v++) {
        double l[3] = {(v & 1 ? 1 : -1) * h[0], (v & 2 ? 1 : -1) * h[1], (v & 4 ? 1 : -1) * h[2]};
        for (int d = 0; d < 3; d++)
            B->x[3 * v + d] = c[d] + R[d][0] * l[0] + R[d][1] * l[1] + R[d][2] * l[2];
    }
    int nt = 0;
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 2; s++) {
            int b1 = (a + 1) % 3, b2 = (a + 2) % 3, q[4];
            static const int ring[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
            for (int k = 0; k < 4; k++)
                q[k] = (s << a) | (ring[k][0] << b1) | (ring[k][1] << b2);
            /* (a, b1, b2) is right-handed, so this ring turns about +e_a: outward on the high side. */
            for (int t = 0; t < 2; t++) {
                int32_t *T = B->tri + 3 * nt++;
                T[0] = q[0], T[1] = q[1 + t], T[2] = q[2 + t];
                if (s == 0) {
                    int32_t tmp = T[1];
                    T[1] = T[2];
                    T[2] = tmp;
                }
            }
        }
    B->b = (mono_boundary){3, 8, B->x, 12, B->tri};
}

static double box_volume(const box *B) { return 8.0 * B->h[0] * B->h[1] * B->h[2]; }

/* Sutherland-Hodgman of a planar polygon against n . (x - p) <= 0. */
static int clip_poly(const double (*in)[3], int n, const double *nrm, const double *p, double (*out)[3])
{
    int m = 0;
    for (int k = 0; k < n; k++) {
        const double *a = in[k], *b = in[(k + 1) % n];
        double da = 0.0, db = 0.0;
        for (int d = 0; d < 3; d++)
            da += nrm[d] * (a[d] - p[d]), db += nrm[d] * (b[d] - p[d]);
        if (da <= 0.0)
            memcpy(out[m++], a, 3 * sizeof *a);
        if ((da <= 0.0) != (db <= 0.0)) {
            double s = da / (da - db);
            for (int d = 0; d < 3; d++)
                out[m][d] = a[d] + s * (b[d] - a[d]);
            m++;
        }
    }
    return m;
}

static double poly_area3(const double (*P)[3], int n)
{
    double s[3] = {0.0, 0.0, 0.0};
    for (int k = 1; k + 1 < n; k++) {
        double a[3], b[3];
        for (int d = 0; d < 3; d++)
            a[d] = P[k][d] - P[0][d], b[d] = P[k + 1][d] - P[0][d];
        s[0] += a[1] * b[2] - a[2] * b[1];
        s[1] += a[2] * b[0] - a[0] * b[2];
        s[2] += a[0] * b[1] - a[1] * b[0];
    }
    return 0.5 * sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
}

/* The exact open fraction of face (axis, ijk): its square clipped by the box's six half-spaces. */
static double exact_open3(const mac_grid *g, const box *B, int axis, const int *ijk, int thresholded)
{
    double P[2][16][3];
    int t1 = (axis + 1) % 3, t2 = (axis + 2) % 3, n = 4, cur = 0;
    static const int ring[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    for (int k = 0; k < 4; k++) {
        for (int d = 0; d < 3; d++)
            P[0][k][d] = g->origin[d] + ijk[d] * g->dx;
        P[0][k][t1] += ring[k][0] * g->dx;
        P[0][k][t2] += ring[k][1] * g->dx;
    }
    for (int a = 0; a < 3 && n > 0; a++)
        for (int s = -1; s <= 1 && n > 0; s += 2) {
            double nrm[3] = {s * B->R[0][a], s * B->R[1][a], s * B->R[2][a]}, p[3];
            for (int d = 0; d < 3; d++)
                p[d] = B->c[d] + nrm[d] * B->h[a];
            n = clip_poly((const double(*)[3])P[cur], n, nrm, p, P[1 - cur]);
            cur = 1 - cur;
        }
    double f = 1.0 - (n >= 3 ? poly_area3((const double(*)[3])P[cur], n) : 0.0) / (g->dx * g->dx);
    if (thresholded)
        f = f < 0.01 ? 0.0 : f > 0.99 ? 1.0 : f;
    return f;
}

#define FOR_FACES3(g, axis, ijk)                                                     \
    for (int axis = 0; axis < 3; axis++)                                             \
        for (ijk[2] = 0; ijk[2] < (g)->nz + (axis == 2); ijk[2]++)                   \
            for (ijk[1] = 0; ijk[1] < (g)->ny + (axis == 1); ijk[1]++)               \
                for (ijk[0] = 0; ijk[0] < (g)->nx + (axis == 0); ijk[0]++)

static int thresholded_faces3(const mac_grid *g, const box *B)
{
    int n = 0, ijk[3];
    FOR_FACES3(g, axis, ijk) {
        double f = exact_open3(g, B, axis, ijk, 0);
        n += (f > 1e-12 && f < 0.01) || (f > 0.99 && f < 1.0 - 1e-12);
    }
    return n;
}

static mac_grid grid3(int n, double dx, mac_bc side)
{
    mac_grid g = {3, n, n, n, dx, {0.0, 0.0, 0.0}, {side, side, side, side, side, side}};
    return g;
}

static void patch_centroid3(const box *B, const mono_patch *pa, double *xc)
{
    for (int d = 0; d < 3; d++) {
        xc[d] = 0.0;
        for (int k = 0; k < 3; k++)
            xc[d] += pa->w[k] * B->x[3 * B->tri[3 * pa->elem + (size_t)k] + d];
    }
}

/* The code's fraction of a face, or where the thresholds changed it, the
 * exact one before them (the divergence theorem holds before the thresholds). */
static double unthresholded(const mac_grid *g, const box *B, const mono_cut *cut, int axis, const int *ijk)
{
    double f = exact_open3(g, B, axis, ijk, 0);
    int band = (f > 1e-12 && f < 0.01) || (f > 0.99 && f < 1.0 - 1e-12);
    return band ? f : cut->open[axis][mac_fi(g, axis, ijk[0], ijk[1], ijk[2])];
}

/* Aligned and turned boxes: every face fraction as independent clipping
 * gives it (thresholds included); the patches sum to a zero area vector and
 * the surface area; each cell's faces (before the thresholds) and patches
 * close, and the fluid volume they imply (divergence theorem with (x, 0, 0))
 * sums to the domain less the box. */
static void check_box(const mac_grid *g, const box *B)
{
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, g, &B->b, &th.host), SEAM_OK);
    int ijk[3], n_cut = 0;
    FOR_FACES3(g, axis, ijk) {
        double f = cut.open[axis][mac_fi(g, axis, ijk[0], ijk[1], ijk[2])];
        assert_float_equal(f, exact_open3(g, B, axis, ijk, 1), 1e-12);
        n_cut += f > 0.0 && f < 1.0;
    }
    assert_true(n_cut > 20);
    double s[3] = {0.0, 0.0, 0.0}, area = 0.0;
    for (size_t q = 0; q < cut.n_patches; q++) {
        const mono_patch *pa = &cut.patches[q];
        for (int d = 0; d < 3; d++)
            s[d] += pa->area * pa->n[d];
        area += pa->area;
        assert_float_equal(pa->w[0] + pa->w[1] + pa->w[2], 1.0, 1e-12);
        for (int k = 0; k < 3; k++)
            assert_true(pa->w[k] > -1e-12 && pa->w[k] < 1.0 + 1e-12);
    }
    for (int d = 0; d < 3; d++)
        assert_float_equal(s[d], 0.0, 1e-14);
    assert_float_equal(area, 8.0 * (B->h[0] * B->h[1] + B->h[1] * B->h[2] + B->h[2] * B->h[0]), 1e-13);
    /* The normal points into the box: inward along the box axis. */
    for (size_t q = 0; q < cut.n_patches; q++) {
        double xc[3], r = 0.0, rn = 0.0;
        patch_centroid3(B, &cut.patches[q], xc);
        for (int d = 0; d < 3; d++)
            r += (xc[d] - B->c[d]) * (xc[d] - B->c[d]), rn += (xc[d] - B->c[d]) * cut.patches[q].n[d];
        assert_true(rn < 0.0);
    }
    /* centres inside */
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                double x[3] = {(i + 0.5) * g->dx, (j + 0.5) * g->dx, (k + 0.5) * g->dx};
                int in = 1;
                for (int a = 0; a < 3; a++) {
                    double l = 0.0;
                    for (int d = 0; d < 3; d++)
                        l += B->R[d][a] * (x[d] - B->c[d]);
                    in &= fabs(l) < B->h[a];
                }
                assert_int_equal(cut.inside[mac_c(g, i, j, k)], in);
            }
    {
        size_t nc = mac_ncell(g);
        double *V = calloc(nc, sizeof *V), *cl = calloc(3 * nc, sizeof *cl), dx = g->dx, A = dx * dx;
        for (int k = 0; k < g->nz; k++)
            for (int j = 0; j < g->ny; j++)
                for (int i = 0; i < g->nx; i++) {
                    size_t c = mac_c(g, i, j, k);
                    int lo[3] = {i, j, k};
                    for (int a = 0; a < 3; a++) {
                        int hi[3] = {i, j, k};
                        hi[a]++;
                        double Alo = A * unthresholded(g, B, &cut, a, lo), Ahi = A * unthresholded(g, B, &cut, a, hi);
                        cl[3 * c + (size_t)a] = Ahi - Alo;
                        if (a == 0)
                            V[c] = (i + 1) * dx * Ahi - i * dx * Alo;
                    }
                }
        for (size_t q = 0; q < cut.n_patches; q++) {
            const mono_patch *pa = &cut.patches[q];
            double xc[3];
            patch_centroid3(B, pa, xc);
            V[pa->cell] += pa->area * pa->n[0] * xc[0];
            for (int d = 0; d < 3; d++)
                cl[3 * pa->cell + (size_t)d] += pa->area * pa->n[d];
        }
        double total = 0.0;
        for (size_t c = 0; c < nc; c++) {
            assert_true(V[c] > -1e-15 && V[c] < dx * A + 1e-15);
            for (int d = 0; d < 3; d++)
                assert_float_equal(cl[3 * c + (size_t)d], 0.0, 1e-15);
            total += V[c];
        }
        assert_float_equal(total, (double)nc * dx * A - box_volume(B), 1e-13);
        free(V);
        free(cl);
    }
    mono_cut_free(&cut);
}

static void test_boxes(void **state)
{
    (void)state;
    mac_grid g = grid3(8, 0.125, BC_WALL);
    box B;
    const double c[3] = {0.47, 0.41, 0.54}, h[3] = {0.24, 0.19, 0.21};
    box_make(&B, c, h, 0.0, 0.0);
    check_box(&g, &B);
    box_make(&B, c, h, M_PI / 6, 0.35);
    assert_true(thresholded_faces3(&g, &B) > 0);   /* the thresholds are exercised */
    check_box(&g, &B);
}

/* A box whose faces lie on grid planes: each face piece is counted once (it
 * belongs to the cell above its plane) and every cell still closes. */
static void test_box_on_grid_planes(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid3(8, 0.125, BC_WALL);
    box B;
    box_make(&B, (double[3]){0.5, 0.5, 0.5}, (double[3]){0.25, 0.125, 0.375}, 0.0, 0.0);
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &B.b, &th.host), SEAM_OK);
    double area = 0.0, A = g.dx * g.dx;
    size_t nc = mac_ncell(&g);
    double *cl = calloc(3 * nc, sizeof *cl);
    for (size_t q = 0; q < cut.n_patches; q++) {
        area += cut.patches[q].area;
        for (int d = 0; d < 3; d++)
            cl[3 * cut.patches[q].cell + (size_t)d] += cut.patches[q].area * cut.patches[q].n[d];
    }
    assert_float_equal(area, 8.0 * (0.25 * 0.125 + 0.125 * 0.375 + 0.375 * 0.25), 1e-14);
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                size_t c = mac_c(&g, i, j, k);
                for (int a = 0; a < 3; a++) {
                    int hi[3] = {i, j, k};
                    hi[a]++;
                    cl[3 * c + (size_t)a] += A * (cut.open[a][mac_fi(&g, a, hi[0], hi[1], hi[2])] -
                                                  cut.open[a][mac_fi(&g, a, i, j, k)]);
                    assert_float_equal(cl[3 * c + (size_t)a], 0.0, 1e-15);
                }
            }
    free(cl);
    mono_cut_free(&cut);
}

/* B p = E u* by IC(0)-PCG to a relative residual of 1e-12. */
static void solve_pressure(const mono_fluid *F, double *p)
{
    memset(p, 0, F->n * sizeof *p);
    if (seam_norm2(F->n, F->Eu) == 0.0)
        return;
    seam_ichol *ic = seam_ichol_new(F->B);
    seam_linop A = seam_csr_linop(F->B), M = seam_ichol_linop(ic);
    seam_krylov_opts o = {1e-12, 0.0, 2000, 0};
    seam_krylov_stats st;
    assert_int_equal(seam_pcg(&A, &M, F->Eu, p, &o, &st), 0);
    seam_ichol_destroy(&ic);
}

/* Spec 1.7 M2 in 3D: p = rho g (a - y) and u = 0 after one step of gravity. */
static void test_hydrostatic_3d(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = {3, 5, 12, 4, 1.0 / 12, {0, 0, 0}, {BC_WALL, BC_WALL, BC_WALL, BC_OPEN, BC_WALL, BC_WALL}};
    double a = 0.61, rho = 1000.0, grav = 9.81, dt = 0.01;
    mono_boundary none = {3, 0, NULL, 0, NULL};
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &none, &th.host), SEAM_OK);
    size_t nc = mac_ncell(&g);
    double *phi = malloc(nc * sizeof *phi);
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++)
                phi[mac_c(&g, i, j, k)] = (j + 0.5) * g.dx - a;
    double *u[3];
    for (int d = 0; d < 3; d++) {
        u[d] = malloc(mac_nf(&g, d) * sizeof *u[d]);
        for (size_t f = 0; f < mac_nf(&g, d); f++)
            u[d][f] = d == 1 ? -grav * dt : 0.0;
    }
    double *const vel[3] = {u[0], u[1], u[2]};
    mono_fluid F;
    assert_int_equal(mono_fluid_build(&F, &g, &cut, &none, phi, vel, NULL, rho, dt, &th.host), SEAM_OK);
    assert_int_equal(F.n, (size_t)(g.nx * g.nz * 7));   /* centres below 0.61: rows 0..6, theta = 0.82 */
    double *p = malloc(F.n * sizeof *p);
    solve_pressure(&F, p);
    for (size_t r = 0; r < F.n; r++) {
        double y = ((double)(F.cell[r] / (size_t)g.nx % (size_t)g.ny) + 0.5) * g.dx;
        assert_float_equal(p[r], rho * grav * (a - y), 1e-8 * rho * grav * a);
    }
    mono_fluid_update(&F, &g, &cut, phi, p, NULL, rho, dt, vel);
    int ijk[3];
    FOR_FACES3(&g, axis, ijk) {
        int lo[3] = {ijk[0], ijk[1], ijk[2]};
        lo[axis]--;
        int m = ijk[axis];
        int wet = (m < mac_n(&g, axis) && phi[mac_c(&g, ijk[0], ijk[1], ijk[2])] < 0) ||
                  (m > 0 && phi[mac_c(&g, lo[0], lo[1], lo[2])] < 0);
        if (wet)
            assert_float_equal(u[axis][mac_fi(&g, axis, ijk[0], ijk[1], ijk[2])], 0.0, 1e-8 * grav * dt);
    }
    free(p);
    for (int d = 0; d < 3; d++)
        free(u[d]);
    free(phi);
    mono_fluid_free(&F);
    mono_cut_free(&cut);
}

/* The inclined wall of M5 in 3D: a large box turned by 0.46 rad about z and
 * 0.42 about x, reaching far beyond the grid, whose top face crosses it. */
static void inclined_wall(box *B)
{
    const double yaw = 0.46, pitch = 0.42, h[3] = {3.0, 3.0, 3.0};   /* no face near a threshold */
    box_make(B, (double[3]){0.0, 0.0, 0.0}, h, yaw, pitch);
    /* centre it so that the top face (+y local) passes through (0.5, 0.33, 0.5) */
    double top[3] = {0.5, 0.325, 0.5}, c[3];
    for (int d = 0; d < 3; d++)
        c[d] = top[d] - B->R[d][1] * h[1];
    box_make(B, c, h, yaw, pitch);
}

/* Spec 1.7 M5 in 3D: a uniform flow tangent to the inclined plane. */
static void test_free_slip_3d(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid3(10, 0.1, BC_OPEN);
    box B;
    inclined_wall(&B);
    assert_int_equal(thresholded_faces3(&g, &B), 0);
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &B.b, &th.host), SEAM_OK);
    size_t nc = mac_ncell(&g);
    double *phi = malloc(nc * sizeof *phi);
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++)
                phi[mac_c(&g, i, j, k)] = (j + 0.5) * g.dx - 0.87;
    /* U: 2 m/s along the plane, a mix of its two in-plane axes (local x and z). */
    double U[3], *u0[3], *u1[3];
    for (int d = 0; d < 3; d++)
        U[d] = 2.0 * (0.6 * B.R[d][0] + 0.8 * B.R[d][2]);
    for (int d = 0; d < 3; d++) {
        u0[d] = malloc(mac_nf(&g, d) * sizeof *u0[d]);
        u1[d] = malloc(mac_nf(&g, d) * sizeof *u1[d]);
        for (size_t f = 0; f < mac_nf(&g, d); f++)
            u0[d][f] = u1[d][f] = U[d];
    }
    double *const vel[3] = {u1[0], u1[1], u1[2]};
    mono_fluid F;
    double rho = 1000.0, dt = 0.01;
    assert_int_equal(mono_fluid_build(&F, &g, &cut, &B.b, phi, vel, NULL, rho, dt, &th.host), SEAM_OK);
    assert_true(F.n > 200);
    size_t n_cut_rows = 0;
    for (size_t r = 0; r < F.n; r++) {
        assert_float_equal(F.Eu[r], 0.0, 1e-14 * 2.0 * g.dx * g.dx);
        n_cut_rows += F.G->row_ptr[r + 1] > F.G->row_ptr[r];
    }
    assert_true(n_cut_rows >= 60);
    double *p = malloc(F.n * sizeof *p);
    solve_pressure(&F, p);
    double p_scale = rho * 2.0 * g.dx / dt;
    for (size_t r = 0; r < F.n; r++)
        assert_float_equal(p[r], 0.0, 1e-12 * p_scale);
    mono_fluid_update(&F, &g, &cut, phi, p, NULL, rho, dt, vel);
    for (int d = 0; d < 3; d++)
        for (size_t f = 0; f < mac_nf(&g, d); f++)
            assert_float_equal(u1[d][f], u0[d][f], 1e-12);
    /* Extrapolation (sec. 4.6): a non-tangent uniform V reaches every face;
     * inside the solid it loses its normal component, in the air it stays. */
    const double V[3] = {1.0, 0.4, -0.3};
    double n[3] = {-B.R[0][1], -B.R[1][1], -B.R[2][1]}, Vn = V[0] * n[0] + V[1] * n[1] + V[2] * n[2];
    int ijk[3], n_in = 0, n_air = 0;
    FOR_FACES3(&g, axis, ijk) {
        size_t f = mac_fi(&g, axis, ijk[0], ijk[1], ijk[2]);
        int lo[3] = {ijk[0], ijk[1], ijk[2]};
        lo[axis]--;
        int m = ijk[axis];
        int wet = (m < mac_n(&g, axis) && phi[mac_c(&g, ijk[0], ijk[1], ijk[2])] < 0) ||
                  (m > 0 && phi[mac_c(&g, lo[0], lo[1], lo[2])] < 0);
        u1[axis][f] = wet && cut.open[axis][f] > 0.0 ? V[axis] : 1e3;
    }
    mono_extrapolate(&g, &cut, phi, 30, vel);
    FOR_FACES3(&g, axis, ijk) {
        size_t f = mac_fi(&g, axis, ijk[0], ijk[1], ijk[2]);
        if (cut.open[axis][f] == 0.0) {
            assert_float_equal(u1[axis][f], V[axis] - Vn * n[axis], 1e-13);
            n_in++;
        } else {
            assert_float_equal(u1[axis][f], V[axis], 1e-13);
            n_air++;
        }
    }
    assert_true(n_in > 100 && n_air > 100);
    free(p);
    for (int d = 0; d < 3; d++) {
        free(u0[d]);
        free(u1[d]);
    }
    free(phi);
    mono_fluid_free(&F);
    mono_cut_free(&cut);
}

/* A box moving in enclosed liquid: G v sums to 0 for a translation and a
 * rotation, to -3 V for the expansion v = x - c. */
static void test_moving_box_flux(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid3(10, 0.1, BC_WALL);
    box B;
    const double c[3] = {0.52, 0.47, 0.49}, h[3] = {0.26, 0.17, 0.22};
    box_make(&B, c, h, 0.4, 0.7);
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &B.b, &th.host), SEAM_OK);
    size_t nc = mac_ncell(&g);
    double *phi = malloc(nc * sizeof *phi);
    for (size_t k = 0; k < nc; k++)
        phi[k] = -1.0;
    double *u[3];
    for (int d = 0; d < 3; d++)
        u[d] = calloc(mac_nf(&g, d), sizeof *u[d]);
    double *const vel[3] = {u[0], u[1], u[2]};
    mono_fluid F;
    assert_int_equal(mono_fluid_build(&F, &g, &cut, &B.b, phi, vel, NULL, 1.0, 0.01, &th.host), SEAM_OK);
    double Vn[3][24];
    for (int k = 0; k < 8; k++) {
        const double *x = &B.x[3 * k];
        double tr[3] = {0.7, -1.3, 0.4}, w[3] = {0.3, -0.5, 0.8};
        for (int d = 0; d < 3; d++) {
            Vn[0][3 * k + d] = tr[d];
            Vn[2][3 * k + d] = x[d] - c[d];
        }
        Vn[1][3 * k] = w[1] * x[2] - w[2] * x[1];   /* w x x, about the origin */
        Vn[1][3 * k + 1] = w[2] * x[0] - w[0] * x[2];
        Vn[1][3 * k + 2] = w[0] * x[1] - w[1] * x[0];
    }
    double *Gv = malloc(F.n * sizeof *Gv);
    const double expect[3] = {0.0, 0.0, -3.0 * box_volume(&B)};
    for (int m = 0; m < 3; m++) {
        seam_csr_mul(F.G, Vn[m], Gv);
        double s = 0.0, s_abs = 0.0;
        for (size_t r = 0; r < F.n; r++)
            s += Gv[r], s_abs += fabs(Gv[r]);
        assert_true(s_abs > 0.05);
        assert_float_equal(s, expect[m], 1e-13);
    }
    free(Gv);
    for (int d = 0; d < 3; d++)
        free(u[d]);
    free(phi);
    mono_fluid_free(&F);
    mono_cut_free(&cut);
}

/* A box turned inside out (inward triangles) is refused with the reason. */
static void test_refusals_3d(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid3(6, 1.0 / 6, BC_WALL);
    box B;
    box_make(&B, (double[3]){0.5, 0.5, 0.5}, (double[3]){0.3, 0.2, 0.25}, 0.2, 0.1);
    for (int t = 0; t < 12; t++) {
        int32_t tmp = B.tri[3 * t + 1];
        B.tri[3 * t + 1] = B.tri[3 * t + 2];
        B.tri[3 * t + 2] = tmp;
    }
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &B.b, &th.host), SEAM_ERROR);
    assert_true(test_host_saw(&th, "oriented outward"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boxes),
        cmocka_unit_test(test_box_on_grid_planes),
        cmocka_unit_test(test_hydrostatic_3d),
        cmocka_unit_test(test_free_slip_3d),
        cmocka_unit_test(test_moving_box_flux),
        cmocka_unit_test(test_refusals_3d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
