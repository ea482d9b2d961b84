/* fluid_mac's plugin object, shared with plugins/monolithic, which runs the
 * liquid's particles, level set and outputs through it and replaces the
 * pressure projection by the coupled one (docs/monolithic.md). */
#ifndef FLUID_MAC_FLUID_H
#define FLUID_MAC_FLUID_H

#include "mac.h"
#include "seam/vtk.h"

typedef enum load_mode { LOADS_PRESSURE = 0, LOADS_IMPULSE = 1 } load_mode;
/* Velocity advection: plain semi-Lagrangian or with a clamped higher-order correction. */
enum { ADVECT_SL = 0, ADVECT_MACCORMACK = 1, ADVECT_BFECC = 2 };

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

/* Phases of a solve whose CPU times the debug line "phases (ms)" reports (bench/fluid_mac). */
enum { PH_GEOMETRY, PH_TO_GRID, PH_FORCES, PH_PRESSURE, PH_EXTRAPOLATE, PH_TO_PARTICLES, PH_ADVECT, PH_LEVEL_SET,
       PH_SPREAD, PH_TRANSPORT, PH_LOADS, PHASES };

typedef struct fluid_mac {
    const seam_host *host;
    mac_grid g;
    double rho;              /* kg/m^3 */
    double gravity[3];       /* m/s^2 */
    double cfl;
    double tol;
    int max_iter;
    double kernel_radius;    /* in cells */
    double viscosity;        /* kinematic, m^2/s; 0: inviscid */
    uint8_t *obstacle;       /* per cell: 1 inside a static obstacle box, NULL when there are none */
    load_mode loads;
    int viscous_loads;       /* 1: the viscous links' momentum is added to the loads */
    int advection;           /* velocity advection: ADVECT_* */
    double alpha, beta;      /* buoyancy per unit smoke density (m^4/(kg s^2)) and per K (m/(s^2 K)) */
    double d_init, T_init;   /* uniform smoke density and temperature at the start */
    inflow *sources;
    size_t n_sources;
    /* committed state: velocities, pressure, smoke density d and temperature T per cell */
    double *vel_n[3], *p_n, *d_n, *T_n;   /* vel: one array per axis (u, v, w) */
    uint8_t *solid_n;
    /* the last solve */
    double *vel[3], *p, *vel_star[3], *d, *T;
    /* The transported velocities of the committed state (before the body
     * forces): smoke advects u^n by itself over dt, a liquid transfers its
     * committed particles to the faces; neither depends on the interface, so
     * a step's later coupling iterations take them from here
     * (transport_velocities). Valid until the committed state changes. */
    double *vel_moved[3];
    double moved_dt;         /* the dt they were moved over (smoke) */
    int moved_valid;
    /* outside values of d and T at boundary faces (inflow), per face of each axis */
    double *d_b[3], *T_b[3];
    /* volume sources of the last solve per cell: rate (1/s), density and temperature brought */
    double *src_s, *src_d, *src_T;
    int has_src;
    double *U;               /* dim per solid face of the last solve: the interface velocity W V there */
    double *fvel[3];         /* with viscosity: the body forces' velocity increment of the last solve, per face */
    double *visc_dv;         /* with viscous_loads: dim per solid face of the last solve, the velocity the
                                viscous links gave it (mac_diffuse's dv) */
    size_t visc_dv_cap;      /* doubles allocated in visc_dv */
    mac_geometry geo;
    int solved;
    mac_projection proj;
    mac_work work;           /* scratch of every solve */
    /* free-surface liquid: FLIP/PIC marker particles and their level set */
    int liquid;
    double flip;             /* FLIP share of the particle velocity update (0: PIC) */
    double particle_radius;  /* m */
    size_t np_n, np;         /* particles committed / after the last solve */
    size_t np_cap;           /* particles the arrays below have room for */
    double *xp_n, *vp_n, *xp, *vp;   /* dim per particle */
    double *pic, *delta;     /* dim per particle: grid velocity and its change at each particle */
    double *phi_n, *phi;     /* level set per cell */
    double *dvel[3];         /* FLIP velocity change per face of each axis */
    double *fill;            /* boxes (x0 y0 [z0] x1 y1 [z1]) the liquid starts in */
    size_t n_fill;
    int per_axis;            /* particles per cell along each axis at the start */
    int reference_kernels;   /* 1: the pre-issue-18 per-particle transfers (particles_reference.c) */
    mac_bins bins;           /* the particles sorted by cell, re-sorted by each transfer */
    /* the interface from bind (the coupler's arrays) */
    seam_interface iface;
    int bound;
    /* thin shells that stop the liquid's particles: their elements, and the
     * shell positions at the start and end of the current solve */
    int32_t *shell_seg;
    size_t n_shell;
    double *shell_X0;
    const double *shell_X1;
    mac_shell_elem *shell_elem;   /* per shell element: what the particle moves need, made by each move */
    /* buffers handed out */
    double *C, *q, *M;
    unsigned char *saved;
    double *raster;
    /* output: the frames written, and the time of the trial and committed states (s) */
    seam_vtk_series vtk;
    double t_trial, t_n;
    double phase_ms[PHASES]; /* CPU time per phase of the last solve */
} fluid_mac;

/* The plugin table (export.c exports it as seam_plugin_v1). */
const seam_plugin *fluid_mac_table(void);

/* One step for a caller that projects itself (plugins/monolithic). begin
 * builds the voxel geometry of the bound interface at positions X (a liquid's
 * particle walls and level-set mirror cells, the cells smoke's scalars do not
 * enter), transports the velocities as a solve does (a liquid: the committed
 * particle velocities to the faces, kept in dvel too; smoke: the configured
 * advection of the committed velocities) and adds the body forces (vel_star
 * keeps the result). The caller writes the projected velocities into vel and
 * the pressure into p. end checks them, then, as a solve does, extends the
 * velocities and updates, moves and spreads a liquid's particles and rebuilds
 * its level set, or transports smoke's density and temperature, and makes the
 * result the one commit takes. begin also sets the domain's wall faces to
 * rest and the side sources' faces to their inflow at mid-step (t + dt/2, as
 * a solve does; the caller keeps those faces' velocities as the prescribed
 * flux), obstacles' faces to rest, and clears the volume sources, which
 * fluid_mac_volume_sources sets. With viscosity, begin then does what a
 * solve does before its projection: the faces at the voxel solids take the
 * interface velocity W V (V: dim per interface point, the solids' velocities
 * at X; NULL only when there are no interface points, else SEAM_ERROR; the
 * walls as the domain's sides have them, through mac_face) and the
 * velocities are diffused implicitly (mac_diffuse). */
seam_status fluid_mac_begin(fluid_mac *self, const double *X, const double *V, double t, double dt);
seam_status fluid_mac_end(fluid_mac *self, double dt);
/* The volume sources (boxes, circles) at time t as the rate per cell
 * (src_s, 1/s) that the caller's projection must add to the divergence, each
 * source's rate spread over its cells for which is_fluid(ctx, cell) holds, so
 * that the volume it brings is whole; d and T they bring go to end's
 * transport. Returns whether any cell has one. */
int fluid_mac_volume_sources(fluid_mac *self, int (*is_fluid)(const void *ctx, size_t c), const void *ctx, double t);

#endif
