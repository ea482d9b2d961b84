/* fluid_mac: implicit (backward-Euler) viscous diffusion of the face
 * velocities, one SPD system per component, solved with the core sparse
 * matrix, IC(0) and PCG. */
#include <stdlib.h>
#include <string.h>

#include "mac.h"
#include "seam/alloc.h"
#include "seam/log.h"
#include "seam/sparse.h"

/* Faces whose velocity the projection owns: fluid on both sides, or on one
 * side of an open side or the free surface. */
static int face_unknown(face_kind k) { return k == FACE_ACTIVE || k == FACE_DIRICHLET; }

/* Per face of axis a, the index in geo->faces of that face (a body's or a
 * shell's; a shell's only when shells_only), or -1: where the viscous links'
 * momentum goes, and which links cross a shell. */
static int32_t *solid_lookup(const mac_grid *g, const mac_geometry *geo, int a, int shells_only)
{
    size_t nf = mac_nf(g, a);
    int32_t *s = seam_xmalloc_n(nf + 1, sizeof *s);
    for (size_t f = 0; f < nf; f++)
        s[f] = -1;
    for (size_t k = 0; k < geo->n_faces; k++) {
        const solid_face *sf = &geo->faces[k];
        if (sf->axis == a && (!shells_only || sf->s == SHELL))
            s[mac_fi(g, a, sf->i, sf->j, sf->k)] = (int32_t)k;
    }
    return s;
}

/* The shell velocity (component a) on the edge between the a-face ijk and its
 * neighbour along b (up: +1 side), when a shell crosses one of the two b-faces
 * that bound that edge (those of the cells on either side of the a-face);
 * returns 0 when none does. */
static int shell_between(const mac_grid *g, int32_t *const shell[3], const double *U, int a, int b, const int *ijk,
                         int up, double *u_wall, int32_t hit[2])
{
    int e[3] = {ijk[0], ijk[1], ijk[2]};
    e[b] += up;
    double sum = 0.0;
    int n = 0;
    for (int side = 0; side < 2; side++) {   /* cell ijk (side 0) and cell ijk - e_a (side 1) */
        int q[3] = {e[0], e[1], e[2]};
        q[a] -= side;
        if (q[a] < 0 || q[a] >= mac_n(g, a))
            continue;
        int32_t s = shell[b][mac_fi(g, b, q[0], q[1], q[2])];
        if (s >= 0) {
            sum += U[(size_t)g->dim * (size_t)s + (size_t)a];
            hit[n++] = s;
        }
    }
    if (n)
        *u_wall = sum / n;
    return n > 0;
}

/* What the links of the fluid's a-faces to solid faces (a body's face at its
 * value, a shell at dx/2) took out of the fluid in the solve just done,
 * c (w - u_solid) per link (2 c for a shell at dx/2, split between the shell
 * faces found), added to component a of dv per geo face. The domain's walls,
 * obstacles and inflows are not in geo->faces and take nothing. */
static void solid_links(const mac_grid *g, int32_t *const shell[3], const int32_t *body,
                        const double *U, const int32_t *idx, const double *x, double c, int a, const double *u,
                        double *dv)
{
    const int nn[3] = {g->nx + (a == 0), g->ny + (a == 1), g->nz + (a == 2)};
    size_t dim = (size_t)g->dim;
    for (int k = 0; k < nn[2]; k++)
        for (int j = 0; j < nn[1]; j++)
            for (int i = 0; i < nn[0]; i++) {
                size_t f = mac_fi(g, a, i, j, k);
                if (idx[f] < 0)
                    continue;
                double w = x[idx[f]];
                const int ijk[3] = {i, j, k};
                for (int b = 0; b < g->dim; b++)
                    for (int up = 0; up < 2; up++) {
                        int q[3] = {i, j, k};
                        q[b] += up ? 1 : -1;
                        if (q[b] < 0 || q[b] >= nn[b])
                            continue;
                        double u_wall;
                        int32_t hit[2];
                        int n = b != a ? shell_between(g, shell, U, a, b, ijk, up, &u_wall, hit) : 0;
                        for (int h = 0; h < n; h++)
                            dv[dim * (size_t)hit[h] + (size_t)a] += 2.0 * c * (w - u_wall) / n;
                        if (n)
                            continue;
                        size_t nb = mac_fi(g, a, q[0], q[1], q[2]);
                        if (idx[nb] < 0 && body[nb] >= 0)
                            dv[dim * (size_t)body[nb] + (size_t)a] += c * (w - u[nb]);
                    }
            }
}

/* (I - nu dt Lap) u = u* for the faces of one axis. */
static seam_status diffuse_axis(const mac_grid *g, const mac_geometry *geo, int32_t *const shell[3], const double *U,
                                const double *keep, double c, double tol, int max_iter, int a, double *u,
                                double *dv, int *iterations, const seam_host *host)
{
    size_t nf = mac_nf(g, a), n = 0;
    int32_t *idx = seam_xmalloc_n(nf + 1, sizeof *idx);
    uint8_t *kind = seam_xmalloc(nf + 1);
    const int nn[3] = {g->nx + (a == 0), g->ny + (a == 1), g->nz + (a == 2)};
    for (int k = 0; k < nn[2]; k++)
        for (int j = 0; j < nn[1]; j++)
            for (int i = 0; i < nn[0]; i++) {
                size_t f = mac_fi(g, a, i, j, k);
                kind[f] = (uint8_t)mac_face(g, geo, a, i, j, k, NULL);
                idx[f] = face_unknown((face_kind)kind[f]) ? (int32_t)n++ : -1;
            }
    seam_status st = SEAM_OK;
    if (n > 0) {
        seam_triplets *T = seam_triplets_new(n, n, n * (2 * (size_t)g->dim + 1));
        double *rhs = seam_xmalloc(n * sizeof *rhs), *x = seam_xmalloc(n * sizeof *x);
        for (int k = 0; k < nn[2]; k++)
            for (int j = 0; j < nn[1]; j++)
                for (int i = 0; i < nn[0]; i++) {
                    size_t f = mac_fi(g, a, i, j, k);
                    if (idx[f] < 0)
                        continue;
                    size_t row = (size_t)idx[f];
                    const int ijk[3] = {i, j, k};
                    double diag = 1.0, r = u[f] - (keep ? keep[f] : 0.0);
                    for (int b = 0; b < g->dim; b++)
                        for (int up = 0; up < 2; up++) {
                            int q[3] = {i, j, k};
                            q[b] += up ? 1 : -1;
                            if (q[b] < 0 || q[b] >= nn[b]) {
                                /* beyond a wall side the tangential velocity is 0 at dx/2 (ghost -u);
                                 * an open side, or a face's own axis, has zero gradient */
                                if (b != a && g->bc[2 * b + up] == BC_WALL)
                                    diag += 2.0 * c;
                                continue;
                            }
                            double u_wall;
                            int32_t hit[2];
                            if (b != a && shell_between(g, shell, U, a, b, ijk, up, &u_wall, hit)) {
                                diag += 2.0 * c;   /* the shell at dx/2 moves at u_wall: ghost 2 u_wall - u */
                                r += 2.0 * c * u_wall;
                                continue;
                            }
                            size_t nb = mac_fi(g, a, q[0], q[1], q[2]);
                            if (idx[nb] >= 0) {
                                seam_triplets_add(T, row, (size_t)idx[nb], -c);
                                diag += c;
                            } else if (kind[nb] == FACE_FIXED) {   /* wall, body, inflow: its imposed value */
                                diag += c;
                                r += c * u[nb];
                            }   /* FACE_AIR: outside the liquid, zero gradient */
                        }
                    seam_triplets_add(T, row, row, diag);
                    rhs[row] = r;
                    x[row] = u[f] - (keep ? keep[f] : 0.0);
                }
        seam_csr *A = seam_csr_from_triplets(T);
        seam_ichol *L = seam_ichol_new(A);
        seam_linop Aop = seam_csr_linop(A), Mop = seam_ichol_linop(L);
        seam_krylov_opts o = {tol, 0.0, max_iter, 0};
        seam_krylov_stats ks;
        seam_pcg(&Aop, &Mop, rhs, x, &o, &ks);
        *iterations += ks.iterations;
        if (!ks.converged) {   /* its iterate is no solution: the step fails (docs/fluid_mac.md) */
            double bn = seam_norm2(n, rhs);
            seam_logf(host, SEAM_LOG_WARN, "viscosity PCG (IC(0), %c velocities) %s: %d iterations (at most %d), "
                      "relative residual %.3g > tolerance %g", "xyz"[a],
                      ks.breakdown ? "broke down" : "did not converge", ks.iterations, max_iter,
                      bn > 0.0 ? ks.residual / bn : ks.residual, tol);
            st = SEAM_UNSTABLE;
        } else {
            if (dv) {
                int32_t *body = solid_lookup(g, geo, a, 0);
                solid_links(g, shell, body, U, idx, x, c, a, u, dv);
                free(body);
            }
            for (size_t f = 0; f < nf; f++)
                if (idx[f] >= 0)
                    u[f] = x[idx[f]] + (keep ? keep[f] : 0.0);
        }
        seam_ichol_destroy(&L);
        seam_csr_destroy(&A);
        seam_triplets_destroy(&T);
        free(rhs);
        free(x);
    }
    free(idx);
    free(kind);
    return st;
}

seam_status mac_diffuse(const mac_grid *g, const mac_geometry *geo, const double *U, double *const keep[3],
                        double nu_dt, double tol, int max_iter, double *const vel[3], double *dv, int *iterations,
                        const seam_host *host)
{
    int32_t *shell[3] = {NULL, NULL, NULL};
    seam_status st = SEAM_OK;
    *iterations = 0;
    for (int b = 0; b < g->dim; b++)
        shell[b] = solid_lookup(g, geo, b, 1);
    double c = nu_dt / (g->dx * g->dx);
    if (dv && geo->n_faces)
        memset(dv, 0, (size_t)g->dim * geo->n_faces * sizeof *dv);
    for (int a = 0; a < g->dim && st == SEAM_OK; a++)
        st = diffuse_axis(g, geo, shell, U, keep[a], c, tol, max_iter, a, vel[a], dv, iterations, host);
    for (int b = 0; b < 3; b++)
        free(shell[b]);
    return st;
}
