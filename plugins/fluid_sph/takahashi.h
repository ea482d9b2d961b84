/* fluid_sph's second pressure solver, after Takahashi's multilevel SPH
 * solver with unified solid boundary handling (Takahashi 2020, thesis ch. 3):
 * a pressure Poisson system over his particle classes, whose solid term is
 * the alpha_i p_i of eq. 3.2, solved by conjugate gradients (core
 * seam_pcg_until) to his density-error threshold, preconditioned by one
 * V-cycle of his multilevel solver (ch. 3.5): weighted Jacobi on the
 * particles, red-black Gauss-Seidel on a static Cartesian grid of cells the
 * size of the kernel radius (the neighbour search's bucket size) and its
 * coarsenings. See takahashi.c for what differs from the thesis and why.
 * Private to plugins/fluid_sph. */
#ifndef FLUID_SPH_TAKAHASHI_H
#define FLUID_SPH_TAKAHASHI_H

#include <stdint.h>

#include "sph.h"

/* Particle classes of ch. 3.4. */
enum { SPH_POISSON = 0, SPH_DIRICHLET = 1, SPH_SEPARATED = 2, SPH_ISOLATED = 3 };

typedef struct sph_takahashi_opts {
    double eta;              /* stop when the mean positive density error of the Poisson particles is at most eta rho0 */
    int max_iter;            /* CG iterations at most */
    double lambda;           /* particle-to-grid scale of the restriction (ch. 3.5.2) */
    int multigrid;           /* 1: MGCG; 0: plain CG (for comparison) */
} sph_takahashi_opts;

typedef struct sph_takahashi sph_takahashi;

/* A solver for fluid in the box [lo, hi] (dim axes) with grid cells of size
 * dx (Takahashi: dx = h). */
sph_takahashi *sph_takahashi_new(int dim, const double *lo, const double *hi, double dx);
void sph_takahashi_destroy(sph_takahashi **self_p);

/* One pressure solve on geometry G with the velocities u* in v (boundary
 * velocities vb): predicted densities rho*_i = rho_i + dt D rho_i / D t, the classes, the
 * system over the Poisson particles, MGCG, pressures clamped at 0 into p (Pa)
 * and k = p / rho^2, and the velocities v updated by the pressure
 * acceleration (sph_apply_pressure). An MGCG that breaks down (r.z <= 0: the
 * V-cycle is not exactly symmetric) goes on by plain CG from its iterate,
 * within max_iter in all (st->fallback). Returns 0, or 1 when CG stopped at
 * max_iter (or broke down) before the density error met eta. */
int sph_takahashi_solve(sph_takahashi *T, const sph_fluid *f, const sph_geometry *G, double dt, const double *vb,
                        const sph_takahashi_opts *o, double *v, double *p, double *k,
                        sph_solve_stats *st);

/* What the last solve built, for tests: per particle its class, its unknown
 * (-1 for the particles not Poisson), the diagonal of the system (1 / Pa per
 * unit source), alpha_i (eq. 3.2) and b_i = (rho*_i - rho0) / dt^2. */
typedef struct sph_takahashi_system {
    size_t n, n_unknowns;
    const uint8_t *cls;
    const int32_t *unknown;
    const double *diag, *alpha, *b;   /* per particle; b: (rho*_i - rho0) / dt^2 */
    int levels;                              /* grid levels of the V-cycle */
} sph_takahashi_system;

sph_takahashi_system sph_takahashi_last(const sph_takahashi *T);

#endif
