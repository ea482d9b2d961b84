/* PNG frames with Cairo: colour-mapped cells, the interface drawn on top,
 * and what makes a frame readable: a colour bar, the time, filled solids,
 * the free surface. */
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/log.h"
#include "seam/picture.h"
#include "seam/plot.h"
#include "seam/raster.h"

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
    *width = raster->nx * s + (opts && opts->colour_bar ? SEAM_PICTURE_BAR_WIDTH : 0);
    *height = raster->ny * s;
}

static void data_range(const seam_raster *r, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t k = 0; r->data && k < (size_t)r->nx * (size_t)r->ny * (size_t)(r->nz > 0 ? r->nz : 1); k++)
        if (isfinite(r->data[k])) {
            *lo = fmin(*lo, r->data[k]);
            *hi = fmax(*hi, r->data[k]);
        }
}

static void value_range(const seam_raster *r, const seam_picture_opts *opts, double *lo, double *hi)
{
    if (opts && opts->range[0] != opts->range[1]) {
        *lo = opts->range[0];
        *hi = opts->range[1];
        return;
    }
    data_range(r, lo, hi);
    if (!(*hi > *lo)) {   /* constant or empty field: any non-empty range */
        *lo = isfinite(*lo) ? *lo : 0.0;
        *hi = *lo + 1.0;
    }
}

bool seam_picture_track_range(seam_picture_opts *opts, const seam_raster *raster)
{
    bool set = opts->range[0] != opts->range[1];
    if (opts->range_fixed)
        return set;
    double lo, hi;
    data_range(raster, &lo, &hi);
    if (!set && !(hi > lo))
        return false;
    if (!set || lo < opts->range[0])   /* a raster with no finite value leaves it (lo is +inf) */
        opts->range[0] = lo;
    if (!set || hi > opts->range[1])
        opts->range[1] = hi;
    return true;
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

/* World (x, y), y up, to pixels of the field's part of the image. */
typedef struct view {
    double x0, y0, k, H;
} view;

static double px_of(const view *v, const double *X, size_t i) { return (X[2 * i] - v->x0) * v->k; }
static double py_of(const view *v, const double *X, size_t i) { return v->H - (X[2 * i + 1] - v->y0) * v->k; }

static void draw_interface(cairo_t *cr, const view *v, int s, const seam_interface *iface, const double *X)
{
    cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
    cairo_set_line_width(cr, fmax(2.0, 0.3 * s));   /* at least two pixels: visible at any scale */
    if (iface->nodes_per_elem == 2)
        for (size_t e = 0; e < iface->n_elems; e++) {
            size_t a = (size_t)iface->elems[2 * e], b = (size_t)iface->elems[2 * e + 1];
            cairo_move_to(cr, px_of(v, X, a), py_of(v, X, a));
            cairo_line_to(cr, px_of(v, X, b), py_of(v, X, b));
            cairo_stroke(cr);
        }
    cairo_set_source_rgb(cr, 0.9, 0.1, 0.1);
    for (size_t i = 0; i < iface->n_points; i++) {
        cairo_arc(cr, px_of(v, X, i), py_of(v, X, i), fmax(1.5, 0.2 * s), 0.0, 2.0 * M_PI);
        cairo_fill(cr);
    }
}

/* Volumes filled: each closed loop of one-sided segments (counter-clockwise
 * around a solid, clockwise around a hole) in one path filled by winding, so
 * holes stay open; a body whose loops enclose negative area surrounds the
 * fluid (a container), and everything outside its loops is solid. */
static void fill_volumes(cairo_t *cr, const view *v, const seam_interface *iface, const double *X, double W,
                         double H)
{
    size_t n = iface->n_points, ne = iface->n_elems, n_bodies = 1;
    for (size_t i = 0; iface->body && i < n; i++)
        if ((size_t)iface->body[i] + 1 > n_bodies)
            n_bodies = (size_t)iface->body[i] + 1;
    int32_t *next = seam_xmalloc_n(n, sizeof *next);
    uint8_t *seen = SEAM_NEW_N(uint8_t, ne);
    size_t *loops = seam_xmalloc_n(ne, sizeof *loops), n_loops = 0;
    double *area = SEAM_NEW_N(double, n_bodies);
    for (size_t i = 0; i < n; i++)
        next[i] = -1;
    for (size_t e = 0; e < ne; e++)
        if (!iface->two_sided || !iface->two_sided[e]) {
            int32_t a = iface->elems[2 * e];
            if (next[a] < 0)
                next[a] = (int32_t)e;
        } else
            seen[e] = 1;
    for (size_t e0 = 0; e0 < ne; e0++) {
        if (seen[e0])
            continue;
        size_t a0 = (size_t)iface->elems[2 * e0], e = e0;
        double twice_area = 0.0;
        for (;;) {
            seen[e] = 1;
            size_t a = (size_t)iface->elems[2 * e], b = (size_t)iface->elems[2 * e + 1];
            twice_area += X[2 * a] * X[2 * b + 1] - X[2 * b] * X[2 * a + 1];
            if (b == a0) {
                loops[n_loops++] = e0;
                area[iface->body ? (size_t)iface->body[a0] : 0] += 0.5 * twice_area;
                break;
            }
            if (next[b] < 0 || seen[next[b]])
                break;   /* an open chain: drawn, not filled */
            e = (size_t)next[b];
        }
    }
    cairo_new_path(cr);
    for (size_t l = 0; l < n_loops; l++) {
        size_t e = loops[l], a0 = (size_t)iface->elems[2 * e];
        cairo_move_to(cr, px_of(v, X, a0), py_of(v, X, a0));
        for (;;) {
            size_t b = (size_t)iface->elems[2 * e + 1];
            if (b == a0)
                break;
            cairo_line_to(cr, px_of(v, X, b), py_of(v, X, b));
            e = (size_t)next[b];
        }
        cairo_close_path(cr);
    }
    for (size_t b = 0; b < n_bodies; b++)
        if (area[b] < 0.0) {   /* counter-clockwise in the world is clockwise in pixels (y down) */
            cairo_move_to(cr, -10.0, H + 10.0);
            cairo_line_to(cr, W + 10.0, H + 10.0);
            cairo_line_to(cr, W + 10.0, -10.0);
            cairo_line_to(cr, -10.0, -10.0);
            cairo_close_path(cr);
        }
    cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING);
    cairo_set_source_rgb(cr, 0.80, 0.80, 0.80);
    cairo_fill(cr);
    free(next), free(seen), free(loops), free(area);
}

static void draw_solids(cairo_t *cr, const view *v, int s, const seam_interface *iface, const double *X, double W,
                        double H)
{
    if (iface->nodes_per_elem != 2)
        return;
    fill_volumes(cr, v, iface, X, W, H);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    for (int shells = 0; shells < 2; shells++) {
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        cairo_set_line_width(cr, shells ? fmax(4.0, 0.5 * s) : 1.5);
        for (size_t e = 0; e < iface->n_elems; e++) {
            if ((iface->two_sided && iface->two_sided[e]) != shells)
                continue;
            size_t a = (size_t)iface->elems[2 * e], b = (size_t)iface->elems[2 * e + 1];
            cairo_move_to(cr, px_of(v, X, a), py_of(v, X, a));
            cairo_line_to(cr, px_of(v, X, b), py_of(v, X, b));
        }
        cairo_stroke(cr);
    }
}

/* The zero contour of phi (cell-centred) by marching squares; a saddle is
 * split by the sign at the square's centre. */
static void draw_surface(cairo_t *cr, const view *v, const seam_raster *phi)
{
    int nx = phi->nx, ny = phi->ny;
    double k = phi->dx * v->k, ox = (phi->origin[0] - v->x0) * v->k, oy = (phi->origin[1] - v->y0) * v->k;
    cairo_new_path(cr);
    for (int j = 0; j + 1 < ny; j++)
        for (int i = 0; i + 1 < nx; i++) {
            static const int ci[4] = {0, 1, 1, 0}, cj[4] = {0, 0, 1, 1};
            double c[4], ex[4], ey[4];
            int neg = 0, finite = 1;
            for (int q = 0; q < 4; q++) {
                c[q] = phi->data[(size_t)(j + cj[q]) * (size_t)nx + (size_t)(i + ci[q])];
                finite &= isfinite(c[q]);
                neg += c[q] < 0.0;
            }
            if (!finite || neg == 0 || neg == 4)
                continue;
            for (int q = 0; q < 4; q++) {   /* edge q runs from corner q to corner q + 1 */
                int r = (q + 1) % 4;
                double t = (c[q] < 0.0) != (c[r] < 0.0) ? c[q] / (c[q] - c[r]) : 0.5;
                ex[q] = ox + (i + 0.5 + ci[q] + t * (ci[r] - ci[q])) * k;
                ey[q] = v->H - (oy + (j + 0.5 + cj[q] + t * (cj[r] - cj[q])) * k);
            }
            /* Which corners are cut off: the odd one out (one or three negative),
             * or in a saddle the two whose sign differs from the centre's. */
            bool centre_neg = 0.25 * (c[0] + c[1] + c[2] + c[3]) < 0.0;
            for (int q = 0; q < 4; q++) {
                bool qn = c[q] < 0.0, next_same = (c[(q + 1) % 4] < 0.0) == qn;
                if (neg == 2 && next_same) {   /* q and q + 1 alike: one straight cut */
                    if (!qn)
                        continue;
                    cairo_move_to(cr, ex[(q + 3) % 4], ey[(q + 3) % 4]);
                    cairo_line_to(cr, ex[(q + 1) % 4], ey[(q + 1) % 4]);
                    break;
                }
                bool cut = neg == 1 ? qn : neg == 3 ? !qn : (!next_same && qn != centre_neg &&
                                                            (c[(q + 3) % 4] < 0.0) != qn);
                if (cut) {
                    cairo_move_to(cr, ex[(q + 3) % 4], ey[(q + 3) % 4]);
                    cairo_line_to(cr, ex[q], ey[q]);
                }
            }
        }
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_set_source_rgba(cr, 0.0, 0.0, 0.0, 0.6);
    cairo_set_line_width(cr, 4.0);
    cairo_stroke_preserve(cr);
    cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
    cairo_set_line_width(cr, 2.0);
    cairo_stroke(cr);
}

static void colour_bar(cairo_t *cr, const seam_raster *r, const seam_picture_opts *opts, double x0, double H,
                       double lo, double hi)
{
    cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
    cairo_rectangle(cr, x0, 0.0, SEAM_PICTURE_BAR_WIDTH, H);
    cairo_fill(cr);
    double bx = x0 + 12.0, bw = 16.0, top = 10.0, bottom = H - 10.0;
    for (int y = (int)top; y < (int)bottom; y++) {   /* the map, high values at the top */
        double rgb[3];
        colour_map((bottom - (y + 0.5)) / (bottom - top), rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_rectangle(cr, bx, y, bw, 1.0);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1.0);
    cairo_rectangle(cr, bx + 0.5, top + 0.5, bw - 1.0, (int)bottom - (int)top - 1.0);
    cairo_stroke(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 11.0);
    double step = seam_plot_tick_step(hi - lo, (int)fmax(2.0, (bottom - top) / 50.0));
    for (double t = ceil(lo / step - 1e-9) * step; t <= hi + 1e-9 * step; t += step) {
        double y = round(bottom - (t - lo) / (hi - lo) * (bottom - top)) + 0.5;
        char label[32];
        snprintf(label, sizeof label, "%.4g", fabs(t) < 1e-9 * step ? 0.0 : t);
        cairo_move_to(cr, bx + bw, y);
        cairo_line_to(cr, bx + bw + 4.0, y);
        cairo_stroke(cr);
        cairo_text_extents_t e;
        cairo_text_extents(cr, label, &e);
        cairo_move_to(cr, bx + bw + 6.0, y - e.y_bearing - 0.5 * e.height);
        cairo_show_text(cr, label);
    }
    char title[256];
    snprintf(title, sizeof title, "%s%s%s%s", opts->label ? opts->label : "", opts->label && r->units ? " (" : "",
             r->units ? r->units : "", opts->label && r->units ? ")" : "");
    cairo_set_font_size(cr, 13.0);
    cairo_text_extents_t e;
    cairo_text_extents(cr, title, &e);
    cairo_save(cr);
    cairo_translate(cr, x0 + SEAM_PICTURE_BAR_WIDTH - 8.0, 0.5 * H);
    cairo_rotate(cr, -M_PI / 2);
    cairo_move_to(cr, -0.5 * e.x_advance, 0.0);
    cairo_show_text(cr, title);
    cairo_restore(cr);
}

static void time_label(cairo_t *cr, double t)
{
    char text[64];
    snprintf(text, sizeof text, "t = %.4g s", t);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, 13.0);
    cairo_text_extents_t e;
    cairo_text_extents(cr, text, &e);
    cairo_set_source_rgba(cr, 0.0, 0.0, 0.0, 0.6);
    cairo_rectangle(cr, 4.0, 4.0, e.x_advance + 10.0, e.height + 8.0);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
    cairo_move_to(cr, 9.0, 8.0 - e.y_bearing);
    cairo_show_text(cr, text);
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
    const seam_raster *phi = opts ? opts->surface : NULL;
    if (phi && (phi->nz != 1 || !phi->data)) {
        seam_logf(host, SEAM_LOG_ERROR, "%s: the free surface needs a 2D raster (got %dx%dx%d)", path, phi->nx,
                  phi->ny, phi->nz);
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
    cairo_t *cr = cairo_create(surf);
    double W = raster->nx * s, H = raster->ny * s;
    view v = {raster->origin[0], raster->origin[1], s / raster->dx, H};
    cairo_save(cr);
    cairo_rectangle(cr, 0.0, 0.0, W, H);
    cairo_clip(cr);   /* solids and surface stay on the field */
    if (phi)
        draw_surface(cr, &v, phi);
    if (iface && (X || iface->X)) {
        if (opts && opts->fill_solids)
            draw_solids(cr, &v, s, iface, X ? X : iface->X, W, H);
        else
            draw_interface(cr, &v, s, iface, X ? X : iface->X);
    }
    cairo_restore(cr);
    if (opts && opts->colour_bar)
        colour_bar(cr, raster, opts, W, H, lo, hi);
    if (opts && opts->show_time)
        time_label(cr, opts->time);
    cairo_destroy(cr);
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

/* ---- the outline where a plane cuts a 3D interface --------------------------- */

void seam_picture_cut_free(seam_picture_cut *cut)
{
    free(cut->X);
    free(cut->elems);
    free(cut->body);
    free(cut->two_sided);
    *cut = (seam_picture_cut){0};
}

/* The point where edge (a, b) crosses the plane: found in, or added to, an
 * open-addressing table of edges (keys a < b packed in 64 bits, 0 free). */
typedef struct edge_table {
    uint64_t *key;
    int32_t *point;
    size_t mask;
} edge_table;

static int32_t edge_point(edge_table *t, seam_picture_cut *c, const double *X, int axis, double at, int right,
                          int up, int32_t a, int32_t b)
{
    if (a > b) {
        int32_t s = a;
        a = b;
        b = s;
    }
    uint64_t key = ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) + 1;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & t->mask;
    while (t->key[h] && t->key[h] != key)
        h = (h + 1) & t->mask;
    if (t->key[h])
        return t->point[h];
    const double *pa = X + 3 * (size_t)a, *pb = X + 3 * (size_t)b;
    double s = (at - pa[axis]) / (pb[axis] - pa[axis]);   /* the two ends lie on either side: no division by 0 */
    int32_t k = (int32_t)c->iface.n_points++;
    c->X[2 * (size_t)k] = pa[right] + s * (pb[right] - pa[right]);
    c->X[2 * (size_t)k + 1] = pa[up] + s * (pb[up] - pa[up]);
    t->key[h] = key;
    t->point[h] = k;
    return k;
}

seam_status seam_picture_cut_plane(const seam_interface *iface, const double *X, int axis, double at,
                                   seam_picture_cut *out, const seam_host *host)
{
    *out = (seam_picture_cut){0};
    if (iface->dim != 3 || (iface->n_elems && iface->nodes_per_elem != 3) || axis < 0 || axis > 2) {
        seam_logf(host, SEAM_LOG_ERROR, "a plane cuts only 3D interfaces of triangles (got dim %d, %d nodes per "
                  "element)", iface->dim, iface->nodes_per_elem);
        return SEAM_ERROR;
    }
    X = X ? X : iface->X;
    int right, up;
    seam_raster_plane_axes(axis, &right, &up);
    size_t crossing = 0;
    for (size_t e = 0; e < iface->n_elems; e++) {
        const int32_t *v = iface->elems + 3 * e;
        int above = (X[3 * (size_t)v[0] + (size_t)axis] >= at) + (X[3 * (size_t)v[1] + (size_t)axis] >= at) +
                    (X[3 * (size_t)v[2] + (size_t)axis] >= at);
        crossing += above == 1 || above == 2;
    }
    size_t size = 16;
    while (size < 4 * crossing)
        size *= 2;
    edge_table t = {seam_xcalloc(size, sizeof *t.key), seam_xmalloc_n(size, sizeof *t.point), size - 1};
    out->X = seam_xmalloc_n((2 * crossing + 1) * 2, sizeof *out->X);
    out->elems = seam_xmalloc_n((crossing + 1) * 2, sizeof *out->elems);
    out->body = seam_xmalloc_n(2 * crossing + 1, sizeof *out->body);
    out->two_sided = seam_xmalloc(crossing + 1);
    size_t n = 0;
    for (size_t e = 0; e < iface->n_elems; e++) {
        const int32_t *v = iface->elems + 3 * e;
        bool up_side[3];
        int above = 0;
        for (int q = 0; q < 3; q++)
            above += up_side[q] = X[3 * (size_t)v[q] + (size_t)axis] >= at;
        if (above == 0 || above == 3)
            continue;
        /* the lone vertex (alone on its side of the plane) and its neighbours in the triangle's order */
        int k = up_side[1] == up_side[2] ? 0 : up_side[0] == up_side[2] ? 1 : 2;
        int32_t lone = v[k], next = v[(k + 1) % 3], prev = v[(k + 2) % 3];
        int32_t p[2] = {edge_point(&t, out, X, axis, at, right, up, lone, next),
                        edge_point(&t, out, X, axis, at, right, up, prev, lone)};
        /* From the edge after the lone vertex to the edge before it, when the lone vertex lies above the plane
         * and (right, up, normal) are right-handed, the outline's 2D outward normal (dy, -dx) follows the
         * triangle's (b - a) x (c - a) (worked through on a = (0,0,1), b = (1,0,-1), c = (0,1,-1) cut at z = 0);
         * decided by the triangle's order, not the points' positions, so segments of zero length (through a
         * vertex on the plane) still run on round the outline. */
        bool shell = iface->two_sided && iface->two_sided[e];
        if (!up_side[k] != (axis == 1)) {   /* lone vertex below, or the left-handed (x, z) plane: reversed */
            int32_t s = p[0];
            p[0] = p[1];
            p[1] = s;
        }
        out->elems[2 * n] = p[0];
        out->elems[2 * n + 1] = p[1];
        out->two_sided[n] = shell;
        int32_t body = iface->body ? iface->body[v[0]] : 0;
        out->body[p[0]] = out->body[p[1]] = body;
        n++;
    }
    free(t.key), free(t.point);
    out->iface = (seam_interface){.dim = 2, .n_points = out->iface.n_points, .X = out->X, .body = out->body,
                                  .nodes_per_elem = 2, .n_elems = n, .elems = out->elems,
                                  .two_sided = out->two_sided, .n_bodies = iface->n_bodies};
    return SEAM_OK;
}
