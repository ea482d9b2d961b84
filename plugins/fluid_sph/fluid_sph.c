/* fluid_sph: a particle fluid, divergence-free SPH (Bender and Koschier 2015,
 * 2017) in 2D and 3D, coupled to solids through the seam plugin contract as
 * in Akbay ch. 3: the solids' surfaces become boundary particles (Akinci et
 * al. 2012), the loads are the reflected pressure forces on them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/config.h"
#include "seam/frame.h"
#include "seam/log.h"
#include "seam/mapping.h"
#include "seam/neighbours.h"
#include "seam/vtk.h"
#include "fluid_sph.h"

/* ---- configuration ------------------------------------------------------- */

static int read_config(fluid_sph *self, seam_cfg *cfg)
{
    size_t nd = 0;
    double *dom = seam_cfg_numbers(cfg, "domain", &nd, SEAM_CFG_REQUIRED);
    self->dim = 2;
    if (dom && nd != 4 && nd != 6)
        seam_cfg_error(cfg, "domain", "expected [x0, y0, x1, y1] (2D) or [x0, y0, z0, x1, y1, z1] (3D), got %zu numbers",
                       nd);
    else if (dom) {
        self->dim = (int)nd / 2;
        for (int d = 0; d < self->dim; d++) {
            self->lo[d] = dom[d];
            self->hi[d] = dom[self->dim + d];
            if (!(self->lo[d] < self->hi[d]))
                seam_cfg_error(cfg, "domain", "empty along %c: need %c0 < %c1", "xyz"[d], "xyz"[d], "xyz"[d]);
        }
    }
    free(dom);
    size_t dim = (size_t)self->dim;
    double cell = self->host && self->host->cell_size > 0 ? self->host->cell_size : 0.0;
    self->s = seam_cfg_num(cfg, "spacing", cell, 0.0, INFINITY,
                           (cell > 0 ? 0 : SEAM_CFG_REQUIRED) | SEAM_CFG_LO_OPEN | SEAM_CFG_HI_OPEN);
    size_t nf = 0;
    self->fill = seam_cfg_numbers(cfg, "fill", &nf, SEAM_CFG_REQUIRED);
    if (self->fill && (nf == 0 || nf % (2 * dim) != 0))
        seam_cfg_error(cfg, "fill", "expected boxes as %s (a multiple of %zu numbers), got %zu numbers",
                       dim == 3 ? "x0 y0 z0 x1 y1 z1" : "x0 y0 x1 y1", 2 * dim, nf);
    self->n_fill = nf / (2 * dim);
    for (size_t b = 0; b < self->n_fill; b++)
        for (size_t d = 0; d < dim; d++)
            if (!(self->fill[2 * dim * b + d] < self->fill[2 * dim * b + dim + d])) {
                seam_cfg_error(cfg, "fill", "box %zu is empty: need %c0 < %c1", b, "xyz"[d], "xyz"[d]);
                break;
            }
    self->f.rho0 = seam_cfg_density(cfg, "density", 1000.0, self->dim == 3 ? "kg/m^3" : "kg/m^2 (per unit depth)", 0);
    static const double g_default[3] = {0.0, -9.81, 0.0};
    seam_cfg_gravity(cfg, self->host, self->dim, g_default, self->gravity);
    self->cfl = seam_cfg_num(cfg, "cfl", 0.2, 0.0, 1.0, SEAM_CFG_LO_OPEN);
    self->xsph = seam_cfg_num(cfg, "xsph", 0.05, 0.0, 1.0, 0);
    self->vtk.format = seam_host_vtk_format(self->host);
    static const char *const solvers[] = {"dfsph", "takahashi", NULL};
    int takahashi = seam_cfg_enum(cfg, "pressure_solver", solvers, 0, 0) == 1;
    /* Takahashi's threshold is 0.01% (ch. 3.6) */
    self->eta_rho = seam_cfg_num(cfg, "density_tolerance", takahashi ? 1e-4 : 5e-4, 0.0, 0.1, SEAM_CFG_LO_OPEN);
    self->eta_div = seam_cfg_num(cfg, "divergence_tolerance", 1e-3, 0.0, 1.0, SEAM_CFG_LO_OPEN);
    self->max_iter = (int)seam_cfg_int(cfg, "max_iterations", 100, 1, 100000, 0);
    self->mu = seam_cfg_num(cfg, "viscosity", 0.0, 0.0, 1e9, 0);
    self->eta_visc = seam_cfg_num(cfg, "viscosity_tolerance", 1e-4, 0.0, 0.1, SEAM_CFG_LO_OPEN);
    self->step_cache = seam_cfg_bool(cfg, "step_cache", 1, 0);
    self->tak_opts = (sph_takahashi_opts){self->eta_rho, self->max_iter,
                                          seam_cfg_num(cfg, "multigrid_lambda", 0.5, 0.0, 10.0, SEAM_CFG_LO_OPEN),
                                          seam_cfg_bool(cfg, "multigrid", true, 0) ? 1 : 0};
    if (!takahashi) {
        static const char *const only[] = {"multigrid_lambda", "multigrid"};
        for (size_t q = 0; q < sizeof only / sizeof only[0]; q++)
            if (seam_cfg_has(cfg, only[q]))
                seam_cfg_error(cfg, only[q], "applies to \"pressure_solver\": \"takahashi\" only");
    } else if (seam_cfg_has(cfg, "divergence_tolerance")) {
        seam_cfg_error(cfg, "divergence_tolerance", "applies to \"pressure_solver\": \"dfsph\" only (the takahashi "
                       "solver has no divergence solve)");
    }
    self->solver_takahashi = takahashi;
    return seam_cfg_finish(cfg) == SEAM_OK ? 0 : -1;
}

/* ---- set-up ---------------------------------------------------------------- */

/* Volume of a particle of the rest lattice: 1 / sum_j W(x_i - x_j) over the
 * lattice of spacing s (Takahashi 2.3: with m = rho0 V0 the lattice is at
 * rest density exactly). */
static double lattice_volume(const sph_kernel *K, double s)
{
    int reach = (int)ceil(K->h / s) + 1, kz = K->dim == 3 ? reach : 0;
    double sum = 0.0;
    for (int c = -kz; c <= kz; c++)
        for (int b = -reach; b <= reach; b++)
            for (int a = -reach; a <= reach; a++)
                sum += sph_W(K, s * sqrt((double)(a * a + b * b + c * c)));
    return 1.0 / sum;
}

/* Density over rho0 of a fluid particle whose lattice fills the half-space
 * from its own row up, at height z above one flat layer of surface samples
 * spacing sb apart with Akinci volumes. */
static double density_above_layer(const sph_kernel *K, double s, double V0, double sb, double z)
{
    int reach = (int)ceil(K->h / s) + 1, kz = K->dim == 3 ? reach : 0;
    double fluid = 0.0;
    for (int c = -kz; c <= kz; c++)
        for (int b = 0; b <= reach; b++)
            for (int a = -reach; a <= reach; a++)
                fluid += V0 * sph_W(K, s * sqrt((double)(a * a + b * b + c * c)));
    int rb = (int)ceil(K->h / sb) + 1, kb = K->dim == 3 ? rb : 0;
    double sum0 = 0.0, sumz = 0.0;
    for (int c = -kb; c <= kb; c++)
        for (int a = -rb; a <= rb; a++) {
            double u2 = sb * sb * (double)(a * a + c * c);
            sum0 += sph_W(K, sqrt(u2));
            sumz += sph_W(K, sqrt(u2 + z * z));
        }
    return fluid + sumz / sum0;
}

/* How far inside a volume's surface its samples go so that the fluid at
 * rest ends at the surface. A single layer of samples with Akinci volumes
 * holds the first fluid row at rest density at the height z* where
 * density_above_layer is 1, more than the half spacing a wall of several
 * lattice layers holds it at; the fluid's edge lies s/2 beyond its first row,
 * so the samples go z* - s/2 inside. */
static double surface_offset(const sph_kernel *K, double s, double V0)
{
    double sb = SAMPLE_SPACING * s, a = 0.0, b = K->h;
    for (int it = 0; it < 60; it++) {
        double z = 0.5 * (a + b);
        if (density_above_layer(K, s, V0, sb, z) > 1.0)
            a = z;
        else
            b = z;
    }
    return fmax(0.0, 0.5 * (a + b) - 0.5 * s);
}

/* Lattice points along axis d: count and spacing fitting [lo, hi]. */
static long axis_count(const fluid_sph *self, int d) { return lround(fmax(1.0, (self->hi[d] - self->lo[d]) / self->s)); }

/* Wall particles: WALL_LAYERS layers spacing s behind every side. The sides
 * normal to axis a span the other axes' lattices, extended by the layers
 * along the axes before a, so edges and corners are made once. Returns the
 * number made (writes them when x is not NULL). */
static size_t make_walls(const fluid_sph *self, double *x)
{
    int dim = self->dim;
    size_t count = 0;
    for (int a = 0; a < dim; a++)
        for (int side = 0; side < 2; side++) {
            long lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
            for (int d = 0; d < dim; d++) {
                long ext = d < a ? WALL_LAYERS : 0;
                lo[d] = -ext;
                hi[d] = axis_count(self, d) - 1 + ext;
            }
            lo[a] = 0;
            hi[a] = WALL_LAYERS - 1;
            long c[3];
            for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
                for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
                    for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++, count++) {
                        if (!x)
                            continue;
                        for (int d = 0; d < dim; d++) {
                            double sp = (self->hi[d] - self->lo[d]) / (double)axis_count(self, d);
                            double pos;
                            if (d == a)
                                pos = side ? self->hi[d] + (c[d] + 0.5) * self->s : self->lo[d] - (c[d] + 0.5) * self->s;
                            else if (c[d] < 0)
                                pos = self->lo[d] + (c[d] + 0.5) * self->s;
                            else if (c[d] >= axis_count(self, d))
                                pos = self->hi[d] + (c[d] - axis_count(self, d) + 0.5) * self->s;
                            else
                                pos = self->lo[d] + (c[d] + 0.5) * sp;
                            x[(size_t)dim * count + (size_t)d] = pos;
                        }
                    }
        }
    return count;
}

/* Lattice points x = lo + (i + 1/2) s inside the domain and in a fill box;
 * writes them when x is not NULL. */
static size_t make_fluid(const fluid_sph *self, double *x)
{
    int dim = self->dim;
    long n[3] = {1, 1, 1};
    for (int d = 0; d < dim; d++)
        n[d] = (long)floor((self->hi[d] - self->lo[d]) / self->s + 1e-9);
    size_t count = 0;
    long c[3];
    for (c[2] = 0; c[2] < n[2]; c[2]++)
        for (c[1] = 0; c[1] < n[1]; c[1]++)
            for (c[0] = 0; c[0] < n[0]; c[0]++) {
                double p[3];
                for (int d = 0; d < dim; d++)
                    p[d] = self->lo[d] + (c[d] + 0.5) * self->s;
                int in = 0;
                for (size_t b = 0; b < self->n_fill && !in; b++) {
                    const double *box = self->fill + 2 * (size_t)dim * b;
                    in = 1;
                    for (int d = 0; d < dim; d++)
                        in &= p[d] >= box[d] && p[d] <= box[dim + d];
                }
                if (!in)
                    continue;
                if (x)
                    memcpy(x + (size_t)dim * count, p, (size_t)dim * sizeof *p);
                count++;
            }
    return count;
}

/* The fluid starts at rest in hydrostatic balance: each particle's pressure
 * rho0 |g| times its depth below the top of its lattice column along the
 * axis gravity mostly points along (the top particle's centre plus s/2),
 * as k = p / rho0^2, the warm start of the first density solve. Without it
 * the first steps must build the whole pressure from nothing and the
 * column drops and splashes. */
static void hydrostatic_start(fluid_sph *self)
{
    int dim = self->dim, a = 0;
    size_t d = (size_t)dim;
    for (int c = 1; c < dim; c++)
        if (fabs(self->gravity[c]) > fabs(self->gravity[a]))
            a = c;
    double g = fabs(self->gravity[a]), up = self->gravity[a] > 0.0 ? -1.0 : 1.0;
    memset(self->k_n, 0, self->n * sizeof *self->k_n);
    if (!(g > 0.0) || !self->n)
        return;
    /* columns: the lattice indices along the other axes */
    long count[3] = {1, 1, 1};
    size_t columns = 1;
    for (int c = 0; c < dim; c++)
        if (c != a) {
            count[c] = (long)floor((self->hi[c] - self->lo[c]) / self->s + 1e-9) + 1;
            columns *= (size_t)count[c];
        }
    double *top = malloc(columns * sizeof *top);
    size_t *col = malloc(self->n * sizeof *col);
    if (!top || !col) {
        free(top);
        free(col);
        return;   /* no warm start: the solver builds the pressure itself */
    }
    for (size_t q = 0; q < columns; q++)
        top[q] = -INFINITY;
    for (size_t i = 0; i < self->n; i++) {
        size_t id = 0;
        for (int c = dim - 1; c >= 0; c--)
            if (c != a) {
                long k = lround((self->x_n[d * i + (size_t)c] - self->lo[c]) / self->s - 0.5);
                k = k < 0 ? 0 : k >= count[c] ? count[c] - 1 : k;
                id = id * (size_t)count[c] + (size_t)k;
            }
        col[i] = id;
        top[id] = fmax(top[id], up * self->x_n[d * i + (size_t)a]);
    }
    for (size_t i = 0; i < self->n; i++) {
        double depth = top[col[i]] + 0.5 * self->s - up * self->x_n[d * i + (size_t)a];
        self->k_n[i] = g * depth / self->f.rho0;   /* rho0 g depth / rho0^2 */
        self->p_n[i] = self->f.rho0 * g * depth;
    }
    free(top);
    free(col);
}

static void fluid_destroy(void *p)
{
    fluid_sph *self = p;
    if (!self)
        return;
    seam_vtk_series_free(&self->vtk);
    free(self->fill);
    free(self->xw);
    sph_takahashi_destroy(&self->tak);
    double *arrays[] = {self->x_n, self->v_n, self->k_n, self->kv_n, self->p_n, self->x,
                        self->v,   self->k,   self->kv,  self->p,    self->work, self->v_pre, self->fb_pre};
    for (size_t m = 0; m < sizeof arrays / sizeof arrays[0]; m++)
        free(arrays[m]);
    sph_geometry_free(&self->geo[0]);
    sph_geometry_free(&self->geo[1]);
    sph_geometry_free(&self->geo_regions);
    seam_neighbours_destroy(&self->grid_n);
    free(self->probe);
    free(self->region_C);
    free(self->region_q);
    seam_samples_destroy(&self->samples);
    free(self->Xi_n);
    free(self->Xi);
    free(self->xb);
    free(self->psi);
    free(self->vb);
    free(self->nrm);
    free(self->fb);
    free(self->raster);
    free(self->saved);
    free(self);
}

/* Arrays of the particles for n of them. Returns 0, or -1 when out of memory. */
static int alloc_particles(fluid_sph *self, size_t n)
{
    size_t dn = (size_t)self->dim * n + 1;
    double **vec[] = {&self->x_n, &self->v_n, &self->x, &self->v, &self->v_pre};
    double **sca[] = {&self->k_n, &self->kv_n, &self->p_n, &self->k, &self->kv, &self->p, &self->work};
    for (size_t m = 0; m < sizeof vec / sizeof vec[0]; m++)
        if (!(*vec[m] = calloc(dn, sizeof(double))))
            return -1;
    for (size_t m = 0; m < sizeof sca / sizeof sca[0]; m++)
        if (!(*sca[m] = calloc(n + 1, sizeof(double))))
            return -1;
    return 0;
}

static void *fluid_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *cfg = seam_cfg_from_host(config_json, host);
    if (!cfg)
        return NULL;
    fluid_sph *self = calloc(1, sizeof *self);
    self->host = host;
    int rc = read_config(self, cfg);
    if (rc != 0) {
        seam_cfg_destroy(&cfg);
        fluid_destroy(self);
        return NULL;
    }
    /* kept until the lattice is made: its refusals are located at the keys that caused them */
    bool spacing_given = seam_cfg_has(cfg, "spacing");
    /* Support radius twice the spacing (h = 4 particle radii, as in Bender and Koschier). */
    sph_kernel_init(&self->f.K, self->dim, 2.0 * self->s);
    self->f.dim = self->dim;
    self->V0 = lattice_volume(&self->f.K, self->s);
    self->f.m = self->f.rho0 * self->V0;
    self->offset = surface_offset(&self->f.K, self->s, self->V0);
    /* Takahashi's grid: cells of the kernel radius over the domain (ch. 3.5.6: dx = h) */
    if (self->solver_takahashi && !(self->tak = sph_takahashi_new(self->dim, self->lo, self->hi, self->f.K.h))) {
        seam_logf(host, SEAM_LOG_ERROR, "out of memory for the pressure solver's grid");
        seam_cfg_destroy(&cfg);
        fluid_destroy(self);
        return NULL;
    }
    double cells = 1.0;
    for (int d = 0; d < self->dim; d++)
        cells *= (self->hi[d] - self->lo[d]) / self->s + 2.0 * WALL_LAYERS;
    if (cells > 4e9) {
        seam_cfg_error(cfg, spacing_given ? "spacing" : NULL, "spacing %g m%s makes %.3g lattice sites in the domain: "
                       "more than 4e9", self->s, spacing_given ? "" : " (the scene's cell_size)", cells);
        seam_cfg_destroy(&cfg);
        fluid_destroy(self);
        return NULL;
    }
    self->nw = make_walls(self, NULL);
    /* Before make_fluid visits every lattice site: at least the largest fill box's sites become particles, each
     * with 5 vectors and 7 numbers (alloc_particles), each wall particle with its position and, once bound, 4
     * vectors and a volume. */
    double fill_sites = 0.0;
    for (size_t b = 0; b < self->n_fill; b++) {
        const double *box = self->fill + 2 * (size_t)self->dim * b;
        double sites = 1.0;
        for (int d = 0; d < self->dim; d++)
            sites *= fmax(0.0, floor((fmin(box[self->dim + d], self->hi[d]) - fmax(box[d], self->lo[d])) / self->s) - 1.0);
        fill_sites = fmax(fill_sites, sites);
    }
    char what[160];
    snprintf(what, sizeof what, "spacing %g m%s: at least %.3g fluid and %zu wall particles", self->s,
             spacing_given ? "" : " (the scene's cell_size)", fill_sites, self->nw);
    if (!seam_cfg_check_memory(cfg, spacing_given ? "spacing" : NULL,
                               8.0 * (fill_sites * (5 * self->dim + 7) + (double)self->nw * (5 * self->dim + 1)), what)) {
        seam_cfg_destroy(&cfg);
        fluid_destroy(self);
        return NULL;
    }
    self->n = make_fluid(self, NULL);
    self->xw = malloc(((size_t)self->dim * self->nw + 1) * sizeof *self->xw);
    if (!self->xw || alloc_particles(self, self->n) != 0) {
        seam_logf(host, SEAM_LOG_ERROR, "out of memory for %zu particles", self->n + self->nw);
        seam_cfg_destroy(&cfg);
        fluid_destroy(self);
        return NULL;
    }
    make_walls(self, self->xw);
    make_fluid(self, self->x_n);
    if (self->n == 0) {
        seam_cfg_error(cfg, "fill", "no lattice site (spacing %g m%s) inside the domain lies in the fill boxes",
                       self->s, spacing_given ? "" : ", the scene's cell_size");
        seam_cfg_destroy(&cfg);
        fluid_destroy(self);
        return NULL;
    }
    seam_cfg_destroy(&cfg);
    seam_logf(host, SEAM_LOG_INFO, "%zu fluid particles, %zu wall particles, spacing %g m, particle mass %g", self->n,
              self->nw, self->s, self->f.m);
    return self;
}

/* ---- the interface --------------------------------------------------------- */

/* The ray of inside_volume: along +x, tilted a little in 3D so it meets no edge exactly. */
static const double ray_dir[3] = {1.0, 1.234567e-4, 2.345678e-4};

/* The box around the points of the one-sided elements at X (lo > hi: none). */
static void closed_box(const fluid_sph *self, const double *X, double lo[3], double hi[3])
{
    const seam_interface *I = &self->iface;
    for (int d = 0; d < 3; d++) {
        lo[d] = INFINITY;
        hi[d] = -INFINITY;
    }
    for (size_t e = 0; e < I->n_elems; e++)
        for (int k = 0; k < self->dim && !(I->two_sided && I->two_sided[e]); k++)
            for (int d = 0; d < self->dim; d++) {
                double c = X[(size_t)self->dim * (size_t)I->elems[(size_t)self->dim * e + (size_t)k] + (size_t)d];
                lo[d] = fmin(lo[d], c);
                hi[d] = fmax(hi[d], c);
            }
}

/* Whether the ray from x can meet the box (lo, hi) at all: where it cannot, inside_volume counts no crossing.
 * A margin of 1e-9 of the box's size keeps round-off in the crossing tests on the side of testing. */
static bool ray_meets_box(int dim, const double lo[3], const double hi[3], const double *x)
{
    double margin = 0.0;
    for (int d = 0; d < dim; d++)
        margin = fmax(margin, 1e-9 * (hi[d] - lo[d]));
    double reach = hi[0] + margin - x[0];   /* how far along x the ray stays within the box's x range */
    if (!(reach >= 0.0))
        return false;
    for (int d = 1; d < dim; d++) {
        double a = x[d], b = x[d] + (dim == 3 ? ray_dir[d] : 0.0) * reach;
        if (b < lo[d] - margin || a > hi[d] + margin)
            return false;
    }
    return true;
}

/* Whether x lies inside the volumes bounded by the interface's one-sided
 * elements at positions X: the parity of their crossings with a ray from x. */
static int inside_volume(const fluid_sph *self, const double *X, const double *x)
{
    const seam_interface *I = &self->iface;
    int crossings = 0;
    for (size_t e = 0; e < I->n_elems; e++) {
        if (I->two_sided && I->two_sided[e])
            continue;
        const int32_t *v = I->elems + (size_t)self->dim * e;
        if (self->dim == 2) {
            const double *a = X + 2 * (size_t)v[0], *b = X + 2 * (size_t)v[1];
            if ((a[1] > x[1]) == (b[1] > x[1]))
                continue;
            double xc = a[0] + (x[1] - a[1]) / (b[1] - a[1]) * (b[0] - a[0]);
            crossings += xc > x[0];
            continue;
        }
        /* Moeller-Trumbore with direction ray_dir */
        const double *dir = ray_dir;
        const double *a = X + 3 * (size_t)v[0], *b = X + 3 * (size_t)v[1], *c = X + 3 * (size_t)v[2];
        double e1[3], e2[3], t0[3], pv[3], qv[3];
        for (int d = 0; d < 3; d++) {
            e1[d] = b[d] - a[d];
            e2[d] = c[d] - a[d];
            t0[d] = x[d] - a[d];
        }
        pv[0] = dir[1] * e2[2] - dir[2] * e2[1];
        pv[1] = dir[2] * e2[0] - dir[0] * e2[2];
        pv[2] = dir[0] * e2[1] - dir[1] * e2[0];
        double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
        if (fabs(det) < 1e-300)
            continue;
        double u = (t0[0] * pv[0] + t0[1] * pv[1] + t0[2] * pv[2]) / det;
        qv[0] = t0[1] * e1[2] - t0[2] * e1[1];
        qv[1] = t0[2] * e1[0] - t0[0] * e1[2];
        qv[2] = t0[0] * e1[1] - t0[1] * e1[0];
        double w = (dir[0] * qv[0] + dir[1] * qv[1] + dir[2] * qv[2]) / det;
        double t = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) / det;
        crossings += u >= 0.0 && w >= 0.0 && u + w <= 1.0 && t > 0.0;
    }
    return crossings % 2;
}

/* Boundary particles for interface positions X and velocities V (NULL: at
 * rest): the walls, then the surface samples moved s->offset inside the
 * volumes (along the interpolated outward normal), with Akinci pseudo-masses. */
static int boundary_at(fluid_sph *self, const double *X, const double *V)
{
    size_t d = (size_t)self->dim, nw = self->nw, ns = self->ns, np = self->iface.n_points;
    double *xs = self->xb + d * nw, *nrm_s = self->nrm + d * np;
    if (ns) {
        seam_samples_interpolate(self->samples, self->dim, X, xs);
        /* Outward normals at the points: sums of their one-sided elements' area vectors. */
        memset(self->nrm, 0, d * np * sizeof *self->nrm);
        const seam_interface *I = &self->iface;
        for (size_t e = 0; e < I->n_elems; e++) {
            if (I->two_sided && I->two_sided[e])
                continue;
            const int32_t *v = I->elems + d * e;
            double a[3] = {0, 0, 0};
            if (d == 2) {
                const double *p = X + 2 * (size_t)v[0], *q = X + 2 * (size_t)v[1];
                a[0] = q[1] - p[1];
                a[1] = -(q[0] - p[0]);
            } else {
                const double *p = X + 3 * (size_t)v[0], *q = X + 3 * (size_t)v[1], *r = X + 3 * (size_t)v[2];
                double u[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, w[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
                a[0] = u[1] * w[2] - u[2] * w[1];
                a[1] = u[2] * w[0] - u[0] * w[2];
                a[2] = u[0] * w[1] - u[1] * w[0];
            }
            for (size_t k = 0; k < d; k++)
                for (size_t c = 0; c < d; c++)
                    self->nrm[d * (size_t)v[k] + c] += a[c];
        }
        seam_samples_interpolate(self->samples, self->dim, self->nrm, nrm_s);
        for (size_t b = 0; b < ns; b++) {
            double len = 0.0;
            for (size_t c = 0; c < d; c++)
                len += nrm_s[d * b + c] * nrm_s[d * b + c];
            len = sqrt(len);
            for (size_t c = 0; len > 0.0 && c < d; c++)
                xs[d * b + c] -= self->offset * nrm_s[d * b + c] / len;
        }
        if (sph_akinci_psi(&self->f, ns, xs, self->psi + nw) != 0)
            return -1;
        if (V)
            seam_samples_interpolate(self->samples, self->dim, V, self->vb + d * nw);
        else
            memset(self->vb + d * nw, 0, d * ns * sizeof *self->vb);
    }
    return 0;
}

/* The committed state changed (commit, load, bind): the step's fluid-only work is stale. */
static void forget_step(fluid_sph *self)
{
    self->pre_dt = 0.0;
    seam_neighbours_destroy(&self->grid_n);
    free(self->probe);
    self->probe = NULL;
}

static seam_status fluid_bind(void *p, const seam_interface *iface)
{
    fluid_sph *self = p;
    int dim = self->dim;
    size_t d = (size_t)dim;
    if (iface->n_points && iface->dim != dim) {
        seam_logf(self->host, SEAM_LOG_ERROR, "fluid_sph runs in %dD (domain): the interface has dimension %d", dim,
                  iface->dim);
        return SEAM_ERROR;
    }
    if ((iface->n_points && !iface->X) || (iface->n_elems && (!iface->elems || iface->nodes_per_elem != dim))) {
        seam_logf(self->host, SEAM_LOG_ERROR, "fluid_sph in %dD needs interface positions and %s (%d nodes per element)",
                  dim, dim == 3 ? "triangles" : "segments", dim);
        return SEAM_ERROR;
    }
    for (size_t k = 0; k < d * iface->n_points; k++)
        if (!isfinite(iface->X[k])) {
            seam_logf(self->host, SEAM_LOG_ERROR, "interface point %zu has a non-finite position", k / d);
            return SEAM_ERROR;
        }
    seam_samples_destroy(&self->samples);
    self->samples = seam_samples_new(iface, iface->X, SAMPLE_SPACING * self->s);
    if (!self->samples) {
        seam_logf(self->host, SEAM_LOG_ERROR, "bind: cannot sample the interface (an element names a missing point, "
                  "or out of memory)");
        return SEAM_ERROR;
    }
    self->iface = *iface;
    self->ns = seam_samples_count(self->samples);
    size_t nb = self->nw + self->ns, np = iface->n_points;
    free(self->xb);
    free(self->psi);
    free(self->vb);
    free(self->nrm);
    free(self->fb);
    free(self->fb_pre);
    free(self->Xi_n);
    free(self->Xi);
    self->xb = malloc((d * nb + 1) * sizeof *self->xb);
    self->psi = malloc((nb + 1) * sizeof *self->psi);
    self->vb = calloc(d * nb + 1, sizeof *self->vb);
    self->nrm = malloc((d * (np + self->ns) + 1) * sizeof *self->nrm);
    self->fb = malloc((d * nb + 1) * sizeof *self->fb);
    self->fb_pre = malloc((d * nb + 1) * sizeof *self->fb_pre);
    self->Xi_n = malloc((d * np + 1) * sizeof *self->Xi_n);
    self->Xi = malloc((d * np + 1) * sizeof *self->Xi);
    if (!self->xb || !self->psi || !self->vb || !self->nrm || !self->fb || !self->fb_pre || !self->Xi_n || !self->Xi) {
        seam_logf(self->host, SEAM_LOG_ERROR, "bind: out of memory for %zu boundary particles", nb);
        return SEAM_ERROR;
    }
    memcpy(self->xb, self->xw, d * self->nw * sizeof *self->xb);
    for (size_t b = 0; b < self->nw; b++)
        self->psi[b] = self->f.rho0 * self->V0;
    if (np)   /* an interface without points may come without X */
        memcpy(self->Xi_n, iface->X, d * np * sizeof *self->Xi_n);
    /* The fluid cannot start inside a body or within half a spacing of its surface. */
    size_t kept = 0;
    double *xs = self->xb + d * self->nw;   /* the samples on the surface itself, for now */
    if (self->ns)
        seam_samples_interpolate(self->samples, dim, iface->X, xs);
    seam_neighbours *B = self->ns ? seam_neighbours_new(dim, self->ns, xs, 0.5 * self->s) : NULL;
    /* the crossings are counted only where the ray can meet the bodies: all elements for every particle made
     * the bind O(particles x elements), minutes for a fine lattice */
    double box_lo[3], box_hi[3];
    closed_box(self, iface->X, box_lo, box_hi);
    for (size_t i = 0; i < self->n; i++) {
        const double *x = self->x_n + d * i;
        if ((B && seam_neighbours_find(B, x, 0.5 * self->s, NULL, NULL, 0) > 0) ||
            (iface->n_elems && ray_meets_box(dim, box_lo, box_hi, x) && inside_volume(self, iface->X, x)))
            continue;
        memmove(self->x_n + d * kept, x, d * sizeof *x);
        kept++;
    }
    seam_neighbours_destroy(&B);
    if (kept < self->n)
        seam_logf(self->host, SEAM_LOG_INFO, "bind: %zu fluid particles removed inside or on the solids", self->n - kept);
    self->n = kept;
    hydrostatic_start(self);
    self->bound = 1;
    self->start_valid = 0;
    forget_step(self);
    seam_logf(self->host, SEAM_LOG_INFO, "bound to %zu interface points: %zu surface samples, %zu fluid particles",
              np, self->ns, self->n);
    return SEAM_OK;
}

/* ---- one step ---------------------------------------------------------------- */

static double max_speed(const fluid_sph *self, const double *v)
{
    size_t d = (size_t)self->dim;
    double vmax = 0.0;
    for (size_t i = 0; i < self->n; i++) {
        double s2 = 0.0;
        for (size_t c = 0; c < d; c++)
            s2 += v[d * i + c] * v[d * i + c];
        vmax = fmax(vmax, s2);   /* a NaN is dropped by fmax; callers check finiteness */
    }
    return sqrt(vmax);
}

static int finite_array(const double *a, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!isfinite(a[k]))
            return 0;
    return 1;
}

static seam_status fluid_max_dt(void *p, double *dt)
{
    fluid_sph *self = p;
    size_t d = (size_t)self->dim;
    if (!finite_array(self->v_n, d * self->n)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "max_dt: the committed velocities are not finite");
        return SEAM_ERROR;
    }
    double g = sqrt(self->gravity[0] * self->gravity[0] + self->gravity[1] * self->gravity[1] +
                    self->gravity[2] * self->gravity[2]);
    /* CFL on the particle spacing; the speed gravity adds within a step counts too. */
    double speed = max_speed(self, self->v_n) + sqrt(g * self->s);
    *dt = speed > 0.0 ? self->cfl * self->s / speed : INFINITY;
    return SEAM_OK;
}

/* Build geometry g at fluid positions x and interface positions X. */
static seam_status geometry_at(fluid_sph *self, int g, const double *x, const double *X, const double *V)
{
    if ((self->ns && boundary_at(self, X, V) != 0) ||
        sph_geometry_build(&self->geo[g], &self->f, self->n, x, self->nw + self->ns, self->xb, self->psi) != 0) {
        seam_logf(self->host, SEAM_LOG_ERROR, "out of memory for the neighbour lists of %zu particles", self->n);
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

/* Keep the particles in the domain: one that would leave stops at the side. */
static void hold_in_domain(fluid_sph *self)
{
    size_t d = (size_t)self->dim, clamped = 0;
    double margin = 1e-3 * self->s;
    for (size_t i = 0; i < self->n; i++)
        for (size_t c = 0; c < d; c++) {
            double *x = self->x + d * i + c, *v = self->v + d * i + c;
            if (*x < self->lo[c] + margin) {
                *x = self->lo[c] + margin;
                *v = fmax(*v, 0.0);
                clamped++;
            } else if (*x > self->hi[c] - margin) {
                *x = self->hi[c] - margin;
                *v = fmin(*v, 0.0);
                clamped++;
            }
        }
    self->clamped = clamped;
}

static seam_status fluid_solve(void *p, const seam_step *step, const seam_input *in, seam_output *out)
{
    fluid_sph *self = p;
    size_t d = (size_t)self->dim, n = self->n, np = self->iface.n_points;
    double dt = step->dt;
    self->solved = 0;
    self->t_trial = step->t + dt;
    self->step_index = (long long)step->index;
    if (!self->bound) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve before bind: the fluid needs the interface first");
        return SEAM_ERROR;
    }
    if (np && (!in || in->n != np || in->dim != self->dim || !in->X || !in->V)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve: expected X and V for %zu points of dimension %d", np, self->dim);
        return SEAM_ERROR;
    }
    if (!(dt > 0.0) || !isfinite(dt)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "solve: step size %g is not a positive number", dt);
        return SEAM_ERROR;
    }
    if (np && (!finite_array(in->X, d * np) || !finite_array(in->V, d * np))) {
        seam_logf(self->host, SEAM_LOG_WARN, "solve: the interface has non-finite positions or velocities");
        return SEAM_UNSTABLE;
    }
    const double *X = np ? in->X : NULL, *V = np ? in->V : NULL;
    if (np)
        memcpy(self->Xi, X, d * np * sizeof *X);
    /* The start of the step: the committed particles against the committed interface
     * (kept from the last commit, so coupling iterations do not rebuild it). */
    int g0 = self->start, g1 = 1 - self->start;
    if (!self->start_valid || !self->step_cache) {
        seam_status st = geometry_at(self, g0, self->x_n, self->Xi_n, NULL);
        if (st != SEAM_OK)
            return st;
        self->start_valid = 1;
    }
    const sph_geometry *G0 = &self->geo[g0];
    /* Boundary velocities over the step: walls at rest, samples S V. */
    if (self->ns)
        seam_samples_interpolate(self->samples, self->dim, V, self->vb + d * self->nw);
    /* Non-pressure forces: XSPH viscosity and gravity, then the implicit viscosity (Takahashi Algorithm 3),
     * then the boundary pressure. All but the viscosity (whose walls move with V) depend on the committed
     * state alone: made in the step's first iteration and kept (step_cache). */
    size_t nbd = d * (self->nw + self->ns);
    if (!self->step_cache || self->pre_dt != dt) {
        sph_xsph(&self->f, G0, self->xsph, self->v_n, self->v_pre);
        for (size_t i = 0; i < n; i++)
            for (size_t c = 0; c < d; c++)
                self->v_pre[d * i + c] += dt * self->gravity[c];
        memset(self->fb_pre, 0, nbd * sizeof *self->fb_pre);
        if (!(self->mu > 0.0))
            sph_boundary_pressure(&self->f, G0, self->gravity, self->k_n, dt, self->v_pre, self->fb_pre);
        self->pre_dt = dt;
    }
    memcpy(self->v, self->v_pre, d * n * sizeof *self->v);
    memcpy(self->fb, self->fb_pre, nbd * sizeof *self->fb);
    self->last_visc = (sph_solve_stats){0};
    if (self->mu > 0.0) {
        int rc = sph_viscosity_solve(&self->f, G0, self->mu, dt, self->vb, self->eta_visc, self->max_iter, self->v,
                                     self->fb, &self->last_visc);
        if (rc < 0) {
            seam_logf(self->host, SEAM_LOG_ERROR, "out of memory for the viscosity solve of %zu particles", n);
            return SEAM_ERROR;
        }
        if (rc > 0) {   /* a linear solve: its iterate is no solution (docs/fluid_sph.md, "Non-convergence") */
            seam_logf(self->host, SEAM_LOG_WARN, "step %lld iteration %d: the implicit viscosity CG %s: %d iterations "
                      "(max_iterations %d), relative residual %.3g > viscosity_tolerance %g", (long long)step->index,
                      step->iteration, self->last_visc.breakdown ? "broke down" : "did not converge",
                      self->last_visc.iterations, self->max_iter, self->last_visc.error, self->eta_visc);
            return SEAM_UNSTABLE;
        }
        sph_boundary_pressure(&self->f, G0, self->gravity, self->k_n, dt, self->v, self->fb);
    }
    if (self->tak) {
        /* Takahashi ch. 3 by MGCG (takahashi.c): the system of the applied pressure force (D G) with
         * eq. 3.2's wall term; docs/fluid_sph.md says why not eq. 3.3 as printed */
        int rc = sph_takahashi_solve(self->tak, &self->f, G0, dt, self->vb, &self->tak_opts, self->v, self->p,
                                     self->k, &self->last_rho);
        if (rc < 0) {
            seam_logf(self->host, SEAM_LOG_ERROR, "out of memory for the pressure system of %zu particles", n);
            return SEAM_ERROR;
        }
        if (rc > 0) {   /* a linear solve stopped short: its pressures are no solution */
            seam_logf(self->host, SEAM_LOG_WARN, "step %lld iteration %d: the takahashi pressure solve (%s) %s: %d "
                      "iterations (max_iterations %d), mean density error %.3g > density_tolerance %g",
                      (long long)step->index, step->iteration,
                      self->last_rho.fallback ? "MGCG, then CG" : self->tak_opts.multigrid ? "MGCG" : "CG",
                      self->last_rho.breakdown ? "broke down" : "did not converge", self->last_rho.iterations,
                      self->max_iter, self->last_rho.error, self->eta_rho);
            return SEAM_UNSTABLE;
        }
    } else {
        /* Constant density (warm start: the committed pressures). */
        memcpy(self->k, self->k_n, n * sizeof *self->k);
        double dt_cfl;
        fluid_max_dt(self, &dt_cfl);
        self->last_rho = sph_density_solve(&self->f, G0, dt, dt_cfl, self->vb, self->eta_rho, self->max_iter, self->v,
                                           self->k, self->work);
        for (size_t i = 0; i < n; i++)
            self->p[i] = self->k[i] * G0->rho[i] * G0->rho[i];
    }
    sph_boundary_forces(&self->f, G0, self->k, self->fb);
    /* Positions, then the end of the step against the interface at X. */
    for (size_t k = 0; k < d * n; k++)
        self->x[k] = self->x_n[k] + dt * self->v[k];
    hold_in_domain(self);
    seam_status st = geometry_at(self, g1, self->x, X, V);
    if (st != SEAM_OK)
        return st;
    memset(self->kv, 0, n * sizeof *self->kv);
    self->last_div = (sph_solve_stats){0};
    if (!self->tak)   /* Takahashi's ISPH has the density solve only */
        self->last_div = sph_divergence_solve(&self->f, &self->geo[g1], dt, self->vb, self->eta_div, self->max_iter,
                                              self->v, self->kv, self->work);
    sph_boundary_forces(&self->f, &self->geo[g1], self->kv, self->fb);
    if (!finite_array(self->v, d * n) || !finite_array(self->p, n)) {
        seam_logf(self->host, SEAM_LOG_WARN, "step %lld: non-finite particle velocities or pressures",
                  (long long)step->index);
        return SEAM_UNSTABLE;
    }
    double vmax = max_speed(self, self->v);
    if (vmax * dt > self->s) {
        seam_logf(self->host, SEAM_LOG_WARN, "step %lld: a particle moves %g spacings in one step (speed %g m/s)",
                  (long long)step->index, vmax * dt / self->s, vmax);
        return SEAM_UNSTABLE;
    }
    if (np)
        seam_samples_distribute(self->samples, self->dim, self->fb + d * self->nw, out->F);
    seam_logf(self->host, SEAM_LOG_DEBUG,
              "step %lld iteration %d: viscosity CG %d iterations (residual %.2e), density solve %d iterations "
              "(error %.2e%s), divergence solve %d (%.2e), %zu held at the sides", (long long)step->index,
              step->iteration, self->last_visc.iterations, self->last_visc.error, self->last_rho.iterations,
              self->last_rho.error, self->last_rho.fallback ? "; MGCG broke down, finished by CG" : "",
              self->last_div.iterations, self->last_div.error, self->clamped);
    self->solved = 1;
    return SEAM_OK;
}

static seam_status fluid_commit(void *p)
{
    fluid_sph *self = p;
    if (!self->solved) {
        seam_logf(self->host, SEAM_LOG_ERROR, "commit without a successful solve");
        return SEAM_ERROR;
    }
    self->t_n = self->t_trial;
    /* DFSPH's iteration cap is its practice (Bender and Koschier 2017): the step stands, said once, at commit */
    if (!self->tak && !(self->last_rho.error <= self->eta_rho))
        seam_logf(self->host, SEAM_LOG_WARN, "step %lld: the DFSPH density solve stopped at max_iterations %d with "
                  "average density error %.3g > density_tolerance %g; the step is committed with it",
                  self->step_index, self->max_iter, self->last_rho.error, self->eta_rho);
    if (!self->tak && !(self->last_div.error <= self->eta_div))
        seam_logf(self->host, SEAM_LOG_WARN, "step %lld: the DFSPH divergence solve stopped at max_iterations %d with "
                  "average divergence error %.3g > divergence_tolerance %g; the step is committed with it",
                  self->step_index, self->max_iter, self->last_div.error, self->eta_div);
    size_t d = (size_t)self->dim, n = self->n;
    memcpy(self->x_n, self->x, d * n * sizeof *self->x);
    memcpy(self->v_n, self->v, d * n * sizeof *self->v);
    memcpy(self->k_n, self->k, n * sizeof *self->k);
    memcpy(self->kv_n, self->kv, n * sizeof *self->kv);
    memcpy(self->p_n, self->p, n * sizeof *self->p);
    /* The end of the last solve is the start of the next step. */
    self->start = 1 - self->start;
    self->start_valid = 1;
    double *t = self->Xi_n;   /* the interface positions the end geometry was built at */
    self->Xi_n = self->Xi;
    self->Xi = t;
    self->solved = 0;
    forget_step(self);
    return SEAM_OK;
}


/* ---- enclosed regions (Akbay eq. 4.9) ------------------------------------------ */

/* A fluid particle is at a free surface when a point SURFACE_PROBE s away
 * from it in one of the lattice directions lies in the domain and farther
 * than SURFACE_EMPTY s from every particle and every surface sample: empty
 * space beside it. Inside the fluid and along walls and bodies (samples s/2
 * apart, fluid kept at least s/2 from them) no such point exists; above a
 * top row the nearest particles are sqrt(1 + 1.2^2) = 1.56 s away. */
#define SURFACE_PROBE 1.2
#define SURFACE_EMPTY 0.9
/* Fluid particles this close (in spacings) belong to the same region ... */
#define REGION_LINK 1.5
/* ... unless a surface sample lies within this distance (in spacings) of the
 * segment between them: samples are s/2 apart along segments and s/2 apart
 * in triangles, so a segment through a shell passes within 0.35 s of one,
 * while fluid rests 0.6 s from a surface. */
#define REGION_CUT 0.4

static size_t uf_find(size_t *parent, size_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

typedef struct cut_ctx {
    const double *xs, *a, *b;
    size_t d;
    double r2;
    int cut;
} cut_ctx;

/* Whether sample k lies within the cut distance of segment a-b. */
static void cut_one(void *p, size_t k, double d2)
{
    (void)d2;
    cut_ctx *c = p;
    if (c->cut)
        return;
    const double *x = c->xs + c->d * k;
    double ab2 = 0.0, t = 0.0, dist2 = 0.0;
    for (size_t q = 0; q < c->d; q++) {
        ab2 += (c->b[q] - c->a[q]) * (c->b[q] - c->a[q]);
        t += (x[q] - c->a[q]) * (c->b[q] - c->a[q]);
    }
    t = ab2 > 0.0 ? fmin(1.0, fmax(0.0, t / ab2)) : 0.0;
    for (size_t q = 0; q < c->d; q++) {
        double e = x[q] - c->a[q] - t * (c->b[q] - c->a[q]);
        dist2 += e * e;
    }
    c->cut = dist2 <= c->r2;
}

/* The probe point of committed particle i along lattice direction k (0 to
 * 7 in 2D, 0 to 25 in 3D); returns whether it lies inside the domain. */
static int probe_point(const fluid_sph *self, size_t i, int k, double *x)
{
    size_t d = (size_t)self->dim;
    int m = k + (k >= (d == 3 ? 13 : 4)), a, b, c;   /* skip the centre of the 3 x 3 (x 3) block */
    if (d == 3) {
        a = m / 9 - 1;
        b = m / 3 % 3 - 1;
        c = m % 3 - 1;
    } else {
        a = m / 3 - 1;
        b = m % 3 - 1;
        c = 0;
    }
    double dir[3] = {a, b, c}, len = sqrt((double)(a * a + b * b + c * c));
    int inside = 1;
    for (size_t q = 0; q < d; q++) {
        x[q] = self->x_n[d * i + q] + SURFACE_PROBE * self->s * dir[q] / len;
        inside &= x[q] > self->lo[q] && x[q] < self->hi[q];
    }
    return inside;
}

#define PROBE_KNOWN (1u << 31)

/* Whether committed particle i is at a free surface: a probe point inside
 * the domain and away from every particle (grid P) and every sample (grid
 * B). The particles' part depends on the committed state alone: with memo
 * (step_cache) it is found once per step, as a bit per direction. */
static int at_free_surface(const fluid_sph *self, size_t i, const seam_neighbours *P, const seam_neighbours *B,
                           uint32_t *memo)
{
    int dirs = self->dim == 3 ? 26 : 8;
    double r = SURFACE_EMPTY * self->s, x[3] = {0.0, 0.0, 0.0};
    if (memo && !(*memo & PROBE_KNOWN)) {
        *memo = PROBE_KNOWN;
        for (int k = 0; k < dirs; k++)
            if (probe_point(self, i, k, x) && seam_neighbours_find(P, x, r, NULL, NULL, 0) == 0)
                *memo |= 1u << k;
    }
    for (int k = 0; k < dirs; k++) {
        int inside = probe_point(self, i, k, x);
        int no_fluid = memo ? (int)(*memo >> k & 1u) : inside && seam_neighbours_find(P, x, r, NULL, NULL, 0) == 0;
        if (no_fluid && seam_neighbours_find(B, x, r, NULL, NULL, 0) == 0)
            return 1;
    }
    return 0;
}

typedef struct side_ctx {
    const double *x, *c, *nrm;
    size_t d;
    double side, best;
    long found;
} side_ctx;

/* The particle nearest to the probe c on the given side of the normal. */
static void side_one(void *p, size_t i, double d2)
{
    side_ctx *k = p;
    double dot = 0.0;
    for (size_t q = 0; q < k->d; q++)
        dot += (k->x[k->d * i + q] - k->c[q]) * k->nrm[q];
    if (k->side * dot > 0.0 && d2 < k->best) {
        k->best = d2;
        k->found = (long)i;
    }
}

/* Adds to the rows C (one per enclosed part, slot[] of each particle's
 * root) each interface element's area vector, out of the region on each of
 * its fluid sides: the element is cut into pieces about s across (k per edge,
 * k^(dim-1) pieces), each piece goes to the region of the particle nearest to
 * its centre on that side within the kernel's reach, and its share is split
 * over the element's points with the centre's barycentric weights (equal
 * over a whole element). */
static void element_rows(fluid_sph *self, const double *X, const seam_neighbours *P, size_t *parent, const long *slot,
                         double *C, size_t row)
{
    const seam_interface *I = &self->iface;
    size_t d = (size_t)self->dim;
    for (size_t e = 0; e < I->n_elems; e++) {
        const int32_t *v = I->elems + d * e;
        const double *p0 = X + d * (size_t)v[0], *p1 = X + d * (size_t)v[1], *p2 = d == 3 ? X + 3 * (size_t)v[2] : NULL;
        double area[3] = {0.0, 0.0, 0.0}, len = 0.0;   /* area times outward normal */
        if (d == 2) {
            area[0] = p1[1] - p0[1];
            area[1] = -(p1[0] - p0[0]);
            len = hypot(area[0], area[1]);
        } else {
            double u[3], w[3], l2 = 0.0;
            for (int q = 0; q < 3; q++) {
                u[q] = p1[q] - p0[q];
                w[q] = p2[q] - p0[q];
            }
            area[0] = 0.5 * (u[1] * w[2] - u[2] * w[1]);
            area[1] = 0.5 * (u[2] * w[0] - u[0] * w[2]);
            area[2] = 0.5 * (u[0] * w[1] - u[1] * w[0]);
            for (int q = 0; q < 3; q++)
                l2 = fmax(l2, fmax(u[q] * u[q] + w[q] * w[q], (u[q] - w[q]) * (u[q] - w[q])));
            len = sqrt(l2);
        }
        double mag = sqrt(area[0] * area[0] + area[1] * area[1] + area[2] * area[2]);
        if (!(mag > 0.0))
            continue;
        double nrm[3] = {area[0] / mag, area[1] / mag, area[2] / mag};
        long k = lround(fmax(1.0, ceil(len / self->s)));
        long pieces = d == 2 ? k : 2 * k * k;   /* 3D: up and down triangles, both counted below */
        for (long i = 0; i < k; i++)
            for (long j = 0; j < (d == 2 ? 1 : k); j++)
                for (int down = 0; down < (d == 2 ? 1 : 2); down++) {
                    double bu, bv, share;
                    if (d == 2) {
                        bu = (i + 0.5) / (double)k;
                        bv = 0.0;
                        share = 1.0 / (double)pieces;
                    } else {
                        if (i + j + down > k - 1)
                            continue;
                        bu = (i + (down ? 2.0 : 1.0) / 3.0) / (double)k;
                        bv = (j + (down ? 2.0 : 1.0) / 3.0) / (double)k;
                        share = 1.0 / (double)(k * k);
                    }
                    double wgt[3] = {1.0 - bu - bv, bu, bv}, c[3] = {0.0, 0.0, 0.0};
                    for (size_t q = 0; q < d; q++)
                        c[q] = wgt[0] * p0[q] + wgt[1] * p1[q] + (p2 ? wgt[2] * p2[q] : 0.0);
                    int two = I->two_sided && I->two_sided[e];
                    for (int side = 1; side >= (two ? -1 : 1); side -= 2) {
                        side_ctx sc = {self->x_n, c, nrm, d, (double)side, INFINITY, -1};
                        seam_neighbours_visit(P, c, self->f.K.h, side_one, &sc);
                        long r = sc.found < 0 ? -1 : slot[uf_find(parent, (size_t)sc.found)];
                        if (r < 0)
                            continue;
                        /* out of the region: -n on the + side (the fluid the normal points into), +n on the - side */
                        for (size_t m = 0; m < d; m++)
                            for (size_t q = 0; q < d; q++)
                                C[(size_t)r * row + d * (size_t)v[m] + q] -= side * share * wgt[m] * area[q];
                    }
                }
    }
}

/* Regions for interface positions X: the committed particles, grouped into
 * connected parts (links between particles closer than REGION_LINK s that no
 * surface crosses); a part none of whose particles is at a free surface is
 * enclosed (the domain's walls are fixed). Its row (Akbay eq. 4.9): the area
 * vectors of the interface elements it touches, out of it (element_rows),
 * so that c_r . V is the rate at which the walls' motion changes its
 * volume; no sources, so q = 0. */
static seam_status fluid_regions(void *p, const seam_step *step, const double *X, seam_regions *out)
{
    (void)step;
    fluid_sph *self = p;
    if (!self->bound) {
        seam_logf(self->host, SEAM_LOG_ERROR, "regions before bind");
        return SEAM_ERROR;
    }
    size_t d = (size_t)self->dim, n = self->n, np = self->iface.n_points, row = d * np;
    *out = (seam_regions){0, row, NULL, NULL, NULL};
    if (!np || !self->ns || !n || !self->iface.n_elems)
        return SEAM_OK;   /* no solid surface: nothing the projection could move */
    if (!finite_array(X, d * np)) {
        seam_logf(self->host, SEAM_LOG_WARN, "regions: the interface has non-finite positions");
        return SEAM_UNSTABLE;
    }
    /* The links between particles: the fluid rows of a geometry at the committed
     * positions. With step_cache those of the start geometry (the same lists),
     * the grid over the particles and their probe points are kept for the step. */
    const sph_pairs *links;
    seam_neighbours *P;
    if (self->step_cache) {
        if (!self->start_valid && geometry_at(self, self->start, self->x_n, self->Xi_n, NULL) != SEAM_OK)
            return SEAM_ERROR;
        self->start_valid = 1;
        if (boundary_at(self, X, NULL) != 0) {
            seam_logf(self->host, SEAM_LOG_ERROR, "regions: out of memory for %zu samples", self->ns);
            return SEAM_ERROR;
        }
        links = &self->geo[self->start].ff;
        if (!self->grid_n)
            self->grid_n = seam_neighbours_new(self->dim, n, self->x_n, self->f.K.h);
        if (!self->probe)
            self->probe = calloc(n, sizeof *self->probe);
        P = self->grid_n;
    } else {
        sph_geometry *G = &self->geo_regions;
        if (boundary_at(self, X, NULL) != 0 ||
            sph_geometry_build(G, &self->f, n, self->x_n, self->nw + self->ns, self->xb, self->psi) != 0) {
            seam_logf(self->host, SEAM_LOG_ERROR, "regions: out of memory for %zu particles", n);
            return SEAM_ERROR;
        }
        links = &G->ff;
        P = seam_neighbours_new(self->dim, n, self->x_n, self->f.K.h);
    }
    const double *xs = self->xb + d * self->nw;
    size_t *parent = malloc(n * sizeof *parent);
    int *open = calloc(n, sizeof *open);
    long *slot = malloc(n * sizeof *slot);
    seam_neighbours *B = seam_neighbours_new(self->dim, self->ns, xs, REGION_LINK * self->s);
    seam_status st = SEAM_OK;
    if (!parent || !open || !slot || !B || !P || (self->step_cache && !self->probe)) {
        st = SEAM_ERROR;
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        parent[i] = i;
    double link2 = REGION_LINK * REGION_LINK * self->s * self->s;
    for (size_t i = 0; i < n; i++)
        for (size_t q = links->start[i]; q < links->start[i + 1]; q++) {
            size_t j = links->j[q];
            if (j <= i)
                continue;
            const double *a = self->x_n + d * i, *b = self->x_n + d * j;
            double r2 = 0.0, mid[3] = {0.0, 0.0, 0.0};
            for (size_t c = 0; c < d; c++) {
                r2 += (a[c] - b[c]) * (a[c] - b[c]);
                mid[c] = 0.5 * (a[c] + b[c]);
            }
            if (r2 > link2 || uf_find(parent, i) == uf_find(parent, j))
                continue;
            cut_ctx cc = {xs, a, b, d, REGION_CUT * REGION_CUT * self->s * self->s, 0};
            seam_neighbours_visit(B, mid, 0.5 * sqrt(r2) + REGION_CUT * self->s, cut_one, &cc);
            if (!cc.cut)
                parent[uf_find(parent, i)] = uf_find(parent, j);
        }
    for (size_t i = 0; i < n; i++)
        if (!open[uf_find(parent, i)] && at_free_surface(self, i, P, B, self->step_cache ? self->probe + i : NULL))
            open[uf_find(parent, i)] = 1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        slot[i] = parent[i] == i && !open[i] ? (long)m++ : -1;
    free(self->region_C);
    free(self->region_q);
    self->region_C = calloc(m * row + 1, sizeof *self->region_C);
    self->region_q = calloc(m + 1, sizeof *self->region_q);
    if (!self->region_C || !self->region_q) {
        st = SEAM_ERROR;
        goto done;
    }
    if (m)
        element_rows(self, X, P, parent, slot, self->region_C, row);
    *out = (seam_regions){m, row, self->region_C, self->region_q, NULL};
done:
    if (st != SEAM_OK)
        seam_logf(self->host, SEAM_LOG_ERROR, "regions: out of memory for %zu particles", n);
    free(parent);
    free(open);
    free(slot);
    seam_neighbours_destroy(&B);
    if (!self->step_cache)
        seam_neighbours_destroy(&P);
    return st;
}

/* ---- state, fields, output ------------------------------------------------- */

#define SAVE_MAGIC 0x31505346u   /* "FSP1" */

static size_t state_size(const fluid_sph *self)
{
    size_t d = (size_t)self->dim;
    return 2 * sizeof(uint32_t) + 2 * sizeof(uint64_t) +
           ((2 * d + 3) * self->n + d * self->iface.n_points) * sizeof(double);
}

/* The committed state in one fixed order, for save (to buf) and load (from buf). */
static void move_state(fluid_sph *self, int save, unsigned char *buf)
{
    size_t d = (size_t)self->dim, n = self->n;
    struct { void *at; size_t bytes; } parts[] = {
        {self->x_n, d * n * sizeof(double)}, {self->v_n, d * n * sizeof(double)}, {self->k_n, n * sizeof(double)},
        {self->kv_n, n * sizeof(double)},    {self->p_n, n * sizeof(double)},
        {self->Xi_n, d * self->iface.n_points * sizeof(double)}};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        if (parts[k].bytes && save)
            memcpy(buf, parts[k].at, parts[k].bytes);
        else if (parts[k].bytes)
            memcpy(parts[k].at, buf, parts[k].bytes);
        buf += parts[k].bytes;
    }
}

static seam_status fluid_save(void *p, seam_buffer *out)
{
    fluid_sph *self = p;
    size_t size = state_size(self);
    free(self->saved);
    self->saved = malloc(size);
    if (!self->saved) {
        seam_logf(self->host, SEAM_LOG_ERROR, "save: out of memory for %zu bytes", size);
        return SEAM_ERROR;
    }
    uint32_t head[2] = {SAVE_MAGIC, (uint32_t)self->dim};
    uint64_t counts[2] = {self->n, self->iface.n_points};
    memcpy(self->saved, head, sizeof head);
    memcpy(self->saved + sizeof head, counts, sizeof counts);
    move_state(self, 1, self->saved + sizeof head + sizeof counts);
    out->data = self->saved;
    out->size = size;
    return SEAM_OK;
}

static seam_status fluid_load(void *p, const void *bytes, size_t size)
{
    fluid_sph *self = p;
    uint32_t head[2] = {0, 0};
    uint64_t counts[2] = {0, 0};
    if (size >= sizeof head + sizeof counts) {
        memcpy(head, bytes, sizeof head);
        memcpy(counts, (const unsigned char *)bytes + sizeof head, sizeof counts);
    }
    if (head[0] != SAVE_MAGIC || head[1] != (uint32_t)self->dim || counts[0] != self->n ||
        counts[1] != self->iface.n_points || size != state_size(self)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: not a fluid_sph state of %zu particles in %dD with %zu interface "
                  "points (%zu bytes, expected %zu)", self->n, self->dim, self->iface.n_points, size,
                  state_size(self));
        return SEAM_ERROR;
    }
    /* The buffer is only read: move_state copies out of it when save is 0. */
    move_state(self, 0, (unsigned char *)(uintptr_t)bytes + sizeof head + sizeof counts);
    self->start_valid = 0;
    forget_step(self);
    self->solved = 0;
    return SEAM_OK;
}

/* Raster cells: spacing s over the domain. */
static void raster_size(const fluid_sph *self, int *nc)
{
    for (int d = 0; d < 3; d++)
        nc[d] = d < self->dim ? (int)ceil((self->hi[d] - self->lo[d]) / self->s - 1e-9) : 1;
}

typedef struct splat_ctx {
    const fluid_sph *self;
    const double *x, *q;     /* the cell centre, the particle values */
    double sum, weight;
} splat_ctx;

static void splat_one(void *p, size_t i, double d2)
{
    splat_ctx *c = p;
    const fluid_sph *self = c->self;
    double rho = self->start_valid ? self->geo[self->start].rho[i] : self->f.rho0;
    double w = self->f.m / rho * sph_W(&self->f.K, sqrt(d2));
    c->sum += w * c->q[i];
    c->weight += w;
}

/* Particle values q splatted to the raster: a Shepard average where the
 * particles' kernel volumes cover at least half of a cell centre, 0 elsewhere. */
static void splat(fluid_sph *self, const double *q, double *out)
{
    int nc[3];
    raster_size(self, nc);
    seam_neighbours *B = seam_neighbours_new(self->dim, self->n, self->x_n, self->f.K.h);
    for (int k = 0; k < nc[2]; k++)
        for (int j = 0; j < nc[1]; j++)
            for (int i = 0; i < nc[0]; i++) {
                const int ijk[3] = {i, j, k};
                double x[3];
                for (int d = 0; d < 3; d++)
                    x[d] = self->lo[d] + (ijk[d] + 0.5) * self->s;
                splat_ctx c = {self, x, q, 0.0, 0.0};
                if (B)
                    seam_neighbours_visit(B, x, self->f.K.h, splat_one, &c);
                out[(size_t)i + (size_t)nc[0] * ((size_t)j + (size_t)nc[1] * (size_t)k)] =
                    c.weight >= 0.5 ? c.sum / c.weight : 0.0;
            }
    seam_neighbours_destroy(&B);
}

static seam_status fluid_field(void *p, const char *name, seam_raster *out)
{
    fluid_sph *self = p;
    size_t d = (size_t)self->dim, n = self->n;
    int nc[3];
    raster_size(self, nc);
    size_t cells = (size_t)nc[0] * (size_t)nc[1] * (size_t)nc[2];
    double *q = malloc((n + 1) * sizeof *q);
    double *r = realloc(self->raster, cells * sizeof *r);
    if (!q || !r) {
        free(q);
        seam_logf(self->host, SEAM_LOG_ERROR, "field: out of memory for %zu cells", cells);
        return SEAM_ERROR;
    }
    self->raster = r;
    const char *units;
    if (strcmp(name, "speed") == 0) {
        for (size_t i = 0; i < n; i++) {
            double s2 = 0.0;
            for (size_t c = 0; c < d; c++)
                s2 += self->v_n[d * i + c] * self->v_n[d * i + c];
            q[i] = sqrt(s2);
        }
        units = "m/s";
    } else if (strcmp(name, "pressure") == 0) {
        memcpy(q, self->p_n, n * sizeof *q);
        units = "Pa";
    } else if (strcmp(name, "density") == 0) {
        for (size_t i = 0; i < n; i++)
            q[i] = self->start_valid ? self->geo[self->start].rho[i] : self->f.rho0;
        units = "kg/m^3";
    } else {
        free(q);
        seam_logf(self->host, SEAM_LOG_ERROR, "field \"%s\": fluid_sph has \"speed\", \"pressure\" and \"density\"",
                  name);
        return SEAM_ERROR;
    }
    splat(self, q, self->raster);
    free(q);
    *out = (seam_raster){nc[0], nc[1], nc[2], {self->lo[0], self->lo[1], self->lo[2]}, self->s, self->raster, units};
    return SEAM_OK;
}

static seam_status fluid_write_output(void *p, const char *dir, int frame)
{
    fluid_sph *self = p;
    size_t n = self->n;
    double *rho = malloc((n + 1) * sizeof *rho);
    if (!rho) {
        seam_logf(self->host, SEAM_LOG_ERROR, "write_output: out of memory for %zu particles", n);
        return SEAM_ERROR;
    }
    for (size_t i = 0; i < n; i++)
        rho[i] = self->start_valid ? self->geo[self->start].rho[i] : self->f.rho0;
    seam_vtk_field fields[] = {{"velocity", 3, self->dim, self->v_n}, {"pressure", 1, 1, self->p_n},
                               {"density", 1, 1, rho}};
    char stem[64];
    snprintf(stem, sizeof stem, "fluid_sph_" SEAM_FRAME_FORMAT, frame);
    seam_status st = seam_vtk_frame_points(&self->vtk, self->host, dir, stem, self->dim, n, self->x_n, fields, 3);
    if (st == SEAM_OK)
        st = seam_vtk_frame_done(&self->vtk, self->host, dir, self->host && self->host->name ? self->host->name : "fluid_sph",
                                 self->t_n);
    free(rho);
    return st;
}

/* Loads are the pressure (and viscous) forces of the fluid on the surface
 * samples, reflected: the momentum the fluid exchanged with them over the
 * step divided by dt (fluid_sph_coupling: to 1e-9), so both a pressure load
 * and a conservative impulse (Akbay ch. 3: the Akinci coupling already
 * conserves momentum); regions for the projection. */
static uint32_t fluid_capabilities(void *p)
{
    (void)p;
    return SEAM_CAP_LOADS_PRESSURE | SEAM_CAP_LOADS_IMPULSE | SEAM_CAP_REGIONS | SEAM_CAP_SAVE;
}

/* The walled box: interface points beyond it are out of the fluid's reach. */
static seam_status fluid_domain(void *p, double lo[3], double hi[3])
{
    const fluid_sph *self = p;
    for (int d = 0; d < 3; d++) {
        lo[d] = d < self->dim ? self->lo[d] : 0.0;
        hi[d] = d < self->dim ? self->hi[d] : 0.0;
    }
    return SEAM_OK;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "fluid_sph",
    .role = SEAM_FLUID,
    .summary = "2D/3D divergence-free SPH liquid: walled domain, free surface, solids as boundary particles",
    .create = fluid_create,
    .destroy = fluid_destroy,
    .max_dt = fluid_max_dt,
    .solve = fluid_solve,
    .commit = fluid_commit,
    .bind = fluid_bind,
    .regions = fluid_regions,
    .save = fluid_save,
    .load = fluid_load,
    .field = fluid_field,
    .write_output = fluid_write_output,
    .capabilities = fluid_capabilities,
    .domain = fluid_domain,
};

/* The one exported symbol; everything else in the module is hidden. */
SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &plugin; }
