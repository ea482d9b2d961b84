/* fluid_sph: the set-up. The rest lattice (Takahashi 2.3) fills the fill
 * boxes and WALL_LAYERS layers behind each side of the domain; the fluid
 * starts at hydrostatic pressure. create and destroy of the plugin table. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/config.h"
#include "seam/log.h"
#include "seam/vtk.h"
#include "fluid_sph.h"

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
static long axis_count(const fluid_sph *self, int d) { return lround(fmax(1.0, (self->cfg.hi[d] - self->cfg.lo[d]) / self->cfg.s)); }

/* Wall particles: WALL_LAYERS layers spacing s behind every side. The sides
 * normal to axis a span the other axes' lattices, extended by the layers
 * along the axes before a, so edges and corners are made once. Returns the
 * number made (writes them when x is not NULL). */
static size_t make_walls(const fluid_sph *self, double *x)
{
    int dim = self->cfg.dim;
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
                            double sp = (self->cfg.hi[d] - self->cfg.lo[d]) / (double)axis_count(self, d);
                            double pos;
                            if (d == a)
                                pos = side ? self->cfg.hi[d] + (c[d] + 0.5) * self->cfg.s : self->cfg.lo[d] - (c[d] + 0.5) * self->cfg.s;
                            else if (c[d] < 0)
                                pos = self->cfg.lo[d] + (c[d] + 0.5) * self->cfg.s;
                            else if (c[d] >= axis_count(self, d))
                                pos = self->cfg.hi[d] + (c[d] - axis_count(self, d) + 0.5) * self->cfg.s;
                            else
                                pos = self->cfg.lo[d] + (c[d] + 0.5) * sp;
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
    int dim = self->cfg.dim;
    long n[3] = {1, 1, 1};
    for (int d = 0; d < dim; d++)
        n[d] = (long)floor((self->cfg.hi[d] - self->cfg.lo[d]) / self->cfg.s + 1e-9);
    size_t count = 0;
    long c[3];
    for (c[2] = 0; c[2] < n[2]; c[2]++)
        for (c[1] = 0; c[1] < n[1]; c[1]++)
            for (c[0] = 0; c[0] < n[0]; c[0]++) {
                double p[3];
                for (int d = 0; d < dim; d++)
                    p[d] = self->cfg.lo[d] + (c[d] + 0.5) * self->cfg.s;
                int in = 0;
                for (size_t b = 0; b < self->cfg.n_fill && !in; b++) {
                    const double *box = self->cfg.fill + 2 * (size_t)dim * b;
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
void fluid_sph_hydrostatic_start(fluid_sph *self)
{
    int dim = self->cfg.dim, a = 0;
    size_t d = (size_t)dim;
    for (int c = 1; c < dim; c++)
        if (fabs(self->cfg.gravity[c]) > fabs(self->cfg.gravity[a]))
            a = c;
    double g = fabs(self->cfg.gravity[a]), up = self->cfg.gravity[a] > 0.0 ? -1.0 : 1.0;
    memset(self->k_n, 0, self->n * sizeof *self->k_n);
    if (!(g > 0.0) || !self->n)
        return;
    /* columns: the lattice indices along the other axes */
    long count[3] = {1, 1, 1};
    size_t columns = 1;
    for (int c = 0; c < dim; c++)
        if (c != a) {
            count[c] = (long)floor((self->cfg.hi[c] - self->cfg.lo[c]) / self->cfg.s + 1e-9) + 1;
            columns *= (size_t)count[c];
        }
    double *top = seam_xmalloc_n(columns, sizeof *top);
    size_t *col = seam_xmalloc_n(self->n, sizeof *col);
    for (size_t q = 0; q < columns; q++)
        top[q] = -INFINITY;
    for (size_t i = 0; i < self->n; i++) {
        size_t id = 0;
        for (int c = dim - 1; c >= 0; c--)
            if (c != a) {
                long k = lround((self->x_n[d * i + (size_t)c] - self->cfg.lo[c]) / self->cfg.s - 0.5);
                k = k < 0 ? 0 : k >= count[c] ? count[c] - 1 : k;
                id = id * (size_t)count[c] + (size_t)k;
            }
        col[i] = id;
        top[id] = fmax(top[id], up * self->x_n[d * i + (size_t)a]);
    }
    for (size_t i = 0; i < self->n; i++) {
        double depth = top[col[i]] + 0.5 * self->cfg.s - up * self->x_n[d * i + (size_t)a];
        self->k_n[i] = g * depth / self->f.rho0;   /* rho0 g depth / rho0^2 */
        self->p_n[i] = self->f.rho0 * g * depth;
    }
    free(top);
    free(col);
}

void fluid_sph_destroy(void *p)
{
    fluid_sph *self = p;
    if (!self)
        return;
    seam_vtk_series_free(&self->vtk);
    free(self->cfg.fill);
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

/* Arrays of the particles for n of them. */
static void alloc_particles(fluid_sph *self, size_t n)
{
    size_t dn = (size_t)self->cfg.dim * n + 1;
    double **vec[] = {&self->x_n, &self->v_n, &self->x, &self->v, &self->v_pre};
    double **sca[] = {&self->k_n, &self->kv_n, &self->p_n, &self->k, &self->kv, &self->p, &self->work};
    for (size_t m = 0; m < sizeof vec / sizeof vec[0]; m++)
        *vec[m] = SEAM_NEW_N(double, dn);
    for (size_t m = 0; m < sizeof sca / sizeof sca[0]; m++)
        *sca[m] = SEAM_NEW_N(double, n + 1);
}

void *fluid_sph_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *cfg = seam_cfg_from_host(config_json, host);
    if (!cfg)
        return NULL;
    fluid_sph *self = SEAM_NEW(fluid_sph);
    self->host = host;
    self->vtk.format = seam_host_vtk_format(host);
    if (sph_config_read(&self->cfg, cfg, host) != 0) {
        seam_cfg_destroy(&cfg);
        fluid_sph_destroy(self);
        return NULL;
    }
    /* kept until the lattice is made: its refusals are located at the keys that caused them */
    bool spacing_given = seam_cfg_has(cfg, "spacing");
    /* Support radius twice the spacing (h = 4 particle radii, as in Bender and Koschier). */
    sph_kernel_init(&self->f.K, self->cfg.dim, 2.0 * self->cfg.s);
    self->f.dim = self->cfg.dim;
    self->f.rho0 = self->cfg.rho0;
    self->V0 = lattice_volume(&self->f.K, self->cfg.s);
    self->f.m = self->f.rho0 * self->V0;
    self->offset = surface_offset(&self->f.K, self->cfg.s, self->V0);
    /* Takahashi's grid: cells of the kernel radius over the domain (ch. 3.5.6: dx = h) */
    if (self->cfg.solver_takahashi)
        self->tak = sph_takahashi_new(self->cfg.dim, self->cfg.lo, self->cfg.hi, self->f.K.h);
    double cells = 1.0;
    for (int d = 0; d < self->cfg.dim; d++)
        cells *= (self->cfg.hi[d] - self->cfg.lo[d]) / self->cfg.s + 2.0 * WALL_LAYERS;
    if (cells > 4e9) {
        seam_cfg_error(cfg, spacing_given ? "spacing" : NULL, "spacing %g m%s makes %.3g lattice sites in the domain: "
                       "more than 4e9", self->cfg.s, spacing_given ? "" : " (the scene's cell_size)", cells);
        seam_cfg_destroy(&cfg);
        fluid_sph_destroy(self);
        return NULL;
    }
    self->nw = make_walls(self, NULL);
    /* Before make_fluid visits every lattice site: at least the largest fill box's sites become particles, each
     * with 5 vectors and 7 numbers (alloc_particles), each wall particle with its position and, once bound, 4
     * vectors and a volume. */
    double fill_sites = 0.0;
    for (size_t b = 0; b < self->cfg.n_fill; b++) {
        const double *box = self->cfg.fill + 2 * (size_t)self->cfg.dim * b;
        double sites = 1.0;
        for (int d = 0; d < self->cfg.dim; d++)
            sites *= fmax(0.0, floor((fmin(box[self->cfg.dim + d], self->cfg.hi[d]) - fmax(box[d], self->cfg.lo[d])) / self->cfg.s) - 1.0);
        fill_sites = fmax(fill_sites, sites);
    }
    char what[160];
    snprintf(what, sizeof what, "spacing %g m%s: at least %.3g fluid and %zu wall particles", self->cfg.s,
             spacing_given ? "" : " (the scene's cell_size)", fill_sites, self->nw);
    if (!seam_cfg_check_memory(cfg, spacing_given ? "spacing" : NULL,
                               8.0 * (fill_sites * (5 * self->cfg.dim + 7) + (double)self->nw * (5 * self->cfg.dim + 1)), what)) {
        seam_cfg_destroy(&cfg);
        fluid_sph_destroy(self);
        return NULL;
    }
    self->n = make_fluid(self, NULL);
    self->xw = SEAM_NEW_N(double, (size_t)self->cfg.dim * self->nw + 1);
    alloc_particles(self, self->n);
    make_walls(self, self->xw);
    make_fluid(self, self->x_n);
    if (self->n == 0) {
        seam_cfg_error(cfg, "fill", "no lattice site (spacing %g m%s) inside the domain lies in the fill boxes",
                       self->cfg.s, spacing_given ? "" : ", the scene's cell_size");
        seam_cfg_destroy(&cfg);
        fluid_sph_destroy(self);
        return NULL;
    }
    seam_cfg_destroy(&cfg);
    seam_logf(host, SEAM_LOG_INFO, "%zu fluid particles, %zu wall particles, spacing %g m, particle mass %g", self->n,
              self->nw, self->cfg.s, self->f.m);
    return self;
}
