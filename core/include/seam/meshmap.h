/* Mappings between two meshes that do not share points: the methods of
 * preCICE's configurations (nearest neighbour, nearest projection, radial
 * basis functions). Each builds one interpolation matrix
 *
 *     M (rows: points of dst, columns: points of src),  u_dst = M u_src,
 *
 * which serves both constraints: a consistent mapping from A to B is
 * u_B = M u_A with M = interpolation(src = A, dst = B); a conservative one
 * is f_B = M^T f_A with M = interpolation(src = B, dst = A), so the sum of
 * f is kept exactly whenever the rows of M sum to one. Vector data maps
 * component by component (seam_meshmap_apply with ncomp > 1).
 */
#ifndef SEAM_MESHMAP_H
#define SEAM_MESHMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "seam/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum seam_meshmap_method {
    SEAM_MAP_NEAREST_NEIGHBOR,
    SEAM_MAP_NEAREST_PROJECTION,   /* onto src's edges (2D) or triangles and quads (3D); points
                                      with no element nearby take their nearest neighbour */
    SEAM_MAP_RBF
} seam_meshmap_method;

typedef enum seam_rbf_basis {
    SEAM_RBF_COMPACT_POLYNOMIAL_C0,
    SEAM_RBF_COMPACT_POLYNOMIAL_C2,
    SEAM_RBF_COMPACT_POLYNOMIAL_C4,
    SEAM_RBF_COMPACT_POLYNOMIAL_C6,
    SEAM_RBF_COMPACT_POLYNOMIAL_C8,
    SEAM_RBF_COMPACT_TPS_C2,
    SEAM_RBF_THIN_PLATE_SPLINES,
    SEAM_RBF_GAUSSIAN,
    SEAM_RBF_MULTIQUADRICS,
    SEAM_RBF_INVERSE_MULTIQUADRICS,
    SEAM_RBF_VOLUME_SPLINES
} seam_rbf_basis;

typedef enum seam_rbf_polynomial {
    SEAM_RBF_POLY_SEPARATE,   /* a linear polynomial fitted first, the RBF interpolates the rest */
    SEAM_RBF_POLY_ON,         /* a linear polynomial in the same (augmented) system */
    SEAM_RBF_POLY_OFF
} seam_rbf_polynomial;

typedef struct seam_rbf_params {
    seam_rbf_basis basis;
    double support_radius;    /* compact bases, and gaussian when shape_parameter is 0 */
    double shape_parameter;   /* gaussian, multiquadrics */
    seam_rbf_polynomial polynomial;
    bool dead[3];             /* coordinates left out of the distance (x-dead, ...) */
} seam_rbf_params;

/* A mesh as the mapping reads it (all borrowed): n points of dim (2 or 3)
 * coordinates, interleaved, and optional connectivity by point index. */
typedef struct seam_meshmap_mesh {
    int dim;
    size_t n;
    const double *X;
    const int *edges;      size_t n_edges;       /* 2 per edge */
    const int *triangles;  size_t n_triangles;   /* 3 per triangle */
    const int *quads;      size_t n_quads;       /* 4 per quad */
} seam_meshmap_mesh;

/* M for the given method; rbf is read only for SEAM_MAP_RBF. NULL with a
 * message in err for arguments it cannot honour (dimensions differ, a
 * coordinate not finite, an empty src, a singular RBF system). */
seam_csr *seam_meshmap_interpolation(seam_meshmap_method method, const seam_meshmap_mesh *src,
                                     const seam_meshmap_mesh *dst, const seam_rbf_params *rbf,
                                     char *err, size_t errlen);

/* The basis function phi(r) of rbf at distance r (the formulas of
 * docs/mapping.md, with preCICE's support radius and shape); NAN for
 * parameters seam_meshmap_interpolation would refuse. */
double seam_rbf_value(const seam_rbf_params *rbf, double r);

/* u_dst = M u_src (consistent), ncomp values per point, interleaved. */
void seam_meshmap_apply(const seam_csr *M, int ncomp, const double *u_src, double *u_dst);
/* f_dst = M^T f_src (conservative; M from interpolation(dst, src)). */
void seam_meshmap_apply_t(const seam_csr *M, int ncomp, const double *f_src, double *f_dst);

#ifdef __cplusplus
}
#endif

#endif
