/* fluid_sph: the enclosed regions for the boundary pressure projection
 * (Akbay eq. 4.9): fluid components cut off from the free surface by the
 * interface, with their rows C and fluxes q. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/log.h"
#include "seam/mapping.h"
#include "seam/neighbours.h"
#include "fluid_sph.h"

/* A fluid particle is at a free surface when a point SURFACE_PROBE s away
 * from it in one of the lattice directions lies in the domain and farther
 * than SURFACE_EMPTY s from every particle and every surface sample: empty
 * space beside it. Inside the fluid and along walls and bodies (samples s/2
 * apart, fluid kept at least s/2 from them) no such point exists; above a
 * top row the nearest particles are sqrt(1 + 1.2^2) = 1.56 s away. */
#define SURFACE_PROBE 1.2
#define SURFACE_EMPTY 0.9
/* Fluid particles this close (in spacings) belong to the same region ... */
#define REGION_LINK 1.5
/* ... unless a surface sample lies within this distance (in spacings) of the
 * segment between them: samples are s/2 apart along segments and s/2 apart
 * in triangles, so a segment through a shell passes within 0.35 s of one,
 * while fluid rests 0.6 s from a surface. */
#define REGION_CUT 0.4

static size_t uf_find(size_t *parent, size_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

typedef struct cut_ctx {
    const double *xs, *a, *b;
    size_t d;
    double r2;
    int cut;
} cut_ctx;

/* Whether sample k lies within the cut distance of segment a-b. */
static void cut_one(void *p, size_t k, double d2)
{
    (void)d2;
    cut_ctx *c = p;
    if (c->cut)
        return;
    const double *x = c->xs + c->d * k;
    double ab2 = 0.0, t = 0.0, dist2 = 0.0;
    for (size_t q = 0; q < c->d; q++) {
        ab2 += (c->b[q] - c->a[q]) * (c->b[q] - c->a[q]);
        t += (x[q] - c->a[q]) * (c->b[q] - c->a[q]);
    }
    t = ab2 > 0.0 ? fmin(1.0, fmax(0.0, t / ab2)) : 0.0;
    for (size_t q = 0; q < c->d; q++) {
        double e = x[q] - c->a[q] - t * (c->b[q] - c->a[q]);
        dist2 += e * e;
    }
    c->cut = dist2 <= c->r2;
}

/* The probe point of committed particle i along lattice direction k (0 to
 * 7 in 2D, 0 to 25 in 3D); returns whether it lies inside the domain. */
static int probe_point(const fluid_sph *self, size_t i, int k, double *x)
{
    size_t d = (size_t)self->cfg.dim;
    int m = k + (k >= (d == 3 ? 13 : 4)), a, b, c;   /* skip the centre of the 3 x 3 (x 3) block */
    if (d == 3) {
        a = m / 9 - 1;
        b = m / 3 % 3 - 1;
        c = m % 3 - 1;
    } else {
        a = m / 3 - 1;
        b = m % 3 - 1;
        c = 0;
    }
    double dir[3] = {a, b, c}, len = sqrt((double)(a * a + b * b + c * c));
    int inside = 1;
    for (size_t q = 0; q < d; q++) {
        x[q] = self->x_n[d * i + q] + SURFACE_PROBE * self->cfg.s * dir[q] / len;
        inside &= x[q] > self->cfg.lo[q] && x[q] < self->cfg.hi[q];
    }
    return inside;
}

#define PROBE_KNOWN (1u << 31)

/* Whether committed particle i is at a free surface: a probe point inside
 * the domain and away from every particle (grid P) and every sample (grid
 * B). The particles' part depends on the committed state alone: with memo
 * (step_cache) it is found once per step, as a bit per direction. */
static int at_free_surface(const fluid_sph *self, size_t i, const seam_neighbours *P, const seam_neighbours *B,
                           uint32_t *memo)
{
    int dirs = self->cfg.dim == 3 ? 26 : 8;
    double r = SURFACE_EMPTY * self->cfg.s, x[3] = {0.0, 0.0, 0.0};
    if (memo && !(*memo & PROBE_KNOWN)) {
        *memo = PROBE_KNOWN;
        for (int k = 0; k < dirs; k++)
            if (probe_point(self, i, k, x) && seam_neighbours_find(P, x, r, NULL, NULL, 0) == 0)
                *memo |= 1u << k;
    }
    for (int k = 0; k < dirs; k++) {
        int inside = probe_point(self, i, k, x);
        int no_fluid = memo ? (int)(*memo >> k & 1u) : inside && seam_neighbours_find(P, x, r, NULL, NULL, 0) == 0;
        if (no_fluid && seam_neighbours_find(B, x, r, NULL, NULL, 0) == 0)
            return 1;
    }
    return 0;
}

typedef struct side_ctx {
    const double *x, *c, *nrm;
    size_t d;
    double side, best;
    long found;
} side_ctx;

/* The particle nearest to the probe c on the given side of the normal. */
static void side_one(void *p, size_t i, double d2)
{
    side_ctx *k = p;
    double dot = 0.0;
    for (size_t q = 0; q < k->d; q++)
        dot += (k->x[k->d * i + q] - k->c[q]) * k->nrm[q];
    if (k->side * dot > 0.0 && d2 < k->best) {
        k->best = d2;
        k->found = (long)i;
    }
}

/* Adds to the rows C (one per enclosed part, slot[] of each particle's
 * root) each interface element's area vector, out of the region on each of
 * its fluid sides: the element is cut into pieces about s across (k per edge,
 * k^(dim-1) pieces), each piece goes to the region of the particle nearest to
 * its centre on that side within the kernel's reach, and its share is split
 * over the element's points with the centre's barycentric weights (equal
 * over a whole element). An element longer than the domain's diagonal
 * (a solid torn apart) is refused: its pieces would grow without bound with
 * the positions a peer sends, and the fluid is walled in that box. */
static seam_status element_rows(fluid_sph *self, const double *X, const seam_neighbours *P, size_t *parent,
                                const long *slot, double *C, size_t row)
{
    const seam_interface *I = &self->iface;
    size_t d = (size_t)self->cfg.dim;
    double diag = 0.0;
    for (size_t q = 0; q < d; q++)
        diag += (self->cfg.hi[q] - self->cfg.lo[q]) * (self->cfg.hi[q] - self->cfg.lo[q]);
    diag = sqrt(diag);
    for (size_t e = 0; e < I->n_elems; e++) {
        const int32_t *v = I->elems + d * e;
        const double *p0 = X + d * (size_t)v[0], *p1 = X + d * (size_t)v[1], *p2 = d == 3 ? X + 3 * (size_t)v[2] : NULL;
        double area[3] = {0.0, 0.0, 0.0}, len = 0.0;   /* area times outward normal */
        if (d == 2) {
            area[0] = p1[1] - p0[1];
            area[1] = -(p1[0] - p0[0]);
            len = hypot(area[0], area[1]);
        } else {
            double u[3], w[3], l2 = 0.0;
            for (int q = 0; q < 3; q++) {
                u[q] = p1[q] - p0[q];
                w[q] = p2[q] - p0[q];
            }
            area[0] = 0.5 * (u[1] * w[2] - u[2] * w[1]);
            area[1] = 0.5 * (u[2] * w[0] - u[0] * w[2]);
            area[2] = 0.5 * (u[0] * w[1] - u[1] * w[0]);
            for (int q = 0; q < 3; q++)
                l2 = fmax(l2, fmax(u[q] * u[q] + w[q] * w[q], (u[q] - w[q]) * (u[q] - w[q])));
            len = sqrt(l2);
        }
        double mag = sqrt(area[0] * area[0] + area[1] * area[1] + area[2] * area[2]);
        if (!(mag > 0.0))
            continue;
        if (!(len <= diag)) {
            seam_logf(self->host, SEAM_LOG_WARN, "regions: interface element %zu is %g m across, more than the "
                      "fluid domain's diagonal (%g m)", e, len, diag);
            return SEAM_UNSTABLE;
        }
        double nrm[3] = {area[0] / mag, area[1] / mag, area[2] / mag};
        long k = lround(fmax(1.0, ceil(len / self->cfg.s)));
        long pieces = d == 2 ? k : 2 * k * k;   /* 3D: up and down triangles, both counted below */
        for (long i = 0; i < k; i++)
            for (long j = 0; j < (d == 2 ? 1 : k); j++)
                for (int down = 0; down < (d == 2 ? 1 : 2); down++) {
                    double bu, bv, share;
                    if (d == 2) {
                        bu = (i + 0.5) / (double)k;
                        bv = 0.0;
                        share = 1.0 / (double)pieces;
                    } else {
                        if (i + j + down > k - 1)
                            continue;
                        bu = (i + (down ? 2.0 : 1.0) / 3.0) / (double)k;
                        bv = (j + (down ? 2.0 : 1.0) / 3.0) / (double)k;
                        share = 1.0 / (double)(k * k);
                    }
                    double wgt[3] = {1.0 - bu - bv, bu, bv}, c[3] = {0.0, 0.0, 0.0};
                    for (size_t q = 0; q < d; q++)
                        c[q] = wgt[0] * p0[q] + wgt[1] * p1[q] + (p2 ? wgt[2] * p2[q] : 0.0);
                    int two = I->two_sided && I->two_sided[e];
                    for (int side = 1; side >= (two ? -1 : 1); side -= 2) {
                        side_ctx sc = {self->x_n, c, nrm, d, (double)side, INFINITY, -1};
                        seam_neighbours_visit(P, c, self->f.K.h, side_one, &sc);
                        long r = sc.found < 0 ? -1 : slot[uf_find(parent, (size_t)sc.found)];
                        if (r < 0)
                            continue;
                        /* out of the region: -n on the + side (the fluid the normal points into), +n on the - side */
                        for (size_t m = 0; m < d; m++)
                            for (size_t q = 0; q < d; q++)
                                C[(size_t)r * row + d * (size_t)v[m] + q] -= side * share * wgt[m] * area[q];
                    }
                }
    }
    return SEAM_OK;
}

/* Regions for interface positions X: the committed particles, grouped into
 * connected parts (links between particles closer than REGION_LINK s that no
 * surface crosses); a part none of whose particles is at a free surface is
 * enclosed (the domain's walls are fixed). Its row (Akbay eq. 4.9): the area
 * vectors of the interface elements it touches, out of it (element_rows),
 * so that c_r . V is the rate at which the walls' motion changes its
 * volume; no sources, so q = 0. */
seam_status fluid_sph_regions(void *p, const seam_step *step, const double *X, seam_regions *out)
{
    (void)step;
    fluid_sph *self = p;
    if (!self->bound) {
        seam_logf(self->host, SEAM_LOG_ERROR, "regions before bind");
        return SEAM_ERROR;
    }
    size_t d = (size_t)self->cfg.dim, n = self->n, np = self->iface.n_points, row = d * np;
    *out = (seam_regions){0, row, NULL, NULL, NULL};
    if (!np || !self->ns || !n || !self->iface.n_elems)
        return SEAM_OK;   /* no solid surface: nothing the projection could move */
    if (!fluid_sph_finite(X, d * np)) {
        seam_logf(self->host, SEAM_LOG_WARN, "regions: the interface has non-finite positions");
        return SEAM_UNSTABLE;
    }
    /* The links between particles: the fluid rows of a geometry at the committed
     * positions. With step_cache those of the start geometry (the same lists),
     * the grid over the particles and their probe points are kept for the step. */
    const sph_pairs *links;
    seam_neighbours *P;
    if (self->cfg.step_cache) {
        seam_status st = self->start_valid ? SEAM_OK : fluid_sph_geometry_at(self, self->start, self->x_n, self->Xi_n, NULL);
        if (st != SEAM_OK)
            return st;
        self->start_valid = 1;
        if (fluid_sph_boundary_at(self, X, NULL) != 0) {   /* allocation aborts: only a refused grid fails */
            seam_logf(self->host, SEAM_LOG_WARN, "regions: the interface's positions span more than a neighbour "
                      "grid can hold");
            return SEAM_UNSTABLE;
        }
        links = &self->geo[self->start].ff;
        if (!self->grid_n)
            self->grid_n = seam_neighbours_new(self->cfg.dim, n, self->x_n, self->f.K.h);
        if (!self->probe)
            self->probe = SEAM_NEW_N(uint32_t, n);
        P = self->grid_n;
    } else {
        sph_geometry *G = &self->geo_regions;
        if (fluid_sph_boundary_at(self, X, NULL) != 0 ||
            sph_geometry_build(G, &self->f, n, self->x_n, self->nw + self->ns, self->xb, self->psi) != 0) {
            seam_logf(self->host, SEAM_LOG_WARN, "regions: the interface's positions span more than a neighbour "
                      "grid can hold");   /* allocation aborts: only a refused grid fails */
            return SEAM_UNSTABLE;
        }
        links = &G->ff;
        P = seam_neighbours_new(self->cfg.dim, n, self->x_n, self->f.K.h);
    }
    const double *xs = self->xb + d * self->nw;
    size_t *parent = seam_xmalloc_n(n, sizeof *parent);
    int *open = SEAM_NEW_N(int, n);
    long *slot = seam_xmalloc_n(n, sizeof *slot);
    seam_neighbours *B = seam_neighbours_new(self->cfg.dim, self->ns, xs, REGION_LINK * self->cfg.s);
    seam_status st = SEAM_OK;
    if (!B || !P) {   /* finite positions spanning more than a double holds */
        seam_logf(self->host, SEAM_LOG_WARN, "regions: the %s positions span more than a neighbour grid can hold",
                  P ? "interface's" : "fluid's");
        st = SEAM_UNSTABLE;
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        parent[i] = i;
    double link2 = REGION_LINK * REGION_LINK * self->cfg.s * self->cfg.s;
    for (size_t i = 0; i < n; i++)
        for (size_t q = links->start[i]; q < links->start[i + 1]; q++) {
            size_t j = links->j[q];
            if (j <= i)
                continue;
            const double *a = self->x_n + d * i, *b = self->x_n + d * j;
            double r2 = 0.0, mid[3] = {0.0, 0.0, 0.0};
            for (size_t c = 0; c < d; c++) {
                r2 += (a[c] - b[c]) * (a[c] - b[c]);
                mid[c] = 0.5 * (a[c] + b[c]);
            }
            if (r2 > link2 || uf_find(parent, i) == uf_find(parent, j))
                continue;
            cut_ctx cc = {xs, a, b, d, REGION_CUT * REGION_CUT * self->cfg.s * self->cfg.s, 0};
            seam_neighbours_visit(B, mid, 0.5 * sqrt(r2) + REGION_CUT * self->cfg.s, cut_one, &cc);
            if (!cc.cut)
                parent[uf_find(parent, i)] = uf_find(parent, j);
        }
    for (size_t i = 0; i < n; i++)
        if (!open[uf_find(parent, i)] && at_free_surface(self, i, P, B, self->cfg.step_cache ? self->probe + i : NULL))
            open[uf_find(parent, i)] = 1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        slot[i] = parent[i] == i && !open[i] ? (long)m++ : -1;
    free(self->region_C);
    free(self->region_q);
    self->region_C = SEAM_NEW_N(double, m * row + 1);
    self->region_q = SEAM_NEW_N(double, m + 1);
    if (m)
        st = element_rows(self, X, P, parent, slot, self->region_C, row);
    if (st == SEAM_OK)
        *out = (seam_regions){m, row, self->region_C, self->region_q, NULL};
done:
    free(parent);
    free(open);
    free(slot);
    seam_neighbours_destroy(&B);
    if (!self->cfg.step_cache)
        seam_neighbours_destroy(&P);
    return st;
}
