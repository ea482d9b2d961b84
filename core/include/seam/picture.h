/* PNG frames (Cairo): a colour-mapped 2D raster with the interface (its
 * segments and points) drawn on top, so a person can look at a run;
 * optionally a colour bar, the time, filled solids and a free surface.
 * 3D runs are drawn as a plane through the field (seam_raster_slice) with
 * the outline where the plane cuts the interface (seam_picture_cut_plane). */
#ifndef SEAM_PICTURE_H
#define SEAM_PICTURE_H

#include <stdbool.h>
#include <stdint.h>

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
    bool range_fixed;    /* range is the scene's: seam_picture_track_range keeps it as it is */
} seam_picture_opts;

/* Where a plane cuts a 3D interface (triangles): a 2D interface of segments
 * in the plane's axes (seam_raster_plane_axes in seam/raster.h: right, up),
 * to be drawn on a slice of a 3D field. A triangle crossed by the plane
 * gives one segment between the points where two of its edges cross it;
 * triangles sharing an edge share that point, so a closed surface cuts
 * into closed outlines. A one-sided triangle's segment runs so that its 2D
 * outward normal (dy, -dx) points along the triangle's normal (b - a) x
 * (c - a) seen in the plane: a volume's outline runs counter-clockwise, as
 * a 2D interface's does (plugin.h). A vertex on the plane counts as lying
 * above it. */
typedef struct seam_picture_cut {
    seam_interface iface;    /* dim 2, nodes_per_elem 2; its arrays are the ones below */
    double *X;
    int32_t *elems, *body;
    uint8_t *two_sided;
} seam_picture_cut;

/* Cut iface at positions X (n_points*3, or iface->X when NULL) with the
 * plane normal to axis (0, 1, 2) at coordinate at. SEAM_ERROR (message
 * through host, may be NULL) when iface is not of triangles in 3D.
 * Free with seam_picture_cut_free. */
seam_status seam_picture_cut_plane(const seam_interface *iface, const double *X, int axis, double at,
                                   seam_picture_cut *out, const seam_host *host);
void seam_picture_cut_free(seam_picture_cut *cut);

/* Width in pixels of the colour bar's panel, right of the field. */
enum { SEAM_PICTURE_BAR_WIDTH = 120 };

/* Follow a run's values in opts->range, frame after frame: set it from
 * raster's finite values when it is not set yet and they are not all equal
 * (a run's first frames are often uniform), and widen it to take in each
 * later raster's, so no frame saturates and equal colours mean equal values
 * from one frame to the next while the range does not change. With
 * opts->range_fixed (the scene gave the range) it is left alone. Returns
 * whether the range is set. */
bool seam_picture_track_range(seam_picture_opts *opts, const seam_raster *raster);

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
