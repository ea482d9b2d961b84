/* PNG frames of 2D runs (Cairo): a colour-mapped raster with the interface
 * (its segments and points) drawn on top, so a person can look at a run. */
#ifndef SEAM_PICTURE_H
#define SEAM_PICTURE_H

#include "seam/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct seam_picture_opts {
    double range[2];     /* values mapped to the ends of the colour map; range[0] == range[1]: the raster's min/max */
    int pixels_per_cell; /* 0: chosen so the longer side is about 512 pixels */
} seam_picture_opts;

/* Width and height in pixels that seam_picture_write_png will produce. */
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
