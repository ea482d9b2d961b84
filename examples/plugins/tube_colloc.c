/* The 1D flexible tube on preCICE's elastic-tube-1d discretization (the
 * tutorial's fluid, after Degroote, Bruggeman, Haelterman, Vierendeels
 * 2008): u and p collocated on the nodes x_i = i dx, i = 0..N, central
 * fluxes with the node areas averaged pairwise, backward Euler, solved by
 * Newton. Equations in tube.h (tube_colloc_residual). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "tube.h"

enum { CKL = 4, CKU = 4 };   /* band of the Jacobian, rows and unknowns (u_i, p_i) interleaved */

void tube_colloc_residual(const tube_params *tp, double t_new, double dt, const double *a_n, const double *u_n,
                          const double *p_n, const double *a, const double *u, const double *p, double *R)
{
    size_t N = tp->N;   /* nodes 0..N */
    double dx = tp->L / (double)N, r = 1.0 / tp->rho;
    for (size_t i = 1; i < N; i++) {
        double am = a[i - 1], a0 = a[i], ap = a[i + 1], um = u[i - 1], u0 = u[i], up = u[i + 1];
        /* momentum at node i (Degroote et al. 2008 eq. 13b, theta = 1) */
        double Rm = (u_n[i] * a_n[i] - u0 * a0) * dx / dt;
        Rm += 0.25 * (-ap * u0 * up - a0 * u0 * up);
        Rm += 0.25 * (-ap * u0 * u0 - a0 * u0 * u0 + a0 * um * u0 + am * um * u0);
        Rm += 0.25 * (am * um * um + a0 * um * um);
        Rm += 0.25 * r * (am * p[i - 1] + a0 * p[i - 1] - am * p[i] + ap * p[i] - a0 * p[i + 1] - ap * p[i + 1]);
        /* continuity at node i (eq. 13a) */
        double Rc = (a_n[i] - a0) * dx / dt;
        Rc += 0.25 * (am * um + a0 * um + am * u0 - ap * u0 - a0 * up - ap * up);
        R[2 * i] = Rm;
        R[2 * i + 1] = Rc;
    }
    R[0] = tube_inflow(tp, t_new) - u[0];                   /* inflow prescribed */
    R[1] = -p[0] + 2.0 * p[1] - p[2];                       /* inlet pressure extrapolated (eq. 14a) */
    R[2 * N] = -u[N] + 2.0 * u[N - 1] - u[N - 2];           /* outlet velocity extrapolated (eq. 14b) */
    R[2 * N + 1] = tube_outlet_pressure(tp, p_n[N], u[N], u_n[N]) - p[N];   /* eq. 15, or p_out */
}

/* u and p from the interleaved unknowns z, and F(z) */
static void split_residual(const tube_params *tp, double t_new, double dt, const double *a_n, const double *u_n,
                           const double *p_n, const double *a, const double *z, double *u, double *p, double *F)
{
    for (size_t i = 0; i <= tp->N; i++) {
        u[i] = z[2 * i];
        p[i] = z[2 * i + 1];
    }
    tube_colloc_residual(tp, t_new, dt, a_n, u_n, p_n, a, u, p, F);
}

int tube_colloc_solve(const tube_params *tp, double t_new, double dt, const double *a_n, const double *u_n,
                      const double *p_n, const double *a, double *u, double *p, double tol, int max_iterations)
{
    size_t N = tp->N, n = 2 * (N + 1), ldab = 2 * CKL + CKU + 1, colors = CKL + CKU + 1;
    double *z = malloc((5 * n + ldab * n) * sizeof *z);
    lapack_int *ipiv = malloc(n * sizeof *ipiv);
    if (!z || !ipiv) {
        free(z);
        free(ipiv);
        return -1;
    }
    double *F = z + n, *F1 = F + n, *zp = F1 + n, *h = zp + n, *AB = h + n;
    double su = fmax(fabs(tp->u0), 1e-300), sp = fmax(tp->rho * tp->u0 * tp->c, 1e-300);
    for (size_t i = 0; i <= N; i++) {   /* from the committed state, as the tutorial */
        z[2 * i] = u_n[i];
        z[2 * i + 1] = p_n[i];
    }
    int result = -1;
    for (int it = 1; it <= max_iterations; it++) {
        split_residual(tp, t_new, dt, a_n, u_n, p_n, a, z, u, p, F);
        memset(AB, 0, ldab * n * sizeof *AB);
        for (size_t g = 0; g < colors; g++) {   /* banded Jacobian by coloured differences */
            memcpy(zp, z, n * sizeof *zp);
            for (size_t col = g; col < n; col += colors) {
                h[col] = 1e-7 * fmax(fabs(z[col]), col % 2 == 0 ? su : sp);
                zp[col] += h[col];
            }
            split_residual(tp, t_new, dt, a_n, u_n, p_n, a, zp, u, p, F1);
            for (size_t col = g; col < n; col += colors) {
                size_t lo = col >= CKU ? col - CKU : 0, hi = col + CKL < n - 1 ? col + CKL : n - 1;
                for (size_t row = lo; row <= hi; row++)
                    AB[(CKL + CKU + row - col) + col * ldab] = (F1[row] - F[row]) / h[col];
            }
        }
        for (size_t i = 0; i < n; i++)
            F1[i] = -F[i];
        if (LAPACKE_dgbsv(LAPACK_COL_MAJOR, (lapack_int)n, CKL, CKU, 1, AB, (lapack_int)ldab, ipiv, F1,
                          (lapack_int)n) != 0)
            break;
        double worst = 0.0;
        for (size_t i = 0; i < n; i++) {
            z[i] += F1[i];
            worst = fmax(worst, fabs(F1[i]) / (i % 2 == 0 ? su : sp));
        }
        if (!isfinite(worst))
            break;
        if (worst <= tol) {
            for (size_t i = 0; i <= N; i++) {
                u[i] = z[2 * i];
                p[i] = z[2 * i + 1];
            }
            result = it;
            break;
        }
    }
    free(z);
    free(ipiv);
    return result;
}
