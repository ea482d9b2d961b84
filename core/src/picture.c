/* PNG frames with Cairo: colour-mapped cells, the interface drawn on top. */
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "seam/log.h"
#include "seam/picture.h"

/* A perceptually ordered map (dark blue - teal - yellow), linear between stops. */
static void colour_map(double s, double rgb[3])
{
    static const double stop[5][3] = {
        {0.267, 0.005, 0.329}, {0.229, 0.322, 0.546}, {0.128, 0.567, 0.551},
        {0.369, 0.789, 0.383}, {0.993, 0.906, 0.144}};
    if (!(s > 0.0))   /* also NaN */
        s = 0.0;
    if (s > 1.0)
        s = 1.0;
    double x = s * 4.0;
    int k = (int)floor(x);
    if (k >= 4)
        k = 3;
    double a = x - k;
    for (int c = 0; c < 3; c++)
        rgb[c] = (1.0 - a) * stop[k][c] + a * stop[k + 1][c];
}

static int scale_of(const seam_raster *r, const seam_picture_opts *opts)
{
    if (opts && opts->pixels_per_cell > 0)
        return opts->pixels_per_cell;
    int longest = r->nx > r->ny ? r->nx : r->ny;
    int s = longest > 0 ? 512 / longest : 1;
    return s < 1 ? 1 : s;
}

void seam_picture_size(const seam_raster *raster, const seam_picture_opts *opts, int *width, int *height)
{
    int s = scale_of(raster, opts);
    *width = raster->nx * s;
    *height = raster->ny * s;
}

static void value_range(const seam_raster *r, const seam_picture_opts *opts, double *lo, double *hi)
{
    if (opts && opts->range[0] != opts->range[1]) {
        *lo = opts->range[0];
        *hi = opts->range[1];
        return;
    }
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t k = 0; k < (size_t)r->nx * (size_t)r->ny; k++)
        if (isfinite(r->data[k])) {
            *lo = fmin(*lo, r->data[k]);
            *hi = fmax(*hi, r->data[k]);
        }
    if (!(*hi > *lo)) {   /* constant or empty field: any non-empty range */
        *lo = isfinite(*lo) ? *lo : 0.0;
        *hi = *lo + 1.0;
    }
}

/* Cells into the ARGB32 pixels, row 0 of the image at the top of the domain. */
static void paint_cells(cairo_surface_t *surf, const seam_raster *r, int s, double lo, double hi)
{
    cairo_surface_flush(surf);
    unsigned char *px = cairo_image_surface_get_data(surf);
    int stride = cairo_image_surface_get_stride(surf);
    int h = r->ny * s;
    for (int y = 0; y < h; y++) {
        int j = r->ny - 1 - y / s;
        uint32_t *row = (uint32_t *)(px + (size_t)y * (size_t)stride);
        for (int i = 0; i < r->nx; i++) {
            double rgb[3];
            colour_map((r->data[(size_t)j * (size_t)r->nx + (size_t)i] - lo) / (hi - lo), rgb);
            uint32_t argb = 0xff000000u | ((uint32_t)lround(rgb[0] * 255) << 16) |
                            ((uint32_t)lround(rgb[1] * 255) << 8) | (uint32_t)lround(rgb[2] * 255);
            for (int q = 0; q < s; q++)
                row[i * s + q] = argb;
        }
    }
    cairo_surface_mark_dirty(surf);
}

static void draw_interface(cairo_t *cr, const seam_raster *r, int s, const seam_interface *iface,
                           const double *X)
{
    double k = s / r->dx;
    double H = r->ny * s;
    /* World (x, y) to pixels with y up. */
#define PX(i) ((X[2 * (size_t)(i)] - r->origin[0]) * k)
#define PY(i) (H - (X[2 * (size_t)(i) + 1] - r->origin[1]) * k)
    cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
    cairo_set_line_width(cr, fmax(2.0, 0.3 * s));   /* at least two pixels: visible at any scale */
    if (iface->nodes_per_elem == 2)
        for (size_t e = 0; e < iface->n_elems; e++) {
            int32_t a = iface->elems[2 * e], b = iface->elems[2 * e + 1];
            cairo_move_to(cr, PX(a), PY(a));
            cairo_line_to(cr, PX(b), PY(b));
            cairo_stroke(cr);
        }
    cairo_set_source_rgb(cr, 0.9, 0.1, 0.1);
    for (size_t i = 0; i < iface->n_points; i++) {
        cairo_arc(cr, PX(i), PY(i), fmax(1.5, 0.2 * s), 0.0, 2.0 * M_PI);
        cairo_fill(cr);
    }
#undef PX
#undef PY
}

seam_status seam_picture_write_png(const char *path, const seam_raster *raster,
                                   const seam_interface *iface, const double *X,
                                   const seam_picture_opts *opts, const seam_host *host)
{
    if (raster->nz != 1 || raster->nx < 1 || raster->ny < 1 || !raster->data) {
        seam_logf(host, SEAM_LOG_ERROR, "%s: a picture needs a non-empty 2D raster (got %dx%dx%d)",
                  path, raster->nx, raster->ny, raster->nz);
        return SEAM_ERROR;
    }
    if (iface && iface->dim != 2) {
        seam_logf(host, SEAM_LOG_ERROR, "%s: a picture draws 2D interfaces only (got dim %d)", path,
                  iface->dim);
        return SEAM_ERROR;
    }
    int s = scale_of(raster, opts), w, h;
    seam_picture_size(raster, opts, &w, &h);
    double lo, hi;
    value_range(raster, opts, &lo, &hi);
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
        seam_logf(host, SEAM_LOG_ERROR, "%s: cannot make a %dx%d image: %s", path, w, h,
                  cairo_status_to_string(cairo_surface_status(surf)));
        cairo_surface_destroy(surf);
        return SEAM_ERROR;
    }
    paint_cells(surf, raster, s, lo, hi);
    if (iface && (X || iface->X)) {
        cairo_t *cr = cairo_create(surf);
        draw_interface(cr, raster, s, iface, X ? X : iface->X);
        cairo_destroy(cr);
    }
    char tmp[4200];   /* written whole under a temporary name, then renamed: never a cut PNG */
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    cairo_status_t st = cairo_surface_write_to_png(surf, tmp);
    cairo_surface_destroy(surf);
    if (st != CAIRO_STATUS_SUCCESS) {
        seam_logf(host, SEAM_LOG_ERROR, "%s: cannot write PNG: %s", path, cairo_status_to_string(st));
        remove(tmp);
        return SEAM_ERROR;
    }
    if (rename(tmp, path) != 0) {
        seam_logf(host, SEAM_LOG_ERROR, "%s: cannot rename %s into place: %s", path, tmp, strerror(errno));
        remove(tmp);
        return SEAM_ERROR;
    }
    return SEAM_OK;
}
