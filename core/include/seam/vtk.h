/* VTK files readable by ParaView and VisIt: legacy ASCII, and XML with
 * zlib-compressed binary data plus .pvd collections that carry the times. */
#ifndef SEAM_VTK_H
#define SEAM_VTK_H

#include <stdbool.h>
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

/* ---- VTK XML files and .pvd time series -------------------------------- *
 * The XML writers store every array as appended raw binary, zlib-compressed
 * in the block layout of vtkZLibDataCompressor, with UInt64 headers: per
 * array [number of blocks, block size, size of the last partial block (0
 * when the last block is full), compressed size of each block], then the
 * compressed blocks. Points and fields are Float64 (bit for bit the
 * doubles given), or Float32 (each double rounded to the nearest float)
 * when f32; connectivity and offsets Int64, cell types UInt8. */

/* Cell-centred fields on a regular grid as ImageData (.vti), cell (i,j,k)
 * centred at origin + (i+0.5, j+0.5, k+0.5) dx (nz = 1 in 2D). */
seam_status seam_vtk_xml_image(const char *path, const seam_host *host,
                               int nx, int ny, int nz, const double origin[3], double dx,
                               const seam_vtk_field *fields, size_t n_fields, bool f32);

/* Points and cells of one type as UnstructuredGrid (.vtu); arguments as for
 * seam_vtk_write_cells. */
seam_status seam_vtk_xml_cells(const char *path, const seam_host *host,
                               int dim, size_t n_points, const double *X,
                               int cell_type, int nodes_per_cell, size_t n_cells, const int32_t *cells,
                               const seam_vtk_field *point_fields, size_t n_point_fields,
                               const seam_vtk_field *cell_fields, size_t n_cell_fields, bool f32);

/* Points with point fields as PolyData (.vtp), one vertex cell per point. */
seam_status seam_vtk_xml_points(const char *path, const seam_host *host, int dim, size_t n_points,
                                const double *X, const seam_vtk_field *fields, size_t n_fields, bool f32);

/* Which files write_output makes: a host setting (seam_host.vtk_format),
 * from the participant's "vtk" key or the run's output.vtk. XML with
 * Float64 values (lossless), legacy ASCII, or XML with Float32 values. */
typedef enum seam_vtk_format { SEAM_VTK_XML = 0, SEAM_VTK_LEGACY = 1, SEAM_VTK_XML_FLOAT32 = 2 } seam_vtk_format;
extern const char *const seam_vtk_format_names[];   /* {"xml", "legacy", "xml_float32", NULL} */
/* The host's format; SEAM_VTK_XML from a host older than ABI 6 (which has no such field). */
seam_vtk_format seam_host_vtk_format(const seam_host *host);

/* The frames one participant writes, as a ParaView collection. */
typedef struct seam_vtk_entry {
    double t;
    int part;
    char *file;   /* relative to the .pvd's directory */
} seam_vtk_entry;

typedef struct seam_vtk_series {
    seam_vtk_format format;
    bool started;          /* the .pvd of an earlier process (a resumed run) was read */
    size_t n, cap;         /* entries written so far */
    seam_vtk_entry *e;
    size_t n_parts, cap_parts;   /* files of the frame being written */
    char **parts;
} seam_vtk_series;

void seam_vtk_series_free(seam_vtk_series *s);

/* One file of a frame, DIR/STEM plus ".vti" (XML, Float32 for
 * SEAM_VTK_XML_FLOAT32) or ".vtk" (legacy). */
seam_status seam_vtk_frame_image(seam_vtk_series *s, const seam_host *host, const char *dir, const char *stem,
                                 int nx, int ny, int nz, const double origin[3], double dx,
                                 const seam_vtk_field *fields, size_t n_fields);
/* DIR/STEM.vtu or .vtk: as seam_vtk_xml_cells. */
seam_status seam_vtk_frame_cells(seam_vtk_series *s, const seam_host *host, const char *dir, const char *stem,
                                 int dim, size_t n_points, const double *X,
                                 int cell_type, int nodes_per_cell, size_t n_cells, const int32_t *cells,
                                 const seam_vtk_field *point_fields, size_t n_point_fields);
/* DIR/STEM.vtp or .vtk (legacy: vertex cells): as seam_vtk_xml_points. */
seam_status seam_vtk_frame_points(seam_vtk_series *s, const seam_host *host, const char *dir, const char *stem,
                                  int dim, size_t n_points, const double *X,
                                  const seam_vtk_field *fields, size_t n_fields);
/* Ends the frame at time t (s): XML adds its files, part 0, 1, ... in the
 * order written, to DIR/NAME.pvd and rewrites that file whole (temporary
 * name, then rename), so a killed run leaves a valid collection. When the
 * series is new and DIR/NAME.pvd exists (a resumed run), its entries before
 * t are kept. Legacy writes no collection. */
seam_status seam_vtk_frame_done(seam_vtk_series *s, const seam_host *host, const char *dir, const char *name,
                                double t);

#ifdef __cplusplus
}
#endif

#endif
