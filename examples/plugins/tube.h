/* The 1D flexible tube: unsteady incompressible flow in an elastic tube, the
 * standard test bed of partitioned coupling (Degroote et al.). One
 * discretization shared by the fluid, the wall (solid) and the monolithic
 * reference, so all three solve exactly the same discrete equations.
 *
 * Staggered grid on [0, L] with N cells of width dx: cross-section a_j and
 * pressure p_j at cell centres, velocity u_f on faces f = 0..N (u_0 is the
 * inflow). Backward Euler in time. Face areas A_f = (a_{f-1} + a_f)/2 inside,
 * A_0 = a_0, A_N = a_{N-1}; face fluxes Q_f = A_f u_f. Equations:
 *   continuity, cell j:   dx (a_j - a_j^n)/dt + Q_{j+1} - Q_j = 0
 *   momentum, face f<N:   dx (A_f u_f - A_f^n u_f^n)/dt + M_f - M_{f-1} + A_f/rho (p_f - p_{f-1}) = 0
 *   momentum, face N:     dx/2 (A_N u_N - ...)/dt + Q_N u_N - M_{N-1} + A_N/rho (p_L - p_{N-1}) = 0
 * with the upwind momentum flux at cell centres M_j = q_j u_up, q_j = (Q_j + Q_{j+1})/2.
 *   wall law, cell j:     a_j = a0 ((p0/(2 rho) - c^2) / (p_j/(2 rho) - c^2))^2
 * whose small-amplitude wave speed is c (Moens-Korteweg).
 * Inflow u_0(t) = u0 (1 + A sin^2(pi t / T)) ("sin2"), or u0 (1 + A sin(2 pi t / T))
 * ("sine", preCICE's elastic-tube-1d). Outlet pressure p_L at x = L: fixed p_out,
 * or non-reflecting (Degroote, Bruggeman, Haelterman, Vierendeels 2008, eq. 15):
 *   p_L = 2 rho (c^2 - (sqrt(c^2 - p_L^n/(2 rho)) - (u_N - u_N^n)/4)^2). */
#ifndef TUBE_H
#define TUBE_H

#include <stddef.h>

#include "seam/config.h"
#include "ranges.h"

typedef struct tube_params {
    size_t N;            /* cells */
    double L;            /* length (m) */
    double rho;          /* density (kg/m^3) */
    double u0;           /* mean inflow velocity (m/s) */
    double amplitude;    /* pulse amplitude, fraction of u0 */
    double period;       /* pulse period (s) */
    double p_out;        /* outlet pressure (Pa), and the start's for a non-reflecting outlet */
    int sine;            /* inflow u0 (1 + A sin(2 pi t/T)) instead of u0 (1 + A sin^2(pi t/T)) */
    int non_reflecting;  /* outlet by eq. 15 of Degroote et al. 2008 instead of p_out */
    int collocated;      /* fluid: preCICE's elastic-tube-1d discretization (N + 1 nodes), not the staggered one */
    double a0;           /* cross-section at the reference pressure (m^2) */
    double c;            /* wave speed (m/s) */
    double p0;           /* reference pressure of the wall law (Pa) */
} tube_params;

/* Read the keys of the fluid (fluid = 1), of the wall (wall = 1) or both. */
void tube_params_read(tube_params *tp, seam_cfg *cfg, const seam_range_table *keys, int fluid, int wall);

double tube_inflow(const tube_params *tp, double t);
/* The outlet pressure p_L for the outlet velocity u_N, from the committed
 * p_L^n and u_N^n: p_out, or eq. 15 (NAN past the wall law's pole). */
double tube_outlet_pressure(const tube_params *tp, double pL_n, double u_N, double u_N_n);
/* The wall law a(p); NAN where p is past the law's pole p = 2 rho c^2. */
double tube_wall_area(const tube_params *tp, double p);

/* Fluid for given end-of-step areas a: continuity gives u face by face from
 * the inlet, momentum gives p cell by cell from the outlet, whose pressure
 * *pL follows from u_N and the committed pL_n. u has N + 1 entries, p N.
 * Returns 0, -1 with *bad the face whose area is not positive, or -2 when
 * the non-reflecting outlet has no real pressure (pL_n past the pole). */
int tube_fluid_solve(const tube_params *tp, double t_new, double dt, const double *a_n, const double *u_n,
                     double pL_n, const double *a, double *u, double *p, double *pL, size_t *bad);

/* Residuals of the discrete equations: continuity Rc (N, m^3/s) and momentum Rm (N, m^4/s^2). */
void tube_residual(const tube_params *tp, double t_new, double dt, const double *a_n, const double *u_n,
                   double pL_n, const double *a, const double *u, const double *p, double *Rc, double *Rm);

/* preCICE's elastic-tube-1d discretization (tube_colloc.c): u and p on the
 * N + 1 nodes x_i = i dx (dx = L/N), node areas a_i, backward Euler, central
 * fluxes (Degroote et al. 2008 eqs. 13a, 13b with theta = 1):
 *   momentum, node 0<i<N:   (u_i^n a_i^n - u_i a_i) dx/dt - [convective fluxes]
 *                           + (1/4 rho) ((a_{i-1} + a_i) p_{i-1} + (a_{i+1} - a_{i-1}) p_i - (a_i + a_{i+1}) p_{i+1}) = 0
 *   continuity, node 0<i<N: (a_i^n - a_i) dx/dt + 1/4 ((a_{i-1} + a_i) u_{i-1} + (a_{i-1} - a_{i+1}) u_i
 *                           - (a_i + a_{i+1}) u_{i+1}) = 0
 * (the convective terms are written out in tube_colloc.c), u_0 the inflow,
 * p_0 - 2 p_1 + p_2 = 0 (eq. 14a), u_N - 2 u_{N-1} + u_{N-2} = 0 (eq. 14b),
 * p_N by the outlet (tube_outlet_pressure with p_N^n, u_N, u_N^n).
 * R has 2 (N + 1) rows: momentum (or the u condition) of node i in 2i,
 * continuity (or the p condition) in 2i + 1. */
void tube_colloc_residual(const tube_params *tp, double t_new, double dt, const double *a_n, const double *u_n,
                          const double *p_n, const double *a, const double *u, const double *p, double *R);
/* Newton from (u_n, p_n) until the update is below tol (scaled by u0 and
 * rho u0 c); returns its iterations, or -1 (no convergence, singular). */
int tube_colloc_solve(const tube_params *tp, double t_new, double dt, const double *a_n, const double *u_n,
                      const double *p_n, const double *a, double *u, double *p, double tol, int max_iterations);

/* The monolithic reference: Newton on all equations with a = a(p) substituted,
 * unknowns (p_j, u_{j+1}) interleaved, banded Jacobian by coloured differences. */
typedef struct tube_mono tube_mono;
tube_mono *tube_mono_new(const tube_params *tp, double tol, int max_iterations);
void tube_mono_destroy(tube_mono **self_p);
/* Solve the step [t, t + dt]; returns Newton iterations, or -1 when it did not converge. */
int tube_mono_step(tube_mono *m, double t, double dt);
void tube_mono_commit(tube_mono *m);
/* Committed state: a (N), u (N + 1), p (N). */
const double *tube_mono_a(const tube_mono *m);
const double *tube_mono_u(const tube_mono *m);
const double *tube_mono_p(const tube_mono *m);

/* Write x, a, u (cell-centred average), p as CSV to dir/name_FRAME.csv (for
 * tp->collocated the N + 1 nodes' values). Returns 0 or -1. */
int tube_write_csv(const tube_params *tp, const char *dir, const char *name, int frame, const double *a,
                   const double *u, const double *p);

#endif
