/* fluid_mac's sources on the grid: which faces a side inflow covers, which
 * cells a volume source fills, and their strength over the ramp. */
#include <math.h>
#include <string.h>

#include "sources.h"

int inflow_side_tangents(const mac_grid *g, int side, int t[2])
{
    int n = 0;
    for (int a = 0; a < g->dim; a++)
        if (a != side / 2)
            t[n++] = a;
    return n;
}

/* Squared radius of relative position rel in the disc inscribed in the range (1 on its rim). */
static double disc_r2(const double *rel)
{
    double a = 2.0 * rel[0] - 1.0, b = 2.0 * rel[1] - 1.0;
    return a * a + b * b;
}

/* Whether the side face m (index along each tangential axis) has its centre
 * in the source's range (and, for a disc, in its disc); rel gets its relative
 * position in [0, 1] per axis. */
static int source_has_face(const mac_grid *g, const inflow *src, const int *m, double *rel)
{
    int t[2];
    int nt = inflow_side_tangents(g, src->side, t);
    for (int q = 0; q < nt; q++) {
        double from = src->range[2 * q], to = src->range[2 * q + 1];
        double pos = g->origin[t[q]] + (m[q] + 0.5) * g->dx;
        if (pos < from || pos > to)
            return 0;
        rel[q] = (pos - from) / (to - from);
    }
    return !src->disc || disc_r2(rel) <= 1.0;
}

int inflow_faces(const mac_grid *g, const inflow *src)
{
    int t[2];
    int nt = inflow_side_tangents(g, src->side, t), count = 0;
    int n1 = nt > 1 ? mac_n(g, t[1]) : 1;
    double rel[2];
    for (int m1 = 0; m1 < n1; m1++)
        for (int m0 = 0; m0 < mac_n(g, t[0]); m0++)
            count += source_has_face(g, src, (const int[2]){m0, m1}, rel);
    return count;
}

int inflow_has_cell(const mac_grid *g, const inflow *src, int i, int j, int k)
{
    const int ijk[3] = {i, j, k};
    double r2 = 0.0;
    for (int d = 0; d < g->dim; d++) {
        double c = g->origin[d] + (ijk[d] + 0.5) * g->dx;
        if (src->circle)
            r2 += (c - src->center[d]) * (c - src->center[d]);
        else if (c < src->box[d] || c > src->box[g->dim + d])
            return 0;
    }
    return !src->circle || r2 <= src->radius * src->radius;
}

int inflow_cells(const mac_grid *g, const inflow *src)
{
    int cells = 0;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++)
                cells += inflow_has_cell(g, src, i, j, k);
    return cells;
}

/* Start of a source over the ramp time: 3x^2 - 2x^3, or Akbay's sinusoid as
 * intended, 0.5 (1 - cos(pi x)) (spec 10.7: the printed sin(pi t + 1.5 pi) + 0.5
 * runs from -0.5 to 1.5). */
static double ramp(const inflow *src, double t)
{
    if (src->ramp_time <= 0.0 || t >= src->ramp_time)
        return 1.0;
    double x = t > 0.0 ? t / src->ramp_time : 0.0;
    if (src->ramp == RAMP_COSINE)
        return 0.5 * (1.0 - cos(M_PI * x));
    return x * x * (3.0 - 2.0 * x);
}

/* Profile over the side: parabolic, 4 s (1 - s) along the side, its product
 * over both axes of a 3D side, 1 - r^2 over a disc; else uniform. */
static double profile(const inflow *src, int nt, const double *rel)
{
    double shape = 1.0;
    if (src->parabolic && src->disc) {
        shape = 1.0 - disc_r2(rel);
    } else if (src->parabolic) {
        shape = 4.0 * rel[0] * (1.0 - rel[0]);
        if (nt > 1)
            shape *= 4.0 * rel[1] * (1.0 - rel[1]);
    }
    return shape;
}

/* Every covered face of one side source. */
static void source_faces_visit(const mac_grid *g, const inflow *src, double t, inflow_visit visit, void *ctx)
{
    int axis = src->side / 2, high = src->side % 2, tan[2];
    int nt = inflow_side_tangents(g, src->side, tan);
    int n1 = nt > 1 ? mac_n(g, tan[1]) : 1;
    for (int m1 = 0; m1 < n1; m1++)
        for (int m0 = 0; m0 < mac_n(g, tan[0]); m0++) {
            const int m[2] = {m0, m1};
            double rel[2];
            if (!source_has_face(g, src, m, rel))
                continue;
            double u_in = src->speed * ramp(src, t) * profile(src, nt, rel);
            int ijk[3] = {0, 0, 0};
            for (int q = 0; q < nt; q++)
                ijk[tan[q]] = m[q];
            ijk[axis] = high ? mac_n(g, axis) - 1 : 0;
            size_t cell = mac_c(g, ijk[0], ijk[1], ijk[2]);
            ijk[axis] = high ? mac_n(g, axis) : 0;
            visit(ctx, src, axis, ijk, u_in, cell);
        }
}

void inflow_for_each_face(const mac_grid *g, const inflow *sources, size_t n, double t, inflow_visit visit,
                          void *ctx)
{
    for (size_t k = 0; k < n; k++)
        if (!sources[k].interior)
            source_faces_visit(g, &sources[k], t, visit, ctx);
}

int inflow_volume_rates(const mac_grid *g, const inflow *sources, size_t n,
                        int (*is_fluid)(const void *ctx, size_t c), const void *ctx, double t, double *s,
                        double *d_src, double *T_src)
{
    size_t nc = mac_ncell(g);
    int any = 0;
    memset(s, 0, nc * sizeof *s);
    memset(d_src, 0, nc * sizeof *d_src);
    memset(T_src, 0, nc * sizeof *T_src);
    for (size_t k = 0; k < n; k++) {
        const inflow *src = &sources[k];
        if (!src->interior)
            continue;
        int cells = 0;
        for (int kk = 0; kk < g->nz; kk++)
            for (int j = 0; j < g->ny; j++)
                for (int i = 0; i < g->nx; i++)
                    cells += inflow_has_cell(g, src, i, j, kk) && is_fluid(ctx, mac_c(g, i, j, kk));
        if (cells == 0)
            continue;   /* covered by a body: it pushes nothing in */
        /* the rate per cell volume (dx^2 per unit depth in 2D, dx^3 in 3D) */
        double rate = src->rate * ramp(src, t) / (cells * mac_cell_volume(g));
        for (int kk = 0; kk < g->nz; kk++)
            for (int j = 0; j < g->ny; j++)
                for (int i = 0; i < g->nx; i++) {
                    size_t c = mac_c(g, i, j, kk);
                    if (!inflow_has_cell(g, src, i, j, kk) || !is_fluid(ctx, c))
                        continue;
                    s[c] += rate;
                    d_src[c] += rate * src->density;
                    T_src[c] += rate * src->temperature;
                    any = 1;
                }
    }
    for (size_t c = 0; c < nc; c++)
        if (s[c] > 0.0) {
            d_src[c] /= s[c];
            T_src[c] /= s[c];
        }
    return any;
}
