/* Convergence measures on positions and loads (convergence.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ranges.h"
#include "convergence.h"

static const char *const quantity_names[] = {"positions", "loads", NULL};
static const char *const kind_names[] = {"absolute", "relative", "cells", "relative_value", NULL};
enum { KIND_ABSOLUTE, KIND_RELATIVE, KIND_CELLS, KIND_RELATIVE_VALUE };
static const char *const norm_names[] = {"max", "2", NULL};

/* One measure's kind and tolerance; "cells" is absolute in units of the
 * scene's cell_size (Akbay 2.6: 5% of the fluid cell size). */
static void read_kind(seam_cfg *obj, const seam_range_table *keys, const char *kind_key, const char *tol_key,
                      double tol_default, bool cells_default, double cell_size, seam_measure *m)
{
    m->tolerance = seam_cfg_key(obj, keys, tol_key, tol_default, 0);
    int kind = seam_cfg_enum(obj, kind_key, kind_names,
                             cells_default ? KIND_CELLS : m->relative ? KIND_RELATIVE : KIND_ABSOLUTE, 0);
    m->relative = kind == KIND_RELATIVE || kind == KIND_RELATIVE_VALUE;
    m->of_value = kind == KIND_RELATIVE_VALUE;
    if (kind == KIND_CELLS) {
        if (m->quantity != SEAM_QTY_POSITIONS)
            seam_cfg_error(obj, kind_key, "\"cells\" measures positions only");
        else if (cell_size > 0)
            m->tolerance *= cell_size;
        else
            seam_cfg_error(obj, kind_key, "\"cells\" needs the scene's top-level \"cell_size\"");
    }
    if (m->relative && m->tolerance >= 1.0)
        seam_cfg_error(obj, tol_key, "a relative tolerance must be below 1, got %g", m->tolerance);
}

void seam_convergence_read(seam_convergence *cv, seam_cfg *coupling, double cell_size)
{
    static const seam_convergence_defaults d = {50, 1e-6, false, false};
    seam_convergence_read_defaults(cv, coupling, cell_size, &d);
}

void seam_convergence_read_defaults(seam_convergence *cv, seam_cfg *coupling, double cell_size,
                                    const seam_convergence_defaults *d)
{
    bool cells = d->cells && cell_size > 0;
    *cv = (seam_convergence){.max_iterations = d->max_iterations, .divergence = 1e8, .count = 2};
    if (d->positions_only)
        cv->count = 1;
    cv->measures[0] = (seam_measure){SEAM_QTY_POSITIONS, false, SEAM_NORM_MAX, d->tolerance * (cells ? cell_size : 1.0), false};
    cv->measures[1] = (seam_measure){SEAM_QTY_LOADS, true, SEAM_NORM_2, 1e-3, false};
    if (!coupling)
        return;
    cv->max_iterations = (int)seam_cfg_key_int(coupling, COUPLING_KEYS, "max_iterations", d->max_iterations, 0);
    static const char *const count_names[] = {"seam", "thesis", NULL};
    cv->thesis = seam_cfg_enum(coupling, "count", count_names, 0, 0) == 1;
    cv->divergence = seam_cfg_key(coupling, COUPLING_KEYS, "divergence", 1e8, 0);
    size_t n = seam_cfg_count(coupling, "measures", 0);
    if (n == 0) {   /* the shorthand: one position and one load measure */
        read_kind(coupling, COUPLING_KEYS, "convergence", "tolerance", d->tolerance, cells, cell_size,
                  &cv->measures[0]);
        cv->measures[1].tolerance = seam_cfg_key(coupling, COUPLING_KEYS, "load_tolerance", 1e-3, 0);
        if (d->positions_only && !seam_cfg_has(coupling, "load_tolerance"))
            cv->count = 1;
        return;
    }
    static const char *const shorthand[] = {"tolerance", "convergence", "load_tolerance", NULL};
    for (const char *const *k = shorthand; *k; k++)
        if (seam_cfg_has(coupling, *k))
            seam_cfg_error(coupling, *k, "give either \"measures\" or the shorthand keys, not both");
    if (n > SEAM_MEASURES_MAX) {
        seam_cfg_error(coupling, "measures", "at most %d measures, got %zu", SEAM_MEASURES_MAX, n);
        n = SEAM_MEASURES_MAX;
    }
    cv->count = 0;
    for (size_t i = 0; i < n; i++) {
        seam_cfg *m = seam_cfg_item(coupling, "measures", i);
        if (!m)
            continue;
        seam_measure *ms = &cv->measures[cv->count++];
        ms->quantity = (seam_quantity)seam_cfg_enum(m, "quantity", quantity_names, 0, SEAM_CFG_REQUIRED);
        ms->norm = (seam_norm)seam_cfg_enum(m, "norm", norm_names, 0, 0);
        ms->relative = ms->of_value = false;
        read_kind(m, MEASURE_KEYS, "kind", "tolerance", 1e-6, false, cell_size, ms);
    }
}

/* |a - b| over dim values (b may be NULL), by the squares when they stay
 * finite; otherwise from halves scaled by the largest, so finite data never
 * overflow (only a true length beyond DBL_MAX is inf). NaN for non-finite data. */
static double diff_length(const double *a, const double *b, size_t dim)
{
    double s = 0.0;
    for (size_t k = 0; k < dim; k++) {
        double d = b ? a[k] - b[k] : a[k];
        s += d * d;
    }
    if (isfinite(s))
        return sqrt(s);
    double m = 0.0;
    for (size_t k = 0; k < dim; k++) {
        if (!isfinite(a[k]) || (b && !isfinite(b[k])))
            return NAN;
        m = fmax(m, fabs(b ? a[k] * 0.5 - b[k] * 0.5 : a[k] * 0.5));
    }
    s = 0.0;
    for (size_t k = 0; k < dim; k++) {
        double d = (b ? a[k] * 0.5 - b[k] * 0.5 : a[k] * 0.5) / m;
        s += d * d;
    }
    return 2.0 * m * sqrt(s);
}

double seam_norm_max_point(const double *a, const double *b, size_t n, int dim)
{
    size_t step = (size_t)(dim > 0 && dim <= 3 ? dim : 1);
    double worst = 0.0;
    for (size_t i = 0; i + step <= n; i += step) {
        double len = diff_length(a + i, b ? b + i : NULL, step);
        if (isnan(len))
            return NAN;
        worst = len > worst ? len : worst;
    }
    return worst;
}

double seam_norm_2(const double *a, const double *b, size_t n)
{
    return diff_length(a, b, n);
}

static double measure_norm(seam_norm norm, const double *a, const double *b, size_t n, int dim)
{
    return norm == SEAM_NORM_MAX ? seam_norm_max_point(a, b, n, dim) : seam_norm_2(a, b, n);
}

seam_verdict seam_convergence_judge(seam_convergence *cv, seam_coupling *c, const seam_iterate *it)
{
    double r = seam_norm_max_point(it->X_new, it->X_old, c->n, c->dim);
    c->residual = r;
    if (c->judged == 1)
        c->first_residual = r;
    if (!isfinite(r))
        return SEAM_DIVERGED;
    bool all = true;
    for (size_t i = 0; i < cv->count; i++) {
        const seam_measure *m = &cv->measures[i];
        double d, v, floor;
        if (m->quantity == SEAM_QTY_POSITIONS) {
            d = measure_norm(m->norm, it->X_new, it->X_old, c->n, c->dim);
            v = m->relative ? measure_norm(m->norm, it->X_new, m->of_value ? NULL : c->Xn, c->n, c->dim) : 0.0;
            floor = 1e-14 * cv->scale;   /* round-off of the positions themselves */
        } else {
            if (!it->F) {   /* no fluid call yet: nothing to say about loads */
                cv->value[i] = cv->goal[i] = NAN;
                all = false;
                continue;
            }
            d = measure_norm(m->norm, it->F, it->F_prev, c->n, c->dim);
            v = measure_norm(m->norm, it->F, NULL, c->n, c->dim);
            floor = 1e-14 * v;
        }
        if (isnan(d) || isnan(v))
            return SEAM_DIVERGED;
        double goal = m->relative ? m->tolerance * v : m->tolerance;
        cv->value[i] = d;
        cv->goal[i] = goal;
        all = all && (d <= goal || d <= floor);
    }
    if (all)
        return SEAM_CONVERGED;
    /* Growth within the step, or a residual no motion of this interface can
     * explain (it catches a blow-up across steps, which each step's own
     * first residual follows). */
    double goal0 = cv->count && cv->measures[0].quantity == SEAM_QTY_POSITIONS ? cv->goal[0] : 0.0;
    if ((c->judged > 1 && r > cv->divergence * fmax(c->first_residual, goal0)) ||
        r > cv->divergence * fmax(cv->reference, goal0))
        return SEAM_DIVERGED;
    return c->judged >= cv->max_iterations ? SEAM_EXHAUSTED : SEAM_ITERATE;
}

void seam_convergence_describe(const seam_convergence *cv, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < cv->count && len < n; i++) {
        const seam_measure *m = &cv->measures[i];
        int w = snprintf(buf + len, n - len, "%s%s %s %s-norm <= %g%s", i ? ", " : "", quantity_names[m->quantity],
                         m->of_value ? "relative_value" : m->relative ? "relative" : "absolute", norm_names[m->norm], m->tolerance,
                         m->relative ? "" : m->quantity == SEAM_QTY_POSITIONS ? " m" : " N");
        if (w < 0)
            break;
        len += (size_t)w;
    }
    if (len < n)
        snprintf(buf + len, n - len, cv->thesis ? " (counted as the thesis does)" : " (counted as seam does)");
}
