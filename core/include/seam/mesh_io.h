/* Surface meshes from files: seam's one Wavefront OBJ reader, shared by the
 * solids (solid_fem's cloth, solid_rigid's mesh shapes).
 *
 * Read are "v x y z" vertices and "f i j k ..." faces: 1-based indices,
 * negative ones relative to the last vertex, "i/t/n" forms (texture and
 * normal indices ignored); a polygon becomes a fan of triangles from its
 * first vertex. Every other line (comments, vn, vt, groups, materials) is
 * skipped. */
#ifndef SEAM_MESH_IO_H
#define SEAM_MESH_IO_H

#include <stddef.h>
#include <stdint.h>

#include "seam/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Triangles in 3D: X holds 3 coordinates per vertex, tris 3 vertex indices
 * (0-based) per triangle, in the file's orientation. */
typedef struct seam_trimesh {
    size_t n_verts, n_tris;
    double *X;
    int32_t *tris;
} seam_trimesh;

/* Read an OBJ file into m (overwritten). SEAM_OK, or SEAM_ERROR with err
 * naming the file and line ("PATH:LINE: what"), m then empty. A file
 * without faces is refused. */
seam_status seam_obj_read(const char *path, seam_trimesh *m, char *err, size_t errlen);
/* Free m's arrays and empty it. */
void seam_trimesh_free(seam_trimesh *m);

#ifdef __cplusplus
}
#endif

#endif
