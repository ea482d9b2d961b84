/* The boundary pressure projection (bpp.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "ranges.h"
#include "bpp.h"

/* A set of enclosed regions: rows c_r (m x n), sources q_r, and per region
 * its id, p0, last increment and volume error. */
typedef struct {
    size_t m, cap;
    double *C, *q, *p0, *dp0, *err;
    long *id;
} region_set;

struct seam_bpp {
    bpp_options o;
    bpp_host h;
    size_t n;
    int dim;
    region_set work, next, committed;   /* this iterate's, the one being matched in, the last step's */
    double *MC;              /* m x n: M^-1 c_r, the velocity pattern a unit p0 impulse on region r causes */
    double *A;               /* m x m: C M^-1 C^T */
    unsigned char *active;   /* regions with a wall that can move */
    size_t cap_mc;
    bool known;              /* regions asked for this step */
    long next_id;
    double *V, *Fs, *Minv, *crow, *Xmid;   /* n each */
    double *lump;            /* per point: its share of the elements' areas */
    bpp_mesh mesh;           /* the interface's elements (geometric rows) */
    double *S, *rhs, *x;          /* small scratch of solve_regions: m x m, m, m */
    double *rate, *scale, *lambda, *norms;   /* small scratch: m each (norms: 2m) */
    double *B;               /* scratch of resolve(): 2 m^2 + 2 m */
    lapack_int *piv;         /* m */
    size_t cap_small;
    double max_dp0;          /* of the last solid call */
    bool volume_ok;          /* the last solid call's velocities keep the volumes (resolved positions) */
};

static const char *const form_names[] = {"solid", "fluid", NULL};
static const char *const positions_names[] = {"resolved", "solver", NULL};
static const char *const rows_names[] = {"geometric", "fluid", NULL};

void bpp_read_options(seam_cfg *coupling, bool on_default, bool *on, bpp_options *o)
{
    *o = (bpp_options){BPP_FORM_SOLID, true, 0.0, true, 1e-3, 6};
    *on = on_default;
    json_t *j = coupling ? seam_cfg_json(coupling, "bpp") : NULL;
    if (!j)
        return;
    if (json_is_boolean(j)) {
        *on = seam_cfg_bool(coupling, "bpp", on_default, 0);
        return;
    }
    seam_cfg *b = seam_cfg_child(coupling, "bpp", 0);
    if (!b)
        return;
    *on = seam_cfg_bool(b, "enabled", true, 0);
    o->form = (bpp_form)seam_cfg_enum(b, "form", form_names, BPP_FORM_SOLID, 0);
    int pos = seam_cfg_enum(b, "positions", positions_names, o->form == BPP_FORM_SOLID ? 0 : 1, 0);
    if (pos == 0 && o->form == BPP_FORM_FLUID && seam_cfg_has(b, "positions"))
        seam_cfg_error(b, "positions", "\"resolved\" works with form \"solid\" only (the fluid form's increments "
                                        "do not make the solids' velocities admissible)");
    o->resolve = pos == 0 && o->form == BPP_FORM_SOLID;
    o->p0_tolerance = seam_cfg_key(b, BPP_KEYS, "p0_tolerance", 0.0, 0);
    o->geometric = seam_cfg_enum(b, "rows", rows_names, o->form == BPP_FORM_SOLID ? 0 : 1, 0) == 0;
    if (o->geometric && o->form == BPP_FORM_FLUID && seam_cfg_has(b, "rows"))
        seam_cfg_error(b, "rows", "\"geometric\" works with form \"solid\" only (the fluid form's masses come "
                                  "with the fluid's rows)");
    o->volume_tolerance = seam_cfg_key(b, BPP_KEYS, "volume_tolerance", 1e-3, 0);
    o->max_solves = (int)seam_cfg_key_int(b, BPP_KEYS, "max_solves", 6, 0);
    if (!o->resolve && (seam_cfg_has(b, "volume_tolerance") || seam_cfg_has(b, "max_solves")))
        seam_cfg_error(b, seam_cfg_has(b, "max_solves") ? "max_solves" : "volume_tolerance",
                       "applies to positions \"resolved\" (form \"solid\") only");
}

static void set_free(region_set *s)
{
    free(s->C);
    free(s->q);
    free(s->id);
    *s = (region_set){0};
}

/* Room for m regions of n values; false when out of memory. */
static bool set_reserve(region_set *s, size_t m, size_t n)
{
    if (m <= s->cap)
        return true;
    double *C = realloc(s->C, m * (n ? n : 1) * sizeof *C);
    if (!C)
        return false;
    s->C = C;
    double *q = realloc(s->q, 4 * m * sizeof *q);
    if (!q)
        return false;
    long *id = realloc(s->id, m * sizeof *id);
    if (!id) {
        s->q = q;
        return false;
    }
    /* q, p0, dp0, err share one block; move the old values to their new places */
    if (s->cap) {
        memmove(q + 3 * m, q + 3 * s->cap, s->m * sizeof *q);
        memmove(q + 2 * m, q + 2 * s->cap, s->m * sizeof *q);
        memmove(q + m, q + s->cap, s->m * sizeof *q);
    }
    s->q = q;
    s->p0 = q + m;
    s->dp0 = q + 2 * m;
    s->err = q + 3 * m;
    s->id = id;
    s->cap = m;
    return true;
}

static bool set_copy(region_set *dst, const region_set *src, size_t n)
{
    if (!set_reserve(dst, src->m, n))
        return false;
    dst->m = src->m;
    if (!src->m)   /* a set that never held a region has no arrays to copy from */
        return true;
    memcpy(dst->C, src->C, src->m * n * sizeof *dst->C);
    memcpy(dst->q, src->q, src->m * sizeof *dst->q);
    memcpy(dst->p0, src->p0, src->m * sizeof *dst->p0);
    memcpy(dst->dp0, src->dp0, src->m * sizeof *dst->dp0);
    memcpy(dst->err, src->err, src->m * sizeof *dst->err);
    memcpy(dst->id, src->id, src->m * sizeof *dst->id);
    return true;
}

seam_bpp *bpp_new(const bpp_options *o, size_t n, int dim, const bpp_host *host, const bpp_mesh *mesh)
{
    seam_bpp *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->o = *o;
    b->h = *host;
    b->n = n;
    b->dim = dim;
    b->V = calloc(5 * (n ? n : 1) + (dim > 0 ? n / (size_t)dim : 0) + 1, sizeof *b->V);
    if (!b->V) {
        free(b);
        return NULL;
    }
    b->Fs = b->V + n;
    b->Minv = b->Fs + n;
    b->crow = b->Minv + n;
    b->Xmid = b->crow + n;
    b->lump = b->Xmid + n;
    if (mesh && (dim == 2 || dim == 3) && mesh->nodes_per_elem == dim && mesh->n_elems && mesh->elems)
        b->mesh = *mesh;
    else
        b->o.geometric = false;
    if (b->o.form == BPP_FORM_FLUID)
        b->o.geometric = false;   /* ch. 2's masses come with the fluid's rows */
    return b;
}

void bpp_destroy(seam_bpp **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_bpp *b = *self_p;
    set_free(&b->work);
    set_free(&b->next);
    set_free(&b->committed);
    free(b->MC);
    free(b->A);
    free(b->active);
    free(b->V);
    free(b->S);
    free(b->B);
    free(b->piv);
    free(b);
    *self_p = NULL;
}

static void say(seam_bpp *b, const seam_coupling *c, seam_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void say(seam_bpp *b, const seam_coupling *c, seam_log_level level, const char *fmt, ...)
{
    if (!b->h.log)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    b->h.log(b->h.ctx, c, level, msg);
}

static const char *rate_unit(int dim) { return dim == 3 ? "m^3/s" : "m^2/s"; }

/* Room for the per-iterate matrices of m regions. */
static bool reserve_work(seam_bpp *b, size_t m)
{
    if (m <= b->cap_mc)
        return true;
    double *MC = realloc(b->MC, m * (b->n ? b->n : 1) * sizeof *MC);
    if (!MC)
        return false;
    b->MC = MC;
    double *A = realloc(b->A, m * m * sizeof *A);
    if (!A)
        return false;
    b->A = A;
    unsigned char *active = realloc(b->active, m);
    if (!active)
        return false;
    b->active = active;
    double *S = realloc(b->S, (m * m + 7 * m) * sizeof *S);
    if (!S)
        return false;
    b->S = S;
    b->rhs = S + m * m;
    b->x = b->rhs + m;
    b->rate = b->x + m;
    b->scale = b->rate + m;
    b->lambda = b->scale + m;
    b->norms = b->lambda + m;
    double *B = realloc(b->B, (2 * m * m + 2 * m) * sizeof *B);
    if (!B)
        return false;
    b->B = B;
    lapack_int *piv = realloc(b->piv, m * sizeof *piv);
    if (!piv)
        return false;
    b->piv = piv;
    b->cap_mc = m;
    return true;
}

/* How much two regions' walls agree: sum_j max(0, a_j b_j) / (|a| |b|),
 * 1 for the same walls; the two sides of a shell (opposite normals) give 0. */
static double overlap(const double *a, const double *bb, size_t n, double na, double nb)
{
    double s = 0.0;
    for (size_t j = 0; j < n; j++) {
        double p = a[j] * bb[j];
        if (p > 0.0)
            s += p;
    }
    return s / (na * nb);
}

/* Give each region of `next` an id and a p0 from `work` (the regions one
 * iterate or one step earlier): the region whose walls it shares most keeps
 * its id; p0 is the overlap-weighted mean of every region it shares at least
 * 30% with (a merge averages); a region sharing none appears with p0 = 0.
 * Regions without movable walls (zero rows) are matched among themselves
 * in order. */
static void match_regions(seam_bpp *b)
{
    const region_set *old = &b->work;
    region_set *neu = &b->next;
    size_t n = b->n;
    double *norm_old = b->norms, *norm_new = b->norms + old->m;   /* room for both: see refresh_regions */
    for (size_t o = 0; o < old->m; o++)
        norm_old[o] = cblas_dnrm2((int)n, old->C + o * n, 1);
    for (size_t r = 0; r < neu->m; r++)
        norm_new[r] = cblas_dnrm2((int)n, neu->C + r * n, 1);
    size_t zero_seen = 0;
    for (size_t r = 0; r < neu->m; r++) {
        const double *cr = neu->C + r * n;
        double nr = norm_new[r];
        long id = -1;
        double p0 = 0.0;
        if (nr == 0.0) {
            size_t z = 0;
            for (size_t o = 0; o < old->m && id < 0; o++) {
                double no = norm_old[o];
                if (no == 0.0 && z++ == zero_seen)
                    id = old->id[o], p0 = old->p0[o];
            }
            zero_seen++;
        } else {
            double best = 0.0, wsum = 0.0, psum = 0.0;
            for (size_t o = 0; o < old->m; o++) {
                double no = norm_old[o];
                if (no == 0.0)
                    continue;
                double s = overlap(cr, old->C + o * n, n, nr, no);
                if (s < 0.3)
                    continue;
                wsum += s;
                psum += s * old->p0[o];
                bool taken = false;   /* by an earlier region of this call: prefer another */
                for (size_t e = 0; e < r && !taken; e++)
                    taken = neu->id[e] == old->id[o];
                if (!taken && s > best) {
                    best = s;
                    id = old->id[o];
                }
            }
            if (wsum > 0.0)
                p0 = psum / wsum;
        }
        for (size_t e = 0; e < r && id >= 0; e++)   /* a split: the second part is a new region */
            if (neu->id[e] == id)
                id = -1;
        neu->id[r] = id >= 0 ? id : b->next_id++;
        neu->p0[r] = p0;
        neu->dp0[r] = 0.0;
        neu->err[r] = 0.0;
    }
}

/* Ask the fluid for the regions at X, match them, and form M^-1 c_r and A. */
/* Element e's area vector at X: (dy, -dx) for segment (p, q) in 2D, the
 * half cross product for triangle (p, q, r) in 3D (out of a volume's solid). */
static double element_area(const seam_bpp *b, const double *X, size_t e, double *a)
{
    const int32_t *v = b->mesh.elems + e * (size_t)b->mesh.nodes_per_elem;
    const double *p = X + 2 * (size_t)v[0], *q = X + 2 * (size_t)v[1];
    if (b->dim == 2) {
        a[0] = q[1] - p[1];
        a[1] = -(q[0] - p[0]);
        return hypot(a[0], a[1]);
    }
    p = X + 3 * (size_t)v[0];
    q = X + 3 * (size_t)v[1];
    const double *r = X + 3 * (size_t)v[2];
    double u[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, w[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
    a[0] = 0.5 * (u[1] * w[2] - u[2] * w[1]);
    a[1] = 0.5 * (u[2] * w[0] - u[0] * w[2]);
    a[2] = 0.5 * (u[0] * w[1] - u[1] * w[0]);
    return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

/* Replace the fluid's rows C (m x n, c_r = W^T A n over the grid's faces
 * against the walls) by the walls' own geometry: row r gets, for every
 * element that bounds region r, its area vector a_e split over its points,
 * oriented out of the region, so c_r . V = sum_e a_e . mean of V over e is
 * the rate of change of the region's volume for walls of linear elements
 * moving at V. The elements are taken midway between the committed
 * positions X^n and X, so that in 2D, where a polygon's area is quadratic
 * in its points, dt c_r . V is exactly the area the walls sweep over the
 * step with V = (X - X^n)/dt (in 3D up to dt^3). An element bounds region r when the fluid's row,
 * along the element's normal at its points, carries at least half of the
 * element area its points stand for (the points' shares of all their
 * elements); its sign orients it (the fluid's rows point out of the fluid).
 * The fluid's rows vary from point to point with the grid's staircase, and
 * p0 pushes the walls through the same rows: the walls give way more where
 * the rows are larger, and the region's true volume falls behind (about 1%
 * a second on the volumetric balloon, docs/performance.md). */
static void geometric_rows(seam_bpp *b, const double *Xend, const double *Xn, double *C, size_t m)
{
    size_t n = b->n, d = (size_t)b->dim, npe = (size_t)b->mesh.nodes_per_elem, np = n / d;
    double *X = b->Xmid;
    for (size_t j = 0; j < n; j++)
        X[j] = Xn ? 0.5 * (Xn[j] + Xend[j]) : Xend[j];
    memset(b->lump, 0, np * sizeof *b->lump);
    double a[3];
    for (size_t e = 0; e < b->mesh.n_elems; e++) {
        double len = element_area(b, X, e, a);
        for (size_t k = 0; k < npe; k++)
            b->lump[b->mesh.elems[e * npe + k]] += len / (double)npe;
    }
    for (size_t r = 0; r < m; r++) {
        double *row = C + r * n;
        memcpy(b->crow, row, n * sizeof *row);
        memset(row, 0, n * sizeof *row);
        for (size_t e = 0; e < b->mesh.n_elems; e++) {
            double len = element_area(b, X, e, a);
            if (!(len > 0.0))
                continue;
            const int32_t *v = b->mesh.elems + e * npe;
            double s = 0.0, share = 0.0;
            for (size_t k = 0; k < npe; k++) {
                for (size_t j = 0; j < d; j++)
                    s += b->crow[(size_t)v[k] * d + j] * a[j] / len;
                share += b->lump[v[k]];
            }
            if (!(fabs(s) >= 0.5 * share))
                continue;
            double sign = s > 0.0 ? 1.0 : -1.0;
            for (size_t k = 0; k < npe; k++)
                for (size_t j = 0; j < d; j++)
                    row[(size_t)v[k] * d + j] += sign * a[j] / (double)npe;
        }
        /* No element matched a wall the fluid sees (walls sampled without
         * elements there): keep the fluid's row rather than call the
         * region's walls immovable. */
        if (cblas_dasum((int)n, row, 1) == 0.0)
            memcpy(row, b->crow, n * sizeof *row);
    }
}

static seam_status refresh_regions(seam_bpp *b, const seam_coupling *c, const double *X)
{
    size_t n = b->n;
    seam_regions R = {0};
    seam_status st = b->h.regions(b->h.ctx, c, X, &R);
    if (st != SEAM_OK)
        return st;
    if (R.count && (R.n != n || !R.C || !R.q)) {
        say(b, c, SEAM_LOG_ERROR, "the fluid's regions have rows of %zu values (the interface has %zu) or no C/q", R.n, n);
        return SEAM_ERROR;
    }
    if (R.count > 4096) {
        say(b, c, SEAM_LOG_ERROR, "the fluid reports %zu enclosed regions; at most 4096 are handled", R.count);
        return SEAM_ERROR;
    }
    size_t m = R.count;
    if (!set_reserve(&b->next, m, n) || !reserve_work(b, m > b->work.m ? m : b->work.m)) {
        say(b, c, SEAM_LOG_ERROR, "out of memory for %zu enclosed regions", m);
        return SEAM_ERROR;
    }
    b->next.m = m;
    if (m) {
        memcpy(b->next.C, R.C, m * n * sizeof *R.C);
        memcpy(b->next.q, R.q, m * sizeof *R.q);
        if (b->o.geometric)
            geometric_rows(b, X, c->Xn, b->next.C, m);
    }
    match_regions(b);
    region_set t = b->work;
    b->work = b->next;
    b->next = t;

    if (b->o.form == BPP_FORM_FLUID && m) {   /* M^-1: the fluid mass behind each value, over all regions */
        if (!R.M) {
            say(b, c, SEAM_LOG_ERROR, "bpp.form \"fluid\" needs the fluid's masses with its regions, and the fluid gives none");
            return SEAM_ERROR;
        }
        memset(b->Minv, 0, n * sizeof *b->Minv);
        for (size_t r = 0; r < m; r++)
            cblas_daxpy((int)n, 1.0, R.M + r * n, 1, b->Minv, 1);
        for (size_t j = 0; j < n; j++)
            b->Minv[j] = b->Minv[j] > 0.0 ? 1.0 / b->Minv[j] : 0.0;
    }
    double max_diag = 0.0;
    for (size_t r = 0; r < m; r++) {
        const double *cr = b->work.C + r * n;
        double *mc = b->MC + r * n;
        if (b->o.form == BPP_FORM_FLUID)
            for (size_t j = 0; j < n; j++)
                mc[j] = b->Minv[j] * cr[j];
        else if ((st = b->h.mobility(b->h.ctx, c, cr, mc)) != SEAM_OK)
            return st;
    }
    for (size_t r = 0; r < m; r++)   /* A = C M^-1 C^T, symmetrized against rounding */
        for (size_t s = 0; s <= r; s++) {
            double a = 0.5 * (cblas_ddot((int)n, b->work.C + r * n, 1, b->MC + s * n, 1) +
                              cblas_ddot((int)n, b->work.C + s * n, 1, b->MC + r * n, 1));
            b->A[r * m + s] = b->A[s * m + r] = a;
            if (r == s)
                max_diag = fmax(max_diag, a);
        }
    for (size_t r = 0; r < m; r++)
        b->active[r] = max_diag > 0.0 && b->A[r * m + r] > 1e-12 * max_diag;
    b->known = true;
    return SEAM_OK;
}

/* S (k x k, row-major) = the rows and columns of A of the k active regions. */
static void active_block(const seam_bpp *b, double *S, size_t k)
{
    size_t m = b->work.m;
    for (size_t r = 0, i = 0; r < m; r++) {
        if (!b->active[r])
            continue;
        for (size_t s = 0, j = 0; s < m; s++)
            if (b->active[s])
                S[i * k + j++] = b->A[r * m + s];
        i++;
    }
}

/* The smallest volume rate that is not rounding for region r: a wall
 * displacement of 1e-9 of the region's size L (sum_j |c_rj|) over the step,
 * or 1e-9 of the terms the rate was summed from (scale[r]). */
static double rate_floor(const seam_bpp *b, const seam_coupling *c, const double *scale, size_t r)
{
    double L = cblas_dasum((int)b->n, b->work.C + r * b->n, 1);
    return 1e-9 * fmax(scale[r], L * L / c->dt);
}

/* x = A^-1 rhs over the regions with a movable wall; the others get 0 and,
 * when strict, an error if their rhs (a volume rate, scale[r] the size of
 * the terms it was summed from) is not zero to rounding: no wall can give
 * way to it. rhs is per_rate times a volume rate (1 in the fluid's
 * projection, 1 / dt in eq. 4.9), so rounding is judged in its units. */
static seam_status solve_regions(seam_bpp *b, const seam_coupling *c, const double *rhs, const double *scale,
                                 double per_rate, double *x, bool strict)
{
    size_t m = b->work.m, k = 0;
    double noise = 0.0;   /* the largest rounding-sized rhs of an active region */
    for (size_t r = 0; r < m; r++) {
        x[r] = 0.0;
        if (b->active[r]) {
            b->x[k++] = rhs[r];
            noise = fmax(noise, per_rate * rate_floor(b, c, scale, r));
        } else if (strict && fabs(rhs[r]) > per_rate * rate_floor(b, c, scale, r)) {
            say(b, c, SEAM_LOG_ERROR,
                "enclosed region %ld: no wall around it can move (c M^-1 c^T = 0), but its volume must change at %.3g %s "
                "(its sources and prescribed walls): an incompressible fluid cannot fit",
                b->work.id[r], rhs[r], rate_unit(b->dim));
            return SEAM_ERROR;
        }
    }
    if (!k)
        return SEAM_OK;
    double *S = b->S;
    active_block(b, S, k);
    memcpy(b->rhs, b->x, k * sizeof *b->x);
    lapack_int info = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', (lapack_int)k, 1, S, (lapack_int)k, b->x, 1);
    if (info != 0) {   /* dependent walls (two regions sharing every movable wall): the least-norm solution */
        active_block(b, S, k);   /* dposv overwrote it */
        memcpy(b->x, b->rhs, k * sizeof *b->x);
        lapack_int rank;
        double *sv = malloc(k * sizeof *sv);
        if (!sv) {
            say(b, c, SEAM_LOG_ERROR, "out of memory");
            return SEAM_ERROR;
        }
        info = LAPACKE_dgelss(LAPACK_ROW_MAJOR, (lapack_int)k, (lapack_int)k, 1, S, (lapack_int)k, b->x, 1, sv, 1e-10,
                              &rank);
        free(sv);
        double resid = 0.0, size = 0.0;
        for (size_t r = 0, i = 0; r < m && info == 0; r++) {
            if (!b->active[r])
                continue;
            double ax = 0.0;
            for (size_t s = 0, j = 0; s < m; s++)
                if (b->active[s])
                    ax += b->A[r * m + s] * b->x[j++];
            resid = fmax(resid, fabs(ax - b->rhs[i]));
            size = fmax(size, fabs(b->rhs[i]));
            i++;
        }
        /* consistent to rounding: the residual is within the least-squares solve's error on the rhs, or
         * within the rounding of the rates themselves (a region at rest: rhs and residual are noise) */
        if (info != 0 || resid > fmax(1e-8 * size, noise)) {
            say(b, c, SEAM_LOG_ERROR,
                "the enclosed regions' constraints contradict each other (regions sharing all their movable walls "
                "ask for different volume rates; residual %.3g of %.3g)", resid, size);
            return SEAM_ERROR;
        }
    }
    for (size_t r = 0, i = 0; r < m; r++)
        if (b->active[r])
            x[r] = b->x[i++];
    return SEAM_OK;
}

seam_status bpp_begin(seam_bpp *b)
{
    b->known = false;
    b->max_dp0 = 0.0;
    return set_copy(&b->work, &b->committed, b->n) ? SEAM_OK : SEAM_ERROR;
}

/* The volume rates c_r . V - q_r, and their sizes |q_r| + sum_j |c_rj V_j|. */
static void volume_rates(const seam_bpp *b, const double *V, double *rate, double *scale)
{
    size_t n = b->n;
    for (size_t r = 0; r < b->work.m; r++) {
        const double *cr = b->work.C + r * n;
        double s = 0.0, a = fabs(b->work.q[r]);
        for (size_t j = 0; j < n; j++) {
            s += cr[j] * V[j];
            a += fabs(cr[j] * V[j]);
        }
        rate[r] = s - b->work.q[r];
        scale[r] = a;
    }
}

seam_status bpp_fluid(seam_bpp *b, const seam_coupling *c, const double *X, double *F)
{
    size_t n = b->n, m;
    seam_status st = refresh_regions(b, c, X);
    if (st != SEAM_OK)
        return st;
    m = b->work.m;
    double inv_dt = 1.0 / c->dt;
    for (size_t j = 0; j < n; j++)
        b->V[j] = (X[j] - c->Xn[j]) * inv_dt;
    if (m) {   /* V' = V - M^-1 C^T lambda, (C M^-1 C^T) lambda = C V - q (Akbay sec. 4.2.5) */
        volume_rates(b, b->V, b->rate, b->scale);
        if ((st = solve_regions(b, c, b->rate, b->scale, 1.0, b->lambda, true)) != SEAM_OK)
            return st;
        for (size_t r = 0; r < m; r++)
            if (b->lambda[r] != 0.0)
                cblas_daxpy((int)n, -b->lambda[r], b->MC + r * n, 1, b->V, 1);
    }
    return b->h.fluid(b->h.ctx, c, X, b->V, F);
}

/* Whether every region with a movable wall keeps its volume to the
 * tolerance: |c_r . V - q_r| <= tol (|q_r| + sum_j |c_rj V_j|), or below
 * the floor of a wall displacement of 1e-9 of its size over the step. */
static bool volumes_kept(const seam_bpp *b, const seam_coupling *c)
{
    size_t n = b->n;
    for (size_t r = 0; r < b->work.m; r++) {
        if (!b->active[r])
            continue;
        double L = cblas_dasum((int)n, b->work.C + r * n, 1);
        double floor = 1e-9 * L * L / c->dt;
        if (fabs(b->work.err[r]) > fmax(b->o.volume_tolerance * b->scale[r], floor))
            return false;
    }
    return true;
}

/* The solids again with the new p0, until what they return (and will
 * commit) keeps every region's volume. The model dt C M^-1 C^T knows the
 * solids' masses only: their stiffness and damping within the step make the
 * walls give way less than it predicts. So each further solve corrects the
 * model on the regions with a movable wall by Broyden's update from the
 * observed response, B += (de - B dp) dp^T / (dp . dp) with de the change
 * of the volume rates c_r . V - q_r that the increment dp of p0 caused, and
 * takes dp = -B^-1 e. For solids linear in their loads and one region the
 * second correction is exact. */
static seam_status resolve(seam_bpp *b, const seam_coupling *c, double *X, double *V)
{
    size_t n = b->n, m = b->work.m, k = 0;
    for (size_t r = 0; r < m; r++)
        k += b->active[r];
    double *B = b->B, *e0 = B + k * k, *dp = e0 + k, *LU = dp + k;
    lapack_int *piv = b->piv;
    active_block(b, B, k);
    for (size_t i = 0; i < k * k; i++)
        B[i] *= c->dt;
    for (size_t r = 0, i = 0; r < m; r++)
        if (b->active[r]) {
            e0[i] = b->work.err[r];
            dp[i++] = b->work.dp0[r];
        }
    for (int solve = 1;; solve++) {
        for (size_t r = 0, i = 0; r < m; r++)
            if (b->active[r] && dp[i++] != 0.0)
                cblas_daxpy((int)n, dp[i - 1], b->work.C + r * n, 1, b->Fs, 1);
        seam_status st = b->h.solid(b->h.ctx, c, b->Fs, X, V);
        if (st != SEAM_OK)
            return st;
        volume_rates(b, V, b->work.err, b->scale);
        b->volume_ok = volumes_kept(b, c);
        if (b->volume_ok || solve >= b->o.max_solves - 1 || !k)
            return SEAM_OK;
        double dd = cblas_ddot((int)k, dp, 1, dp, 1);
        if (!(dd > 0.0))
            return SEAM_OK;
        /* de - B dp, into e0 (e0 is the previous rates, replaced by the new ones below) */
        for (size_t i = 0, r = 0; r < m; r++) {
            if (!b->active[r])
                continue;
            double bdp = cblas_ddot((int)k, B + i * k, 1, dp, 1);
            double e1 = b->work.err[r];
            LU[i] = (e1 - e0[i]) - bdp;
            e0[i] = e1;
            i++;
        }
        cblas_dger(CblasRowMajor, (int)k, (int)k, 1.0 / dd, LU, 1, dp, 1, B, (int)k);
        memcpy(LU, B, k * k * sizeof *LU);
        for (size_t i = 0; i < k; i++)
            dp[i] = -e0[i];
        if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)k, 1, LU, (lapack_int)k, piv, dp, 1) != 0)
            return SEAM_OK;   /* a singular update: keep this solve, not settled */
        for (size_t r = 0, i = 0; r < m; r++)
            if (b->active[r]) {
                b->work.p0[r] += dp[i];
                b->work.dp0[r] += dp[i];
                b->max_dp0 = fmax(b->max_dp0, fabs(b->work.dp0[r]));
                i++;
            }
    }
}

seam_status bpp_solid(seam_bpp *b, const seam_coupling *c, const double *F, double *X, double *V)
{
    size_t n = b->n;
    seam_status st;
    if (!b->known && (st = refresh_regions(b, c, c->Xn)) != SEAM_OK)
        return st;
    size_t m = b->work.m;
    memcpy(b->Fs, F, n * sizeof *F);
    for (size_t r = 0; r < m; r++)   /* the constant-mode force sum_r p0_r c_r (Akbay sec. 4.2.4) */
        if (b->work.p0[r] != 0.0)
            cblas_daxpy((int)n, b->work.p0[r], b->work.C + r * n, 1, b->Fs, 1);
    if ((st = b->h.solid(b->h.ctx, c, b->Fs, X, V)) != SEAM_OK)
        return st;
    b->max_dp0 = 0.0;
    b->volume_ok = true;
    if (!m)
        return SEAM_OK;
    volume_rates(b, V, b->work.err, b->scale);
    if (b->o.resolve && volumes_kept(b, c)) {   /* nothing to correct: these X, V are admissible */
        memset(b->work.dp0, 0, m * sizeof *b->work.dp0);
        return SEAM_OK;
    }
    for (size_t r = 0; r < m; r++)   /* eq. 4.9 with ch. 2's source term: dt C M^-1 C^T dp0 = -(C V - q) */
        b->rate[r] = -b->work.err[r] / c->dt;
    if ((st = solve_regions(b, c, b->rate, b->scale, 1.0 / c->dt, b->work.dp0, false)) != SEAM_OK)
        return st;
    for (size_t r = 0; r < m; r++) {
        b->work.p0[r] += b->work.dp0[r];
        b->max_dp0 = fmax(b->max_dp0, fabs(b->work.dp0[r]));
    }
    b->volume_ok = !b->o.resolve;
    if (!b->o.resolve)
        return SEAM_OK;
    return resolve(b, c, X, V);
}

bool bpp_settled(const seam_bpp *b)
{
    return b->volume_ok && (!(b->o.p0_tolerance > 0.0) || b->max_dp0 <= b->o.p0_tolerance);
}

seam_status bpp_accept(seam_bpp *b, const seam_coupling *c)
{
    const region_set *w = &b->work, *old = &b->committed;
    for (size_t r = 0; r < w->m; r++) {
        bool seen = false;
        for (size_t o = 0; o < old->m && !seen; o++)
            seen = old->id[o] == w->id[r];
        if (!seen)
            say(b, c, SEAM_LOG_INFO, "enclosed region %ld appeared (p0 = %.6g Pa after the step)", w->id[r], w->p0[r]);
    }
    for (size_t o = 0; o < old->m; o++) {
        bool kept = false;
        for (size_t r = 0; r < w->m && !kept; r++)
            kept = old->id[o] == w->id[r];
        if (!kept)
            say(b, c, SEAM_LOG_INFO, "enclosed region %ld is gone (merged into another or opened; its p0 was %.6g Pa)",
                old->id[o], old->p0[o]);
    }
    if (!set_copy(&b->committed, &b->work, b->n)) {
        say(b, c, SEAM_LOG_ERROR, "out of memory keeping %zu regions", b->work.m);
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

size_t bpp_region_count(const seam_bpp *b) { return b->committed.m; }

void bpp_region(const seam_bpp *b, size_t r, long *id, double *p0, double *dp0, double *volume_error)
{
    const region_set *s = &b->committed;
    *id = s->id[r];
    *p0 = s->p0[r];
    *dp0 = s->dp0[r];
    *volume_error = s->err[r];
}

void bpp_save(const seam_bpp *b, seam_ckpt_writer *w)
{
    const region_set *s = &b->committed;
    seam_ckpt_put_i64(w, b->next_id);
    seam_ckpt_put_u64(w, s->m);
    seam_ckpt_put_f64s(w, s->C, s->m * b->n);
    seam_ckpt_put_f64s(w, s->q, s->m);
    seam_ckpt_put_f64s(w, s->p0, s->m);
    seam_ckpt_put_f64s(w, s->dp0, s->m);
    seam_ckpt_put_f64s(w, s->err, s->m);
    for (size_t r = 0; r < s->m; r++)
        seam_ckpt_put_i64(w, s->id[r]);
}

void bpp_load(seam_bpp *b, seam_ckpt_reader *r)
{
    region_set *s = &b->committed;
    b->next_id = (long)seam_ckpt_get_i64(r);
    size_t m = (size_t)seam_ckpt_get_u64(r);
    if (!seam_ckpt_ok(r, false))
        return;
    if (m > 1000000 || !set_reserve(s, m, b->n)) {
        seam_ckpt_fail(r, "no room for %zu enclosed regions", m);
        return;
    }
    s->m = m;
    seam_ckpt_get_f64s(r, s->C, m * b->n);
    seam_ckpt_get_f64s(r, s->q, m);
    seam_ckpt_get_f64s(r, s->p0, m);
    seam_ckpt_get_f64s(r, s->dp0, m);
    seam_ckpt_get_f64s(r, s->err, m);
    for (size_t k = 0; k < m; k++)
        s->id[k] = (long)seam_ckpt_get_i64(r);
}
