#include <math.h>
#include <string.h>

#include "body.h"
#include "quat.h"

static void q_rotate(const double *q, const double *a, double *out)
{
    double R[9];
    q_to_mat(R, q);
    seam_m3_mul_v(out, R, a);
}

void rigid_body_iinv(const rigid_body *b, const rigid_state *S, const double *a, double *out)
{
    double R[9], ab[3];
    q_to_mat(R, S->q);
    seam_m3_mul_tv(ab, R, a);
    for (int k = 0; k < 3; k++)
        ab[k] /= b->I0[k];
    seam_m3_mul_v(out, R, ab);   /* I^-1 = R I_0^-1 R^T (Akbay 4.2.3) */
}

/* World inertia applied to a: R I_0 R^T a. */
static void body_iw(const rigid_body *b, const rigid_state *S, const double *a, double *out)
{
    double R[9], ab[3];
    q_to_mat(R, S->q);
    seam_m3_mul_tv(ab, R, a);
    for (int k = 0; k < 3; k++)
        ab[k] *= b->I0[k];
    seam_m3_mul_v(out, R, ab);
}

void rigid_body_update_w(const rigid_body *b, rigid_state *S)
{
    rigid_body_iinv(b, S, S->L, S->w);   /* omega = I^-1 L */
}

void rigid_body_place(const rigid_body *b, rigid_state *S, double t)
{
    switch (b->mode) {
    case RIGID_FREE:
        rigid_body_update_w(b, S);
        return;
    case RIGID_TRANSLATE:
        for (int k = 0; k < 3; k++) {
            S->x[k] = b->x0[k] + S->s * b->axis[k];
            S->v[k] = S->sdot * b->axis[k];
        }
        memcpy(S->q, b->q0, sizeof S->q);
        seam_v3_set(S->w, 0, 0, 0);
        seam_v3_set(S->L, 0, 0, 0);
        return;
    case RIGID_ROTATE: {
        double wv[3], qa[4], d[3], rd[3];
        seam_v3_scale(wv, S->s, b->axis);
        q_exp(qa, wv);
        q_mul(S->q, qa, b->q0);
        seam_v3_sub(d, b->x0, b->pivot);
        q_rotate(qa, d, rd);
        seam_v3_add(S->x, b->pivot, rd);
        seam_v3_scale(S->w, S->sdot, b->axis);
        seam_v3_cross(S->v, S->w, rd);
        body_iw(b, S, S->w, S->L);
        return;
    }
    case RIGID_KINEMATIC: {
        double ph = 2.0 * M_PI * b->kfreq * t + b->kphase, wt[3], qa[4];
        for (int k = 0; k < 3; k++) {
            S->x[k] = b->x0[k] + b->kv[k] * t + b->kamp[k] * (sin(ph) - sin(b->kphase));
            S->v[k] = b->kv[k] + b->kamp[k] * 2.0 * M_PI * b->kfreq * cos(ph);
        }
        seam_v3_scale(wt, t, b->kw);
        q_exp(qa, wt);
        q_mul(S->q, qa, b->q0);   /* constant world angular velocity: q(t) = exp(w t) q0 */
        seam_v3_copy(S->w, b->kw);
        body_iw(b, S, S->w, S->L);
        return;
    }
    }
}

void rigid_body_point(const rigid_state *S, const double *r, double *X)
{
    double d[3];
    q_rotate(S->q, r, d);
    seam_v3_add(X, S->x, d);
}

void rigid_body_velocity_at(const rigid_state *S, const double *p, double *vel)
{
    double d[3], wd[3];
    seam_v3_sub(d, p, S->x);
    seam_v3_cross(wd, S->w, d);
    seam_v3_add(vel, S->v, wd);
}

void rigid_body_response(const rigid_body *b, const rigid_state *S, const double *p1, const double *J,
                         const double *p2, double *dv)
{
    double r1[3], r2[3], t[3], dw[3];
    switch (b->mode) {
    case RIGID_FREE:
        seam_v3_sub(r1, p1, S->x);
        seam_v3_sub(r2, p2, S->x);
        seam_v3_cross(t, r1, J);
        rigid_body_iinv(b, S, t, dw);
        seam_v3_cross(dv, dw, r2);
        seam_v3_axpy(dv, 1.0 / b->m, J);   /* dv = J/m + (I^-1 (r1 x J)) x r2 */
        return;
    case RIGID_TRANSLATE:
        seam_v3_scale(dv, seam_v3_dot(b->axis, J) / b->m, b->axis);
        return;
    case RIGID_ROTATE:
        seam_v3_sub(r1, p1, b->pivot);
        seam_v3_sub(r2, p2, b->pivot);
        seam_v3_cross(t, r1, J);
        seam_v3_scale(dw, seam_v3_dot(b->axis, t) / b->m_axis, b->axis);
        seam_v3_cross(dv, dw, r2);
        return;
    case RIGID_KINEMATIC:
        seam_v3_set(dv, 0, 0, 0);
        return;
    }
}

void rigid_body_impulse(const rigid_body *b, rigid_state *S, const double *p, const double *J)
{
    double r[3], t[3];
    switch (b->mode) {
    case RIGID_FREE:
        seam_v3_sub(r, p, S->x);
        seam_v3_cross(t, r, J);
        seam_v3_axpy(S->v, 1.0 / b->m, J);
        seam_v3_add(S->L, S->L, t);
        rigid_body_update_w(b, S);
        return;
    case RIGID_TRANSLATE:
        S->sdot += seam_v3_dot(b->axis, J) / b->m;
        seam_v3_scale(S->v, S->sdot, b->axis);
        return;
    case RIGID_ROTATE:
        seam_v3_sub(r, p, b->pivot);
        seam_v3_cross(t, r, J);
        S->sdot += seam_v3_dot(b->axis, t) / b->m_axis;
        seam_v3_scale(S->w, S->sdot, b->axis);
        seam_v3_sub(r, S->x, b->pivot);
        seam_v3_cross(S->v, S->w, r);
        return;
    case RIGID_KINEMATIC:
        return;
    }
}

void rigid_body_displace(const rigid_body *b, rigid_state *S, const double *p, const double *P)
{
    double r[3], t[3], dth[3], qd[4], qn[4];
    switch (b->mode) {
    case RIGID_FREE:
        seam_v3_sub(r, p, S->x);
        seam_v3_cross(t, r, P);
        rigid_body_iinv(b, S, t, dth);
        seam_v3_axpy(S->x, 1.0 / b->m, P);
        q_exp(qd, dth);
        q_mul(qn, qd, S->q);
        q_normalize(qn);
        memcpy(S->q, qn, sizeof qn);
        rigid_body_update_w(b, S);
        return;
    case RIGID_TRANSLATE:
        S->s += seam_v3_dot(b->axis, P) / b->m;
        rigid_body_place(b, S, 0.0);
        return;
    case RIGID_ROTATE:
        seam_v3_sub(r, p, b->pivot);
        seam_v3_cross(t, r, P);
        S->s += seam_v3_dot(b->axis, t) / b->m_axis;
        rigid_body_place(b, S, 0.0);
        return;
    case RIGID_KINEMATIC:
        return;
    }
}

/* Integral of a profile's value from its start (cosine_release: signed, 0 at
 * start), ignoring end; the step average is then exact for any dt. */
static double profile_integral(const rigid_load *ld, double t)
{
    double u = t - ld->start, d = ld->duration;
    switch (ld->profile) {
    case RIGID_CONSTANT:
        return fmax(0.0, u);
    case RIGID_RAMP:
        if (u < 0)
            return 0.0;
        return u < d ? 0.5 * u * u / d : 0.5 * d + (u - d);
    case RIGID_COSINE_RELEASE:
        if (u < 0)
            return u;   /* value 1 before the release */
        /* Akbay section 4.3 piston: f(t) = (0.5 cos(pi (t - t0) / T) + 0.5) f_max */
        return u < d ? 0.5 * u + 0.5 * d / M_PI * sin(M_PI * u / d) : 0.5 * d;
    }
    return 0.0;
}

double rigid_load_factor(const rigid_load *ld, double t, double dt)
{
    /* loads are averages over the step: (G(t + dt) - G(t)) / dt, with the value 0 after end */
    double a = fmin(t, ld->end), b = fmin(t + dt, ld->end);
    return (profile_integral(ld, b) - profile_integral(ld, a)) / dt;
}

void rigid_body_kick(const rigid_body *b, const rigid_state *S, const double *F, const double *tau,
                     double dt, rigid_state *out)
{
    *out = *S;
    double d[3], tp[3];
    switch (b->mode) {
    case RIGID_FREE:
        seam_v3_axpy(out->v, dt / b->m, F);   /* dP/dt = f */
        seam_v3_axpy(out->L, dt, tau);        /* dL/dt = tau */
        rigid_body_update_w(b, out);
        return;
    case RIGID_TRANSLATE:
        out->sdot += dt * seam_v3_dot(b->axis, F) / b->m;
        seam_v3_scale(out->v, out->sdot, b->axis);
        return;
    case RIGID_ROTATE:
        seam_v3_sub(d, S->x, b->pivot);
        seam_v3_cross(tp, d, F);
        seam_v3_add(tp, tp, tau);   /* torque about the pivot */
        out->sdot += dt * seam_v3_dot(b->axis, tp) / b->m_axis;
        seam_v3_scale(out->w, out->sdot, b->axis);
        seam_v3_cross(out->v, out->w, d);
        return;
    case RIGID_KINEMATIC:
        return;
    }
}

void rigid_body_correct(const rigid_body *b, const rigid_state *S, rigid_state *out, const double *F,
                        const double *tau_start, const double *tau_end, double dt)
{
    double d0[3], d1[3], t0[3], t1[3];
    switch (b->mode) {
    case RIGID_FREE:
        for (int k = 0; k < 3; k++)
            out->L[k] += 0.5 * dt * (tau_end[k] - tau_start[k]);
        rigid_body_update_w(b, out);
        return;
    case RIGID_ROTATE:
        seam_v3_sub(d0, S->x, b->pivot);
        seam_v3_sub(d1, out->x, b->pivot);
        seam_v3_cross(t0, d0, F);
        seam_v3_cross(t1, d1, F);
        seam_v3_add(t0, t0, tau_start);
        seam_v3_add(t1, t1, tau_end);
        out->sdot += 0.5 * dt * seam_v3_dot(b->axis, t1) / b->m_axis - 0.5 * dt * seam_v3_dot(b->axis, t0) / b->m_axis;
        rigid_body_place(b, out, 0.0);
        return;
    case RIGID_TRANSLATE:
    case RIGID_KINEMATIC:
        return;
    }
}

/* Torque-free rotation over dt with world angular momentum Ld: the implicit
 * midpoint rule on body momentum Pi, Pi1 = exp(-dt w_m^) Pi0 with
 * w_m = I_0^-1 (Pi0 + Pi1)/2, and R1 = R0 exp(dt w_m^). R1 Pi1 = R0 Pi0
 * keeps L exactly, and Pi1 - Pi0 is normal to w_m, which keeps the energy. */
static bool free_rotation(const rigid_body *b, const double *q0, const double *Ld, double dt, double *q1)
{
    double R[9], Pi0[3], Pi1[3], wm[3], mdt[3], qr[4], Rr[9], nxt[3];
    q_to_mat(R, q0);
    seam_m3_mul_tv(Pi0, R, Ld);
    seam_v3_copy(Pi1, Pi0);
    double scale = seam_v3_norm(Pi0);
    bool ok = false;
    for (int it = 0; it < 200; it++) {
        for (int k = 0; k < 3; k++)
            wm[k] = 0.5 * (Pi0[k] + Pi1[k]) / b->I0[k];
        seam_v3_scale(mdt, -dt, wm);
        q_exp(qr, mdt);
        q_to_mat(Rr, qr);
        seam_m3_mul_v(nxt, Rr, Pi0);
        double ch = fabs(nxt[0] - Pi1[0]) + fabs(nxt[1] - Pi1[1]) + fabs(nxt[2] - Pi1[2]);
        seam_v3_copy(Pi1, nxt);
        if (ch <= 1e-14 * scale) {
            ok = true;
            break;
        }
    }
    for (int k = 0; k < 3; k++)
        wm[k] = 0.5 * (Pi0[k] + Pi1[k]) / b->I0[k];
    seam_v3_scale(mdt, dt, wm);
    q_exp(qr, mdt);
    q_mul(q1, q0, qr);
    q_normalize(q1);
    return ok;
}

bool rigid_body_drift(const rigid_body *b, const rigid_state *S, rigid_state *out, double dt, double t_end)
{
    switch (b->mode) {
    case RIGID_FREE: {
        double Ld[3];
        for (int k = 0; k < 3; k++) {
            out->x[k] = S->x[k] + 0.5 * dt * (S->v[k] + out->v[k]);   /* dx/dt = v, trapezoidal */
            Ld[k] = 0.5 * (S->L[k] + out->L[k]);
        }
        bool ok = free_rotation(b, S->q, Ld, dt, out->q);
        rigid_body_update_w(b, out);
        return ok;
    }
    case RIGID_TRANSLATE:
    case RIGID_ROTATE:
        out->s = S->s + 0.5 * dt * (S->sdot + out->sdot);
        rigid_body_place(b, out, t_end);
        return true;
    case RIGID_KINEMATIC:
        rigid_body_place(b, out, t_end);
        return true;
    }
    return true;
}
