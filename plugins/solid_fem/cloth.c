/* 3D cloth and thin shells: a membrane of triangles with the diagonalized
 * rotated-linear model (Irving 2.8: F is 3x2, F = U Fhat V^T) and dihedral
 * hinge bending on every interior edge. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/dense.h"
#include "seam/log.h"
#include "seam/vec.h"
#include "fem.h"

#define PI 3.14159265358979323846

/* In-plane material of a cloth body: plane-stress Lame parameters of the
 * membrane stiffness k_stretch (N/m) and nu. */
static fem_material membrane_material(const fem_body *b)
{
    fem_material m = {FEM_COROTATED, 0, 0, 0.3};
    double nu = b->nu;
    m.mu = b->k_stretch / (2.0 * (1.0 + nu));
    m.lambda = b->k_stretch * nu / (1.0 - nu * nu);
    return m;
}

/* One membrane triangle: energy, forces, and the 9x9 stiffness block. */
static double membrane(const fem_elem *t, const fem_material *mat, const double *x, double *f, double *Ke)
{
    /* F = D_s D_m^{-1}, 3x2, D_m in the rest triangle's own 2D frame. */
    double b[3][2], F[6];
    for (int j = 0; j < 2; j++) {
        b[1][j] = t->Dm_inv[0 * 2 + j];
        b[2][j] = t->Dm_inv[1 * 2 + j];
        b[0][j] = -b[1][j] - b[2][j];
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            double s = 0.0;
            for (int a = 0; a < 3; a++)
                s += x[t->n[a] * 3 + i] * b[a][j];
            F[i * 2 + j] = s;
        }
    /* Frame Q = [u0 u1 n] of the deformed plane from F's columns' span (Irving 2.8). */
    double c0[3] = {F[0], F[2], F[4]}, c1[3] = {F[1], F[3], F[5]}, nrm[3];
    seam_v3_cross(nrm, c0, c1);
    double nn = seam_v3_norm(nrm), u0[3], u1[3];
    double l0 = seam_v3_norm(c0);
    if (l0 > 0.0) {
        for (int i = 0; i < 3; i++)
            u0[i] = c0[i] / l0;
    } else {
        u0[0] = 1;
        u0[1] = u0[2] = 0;
    }
    if (nn > 1e-14 * (l0 * l0 + seam_v3_dot(c1, c1))) {
        for (int i = 0; i < 3; i++)
            nrm[i] /= nn;
    } else {
        /* Flat to a line or point: any normal orthogonal to u0. */
        double e[3] = {0, 0, 0};
        e[fabs(u0[0]) < 0.9 ? 0 : 1] = 1.0;
        seam_v3_cross(nrm, u0, e);
        double l = seam_v3_norm(nrm);
        for (int i = 0; i < 3; i++)
            nrm[i] /= l;
    }
    seam_v3_cross(u1, nrm, u0);
    /* Local 2x2 gradient and its stress with the 2D diagonal model. */
    double Fl[4], Pl[4], Cl[16];
    for (int a = 0; a < 2; a++)
        for (int j = 0; j < 2; j++)
            Fl[a * 2 + j] = (a == 0 ? seam_v3_dot(u0, c0) : seam_v3_dot(u1, c0)) * (j == 0) +
                            (a == 0 ? seam_v3_dot(u0, c1) : seam_v3_dot(u1, c1)) * (j == 1);
    double psi = fem_first_piola(mat, 2, Fl, Pl, Ke ? Cl : NULL);
    const double *Q2[2] = {u0, u1};
    double P[6];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            P[i * 2 + j] = Q2[0][i] * Pl[0 * 2 + j] + Q2[1][i] * Pl[1 * 2 + j];
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < 3; i++)
            f[t->n[a] * 3 + i] -= t->W * (P[i * 2] * b[a][0] + P[i * 2 + 1] * b[a][1]);
    if (Ke) {
        /* Out of plane the energy is stiffened by S = Fl^-1 Pl (second
         * Piola-Kirchhoff stress), clamped to stay definite. */
        double Fi[4], S[4];
        double det = seam_inverse(2, Fl, Fi);
        if (det != 0.0) {
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    S[i * 2 + j] = Fi[i * 2] * Pl[j] + Fi[i * 2 + 1] * Pl[2 + j];
            double sym = 0.5 * (S[1] + S[2]);
            S[1] = S[2] = sym;
            seam_sym_project_psd(2, S);
        } else {
            memset(S, 0, sizeof S);
        }
        double dPdF[36];   /* (i j),(k l) with i,k in 0..2 and j,l in 0..1 */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                for (int k = 0; k < 3; k++)
                    for (int l = 0; l < 2; l++) {
                        double s = nrm[i] * nrm[k] * S[j * 2 + l];
                        for (int a = 0; a < 2; a++)
                            for (int c = 0; c < 2; c++)
                                s += Q2[a][i] * Q2[c][k] * Cl[(a * 2 + j) * 4 + c * 2 + l];
                        dPdF[(i * 2 + j) * 6 + k * 2 + l] = s;
                    }
        for (int a = 0; a < 3; a++)
            for (int i = 0; i < 3; i++)
                for (int c = 0; c < 3; c++)
                    for (int k = 0; k < 3; k++) {
                        double s = 0.0;
                        for (int j = 0; j < 2; j++)
                            for (int l = 0; l < 2; l++)
                                s += dPdF[(i * 2 + j) * 6 + k * 2 + l] * b[a][j] * b[c][l];
                        Ke[(a * 3 + i) * 9 + c * 3 + k] = t->W * s;
                    }
    }
    return t->W * psi;
}

double fem_hinge3_angle(const fem_hinge3 *h, const double *x, double *G)
{
    const double *x1 = x + 3 * h->n[0], *x2 = x + 3 * h->n[1], *x3 = x + 3 * h->n[2], *x4 = x + 3 * h->n[3];
    double e[3], a[3], c[3], nA[3], nB[3], nAB[3];
    for (int i = 0; i < 3; i++) {
        e[i] = x2[i] - x1[i];
        a[i] = x3[i] - x1[i];
        c[i] = x4[i] - x1[i];
    }
    seam_v3_cross(nA, e, a);
    seam_v3_cross(nB, c, e);
    seam_v3_cross(nAB, nA, nB);
    double L = seam_v3_norm(e), A2 = seam_v3_dot(nA, nA), B2 = seam_v3_dot(nB, nB);
    double theta = L > 0 ? atan2(seam_v3_dot(e, nAB) / L, seam_v3_dot(nA, nB)) : 0.0;
    if (G) {
        memset(G, 0, 12 * sizeof *G);
        if (L > 0 && A2 > 0 && B2 > 0) {
            /* Opposite vertices move along their face normals; the edge's
             * vertices balance them by their projections on the edge. */
            double a3 = seam_v3_dot(a, e) / (L * L), a4 = seam_v3_dot(c, e) / (L * L);
            for (int i = 0; i < 3; i++) {
                double g3 = -L * nA[i] / A2, g4 = -L * nB[i] / B2;
                G[6 + i] = g3;
                G[9 + i] = g4;
                G[i] = -((1 - a3) * g3 + (1 - a4) * g4);
                G[3 + i] = -(a3 * g3 + a4 * g4);
            }
        }
    }
    return theta;
}

double fem_cloth_elastic(const fem *self, const double *x, double *f, seam_csr *K)
{
    double energy = 0.0, Ke[144];
    for (size_t t = 0; t < self->n_tris; t++) {
        const fem_elem *tr = &self->tris[t];
        fem_material mat = membrane_material(&self->bodies[tr->body]);
        energy += membrane(tr, &mat, x, f, K ? Ke : NULL);
        if (K)
            seam_csr_add_block(K, 3, 3, tr->n, Ke);
    }
    for (size_t h = 0; h < self->n_hinges3; h++) {
        const fem_hinge3 *hg = &self->hinges3[h];
        double k = self->bodies[hg->body].k_bend, G[12];
        if (k == 0.0)
            continue;
        double dth = fem_hinge3_angle(hg, x, G) - hg->theta0;
        dth -= 2.0 * PI * floor((dth + PI) / (2.0 * PI));
        for (int a = 0; a < 4; a++)
            for (int i = 0; i < 3; i++)
                f[hg->n[a] * 3 + i] -= k * dth * G[a * 3 + i];
        energy += 0.5 * k * dth * dth;
        if (K) {
            /* Gauss-Newton hinge stiffness k G G^T: definite by construction. */
            for (int p = 0; p < 12; p++)
                for (int q = 0; q < 12; q++)
                    Ke[p * 12 + q] = k * G[p] * G[q];
            seam_csr_add_block(K, 3, 4, hg->n, Ke);
        }
    }
    return energy;
}

void fem_cloth_damping(const fem *self, const double *x, seam_csr *D)
{
    double Ke[144], *scratch = seam_xcalloc(self->n * 3 + 1, sizeof *scratch);
    for (size_t t = 0; t < self->n_tris; t++) {
        const fem_elem *tr = &self->tris[t];
        const fem_body *b = &self->bodies[tr->body];
        if (b->b_stretch == 0.0)
            continue;
        fem_material mat = membrane_material(b);
        membrane(tr, &mat, x, scratch, Ke);
        for (int i = 0; i < 81; i++)
            Ke[i] *= b->b_stretch / b->k_stretch;
        seam_csr_add_block(D, 3, 3, tr->n, Ke);
    }
    for (size_t h = 0; h < self->n_hinges3; h++) {
        const fem_hinge3 *hg = &self->hinges3[h];
        double bb = self->bodies[hg->body].b_bend, G[12];
        if (bb == 0.0)
            continue;
        fem_hinge3_angle(hg, x, G);
        for (int p = 0; p < 12; p++)
            for (int q = 0; q < 12; q++)
                Ke[p * 12 + q] = bb * G[p] * G[q];
        seam_csr_add_block(D, 3, 4, hg->n, Ke);
    }
    free(scratch);
}

typedef struct half_edge {
    int32_t lo, hi, tri, opp;   /* sorted edge, its triangle, the opposite vertex */
    int32_t a, b;               /* the edge as oriented in the triangle */
} half_edge;

static int half_edge_cmp(const void *pa, const void *pb)
{
    const half_edge *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return 0;
}

int fem_cloth_add(fem *self, size_t bi, const fem_mesh *m, seam_cfg *c, const char *where)
{
    fem_body *b = &self->bodies[bi];
    size_t base = b->node0, t0 = self->n_tris;
    self->n_tris += m->n_cells;
    self->tris = seam_xrealloc(self->tris, (self->n_tris + 1) * sizeof *self->tris);
    for (size_t k = 0; k < m->n_cells; k++) {
        fem_elem *t = &self->tris[t0 + k];
        memset(t, 0, sizeof *t);
        t->body = (int32_t)bi;
        for (int a = 0; a < 3; a++)
            t->n[a] = (int32_t)base + m->cells[3 * k + (size_t)a];
        const double *X0 = self->X0 + 3 * (size_t)t->n[0], *X1 = self->X0 + 3 * (size_t)t->n[1],
                     *X2 = self->X0 + 3 * (size_t)t->n[2];
        double e1[3], e2[3], nrm[3];
        for (int i = 0; i < 3; i++) {
            e1[i] = X1[i] - X0[i];
            e2[i] = X2[i] - X0[i];
        }
        seam_v3_cross(nrm, e1, e2);
        double area = 0.5 * seam_v3_norm(nrm), l1 = seam_v3_norm(e1);
        if (!(area > 1e-12 * seam_v3_dot(e1, e1))) {
            fem_mesh_error(self, c, where, "triangle %zu is degenerate at rest (area %g)", k, area);
            return -1;
        }
        /* D_m in the rest triangle's frame: e1 along the first axis. */
        double t1[3] = {e1[0] / l1, e1[1] / l1, e1[2] / l1}, Dm[4];
        Dm[0] = l1;
        Dm[2] = 0.0;
        Dm[1] = seam_v3_dot(e2, t1);
        Dm[3] = 2.0 * area / l1;
        seam_inverse(2, Dm, t->Dm_inv);
        t->W = area;
        for (int a = 0; a < 3; a++)
            self->mass[t->n[a]] += b->density * area / 3.0;
    }
    /* Interior edges (two triangles) carry a hinge. */
    size_t ne = 3 * m->n_cells;
    half_edge *he = seam_xmalloc((ne + 1) * sizeof *he);
    for (size_t k = 0; k < m->n_cells; k++)
        for (int s = 0; s < 3; s++) {
            half_edge *h = &he[3 * k + (size_t)s];
            int32_t a = m->cells[3 * k + (size_t)s], e = m->cells[3 * k + (size_t)(s + 1) % 3];
            h->a = a;
            h->b = e;
            h->lo = a < e ? a : e;
            h->hi = a < e ? e : a;
            h->tri = (int32_t)k;
            h->opp = m->cells[3 * k + (size_t)(s + 2) % 3];
        }
    qsort(he, ne, sizeof *he, half_edge_cmp);
    /* a hinge takes two half-edges: reserve ne / 2 at once (a realloc per hinge is quadratic where realloc copies) */
    self->hinges3 = seam_xrealloc(self->hinges3, (self->n_hinges3 + ne / 2 + 1) * sizeof *self->hinges3);
    for (size_t i = 0; i + 1 < ne; i++) {
        if (half_edge_cmp(&he[i], &he[i + 1]) != 0)
            continue;
        if (i + 2 < ne && half_edge_cmp(&he[i], &he[i + 2]) == 0) {
            seam_logf(self->host, SEAM_LOG_ERROR, "%s: edge %d-%d is shared by more than two triangles", where,
                      he[i].lo, he[i].hi);
            free(he);
            return -1;
        }
        fem_hinge3 h = {{(int32_t)base + he[i].a, (int32_t)base + he[i].b, (int32_t)base + he[i].opp,
                         (int32_t)base + he[i + 1].opp}, (int32_t)bi, 0.0};
        h.theta0 = fem_hinge3_angle(&h, self->X0, NULL);
        self->hinges3[self->n_hinges3++] = h;
        i++;
    }
    free(he);
    return 0;
}
