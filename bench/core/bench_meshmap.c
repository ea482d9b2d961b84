/* Mesh mappings (seam/meshmap.h) at the sizes preCICE cases use: an RBF
 * compact-polynomial-c6 mapping between two meshes of N_RBF points on a
 * curved surface, and nearest neighbour and nearest projection between two
 * of N_NN points.
 *
 *     bench_meshmap [N_RBF [N_NN]]      (defaults 2000 and 100000)
 *
 * Prints the seconds to build each matrix and to apply it, its non-zeros,
 * and the error of a smooth field, so a wrong mapping cannot look fast. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "seam/alloc.h"
#include "seam/meshmap.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static double uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

static double height(double x, double y) { return 0.2 * sin(3.0 * x) * cos(2.0 * y); }
static double field(const double *x) { return sin(2.0 * x[0]) * cos(3.0 * x[1]) + x[2]; }

/* n random points on the unit square's curved surface. */
static double *surface_points(size_t n)
{
    double *X = SEAM_NEW_N(double, 3 * n);
    for (size_t i = 0; i < n; i++) {
        X[3 * i] = uniform(), X[3 * i + 1] = uniform();
        X[3 * i + 2] = height(X[3 * i], X[3 * i + 1]);
    }
    return X;
}

/* A g x g grid of the surface split into 2 g^2 triangles. */
static double *surface_grid(int g, int **tri)
{
    size_t nv = (size_t)(g + 1) * (size_t)(g + 1);
    double *X = SEAM_NEW_N(double, 3 * nv);
    for (int j = 0; j <= g; j++)
        for (int i = 0; i <= g; i++) {
            size_t v = (size_t)i + (size_t)(g + 1) * (size_t)j;
            X[3 * v] = (double)i / g, X[3 * v + 1] = (double)j / g;
            X[3 * v + 2] = height(X[3 * v], X[3 * v + 1]);
        }
    *tri = SEAM_NEW_N(int, 6 * (size_t)g * (size_t)g);
    for (int j = 0; j < g; j++)
        for (int i = 0; i < g; i++) {
            int a = i + (g + 1) * j, b = a + 1, d = a + g + 1, e = d + 1, *t = *tri + 6 * ((size_t)i + (size_t)g * j);
            t[0] = a, t[1] = b, t[2] = e, t[3] = a, t[4] = e, t[5] = d;
        }
    return X;
}

static void run(const char *name, seam_meshmap_method method, const seam_meshmap_mesh *src, const seam_meshmap_mesh *dst,
                const seam_rbf_params *rbf)
{
    char err[256];
    double t0 = now_s();
    seam_csr *M = seam_meshmap_interpolation(method, src, dst, rbf, err, sizeof err);
    double t1 = now_s();
    if (!M) {
        fprintf(stderr, "%s: %s\n", name, err);
        exit(1);
    }
    double *u = SEAM_NEW_N(double, src->n), *v = SEAM_NEW_N(double, dst->n), e = 0.0;
    for (size_t j = 0; j < src->n; j++)
        u[j] = field(src->X + 3 * j);
    double t2 = now_s();
    seam_meshmap_apply(M, 1, u, v);
    double t3 = now_s();
    for (size_t i = 0; i < dst->n; i++)
        e = fmax(e, fabs(v[i] - field(dst->X + 3 * i)));
    printf("%-22s %8zu -> %8zu  build %8.3f s  apply %8.4f s  nnz %10zu  max error %.3e\n", name, src->n, dst->n,
           t1 - t0, t3 - t2, M->nnz, e);
    printf("@row mapping=%s n_src=%zu n_dst=%zu build_s=%.4f apply_s=%.5f nnz=%zu max_error=%.4e\n", name, src->n,
           dst->n, t1 - t0, t3 - t2, M->nnz, e);
    free(u);
    free(v);
    seam_csr_destroy(&M);
}

int main(int argc, char **argv)
{
    long n_rbf = argc > 1 ? atol(argv[1]) : 2000, n_nn = argc > 2 ? atol(argv[2]) : 100000;
    if (n_rbf < 10 || n_nn < 10) {
        fprintf(stderr, "usage: bench_meshmap [N_RBF >= 10 [N_NN >= 10]]\n");
        return 2;
    }
    double *A = surface_points((size_t)n_rbf), *B = surface_points((size_t)n_rbf);
    seam_meshmap_mesh src = {.dim = 3, .n = (size_t)n_rbf, .X = A}, dst = {.dim = 3, .n = (size_t)n_rbf, .X = B};
    /* support radii covering about 50 and 400 src points: random points leave
     * gaps that a narrow support does not bridge (the error says so) */
    for (int cover = 50; cover <= 400; cover *= 8) {
        seam_rbf_params c6 = {.basis = SEAM_RBF_COMPACT_POLYNOMIAL_C6,
                              .support_radius = sqrt(cover / (M_PI * (double)n_rbf)),
                              .polynomial = SEAM_RBF_POLY_SEPARATE};
        char name[64];
        snprintf(name, sizeof name, "rbf-c6-r%.3f", c6.support_radius);
        run(name, SEAM_MAP_RBF, &src, &dst, &c6);
    }
    seam_rbf_params tps = {.basis = SEAM_RBF_THIN_PLATE_SPLINES, .polynomial = SEAM_RBF_POLY_SEPARATE};
    run("rbf-tps", SEAM_MAP_RBF, &src, &dst, &tps);
    free(A);
    free(B);

    A = surface_points((size_t)n_nn), B = surface_points((size_t)n_nn);
    src.n = dst.n = (size_t)n_nn;
    src.X = A, dst.X = B;
    run("nearest-neighbor", SEAM_MAP_NEAREST_NEIGHBOR, &src, &dst, NULL);
    int g = (int)sqrt((double)n_nn / 2.0), *tri;
    double *G = surface_grid(g, &tri);
    seam_meshmap_mesh grid = {.dim = 3, .n = (size_t)(g + 1) * (size_t)(g + 1), .X = G, .triangles = tri,
                              .n_triangles = 2 * (size_t)g * (size_t)g};
    run("nearest-projection", SEAM_MAP_NEAREST_PROJECTION, &grid, &dst, NULL);
    free(G);
    free(tri);
    free(A);
    free(B);
    return 0;
}
