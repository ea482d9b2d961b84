/* PNG frames of 2D runs (Cairo): a colour-mapped raster with the interface
 * (its segments and points) drawn on top, so a person can look at a run;
 * optionally a colour bar, the time, filled solids and a free surface. */
#ifndef SEAM_PICTURE_H
#define SEAM_PICTURE_H

#include <stdbool.h>

#include "seam/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct seam_picture_opts {
    double range[2];     /* values mapped to the ends of the colour map; range[0] == range[1]: the raster's min/max */
    int pixels_per_cell; /* 0: chosen so the longer side is about 512 pixels */
    /* What makes a frame readable; all zero: the bare field and interface. */
    bool colour_bar;     /* a scale to the right of the field: colours, values, label and the raster's units */
    const char *label;   /* the field's name on the colour bar; may be NULL */
    bool show_time;      /* "t = ... s" in the top-left corner */
    double time;         /* s */
    bool fill_solids;    /* volumes (closed one-sided outlines) filled, shells drawn as thick lines */
    const seam_raster *surface; /* its zero contour drawn (a liquid's level set: the free surface); NULL: none */
} seam_picture_opts;

/* Width in pixels of the colour bar's panel, right of the field. */
enum { SEAM_PICTURE_BAR_WIDTH = 120 };

/* Fix opts->range from raster when it is not set yet and raster's finite
 * values are not all equal (a run's first frames are often uniform), so every
 * later frame uses the same colours. Returns whether the range is set. */
bool seam_picture_fix_range(seam_picture_opts *opts, const seam_raster *raster);

/* Width and height in pixels that seam_picture_write_png will produce (the
 * field's cells, plus SEAM_PICTURE_BAR_WIDTH with a colour bar). */
void seam_picture_size(const seam_raster *raster, const seam_picture_opts *opts, int *width, int *height);

/* Write raster (nz must be 1) as a PNG with y up, then draw iface's segments
 * and points at positions X (n_points*2, or iface->X when X is NULL); iface
 * may be NULL. opts may be NULL (automatic range and size). Returns SEAM_ERROR
 * after a message through host (may be NULL) when the raster is not 2D or the
 * file cannot be written. */
seam_status seam_picture_write_png(const char *path, const seam_raster *raster,
                                   const seam_interface *iface, const double *X,
                                   const seam_picture_opts *opts, const seam_host *host);

#ifdef __cplusplus
}
#endif

#endif
