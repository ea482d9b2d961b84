/* The interface vectors of the reduced model interface written on each
 * rigid body's own degrees of freedom (Akbay 2.3.4, the exp/log map): the
 * points of a body become y = [t, r w] (3 values in 2D, 6 in 3D), t the
 * move of its centre since the committed state and w the rotation vector
 * of its turn since then (world frame, R = exp(w) R^n), scaled by the
 * body's mean arm r (the thesis's M = diag(I, r I)); its point loads become
 * G = [F, tau / r], their force and torque about the centre. Points of no
 * rigid body stay as they are. A reduced position vector maps back to the
 * points as an exact rigid motion of each body; a reduced load vector back
 * to point loads with exactly that force and torque. */
#ifndef SEAM_COUPLER_RIGID_DOFS_H
#define SEAM_COUPLER_RIGID_DOFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One body as the solids describe it (plugin.h seam_bodies), its points
 * first .. first + count - 1 of the concatenated interface. */
typedef struct rigid_dofs_body {
    size_t first, count;
    double centre[3], rotation[9];
} rigid_dofs_body;

typedef struct rigid_dofs rigid_dofs;

/* From the concatenated interface (n_points of dim, positions X0) and its
 * rigid bodies (disjoint ranges). NULL with a message in err when a body's
 * points do not fix its pose (fewer than two distinct points; in 3D all on
 * one line; *failed is that body's index, unless failed is NULL) or out of
 * memory (*failed = n_bodies). */
rigid_dofs *rigid_dofs_new(int dim, size_t n_points, const double *X0, const rigid_dofs_body *bodies,
                           size_t n_bodies, char *err, size_t errlen, size_t *failed);
void rigid_dofs_free(rigid_dofs *rd);
/* Length of the full (points x dim) and the reduced vectors, the bodies. */
size_t rigid_dofs_full(const rigid_dofs *rd);
size_t rigid_dofs_reduced(const rigid_dofs *rd);
size_t rigid_dofs_bodies(const rigid_dofs *rd);
/* Start a step from the committed positions Xn: each body's committed pose. */
bool rigid_dofs_begin(rigid_dofs *rd, const double *Xn);
/* y = the reduced coordinates of positions X (log map; X need only be close to rigid). */
void rigid_dofs_reduce_X(const rigid_dofs *rd, const double *X, double *y);
/* X = the points at reduced coordinates y, an exact rigid motion of each body (exp map). */
void rigid_dofs_expand_X(const rigid_dofs *rd, const double *y, double *X);
/* G = the reduced loads of point loads p acting on the points at positions X. */
void rigid_dofs_reduce_F(const rigid_dofs *rd, const double *X, const double *p, double *G);
/* p = base + the least-norm point loads that make the reduced loads of p,
 * at positions X, equal to G (points of no body: p = G there). */
void rigid_dofs_lift_F(const rigid_dofs *rd, const double *X, const double *G, const double *base, double *p);

#endif
