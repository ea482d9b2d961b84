/* fluid_mac's grid routines on their own: velocity advection against the
 * exact transport of a shear wave by a uniform flow (2D and 3D), and the 3D
 * projection (7-point stencil, MIC(0) PCG) on a rough velocity field, and
 * BFECC against plain semi-Lagrangian on a translated smooth bump, and
 * liquid particles stopped by thin shells; the multigrid V-cycle is a
 * symmetric preconditioner. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "mac.h"

/* u = U everywhere carries v(x) = sin(2 pi x) unchanged: v(x, t) = sin(2 pi (x - U t)).
 * Returns the largest error of v away from the inflow side after `steps`. */
static double shear_wave_error(int maccormack, int steps, double *u_err, double *v_max)
{
    mac_grid g = {2, 64, 8, 1, 1.0 / 64, {0.0, 0.0, 0.0}, {BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL}};
    size_t nu = mac_nf(&g, 0), nv = mac_nf(&g, 1);
    double *u = malloc(nu * sizeof *u), *v = malloc(nv * sizeof *v);
    double *u1 = malloc(nu * sizeof *u1), *v1 = malloc(nv * sizeof *v1);
    double U = 0.5, dt = 0.4 * g.dx / U;
    for (size_t f = 0; f < nu; f++)
        u[f] = U;
    for (int j = 0; j <= g.ny; j++)
        for (int i = 0; i < g.nx; i++)
            v[mac_fi(&g, 1, i, j, 0)] = sin(2.0 * M_PI * (i + 0.5) * g.dx);
    mac_work w;
    mac_work_init(&w, &g);
    for (int n = 0; n < steps; n++) {
        double *const vel0[3] = {u, v, NULL}, *const vel1[3] = {u1, v1, NULL};
        if (maccormack)
            mac_advect_maccormack(&g, vel0, dt, vel1, &w);
        else
            mac_advect(&g, vel0, dt, vel1);
        memcpy(u, u1, nu * sizeof *u);
        memcpy(v, v1, nv * sizeof *v);
    }
    double t = steps * dt, err = 0.0;
    *u_err = 0.0;
    *v_max = 0.0;
    for (size_t f = 0; f < nv; f++)
        *v_max = fmax(*v_max, fabs(v[f]));
    for (size_t f = 0; f < nu; f++)
        *u_err = fmax(*u_err, fabs(u[f] - U));
    for (int j = 0; j <= g.ny; j++)
        for (int i = 0; i < g.nx; i++) {
            double x = (i + 0.5) * g.dx;
            if (x < U * t + 3 * g.dx)   /* the wave entering from the wall side is not known */
                continue;
            err = fmax(err, fabs(v[mac_fi(&g, 1, i, j, 0)] - sin(2.0 * M_PI * (x - U * t))));
        }
    free(u);
    free(v);
    free(u1);
    free(v1);
    mac_work_free(&w);
    return err;
}

static void test_advection_shear_wave(void **state)
{
    (void)state;
    double ue_sl, ue_mc, vm_sl, vm_mc;
    double e_sl = shear_wave_error(0, 40, &ue_sl, &vm_sl), e_mc = shear_wave_error(1, 40, &ue_mc, &vm_mc);
    fprintf(stderr, "shear wave after 40 steps: semi-Lagrangian error %.3g, MacCormack %.3g\n", e_sl, e_mc);
    assert_float_equal(ue_sl, 0.0, 1e-14);   /* a uniform field stays exact */
    assert_float_equal(ue_mc, 0.0, 1e-14);
    /* Linear interpolation damps the wave by about 1 - a(1-a)(k dx)^2/2 per step (a = 0.4). */
    assert_true(e_sl < 0.06 && e_sl > 0.01);
    /* The correction is second order; its clamp (no new extrema) clips the crests,
     * which leaves about a third of the first-order error here. */
    assert_true(e_mc < 0.5 * e_sl);
    assert_true(vm_mc <= 1.0 && vm_sl <= 1.0);
}

/* 3D: w = W along z carries u(z) = sin(2 pi z) unchanged; trilinear samples and
 * the 3D backtrace give the same first-order damping as in 2D, and a uniform w stays exact. */
static void test_advection_shear_wave_3d(void **state)
{
    (void)state;
    mac_grid g = {3, 4, 4, 32, 1.0 / 32, {0.0, 0.0, 0.0}, {BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL}};
    double *vel[3], *out[3];
    for (int a = 0; a < 3; a++) {
        vel[a] = calloc(mac_nf(&g, a), sizeof(double));
        out[a] = calloc(mac_nf(&g, a), sizeof(double));
    }
    double W = 0.5, dt = 0.4 * g.dx / W;
    for (size_t f = 0; f < mac_nf(&g, 2); f++)
        vel[2][f] = W;
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i <= g.nx; i++)
                vel[0][mac_fi(&g, 0, i, j, k)] = sin(2.0 * M_PI * (k + 0.5) * g.dx);
    int steps = 20;
    for (int n = 0; n < steps; n++) {
        mac_advect(&g, vel, dt, out);
        for (int a = 0; a < 3; a++)
            memcpy(vel[a], out[a], mac_nf(&g, a) * sizeof(double));
    }
    double t = steps * dt, err = 0.0, w_err = 0.0, v_max = 0.0;
    for (size_t f = 0; f < mac_nf(&g, 2); f++)
        w_err = fmax(w_err, fabs(vel[2][f] - W));
    for (size_t f = 0; f < mac_nf(&g, 1); f++)
        v_max = fmax(v_max, fabs(vel[1][f]));
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i <= g.nx; i++) {
                double z = (k + 0.5) * g.dx;
                if (z < W * t + 3 * g.dx)
                    continue;
                err = fmax(err, fabs(vel[0][mac_fi(&g, 0, i, j, k)] - sin(2.0 * M_PI * (z - W * t))));
            }
    /* Linear interpolation damps by 1 - a(1-a)(k dx)^2/2 per step (a = 0.4): the expected error. */
    double kdx = 2.0 * M_PI * g.dx, damp = 1.0 - pow(1.0 - 0.4 * 0.6 * kdx * kdx / 2.0, steps);
    fprintf(stderr, "3D shear wave after %d steps: semi-Lagrangian error %.3g, predicted damping %.3g\n", steps,
            err, damp);
    assert_float_equal(w_err, 0.0, 1e-14);
    assert_float_equal(v_max, 0.0, 0.0);
    assert_float_equal(err, damp, 0.1 * damp);
    for (int a = 0; a < 3; a++) {
        free(vel[a]);
        free(out[a]);
    }
}

/* A rough velocity field in a 3D box with an open top: after the projection
 * the divergence of every cell is at the PCG tolerance, walls stay shut, and
 * the (default, multigrid) preconditioner keeps the iteration count well below n^(1/3)-scaled CG. */
static void test_projection_3d(void **state)
{
    (void)state;
    mac_grid g = {3, 12, 10, 8, 0.1, {0.0, 0.0, 0.0}, {BC_WALL, BC_WALL, BC_WALL, BC_OPEN, BC_WALL, BC_WALL}};
    size_t nc = mac_ncell(&g);
    mac_geometry geo = {0};
    assert_int_equal(mac_geometry_build(&geo, &g, NULL, NULL, 0.2, NULL, NULL, NULL), SEAM_OK);
    assert_int_equal(geo.n_regions, 1);
    assert_int_equal(geo.region_open[0], 1);
    double *vel[3], *p = calloc(nc, sizeof *p);
    srand(7);
    double div0 = 0.0;
    for (int a = 0; a < 3; a++) {
        vel[a] = malloc(mac_nf(&g, a) * sizeof(double));
        for (size_t f = 0; f < mac_nf(&g, a); f++)
            vel[a][f] = 2.0 * rand() / RAND_MAX - 1.0;
    }
    /* Walls: zero normal velocity on the five closed sides. */
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++) {
            vel[0][mac_fi(&g, 0, 0, j, k)] = vel[0][mac_fi(&g, 0, g.nx, j, k)] = 0.0;
        }
    for (int k = 0; k < g.nz; k++)
        for (int i = 0; i < g.nx; i++)
            vel[1][mac_fi(&g, 1, i, 0, k)] = 0.0;
    for (int j = 0; j < g.ny; j++)
        for (int i = 0; i < g.nx; i++)
            vel[2][mac_fi(&g, 2, i, j, 0)] = vel[2][mac_fi(&g, 2, i, j, g.nz)] = 0.0;
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++)
                div0 = fmax(div0, fabs(mac_divergence(&g, vel, i, j, k)));
    mac_projection P = {0};
    double tol = 1e-10;
    assert_int_equal(mac_project(&P, &g, &geo, NULL, 1000.0, 0.01, tol, 1000, vel, p, NULL), SEAM_OK);
    double div = 0.0;
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++)
                div = fmax(div, fabs(mac_divergence(&g, vel, i, j, k)));
    fprintf(stderr, "3D projection: max |div| %.3g -> %.3g 1/s in %d PCG iterations\n", div0, div,
            P.iterations);
    assert_true(div0 > 1.0);
    assert_true(div < 1e3 * tol * div0);
    assert_true(P.iterations > 0 && P.iterations < 60);
    assert_float_equal(vel[0][mac_fi(&g, 0, 0, 3, 3)], 0.0, 0.0);
    assert_float_equal(vel[2][mac_fi(&g, 2, 3, 3, g.nz)], 0.0, 0.0);
    mac_projection_free(&P);
    mac_geometry_free(&geo);
    for (int a = 0; a < 3; a++)
        free(vel[a]);
    free(p);
}

/* Walls all round, a free surface at 70% height, and a hollow solid square
 * (ring) whose inside is an enclosed pocket of fluid: the multigrid and the
 * MIC(0) preconditioned solves give the same pressure to the solver
 * tolerance (the pocket's mean fixed to zero by both), multigrid in fewer
 * iterations. With smoke set, a smoke tank instead: every cell fluid (an
 * unknown), walls and an open top, the fused path where level 0 works on
 * PCG's own vectors. */
static void projection_with(mac_precond pc, int dim, int n, int smoke, double *p_out, int *iterations)
{
    mac_grid g = {dim, n, n, dim == 3 ? n : 1, 1.0 / n, {0.0, 0.0, 0.0},
                  {BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL}};
    if (smoke)
        g.bc[dim == 3 ? 5 : 3] = BC_OPEN;
    size_t nc = mac_ncell(&g);
    mac_geometry from = {0}, geo = {0};
    assert_int_equal(mac_geometry_build(&from, &g, NULL, NULL, 0.2, NULL, NULL, NULL), SEAM_OK);
    double *phi = malloc(nc * sizeof *phi);
    int lo = n / 4, hi = n / 4 + n / 3;   /* the ring's outer cells along x and y */
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                size_t c = mac_c(&g, i, j, k);
                phi[c] = (j + 0.5) * g.dx - 0.7;
                int in_x = i >= lo && i <= hi, in_y = j >= lo - n / 8 && j <= hi - n / 8;
                int in_z = dim == 2 || (k >= lo && k <= hi);
                int edge = i == lo || i == hi || j == lo - n / 8 || j == hi - n / 8 || (dim == 3 && (k == lo || k == hi));
                from.solid[c] = !smoke && in_x && in_y && in_z && edge;
                if (smoke)
                    phi[c] = -1.0;   /* liquid everywhere */
            }
    assert_int_equal(mac_geometry_liquid(&geo, &g, &from, phi), SEAM_OK);
    assert_true(smoke ? geo.n_regions == 1 : geo.n_regions >= 2);
    double *vel[3] = {NULL, NULL, NULL};
    srand(11);
    for (int a = 0; a < dim; a++) {
        vel[a] = malloc(mac_nf(&g, a) * sizeof(double));
        for (size_t f = 0; f < mac_nf(&g, a); f++)
            vel[a][f] = mac_face(&g, &geo, a, (int)(f % (size_t)(g.nx + (a == 0))),
                                 (int)(f / (size_t)(g.nx + (a == 0)) % (size_t)(g.ny + (a == 1))),
                                 (int)(f / (size_t)(g.nx + (a == 0)) / (size_t)(g.ny + (a == 1))), NULL) == FACE_FIXED
                            ? 0.0
                            : 2.0 * rand() / RAND_MAX - 1.0;
    }
    mac_projection P = {0};
    P.precond = pc;
    memset(p_out, 0, nc * sizeof *p_out);
    assert_int_equal(mac_project(&P, &g, &geo, NULL, 1000.0, 0.01, 1e-10, 1000, vel, p_out, NULL), SEAM_OK);
    assert_true(!smoke || P.n == nc);
    *iterations = P.iterations;
    double div = 0.0;
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++)
                if (mac_fluid(&geo, mac_c(&g, i, j, k)))
                    div = fmax(div, fabs(mac_divergence(&g, vel, i, j, k)));
    assert_true(div < 1e-6);
    mac_projection_free(&P);
    mac_geometry_free(&geo);
    mac_geometry_free(&from);
    for (int a = 0; a < dim; a++)
        free(vel[a]);
    free(phi);
}

/* A 2D tank with an open top and a solid block whose lower left cell is
 * (bi, bj): every other cell liquid. */
static void block_geometry(const mac_grid *g, int bi, int bj, mac_geometry *geo)
{
    size_t nc = mac_ncell(g);
    mac_geometry from = {0};
    assert_int_equal(mac_geometry_build(&from, g, NULL, NULL, 0.2, NULL, NULL, NULL), SEAM_OK);
    double *phi = malloc(nc * sizeof *phi);
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            size_t c = mac_c(g, i, j, 0);
            phi[c] = -1.0;
            from.solid[c] = i >= bi && i < bi + 5 && j >= bj && j < bj + 4;
        }
    *geo = (mac_geometry){0};
    assert_int_equal(mac_geometry_liquid(geo, g, &from, phi), SEAM_OK);
    mac_geometry_free(&from);
    free(phi);
}

/* Random velocities (seed) with the walls' normal components zero; the
 * pressure of their projection into p (zeroed first), through P. */
static void project_random(mac_projection *P, const mac_grid *g, const mac_geometry *geo, unsigned seed, double *p)
{
    double *vel[3] = {NULL, NULL, NULL};
    srand(seed);
    for (int a = 0; a < g->dim; a++) {
        vel[a] = malloc(mac_nf(g, a) * sizeof(double));
        for (size_t f = 0; f < mac_nf(g, a); f++) {
            int i = (int)(f % (size_t)(g->nx + (a == 0))), j = (int)(f / (size_t)(g->nx + (a == 0)));
            vel[a][f] = mac_face(g, geo, a, i, j, 0, NULL) == FACE_FIXED ? 0.0 : 2.0 * rand() / RAND_MAX - 1.0;
        }
    }
    memset(p, 0, mac_ncell(g) * sizeof *p);
    assert_int_equal(mac_project(P, g, geo, NULL, 1000.0, 0.01, 1e-10, 1000, vel, p, NULL), SEAM_OK);
    for (int a = 0; a < g->dim; a++)
        free(vel[a]);
}

/* The preconditioner is built once per operator (solve_poisson): a second
 * projection over the same geometry reuses it, and a block moved by one
 * cell builds it again; every pressure is bit for bit the one a fresh
 * projection gives. Multigrid and MIC(0). */
static void test_preconditioner_kept_per_operator(void **state)
{
    (void)state;
    mac_grid g = {2, 40, 32, 1, 1.0 / 40, {0.0, 0.0, 0.0}, {BC_WALL, BC_WALL, BC_WALL, BC_OPEN, BC_WALL, BC_WALL}};
    size_t nc = mac_ncell(&g);
    double *p = malloc(nc * sizeof *p), *fresh = malloc(nc * sizeof *fresh);
    for (int pc = 0; pc < 2; pc++) {
        mac_precond precond = pc ? MAC_PRECOND_MIC0 : MAC_PRECOND_MG;
        mac_geometry a, b;
        block_geometry(&g, 10, 8, &a);
        block_geometry(&g, 11, 8, &b);
        mac_projection P = {0};
        P.precond = precond;
        const mac_geometry *order[4] = {&a, &a, &b, &b};
        const long builds[4] = {1, 1, 2, 2};
        for (int k = 0; k < 4; k++) {
            project_random(&P, &g, order[k], 100u + (unsigned)k, p);
            assert_int_equal(P.builds, builds[k]);
            mac_projection Q = {0};
            Q.precond = precond;
            project_random(&Q, &g, order[k], 100u + (unsigned)k, fresh);
            assert_int_equal(Q.builds, 1);
            assert_int_equal(P.iterations, Q.iterations);
            assert_memory_equal(p, fresh, nc * sizeof *p);
            mac_projection_free(&Q);
        }
        mac_projection_free(&P);
        mac_geometry_free(&a);
        mac_geometry_free(&b);
    }
    free(p);
    free(fresh);
}

/* A 2D tank (walls, open top unless closed) with a solid block and a solid
 * ring round a pocket of fluid (a region without an open side), air above
 * y = air_y (none when air_y >= 1); phi (per cell) is the level set geo
 * borrows. */
static void pocket_geometry(const mac_grid *g, int closed, double air_y, double *phi, mac_geometry *geo)
{
    mac_geometry from = {0};
    assert_int_equal(mac_geometry_build(&from, g, NULL, NULL, 0.2, NULL, NULL, NULL), SEAM_OK);
    int i0 = g->nx / 2, i1 = i0 + g->nx / 4, j0 = g->ny / 4, j1 = j0 + g->ny / 3;
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            size_t c = mac_c(g, i, j, 0);
            phi[c] = air_y < 1.0 ? (j + 0.5) * g->dx - air_y : -1.0;
            int block = i >= g->nx / 8 && i < g->nx / 4 && j >= g->ny / 3 && j < g->ny / 2;
            int ring = i >= i0 && i <= i1 && j >= j0 && j <= j1 && (i == i0 || i == i1 || j == j0 || j == j1);
            from.solid[c] = block || ring;
        }
    *geo = (mac_geometry){0};
    assert_int_equal(mac_geometry_liquid(geo, g, &from, phi), SEAM_OK);
    assert_int_equal(geo->n_regions, 2);
    assert_int_equal(geo->n_closed, closed ? 2 : 1);
    mac_geometry_free(&from);
}

/* Multigrid PCG over all cells (zero off the unknowns: level 0 and PCG on
 * the same vectors) gives the pressure of PCG over the unknowns to solver
 * tolerance, zero in the solids; with an obstacle and an enclosed pocket,
 * in an open and a closed tank and under a free surface (air cells), and
 * the same bits with 1 and 3 threads (20480 cells: threaded passes). */
static void test_cell_space_matches_unknowns(void **state)
{
    (void)state;
    for (int v = 0; v < 3; v++) {
        mac_grid g = {2, 160, 128, 1, 1.0 / 160, {0.0, 0.0, 0.0},
                      {BC_WALL, BC_WALL, BC_WALL, v == 1 ? BC_WALL : BC_OPEN, BC_WALL, BC_WALL}};
        size_t nc = mac_ncell(&g);
        mac_geometry geo;
        double *phi = malloc(nc * sizeof *phi);
        pocket_geometry(&g, v == 1, v == 2 ? 0.7 : 2.0, phi, &geo);
        double *pc = malloc(nc * sizeof *pc), *pu = malloc(nc * sizeof *pu), dp = 0.0, pmax = 0.0;
        mac_projection C = {0}, U = {0};
        C.space = MAC_PCG_CELLS;
        U.space = MAC_PCG_UNKNOWNS;
        project_random(&U, &g, &geo, 7u, pu);
        project_random(&C, &g, &geo, 7u, pc);
        assert_true(C.in_cells && !U.in_cells);
        assert_true(C.n < nc);
        for (size_t c = 0; c < nc; c++) {
            if (!mac_fluid(&geo, c))
                assert_true(pc[c] == 0.0 && pu[c] == 0.0);
            dp = fmax(dp, fabs(pc[c] - pu[c]));
            pmax = fmax(pmax, fabs(pu[c]));
        }
        fprintf(stderr, "variant %d: PCG iterations over cells %d, over unknowns %d; max |dp| %.3g of %.3g Pa\n", v,
                C.iterations, U.iterations, dp, pmax);
        assert_true(pmax > 0.0);
        assert_true(dp <= 1e-7 * pmax);
        assert_true(abs(C.iterations - U.iterations) <= 1);
#ifdef _OPENMP
        int before = omp_get_max_threads();
        double *p3 = malloc(nc * sizeof *p3);
        mac_projection T = {0};
        T.space = MAC_PCG_CELLS;
        omp_set_num_threads(3);
        project_random(&T, &g, &geo, 7u, p3);
        omp_set_num_threads(before);
        assert_int_equal(T.iterations, C.iterations);
        assert_memory_equal(p3, pc, nc * sizeof *p3);
        mac_projection_free(&T);
        free(p3);
#endif
        mac_projection_free(&C);
        mac_projection_free(&U);
        mac_geometry_free(&geo);
        free(phi);
        free(pc);
        free(pu);
    }
}

static void test_multigrid_matches_mic0(void **state)
{
    (void)state;
    for (int dim = 2; dim <= 3; dim++) {
        size_t nc = dim == 3 ? 16 * 16 * 16 : 192 * 192;
        double *p_mg = malloc(nc * sizeof *p_mg), *p_mic = malloc(nc * sizeof *p_mic), dp = 0.0, pmax = 0.0;
        int it_mg, it_mic;
        projection_with(MAC_PRECOND_MG, dim, dim == 3 ? 16 : 192, 0, p_mg, &it_mg);   /* 2D: six multigrid levels */
        projection_with(MAC_PRECOND_MIC0, dim, dim == 3 ? 16 : 192, 0, p_mic, &it_mic);
        for (size_t c = 0; c < nc; c++) {
            dp = fmax(dp, fabs(p_mg[c] - p_mic[c]));
            pmax = fmax(pmax, fabs(p_mic[c]));
        }
        fprintf(stderr, "%dD: PCG iterations multigrid %d, MIC(0) %d; max |p_mg - p_mic| %.3g of %.3g Pa\n", dim,
                it_mg, it_mic, dp, pmax);
        assert_true(pmax > 0.0);
        assert_true(dp <= 1e-7 * pmax);
        assert_true(it_mg < it_mic);
        free(p_mg);
        free(p_mic);
    }
}

/* The multigrid's OpenMP blocks (pipelined sweeps, each thread's block of
 * slabs, the block edges finished after a barrier; the restriction by
 * blocks of coarse slabs) give the one-thread solve bit for bit: the same
 * iterations and pressure with 1, 2 and 4 threads, on grids large enough to
 * run threaded (192^2, 32^3), free surface, walls and an enclosed pocket,
 * and a smoke tank (every cell an unknown: the fused A p with p . Ap). */
static void test_multigrid_threads(void **state)
{
    (void)state;
#ifdef _OPENMP
    int before = omp_get_max_threads();
    for (int run = 0; run < 4; run++) {
        int dim = 2 + run % 2, smoke = run / 2, n = dim == 3 ? 32 : 192;
        size_t nc = dim == 3 ? (size_t)n * n * n : (size_t)n * n;
        double *p1 = malloc(nc * sizeof *p1), *p2 = malloc(nc * sizeof *p2);
        int it1, it2;
        omp_set_num_threads(1);
        projection_with(MAC_PRECOND_MG, dim, n, smoke, p1, &it1);
        double pmax = 0.0;
        for (size_t c = 0; c < nc; c++)
            pmax = fmax(pmax, fabs(p1[c]));
        assert_true(pmax > 0.0);
        /* 2 threads: two blocks; 4: more than two, which takes the blocks' inner edges in parallel too */
        for (int threads = 2; threads <= 4; threads += 2) {
            omp_set_num_threads(threads);
            projection_with(MAC_PRECOND_MG, dim, n, smoke, p2, &it2);
            fprintf(stderr, "%dD %d^%d%s: multigrid PCG %d iterations with 1 thread, %d with %d\n", dim, n, dim,
                    smoke ? " smoke" : "", it1, it2, threads);
            assert_int_equal(it1, it2);
            assert_memory_equal(p1, p2, nc * sizeof *p1);
        }
        free(p1);
        free(p2);
    }
    omp_set_num_threads(before);
#else
    skip();
#endif
}

/* The V-cycle as PCG uses it is a symmetric operator M (restriction
 * (4 / 2^d) P^T against the prolongation P, red-black sweeps before the
 * coarse correction and black-red after it): r1 . M r2 = r2 . M r1 to
 * rounding, and r . M r > 0. On odd and even sizes (rows with and without
 * a last end cell), walls and open sides, an obstacle inside (rows next to
 * solid coarse cells, cell by cell) and Dirichlet (air) cells, so every
 * path of the transfers runs: a fast row's, an edge row's, the end cells'
 * lists of their row classes and the general one; and every cell an unknown
 * (level 0 on PCG's vectors). */
/* The Poisson operator of a box (walls, one open side unless open_side < 0),
 * an obstacle inside and air_rows rows of air at the top, and its multigrid
 * hierarchy: -1 between unknowns, the diagonal counting them, 2 for an air
 * neighbour or an open side (p = 0 half a cell out), nothing for a wall or a
 * solid. */
typedef struct mg_case {
    mac_grid g;
    mac_geometry geo;
    uint8_t *air;
    int32_t *index, *cell;
    size_t nu;
    double *Adiag, *Aplus[3];
    mac_mg *m;
} mg_case;

static void mg_case_build(mg_case *t, int dim, const int n[3], int open_side, int obstacle, int air_rows)
{
    mac_grid g = {dim, n[0], n[1], dim == 3 ? n[2] : 1, 1.0 / n[0], {0.0, 0.0, 0.0},
                  {BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL}};
    if (open_side >= 0)
        g.bc[open_side] = BC_OPEN;
    t->g = g;
    size_t nc = mac_ncell(&g), nu = 0;
    t->geo = (mac_geometry){0};
    t->geo.solid = calloc(nc, 1);
    t->air = calloc(nc, 1);
    t->index = malloc(nc * sizeof *t->index);
    t->cell = malloc(nc * sizeof *t->cell);
    t->Adiag = calloc(nc, sizeof *t->Adiag);
    for (int a = 0; a < 3; a++)
        t->Aplus[a] = calloc(nc, sizeof(double));
    uint8_t *solid = t->geo.solid, *air = t->air;
    int32_t *index = t->index;
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                size_t c = mac_c(&g, i, j, k);
                /* obstacle 1: a box; 2 and up: a quarter of the cells solid, scattered by a hash of c and obstacle */
                uint32_t h = (uint32_t)c * 2654435761u ^ (uint32_t)obstacle * 40503u;
                h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
                solid[c] = obstacle == 1 ? i >= g.nx / 3 && i < g.nx / 3 + 3 && j >= g.ny / 3 && j < g.ny / 3 + 4 &&
                                               (dim == 2 || (k >= 2 && k < 5))
                                         : obstacle > 1 && h % 4 == 0;
                air[c] = !solid[c] && j >= g.ny - air_rows;
                index[c] = solid[c] || air[c] ? -1 : (int32_t)nu;
                if (index[c] >= 0)
                    t->cell[nu++] = (int32_t)c;
            }
    t->nu = nu;
    for (size_t c = 0; c < nc; c++) {
        if (index[c] < 0)
            continue;
        int ijk[3] = {(int)(c % (size_t)g.nx), (int)(c / (size_t)g.nx % (size_t)g.ny),
                      (int)(c / (size_t)g.nx / (size_t)g.ny)};
        for (int a = 0; a < dim; a++)
            for (int up = 0; up < 2; up++) {
                int m = ijk[a] + (up ? 1 : -1), na = a == 0 ? g.nx : a == 1 ? g.ny : g.nz;
                if (m < 0 || m >= na) {
                    t->Adiag[c] += g.bc[2 * a + up] == BC_OPEN ? 2.0 : 0.0;
                    continue;
                }
                size_t q = up ? c + mac_stride(&g, a) : c - mac_stride(&g, a);
                t->Adiag[c] += index[q] >= 0 ? 1.0 : air[q] ? 2.0 : 0.0;
                if (up && index[q] >= 0)
                    t->Aplus[a][c] = -1.0;
            }
    }
    t->m = mac_mg_build(NULL, &t->g, &t->geo, t->index, t->Adiag, t->Aplus);
    assert_non_null(t->m);
}

static void mg_case_free(mg_case *t)
{
    mac_mg_free(&t->m);
    free(t->geo.solid), free(t->air), free(t->index), free(t->cell), free(t->Adiag);
    for (int a = 0; a < 3; a++)
        free(t->Aplus[a]);
}

/* Random r (seed), in [-1, 1] per unknown. */
static double *random_unknowns(size_t nu, unsigned seed)
{
    double *r = malloc(nu * sizeof *r);
    srand(seed);
    for (size_t u = 0; u < nu; u++)
        r[u] = 2.0 * rand() / RAND_MAX - 1.0;
    return r;
}

static double mg_symmetry_error(int dim, const int n[3], int open_side, int obstacle, int air_rows, double *rmr)
{
    mg_case t;
    mg_case_build(&t, dim, n, open_side, obstacle, air_rows);
    size_t nu = t.nu;
    mac_mg *m = t.m;
    int32_t *cell = t.cell;
    double *r1 = malloc(nu * sizeof *r1), *r2 = malloc(nu * sizeof *r2), *z = malloc(nu * sizeof *z);
    srand(5);
    for (size_t u = 0; u < nu; u++) {
        r1[u] = 2.0 * rand() / RAND_MAX - 1.0;
        r2[u] = 2.0 * rand() / RAND_MAX - 1.0;
    }
    double r1z2 = 0.0, r2z1 = 0.0, z1 = 0.0, z2 = 0.0, r2r2 = 0.0, r1r1 = 0.0;
    double rz = mac_mg_apply(m, nu, cell, r2, z);
    for (size_t u = 0; u < nu; u++) {
        r1z2 += r1[u] * z[u];
        z2 += z[u] * z[u];
        r2r2 += r2[u] * r2[u];
    }
    *rmr = rz;
    mac_mg_apply(m, nu, cell, r1, z);
    for (size_t u = 0; u < nu; u++) {
        r2z1 += r2[u] * z[u];
        z1 += z[u] * z[u];
        r1r1 += r1[u] * r1[u];
    }
    free(r1), free(r2), free(z);
    mg_case_free(&t);
    return fabs(r1z2 - r2z1) / fmax(sqrt(r1r1 * z2), sqrt(r2r2 * z1));
}

static void test_multigrid_symmetric(void **state)
{
    (void)state;
    const struct {
        int dim, n[3], open_side, obstacle, air_rows;
    } cases[] = {{2, {37, 29, 1}, 1, 1, 0},  {2, {40, 34, 1}, 3, 0, 5}, {2, {48, 48, 1}, 3, 0, 0},
                 {3, {19, 23, 17}, 3, 1, 3}, {3, {24, 20, 18}, 0, 1, 0}, {3, {24, 24, 24}, 3, 0, 0}};
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        double rmr;
        double e = mg_symmetry_error(cases[t].dim, cases[t].n, cases[t].open_side, cases[t].obstacle,
                                     cases[t].air_rows, &rmr);
        fprintf(stderr, "%dD %dx%dx%d: |r1.Mr2 - r2.Mr1| / (|r| |Mr|) = %.2g, r.Mr = %.4g\n", cases[t].dim,
                cases[t].n[0], cases[t].n[1], cases[t].dim == 3 ? cases[t].n[2] : 1, e, rmr);
        assert_true(e < 1e-13);
        assert_true(rmr > 0.0);
    }
}

/* Every small grid: each size from 4 to 13 cells per axis in 2D and 4 to 8
 * in 3D (odd, even, one cell past a block of four), walls or one open side,
 * no obstacle, a box or scattered solid cells, no air or air rows at the
 * top: the V-cycle stays symmetric and positive definite wherever it has
 * unknowns (a sweep that reads a wrong neighbour, or a cell twice, breaks
 * that). */
static void test_multigrid_small_grids(void **state)
{
    (void)state;
    int cases = 0, bad = 0;
    for (int dim = 2; dim <= 3; dim++) {
        int top = dim == 2 ? 13 : 8;
        for (int nx = 4; nx <= top; nx++)
            for (int ny = 4; ny <= top; ny++)
                for (int nz = 4; nz <= (dim == 3 ? top : 4); nz++)
                    for (int open_side = -1; open_side < 2 * dim; open_side += dim == 2 ? 1 : 2)
                        for (int obstacle = 0; obstacle < 4; obstacle++)
                            for (int air_rows = 0; air_rows < 3; air_rows += 2) {
                                if (open_side < 0 && air_rows == 0)
                                    continue;   /* no Dirichlet cell: the pocket's case (above) */
                                int n[3] = {nx, ny, nz};
                                double rmr, e = mg_symmetry_error(dim, n, open_side, obstacle, air_rows, &rmr);
                                cases++;
                                if (!(e < 1e-13) || !(rmr > 0.0)) {
                                    if (bad++ < 10)
                                        fprintf(stderr, "%dD %dx%dx%d open %d obstacle %d air %d: asymmetry %.3g, "
                                                "r.Mr %.3g\n", dim, nx, ny, nz, open_side, obstacle, air_rows, e, rmr);
                                }
                            }
    }
    fprintf(stderr, "%d small grids, %d not symmetric positive definite\n", cases, bad);
    assert_int_equal(bad, 0);
}

/* On one thread each level's restriction runs inside its pass before the
 * coarse correction, a coarse slab as soon as its fine slabs' residual is
 * there (the residual in a ring of four slabs); on two threads a level of at
 * least MAC_OMP_MIN cells runs its pass in blocks and restricts the whole
 * residual after it. The V-cycle gives the same z and r . z bit for bit
 * either way: on odd and even sizes, with an obstacle (the scatter of rows
 * next to solid coarse cells), open sides and air, level 0 above
 * MAC_OMP_MIN, in 2D (slabs are rows) and 3D (planes, small ones restricted
 * three at a time, large ones one at a time). */
static void test_multigrid_restriction_in_pass(void **state)
{
    (void)state;
#ifdef _OPENMP
    const struct {
        int dim, n[3], open_side, obstacle, air_rows;
    } cases[] = {{2, {151, 130, 1}, 3, 1, 6}, {2, {144, 128, 1}, 1, 0, 0}, {3, {27, 29, 25}, 3, 1, 3},
                 {3, {28, 26, 24}, 0, 1, 0}, {3, {48, 46, 9}, 3, 1, 2}};   /* the last: planes of MG_PLANE_BIG cells and more */
    int before = omp_get_max_threads();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        mg_case t;
        mg_case_build(&t, cases[c].dim, cases[c].n, cases[c].open_side, cases[c].obstacle, cases[c].air_rows);
        assert_true(mac_ncell(&t.g) >= MAC_OMP_MIN);
        double *r = random_unknowns(t.nu, 11u), *z1 = malloc(t.nu * sizeof *z1), *z2 = malloc(t.nu * sizeof *z2);
        omp_set_num_threads(1);
        double rz1 = mac_mg_apply(t.m, t.nu, t.cell, r, z1);
        omp_set_num_threads(2);
        double rz2 = mac_mg_apply(t.m, t.nu, t.cell, r, z2);
        omp_set_num_threads(before);
        double zmax = 0.0;
        for (size_t u = 0; u < t.nu; u++)
            zmax = fmax(zmax, fabs(z1[u]));
        fprintf(stderr, "%dD %dx%dx%d: V-cycle on 1 and 2 threads, r.z %.17g and %.17g, max |z| %.3g\n",
                cases[c].dim, cases[c].n[0], cases[c].n[1], t.g.nz, rz1, rz2, zmax);
        assert_true(zmax > 0.0);
        assert_true(rz1 == rz2);
        assert_memory_equal(z1, z2, t.nu * sizeof *z1);
        free(r), free(z1), free(z2);
        mg_case_free(&t);
    }
#else
    skip();
#endif
}

/* A smooth bump v(x) = exp(-((x - x0)/sigma)^2) (sigma = 3 dx) carried by
 * u = U over 60 steps: BFECC removes most of the semi-Lagrangian diffusion
 * (error ratio 0.35 measured, below 0.4 asserted; the clamp clips the crest),
 * does better than MacCormack here and, clamped, makes no new extrema. */
static double bump_error(int scheme, double *v_min, double *v_max)
{
    mac_grid g = {2, 96, 4, 1, 1.0 / 96, {0.0, 0.0, 0.0}, {BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL}};
    size_t nu = mac_nf(&g, 0), nv = mac_nf(&g, 1);
    double *u = malloc(nu * sizeof *u), *v = malloc(nv * sizeof *v);
    double *u1 = malloc(nu * sizeof *u1), *v1 = malloc(nv * sizeof *v1);
    double U = 0.5, dt = 0.3 * g.dx / U, x0 = 0.25, sigma = 3 * g.dx;
    for (size_t f = 0; f < nu; f++)
        u[f] = U;
    for (int j = 0; j <= g.ny; j++)
        for (int i = 0; i < g.nx; i++) {
            double x = (i + 0.5) * g.dx;
            v[mac_fi(&g, 1, i, j, 0)] = exp(-(x - x0) * (x - x0) / (sigma * sigma));
        }
    int steps = 60;
    mac_work w;
    mac_work_init(&w, &g);
    for (int n = 0; n < steps; n++) {
        double *const vel0[3] = {u, v, NULL}, *const vel1[3] = {u1, v1, NULL};
        if (scheme == 2)
            mac_advect_bfecc(&g, vel0, dt, vel1, &w);
        else if (scheme == 1)
            mac_advect_maccormack(&g, vel0, dt, vel1, &w);
        else
            mac_advect(&g, vel0, dt, vel1);
        memcpy(u, u1, nu * sizeof *u);
        memcpy(v, v1, nv * sizeof *v);
    }
    double xc = x0 + U * steps * dt, err = 0.0;
    *v_min = INFINITY;
    *v_max = -INFINITY;
    for (int j = 0; j <= g.ny; j++)
        for (int i = 0; i < g.nx; i++) {
            double x = (i + 0.5) * g.dx, exact = exp(-(x - xc) * (x - xc) / (sigma * sigma));
            double q = v[mac_fi(&g, 1, i, j, 0)];
            err += (q - exact) * (q - exact) * g.dx / (g.ny + 1);
            *v_min = fmin(*v_min, q);
            *v_max = fmax(*v_max, q);
        }
    free(u);
    free(v);
    free(u1);
    free(v1);
    mac_work_free(&w);
    return sqrt(err);
}

static void test_bfecc_bump(void **state)
{
    (void)state;
    double lo[3], hi[3], e[3];
    for (int s = 0; s < 3; s++)
        e[s] = bump_error(s, &lo[s], &hi[s]);
    fprintf(stderr, "bump after 60 steps, L2 error: semi-Lagrangian %.3g, MacCormack %.3g, BFECC %.3g "
            "(BFECC / SL %.3f); BFECC range [%.3g, %.3g]\n", e[0], e[1], e[2], e[2] / e[0], lo[2], hi[2]);
    assert_true(e[0] > 1e-3);          /* the plain scheme visibly diffuses the bump */
    assert_true(e[2] < 0.4 * e[0]);
    assert_true(e[2] < e[1]);
    assert_true(lo[2] >= 0.0 && hi[2] <= 1.0);
}

static double orient(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Particles blown at a slanted thin shell (two segments) by a uniform flow stop
 * on their side of it, 1e-3 dx away, without velocity into it; those whose
 * path passes beside the shell go on; a shell sweeping over particles at rest
 * pushes them along on its front side. */
static void test_particles_stop_at_shell(void **state)
{
    (void)state;
    mac_grid g = {2, 16, 16, 1, 1.0 / 16, {0.0, 0.0, 0.0}, {BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL}};
    double *u = malloc(mac_nf(&g, 0) * sizeof *u), *v = malloc(mac_nf(&g, 1) * sizeof *v);
    for (size_t f = 0; f < mac_nf(&g, 0); f++)
        u[f] = 1.0;
    for (size_t f = 0; f < mac_nf(&g, 1); f++)
        v[f] = 0.25;
    double *const vel[3] = {u, v, NULL};
    /* The shell: (0.5, 0.1) -> (0.6, 0.45) -> (0.55, 0.8), at rest. */
    double X[6] = {0.5, 0.1, 0.6, 0.45, 0.55, 0.8};
    int32_t seg[4] = {0, 1, 1, 2};
    mac_shells sh = {2, seg, X, X, NULL};
    enum { N = 40 };
    double x[2 * N], vp[2 * N], x0[2 * N];
    for (int p = 0; p < N; p++) {   /* a column at x = 0.42, y from 0.02 to 0.98 */
        x0[2 * p] = x[2 * p] = 0.42;
        x0[2 * p + 1] = x[2 * p + 1] = 0.02 + 0.96 * p / (N - 1);
        vp[2 * p] = 1.0;
        vp[2 * p + 1] = 0.25;
    }
    double dt = 0.3;   /* 0.3 m to the right: every path that meets the shell crosses it */
    assert_int_equal(mac_advect_particles(&g, N, x, vp, vel, dt, &sh, 0), N);
    int stopped = 0, passed = 0;
    for (int p = 0; p < N; p++) {
        const double *q = x + 2 * p;
        if (q[0] > 0.42 + 0.3 - 1e-12) {   /* went the whole way (or to the top wall): beside the shell */
            passed++;
            continue;
        }
        stopped++;
        /* On the start side (left of both segments' lines where it ended) and 1e-3 dx from the shell. */
        int k = q[1] < 0.45 ? 0 : 1;
        const double *a = X + 2 * seg[2 * k], *b = X + 2 * seg[2 * k + 1];
        double dist = orient(a, b, q) / hypot(b[0] - a[0], b[1] - a[1]);
        assert_true(dist > 0.0);
        assert_float_equal(dist, 1e-3 * g.dx, 1e-9);
        double nx = -(b[1] - a[1]), ny = b[0] - a[0];
        assert_true(vp[2 * p] * nx + vp[2 * p + 1] * ny > -1e-12);   /* no velocity into the shell */
    }
    fprintf(stderr, "shell: %d particles stopped, %d passed beside it\n", stopped, passed);
    assert_true(stopped >= 25 && passed >= 5);
    /* Without the shells the same particles all go through. */
    memcpy(x, x0, sizeof x);
    mac_advect_particles(&g, N, x, vp, vel, dt, NULL, 0);
    for (int p = 0; p < N; p++)
        assert_float_equal(x[2 * p], 0.42 + 0.3, 1e-12);
    /* A vertical shell moving right by 0.1 over particles at rest just ahead of it. */
    double Xs0[4] = {0.3, 0.2, 0.3, 0.8}, Xs1[4] = {0.4, 0.2, 0.4, 0.8};
    int32_t one[2] = {0, 1};
    mac_shells moving = {1, one, Xs0, Xs1, NULL};
    for (size_t f = 0; f < mac_nf(&g, 0); f++)
        u[f] = 0.0;
    for (size_t f = 0; f < mac_nf(&g, 1); f++)
        v[f] = 0.0;
    double xr[4] = {0.33, 0.5, 0.38, 0.6}, vr[4] = {0, 0, 0, 0};
    mac_advect_particles(&g, 2, xr, vr, vel, 0.1, &moving, 0);
    for (int p = 0; p < 2; p++) {
        assert_float_equal(xr[2 * p], 0.4 + 1e-3 * g.dx, 1e-12);   /* swept along, in front of the shell */
        assert_float_equal(vr[2 * p], 1.0, 1e-12);                   /* at the shell's speed */
    }
    free(u);
    free(v);
}

/* 3D: particles blown along +x at a slanted square plate (two triangles)
 * stop 1e-3 dx before it, on their side, with no velocity into it; those
 * that miss the plate go on. */
static void test_particles_stop_at_shell_3d(void **state)
{
    (void)state;
    mac_grid g = {3, 8, 8, 8, 1.0 / 8, {0.0, 0.0, 0.0}, {BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL, BC_WALL}};
    double *vel[3];
    for (int a = 0; a < 3; a++) {
        vel[a] = malloc(mac_nf(&g, a) * sizeof(double));
        for (size_t f = 0; f < mac_nf(&g, a); f++)
            vel[a][f] = a == 0 ? 1.0 : 0.0;
    }
    /* The plate: x = 0.5 + 0.2 (y - 0.2), over y, z in [0.2, 0.7]. */
    double X[12] = {0.5, 0.2, 0.2, 0.6, 0.7, 0.2, 0.6, 0.7, 0.7, 0.5, 0.2, 0.7};
    int32_t tri[6] = {0, 1, 2, 0, 2, 3};
    mac_shells sh = {2, tri, X, X, NULL};
    enum { N = 100 };
    double x[3 * N], vp[3 * N];
    for (int p = 0; p < N; p++) {   /* a 10 x 10 sheet at x = 0.3 over y, z in [0.05, 0.95] */
        x[3 * p] = 0.3;
        x[3 * p + 1] = 0.05 + 0.1 * (p % 10);
        x[3 * p + 2] = 0.05 + 0.1 * (p / 10);
        vp[3 * p] = 1.0;
        vp[3 * p + 1] = vp[3 * p + 2] = 0.0;
    }
    assert_int_equal(mac_advect_particles(&g, N, x, vp, vel, 0.4, &sh, 0), N);
    /* Unit normal of the plate towards -x. */
    double n[3] = {-1.0, 0.2, 0.0}, len = sqrt(1.04);
    int stopped = 0;
    for (int p = 0; p < N; p++) {
        const double *q = x + 3 * p;
        int hits = q[1] > 0.2 && q[1] < 0.7 && q[2] > 0.2 && q[2] < 0.7;
        if (!hits) {
            assert_float_equal(q[0], 0.7, 1e-12);
            continue;
        }
        stopped++;
        double dist = ((q[0] - 0.5) * n[0] + (q[1] - 0.2) * n[1]) / len;
        assert_float_equal(dist, 1e-3 * g.dx, 1e-9);
        assert_true((vp[3 * p] * n[0] + vp[3 * p + 1] * n[1]) / len > -1e-12);
    }
    fprintf(stderr, "3D shell: %d of %d particles stopped\n", stopped, N);
    assert_int_equal(stopped, 25);
    for (int a = 0; a < 3; a++)
        free(vel[a]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_advection_shear_wave),
                                       cmocka_unit_test(test_advection_shear_wave_3d),
                                       cmocka_unit_test(test_projection_3d),
                                       cmocka_unit_test(test_multigrid_matches_mic0),
                                       cmocka_unit_test(test_preconditioner_kept_per_operator),
                                       cmocka_unit_test(test_multigrid_threads),
                                       cmocka_unit_test(test_cell_space_matches_unknowns),
                                       cmocka_unit_test(test_multigrid_symmetric),
                                       cmocka_unit_test(test_multigrid_small_grids),
                                       cmocka_unit_test(test_multigrid_restriction_in_pass),
                                       cmocka_unit_test(test_bfecc_bump),
                                       cmocka_unit_test(test_particles_stop_at_shell),
                                       cmocka_unit_test(test_particles_stop_at_shell_3d)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
