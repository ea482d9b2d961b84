/* Coupling schemes, written against interface vectors and two black boxes.
 *
 * A scheme sees one time step as two maps over interface vectors of length n
 * (points x dim, interleaved by point):
 *     F = fluid(X)   loads for end-of-step positions X (velocities (X - X^n)/dt
 *                    are formed by the coupling layer)
 *     X = solid(F)   end-of-step positions for loads F
 * and a convergence test. It never sees solvers, grids or plugins, so the same
 * code serves every pair of participants, local or remote, 1D, 2D or 3D.
 */
#ifndef SEAM_SCHEME_H
#define SEAM_SCHEME_H

#include <stdbool.h>
#include <stddef.h>

#include "seam/checkpoint.h"
#include "seam/config.h"
#include "seam/plugin.h"

typedef struct seam_coupling seam_coupling;
struct rigid_dofs;

/* What the convergence test says about an iterate. */
typedef enum seam_verdict {
    SEAM_ITERATE = 0,     /* not converged, iterations left */
    SEAM_CONVERGED = 1,
    SEAM_EXHAUSTED = 2,   /* not converged and no iterations left */
    SEAM_DIVERGED = 3     /* residual non-finite or grown past all hope */
} seam_verdict;

/* One iterate as the judge sees it: the solid's output X_new for the
 * positions X_old the fluid was given, and the fluid's loads F for X_old
 * with F_prev, its loads one iteration earlier (at a step's first
 * iteration: the loads committed with the last step, zero before the
 * first). */
typedef struct seam_iterate {
    const double *X_new, *X_old;
    const double *F, *F_prev;
} seam_iterate;

/* The two black boxes and the judge, behind a table (as SUNDIALS' solvers
 * see vectors): the simulation fills it with its participants, a test with
 * analytic maps, and a layer such as the boundary pressure projection can
 * wrap another table's maps without the schemes knowing. */
typedef struct seam_coupling_ops {
    /* F = fluid(X) (velocities (X - X^n)/dt are the map's business). */
    seam_status (*fluid)(void *ctx, const seam_coupling *c, const double *X, double *F);
    /* X = solid(F), end-of-step positions. */
    seam_status (*solid)(void *ctx, const seam_coupling *c, const double *F, double *X);
    /* The verdict on an iterate; c->judged already counts it. The judge
     * records its residual in c (c->residual, c->first_residual). */
    seam_verdict (*judge)(void *ctx, seam_coupling *c, const seam_iterate *it);
    /* A warning about this step (may be NULL: dropped). */
    void (*warn)(void *ctx, const seam_coupling *c, const char *message);
} seam_coupling_ops;

/* One time step as a scheme sees it. The fields are read-only for schemes;
 * the seam_coupling_* functions below keep the counters and the loads. */
struct seam_coupling {
    const seam_coupling_ops *ops;
    void *ctx;
    size_t n;                /* length of interface vectors: points x dim */
    int dim;
    const double *Xn;        /* committed positions X^n */
    double t, dt;
    long step;
    int fluid_calls, solid_calls, judged;
    bool count_thesis;       /* residuals as Akbay counts them: rmi between successive solid outputs
                                (two at least, Algorithm 1); relaxation is judged before relaxing either way */
    struct rigid_dofs *rigid;          /* the rigid bodies among the points (rigid_dofs.h), NULL: none */
    double residual, first_residual;   /* the judge's position residual (m), for messages */
    double *F_last, *F_prev, *F_n;     /* the fluid's last two loads, and those of the last step */
    double *F_store;                   /* the one allocation behind them */
};

/* Set up c for interface vectors of n values (dim per point): the loads'
 * bookkeeping is allocated here. SEAM_ERROR when out of memory. */
seam_status seam_coupling_init(seam_coupling *c, const seam_coupling_ops *ops, void *ctx, size_t n, int dim);
void seam_coupling_fini(seam_coupling *c);
/* Start a step from committed positions Xn (kept by the caller). */
void seam_coupling_begin(seam_coupling *c, const double *Xn, double t, double dt, long step);
/* The step was committed: its last loads become F^n. */
void seam_coupling_accept(seam_coupling *c);

/* Length of interface vectors (points x dim) and the point dimension. */
size_t seam_coupling_size(const seam_coupling *c);
int seam_coupling_dim(const seam_coupling *c);
/* Committed interface positions X^n, the step size, the step index. */
const double *seam_coupling_Xn(const seam_coupling *c);
double seam_coupling_dt(const seam_coupling *c);
long seam_coupling_step_index(const seam_coupling *c);

/* One call of each black box; non-OK statuses are passed on. */
seam_status seam_coupling_fluid(seam_coupling *c, const double *X, double *F);
seam_status seam_coupling_solid(seam_coupling *c, const double *F, double *X);

/* Judge the iterate X_new = S(F(X_old)) with the fluid's last loads: the
 * residual X_new - X_old vanishes exactly at the coupled solution, and the
 * loads stop changing there. Counts one iteration per call. */
seam_verdict seam_coupling_judge(seam_coupling *c, const double *X_new, const double *X_old);
/* The last position residual recorded, and the iterations judged so far this step. */
double seam_coupling_residual(const seam_coupling *c);
int seam_coupling_iterations(const seam_coupling *c);

/* A warning about this step (the step and time are added): a scheme that
 * had to fall back from its model says so instead of degrading silently. */
void seam_coupling_warn(seam_coupling *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What a scheme keeps besides the iterates, for stats.csv: the current
 * counts, and running totals (the coupler writes each step's increase). */
typedef struct seam_scheme_report {
    long columns;             /* secant columns (pairs) in its least squares now */
    long modes;               /* rank of the Jacobian it carries into the next step (iqn-imvj) */
    unsigned long filtered;   /* total: columns its QR filter removed */
    unsigned long restarts;   /* total: restarts of the carried Jacobian */
    unsigned long truncated;  /* total: modes dropped by truncation */
} seam_scheme_report;

/* The convergence test a scheme starts from when the scene names none:
 * max_iterations and a position tolerance, in metres or in cell sizes when
 * cells is set and the scene has cell_size; positions_only: the shorthand's
 * load measure only when load_tolerance is given. All zero in a scheme's
 * table: the coupler's own (50 iterations, 1e-6 m on positions and loads). */
typedef struct seam_convergence_defaults {
    int max_iterations;
    double tolerance;
    bool cells;
    bool positions_only;
} seam_convergence_defaults;

/* A scheme: parameters read from the scene's `coupling` object at create
 * (each reads only its own keys), then one call of step per time step.
 * What it asks of the run is in its traits and defaults, which the scene
 * and the stepper read; no part of the coupler tells schemes apart by name
 * or address. */
typedef struct seam_scheme_ops {
    const char *name;
    const char *summary;
    const char *const *keys;      /* the keys of `coupling` it reads, for messages */
    void *(*create)(seam_cfg *coupling);
    void (*destroy)(void *self);
    /* Iterate from the predicted positions X_pred until the judge says
     * converged, exhausted or diverged. On return X_out holds the solid's
     * last output (what will be committed); *verdict the final judgement.
     * Returns the first non-OK status of a black box, else SEAM_OK. */
    seam_status (*step)(void *self, seam_coupling *c, const double *X_pred, double *X_out,
                        seam_verdict *verdict);
    /* What the scheme carries from one step to the next (reused secant
     * columns, a relaxation factor), as values of the checkpoint's open
     * section, and back, so a resumed run computes the same bits; NULL when
     * it carries nothing. load reports problems through the reader. */
    void (*save)(const void *self, seam_ckpt_writer *w);
    void (*load)(void *self, seam_ckpt_reader *r);
    /* Optional (NULL: all zero): what it keeps, see seam_scheme_report. */
    void (*report)(void *self, seam_scheme_report *out);
    /* Traits. */
    bool iterates;             /* false: one solve each per step (the convergence keys do nothing) */
    bool needs_bpp;            /* the boundary pressure projection is part of it: on unless named, never off */
    bool needs_impulse_loads;  /* the fluid must return conservative impulse loads (Akbay eq. 2.8) */
    seam_convergence_defaults defaults;
} seam_scheme_ops;

/* Registry of all schemes. */
const seam_scheme_ops *seam_scheme_find(const char *name);
size_t seam_scheme_count(void);
const seam_scheme_ops *seam_scheme_at(size_t i);

extern const seam_scheme_ops seam_scheme_explicit;
extern const seam_scheme_ops seam_scheme_relaxation;
extern const seam_scheme_ops seam_scheme_aitken;
extern const seam_scheme_ops seam_scheme_iqn_ils;
extern const seam_scheme_ops seam_scheme_iqn_imvj;
extern const seam_scheme_ops seam_scheme_rmi;
extern const seam_scheme_ops seam_scheme_xpm;
extern const seam_scheme_ops seam_scheme_newton_fd;

#endif
