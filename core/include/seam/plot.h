/* Line plots into PNG files (Cairo): one or more series, axes with tick
 * labels, axis titles, a legend, a linear or log10 y axis, ranges chosen
 * from the data. Used by the run report (coupler/report.c). */
#ifndef SEAM_PLOT_H
#define SEAM_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum seam_plot_style {
    SEAM_PLOT_LINES = 0,     /* points joined; an isolated point is drawn as a dot */
    SEAM_PLOT_STEPS,         /* each value held until the next x (iterations per step) */
    SEAM_PLOT_POINTS         /* dots only */
} seam_plot_style;

typedef struct seam_plot_series {
    const char *label;       /* in the legend; NULL: not listed */
    const double *x, *y;     /* n values each; a point with a non-finite value (or, on a
                                log axis, y <= 0) is skipped and breaks the line */
    size_t n;
    seam_plot_style style;
} seam_plot_series;

typedef struct seam_plot {
    const char *title;       /* above the plot; may be NULL */
    const char *x_label;     /* axis titles with units, "time (s)"; may be NULL */
    const char *y_label;
    bool log_y;              /* log10 y axis, ticks at powers of ten */
    int width, height;       /* pixels; 0: 800 x 500 */
    const seam_plot_series *series;
    size_t n_series;
    bool y_from_zero;        /* linear axis: the range includes 0 (counts) */
} seam_plot;

typedef enum seam_plot_result {
    SEAM_PLOT_OK = 0,
    SEAM_PLOT_EMPTY,         /* no series has a point that can be drawn: nothing written */
    SEAM_PLOT_ERROR          /* the image could not be made or written */
} seam_plot_result;

/* Where the data lands in the image. */
typedef struct seam_plot_frame {
    int width, height;
    double x_lo, x_hi;       /* the x axis' range */
    double y_lo, y_hi;       /* the y axis' range (log10 of the values on a log axis) */
    double x_step, y_step;   /* between ticks (decades on a log axis) */
    bool log_y;
    double left, top, right, bottom;   /* the plot area, pixels from the top-left corner */
} seam_plot_frame;

/* The axes' ranges and the plot area plot would be drawn with; SEAM_PLOT_EMPTY
 * when there is nothing to draw. */
seam_plot_result seam_plot_layout(const seam_plot *plot, seam_plot_frame *frame);
/* The pixel (x right, y down) where data point (x, y) is drawn. */
void seam_plot_to_pixel(const seam_plot_frame *frame, double x, double y, double *px, double *py);
/* A tick spacing of 1, 2 or 5 times a power of ten giving about target
 * intervals over span (> 0). */
double seam_plot_tick_step(double span, int target);
/* The colour of series i (components in [0, 1]). */
void seam_plot_colour(size_t i, double rgb[3]);
/* Draw plot into the PNG file path. On anything but SEAM_PLOT_OK, err says
 * why (and no file was written when SEAM_PLOT_EMPTY). */
seam_plot_result seam_plot_write_png(const char *path, const seam_plot *plot, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
