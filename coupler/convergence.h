/* When a coupling iteration is done: measures on every exchanged quantity.
 *
 * Each measure takes one quantity (the positions the solid returns, or the
 * loads the fluid returns), its change between iterations d, a norm, and a
 * kind:
 *     absolute:  ||d|| <= tol
 *     relative:  ||d|| <= tol ||v||
 * with d = X_new - X_old and v = X_new - X^n (the displacement over the step;
 * positions themselves depend on where the origin is) for positions, and
 * d = F^k - F^{k-1} and v = F^k for loads; relative_value: v = X_new for
 * positions (preCICE's relative measure, for values with a meaningful
 * origin such as the tube's cross-sections), as relative for loads. Norms: "max", the largest
 * Euclidean length of one point's vector, or "2", the Euclidean norm of the
 * whole vector. Every measure must hold (all-must-hold). Both norms are
 * computed so they cannot overflow on finite data. */
#ifndef SEAM_COUPLER_CONVERGENCE_H
#define SEAM_COUPLER_CONVERGENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "scheme.h"
#include "seam/config.h"

enum { SEAM_MEASURES_MAX = 8 };

typedef enum { SEAM_QTY_POSITIONS, SEAM_QTY_LOADS } seam_quantity;
typedef enum { SEAM_NORM_MAX, SEAM_NORM_2 } seam_norm;

typedef struct seam_measure {
    seam_quantity quantity;
    bool relative;
    seam_norm norm;
    double tolerance;        /* m or N (absolute), or a fraction (relative) */
    bool of_value;           /* relative to the new value itself, not to the displacement */
} seam_measure;

typedef struct seam_convergence {
    seam_measure measures[SEAM_MEASURES_MAX];
    size_t count;
    int max_iterations;
    double divergence;       /* a position residual this many times the first one is divergence */
    bool thesis;             /* coupling.count "thesis": residuals as Akbay counts them (the schemes read it) */
    double scale;            /* the interface's extent now (m), for the round-off floor */
    double reference;        /* its extent at the start, at least 1 m: a position residual past divergence times it diverged */
    /* what the last judgement found, per measure: ||d|| and its goal */
    double value[SEAM_MEASURES_MAX], goal[SEAM_MEASURES_MAX];
} seam_convergence;

/* Read coupling.tolerance / convergence / load_tolerance / measures /
 * max_iterations / divergence from the scene's coupling object (cfg may be
 * NULL: the defaults). cell_size is the scene's (0: none). */
void seam_convergence_read(seam_convergence *cv, seam_cfg *coupling, double cell_size);

/* A scheme's own defaults: max_iterations, and the position tolerance in
 * metres, or in cell sizes when cells is set and the scene has cell_size
 * (xpm: 30 iterations, 0.05 cells, Akbay 2.6). */
void seam_convergence_read_defaults(seam_convergence *cv, seam_cfg *coupling, double cell_size,
                                    const seam_convergence_defaults *d);
/* The verdict on an iterate of step c: all measures hold, or not yet, or
 * the iterations ran out, or the position residual diverged. c->residual
 * and c->first_residual are set to the position residual (max norm, m). */
seam_verdict seam_convergence_judge(seam_convergence *cv, seam_coupling *c, const seam_iterate *it);
/* "positions absolute max 1e-06 m, loads relative 2 0.001" */
void seam_convergence_describe(const seam_convergence *cv, char *buf, size_t n);

/* Norms of a - b, overflow-free on finite data; NaN when a value is not
 * finite. b may be NULL (the norm of a). */
double seam_norm_max_point(const double *a, const double *b, size_t n, int dim);
double seam_norm_2(const double *a, const double *b, size_t n);

#endif
