/* fluid_sph: the plugin's instance, for its files and the tests that look
 * inside it, one concept per file:
 *
 *   config.c      the configuration's keys into sph_config;
 *   setup.c       the rest lattice, walls and hydrostatic start (create, destroy);
 *   interface.c   the solids' surfaces as boundary particles (bind);
 *   step.c        one step, read as its algorithm (solve), max_dt, commit;
 *   regions.c     enclosed regions for the boundary pressure projection;
 *   state.c       save and load through core's checkpoint format;
 *   output.c      fields and VTK frames;
 *   fluid_sph.c   the plugin table.
 *
 * sph.c holds the SPH kernels and solvers, takahashi.c Takahashi's pressure
 * solver. Private to plugins/fluid_sph. */
#ifndef FLUID_SPH_FLUID_SPH_H
#define FLUID_SPH_FLUID_SPH_H

#include "seam/config.h"
#include "seam/mapping.h"
#include "seam/neighbours.h"
#include "seam/plugin.h"
#include "seam/vtk.h"
#include "sph.h"
#include "takahashi.h"

enum { WALL_LAYERS = 3 };            /* particle layers behind each domain side: full support at the wall */
#define SAMPLE_SPACING 0.5           /* surface samples per particle spacing */

/* The configuration's keys (config.c, where their ranges and defaults are). */
typedef struct sph_config {
    int dim;
    double lo[3], hi[3];     /* "domain", walled on every side */
    double s;                /* "spacing": particle spacing (m) */
    double *fill;            /* "fill": boxes lo then hi, dim numbers each */
    size_t n_fill;
    double rho0;             /* "density" */
    double gravity[3];
    double cfl, xsph, eta_rho, eta_div;
    double mu, eta_visc;     /* full-form viscosity (Takahashi ch. 4): dynamic viscosity, CG tolerance */
    int visc_explicit;       /* "viscosity_integration": 1 for "explicit" (forward Euler), 0 for "implicit" */
    sph_visc_form visc_form; /* "viscosity_form": full (Takahashi's) or Laplacian */
    int max_iter;
    int solver_takahashi;    /* "pressure_solver": 1 for "takahashi", 0 for "dfsph" */
    sph_takahashi_opts tak_opts;
    int step_cache;          /* keep a step's fluid-only work across its coupling iterations */
} sph_config;

typedef struct fluid_sph {
    const seam_host *host;
    sph_config cfg;
    sph_fluid f;
    double V0;               /* volume of a particle of the rest lattice: 1 / sum_j W_ij */
    sph_takahashi *tak;      /* Takahashi's workspace (NULL under DFSPH) */
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

/* config.c: read the keys of cfg (and finish it); 0, or -1 after the messages. */
int sph_config_read(sph_config *c, seam_cfg *cfg, const seam_host *host);

/* setup.c */
void *fluid_sph_create(const seam_plugin *plugin, const char *config_json, const seam_host *host);
void fluid_sph_destroy(void *p);
/* The fluid at rest in hydrostatic balance: the first density solve's warm start. */
void fluid_sph_hydrostatic_start(fluid_sph *self);

/* interface.c */
seam_status fluid_sph_bind(void *p, const seam_interface *iface);
/* The walls' and the interface's boundary particles at X moving at V (V NULL: at rest); -1 when out of memory. */
int fluid_sph_boundary_at(fluid_sph *self, const double *X, const double *V);
/* The committed state changed (commit, load, bind): the step's fluid-only work is stale. */
void fluid_sph_forget_step(fluid_sph *self);

/* step.c */
seam_status fluid_sph_max_dt(void *p, double *dt);
seam_status fluid_sph_solve(void *p, const seam_step *step, const seam_input *in, seam_output *out);
seam_status fluid_sph_commit(void *p);
/* Build geometry g at fluid positions x and interface positions X. */
seam_status fluid_sph_geometry_at(fluid_sph *self, int g, const double *x, const double *X, const double *V);
/* Whether all n values are finite. */
int fluid_sph_finite(const double *a, size_t n);

/* regions.c */
seam_status fluid_sph_regions(void *p, const seam_step *step, const double *X, seam_regions *out);

/* state.c */
seam_status fluid_sph_save(void *p, seam_buffer *out);
seam_status fluid_sph_load(void *p, const void *bytes, size_t size);

/* output.c */
seam_status fluid_sph_field(void *p, const char *name, seam_raster *out);
seam_status fluid_sph_write_output(void *p, const char *dir, int frame);

#endif
