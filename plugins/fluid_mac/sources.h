/* fluid_mac's sources: inflows through part of a wall side and volume
 * sources in a box or a circle (a sphere in 3D), where they lie on the grid
 * and how strong they are at a time. Private to plugins/fluid_mac. */
#ifndef FLUID_MAC_SOURCES_H
#define FLUID_MAC_SOURCES_H

#include "mac.h"

/* How a source starts: 3x^2 - 2x^3 or 0.5 (1 - cos(pi x)), x = t / ramp_time. */
enum { RAMP_SMOOTH = 0, RAMP_COSINE = 1 };

/* Inflow through part of a wall side, or a volume source in a box of cells or
 * in a circle (a sphere in 3D), carrying smoke density and temperature. */
typedef struct inflow {
    int interior;            /* 1: volume source in `box` or the circle, 0: through a side */
    double box[6];           /* low corner then high corner, dim numbers each (m), interior sources */
    double rate;             /* volume per time (m^3/s; per unit depth, m^2/s, in 2D), interior sources */
    int circle;              /* 1: the cells in the circle (sphere) of `center` and `radius` */
    double center[3], radius;   /* m, circle sources; rate = speed times the circle's perimeter (sphere's area) */
    int side;                /* SIDE_*, side sources */
    double range[4];         /* [from, to] along each tangential axis of the side, in x, y, z order (m) */
    double speed;            /* peak inward normal speed (m/s) */
    int parabolic;           /* 0: uniform profile, 1: parabolic, zero at the ends (border) */
    int disc;                /* 3D: 1 for the disc (ellipse) inscribed in the range rectangle */
    double ramp_time;        /* s; smooth start from 0 (0: at once) */
    int ramp;                /* RAMP_SMOOTH or RAMP_COSINE */
    double density, temperature;
} inflow;

/* The axes along a side (those other than its normal), in x, y, z order: one
 * in 2D, two in 3D. Returns how many. */
int inflow_side_tangents(const mac_grid *g, int side, int t[2]);
/* Faces of a side source's side that it covers. */
int inflow_faces(const mac_grid *g, const inflow *src);
/* Whether cell (i, j, k) has its centre in the interior source's box (or circle). */
int inflow_has_cell(const mac_grid *g, const inflow *src, int i, int j, int k);
/* Cells whose centre lies in an interior source. */
int inflow_cells(const mac_grid *g, const inflow *src);

/* Visit every face of every side source at time t: the face (axis, ijk), its
 * inward normal velocity, and the cell inside. */
typedef void (*inflow_visit)(void *ctx, const inflow *src, int axis, const int *ijk, double u_in, size_t cell);
void inflow_for_each_face(const mac_grid *g, const inflow *sources, size_t n, double t, inflow_visit visit,
                          void *ctx);

/* Volume sources at time t per cell: the rate s (1/s, the divergence they
 * ask for) spread evenly over the box's cells that are fluid (is_fluid), and
 * the smoke density and temperature they bring (rate-weighted). False when none. */
int inflow_volume_rates(const mac_grid *g, const inflow *sources, size_t n,
                        int (*is_fluid)(const void *ctx, size_t c), const void *ctx, double t, double *s,
                        double *d_src, double *T_src);

#endif
