/* plugins/monolithic/cutcell.c: the cut-cell geometry against exact answers
 * (closed outlines, face fractions by independent clipping, volume by the
 * divergence theorem), the fluid block on still water (spec 1.7 M2), free
 * slip along an inclined wall (M5) and the flux of a moving body through G. */
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

/* A closed polygon, counter-clockwise: n nodes, segments (k, k+1). */
typedef struct poly {
    size_t n;
    double x[2 * 64];
    int32_t seg[2 * 64];
    mono_boundary b;
} poly;

static void poly_close(poly *P)
{
    for (size_t k = 0; k < P->n; k++) {
        P->seg[2 * k] = (int32_t)k;
        P->seg[2 * k + 1] = (int32_t)((k + 1) % P->n);
    }
    P->b = (mono_boundary){2, P->n, P->x, P->n, P->seg};
}

/* The rectangle of half sizes (hx, hy) about c, turned by angle a. */
static void poly_rect(poly *P, const double *c, double hx, double hy, double a)
{
    static const double corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    P->n = 4;
    for (int k = 0; k < 4; k++) {
        double X = corner[k][0] * hx, Y = corner[k][1] * hy;
        P->x[2 * k] = c[0] + cos(a) * X - sin(a) * Y;
        P->x[2 * k + 1] = c[1] + sin(a) * X + cos(a) * Y;
    }
    poly_close(P);
}

static double poly_area(const poly *P)
{
    double A = 0.0;
    for (size_t k = 0; k < P->n; k++) {
        const double *p = &P->x[2 * k], *q = &P->x[2 * ((k + 1) % P->n)];
        A += 0.5 * (p[0] * q[1] - p[1] * q[0]);
    }
    return A;
}

/* Length of the segment a-b inside a convex counter-clockwise polygon,
 * by intersecting the half-planes left of its edges (Cyrus-Beck): an
 * algorithm independent of cutcell.c's crossings and winding. */
static double convex_chord(const poly *P, const double *a, const double *b)
{
    double s0 = 0.0, s1 = 1.0;
    for (size_t k = 0; k < P->n; k++) {
        const double *p = &P->x[2 * k], *q = &P->x[2 * ((k + 1) % P->n)];
        double nl[2] = {-(q[1] - p[1]), q[0] - p[0]};
        double f0 = (a[0] - p[0]) * nl[0] + (a[1] - p[1]) * nl[1];
        double df = (b[0] - a[0]) * nl[0] + (b[1] - a[1]) * nl[1];
        if (df == 0.0) {
            if (f0 < 0.0)
                return 0.0;
        } else if (df > 0.0)
            s0 = fmax(s0, -f0 / df);
        else
            s1 = fmin(s1, -f0 / df);
    }
    return s1 > s0 ? (s1 - s0) * hypot(b[0] - a[0], b[1] - a[1]) : 0.0;
}

/* The exact open fraction of face (axis, i, j) outside the convex polygon,
 * before the thresholds, and after them. */
static double exact_open(const mac_grid *g, const poly *P, int axis, int i, int j, int threshold)
{
    double a[2] = {g->origin[0] + i * g->dx, g->origin[1] + j * g->dx}, b[2] = {a[0], a[1]};
    b[1 - axis] += g->dx;
    double f = 1.0 - convex_chord(P, a, b) / g->dx;
    if (threshold)
        f = f < 0.01 ? 0.0 : f > 0.99 ? 1.0 : f;
    return f;
}

/* Faces whose exact fraction falls in a threshold band (0, 0.01) or (0.99, 1). */
static int thresholded_faces(const mac_grid *g, const poly *P)
{
    int n = 0;
    for (int axis = 0; axis < 2; axis++)
        for (int j = 0; j < g->ny + (axis == 1); j++)
            for (int i = 0; i < g->nx + (axis == 0); i++) {
                double f = exact_open(g, P, axis, i, j, 0);
                n += (f > 1e-12 && f < 0.01) || (f > 0.99 && f < 1.0 - 1e-12);
            }
    return n;
}

static void patch_centroid(const poly *P, const mono_patch *pa, double *xc)
{
    for (int d = 0; d < 2; d++)
        xc[d] = pa->w[0] * P->x[2 * P->seg[2 * pa->elem] + d] + pa->w[1] * P->x[2 * P->seg[2 * pa->elem + 1] + d];
}

static mac_grid grid2(int nx, int ny, double dx, mac_bc side)
{
    mac_grid g = {2, nx, ny, 1, dx, {0.0, 0.0, 0.0}, {side, side, side, side, side, side}};
    return g;
}

/* A closed outline's patch area vectors sum to zero and their lengths to its perimeter. */
static void test_patches_close(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid2(10, 10, 0.1, BC_WALL);
    poly P;   /* an irregular heptagon, counter-clockwise */
    static const double v[7][2] = {{0.21, 0.18}, {0.63, 0.11}, {0.87, 0.42}, {0.79, 0.77},
                                   {0.48, 0.91}, {0.17, 0.73}, {0.12, 0.44}};
    P.n = 7;
    memcpy(P.x, v, sizeof v);
    poly_close(&P);
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &P.b, &th.host), SEAM_OK);
    double s[2] = {0.0, 0.0}, len = 0.0, perim = 0.0;
    for (size_t q = 0; q < cut.n_patches; q++) {
        const mono_patch *pa = &cut.patches[q];
        s[0] += pa->area * pa->n[0];
        s[1] += pa->area * pa->n[1];
        len += pa->area;
        assert_float_equal(hypot(pa->n[0], pa->n[1]), 1.0, 1e-14);
        assert_float_equal(pa->w[0] + pa->w[1], 1.0, 1e-14);
    }
    for (size_t k = 0; k < P.n; k++)
        perim += hypot(v[(k + 1) % 7][0] - v[k][0], v[(k + 1) % 7][1] - v[k][1]);
    assert_true(cut.n_patches > 7);
    assert_float_equal(s[0], 0.0, 1e-14);
    assert_float_equal(s[1], 0.0, 1e-14);
    assert_float_equal(len, perim, 1e-13);
    /* The normal points into the solid: from the first patch's centroid a step along n is inside. */
    double xc[2];
    patch_centroid(&P, &cut.patches[0], xc);
    double probe[2] = {xc[0] + 1e-3 * cut.patches[0].n[0], xc[1] + 1e-3 * cut.patches[0].n[1]};
    double in_a[2] = {probe[0] - 1e-9, probe[1]}, in_b[2] = {probe[0] + 1e-9, probe[1]};
    assert_true(convex_chord(&P, in_a, in_b) > 1.9e-9);
    mono_cut_free(&cut);
}

/* A rectangle whose edges lie on grid lines: each edge piece is counted once
 * (in the cell above or right of its line) and every cell's faces and
 * patches close. */
static void test_rect_on_grid_lines(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid2(8, 8, 0.125, BC_WALL);
    poly P;
    const double c[2] = {0.5, 0.4375};
    poly_rect(&P, c, 0.25, 0.1875, 0.0);   /* [0.25, 0.75] x [0.25, 0.625] */
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &P.b, &th.host), SEAM_OK);
    double len = 0.0, *cl = calloc(2 * mac_ncell(&g), sizeof *cl);
    for (size_t q = 0; q < cut.n_patches; q++) {
        len += cut.patches[q].area;
        for (int d = 0; d < 2; d++)
            cl[2 * cut.patches[q].cell + (size_t)d] += cut.patches[q].area * cut.patches[q].n[d];
    }
    assert_float_equal(len, 2.0 * (0.5 + 0.375), 1e-15);
    for (int j = 0; j < g.ny; j++)
        for (int i = 0; i < g.nx; i++) {
            size_t cc = mac_c(&g, i, j, 0);
            cl[2 * cc] += g.dx * (cut.open[0][mac_fi(&g, 0, i + 1, j, 0)] - cut.open[0][mac_fi(&g, 0, i, j, 0)]);
            cl[2 * cc + 1] += g.dx * (cut.open[1][mac_fi(&g, 1, i, j + 1, 0)] - cut.open[1][mac_fi(&g, 1, i, j, 0)]);
            assert_float_equal(cl[2 * cc], 0.0, 1e-15);
            assert_float_equal(cl[2 * cc + 1], 0.0, 1e-15);
        }
    free(cl);
    mono_cut_free(&cut);
}

/* Each face's open fraction against independent exact clipping, for a
 * rectangle aligned with the grid and one turned by 30 degrees. */
static void check_fractions(const mac_grid *g, const poly *P, int *n_cut)
{
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, g, &P->b, &th.host), SEAM_OK);
    for (int axis = 0; axis < 2; axis++)
        for (int j = 0; j < g->ny + (axis == 1); j++)
            for (int i = 0; i < g->nx + (axis == 0); i++) {
                double f = cut.open[axis][mac_fi(g, axis, i, j, 0)];
                assert_float_equal(f, exact_open(g, P, axis, i, j, 1), 1e-12);
                *n_cut += f > 0.0 && f < 1.0;
            }
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            double c[2] = {(i + 0.5) * g->dx, (j + 0.5) * g->dx}, a[2] = {c[0] - 1e-9, c[1]}, b[2] = {c[0] + 1e-9, c[1]};
            assert_int_equal(cut.inside[mac_c(g, i, j, 0)], convex_chord(P, a, b) > 1.5e-9);   /* strictly inside */
        }
    mono_cut_free(&cut);
}

static void test_rectangle_fractions(void **state)
{
    (void)state;
    mac_grid g = grid2(12, 12, 1.0 / 12, BC_WALL);
    poly P;
    const double c[2] = {0.5, 0.47};
    int n_cut = 0;
    poly_rect(&P, c, 0.27, 0.16, 0.0);
    check_fractions(&g, &P, &n_cut);
    assert_true(n_cut >= 10);
    n_cut = 0;
    poly_rect(&P, c, 0.27, 0.16, M_PI / 6);
    check_fractions(&g, &P, &n_cut);
    assert_true(n_cut >= 16);
    /* A diamond with its corners on grid lines: each touches a line it does not cross. */
    mac_grid g8 = grid2(8, 8, 0.125, BC_WALL);
    static const double d[4][2] = {{0.5, 0.25}, {0.75, 0.5}, {0.5, 0.75}, {0.25, 0.5}};
    P.n = 4;
    memcpy(P.x, d, sizeof d);
    poly_close(&P);
    n_cut = 0;
    check_fractions(&g8, &P, &n_cut);
    assert_int_equal(n_cut, 0);   /* its edges run through grid nodes: each face is in or out */
    int n_closed = 0;
    for (int axis = 0; axis < 2; axis++)
        for (int j = 0; j < 8 + (axis == 1); j++)
            for (int i = 0; i < 8 + (axis == 0); i++)
                n_closed += exact_open(&g8, &P, axis, i, j, 1) == 0.0;
    assert_int_equal(n_closed, 16);
}

/* The fluid volume of each cell from its faces and patches alone, by the
 * divergence theorem with the field (x, 0): V = x_R A_R - x_L A_L + sum a n_x x_c.
 * Summed over the grid it is the domain's area less the polygon's, and each
 * cell's faces and patches close. */
static void test_volume_from_fractions(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid2(12, 12, 1.0 / 12, BC_WALL);
    poly P;
    const double c[2] = {0.5, 0.45};
    poly_rect(&P, c, 0.27, 0.16, M_PI / 6);
    assert_int_equal(thresholded_faces(&g, &P), 0);   /* the thresholds would change the volume */
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &P.b, &th.host), SEAM_OK);
    size_t nc = mac_ncell(&g);
    double *V = calloc(nc, sizeof *V), *close = calloc(2 * nc, sizeof *close);
    double dx = g.dx;
    for (int j = 0; j < g.ny; j++)
        for (int i = 0; i < g.nx; i++) {
            size_t cc = mac_c(&g, i, j, 0);
            double AL = dx * cut.open[0][mac_fi(&g, 0, i, j, 0)], AR = dx * cut.open[0][mac_fi(&g, 0, i + 1, j, 0)];
            double AB = dx * cut.open[1][mac_fi(&g, 1, i, j, 0)], AT = dx * cut.open[1][mac_fi(&g, 1, i, j + 1, 0)];
            V[cc] = (i + 1) * dx * AR - i * dx * AL;
            close[2 * cc] = AR - AL;
            close[2 * cc + 1] = AT - AB;
        }
    for (size_t q = 0; q < cut.n_patches; q++) {
        const mono_patch *pa = &cut.patches[q];
        double xc[2];
        patch_centroid(&P, pa, xc);
        V[pa->cell] += pa->area * pa->n[0] * xc[0];
        close[2 * pa->cell] += pa->area * pa->n[0];
        close[2 * pa->cell + 1] += pa->area * pa->n[1];
    }
    double total = 0.0;
    for (size_t cc = 0; cc < nc; cc++) {
        assert_true(V[cc] > -1e-15 && V[cc] < dx * dx + 1e-15);
        assert_float_equal(close[2 * cc], 0.0, 1e-15);
        assert_float_equal(close[2 * cc + 1], 0.0, 1e-15);
        total += V[cc];
    }
    assert_float_equal(poly_area(&P), 0.27 * 0.16 * 4, 1e-15);
    assert_float_equal(total, 1.0 - poly_area(&P), 1e-13);
    free(V);
    free(close);
    mono_cut_free(&cut);
}

/* B p = E u* by IC(0)-PCG to a relative residual of 1e-12. */
static void solve_pressure(const mono_fluid *F, double *p)
{
    memset(p, 0, F->n * sizeof *p);
    if (seam_norm2(F->n, F->Eu) == 0.0)
        return;
    seam_ichol *ic = seam_ichol_new(F->B);
    assert_non_null(ic);
    seam_linop A = seam_csr_linop(F->B), M = seam_ichol_linop(ic);
    seam_krylov_opts o = {1e-12, 0.0, 1000, 0};
    seam_krylov_stats st;
    assert_int_equal(seam_pcg(&A, &M, F->Eu, p, &o, &st), 0);
    seam_ichol_destroy(&ic);
}

/* Spec 1.7 M2: still water with a flat surface at height a, no solid, one
 * step of gravity: p = rho g (a - y) at the active centres and u = 0. */
static void test_hydrostatic(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid2(8, 16, 1.0 / 16, BC_WALL);
    g.bc[SIDE_TOP] = BC_OPEN;
    double a = 0.73, rho = 1000.0, grav = 9.81, dt = 0.01;
    poly none = {0};
    poly_close(&none);
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &none.b, &th.host), SEAM_OK);
    size_t nc = mac_ncell(&g);
    double *phi = malloc(nc * sizeof *phi);
    for (int j = 0; j < g.ny; j++)
        for (int i = 0; i < g.nx; i++)
            phi[mac_c(&g, i, j, 0)] = (j + 0.5) * g.dx - a;
    double *u = calloc(mac_nf(&g, 0), sizeof *u), *v = malloc(mac_nf(&g, 1) * sizeof *v);
    for (size_t f = 0; f < mac_nf(&g, 1); f++)
        v[f] = -grav * dt;   /* u* after gravity, walls included: the block must not let them through */
    double *const vel[3] = {u, v, NULL};
    mono_fluid F;
    assert_int_equal(mono_fluid_build(&F, &g, &cut, &none.b, phi, vel, NULL, rho, dt, &th.host), SEAM_OK);
    assert_int_equal(F.n, (size_t)g.nx * 12);   /* centres below a: rows 0..11, theta = 0.18 in row 11 */
    assert_int_equal(F.G->rows, F.n);
    double *p = malloc(F.n * sizeof *p);
    solve_pressure(&F, p);
    for (size_t r = 0; r < F.n; r++) {
        double y = ((double)(F.cell[r] / (size_t)g.nx) + 0.5) * g.dx;
        assert_float_equal(p[r], rho * grav * (a - y), 1e-8 * rho * grav * a);
    }
    mono_fluid_update(&F, &g, &cut, phi, p, NULL, rho, dt, vel);
    for (int j = 0; j <= g.ny; j++)
        for (int i = 0; i < g.nx; i++) {
            int wet = (j < g.ny && phi[mac_c(&g, i, j, 0)] < 0) || (j > 0 && phi[mac_c(&g, i, j - 1, 0)] < 0);
            if (wet || j == 0)
                assert_float_equal(v[mac_fi(&g, 1, i, j, 0)], 0.0, 1e-8 * grav * dt);
        }
    for (size_t f = 0; f < mac_nf(&g, 0); f++)
        assert_float_equal(u[f], 0.0, 1e-8 * grav * dt);
    free(p);
    free(u);
    free(v);
    free(phi);
    mono_fluid_free(&F);
    mono_cut_free(&cut);
}

/* The part of convex polygon P below y = a (Sutherland-Hodgman): its area
 * and centroid. */
static double area_below(const poly *P, double a, double *cen)
{
    double q[2 * 66];
    size_t m = 0;
    for (size_t k = 0; k < P->n; k++) {
        const double *p0 = &P->x[2 * k], *p1 = &P->x[2 * ((k + 1) % P->n)];
        if (p0[1] < a)
            q[2 * m] = p0[0], q[2 * m + 1] = p0[1], m++;
        if ((p0[1] < a) != (p1[1] < a)) {
            double s = (a - p0[1]) / (p1[1] - p0[1]);
            q[2 * m] = p0[0] + s * (p1[0] - p0[0]), q[2 * m + 1] = a, m++;
        }
    }
    double A = 0.0;
    cen[0] = cen[1] = 0.0;
    for (size_t k = 0; k < m; k++) {
        const double *p0 = &q[2 * k], *p1 = &q[2 * ((k + 1) % m)];
        double cr = p0[0] * p1[1] - p1[0] * p0[1];
        A += 0.5 * cr;
        cen[0] += (p0[0] + p1[0]) * cr / 6.0;
        cen[1] += (p0[1] + p1[1]) * cr / 6.0;
    }
    cen[0] /= A, cen[1] /= A;
    return A;
}

/* A body at rest piercing still water (flat surface at a, one step of
 * gravity). fluid_mac's level set counts the solids as filled with liquid;
 * mono_liquid_phi continues the free surface through the body instead: its
 * sign inside is that of y - a a cell or more from the surface, no cell
 * whose centre lies above the surface is active (a cut cell above the water
 * holds air), and the nodes above the water get no pressure force. With the
 * filled level set the cut cells along the body's top were liquid cells
 * holding about rho g dx / 2 on it. The net force is Archimedes' rho g
 * A_sub, up to the error of one pressure per cell (5.13): rho g dx / 2 over
 * the body's width. */
static void test_piercing_body(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid2(20, 20, 0.05, BC_WALL);
    g.bc[SIDE_TOP] = BC_OPEN;
    double a = 0.52, rho = 1000.0, grav = 9.81, dt = 0.01, hx = 0.25, hy = 0.15, ang = 0.06;
    const double c[2] = {0.5, 0.53};
    poly P;   /* the rectangle turned by ang, 8 segments a side */
    static const double corner[5][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {-1, -1}};
    P.n = 32;
    for (size_t k = 0; k < P.n; k++) {
        size_t side = k / 8;
        double s = (double)(k % 8) / 8.0;
        double X = hx * ((1 - s) * corner[side][0] + s * corner[side + 1][0]);
        double Y = hy * ((1 - s) * corner[side][1] + s * corner[side + 1][1]);
        P.x[2 * k] = c[0] + cos(ang) * X - sin(ang) * Y;
        P.x[2 * k + 1] = c[1] + sin(ang) * X + cos(ang) * Y;
    }
    poly_close(&P);
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &P.b, &th.host), SEAM_OK);
    size_t nc = mac_ncell(&g);
    double *filled = malloc(nc * sizeof *filled), *phi = malloc(nc * sizeof *phi);
    for (int j = 0; j < g.ny; j++)
        for (int i = 0; i < g.nx; i++) {
            size_t cc = mac_c(&g, i, j, 0);
            filled[cc] = cut.inside[cc] ? -g.dx : (j + 0.5) * g.dx - a;
        }
    mono_liquid_phi(&g, &cut, filled, phi);
    int checked = 0;
    for (int j = 0; j < g.ny; j++)
        for (int i = 0; i < g.nx; i++) {
            size_t cc = mac_c(&g, i, j, 0);
            double y = (j + 0.5) * g.dx;
            if (!cut.inside[cc])
                assert_true(phi[cc] == filled[cc]);
            else if (fabs(y - a) >= g.dx) {
                assert_true((phi[cc] < 0.0) == (y < a));
                checked++;
            }
        }
    assert_true(checked >= 20);
    double *u = calloc(mac_nf(&g, 0), sizeof *u), *v = malloc(mac_nf(&g, 1) * sizeof *v);
    for (size_t f = 0; f < mac_nf(&g, 1); f++)
        v[f] = -grav * dt;
    double *const vel[3] = {u, v, NULL};
    mono_fluid F;
    assert_int_equal(mono_fluid_build(&F, &g, &cut, &P.b, phi, vel, NULL, rho, dt, &th.host), SEAM_OK);
    int cut_active = 0;
    for (size_t r = 0; r < F.n; r++) {
        double y = ((double)(F.cell[r] / (size_t)g.nx) + 0.5) * g.dx;
        assert_true(y < a);
        cut_active += cut.inside[F.cell[r]];
    }
    assert_true(cut_active > 0);   /* cut cells under the water whose centre is in the body take part */
    double *p = malloc(F.n * sizeof *p), f[2 * 64];
    solve_pressure(&F, p);
    seam_csr_mul_t(F.G, p, f);
    double fx = 0.0, fy = 0.0, cen[2];
    int dry = 0;
    for (size_t k = 0; k < P.n; k++) {
        fx += f[2 * k], fy += f[2 * k + 1];
        const double *prev = &P.x[2 * ((k + P.n - 1) % P.n)], *next = &P.x[2 * ((k + 1) % P.n)];
        if (fmin(P.x[2 * k + 1], fmin(prev[1], next[1])) > a + g.dx) {   /* both its segments a cell above the water */
            assert_true(f[2 * k] == 0.0 && f[2 * k + 1] == 0.0);
            dry++;
        }
    }
    assert_true(dry >= 8);
    double A = area_below(&P, a, cen), buoy = rho * grav * A;
    printf("piercing body: force (%.2f, %.2f) N/m, Archimedes (0, %.2f)\n", fx, fy, buoy);
    assert_true(fabs(fx) <= 1e-3 * buoy);
    assert_true(fabs(fy - buoy) <= rho * grav * 0.5 * g.dx * 2.0 * hx);
    free(p);
    free(u);
    free(v);
    free(phi);
    free(filled);
    mono_fluid_free(&F);
    mono_cut_free(&cut);
}

/* Spec 1.7 M5: liquid flowing uniformly along a static wall inclined by 30
 * degrees: E u* vanishes by the exact clipping, so p = 0 and u is unchanged. */
static void test_free_slip(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid2(16, 16, 1.0 / 16, BC_OPEN);
    double t30 = tan(M_PI / 6), y0 = 0.213;
    poly P;   /* everything below y = y0 + x tan 30, beyond the grid on three sides */
    static const double far = 2.0;
    double v4[4][2] = {{-1.0, -far}, {far, -far}, {far, y0 + far * t30}, {-1.0, y0 - t30}};
    P.n = 4;
    memcpy(P.x, v4, sizeof v4);
    poly_close(&P);
    assert_int_equal(thresholded_faces(&g, &P), 0);
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &P.b, &th.host), SEAM_OK);
    size_t nc = mac_ncell(&g);
    double a = 0.83, U = 2.0, tang[2] = {cos(M_PI / 6), sin(M_PI / 6)};
    double *phi = malloc(nc * sizeof *phi);
    for (int j = 0; j < g.ny; j++)
        for (int i = 0; i < g.nx; i++)
            phi[mac_c(&g, i, j, 0)] = (j + 0.5) * g.dx - a;
    double *u0[2], *u1[2];
    for (int d = 0; d < 2; d++) {
        u0[d] = malloc(mac_nf(&g, d) * sizeof *u0[d]);
        u1[d] = malloc(mac_nf(&g, d) * sizeof *u1[d]);
        for (size_t f = 0; f < mac_nf(&g, d); f++)
            u0[d][f] = u1[d][f] = U * tang[d];
    }
    double *const vel[3] = {u1[0], u1[1], NULL};
    mono_fluid F;
    assert_int_equal(mono_fluid_build(&F, &g, &cut, &P.b, phi, vel, NULL, 1000.0, 0.01, &th.host), SEAM_OK);
    assert_true(F.n > 60);
    size_t n_cut_rows = 0;
    for (size_t r = 0; r < F.n; r++) {
        assert_float_equal(F.Eu[r], 0.0, 1e-14 * U * g.dx);
        n_cut_rows += F.G->row_ptr[r + 1] > F.G->row_ptr[r];
    }
    assert_true(n_cut_rows >= 16);   /* the wall runs through the active cells */
    for (size_t r = 0; r < F.n; r++)   /* B is symmetric with a positive diagonal */
        for (int64_t q = F.B->row_ptr[r]; q < F.B->row_ptr[r + 1]; q++) {
            double *t = seam_csr_at(F.B, (size_t)F.B->col[q], r);
            assert_non_null(t);
            assert_float_equal(*t, F.B->val[q], 0.0);
            if ((size_t)F.B->col[q] == r)
                assert_true(F.B->val[q] > 0.0);
        }
    double *p = malloc(F.n * sizeof *p);
    solve_pressure(&F, p);
    double p_scale = 1000.0 * U * g.dx / 0.01;   /* what an unbalanced flux of U dx would drive */
    for (size_t r = 0; r < F.n; r++)
        assert_float_equal(p[r], 0.0, 1e-12 * p_scale);
    mono_fluid_update(&F, &g, &cut, phi, p, NULL, 1000.0, 0.01, vel);
    for (int d = 0; d < 2; d++)
        for (size_t f = 0; f < mac_nf(&g, d); f++)
            assert_float_equal(u1[d][f], u0[d][f], 1e-12 * U);
    free(p);
    for (int d = 0; d < 2; d++) {
        free(u0[d]);
        free(u1[d]);
    }
    free(phi);
    mono_fluid_free(&F);
    mono_cut_free(&cut);
}

/* A closed body moving inside enclosed liquid: G v sums to the rate of
 * change of the fluid volume, -dV_solid/dt: 0 for a rigid translation or a
 * rotation (about the origin), -2 A for the expansion v = x - c (div v = 2). */
static void test_moving_body_flux(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid2(20, 20, 0.05, BC_WALL);
    poly P;   /* a 24-gon of radius 0.31 about c */
    const double c[2] = {0.487, 0.522};
    P.n = 24;
    for (size_t k = 0; k < P.n; k++) {
        double t = 2.0 * M_PI * (double)k / (double)P.n + 0.1;
        P.x[2 * k] = c[0] + 0.31 * cos(t);
        P.x[2 * k + 1] = c[1] + 0.31 * sin(t);
    }
    poly_close(&P);
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &P.b, &th.host), SEAM_OK);
    size_t nc = mac_ncell(&g);
    double *phi = malloc(nc * sizeof *phi);
    for (size_t cc = 0; cc < nc; cc++)
        phi[cc] = -1.0;
    double *u = calloc(mac_nf(&g, 0), sizeof *u), *v = calloc(mac_nf(&g, 1), sizeof *v);
    double *const vel[3] = {u, v, NULL};
    mono_fluid F;
    assert_int_equal(mono_fluid_build(&F, &g, &cut, &P.b, phi, vel, NULL, 1.0, 0.01, &th.host), SEAM_OK);
    assert_int_equal(F.G->cols, 2 * P.n);
    double V[3][2 * 64];
    for (size_t k = 0; k < P.n; k++) {
        double r[2] = {P.x[2 * k] - c[0], P.x[2 * k + 1] - c[1]};
        V[0][2 * k] = 0.7, V[0][2 * k + 1] = -1.3;     /* translation */
        V[1][2 * k] = -P.x[2 * k + 1], V[1][2 * k + 1] = P.x[2 * k];   /* rotation about the origin */
        V[2][2 * k] = r[0], V[2][2 * k + 1] = r[1];    /* expansion */
    }
    double *Gv = malloc(F.n * sizeof *Gv);
    const double expect[3] = {0.0, 0.0, -2.0 * poly_area(&P)};
    for (int m = 0; m < 3; m++) {
        seam_csr_mul(F.G, V[m], Gv);
        double s = 0.0, s_abs = 0.0;
        for (size_t r = 0; r < F.n; r++) {
            s += Gv[r];
            s_abs += fabs(Gv[r]);
        }
        assert_true(s_abs > 0.05);   /* cells see flux; only the sum vanishes */
        assert_float_equal(s, expect[m], 1e-13);
    }
    /* Pressure pushes the body: G^T p for p = 1 in every active cell is the net force of a uniform pressure: 0. */
    double *ones = malloc(F.n * sizeof *ones), f[2 * 64];
    for (size_t r = 0; r < F.n; r++)
        ones[r] = 1.0;
    seam_csr_mul_t(F.G, ones, f);
    double fx = 0.0, fy = 0.0;
    for (size_t k = 0; k < P.n; k++)
        fx += f[2 * k], fy += f[2 * k + 1];
    assert_float_equal(fx, 0.0, 1e-14);
    assert_float_equal(fy, 0.0, 1e-14);
    free(ones);
    free(Gv);
    free(u);
    free(v);
    free(phi);
    mono_fluid_free(&F);
    mono_cut_free(&cut);
}

/* A pocket of liquid whose only open face is a domain wall has nothing to
 * exchange: it is not a pressure unknown (its row of B would be empty). */
static void test_wall_pocket(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid2(8, 8, 0.125, BC_WALL);
    poly P;   /* everything, less a notch from the left, inside cell (0, 3) and across its wall face */
    double y0 = 3 * 0.125 + 0.03, y1 = 3 * 0.125 + 0.09;
    double v[8][2] = {{-0.5, -0.5}, {1.5, -0.5}, {1.5, 1.5}, {-0.5, 1.5},
                      {-0.5, y1}, {0.06, y1}, {0.06, y0}, {-0.5, y0}};
    P.n = 8;
    memcpy(P.x, v, sizeof v);
    poly_close(&P);
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &P.b, &th.host), SEAM_OK);
    assert_float_equal(cut.open[0][mac_fi(&g, 0, 0, 3, 0)], 0.48, 1e-12);
    assert_float_equal(cut.open[1][mac_fi(&g, 1, 0, 4, 0)], 0.0, 0.0);
    size_t nc = mac_ncell(&g);
    double *phi = malloc(nc * sizeof *phi);
    for (size_t c = 0; c < nc; c++)
        phi[c] = -1.0;
    double *u = calloc(mac_nf(&g, 0), sizeof *u), *w = calloc(mac_nf(&g, 1), sizeof *w);
    double *const vel[3] = {u, w, NULL};
    mono_fluid F;
    assert_int_equal(mono_fluid_build(&F, &g, &cut, &P.b, phi, vel, NULL, 1.0, 0.01, &th.host), SEAM_OK);
    assert_int_equal(F.n, 0);
    assert_int_equal(F.index[mac_c(&g, 0, 3, 0)], -1);
    free(u);
    free(w);
    free(phi);
    mono_fluid_free(&F);
    mono_cut_free(&cut);
}

/* Sec. 4.6's extrapolation beside an inclined wall: a uniform velocity U in
 * the liquid reaches every face within the layers; those inside the solid
 * lose their normal component (U - (U.n) n), those in the air keep U, and
 * faces beyond the layers get 0. */
static void test_extrapolate(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid2(16, 16, 1.0 / 16, BC_OPEN);
    double t30 = tan(M_PI / 6), y0 = 0.213;
    poly P;
    double v4[4][2] = {{-1.0, -2.0}, {2.0, -2.0}, {2.0, y0 + 2.0 * t30}, {-1.0, y0 - t30}};
    P.n = 4;
    memcpy(P.x, v4, sizeof v4);
    poly_close(&P);
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &P.b, &th.host), SEAM_OK);
    size_t nc = mac_ncell(&g);
    double *phi = malloc(nc * sizeof *phi);
    for (int j = 0; j < g.ny; j++)
        for (int i = 0; i < g.nx; i++)
            phi[mac_c(&g, i, j, 0)] = (j + 0.5) * g.dx - 0.6;
    const double U[2] = {1.0, 0.4}, n[2] = {sin(M_PI / 6), -cos(M_PI / 6)};
    const double Ut[2] = {U[0] - (U[0] * n[0] + U[1] * n[1]) * n[0], U[1] - (U[0] * n[0] + U[1] * n[1]) * n[1]};
    for (int layers = 1; layers <= 40; layers += 39) {
        double *u[2];
        uint8_t *valid[2];
        for (int d = 0; d < 2; d++) {
            u[d] = malloc(mac_nf(&g, d) * sizeof *u[d]);
            valid[d] = malloc(mac_nf(&g, d));
            for (int j = 0; j < g.ny + (d == 1); j++)
                for (int i = 0; i < g.nx + (d == 0); i++) {
                    size_t f = mac_fi(&g, d, i, j, 0);
                    int lo = d == 0 ? i > 0 && phi[mac_c(&g, i - 1, j, 0)] < 0 : j > 0 && phi[mac_c(&g, i, j - 1, 0)] < 0;
                    int hi = d == 0 ? i < g.nx && phi[mac_c(&g, i, j, 0)] < 0 : j < g.ny && phi[mac_c(&g, i, j, 0)] < 0;
                    valid[d][f] = cut.open[d][f] > 0.0 && (lo || hi);
                    u[d][f] = valid[d][f] ? U[d] : 1e3;
                }
        }
        double *const vel[3] = {u[0], u[1], NULL};
        mono_extrapolate(&g, &cut, phi, layers, vel);
        int n_in = 0, n_air = 0, n_zero = 0;
        for (int d = 0; d < 2; d++)
            for (size_t f = 0; f < mac_nf(&g, d); f++) {
                if (valid[d][f])
                    assert_float_equal(u[d][f], U[d], 0.0);
                else if (layers == 40 && cut.open[d][f] == 0.0) {
                    assert_float_equal(u[d][f], Ut[d], 1e-14);
                    n_in++;
                } else if (layers == 40) {
                    assert_float_equal(u[d][f], U[d], 1e-14);
                    n_air++;
                } else
                    n_zero += u[d][f] == 0.0;
            }
        if (layers == 40)
            assert_true(n_in > 50 && n_air > 50);
        else
            assert_true(n_zero > 50);   /* one layer does not reach the far corners */
        for (int d = 0; d < 2; d++) {
            free(u[d]);
            free(valid[d]);
        }
    }
    free(phi);
    mono_cut_free(&cut);
}

/* Outlines the cut cells cannot use are refused with the reason. */
static void test_refusals(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    mac_grid g = grid2(8, 8, 0.125, BC_WALL);
    poly P;
    const double c[2] = {0.5, 0.5};
    poly_rect(&P, c, 0.2, 0.2, 0.3);
    for (int k = 0; k < 4; k++) {   /* clockwise */
        int32_t t = P.seg[2 * k];
        P.seg[2 * k] = P.seg[2 * k + 1];
        P.seg[2 * k + 1] = t;
    }
    mono_cut cut;
    assert_int_equal(mono_cut_build(&cut, &g, &P.b, &th.host), SEAM_ERROR);
    assert_true(test_host_saw(&th, "solid on its left"));
    poly_rect(&P, c, 0.2, 0.2, 0.3);
    P.b.n_elems = 3;   /* open */
    assert_int_equal(mono_cut_build(&cut, &g, &P.b, &th.host), SEAM_ERROR);
    assert_true(test_host_saw(&th, "not closed at node"));
    poly_rect(&P, c, 0.2, 0.2, 0.3);
    P.x[5] = NAN;
    assert_int_equal(mono_cut_build(&cut, &g, &P.b, &th.host), SEAM_ERROR);
    assert_true(test_host_saw(&th, "boundary node 2 has a non-finite position (component 1"));
    mac_grid g3 = {3, 4, 4, 4, 0.25, {0, 0, 0}, {BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL}};
    assert_int_equal(mono_cut_build(&cut, &g3, &P.b, &th.host), SEAM_ERROR);
    assert_true(test_host_saw(&th, "boundary is 2D but the grid is 3D"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_patches_close),
        cmocka_unit_test(test_rect_on_grid_lines),
        cmocka_unit_test(test_rectangle_fractions),
        cmocka_unit_test(test_volume_from_fractions),
        cmocka_unit_test(test_hydrostatic),
        cmocka_unit_test(test_piercing_body),
        cmocka_unit_test(test_free_slip),
        cmocka_unit_test(test_moving_body_flux),
        cmocka_unit_test(test_wall_pocket),
        cmocka_unit_test(test_extrapolate),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
