/* Reading a seam_raster (cell-centred samples of a fluid field, plugin.h)
 * anywhere in its box: the value at a point (probes), and the plane of a
 * 3D raster cut at a coordinate (pictures of 3D runs). Both interpolate
 * linearly between cell centres, so a field linear in space is read back
 * exactly inside the box of the centres. */
#ifndef SEAM_RASTER_H
#define SEAM_RASTER_H

#include <stdbool.h>
#include <stddef.h>

#include "seam/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether x (x y z; z ignored when nz = 1) lies in the box the raster's
 * cells cover, [origin, origin + n dx] on each axis. */
bool seam_raster_contains(const seam_raster *r, const double x[3]);

/* The value at x: bilinear (nz = 1) or trilinear between the centres of
 * the cells around x; past the outermost centres, the outermost value
 * (constant extrapolation). */
double seam_raster_at(const seam_raster *r, const double x[3]);

/* The axes of the plane normal to axis (0 x, 1 y, 2 z) as a picture shows
 * them: right and up. Normal z: x right, y up; normal y: x right, z up;
 * normal x: y right, z up. */
void seam_raster_plane_axes(int axis, int *right, int *up);

/* The plane normal to axis at coordinate `at` of a 3D raster as a 2D raster
 * (nz = 1) in the axes of seam_raster_plane_axes: values interpolated
 * linearly between the two layers of cells whose centres bracket `at`
 * (the outermost layer past them). data receives the values (n_right x
 * n_up, right fastest) and becomes out->data. */
void seam_raster_slice(const seam_raster *r, int axis, double at, double *data, seam_raster *out);

#ifdef __cplusplus
}
#endif

#endif
