/* fluid_mac's state: the committed fields (and a liquid's particles) a run
 * starts from, what bind and commit change in it, and its save and load
 * through seam's checkpoint format (portable across hosts). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fluid.h"
#include "seam/alloc.h"
#include "seam/checkpoint.h"
#include "seam/log.h"

void fluid_mac_level_set(fluid_mac *self, size_t n, const double *x, const uint8_t *solid, double *phi)
{
    const fluid_mac_config *c = &self->cfg;
    if (c->reference_kernels)
        mac_ref_level_set(&c->g, n, x, c->particle_radius, solid, c->per_axis, &self->work, phi);
    else
        mac_level_set(&c->g, n, x, c->particle_radius, solid, c->per_axis, &self->work, &self->bins, phi);
}

size_t fluid_mac_particles_per_cell(const fluid_mac *self)
{
    return mac_subgrid_count(&self->cfg.g, self->cfg.per_axis);
}

/* Room for n particles in the particle arrays (kept when large enough). */
static void reserve_particles(fluid_mac *self, size_t n)
{
    if (n <= self->np_cap && self->xp_n)
        return;
    double **arrays[] = {&self->xp_n, &self->vp_n, &self->xp, &self->vp, &self->pic, &self->delta};
    for (size_t m = 0; m < sizeof arrays / sizeof arrays[0]; m++)
        *arrays[m] = seam_xrealloc_n(*arrays[m], (size_t)self->cfg.g.dim * n + 1, sizeof(double));
    self->np_cap = n;
}

/* Whether the centre of cell ijk lies in one of the fill boxes (and not in an obstacle). */
static int in_fill(const fluid_mac_config *c, const int *ijk)
{
    const mac_grid *g = &c->g;
    size_t dim = (size_t)g->dim;
    if (c->obstacle && c->obstacle[mac_c(g, ijk[0], ijk[1], ijk[2])])
        return 0;
    for (size_t b = 0; b < c->n_fill; b++) {
        const double *f = c->fill + 2 * dim * b;
        int in = 1;
        for (size_t d = 0; d < dim; d++) {
            double xc = g->origin[d] + (ijk[d] + 0.5) * g->dx;
            in &= xc >= f[d] && xc <= f[dim + d];
        }
        if (in)
            return 1;
    }
    return 0;
}

/* per_axis^dim particles at rest on a regular sub-grid of every cell whose
 * centre is in a fill box, and their level set. */
static void seed_particles(fluid_mac *self)
{
    const mac_grid *g = &self->cfg.g;
    size_t dim = (size_t)g->dim, nc = mac_ncell(g), ppc = fluid_mac_particles_per_cell(self), filled = 0;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++)
                filled += (size_t)in_fill(&self->cfg, (const int[3]){i, j, k});
    self->phi_n = SEAM_NEW_N(double, nc);
    self->phi = SEAM_NEW_N(double, nc);
    reserve_particles(self, filled * ppc);
    for (int a = 0; a < g->dim; a++)
        self->dvel[a] = SEAM_NEW_N(double, mac_nf(g, a));
    memset(self->vp_n, 0, dim * self->np_cap * sizeof(double));
    size_t n = 0;
    int pa = self->cfg.per_axis;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                const int ijk[3] = {i, j, k};
                int in = in_fill(&self->cfg, ijk);
                for (size_t q = 0; in && q < ppc; q++, n++)
                    mac_subgrid_point(g, ijk, pa, q, self->xp_n + dim * n);
            }
    self->np_n = n;
    fluid_mac_level_set(self, n, self->xp_n, NULL, self->phi_n);
}

fluid_mac *fluid_mac_new(fluid_mac_config *conf, const seam_host *host)
{
    fluid_mac *self = SEAM_NEW(fluid_mac);
    self->host = host;
    self->cfg = *conf;
    *conf = (fluid_mac_config){0};
    self->proj.precond = self->cfg.precond;
    self->vtk.format = seam_host_vtk_format(host);   /* the frame format is the host's setting */
    const mac_grid *g = &self->cfg.g;
    size_t nc = mac_ncell(g);
    for (int a = 0; a < g->dim; a++) {
        size_t nf = mac_nf(g, a);
        double **arrays[] = {&self->vel_n[a], &self->vel[a], &self->vel_star[a], &self->d_b[a], &self->T_b[a],
                             &self->vel_moved[a]};
        for (size_t m = 0; m < sizeof arrays / sizeof arrays[0]; m++)
            *arrays[m] = SEAM_NEW_N(double, nf);
        if (self->cfg.viscosity > 0.0)
            self->fvel[a] = SEAM_NEW_N(double, nf);
    }
    double **cells[] = {&self->p_n, &self->p, &self->raster, &self->d_n, &self->T_n, &self->d,
                        &self->T, &self->src_s, &self->src_d, &self->src_T};
    for (size_t m = 0; m < sizeof cells / sizeof cells[0]; m++)
        *cells[m] = SEAM_NEW_N(double, nc);
    self->solid_n = SEAM_NEW_N(uint8_t, nc);
    mac_work_init(&self->work, g);
    for (size_t c = 0; c < nc; c++) {
        self->d_n[c] = self->cfg.d_init;
        self->T_n[c] = self->cfg.T_init;
    }
    if (self->cfg.liquid)
        seed_particles(self);
    return self;
}

void fluid_mac_destroy(fluid_mac **self_p)
{
    fluid_mac *self = *self_p;
    if (!self)
        return;
    seam_vtk_series_free(&self->vtk);
    fluid_mac_config_free(&self->cfg);
    free(self->U);
    free(self->visc_dv);
    free(self->xp_n);
    free(self->vp_n);
    free(self->xp);
    free(self->vp);
    free(self->pic);
    free(self->delta);
    mac_work_free(&self->work);
    mac_bins_free(&self->bins);
    free(self->phi_n);
    free(self->phi);
    for (int a = 0; a < 3; a++) {
        free(self->dvel[a]);
        free(self->fvel[a]);
        free(self->vel_moved[a]);
        free(self->vel_n[a]);
        free(self->vel[a]);
        free(self->vel_star[a]);
        free(self->d_b[a]);
        free(self->T_b[a]);
    }
    free(self->p_n);
    free(self->d_n);
    free(self->T_n);
    free(self->d);
    free(self->T);
    free(self->src_s);
    free(self->src_d);
    free(self->src_T);
    free(self->solid_n);
    free(self->p);
    mac_geometry_free(&self->geo);
    mac_projection_free(&self->proj);
    free(self->C);
    free(self->q);
    free(self->M);
    free(self->saved);
    free(self->raster);
    free(self->shell_seg);
    free(self->shell_X0);
    free(self->shell_elem);
    free(self);
    *self_p = NULL;
}

/* Drop the particles that start inside solid cells (the liquid cannot be there). */
static void remove_particles_in(fluid_mac *self, const uint8_t *solid)
{
    size_t kept = 0, dim = (size_t)self->cfg.g.dim;
    for (size_t p = 0; p < self->np_n; p++) {
        const double *x = self->xp_n + dim * p;
        if (solid[mac_cell_of(&self->cfg.g, x)])
            continue;
        memmove(self->xp_n + dim * kept, x, dim * sizeof(double));
        memmove(self->vp_n + dim * kept, self->vp_n + dim * p, dim * sizeof(double));
        kept++;
    }
    self->np_n = kept;
    fluid_mac_level_set(self, kept, self->xp_n, solid, self->phi_n);
}

/* The interface's shape: this grid's dimension, its arrays present, elements
 * naming its points, finite positions. */
static seam_status check_interface(const fluid_mac *self, const seam_interface *iface)
{
    int dim = self->cfg.g.dim;
    if (iface->n_points && iface->dim != dim) {
        seam_logf(self->host, SEAM_LOG_ERROR, "fluid_mac runs in %dD (cells): the interface has dimension %d", dim,
                  iface->dim);
        return SEAM_ERROR;
    }
    if ((iface->n_points && !iface->X) || (iface->n_elems && !iface->elems)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "the interface has %zu points and %zu elements but no %s array",
                  iface->n_points, iface->n_elems, iface->n_points && !iface->X ? "position" : "element");
        return SEAM_ERROR;
    }
    if (iface->n_elems && iface->nodes_per_elem != dim) {
        seam_logf(self->host, SEAM_LOG_ERROR, "fluid_mac in %dD needs %s (%d nodes per element), got %d", dim,
                  dim == 3 ? "triangles" : "segments", dim, iface->nodes_per_elem);
        return SEAM_ERROR;
    }
    size_t npe = (size_t)dim;
    for (size_t e = 0; e < iface->n_elems; e++) {
        for (size_t k = 0; k < npe; k++)
            if (iface->elems[npe * e + k] < 0 || (size_t)iface->elems[npe * e + k] >= iface->n_points) {
                seam_logf(self->host, SEAM_LOG_ERROR, "interface element %zu names point %d of %zu", e,
                          iface->elems[npe * e + k], iface->n_points);
                return SEAM_ERROR;
            }
    }
    for (size_t k = 0; k < (size_t)dim * iface->n_points; k++)
        if (!isfinite(iface->X[k])) {
            seam_logf(self->host, SEAM_LOG_ERROR, "interface point %zu has a non-finite position", k / (size_t)dim);
            return SEAM_ERROR;
        }
    return SEAM_OK;
}

seam_status fluid_mac_bind(fluid_mac *self, const seam_interface *iface)
{
    self->moved_valid = 0;   /* the committed state may change (particles in solids, a loaded state) */
    seam_status st = check_interface(self, iface);
    if (st != SEAM_OK)
        return st;
    const mac_grid *g = &self->cfg.g;
    size_t npe = (size_t)g->dim;
    self->iface = *iface;
    self->bound = 1;
    /* The liquid's particles must not pass the thin shells (two-sided elements). */
    free(self->shell_seg);
    free(self->shell_X0);
    free(self->shell_elem);
    self->n_shell = 0;
    self->shell_seg = seam_xmalloc_n(npe * iface->n_elems + 1, sizeof *self->shell_seg);
    self->shell_X0 = seam_xmalloc_n(npe * iface->n_points + 1, sizeof *self->shell_X0);
    self->shell_elem = seam_xmalloc_n(iface->n_elems + 1, sizeof *self->shell_elem);
    for (size_t e = 0; e < iface->n_elems; e++)
        if (iface->two_sided && iface->two_sided[e]) {
            memcpy(self->shell_seg + npe * self->n_shell, iface->elems + npe * e, npe * sizeof *self->shell_seg);
            self->n_shell++;
        }
    /* The committed solid cells follow the interface's committed positions. */
    mac_geometry geo;
    st = mac_geometry_build(&geo, g, iface, iface->X, self->cfg.kernel_radius * g->dx, NULL, self->cfg.obstacle,
                            self->host);
    if (st == SEAM_OK)
        memcpy(self->solid_n, geo.solid, mac_ncell(g));
    if (st == SEAM_OK && self->cfg.liquid)
        remove_particles_in(self, geo.solid);
    mac_geometry_free(&geo);
    return st;
}

/* The trial fields (and particles) become the committed ones; the solid cells are the caller's. */
static void take_trial(fluid_mac *self)
{
    const mac_grid *g = &self->cfg.g;
    for (int a = 0; a < g->dim; a++)
        memcpy(self->vel_n[a], self->vel[a], mac_nf(g, a) * sizeof(double));
    memcpy(self->p_n, self->p, mac_ncell(g) * sizeof(double));
    memcpy(self->d_n, self->d, mac_ncell(g) * sizeof(double));
    memcpy(self->T_n, self->T, mac_ncell(g) * sizeof(double));
    if (self->cfg.liquid) {
        memcpy(self->xp_n, self->xp, (size_t)g->dim * self->np * sizeof(double));
        memcpy(self->vp_n, self->vp, (size_t)g->dim * self->np * sizeof(double));
        self->np_n = self->np;
        memcpy(self->phi_n, self->phi, mac_ncell(g) * sizeof(double));
    }
}

seam_status fluid_mac_commit(fluid_mac *self)
{
    if (!self->solved) {
        seam_logf(self->host, SEAM_LOG_ERROR, "commit without a successful solve");
        return SEAM_ERROR;
    }
    self->t_n = self->t_trial;
    self->moved_valid = 0;   /* the committed state changes */
    take_trial(self);
    memcpy(self->solid_n, self->geo.solid, mac_ncell(&self->cfg.g));
    self->solved = 0;
    return SEAM_OK;
}

/* ---- save and load ---------------------------------------------------------- */

/* The one section of a state image; a new layout takes a new name. Before
 * it, states were raw host-endian arrays under the words "FMAC" (version 1,
 * before 3D grids) and "FMA2" (version 2); both are refused by name. */
#define STATE_SECTION "fluid_mac state v3"

seam_status fluid_mac_save(fluid_mac *self, seam_buffer *out)
{
    const mac_grid *g = &self->cfg.g;
    size_t nc = mac_ncell(g), dim = (size_t)g->dim, np = self->cfg.liquid ? self->np_n : 0;
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, STATE_SECTION);
    /* the grid and the kind of fluid the state belongs to, checked by load */
    seam_ckpt_put_u64(w, dim);
    seam_ckpt_put_u64(w, (uint64_t)g->nx);
    seam_ckpt_put_u64(w, (uint64_t)g->ny);
    seam_ckpt_put_u64(w, (uint64_t)g->nz);
    seam_ckpt_put_u64(w, (uint64_t)self->cfg.liquid);
    seam_ckpt_put_f64(w, self->t_n);
    for (int a = 0; a < g->dim; a++)
        seam_ckpt_put_f64s(w, self->vel_n[a], mac_nf(g, a));
    seam_ckpt_put_f64s(w, self->p_n, nc);
    seam_ckpt_put_f64s(w, self->d_n, nc);
    seam_ckpt_put_f64s(w, self->T_n, nc);
    seam_ckpt_put_bytes(w, self->solid_n, nc);
    if (self->cfg.liquid) {
        seam_ckpt_put_f64s(w, self->phi_n, nc);
        seam_ckpt_put_f64s(w, self->xp_n, dim * np);
        seam_ckpt_put_f64s(w, self->vp_n, dim * np);
    }
    free(self->saved);
    size_t size = 0;
    self->saved = seam_ckpt_writer_take(w, &size);
    seam_ckpt_writer_destroy(&w);
    if (!self->saved) {
        seam_logf(self->host, SEAM_LOG_ERROR, "save: out of memory for a %zu-cell state", nc);
        return SEAM_ERROR;
    }
    out->data = self->saved;
    out->size = size;
    return SEAM_OK;
}

/* The words that began the raw states before this format. */
static const char *raw_format(const void *bytes, size_t n)
{
    if (n >= 4 && memcmp(bytes, "FMAC", 4) == 0)
        return "save format version 1 (before 3D grids)";
    if (n >= 4 && memcmp(bytes, "FMA2", 4) == 0)
        return "save format version 2 (raw host-endian arrays)";
    return NULL;
}

/* The header: the image's grid and kind of fluid must be this one's. */
static void read_header(seam_ckpt_reader *r, const fluid_mac *self)
{
    const mac_grid *g = &self->cfg.g;
    uint64_t dim = seam_ckpt_get_u64(r), nx = seam_ckpt_get_u64(r), ny = seam_ckpt_get_u64(r);
    uint64_t nz = seam_ckpt_get_u64(r), liquid = seam_ckpt_get_u64(r);
    if (seam_ckpt_ok(r, false) && (dim != (uint64_t)g->dim || nx != (uint64_t)g->nx || ny != (uint64_t)g->ny ||
                                   nz != (uint64_t)g->nz || liquid != (uint64_t)self->cfg.liquid))
        seam_ckpt_fail(r, "a %s state of a %llux%llux%llu grid (%lluD), this fluid is a %s on a %dx%dx%d grid",
                       liquid ? "liquid" : "smoke", (unsigned long long)nx, (unsigned long long)ny,
                       (unsigned long long)nz, (unsigned long long)dim, self->cfg.liquid ? "liquid" : "smoke",
                       g->nx, g->ny, g->nz);
}

/* The particles of the image: how many (at most what the grid seeds), into
 * the trial arrays. */
static void read_particles(seam_ckpt_reader *r, fluid_mac *self)
{
    size_t nc = mac_ncell(&self->cfg.g), dim = (size_t)self->cfg.g.dim;
    seam_ckpt_get_f64s(r, self->phi, nc);
    size_t count = seam_ckpt_ok(r, false) ? seam_ckpt_peek_count(r) : 0, np = count / dim;
    size_t cap = nc * fluid_mac_particles_per_cell(self);
    if (count % dim != 0 || np > cap) {
        seam_ckpt_fail(r, "%zu particle coordinates: not %zu per particle for at most %zu particles", count, dim,
                       cap);
        return;
    }
    reserve_particles(self, np);
    seam_ckpt_get_f64s(r, self->xp, dim * np);
    seam_ckpt_get_f64s(r, self->vp, dim * np);
    self->np = np;
}

/* The image is read into the trial state and committed only when all of it
 * was read: a refused image leaves the committed state as it was. */
seam_status fluid_mac_load(fluid_mac *self, const void *bytes, size_t n)
{
    self->moved_valid = 0;   /* the committed state may change */
    self->solved = 0;
    const char *raw = raw_format(bytes, n);
    if (raw) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: a fluid_mac state in %s; this build reads seam checkpoint "
                  "images (section \"%s\") only", raw, STATE_SECTION);
        return SEAM_ERROR;
    }
    char err[512];
    seam_ckpt_reader *r = seam_ckpt_reader_from_bytes(bytes, n, "fluid_mac state", err, sizeof err);
    if (!r) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: %s", err);
        return SEAM_ERROR;
    }
    const mac_grid *g = &self->cfg.g;
    size_t nc = mac_ncell(g);
    if (seam_ckpt_need(r, STATE_SECTION))
        read_header(r, self);
    double t = seam_ckpt_get_f64(r);
    for (int a = 0; a < g->dim; a++)
        seam_ckpt_get_f64s(r, self->vel[a], mac_nf(g, a));
    seam_ckpt_get_f64s(r, self->p, nc);
    seam_ckpt_get_f64s(r, self->d, nc);
    seam_ckpt_get_f64s(r, self->T, nc);
    size_t ns = 0;
    const void *solid = seam_ckpt_get_bytes(r, &ns);
    if (seam_ckpt_ok(r, false) && ns != nc)
        seam_ckpt_fail(r, "%zu solid flags for %zu cells", ns, nc);
    self->np = 0;
    if (self->cfg.liquid && seam_ckpt_ok(r, false))
        read_particles(r, self);
    if (!seam_ckpt_ok(r, true)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: %s", seam_ckpt_error(r));
        seam_ckpt_reader_destroy(&r);
        return SEAM_ERROR;
    }
    /* all read: it is the committed state now */
    take_trial(self);
    memcpy(self->solid_n, solid, nc);
    self->t_n = t;
    seam_ckpt_reader_destroy(&r);
    return SEAM_OK;
}
