#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "seam/alloc.h"
#include "seam/log.h"
#include "seam/frame.h"
#include "seam/vtk.h"

/* Files are written under a temporary name and renamed when whole: a run
 * killed mid-write leaves the previous frame's file or none, never half of one. */
static FILE *open_out(const char *path, char *tmp, size_t tmp_size, const seam_host *host, const char *title)
{
    FILE *f = seam_output_open(path, tmp, tmp_size);
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
    if (seam_output_close(f, path, tmp, 0) != 0) {
        seam_logf(host, SEAM_LOG_ERROR, "%s: cannot write: %s", path, strerror(errno));
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

/* ---- XML ------------------------------------------------------------------ */

enum { BLOCK = 32768 };   /* uncompressed bytes per zlib block */

/* The appended section being built: every array's header and blocks. */
typedef struct blob {
    unsigned char *b;
    size_t n, cap;
    bool failed;   /* zlib refused a block */
} blob;

static unsigned char *blob_room(blob *a, size_t more)
{
    if (a->failed)
        return NULL;
    if (a->n + more > a->cap) {
        size_t cap = a->cap ? a->cap : 65536;
        while (cap < a->n + more)
            cap *= 2;
        a->b = seam_xrealloc(a->b, cap);
        a->cap = cap;
    }
    return a->b + a->n;
}

/* Appends nbytes of raw data as one compressed array; returns its offset. */
static uint64_t blob_array(blob *a, const void *data, size_t nbytes)
{
    uint64_t offset = a->n;
    size_t nb = (nbytes + BLOCK - 1) / BLOCK;
    size_t hsize = (3 + nb) * sizeof(uint64_t);
    if (!blob_room(a, hsize))
        return offset;
    size_t h0 = a->n;
    a->n += hsize;
    uint64_t head[3] = {nb, BLOCK, nbytes % BLOCK};
    memcpy(a->b + h0, head, sizeof head);
    for (size_t k = 0; k < nb; k++) {
        size_t len = k + 1 < nb || nbytes % BLOCK == 0 ? BLOCK : nbytes % BLOCK;
        uLongf room = compressBound((uLong)len);
        unsigned char *dst = blob_room(a, room);
        if (!dst)
            return offset;
        if (compress2(dst, &room, (const Bytef *)data + k * BLOCK, (uLong)len, Z_BEST_SPEED) != Z_OK) {
            a->failed = true;
            return offset;
        }
        uint64_t c = room;
        memcpy(a->b + h0 + (3 + k) * sizeof(uint64_t), &c, sizeof c);   /* a->b may have moved: index anew */
        a->n += room;
    }
    return offset;
}

/* One field as n x n_comp doubles, or floats when f32 (2D vectors padded with 0). */
static uint64_t blob_field(blob *a, size_t n, const seam_vtk_field *fd, bool f32)
{
    int dd = fd->data_dim > 0 ? fd->data_dim : fd->n_comp;
    size_t nc = (size_t)fd->n_comp;
    if (dd == fd->n_comp && !f32)
        return blob_array(a, fd->data, n * nc * sizeof(double));
    size_t width = f32 ? sizeof(float) : sizeof(double);
    unsigned char *v = seam_xmalloc_n(n * nc + 1, width);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < nc; c++) {
            double x = (int)c < dd ? fd->data[i * (size_t)dd + c] : 0.0;
            if (f32)
                ((float *)v)[i * nc + c] = (float)x;
            else
                ((double *)v)[i * nc + c] = x;
        }
    uint64_t off = blob_array(a, v, n * nc * width);
    free(v);
    return off;
}

static uint64_t blob_points(blob *a, int dim, size_t n, const double *X, bool f32)
{
    seam_vtk_field f = {"Points", 3, dim, X};
    return blob_field(a, n, &f, f32);
}

static void xml_fields(FILE *f, blob *a, const char *tag, size_t n, const seam_vtk_field *fields, size_t n_fields,
                       bool f32)
{
    if (!n_fields)
        return;
    fprintf(f, "      <%s>\n", tag);
    for (size_t i = 0; i < n_fields; i++) {
        uint64_t off = blob_field(a, n, &fields[i], f32);
        fprintf(f, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"appended\" "
                   "offset=\"%" PRIu64 "\"/>\n", f32 ? "Float32" : "Float64", fields[i].name, fields[i].n_comp, off);
    }
    fprintf(f, "      </%s>\n", tag);
}

static FILE *xml_open(const char *path, char *tmp, size_t tmp_size, const seam_host *host, const char *type)
{
    FILE *f = seam_output_open(path, tmp, tmp_size);
    if (!f) {
        seam_logf(host, SEAM_LOG_ERROR, "%s: cannot write: %s", path, strerror(errno));
        return NULL;
    }
    uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"%s\" version=\"1.0\" byte_order=\"%s\" "
               "header_type=\"UInt64\" compressor=\"vtkZLibDataCompressor\">\n",
            type, first ? "LittleEndian" : "BigEndian");
    return f;
}

static seam_status xml_close(FILE *f, blob *a, const char *path, const char *tmp, const seam_host *host,
                             const char *type)
{
    if (a->failed) {
        seam_output_close(f, path, tmp, ENOMEM);
        free(a->b);
        seam_logf(host, SEAM_LOG_ERROR, "%s: zlib failed compressing the data", path);
        return SEAM_ERROR;
    }
    fprintf(f, "  </%s>\n  <AppendedData encoding=\"raw\">\n_", type);
    if (a->n)
        fwrite(a->b, 1, a->n, f);
    fputs("\n  </AppendedData>\n</VTKFile>\n", f);
    free(a->b);
    return close_out(f, path, tmp, host);
}

seam_status seam_vtk_xml_image(const char *path, const seam_host *host,
                               int nx, int ny, int nz, const double origin[3], double dx,
                               const seam_vtk_field *fields, size_t n_fields, bool f32)
{
    char tmp[4200];
    FILE *f = xml_open(path, tmp, sizeof tmp, host, "ImageData");
    if (!f)
        return SEAM_ERROR;
    blob a = {0};
    fprintf(f, "  <ImageData WholeExtent=\"0 %d 0 %d 0 %d\" Origin=\"%.17g %.17g %.17g\" Spacing=\"%.17g %.17g %.17g\">\n"
               "    <Piece Extent=\"0 %d 0 %d 0 %d\">\n",
            nx, ny, nz, origin[0], origin[1], origin[2], dx, dx, dx, nx, ny, nz);
    xml_fields(f, &a, "CellData", (size_t)nx * (size_t)ny * (size_t)nz, fields, n_fields, f32);
    fputs("    </Piece>\n", f);
    return xml_close(f, &a, path, tmp, host, "ImageData");
}

/* Connectivity (Int64) and offsets (Int64) of n_cells cells of npc nodes. */
static void xml_topology(FILE *f, blob *a, int nodes_per_cell, size_t n_cells, const int32_t *cells)
{
    size_t npc = (size_t)nodes_per_cell, m = n_cells * npc;
    int64_t *v = seam_xmalloc_n(m + n_cells + 1, sizeof *v);
    for (size_t i = 0; i < m; i++)
        v[i] = cells ? cells[i] : (int64_t)i;
    uint64_t oc = blob_array(a, v, m * sizeof *v);
    for (size_t e = 0; e < n_cells; e++)
        v[e] = (int64_t)((e + 1) * npc);
    uint64_t oo = blob_array(a, v, n_cells * sizeof *v);
    free(v);
    fprintf(f, "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"appended\" offset=\"%" PRIu64 "\"/>\n"
               "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"appended\" offset=\"%" PRIu64 "\"/>\n",
            oc, oo);
}

seam_status seam_vtk_xml_cells(const char *path, const seam_host *host,
                               int dim, size_t n_points, const double *X,
                               int cell_type, int nodes_per_cell, size_t n_cells, const int32_t *cells,
                               const seam_vtk_field *point_fields, size_t n_point_fields,
                               const seam_vtk_field *cell_fields, size_t n_cell_fields, bool f32)
{
    char tmp[4200];
    FILE *f = xml_open(path, tmp, sizeof tmp, host, "UnstructuredGrid");
    if (!f)
        return SEAM_ERROR;
    blob a = {0};
    fprintf(f, "  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"%zu\" NumberOfCells=\"%zu\">\n", n_points, n_cells);
    xml_fields(f, &a, "PointData", n_points, point_fields, n_point_fields, f32);
    xml_fields(f, &a, "CellData", n_cells, cell_fields, n_cell_fields, f32);
    fprintf(f, "      <Points>\n        <DataArray type=\"%s\" NumberOfComponents=\"3\" format=\"appended\" "
               "offset=\"%" PRIu64 "\"/>\n      </Points>\n      <Cells>\n", f32 ? "Float32" : "Float64",
            blob_points(&a, dim, n_points, X, f32));
    xml_topology(f, &a, nodes_per_cell, n_cells, cells);
    uint8_t *types = seam_xmalloc(n_cells + 1);
    memset(types, cell_type, n_cells);
    fprintf(f, "        <DataArray type=\"UInt8\" Name=\"types\" format=\"appended\" offset=\"%" PRIu64 "\"/>\n"
               "      </Cells>\n    </Piece>\n", blob_array(&a, types, n_cells));
    free(types);
    return xml_close(f, &a, path, tmp, host, "UnstructuredGrid");
}

seam_status seam_vtk_xml_points(const char *path, const seam_host *host, int dim, size_t n_points,
                                const double *X, const seam_vtk_field *fields, size_t n_fields, bool f32)
{
    char tmp[4200];
    FILE *f = xml_open(path, tmp, sizeof tmp, host, "PolyData");
    if (!f)
        return SEAM_ERROR;
    blob a = {0};
    fprintf(f, "  <PolyData>\n    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" "
               "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n", n_points, n_points);
    xml_fields(f, &a, "PointData", n_points, fields, n_fields, f32);
    fprintf(f, "      <Points>\n        <DataArray type=\"%s\" NumberOfComponents=\"3\" format=\"appended\" "
               "offset=\"%" PRIu64 "\"/>\n      </Points>\n      <Verts>\n", f32 ? "Float32" : "Float64",
            blob_points(&a, dim, n_points, X, f32));
    xml_topology(f, &a, 1, n_points, NULL);
    fputs("      </Verts>\n    </Piece>\n", f);
    return xml_close(f, &a, path, tmp, host, "PolyData");
}

/* ---- frames and the .pvd collection ---------------------------------------- */

const char *const seam_vtk_format_names[] = {"xml", "legacy", "xml_float32", NULL};

seam_vtk_format seam_host_vtk_format(const seam_host *host)
{
    if (!host || host->abi < 6 || host->vtk_format > SEAM_VTK_XML_FLOAT32)
        return SEAM_VTK_XML;
    return (seam_vtk_format)host->vtk_format;
}

void seam_vtk_series_free(seam_vtk_series *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->e[i].file);
    for (size_t i = 0; i < s->n_parts; i++)
        free(s->parts[i]);
    free(s->e);
    free(s->parts);
    *s = (seam_vtk_series){.format = s->format};
}

/* The frame's file name into path, and into the frame's parts (not for legacy files). */
static void frame_path(seam_vtk_series *s, const char *dir, const char *stem, const char *ext, char *path,
                       size_t n)
{
    snprintf(path, n, "%s/%s.%s", dir, stem, s->format == SEAM_VTK_LEGACY ? "vtk" : ext);
    if (s->format == SEAM_VTK_LEGACY)
        return;
    if (s->n_parts == s->cap_parts) {
        size_t cap = s->cap_parts ? 2 * s->cap_parts : 4;
        s->parts = seam_xrealloc_n(s->parts, cap, sizeof *s->parts);
        s->cap_parts = cap;
    }
    size_t len = strlen(stem) + strlen(ext) + 2;
    char *file = seam_xmalloc(len);
    snprintf(file, len, "%s.%s", stem, ext);
    s->parts[s->n_parts++] = file;
}

seam_status seam_vtk_frame_image(seam_vtk_series *s, const seam_host *host, const char *dir, const char *stem,
                                 int nx, int ny, int nz, const double origin[3], double dx,
                                 const seam_vtk_field *fields, size_t n_fields)
{
    char path[4200];
    frame_path(s, dir, stem, "vti", path, sizeof path);
    if (s->format == SEAM_VTK_LEGACY)
        return seam_vtk_write_image(path, host, stem, nx, ny, nz, origin, dx, fields, n_fields);
    return seam_vtk_xml_image(path, host, nx, ny, nz, origin, dx, fields, n_fields,
                              s->format == SEAM_VTK_XML_FLOAT32);
}

seam_status seam_vtk_frame_cells(seam_vtk_series *s, const seam_host *host, const char *dir, const char *stem,
                                 int dim, size_t n_points, const double *X,
                                 int cell_type, int nodes_per_cell, size_t n_cells, const int32_t *cells,
                                 const seam_vtk_field *point_fields, size_t n_point_fields)
{
    char path[4200];
    frame_path(s, dir, stem, "vtu", path, sizeof path);
    if (s->format == SEAM_VTK_LEGACY)
        return seam_vtk_write_cells(path, host, stem, dim, n_points, X, cell_type, nodes_per_cell, n_cells, cells,
                                    point_fields, n_point_fields, NULL, 0);
    return seam_vtk_xml_cells(path, host, dim, n_points, X, cell_type, nodes_per_cell, n_cells, cells,
                              point_fields, n_point_fields, NULL, 0, s->format == SEAM_VTK_XML_FLOAT32);
}

seam_status seam_vtk_frame_points(seam_vtk_series *s, const seam_host *host, const char *dir, const char *stem,
                                  int dim, size_t n_points, const double *X,
                                  const seam_vtk_field *fields, size_t n_fields)
{
    char path[4200];
    frame_path(s, dir, stem, "vtp", path, sizeof path);
    if (s->format != SEAM_VTK_LEGACY)
        return seam_vtk_xml_points(path, host, dim, n_points, X, fields, n_fields,
                                   s->format == SEAM_VTK_XML_FLOAT32);
    int32_t *cells = seam_xmalloc_n(n_points + 1, sizeof *cells);
    for (size_t i = 0; i < n_points; i++)
        cells[i] = (int32_t)i;
    seam_status st = seam_vtk_write_cells(path, host, stem, dim, n_points, X, SEAM_VTK_VERTEX, 1, n_points, cells,
                                          fields, n_fields, NULL, 0);
    free(cells);
    return st;
}

static void series_push(seam_vtk_series *s, double t, int part, char *file)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        s->e = seam_xrealloc_n(s->e, cap, sizeof *s->e);
        s->cap = cap;
    }
    s->e[s->n++] = (seam_vtk_entry){t, part, file};
}

/* A resumed run: the entries before t of the collection an earlier process wrote. */
static void series_resume(seam_vtk_series *s, const char *pvd, double t)
{
    FILE *f = fopen(pvd, "r");
    if (!f)
        return;
    char line[4400], file[4200];
    double te;
    int part;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, " <DataSet timestep=\"%lf\" part=\"%d\" file=\"%4199[^\"]\"", &te, &part, file) == 3 &&
            te < t)
            series_push(s, te, part, seam_xstrdup(file));
    fclose(f);
}

seam_status seam_vtk_frame_done(seam_vtk_series *s, const seam_host *host, const char *dir, const char *name,
                                double t)
{
    if (s->format == SEAM_VTK_LEGACY)
        return SEAM_OK;
    char pvd[4200], tmp[4300];
    snprintf(pvd, sizeof pvd, "%s/%s.pvd", dir, name);
    if (!s->started)
        series_resume(s, pvd, t);
    s->started = true;
    for (size_t i = 0; i < s->n_parts; i++) {
        series_push(s, t, (int)i, s->parts[i]);   /* the series owns the name now */
        s->parts[i] = NULL;
    }
    s->n_parts = 0;
    FILE *f = seam_output_open(pvd, tmp, sizeof tmp);
    if (!f) {
        seam_logf(host, SEAM_LOG_ERROR, "%s: cannot write: %s", pvd, strerror(errno));
        return SEAM_ERROR;
    }
    fputs("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\">\n  <Collection>\n", f);
    for (size_t i = 0; i < s->n; i++)
        fprintf(f, "    <DataSet timestep=\"%.17g\" part=\"%d\" file=\"%s\"/>\n", s->e[i].t, s->e[i].part,
                s->e[i].file);
    fputs("  </Collection>\n</VTKFile>\n", f);
    return close_out(f, pvd, tmp, host);
}
