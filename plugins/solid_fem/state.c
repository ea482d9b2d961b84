/* solid_fem's state: the committed nodes saved and loaded through core's
 * checkpoint format (seam/checkpoint.h: typed, little-endian, CRC-checked),
 * so an image made on one host loads on any other. Layout, one section
 * "solid_fem": u64 dim, u64 node count, i64 steps taken, f64 committed
 * time, then the positions x and velocities v (dim per node). */
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/checkpoint.h"
#include "seam/log.h"
#include "fem.h"

static const char section[] = "solid_fem";

seam_status fem_save(fem *self, seam_buffer *out)
{
    size_t nd = self->n * (size_t)self->d;
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, section);
    seam_ckpt_put_u64(w, (uint64_t)self->d);
    seam_ckpt_put_u64(w, self->n);
    seam_ckpt_put_i64(w, self->steps);
    seam_ckpt_put_f64(w, self->t_n);
    seam_ckpt_put_f64s(w, self->x, nd);
    seam_ckpt_put_f64s(w, self->v, nd);
    size_t size = 0;
    unsigned char *image = seam_ckpt_writer_take(w, &size);
    seam_ckpt_writer_destroy(&w);
    if (!image) {
        seam_logf(self->host, SEAM_LOG_ERROR, "save: the state of %zu nodes could not be written", self->n);
        return SEAM_ERROR;
    }
    free(self->save_buf);
    self->save_buf = image;
    *out = (seam_buffer){.data = image, .size = size};
    return SEAM_OK;
}

/* An image's state into x, v (nd each): false with the reason recorded in r
 * when it is not a state of this mesh. */
static bool read_state(const fem *self, seam_ckpt_reader *r, int64_t *steps, double *t_n, double *x, double *v)
{
    if (!seam_ckpt_need(r, section))
        return false;
    uint64_t d = seam_ckpt_get_u64(r), n = seam_ckpt_get_u64(r);
    *steps = seam_ckpt_get_i64(r);
    *t_n = seam_ckpt_get_f64(r);
    if (seam_ckpt_ok(r, false) && (d != (uint64_t)self->d || n != self->n))
        seam_ckpt_fail(r, "a state of %llu nodes in %lluD, this mesh has %zu in %dD", (unsigned long long)n,
                       (unsigned long long)d, self->n, self->d);
    size_t nd = self->n * (size_t)self->d;
    seam_ckpt_get_f64s(r, x, nd);
    seam_ckpt_get_f64s(r, v, nd);
    return seam_ckpt_ok(r, true);
}

seam_status fem_load(fem *self, const void *bytes, size_t n)
{
    char err[512];
    seam_ckpt_reader *r = seam_ckpt_reader_from_bytes(bytes, n, "solid_fem state", err, sizeof err);
    if (!r) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: %s", err);
        return SEAM_ERROR;
    }
    size_t nd = self->n * (size_t)self->d;
    double *xv = SEAM_NEW_N(double, 2 * nd + 1);   /* the committed state changes only when all is read */
    int64_t steps = 0;
    double t_n = 0.0;
    bool ok = read_state(self, r, &steps, &t_n, xv, xv + nd);
    if (ok) {
        memcpy(self->x, xv, nd * sizeof *xv);
        memcpy(self->v, xv + nd, nd * sizeof *xv);
        self->steps = steps;
        self->t_n = t_n;
        self->have_solve = 0;
    } else {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: %s", seam_ckpt_error(r));
    }
    free(xv);
    seam_ckpt_reader_destroy(&r);
    return ok ? SEAM_OK : SEAM_ERROR;
}
