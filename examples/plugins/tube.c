/* The 1D flexible tube: discretization shared by fluid, wall and monolithic
 * reference (equations in tube.h). */
#include "tube.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "seam/frame.h"

static const char *const pulse_names[] = {"sin2", "sine", NULL};
static const char *const outlet_names[] = {"pressure", "non_reflecting", NULL};
static const char *const discretization_names[] = {"staggered", "collocated", NULL};

void tube_params_read(tube_params *tp, seam_cfg *cfg, const seam_range_table *keys, int fluid, int wall)
{
    tp->N = (size_t)seam_cfg_key_int(cfg, keys, "cells", 100, 0);
    tp->rho = seam_cfg_key(cfg, keys, "density", 1000.0, 0);
    if (fluid) {
        tp->L = seam_cfg_key(cfg, keys, "length", 10.0, 0);
        tp->u0 = seam_cfg_key(cfg, keys, "velocity", 0.1, 0);
        tp->amplitude = seam_cfg_key(cfg, keys, "pulse_amplitude", 0.1, 0);
        tp->period = seam_cfg_key(cfg, keys, "pulse_period", 10.0, 0);
        tp->p_out = seam_cfg_key(cfg, keys, "outlet_pressure", 0.0, 0);
        tp->sine = seam_cfg_enum(cfg, "pulse", pulse_names, 0, 0);
        tp->non_reflecting = seam_cfg_enum(cfg, "outlet", outlet_names, 0, 0);
        tp->collocated = seam_cfg_enum(cfg, "discretization", discretization_names, 0, 0);
        if (tp->collocated && wall)
            seam_cfg_error(cfg, "discretization", "the monolithic reference is staggered only");
        if (tp->non_reflecting && !wall)   /* eq. 15 needs the wall's wave speed */
            tp->c = seam_cfg_key(cfg, keys, "wave_speed", 1.0, SEAM_CFG_REQUIRED);
    }
    if (wall) {
        tp->a0 = seam_cfg_key(cfg, keys, "area", 1.0, 0);
        tp->c = seam_cfg_key(cfg, keys, "wave_speed", 1.0, 0);
        tp->p0 = seam_cfg_key(cfg, keys, "reference_pressure", 0.0, 0);
    }
}

double tube_inflow(const tube_params *tp, double t)
{
    if (tp->sine)
        return tp->u0 * (1.0 + tp->amplitude * sin(2.0 * M_PI * t / tp->period));
    double s = sin(M_PI * t / tp->period);
    return tp->u0 * (1.0 + tp->amplitude * s * s);
}

double tube_outlet_pressure(const tube_params *tp, double pL_n, double u_N, double u_N_n)
{
    if (!tp->non_reflecting)
        return tp->p_out;
    double c2 = tp->c * tp->c, rho = tp->rho;
    double rest = c2 - pL_n / (2.0 * rho);
    if (!(rest >= 0.0))
        return NAN;
    double w = sqrt(rest) - 0.25 * (u_N - u_N_n);   /* Degroote et al. 2008, eq. 15 */
    return 2.0 * rho * (c2 - w * w);
}

double tube_wall_area(const tube_params *tp, double p)
{
    double c2 = tp->c * tp->c;
    double den = p / (2.0 * tp->rho) - c2;
    if (!(den < 0.0))
        return NAN;   /* past the pole the law has no physical branch */
    double ratio = (tp->p0 / (2.0 * tp->rho) - c2) / den;
    return tp->a0 * ratio * ratio;
}

/* Face areas A_f, f = 0..N. */
static void face_areas(size_t N, const double *a, double *A)
{
    A[0] = a[0];
    for (size_t f = 1; f < N; f++)
        A[f] = 0.5 * (a[f - 1] + a[f]);
    A[N] = a[N - 1];
}

/* Face areas of the new (A) and committed (An) cross-sections, and room for
 * the face fluxes Q and the cell momentum fluxes M: one allocation, freed
 * with free(A). */
typedef struct {
    double *A, *An, *Q, *M;
} face_work;

static face_work face_work_new(size_t N, const double *a, const double *a_n)
{
    face_work w;
    w.A = malloc(4 * (N + 1) * sizeof *w.A);
    w.An = w.A + N + 1;
    w.Q = w.An + N + 1;
    w.M = w.Q + N + 1;
    face_areas(N, a, w.A);
    face_areas(N, a_n, w.An);
    return w;
}

/* Upwind momentum flux at cell centre j between faces j and j+1. */
static double momentum_flux(const double *Q, const double *u, size_t j)
{
    double q = 0.5 * (Q[j] + Q[j + 1]);
    return q * (q >= 0.0 ? u[j] : u[j + 1]);
}

int tube_fluid_solve(const tube_params *tp, double t_new, double dt, const double *a_n, const double *u_n,
                     double pL_n, const double *a, double *u, double *p, double *pL, size_t *bad)
{
    size_t N = tp->N;
    double dx = tp->L / (double)N, rho = tp->rho;
    face_work fw = face_work_new(N, a, a_n);
    double *A = fw.A, *An = fw.An, *Q = fw.Q, *M = fw.M;
    for (size_t f = 0; f <= N; f++)
        if (!(A[f] > 0.0)) {
            *bad = f;
            free(A);
            return -1;
        }
    u[0] = tube_inflow(tp, t_new);
    Q[0] = A[0] * u[0];
    for (size_t j = 0; j < N; j++) {          /* continuity, swept from the inlet */
        Q[j + 1] = Q[j] - dx * (a[j] - a_n[j]) / dt;
        u[j + 1] = Q[j + 1] / A[j + 1];
    }
    for (size_t j = 0; j < N; j++)
        M[j] = momentum_flux(Q, u, j);
    *pL = tube_outlet_pressure(tp, pL_n, u[N], u_n[N]);
    if (isnan(*pL)) {
        free(A);
        return -2;
    }
    /* momentum at the outlet face, then face by face towards the inlet */
    p[N - 1] = *pL + rho / A[N] * (0.5 * dx * (A[N] * u[N] - An[N] * u_n[N]) / dt + Q[N] * u[N] - M[N - 1]);
    for (size_t f = N - 1; f >= 1; f--)
        p[f - 1] = p[f] + rho / A[f] * (dx * (A[f] * u[f] - An[f] * u_n[f]) / dt + M[f] - M[f - 1]);
    free(A);
    return 0;
}

void tube_residual(const tube_params *tp, double t_new, double dt, const double *a_n, const double *u_n,
                   double pL_n, const double *a, const double *u, const double *p, double *Rc, double *Rm)
{
    size_t N = tp->N;
    double dx = tp->L / (double)N, rho = tp->rho;
    face_work fw = face_work_new(N, a, a_n);
    double *A = fw.A, *An = fw.An, *Q = fw.Q, *M = fw.M;
    double u_in = tube_inflow(tp, t_new);
    for (size_t f = 0; f <= N; f++)
        Q[f] = A[f] * (f == 0 ? u_in : u[f]);
    double *uu = malloc((N + 1) * sizeof *uu);   /* u with the inflow on face 0 */
    memcpy(uu, u, (N + 1) * sizeof *uu);
    uu[0] = u_in;
    for (size_t j = 0; j < N; j++) {
        Rc[j] = dx * (a[j] - a_n[j]) / dt + Q[j + 1] - Q[j];
        M[j] = momentum_flux(Q, uu, j);
    }
    for (size_t f = 1; f < N; f++)
        Rm[f - 1] = dx * (A[f] * uu[f] - An[f] * u_n[f]) / dt + M[f] - M[f - 1] + A[f] / rho * (p[f] - p[f - 1]);
    Rm[N - 1] = 0.5 * dx * (A[N] * uu[N] - An[N] * u_n[N]) / dt + Q[N] * uu[N] - M[N - 1] +
                A[N] / rho * (tube_outlet_pressure(tp, pL_n, uu[N], u_n[N]) - p[N - 1]);
    free(uu);
    free(A);
}

/* ---- monolithic reference ------------------------------------------------ */

enum { KL = 4, KU = 4 };   /* band of the Jacobian in the interleaved ordering (3 suffices) */

struct tube_mono {
    tube_params tp;
    double tol;
    int max_iterations;
    size_t n;                        /* 2N unknowns */
    double *a_n, *u_n, *p_n;         /* committed */
    double *a, *u, *p;               /* last solve */
    double pL_n, pL;                 /* outlet pressure, committed and last solve */
    double *z, *zp, *F, *F1, *AB, *dz, *Rc, *Rm;
    lapack_int *ipiv;
};

tube_mono *tube_mono_new(const tube_params *tp, double tol, int max_iterations)
{
    tube_mono *m = calloc(1, sizeof *m);
    m->tp = *tp;
    m->tol = tol;
    m->max_iterations = max_iterations;
    size_t N = tp->N;
    m->n = 2 * N;
    m->a_n = malloc(N * sizeof *m->a_n);
    m->a = malloc(N * sizeof *m->a);
    m->p_n = malloc(N * sizeof *m->p_n);
    m->p = malloc(N * sizeof *m->p);
    m->u_n = malloc((N + 1) * sizeof *m->u_n);
    m->u = malloc((N + 1) * sizeof *m->u);
    m->z = malloc(m->n * sizeof *m->z);
    m->F = malloc(m->n * sizeof *m->F);
    m->zp = malloc(m->n * sizeof *m->zp);
    m->F1 = malloc(m->n * sizeof *m->F1);
    m->dz = malloc(m->n * sizeof *m->dz);
    m->Rc = malloc(N * sizeof *m->Rc);
    m->Rm = malloc(N * sizeof *m->Rm);
    m->AB = malloc((2 * KL + KU + 1) * m->n * sizeof *m->AB);
    m->ipiv = malloc(m->n * sizeof *m->ipiv);
    /* Uniform flow at rest pressure: a steady state of the equations. */
    for (size_t j = 0; j < N; j++) {
        m->p_n[j] = tp->p_out;
        m->a_n[j] = tube_wall_area(tp, tp->p_out);
    }
    m->pL_n = m->pL = tp->p_out;
    for (size_t f = 0; f <= N; f++)
        m->u_n[f] = tp->u0;
    memcpy(m->a, m->a_n, N * sizeof *m->a);
    memcpy(m->p, m->p_n, N * sizeof *m->p);
    memcpy(m->u, m->u_n, (N + 1) * sizeof *m->u);
    return m;
}

void tube_mono_destroy(tube_mono **self_p)
{
    if (!self_p || !*self_p)
        return;
    tube_mono *m = *self_p;
    free(m->a_n); free(m->a); free(m->p_n); free(m->p); free(m->u_n); free(m->u);
    free(m->z); free(m->zp); free(m->F); free(m->F1); free(m->dz); free(m->Rc); free(m->Rm); free(m->AB); free(m->ipiv);
    free(m);
    *self_p = NULL;
}

/* F(z): continuity of cell j in row 2j, momentum of face j+1 in row 2j+1,
 * with a_j = a(p_j) (the wall law substituted). Returns -1 past the pole. */
static int mono_residual(tube_mono *m, double t_new, double dt, const double *z, double *F)
{
    size_t N = m->tp.N;
    for (size_t j = 0; j < N; j++) {
        m->p[j] = z[2 * j];
        m->u[j + 1] = z[2 * j + 1];
        m->a[j] = tube_wall_area(&m->tp, m->p[j]);
        if (!(m->a[j] > 0.0))
            return -1;
    }
    m->u[0] = tube_inflow(&m->tp, t_new);
    tube_residual(&m->tp, t_new, dt, m->a_n, m->u_n, m->pL_n, m->a, m->u, m->p, m->Rc, m->Rm);
    m->pL = tube_outlet_pressure(&m->tp, m->pL_n, m->u[N], m->u_n[N]);
    for (size_t j = 0; j < N; j++) {
        F[2 * j] = m->Rc[j];
        F[2 * j + 1] = m->Rm[j];
    }
    return 0;
}

/* Banded Jacobian by differences, one residual per colour of KL + KU + 1 columns. */
static int mono_jacobian(tube_mono *m, double t_new, double dt)
{
    size_t n = m->n, ldab = 2 * KL + KU + 1, colors = KL + KU + 1;
    double scale_p = m->tp.rho * m->tp.u0 * m->tp.c, scale_u = m->tp.u0;
    memset(m->AB, 0, ldab * n * sizeof *m->AB);
    double *h = m->dz;
    for (size_t g = 0; g < colors; g++) {
        memcpy(m->F1, m->z, n * sizeof *m->z);   /* F1 holds the perturbed z for now */
        for (size_t col = g; col < n; col += colors) {
            double s = col % 2 == 0 ? scale_p : scale_u;
            h[col] = 1e-7 * fmax(fabs(m->z[col]), s);
            m->F1[col] += h[col];
        }
        memcpy(m->zp, m->F1, n * sizeof *m->zp);
        int rc = mono_residual(m, t_new, dt, m->zp, m->F1);
        if (rc != 0)
            return -1;
        for (size_t col = g; col < n; col += colors) {
            size_t lo = col >= KU ? col - KU : 0, hi = col + KL < n - 1 ? col + KL : n - 1;
            for (size_t row = lo; row <= hi; row++)
                m->AB[(KL + KU + row - col) + col * ldab] = (m->F1[row] - m->F[row]) / h[col];
        }
    }
    return 0;
}

int tube_mono_step(tube_mono *m, double t, double dt)
{
    size_t N = m->tp.N, n = m->n;
    double t_new = t + dt;
    for (size_t j = 0; j < N; j++) {   /* start from the committed state */
        m->z[2 * j] = m->p_n[j];
        m->z[2 * j + 1] = m->u_n[j + 1];
    }
    double scale_p = m->tp.rho * m->tp.u0 * m->tp.c, scale_u = m->tp.u0;
    for (int it = 1; it <= m->max_iterations; it++) {
        if (mono_residual(m, t_new, dt, m->z, m->F) != 0 || mono_jacobian(m, t_new, dt) != 0)
            return -1;
        for (size_t i = 0; i < n; i++)
            m->dz[i] = -m->F[i];
        lapack_int info = LAPACKE_dgbsv(LAPACK_COL_MAJOR, (lapack_int)n, KL, KU, 1, m->AB,
                                        (lapack_int)(2 * KL + KU + 1), m->ipiv, m->dz, (lapack_int)n);
        if (info != 0)
            return -1;
        double worst = 0.0;
        for (size_t i = 0; i < n; i++) {
            m->z[i] += m->dz[i];
            worst = fmax(worst, fabs(m->dz[i]) / (i % 2 == 0 ? scale_p : scale_u));
        }
        if (!isfinite(worst))
            return -1;
        if (worst <= m->tol)
            return mono_residual(m, t_new, dt, m->z, m->F) == 0 ? it : -1;   /* state from the final z */
    }
    return -1;
}

void tube_mono_commit(tube_mono *m)
{
    size_t N = m->tp.N;
    memcpy(m->a_n, m->a, N * sizeof *m->a);
    memcpy(m->p_n, m->p, N * sizeof *m->p);
    m->pL_n = m->pL;
    memcpy(m->u_n, m->u, (N + 1) * sizeof *m->u);
}

const double *tube_mono_a(const tube_mono *m) { return m->a_n; }
const double *tube_mono_u(const tube_mono *m) { return m->u_n; }
const double *tube_mono_p(const tube_mono *m) { return m->p_n; }

int tube_write_csv(const tube_params *tp, const char *dir, const char *name, int frame, const double *a,
                   const double *u, const double *p)
{
    char path[4096], tmp[4100];
    snprintf(path, sizeof path, "%s/%s_" SEAM_FRAME_FORMAT ".csv", dir, name, frame);
    FILE *f = seam_output_open(path, tmp, sizeof tmp);   /* never a cut frame */
    if (!f)
        return -1;
    double dx = tp->L / (double)tp->N;
    fprintf(f, "x,a,u,p\n");
    if (tp->collocated)   /* values on the nodes */
        for (size_t i = 0; i <= tp->N; i++)
            fprintf(f, "%.17g,%.17g,%.17g,%.17g\n", (double)i * dx, a ? a[i] : NAN, u ? u[i] : NAN, p ? p[i] : NAN);
    for (size_t j = 0; j < tp->N && !tp->collocated; j++)
        fprintf(f, "%.17g,%.17g,%.17g,%.17g\n", (j + 0.5) * dx, a ? a[j] : NAN, u ? 0.5 * (u[j] + u[j + 1]) : NAN,
                p ? p[j] : NAN);
    return seam_output_close(f, path, tmp, 0);
}
