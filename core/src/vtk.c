#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "seam/log.h"
#include "seam/vtk.h"

/* Files are written under a temporary name and renamed when whole: a run
 * killed mid-write leaves the previous frame's file or none, never half of one. */
static FILE *open_out(const char *path, char *tmp, size_t tmp_size, const seam_host *host, const char *title)
{
    snprintf(tmp, tmp_size, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        seam_logf(host, SEAM_LOG_ERROR, "%s: cannot write: %s", path, strerror(errno));
        return NULL;
    }
    fprintf(f, "# vtk DataFile Version 3.0\n%s\nASCII\n", title ? title : "seam");
    return f;
}

static void write_fields(FILE *f, size_t n, const seam_vtk_field *fields, size_t n_fields)
{
    for (size_t a = 0; a < n_fields; a++) {
        const seam_vtk_field *fd = &fields[a];
        int dd = fd->data_dim > 0 ? fd->data_dim : fd->n_comp;
        if (fd->n_comp == 1)
            fprintf(f, "SCALARS %s double 1\nLOOKUP_TABLE default\n", fd->name);
        else
            fprintf(f, "VECTORS %s double\n", fd->name);
        for (size_t i = 0; i < n; i++) {
            if (fd->n_comp == 1) {
                fprintf(f, "%.9g\n", fd->data[i * (size_t)dd]);
                continue;
            }
            for (int c = 0; c < 3; c++)
                fprintf(f, "%.9g%c", c < dd ? fd->data[i * (size_t)dd + (size_t)c] : 0.0, c == 2 ? '\n' : ' ');
        }
    }
}

static seam_status close_out(FILE *f, const char *path, const char *tmp, const seam_host *host)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        seam_logf(host, SEAM_LOG_ERROR, "%s: write failed", path);
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

seam_status seam_vtk_write_cells(const char *path, const seam_host *host, const char *title,
                                 int dim, size_t n_points, const double *X,
                                 int cell_type, int nodes_per_cell, size_t n_cells,
                                 const int32_t *cells,
                                 const seam_vtk_field *point_fields, size_t n_point_fields,
                                 const seam_vtk_field *cell_fields, size_t n_cell_fields)
{
    char tmp[4200];
    FILE *f = open_out(path, tmp, sizeof tmp, host, title);
    if (!f)
        return SEAM_ERROR;
    fprintf(f, "DATASET UNSTRUCTURED_GRID\nPOINTS %zu double\n", n_points);
    for (size_t i = 0; i < n_points; i++)
        for (int c = 0; c < 3; c++)
            fprintf(f, "%.12g%c", c < dim ? X[i * (size_t)dim + (size_t)c] : 0.0, c == 2 ? '\n' : ' ');
    fprintf(f, "CELLS %zu %zu\n", n_cells, n_cells * (size_t)(nodes_per_cell + 1));
    for (size_t e = 0; e < n_cells; e++) {
        fprintf(f, "%d", nodes_per_cell);
        for (int k = 0; k < nodes_per_cell; k++)
            fprintf(f, " %d", cells[e * (size_t)nodes_per_cell + (size_t)k]);
        fputc('\n', f);
    }
    fprintf(f, "CELL_TYPES %zu\n", n_cells);
    for (size_t e = 0; e < n_cells; e++)
        fprintf(f, "%d\n", cell_type);
    if (n_point_fields) {
        fprintf(f, "POINT_DATA %zu\n", n_points);
        write_fields(f, n_points, point_fields, n_point_fields);
    }
    if (n_cell_fields) {
        fprintf(f, "CELL_DATA %zu\n", n_cells);
        write_fields(f, n_cells, cell_fields, n_cell_fields);
    }
    return close_out(f, path, tmp, host);
}

seam_status seam_vtk_write_image(const char *path, const seam_host *host, const char *title,
                                 int nx, int ny, int nz, const double origin[3], double dx,
                                 const seam_vtk_field *fields, size_t n_fields)
{
    char tmp[4200];
    FILE *f = open_out(path, tmp, sizeof tmp, host, title);
    if (!f)
        return SEAM_ERROR;
    /* Cell data on a grid of (n+1) corner points. */
    fprintf(f, "DATASET STRUCTURED_POINTS\nDIMENSIONS %d %d %d\nORIGIN %.12g %.12g %.12g\nSPACING %.12g %.12g %.12g\n",
            nx + 1, ny + 1, nz + 1, origin[0], origin[1], origin[2], dx, dx, dx);
    size_t n = (size_t)nx * (size_t)ny * (size_t)nz;
    fprintf(f, "CELL_DATA %zu\n", n);
    write_fields(f, n, fields, n_fields);
    return close_out(f, path, tmp, host);
}
