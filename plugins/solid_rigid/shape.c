#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/dense.h"
#include "seam/mesh_io.h"
#include "quat.h"
#include "shape.h"

static void shape_init(rigid_shape *s, int dim, rigid_shape_kind kind)
{
    memset(s, 0, sizeof *s);
    s->dim = dim;
    s->kind = kind;
    s->q_frame[0] = 1.0;
}

void rigid_shape_free(rigid_shape *s)
{
    free(s->verts);
    free(s->tris);
    s->verts = NULL;
    s->tris = NULL;
}

int rigid_shape_round(rigid_shape *s, int dim, double radius, char *err, size_t errlen)
{
    shape_init(s, dim, RIGID_ROUND);
    if (!(radius > 0.0) || !isfinite(radius)) {
        snprintf(err, errlen, "radius must be positive, got %g", radius);
        return -1;
    }
    s->radius = radius;
    s->bound = radius;
    if (dim == 2) {
        s->measure = M_PI * radius * radius;
        double Jz = 0.5 * s->measure * radius * radius;   /* disc: m r^2 / 2 per unit density */
        seam_v3_set(s->J, Jz, Jz, Jz);
    } else {
        s->measure = 4.0 / 3.0 * M_PI * radius * radius * radius;
        double Jd = 0.4 * s->measure * radius * radius;    /* ball: 2 m r^2 / 5 */
        seam_v3_set(s->J, Jd, Jd, Jd);
    }
    return 0;
}

int rigid_shape_box(rigid_shape *s, int dim, const double *size, char *err, size_t errlen)
{
    for (int k = 0; k < dim; k++) {
        if (!(size[k] > 0.0) || !isfinite(size[k])) {
            snprintf(err, errlen, "size[%d] must be positive, got %g", k, size[k]);
            return -1;
        }
    }
    if (dim == 2) {
        double w = 0.5 * size[0], h = 0.5 * size[1];
        double xy[8] = {-w, -h, w, -h, w, h, -w, h};
        return rigid_shape_polygon(s, xy, 4, err, errlen);
    }
    shape_init(s, 3, RIGID_BOX);
    double a = size[0], b = size[1], c = size[2];
    seam_v3_set(s->half, 0.5 * a, 0.5 * b, 0.5 * c);
    s->measure = a * b * c;
    seam_v3_set(s->J, s->measure * (b * b + c * c) / 12.0, s->measure * (a * a + c * c) / 12.0,
           s->measure * (a * a + b * b) / 12.0);
    s->bound = seam_v3_norm(s->half);
    return 0;
}

int rigid_shape_cylinder(rigid_shape *s, double radius, double height, char *err, size_t errlen)
{
    shape_init(s, 3, RIGID_CYLINDER);
    if (!(radius > 0.0) || !isfinite(radius) || !(height > 0.0) || !isfinite(height)) {
        snprintf(err, errlen, "radius and height must be positive, got %g and %g", radius, height);
        return -1;
    }
    s->radius = radius;
    s->height = height;
    s->measure = M_PI * radius * radius * height;
    double Jx = s->measure * (3.0 * radius * radius + height * height) / 12.0;
    seam_v3_set(s->J, Jx, 0.5 * s->measure * radius * radius, Jx);
    s->bound = hypot(radius, 0.5 * height);
    return 0;
}

int rigid_shape_torus(rigid_shape *s, double radius, double tube, char *err, size_t errlen)
{
    shape_init(s, 3, RIGID_TORUS);
    if (!(tube > 0.0) || !isfinite(radius) || !(radius > tube)) {
        snprintf(err, errlen, "need 0 < tube_radius < radius (a ring torus), got tube_radius %g and radius %g", tube,
                 radius);
        return -1;
    }
    s->radius = radius;
    s->tube = tube;
    s->measure = 2.0 * M_PI * M_PI * radius * tube * tube;
    double Jx = s->measure * (0.5 * radius * radius + 0.625 * tube * tube);
    seam_v3_set(s->J, Jx, s->measure * (radius * radius + 0.75 * tube * tube), Jx);
    s->bound = radius + tube;
    return 0;
}

/* ---- polygons ---------------------------------------------------------- */

/* Whether segments ab and cd properly intersect or touch. */
static bool segments_meet(const double *a, const double *b, const double *c, const double *d)
{
    double ab[2] = {b[0] - a[0], b[1] - a[1]}, cd[2] = {d[0] - c[0], d[1] - c[1]};
    double ac[2] = {c[0] - a[0], c[1] - a[1]}, ad[2] = {d[0] - a[0], d[1] - a[1]};
    double ca[2] = {a[0] - c[0], a[1] - c[1]}, cb[2] = {b[0] - c[0], b[1] - c[1]};
    double d1 = seam_v2_cross(ab, ac), d2 = seam_v2_cross(ab, ad);
    double d3 = seam_v2_cross(cd, ca), d4 = seam_v2_cross(cd, cb);
    return ((d1 > 0) != (d2 > 0) || d1 == 0 || d2 == 0) && ((d3 > 0) != (d4 > 0) || d3 == 0 || d4 == 0) &&
           !(d1 == 0 && d2 == 0 && d3 == 0 && d4 == 0 &&
             (fmax(a[0], b[0]) < fmin(c[0], d[0]) || fmax(c[0], d[0]) < fmin(a[0], b[0]) ||
              fmax(a[1], b[1]) < fmin(c[1], d[1]) || fmax(c[1], d[1]) < fmin(a[1], b[1])));
}

int rigid_shape_polygon(rigid_shape *s, const double *xy, size_t n, char *err, size_t errlen)
{
    shape_init(s, 2, RIGID_POLYGON);
    if (n < 3) {
        snprintf(err, errlen, "a polygon needs at least 3 vertices, got %zu", n);
        return -1;
    }
    double A2 = 0.0, cx = 0.0, cy = 0.0;   /* twice the signed area; centroid sums */
    for (size_t i = 0; i < n; i++) {
        const double *a = xy + 2 * i, *b = xy + 2 * ((i + 1) % n);
        double c = seam_v2_cross(a, b);
        A2 += c;
        cx += (a[0] + b[0]) * c;
        cy += (a[1] + b[1]) * c;
    }
    double scale = 0.0;
    for (size_t i = 0; i < 2 * n; i++)
        scale = fmax(scale, fabs(xy[i]));
    if (fabs(A2) <= 1e-12 * scale * scale) {
        snprintf(err, errlen, "polygon has zero area");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 2; j < n; j++) {
            if (i == 0 && j == n - 1)
                continue;   /* adjacent through the closing edge */
            if (segments_meet(xy + 2 * i, xy + 2 * ((i + 1) % n), xy + 2 * j, xy + 2 * ((j + 1) % n))) {
                snprintf(err, errlen, "polygon edges %zu and %zu cross (vertices are 0-based)", i, j);
                return -1;
            }
        }
    }
    cx /= 3.0 * A2;   /* centroid = sum (a+b) cross / (6 A) */
    cy /= 3.0 * A2;
    s->n_verts = n;
    s->verts = seam_xmalloc(3 * n * sizeof *s->verts);
    for (size_t i = 0; i < n; i++) {
        size_t k = A2 > 0 ? i : n - 1 - i;   /* store counter-clockwise */
        seam_v3_set(s->verts + 3 * i, xy[2 * k] - cx, xy[2 * k + 1] - cy, 0.0);
    }
    double J = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double *a = s->verts + 3 * i, *b = s->verts + 3 * ((i + 1) % n);
        /* polar moment of the triangle (0, a, b) about the origin, which is the centroid */
        J += seam_v2_cross(a, b) * (a[0] * a[0] + a[0] * b[0] + b[0] * b[0] + a[1] * a[1] + a[1] * b[1] + b[1] * b[1]);
        s->bound = fmax(s->bound, seam_v3_norm(a));
    }
    J /= 12.0;
    s->measure = 0.5 * fabs(A2);
    seam_v3_set(s->J, J, J, J);
    return 0;
}

/* ---- meshes ------------------------------------------------------------ */

typedef struct edge_rec {
    int32_t lo, hi;   /* sorted endpoints */
    int32_t a;        /* directed start */
    size_t slot;      /* triangle*3 + local edge */
} edge_rec;

static int edge_cmp(const void *pa, const void *pb)
{
    const edge_rec *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return a->slot < b->slot ? -1 : (a->slot > b->slot);
}

static edge_rec *sorted_edges(const int32_t *tris, size_t nt)
{
    edge_rec *e = seam_xmalloc(3 * nt * sizeof *e);
    for (size_t t = 0; t < nt; t++) {
        for (int k = 0; k < 3; k++) {
            int32_t a = tris[3 * t + k], b = tris[3 * t + (k + 1) % 3];
            e[3 * t + (size_t)k] = (edge_rec){a < b ? a : b, a < b ? b : a, a, 3 * t + (size_t)k};
        }
    }
    qsort(e, 3 * nt, sizeof *e, edge_cmp);
    return e;
}

/* Each edge must be shared by exactly two triangles that run it in opposite directions. */
static int check_closed(const int32_t *tris, size_t nt, char *err, size_t errlen)
{
    edge_rec *e = sorted_edges(tris, nt);
    int rc = 0;
    for (size_t i = 0; i < 3 * nt && rc == 0;) {
        size_t j = i;
        while (j < 3 * nt && e[j].lo == e[i].lo && e[j].hi == e[i].hi)
            j++;
        if (j - i != 2) {
            snprintf(err, errlen, "mesh is not closed: edge (%d, %d) belongs to %zu triangle(s), not 2 "
                     "(vertices 1-based)", e[i].lo + 1, e[i].hi + 1, j - i);
            rc = -1;
        } else if (e[i].a == e[i + 1].a) {
            snprintf(err, errlen, "mesh is not consistently oriented at edge (%d, %d) (vertices 1-based)",
                     e[i].lo + 1, e[i].hi + 1);
            rc = -1;
        }
        i = j;
    }
    free(e);
    return rc;
}

/* Body-to-given-frame quaternion of a proper rotation matrix (columns = body axes). */
static void mat_to_q(double *q, const double *R)
{
    double tr = R[0] + R[4] + R[8];
    if (tr > 0) {
        double s = 2.0 * sqrt(1.0 + tr);
        q[0] = 0.25 * s; q[1] = (R[7] - R[5]) / s; q[2] = (R[2] - R[6]) / s; q[3] = (R[3] - R[1]) / s;
    } else if (R[0] > R[4] && R[0] > R[8]) {
        double s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
        q[0] = (R[7] - R[5]) / s; q[1] = 0.25 * s; q[2] = (R[1] + R[3]) / s; q[3] = (R[2] + R[6]) / s;
    } else if (R[4] > R[8]) {
        double s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
        q[0] = (R[2] - R[6]) / s; q[1] = (R[1] + R[3]) / s; q[2] = 0.25 * s; q[3] = (R[5] + R[7]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
        q[0] = (R[3] - R[1]) / s; q[1] = (R[2] + R[6]) / s; q[2] = (R[5] + R[7]) / s; q[3] = 0.25 * s;
    }
    q_normalize(q);
}

int rigid_shape_mesh(rigid_shape *s, const double *verts, size_t nv, const int32_t *tris, size_t nt,
                     char *err, size_t errlen)
{
    shape_init(s, 3, RIGID_MESH);
    if (nv < 4 || nt < 4) {
        snprintf(err, errlen, "a closed mesh needs at least 4 vertices and 4 triangles, got %zu and %zu", nv, nt);
        return -1;
    }
    for (size_t i = 0; i < 3 * nt; i++) {
        if (tris[i] < 0 || (size_t)tris[i] >= nv) {
            snprintf(err, errlen, "triangle %zu refers to vertex %d of %zu", i / 3 + 1, tris[i] + 1, nv);
            return -1;
        }
    }
    if (check_closed(tris, nt, err, errlen))
        return -1;
    /* Volume, first and second moments from tetrahedra (0, a, b, c) (divergence theorem). */
    double V = 0.0, m1[3] = {0, 0, 0}, C[9] = {0};
    for (size_t t = 0; t < nt; t++) {
        const double *a = verts + 3 * tris[3 * t], *b = verts + 3 * tris[3 * t + 1], *c = verts + 3 * tris[3 * t + 2];
        double bc[3], sum[3];
        seam_v3_cross(bc, b, c);
        double det = seam_v3_dot(a, bc);   /* 6 x signed tetrahedron volume */
        V += det / 6.0;
        seam_v3_add(sum, a, b);
        seam_v3_add(sum, sum, c);
        seam_v3_axpy(m1, det / 24.0, sum);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)   /* int x_i x_j over the tetrahedron */
                C[3 * i + j] += det / 120.0 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + sum[i] * sum[j]);
    }
    if (fabs(V) < 1e-300) {
        snprintf(err, errlen, "mesh encloses no volume");
        return -1;
    }
    double flip = V < 0 ? -1.0 : 1.0;   /* inward-facing meshes are turned around below */
    V *= flip;
    double com[3];
    seam_v3_scale(com, flip / V, m1);
    double Icom[9];
    for (int k = 0; k < 9; k++)
        C[k] = flip * C[k];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[3 * i + j] -= V * com[i] * com[j];   /* parallel axis: second moment about the centre */
    double trC = C[0] + C[4] + C[8];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Icom[3 * i + j] = (i == j ? trC : 0.0) - C[3 * i + j];
    double lambda[3], axes[9], evals[3];
    if (seam_sym_eig(3, Icom, lambda, axes) != 0) {
        snprintf(err, errlen, "inertia tensor eigen-decomposition failed");
        return -1;
    }
    for (int k = 0; k < 3; k++) {   /* principal moments in ascending order */
        evals[k] = lambda[2 - k];
        for (int i = 0; i < 3; i++)
            Icom[3 * i + k] = axes[3 * i + 2 - k];
    }
    /* columns of Icom are the principal axes; make them right-handed */
    double c0[3] = {Icom[0], Icom[3], Icom[6]}, c1[3] = {Icom[1], Icom[4], Icom[7]}, c2[3] = {Icom[2], Icom[5], Icom[8]};
    double x01[3];
    seam_v3_cross(x01, c0, c1);
    if (seam_v3_dot(x01, c2) < 0)
        for (int i = 0; i < 3; i++)
            Icom[3 * i + 2] = -Icom[3 * i + 2];
    mat_to_q(s->q_frame, Icom);
    s->n_verts = nv;
    s->verts = seam_xmalloc(3 * nv * sizeof *s->verts);
    for (size_t i = 0; i < nv; i++) {
        double d[3];
        seam_v3_sub(d, verts + 3 * i, com);
        seam_m3_mul_tv(s->verts + 3 * i, Icom, d);
        s->bound = fmax(s->bound, seam_v3_norm(d));
    }
    s->n_tris = nt;
    s->tris = seam_xmalloc(3 * nt * sizeof *s->tris);
    for (size_t t = 0; t < nt; t++) {
        s->tris[3 * t] = tris[3 * t];
        s->tris[3 * t + 1] = flip > 0 ? tris[3 * t + 1] : tris[3 * t + 2];
        s->tris[3 * t + 2] = flip > 0 ? tris[3 * t + 2] : tris[3 * t + 1];
    }
    s->measure = V;
    seam_v3_copy(s->J, evals);
    return 0;
}

int rigid_shape_obj(rigid_shape *s, const char *path, double scale, char *err, size_t errlen)
{
    shape_init(s, 3, RIGID_MESH);
    seam_trimesh m;
    if (seam_obj_read(path, &m, err, errlen) != SEAM_OK)
        return -1;
    for (size_t i = 0; i < 3 * m.n_verts; i++)
        m.X[i] *= scale;
    char inner[400];
    int rc = rigid_shape_mesh(s, m.X, m.n_verts, m.tris, m.n_tris, inner, sizeof inner);
    if (rc)
        snprintf(err, errlen, "%s: %s", path, inner);
    seam_trimesh_free(&m);
    return rc;
}

/* ---- sampling ---------------------------------------------------------- */

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
    edge_rec *e = sorted_edges(*tris, *nt);
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

/* ---- distances --------------------------------------------------------- */

static void sdf_box(const double *h, const double *p, double *dist, double *n)
{
    double q[3], out[3];
    int imax = 0;
    for (int k = 0; k < 3; k++) {
        q[k] = fabs(p[k]) - h[k];
        out[k] = fmax(q[k], 0.0);
        if (q[k] > q[imax])
            imax = k;
    }
    double lo = seam_v3_norm(out);
    if (lo > 0.0) {
        *dist = lo;
        for (int k = 0; k < 3; k++)
            n[k] = copysign(out[k], p[k]) / lo;
    } else {
        *dist = q[imax];
        seam_v3_set(n, 0, 0, 0);
        n[imax] = p[imax] < 0 ? -1.0 : 1.0;
    }
}

static void sdf_polygon(const rigid_shape *s, const double *p, double *dist, double *n)
{
    double best = INFINITY, cp[2] = {0, 0}, en[2] = {0, 0};
    bool inside = false;
    for (size_t i = 0; i < s->n_verts; i++) {
        const double *a = s->verts + 3 * i, *b = s->verts + 3 * ((i + 1) % s->n_verts);
        double d[2] = {b[0] - a[0], b[1] - a[1]}, ap[2] = {p[0] - a[0], p[1] - a[1]};
        double L2 = d[0] * d[0] + d[1] * d[1];
        double t = fmin(1.0, fmax(0.0, (ap[0] * d[0] + ap[1] * d[1]) / L2));
        double c[2] = {a[0] + t * d[0], a[1] + t * d[1]};
        double dd = hypot(p[0] - c[0], p[1] - c[1]);
        if (dd < best) {
            best = dd;
            cp[0] = c[0]; cp[1] = c[1];
            double L = sqrt(L2);
            en[0] = d[1] / L; en[1] = -d[0] / L;
        }
        if ((a[1] > p[1]) != (b[1] > p[1]) && p[0] < a[0] + (p[1] - a[1]) * d[0] / d[1])
            inside = !inside;   /* crossing number */
    }
    *dist = inside ? -best : best;
    if (best > 1e-12 * s->bound) {
        double sg = inside ? -1.0 : 1.0;
        seam_v3_set(n, sg * (p[0] - cp[0]) / best, sg * (p[1] - cp[1]) / best, 0.0);
    } else {
        seam_v3_set(n, en[0], en[1], 0.0);
    }
}

/* Closest point to p on triangle abc (Voronoi regions of vertices, edges, face). */
static void closest_on_triangle(const double *p, const double *a, const double *b, const double *c, double *q)
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    seam_v3_sub(ab, b, a);
    seam_v3_sub(ac, c, a);
    seam_v3_sub(ap, p, a);
    double d1 = seam_v3_dot(ab, ap), d2 = seam_v3_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        seam_v3_copy(q, a);
        return;
    }
    seam_v3_sub(bp, p, b);
    double d3 = seam_v3_dot(ab, bp), d4 = seam_v3_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) {
        seam_v3_copy(q, b);
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        seam_v3_copy(q, a);
        seam_v3_axpy(q, d1 / (d1 - d3), ab);
        return;
    }
    seam_v3_sub(cp, p, c);
    double d5 = seam_v3_dot(ab, cp), d6 = seam_v3_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) {
        seam_v3_copy(q, c);
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        seam_v3_copy(q, a);
        seam_v3_axpy(q, d2 / (d2 - d6), ac);
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double bc[3];
        seam_v3_sub(bc, c, b);
        seam_v3_copy(q, b);
        seam_v3_axpy(q, (d4 - d3) / ((d4 - d3) + (d5 - d6)), bc);
        return;
    }
    double den = 1.0 / (va + vb + vc);
    seam_v3_copy(q, a);
    seam_v3_axpy(q, vb * den, ab);
    seam_v3_axpy(q, vc * den, ac);
}

/* Distance to the nearest triangle; inside when the winding number (sum of
 * solid angles over 4 pi) exceeds one half, robust for closed meshes. */
static void sdf_mesh(const rigid_shape *s, const double *p, double *dist, double *n)
{
    double best = INFINITY, cq[3] = {0, 0, 0}, fn[3] = {0, 0, 1}, omega = 0.0;
    for (size_t t = 0; t < s->n_tris; t++) {
        const double *a = s->verts + 3 * s->tris[3 * t], *b = s->verts + 3 * s->tris[3 * t + 1],
                     *c = s->verts + 3 * s->tris[3 * t + 2];
        double q[3], d[3];
        closest_on_triangle(p, a, b, c, q);
        seam_v3_sub(d, p, q);
        double dd = seam_v3_norm(d);
        double A[3], B[3], C[3], bc[3];
        seam_v3_sub(A, a, p);
        seam_v3_sub(B, b, p);
        seam_v3_sub(C, c, p);
        seam_v3_cross(bc, B, C);
        double la = seam_v3_norm(A), lb = seam_v3_norm(B), lc = seam_v3_norm(C);
        /* solid angle of the triangle seen from p (Van Oosterom and Strackee) */
        omega += 2.0 * atan2(seam_v3_dot(A, bc),
                             la * lb * lc + seam_v3_dot(A, B) * lc + seam_v3_dot(A, C) * lb + seam_v3_dot(B, C) * la);
        if (dd < best) {
            double ab[3], ac[3];
            best = dd;
            seam_v3_copy(cq, q);
            seam_v3_sub(ab, b, a);
            seam_v3_sub(ac, c, a);
            seam_v3_cross(fn, ab, ac);
            seam_v3_scale(fn, 1.0 / seam_v3_norm(fn), fn);
        }
    }
    bool inside = omega > 2.0 * M_PI;
    *dist = inside ? -best : best;
    if (best > 1e-12 * s->bound) {
        double sg = inside ? -1.0 : 1.0;
        seam_v3_sub(n, p, cq);
        seam_v3_scale(n, sg / best, n);
    } else {
        seam_v3_copy(n, fn);
    }
}

/* Cylinder of radius r and height h along y: the distance in the (radial, axial) half-plane. */
static void sdf_cylinder(double r, double h, const double *p, double *dist, double *n)
{
    double rho = hypot(p[0], p[2]), u[3] = {1.0, 0.0, 0.0};
    if (rho > 0.0)
        seam_v3_set(u, p[0] / rho, 0.0, p[2] / rho);
    double dr = rho - r, dy = fabs(p[1]) - 0.5 * h, sy = p[1] < 0.0 ? -1.0 : 1.0;
    if (dr > 0.0 || dy > 0.0) {
        double or = fmax(dr, 0.0), oy = fmax(dy, 0.0);
        *dist = hypot(or, oy);
        seam_v3_set(n, or * u[0] / *dist, sy * oy / *dist, or * u[2] / *dist);
    } else if (dr > dy) {
        *dist = dr;
        seam_v3_copy(n, u);
    } else {
        *dist = dy;
        seam_v3_set(n, 0.0, sy, 0.0);
    }
}

/* Torus about y: the distance to the tube's centre circle, less the tube radius. */
static void sdf_torus(double R, double a, const double *p, double *dist, double *n)
{
    double rho = hypot(p[0], p[2]), u[3] = {1.0, 0.0, 0.0};
    if (rho > 0.0)
        seam_v3_set(u, p[0] / rho, 0.0, p[2] / rho);
    double qr = rho - R, L = hypot(qr, p[1]);
    *dist = L - a;
    if (L > 0.0)
        seam_v3_set(n, qr * u[0] / L, p[1] / L, qr * u[2] / L);
    else
        seam_v3_copy(n, u);
}

bool rigid_shape_sdf(const rigid_shape *s, const double *p, double *dist, double *n)
{
    switch (s->kind) {
    case RIGID_CYLINDER:
        sdf_cylinder(s->radius, s->height, p, dist, n);
        return true;
    case RIGID_TORUS:
        sdf_torus(s->radius, s->tube, p, dist, n);
        return true;
    case RIGID_ROUND: {
        double r = seam_v3_norm(p);
        *dist = r - s->radius;
        if (r > 0)
            seam_v3_scale(n, 1.0 / r, p);
        else
            seam_v3_set(n, 0, 1, 0);
        return true;
    }
    case RIGID_BOX:
        sdf_box(s->half, p, dist, n);
        return true;
    case RIGID_POLYGON:
        sdf_polygon(s, p, dist, n);
        return true;
    case RIGID_MESH:
        sdf_mesh(s, p, dist, n);
        return true;
    }
    return false;
}
