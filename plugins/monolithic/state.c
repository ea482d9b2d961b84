/* monolithic: the committed state, saved through core's checkpoint format
 * (seam/checkpoint.h: typed, little-endian, CRC'd). Section "monolithic"
 * holds the number of parts (the fluid and each solid), then each part's
 * own saved image, as bytes, in that order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/checkpoint.h"
#include "seam/log.h"
#include "plugin.h"

/* Part i's save or load: the fluid, then the solids. */
static seam_status part_save(mono *self, size_t i, seam_buffer *b)
{
    return i == 0 ? fluid_mac_table()->save(self->fl, b) : self->sol[i - 1].P->save(self->sol[i - 1].self, b);
}

static seam_status part_load(mono *self, size_t i, const void *bytes, size_t n)
{
    return i == 0 ? fluid_mac_table()->load(self->fl, bytes, n)
                  : self->sol[i - 1].P->load(self->sol[i - 1].self, bytes, n);
}

seam_status mono_plugin_save(void *p, seam_buffer *out)
{
    mono *self = p;
    size_t parts = self->ns + 1;
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_status st = w ? SEAM_OK : SEAM_ERROR;
    if (w) {
        seam_ckpt_section(w, "monolithic");
        seam_ckpt_put_u64(w, parts);
    }
    for (size_t i = 0; st == SEAM_OK && i < parts; i++) {
        seam_buffer b;
        st = part_save(self, i, &b);
        if (st == SEAM_OK)
            seam_ckpt_put_bytes(w, b.data, b.size);
    }
    size_t size = 0;
    unsigned char *image = st == SEAM_OK ? seam_ckpt_writer_take(w, &size) : NULL;
    seam_ckpt_writer_destroy(&w);
    if (st == SEAM_OK && !image) {
        seam_logf(self->host, SEAM_LOG_ERROR, "save: out of memory for the state of a fluid and %zu solids", self->ns);
        st = SEAM_ERROR;
    }
    if (st != SEAM_OK)
        return st;
    free(self->saved);
    self->saved = image;
    out->data = image;
    out->size = size;
    return SEAM_OK;
}

seam_status mono_plugin_load(void *p, const void *bytes, size_t n)
{
    mono *self = p;
    char err[512];
    seam_ckpt_reader *r = seam_ckpt_reader_from_bytes(bytes, n, "monolithic state", err, sizeof err);
    if (!r) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: %s", err);
        return SEAM_ERROR;
    }
    if (seam_ckpt_need(r, "monolithic") && seam_ckpt_get_u64(r) != self->ns + 1 && seam_ckpt_ok(r, false))
        seam_ckpt_fail(r, "not the state of a fluid and %zu solids", self->ns);
    seam_status st = SEAM_OK;
    for (size_t i = 0; st == SEAM_OK && i <= self->ns && seam_ckpt_ok(r, false); i++) {
        size_t len = 0;
        const void *part = seam_ckpt_get_bytes(r, &len);
        if (seam_ckpt_ok(r, false))
            st = part_load(self, i, part, len);
    }
    if (st == SEAM_OK && !seam_ckpt_ok(r, true)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: %s", seam_ckpt_error(r));
        st = SEAM_ERROR;
    }
    seam_ckpt_reader_destroy(&r);
    if (st == SEAM_OK)
        self->solved = 0;
    return st;
}
