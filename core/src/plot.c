/* Line plots with Cairo: axes at "nice" numbers, a legend to the right. */
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "seam/plot.h"

enum { DEFAULT_W = 800, DEFAULT_H = 500, MAX_LEGEND = 16 };
static const double TICK_FONT = 12.0, LABEL_FONT = 13.0, TITLE_FONT = 15.0;
static const char *const FONT = "sans-serif";

void seam_plot_colour(size_t i, double rgb[3])
{
    /* Distinct on white and for the common colour blindnesses (Okabe-Ito, then darker variants). */
    static const double palette[8][3] = {
        {0.000, 0.447, 0.698}, {0.835, 0.369, 0.000}, {0.000, 0.620, 0.451}, {0.800, 0.475, 0.655},
        {0.902, 0.624, 0.000}, {0.337, 0.706, 0.914}, {0.000, 0.000, 0.000}, {0.600, 0.600, 0.200}};
    const double *c = palette[i % 8];
    double shade = (i / 8) % 2 ? 0.6 : 1.0;
    for (int k = 0; k < 3; k++)
        rgb[k] = c[k] * shade;
}

/* Whether point k of s is drawn, and its y as plotted (log10 on a log axis). */
static bool usable(const seam_plot_series *s, size_t k, bool log_y, double *y)
{
    double x = s->x[k], v = s->y[k];
    if (!isfinite(x) || !isfinite(v) || (log_y && !(v > 0.0)))
        return false;
    *y = log_y ? log10(v) : v;
    return true;
}

/* A step of 1, 2 or 5 times a power of ten giving about `target` intervals over span. */
double seam_plot_tick_step(double span, int target)
{
    double raw = span / target, mag = pow(10.0, floor(log10(raw))), norm = raw / mag;
    return (norm < 1.5 ? 1.0 : norm < 3.5 ? 2.0 : norm < 7.5 ? 5.0 : 10.0) * mag;
}

/* Widen [lo, hi] to whole ticks; a single value gets a range around it. */
static void nice_range(double *lo, double *hi, int target)
{
    if (!(*hi - *lo > 1e-9 * fmax(fabs(*lo), fabs(*hi)))) {   /* one value, or round-off around it */
        *lo = *hi = 0.5 * (*lo + *hi);
        double pad = *lo != 0.0 ? 0.1 * fabs(*lo) : 1.0;
        *lo -= pad;
        *hi += pad;
    }
    double step = seam_plot_tick_step(*hi - *lo, target);
    *lo = floor(*lo / step + 1e-9) * step;
    *hi = ceil(*hi / step - 1e-9) * step;
}

/* A tick's value with the digits that tell it from its neighbours (at least 6 significant). */
static void tick_label(char *buf, size_t n, double v, double step, double lo, double hi)
{
    if (fabs(v) < 1e-9 * step)
        v = 0.0;
    int digits = (int)ceil(log10(fmax(fabs(lo), fabs(hi)) / step)) + 1;
    snprintf(buf, n, "%.*g", digits < 6 ? 6 : digits > 15 ? 15 : digits, v);
}

static void y_tick_label(const seam_plot_frame *f, char *buf, size_t n, double v)
{
    if (f->log_y)
        snprintf(buf, n, "1e%d", (int)lround(v));
    else
        tick_label(buf, n, v, f->y_step, f->y_lo, f->y_hi);
}

static size_t legend_entries(const seam_plot *plot)
{
    size_t n = 0;
    for (size_t i = 0; i < plot->n_series; i++)
        n += plot->series[i].label != NULL;
    return n;
}

static double text_width(cairo_t *cr, const char *text)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, text, &e);
    return e.x_advance;
}

static double legend_width(cairo_t *cr, const seam_plot *plot)
{
    if (!legend_entries(plot))
        return 0.0;
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, TICK_FONT);
    double w = text_width(cr, "and 999 more");
    for (size_t i = 0; i < plot->n_series; i++)
        if (plot->series[i].label)
            w = fmax(w, text_width(cr, plot->series[i].label));
    return fmin(w, 260.0) + 44.0;   /* sample line, gaps; very long labels are cut by the image edge */
}

static seam_plot_result layout(const seam_plot *plot, cairo_t *cr, seam_plot_frame *f)
{
    memset(f, 0, sizeof *f);
    f->width = plot->width > 0 ? plot->width : DEFAULT_W;
    f->height = plot->height > 0 ? plot->height : DEFAULT_H;
    f->log_y = plot->log_y;
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (size_t i = 0; i < plot->n_series; i++) {
        const seam_plot_series *s = &plot->series[i];
        for (size_t k = 0; s->x && s->y && k < s->n; k++) {
            double y;
            if (!usable(s, k, plot->log_y, &y))
                continue;
            xlo = fmin(xlo, s->x[k]);
            xhi = fmax(xhi, s->x[k]);
            ylo = fmin(ylo, y);
            yhi = fmax(yhi, y);
        }
    }
    if (!(xlo <= xhi))
        return SEAM_PLOT_EMPTY;
    f->top = plot->title ? 40.0 : 16.0;
    f->bottom = f->height - (plot->x_label ? 56.0 : 32.0);
    /* About one tick per 60 pixels up and 100 pixels across. */
    int y_ticks = (int)fmax(2.0, (f->bottom - f->top) / 60.0);
    if (plot->log_y) {
        ylo = floor(ylo + 1e-9);
        yhi = ceil(yhi - 1e-9);
        if (yhi <= ylo)
            yhi = ylo + 1.0;
        f->y_step = ceil((yhi - ylo) / (y_ticks + 1));   /* whole decades */
    } else {
        if (plot->y_from_zero) {
            ylo = fmin(ylo, 0.0);
            yhi = fmax(yhi, 0.0);
        }
        nice_range(&ylo, &yhi, y_ticks);
        f->y_step = seam_plot_tick_step(yhi - ylo, y_ticks);
    }
    f->y_lo = ylo, f->y_hi = yhi;
    /* Room on the left for the widest y tick label and the axis title. */
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, TICK_FONT);
    double widest = 0.0;
    char buf[64];
    for (double v = ylo; v <= yhi + 1e-9 * f->y_step; v += f->y_step) {
        y_tick_label(f, buf, sizeof buf, v);
        widest = fmax(widest, text_width(cr, buf));
    }
    f->left = ceil(widest) + 13.0 + (plot->y_label ? 26.0 : 4.0);
    f->right = f->width - 20.0 - legend_width(cr, plot);
    int x_ticks = (int)fmax(2.0, (f->right - f->left) / 100.0);
    nice_range(&xlo, &xhi, x_ticks);
    f->x_step = seam_plot_tick_step(xhi - xlo, x_ticks);
    f->x_lo = xlo, f->x_hi = xhi;
    return f->right - f->left > 40 && f->bottom - f->top > 40 ? SEAM_PLOT_OK : SEAM_PLOT_ERROR;
}

seam_plot_result seam_plot_layout(const seam_plot *plot, seam_plot_frame *frame)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(s);
    seam_plot_result r = layout(plot, cr, frame);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return r;
}

void seam_plot_to_pixel(const seam_plot_frame *f, double x, double y, double *px, double *py)
{
    double v = f->log_y ? log10(y) : y;
    *px = f->left + (x - f->x_lo) / (f->x_hi - f->x_lo) * (f->right - f->left);
    *py = f->bottom - (v - f->y_lo) / (f->y_hi - f->y_lo) * (f->bottom - f->top);
}


static void show_text_at(cairo_t *cr, const char *text, double x, double y, double align_x, double align_y)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, text, &e);
    cairo_move_to(cr, x - align_x * e.x_advance, y - e.y_bearing - align_y * e.height);
    cairo_show_text(cr, text);
}

static void draw_axes(cairo_t *cr, const seam_plot *plot, const seam_plot_frame *f)
{
    double W = f->right - f->left, H = f->bottom - f->top;
    char buf[64];
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, TICK_FONT);
    cairo_set_line_width(cr, 1.0);
    /* x ticks and grid */
    double xs = f->x_step;
    for (double v = f->x_lo; v <= f->x_hi + 1e-9 * xs; v += xs) {
        double px = round(f->left + (v - f->x_lo) / (f->x_hi - f->x_lo) * W) + 0.5;
        cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
        cairo_move_to(cr, px, f->top);
        cairo_line_to(cr, px, f->bottom);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        cairo_move_to(cr, px, f->bottom);
        cairo_line_to(cr, px, f->bottom + 5);
        cairo_stroke(cr);
        tick_label(buf, sizeof buf, v, xs, f->x_lo, f->x_hi);
        show_text_at(cr, buf, px, f->bottom + 8, 0.5, 0.0);
    }
    /* y ticks and grid: decades on a log axis (every k-th when there are many) */
    double ys = f->y_step;
    for (double v = f->y_lo; v <= f->y_hi + 1e-9 * ys; v += ys) {
        double py = round(f->bottom - (v - f->y_lo) / (f->y_hi - f->y_lo) * H) + 0.5;
        cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
        cairo_move_to(cr, f->left, py);
        cairo_line_to(cr, f->right, py);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        cairo_move_to(cr, f->left - 5, py);
        cairo_line_to(cr, f->left, py);
        cairo_stroke(cr);
        y_tick_label(f, buf, sizeof buf, v);
        show_text_at(cr, buf, f->left - 8, py, 1.0, 0.5);
    }
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_rectangle(cr, f->left + 0.5, f->top + 0.5, W - 1.0, H - 1.0);
    cairo_stroke(cr);
    cairo_set_font_size(cr, LABEL_FONT);
    if (plot->x_label)
        show_text_at(cr, plot->x_label, f->left + 0.5 * W, f->height - 24.0, 0.5, 0.0);
    if (plot->y_label) {
        cairo_save(cr);
        cairo_translate(cr, 18.0, f->top + 0.5 * H);
        cairo_rotate(cr, -M_PI / 2);
        show_text_at(cr, plot->y_label, 0.0, 0.0, 0.5, 0.0);
        cairo_restore(cr);
    }
    if (plot->title) {
        cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
        cairo_set_font_size(cr, TITLE_FONT);
        show_text_at(cr, plot->title, 0.5 * f->width, 12.0, 0.5, 0.0);
    }
}

static void dot(cairo_t *cr, double x, double y)
{
    cairo_new_sub_path(cr);
    cairo_arc(cr, x, y, 2.5, 0.0, 2.0 * M_PI);
    cairo_fill(cr);
}

static void draw_series(cairo_t *cr, const seam_plot_series *s, const seam_plot_frame *f)
{
    double W = f->right - f->left, H = f->bottom - f->top;
#define PX(x) (f->left + ((x) - f->x_lo) / (f->x_hi - f->x_lo) * W)
#define PY(y) (f->bottom - ((y) - f->y_lo) / (f->y_hi - f->y_lo) * H)
    size_t run = 0;          /* points in the current unbroken piece */
    double last_x = 0.0, last_y = 0.0, y;
    for (size_t k = 0; k < s->n; k++) {
        if (!usable(s, k, f->log_y, &y)) {
            if (run == 1 && s->style != SEAM_PLOT_POINTS)
                dot(cr, PX(last_x), PY(last_y));
            else if (run > 1)
                cairo_stroke(cr);
            run = 0;
            continue;
        }
        double x = s->x[k];
        if (s->style == SEAM_PLOT_POINTS)
            dot(cr, PX(x), PY(y));
        else if (run == 0)
            cairo_move_to(cr, PX(x), PY(y));
        else {
            if (s->style == SEAM_PLOT_STEPS)
                cairo_line_to(cr, PX(x), PY(last_y));
            cairo_line_to(cr, PX(x), PY(y));
        }
        last_x = x, last_y = y;
        run++;
    }
    if (run == 1 && s->style != SEAM_PLOT_POINTS)
        dot(cr, PX(last_x), PY(last_y));
    else if (run > 1 && s->style != SEAM_PLOT_POINTS)
        cairo_stroke(cr);
#undef PX
#undef PY
}

static void draw_legend(cairo_t *cr, const seam_plot *plot, const seam_plot_frame *f)
{
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, TICK_FONT);
    double x = f->right + 14.0, y = f->top + 8.0;
    size_t shown = 0, total = legend_entries(plot);
    for (size_t i = 0; i < plot->n_series; i++) {
        if (!plot->series[i].label)
            continue;
        if (shown == MAX_LEGEND - 1 && total > MAX_LEGEND) {
            char more[32];
            snprintf(more, sizeof more, "and %zu more", total - shown);
            cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
            show_text_at(cr, more, x + 26.0, y, 0.0, 0.5);
            break;
        }
        double rgb[3];
        seam_plot_colour(i, rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        if (plot->series[i].style == SEAM_PLOT_POINTS)
            dot(cr, x + 10.0, y);
        else {
            cairo_set_line_width(cr, 2.5);
            cairo_move_to(cr, x, y);
            cairo_line_to(cr, x + 20.0, y);
            cairo_stroke(cr);
        }
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        show_text_at(cr, plot->series[i].label, x + 26.0, y, 0.0, 0.5);
        y += 20.0;
        shown++;
    }
}

seam_plot_result seam_plot_write_png(const char *path, const seam_plot *plot, char *err, size_t errlen)
{
    int w = plot->width > 0 ? plot->width : DEFAULT_W, h = plot->height > 0 ? plot->height : DEFAULT_H;
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
        snprintf(err, errlen, "%s: cannot make a %dx%d image: %s", path, w, h,
                 cairo_status_to_string(cairo_surface_status(surf)));
        cairo_surface_destroy(surf);
        return SEAM_PLOT_ERROR;
    }
    cairo_t *cr = cairo_create(surf);
    seam_plot_frame f;
    seam_plot_result r = layout(plot, cr, &f);
    if (r == SEAM_PLOT_EMPTY)
        snprintf(err, errlen, "%s: nothing to plot (no finite%s values)", path, plot->log_y ? " positive" : "");
    else if (r == SEAM_PLOT_ERROR)
        snprintf(err, errlen, "%s: %dx%d pixels leave no room for the plot", path, w, h);
    if (r != SEAM_PLOT_OK) {
        cairo_destroy(cr);
        cairo_surface_destroy(surf);
        return r;
    }
    cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
    cairo_paint(cr);
    draw_axes(cr, plot, &f);
    cairo_save(cr);
    cairo_rectangle(cr, f.left - 3.0, f.top - 3.0, f.right - f.left + 6.0, f.bottom - f.top + 6.0);
    cairo_clip(cr);   /* a little beyond the axes: a dot on the edge stays whole */
    cairo_set_line_width(cr, 1.8);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (size_t i = 0; i < plot->n_series; i++) {
        const seam_plot_series *s = &plot->series[i];
        if (!s->x || !s->y)
            continue;
        double rgb[3];
        seam_plot_colour(i, rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        draw_series(cr, s, &f);
    }
    cairo_restore(cr);
    draw_legend(cr, plot, &f);
    cairo_destroy(cr);
    char tmp[4200];   /* written whole under a temporary name, then renamed: never a cut PNG */
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    errno = 0;
    cairo_status_t st = cairo_surface_write_to_png(surf, tmp);
    cairo_surface_destroy(surf);
    if (st != CAIRO_STATUS_SUCCESS || rename(tmp, path) != 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot write PNG: %s%s%s", path, st != CAIRO_STATUS_SUCCESS ?
                 cairo_status_to_string(st) : "", st != CAIRO_STATUS_SUCCESS && e ? ": " : "", e ? strerror(e) : "");
        remove(tmp);
        return SEAM_PLOT_ERROR;
    }
    return SEAM_PLOT_OK;
}
