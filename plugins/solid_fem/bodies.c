/* solid_fem's bodies: meshes appended as nodes, elements (volumes) or
 * springs and hinges (2D shells) with lumped masses, and the stiffness
 * pattern they make. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/dense.h"
#include "seam/log.h"
#include "fem.h"

static double simplex_measure(int d, const double *X, const int32_t *n, double *Dm)
{
    for (int a = 1; a <= d; a++)
        for (int i = 0; i < d; i++)
            Dm[i * d + a - 1] = X[n[a] * d + i] - X[n[0] * d + i];
    return seam_det(d, Dm) / (d == 2 ? 2.0 : 6.0);
}

static void *grow(void *p, size_t count, size_t size) { return seam_xrealloc(p, (count ? count : 1) * size); }

void fem_mesh_error(fem *self, seam_cfg *c, const char *where, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c)
        seam_cfg_error(c, "mesh", "%s", msg);
    else
        seam_logf(self->host, SEAM_LOG_ERROR, "%s: %s", where, msg);
}

/* Append a mesh as body bi: nodes, elements or springs and hinges, masses. */
int fem_add_body(fem *self, size_t bi, fem_mesh *m, seam_cfg *c, const char *where)
{
    fem_body *b = &self->bodies[bi];
    int d = self->d;
    size_t base = self->n;
    b->node0 = base;
    b->n_nodes = m->n_nodes;
    self->n += m->n_nodes;
    self->X0 = grow(self->X0, self->n * (size_t)d, sizeof(double));
    self->mass = grow(self->mass, self->n, sizeof(double));
    memcpy(self->X0 + base * (size_t)d, m->X, m->n_nodes * (size_t)d * sizeof(double));
    for (size_t i = base; i < self->n; i++)
        self->mass[i] = 0.0;
    if (b->kind == FEM_VOLUME) {
        size_t e0 = self->n_elems;
        self->n_elems += m->n_cells;
        self->elems = grow(self->elems, self->n_elems, sizeof(fem_elem));
        for (size_t k = 0; k < m->n_cells; k++) {
            fem_elem *e = &self->elems[e0 + k];
            memset(e, 0, sizeof *e);
            e->body = (int32_t)bi;
            for (int a = 0; a <= d; a++) {
                int32_t node = m->cells[k * (size_t)(d + 1) + (size_t)a];
                if (node < 0 || (size_t)node >= m->n_nodes) {
                    fem_mesh_error(self, c, where, "element %lld refers to missing node %d",
                                   m->tags ? (long long)m->tags[k] : (long long)k, node);
                    return -1;
                }
                e->n[a] = (int32_t)base + node;
            }
            double Dm[9];
            double W = simplex_measure(d, self->X0, e->n, Dm);
            double scale = 0.0;
            for (int i = 0; i < d * d; i++)
                scale = fmax(scale, fabs(Dm[i]));
            if (!(W > 1e-12 * pow(scale, d))) {
                fem_mesh_error(self, c, where, "element %lld is %s at rest (%s %g, below 1e-12 of its edges' %s)",
                               m->tags ? (long long)m->tags[k] : (long long)k, W < 0 ? "inverted" : "degenerate",
                               d == 2 ? "area" : "volume", W, d == 2 ? "square" : "cube");
                return -1;
            }
            e->W = W;
            seam_inverse(d, Dm, e->Dm_inv);
            /* Lumped mass: each node gets an equal share (Zarifi 3.5.1). */
            for (int a = 0; a <= d; a++)
                self->mass[e->n[a]] += b->density * W / (double)(d + 1);
        }
        return 0;
    }
    if (d == 3)
        return fem_cloth_add(self, bi, m, c, where);
    size_t s0 = self->n_springs;
    self->n_springs += m->n_cells;
    self->springs = grow(self->springs, self->n_springs, sizeof(fem_spring));
    for (size_t k = 0; k < m->n_cells; k++) {
        fem_spring *s = &self->springs[s0 + k];
        s->a = (int32_t)base + m->cells[2 * k];
        s->b = (int32_t)base + m->cells[2 * k + 1];
        s->body = (int32_t)bi;
        s->l0 = hypot(self->X0[2 * s->b] - self->X0[2 * s->a], self->X0[2 * s->b + 1] - self->X0[2 * s->a + 1]);
        if (!(s->l0 > 0.0)) {
            fem_mesh_error(self, c, where, "segment %zu has zero length", k);
            return -1;
        }
        self->mass[s->a] += 0.5 * b->density * s->l0;
        self->mass[s->b] += 0.5 * b->density * s->l0;
    }
    /* Hinges at every node joining two consecutive segments. */
    size_t nh = m->closed ? m->n_cells : (m->n_cells ? m->n_cells - 1 : 0);
    size_t h0 = self->n_hinges;
    self->n_hinges += nh;
    self->hinges = grow(self->hinges, self->n_hinges, sizeof(fem_hinge));
    for (size_t k = 0; k < nh; k++) {
        const fem_spring *s1 = &self->springs[s0 + k], *s2 = &self->springs[s0 + (k + 1) % m->n_cells];
        fem_hinge *h = &self->hinges[h0 + k];
        h->a = s1->a;
        h->b = s1->b;
        h->c = s2->b;
        h->body = (int32_t)bi;
        const double *xa = self->X0 + 2 * h->a, *xb = self->X0 + 2 * h->b, *xc = self->X0 + 2 * h->c;
        double e1[2] = {xb[0] - xa[0], xb[1] - xa[1]}, e2[2] = {xc[0] - xb[0], xc[1] - xb[1]};
        h->theta0 = atan2(e1[0] * e2[1] - e1[1] * e2[0], e1[0] * e2[0] + e1[1] * e2[1]);
    }
    return 0;
}

/* Stiffness pattern: every node pair sharing an element, spring or hinge. */
void fem_build_pattern(fem *self)
{
    int d = self->d;
    size_t nd = self->n * (size_t)d;
    size_t cap = nd + self->n_elems * (size_t)((d + 1) * (d + 1) * d * d) + self->n_springs * 16 + self->n_hinges * 36;
    seam_triplets *t = seam_triplets_new(nd, nd, cap);
    for (size_t i = 0; i < nd; i++)
        seam_triplets_add(t, i, i, 0.0);
    for (size_t e = 0; e < self->n_elems; e++)
        for (int a = 0; a <= d; a++)
            for (int b = 0; b <= d; b++)
                for (int i = 0; i < d; i++)
                    for (int k = 0; k < d; k++)
                        seam_triplets_add(t, (size_t)self->elems[e].n[a] * (size_t)d + (size_t)i,
                                          (size_t)self->elems[e].n[b] * (size_t)d + (size_t)k, 0.0);
    for (size_t s = 0; s < self->n_springs; s++) {
        int32_t nn[2] = {self->springs[s].a, self->springs[s].b};
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++)
                for (int i = 0; i < 2; i++)
                    for (int k = 0; k < 2; k++)
                        seam_triplets_add(t, (size_t)(nn[a] * 2 + i), (size_t)(nn[b] * 2 + k), 0.0);
    }
    for (size_t e = 0; e < self->n_tris; e++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                for (int i = 0; i < 3; i++)
                    for (int k = 0; k < 3; k++)
                        seam_triplets_add(t, (size_t)self->tris[e].n[a] * 3 + (size_t)i,
                                          (size_t)self->tris[e].n[b] * 3 + (size_t)k, 0.0);
    for (size_t h = 0; h < self->n_hinges3; h++)
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                for (int i = 0; i < 3; i++)
                    for (int k = 0; k < 3; k++)
                        seam_triplets_add(t, (size_t)self->hinges3[h].n[a] * 3 + (size_t)i,
                                          (size_t)self->hinges3[h].n[b] * 3 + (size_t)k, 0.0);
    for (size_t h = 0; h < self->n_hinges; h++) {
        int32_t nn[3] = {self->hinges[h].a, self->hinges[h].b, self->hinges[h].c};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                for (int i = 0; i < 2; i++)
                    for (int k = 0; k < 2; k++)
                        seam_triplets_add(t, (size_t)(nn[a] * 2 + i), (size_t)(nn[b] * 2 + k), 0.0);
    }
    self->K = seam_csr_from_triplets(t);
    self->D = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
}
