/* Legacy-format VTK files (ASCII), readable by ParaView and VisIt. */
#ifndef SEAM_VTK_H
#define SEAM_VTK_H

#include <stddef.h>
#include <stdint.h>

#include "seam/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A named attribute: n_comp values per point (or cell), interleaved. */
typedef struct seam_vtk_field {
    const char *name;
    int n_comp;              /* 1 (scalars) or 3 (vectors; 2D data is padded with 0) */
    int data_dim;            /* components stored per entry in data: 1, 2 or 3 */
    const double *data;
} seam_vtk_field;

/* VTK cell types used by seam. */
enum { SEAM_VTK_VERTEX = 1, SEAM_VTK_LINE = 3, SEAM_VTK_TRIANGLE = 5, SEAM_VTK_QUAD = 9,
       SEAM_VTK_TETRA = 10 };

/* Points (dim 1, 2 or 3, padded to 3D) and cells of one type with
 * nodes_per_cell nodes each, as an UNSTRUCTURED_GRID; point and cell fields
 * optional. Returns SEAM_ERROR (message through host, may be NULL) on I/O failure. */
seam_status seam_vtk_write_cells(const char *path, const seam_host *host, const char *title,
                                 int dim, size_t n_points, const double *X,
                                 int cell_type, int nodes_per_cell, size_t n_cells,
                                 const int32_t *cells,
                                 const seam_vtk_field *point_fields, size_t n_point_fields,
                                 const seam_vtk_field *cell_fields, size_t n_cell_fields);

/* Cell-centred fields on a regular grid as STRUCTURED_POINTS (nz = 1 in 2D):
 * values x fastest, cell (i,j,k) centred at origin + (i+0.5, j+0.5, k+0.5) dx. */
seam_status seam_vtk_write_image(const char *path, const seam_host *host, const char *title,
                                 int nx, int ny, int nz, const double origin[3], double dx,
                                 const seam_vtk_field *fields, size_t n_fields);

#ifdef __cplusplus
}
#endif

#endif
