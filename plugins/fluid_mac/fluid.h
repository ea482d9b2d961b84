/* fluid_mac's plugin object, shared with plugins/monolithic, which runs the
 * liquid's particles, level set and outputs through it and replaces the
 * pressure projection by the coupled one (docs/monolithic.md). */
#ifndef FLUID_MAC_FLUID_H
#define FLUID_MAC_FLUID_H

#include "config.h"
#include "seam/vtk.h"

/* Phases of a solve whose CPU times the debug line "phases (ms)" reports (bench/fluid_mac). */
enum { PH_GEOMETRY, PH_TO_GRID, PH_FORCES, PH_PRESSURE, PH_EXTRAPOLATE, PH_TO_PARTICLES, PH_ADVECT, PH_LEVEL_SET,
       PH_SPREAD, PH_TRANSPORT, PH_LOADS, PHASES };

/* The plugin object: the settings, the committed state (_n: what commit
 * made; save and load move it), the trial state of the last solve, and the
 * scratch and buffers handed out. */
typedef struct fluid_mac {
    const seam_host *host;
    fluid_mac_config cfg;
    /* committed state: velocities, pressure, smoke density d and temperature T per cell */
    double *vel_n[3], *p_n, *d_n, *T_n;   /* vel: one array per axis (u, v, w) */
    uint8_t *solid_n;
    double t_n;              /* s */
    size_t np_n;             /* a liquid's particles */
    double *xp_n, *vp_n;     /* dim per particle */
    double *phi_n;           /* level set per cell */
    /* the last solve (trial state) */
    double *vel[3], *p, *vel_star[3], *d, *T;
    size_t np;
    double *xp, *vp, *phi;
    mac_geometry geo;
    double t_trial;
    int solved;
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
    mac_projection proj;
    mac_work work;           /* scratch of every solve */
    size_t np_cap;           /* particles the particle arrays have room for */
    double *pic, *delta;     /* dim per particle: grid velocity and its change at each particle */
    double *dvel[3];         /* FLIP velocity change per face of each axis */
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
    seam_vtk_series vtk;     /* output: the frames written */
    /* the last solve's figures, for its debug lines */
    double phase_ms[PHASES]; /* CPU time per phase */
    int pressure_iterations, viscosity_iterations, spread_iterations;
    double pressure_residual, pressure_cpu_ms, pressure_wall_ms, pressure_bytes;
} fluid_mac;

/* The plugin table (export.c exports it as seam_plugin_v1). */
const seam_plugin *fluid_mac_table(void);

/* ---- the state (state.c) ---- */
/* A fluid at rest (a liquid seeded in its fill boxes) on conf's grid; takes conf over. */
fluid_mac *fluid_mac_new(fluid_mac_config *conf, const seam_host *host);
void fluid_mac_destroy(fluid_mac **self_p);
/* Take the interface, and the committed solid cells (and particles) with it. */
seam_status fluid_mac_bind(fluid_mac *self, const seam_interface *iface);
/* The last solve becomes the committed state. */
seam_status fluid_mac_commit(fluid_mac *self);
/* The committed state as a seam checkpoint image (seam/checkpoint.h), and back. */
seam_status fluid_mac_save(fluid_mac *self, seam_buffer *out);
seam_status fluid_mac_load(fluid_mac *self, const void *bytes, size_t n);
/* The level set of particles x into phi, by the configured kernels. */
void fluid_mac_level_set(fluid_mac *self, size_t n, const double *x, const uint8_t *solid, double *phi);
/* Particles per cell at the start. */
size_t fluid_mac_particles_per_cell(const fluid_mac *self);

/* ---- one solve (step.c) ---- */
/* The trial state from the committed one over [t, t + dt] with the solids
 * at X moving at V (dim per interface point); the loads into F (may be NULL). */
seam_status fluid_mac_step(fluid_mac *self, const seam_step *step, const double *X, const double *V, double *F);
/* The last solve's figures (iterations, residual, CPU time per phase) at debug level. */
void fluid_mac_log_step(const fluid_mac *self, const seam_step *step);

/* ---- what the fluid gives the solids (coupling.c) ---- */
/* Loads on the interface points of the last solve (Akbay 2.3.5 or 2.4). */
void fluid_mac_loads(fluid_mac *self, double dt, double *F);
/* The enclosed regions' rows at positions X (Akbay eq. 4.9). */
seam_status fluid_mac_regions(fluid_mac *self, const seam_step *step, const double *X, seam_regions *out);
/* Volume sources of the configured sources at time t on geometry geo. */
int fluid_mac_geo_sources(const fluid_mac *self, const mac_geometry *geo, double t, double *s, double *d_src,
                          double *T_src);

/* ---- fields and files (output.c) ---- */
seam_status fluid_mac_field(fluid_mac *self, const char *name, seam_raster *out);
seam_status fluid_mac_write_output(fluid_mac *self, const char *dir, int frame);

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
