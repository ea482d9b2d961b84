/* Rigid shapes' signed distances and outward normals, for contact (shape.h). */
#include <math.h>
#include <stdbool.h>

#include "quat.h"
#include "shape.h"

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
