/* Values of a raster between its cell centres (raster.h). */
#include <math.h>

#include "seam/raster.h"

static int count(const seam_raster *r, int a) { return a == 0 ? r->nx : a == 1 ? r->ny : r->nz; }

bool seam_raster_contains(const seam_raster *r, const double x[3])
{
    int axes = r->nz > 1 ? 3 : 2;
    for (int a = 0; a < axes; a++)
        if (!(x[a] >= r->origin[a] && x[a] <= r->origin[a] + count(r, a) * r->dx))
            return false;
    return true;
}

/* The lower cell of the pair around coordinate x on axis a and the weight of the upper one. */
static void bracket(const seam_raster *r, int a, double x, int *i0, double *w)
{
    int n = count(r, a);
    double u = (x - r->origin[a]) / r->dx - 0.5;   /* in cell-centre units */
    if (n < 2 || !(u > 0.0)) {
        *i0 = 0;
        *w = 0.0;
        return;
    }
    if (u >= n - 1) {
        *i0 = n - 2;
        *w = 1.0;
        return;
    }
    *i0 = (int)floor(u);
    *w = u - *i0;
}

static double value(const seam_raster *r, int i, int j, int k)
{
    return r->data[(size_t)i + (size_t)r->nx * ((size_t)j + (size_t)r->ny * (size_t)k)];
}

double seam_raster_at(const seam_raster *r, const double x[3])
{
    int i0[3] = {0, 0, 0};
    double w[3] = {0.0, 0.0, 0.0};
    int axes = r->nz > 1 ? 3 : 2;
    for (int a = 0; a < axes; a++)
        bracket(r, a, x[a], &i0[a], &w[a]);
    double sum = 0.0;
    for (int c = 0; c < 8; c++) {   /* the corners of the cell-centre box around x */
        int d[3] = {c & 1, (c >> 1) & 1, (c >> 2) & 1};
        double weight = 1.0;
        for (int a = 0; a < 3; a++)
            weight *= d[a] ? w[a] : 1.0 - w[a];
        if (weight != 0.0)
            sum += weight * value(r, i0[0] + d[0], i0[1] + d[1], i0[2] + d[2]);
    }
    return sum;
}

void seam_raster_plane_axes(int axis, int *right, int *up)
{
    *right = axis == 0 ? 1 : 0;
    *up = axis == 2 ? 1 : 2;
}

void seam_raster_slice(const seam_raster *r, int axis, double at, double *data, seam_raster *out)
{
    int right, up, k0;
    double w;
    seam_raster_plane_axes(axis, &right, &up);
    bracket(r, axis, at, &k0, &w);
    int nr = count(r, right), nu = count(r, up);
    for (int v = 0; v < nu; v++)
        for (int u = 0; u < nr; u++) {
            int lo[3], hi[3];
            lo[right] = hi[right] = u;
            lo[up] = hi[up] = v;
            lo[axis] = k0;
            hi[axis] = w > 0.0 ? k0 + 1 : k0;
            double a = value(r, lo[0], lo[1], lo[2]), b = value(r, hi[0], hi[1], hi[2]);
            data[(size_t)u + (size_t)nr * (size_t)v] = w > 0.0 ? (1.0 - w) * a + w * b : a;
        }
    *out = (seam_raster){nr, nu, 1, {r->origin[right], r->origin[up], 0.0}, r->dx, data, r->units};
}
