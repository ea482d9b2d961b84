/* The polynomial predictors' weights, shared by seam's own stepper
 * (stepper.c) and the preCICE coupling (precice_couple.c): the first
 * iterate of a step is sum_j l_j U^{n-j}, the Lagrange polynomial through
 * the committed states U^n, U^{n-1}, ..., U^{n-p} evaluated dt ahead. */
#ifndef SEAM_COUPLER_PREDICT_H
#define SEAM_COUPLER_PREDICT_H

/* The most committed states a predictor looks back beyond U^n (the quartic's four). */
#define PREDICT_MAX_ORDER 4

/* l[0..p] for order p (0 <= p <= PREDICT_MAX_ORDER): nodes tau_0 = 0 (U^n),
 * tau_j = -(dt_past[0] + ... + dt_past[j-1]) (U^{n-j}), evaluated at tau = dt. */
void predict_weights(int p, const double *dt_past, double dt, double l[PREDICT_MAX_ORDER + 1]);

#endif
