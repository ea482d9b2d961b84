/* fluid_sph internals: the cubic spline kernel, neighbour lists of one
 * particle configuration, and the two solvers of divergence-free SPH
 * (Bender and Koschier 2015, 2017). Private to plugins/fluid_sph. */
#ifndef FLUID_SPH_SPH_H
#define FLUID_SPH_SPH_H

#include <stddef.h>
#include <stdint.h>

/* A boundary particle b takes the pressure of the fluid particle i it acts
 * on (Akinci et al. 2012). In the symmetric pressure force, p_i / rho_i^2 +
 * p_b / rho_b^2, that counts twice (Akbay eq. 3.11 prints it once): a wall
 * of lattice layers is then the fluid at rest continued, and a uniform
 * pressure exerts no net force next to it (once, the wall pushes half as
 * hard as the fluid it replaces and particles crowd against it). The
 * solvers' density rate counts the boundary the same way, so pressure
 * gradient and divergence stay adjoint: the solve is a projection that
 * takes no energy from the walls (counted twice in the force only, a closed
 * box of water at rest blows up). */
#define SPH_MIRROR 2.0

/* Particle loops run in parallel from this many particles on: below, the
 * threads' start and barrier cost more than the loop (a 1000-particle tank
 * took 18 s on one thread and 75 s on two, on a loaded 2-core machine). */
#define SPH_OMP_MIN 20000

/* Cubic spline kernel (Monaghan 1992) of support radius h (W = 0 beyond h),
 * normalised in 2D (per unit depth) or 3D. */
typedef struct sph_kernel {
    int dim;
    double h;
    double k;        /* 40 / (7 pi h^2) in 2D, 8 / (pi h^3) in 3D */
} sph_kernel;

void sph_kernel_init(sph_kernel *K, int dim, double h);
double sph_W(const sph_kernel *K, double r);
/* dW/dr at distance r (<= 0). */
double sph_dW(const sph_kernel *K, double r);

/* Neighbour lists of the fluid particles: row i holds the pairs (i, j) with
 * |x_i - y_j| < h, each with the gradient of its weight with respect to x_i
 * (dim numbers): mass grad_i W_ij, mass m for fluid neighbours, Psi_j for
 * boundary ones. The kernel values W_ij, used once per list (densities,
 * XSPH), are recomputed from the positions (sph_pair_d2), to the bit what
 * storing them gave: 28 bytes a pair in 3D instead of 36. (Keeping only the
 * neighbour and the scalar mass dW/r, 12 bytes, and recomputing the
 * gradient from the positions as well made a step 1.4 to 1.8 times slower
 * at 3e4 particles: docs/performance.md.) */
typedef struct sph_pairs {
    size_t rows;
    size_t *start;           /* rows + 1 */
    uint32_t *j;
    double *gw;
    size_t cap;              /* pairs the arrays have room for */
} sph_pairs;

/* Squared distance of x_i and y_j summed as the core grid sums it ((y - x)^2
 * axis by axis), so W(sqrt(d2)) has the bits the list was built with. */
static inline double sph_pair_d2(size_t dim, const double *xi, const double *yj)
{
    double d2 = 0.0;
    for (size_t c = 0; c < dim; c++) {
        double e = yj[c] - xi[c];
        d2 += e * e;
    }
    return d2;
}

void sph_pairs_free(sph_pairs *P);

/* One configuration: fluid particles at x, boundary particles at xb (the
 * domain walls first, then the samples of the solids' surfaces) with
 * pseudo-masses psi (Akinci et al. 2012; Akbay eq. 3.9), and what DFSPH
 * needs of it: densities (eq. 3.10) and the factor alpha of each particle. */
typedef struct sph_geometry {
    size_t n, nb;
    double *xi;              /* n * dim: the fluid positions */
    double *xb;              /* nb * dim */
    double *psi;             /* nb */
    sph_pairs ff, fb;        /* fluid-fluid (self included) and fluid-boundary */
    double *rho;             /* n */
    double *alpha;           /* n: 1 / (|sum_j m grad W_ij + sum_b psi_b grad W_ib|^2 + sum_j |m grad W_ij|^2) */
    size_t nb_cap, n_cap;
} sph_geometry;

void sph_geometry_free(sph_geometry *G);

/* What the solvers share: the kernel, the particle mass, the rest density. */
typedef struct sph_fluid {
    sph_kernel K;
    int dim;
    double m;                /* mass of every fluid particle (kg, kg/m in 2D) */
    double rho0;
} sph_fluid;

/* Fill G for fluid positions x (n) and boundary positions xb (nb, copied;
 * psi copied too). Returns 0, or -1 when out of memory. */
int sph_geometry_build(sph_geometry *G, const sph_fluid *f, size_t n, const double *x, size_t nb,
                       const double *xb, const double *psi);

/* Akinci pseudo-masses of ns boundary samples at xs: psi_b = rho0 / sum_k W_bk
 * over the samples k (Akbay eq. 3.9). Returns 0, or -1 when out of memory. */
int sph_akinci_psi(const sph_fluid *f, size_t ns, const double *xs, double *psi);

/* XSPH velocity smoothing: v_out_i = v_i + eps sum_j (2 m / (rho_i + rho_j)) (v_j - v_i) W_ij. */
void sph_xsph(const sph_fluid *f, const sph_geometry *G, double eps, const double *v, double *v_out);

/* The result of one solver run. */
typedef struct sph_solve_stats {
    int iterations;
    double error;            /* the average error it stopped at (relative to rho0); viscosity: CG's relative residual */
    int breakdown;           /* CG broke down (takahashi: plain CG's, after the MGCG's own, see fallback) */
    int fallback;            /* takahashi: the MGCG broke down and plain CG went on from its iterate */
} sph_solve_stats;

/* Implicit full-form viscosity (Takahashi 2015, ch. 4 of his thesis): the
 * strain rate of particle i, eq. 4.6,
 *   s_i = mu (D_i + D_i^T),  D_i = sum_j m/rho_i (u_j - u_i) grad W_ij^T + sum_b psi_b/rho_i (u_b - u_i) grad W_ib^T
 * (V_j = m / rho_i, equal to m / rho_j at rest density: with it the operator
 * below is exactly symmetric), its divergence, eq. 4.5,
 *   L(u)_i = sum_j m (s_i / rho_i^2 + s_j / rho_j^2) grad W_ij + sum_b psi_b (s_i / rho_i^2) grad W_ib,
 * and the backward-Euler step u - dt L(u) = u* (eqs. 4.7-4.12, solved
 * matrix-free). The boundary particles (walls, solids' samples) move with
 * the velocities vb: no-slip. */

/* The form of L: the full form above (Takahashi's), or the Laplacian form
 * mu / rho_i lap(u)_i that he contrasts it with (ch. 4.1, Fig. 4.6; the
 * form of XSPH and artificial viscosity too), discretized with Brookshaw's
 * Laplacian (Morris et al. 1997), sph.c laplacian_accel. They agree in the
 * interior of a divergence-free flow; at a free surface only the full form
 * leaves no traction (s n = 0, ch. 4.3), which is what lets a viscous
 * thread buckle and coil. */
typedef enum sph_visc_form { SPH_VISC_FULL = 0, SPH_VISC_LAPLACIAN = 1 } sph_visc_form;

/* y = x - dt L_0(x), L_0 with the boundary at rest: the symmetric positive
 * definite operator of the step (scale m: it is C / m of eq. 4.7). */
void sph_viscosity_apply(const sph_fluid *f, const sph_geometry *G, double mu, sph_visc_form form, double dt,
                         const double *x, double *y);

/* One implicit viscosity step: v (the velocities u* on entry) becomes
 * u* + dt L(u) for the u that CG (core seam_pcg, warm-started with u*)
 * finds to relative residual tol within max_iter; so the momentum the
 * boundary gave is exactly the reflection added to fb (nb * dim):
 * fb_b -= m (s_i / rho_i^2) psi_b grad W_ib. Returns 1 when CG did not
 * converge (or broke down), 0 otherwise. */
int sph_viscosity_solve(const sph_fluid *f, const sph_geometry *G, double mu, sph_visc_form form, double dt,
                        const double *vb, double tol, int max_iter, double *v, double *fb, sph_solve_stats *st);

/* The same full form integrated explicitly (Paiva et al. 2006, Andrade et
 * al. 2014; Takahashi's Table 4.1 "explicit"): v = u* + dt L(u*) with the
 * boundary moving at vb, its reflection added to fb as in the implicit
 * step. Stable only for dt below about 0.1 rho h^2 / (8 mu) (Andrade's
 * condition, Takahashi ch. 4.1). */
void sph_viscosity_explicit(const sph_fluid *f, const sph_geometry *G, double mu, sph_visc_form form, double dt,
                            const double *vb, double *v, double *fb);

/* Constant-density solve (Bender and Koschier 2017, Algorithm 3, as a
 * projected Jacobi on the pressure): finds k_i = p_i / rho_i^2 >= 0 so that
 * the density predicted from the corrected velocities v is rho0 where the
 * fluid is compressed. k holds the warm start on entry (applied first) and
 * the total on return; vb are the boundary velocities. Stops when the
 * average density error is at most eta (relative) or after max_iter. The
 * density error already there, rho_i - rho0, is removed at the pace of a
 * step dt_ref (a share dt / dt_ref of it in a shorter step): removed within
 * any step at all, a short step (the last before a frame, a retry) would
 * kick the particles apart with (rho_i - rho0) / rho0 * spacing / dt. */
sph_solve_stats sph_density_solve(const sph_fluid *f, const sph_geometry *G, double dt, double dt_ref,
                                  const double *vb, double eta, int max_iter, double *v, double *k, double *work);

/* Divergence-free solve (Bender and Koschier 2017, Algorithm 2): the same
 * iteration on D rho / D t, so dt * (D rho / D t) / rho0 is at most eta on
 * average. */
sph_solve_stats sph_divergence_solve(const sph_fluid *f, const sph_geometry *G, double dt, const double *vb,
                                     double eta, int max_iter, double *v, double *k, double *work);

/* D rho_i / D t of velocities v (boundary velocities vb): m sum_j (v_i - v_j) . grad W_ij
 * + SPH_MIRROR sum_b psi_b (v_i - v_b) . grad W_ib. */
double sph_density_rate(const sph_fluid *f, const sph_geometry *G, const double *v, const double *vb, size_t i);

/* v_i -= dt (m sum_j (k_i + k_j) grad W_ij + SPH_MIRROR k_i sum_b psi_b grad W_ib): the
 * symmetric pressure acceleration of pressures k = p / rho^2, the boundary's mirrored. */
void sph_apply_pressure(const sph_fluid *f, const sph_geometry *G, double dt, const double *k, double *v);

/* Forces on the boundary particles (nb * dim, added to fb) from the
 * pressures k of the fluid particles: the reflection of the boundary terms
 * of the pressure acceleration, SPH_MIRROR m k_i psi_b grad_i W_ib (Akbay 3.11 and the
 * text after it), so their sum is minus the fluid's momentum change from
 * the boundary per unit time. */
void sph_boundary_forces(const sph_fluid *f, const sph_geometry *G, const double *k, double *fb);

/* The boundary's own pressure in the symmetric pair term, extrapolated from
 * the fluid's committed pressure with the hydrostatic gradient (Adami et al.
 * 2012): p_b = max(0, p_i + rho_i g . (x_b - x_i)), i.e. k_b = max(0, k_i +
 * g . (x_b - x_i) / rho_i) for the pair (i, b), for the particles in
 * contact (k_i > 0). Applies v_i -= dt sum_b psi_b k_b grad W_ib and adds its
 * reflection to the boundary forces fb. With it a wall holds the fluid next
 * to it as the fluid it replaces would: without it the pressure gradient
 * next to a wall misses the wall's half of the kernel, and the fluid along
 * the wall sinks while the middle rises. */
void sph_boundary_pressure(const sph_fluid *f, const sph_geometry *G, const double *g, const double *k, double dt,
                           double *v, double *fb);

#endif
