/* solid_fem's coupling interface: the boundary facets of the volumes, the
 * cloth triangles and the shell segments, and the nodes on them. */
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "fem.h"

typedef struct facet {
    int32_t key[3];     /* sorted nodes */
    int32_t nodes[3];   /* oriented */
} facet;

static int facet_cmp(const void *pa, const void *pb)
{
    const facet *a = pa, *b = pb;
    for (int k = 0; k < 3; k++)
        if (a->key[k] != b->key[k])
            return a->key[k] < b->key[k] ? -1 : 1;
    return 0;
}

static void sort3(int32_t *k, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (k[j] < k[i]) {
                int32_t t = k[i];
                k[i] = k[j];
                k[j] = t;
            }
}

/* Boundary facets of the volume elements (those with one element), with the
 * element's own orientation, which points outward; plus every spring. */
void fem_build_interface(fem *self)
{
    int d = self->d, per = d;   /* nodes per facet */
    static const int tri_faces[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    static const int tet_faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    size_t nf = self->n_elems * (size_t)(d + 1);
    facet *f = seam_xmalloc((nf ? nf : 1) * sizeof *f);
    for (size_t e = 0; e < self->n_elems; e++)
        for (int k = 0; k <= d; k++) {
            facet *p = &f[e * (size_t)(d + 1) + (size_t)k];
            memset(p, 0, sizeof *p);
            for (int a = 0; a < per; a++)
                p->nodes[a] = self->elems[e].n[d == 2 ? tri_faces[k][a] : tet_faces[k][a]];
            memcpy(p->key, p->nodes, sizeof p->key);
            sort3(p->key, per);
        }
    qsort(f, nf, sizeof *f, facet_cmp);
    size_t n_bnd = 0;
    int32_t *bnd = seam_xmalloc((nf + self->n_springs + 1) * (size_t)per * sizeof *bnd);
    uint8_t *two = seam_xmalloc(nf + self->n_springs + 1);
    for (size_t i = 0; i < nf;) {
        size_t j = i + 1;
        while (j < nf && facet_cmp(&f[i], &f[j]) == 0)
            j++;
        if (j == i + 1) {
            memcpy(bnd + n_bnd * (size_t)per, f[i].nodes, (size_t)per * sizeof *bnd);
            two[n_bnd++] = 0;
        }
        i = j;
    }
    free(f);
    bnd = seam_xrealloc(bnd, (nf + self->n_springs + self->n_tris + 1) * (size_t)per * sizeof *bnd);
    two = seam_xrealloc(two, nf + self->n_springs + self->n_tris + 1);
    for (size_t t = 0; t < self->n_tris; t++) {
        memcpy(bnd + n_bnd * 3, self->tris[t].n, 3 * sizeof *bnd);
        two[n_bnd++] = 1;
    }
    for (size_t s = 0; s < self->n_springs; s++) {
        bnd[n_bnd * 2] = self->springs[s].a;
        bnd[n_bnd * 2 + 1] = self->springs[s].b;
        two[n_bnd++] = 1;
    }
    /* Interface points: the nodes that appear, in node order. */
    int32_t *point_of = seam_xmalloc((self->n ? self->n : 1) * sizeof *point_of);
    for (size_t i = 0; i < self->n; i++)
        point_of[i] = -1;
    for (size_t k = 0; k < n_bnd * (size_t)per; k++)
        point_of[bnd[k]] = 0;
    self->n_iface = 0;
    self->iface_node = seam_xmalloc((self->n ? self->n : 1) * sizeof *self->iface_node);
    for (size_t i = 0; i < self->n; i++)
        if (point_of[i] == 0) {
            point_of[i] = (int32_t)self->n_iface;
            self->iface_node[self->n_iface++] = (int32_t)i;
        }
    for (size_t k = 0; k < n_bnd * (size_t)per; k++)
        bnd[k] = point_of[bnd[k]];
    free(point_of);
    self->iface_elems = bnd;
    self->iface_two_sided = two;
    self->n_iface_elems = n_bnd;
    size_t np = self->n_iface ? self->n_iface : 1;
    self->iface_body = seam_xmalloc(np * sizeof *self->iface_body);
    self->iface_X = seam_xmalloc(np * (size_t)d * sizeof *self->iface_X);
    self->iface_mass = seam_xmalloc(np * sizeof *self->iface_mass);
    for (size_t p = 0; p < self->n_iface; p++) {
        size_t node = (size_t)self->iface_node[p];
        for (size_t bi = 0; bi < self->n_bodies; bi++)
            if (node >= self->bodies[bi].node0 && node < self->bodies[bi].node0 + self->bodies[bi].n_nodes)
                self->iface_body[p] = (int32_t)bi;
        self->iface_mass[p] = self->mass[node];
    }
}
