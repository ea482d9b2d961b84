/* Rigid shapes: geometry in the body frame, mass properties, surface
 * sampling for the coupling interface, and signed distances for contact.
 *
 * The body frame has its origin at the centre of mass and, in 3D, its axes
 * along the principal axes of inertia, so the body inertia is diagonal. */
#ifndef SEAM_RIGID_SHAPE_H
#define SEAM_RIGID_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum rigid_shape_kind {
    RIGID_ROUND,     /* circle (2D) or sphere (3D) */
    RIGID_BOX,       /* 3D box; a 2D rectangle is a polygon */
    RIGID_POLYGON,   /* 2D simple polygon, convex or concave */
    RIGID_MESH,      /* 3D closed triangle mesh */
    RIGID_CYLINDER,  /* 3D solid circular cylinder, axis along the body's y */
    RIGID_TORUS      /* 3D solid torus, axis along the body's y */
} rigid_shape_kind;

typedef struct rigid_shape {
    int dim;
    rigid_shape_kind kind;
    double radius;           /* RIGID_ROUND, RIGID_CYLINDER; RIGID_TORUS: from the axis to the tube's centre */
    double height;           /* RIGID_CYLINDER: full length along y */
    double tube;             /* RIGID_TORUS: radius of the tube */
    double half[3];          /* RIGID_BOX half extents */
    size_t n_verts;          /* polygon (counter-clockwise) or mesh vertices, body frame, 3 per vertex */
    double *verts;
    size_t n_tris;           /* RIGID_MESH */
    int32_t *tris;
    /* Per unit density: measure (area in 2D, volume in 3D) and the diagonal of
     * the inertia tensor about the centre of mass in the body frame (2D: all
     * three equal the polar moment, only [2] is used). */
    double measure;
    double J[3];
    /* Rotation (w,x,y,z) from the body frame to the frame the geometry was
     * given in; identity except for meshes, which are turned to principal axes. */
    double q_frame[4];
    double bound;            /* radius of a sphere about the centre that holds the shape */
} rigid_shape;

/* Constructors return 0, or -1 with a message (no trailing newline) in err. */
int rigid_shape_round(rigid_shape *s, int dim, double radius, char *err, size_t errlen);
int rigid_shape_box(rigid_shape *s, int dim, const double *size, char *err, size_t errlen);
/* n vertices (x y pairs) in any orientation; refused when degenerate or self-intersecting. */
int rigid_shape_polygon(rigid_shape *s, const double *xy, size_t n, char *err, size_t errlen);
/* A cylinder of radius r and height h, axis along y through its centre:
 * volume pi r^2 h, J = V (3 r^2 + h^2) / 12 about x and z, V r^2 / 2 about y. */
int rigid_shape_cylinder(rigid_shape *s, double radius, double height, char *err, size_t errlen);
/* A ring torus, axis along y: the circle of radius `tube` about the circle of
 * radius `radius` in the xz plane (tube < radius): volume 2 pi^2 R a^2,
 * J = V (R^2 + 3 a^2 / 4) about y, V (R^2 / 2 + 5 a^2 / 8) about x and z. */
int rigid_shape_torus(rigid_shape *s, double radius, double tube, char *err, size_t errlen);
/* A closed, consistently oriented triangle mesh (3 coordinates per vertex). */
int rigid_shape_mesh(rigid_shape *s, const double *verts, size_t n_verts, const int32_t *tris,
                     size_t n_tris, char *err, size_t errlen);
/* Read a Wavefront OBJ file (v and f lines; faces fan-triangulated), scaled. */
int rigid_shape_obj(rigid_shape *s, const char *path, double scale, char *err, size_t errlen);
void rigid_shape_free(rigid_shape *s);

/* Surface samples about `spacing` apart, in the body frame: *pts (3 per point),
 * *elems (2 per segment in 2D, counter-clockwise; 3 per triangle in 3D,
 * outward). malloc'ed, the caller frees. */
/* About how many values sampling at `spacing` stores (points, or the lattice
 * a box is sampled on), before anything is allocated: 1e9 points must be
 * refused, not attempted. */
double rigid_shape_sample_estimate(const rigid_shape *s, double spacing);
void rigid_shape_sample(const rigid_shape *s, double spacing, double **pts, size_t *n_pts,
                        int32_t **elems, size_t *n_elems);

/* The 3 nt directed edges of triangles tris, sorted by their endpoints
 * (then by slot), so the two uses of an edge are neighbours; malloc'ed. */
typedef struct rigid_edge {
    int32_t lo, hi;   /* sorted endpoints */
    int32_t a;        /* directed start */
    size_t slot;      /* triangle*3 + local edge */
} rigid_edge;
rigid_edge *rigid_sorted_edges(const int32_t *tris, size_t nt);

/* Signed distance from body-frame point p to the surface (negative inside) and
 * the outward unit normal n. Returns false when the shape has no distance
 * function. Meshes cost one pass over their triangles per query. */
bool rigid_shape_sdf(const rigid_shape *s, const double *p, double *dist, double *n);

#endif
