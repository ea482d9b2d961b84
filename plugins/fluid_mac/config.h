/* fluid_mac's configuration: the scene's keys for the fluid, read and
 * checked once into a plain struct that describes the whole run's settings
 * (docs/fluid_mac.md lists the keys; config.c holds each one's default and
 * range). Private to plugins/fluid_mac. */
#ifndef FLUID_MAC_CONFIG_H
#define FLUID_MAC_CONFIG_H

#include "mac.h"
#include "sources.h"

typedef enum load_mode { LOADS_PRESSURE = 0, LOADS_IMPULSE = 1 } load_mode;
/* Velocity advection: plain semi-Lagrangian or with a clamped higher-order correction. */
enum { ADVECT_SL = 0, ADVECT_MACCORMACK = 1, ADVECT_BFECC = 2 };

typedef struct fluid_mac_config {
    mac_grid g;              /* cells, dx, origin, boundary */
    double gravity[3];       /* m/s^2 */
    double rho;              /* kg/m^3 */
    double cfl;
    double tol;              /* pressure (and viscosity) solve tolerance */
    int max_iter;
    mac_precond precond;     /* the pressure solve's preconditioner */
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
    /* free-surface liquid: FLIP/PIC marker particles and their level set */
    int liquid;
    double flip;             /* FLIP share of the particle velocity update (0: PIC) */
    double particle_radius;  /* m */
    double *fill;            /* boxes (x0 y0 [z0] x1 y1 [z1]) the liquid starts in */
    size_t n_fill;
    int per_axis;            /* particles per cell along each axis at the start */
    int reference_kernels;   /* 1: the pre-issue-18 per-particle transfers (particles_reference.c) */
} fluid_mac_config;

/* Read the plugin's JSON object (with the host's scene-wide settings: cell
 * size, gravity) into c. Every refused key is logged with its place in the
 * scene (file:line: key); then SEAM_ERROR and c holds nothing to free. */
seam_status fluid_mac_config_read(fluid_mac_config *c, const char *config_json, const seam_host *host);
void fluid_mac_config_free(fluid_mac_config *c);

#endif
