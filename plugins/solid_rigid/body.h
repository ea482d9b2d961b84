/* One rigid body: its constant description (shape, mass, how it may move,
 * prescribed loads) and its state, and the steps that advance the state.
 *
 * The equations of motion are Akbay eqs. in section 4.2.3: dP/dt = f,
 * dL/dt = tau, dx/dt = v, dR/dt = omega* R with v = P/M, omega = I^-1 L and
 * I = R I_0 R^T. A step is kick (velocities from the step-averaged loads),
 * contact (impulses on the velocities), drift (positions with the mean of the
 * old and new velocities), then the torque's change over the step (Stoermer-
 * Verlet, symplectic). Exact for constant loads. */
#ifndef SEAM_RIGID_BODY_H
#define SEAM_RIGID_BODY_H

#include <stdbool.h>
#include <stddef.h>

#include "shape.h"

typedef enum rigid_mode {
    RIGID_FREE,        /* 3 (2D) or 6 (3D) degrees of freedom */
    RIGID_TRANSLATE,   /* slides along a fixed axis, orientation fixed */
    RIGID_ROTATE,      /* turns about a fixed axis through a fixed pivot */
    RIGID_KINEMATIC    /* prescribed motion; infinite mass for contact */
} rigid_mode;

typedef enum rigid_profile {
    RIGID_CONSTANT,          /* 1 on [start, end) */
    RIGID_RAMP,              /* 0 before start, linear to 1 at start + duration, 1 until end */
    RIGID_COSINE_RELEASE     /* 1 before start, 0.5 + 0.5 cos(pi (t - start) / duration), then 0 */
} rigid_profile;

/* An external load: world force applied at a body point, plus a world torque. */
typedef struct rigid_load {
    double force[3];
    double torque[3];
    double point[3];         /* body frame, from the centre of mass */
    rigid_profile profile;
    double start, duration, end;
} rigid_load;

/* The state of a body; plain data, saved and loaded as bytes. */
typedef struct rigid_state {
    double x[3];             /* centre of mass (m) */
    double q[4];             /* orientation, body to world */
    double v[3];             /* centre-of-mass velocity (m/s) */
    double L[3];             /* angular momentum about the centre of mass, world (kg m^2/s) */
    double w[3];             /* angular velocity, world (rad/s); derived from L for free bodies */
    double s, sdot;          /* coordinate and rate along the constraint (m or rad) */
} rigid_state;

typedef struct rigid_body {
    char *name;
    rigid_shape shape;
    rigid_mode mode;
    double m;                /* mass (kg, kg/m in 2D) */
    double I0[3];            /* principal moments of inertia (body frame) */
    double restitution, friction;
    double axis[3];          /* constraint direction (unit) */
    double pivot[3];         /* RIGID_ROTATE */
    double m_axis;           /* the inertia seen along the constraint: m, or I about the axis */
    double x0[3], q0[4];     /* reference configuration (constraints, kinematic) */
    double kv[3], kamp[3], kfreq, kphase, kw[3];   /* prescription */
    rigid_load *loads;
    size_t n_loads;
    double *r;               /* interface samples, body frame, 3 per point */
    size_t first, n_pts;     /* the samples' range among the solver's points */
} rigid_body;

/* Positions of the constraint coordinate s, or of time t for kinematic bodies. */
void rigid_body_place(const rigid_body *b, rigid_state *S, double t);
/* Angular velocity from L and the current orientation (free bodies). */
void rigid_body_update_w(const rigid_body *b, rigid_state *S);
/* Inverse world inertia applied to a (free bodies). */
void rigid_body_iinv(const rigid_body *b, const rigid_state *S, const double *a, double *out);
/* World position of body-frame point r. */
void rigid_body_point(const rigid_state *S, const double *r, double *X);
/* Velocity of the body at world point p. */
void rigid_body_velocity_at(const rigid_state *S, const double *p, double *vel);
/* Velocity change at world point p2 caused by impulse J at world point p1. */
void rigid_body_response(const rigid_body *b, const rigid_state *S, const double *p1, const double *J,
                         const double *p2, double *dv);
/* Apply impulse J at world point p to the velocities of S. */
void rigid_body_impulse(const rigid_body *b, rigid_state *S, const double *p, const double *J);
/* Move S as a pseudo-impulse P at p would (contact position correction). */
void rigid_body_displace(const rigid_body *b, rigid_state *S, const double *p, const double *P);
/* Step-averaged factor of a load's profile over [t, t + dt]. */
double rigid_load_factor(const rigid_load *ld, double t, double dt);

/* Kick: velocities of `out` from those of S and the step-averaged force F and
 * torque tau about the centre of mass (world). Positions of out = those of S. */
void rigid_body_kick(const rigid_body *b, const rigid_state *S, const double *F, const double *tau,
                     double dt, rigid_state *out);
/* Second half of the kick (Stoermer-Verlet) for loads fixed in direction
 * (gravity, prescribed forces) whose torque changes as the body turns: add
 * dt/2 (tau_end - tau_start), tau_end at out's configuration. F is their
 * force (it sets the torque about a pivot). */
void rigid_body_correct(const rigid_body *b, const rigid_state *S, rigid_state *out, const double *F,
                        const double *tau_start, const double *tau_end, double dt);
/* Drift: positions of `out` from S with the mean of S's and out's velocities.
 * t_end is the time at the end of the step (kinematic bodies). Returns false
 * when the rotation update did not converge (dt too large for the spin). */
bool rigid_body_drift(const rigid_body *b, const rigid_state *S, rigid_state *out, double dt, double t_end);

#endif
