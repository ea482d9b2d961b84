/* The boundary pressure projection (Akbay 2018, ch. 2.5 and ch. 4): a layer
 * between a scheme and the participants for fluid fully enclosed by solids.
 *
 * An incompressible fluid in a region with no open side has a pressure
 * defined only up to a constant p0, and only velocities that keep the
 * region's volume are admissible: c_r . V = q_r (c_r: the region's wall
 * normals times areas, distributed to the interface values; q_r: what its
 * sources and kinematic walls push in). The layer
 *   - hands the fluid the effective velocities projected onto that
 *     constraint (Akbay sec. 4.2.5, P_s = I - M^-1 C^T (C M^-1 C^T)^-1 C),
 *   - adds sum_r p0_r c_r to the loads the solids receive, and
 *   - after each solid solve raises p0 by the increment that makes the
 *     solids' returned velocities admissible (eq. 4.9 with the source term
 *     of ch. 2: dt C M^-1 C^T dp0 = -(C V - q)) and, by default, solves
 *     the solids again with it,
 * keeping p0 per region across iterations and steps. M^-1 is the solids'
 * mobility (ch. 4, the default) or the fluid's masses behind the wall
 * values (ch. 2, eqs. 2.10-2.13, for comparison).
 *
 * It is written against callbacks (bpp_host), so tests drive it with
 * analytic participants and the coupler with its plugins. */
#ifndef SEAM_COUPLER_BPP_H
#define SEAM_COUPLER_BPP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scheme.h"
#include "seam/config.h"
#include "seam/log.h"

typedef struct seam_bpp seam_bpp;

typedef enum { BPP_FORM_SOLID, BPP_FORM_FLUID } bpp_form;

typedef struct bpp_options {
    bpp_form form;           /* whose mass weights the projection: the solids' (ch. 4) or the fluid's (ch. 2) */
    bool resolve;            /* solve the solids again with p0 + dp0 (solid form only) */
    double p0_tolerance;     /* a step is converged only when every |dp0| <= this (Pa); 0: no test */
    bool geometric;          /* rows from the interface's elements (the fluid's rows choose them) */
    double volume_tolerance; /* resolve: |c_r . V - q_r| <= this times |q_r| + sum_j |c_rj V_j| */
    int max_solves;          /* resolve: solid solves per solid call, at most */
} bpp_options;

/* What the layer calls. Vectors are over the whole interface (n values). */
typedef struct bpp_host {
    void *ctx;
    /* The fluid's enclosed regions at positions X (seam_regions, owned by the callee). */
    seam_status (*regions)(void *ctx, const seam_coupling *c, const double *X, seam_regions *out);
    /* dv = M^-1 impulse of every solid (needed by the solid form). */
    seam_status (*mobility)(void *ctx, const seam_coupling *c, const double *impulse, double *dv);
    /* The fluid's loads F for positions X and velocities V. */
    seam_status (*fluid)(void *ctx, const seam_coupling *c, const double *X, const double *V, double *F);
    /* The solids' positions X and end-of-step velocities V for loads F. */
    seam_status (*solid)(void *ctx, const seam_coupling *c, const double *F, double *X, double *V);
    /* A message about step c (level SEAM_LOG_INFO, _WARN or _ERROR). */
    void (*log)(void *ctx, const seam_coupling *c, seam_log_level level, const char *message);
} bpp_host;

/* Read coupling.bpp: false/absent (off: *on = false), true (defaults), or an
 * object {form, positions, p0_tolerance}. on_default: the scheme's default. */
void bpp_read_options(seam_cfg *coupling, bool on_default, bool *on, bpp_options *o);

/* The interface's elements (seam_interface): segments in 2D, triangles in
 * 3D, as point indices; the arrays must outlive the layer. */
typedef struct bpp_mesh {
    int nodes_per_elem;
    size_t n_elems;
    const int32_t *elems;
} bpp_mesh;

/* A layer for interface vectors of n values (dim per point); NULL when out
 * of memory. mesh may be NULL (or hold no elements of the interface's
 * dimension): the fluid's rows are then used as they are. */
seam_bpp *bpp_new(const bpp_options *o, size_t n, int dim, const bpp_host *host, const bpp_mesh *mesh);
void bpp_destroy(seam_bpp **self_p);

/* Start a step: p0 and the regions go back to the committed ones (a retried
 * step starts again from them too). SEAM_ERROR when out of memory. */
seam_status bpp_begin(seam_bpp *b);
/* F = fluid(X, P_s (X - X^n)/dt): the regions at X are asked for, matched
 * to the known ones (p0 carried), and the projection's matrix is formed. */
seam_status bpp_fluid(seam_bpp *b, const seam_coupling *c, const double *X, double *F);
/* X, V = solid(F + C^T p0), then p0 += dp0 from the returned velocities V;
 * with `resolve` the solids are solved once more with the new p0, and X, V
 * are that solve's. */
seam_status bpp_solid(seam_bpp *b, const seam_coupling *c, const double *F, double *X, double *V);
/* Whether the last solid call left p0 settled: every |dp0| within the
 * tolerance (always, when the tolerance is 0). */
bool bpp_settled(const seam_bpp *b);
/* The step was committed: its regions and p0 become the committed ones
 * (regions that appeared or are gone are reported at SEAM_LOG_INFO). */
seam_status bpp_accept(seam_bpp *b, const seam_coupling *c);

/* The committed regions, for outputs: id (stable across steps), p0 (Pa),
 * the step's last increment dp0, and the last solid solve's volume error
 * c_r . V - q_r (m^3/s, m^2/s in 2D). */
size_t bpp_region_count(const seam_bpp *b);
void bpp_region(const seam_bpp *b, size_t r, long *id, double *p0, double *dp0, double *volume_error);

#endif
