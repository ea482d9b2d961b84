/* solid_rigid's coupling interface: points sampled on each body's surface
 * (Akbay section 2.3.4: embedded points about one fluid cell apart) that
 * move rigidly with their body, their exact mobility, the bodies' poses,
 * and the VTK frames of the surfaces. */
#include <stdio.h>
#include <stdlib.h>

#include "seam/alloc.h"
#include "seam/frame.h"
#include "seam/vtk.h"

#include "quat.h"
#include "solver.h"

void rigid_interface_build(rigid_solver *rs)
{
    size_t np = 0, ne = 0;
    int32_t **el = seam_xcalloc(rs->n_bodies, sizeof *el);
    size_t *nel = seam_xcalloc(rs->n_bodies, sizeof *nel);
    for (size_t i = 0; i < rs->n_bodies; i++) {
        rigid_body *b = &rs->bodies[i];
        rigid_shape_sample(&b->shape, rs->set.spacing, &b->r, &b->n_pts, &el[i], &nel[i]);
        b->first = np;
        np += b->n_pts;
        ne += nel[i];
    }
    int npe = rs->set.dim;   /* segments in 2D, triangles in 3D */
    rs->n_pts = np;
    rs->n_elems = ne;
    rs->X = seam_xmalloc(np * (size_t)rs->set.dim * sizeof *rs->X);
    rs->Xs = seam_xmalloc(np * (size_t)rs->set.dim * sizeof *rs->Xs);
    rs->mass = seam_xmalloc(np * sizeof *rs->mass);
    rs->body_id = seam_xmalloc(np * sizeof *rs->body_id);
    rs->elems = seam_xmalloc(ne * (size_t)npe * sizeof *rs->elems);
    rs->two_sided = seam_xcalloc(ne ? ne : 1, 1);
    size_t e = 0;
    for (size_t i = 0; i < rs->n_bodies; i++) {
        rigid_body *b = &rs->bodies[i];
        for (size_t k = 0; k < b->n_pts; k++) {
            rs->mass[b->first + k] = b->m / (double)b->n_pts;   /* informative only; mobility is exact */
            rs->body_id[b->first + k] = (int32_t)i;
        }
        for (size_t k = 0; k < nel[i] * (size_t)npe; k++)
            rs->elems[e * (size_t)npe + k] = el[i][k] + (int32_t)b->first;
        e += nel[i];
        free(el[i]);
    }
    free(el);
    free(nel);
}

void rigid_sample_points(const rigid_solver *rs, const rigid_state *S, double *X, double *V)
{
    for (size_t i = 0; i < rs->n_bodies; i++) {
        const rigid_body *b = &rs->bodies[i];
        for (size_t k = 0; k < b->n_pts; k++) {
            double p[3], v[3];
            rigid_body_point(&S[i], b->r + 3 * k, p);
            rigid_body_velocity_at(&S[i], p, v);
            for (int d = 0; d < rs->set.dim; d++) {
                X[(b->first + k) * (size_t)rs->set.dim + (size_t)d] = p[d];
                if (V)
                    V[(b->first + k) * (size_t)rs->set.dim + (size_t)d] = v[d];
            }
        }
    }
}

seam_status rigid_describe(void *self, seam_interface *iface)
{
    rigid_solver *rs = self;
    rigid_sample_points(rs, rs->S, rs->X, NULL);
    iface->dim = rs->set.dim;
    iface->n_points = rs->n_pts;
    iface->X = rs->X;
    iface->mass = rs->mass;
    iface->body = rs->body_id;
    iface->nodes_per_elem = rs->set.dim;
    iface->n_elems = rs->n_elems;
    iface->elems = rs->elems;
    iface->two_sided = rs->two_sided;
    iface->n_bodies = rs->n_bodies;
    return SEAM_OK;
}

seam_status rigid_mobility(void *self, const double *impulse, double *dv)
{
    rigid_solver *rs = self;
    rigid_sample_points(rs, rs->S, rs->Xs, NULL);
    for (size_t i = 0; i < rs->n_bodies; i++) {
        const rigid_body *b = &rs->bodies[i];
        rigid_state R = rs->S[i];   /* a body at rest, then hit by every point's impulse */
        seam_v3_set(R.v, 0, 0, 0);
        seam_v3_set(R.L, 0, 0, 0);
        seam_v3_set(R.w, 0, 0, 0);
        R.sdot = 0.0;
        for (size_t k = 0; k < b->n_pts; k++) {
            double J[3] = {0, 0, 0}, p[3] = {0, 0, 0};
            for (int d = 0; d < rs->set.dim; d++) {
                J[d] = impulse[(b->first + k) * (size_t)rs->set.dim + (size_t)d];
                p[d] = rs->Xs[(b->first + k) * (size_t)rs->set.dim + (size_t)d];
            }
            rigid_body_impulse(b, &R, p, J);
        }
        for (size_t k = 0; k < b->n_pts; k++) {
            double p[3] = {0, 0, 0}, v[3];
            for (int d = 0; d < rs->set.dim; d++)
                p[d] = rs->Xs[(b->first + k) * (size_t)rs->set.dim + (size_t)d];
            rigid_body_velocity_at(&R, p, v);   /* dv_i = J/m + (I^-1 sum r_j x J_j) x r_i */
            for (int d = 0; d < rs->set.dim; d++)
                dv[(b->first + k) * (size_t)rs->set.dim + (size_t)d] = v[d];
        }
    }
    return SEAM_OK;
}

seam_status rigid_write_output(void *self, const char *dir, int frame)
{
    rigid_solver *rs = self;
    size_t nd = rs->n_pts * (size_t)rs->set.dim;
    double *X = SEAM_NEW_N(double, nd), *V = SEAM_NEW_N(double, nd), *id = SEAM_NEW_N(double, rs->n_pts);
    rigid_sample_points(rs, rs->S, X, V);
    for (size_t k = 0; k < rs->n_pts; k++)
        id[k] = rs->body_id[k];
    seam_vtk_field fields[2] = {{"velocity", 3, rs->set.dim, V}, {"body", 1, 1, id}};
    char stem[64];
    snprintf(stem, sizeof stem, "bodies_" SEAM_FRAME_FORMAT, frame);
    seam_status st = seam_vtk_frame_cells(&rs->vtk, rs->host, dir, stem, rs->set.dim, rs->n_pts, X,
                                          rs->set.dim == 2 ? SEAM_VTK_LINE : SEAM_VTK_TRIANGLE, rs->set.dim,
                                          rs->n_elems,
                                          rs->elems, fields, 2);
    if (st == SEAM_OK)
        st = seam_vtk_frame_done(&rs->vtk, rs->host, dir,
                                 rs->host && rs->host->name ? rs->host->name : "solid_rigid", rs->t_n);
    free(X);
    free(V);
    free(id);
    return st;
}

/* The committed pose of every body and its points' range: the centre of
 * mass and the rotation from the body frame (in which its samples' r are
 * fixed) to the world, so sample k of body b sits at x + R r_k. */
seam_status rigid_bodies(void *self, seam_bodies *out)
{
    rigid_solver *rs = self;
    size_t n = rs->n_bodies;
    if (!rs->pose) {
        rs->pose = seam_xmalloc((12 * n + 1) * sizeof *rs->pose);
        rs->ranges = seam_xmalloc((2 * n + 1) * sizeof *rs->ranges);
    }
    for (size_t i = 0; i < n; i++) {
        seam_v3_copy(rs->pose + 3 * i, rs->S[i].x);
        q_to_mat(rs->pose + 3 * n + 9 * i, rs->S[i].q);
        rs->ranges[i] = (int64_t)rs->bodies[i].first;
        rs->ranges[n + i] = (int64_t)rs->bodies[i].n_pts;
    }
    *out = (seam_bodies){.count = n, .centre = rs->pose, .rotation = rs->pose + 3 * n, .first = rs->ranges,
                         .points = rs->ranges + n};
    return SEAM_OK;
}
