/* fluid_sph: the plugin's instance, for fluid_sph.c and the tests that look
 * inside it. Private to plugins/fluid_sph. */
#ifndef FLUID_SPH_FLUID_SPH_H
#define FLUID_SPH_FLUID_SPH_H

#include "seam/mapping.h"
#include "seam/neighbours.h"
#include "seam/plugin.h"
#include "seam/vtk.h"
#include "sph.h"
#include "takahashi.h"

enum { WALL_LAYERS = 3 };            /* particle layers behind each domain side: full support at the wall */
#define SAMPLE_SPACING 0.5           /* surface samples per particle spacing */

typedef struct fluid_sph {
    const seam_host *host;
    sph_fluid f;
    int dim;
    double lo[3], hi[3];     /* the domain, walled on every side */
    double s;                /* particle spacing (m) */
    double V0;               /* volume of a particle of the rest lattice: 1 / sum_j W_ij */
    double gravity[3];
    double cfl, xsph, eta_rho, eta_div;
    double mu, eta_visc;     /* implicit viscosity (Takahashi ch. 4): dynamic viscosity, CG tolerance */
    int max_iter;
    int solver_takahashi;    /* "pressure_solver": 1 for "takahashi", 0 for "dfsph" */
    sph_takahashi *tak;      /* its workspace (NULL under DFSPH) */
    sph_takahashi_opts tak_opts;
    double *fill;            /* boxes lo then hi, dim numbers each */
    size_t n_fill;
    double *xw;              /* wall particles (nw * dim) */
    size_t nw;
    double offset;           /* samples sit this far inside a volume's surface (m), see surface_offset */
    /* particles: committed state and the last solve */
    size_t n;
    double *x_n, *v_n, *k_n, *kv_n, *p_n;
    double *x, *v, *k, *kv, *p;
    double *work;            /* n */
    sph_geometry geo[2];     /* start and end of the step; commit swaps them */
    int start;               /* index of the start geometry */
    int start_valid;         /* geo[start] holds the committed configuration */
    /* the interface */
    seam_interface iface;
    int bound;
    seam_samples *samples;
    size_t ns;
    double *Xi_n, *Xi;       /* interface positions: committed, and of the last solve */
    double *xb, *psi, *vb;   /* boundary particles of one configuration: walls then samples */
    double *nrm;             /* per interface point, then per sample: outward normals */
    double *fb;              /* forces on the boundary particles */
    int solved;
    sph_solve_stats last_rho, last_div, last_visc;
    long long step_index;    /* the step of the last solve, for commit's warning about a capped DFSPH solve */
    size_t clamped;          /* particles held at the domain's sides in the last solve */
    /* The fluid-only work of a step (Akbay 3.4's cheap rollback), kept across
     * its coupling iterations with step_cache: it depends on the committed
     * state alone, so it is made once, in the first iteration, and forgotten
     * at commit, load and bind. */
    int step_cache;
    double *v_pre, *fb_pre;  /* velocities after the non-pressure forces (and the boundary pressure, without viscosity), and the boundary forces they gave */
    double pre_dt;           /* the step size v_pre was made for; 0: none */
    seam_neighbours *grid_n; /* grid over the committed particles (regions) */
    uint32_t *probe;         /* per committed particle (regions): PROBE_KNOWN, and a bit per lattice direction whose probe point lies in the domain away from every particle */
    /* enclosed regions (Akbay eq. 4.9): the geometry at the asked positions (without step_cache), rows and fluxes */
    sph_geometry geo_regions;
    double *region_C, *region_q;
    double *raster;
    unsigned char *saved;
    /* output: the frames written, and the time of the trial and committed states (s) */
    seam_vtk_series vtk;
    double t_trial, t_n;
} fluid_sph;

#endif
