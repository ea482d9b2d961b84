/* solid_fem: configuration, mesh generators, bodies and the interface. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/config.h"
#include "seam/dense.h"
#include "seam/log.h"
#include "fem.h"

#define PI 3.14159265358979323846

/* ---- mesh generators ---------------------------------------------------- */

/* Nodes a generated mesh may have: beyond what one process can solve, well
 * inside int32 indices, and refused before anything is allocated. */
#define FEM_MAX_NODES 4000000

static int mesh_alloc(seam_cfg *c, fem_mesh *m, int d, size_t nodes, size_t cells, int per_cell)
{
    memset(m, 0, sizeof *m);
    m->d = d;
    m->nodes_per_cell = per_cell;
    if (nodes > FEM_MAX_NODES || cells > 6 * (size_t)FEM_MAX_NODES) {
        seam_cfg_error(c, NULL, "the generated mesh would have %zu nodes and %zu cells (at most %d nodes): "
                       "use fewer cells", nodes, cells, FEM_MAX_NODES);
        return -1;
    }
    m->X = seam_xcalloc(nodes * (size_t)d + 1, sizeof *m->X);
    m->cells = seam_xcalloc(cells * (size_t)per_cell + 1, sizeof *m->cells);
    return 0;
}

static void push_cell(fem_mesh *m, int32_t a, int32_t b, int32_t c, int32_t e)
{
    int32_t *p = m->cells + m->n_cells * (size_t)m->nodes_per_cell;
    p[0] = a;
    p[1] = b;
    if (m->nodes_per_cell > 2)
        p[2] = c;
    if (m->nodes_per_cell > 3)
        p[3] = e;
    m->n_cells++;
}

/* Positive integers from an array key ("cells": [nx, ny]). */
static int read_counts(seam_cfg *c, const char *key, int n, long *out)
{
    size_t len = 0;
    double *v = seam_cfg_numbers(c, key, &len, SEAM_CFG_REQUIRED);
    int ok = v && len == (size_t)n;
    for (int i = 0; ok && i < n; i++) {
        ok = v[i] >= 1 && v[i] <= 1e6 && v[i] == floor(v[i]);
        out[i] = (long)v[i];
    }
    if (v && !ok)
        seam_cfg_error(c, key, "expected %d positive integers", n);
    free(v);
    return ok;
}

/* Rectangle [min, max] split into nx x ny cells of two triangles, the
 * diagonals alternating so the mesh has no preferred direction. */
/* Two triangles per cell of an (n0+1) x (n1+1) node grid numbered row by
 * row, diagonals alternating so the mesh has no preferred direction. */
static void triangulate_grid(fem_mesh *m, const long n[2])
{
    for (long j = 0; j < n[1]; j++)
        for (long i = 0; i < n[0]; i++) {
            int32_t a = (int32_t)(j * (n[0] + 1) + i), b = a + 1, e = a + (int32_t)(n[0] + 1), f = e + 1;
            if ((i + j) % 2 == 0) {
                push_cell(m, a, b, f, 0);
                push_cell(m, a, f, e, 0);
            } else {
                push_cell(m, a, b, e, 0);
                push_cell(m, b, f, e, 0);
            }
        }
}

static int gen_rectangle(seam_cfg *c, fem_mesh *m)
{
    double lo[2] = {0, 0}, hi[2] = {1, 1};
    long n[2];
    seam_cfg_vec(c, "min", lo, 2, 0);
    seam_cfg_vec(c, "max", hi, 2, SEAM_CFG_REQUIRED);
    if (!read_counts(c, "cells", 2, n))
        return -1;
    if (!(hi[0] > lo[0] && hi[1] > lo[1])) {
        seam_cfg_error(c, "max", "must exceed min in every component");
        return -1;
    }
    if (mesh_alloc(c, m, 2, (size_t)((n[0] + 1) * (n[1] + 1)), (size_t)(2 * n[0] * n[1]), 3) != 0)

        return -1;
    for (long j = 0; j <= n[1]; j++)
        for (long i = 0; i <= n[0]; i++) {
            m->X[2 * m->n_nodes] = lo[0] + (hi[0] - lo[0]) * (double)i / (double)n[0];
            m->X[2 * m->n_nodes + 1] = lo[1] + (hi[1] - lo[1]) * (double)j / (double)n[1];
            m->n_nodes++;
        }
    triangulate_grid(m, n);
    return 0;
}

/* Triangles between two concentric rings of nodes (angles increasing),
 * walking both rings by angle; first/second give the index ranges. */
static void ring_strip(fem_mesh *m, int32_t in0, long n_in, int32_t out0, long n_out)
{
    long i = 0, o = 0;
    while (i < n_in || o < n_out) {
        double ai = 2.0 * PI * ((double)i + 0.5) / (double)n_in;
        double ao = 2.0 * PI * ((double)o + 0.5) / (double)n_out;
        int32_t pi = in0 + (int32_t)(i % n_in), po = out0 + (int32_t)(o % n_out);
        if (o < n_out && (i >= n_in || ao <= ai)) {
            push_cell(m, pi, po, out0 + (int32_t)((o + 1) % n_out), 0);
            o++;
        } else {
            push_cell(m, pi, po, in0 + (int32_t)((i + 1) % n_in), 0);
            i++;
        }
    }
}

/* Disc of `rings` rings, ring k holding 6k nodes: near-equilateral triangles. */
static int gen_disc(seam_cfg *c, fem_mesh *m)
{
    double ctr[2] = {0, 0};
    seam_cfg_vec(c, "center", ctr, 2, 0);
    double R = seam_cfg_num(c, "radius", 1, 0, INFINITY, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN);
    long rings = seam_cfg_int(c, "rings", 4, 1, 2000, SEAM_CFG_REQUIRED);
    if (seam_cfg_error_count(c))
        return -1;
    size_t nodes = 1 + (size_t)(3 * rings * (rings + 1));
    if (mesh_alloc(c, m, 2, nodes, (size_t)(6 * rings * rings), 3) != 0)

        return -1;
    m->X[0] = ctr[0];
    m->X[1] = ctr[1];
    m->n_nodes = 1;
    for (long k = 1; k <= rings; k++) {
        int32_t start = (int32_t)m->n_nodes;
        for (long i = 0; i < 6 * k; i++) {
            double a = 2.0 * PI * (double)i / (double)(6 * k), r = R * (double)k / (double)rings;
            m->X[2 * m->n_nodes] = ctr[0] + r * cos(a);
            m->X[2 * m->n_nodes + 1] = ctr[1] + r * sin(a);
            m->n_nodes++;
        }
        if (k == 1)
            for (int i = 0; i < 6; i++)
                push_cell(m, 0, start + i, start + (i + 1) % 6, 0);
        else
            ring_strip(m, start - (int32_t)(6 * (k - 1)), 6 * (k - 1), start, 6 * k);
    }
    return 0;
}

/* Annulus: layers+1 rings of `segments` nodes, each quad split in two; with
 * `angles` [a0, a1] (degrees, a0 < a1 <= a0 + 360) the arc between them,
 * segments + 1 nodes a ring (a band: Akbay 4.3.2's volumetric balloon). */
static int gen_ring_volume(seam_cfg *c, fem_mesh *m)
{
    double ctr[2] = {0, 0}, ang[2] = {0, 360};
    seam_cfg_vec(c, "center", ctr, 2, 0);
    bool arc = seam_cfg_has(c, "angles");
    if (arc && seam_cfg_vec(c, "angles", ang, 2, 0) && !(ang[1] > ang[0] && ang[1] - ang[0] < 360)) {
        seam_cfg_error(c, "angles", "[from, to] in degrees with from < to < from + 360 (the whole ring: leave it out)");
        return -1;
    }
    double r0 = seam_cfg_num(c, "inner_radius", 1, 0, INFINITY, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN);
    double r1 = seam_cfg_num(c, "outer_radius", 2, 0, INFINITY, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN);
    long ns = seam_cfg_int(c, "segments", 32, 3, 10000000, SEAM_CFG_REQUIRED);
    long nl = seam_cfg_int(c, "layers", 1, 1, 100000, 0);
    if (seam_cfg_error_count(c))
        return -1;
    if (!(r1 > r0)) {
        seam_cfg_error(c, "outer_radius", "must exceed inner_radius");
        return -1;
    }
    long per = arc ? ns + 1 : ns;   /* nodes a ring */
    if (mesh_alloc(c, m, 2, (size_t)(per * (nl + 1)), (size_t)(2 * ns * nl), 3) != 0)
        return -1;
    for (long l = 0; l <= nl; l++)
        for (long i = 0; i < per; i++) {
            double a = (ang[0] + (ang[1] - ang[0]) * (double)i / (double)ns) * PI / 180.0;
            double r = r0 + (r1 - r0) * (double)l / (double)nl;
            m->X[2 * m->n_nodes] = ctr[0] + r * cos(a);
            m->X[2 * m->n_nodes + 1] = ctr[1] + r * sin(a);
            m->n_nodes++;
        }
    for (long l = 0; l < nl; l++)
        for (long i = 0; i < ns; i++) {
            int32_t a = (int32_t)(l * per + i), b = (int32_t)(l * per + (i + 1) % per);
            int32_t e = a + (int32_t)per, f = b + (int32_t)per;
            push_cell(m, a, f, b, 0);   /* (angle, radius) is left-handed */
            push_cell(m, a, e, f, 0);
        }
    return 0;
}

/* Box [min, max] of nx x ny x nz cubes, six tetrahedra each (Kuhn's split
 * along the main diagonal, conforming between neighbours). */
static int gen_box(seam_cfg *c, fem_mesh *m)
{
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    long n[3];
    seam_cfg_vec(c, "min", lo, 3, 0);
    seam_cfg_vec(c, "max", hi, 3, SEAM_CFG_REQUIRED);
    if (!read_counts(c, "cells", 3, n))
        return -1;
    if (!(hi[0] > lo[0] && hi[1] > lo[1] && hi[2] > lo[2])) {
        seam_cfg_error(c, "max", "must exceed min in every component");
        return -1;
    }
    if (mesh_alloc(c, m, 3, (size_t)((n[0] + 1) * (n[1] + 1) * (n[2] + 1)), (size_t)(6 * n[0] * n[1] * n[2]), 4) != 0)

        return -1;
    for (long k = 0; k <= n[2]; k++)
        for (long j = 0; j <= n[1]; j++)
            for (long i = 0; i <= n[0]; i++) {
                long ijk[3] = {i, j, k};
                for (int a = 0; a < 3; a++)
                    m->X[3 * m->n_nodes + (size_t)a] = lo[a] + (hi[a] - lo[a]) * (double)ijk[a] / (double)n[a];
                m->n_nodes++;
            }
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (long k = 0; k < n[2]; k++)
        for (long j = 0; j < n[1]; j++)
            for (long i = 0; i < n[0]; i++)
                for (int p = 0; p < 6; p++) {
                    long q[3] = {i, j, k};
                    int32_t v[4];
                    for (int s = 0; s < 4; s++) {
                        if (s > 0)
                            q[perm[p][s - 1]]++;
                        v[s] = (int32_t)((q[2] * (n[1] + 1) + q[1]) * (n[0] + 1) + q[0]);
                    }
                    if (p == 1 || p == 2 || p == 5)   /* odd permutations are left-handed */
                        push_cell(m, v[0], v[2], v[1], v[3]);
                    else
                        push_cell(m, v[0], v[1], v[2], v[3]);
                }
    return 0;
}

/* Closed loop of `segments` springs on a circle (a 2D balloon). */
static int gen_ring_shell(seam_cfg *c, fem_mesh *m)
{
    double ctr[2] = {0, 0};
    seam_cfg_vec(c, "center", ctr, 2, 0);
    double R = seam_cfg_num(c, "radius", 1, 0, INFINITY, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN);
    long ns = seam_cfg_int(c, "segments", 32, 3, 10000000, SEAM_CFG_REQUIRED);
    if (seam_cfg_error_count(c))
        return -1;
    if (mesh_alloc(c, m, 2, (size_t)ns, (size_t)ns, 2) != 0)

        return -1;
    m->closed = 1;
    for (long i = 0; i < ns; i++) {
        double a = 2.0 * PI * (double)i / (double)ns;
        m->X[2 * i] = ctr[0] + R * cos(a);
        m->X[2 * i + 1] = ctr[1] + R * sin(a);
        push_cell(m, (int32_t)i, (int32_t)((i + 1) % ns), 0, 0);
    }
    m->n_nodes = (size_t)ns;
    return 0;
}

/* Open chain from start to end of the given length, laid on the circular
 * arc of that length that sags to the right of the direction start->end. */
static int gen_chain(seam_cfg *c, fem_mesh *m)
{
    double a[2] = {0, 0}, b[2] = {1, 0};
    seam_cfg_vec(c, "start", a, 2, SEAM_CFG_REQUIRED);
    seam_cfg_vec(c, "end", b, 2, SEAM_CFG_REQUIRED);
    double chord = hypot(b[0] - a[0], b[1] - a[1]);
    double L = seam_cfg_num(c, "length", chord, 0, INFINITY, SEAM_CFG_LO_OPEN);
    long ns = seam_cfg_int(c, "segments", 16, 1, 10000000, SEAM_CFG_REQUIRED);
    if (seam_cfg_error_count(c))
        return -1;
    if (chord <= 0.0 || L < chord * (1.0 - 1e-12)) {
        seam_cfg_error(c, "length", "must be at least the distance from start to end (%g m)", chord);
        return -1;
    }
    if (mesh_alloc(c, m, 2, (size_t)ns + 1, (size_t)ns, 2) != 0)

        return -1;
    double t[2] = {(b[0] - a[0]) / chord, (b[1] - a[1]) / chord}, nrm[2] = {t[1], -t[0]};
    /* Half angle phi of the arc: sin(phi)/phi = chord/L, by bisection. */
    double lo = 0.0, hi = PI, ratio = chord / L;
    for (int it = 0; it < 200 && L > chord; it++) {
        double mid = 0.5 * (lo + hi);
        if (sin(mid) / mid > ratio)
            lo = mid;
        else
            hi = mid;
    }
    double phi = 0.5 * (lo + hi), R = L > chord ? L / (2.0 * phi) : 0.0;
    for (long i = 0; i <= ns; i++) {
        double s = (double)i / (double)ns, u, w;
        if (R > 0.0) {
            double ang = -phi + 2.0 * phi * s;   /* from the arc's centre, above the chord */
            u = 0.5 * chord + R * sin(ang);
            w = R * cos(ang) - R * cos(phi);
        } else {
            u = s * chord;
            w = 0.0;
        }
        m->X[2 * i] = a[0] + u * t[0] + w * nrm[0];
        m->X[2 * i + 1] = a[1] + u * t[1] + w * nrm[1];
        if (i < ns)
            push_cell(m, (int32_t)i, (int32_t)i + 1, 0, 0);
    }
    m->n_nodes = (size_t)ns + 1;
    return 0;
}

/* Cloth sheet origin + s u + t v, (s, t) in [0,1]^2, cells nu x nv of two triangles. */
static int gen_cloth(seam_cfg *c, fem_mesh *m)
{
    double o[3] = {0, 0, 0}, u[3] = {1, 0, 0}, v[3] = {0, 1, 0};
    long n[2];
    seam_cfg_vec(c, "origin", o, 3, 0);
    seam_cfg_vec(c, "u", u, 3, SEAM_CFG_REQUIRED);
    seam_cfg_vec(c, "v", v, 3, SEAM_CFG_REQUIRED);
    if (!read_counts(c, "cells", 2, n))
        return -1;
    double w[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    if (!(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] > 0.0)) {
        seam_cfg_error(c, "v", "must not be parallel to u");
        return -1;
    }
    if (mesh_alloc(c, m, 3, (size_t)((n[0] + 1) * (n[1] + 1)), (size_t)(2 * n[0] * n[1]), 3) != 0)

        return -1;
    for (long j = 0; j <= n[1]; j++)
        for (long i = 0; i <= n[0]; i++) {
            double s = (double)i / (double)n[0], t = (double)j / (double)n[1];
            for (int k = 0; k < 3; k++)
                m->X[3 * m->n_nodes + (size_t)k] = o[k] + s * u[k] + t * v[k];
            m->n_nodes++;
        }
    triangulate_grid(m, n);
    return 0;
}

/* Midpoint of edge (a, b) on the sphere, shared between the two triangles. */
static int32_t sphere_midpoint(fem_mesh *m, int32_t *edge_mid, size_t stride, int32_t a, int32_t b,
                               const double *ctr, double R)
{
    int32_t lo = a < b ? a : b, hi = a < b ? b : a;
    int32_t *slot = &edge_mid[(size_t)lo * stride + 0];
    for (size_t k = 0; k < stride / 2; k++, slot += 2) {
        if (slot[0] == hi)
            return slot[1];
        if (slot[0] < 0) {
            double p[3], len = 0.0;
            for (int i = 0; i < 3; i++) {
                p[i] = 0.5 * (m->X[3 * a + i] + m->X[3 * b + i]) - ctr[i];
                len += p[i] * p[i];
            }
            len = sqrt(len);
            for (int i = 0; i < 3; i++)
                m->X[3 * m->n_nodes + (size_t)i] = ctr[i] + R * p[i] / len;
            slot[0] = hi;
            slot[1] = (int32_t)m->n_nodes++;
            return slot[1];
        }
    }
    return -1;
}

/* Icosahedron refined `subdivisions` times and projected on the sphere,
 * triangles counter-clockwise seen from outside (a 3D balloon). */
static int gen_spherical_shell(seam_cfg *c, fem_mesh *m)
{
    double ctr[3] = {0, 0, 0};
    seam_cfg_vec(c, "center", ctr, 3, 0);
    double R = seam_cfg_num(c, "radius", 1, 0, INFINITY, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN);
    long sub = seam_cfg_int(c, "subdivisions", 3, 0, 8, 0);
    if (seam_cfg_error_count(c))
        return -1;
    size_t faces = 20, nodes = 12;
    for (long s = 0; s < sub; s++) {
        nodes += faces * 3 / 2;
        faces *= 4;
    }
    if (mesh_alloc(c, m, 3, nodes, faces, 3) != 0)

        return -1;
    double p = (1.0 + sqrt(5.0)) / 2.0;
    double ico[12][3] = {{-1, p, 0}, {1, p, 0}, {-1, -p, 0}, {1, -p, 0}, {0, -1, p}, {0, 1, p},
                         {0, -1, -p}, {0, 1, -p}, {p, 0, -1}, {p, 0, 1}, {-p, 0, -1}, {-p, 0, 1}};
    static const int32_t tri[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9},
                                       {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2},
                                       {3, 2, 6}, {3, 6, 8}, {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10},
                                       {8, 6, 7}, {9, 8, 1}};
    for (int i = 0; i < 12; i++) {
        double l = sqrt(ico[i][0] * ico[i][0] + ico[i][1] * ico[i][1] + ico[i][2] * ico[i][2]);
        for (int k = 0; k < 3; k++)
            m->X[3 * i + k] = ctr[k] + R * ico[i][k] / l;
    }
    m->n_nodes = 12;
    for (int f = 0; f < 20; f++)
        push_cell(m, tri[f][0], tri[f][1], tri[f][2], 0);
    for (long s = 0; s < sub; s++) {
        size_t nf = m->n_cells, stride = 2 * 12;   /* at most 6 neighbours of higher index, kept generous */
        int32_t *edge_mid = seam_xmalloc(m->n_nodes * stride * sizeof *edge_mid);
        for (size_t i = 0; i < m->n_nodes * stride; i++)
            edge_mid[i] = -1;
        int32_t *old = seam_xmalloc(nf * 3 * sizeof *old);
        memcpy(old, m->cells, nf * 3 * sizeof *old);
        m->n_cells = 0;
        for (size_t f = 0; f < nf; f++) {
            int32_t a = old[3 * f], b = old[3 * f + 1], e = old[3 * f + 2];
            int32_t ab = sphere_midpoint(m, edge_mid, stride, a, b, ctr, R);
            int32_t be = sphere_midpoint(m, edge_mid, stride, b, e, ctr, R);
            int32_t ea = sphere_midpoint(m, edge_mid, stride, e, a, ctr, R);
            push_cell(m, a, ab, ea, 0);
            push_cell(m, b, be, ab, 0);
            push_cell(m, e, ea, be, 0);
            push_cell(m, ab, be, ea, 0);
        }
        free(old);
        free(edge_mid);
    }
    return 0;
}

/* The mesh of a body; a file's path (resolved against the scene's
 * directory) goes to file_buf, "" for a generated mesh. */
static int read_mesh(seam_cfg *body, int d, fem_kind kind, fem_mesh *m, const seam_host *host, char *file_buf,
                     size_t file_len)
{
    seam_cfg *c = seam_cfg_child(body, "mesh", SEAM_CFG_REQUIRED);
    if (!c)
        return -1;
    file_buf[0] = '\0';
    if (seam_cfg_has(c, "file")) {
        const char *file = seam_cfg_file(c, "file", NULL, file_buf, file_len, SEAM_CFG_REQUIRED);
        if (!file)
            return -1;
        size_t len = strlen(file);
        int obj = len > 4 && strcmp(file + len - 4, ".obj") == 0;
        if (kind == FEM_SHELL && (d == 2 || !obj)) {
            seam_cfg_error(c, "file", "shells are read from .obj files, in 3D only");
            return -1;
        }
        if (kind == FEM_VOLUME && obj) {
            seam_cfg_error(c, "file", "volumetric solids are read from Gmsh .msh files");
            return -1;
        }
        return obj ? fem_mesh_read_obj(file, m, host) : fem_mesh_read_msh(file, d, m, host);
    }
    static const char *const shell_gens[] = {"ring", "chain", NULL};
    static const char *const cloth_gens[] = {"cloth", "spherical_shell", NULL};
    static const char *const gens2[] = {"rectangle", "disc", "ring", NULL};
    static const char *const gens3[] = {"box", NULL};
    const char *const *names = kind == FEM_SHELL ? (d == 2 ? shell_gens : cloth_gens) : d == 2 ? gens2 : gens3;
    int g = seam_cfg_enum(c, "generate", names, -1, SEAM_CFG_REQUIRED);
    if (g < 0)
        return -1;
    const char *name = names[g];
    if (strcmp(name, "rectangle") == 0)
        return gen_rectangle(c, m);
    if (strcmp(name, "disc") == 0)
        return gen_disc(c, m);
    if (strcmp(name, "box") == 0)
        return gen_box(c, m);
    if (strcmp(name, "chain") == 0)
        return gen_chain(c, m);
    if (strcmp(name, "cloth") == 0)
        return gen_cloth(c, m);
    if (strcmp(name, "spherical_shell") == 0)
        return gen_spherical_shell(c, m);
    return kind == FEM_SHELL ? gen_ring_shell(c, m) : gen_ring_volume(c, m);
}

/* ---- bodies -------------------------------------------------------------- */

static int read_material(seam_cfg *body, int d, fem_body *b)
{
    seam_cfg *c = seam_cfg_child(body, "material", SEAM_CFG_REQUIRED);
    if (!c)
        return -1;
    static const char *const kinds[] = {"solid", "shell", NULL};
    b->kind = (fem_kind)seam_cfg_enum(c, "kind", kinds, FEM_VOLUME, 0);
    seam_cfg *damp = seam_cfg_child(c, "damping", 0);
    if (damp)
        b->alpha = seam_cfg_num(damp, "alpha", 0, 0, INFINITY, 0);
    if (b->kind == FEM_SHELL) {
        b->k_stretch = seam_cfg_num(c, "k_stretch", 0, 0, INFINITY, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN);
        b->b_stretch = seam_cfg_num(c, "b_stretch", 0, 0, INFINITY, 0);
        b->k_bend = seam_cfg_num(c, "k_bend", 0, 0, INFINITY, 0);
        b->b_bend = seam_cfg_num(c, "b_bend", 0, 0, INFINITY, 0);
        b->density = seam_cfg_density(c, "density", 1, d == 3 ? "kg/m^2" : "kg/m (per unit depth)", SEAM_CFG_REQUIRED);
        if (d == 3)
            b->nu = seam_cfg_num(c, "nu", 0.3, -1, 0.5, SEAM_CFG_LO_OPEN | SEAM_CFG_HI_OPEN);
        return 0;
    }
    static const char *const models[] = {"corotated", "neo_hookean", "stvk", NULL};
    b->mat.model = (fem_model)seam_cfg_enum(c, "model", models, FEM_COROTATED, 0);
    double E = seam_cfg_num(c, "E", 1, 0, INFINITY, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN);
    double nu = seam_cfg_num(c, "nu", 0.3, -1, 0.5, SEAM_CFG_LO_OPEN | SEAM_CFG_HI_OPEN);
    b->density = seam_cfg_density(c, "density", 1000, d == 3 ? "kg/m^3" : "kg/m^2 (per unit depth)", SEAM_CFG_REQUIRED);
    /* Corotated is linear in the singular values and needs no extension. */
    if (b->mat.model != FEM_COROTATED)
        b->mat.compression_limit = seam_cfg_num(c, "compression_limit", b->mat.model == FEM_STVK ? 0.6 : 0.3, 0, 1,
                                                SEAM_CFG_LO_OPEN | SEAM_CFG_HI_OPEN);
    if (damp)
        b->beta = seam_cfg_num(damp, "beta", 0, 0, INFINITY, 0);
    fem_lame(E, nu, &b->mat.mu, &b->mat.lambda);
    return 0;
}

/* Mark nodes of a body selected by {"box": {"min","max"}} or {"nodes": [..]}. */
static int select_nodes(seam_cfg *c, const fem *self, const fem_body *b, uint8_t *mark)
{
    int d = self->d, any = 0;
    seam_cfg *box = seam_cfg_child(c, "box", 0);
    if (box) {
        double lo[3], hi[3];
        int ok = seam_cfg_vec(box, "min", lo, (size_t)d, SEAM_CFG_REQUIRED);
        ok &= seam_cfg_vec(box, "max", hi, (size_t)d, SEAM_CFG_REQUIRED);
        if (!ok)
            return -1;
        for (size_t i = b->node0; i < b->node0 + b->n_nodes; i++) {
            int in = 1;
            for (int k = 0; k < d; k++)
                in &= self->X0[i * (size_t)d + (size_t)k] >= lo[k] && self->X0[i * (size_t)d + (size_t)k] <= hi[k];
            if (in) {
                mark[i] = 1;
                any = 1;
            }
        }
        if (!any) {
            seam_cfg_error(c, "box", "selects no node of body \"%s\"", b->name);
            return -1;
        }
    }
    size_t len = 0;
    double *ids = seam_cfg_numbers(c, "nodes", &len, 0);
    for (size_t k = 0; k < len; k++) {
        if (ids[k] < 0 || ids[k] != floor(ids[k]) || ids[k] >= (double)b->n_nodes) {
            seam_cfg_error(c, "nodes", "entry %zu (%g) is not a node of body \"%s\" (0..%zu)", k, ids[k],
                           b->name, b->n_nodes - 1);
            free(ids);
            return -1;
        }
        mark[b->node0 + (size_t)ids[k]] = 1;
        any = 1;
    }
    free(ids);
    if (!box && !len) {
        seam_cfg_error(c, NULL, "needs \"box\" or \"nodes\"");
        return -1;
    }
    return 0;
}

/* Signed measure (area or volume) of simplex e at positions X. */
static double simplex_measure(int d, const double *X, const int32_t *n, double *Dm)
{
    for (int a = 1; a <= d; a++)
        for (int i = 0; i < d; i++)
            Dm[i * d + a - 1] = X[n[a] * d + i] - X[n[0] * d + i];
    return seam_det(d, Dm) / (d == 2 ? 2.0 : 6.0);
}

static void *grow(void *p, size_t count, size_t size) { return seam_xrealloc(p, (count ? count : 1) * size); }

/* Append a mesh as body bi: nodes, elements or springs and hinges, masses. */
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

static int add_body(fem *self, size_t bi, fem_mesh *m, seam_cfg *c, const char *where)
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

/* ---- the interface ------------------------------------------------------- */

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
static void build_interface(fem *self)
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

/* Stiffness pattern: every node pair sharing an element, spring or hinge. */
static void build_pattern(fem *self)
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

/* ---- create / destroy ---------------------------------------------------- */

static int read_body(fem *self, seam_cfg *c, size_t bi)
{
    fem_body *b = &self->bodies[bi];
    const char *name = seam_cfg_str(c, "name", NULL, 0);
    snprintf(b->name, sizeof b->name, "%s", name ? name : "");
    if (!name)
        snprintf(b->name, sizeof b->name, "body%zu", bi);
    if (read_material(c, self->d, b) != 0 || seam_cfg_error_count(c))
        return -1;
    fem_mesh m;
    memset(&m, 0, sizeof m);
    char file[4096];
    if (read_mesh(c, self->d, b->kind, &m, self->host, file, sizeof file) != 0) {
        fem_mesh_free(&m);
        return -1;
    }
    char where[4200];
    snprintf(where, sizeof where, "%s", file[0] ? file : seam_cfg_path(c));
    int rc = add_body(self, bi, &m, file[0] ? NULL : c, where);
    fem_mesh_free(&m);
    if (rc != 0)
        return -1;
    return 0;
}

static int read_constraints(fem *self, seam_cfg *c, size_t bi)
{
    fem_body *b = &self->bodies[bi];
    int d = self->d;
    double v0[3] = {0, 0, 0};
    seam_cfg_vec(c, "velocity", v0, (size_t)d, 0);
    for (size_t i = b->node0; i < b->node0 + b->n_nodes; i++)
        memcpy(self->v + i * (size_t)d, v0, (size_t)d * sizeof *v0);
    seam_cfg *pin = seam_cfg_child(c, "pin", 0);
    uint8_t *mark = seam_xcalloc(self->n + 1, 1);
    if (pin && select_nodes(pin, self, b, mark) != 0) {
        free(mark);
        return -1;
    }
    for (size_t i = 0; i < self->n; i++)
        if (mark[i]) {
            self->fixed[i] = 1;
            for (int k = 0; k < d; k++)
                self->v[i * (size_t)d + (size_t)k] = self->v_fixed[i * (size_t)d + (size_t)k] = 0.0;
        }
    seam_cfg *pre = seam_cfg_child(c, "prescribed", 0);
    if (pre) {
        memset(mark, 0, self->n + 1);
        double vp[3] = {0, 0, 0};
        int ok = seam_cfg_vec(pre, "velocity", vp, (size_t)d, SEAM_CFG_REQUIRED);
        if (!ok || select_nodes(pre, self, b, mark) != 0) {
            free(mark);
            return -1;
        }
        for (size_t i = 0; i < self->n; i++)
            if (mark[i]) {
                self->fixed[i] = 2;
                memcpy(self->v_fixed + i * (size_t)d, vp, (size_t)d * sizeof *vp);
                memcpy(self->v + i * (size_t)d, vp, (size_t)d * sizeof *vp);
            }
    }
    free(mark);
    return 0;
}

fem *fem_new(const char *config_json, const seam_host *host)
{
    seam_cfg *cfg = seam_cfg_from_host(config_json, host);
    if (!cfg)
        return NULL;
    fem *self = seam_xcalloc(1, sizeof *self);
    self->host = host;
    self->d = (int)seam_cfg_int(cfg, "dim", 2, 2, 3, SEAM_CFG_REQUIRED);
    int d = self->d;
    /* The scene's gravity; without one, none. Its own key wins, loudly. */
    seam_cfg_gravity(cfg, host, d, NULL, self->gravity);
    static const char *const integrators[] = {"backward_euler", "explicit", NULL};
    self->integrator = (fem_integrator)seam_cfg_enum(cfg, "integrator", integrators, FEM_BACKWARD_EULER, 0);
    self->vtk.format = (seam_vtk_format)seam_cfg_enum(cfg, "vtk", seam_vtk_format_names, SEAM_VTK_XML, 0);
    self->newton_tol = 1e-6;
    self->newton_max = 50;
    self->line_search = 1;
    seam_cfg *nc = seam_cfg_child(cfg, "newton", 0);
    if (nc) {
        self->newton_tol = seam_cfg_num(nc, "tolerance", 1e-6, 0, 1, SEAM_CFG_LO_OPEN);
        self->newton_max = (int)seam_cfg_int(nc, "max_iterations", 50, 1, 63, 0);
        self->line_search = seam_cfg_bool(nc, "line_search", true, 0);
    }
    self->lin_tol = 1e-8;
    self->lin_max = 2000;
    self->precond = FEM_JACOBI;
    self->lin_method = FEM_LIN_AUTO;
    seam_cfg *lc = seam_cfg_child(cfg, "linear_solver", 0);
    if (lc) {
        static const char *const pre[] = {"jacobi", "ic0", NULL}, *const methods[] = {"cholmod", "cg", "auto", NULL};
        self->lin_method = (fem_lin_method)seam_cfg_enum(lc, "method", methods, FEM_LIN_AUTO, 0);
        self->lin_tol = seam_cfg_num(lc, "tolerance", 1e-8, 0, 1, SEAM_CFG_LO_OPEN);
        self->lin_max = (int)seam_cfg_int(lc, "max_iterations", 2000, 1, 100000000, 0);
        self->precond = (fem_precond)seam_cfg_enum(lc, "preconditioner", pre, FEM_JACOBI, 0);
    }
    self->lin_active = self->lin_method;
    self->cfl = seam_cfg_num(cfg, "cfl", 0.5, 0, 1, SEAM_CFG_LO_OPEN);
    self->dt_limit = seam_cfg_num(cfg, "max_dt", INFINITY, 0, INFINITY, SEAM_CFG_LO_OPEN);
    seam_cfg *walls = seam_cfg_child(cfg, "walls", 0);
    if (walls)
        fem_walls_read(self, walls);
    size_t nb = seam_cfg_count(cfg, "bodies", SEAM_CFG_REQUIRED);
    if (nb == 0 && !seam_cfg_error_count(cfg))
        seam_cfg_error(cfg, "bodies", "needs at least one body");
    self->n_bodies = nb;
    self->bodies = seam_xcalloc(nb + 1, sizeof *self->bodies);
    int failed = seam_cfg_error_count(cfg) > 0;
    seam_cfg **items = seam_xcalloc(nb + 1, sizeof *items);
    for (size_t bi = 0; bi < nb; bi++)
        items[bi] = seam_cfg_item(cfg, "bodies", bi);
    for (size_t bi = 0; bi < nb && !failed; bi++)
        failed = read_body(self, items[bi], bi) != 0;
    if (failed) {
        /* Reading stopped at the first bad body: its later keys and the bodies
         * after it were not read, which is no reason to call them unknown. */
        static const char *const body_keys[] = {"name", "material", "mesh", "velocity", "pin", "prescribed", NULL};
        for (size_t bi = 0; bi < nb; bi++)
            for (const char *const *k = body_keys; *k; k++)
                seam_cfg_skip(items[bi], *k);
    }
    if (!failed) {
        size_t nd = self->n * (size_t)d;
        self->x = seam_xmalloc((nd + 1) * sizeof(double));
        self->v = seam_xcalloc(nd + 1, sizeof(double));
        self->x_new = seam_xmalloc((nd + 1) * sizeof(double));
        self->v_new = seam_xcalloc(nd + 1, sizeof(double));
        self->v_fixed = seam_xcalloc(nd + 1, sizeof(double));
        self->f_ext = seam_xcalloc(nd + 1, sizeof(double));
        self->fixed = seam_xcalloc(self->n + 1, 1);
        memcpy(self->x, self->X0, nd * sizeof(double));
        memcpy(self->x_new, self->X0, nd * sizeof(double));
        for (size_t bi = 0; bi < nb && !failed; bi++)
            failed = read_constraints(self, items[bi], bi) != 0;
        memcpy(self->v_new, self->v, nd * sizeof(double));
        if (!failed && self->walls.on) {
            failed = fem_walls_check(self, walls) != 0;
            self->contact = seam_xcalloc(nd + 1, 1);
        }
    }
    free(items);
    if (seam_cfg_finish(cfg) != SEAM_OK)
        failed = 1;
    seam_cfg_destroy(&cfg);
    if (failed) {
        fem_destroy(&self);
        return NULL;
    }
    for (size_t i = 0; i < self->n; i++)
        if (!(self->mass[i] > 0.0)) {
            seam_logf(host, SEAM_LOG_ERROR, "node %zu belongs to no element (zero mass)", i);
            fem_destroy(&self);
            return NULL;
        }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < self->n; i++)
        for (int k = 0; k < d; k++) {
            lo[k] = fmin(lo[k], self->X0[i * (size_t)d + (size_t)k]);
            hi[k] = fmax(hi[k], self->X0[i * (size_t)d + (size_t)k]);
        }
    for (int k = 0; k < d; k++)
        self->length += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    self->length = sqrt(self->length);
    build_interface(self);
    build_pattern(self);
    seam_logf(host, SEAM_LOG_INFO,
              "%zu bodies, %zu nodes, %zu elements, %zu springs, %zu cloth triangles, %zu interface points",
              self->n_bodies, self->n, self->n_elems, self->n_springs, self->n_tris, self->n_iface);
    return self;
}

void fem_destroy(fem **self_p)
{
    if (!self_p || !*self_p)
        return;
    fem *s = *self_p;
    seam_vtk_series_free(&s->vtk);
    free(s->bodies);
    free(s->X0);
    free(s->x);
    free(s->v);
    free(s->x_new);
    free(s->v_new);
    free(s->mass);
    free(s->fixed);
    free(s->v_fixed);
    free(s->elems);
    free(s->springs);
    free(s->hinges);
    free(s->tris);
    free(s->hinges3);
    free(s->iface_node);
    free(s->iface_body);
    free(s->iface_X);
    free(s->iface_mass);
    free(s->iface_elems);
    free(s->iface_two_sided);
    free(s->f_ext);
    free(s->contact);
    free(s->save_buf);
    seam_csr_destroy(&s->K);
    seam_csr_destroy(&s->D);
    seam_cholesky_destroy(&s->direct);
    free(s);
    *self_p = NULL;
}
