/* The numerics of fluid_sph (sph.h): kernel, neighbour lists through the core
 * neighbour grid, densities, the DFSPH factor and the two DFSPH solvers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/krylov.h"
#include "seam/neighbours.h"
#include "sph.h"

void sph_kernel_init(sph_kernel *K, int dim, double h)
{
    K->dim = dim;
    K->h = h;
    K->k = dim == 3 ? 8.0 / (M_PI * h * h * h) : 40.0 / (7.0 * M_PI * h * h);
}

double sph_W(const sph_kernel *K, double r)
{
    double q = r / K->h;
    if (q >= 1.0)
        return 0.0;
    if (q <= 0.5)
        return K->k * (6.0 * q * q * (q - 1.0) + 1.0);
    double t = 1.0 - q;
    return K->k * 2.0 * t * t * t;
}

double sph_dW(const sph_kernel *K, double r)
{
    double q = r / K->h;
    if (q >= 1.0)
        return 0.0;
    if (q <= 0.5)
        return K->k / K->h * q * (18.0 * q - 12.0);
    double t = 1.0 - q;
    return -6.0 * K->k / K->h * t * t;
}

void sph_pairs_free(sph_pairs *P)
{
    free(P->start);
    free(P->j);
    free(P->gw);
    memset(P, 0, sizeof *P);
}

void sph_geometry_free(sph_geometry *G)
{
    sph_pairs_free(&G->ff);
    sph_pairs_free(&G->fb);
    free(G->xi);
    free(G->xb);
    free(G->psi);
    free(G->rho);
    free(G->alpha);
    memset(G, 0, sizeof *G);
}

/* Room for `pairs` pairs in P (kept when large enough). */
static void pairs_reserve(sph_pairs *P, int dim, size_t pairs)
{
    if (pairs <= P->cap && P->j)
        return;
    size_t cap = P->cap ? P->cap : 1024;
    while (cap < pairs)
        cap *= 2;
    P->j = seam_xrealloc_n(P->j, cap, sizeof *P->j);
    P->gw = seam_xrealloc_n(P->gw, cap * (size_t)dim, sizeof *P->gw);
    P->cap = cap;
}

/* Rows of P for the n query points x against the points of grid B at Y,
 * weighted by mass (psi, or 1 when NULL). */
static void pairs_build(sph_pairs *P, const sph_kernel *K, size_t n, const double *x, const seam_neighbours *B,
                        const double *Y, const double *psi)
{
    int dim = K->dim;
    size_t d = (size_t)dim;
    P->start = seam_xrealloc_n(P->start, n + 1, sizeof *P->start);
    P->rows = n;
    size_t cap = 256, used = 0;
    size_t *idx = seam_xmalloc_n(cap, sizeof *idx);
    double *d2 = seam_xmalloc_n(cap, sizeof *d2);
    double h2 = K->h * K->h;
    for (size_t i = 0; i < n; i++) {
        P->start[i] = used;
        const double *xi = x + d * i;
        size_t found = seam_neighbours_find(B, xi, K->h, idx, d2, cap);
        if (found > cap) {
            cap = 2 * found;
            idx = seam_xrealloc_n(idx, cap, sizeof *idx);
            d2 = seam_xrealloc_n(d2, cap, sizeof *d2);
            found = seam_neighbours_find(B, xi, K->h, idx, d2, cap);
        }
        pairs_reserve(P, dim, used + found);
        for (size_t q = 0; q < found; q++) {
            if (d2[q] >= h2)
                continue;
            size_t j = idx[q];
            double r = sqrt(d2[q]), mass = psi ? psi[j] : 1.0;
            double g = r > 0.0 ? mass * sph_dW(K, r) / r : 0.0;
            P->j[used] = (uint32_t)j;
            for (size_t c = 0; c < d; c++)
                P->gw[d * used + c] = g * (xi[c] - Y[d * j + c]);
            used++;
        }
    }
    P->start[n] = used;
    free(idx);
    free(d2);
}

int sph_akinci_psi(const sph_fluid *f, size_t ns, const double *xs, double *psi)
{
    if (!ns)
        return 0;
    seam_neighbours *B = seam_neighbours_new(f->dim, ns, xs, f->K.h);
    if (!B)
        return -1;
    size_t cap = 1024;
    size_t *idx = seam_xmalloc_n(cap, sizeof *idx);
    double *d2 = seam_xmalloc_n(cap, sizeof *d2);
    for (size_t b = 0; b < ns; b++) {
        const double *x = xs + (size_t)f->dim * b;
        size_t found = seam_neighbours_find(B, x, f->K.h, idx, d2, cap);
        if (found > cap) {
            cap = 2 * found;
            free(idx);
            free(d2);
            idx = seam_xmalloc_n(cap, sizeof *idx);
            d2 = seam_xmalloc_n(cap, sizeof *d2);
            found = seam_neighbours_find(B, x, f->K.h, idx, d2, cap);
        }
        double sum = 0.0;
        for (size_t q = 0; q < found; q++)
            sum += sph_W(&f->K, sqrt(d2[q]));
        psi[b] = f->rho0 / sum;   /* sum >= W(0) > 0: b is its own neighbour */
    }
    free(idx);
    free(d2);
    seam_neighbours_destroy(&B);
    return 0;
}

static void grow(double **a, size_t n) { *a = seam_xrealloc_n(*a, n ? n : 1, sizeof **a); }

int sph_geometry_build(sph_geometry *G, const sph_fluid *f, size_t n, const double *x, size_t nb,
                       const double *xb, const double *psi)
{
    size_t d = (size_t)f->dim;
    if (nb > G->nb_cap || !G->xb) {
        grow(&G->xb, d * nb);
        grow(&G->psi, nb);
        G->nb_cap = nb;
    }
    if (n > G->n_cap || !G->rho) {
        grow(&G->rho, n);
        grow(&G->alpha, n);
        grow(&G->xi, d * n);
        G->n_cap = n;
    }
    G->n = n;
    G->nb = nb;
    memcpy(G->xb, xb, d * nb * sizeof *xb);
    memcpy(G->xi, x, d * n * sizeof *x);
    memcpy(G->psi, psi, nb * sizeof *psi);
    seam_neighbours *Bf = seam_neighbours_new(f->dim, n, x, f->K.h);
    seam_neighbours *Bb = seam_neighbours_new(f->dim, nb, G->xb, f->K.h);
    int rc = Bf && Bb ? 0 : -1;
    if (rc == 0) {
        pairs_build(&G->ff, &f->K, n, x, Bf, x, NULL);
        pairs_build(&G->fb, &f->K, n, x, Bb, G->xb, G->psi);
    }
    seam_neighbours_destroy(&Bf);
    seam_neighbours_destroy(&Bb);
    if (rc != 0)
        return rc;
    /* Densities (Akbay eq. 3.10) and the DFSPH factor (Bender and Koschier 2017, eq. 11):
     * the density change of particle i under its own pressure alone, with the boundary
     * terms of the gradient sum (Akinci) and the boundary's mirrored pressure (SPH_MIRROR). */
    const double m = f->m;
#pragma omp parallel for schedule(static) if (G->n >= SPH_OMP_MIN)
    for (size_t i = 0; i < n; i++) {
        double rho = 0.0, g[3] = {0.0, 0.0, 0.0}, gb[3] = {0.0, 0.0, 0.0}, sq = 0.0;
        const double *xi = G->xi + d * i;
        for (size_t p = G->ff.start[i]; p < G->ff.start[i + 1]; p++) {
            rho += m * sph_W(&f->K, sqrt(sph_pair_d2(d, xi, G->xi + d * G->ff.j[p])));
            const double *gw = G->ff.gw + d * p;
            for (size_t c = 0; c < d; c++) {
                g[c] += m * gw[c];
                sq += m * m * gw[c] * gw[c];
            }
        }
        for (size_t p = G->fb.start[i]; p < G->fb.start[i + 1]; p++) {
            size_t b = G->fb.j[p];
            rho += G->psi[b] * sph_W(&f->K, sqrt(sph_pair_d2(d, xi, G->xb + d * b)));
            for (size_t c = 0; c < d; c++)
                gb[c] += G->fb.gw[d * p + c];
        }
        /* velocity change -dt k_i (g + SPH_MIRROR gb), density rate change -dt k_i (|that|^2 + sq) */
        double denom = sq;
        for (int c = 0; c < 3; c++)
            denom += (g[c] + SPH_MIRROR * gb[c]) * (g[c] + SPH_MIRROR * gb[c]);
        G->rho[i] = rho;
        /* A particle alone has no gradient: it takes no pressure. */
        G->alpha[i] = denom > 1e-9 * m * m / (f->K.h * f->K.h * f->K.h * f->K.h) ? 1.0 / denom : 0.0;
    }
    return 0;
}

void sph_xsph(const sph_fluid *f, const sph_geometry *G, double eps, const double *v, double *v_out)
{
    size_t d = (size_t)f->dim;
#pragma omp parallel for schedule(static) if (G->n >= SPH_OMP_MIN)
    for (size_t i = 0; i < G->n; i++) {
        double acc[3] = {0.0, 0.0, 0.0};
        for (size_t p = G->ff.start[i]; p < G->ff.start[i + 1]; p++) {
            size_t j = G->ff.j[p];
            double w = sph_W(&f->K, sqrt(sph_pair_d2(d, G->xi + d * i, G->xi + d * j)));
            double c = 2.0 * f->m / (G->rho[i] + G->rho[j]) * w;
            for (size_t a = 0; a < d; a++)
                acc[a] += c * (v[d * j + a] - v[d * i + a]);
        }
        for (size_t a = 0; a < d; a++)
            v_out[d * i + a] = v[d * i + a] + eps * acc[a];
    }
}

/* D rho_i / D t from the velocities: m sum_j (v_i - v_j) . grad W_ij + SPH_MIRROR sum_b psi_b (v_i - v_b) . grad W_ib
 * (the boundary counted as in the pressure force, so the two are adjoint). */
static double density_rate(const sph_fluid *f, const sph_geometry *G, const double *v, const double *vb, size_t i)
{
    size_t d = (size_t)f->dim;
    const double *vi = v + d * i;
    double s = 0.0;
    for (size_t p = G->ff.start[i]; p < G->ff.start[i + 1]; p++) {
        const double *vj = v + d * G->ff.j[p], *gw = G->ff.gw + d * p;
        for (size_t c = 0; c < d; c++)
            s += f->m * (vi[c] - vj[c]) * gw[c];
    }
    for (size_t p = G->fb.start[i]; p < G->fb.start[i + 1]; p++) {
        const double *vbj = vb + d * G->fb.j[p], *gw = G->fb.gw + d * p;
        for (size_t c = 0; c < d; c++)
            s += SPH_MIRROR * (vi[c] - vbj[c]) * gw[c];
    }
    return s;
}

/* The velocity change of pressures dk (p / rho^2), the symmetric pressure
 * acceleration with the boundary's pressure mirrored from the fluid's:
 * v_i -= dt (m sum_j (dk_i + dk_j) grad W_ij + SPH_MIRROR dk_i sum_b psi_b grad W_ib). */
static void apply_pressure(const sph_fluid *f, const sph_geometry *G, double dt, const double *dk, double *v)
{
    size_t d = (size_t)f->dim;
#pragma omp parallel for schedule(static) if (G->n >= SPH_OMP_MIN)
    for (size_t i = 0; i < G->n; i++) {
        double a[3] = {0.0, 0.0, 0.0};
        for (size_t p = G->ff.start[i]; p < G->ff.start[i + 1]; p++) {
            double c = f->m * (dk[i] + dk[G->ff.j[p]]);
            for (size_t q = 0; q < d; q++)
                a[q] += c * G->ff.gw[d * p + q];
        }
        for (size_t p = G->fb.start[i]; p < G->fb.start[i + 1]; p++)
            for (size_t q = 0; q < d; q++)
                a[q] += SPH_MIRROR * dk[i] * G->fb.gw[d * p + q];
        for (size_t q = 0; q < d; q++)
            v[d * i + q] -= dt * a[q];
    }
}

/* The projected Jacobi both solvers share. The residual of particle i is
 * scale * (target(i) - 0), target the predicted density excess (density
 * solve) or D rho / D t (divergence solve); k_i grows by alpha_i r_i / dt^pow
 * and stays >= 0 (no tension at a free surface). */
/* Relaxation of the Jacobi update: at 1 the checkerboard mode of the particle
 * lattice grows (0.85 already lets it); IISPH (Ihmsen et al. 2014) takes 0.5. */
#define JACOBI_OMEGA 0.7

static sph_solve_stats projected_jacobi(const sph_fluid *f, const sph_geometry *G, double dt, const double *vb,
                                        double eta, int max_iter, int density, double drift, double *v, double *k,
                                        double *work)
{
    size_t n = G->n;
    double *dk = work;
    sph_solve_stats st = {0};
    apply_pressure(f, G, dt, k, v);   /* warm start */
    double gain = density ? 1.0 / (dt * dt) : 1.0 / dt;
    double to_error = density ? 1.0 / f->rho0 : dt / f->rho0;
    for (int it = 0;; it++) {
        double err = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : err) if (n >= SPH_OMP_MIN)
        for (size_t i = 0; i < n; i++) {
            double rate = density_rate(f, G, v, vb, i);
            /* density: rho*_i - rho0 = rho_i + dt D rho/Dt - rho0; divergence: D rho/Dt */
            double r = density ? drift * (G->rho[i] - f->rho0) + dt * rate : rate;
            double k_new = fmax(0.0, k[i] + JACOBI_OMEGA * G->alpha[i] * r * gain);
            dk[i] = k_new - k[i];
            err += k[i] > 0.0 || r > 0.0 ? fabs(r) : 0.0;
        }
        st.error = n ? err / (double)n * to_error : 0.0;
        st.iterations = it;
        if (st.error <= eta || it >= max_iter)
            break;
        apply_pressure(f, G, dt, dk, v);
        for (size_t i = 0; i < n; i++)
            k[i] += dk[i];
    }
    return st;
}

sph_solve_stats sph_density_solve(const sph_fluid *f, const sph_geometry *G, double dt, double dt_ref,
                                  const double *vb, double eta, int max_iter, double *v, double *k, double *work)
{
    return projected_jacobi(f, G, dt, vb, eta, max_iter, 1, fmin(1.0, dt / dt_ref), v, k, work);
}

sph_solve_stats sph_divergence_solve(const sph_fluid *f, const sph_geometry *G, double dt, const double *vb,
                                     double eta, int max_iter, double *v, double *k, double *work)
{
    return projected_jacobi(f, G, dt, vb, eta, max_iter, 0, 0.0, v, k, work);
}

void sph_boundary_forces(const sph_fluid *f, const sph_geometry *G, const double *k, double *fb)
{
    size_t d = (size_t)f->dim;
    for (size_t i = 0; i < G->n; i++)
        for (size_t p = G->fb.start[i]; p < G->fb.start[i + 1]; p++)
            for (size_t c = 0; c < d; c++)
                fb[d * G->fb.j[p] + c] += SPH_MIRROR * f->m * k[i] * G->fb.gw[d * p + c];
}

void sph_boundary_pressure(const sph_fluid *f, const sph_geometry *G, const double *g, const double *k, double dt,
                              double *v, double *fb)
{
    size_t d = (size_t)f->dim;
#pragma omp parallel for schedule(static) if (G->n >= SPH_OMP_MIN)
    for (size_t i = 0; i < G->n; i++) {
        if (!(k[i] > 0.0))
            continue;
        const double *xi = G->xi + d * i;
        for (size_t p = G->fb.start[i]; p < G->fb.start[i + 1]; p++) {
            const double *xb = G->xb + d * G->fb.j[p];
            double c = 0.0;
            for (size_t q = 0; q < d; q++)
                c += g[q] * (xb[q] - xi[q]);
            c = fmax(c / G->rho[i], -k[i]);   /* k_b - k_i, with p_b >= 0: a wall does not pull */
            for (size_t q = 0; q < d; q++)
                v[d * i + q] -= dt * c * G->fb.gw[d * p + q];
        }
    }
    for (size_t i = 0; i < G->n; i++) {
        if (!(k[i] > 0.0))
            continue;
        const double *xi = G->xi + d * i;
        for (size_t p = G->fb.start[i]; p < G->fb.start[i + 1]; p++) {
            const double *xb = G->xb + d * G->fb.j[p];
            double c = 0.0;
            for (size_t q = 0; q < d; q++)
                c += g[q] * (xb[q] - xi[q]);
            c = fmax(c / G->rho[i], -k[i]);   /* k_b - k_i, with p_b >= 0: a wall does not pull */
            for (size_t q = 0; q < d; q++)
                fb[d * G->fb.j[p] + q] += f->m * c * G->fb.gw[d * p + q];
        }
    }
}

/* Strain rates s (n * dim * dim, row-major) of velocities u (NULL: zero) with
 * the boundary moving at vb (NULL: at rest), Takahashi eq. 4.6. */
static void viscous_strain(const sph_fluid *f, const sph_geometry *G, double mu, const double *u, const double *vb,
                           double *s)
{
    size_t d = (size_t)f->dim;
#pragma omp parallel for schedule(static) if (G->n >= SPH_OMP_MIN)
    for (size_t i = 0; i < G->n; i++) {
        double D[9] = {0.0};
        const double zero[3] = {0.0, 0.0, 0.0}, *ui = u ? u + d * i : zero;
        for (size_t p = G->ff.start[i]; p < G->ff.start[i + 1] && u; p++) {
            const double *uj = u + d * G->ff.j[p], *gw = G->ff.gw + d * p;
            for (size_t a = 0; a < d; a++)
                for (size_t c = 0; c < d; c++)
                    D[d * a + c] += f->m * (uj[a] - ui[a]) * gw[c];
        }
        for (size_t p = G->fb.start[i]; p < G->fb.start[i + 1]; p++) {
            const double *ub = vb ? vb + d * G->fb.j[p] : zero, *gw = G->fb.gw + d * p;
            for (size_t a = 0; a < d; a++)
                for (size_t c = 0; c < d; c++)
                    D[d * a + c] += SPH_MIRROR * (ub[a] - ui[a]) * gw[c];
        }
        double *si = s + d * d * i;
        for (size_t a = 0; a < d; a++)
            for (size_t c = 0; c < d; c++)
                si[d * a + c] = mu / G->rho[i] * (D[d * a + c] + D[d * c + a]);
    }
}

/* L(u) of Takahashi eq. 4.5 from the strain rates s into out (n * dim). */
static void viscous_divergence(const sph_fluid *f, const sph_geometry *G, const double *s, double *out)
{
    size_t d = (size_t)f->dim;
#pragma omp parallel for schedule(static) if (G->n >= SPH_OMP_MIN)
    for (size_t i = 0; i < G->n; i++) {
        double acc[3] = {0.0, 0.0, 0.0}, ri2 = 1.0 / (G->rho[i] * G->rho[i]);
        const double *si = s + d * d * i;
        for (size_t p = G->ff.start[i]; p < G->ff.start[i + 1]; p++) {
            size_t j = G->ff.j[p];
            const double *sj = s + d * d * j, *gw = G->ff.gw + d * p;
            double rj2 = 1.0 / (G->rho[j] * G->rho[j]);
            for (size_t a = 0; a < d; a++)
                for (size_t c = 0; c < d; c++)
                    acc[a] += f->m * (si[d * a + c] * ri2 + sj[d * a + c] * rj2) * gw[c];
        }
        for (size_t p = G->fb.start[i]; p < G->fb.start[i + 1]; p++) {
            const double *gw = G->fb.gw + d * p;
            for (size_t a = 0; a < d; a++)
                for (size_t c = 0; c < d; c++)
                    acc[a] += SPH_MIRROR * si[d * a + c] * ri2 * gw[c];
        }
        for (size_t a = 0; a < d; a++)
            out[d * i + a] = acc[a];
    }
}

/* The Laplacian form of L(u) into out (n * dim): mu / rho_i times Brookshaw's
 * (1985) Laplacian as Morris et al. (1997) write it,
 *   2 sum_j V_j (u_i - u_j) (x_ij . grad W_ij) / (|x_ij|^2 + 0.01 h^2),
 * with V_j = m / rho_j (and Psi_b / rho_i, mirrored as in the full form, for
 * the boundary at vb): a weight w_ij >= 0 per pair, symmetric in i and j. */
static void laplacian_accel(const sph_fluid *f, const sph_geometry *G, double mu, const double *u, const double *vb,
                            double *out)
{
    size_t d = (size_t)f->dim;
    double eps = 0.01 * f->K.h * f->K.h;
#pragma omp parallel for schedule(static) if (G->n >= SPH_OMP_MIN)
    for (size_t i = 0; i < G->n; i++) {
        double acc[3] = {0.0, 0.0, 0.0};
        const double zero[3] = {0.0, 0.0, 0.0}, *ui = u ? u + d * i : zero, *xi = G->xi + d * i;
        for (size_t p = G->ff.start[i]; p < G->ff.start[i + 1] && u; p++) {
            size_t j = G->ff.j[p];
            const double *xj = G->xi + d * j, *gw = G->ff.gw + d * p, *uj = u + d * j;
            double dot = 0.0;
            for (size_t c = 0; c < d; c++)
                dot += (xi[c] - xj[c]) * gw[c];
            double w = -2.0 * mu * f->m * dot / (G->rho[i] * G->rho[j] * (sph_pair_d2(d, xi, xj) + eps));
            for (size_t c = 0; c < d; c++)
                acc[c] += w * (uj[c] - ui[c]);
        }
        for (size_t p = G->fb.start[i]; p < G->fb.start[i + 1]; p++) {
            size_t b = G->fb.j[p];
            const double *xb = G->xb + d * b, *gw = G->fb.gw + d * p, *ub = vb ? vb + d * b : zero;
            double dot = 0.0;
            for (size_t c = 0; c < d; c++)
                dot += (xi[c] - xb[c]) * gw[c];
            double w = -SPH_MIRROR * 2.0 * mu * dot / (G->rho[i] * G->rho[i] * (sph_pair_d2(d, xi, xb) + eps));
            for (size_t c = 0; c < d; c++)
                acc[c] += w * (ub[c] - ui[c]);
        }
        for (size_t c = 0; c < d; c++)
            out[d * i + c] = acc[c];
    }
}

typedef struct viscosity_op {
    const sph_fluid *f;
    const sph_geometry *G;
    double mu, dt;
    sph_visc_form form;
    double *s;               /* n * dim * dim: the full form's strain rates */
} viscosity_op;

/* L(u) of the op's form into out, the boundary moving at vb (NULL: at rest). */
static void viscous_accel(const viscosity_op *op, const double *u, const double *vb, double *out)
{
    if (op->form == SPH_VISC_LAPLACIAN) {
        laplacian_accel(op->f, op->G, op->mu, u, vb, out);
        return;
    }
    viscous_strain(op->f, op->G, op->mu, u, vb, op->s);
    viscous_divergence(op->f, op->G, op->s, out);
}

/* y = x - dt L_0(x) (eq. 4.7 divided by m). */
static void viscosity_apply_op(void *ctx, const double *x, double *y)
{
    const viscosity_op *op = ctx;
    size_t nd = (size_t)op->f->dim * op->G->n;
    viscous_accel(op, x, NULL, y);
    for (size_t k = 0; k < nd; k++)
        y[k] = x[k] - op->dt * y[k];
}

void sph_viscosity_apply(const sph_fluid *f, const sph_geometry *G, double mu, sph_visc_form form, double dt,
                         const double *x, double *y)
{
    size_t d = (size_t)f->dim;
    viscosity_op op = {f, G, mu, dt, form, seam_xmalloc_n(d * d * G->n + 1, sizeof(double))};
    viscosity_apply_op(&op, x, y);
    free(op.s);
}

/* v += dt L(u) (eq. 4.3 with the stress of u, eq. 4.4) and the boundary's
 * reflection into fb, so the fluid's momentum changes by exactly what the
 * boundary terms give; acc (n dim) is work. */
static void viscous_update(const viscosity_op *op, const double *u, const double *vb, double *acc, double *v,
                           double *fb)
{
    const sph_fluid *f = op->f;
    const sph_geometry *G = op->G;
    size_t d = (size_t)f->dim, n = G->n;
    viscous_accel(op, u, vb, acc);
    for (size_t k = 0; k < d * n; k++)
        v[k] += op->dt * acc[k];
    double eps = 0.01 * f->K.h * f->K.h;
    for (size_t i = 0; i < n; i++) {
        const double *si = op->s + d * d * i, *xi = G->xi + d * i, *ui = u + d * i;
        double ri2 = 1.0 / (G->rho[i] * G->rho[i]);
        for (size_t p = G->fb.start[i]; p < G->fb.start[i + 1]; p++) {
            size_t b = G->fb.j[p];
            const double *gw = G->fb.gw + d * p;
            if (op->form == SPH_VISC_LAPLACIAN) {   /* minus m w_ib (u_b - u_i), laplacian_accel's boundary term */
                const double *xb = G->xb + d * b;
                double dot = 0.0;
                for (size_t c = 0; c < d; c++)
                    dot += (xi[c] - xb[c]) * gw[c];
                double w = -SPH_MIRROR * 2.0 * op->mu * dot * ri2 / (sph_pair_d2(d, xi, xb) + eps);
                for (size_t c = 0; c < d; c++)
                    fb[d * b + c] -= f->m * w * ((vb ? vb[d * b + c] : 0.0) - ui[c]);
                continue;
            }
            for (size_t a = 0; a < d; a++)
                for (size_t c = 0; c < d; c++)
                    fb[d * b + a] -= SPH_MIRROR * f->m * si[d * a + c] * ri2 * gw[c];
        }
    }
}

int sph_viscosity_solve(const sph_fluid *f, const sph_geometry *G, double mu, sph_visc_form form, double dt,
                        const double *vb, double tol, int max_iter, double *v, double *fb, sph_solve_stats *st)
{
    size_t d = (size_t)f->dim, n = G->n, nd = d * n;
    *st = (sph_solve_stats){0};
    if (!n)
        return 0;
    viscosity_op op = {f, G, mu, dt, form, seam_xmalloc_n(d * nd + 1, sizeof(double))};
    double *b = seam_xmalloc_n(nd + 1, sizeof *b), *u = seam_xmalloc_n(nd + 1, sizeof *u);
    /* b = u* + dt L_b: the boundary's velocities are known (no-slip), their part goes to the right side */
    viscous_accel(&op, NULL, vb, b);
    for (size_t k = 0; k < nd; k++)
        b[k] = v[k] + dt * b[k];
    memcpy(u, v, nd * sizeof *u);   /* warm start: u* */
    seam_linop A = {nd, viscosity_apply_op, &op};
    seam_krylov_opts o = {tol, 0.0, max_iter, 0};
    seam_krylov_stats ks;
    int rc = seam_pcg(&A, NULL, b, u, &o, &ks) == 0 ? 0 : 1;
    double bn = seam_norm2(nd, b);
    st->iterations = ks.iterations;
    st->error = bn > 0.0 ? ks.residual / bn : 0.0;
    st->breakdown = ks.breakdown;
    viscous_update(&op, u, vb, b, v, fb);
    free(op.s);
    free(b);
    free(u);
    return rc;
}

void sph_viscosity_explicit(const sph_fluid *f, const sph_geometry *G, double mu, sph_visc_form form, double dt,
                            const double *vb, double *v, double *fb)
{
    size_t d = (size_t)f->dim, nd = d * G->n;
    if (!G->n)
        return;
    viscosity_op op = {f, G, mu, dt, form, seam_xmalloc_n(d * nd, sizeof(double))};
    double *u = seam_xmalloc_n(nd, sizeof *u), *acc = seam_xmalloc_n(nd, sizeof *acc);
    memcpy(u, v, nd * sizeof *u);   /* forward Euler: the stress of u* (Andrade et al. 2014) */
    viscous_update(&op, u, vb, acc, v, fb);
    free(op.s);
    free(u);
    free(acc);
}

double sph_density_rate(const sph_fluid *f, const sph_geometry *G, const double *v, const double *vb, size_t i)
{
    return density_rate(f, G, v, vb, i);
}

void sph_apply_pressure(const sph_fluid *f, const sph_geometry *G, double dt, const double *k, double *v)
{
    apply_pressure(f, G, dt, k, v);
}
