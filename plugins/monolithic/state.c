/* monolithic: the committed state, saved through core's checkpoint format
 * (seam/checkpoint.h: typed, little-endian, CRC'd). Section "monolithic"
 * holds the number of parts (the fluid and each solid), then each part's
 * own saved image, as bytes, in that order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
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
    seam_ckpt_section(w, "monolithic");
    seam_ckpt_put_u64(w, parts);
    seam_status st = SEAM_OK;
    for (size_t i = 0; st == SEAM_OK && i < parts; i++) {
        seam_buffer b;
        st = part_save(self, i, &b);
        if (st == SEAM_OK)
            seam_ckpt_put_bytes(w, b.data, b.size);
    }
    size_t size = 0;
    unsigned char *image = st == SEAM_OK ? seam_ckpt_writer_take(w, &size) : NULL;   /* never NULL when taken */
    seam_ckpt_writer_destroy(&w);
    if (st != SEAM_OK)
        return st;
    free(self->saved);
    self->saved = image;
    out->data = image;
    out->size = size;
    return SEAM_OK;
}

/* A copy of part i's committed state, to put back when a later part refuses
 * its image (each part's own save buffer lasts only until its next save). */
typedef struct part_copy {
    unsigned char *bytes;
    size_t size;
} part_copy;

static seam_status part_backup(mono *self, size_t i, part_copy *copy)
{
    seam_buffer b;
    seam_status st = part_save(self, i, &b);
    if (st != SEAM_OK)
        return st;
    copy->bytes = seam_xmalloc(b.size);
    if (b.size > 0)
        memcpy(copy->bytes, b.data, b.size);
    copy->size = b.size;
    return SEAM_OK;
}

/* The whole image is read and checked before any part is touched; then each
 * part loads its own, and when one refuses, the parts already loaded get
 * their committed state back, so a refused image leaves the plugin as it was. */
seam_status mono_plugin_load(void *p, const void *bytes, size_t n)
{
    mono *self = p;
    size_t parts = self->ns + 1;
    char err[512];
    seam_ckpt_reader *r = seam_ckpt_reader_from_bytes(bytes, n, "monolithic state", err, sizeof err);
    if (!r) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: %s", err);
        return SEAM_ERROR;
    }
    if (seam_ckpt_need(r, "monolithic") && seam_ckpt_get_u64(r) != parts && seam_ckpt_ok(r, false))
        seam_ckpt_fail(r, "not the state of a fluid and %zu solids", self->ns);
    seam_buffer *image = SEAM_NEW_N(seam_buffer, parts);
    part_copy *backup = SEAM_NEW_N(part_copy, parts);
    for (size_t i = 0; i < parts && seam_ckpt_ok(r, false); i++)
        image[i].data = seam_ckpt_get_bytes(r, &image[i].size);   /* borrowed from the reader */
    seam_status st = SEAM_OK;
    if (!seam_ckpt_ok(r, true)) {
        seam_logf(self->host, SEAM_LOG_ERROR, "load: %s", seam_ckpt_error(r));
        st = SEAM_ERROR;
    }
    for (size_t i = 0; st == SEAM_OK && i < parts; i++)
        st = part_backup(self, i, &backup[i]);
    size_t loaded = 0;
    for (; st == SEAM_OK && loaded < parts; loaded++)
        if ((st = part_load(self, loaded, image[loaded].data, image[loaded].size)) != SEAM_OK)
            break;
    if (st != SEAM_OK)
        for (size_t i = 0; i < loaded; i++)
            if (part_load(self, i, backup[i].bytes, backup[i].size) != SEAM_OK)
                seam_logf(self->host, SEAM_LOG_ERROR, "load: part %zu could not be put back as it was", i);
    for (size_t i = 0; i < parts; i++)
        free(backup[i].bytes);
    free(backup);
    free(image);
    seam_ckpt_reader_destroy(&r);
    if (st == SEAM_OK)
        self->solved = 0;
    return st;
}
