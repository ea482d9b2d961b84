/* solid_fem's mesh generators: rectangles, discs, rings, boxes, chains,
 * cloth sheets and spherical shells from a body's "mesh" keys. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/config.h"
#include "fem.h"
#include "ranges.h"

#define PI 3.14159265358979323846

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
    seam_cfg_key_vec(c, FEM_MESH_KEYS, "min", lo, 2, 0);
    seam_cfg_key_vec(c, FEM_MESH_KEYS, "max", hi, 2, SEAM_CFG_REQUIRED);
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

/* A ring's segments: the declared count, and at least 3 (fewer close no loop). */
static long ring_segments(seam_cfg *c)
{
    long ns = seam_cfg_key_int(c, FEM_MESH_KEYS, "segments", 32, SEAM_CFG_REQUIRED);
    if (seam_cfg_has(c, "segments") && ns < 3)
        seam_cfg_error(c, "segments", "a ring needs at least 3 segments, got %ld", ns);
    return ns;
}

/* Disc of `rings` rings, ring k holding 6k nodes: near-equilateral triangles. */
static int gen_disc(seam_cfg *c, fem_mesh *m)
{
    double ctr[2] = {0, 0};
    seam_cfg_key_vec(c, FEM_MESH_KEYS, "center", ctr, 2, 0);
    double R = seam_cfg_key(c, FEM_MESH_KEYS, "radius", 1, SEAM_CFG_REQUIRED);
    long rings = seam_cfg_key_int(c, FEM_MESH_KEYS, "rings", 4, SEAM_CFG_REQUIRED);
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
    seam_cfg_key_vec(c, FEM_MESH_KEYS, "center", ctr, 2, 0);
    bool arc = seam_cfg_has(c, "angles");
    if (arc && seam_cfg_key_vec(c, FEM_MESH_KEYS, "angles", ang, 2, 0) && !(ang[1] > ang[0] && ang[1] - ang[0] < 360)) {
        seam_cfg_error(c, "angles", "[from, to] in degrees with from < to < from + 360 (the whole ring: leave it out)");
        return -1;
    }
    double r0 = seam_cfg_key(c, FEM_MESH_KEYS, "inner_radius", 1, SEAM_CFG_REQUIRED);
    double r1 = seam_cfg_key(c, FEM_MESH_KEYS, "outer_radius", 2, SEAM_CFG_REQUIRED);
    long ns = ring_segments(c);
    long nl = seam_cfg_key_int(c, FEM_MESH_KEYS, "layers", 1, 0);
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
    seam_cfg_key_vec(c, FEM_MESH_KEYS, "min", lo, 3, 0);
    seam_cfg_key_vec(c, FEM_MESH_KEYS, "max", hi, 3, SEAM_CFG_REQUIRED);
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
    seam_cfg_key_vec(c, FEM_MESH_KEYS, "center", ctr, 2, 0);
    double R = seam_cfg_key(c, FEM_MESH_KEYS, "radius", 1, SEAM_CFG_REQUIRED);
    long ns = ring_segments(c);
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
    seam_cfg_key_vec(c, FEM_MESH_KEYS, "start", a, 2, SEAM_CFG_REQUIRED);
    seam_cfg_key_vec(c, FEM_MESH_KEYS, "end", b, 2, SEAM_CFG_REQUIRED);
    double chord = hypot(b[0] - a[0], b[1] - a[1]);
    double L = seam_cfg_key(c, FEM_MESH_KEYS, "length", chord, 0);
    long ns = seam_cfg_key_int(c, FEM_MESH_KEYS, "segments", 16, SEAM_CFG_REQUIRED);
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
    seam_cfg_key_vec(c, FEM_MESH_KEYS, "origin", o, 3, 0);
    seam_cfg_key_vec(c, FEM_MESH_KEYS, "u", u, 3, SEAM_CFG_REQUIRED);
    seam_cfg_key_vec(c, FEM_MESH_KEYS, "v", v, 3, SEAM_CFG_REQUIRED);
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
    seam_cfg_key_vec(c, FEM_MESH_KEYS, "center", ctr, 3, 0);
    double R = seam_cfg_key(c, FEM_MESH_KEYS, "radius", 1, SEAM_CFG_REQUIRED);
    long sub = seam_cfg_key_int(c, FEM_MESH_KEYS, "subdivisions", 3, 0);
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

int fem_mesh_generate(seam_cfg *c, int d, fem_kind kind, fem_mesh *m)
{
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
