/* solid_rigid's step: Akbay section 4.2.3's equations of motion advanced by
 * kick, contact, drift and the Stoermer-Verlet torque correction (body.h),
 * with the interface loads' torque taken at the step's end (the arms'
 * sweeps below). */
#include <math.h>
#include <string.h>

#include "seam/log.h"

#include "quat.h"
#include "solver.h"

/* The interface loads' arms are settled when a sweep moves none by more than
 * ARM_TOLERANCE times the longest arm; RIGID_ARM_SWEEPS sweeps at most. */
#define ARM_TOLERANCE 1e-13

/* Step-averaged force and torque about the centre of mass on body i, with
 * the points and load arms placed as in state S. */
static void body_loads(const rigid_solver *rs, size_t i, const rigid_state *S, const rigid_state *A,
                       const seam_step *step, const seam_input *in, double *F, double *tau)
{
    const rigid_body *b = &rs->bodies[i];
    seam_v3_scale(F, b->m, rs->set.gravity);
    seam_v3_set(tau, 0, 0, 0);
    for (size_t k = 0; k < b->n_loads; k++) {
        const rigid_load *ld = &b->loads[k];
        double f = rigid_load_factor(ld, step->t, step->dt), fk[3], p[3], arm[3], t[3];
        seam_v3_scale(fk, f, ld->force);
        seam_v3_add(F, F, fk);
        seam_v3_axpy(tau, f, ld->torque);
        rigid_body_point(S, ld->point, p);
        seam_v3_sub(arm, p, S->x);
        seam_v3_cross(t, arm, fk);
        seam_v3_add(tau, tau, t);
    }
    if (!in || !in->F)
        return;
    for (size_t k = 0; k < b->n_pts; k++) {
        double Fi[3] = {0, 0, 0}, p[3], arm[3], t[3];
        for (int d = 0; d < rs->set.dim; d++)
            Fi[d] = in->F[(b->first + k) * (size_t)rs->set.dim + (size_t)d];
        rigid_body_point(A, b->r + 3 * k, p);
        seam_v3_sub(arm, p, A->x);
        seam_v3_cross(t, arm, Fi);
        seam_v3_add(F, F, Fi);   /* point loads summed into force and torque (Akbay 2.3.4) */
        seam_v3_add(tau, tau, t);
    }
}

/* The largest distance between a sample's arm in state A and in state B. */
static double arms_moved(const rigid_solver *rs, const rigid_state *A, const rigid_state *B)
{
    double moved = 0.0;
    for (size_t i = 0; i < rs->n_bodies; i++)
        for (size_t k = 0; k < rs->bodies[i].n_pts; k++) {
            double a[3], bb[3], d[3];
            rigid_body_point(&A[i], rs->bodies[i].r + 3 * k, a);
            rigid_body_point(&B[i], rs->bodies[i].r + 3 * k, bb);
            seam_v3_sub(a, a, A[i].x);
            seam_v3_sub(bb, bb, B[i].x);
            seam_v3_sub(d, a, bb);
            moved = fmax(moved, seam_v3_norm(d));
        }
    return moved;
}

/* One pass of the step from S to T with the interface loads' arms taken in
 * state A; false when the rotation update failed or the state is not finite. */
static bool step_bodies(rigid_solver *rs, const seam_step *step, const seam_input *in, const rigid_state *A)
{
    double dt = step->dt, t_end = step->t + step->dt;
    bool ok = true;
    /* kick and a provisional drift: where the bodies would go without contact */
    for (size_t i = 0; i < rs->n_bodies; i++) {
        double F[3], tau[3];
        body_loads(rs, i, &rs->S[i], &A[i], step, in, F, tau);
        rigid_body_kick(&rs->bodies[i], &rs->S[i], F, tau, dt, &rs->T[i]);
        ok = rigid_body_drift(&rs->bodies[i], &rs->S[i], &rs->T[i], dt, t_end) && ok;
    }
    /* contact impulses at the provisional positions; impulses can close gaps
     * the provisional positions had open, so detect again until nothing changes */
    bool touched = false;
    for (int round = 0; round < 4; round++) {
        rigid_contacts_find(&rs->world, rs->T, &rs->contacts);
        if (rs->contacts.n == 0)
            break;
        double g = seam_v3_norm(rs->set.gravity);
        double change = rigid_contacts_solve(&rs->world, rs->T, &rs->contacts, 2.0 * g * dt);
        if (change <= rs->world.tolerance)
            break;
        touched = true;
        for (size_t i = 0; i < rs->n_bodies; i++)   /* the drift with the new velocities */
            ok = rigid_body_drift(&rs->bodies[i], &rs->S[i], &rs->T[i], dt, t_end) && ok;
    }
    if (touched || rs->contacts.n)
        rigid_contacts_project(&rs->world, rs->T, &rs->contacts);
    /* Verlet for the plugin's own loads only: the interface loads already
     * act at the end of the step, where the fluid computed them */
    for (size_t i = 0; i < rs->n_bodies; i++) {
        double F0[3], tau0[3], F1[3], tau1[3];
        body_loads(rs, i, &rs->S[i], &rs->S[i], step, NULL, F0, tau0);
        body_loads(rs, i, &rs->T[i], &rs->T[i], step, NULL, F1, tau1);
        rigid_body_correct(&rs->bodies[i], &rs->S[i], &rs->T[i], F0, tau0, tau1, dt);
    }
    for (size_t i = 0; i < rs->n_bodies && ok; i++)
        ok = isfinite(seam_v3_norm(rs->T[i].x) + seam_v3_norm(rs->T[i].v) + seam_v3_norm(rs->T[i].w) + rs->T[i].q[0]);
    return ok;
}

/* The rotation vector of state B's rotation from state S's (world frame);
 * in 2D its z component alone. */
static void rotation_from(const rigid_solver *rs, const rigid_state *S, const rigid_state *B, double *a)
{
    double qs[4] = {S->q[0], -S->q[1], -S->q[2], -S->q[3]}, r[4];
    q_mul(r, B->q, qs);
    q_log(a, r);
    if (rs->set.dim == 2)
        a[0] = a[1] = 0.0;
}

/* One Broyden step (sweep > 0) or plain step (sweep 0) of body i's arms on
 * g(a) = a_T - a, a the rotation of the arms (rs->A) from the committed
 * state (rs->S) and a_T that of the sweep's result (rs->T): the next arms
 * take T's state with the rotation a - J^-1 g. J starts at -I; the "good"
 * update J += (dg - J da) da^T / (da . da) (Broyden 1965) keeps
 * J da = dg on the last change. In 2D only the angle (z) is solved for. */
static void arm_broyden(rigid_solver *rs, size_t i, int sweep)
{
    double *a_prev = rs->sweep + RIGID_SWEEP_STRIDE * i, *g_prev = a_prev + 3, *J = a_prev + 6;
    int k0 = rs->set.dim == 2 ? 2 : 0;
    double a[3], at[3], g[3], next[3];
    rotation_from(rs, &rs->S[i], &rs->A[i], a);
    rotation_from(rs, &rs->S[i], &rs->T[i], at);
    seam_v3_sub(g, at, a);
    seam_v3_copy(next, at);   /* the plain sweep: a + g */
    if (sweep == 0) {
        for (int r = 0; r < 9; r++)
            J[r] = r % 4 == 0 ? -1.0 : 0.0;
    } else {
        double da[3], dg[3], Jda[3];
        seam_v3_sub(da, a, a_prev);
        seam_v3_sub(dg, g, g_prev);
        double dd = seam_v3_dot(da, da);
        if (dd > 1e-300) {
            seam_m3_mul_v(Jda, J, da);
            for (int r = k0; r < 3; r++)
                for (int c = k0; c < 3; c++)
                    J[3 * r + c] += (dg[r] - Jda[r]) * da[c] / dd;
        }
        /* next = a - J^-1 g on the solved components (Cramer's rule in 3D) */
        double s[3] = {0.0, 0.0, 0.0};
        bool solved = false;
        if (rs->set.dim == 2) {
            if (fabs(J[8]) > 1e-300 && isfinite(J[8])) {
                s[2] = -g[2] / J[8];
                solved = true;
            }
        } else {
            double c0[3] = {J[0], J[3], J[6]}, c1[3] = {J[1], J[4], J[7]}, c2[3] = {J[2], J[5], J[8]}, x[3];
            seam_v3_cross(x, c1, c2);
            double det = seam_v3_dot(c0, x);
            if (isfinite(det) && fabs(det) > 1e-300) {
                double mg[3] = {-g[0], -g[1], -g[2]}, t[3];
                seam_v3_cross(t, c1, c2);
                s[0] = seam_v3_dot(mg, t) / det;
                seam_v3_cross(t, c2, c0);
                s[1] = seam_v3_dot(mg, t) / det;
                seam_v3_cross(t, c0, c1);
                s[2] = seam_v3_dot(mg, t) / det;
                solved = true;
            }
        }
        if (solved && isfinite(seam_v3_norm(s)))
            seam_v3_add(next, a, s);
    }
    seam_v3_copy(a_prev, a);
    seam_v3_copy(g_prev, g);
    double dq[4];
    q_exp(dq, next);
    rs->A[i] = rs->T[i];
    q_mul(rs->A[i].q, dq, rs->S[i].q);
    q_normalize(rs->A[i].q);
}

/* The step from S into T. The fluid computed the interface loads on the
 * samples where this step ends (the positions it was given), so their
 * torque takes its arms there: the step is repeated with the arms of its
 * own result until they stop moving. Arms that lag the body's turn dtheta
 * make a uniform pressure p0, which pushes on no closed body, exert
 * p0 (2 x area) sin dtheta: a torque that depends on the pressure's gauge
 * and spins a body up in a fluid whose pressure is negative around it. The
 * sweeps contract by about dt^2 |p0| (2 x area) / I.
 *
 * The arms depend on each body's rotation alone, and the sweep is a fixed
 * point a -> a_T(a) on the rotation a of the arms (its rotation vector from
 * the committed state S), whose slope is about -dt^2 |p0| (2 x area) / I:
 * beyond 1 in magnitude (a light body in a deep liquid: a disc of
 * 100 kg/m^2 under 1.2 m of water at dt = 0.01 s has about 2) plain sweeps
 * diverge. Broyden's method per body on g(a) = a_T - a, its Jacobian
 * started at -1 (the first sweep is a plain one), settles them while the
 * map is near affine: in 2D (one angle) it is the secant method, exact in
 * one step where the map is affine. It is not for a tenfold slope (the
 * disc at 10 kg/m^2): the torque goes as sin of the arms' turn and the
 * turn wraps, so the map has roots whole turns away (a sweep settled on
 * one with 5000 rad/s) and the sweeps fail at every dt (measured, issue 32
 * item 4: dt down to 1.6e-8 s at t = 0.024 s). */
rigid_step_result rigid_step(rigid_solver *rs, const seam_step *step, const seam_input *in)
{
    memcpy(rs->A, rs->S, rs->n_bodies * sizeof *rs->A);
    double scale = 0.0;   /* the longest arm */
    for (size_t i = 0; i < rs->n_bodies; i++)
        for (size_t k = 0; k < rs->bodies[i].n_pts; k++)
            scale = fmax(scale, seam_v3_norm(rs->bodies[i].r + 3 * k));
    bool ok = true, settled = !in || !in->F;
    bool arms = !settled;
    int sweep = 0;
    do {
        ok = step_bodies(rs, step, in, rs->A);
        double moved = ok ? arms_moved(rs, rs->A, rs->T) : 0.0;
        settled = settled || moved <= ARM_TOLERANCE * scale;
        for (size_t i = 0; arms && ok && !settled && i < rs->n_bodies; i++)
            arm_broyden(rs, i, sweep);
        if (!arms || settled)
            memcpy(rs->A, rs->T, rs->n_bodies * sizeof *rs->A);
    } while (ok && !settled && ++sweep < RIGID_ARM_SWEEPS);
    return !ok ? RIGID_STEP_FAILED : !settled ? RIGID_STEP_UNSETTLED : RIGID_STEP_OK;
}

seam_status rigid_max_dt(void *self, double *dt)
{
    rigid_solver *rs = self;
    *dt = INFINITY;
    if (rs->set.dim == 2)
        return SEAM_OK;   /* planar rotation is exact; nothing limits the step */
    for (size_t i = 0; i < rs->n_bodies; i++) {
        double w = seam_v3_norm(rs->S[i].w);
        if (!isfinite(w)) {
            seam_logf(rs->host, SEAM_LOG_ERROR, "max_dt: body %zu has angular velocity %g", i, w);
            return SEAM_ERROR;
        }
        /* the implicit rotation update converges while the body turns less than about half a radian */
        if (rs->bodies[i].mode == RIGID_FREE && w > 0)
            *dt = fmin(*dt, 0.5 / w);
    }
    return SEAM_OK;
}
