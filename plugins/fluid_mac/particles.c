/* fluid_mac: marker particles of the liquid (level set, grid transfers, motion),
 * in 2D or 3D; positions and velocities are interleaved by g->dim. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mac.h"
#include "seam/alloc.h"
#include "seam/vec.h"

/* ---- particles binned by cell ----------------------------------------------- */

void mac_bins_sort(mac_bins *b, const mac_grid *g, size_t n, const double *x)
{
    size_t nc = mac_ncell(g), dim = (size_t)g->dim;
    if (!b->start || b->ncell != nc) {
        free(b->start);
        b->ncell = nc;
        b->start = seam_xmalloc_n(nc + 1, sizeof *b->start);
    }
    if (n > b->cap || !b->order) {
        b->order = seam_xrealloc_n(b->order, n + 1, sizeof *b->order);
        b->cell = seam_xrealloc_n(b->cell, n + 1, sizeof *b->cell);
        b->cap = n;
    }
    b->n = n;
#pragma omp parallel for schedule(static) if (n >= MAC_OMP_MIN)
    for (size_t p = 0; p < n; p++)
        b->cell[p] = (uint32_t)mac_cell_of(g, x + dim * p);
    /* counting sort: particles keep their storage order within a cell */
    memset(b->start, 0, (nc + 1) * sizeof *b->start);
    for (size_t p = 0; p < n; p++)
        b->start[b->cell[p] + 1]++;
    for (size_t c = 0; c < nc; c++)
        b->start[c + 1] += b->start[c];
    for (size_t p = 0; p < n; p++)
        b->order[b->start[b->cell[p]]++] = p;
    for (size_t c = nc; c > 0; c--)   /* each start was moved to the next cell's */
        b->start[c] = b->start[c - 1];
    b->start[0] = 0;
}

void mac_bins_free(mac_bins *b)
{
    free(b->start);
    free(b->order);
    free(b->cell);
    *b = (mac_bins){0};
}

/* Cell layers along the slowest axis (y in 2D, z in 3D) per slab. A particle
 * writes to cells at most 2 from its own, so slabs two apart never write to
 * the same cell: the even slabs run at once, then the odd ones. Every cell
 * gets its sums in the same order with any number of threads. */
enum { SLAB = 4 };

typedef void (*slab_visit)(void *ctx, size_t first_cell, size_t end_cell);

static void for_slabs(const mac_grid *g, size_t n, slab_visit visit, void *ctx)
{
    int slow = g->dim - 1, layers = mac_n(g, slow), n_slabs = (layers + SLAB - 1) / SLAB;
    size_t layer = mac_stride(g, slow);
    for (int parity = 0; parity < 2; parity++) {
#pragma omp parallel for schedule(dynamic, 1) if (n >= MAC_OMP_MIN)
        for (int s = parity; s < n_slabs; s += 2) {
            int end = (s + 1) * SLAB < layers ? (s + 1) * SLAB : layers;
            visit(ctx, (size_t)s * SLAB * layer, (size_t)end * layer);
        }
    }
}

/* ---- level set ---------------------------------------------------------------- */

typedef struct level_set_sums {
    const mac_grid *g;
    const double *x;
    const mac_bins *b;
    const uint8_t *solid;
    int per_axis;
    double R, inv_RR;
    double *sw, *sx[3];      /* kernel weight and weighted position sums per cell */
} level_set_sums;

/* The level-set scatter's loops run on the widest vector unit (VECTOR_CLONES, mac.h). */
enum { WIN = 6 };   /* cells of a row the kernel can reach: 5, in a window of 6 that the loop runs whole */

/* Add the kernel-weighted position of point xp to the sums of every cell
 * centre within R = 2 dx of it (the cells at most 2 from its own). Along x
 * a window of WIN cells inside the row, starting at an even cell index, is
 * summed whole with weight 0 beyond R: the inner loops have no branch, run on
 * vector lanes, and every particle's vector stores line up with the last
 * one's (a load overlapping half of a recent store would stall). */
VECTOR_CLONES static void scatter(const level_set_sums *L, const double *xp)
{
    const mac_grid *g = L->g;
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    double q[3][WIN + 1] = {{0.0}};   /* squared distance over R^2 per axis */
    for (int d = 0; d < g->dim; d++) {
        double f = floor((xp[d] - g->origin[d]) / g->dx);
        if (f < -3.0 || f > mac_n(g, d) + 2.0)
            return;
        int c = (int)f;
        lo[d] = c - 2 < 0 ? 0 : c - 2;
        hi[d] = c + 2 > mac_n(g, d) - 1 ? mac_n(g, d) - 1 : c + 2;
        if (lo[d] > hi[d])
            return;
    }
    int nx = g->nx, whole = lo[0] >= 1 && lo[0] + WIN - 1 <= nx - 1;
    int first = whole ? lo[0] - 1 : lo[0];   /* q[0] from one cell before lo: the window may start there */
    for (int d = 0; d < g->dim; d++)
        for (int m = d ? lo[d] : first; m <= (d ? hi[d] : first + WIN); m++) {
            double r = xp[d] - (g->origin[d] + (m + 0.5) * g->dx);
            q[d][m - (d ? lo[d] : first)] = r * r * L->inv_RR;
        }
    double *restrict sw = L->sw, *restrict s0 = L->sx[0], *restrict s1 = L->sx[1];
    double *restrict s2 = g->dim == 3 ? L->sx[2] : NULL;
    double x0 = xp[0], x1 = xp[1], x2 = g->dim == 3 ? xp[2] : 0.0;
    for (int k = lo[2]; k <= hi[2]; k++)
        for (int j = lo[1]; j <= hi[1]; j++) {
            double qyz = q[1][j - lo[1]] + q[2][k - lo[2]];
            if (qyz >= 1.0)
                continue;
            size_t c = mac_c(g, lo[0], j, k);
            if (!whole) {   /* next to the row's ends */
                for (int i = 0; i <= hi[0] - lo[0]; i++) {
                    double t = 1.0 - (q[0][i] + qyz);
                    if (t <= 0.0)
                        continue;
                    double w = t * t * t;   /* (1 - d^2/R^2)^3 */
                    sw[c + i] += w;
                    s0[c + i] += w * x0;
                    s1[c + i] += w * x1;
                    if (s2)
                        s2[c + i] += w * x2;
                }
                continue;
            }
            int odd = (int)(c & 1);   /* start the window at lo - 1 when lo's index is odd */
            const double *q0 = q[0] + 1 - odd;
            c -= (size_t)odd;
            double wr[WIN];
#pragma omp simd
            for (int i = 0; i < WIN; i++) {
                double t = 1.0 - (q0[i] + qyz);
                t = 0.5 * (t + fabs(t));   /* max(t, 0) without a branch: (1 - d^2/R^2)^3 within R, 0 beyond */
                wr[i] = t * t * t;
            }
#pragma omp simd
            for (int i = 0; i < WIN; i++) {
                sw[c + i] += wr[i];
                s0[c + i] += wr[i] * x0;
                s1[c + i] += wr[i] * x1;
            }
            if (s2) {
#pragma omp simd
                for (int i = 0; i < WIN; i++)
                    s2[c + i] += wr[i] * x2;
            }
        }
}

/* Point xp and its mirror images across the walls within R of it, so the
 * liquid meets a wall at a right angle instead of rounding off there. */
static void scatter_with_images(const level_set_sums *L, const double *xp)
{
    const mac_grid *g = L->g;
    double cand[3][3];
    int nc[3] = {1, 1, 1};
    for (int d = 0; d < 3; d++)
        cand[d][0] = d < g->dim ? xp[d] : 0.0;
    for (int d = 0; d < g->dim; d++) {
        double lo = g->origin[d], hi = lo + mac_n(g, d) * g->dx;
        if (g->bc[2 * d] == BC_WALL && xp[d] < lo + L->R)
            cand[d][nc[d]++] = 2.0 * lo - xp[d];
        if (g->bc[2 * d + 1] == BC_WALL && xp[d] > hi - L->R)
            cand[d][nc[d]++] = 2.0 * hi - xp[d];
    }
    for (int c = 0; c < nc[2]; c++)
        for (int b = 0; b < nc[1]; b++)
            for (int a = 0; a < nc[0]; a++)
                scatter(L, (const double[3]){cand[0][a], cand[1][b], cand[2][c]});
}

enum { GROUP = 16 };   /* particles of one cell scattered together */

/* scatter() for np (<= GROUP) points xs that all lie in the cell `cell` (an
 * image cell up to 2 outside the grid too): the points share the window, and
 * each row's sums are added over the points in registers and stored once
 * (only the cells of the row where the window passes its ends). Every point's
 * weights are scatter()'s; only the order of the additions into a cell's sums
 * differs (round-off). */
VECTOR_CLONES static void scatter_group(const level_set_sums *L, const int *cell, const double *const *xs, int np)
{
    const mac_grid *g = L->g;
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int d = 0; d < g->dim; d++) {
        lo[d] = cell[d] - 2 < 0 ? 0 : cell[d] - 2;
        hi[d] = cell[d] + 2 > mac_n(g, d) - 1 ? mac_n(g, d) - 1 : cell[d] + 2;
        if (lo[d] > hi[d])
            return;
    }
    int first = lo[0] - 1, nx = g->nx;
    double q[GROUP][3][WIN + 1];
    for (int p = 0; p < np; p++)
        for (int d = 0; d < 3; d++)
            for (int m = d ? lo[d] : first; m <= (d ? hi[d] : first + WIN); m++) {
                double r = d < g->dim ? xs[p][d] - (g->origin[d] + (m + 0.5) * g->dx) : 0.0;
                q[p][d][m - (d ? lo[d] : first)] = r * r * L->inv_RR;
            }
    double *restrict sw = L->sw, *restrict s0 = L->sx[0], *restrict s1 = L->sx[1];
    double *restrict s2 = g->dim == 3 ? L->sx[2] : NULL;
    for (int k = lo[2]; k <= hi[2]; k++)
        for (int j = lo[1]; j <= hi[1]; j++) {
            size_t c = mac_c(g, lo[0], j, k);
            int odd = (int)(c & 1), any = 0;
            double aw[WIN] = {0.0}, a0[WIN] = {0.0}, a1[WIN] = {0.0}, a2[WIN] = {0.0};
            for (int p = 0; p < np; p++) {
                double qyz = q[p][1][j - lo[1]] + q[p][2][k - lo[2]];
                if (qyz >= 1.0)
                    continue;
                any = 1;
                const double *q0 = q[p][0] + 1 - odd;
                double x0 = xs[p][0], x1 = xs[p][1], x2 = s2 ? xs[p][2] : 0.0;
#pragma omp simd
                for (int i = 0; i < WIN; i++) {
                    double t = 1.0 - (q0[i] + qyz);
                    t = 0.5 * (t + fabs(t));
                    double w = t * t * t;
                    aw[i] += w;
                    a0[i] += w * x0;
                    a1[i] += w * x1;
                    a2[i] += w * x2;
                }
            }
            if (!any)
                continue;
            int start = lo[0] - odd;   /* the window's first cell in the row */
            if (start < 0 || start + WIN > nx) {   /* next to the row's ends: the cells in it */
                for (int i = start < 0 ? -start : 0; i < WIN && start + i < nx; i++) {
                    size_t ci = c - (size_t)lo[0] + (size_t)(start + i);
                    sw[ci] += aw[i];
                    s0[ci] += a0[i];
                    s1[ci] += a1[i];
                    if (s2)
                        s2[ci] += a2[i];
                }
                continue;
            }
            c -= (size_t)odd;
#pragma omp simd
            for (int i = 0; i < WIN; i++) {
                sw[c + i] += aw[i];
                s0[c + i] += a0[i];
                s1[c + i] += a1[i];
            }
            if (s2) {
#pragma omp simd
                for (int i = 0; i < WIN; i++)
                    s2[c + i] += a2[i];
            }
        }
}

/* Whether point x lies in cell `cell` along each axis (floor of its grid coordinate). */
static int in_cell(const mac_grid *g, const double *x, const int *cell)
{
    int in = 1;
    for (int d = 0; d < g->dim; d++)
        in &= floor((x[d] - g->origin[d]) / g->dx) == (double)cell[d];
    return in;
}

/* The np points xs of cell `cell` and their mirror images across the walls
 * within R (img[d][0..1]: across the low and high wall of axis d, as
 * scatter_with_images finds them for every one of these points), a group per
 * image; an image off its image cell (a point on a cell face) goes alone. */
static void scatter_cell(const level_set_sums *L, const int *cell, const int img[3][2], const double *const *xs,
                         int np)
{
    const mac_grid *g = L->g;
    int side[3][3], nc[3] = {1, 1, 1};   /* per axis: 0 itself, 1 mirrored at the low wall, 2 at the high one */
    for (int d = 0; d < 3; d++) {
        side[d][0] = 0;
        for (int h = 0; h < 2; h++)
            if (d < g->dim && img[d][h])
                side[d][nc[d]++] = 1 + h;
    }
    double pts[GROUP][3];
    const double *ptr[GROUP];
    for (int c = 0; c < nc[2]; c++)
        for (int b = 0; b < nc[1]; b++)
            for (int a = 0; a < nc[0]; a++) {
                const int pick[3] = {side[0][a], side[1][b], side[2][c]};
                if (!pick[0] && !pick[1] && !pick[2]) {
                    scatter_group(L, cell, xs, np);
                    continue;
                }
                int mcell[3] = {cell[0], cell[1], cell[2]}, m = 0;
                for (int d = 0; d < g->dim; d++)
                    if (pick[d])
                        mcell[d] = pick[d] == 1 ? -1 - cell[d] : 2 * mac_n(g, d) - 1 - cell[d];
                for (int p = 0; p < np; p++) {
                    for (int d = 0; d < 3; d++) {
                        double lo = g->origin[d], hi = d < g->dim ? lo + mac_n(g, d) * g->dx : 0.0;
                        pts[m][d] = d >= g->dim ? 0.0 : !pick[d] ? xs[p][d] : pick[d] == 1 ? 2.0 * lo - xs[p][d]
                                                                                        : 2.0 * hi - xs[p][d];
                    }
                    if (in_cell(g, pts[m], mcell)) {
                        ptr[m] = pts[m];
                        m++;
                    } else {
                        scatter(L, pts[m]);
                    }
                }
                if (m)
                    scatter_group(L, mcell, ptr, m);
            }
}

static void level_set_slab(void *ctx, size_t first, size_t end)
{
    const level_set_sums *L = ctx;
    const mac_grid *g = L->g;
    size_t dim = (size_t)g->dim;
    for (size_t c = first; c < end; c++) {
        size_t o = L->b->start[c], o_end = L->b->start[c + 1];
        if (o == o_end)
            continue;
        const int cell[3] = {(int)(c % (size_t)g->nx), (int)(c / (size_t)g->nx % (size_t)g->ny),
                             (int)(c / ((size_t)g->nx * (size_t)g->ny))};
        int img[3][2] = {{0, 0}, {0, 0}, {0, 0}};   /* the images the cell's points have (all but those on a face) */
        int edge = 0;   /* a cell on the grid's boundary also holds the points beyond it (mac_cell_of clamps) */
        for (size_t d = 0; d < dim; d++) {
            img[d][0] = g->bc[2 * d] == BC_WALL && cell[d] < 2;
            img[d][1] = g->bc[2 * d + 1] == BC_WALL && cell[d] >= mac_n(g, (int)d) - 2;
            edge |= cell[d] == 0 || cell[d] == mac_n(g, (int)d) - 1;
        }
        const double *xs[GROUP];
        int np = 0;
        for (; o < o_end; o++) {
            const double *xp = L->x + dim * L->b->order[o];
            int alike = !edge || in_cell(g, xp, cell);   /* elsewhere the sort put xp here by the same floor */
            for (size_t d = 0; d < dim; d++) {
                double lo = g->origin[d], hi = lo + mac_n(g, (int)d) * g->dx;
                alike &= (g->bc[2 * d] == BC_WALL && xp[d] < lo + L->R) == img[d][0];
                alike &= (g->bc[2 * d + 1] == BC_WALL && xp[d] > hi - L->R) == img[d][1];
            }
            if (alike)
                xs[np++] = xp;
            else
                scatter_with_images(L, xp);
            if (np == GROUP || (np && o + 1 == o_end)) {
                scatter_cell(L, cell, (const int(*)[2])img, xs, np);
                np = 0;
            }
        }
    }
    /* Solid cells count as filled, so the liquid meets a body without a gap. */
    size_t fill = mac_subgrid_count(g, L->per_axis);
    for (size_t c = first; L->solid && c < end; c++)
        for (size_t q = 0; L->solid[c] && q < fill; q++) {
            const int ijk[3] = {(int)(c % (size_t)g->nx), (int)(c / (size_t)g->nx % (size_t)g->ny),
                                (int)(c / ((size_t)g->nx * (size_t)g->ny))};
            double xp[3];
            mac_subgrid_point(g, ijk, L->per_axis, q, xp);
            scatter(L, xp);
        }
}

void mac_level_set(const mac_grid *g, size_t n, const double *x, double r, const uint8_t *solid, int per_axis,
                   const mac_work *w, mac_bins *bins, double *phi)
{
    mac_bins_sort(bins, g, n, x);
    size_t nc = mac_ncell(g), dim = (size_t)g->dim;
    double R = 2.0 * g->dx;
    level_set_sums L = {g, x, bins, solid, per_axis, R, 1.0 / (R * R), w->cell, {NULL, NULL, NULL}};
    for (size_t d = 0; d < dim; d++)
        L.sx[d] = w->cell + (d + 1) * nc;
    double *sums = w->cell;
    size_t n_sums = (dim + 1) * nc;
#pragma omp parallel for schedule(static) if (nc >= MAC_OMP_MIN)
    for (size_t c = 0; c < n_sums; c++)
        sums[c] = 0.0;
    for_slabs(g, n + nc, level_set_slab, &L);
#pragma omp parallel for schedule(static) if (nc >= MAC_OMP_MIN)
    for (size_t c = 0; c < nc; c++) {
        double sw = L.sw[c];
        if (!(sw > 0.0)) {
            phi[c] = R;
            continue;
        }
        const int ijk[3] = {(int)(c % (size_t)g->nx), (int)(c / (size_t)g->nx % (size_t)g->ny),
                            (int)(c / ((size_t)g->nx * (size_t)g->ny))};
        double e2 = 0.0;
        for (size_t d = 0; d < dim; d++) {
            double e = g->origin[d] + (ijk[d] + 0.5) * g->dx - L.sx[d][c] / sw;
            e2 += e * e;
        }
        phi[c] = sqrt(e2) - r;
    }
}

/* ---- particles to grid and back --------------------------------------------- */

/* The velocity at x: all components at once, or (reference) each on its own
 * through the out-of-line sampler the loops called before issue 18. */
static void sample_velocity(const mac_grid *g, double *const vel[3], const double *x, double *u, int reference)
{
    if (!reference) {
        mac_sample_velocity(g, vel, x, u);
        return;
    }
    for (int a = 0; a < g->dim; a++)
        u[a] = mac_ref_sample(g, a, vel[a], x);
}

/* Multilinear (cloud-in-cell) weights of point x for an array of n[0] x n[1] x
 * n[2] samples offset by `shift` cells (0.5 across a face's normal and for
 * cell centres): the lower corner i0 and the weights w[d][0..1] per axis. */
static void cic_weights(const mac_grid *g, const int *n, const double *shift, const double *x, int fold, int *i0,
                        double w[3][2], int i1[3])
{
    for (int d = 0; d < 3; d++) {
        if (d >= g->dim) {
            i0[d] = i1[d] = 0;
            w[d][0] = 1.0;
            w[d][1] = 0.0;
            continue;
        }
        double f = (x[d] - g->origin[d]) / g->dx - shift[d];
        double fl = floor(f), s = f - fl;
        i0[d] = (int)fl;
        i1[d] = i0[d] + 1;
        w[d][0] = 1.0 - s;
        w[d][1] = s;
        if (fold) {   /* weight beyond the outer samples goes back onto them */
            i0[d] = i0[d] < 0 ? 0 : i0[d] >= n[d] ? n[d] - 1 : i0[d];
            i1[d] = i1[d] < 0 ? 0 : i1[d] >= n[d] ? n[d] - 1 : i1[d];
        }
    }
}

/* Add value times the weights into acc (and the weights into wsum, may be
 * NULL); samples outside the array are dropped. */
static void cic_add(const int *n, const int *i0, const int *i1, double w[3][2], double value, double *acc,
                    double *wsum)
{
    for (int c = 0; c < 2; c++) {
        int k = c ? i1[2] : i0[2];
        if (k < 0 || k >= n[2] || w[2][c] <= 0.0)
            continue;
        for (int b = 0; b < 2; b++) {
            int j = b ? i1[1] : i0[1];
            if (j < 0 || j >= n[1] || w[1][b] <= 0.0)
                continue;
            double wjk = w[1][b] * w[2][c];
            size_t row = (size_t)n[0] * ((size_t)j + (size_t)n[1] * (size_t)k);
            for (int a = 0; a < 2; a++) {
                int i = a ? i1[0] : i0[0];
                if (i < 0 || i >= n[0] || w[0][a] <= 0.0)
                    continue;
                double wq = w[0][a] * wjk;
                acc[row + (size_t)i] += wq * value;
                if (wsum)
                    wsum[row + (size_t)i] += wq;
            }
        }
    }
}

typedef struct transfer {
    const mac_grid *g;
    const double *x, *vp;
    const mac_bins *b;
    double *const *acc, *const *wsum;
} transfer;

static void to_grid_slab(void *ctx, size_t first, size_t end)
{
    const transfer *T = ctx;
    const mac_grid *g = T->g;
    size_t dim = (size_t)g->dim;
    const double zero[3] = {0.0, 0.0, 0.0}, half[3] = {0.5, 0.5, 0.5};
    for (size_t o = T->b->start[first]; o < T->b->start[end]; o++) {
        size_t p = T->b->order[o];
        const double *xp = T->x + dim * p;
        /* the weights of both staggerings once: faces along their normal, cell centres across it */
        int c0[3], c1[3], f0[3], f1[3];
        double wc[3][2], wf[3][2];
        const int nc[3] = {g->nx, g->ny, g->nz}, nf[3] = {g->nx + 1, g->ny + 1, g->nz + 1};
        cic_weights(g, nc, half, xp, 0, c0, wc, c1);
        cic_weights(g, nf, zero, xp, 0, f0, wf, f1);
        for (size_t a = 0; a < dim; a++) {
            const int n[3] = {g->nx + (a == 0), g->ny + (a == 1), g->nz + (a == 2)};
            int i0[3], i1[3];
            double w[3][2];
            for (int d = 0; d < 3; d++) {
                int face = (size_t)d == a;
                i0[d] = face ? f0[d] : c0[d];
                i1[d] = face ? f1[d] : c1[d];
                w[d][0] = face ? wf[d][0] : wc[d][0];
                w[d][1] = face ? wf[d][1] : wc[d][1];
            }
            cic_add(n, i0, i1, w, T->vp[dim * p + a], T->acc[a], T->wsum[a]);
        }
    }
}

static void density_slab(void *ctx, size_t first, size_t end)
{
    const transfer *T = ctx;
    const mac_grid *g = T->g;
    const int n[3] = {g->nx, g->ny, g->nz};
    const double shift[3] = {0.5, 0.5, 0.5};
    for (size_t o = T->b->start[first]; o < T->b->start[end]; o++) {
        int i0[3], i1[3];
        double w[3][2];
        cic_weights(g, n, shift, T->x + (size_t)g->dim * T->b->order[o], 1, i0, w, i1);
        cic_add(n, i0, i1, w, 1.0, T->acc[0], NULL);
    }
}

void mac_particle_density(const mac_grid *g, size_t n, const double *x, mac_bins *bins, int sorted, double *count)
{
    if (!sorted)
        mac_bins_sort(bins, g, n, x);
    memset(count, 0, mac_ncell(g) * sizeof *count);
    double *acc[3] = {count, NULL, NULL};
    transfer T = {g, x, NULL, bins, acc, NULL};
    for_slabs(g, n, density_slab, &T);
}

void mac_particles_to_grid(const mac_grid *g, size_t n, const double *x, const double *vp, const mac_work *w,
                           mac_bins *bins, double *const vel[3])
{
    mac_bins_sort(bins, g, n, x);
    size_t dim = (size_t)g->dim;
    double *const *wsum = w->face[0];
    for (size_t a = 0; a < dim; a++) {
        memset(wsum[a], 0, mac_nf(g, (int)a) * sizeof(double));
        memset(vel[a], 0, mac_nf(g, (int)a) * sizeof(double));
    }
    transfer T = {g, x, vp, bins, vel, wsum};
    for_slabs(g, n, to_grid_slab, &T);
    for (size_t a = 0; a < dim; a++) {
        size_t nf = mac_nf(g, (int)a);
        double *v = vel[a], *ws = wsum[a];
#pragma omp parallel for schedule(static) if (nf >= MAC_OMP_MIN)
        for (size_t q = 0; q < nf; q++)
            v[q] = ws[q] > 0.0 ? v[q] / ws[q] : 0.0;
    }
}

void mac_grid_to_particles(const mac_grid *g, size_t n, const double *x, double *const vel[3], double *out,
                           int reference)
{
    size_t dim = (size_t)g->dim;
#pragma omp parallel for schedule(static) if (n >= MAC_OMP_MIN && !reference)
    for (size_t p = 0; p < n; p++) {
        double u[3];
        sample_velocity(g, vel, x + dim * p, u, reference);
        memcpy(out + dim * p, u, dim * sizeof *u);
    }
}

void mac_grid_to_particles2(const mac_grid *g, size_t n, const double *x, double *const vel[3], double *out,
                            double *const vel2[3], double *out2)
{
    size_t dim = (size_t)g->dim;
#pragma omp parallel for schedule(static) if (n >= MAC_OMP_MIN)
    for (size_t p = 0; p < n; p++) {
        double u[3], u2[3];
        mac_sample_velocity2(g, vel, vel2, x + dim * p, u, u2);
        memcpy(out + dim * p, u, dim * sizeof *u);
        memcpy(out2 + dim * p, u2, dim * sizeof *u2);
    }
}

/* Element s of the shells: its mean displacement, end positions, edges,
 * normal and padded bounding box (the crossing point of a path lies in it). */
static void shell_elem(const mac_grid *g, const mac_shells *sh, size_t s, mac_shell_elem *e)
{
    size_t dim = (size_t)g->dim;
    memset(e, 0, sizeof *e);
    for (size_t m = 0; m < dim; m++) {
        size_t idx = dim * (size_t)sh->seg[dim * s + m];
        for (size_t k = 0; k < dim; k++) {
            e->v[m][k] = sh->X1[idx + k];
            if (dim == 3)
                e->d[k] += (sh->X1[idx + k] - sh->X0[idx + k]) / 3.0;
        }
    }
    if (dim == 2) {
        const double *a0 = sh->X0 + 2 * (size_t)sh->seg[2 * s], *b0 = sh->X0 + 2 * (size_t)sh->seg[2 * s + 1];
        const double *a1 = e->v[0], *b1 = e->v[1];
        for (int k = 0; k < 2; k++) {
            e->d[k] = 0.5 * (a1[k] - a0[k] + b1[k] - b0[k]);
            e->edge[0][k] = b1[k] - a1[k];
        }
        e->len = hypot(b1[0] - a1[0], b1[1] - a1[1]);
    } else {
        double e2[3];
        for (int m = 0; m < 3; m++)
            for (int k = 0; k < 3; k++)
                e->edge[m][k] = e->v[(m + 1) % 3][k] - e->v[m][k];
        for (int k = 0; k < 3; k++)
            e2[k] = e->v[2][k] - e->v[0][k];
        seam_v3_cross(e->nrm, e->edge[0], e2);
        e->len = sqrt(seam_v3_dot(e->nrm, e->nrm));
    }
    double pad = 1e-6 * g->dx;
    for (size_t k = 0; k < dim; k++) {
        e->lo[k] = e->hi[k] = e->v[0][k];
        for (size_t m = 1; m < dim; m++) {
            e->lo[k] = fmin(e->lo[k], e->v[m][k]);
            e->hi[k] = fmax(e->hi[k], e->v[m][k]);
        }
        e->lo[k] -= pad;
        e->hi[k] += pad;
    }
}

/* Whether the path q0 -> p1 stays clear of the element's box (then it cannot cross the element). */
static int misses_box(const mac_shell_elem *e, int dim, const double *q0, const double *p1)
{
    for (int k = 0; k < dim; k++)
        if (fmax(q0[k], p1[k]) < e->lo[k] || fmin(q0[k], p1[k]) > e->hi[k])
            return 1;
    return 0;
}

/* Element s, from the shells' prepared elements or worked out into tmp. */
static const mac_shell_elem *elem_at(const mac_grid *g, const mac_shells *sh, size_t s, mac_shell_elem *tmp)
{
    if (sh->elem)
        return &sh->elem[s];
    shell_elem(g, sh, s, tmp);
    return tmp;
}

/* Stop a particle moving from p0 to p1 at the first shell segment it crosses.
 * Seen from the segment, which moved by d (its mean displacement), the
 * particle went from p0 + d to p1: when that path crosses the segment's end
 * position, p1 becomes the crossing point, 1e-3 dx back on the start side, and
 * vp loses its normal velocity into the segment (relative to the segment's d/dt). */
static void stop_at_shells(const mac_grid *g, const mac_shells *sh, double dt, const double *p0, double *p1,
                           double *vp)
{
    mac_shell_elem tmp;
    for (size_t s = 0; s < sh->n; s++) {
        const mac_shell_elem *e = elem_at(g, sh, s, &tmp);
        const double *a1 = e->v[0], *b1 = e->v[1], *d = e->d;
        double q0[2] = {p0[0] + d[0], p0[1] + d[1]};
        if (misses_box(e, 2, q0, p1))
            continue;
        double s0 = mac_orient2(a1, b1, q0), s1 = mac_orient2(a1, b1, p1);
        if (s0 == 0.0 || (s0 > 0.0 && s1 > 0.0) || (s0 < 0.0 && s1 < 0.0))
            continue;   /* still on its side of the segment's line */
        double t0 = mac_orient2(q0, p1, a1), t1 = mac_orient2(q0, p1, b1);
        if ((t0 > 0.0 && t1 > 0.0) || (t0 < 0.0 && t1 < 0.0))
            continue;   /* the path passes beside the segment */
        double lam = s0 / (s0 - s1), len = e->len;
        if (len == 0.0)
            continue;
        /* Unit normal of the segment towards the side the particle came from. */
        double sign = s0 > 0.0 ? 1.0 : -1.0;
        double nrm[2] = {-sign * e->edge[0][1] / len, sign * e->edge[0][0] / len};
        for (int k = 0; k < 2; k++)
            p1[k] = q0[k] + lam * (p1[k] - q0[k]) + 1e-3 * g->dx * nrm[k];
        double vn = (vp[0] - d[0] / dt) * nrm[0] + (vp[1] - d[1] / dt) * nrm[1];
        if (vn < 0.0)
            for (int k = 0; k < 2; k++)
                vp[k] -= vn * nrm[k];
    }
}

/* The 3D counterpart of stop_at_shells for shell triangles: the relative path
 * p0 + d -> p1 (d the triangle's mean displacement) against the triangle's
 * end position. */
static void stop_at_shells_3d(const mac_grid *g, const mac_shells *sh, double dt, const double *p0, double *p1,
                              double *vp)
{
    mac_shell_elem tmp;
    for (size_t s = 0; s < sh->n; s++) {
        const mac_shell_elem *e = elem_at(g, sh, s, &tmp);
        const double *d = e->d, *v0 = e->v[0];
        double q0[3], r0[3], r1[3], nrm[3];
        for (int k = 0; k < 3; k++)
            q0[k] = p0[k] + d[k];
        if (misses_box(e, 3, q0, p1))
            continue;
        for (int k = 0; k < 3; k++) {
            r0[k] = q0[k] - v0[k];
            r1[k] = p1[k] - v0[k];
            nrm[k] = e->nrm[k];
        }
        double len = e->len, s0 = seam_v3_dot(nrm, r0), s1 = seam_v3_dot(nrm, r1);
        if (len == 0.0 || s0 == 0.0 || (s0 > 0.0 && s1 > 0.0) || (s0 < 0.0 && s1 < 0.0))
            continue;   /* still on its side of the triangle's plane */
        double lam = s0 / (s0 - s1), h[3];
        for (int k = 0; k < 3; k++)
            h[k] = q0[k] + lam * (p1[k] - q0[k]);
        /* Inside the triangle: h is on the inner side of all three edges. */
        int inside = 1;
        for (int m = 0; m < 3 && inside; m++) {
            double rel[3], c[3];
            for (int k = 0; k < 3; k++)
                rel[k] = h[k] - e->v[m][k];
            seam_v3_cross(c, e->edge[m], rel);
            inside = seam_v3_dot(c, nrm) >= 0.0;
        }
        if (!inside)
            continue;
        double sign = s0 > 0.0 ? 1.0 : -1.0, vn = 0.0;
        for (int k = 0; k < 3; k++) {
            nrm[k] *= sign / len;   /* unit normal towards the side the particle came from */
            p1[k] = h[k] + 1e-3 * g->dx * nrm[k];
            vn += (vp[k] - d[k] / dt) * nrm[k];
        }
        if (vn < 0.0)
            for (int k = 0; k < 3; k++)
                vp[k] -= vn * nrm[k];
    }
}

size_t mac_advect_particles_from(const mac_grid *g, size_t n, double *x, double *vp, double *const vel[3],
                                 const double *u0, double dt, const mac_shells *shells, int reference)
{
    size_t dim = (size_t)g->dim;
    double eps = 1e-6 * g->dx;
    int check_shells = shells && shells->n;
    for (size_t s = 0; check_shells && shells->elem && s < shells->n; s++)
        shell_elem(g, shells, s, &shells->elem[s]);   /* once per move, not per particle */
    size_t dropped = 0;
    /* each particle on its own (a leaving one is marked with a NaN), then the kept ones closed up in order */
#pragma omp parallel for schedule(static) reduction(+ : dropped) if (n >= MAC_OMP_MIN && !reference)
    for (size_t p = 0; p < n; p++) {
        double xp[3] = {0.0, 0.0, 0.0}, xm[3] = {0.0, 0.0, 0.0}, u[3];
        memcpy(xp, x + dim * p, dim * sizeof *xp);
        if (u0)
            memcpy(u, u0 + dim * p, dim * sizeof *u);
        else
            sample_velocity(g, vel, xp, u, reference);
        for (size_t d = 0; d < dim; d++)
            xm[d] = xp[d] + 0.5 * dt * u[d];
        double step[3], start[3] = {xp[0], xp[1], xp[2]};
        sample_velocity(g, vel, xm, u, reference);
        for (size_t d = 0; d < dim; d++)
            step[d] = dt * u[d];
        for (size_t d = 0; d < dim; d++)
            xp[d] += step[d];
        if (check_shells && dim == 3)
            stop_at_shells_3d(g, shells, dt, start, xp, vp + dim * p);
        else if (check_shells)
            stop_at_shells(g, shells, dt, start, xp, vp + dim * p);
        int leaves = 0;
        for (size_t d = 0; d < dim; d++) {
            double lo = g->origin[d], hi = g->origin[d] + mac_n(g, (int)d) * g->dx;
            if (xp[d] < lo + eps) {
                leaves |= g->bc[2 * d] == BC_OPEN;
                xp[d] = lo + eps;   /* a wall holds the liquid */
            } else if (xp[d] > hi - eps) {
                leaves |= g->bc[2 * d + 1] == BC_OPEN;
                xp[d] = hi - eps;
            }
        }
        if (leaves) {
            xp[0] = NAN;
            dropped++;
        }
        memcpy(x + dim * p, xp, dim * sizeof *xp);
    }
    if (!dropped)
        return n;
    size_t kept = 0;
    for (size_t p = 0; p < n; p++) {
        if (isnan(x[dim * p]))
            continue;
        memmove(x + dim * kept, x + dim * p, dim * sizeof *x);
        memmove(vp + dim * kept, vp + dim * p, dim * sizeof *vp);
        kept++;
    }
    return kept;
}

size_t mac_advect_particles(const mac_grid *g, size_t n, double *x, double *vp, double *const vel[3], double dt,
                            const mac_shells *shells, int reference)
{
    return mac_advect_particles_from(g, n, x, vp, vel, NULL, dt, shells, reference);
}
