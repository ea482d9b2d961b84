/* The solid blocks and the coupled solve of the monolithic mode (spec
 * ../shared/specs/monolithic-sph-fem.md 1.7, M1 and M4): corotated K against
 * rigid motions and solid_fem's forces, the SPD form (5.25-5.36) against a
 * dense LU solve of (5.17), and solid-only steps with known answers. */
#include <lapacke.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mono.h"
#include "seam/dense.h"
#include "test_host.h"

static fem *make_fem(test_host *th, const char *json)
{
    test_host_init(th, "solid", "solids[0]");
    fem *f = fem_new(json, &th->host);
    if (!f)
        fprintf(stderr, "fem_new failed: %s\n", th->all);
    assert_non_null(f);
    return f;
}

/* A small body of the given material model (E 50, nu 0.3): a 3 x 2
 * rectangle of triangles or a 2 x 1 x 1 box of tetrahedra, with `extra` keys
 * in its body object. */
static fem *model_body(test_host *th, int d, const char *model, const char *gravity, const char *damping,
                       const char *extra)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"dim\": %d, \"gravity\": %s, \"bodies\": [{\"mesh\": %s, \"material\": {\"model\": \"%s\", "
             "\"E\": 50, \"nu\": 0.3, \"density\": 2%s}%s}]}",
             d, gravity,
             d == 2 ? "{\"generate\": \"rectangle\", \"max\": [0.6, 0.4], \"cells\": [3, 2]}"
                    : "{\"generate\": \"box\", \"max\": [0.6, 0.3, 0.3], \"cells\": [2, 1, 1]}",
             model, damping, extra);
    return make_fem(th, json);
}

static fem *small_body(test_host *th, int d, const char *gravity, const char *damping, const char *extra)
{
    return model_body(th, d, "corotated", gravity, damping, extra);
}

static unsigned rnd_state = 12345u;
static double rnd(void)   /* uniform in [-1, 1) */
{
    rnd_state = rnd_state * 1664525u + 1013904223u;
    return (double)(rnd_state >> 8) / (double)(1u << 23) - 1.0;
}

/* A random rotation: Rodrigues' formula about a random axis (2D: in the plane). */
static void random_rotation(int d, double angle, double *Q)
{
    if (d == 2) {
        double c = cos(angle), s = sin(angle);
        Q[0] = c, Q[1] = -s, Q[2] = s, Q[3] = c;
        return;
    }
    double a[3] = {rnd(), rnd(), rnd() + 1.5}, n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    for (int i = 0; i < 3; i++)
        a[i] /= n;
    double c = cos(angle), s = sin(angle);
    double K[9] = {0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double K2 = 0.0;
            for (int k = 0; k < 3; k++)
                K2 += K[i * 3 + k] * K[k * 3 + j];
            Q[i * 3 + j] = (i == j) + s * K[i * 3 + j] + (1.0 - c) * K2;
        }
}

static double max_abs(size_t n, const double *x)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* ---- K annihilates rigid motions; the force is solid_fem's corotated one --- */

static void check_rigid_motions(int d)
{
    test_host th;
    fem *f = small_body(&th, d, d == 2 ? "[0, 0]" : "[0, 0, 0]", "", "");
    size_t n = f->n, nd = n * (size_t)d;
    double Q[9], c[3] = {0.3, -0.2, 0.7};
    random_rotation(d, 0.8, Q);
    double *x = malloc(nd * sizeof *x), *b = malloc(nd * sizeof *b), *u = malloc(nd * sizeof *u),
           *Ku = malloc(nd * sizeof *Ku);
    for (int rotated = 0; rotated < 2; rotated++) {
        /* The rest state, and the rest state rotated by Q and moved by c. */
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < d; k++) {
                double s = 0.0;
                for (int l = 0; l < d; l++)
                    s += (rotated ? Q[k * d + l] : (double)(k == l)) * f->X0[i * (size_t)d + (size_t)l];
                x[i * (size_t)d + (size_t)k] = s + (rotated ? c[k] : 0.0);
            }
        seam_csr *K = mono_fem_corotated(f, x, b);
        double scale = 0.0;
        for (size_t k = 0; k < K->nnz; k++)
            scale = fmax(scale, fabs(K->val[k]));
        /* No elastic force in a rigidly moved rest state: b - K x = 0. */
        seam_csr_mul(K, x, Ku);
        for (size_t r = 0; r < nd; r++)
            assert_true(fabs(b[r] - Ku[r]) <= 1e-12 * scale);
        /* Translations, and infinitesimal rotations W x about each axis. */
        int n_rot = d == 2 ? 1 : 3;
        for (int mode = 0; mode < d + n_rot; mode++) {
            for (size_t i = 0; i < n; i++) {
                const double *xi = x + i * (size_t)d;
                double *ui = u + i * (size_t)d;
                if (mode < d) {
                    for (int k = 0; k < d; k++)
                        ui[k] = k == mode ? 1.0 : 0.0;
                } else if (d == 2) {
                    ui[0] = -xi[1], ui[1] = xi[0];
                } else {
                    int a = mode - d;
                    double w[3] = {a == 0, a == 1, a == 2};
                    ui[0] = w[1] * xi[2] - w[2] * xi[1];
                    ui[1] = w[2] * xi[0] - w[0] * xi[2];
                    ui[2] = w[0] * xi[1] - w[1] * xi[0];
                }
            }
            seam_csr_mul(K, u, Ku);
            assert_true(max_abs(nd, Ku) <= 1e-12 * scale * (1.0 + max_abs(nd, u)));
        }
        /* ... but not a stretch: K is not trivially zero. */
        for (size_t r = 0; r < nd; r++)
            u[r] = r % (size_t)d == 0 ? x[r] : 0.0;
        seam_csr_mul(K, u, Ku);
        assert_true(max_abs(nd, Ku) > 1e-3 * scale);
        seam_csr_destroy(&K);
    }
    free(x);
    free(b);
    free(u);
    free(Ku);
    fem_destroy(&f);
}

static void test_rigid_motions_2d(void **s) { (void)s; check_rigid_motions(2); }
static void test_rigid_motions_3d(void **s) { (void)s; check_rigid_motions(3); }

/* Spec 1.1 "Derived": R K_t (R^T x - X0) is solid_fem's corotated force
 * 2mu (F - R) + lambda tr(R^T F - I) R, here for a rotated, stretched and
 * randomly perturbed state, and with inverted elements. */
static void check_force_matches_fem(int d)
{
    test_host th;
    fem *f = small_body(&th, d, d == 2 ? "[0, 0]" : "[0, 0, 0]", "", "");
    size_t n = f->n, nd = n * (size_t)d;
    double Q[9], A[9] = {1.3, 0.1, 0.05, 0.1, 0.8, -0.1, 0.05, -0.1, 1.1};
    random_rotation(d, 2.1, Q);
    if (d == 2)
        A[2] = 0.1, A[3] = 0.8;   /* the 2x2 symmetric stretch */
    double *x = malloc(nd * sizeof *x), *b = malloc(nd * sizeof *b), *Kx = malloc(nd * sizeof *Kx),
           *fe = malloc(nd * sizeof *fe);
    for (size_t i = 0; i < n; i++) {
        double y[3];
        for (int k = 0; k < d; k++) {
            y[k] = 0.0;
            for (int l = 0; l < d; l++)
                y[k] += A[k * d + l] * f->X0[i * (size_t)d + (size_t)l];
            y[k] += 0.02 * rnd();
        }
        for (int k = 0; k < d; k++) {
            double s = 0.5;
            for (int l = 0; l < d; l++)
                s += Q[k * d + l] * y[l];
            x[i * (size_t)d + (size_t)k] = s;
        }
    }
    /* Then node 0 pushed through its elements: some invert, and R = U V^T of
     * the sign-corrected SVD still gives the same forces. */
    for (int inverted = 0; inverted < 2; inverted++) {
        if (inverted)
            for (int k = 0; k < d; k++)
                x[k] += 1.5 * (x[(n - 1) * (size_t)d + (size_t)k] - x[k]);
        size_t n_inv = 0;
        for (size_t q = 0; q < f->n_elems; q++) {
            double Ds[9];
            for (int a = 1; a <= d; a++)
                for (int i = 0; i < d; i++)
                    Ds[i * d + a - 1] = x[f->elems[q].n[a] * d + i] - x[f->elems[q].n[0] * d + i];
            n_inv += seam_det(d, Ds) < 0.0;
        }
        assert_true(inverted ? n_inv > 0 : n_inv == 0);
        seam_csr *K = mono_fem_corotated(f, x, b);
        seam_csr_mul(K, x, Kx);
        fem_elastic(f, x, fe, NULL);
        double scale = max_abs(nd, fe);
        assert_true(scale > 0.1);   /* the state is loaded: E 50 times strains of 0.2-0.3 on faces of 0.01-0.1 */
        for (size_t r = 0; r < nd; r++)
            assert_true(fabs(b[r] - Kx[r] - fe[r]) <= 1e-10 * scale);
        seam_csr_destroy(&K);
    }
    free(x);
    free(b);
    free(Kx);
    free(fe);
    fem_destroy(&f);
}

static void test_force_matches_fem_2d(void **s) { (void)s; check_force_matches_fem(2); }
static void test_force_matches_fem_3d(void **s) { (void)s; check_force_matches_fem(3); }

static void csr_to_dense(const seam_csr *X, double *D, size_t ld, size_t r0, size_t c0, double scale)
{
    for (size_t i = 0; i < X->rows; i++)
        for (int64_t k = X->row_ptr[i]; k < X->row_ptr[i + 1]; k++)
            D[(r0 + i) * ld + c0 + (size_t)X->col[k]] += scale * X->val[k];
}

/* The block's terms from the whole-mesh K and b: S = M/dt + alpha M + (dt +
 * beta) K on the free rows and columns (3.50, 3.55), r = M v/dt + M g + f_ext
 * + b - K x - S_free,fixed v_fixed, Zdiag = sigma (1/dt + alpha) M (5.31),
 * T picking the free interface nodes. */
static void check_block_terms(int d)
{
    test_host th;
    fem *f = small_body(&th, d, d == 2 ? "[0, -9.81]" : "[0, 0, -9.81]", ", \"damping\": {\"alpha\": 0.7, \"beta\": 0.03}",
                        d == 2 ? ", \"velocity\": [0.3, -0.1], \"prescribed\": {\"velocity\": [0.2, 0.4], \"box\": "
                                 "{\"min\": [-1, -1], \"max\": [0.01, 1]}}"
                               : ", \"velocity\": [0.3, -0.1, 0.2], \"prescribed\": {\"velocity\": [0.2, 0.4, -0.3], "
                                 "\"box\": {\"min\": [-1, -1, -1], \"max\": [0.01, 1, 1]}}");
    size_t n = f->n, nd = n * (size_t)d;
    for (size_t r = 0; r < nd; r++)
        f->x[r] = 1.2 * f->X0[r] + 0.03 * rnd();
    double *f_ext = malloc(nd * sizeof *f_ext), *b = malloc(nd * sizeof *b), *Kx = malloc(nd * sizeof *Kx);
    for (size_t r = 0; r < nd; r++)
        f_ext[r] = rnd();
    double dt = 0.02, sigma = 0.8, alpha = 0.7, beta = 0.03;
    mono_block blk;
    assert_int_equal(mono_fem_block(&blk, f, dt, sigma, f_ext, 2, f->n_iface + 3, &th.host), SEAM_OK);
    seam_csr *K = mono_fem_corotated(f, f->x, b);
    seam_csr_mul(K, f->x, Kx);
    double *S = calloc(blk.m * blk.m, sizeof *S);
    csr_to_dense(blk.S, S, blk.m, 0, 0, 1.0);
    double kmax = 0.0;
    for (size_t k = 0; k < K->nnz; k++)
        kmax = fmax(kmax, fabs(K->val[k]));
    for (size_t i = 0; i < n; i++) {
        int32_t ui = blk.unknown[i];
        assert_int_equal(ui < 0, f->fixed[i] != 0);
        if (ui < 0)
            continue;
        for (int k = 0; k < d; k++) {
            size_t row = i * (size_t)d + (size_t)k, u = (size_t)ui + (size_t)k;
            double m = f->mass[i], r = m * f->v[row] / dt + m * f->gravity[k] + f_ext[row] + b[row] - Kx[row];
            assert_float_equal(blk.Zdiag[u], sigma * (1.0 / dt + alpha) * m, 1e-14 * m / dt);
            for (size_t j = 0; j < n; j++)
                for (int l = 0; l < d; l++) {
                    size_t col = j * (size_t)d + (size_t)l;
                    double *kp = seam_csr_at(K, row, col), kv = kp ? *kp : 0.0;
                    double want = (dt + beta) * kv + (row == col ? (1.0 / dt + alpha) * m : 0.0);
                    if (blk.unknown[j] >= 0)
                        assert_float_equal(S[u * blk.m + (size_t)blk.unknown[j] + (size_t)l], want, 1e-12 * kmax);
                    else
                        r -= want * f->v_fixed[col];
                }
            assert_float_equal(blk.r[u], r, 1e-10 * (1.0 + fabs(r)));
        }
    }
    /* T: interface point p is boundary node 2 + p; fixed nodes' rows are empty. */
    assert_int_equal(blk.T->rows, (f->n_iface + 3) * (size_t)d);
    double *vv = malloc(blk.m * sizeof *vv), *u = malloc(blk.T->rows * sizeof *u);
    for (size_t i = 0; i < blk.m; i++)
        vv[i] = rnd();
    seam_csr_mul(blk.T, vv, u);
    for (size_t p = 0; p < f->n_iface + 3; p++)
        for (int k = 0; k < d; k++) {
            size_t row = p * (size_t)d + (size_t)k;
            int32_t node = p >= 2 && p < 2 + f->n_iface ? f->iface_node[p - 2] : -1;
            double want = node < 0 ? 0.0 : blk.unknown[node] >= 0 ? vv[blk.unknown[node] + k] : 0.0;
            assert_float_equal(u[row], want, 0.0);
        }
    free(vv);
    free(u);
    free(S);
    free(f_ext);
    free(b);
    free(Kx);
    seam_csr_destroy(&K);
    mono_block_free(&blk);
    fem_destroy(&f);
}

static void test_block_terms_2d(void **s) { (void)s; check_block_terms(2); }
static void test_block_terms_3d(void **s) { (void)s; check_block_terms(3); }

/* Neo-Hookean and StVK bodies take solid_fem's tangent at x^n. At rest
 * (x = X0) every model's tangent is linear elasticity's, the corotated
 * block's K: the blocks of a body moving at rest shape (with damping,
 * gravity, loads and prescribed nodes) are the corotated body's, to
 * round-off. Deformed, the block's r holds solid_fem's elastic force at x
 * (r - M v/dt - M g - f_ext - fixed couplings = f(x), fem_elastic), which
 * the corotated block's does not. */
static void check_model_blocks(int d)
{
    const char *damping = ", \"damping\": {\"alpha\": 0.7, \"beta\": 0.03}";
    const char *extra = d == 2 ? ", \"velocity\": [0.3, -0.1], \"prescribed\": {\"velocity\": [0.2, 0.4], \"box\": "
                                 "{\"min\": [-1, -1], \"max\": [0.01, 1]}}"
                               : ", \"velocity\": [0.3, -0.1, 0.2], \"prescribed\": {\"velocity\": [0.2, 0.4, -0.3], "
                                 "\"box\": {\"min\": [-1, -1, -1], \"max\": [0.01, 1, 1]}}";
    const char *grav = d == 2 ? "[0, -9.81]" : "[0, 0, -9.81]";
    static const char *const models[] = {"neo_hookean", "stvk"};
    test_host th0;
    fem *c = model_body(&th0, d, "corotated", grav, damping, extra);
    size_t nd = c->n * (size_t)d;
    double *f_ext = malloc(nd * sizeof *f_ext), *fe = malloc(nd * sizeof *fe);
    for (size_t r = 0; r < nd; r++)
        f_ext[r] = rnd();
    double dt = 0.02;
    mono_block bc;
    assert_int_equal(mono_fem_block(&bc, c, dt, 0.9, f_ext, 0, c->n_iface, &th0.host), SEAM_OK);
    for (int mi = 0; mi < 2; mi++) {
        test_host th;
        fem *f = model_body(&th, d, models[mi], grav, damping, extra);
        mono_block b;
        assert_int_equal(mono_fem_block(&b, f, dt, 0.9, f_ext, 0, f->n_iface, &th.host), SEAM_OK);
        assert_int_equal(b.m, bc.m);
        assert_int_equal(b.S->nnz, bc.S->nnz);
        double smax = 0.0, rmax = 0.0;
        for (size_t k = 0; k < bc.S->nnz; k++)
            smax = fmax(smax, fabs(bc.S->val[k]));
        for (size_t i = 0; i < bc.m; i++)
            rmax = fmax(rmax, fabs(bc.r[i]));
        for (size_t k = 0; k < bc.S->nnz; k++) {
            assert_int_equal(b.S->col[k], bc.S->col[k]);
            assert_float_equal(b.S->val[k], bc.S->val[k], 1e-12 * smax);
        }
        for (size_t i = 0; i < bc.m; i++) {
            assert_float_equal(b.r[i], bc.r[i], 1e-12 * rmax);
            assert_float_equal(b.Zdiag[i], bc.Zdiag[i], 0.0);
        }
        mono_block_free(&b);
        /* deformed: r carries f(x) */
        for (size_t r = 0; r < nd; r++)
            f->x[r] = 1.15 * f->X0[r] + 0.02 * rnd();
        assert_int_equal(mono_fem_block(&b, f, dt, 0.9, f_ext, 0, f->n_iface, &th.host), SEAM_OK);
        mono_block b0;   /* the same state with the elastic force left out: no deformation, x = X0 */
        fem_elastic(f, f->x, fe, NULL);
        double *x_def = malloc(nd * sizeof *x_def);
        memcpy(x_def, f->x, nd * sizeof *x_def);
        memcpy(f->x, f->X0, nd * sizeof *x_def);
        assert_int_equal(mono_fem_block(&b0, f, dt, 0.9, f_ext, 0, f->n_iface, &th.host), SEAM_OK);
        double fmax_ = 0.0;
        for (size_t i = 0; i < f->n; i++)
            for (int k = 0; k < d; k++)
                fmax_ = fmax(fmax_, fabs(fe[i * (size_t)d + (size_t)k]));
        assert_true(fmax_ > 0.1);
        /* r - r0 = f(x) - (S_free,fixed - S0_free,fixed) v_fixed; rows with no fixed neighbour are f(x) alone */
        size_t checked = 0;
        for (size_t i = 0; i < f->n; i++) {
            int32_t u = b.unknown[i];
            if (u < 0)
                continue;
            int near_fixed = 0;
            for (size_t q = 0; q < f->n_elems; q++) {
                int has_i = 0, has_fixed = 0;
                for (int a = 0; a <= d; a++) {
                    has_i |= (size_t)f->elems[q].n[a] == i;
                    has_fixed |= f->fixed[f->elems[q].n[a]] != 0;
                }
                near_fixed |= has_i && has_fixed;
            }
            if (near_fixed)
                continue;
            for (int k = 0; k < d; k++)
                assert_float_equal(b.r[(size_t)u + (size_t)k] - b0.r[(size_t)u + (size_t)k], fe[i * (size_t)d + (size_t)k],
                                   1e-10 * fmax_);
            checked++;
        }
        assert_true(checked > 0);
        free(x_def);
        mono_block_free(&b);
        mono_block_free(&b0);
        fem_destroy(&f);
    }
    mono_block_free(&bc);
    free(f_ext);
    free(fe);
    fem_destroy(&c);
}

static void test_model_blocks_2d(void **s) { (void)s; check_model_blocks(2); }
static void test_model_blocks_3d(void **s) { (void)s; check_model_blocks(3); }

/* ---- M1: the SPD form against a dense LU solve of (5.17) ------------------- */

/* A rigid body's block as in (5.32), with no Zdiag (the Schur form): S = M~/dt
 * with M~ = diag(mass, inertia), r = M~ (V, omega)/dt + (mass g, 0), T = J
 * (v_node = V + omega x (x_node - c)) on boundary nodes 0 .. n_bnd - 1. */
static void rigid_block(mono_block *blk, int d, double dt, size_t n_bnd, const double *x_bnd, size_t n_nodes)
{
    memset(blk, 0, sizeof *blk);
    size_t m = d == 2 ? 3 : 6, na = m - (size_t)d;
    double mass = 0.7, c[3] = {0.1, 0.2, 0.3}, V[6] = {0.2, -0.3, 0.1, 0.5, -0.2, 0.3};
    double In[9] = {0.03, 0.002, 0.001, 0.002, 0.04, -0.003, 0.001, -0.003, 0.05};
    blk->m = m;
    blk->r = malloc(m * sizeof *blk->r);
    seam_triplets *t = seam_triplets_new(m, m, m * m);
    for (int k = 0; k < d; k++) {
        seam_triplets_add(t, (size_t)k, (size_t)k, mass / dt);
        blk->r[k] = mass * V[k] / dt + (k == 1 ? -9.81 * mass : 0.0);
    }
    for (size_t i = 0; i < na; i++) {
        blk->r[(size_t)d + i] = 0.0;
        for (size_t j = 0; j < na; j++) {
            seam_triplets_add(t, (size_t)d + i, (size_t)d + j, In[i * 3 + j] / dt);
            blk->r[(size_t)d + i] += In[i * 3 + j] * V[3 + j] / dt;
        }
    }
    blk->S = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    seam_triplets *tt = seam_triplets_new(n_nodes * (size_t)d, m, n_bnd * 9);
    for (size_t p = 0; p < n_bnd; p++) {
        size_t row = p * (size_t)d;
        double rr[3] = {0, 0, 0};
        for (int k = 0; k < d; k++) {
            rr[k] = x_bnd[row + (size_t)k] - c[k];
            seam_triplets_add(tt, row + (size_t)k, (size_t)k, 1.0);
        }
        if (d == 2) {
            seam_triplets_add(tt, row, 2, -rr[1]);
            seam_triplets_add(tt, row + 1, 2, rr[0]);
        } else {
            seam_triplets_add(tt, row, 4, rr[2]);
            seam_triplets_add(tt, row, 5, -rr[1]);
            seam_triplets_add(tt, row + 1, 3, -rr[2]);
            seam_triplets_add(tt, row + 1, 5, rr[0]);
            seam_triplets_add(tt, row + 2, 3, rr[1]);
            seam_triplets_add(tt, row + 2, 4, -rr[0]);
        }
    }
    blk->T = seam_csr_from_triplets(tt);
    seam_triplets_destroy(&tt);
}


/* A random SPD n x n matrix with a sparse pattern (a weighted graph Laplacian plus a positive diagonal). */
static seam_csr *random_spd(size_t n)
{
    seam_triplets *t = seam_triplets_new(n, n, 8 * n);
    for (size_t i = 0; i < n; i++) {
        seam_triplets_add(t, i, i, 0.5 + fabs(rnd()));
        for (size_t j = i + 1; j < n; j++)
            if (j == i + 1 || rnd() > 0.6) {
                double w = 1.0 + rnd() * 0.5;
                seam_triplets_add(t, i, i, w);
                seam_triplets_add(t, j, j, w);
                seam_triplets_add(t, i, j, -w);
                seam_triplets_add(t, j, i, -w);
            }
    }
    seam_csr *B = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    return B;
}

static seam_csr *random_sparse(size_t rows, size_t cols, double fill)
{
    seam_triplets *t = seam_triplets_new(rows, cols, rows * cols);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            if (0.5 * (rnd() + 1.0) < fill)
                seam_triplets_add(t, i, j, rnd());
    seam_csr *G = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    return G;
}

/* (5.17) assembled densely, [B G; G^T -S] [p; v] = [E u*; -r]
 * with G = G_nodes T per block, solved by LU (dgesv). */
static void dense_solve(const mono_fluid *F, const mono_block *blocks, size_t nb, double *p, double *v)
{
    size_t n = F->n, m = 0;
    for (size_t b = 0; b < nb; b++)
        m += blocks[b].m;
    size_t N = n + m, nn = F->G ? F->G->cols : 0;
    double *A = calloc(N * N, sizeof *A), *x = calloc(N, sizeof *x);
    csr_to_dense(F->B, A, N, 0, 0, 1.0);
    for (size_t i = 0; i < n; i++)
        x[i] = F->Eu[i];
    double *Gn = calloc(n * nn + 1, sizeof *Gn);
    csr_to_dense(F->G, Gn, nn, 0, 0, 1.0);
    size_t off = n;
    for (size_t b = 0; b < nb; b++) {
        const mono_block *blk = &blocks[b];
        double *T = calloc(nn * blk->m + 1, sizeof *T);
        csr_to_dense(blk->T, T, blk->m, 0, 0, 1.0);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < blk->m; j++) {
                double s = 0.0;
                for (size_t k = 0; k < nn; k++)
                    s += Gn[i * nn + k] * T[k * blk->m + j];
                A[i * N + off + j] = s;
                A[(off + j) * N + i] = s;
            }
        csr_to_dense(blk->S, A, N, off, off, -1.0);
        for (size_t j = 0; j < blk->m; j++)
            x[off + j] = -blk->r[j];
        free(T);
        off += blk->m;
    }
    /* (5.17) is indefinite: its Cholesky meets a negative pivot (spec 1.7 M1). */
    double *Ac = malloc(N * N * sizeof *Ac);
    memcpy(Ac, A, N * N * sizeof *Ac);
    assert_true(LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)N, Ac, (lapack_int)N) > 0);
    free(Ac);
    lapack_int *piv = malloc(N * sizeof *piv);
    assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)N, 1, A, (lapack_int)N, piv, x, 1), 0);
    memcpy(p, x, n * sizeof *p);
    memcpy(v, x + n, m * sizeof *v);
    free(piv);
    free(Gn);
    free(A);
    free(x);
}

static double rel_diff(size_t n, const double *a, const double *b)
{
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return sqrt(num / (den > 0.0 ? den : 1.0));
}

/* Cholesky of a dense symmetric matrix: 0 when it is positive definite. */
static int dense_cholesky(const seam_csr *X, size_t N)
{
    double *A = calloc(N * N + 1, sizeof *A);
    csr_to_dense(X, A, N, 0, 0, 1.0);
    int rc = (int)LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)N, A, (lapack_int)N);
    free(A);
    return rc;
}

static void check_algebra(int d)
{
    test_host th;
    /* Loaded: deformed, moving, damped, pinned on one side, one node driven. */
    fem *f = small_body(&th, d, d == 2 ? "[0, -9.81]" : "[0, 0, -9.81]", ", \"damping\": {\"alpha\": 0.5, \"beta\": 0.01}",
                        d == 2 ? ", \"velocity\": [0.3, -0.1], \"pin\": {\"box\": {\"min\": [-1, -1], \"max\": [0.01, "
                                 "0.01]}}, \"prescribed\": {\"velocity\": [0.2, 0.4], \"box\": {\"min\": [0.59, 0.39], "
                                 "\"max\": [1, 1]}}"
                               : ", \"velocity\": [0.3, -0.1, 0.2], \"pin\": {\"box\": {\"min\": [-1, -1, -1], \"max\": "
                                 "[0.01, 0.01, 1]}}, \"prescribed\": {\"velocity\": [0.2, 0.4, -0.3], \"box\": {\"min\": "
                                 "[0.59, 0.29, 0.29], \"max\": [1, 1, 1]}}");
    size_t nd = f->n * (size_t)d;
    double Q[9];
    random_rotation(d, 0.4, Q);
    for (size_t i = 0; i < f->n; i++)
        for (int k = 0; k < d; k++) {
            double s = 0.05 * rnd();
            for (int l = 0; l < d; l++)
                s += 1.1 * Q[k * d + l] * f->X0[i * (size_t)d + (size_t)l];
            f->x[i * (size_t)d + (size_t)k] = s;
        }
    double *f_ext = malloc(nd * sizeof *f_ext);
    for (size_t r = 0; r < nd; r++)
        f_ext[r] = 0.1 * rnd();
    /* Boundary nodes: a rigid body's 3 first, then the FEM body's interface. */
    /* Boundary nodes: a rigid body's 3, then the FEM body's interface twice (two copies of it, two blocks). */
    size_t n_rig = 3, n_nodes = n_rig + 2 * f->n_iface;
    double dt = 0.01;
    double x_rig[9];
    for (size_t i = 0; i < 3 * (size_t)d; i++)
        x_rig[i] = 0.3 * rnd();
    /* The fluid block: random SPD B, random sparse G_nodes, random E u*. */
    mono_fluid F = {0};
    F.n = 7;
    F.B = random_spd(F.n);
    F.G = random_sparse(F.n, n_nodes * (size_t)d, 0.4);
    F.Eu = malloc(F.n * sizeof *F.Eu);
    for (size_t i = 0; i < F.n; i++)
        F.Eu[i] = rnd();
    double sigmas[3] = {0.5, 0.9, 0.99};
    for (int si = 0; si < 3; si++) {
        mono_block blocks[3];   /* FEM, rigid (eliminated), FEM: the kept blocks' offsets skip the rigid one */
        assert_int_equal(mono_fem_block(&blocks[0], f, dt, sigmas[si], f_ext, n_rig, n_nodes, &th.host), SEAM_OK);
        rigid_block(&blocks[1], d, dt, n_rig, x_rig, n_nodes);
        assert_int_equal(mono_fem_block(&blocks[2], f, dt, sigmas[si], f_ext, n_rig + f->n_iface, n_nodes, &th.host),
                         SEAM_OK);
        size_t m = blocks[0].m + blocks[1].m + blocks[2].m;
        size_t n_fixed = 0;
        for (size_t i = 0; i < f->n; i++)
            n_fixed += f->fixed[i] != 0;
        assert_true(n_fixed >= 2);
        assert_int_equal(blocks[0].m, (f->n - n_fixed) * (size_t)d);   /* fixed nodes are not unknowns */
        /* Z2 = S - Z1 is SPD (5.31), and so is S. */
        seam_csr *Z2 = seam_csr_transpose(blocks[0].S);
        for (size_t i = 0; i < blocks[0].m; i++)
            *seam_csr_at(Z2, i, i) -= blocks[0].Zdiag[i];
        assert_int_equal(dense_cholesky(Z2, blocks[0].m), 0);
        seam_csr_destroy(&Z2);
        double *p_ref = malloc(F.n * sizeof *p_ref), *v_ref = malloc(m * sizeof *v_ref);
        double *p = malloc(F.n * sizeof *p), *v = malloc(m * sizeof *v), *p0 = malloc(F.n * sizeof *p0),
               *v0 = malloc(m * sizeof *v0);
        dense_solve(&F, blocks, 3, p_ref, v_ref);
        double alphas[2] = {1e-3, -1.0};
        for (int ai = 0; ai < 2; ai++) {
            mono_solve_opts o = {sigmas[si], alphas[ai], 1e-13, 0, MONO_PRECOND_IC0};
            mono_spd spd;
            assert_int_equal(mono_spd_build(&spd, &F, blocks, 3, &o, &th.host), SEAM_OK);
            assert_int_equal(spd.size, F.n + blocks[0].m + blocks[2].m);   /* the rigid body is eliminated */
            /* A21 = A12^T and the rest of A symmetric, to round-off; A SPD, (5.17) not. */
            double amax = 0.0;
            for (size_t k = 0; k < spd.A->nnz; k++)
                amax = fmax(amax, fabs(spd.A->val[k]));
            for (size_t i = 0; i < spd.size; i++)
                for (int64_t k = spd.A->row_ptr[i]; k < spd.A->row_ptr[i + 1]; k++) {
                    double *aji = seam_csr_at(spd.A, (size_t)spd.A->col[k], i);
                    assert_non_null(aji);
                    assert_true(fabs(*aji - spd.A->val[k]) <= 1e-13 * amax);
                }
            assert_int_equal(dense_cholesky(spd.A, spd.size), 0);
            /* The whole operator, the rigid body's G S^-1 G^T included: symmetric positive definite. */
            size_t N = spd.size;
            double *Op = malloc(N * N * sizeof *Op), *e = calloc(N, sizeof *e), *col = malloc(N * sizeof *col);
            for (size_t j = 0; j < N; j++) {
                e[j] = 1.0;
                mono_spd_apply(&spd, e, col);
                e[j] = 0.0;
                for (size_t i = 0; i < N; i++)
                    Op[i * N + j] = col[i];
            }
            double *Ad = calloc(N * N, sizeof *Ad);
            csr_to_dense(spd.A, Ad, N, 0, 0, 1.0);
            double rigid = 0.0;
            for (size_t i = 0; i < N; i++)
                for (size_t j = 0; j < N; j++) {
                    assert_true(fabs(Op[i * N + j] - Op[j * N + i]) <= 1e-13 * amax);
                    rigid = fmax(rigid, fabs(Op[i * N + j] - Ad[i * N + j]));
                }
            assert_true(rigid > 1e-6 * amax);   /* the rigid body does take part */
            assert_int_equal(LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)N, Op, (lapack_int)N), 0);
            free(Op);
            free(Ad);
            free(e);
            free(col);
            if (alphas[ai] > 0)
                assert_float_equal(spd.alpha, 1e-3, 0.0);
            else
                assert_float_equal(spd.alpha,
                                   seam_norm2(F.n, spd.c) / (seam_norm2(spd.size - F.n, spd.c + F.n) / spd.alpha),
                                   1e-12 * spd.alpha);
            mono_spd_free(&spd);
            mono_solve_stats st;
            assert_int_equal(mono_solve(&F, blocks, 3, dt, &o, p, v, &st, &th.host), SEAM_OK);
            assert_true(st.residual <= 1e-13 && st.iterations > 0);
            assert_true(rel_diff(F.n, p, p_ref) < 1e-8);
            assert_true(rel_diff(m, v, v_ref) < 1e-8);
            if (ai == 0) {
                memcpy(p0, p, F.n * sizeof *p);
                memcpy(v0, v, m * sizeof *v);
            } else {
                assert_true(rel_diff(F.n, p, p0) < 1e-9);   /* unchanged by alpha */
                assert_true(rel_diff(m, v, v0) < 1e-9);
            }
        }
        /* Without fluid rows: the solids' own step S v = r (3.55), whatever alpha. */
        mono_fluid none = {0};
        mono_solve_opts o = {sigmas[si], si == 1 ? -1.0 : 1e-3, 1e-13, 0, MONO_PRECOND_IC0};
        assert_int_equal(mono_solve(&none, blocks, 3, dt, &o, p, v, NULL, &th.host), SEAM_OK);
        for (size_t b = 0, off = 0; b < 3; off += blocks[b].m, b++) {
            size_t mb = blocks[b].m;
            double *S = calloc(mb * mb, sizeof *S), *x = malloc(mb * sizeof *x);
            csr_to_dense(blocks[b].S, S, mb, 0, 0, 1.0);
            memcpy(x, blocks[b].r, mb * sizeof *x);
            lapack_int *piv = malloc(mb * sizeof *piv);
            assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)mb, 1, S, (lapack_int)mb, piv, x, 1), 0);
            assert_true(rel_diff(mb, v + off, x) < 1e-9);
            free(piv);
            free(S);
            free(x);
        }
        /* PCG stopped short is an error, never a success. */
        mono_solve_opts short_run = {sigmas[si], -1.0, 1e-13, 2, MONO_PRECOND_IC0};
        assert_int_equal(mono_solve(&F, blocks, 3, dt, &short_run, p, v, NULL, &th.host), SEAM_UNSTABLE);
        assert_true(test_host_saw(&th, "IC(0)-PCG did not converge after 2 iterations"));
        /* A solve with another sigma than the blocks' is refused by name. */
        o.sigma = 0.3;
        assert_int_equal(mono_solve(&F, blocks, 3, dt, &o, p, v, NULL, &th.host), SEAM_ERROR);
        assert_true(test_host_saw(&th, "solid block 0 was built with sigma"));
        free(p_ref);
        free(v_ref);
        free(p);
        free(v);
        free(p0);
        free(v0);
        for (int b = 0; b < 3; b++)
            mono_block_free(&blocks[b]);
    }
    seam_csr_destroy(&F.B);
    seam_csr_destroy(&F.G);
    free(F.Eu);
    free(f_ext);
    fem_destroy(&f);
}

static void test_algebra_2d(void **s) { (void)s; check_algebra(2); }
static void test_algebra_3d(void **s) { (void)s; check_algebra(3); }

/* ---- M4: solid-only steps with known answers -------------------------------- */

/* Free fall of an undeformed body, damped by beta K only: v = v0 + g t exactly,
 * x = X0 + v0 t + g dt^2 k(k+1)/2 after k backward Euler steps. */
static void check_free_fall(int d)
{
    test_host th;
    fem *f = small_body(&th, d, d == 2 ? "[0, -9.81]" : "[0, 0, -9.81]", ", \"damping\": {\"beta\": 0.05}",
                        d == 2 ? ", \"velocity\": [1.5, 2]" : ", \"velocity\": [1.5, -0.5, 2]");
    double g[3] = {0, 0, 0}, v0[3] = {1.5, d == 2 ? 2.0 : -0.5, 2.0}, dt = 0.02;
    g[d - 1] = -9.81;
    mono_fluid none = {0};
    mono_solve_opts o = {0.9, -1.0, 1e-12, 0, MONO_PRECOND_IC0};
    int steps = 10;
    for (int k = 1; k <= steps; k++) {
        mono_block blk;
        assert_int_equal(mono_fem_block(&blk, f, dt, 0.9, NULL, 0, f->n_iface, &th.host), SEAM_OK);
        double *v = malloc(blk.m * sizeof *v);
        assert_int_equal(mono_solve(&none, &blk, 1, dt, &o, NULL, v, NULL, &th.host), SEAM_OK);
        mono_fem_advance(f, &blk, v, dt);
        fem_commit(f);
        free(v);
        mono_block_free(&blk);
    }
    double t = steps * dt;
    for (size_t i = 0; i < f->n; i++)
        for (int k = 0; k < d; k++) {
            size_t r = i * (size_t)d + (size_t)k;
            assert_float_equal(f->v[r], v0[k] + g[k] * t, 1e-10);
            assert_float_equal(f->x[r], f->X0[r] + v0[k] * t + g[k] * dt * dt * steps * (steps + 1) / 2.0, 1e-10);
        }
    fem_destroy(&f);
}

static void test_free_fall_2d(void **s) { (void)s; check_free_fall(2); }
static void test_free_fall_3d(void **s) { (void)s; check_free_fall(3); }

static double measure(const fem *f, const double *x)
{
    double total = 0.0;
    for (size_t q = 0; q < f->n_elems; q++) {
        double Ds[9];
        const int32_t *n = f->elems[q].n;
        for (int a = 1; a <= f->d; a++)
            for (int i = 0; i < f->d; i++)
                Ds[i * f->d + a - 1] = x[n[a] * f->d + i] - x[n[0] * f->d + i];
        total += seam_det(f->d, Ds) / (f->d == 2 ? 2.0 : 6.0);
    }
    return total;
}

/* A block compressed to 0.7 of its size (0.49 of its area, 0.343 of its
 * volume), rotated, released in vacuum with damping: it recovers its rest
 * measure and comes to rest. */
static void check_recovery(int d)
{
    test_host th;
    fem *f = small_body(&th, d, d == 2 ? "[0, 0]" : "[0, 0, 0]", ", \"damping\": {\"alpha\": 1, \"beta\": 0.02}", "");
    double Q[9], rest = measure(f, f->X0), dt = 0.01;
    random_rotation(d, 0.6, Q);
    for (size_t i = 0; i < f->n; i++)
        for (int k = 0; k < d; k++) {
            double s = 0.0;
            for (int l = 0; l < d; l++)
                s += 0.7 * Q[k * d + l] * f->X0[i * (size_t)d + (size_t)l];
            f->x[i * (size_t)d + (size_t)k] = s;
        }
    assert_float_equal(measure(f, f->x), pow(0.7, d) * rest, 1e-12);
    mono_fluid none = {0};
    mono_solve_opts o = {0.9, -1.0, 1e-12, 0, MONO_PRECOND_IC0};
    for (int k = 0; k < 400; k++) {
        mono_block blk;
        assert_int_equal(mono_fem_block(&blk, f, dt, 0.9, NULL, 0, f->n_iface, &th.host), SEAM_OK);
        double *v = malloc(blk.m * sizeof *v);
        assert_int_equal(mono_solve(&none, &blk, 1, dt, &o, NULL, v, NULL, &th.host), SEAM_OK);
        mono_fem_advance(f, &blk, v, dt);
        fem_commit(f);
        free(v);
        mono_block_free(&blk);
    }
    assert_float_equal(measure(f, f->x), rest, 1e-3 * rest);
    assert_true(max_abs(f->n * (size_t)d, f->v) < 1e-3);
    fem_destroy(&f);
}

static void test_recovery_2d(void **s) { (void)s; check_recovery(2); }
static void test_recovery_3d(void **s) { (void)s; check_recovery(3); }

/* Shells, cloth and solid walls are refused by name. */
static void test_refusals(void **state)
{
    (void)state;
    test_host th;
    fem *f = make_fem(&th, "{\"dim\": 2, \"bodies\": [{\"name\": \"rope\", \"mesh\": {\"generate\": \"chain\", "
                           "\"start\": [0, 0], \"end\": [1, 0], \"segments\": 4}, \"material\": {\"kind\": \"shell\", "
                           "\"k_stretch\": 10, \"density\": 1}}]}");
    mono_block blk;
    assert_int_equal(mono_fem_block(&blk, f, 0.01, 0.9, NULL, 0, f->n_iface, &th.host), SEAM_ERROR);
    assert_true(test_host_saw(&th, "solid body \"rope\" is a shell"));
    fem_destroy(&f);
    f = make_fem(&th, "{\"dim\": 2, \"walls\": {\"min\": [-1, -1], \"max\": [2, 2]}, \"bodies\": [{\"mesh\": "
                      "{\"generate\": \"rectangle\", \"max\": [1, 1], \"cells\": [1, 1]}, \"material\": {\"E\": 10, "
                      "\"density\": 1}}]}");
    assert_int_equal(mono_fem_block(&blk, f, 0.01, 0.9, NULL, 0, f->n_iface, &th.host), SEAM_ERROR);
    assert_true(test_host_saw(&th, "solid walls are not part of the coupled solve"));
    fem_destroy(&f);
    f = make_fem(&th, "{\"dim\": 2, \"bodies\": [{\"mesh\": {\"generate\": \"rectangle\", \"max\": [1, 1], "
                      "\"cells\": [1, 1]}, \"material\": {\"E\": 10, \"density\": 1}}]}");
    assert_int_equal(mono_fem_block(&blk, f, 0.01, 0.9, NULL, 1, f->n_iface, &th.host), SEAM_ERROR);
    assert_true(test_host_saw(&th, "boundary nodes at offset 1 overrun"));
    fem_destroy(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rigid_motions_2d),  cmocka_unit_test(test_rigid_motions_3d),
        cmocka_unit_test(test_force_matches_fem_2d), cmocka_unit_test(test_force_matches_fem_3d),
        cmocka_unit_test(test_block_terms_2d),    cmocka_unit_test(test_block_terms_3d),
        cmocka_unit_test(test_model_blocks_2d),   cmocka_unit_test(test_model_blocks_3d),
        cmocka_unit_test(test_algebra_2d),        cmocka_unit_test(test_algebra_3d),
        cmocka_unit_test(test_free_fall_2d),      cmocka_unit_test(test_free_fall_3d),
        cmocka_unit_test(test_recovery_2d),       cmocka_unit_test(test_recovery_3d),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
