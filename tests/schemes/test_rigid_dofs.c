/* Rigid bodies on their own coordinates in the reduced model interface
 * (Akbay 2.3.4): the exp/log maps of core/motion, the reduction of
 * coupler/rigid_dofs, and the rmi scheme on a rigid ring coupled to an
 * added-mass-like fluid with a known fixed point. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "convergence.h"
#include "rigid_dofs.h"
#include "scheme.h"
#include "seam/motion.h"
#include "test_host.h"

/* ---- core/motion ------------------------------------------------------- */

/* exp of a known rotation vector: the turn by |w| about w/|w| (Rodrigues),
 * checked on a vector, and log brings w back. */
static void test_rotation_exp_log_known(void **state)
{
    (void)state;
    double w[3] = {0.0, 0.0, 0.7}, R[9];
    seam_rotation_exp(3, w, R);   /* 0.7 rad about z: x -> (cos, sin, 0) */
    assert_true(fabs(R[0] - cos(0.7)) < 1e-15 && fabs(R[3] - sin(0.7)) < 1e-15 && fabs(R[8] - 1.0) < 1e-15);
    double w3[3] = {0.3, -0.2, 0.5}, back[3];
    seam_rotation_exp(3, w3, R);
    double th = sqrt(0.09 + 0.04 + 0.25), k[3] = {0.3 / th, -0.2 / th, 0.5 / th}, v[3] = {1.0, 2.0, -0.5};
    /* Rodrigues on v: v cos + (k x v) sin + k (k.v)(1 - cos) */
    double kv[3] = {k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2], k[0] * v[1] - k[1] * v[0]};
    double kd = k[0] * v[0] + k[1] * v[1] + k[2] * v[2];
    for (int i = 0; i < 3; i++) {
        double want = v[i] * cos(th) + kv[i] * sin(th) + k[i] * kd * (1 - cos(th));
        double got = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
        assert_true(fabs(got - want) < 1e-14);
    }
    seam_rotation_log(3, R, back);
    for (int i = 0; i < 3; i++)
        assert_true(fabs(back[i] - w3[i]) < 1e-14);
    double big[3] = {0.0, 3.0, 0.0};   /* near pi: the Shepperd branch */
    seam_rotation_exp(3, big, R);
    seam_rotation_log(3, R, back);
    assert_true(fabs(back[1] - 3.0) < 1e-12 && fabs(back[0]) < 1e-12 && fabs(back[2]) < 1e-12);
    double a = -2.5;
    seam_rotation_exp(2, &a, R);
    seam_rotation_log(2, R, back);
    assert_true(fabs(back[0] + 2.5) < 1e-15);
}

/* A known rigid motion of scattered arms is found exactly; points on one line fix none in 3D. */
static void test_rigid_fit_known_motion(void **state)
{
    (void)state;
    enum { M = 7 };
    double r[3 * M], X[3 * M], c[3], R[9], w[3] = {-0.4, 0.9, 0.25}, Rk[9], ck[3] = {1.5, -2.0, 0.75};
    seam_rotation_exp(3, w, Rk);
    for (int i = 0; i < M; i++) {
        r[3 * i] = sin(1.3 * i), r[3 * i + 1] = cos(2.1 * i + 0.3), r[3 * i + 2] = 0.2 * i - 0.6;
        for (int a = 0; a < 3; a++)
            X[3 * i + a] = ck[a] + Rk[3 * a] * r[3 * i] + Rk[3 * a + 1] * r[3 * i + 1] + Rk[3 * a + 2] * r[3 * i + 2];
    }
    assert_true(seam_rigid_fit(3, M, r, X, c, R));
    for (int a = 0; a < 9; a++)
        assert_true(fabs(R[a] - Rk[a]) < 1e-12);
    for (int a = 0; a < 3; a++)
        assert_true(fabs(c[a] - ck[a]) < 1e-12);
    double line[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    assert_false(seam_rigid_fit(3, 3, line, line, c, R));
    /* 2D: turn by 1.1 and move */
    double r2[3 * 3] = {0.3, 0, 0, -0.1, 0.2, 0, 0, -0.4, 0}, X2[6], th = 1.1;
    for (int i = 0; i < 3; i++) {
        X2[2 * i] = 0.5 + cos(th) * r2[3 * i] - sin(th) * r2[3 * i + 1];
        X2[2 * i + 1] = -1.0 + sin(th) * r2[3 * i] + cos(th) * r2[3 * i + 1];
    }
    assert_true(seam_rigid_fit(2, 3, r2, X2, c, R));
    assert_true(fabs(atan2(R[3], R[0]) - th) < 1e-14 && fabs(c[0] - 0.5) < 1e-14 && fabs(c[1] + 1.0) < 1e-14);
}

/* ---- a ring (body 0) and a free point ---------------------------------- */

enum { RING = 16, NP = RING + 1, N = 2 * NP };
static const double ring_c[2] = {1.0, 2.0}, ring_r = 0.5;

static void ring_points(double *X)
{
    for (int i = 0; i < RING; i++) {
        double a = 2.0 * M_PI * i / RING;
        X[2 * i] = ring_c[0] + ring_r * cos(a), X[2 * i + 1] = ring_c[1] + ring_r * sin(a);
    }
    X[2 * RING] = 3.0, X[2 * RING + 1] = 3.0;
}

static rigid_dofs *ring_dofs(const double *X0)
{
    rigid_dofs_body b = {0, RING, {ring_c[0], ring_c[1], 0.0}, {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    char err[256];
    rigid_dofs *rd = rigid_dofs_new(2, NP, X0, &b, 1, err, sizeof err, NULL);
    assert_non_null(rd);
    return rd;
}

/* The largest change of a distance between two ring points from the committed ones. */
static double rigidity_error(const double *X, const double *X0)
{
    double worst = 0.0;
    for (int i = 0; i < RING; i++)
        for (int j = 0; j < i; j++) {
            double d = hypot(X[2 * i] - X[2 * j], X[2 * i + 1] - X[2 * j + 1]);
            double d0 = hypot(X0[2 * i] - X0[2 * j], X0[2 * i + 1] - X0[2 * j + 1]);
            worst = fmax(worst, fabs(d - d0));
        }
    return worst;
}

/* reduce and expand are inverse on rigid motions, expand makes any y rigid,
 * and lifted loads carry exactly the asked force and torque. */
static void test_reduce_expand_lift(void **state)
{
    (void)state;
    double X0[N], X[N], y[3 + 2], back[N];
    ring_points(X0);
    rigid_dofs *rd = ring_dofs(X0);
    assert_int_equal(rigid_dofs_reduced(rd), 5);   /* the free point's 2 values, the ring's 3 dofs */
    double th0 = 0.2;   /* a committed pose turned and moved */
    double Xn[N];
    for (int i = 0; i < RING; i++) {
        double ax = X0[2 * i] - ring_c[0], ay = X0[2 * i + 1] - ring_c[1];
        Xn[2 * i] = ring_c[0] + 0.1 + cos(th0) * ax - sin(th0) * ay;
        Xn[2 * i + 1] = ring_c[1] - 0.05 + sin(th0) * ax + cos(th0) * ay;
    }
    Xn[2 * RING] = 3.1, Xn[2 * RING + 1] = 2.9;
    assert_true(rigid_dofs_begin(rd, Xn));
    rigid_dofs_reduce_X(rd, Xn, y);
    for (int k = 2; k < 5; k++)
        assert_true(fabs(y[k]) < 1e-14);   /* the committed pose is the origin of the dofs */
    double yk[5] = {0.7, -0.3, 0.02, -0.01, 0.05 * ring_r};   /* free point, then t and r w */
    rigid_dofs_expand_X(rd, yk, X);
    assert_true(rigidity_error(X, X0) < 1e-12);
    assert_true(fabs(X[2 * RING] - 0.7) < 1e-15 && fabs(X[2 * RING + 1] + 0.3) < 1e-15);
    rigid_dofs_reduce_X(rd, X, y);
    for (int k = 0; k < 5; k++)
        assert_true(fabs(y[k] - yk[k]) < 1e-13);
    rigid_dofs_expand_X(rd, y, back);
    for (int k = 0; k < N; k++)
        assert_true(fabs(back[k] - X[k]) < 1e-13);
    /* the centre moved by t, the points turned by 0.05 about it */
    double c[2] = {0, 0};
    for (int i = 0; i < RING; i++)
        c[0] += X[2 * i] / RING, c[1] += X[2 * i + 1] / RING;
    assert_true(fabs(c[0] - (ring_c[0] + 0.1 + 0.02)) < 1e-13 && fabs(c[1] - (ring_c[1] - 0.05 - 0.01)) < 1e-13);
    /* lift: from arbitrary base loads to force (2, -1), torque 0.3, free point load (5, 6) */
    double base[N], G[5] = {5.0, 6.0, 2.0, -1.0, 0.3 / ring_r}, p[N], Gp[5];
    for (int k = 0; k < N; k++)
        base[k] = sin(0.7 * k);
    rigid_dofs_lift_F(rd, X, G, base, p);
    rigid_dofs_reduce_F(rd, X, p, Gp);
    for (int k = 0; k < 5; k++)
        assert_true(fabs(Gp[k] - G[k]) < 1e-13);
    double tau = 0.0;   /* the torque by hand about the moved centre */
    for (int i = 0; i < RING; i++)
        tau += (X[2 * i] - c[0]) * p[2 * i + 1] - (X[2 * i + 1] - c[1]) * p[2 * i];
    assert_true(fabs(tau - 0.3) < 1e-13);
    rigid_dofs_free(rd);
}

/* 3D: a body of 8 corners and a free point: reduce/expand are inverse on a
 * rigid motion, expand makes a rigid motion of any y (6 dofs), and the lift
 * carries exactly the asked force and torque. */
static void test_reduce_expand_lift_3d(void **state)
{
    (void)state;
    enum { C = 8, NP3 = C + 1, N3 = 3 * NP3 };
    double X0[N3], X[N3], y[3 + 6], back[N3];
    for (int i = 0; i < C; i++) {
        X0[3 * i] = 1.0 + ((i & 1) ? 0.3 : -0.3);
        X0[3 * i + 1] = 2.0 + ((i & 2) ? 0.2 : -0.2);
        X0[3 * i + 2] = -1.0 + ((i & 4) ? 0.1 : -0.1);
    }
    X0[3 * C] = 5.0, X0[3 * C + 1] = 5.0, X0[3 * C + 2] = 5.0;
    rigid_dofs_body b = {0, C, {1.1, 2.05, -1.0}, {1, 0, 0, 0, 1, 0, 0, 0, 1}};   /* off the corners' centroid */
    char err[256];
    rigid_dofs *rd = rigid_dofs_new(3, NP3, X0, &b, 1, err, sizeof err, NULL);
    assert_non_null(rd);
    assert_int_equal(rigid_dofs_reduced(rd), 9);
    assert_true(rigid_dofs_begin(rd, X0));
    double yk[9] = {0.1, 0.2, 0.3, 0.05, -0.02, 0.01, 0.03, -0.04, 0.02};   /* free point, t, r w */
    rigid_dofs_expand_X(rd, yk, X);
    double worst = 0.0;
    for (int i = 0; i < C; i++)
        for (int j = 0; j < i; j++) {
            double d = 0.0, d0 = 0.0;
            for (int a = 0; a < 3; a++) {
                d += (X[3 * i + a] - X[3 * j + a]) * (X[3 * i + a] - X[3 * j + a]);
                d0 += (X0[3 * i + a] - X0[3 * j + a]) * (X0[3 * i + a] - X0[3 * j + a]);
            }
            worst = fmax(worst, fabs(sqrt(d) - sqrt(d0)));
        }
    assert_true(worst < 1e-12);
    rigid_dofs_reduce_X(rd, X, y);
    for (int k = 0; k < 9; k++)
        assert_true(fabs(y[k] - yk[k]) < 1e-13);
    rigid_dofs_expand_X(rd, y, back);
    for (int k = 0; k < N3; k++)
        assert_true(fabs(back[k] - X[k]) < 1e-13);
    double base[N3], G[9] = {1, 2, 3, 0.5, -0.25, 2.0, 0.1, 0.2, -0.3}, p[N3], Gp[9];
    for (int k = 0; k < N3; k++)
        base[k] = cos(0.3 * k);
    rigid_dofs_lift_F(rd, X, G, base, p);
    rigid_dofs_reduce_F(rd, X, p, Gp);
    for (int k = 0; k < 9; k++)
        assert_true(fabs(Gp[k] - G[k]) < 1e-12);
    rigid_dofs_free(rd);
}

/* ---- the rmi on the ring ------------------------------------------------
 * Fluid: p_i = -mu (X_i - X_i^n) at every point (added mass). Solid: the
 * ring's centre moves by alpha F + d_t, it turns by beta tau + d_th (tau
 * about its centre with the arms where it ends, as solid_rigid takes them), the free point by
 * alpha_f p + d_f. With the ring's arms summing to 0, F = -mu N t and
 * tau = -mu N r^2 sin(th), so the fixed point is t = d_t / (1 + alpha mu N),
 * th = d_th - beta mu N r^2 sin(th) (Newton below), u = d_f / (1 + alpha_f mu). */

typedef struct {
    double mu, alpha, beta, alpha_f, d_t[2], d_th, d_f[2];
    double X0[N];
    double worst_rigidity;   /* over the fluid's inputs */
    int fluid_calls;
    seam_convergence cv;
} ring_maps;

static seam_status ring_fluid(void *ctx, const seam_coupling *c, const double *X, double *F)
{
    ring_maps *m = ctx;
    m->fluid_calls++;
    m->worst_rigidity = fmax(m->worst_rigidity, rigidity_error(X, m->X0));
    for (int k = 0; k < N; k++)
        F[k] = -m->mu * (X[k] - c->Xn[k]);
    return SEAM_OK;
}

static seam_status ring_solid(void *ctx, const seam_coupling *c, const double *F, double *X)
{
    ring_maps *m = ctx;
    double Ft[2] = {0, 0};
    for (int i = 0; i < RING; i++)
        Ft[0] += F[2 * i], Ft[1] += F[2 * i + 1];
    double t[2] = {m->alpha * Ft[0] + m->d_t[0], m->alpha * Ft[1] + m->d_t[1]}, th = m->d_th;
    /* as solid_rigid does: the torque with the arms where the step ends, th = beta tau(th) + d_th (Newton) */
    for (int it = 0; it < 60; it++) {
        double tau = 0.0, dtau = 0.0;
        for (int i = 0; i < RING; i++) {
            double ax = c->Xn[2 * i] - ring_c[0], ay = c->Xn[2 * i + 1] - ring_c[1];
            double bx = cos(th) * ax - sin(th) * ay, by = sin(th) * ax + cos(th) * ay;
            tau += bx * F[2 * i + 1] - by * F[2 * i];
            dtau += -by * F[2 * i + 1] - bx * F[2 * i];
        }
        th -= (th - m->beta * tau - m->d_th) / (1.0 - m->beta * dtau);
    }
    for (int i = 0; i < RING; i++) {
        double ax = c->Xn[2 * i] - ring_c[0], ay = c->Xn[2 * i + 1] - ring_c[1];
        X[2 * i] = ring_c[0] + t[0] + cos(th) * ax - sin(th) * ay;
        X[2 * i + 1] = ring_c[1] + t[1] + sin(th) * ax + cos(th) * ay;
    }
    for (int d = 0; d < 2; d++)
        X[2 * RING + d] = c->Xn[2 * RING + d] + m->alpha_f * F[2 * RING + d] + m->d_f[d];
    return SEAM_OK;
}

static seam_verdict ring_judge(void *ctx, seam_coupling *c, const seam_iterate *it)
{
    return seam_convergence_judge(&((ring_maps *)ctx)->cv, c, it);
}

static void ring_warn(void *ctx, const seam_coupling *c, const char *message)
{
    (void)ctx, (void)c, (void)message;
}

static const seam_coupling_ops ring_ops = {ring_fluid, ring_solid, ring_judge, ring_warn};

static int run_ring(ring_maps *m, const char *config, double *error, seam_verdict *v)
{
    const seam_scheme_ops *sc = seam_scheme_find("rmi");
    test_host host;
    test_host_init(&host, "coupling", "coupling");
    seam_cfg *cfg = seam_cfg_from_host(config, &host.host);
    void *self = sc->create(cfg);
    assert_int_equal(seam_cfg_finish(cfg), SEAM_OK);
    seam_cfg_destroy(&cfg);
    seam_convergence_read(&m->cv, NULL, 0.0);
    m->cv.measures[0].tolerance = 1e-11;
    m->cv.measures[1].tolerance = 1e-9;
    m->cv.max_iterations = 40;
    m->cv.reference = 1.0;
    ring_points(m->X0);
    rigid_dofs *rd = ring_dofs(m->X0);
    seam_coupling c;
    assert_int_equal(seam_coupling_init(&c, &ring_ops, m, N, 2), SEAM_OK);
    c.rigid = rd;
    double Xout[N], Xpred[N];
    memcpy(Xpred, m->X0, sizeof Xpred);
    Xpred[0] += 1e-3;   /* a prediction that is no rigid motion */
    seam_coupling_begin(&c, m->X0, 0.0, 0.01, 0);
    assert_int_equal(sc->step(self, &c, Xpred, Xout, v), SEAM_OK);
    /* the known fixed point */
    double k = m->alpha * m->mu * RING, t[2] = {m->d_t[0] / (1 + k), m->d_t[1] / (1 + k)}, th = m->d_th;
    double q = m->beta * m->mu * RING * ring_r * ring_r;
    for (int it = 0; it < 50; it++)
        th -= (th + q * sin(th) - m->d_th) / (1 + q * cos(th));
    *error = 0.0;
    for (int i = 0; i < RING; i++) {
        double ax = m->X0[2 * i] - ring_c[0], ay = m->X0[2 * i + 1] - ring_c[1];
        *error = fmax(*error, fabs(Xout[2 * i] - (ring_c[0] + t[0] + cos(th) * ax - sin(th) * ay)));
        *error = fmax(*error, fabs(Xout[2 * i + 1] - (ring_c[1] + t[1] + sin(th) * ax + cos(th) * ay)));
    }
    for (int d = 0; d < 2; d++)
        *error = fmax(*error, fabs(Xout[2 * RING + d] - (m->X0[2 * RING + d] + m->d_f[d] / (1 + m->alpha_f * m->mu))));
    int iterations = seam_coupling_iterations(&c);
    seam_coupling_fini(&c);
    rigid_dofs_free(rd);
    sc->destroy(self);
    return iterations;
}

static void ring_setup(ring_maps *m)
{
    memset(m, 0, sizeof *m);
    m->mu = 8.0;
    m->alpha = 10.0 / (m->mu * RING);   /* added mass 10 times the body's: Gauss-Seidel diverges */
    m->beta = 10.0 / (m->mu * RING * ring_r * ring_r);
    m->alpha_f = 0.5 / m->mu;
    m->d_t[0] = 0.01, m->d_t[1] = -0.02, m->d_th = 0.05, m->d_f[0] = 0.003, m->d_f[1] = 0.001;
}

/* On the ring's dofs every position the fluid sees is an exact rigid motion,
 * the answer is the known one, and 12 iterations reach it to 1e-11 m; on
 * the points (the option off) the fluid is handed shapes no rigid body
 * takes and 40 iterations do not converge. */
static void test_rmi_on_ring_dofs(void **state)
{
    (void)state;
    ring_maps m;
    ring_setup(&m);
    double error;
    seam_verdict v;
    int it = run_ring(&m, "{\"relaxation\": 1, \"filter\": 0}", &error, &v);
    assert_int_equal(v, SEAM_CONVERGED);
    assert_true(m.worst_rigidity < 1e-12);
    assert_true(error < 1e-9);
    assert_true(it <= 12);
    ring_maps p;
    ring_setup(&p);
    double error_p;
    run_ring(&p, "{\"relaxation\": 1, \"filter\": 0, \"rigid_dofs\": false}", &error_p, &v);
    assert_int_equal(v, SEAM_EXHAUSTED);   /* 40 iterations are not enough there */
    assert_true(p.worst_rigidity > 1e-6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotation_exp_log_known),
        cmocka_unit_test(test_rigid_fit_known_motion),
        cmocka_unit_test(test_reduce_expand_lift),
        cmocka_unit_test(test_reduce_expand_lift_3d),
        cmocka_unit_test(test_rmi_on_ring_dofs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
