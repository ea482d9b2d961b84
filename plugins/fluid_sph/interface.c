/* fluid_sph: the interface the solids give it (bind). The surfaces are
 * sampled about half a spacing apart (seam_samples) and each sample becomes
 * a boundary particle (Akinci et al. 2012); fluid particles inside a closed
 * volume are dropped. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/log.h"
#include "seam/mapping.h"
#include "seam/neighbours.h"
#include "fluid_sph.h"

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
        for (int k = 0; k < self->cfg.dim && !(I->two_sided && I->two_sided[e]); k++)
            for (int d = 0; d < self->cfg.dim; d++) {
                double c = X[(size_t)self->cfg.dim * (size_t)I->elems[(size_t)self->cfg.dim * e + (size_t)k] + (size_t)d];
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
        const int32_t *v = I->elems + (size_t)self->cfg.dim * e;
        if (self->cfg.dim == 2) {
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
int fluid_sph_boundary_at(fluid_sph *self, const double *X, const double *V)
{
    size_t d = (size_t)self->cfg.dim, nw = self->nw, ns = self->ns, np = self->iface.n_points;
    double *xs = self->xb + d * nw, *nrm_s = self->nrm + d * np;
    if (ns) {
        seam_samples_interpolate(self->samples, self->cfg.dim, X, xs);
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
        seam_samples_interpolate(self->samples, self->cfg.dim, self->nrm, nrm_s);
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
            seam_samples_interpolate(self->samples, self->cfg.dim, V, self->vb + d * nw);
        else
            memset(self->vb + d * nw, 0, d * ns * sizeof *self->vb);
    }
    return 0;
}

/* The committed state changed (commit, load, bind): the step's fluid-only work is stale. */
void fluid_sph_forget_step(fluid_sph *self)
{
    self->pre_dt = 0.0;
    seam_neighbours_destroy(&self->grid_n);
    free(self->probe);
    self->probe = NULL;
}

seam_status fluid_sph_bind(void *p, const seam_interface *iface)
{
    fluid_sph *self = p;
    int dim = self->cfg.dim;
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
    /* Samples s/2 apart along an element: one longer than the walled domain's
     * diagonal would make samples without bound (a 3D one, their square). */
    double diag = 0.0;
    for (size_t q = 0; q < d; q++)
        diag += (self->cfg.hi[q] - self->cfg.lo[q]) * (self->cfg.hi[q] - self->cfg.lo[q]);
    diag = sqrt(diag);
    for (size_t e = 0; e < iface->n_elems; e++)
        for (size_t k = 0; k < d; k++) {
            const int32_t *v = iface->elems + d * e;
            if (v[k] < 0 || (size_t)v[k] >= iface->n_points || v[(k + 1) % d] < 0 ||
                (size_t)v[(k + 1) % d] >= iface->n_points)
                continue;   /* seam_samples_new refuses it below */
            const double *a = iface->X + d * (size_t)v[k], *b = iface->X + d * (size_t)v[(k + 1) % d];
            double len = 0.0;
            for (size_t q = 0; q < d; q++)
                len = hypot(len, b[q] - a[q]);   /* no square overflows */
            if (!(len <= diag)) {
                seam_logf(self->host, SEAM_LOG_ERROR, "bind: interface element %zu has an edge %g m long, longer "
                          "than the fluid domain's diagonal (%g m)", e, len, diag);
                return SEAM_ERROR;
            }
        }
    seam_samples_destroy(&self->samples);
    self->samples = seam_samples_new(iface, iface->X, SAMPLE_SPACING * self->cfg.s);
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
    self->xb = seam_xmalloc_n(d * nb + 1, sizeof *self->xb);
    self->psi = seam_xmalloc_n(nb + 1, sizeof *self->psi);
    self->vb = SEAM_NEW_N(double, d * nb + 1);
    self->nrm = seam_xmalloc_n(d * (np + self->ns) + 1, sizeof *self->nrm);
    self->fb = seam_xmalloc_n(d * nb + 1, sizeof *self->fb);
    self->fb_pre = seam_xmalloc_n(d * nb + 1, sizeof *self->fb_pre);
    self->Xi_n = seam_xmalloc_n(d * np + 1, sizeof *self->Xi_n);
    self->Xi = seam_xmalloc_n(d * np + 1, sizeof *self->Xi);
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
    seam_neighbours *B = self->ns ? seam_neighbours_new(dim, self->ns, xs, 0.5 * self->cfg.s) : NULL;
    /* the crossings are counted only where the ray can meet the bodies: all elements for every particle made
     * the bind O(particles x elements), minutes for a fine lattice */
    double box_lo[3], box_hi[3];
    closed_box(self, iface->X, box_lo, box_hi);
    for (size_t i = 0; i < self->n; i++) {
        const double *x = self->x_n + d * i;
        if ((B && seam_neighbours_find(B, x, 0.5 * self->cfg.s, NULL, NULL, 0) > 0) ||
            (iface->n_elems && ray_meets_box(dim, box_lo, box_hi, x) && inside_volume(self, iface->X, x)))
            continue;
        memmove(self->x_n + d * kept, x, d * sizeof *x);
        kept++;
    }
    seam_neighbours_destroy(&B);
    if (kept < self->n)
        seam_logf(self->host, SEAM_LOG_INFO, "bind: %zu fluid particles removed inside or on the solids", self->n - kept);
    self->n = kept;
    fluid_sph_hydrostatic_start(self);
    self->bound = 1;
    self->start_valid = 0;
    fluid_sph_forget_step(self);
    seam_logf(self->host, SEAM_LOG_INFO, "bound to %zu interface points: %zu surface samples, %zu fluid particles",
              np, self->ns, self->n);
    return SEAM_OK;
}
