/* still_water: an incompressible, inviscid liquid at rest in a 2D box (per unit depth), written from
 * docs/plugins.md, docs/coupling.md and the public headers alone.
 *
 * The liquid lies below one level H, outside the solids, with hydrostatic pressure p = rho g (H - y)
 * (gravity along -y; gauge 0 at the level). Two modes:
 *  - free surface (the default): H follows from the liquid's volume, V = A(H), the box's area below H
 *    minus the solids' (V grows by `source` dt a step). On a closed body the loads add up to
 *    rho g A_submerged, Archimedes' lift, exactly for the polygon.
 *  - enclosed (`"enclosed": true`): the solids cover the whole width of the box at some level (pistons
 *    in cylinders); H is the lowest such level and the liquid below it has no free surface. Its
 *    constant pressure is the coupler's (the boundary pressure projection, docs/coupling.md "bpp"):
 *    `regions` reports the one region, its walls' area vectors out of the liquid and the source's flux,
 *    and `commit` refuses a state whose volume drifted from V0 + source t.
 * A linear drag -drag V on the wetted walls (per unit length) stands for the dissipation (viscosity,
 * radiated waves) the still liquid leaves out; it vanishes at rest, so equilibria do not depend on it.
 * Loads are taken at the end-of-step positions (the liquid has no inertia).
 * Not modelled: flow, waves, sloshing, shells (two-sided elements are refused), overlapping solids. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/config.h"
#include "seam/frame.h"
#include "seam/log.h"

typedef struct {
    const seam_host *host;
    double rho;             /* kg/m^3 (kg/m^2 per unit depth) */
    double g;               /* magnitude of gravity, along -y (m/s^2) */
    double lo[2], hi[2];    /* the box (m) */
    double level;           /* free surface: initial level (m) */
    int enclosed;
    double source;          /* volume flux into the liquid (m^2/s per unit depth) */
    double drag;            /* Pa s/m */
    double volume_tolerance;/* enclosed: relative volume drift refused at commit */
    double spacing;         /* raster of `field` (m) */
    /* the interface (bind's arrays stay valid until destroy: docs/plugins.md, "Units and arrays") */
    size_t n_points, n_elems;
    const int32_t *elems;
    /* committed state and the last solve's */
    double V, H;            /* liquid volume (m^2) and level (m) */
    double V_s, H_s, A_s;   /* last solve: target volume, level, the volume its positions hold */
    double t;               /* committed time, for messages */
    int solved;
    /* buffers handed out */
    double *C;              /* regions: one row */
    double q;
    double *raster;
    unsigned char saved[24];
} still_water;

static const char STATE_TAG[8] = {'S', 'W', 'T', 'R', 0, 0, 0, 1};   /* name, format version 1 */

/* The part of element (a, b) with y <= H: parameters s0 <= s1 in [0, 1]; false when dry. */
static int wet_part(const double *a, const double *b, double H, double *s0, double *s1)
{
    double dy = b[1] - a[1];
    double lo = 0.0, hi = 1.0;
    if (dy == 0.0) {
        if (a[1] > H)
            return 0;
    } else {
        double s = (H - a[1]) / dy;   /* y(s) = H */
        if (dy > 0.0)
            hi = fmin(hi, s);
        else
            lo = fmax(lo, s);
    }
    if (hi < lo)
        return 0;
    *s0 = lo;
    *s1 = hi;
    return 1;
}

/* The solids' area below H: the sum over their boundaries' parts below H of the integral of x dy (a
 * counter-clockwise boundary gives its area; the cut along y = H adds nothing, dy being 0 there). */
static double solids_below(const still_water *w, const double *X, double H)
{
    double area = 0.0;
    for (size_t e = 0; e < w->n_elems; e++) {
        const double *a = X + 2 * w->elems[2 * e], *b = X + 2 * w->elems[2 * e + 1];
        double s0, s1;
        if (!wet_part(a, b, H, &s0, &s1))
            continue;
        double dx = b[0] - a[0], dy = b[1] - a[1];
        area += dy * (a[0] * (s1 - s0) + 0.5 * dx * (s1 * s1 - s0 * s0));
    }
    return area;
}

/* Liquid area below H: the box's minus the solids'. */
static double liquid_below(const still_water *w, const double *X, double H)
{
    return (w->hi[0] - w->lo[0]) * (H - w->lo[1]) - solids_below(w, X, H);
}

/* The width of the box the solids leave free at height y (y no vertex's height). */
static double free_width(const still_water *w, const double *X, double y)
{
    double width = w->hi[0] - w->lo[0];
    for (size_t e = 0; e < w->n_elems; e++) {
        const double *a = X + 2 * w->elems[2 * e], *b = X + 2 * w->elems[2 * e + 1];
        if ((a[1] < y) == (b[1] < y))
            continue;
        double x = a[0] + (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]);
        width -= b[1] > a[1] ? x : -x;   /* counter-clockwise: up on the right, down on the left */
    }
    return width;
}

static int by_value(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

/* Enclosed: the lowest level at which the solids cover the whole width. Between two successive
 * vertex heights the free width is linear and >= 0, so it is 0 there when it is 0 midway. */
static seam_status covered_level(still_water *w, const double *X, double *H)
{
    size_t n = 2 * w->n_elems;
    double *y = malloc(n * sizeof *y);
    for (size_t e = 0; e < w->n_elems; e++) {
        y[2 * e] = X[2 * w->elems[2 * e] + 1];
        y[2 * e + 1] = X[2 * w->elems[2 * e + 1] + 1];
    }
    qsort(y, n, sizeof *y, by_value);
    double tol = 1e-9 * (w->hi[0] - w->lo[0]);
    seam_status st = SEAM_ERROR;
    for (size_t k = 0; k + 1 < n; k++) {
        if (y[k + 1] == y[k] || y[k] < w->lo[1])
            continue;
        if (free_width(w, X, 0.5 * (y[k] + y[k + 1])) <= tol) {
            *H = y[k];
            st = SEAM_OK;
            break;
        }
    }
    free(y);
    if (st != SEAM_OK)
        seam_logf(w->host, SEAM_LOG_ERROR, "enclosed: the solids cover the box's width at no level, so the "
                  "liquid has a free surface (leave \"enclosed\" out)");
    return st;
}

/* Free surface: the level holding volume V, the smallest H with A(H) >= V (A is non-decreasing). */
static seam_status free_level(still_water *w, const double *X, double V, double *H)
{
    double top = liquid_below(w, X, w->hi[1]);
    if (!(V > 0.0) || V > top) {
        seam_logf(w->host, SEAM_LOG_ERROR, "a liquid of %.9g m^2 does not fit in the %.9g m^2 the box leaves "
                  "free", V, top);
        return SEAM_ERROR;
    }
    double lo = w->lo[1], hi = w->hi[1];
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi)
            break;
        if (liquid_below(w, X, mid) >= V)
            hi = mid;
        else
            lo = mid;
    }
    double eps = 1e-7 * (w->hi[1] - w->lo[1]);
    double width = (liquid_below(w, X, hi + eps) - liquid_below(w, X, hi - eps)) / (2.0 * eps);
    if (width <= 1e-6 * (w->hi[0] - w->lo[0])) {
        seam_logf(w->host, SEAM_LOG_ERROR, "the solids cover the whole width at the surface (y = %.9g m): the "
                  "liquid is enclosed (\"enclosed\": true)", hi);
        return SEAM_ERROR;
    }
    *H = hi;
    return SEAM_OK;
}

static seam_status level_of(still_water *w, const double *X, double V, double *H)
{
    return w->enclosed ? covered_level(w, X, H) : free_level(w, X, V, H);
}

static void *sw_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *cfg = seam_cfg_from_host(config_json, host);
    if (!cfg)
        return NULL;
    still_water *w = calloc(1, sizeof *w);
    w->host = host;
    w->rho = seam_cfg_density(cfg, "density", 1000.0, "kg/m^3", 0);
    double box[4] = {0.0, 0.0, 0.0, 0.0};
    size_t n_box = 0;
    double *corners = seam_cfg_points(cfg, "box", 2, &n_box, SEAM_CFG_REQUIRED);
    if (corners && n_box == 2 && corners[2] > corners[0] && corners[3] > corners[1])
        memcpy(box, corners, sizeof box);
    else if (corners)
        seam_cfg_error(cfg, "box", "expected [[x0, y0], [x1, y1]] with x1 > x0 and y1 > y0");
    free(corners);
    w->lo[0] = box[0];
    w->lo[1] = box[1];
    w->hi[0] = box[2];
    w->hi[1] = box[3];
    w->enclosed = seam_cfg_bool(cfg, "enclosed", false, 0);
    if (w->enclosed && seam_cfg_has(cfg, "level"))
        seam_cfg_error(cfg, "level", "an enclosed liquid has no level to give: it fills the box below the solids");
    else if (!w->enclosed)
        w->level = seam_cfg_num(cfg, "level", 0.0, box[1], box[3], SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN);
    w->source = seam_cfg_num(cfg, "source", 0.0, -1e6, 1e6, 0);
    w->drag = seam_cfg_num(cfg, "drag", 0.0, 0.0, 1e12, 0);
    w->volume_tolerance = seam_cfg_num(cfg, "volume_tolerance", 1e-3, 0.0, 1.0, SEAM_CFG_LO_OPEN);
    double side = fmin(box[2] - box[0], box[3] - box[1]);
    w->spacing = seam_cfg_num(cfg, "spacing", host->cell_size > 0.0 ? host->cell_size : side / 32.0, 0.0,
                              INFINITY, SEAM_CFG_LO_OPEN);
    const double g_default[2] = {0.0, -9.81};
    double g[3];
    seam_cfg_gravity(cfg, host, 2, g_default, g);
    if (g[0] != 0.0 || g[1] > 0.0)
        seam_cfg_error(cfg, NULL, "gravity must point along -y (got [%g, %g])", g[0], g[1]);
    w->g = -g[1];
    if (side > 0.0 && (w->hi[0] - w->lo[0]) / w->spacing * ((w->hi[1] - w->lo[1]) / w->spacing) > 1e8)
        seam_cfg_error(cfg, "spacing", "%g m makes more than 1e8 cells of the box", w->spacing);
    seam_status st = seam_cfg_finish(cfg);
    seam_cfg_destroy(&cfg);
    if (st != SEAM_OK) {
        free(w);
        return NULL;
    }
    return w;
}

static void sw_destroy(void *self)
{
    still_water *w = self;
    if (!w)
        return;
    free(w->C);
    free(w->raster);
    free(w);
}

static seam_status sw_max_dt(void *self, double *dt)
{
    still_water *w = self;
    if (!isfinite(w->V) || !isfinite(w->H)) {
        seam_logf(w->host, SEAM_LOG_ERROR, "the committed volume or level is not finite");
        return SEAM_ERROR;
    }
    *dt = INFINITY;   /* no flow, no stability limit */
    return SEAM_OK;
}

static seam_status sw_domain(void *self, double lo[3], double hi[3])
{
    still_water *w = self;
    lo[0] = w->lo[0];
    lo[1] = w->lo[1];
    hi[0] = w->hi[0];
    hi[1] = w->hi[1];
    lo[2] = hi[2] = 0.0;
    return SEAM_OK;
}

static seam_status sw_bind(void *self, const seam_interface *iface)
{
    still_water *w = self;
    if (iface->dim != 2 || iface->nodes_per_elem != 2 || iface->n_elems == 0) {
        seam_logf(w->host, SEAM_LOG_ERROR, "needs a 2D interface of segments (got dimension %d, %d nodes per "
                  "element, %zu elements)", iface->dim, iface->nodes_per_elem, iface->n_elems);
        return SEAM_ERROR;
    }
    for (size_t e = 0; e < iface->n_elems; e++) {
        if (iface->two_sided && iface->two_sided[e]) {
            seam_logf(w->host, SEAM_LOG_ERROR, "element %zu is two-sided: shells are not modelled, only the "
                      "boundaries of volumes", e);
            return SEAM_ERROR;
        }
    }
    w->n_points = iface->n_points;
    w->n_elems = iface->n_elems;
    w->elems = iface->elems;
    free(w->C);
    w->C = calloc(2 * w->n_points, sizeof *w->C);
    if (w->enclosed) {
        if (covered_level(w, iface->X, &w->H) != SEAM_OK)
            return SEAM_ERROR;
        w->V = liquid_below(w, iface->X, w->H);
    } else {
        w->V = liquid_below(w, iface->X, w->level);
        if (level_of(w, iface->X, w->V, &w->H) != SEAM_OK)
            return SEAM_ERROR;
    }
    w->t = 0.0;
    seam_logf(w->host, SEAM_LOG_INFO, "%zu points, %zu segments: %.9g m^2 of liquid up to y = %.9g m%s",
              w->n_points, w->n_elems, w->V, w->H, w->enclosed ? " (enclosed)" : "");
    return SEAM_OK;
}

/* Element (a, b)'s hydrostatic load on its two points (N/m): -integral of p n over its wet part, with
 * n |ab| = (dy, -dx) and p = rho g (H - y(s)) linear along it, split by the hat functions 1 - s and s. */
static void pressure_load(const still_water *w, const double *a, const double *b, double H, double *fa,
                          double *fb)
{
    double s0, s1;
    if (!wet_part(a, b, H, &s0, &s1))
        return;
    double dx = b[0] - a[0], dy = b[1] - a[1];
    double alpha = w->rho * w->g * (H - a[1]), beta = w->rho * w->g * dy;   /* p(s) = alpha - beta s */
    double m0 = s1 - s0, m1 = 0.5 * (s1 * s1 - s0 * s0), m2 = (s1 * s1 * s1 - s0 * s0 * s0) / 3.0;
    double i_s = alpha * m1 - beta * m2;          /* integral of p s */
    double i_1 = alpha * m0 - beta * m1 - i_s;    /* integral of p (1 - s) */
    fa[0] -= i_1 * dy;
    fa[1] += i_1 * dx;
    fb[0] -= i_s * dy;
    fb[1] += i_s * dx;
}

static seam_status sw_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    still_water *w = self;
    if (in->dim != 2 || in->n != w->n_points) {
        seam_logf(w->host, SEAM_LOG_ERROR, "got %zu points of dimension %d, bound to %zu of 2", in->n, in->dim,
                  w->n_points);
        return SEAM_ERROR;
    }
    for (size_t i = 0; i < 2 * w->n_points; i++) {
        if (!isfinite(in->X[i]) || !isfinite(in->V[i])) {
            seam_logf(w->host, SEAM_LOG_WARN, "step %lld: interface value %zu is not finite",
                      (long long)step->index, i);
            return SEAM_UNSTABLE;
        }
    }
    double V = w->V + w->source * step->dt;
    double H;
    seam_status st = level_of(w, in->X, V, &H);
    if (st != SEAM_OK)
        return st;
    memset(out->F, 0, 2 * w->n_points * sizeof *out->F);
    for (size_t e = 0; e < w->n_elems; e++) {
        int32_t ia = w->elems[2 * e], ib = w->elems[2 * e + 1];
        const double *a = in->X + 2 * ia, *b = in->X + 2 * ib;
        pressure_load(w, a, b, H, out->F + 2 * ia, out->F + 2 * ib);
        double s0, s1;
        if (w->drag > 0.0 && wet_part(a, b, H, &s0, &s1)) {
            double k = 0.5 * w->drag * hypot(b[0] - a[0], b[1] - a[1]) * (s1 - s0);
            for (int d = 0; d < 2; d++) {
                out->F[2 * ia + d] -= k * in->V[2 * ia + d];
                out->F[2 * ib + d] -= k * in->V[2 * ib + d];
            }
        }
    }
    w->V_s = V;
    w->H_s = H;
    w->A_s = liquid_below(w, in->X, H);
    w->t = step->t + step->dt;
    w->solved = 1;
    return SEAM_OK;
}

static seam_status sw_commit(void *self)
{
    still_water *w = self;
    if (!w->solved) {
        seam_logf(w->host, SEAM_LOG_ERROR, "commit without a solve");
        return SEAM_ERROR;
    }
    if (w->enclosed && fabs(w->A_s - w->V_s) > w->volume_tolerance * w->V_s) {
        seam_logf(w->host, SEAM_LOG_ERROR, "t = %.6g s: the enclosed liquid holds %.9g m^2 where %.9g m^2 should "
                  "be (off by %.3g, more than volume_tolerance %.3g): its walls did not keep its volume (the "
                  "coupler's boundary pressure projection, coupling.bpp, does)", w->t, w->A_s, w->V_s,
                  (w->A_s - w->V_s) / w->V_s, w->volume_tolerance);
        return SEAM_ERROR;
    }
    w->V = w->V_s;
    w->H = w->H_s;
    w->solved = 0;
    return SEAM_OK;
}

/* One enclosed region: the wet walls' area vectors out of the liquid (into the solids, -n |ab|), half to
 * each point, so c . V is the rate the walls change its volume; q the source's flux. */
static seam_status sw_regions(void *self, const seam_step *step, const double *X, seam_regions *out)
{
    still_water *w = self;
    (void)step;
    out->count = 0;
    out->n = 2 * w->n_points;
    if (!w->enclosed)
        return SEAM_OK;
    double H;
    if (covered_level(w, X, &H) != SEAM_OK)
        return SEAM_ERROR;
    memset(w->C, 0, 2 * w->n_points * sizeof *w->C);
    double tol = 1e-9 * (w->hi[1] - w->lo[1]);
    for (size_t e = 0; e < w->n_elems; e++) {
        int32_t ia = w->elems[2 * e], ib = w->elems[2 * e + 1];
        const double *a = X + 2 * ia, *b = X + 2 * ib;
        double s0, s1;
        if (!wet_part(a, b, H + tol, &s0, &s1))   /* a piston's face at H bounds the liquid */
            continue;
        double f = 0.5 * (s1 - s0), dx = b[0] - a[0], dy = b[1] - a[1];
        w->C[2 * ia] -= f * dy;
        w->C[2 * ia + 1] += f * dx;
        w->C[2 * ib] -= f * dy;
        w->C[2 * ib + 1] += f * dx;
    }
    w->q = w->source;
    out->count = 1;
    out->C = w->C;
    out->q = &w->q;
    out->M = NULL;
    return SEAM_OK;
}

/* The committed level's fields on the box's cells: pressure (Pa; enclosed, up to the coupler's p0) and,
 * for a free surface, level_set (y - H, negative in the liquid). */
static seam_status sw_field(void *self, const char *name, seam_raster *out)
{
    still_water *w = self;
    int pressure = strcmp(name, "pressure") == 0;
    if (!pressure && (w->enclosed || strcmp(name, "level_set") != 0)) {
        seam_logf(w->host, SEAM_LOG_ERROR, "no field \"%s\" (it has pressure%s)", name,
                  w->enclosed ? "" : " and level_set");
        return SEAM_ERROR;
    }
    int nx = (int)ceil((w->hi[0] - w->lo[0]) / w->spacing - 1e-9);
    int ny = (int)ceil((w->hi[1] - w->lo[1]) / w->spacing - 1e-9);
    free(w->raster);
    w->raster = malloc((size_t)nx * (size_t)ny * sizeof *w->raster);
    for (int j = 0; j < ny; j++) {
        double y = w->lo[1] + (j + 0.5) * w->spacing;
        double v = pressure ? (y <= w->H ? w->rho * w->g * (w->H - y) : 0.0) : y - w->H;
        for (int i = 0; i < nx; i++)
            w->raster[(size_t)j * (size_t)nx + (size_t)i] = v;
    }
    out->nx = nx;
    out->ny = ny;
    out->nz = 1;
    out->origin[0] = w->lo[0];
    out->origin[1] = w->lo[1];
    out->origin[2] = 0.0;
    out->dx = w->spacing;
    out->data = w->raster;
    out->units = pressure ? "Pa" : "m";
    return SEAM_OK;
}

/* Frame files: DIR/still_water_NNNNNN.csv, the committed level and volume. */
static seam_status sw_write_output(void *self, const char *dir, int frame)
{
    still_water *w = self;
    char path[4096];
    snprintf(path, sizeof path, "%s/still_water_" SEAM_FRAME_FORMAT ".csv", dir, frame);
    FILE *f = fopen(path, "w");
    if (!f) {
        seam_logf(w->host, SEAM_LOG_ERROR, "cannot write %s", path);
        return SEAM_ERROR;
    }
    fprintf(f, "level,volume\n%.17g,%.17g\n", w->H, w->V);
    if (fclose(f) != 0) {
        seam_logf(w->host, SEAM_LOG_ERROR, "cannot write %s", path);
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

/* The committed volume and level behind a tag and a version (the doubles in this machine's order). */
static seam_status sw_save(void *self, seam_buffer *out)
{
    still_water *w = self;
    memcpy(w->saved, STATE_TAG, 8);
    memcpy(w->saved + 8, &w->V, sizeof w->V);
    memcpy(w->saved + 16, &w->H, sizeof w->H);
    out->data = w->saved;
    out->size = sizeof w->saved;
    return SEAM_OK;
}

static seam_status sw_load(void *self, const void *bytes, size_t n)
{
    still_water *w = self;
    if (n != sizeof w->saved || memcmp(bytes, STATE_TAG, 8) != 0) {
        seam_logf(w->host, SEAM_LOG_ERROR, "load: not a still_water state of version 1 (%zu bytes)", n);
        return SEAM_ERROR;
    }
    memcpy(&w->V, (const unsigned char *)bytes + 8, sizeof w->V);
    memcpy(&w->H, (const unsigned char *)bytes + 16, sizeof w->H);
    w->solved = 0;
    return SEAM_OK;
}

static uint32_t sw_capabilities(void *self)
{
    still_water *w = self;
    return SEAM_CAP_LOADS_PRESSURE | SEAM_CAP_SAVE | (w->enclosed ? SEAM_CAP_REGIONS : 0u);
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "still_water",
    .role = SEAM_FLUID,
    .summary = "a liquid at rest in a 2D box: hydrostatic loads, free surface or enclosed",
    .create = sw_create,
    .destroy = sw_destroy,
    .max_dt = sw_max_dt,
    .solve = sw_solve,
    .commit = sw_commit,
    .bind = sw_bind,
    .regions = sw_regions,
    .save = sw_save,
    .load = sw_load,
    .field = sw_field,
    .write_output = sw_write_output,
    .capabilities = sw_capabilities,
    .domain = sw_domain,
};

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &plugin; }
