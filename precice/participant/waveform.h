/* A time window's samples of one exchanged data, interpolated in time as
 * preCICE's waveform iteration does at the data's waveform-degree. */
#ifndef SEAM_PRECICE_WAVEFORM_H
#define SEAM_PRECICE_WAVEFORM_H

#include <stddef.h>

typedef struct precice_waveform {
    size_t n_samples;
    size_t n_values;   /* values per sample (vertices x components) */
    double *times;     /* ascending, relative to the window's start */
    double *values;    /* n_samples x n_values */
} precice_waveform;

/* Replace the samples (times ascending; values n_samples x n_values, copied). */
void precice_waveform_set(precice_waveform *w, size_t n_samples, const double *times,
                          size_t n_values, const double *values);
void precice_waveform_clear(precice_waveform *w);

/* The degree actually used: degree, lowered to n_samples - 1. */
int precice_waveform_degree(const precice_waveform *w, int degree);

/* out[k] = the waveform at time t, value index[k] (k < n), at degree 0
 * (the sample at or after t), 1 (piecewise linear) or 2, 3 (the
 * interpolating B-spline of that degree through the samples, knots by
 * averaging the sample times). Needs n_samples >= 1. */
void precice_waveform_eval(const precice_waveform *w, int degree, double t, const size_t *index,
                           size_t n, double *out);

#endif
