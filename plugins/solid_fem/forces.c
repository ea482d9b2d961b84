/* solid_fem's forces: elastic forces and stiffness of the elements (Irving
 * 2.3-2.4), springs and hinges of 2D shells, and the damping matrix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/dense.h"
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

void fem_deformation_gradient(int d, const fem_elem *e, const double *x, double b[4][3], double *F)
{
    fem_shape_gradients(d, e->Dm_inv, b);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double s = 0.0;
            for (int a = 0; a <= d; a++)
                s += x[e->n[a] * d + i] * b[a][j];
            F[i * d + j] = s;
        }
}

/* One element: energy, its nodal forces' negatives W P b_a (fe, (d + 1) d
 * numbers: f_a -= fe_a), stiffness block into Ke (may be NULL). Reads only
 * x: elements run on threads. */
static double element_forces(const fem_elem *e, const fem_material *mat, int d, const double *x, double *fe,
                             double *Ke)
{
    double b[4][3], F[9] = {0}, P[9] = {0}, dPdF[81];
    fem_deformation_gradient(d, e, x, b, F);
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
