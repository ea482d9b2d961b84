/* solid_fem: forces, stiffness, and the time integrators. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/dense.h"
#include "seam/krylov.h"
#include "seam/log.h"
#include "fem.h"

#define PI 3.14159265358979323846

void fem_shape_gradients(int d, const double *Dm_inv, double b[4][3])
{
    for (int j = 0; j < d; j++) {
        b[0][j] = 0.0;
        for (int a = 1; a <= d; a++) {
            b[a][j] = Dm_inv[(a - 1) * d + j];
            b[0][j] -= b[a][j];
        }
    }
}

/* One element: energy, its nodal forces' negatives W P b_a (fe, (d + 1) d
 * numbers: f_a -= fe_a), stiffness block into Ke (may be NULL). Reads only
 * x: elements run on threads. */
static double element_forces(const fem_elem *e, const fem_material *mat, int d, const double *x, double *fe,
                             double *Ke)
{
    double b[4][3], F[9] = {0}, P[9] = {0}, dPdF[81];
    fem_shape_gradients(d, e->Dm_inv, b);
    /* F = D_s D_m^{-1} (Irving 2.3), written as sum_a x_a b_a^T. */
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double s = 0.0;
            for (int a = 0; a <= d; a++)
                s += x[e->n[a] * d + i] * b[a][j];
            F[i * d + j] = s;
        }
    double psi = fem_first_piola(mat, d, F, P, Ke ? dPdF : NULL);
    /* Nodal forces f_a = -W P b_a (Irving 2.4, G = P B_m). */
    for (int a = 0; a <= d; a++)
        for (int i = 0; i < d; i++) {
            double s = 0.0;
            for (int j = 0; j < d; j++)
                s += P[i * d + j] * b[a][j];
            fe[a * d + i] = e->W * s;
        }
    if (Ke) {
        int m = (d + 1) * d, dd = d * d;
        for (int a = 0; a <= d; a++)
            for (int i = 0; i < d; i++)
                for (int c = 0; c <= d; c++)
                    for (int k = 0; k < d; k++) {
                        double s = 0.0;
                        for (int j = 0; j < d; j++)
                            for (int l = 0; l < d; l++)
                                s += dPdF[(i * d + j) * dd + k * d + l] * b[a][j] * b[c][l];
                        Ke[(a * d + i) * m + c * d + k] = e->W * s;
                    }
    }
    return e->W * psi;
}

/* Spring on a 2D segment: psi = k/(2 l0) (l - l0)^2, k the axial stiffness. */
static double spring_forces(const fem_spring *s, double k, const double *x, double *f, double *Ke)
{
    double dx = x[2 * s->b] - x[2 * s->a], dy = x[2 * s->b + 1] - x[2 * s->a + 1];
    double l = hypot(dx, dy);
    double n[2] = {l > 0 ? dx / l : 1.0, l > 0 ? dy / l : 0.0};
    double kl = k / s->l0, ext = l - s->l0;
    for (int i = 0; i < 2; i++) {
        f[2 * s->b + i] -= kl * ext * n[i];
        f[2 * s->a + i] += kl * ext * n[i];
    }
    if (Ke) {
        /* Transverse term dropped when compressed, so the block stays definite. */
        double tr = l > 0 ? fmax(0.0, 1.0 - s->l0 / l) : 0.0;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                double H = kl * (n[i] * n[j] + tr * ((i == j) - n[i] * n[j]));
                Ke[i * 4 + j] = Ke[(2 + i) * 4 + 2 + j] = H;
                Ke[i * 4 + 2 + j] = Ke[(2 + i) * 4 + j] = -H;
            }
    }
    return 0.5 * kl * ext * ext;
}

/* Turning angle theta at node b of a chain a-b-c and its gradient G (6). */
static double hinge_angle(const fem_hinge *h, const double *x, double *G, double *Htheta)
{
    const double *xa = x + 2 * h->a, *xb = x + 2 * h->b, *xc = x + 2 * h->c;
    double e1[2] = {xb[0] - xa[0], xb[1] - xa[1]}, e2[2] = {xc[0] - xb[0], xc[1] - xb[1]};
    double r1 = e1[0] * e1[0] + e1[1] * e1[1], r2 = e2[0] * e2[0] + e2[1] * e2[1];
    double theta = atan2(e1[0] * e2[1] - e1[1] * e2[0], e1[0] * e2[0] + e1[1] * e2[1]);
    if (r1 <= 0.0 || r2 <= 0.0) {
        memset(G, 0, 6 * sizeof *G);
        if (Htheta)
            memset(Htheta, 0, 36 * sizeof *Htheta);
        return theta;
    }
    /* d(angle of e)/de = (-e_y, e_x)/|e|^2; theta = angle(e2) - angle(e1). */
    double g1[2] = {-e1[1] / r1, e1[0] / r1}, g2[2] = {-e2[1] / r2, e2[0] / r2};
    G[0] = g1[0];
    G[1] = g1[1];
    G[2] = -g1[0] - g2[0];
    G[3] = -g1[1] - g2[1];
    G[4] = g2[0];
    G[5] = g2[1];
    if (Htheta) {
        double h1[4] = {2 * e1[0] * e1[1] / (r1 * r1), (e1[1] * e1[1] - e1[0] * e1[0]) / (r1 * r1), 0, 0};
        h1[2] = h1[1];
        h1[3] = -h1[0];
        double h2[4] = {2 * e2[0] * e2[1] / (r2 * r2), (e2[1] * e2[1] - e2[0] * e2[0]) / (r2 * r2), 0, 0};
        h2[2] = h2[1];
        h2[3] = -h2[0];
        /* e1 = x_b - x_a, e2 = x_c - x_b: selectors s1 = (-1, 1, 0), s2 = (0, -1, 1). */
        static const double s1[3] = {-1, 1, 0}, s2[3] = {0, -1, 1};
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++)
                for (int i = 0; i < 2; i++)
                    for (int k = 0; k < 2; k++)
                        Htheta[(2 * a + i) * 6 + 2 * c + k] =
                            s2[a] * s2[c] * h2[i * 2 + k] - s1[a] * s1[c] * h1[i * 2 + k];
    }
    return theta;
}

/* The definiteness fix of a hinge's 6x6 block: its nearest positive
 * semidefinite matrix. theta depends on the edges x_b - x_a and x_c - x_b
 * only, so Ke maps the hinge's two translations to zero and Ke = Q (Q^T Ke Q)
 * Q^T, Q's orthonormal columns spanning the four motions of the nodes
 * relative to one another; the projection is then Q psd(Q^T Ke Q) Q^T, a 4x4
 * eigenproblem instead of 6x6 (about a third of the work; the same matrix to
 * rounding). Ke is left as it is when Q^T Ke Q has no negative eigenvalue. */
void fem_hinge_project_psd(double *Ke)
{
    static const double r2 = 0.70710678118654752440, r6 = 0.40824829046386301637;
    static const double u[2][3] = {{r2, -r2, 0.0}, {r6, r6, -2.0 * r6}};   /* orthonormal, each orthogonal to (1, 1, 1) */
    double Q[6][4] = {{0}};
    for (int a = 0; a < 3; a++)
        for (int m = 0; m < 2; m++)
            for (int i = 0; i < 2; i++)
                Q[2 * a + i][2 * i + m] = u[m][a];
    double KQ[6][4], K4[16];
    for (int p = 0; p < 6; p++)
        for (int b = 0; b < 4; b++) {
            double sum = 0.0;
            for (int q = 0; q < 6; q++)
                sum += Ke[p * 6 + q] * Q[q][b];
            KQ[p][b] = sum;
        }
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            double sum = 0.0;
            for (int p = 0; p < 6; p++)
                sum += Q[p][a] * KQ[p][b];
            K4[a * 4 + b] = sum;
        }
    for (int a = 0; a < 4; a++)   /* symmetric to the bit, as the eigen-solver assumes */
        for (int b = 0; b < a; b++)
            K4[a * 4 + b] = K4[b * 4 + a] = 0.5 * (K4[a * 4 + b] + K4[b * 4 + a]);
    if (seam_sym_project_psd(4, K4) == 0)
        return;
    for (int p = 0; p < 6; p++)
        for (int a = 0; a < 4; a++) {
            double sum = 0.0;
            for (int b = 0; b < 4; b++)
                sum += Q[p][b] * K4[b * 4 + a];
            KQ[p][a] = sum;
        }
    for (int p = 0; p < 6; p++)
        for (int q = p; q < 6; q++) {
            double sum = 0.0;
            for (int a = 0; a < 4; a++)
                sum += KQ[p][a] * Q[q][a];
            Ke[p * 6 + q] = Ke[q * 6 + p] = sum;
        }
}

/* Bending hinge: psi = k_bend/2 (theta - theta0)^2 (Akbay 4.3.4's bending spring). */
static double hinge_forces(const fem_hinge *h, double k, const double *x, double *f, double *Ke)
{
    double G[6], Ht[36];
    double dth = hinge_angle(h, x, G, Ke ? Ht : NULL) - h->theta0;
    dth = dth - 2.0 * PI * floor((dth + PI) / (2.0 * PI));   /* wrap to [-pi, pi) */
    int32_t nodes[3] = {h->a, h->b, h->c};
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < 2; i++)
            f[2 * nodes[a] + i] -= k * dth * G[2 * a + i];
    if (Ke) {
        for (int p = 0; p < 6; p++)
            for (int q = 0; q < 6; q++)
                Ke[p * 6 + q] = k * (G[p] * G[q] + dth * Ht[p * 6 + q]);
        fem_hinge_project_psd(Ke);   /* the definiteness fix, per hinge */
    }
    return 0.5 * k * dth * dth;
}

/* Elements per chunk: worked out on threads into their own blocks, then
 * added in element order, so f, K and the energy are the same bits with any
 * number of threads. */
enum { FEM_CHUNK = 1024, FEM_OMP_MIN = 2048 };

/* Elements [e0, e0 + m) into f, K (may be NULL) and *energy; psi, fe and Kb
 * have room for m elements. */
static void element_chunk(const fem *self, const double *x, size_t e0, size_t m, double *psi, double *fe,
                          double *Kb, double *f, seam_csr *K, double *energy)
{
    int d = self->d, nf = (d + 1) * d;
#pragma omp parallel for schedule(static) if (self->n_elems >= FEM_OMP_MIN)
    for (size_t q = 0; q < m; q++) {
        const fem_elem *el = &self->elems[e0 + q];
        psi[q] = element_forces(el, &self->bodies[el->body].mat, d, x, fe + (size_t)nf * q,
                                Kb ? Kb + (size_t)nf * (size_t)nf * q : NULL);
    }
    for (size_t q = 0; q < m; q++) {
        const fem_elem *el = &self->elems[e0 + q];
        *energy += psi[q];
        for (int a = 0; a <= d; a++)
            for (int i = 0; i < d; i++)
                f[el->n[a] * d + i] -= fe[(size_t)nf * q + (size_t)(a * d + i)];
        if (K)
            seam_csr_add_block(K, d, d + 1, el->n, Kb + (size_t)nf * (size_t)nf * q);
    }
}

double fem_elastic(const fem *self, const double *x, double *f, seam_csr *K)
{
    int d = self->d;
    memset(f, 0, self->n * (size_t)d * sizeof *f);
    if (K)
        memset(K->val, 0, K->nnz * sizeof *K->val);
    double energy = 0.0, Ke[144];
    size_t chunk = self->n_elems < FEM_CHUNK ? self->n_elems : FEM_CHUNK;
    double *psi = seam_xmalloc_n(chunk + 1, sizeof *psi), *fe = seam_xmalloc_n((chunk + 1) * 12, sizeof *fe);
    double *Kb = K ? seam_xmalloc_n((chunk + 1) * 144, sizeof *Kb) : NULL;
    for (size_t e0 = 0; e0 < self->n_elems; e0 += chunk) {
        size_t m = self->n_elems - e0 < chunk ? self->n_elems - e0 : chunk;
        element_chunk(self, x, e0, m, psi, fe, Kb, f, K, &energy);
    }
    free(psi);
    free(fe);
    free(Kb);
    for (size_t s = 0; s < self->n_springs; s++) {
        const fem_spring *sp = &self->springs[s];
        energy += spring_forces(sp, self->bodies[sp->body].k_stretch, x, f, K ? Ke : NULL);
        if (K) {
            int32_t nodes[2] = {sp->a, sp->b};
            seam_csr_add_block(K, 2, 2, nodes, Ke);
        }
    }
    for (size_t h = 0; h < self->n_hinges; h++) {
        const fem_hinge *hg = &self->hinges[h];
        double k = self->bodies[hg->body].k_bend;
        if (k == 0.0)
            continue;
        energy += hinge_forces(hg, k, x, f, K ? Ke : NULL);
        if (K) {
            int32_t nodes[3] = {hg->a, hg->b, hg->c};
            seam_csr_add_block(K, 2, 3, nodes, Ke);
        }
    }
    if (self->n_tris)
        energy += fem_cloth_elastic(self, x, f, K);
    return energy;
}

void fem_damping_matrix(const fem *self, const double *x, seam_csr *D)
{
    int d = self->d;
    memset(D->val, 0, D->nnz * sizeof *D->val);
    double scratch[12], Ke[144];
    /* Rayleigh D = alpha M + beta K (Zarifi eq. 3.50), K at the start of the step. */
    for (size_t e = 0; e < self->n_elems; e++) {
        const fem_elem *el = &self->elems[e];
        const fem_body *b = &self->bodies[el->body];
        if (b->beta == 0.0)
            continue;
        element_forces(el, &b->mat, d, x, scratch, Ke);
        for (int i = 0; i < (d + 1) * d * (d + 1) * d; i++)
            Ke[i] *= b->beta;
        seam_csr_add_block(D, d, d + 1, el->n, Ke);
    }
    /* Dashpots along each spring, b_stretch/l0 n n^T. */
    for (size_t s = 0; s < self->n_springs; s++) {
        const fem_spring *sp = &self->springs[s];
        double bs = self->bodies[sp->body].b_stretch;
        if (bs == 0.0)
            continue;
        double dx = x[2 * sp->b] - x[2 * sp->a], dy = x[2 * sp->b + 1] - x[2 * sp->a + 1], l = hypot(dx, dy);
        double n[2] = {l > 0 ? dx / l : 1, l > 0 ? dy / l : 0};
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                double H = bs / sp->l0 * n[i] * n[j];
                Ke[i * 4 + j] = Ke[(2 + i) * 4 + 2 + j] = H;
                Ke[i * 4 + 2 + j] = Ke[(2 + i) * 4 + j] = -H;
            }
        int32_t nodes[2] = {sp->a, sp->b};
        seam_csr_add_block(D, 2, 2, nodes, Ke);
    }
    /* Angular dashpots at hinges, b_bend G G^T (resists d theta/dt). */
    for (size_t h = 0; h < self->n_hinges; h++) {
        const fem_hinge *hg = &self->hinges[h];
        double bb = self->bodies[hg->body].b_bend, G[6];
        if (bb == 0.0)
            continue;
        hinge_angle(hg, x, G, NULL);
        for (int p = 0; p < 6; p++)
            for (int q = 0; q < 6; q++)
                Ke[p * 6 + q] = bb * G[p] * G[q];
        int32_t nodes[3] = {hg->a, hg->b, hg->c};
        seam_csr_add_block(D, 2, 3, nodes, Ke);
    }
    if (self->n_tris)
        fem_cloth_damping(self, x, D);
    for (size_t bi = 0; bi < self->n_bodies; bi++) {
        const fem_body *b = &self->bodies[bi];
        for (size_t i = b->node0; i < b->node0 + b->n_nodes; i++)
            for (int k = 0; k < d; k++) {
                double *Dii = seam_csr_at(D, i * (size_t)d + (size_t)k, i * (size_t)d + (size_t)k);
                if (Dii)   /* a node in no element has no entry (and no mass) */
                    *Dii += b->alpha * self->mass[i];
            }
    }
}

static int has_damping(const fem *self)
{
    for (size_t bi = 0; bi < self->n_bodies; bi++) {
        const fem_body *b = &self->bodies[bi];
        if (b->alpha != 0.0 || b->beta != 0.0 || b->b_stretch != 0.0 || b->b_bend != 0.0)
            return 1;
    }
    return 0;
}

/* f_ext = M g + loads. */
static void external_forces(const fem *self, const double *f_load, double *f_ext)
{
    int d = self->d;
    for (size_t i = 0; i < self->n; i++)
        for (int k = 0; k < d; k++) {
            size_t r = i * (size_t)d + (size_t)k;
            f_ext[r] = self->mass[i] * self->gravity[k] + (f_load ? f_load[r] : 0.0);
        }
}

static int is_fixed(const fem *self, size_t dof) { return self->fixed[dof / (size_t)self->d] != 0; }
/* Pinned, prescribed, or held on a wall during this solve. */
static int is_held(const fem *self, size_t dof)
{
    return self->fixed[dof / (size_t)self->d] != 0 || (self->contact && self->contact[dof]);
}

/* Incremental potential of backward Euler in the velocity v (Zarifi eq. 3.19,
 * discrete): its gradient is -dt times the force residual g. */
static double incremental_potential(const fem *self, double dt, const double *v, const double *f_ext,
                                    int damped, double *x, double *scratch)
{
    size_t nd = self->n * (size_t)self->d;
    for (size_t r = 0; r < nd; r++)
        x[r] = self->x[r] + dt * v[r];
    double phi = dt * fem_elastic(self, x, scratch, NULL);
    for (size_t r = 0; r < nd; r++) {
        double m = self->mass[r / (size_t)self->d], dv = v[r] - self->v[r];
        phi += 0.5 * m * dv * dv - dt * f_ext[r] * v[r];
    }
    if (damped) {
        seam_csr_mul(self->D, v, scratch);
        phi += 0.5 * dt * seam_dot(nd, v, scratch);
    }
    return phi;
}

/* g = f_e(x) + f_ext - D v - M (v - v^n)/dt: the backward Euler residual
 * (Zarifi eq. 3.51 in residual form); zero on fixed DOFs (not on those held
 * by walls: fem_walls_release reads their reactions there first). */
static void residual(const fem *self, double dt, const double *v, const double *fe, const double *f_ext,
                     int damped, double *g)
{
    size_t nd = self->n * (size_t)self->d;
    if (damped)
        seam_csr_mul(self->D, v, g);
    else
        memset(g, 0, nd * sizeof *g);
    for (size_t r = 0; r < nd; r++) {
        double m = self->mass[r / (size_t)self->d];
        g[r] = is_fixed(self, r) ? 0.0 : fe[r] + f_ext[r] - g[r] - m * (v[r] - self->v[r]) / dt;
    }
}

/* Overwrite K with S = M + dt D + dt^2 K, identity rows and columns on fixed
 * DOFs and on those held by walls. */
static void system_matrix(fem *self, double dt, int damped)
{
    seam_csr *K = self->K;
    for (size_t i = 0; i < K->rows; i++)
        for (int64_t p = K->row_ptr[i]; p < K->row_ptr[i + 1]; p++) {
            size_t j = (size_t)K->col[p];
            double s = dt * dt * K->val[p] + (damped ? dt * self->D->val[p] : 0.0);
            if (i == j)
                s += self->mass[i / (size_t)self->d];
            if (is_held(self, i) || is_held(self, j))
                s = i == j ? 1.0 : 0.0;
            K->val[p] = s;
        }
}

static seam_status backward_euler(fem *self, double dt, const double *f_ext)
{
    int d = self->d;
    size_t nd = self->n * (size_t)d;
    double *buf = seam_xmalloc((6 * nd + 6) * sizeof *buf);
    double *v = buf, *dv = v + nd + 1, *g = dv + nd + 1, *fe = g + nd + 1, *x = fe + nd + 1, *vt = x + nd + 1;
    int damped = has_damping(self);
    if (damped)
        fem_damping_matrix(self, self->x, self->D);
    for (size_t r = 0; r < nd; r++)
        v[r] = is_fixed(self, r) ? self->v_fixed[r] : self->v[r];
    fem_newton_log *log = &self->newton;
    memset(log, 0, sizeof *log);
    uint8_t *contact = self->contact;
    if (contact) {
        memset(contact, 0, nd);
        /* Start with the coordinates resting on a wall held (lift-off releases them). */
        fem_walls_hold(self, dt, 1e-9 * self->length, v, contact);
    }
    seam_status status = SEAM_UNSTABLE;
    double step_tol = self->newton_tol * self->length;
    for (int it = 0; it < self->newton_max; it++) {
        for (size_t r = 0; r < nd; r++)
            x[r] = self->x[r] + dt * v[r];
        fem_elastic(self, x, fe, self->K);
        residual(self, dt, v, fe, f_ext, damped, g);
        size_t released = contact ? fem_walls_release(self, g, contact) : 0;
        double rn = seam_norm2(nd, g);
        log->residual[it] = rn;
        log->iterations = it + 1;
        seam_logf(self->host, SEAM_LOG_DEBUG, "newton %d: |g| = %.6e", it, rn);
        if (!isfinite(rn))
            break;
        if (it > 0 && !released && rn <= self->newton_tol * log->residual[0]) {   /* relative residual reached */
            log->converged = 1;
            status = SEAM_OK;
            break;
        }
        system_matrix(self, dt, damped);
        for (size_t r = 0; r < nd; r++)
            g[r] *= dt;   /* (M + dt D + dt^2 K) dv = dt g */
        if (fem_linear_solve(self, g, dv) != SEAM_OK)
            break;   /* no direction: the step fails (a zero dv would pass as converged) */
        /* Backtracking on the incremental potential; a full step when none decreases. */
        double alpha = 1.0;
        if (self->line_search) {
            double phi0 = incremental_potential(self, dt, v, f_ext, damped, x, fe);
            int accepted = 0;
            for (int ls = 0; ls < 12 && !accepted; ls++, alpha *= 0.5) {
                for (size_t r = 0; r < nd; r++)
                    vt[r] = v[r] + alpha * dv[r];
                double phi = incremental_potential(self, dt, vt, f_ext, damped, x, fe);
                accepted = phi <= phi0 + 1e-12 * fabs(phi0);
                if (accepted)
                    break;
            }
            if (!accepted)
                alpha = 1.0;
        }
        double step = 0.0;
        for (size_t r = 0; r < nd; r++) {
            v[r] += alpha * dv[r];
            step = fmax(step, fabs(dt * alpha * dv[r]));
        }
        if (!isfinite(step))
            break;
        /* Coordinates that went beyond a wall are held on it: the active set changed. */
        size_t held = contact ? fem_walls_hold(self, dt, 0.0, v, contact) : 0;
        /* a short step from a truncated PCG direction is no sign of convergence */
        if (step <= step_tol && !released && !held && !log->last_truncated) {
            log->converged = 1;
            status = SEAM_OK;
            break;
        }
    }
    for (size_t r = 0; r < nd; r++)
        x[r] = self->x[r] + dt * v[r];
    fem_elastic(self, x, fe, NULL);
    residual(self, dt, v, fe, f_ext, damped, g);
    if (contact && status == SEAM_OK) {
        /* Friction from the reactions of the converged active set, on v and so on x. */
        log->contacts = fem_walls_friction(self, dt, g, contact, v, log->wall_force);
        for (size_t r = 0; r < nd; r++)
            x[r] = self->x[r] + dt * v[r];
    }
    for (size_t r = 0; contact && r < nd; r++)
        if (contact[r])
            g[r] = 0.0;
    log->residual[log->iterations] = seam_norm2(nd, g);   /* iterations <= newton_max <= 63 */
    if (status == SEAM_OK) {
        memcpy(self->x_new, x, nd * sizeof *x);
        memcpy(self->v_new, v, nd * sizeof *v);
    } else {
        seam_logf(self->host, SEAM_LOG_WARN, "Newton did not converge in %d iterations (at most %d): |g| %.3e -> "
                  "%.3e, relative %.3g > newton.tolerance %g (nor did a step fall below %.3g m)", log->iterations,
                  self->newton_max, log->residual[0], log->residual[log->iterations - 1],
                  log->residual[0] > 0 ? log->residual[log->iterations - 1] / log->residual[0] : NAN,
                  self->newton_tol, step_tol);
    }
    free(buf);
    return status;
}

/* Symplectic Euler: v^{n+1} = v^n + dt M^{-1} f(x^n, v^n), x^{n+1} = x^n + dt v^{n+1}. */
static seam_status explicit_step(fem *self, double dt, const double *f_ext)
{
    int d = self->d;
    size_t nd = self->n * (size_t)d;
    double *fe = seam_xmalloc((2 * nd + 2) * sizeof *fe), *Dv = fe + nd + 1;
    fem_elastic(self, self->x, fe, NULL);
    if (has_damping(self)) {
        fem_damping_matrix(self, self->x, self->D);
        seam_csr_mul(self->D, self->v, Dv);
    } else {
        memset(Dv, 0, nd * sizeof *Dv);
    }
    int ok = 1;
    for (size_t r = 0; r < nd; r++) {
        double m = self->mass[r / (size_t)d];
        self->v_new[r] = is_fixed(self, r) ? self->v_fixed[r] : self->v[r] + dt * (fe[r] + f_ext[r] - Dv[r]) / m;
        ok &= isfinite(self->v_new[r]);
    }
    if (self->contact) {   /* the same inelastic projection onto the walls, then friction */
        memset(self->contact, 0, nd);
        memcpy(fe, self->v_new, nd * sizeof *fe);
        fem_walls_hold(self, dt, 0.0, self->v_new, self->contact);
        for (size_t r = 0; r < nd; r++)   /* minus the walls' force: m dv / dt of the projection */
            Dv[r] = -self->mass[r / (size_t)d] * (self->v_new[r] - fe[r]) / dt;
        self->newton.contacts =
            fem_walls_friction(self, dt, Dv, self->contact, self->v_new, self->newton.wall_force);
    }
    for (size_t r = 0; r < nd; r++)
        self->x_new[r] = self->x[r] + dt * self->v_new[r];
    free(fe);
    if (!ok)
        seam_logf(self->host, SEAM_LOG_WARN, "explicit step produced non-finite positions (dt %g too large?)", dt);
    return ok ? SEAM_OK : SEAM_UNSTABLE;
}

seam_status fem_step(fem *self, double dt, const double *f_load)
{
    external_forces(self, f_load, self->f_ext);
    seam_status s = self->integrator == FEM_EXPLICIT ? explicit_step(self, dt, self->f_ext)
                                                     : backward_euler(self, dt, self->f_ext);
    self->have_solve = s == SEAM_OK;
    return s;
}

void fem_commit(fem *self)
{
    size_t nd = self->n * (size_t)self->d;
    memcpy(self->x, self->x_new, nd * sizeof *self->x);
    memcpy(self->v, self->v_new, nd * sizeof *self->v);
    self->steps++;
    self->have_solve = 0;
}

double fem_max_dt(fem *self)
{
    if (self->integrator != FEM_EXPLICIT)
        return self->dt_limit;
    /* omega_max^2 <= max_i sum_j |K_ij| / m_i (Gershgorin); dt = cfl 2 / omega_max. */
    size_t nd = self->n * (size_t)self->d;
    double *f = seam_xmalloc((nd + 1) * sizeof *f);
    fem_elastic(self, self->x, f, self->K);
    free(f);
    double w2 = 0.0;
    const seam_csr *K = self->K;
    for (size_t i = 0; i < K->rows; i++) {
        if (is_fixed(self, i))
            continue;
        double s = 0.0;
        for (int64_t p = K->row_ptr[i]; p < K->row_ptr[i + 1]; p++)
            s += fabs(K->val[p]);
        w2 = fmax(w2, s / self->mass[i / (size_t)self->d]);
    }
    double dt = w2 > 0.0 ? self->cfl * 2.0 / sqrt(w2) : INFINITY;
    return fmin(dt, self->dt_limit);
}

double fem_energy(const fem *self)
{
    int d = self->d;
    size_t nd = self->n * (size_t)d;
    double *f = seam_xmalloc((nd + 1) * sizeof *f);
    double e = fem_elastic(self, self->x, f, NULL);
    free(f);
    for (size_t r = 0; r < nd; r++) {
        double m = self->mass[r / (size_t)d];
        e += 0.5 * m * self->v[r] * self->v[r] - m * self->gravity[r % (size_t)d] * self->x[r];
    }
    return e;
}
