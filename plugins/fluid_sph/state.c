/* fluid_sph: its committed state saved and loaded through core's
 * checkpoint format (portable across hosts and byte orders). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/checkpoint.h"
#include "seam/log.h"
#include "fluid_sph.h"

/* The committed state as a checkpoint image (seam/checkpoint.h: typed,
 * little-endian, CRC'd), section "fluid_sph": dim, particle count, interface
 * points, then x, v, k, kv, p of the particles and the interface's X^n. */
seam_status fluid_sph_save(void *p, seam_buffer *out)
{
    fluid_sph *self = p;
    size_t d = (size_t)self->cfg.dim, n = self->n, np = self->iface.n_points;
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "fluid_sph");
    seam_ckpt_put_u64(w, d);
    seam_ckpt_put_u64(w, n);
    seam_ckpt_put_u64(w, np);
    seam_ckpt_put_f64s(w, self->x_n, d * n);
    seam_ckpt_put_f64s(w, self->v_n, d * n);
    seam_ckpt_put_f64s(w, self->k_n, n);
    seam_ckpt_put_f64s(w, self->kv_n, n);
    seam_ckpt_put_f64s(w, self->p_n, n);
    seam_ckpt_put_f64s(w, self->Xi_n, d * np);
    size_t size = 0;
    unsigned char *image = seam_ckpt_writer_take(w, &size);   /* never NULL: allocation aborts (seam/alloc.h) */
    seam_ckpt_writer_destroy(&w);
    free(self->saved);
    self->saved = image;
    out->data = image;
    out->size = size;
    return SEAM_OK;
}

seam_status fluid_sph_load(void *p, const void *bytes, size_t size)
{
    fluid_sph *self = p;
    size_t d = (size_t)self->cfg.dim, n = self->n, np = self->iface.n_points;
    char err[512];
    seam_ckpt_reader *r = seam_ckpt_reader_from_bytes(bytes, size, "fluid_sph state", err, sizeof err);
    if (!r) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: %s", err);
        return SEAM_ERROR;
    }
    seam_status st = SEAM_ERROR;
    if (seam_ckpt_need(r, "fluid_sph")) {
        uint64_t dim = seam_ckpt_get_u64(r), count = seam_ckpt_get_u64(r), points = seam_ckpt_get_u64(r);
        if (seam_ckpt_ok(r, false) && (dim != d || count != n || points != np))
            seam_ckpt_fail(r, "not a fluid_sph state of %zu particles in %dD with %zu interface points (it holds "
                           "%llu in %lluD with %llu)", n, self->cfg.dim, np, (unsigned long long)count,
                           (unsigned long long)dim, (unsigned long long)points);
        /* into scratch first: an image that does not read back whole leaves the committed state */
        size_t len[6] = {d * n, d * n, n, n, n, d * np};
        double *dst[6] = {self->x_n, self->v_n, self->k_n, self->kv_n, self->p_n, self->Xi_n};
        double *scratch = seam_xmalloc_n(2 * d * n + 3 * n + d * np, sizeof *scratch), *at = scratch;
        for (int a = 0; a < 6; a++) {
            seam_ckpt_get_f64s(r, at, len[a]);
            at += len[a];
        }
        st = seam_ckpt_ok(r, true) ? SEAM_OK : SEAM_ERROR;
        at = scratch;
        for (int a = 0; st == SEAM_OK && a < 6; a++) {
            if (len[a] > 0)
                memcpy(dst[a], at, len[a] * sizeof *at);
            at += len[a];
        }
        free(scratch);
    }
    if (st != SEAM_OK)
        seam_logf(self->host, SEAM_LOG_ERROR, "load: %s", seam_ckpt_error(r));
    seam_ckpt_reader_destroy(&r);
    if (st != SEAM_OK)
        return st;
    self->start_valid = 0;
    fluid_sph_forget_step(self);
    self->solved = 0;
    return SEAM_OK;
}
