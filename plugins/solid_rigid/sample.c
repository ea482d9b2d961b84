/* Rigid shapes' surface samples for the coupling interface: points about
 * `spacing` apart and the segments or triangles between them (shape.h). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "quat.h"
#include "shape.h"

typedef struct growable {
    double *p;
    size_t n, cap;
} growable;

static size_t grow_push(growable *g, double x, double y, double z)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 64;
        g->p = seam_xrealloc(g->p, 3 * g->cap * sizeof *g->p);
    }
    seam_v3_set(g->p + 3 * g->n, x, y, z);
    return g->n++;
}

static double max_edge(const double *p, const int32_t *tris, size_t nt)
{
    double m = 0.0;
    for (size_t t = 0; t < 3 * nt; t++) {
        double d[3];
        seam_v3_sub(d, p + 3 * tris[t], p + 3 * tris[t - t % 3 + (t % 3 + 1) % 3]);
        m = fmax(m, seam_v3_norm(d));
    }
    return m;
}

/* Split every triangle into four at its edge midpoints (pushed to the sphere when radius > 0). */
static void subdivide(growable *g, int32_t **tris, size_t *nt, double radius)
{
    rigid_edge *e = rigid_sorted_edges(*tris, *nt);
    int32_t *mid = seam_xmalloc(3 * *nt * sizeof *mid);
    for (size_t i = 0; i < 3 * *nt;) {
        double m[3];
        seam_v3_add(m, g->p + 3 * e[i].lo, g->p + 3 * e[i].hi);
        seam_v3_scale(m, 0.5, m);
        if (radius > 0)
            seam_v3_scale(m, radius / seam_v3_norm(m), m);
        int32_t id = (int32_t)grow_push(g, m[0], m[1], m[2]);
        size_t j = i;
        while (j < 3 * *nt && e[j].lo == e[i].lo && e[j].hi == e[i].hi)
            mid[e[j++].slot] = id;
        i = j;
    }
    int32_t *out = seam_xmalloc(12 * *nt * sizeof *out);
    for (size_t t = 0; t < *nt; t++) {
        int32_t a = (*tris)[3 * t], b = (*tris)[3 * t + 1], c = (*tris)[3 * t + 2];
        int32_t ab = mid[3 * t], bc = mid[3 * t + 1], ca = mid[3 * t + 2];
        int32_t q[12] = {a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca};
        memcpy(out + 12 * t, q, sizeof q);
    }
    free(e);
    free(mid);
    free(*tris);
    *tris = out;
    *nt *= 4;
}

/* Split until no edge exceeds spacing, or until another split would pass
 * 2^22 triangles (a bound on memory; the samples are then coarser). */
static void refine_until(growable *g, int32_t **tris, size_t *nt, double spacing, double radius)
{
    while (4 * *nt <= ((size_t)1 << 22) && max_edge(g->p, *tris, *nt) > spacing)
        subdivide(g, tris, nt, radius);
}

static void sample_icosphere(double r, double spacing, growable *g, int32_t **tris, size_t *nt)
{
    double p = (1.0 + sqrt(5.0)) / 2.0, n = sqrt(1.0 + p * p);
    double v[12][3] = {{-1, p, 0}, {1, p, 0}, {-1, -p, 0}, {1, -p, 0}, {0, -1, p}, {0, 1, p},
                       {0, -1, -p}, {0, 1, -p}, {p, 0, -1}, {p, 0, 1}, {-p, 0, -1}, {-p, 0, 1}};
    int32_t f[60] = {0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2,
                     10, 7, 6, 7, 1, 8, 3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5,
                     2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1};
    for (int i = 0; i < 12; i++)
        grow_push(g, r * v[i][0] / n, r * v[i][1] / n, r * v[i][2] / n);
    *nt = 20;
    *tris = seam_xmalloc(sizeof f);
    memcpy(*tris, f, sizeof f);
    refine_until(g, tris, nt, spacing, r);
}

/* Lattice points on the surface of the box, quads split in two, outward. */
static void sample_box(const double *half, double spacing, growable *g, int32_t **tris, size_t *nt)
{
    int n[3];
    for (int k = 0; k < 3; k++)
        n[k] = (int)fmax(1.0, ceil(2.0 * half[k] / spacing - 1e-9));
    size_t total = (size_t)(n[0] + 1) * (size_t)(n[1] + 1) * (size_t)(n[2] + 1);
    int32_t *id = seam_xmalloc(total * sizeof *id);
    for (size_t i = 0; i < total; i++)
        id[i] = -1;
    size_t cap = 0;
    for (int a = 0; a < 3; a++)
        cap += 4 * (size_t)n[(a + 1) % 3] * (size_t)n[(a + 2) % 3];
    *tris = seam_xmalloc(3 * cap * sizeof **tris);
    *nt = 0;
    for (int a = 0; a < 3; a++) {
        int b = (a + 1) % 3, c = (a + 2) % 3;
        for (int side = 0; side < 2; side++) {
            for (int u = 0; u < n[b]; u++) {
                for (int w = 0; w < n[c]; w++) {
                    int32_t q[4];
                    int du[4] = {0, 1, 1, 0}, dw[4] = {0, 0, 1, 1};
                    for (int k = 0; k < 4; k++) {
                        int ijk[3];
                        ijk[a] = side ? n[a] : 0;
                        ijk[b] = u + du[k];
                        ijk[c] = w + dw[k];
                        size_t lin = ((size_t)ijk[2] * (size_t)(n[1] + 1) + (size_t)ijk[1]) * (size_t)(n[0] + 1) + (size_t)ijk[0];
                        if (id[lin] < 0) {
                            double x[3];
                            for (int d = 0; d < 3; d++)
                                x[d] = -half[d] + 2.0 * half[d] * ijk[d] / n[d];
                            id[lin] = (int32_t)grow_push(g, x[0], x[1], x[2]);
                        }
                        q[k] = id[lin];
                    }
                    /* e_b x e_c = e_a: counter-clockwise in (b, c) faces +a */
                    int32_t t2[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
                    if (!side) {
                        int32_t tmp = t2[1]; t2[1] = t2[2]; t2[2] = tmp;
                        tmp = t2[4]; t2[4] = t2[5]; t2[5] = tmp;
                    }
                    memcpy(*tris + 3 * *nt, t2, sizeof t2);
                    *nt += 2;
                }
            }
        }
    }
    free(id);
}

/* Points per ring of a circle of radius r sampled about `spacing` apart (at least `least`). */
static size_t ring_count(double r, double spacing, double least)
{
    return (size_t)fmax(least, ceil(2.0 * M_PI * r / spacing - 1e-9));
}

static void push_tri(int32_t **tris, size_t *nt, size_t *cap, int32_t a, int32_t b, int32_t c)
{
    if (*nt == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        *tris = seam_xrealloc(*tris, 3 * *cap * sizeof **tris);
    }
    (*tris)[3 * *nt] = a;
    (*tris)[3 * *nt + 1] = b;
    (*tris)[3 * *nt + 2] = c;
    (*nt)++;
}

/* Triangles joining two closed rings of points (na at first index a0, nb at
 * b0, both by increasing angle from 0): each step advances the ring whose
 * next point comes first in angle. */
static void zip_rings(int32_t **tris, size_t *nt, size_t *cap, int32_t a0, size_t na, int32_t b0, size_t nb)
{
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        double ta = (double)(i + 1) / (double)na, tb = (double)(j + 1) / (double)nb;
        int32_t ai = a0 + (int32_t)(i % na), bj = b0 + (int32_t)(j % nb);
        if (j >= nb || (i < na && ta <= tb)) {
            push_tri(tris, nt, cap, ai, a0 + (int32_t)((i + 1) % na), bj);
            i++;
        } else {
            push_tri(tris, nt, cap, ai, b0 + (int32_t)((j + 1) % nb), bj);
            j++;
        }
    }
}

/* A cylinder's surface: rings on the side about `spacing` apart, and each cap
 * as concentric rings (fewer points inward) about its centre. */
static void sample_cylinder(double r, double h, double spacing, growable *g, int32_t **tris, size_t *nt)
{
    size_t cap = 0, n = ring_count(r, spacing, 8.0), ny = (size_t)fmax(1.0, ceil(h / spacing - 1e-9));
    size_t nr = (size_t)fmax(1.0, ceil(r / spacing - 1e-9));
    *nt = 0;
    *tris = NULL;
    for (size_t k = 0; k <= ny; k++)
        for (size_t j = 0; j < n; j++) {
            double th = 2.0 * M_PI * (double)j / (double)n;
            grow_push(g, r * cos(th), -0.5 * h + h * (double)k / (double)ny, r * sin(th));
        }
    for (size_t k = 0; k < ny; k++)
        zip_rings(tris, nt, &cap, (int32_t)(k * n), n, (int32_t)((k + 1) * n), n);
    for (int top = 0; top < 2; top++) {
        double y = top ? 0.5 * h : -0.5 * h;
        int32_t outer = (int32_t)(top ? ny * n : 0), centre = (int32_t)grow_push(g, 0.0, y, 0.0);
        size_t n_out = n;
        for (size_t m = nr - 1; m >= 1; m--) {   /* inner rings, outside in */
            double rm = r * (double)m / (double)nr;
            size_t nm = ring_count(rm, spacing, 6.0);
            int32_t first = (int32_t)g->n;
            for (size_t j = 0; j < nm; j++) {
                double th = 2.0 * M_PI * (double)j / (double)nm;
                grow_push(g, rm * cos(th), y, rm * sin(th));
            }
            zip_rings(tris, nt, &cap, outer, n_out, first, nm);
            outer = first;
            n_out = nm;
        }
        for (size_t j = 0; j < n_out; j++)
            push_tri(tris, nt, &cap, outer + (int32_t)j, outer + (int32_t)((j + 1) % n_out), centre);
    }
}

/* A torus's surface: a grid in the angle about the axis and the angle about the tube. */
static void sample_torus(double R, double a, double spacing, growable *g, int32_t **tris, size_t *nt)
{
    size_t cap = 0, nu = ring_count(R + a, spacing, 8.0), nv = ring_count(a, spacing, 6.0);
    *nt = 0;
    *tris = NULL;
    for (size_t i = 0; i < nu; i++)
        for (size_t j = 0; j < nv; j++) {
            double u = 2.0 * M_PI * (double)i / (double)nu, v = 2.0 * M_PI * (double)j / (double)nv;
            double rho = R + a * cos(v);
            grow_push(g, rho * cos(u), a * sin(v), rho * sin(u));
        }
    for (size_t i = 0; i < nu; i++)
        for (size_t j = 0; j < nv; j++) {
            int32_t p = (int32_t)(i * nv + j), q = (int32_t)(((i + 1) % nu) * nv + j);
            int32_t p1 = (int32_t)(i * nv + (j + 1) % nv), q1 = (int32_t)(((i + 1) % nu) * nv + (j + 1) % nv);
            push_tri(tris, nt, &cap, p, q, q1);
            push_tri(tris, nt, &cap, p, q1, p1);
        }
}

/* Turn every triangle outward: its normal along the shape's outward normal at its centroid. */
static void orient_outward(const rigid_shape *s, const double *p, int32_t *tris, size_t nt)
{
    for (size_t t = 0; t < nt; t++) {
        int32_t *v = tris + 3 * t;
        double u[3], w[3], nrm[3], c[3], d, out[3];
        seam_v3_sub(u, p + 3 * v[1], p + 3 * v[0]);
        seam_v3_sub(w, p + 3 * v[2], p + 3 * v[0]);
        seam_v3_cross(nrm, u, w);
        for (int k = 0; k < 3; k++)
            c[k] = (p[3 * v[0] + k] + p[3 * v[1] + k] + p[3 * v[2] + k]) / 3.0;
        rigid_shape_sdf(s, c, &d, out);
        if (seam_v3_dot(nrm, out) < 0.0) {
            int32_t tmp = v[1];
            v[1] = v[2];
            v[2] = tmp;
        }
    }
}

double rigid_shape_sample_estimate(const rigid_shape *s, double spacing)
{
    if (s->kind == RIGID_CYLINDER) {   /* side rings, and both caps at most as dense */
        double n = fmax(8.0, ceil(2.0 * M_PI * s->radius / spacing)), nr = fmax(1.0, ceil(s->radius / spacing));
        return n * (fmax(1.0, ceil(s->height / spacing)) + 1.0 + 2.0 * nr) + 2.0;
    }
    if (s->kind == RIGID_TORUS)
        return fmax(8.0, ceil(2.0 * M_PI * (s->radius + s->tube) / spacing)) *
               fmax(6.0, ceil(2.0 * M_PI * s->tube / spacing));
    if (s->dim == 2) {
        if (s->kind == RIGID_ROUND)
            return fmax(8.0, ceil(2.0 * M_PI * s->radius / spacing));
        double n = 0.0;
        for (size_t i = 0; i < s->n_verts; i++) {
            const double *a = s->verts + 3 * i, *b = s->verts + 3 * ((i + 1) % s->n_verts);
            double d[3];
            seam_v3_sub(d, b, a);
            n += fmax(1.0, ceil(seam_v3_norm(d) / spacing));
        }
        return n;
    }
    if (s->kind == RIGID_BOX) {   /* the lattice sample_box indexes, not only its surface */
        double n = 1.0;
        for (int k = 0; k < 3; k++)
            n *= fmax(1.0, ceil(2.0 * s->half[k] / spacing)) + 1.0;
        return n;
    }
    /* spheres and meshes: triangles split until no edge exceeds spacing,
     * about 4 points per spacing^2 of surface, and never past 2^22 triangles */
    double area = 0.0;
    if (s->kind == RIGID_ROUND)
        area = 4.0 * M_PI * s->radius * s->radius;
    for (size_t t = 0; s->kind != RIGID_ROUND && t < s->n_tris; t++) {
        double u[3], v[3], c[3];
        seam_v3_sub(u, s->verts + 3 * s->tris[3 * t + 1], s->verts + 3 * s->tris[3 * t]);
        seam_v3_sub(v, s->verts + 3 * s->tris[3 * t + 2], s->verts + 3 * s->tris[3 * t]);
        seam_v3_cross(c, u, v);
        area += 0.5 * seam_v3_norm(c);
    }
    return (double)s->n_verts + fmin(4.0 * area / (spacing * spacing), (double)((size_t)1 << 21));
}

void rigid_shape_sample(const rigid_shape *s, double spacing, double **pts, size_t *n_pts,
                        int32_t **elems, size_t *n_elems)
{
    growable g = {0};
    int32_t *el = NULL;
    size_t ne = 0;
    if (s->dim == 2) {
        if (s->kind == RIGID_ROUND) {
            size_t n = (size_t)fmax(8.0, ceil(2.0 * M_PI * s->radius / spacing - 1e-9));
            for (size_t k = 0; k < n; k++) {
                double th = 2.0 * M_PI * (double)k / (double)n;
                grow_push(&g, s->radius * cos(th), s->radius * sin(th), 0.0);
            }
        } else {
            for (size_t i = 0; i < s->n_verts; i++) {
                const double *a = s->verts + 3 * i, *b = s->verts + 3 * ((i + 1) % s->n_verts);
                double d[3];
                seam_v3_sub(d, b, a);
                size_t m = (size_t)fmax(1.0, ceil(seam_v3_norm(d) / spacing - 1e-9));
                for (size_t j = 0; j < m; j++) {
                    double f = (double)j / (double)m;
                    grow_push(&g, a[0] + f * d[0], a[1] + f * d[1], 0.0);
                }
            }
        }
        ne = g.n;
        el = seam_xmalloc(2 * ne * sizeof *el);
        for (size_t k = 0; k < ne; k++) {   /* counter-clockwise loop: outward normal (dy, -dx) */
            el[2 * k] = (int32_t)k;
            el[2 * k + 1] = (int32_t)((k + 1) % ne);
        }
    } else if (s->kind == RIGID_ROUND) {
        sample_icosphere(s->radius, spacing, &g, &el, &ne);
    } else if (s->kind == RIGID_BOX) {
        sample_box(s->half, spacing, &g, &el, &ne);
    } else if (s->kind == RIGID_CYLINDER || s->kind == RIGID_TORUS) {
        if (s->kind == RIGID_CYLINDER)
            sample_cylinder(s->radius, s->height, spacing, &g, &el, &ne);
        else
            sample_torus(s->radius, s->tube, spacing, &g, &el, &ne);
        orient_outward(s, g.p, el, ne);
    } else {
        for (size_t i = 0; i < s->n_verts; i++)
            grow_push(&g, s->verts[3 * i], s->verts[3 * i + 1], s->verts[3 * i + 2]);
        ne = s->n_tris;
        el = seam_xmalloc(3 * ne * sizeof *el);
        memcpy(el, s->tris, 3 * ne * sizeof *el);
        refine_until(&g, &el, &ne, spacing, 0.0);
    }
    *pts = g.p;
    *n_pts = g.n;
    *elems = el;
    *n_elems = ne;
}

