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

static int edge_cmp(const void *pa, const void *pb)
{
    const rigid_edge *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return a->slot < b->slot ? -1 : (a->slot > b->slot);
}

rigid_edge *rigid_sorted_edges(const int32_t *tris, size_t nt)
{
    rigid_edge *e = seam_xmalloc(3 * nt * sizeof *e);
    for (size_t t = 0; t < nt; t++) {
        for (int k = 0; k < 3; k++) {
            int32_t a = tris[3 * t + k], b = tris[3 * t + (k + 1) % 3];
            e[3 * t + (size_t)k] = (rigid_edge){a < b ? a : b, a < b ? b : a, a, 3 * t + (size_t)k};
        }
    }
    qsort(e, 3 * nt, sizeof *e, edge_cmp);
    return e;
}

/* Each edge must be shared by exactly two triangles that run it in opposite directions. */
static int check_closed(const int32_t *tris, size_t nt, char *err, size_t errlen)
{
    rigid_edge *e = rigid_sorted_edges(tris, nt);
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
