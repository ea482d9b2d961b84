/* Waveform interpolation: samples of a window evaluated at a time inside it.
 * Degree 2 and 3 use the interpolating B-spline through (t_i, v_i) with
 * knots from averaging the sample times (de Boor, "A Practical Guide to
 * Splines", ch. IX and XIII), the construction preCICE's waveforms use. */
#include "waveform.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <seam/alloc.h>

void precice_waveform_clear(precice_waveform *w)
{
    free(w->times);
    free(w->values);
    memset(w, 0, sizeof *w);
}

void precice_waveform_set(precice_waveform *w, size_t n_samples, const double *times,
                          size_t n_values, const double *values)
{
    precice_waveform_clear(w);
    w->n_samples = n_samples;
    w->n_values = n_values;
    w->times = seam_xmalloc_n(n_samples, sizeof(double));
    w->values = seam_xmalloc_n(n_samples * n_values, sizeof(double));
    memcpy(w->times, times, n_samples * sizeof(double));
    memcpy(w->values, values, n_samples * n_values * sizeof(double));
}

int precice_waveform_degree(const precice_waveform *w, int degree)
{
    int most = w->n_samples > 0 ? (int)w->n_samples - 1 : 0;
    return degree < most ? degree : most;
}

/* Times closer than this (relative to the window) are the same time. */
static double time_tolerance(const precice_waveform *w)
{
    double span = w->n_samples > 0 ? fabs(w->times[w->n_samples - 1]) : 0.0;
    return 1e-12 * (span > 1.0 ? span : 1.0);
}

static void eval_constant(const precice_waveform *w, double t, const size_t *index, size_t n, double *out)
{
    size_t s = 0;
    while (s + 1 < w->n_samples && w->times[s] < t - time_tolerance(w))
        s++;
    for (size_t k = 0; k < n; k++)
        out[k] = w->values[s * w->n_values + index[k]];
}

static void eval_linear(const precice_waveform *w, double t, const size_t *index, size_t n, double *out)
{
    size_t s = 1;
    while (s + 1 < w->n_samples && w->times[s] < t)
        s++;
    double t0 = w->times[s - 1], t1 = w->times[s];
    double a = (t - t0) / (t1 - t0);
    const double *v0 = w->values + (s - 1) * w->n_values, *v1 = w->values + s * w->n_values;
    for (size_t k = 0; k < n; k++)
        out[k] = (1.0 - a) * v0[index[k]] + a * v1[index[k]];
}

/* Clamped knot vector of a degree-p spline through m samples at u:
 * p+1 copies of each end and the averages of p consecutive interior u. */
static void averaged_knots(const double *u, size_t m, int p, double *knots)
{
    size_t n_knots = m + (size_t)p + 1;
    for (int i = 0; i <= p; i++) {
        knots[i] = u[0];
        knots[n_knots - 1 - (size_t)i] = u[m - 1];
    }
    for (size_t j = 1; j + (size_t)p < m; j++) {
        double sum = 0.0;
        for (size_t i = j; i < j + (size_t)p; i++)
            sum += u[i];
        knots[j + (size_t)p] = sum / p;
    }
}

/* The m B-spline basis functions of degree p at x (Cox-de Boor recursion);
 * at the last knot the last basis function is 1. */
static void bspline_basis(const double *knots, size_t m, int p, double x, double *N)
{
    size_t n_knots = m + (size_t)p + 1;
    double *b = seam_xcalloc(n_knots, sizeof(double));
    double last = knots[n_knots - 1];
    for (size_t i = 0; i + 1 < n_knots; i++)
        b[i] = (knots[i] <= x && x < knots[i + 1]) ? 1.0 : 0.0;
    if (x >= last)
        b[m - 1] = 1.0;
    for (int d = 1; d <= p; d++) {
        for (size_t i = 0; i + (size_t)d + 1 < n_knots; i++) {
            double left = 0.0, right = 0.0;
            double dl = knots[i + (size_t)d] - knots[i], dr = knots[i + (size_t)d + 1] - knots[i + 1];
            if (dl > 0.0)
                left = (x - knots[i]) / dl * b[i];
            if (dr > 0.0)
                right = (knots[i + (size_t)d + 1] - x) / dr * b[i + 1];
            b[i] = left + right;
        }
    }
    memcpy(N, b, m * sizeof(double));
    free(b);
}

/* Solve A x = b in place (A m x m, row-major) by Gaussian elimination with
 * partial pivoting; the collocation matrix of distinct samples is regular. */
static void solve_dense(double *A, double *b, size_t m, size_t n_rhs)
{
    for (size_t c = 0; c < m; c++) {
        size_t piv = c;
        for (size_t r = c + 1; r < m; r++)
            if (fabs(A[r * m + c]) > fabs(A[piv * m + c]))
                piv = r;
        if (piv != c) {
            for (size_t k = 0; k < m; k++) {
                double t = A[c * m + k]; A[c * m + k] = A[piv * m + k]; A[piv * m + k] = t;
            }
            for (size_t k = 0; k < n_rhs; k++) {
                double t = b[c * n_rhs + k]; b[c * n_rhs + k] = b[piv * n_rhs + k]; b[piv * n_rhs + k] = t;
            }
        }
        for (size_t r = c + 1; r < m; r++) {
            double f = A[r * m + c] / A[c * m + c];
            if (f == 0.0)
                continue;
            for (size_t k = c; k < m; k++)
                A[r * m + k] -= f * A[c * m + k];
            for (size_t k = 0; k < n_rhs; k++)
                b[r * n_rhs + k] -= f * b[c * n_rhs + k];
        }
    }
    for (size_t c = m; c-- > 0;) {
        for (size_t k = 0; k < n_rhs; k++) {
            double s = b[c * n_rhs + k];
            for (size_t j = c + 1; j < m; j++)
                s -= A[c * m + j] * b[j * n_rhs + k];
            b[c * n_rhs + k] = s / A[c * m + c];
        }
    }
}

static void eval_spline(const precice_waveform *w, int p, double t, const size_t *index, size_t n, double *out)
{
    size_t m = w->n_samples;
    double *knots = seam_xmalloc_n(m + (size_t)p + 1, sizeof(double));
    double *A = seam_xmalloc_n(m * m, sizeof(double));
    double *coef = seam_xmalloc_n(m * n, sizeof(double));
    double *N = seam_xmalloc_n(m, sizeof(double));
    averaged_knots(w->times, m, p, knots);
    for (size_t i = 0; i < m; i++) {
        bspline_basis(knots, m, p, w->times[i], A + i * m);
        for (size_t k = 0; k < n; k++)
            coef[i * n + k] = w->values[i * w->n_values + index[k]];
    }
    solve_dense(A, coef, m, n);
    bspline_basis(knots, m, p, t, N);
    for (size_t k = 0; k < n; k++) {
        double s = 0.0;
        for (size_t i = 0; i < m; i++)
            s += N[i] * coef[i * n + k];
        out[k] = s;
    }
    free(knots); free(A); free(coef); free(N);
}

void precice_waveform_eval(const precice_waveform *w, int degree, double t, const size_t *index,
                           size_t n, double *out)
{
    int p = precice_waveform_degree(w, degree);
    double lo = w->times[0], hi = w->times[w->n_samples - 1];
    t = t < lo ? lo : (t > hi ? hi : t);   /* read times within the tolerance of the ends */
    if (p == 0)
        eval_constant(w, t, index, n, out);
    else if (p == 1)
        eval_linear(w, t, index, n, out);
    else
        eval_spline(w, p, t, index, n, out);
}
