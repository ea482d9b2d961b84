/* Checkpoint files: a versioned, portable container of named sections of
 * typed values, written whole under a temporary name and renamed, so a
 * killed writer never leaves a torn file.
 *
 * Layout (every integer little-endian, whatever the machine):
 *     "SEAMCKPT"            8 bytes, the magic number
 *     u32 version           SEAM_CKPT_VERSION; a reader refuses any other
 *     u64 length            of the sections that follow
 *     sections              u32 name length, name, u64 body length, body
 *     u32 crc               CRC-32 (IEEE 802.3) of everything before it
 * A body is a run of values, each a one-byte type tag then the value:
 * 'u' u64, 'i' i64 (two's complement), 'd' f64 (IEEE 754 binary64 bits),
 * 's' bytes/string (u64 length, the bytes), 'D' f64 array (u64 count,
 * values), 'I' i64 array (u64 count, values). Readers check each tag, so a
 * reader and a writer that disagree fail with a message, not wrong values.
 *
 * Errors are sticky: after the first, puts and gets do nothing (gets return
 * 0) and seam_ckpt_reader_error says what happened, where. */
#ifndef SEAM_CHECKPOINT_H
#define SEAM_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "seam/plugin.h"   /* seam_status */

#ifdef __cplusplus
extern "C" {
#endif

#define SEAM_CKPT_MAGIC "SEAMCKPT"
enum { SEAM_CKPT_VERSION = 1 };

typedef struct seam_ckpt_writer seam_ckpt_writer;
typedef struct seam_ckpt_reader seam_ckpt_reader;

/* ---- writing ---- */
seam_ckpt_writer *seam_ckpt_writer_new(void);   /* never NULL (docs/errors.md) */
void seam_ckpt_writer_destroy(seam_ckpt_writer **self_p);
/* Start a section (the previous one ends); names are unique in a file. */
void seam_ckpt_section(seam_ckpt_writer *w, const char *name);
void seam_ckpt_put_u64(seam_ckpt_writer *w, uint64_t v);
void seam_ckpt_put_i64(seam_ckpt_writer *w, int64_t v);
void seam_ckpt_put_f64(seam_ckpt_writer *w, double v);
void seam_ckpt_put_bytes(seam_ckpt_writer *w, const void *data, size_t n);
void seam_ckpt_put_str(seam_ckpt_writer *w, const char *s);   /* NULL is written as a zero-length string */
void seam_ckpt_put_f64s(seam_ckpt_writer *w, const double *v, size_t n);
void seam_ckpt_put_i64s(seam_ckpt_writer *w, const int64_t *v, size_t n);
/* Write the file: path.tmp, flushed to the disk, renamed to path (and the
 * directory flushed). SEAM_OK, or SEAM_ERROR with err naming the file and
 * the cause. The writer is spent after it: destroy it. */
seam_status seam_ckpt_writer_save(seam_ckpt_writer *w, const char *path, char *err, size_t errlen);
/* The same image in memory, for a plugin's save (plugin.h): the whole file's
 * bytes, owned by the caller (free), *n their count; NULL only when the
 * writer was saved or taken before. The writer is spent after it: destroy it. */
unsigned char *seam_ckpt_writer_take(seam_ckpt_writer *w, size_t *n);

/* ---- reading ---- */
/* Read and check a whole file: magic, version (another version is refused
 * by number), length and CRC. NULL with err on failure. */
seam_ckpt_reader *seam_ckpt_reader_open(const char *path, char *err, size_t errlen);
/* The same checks on an image in memory (a plugin's load: the bytes its save
 * made, perhaps on another host); the reader keeps a copy, and `what` names
 * the image in its messages ("solid_fem state"). */
seam_ckpt_reader *seam_ckpt_reader_from_bytes(const void *bytes, size_t n, const char *what, char *err,
                                              size_t errlen);
void seam_ckpt_reader_destroy(seam_ckpt_reader **self_p);
/* Go to the start of a section: true, or false when the file has none of
 * that name (not an error by itself: optional sections). */
bool seam_ckpt_find(seam_ckpt_reader *r, const char *name);
/* Like seam_ckpt_find, but a missing section is an error. */
bool seam_ckpt_need(seam_ckpt_reader *r, const char *name);
uint64_t seam_ckpt_get_u64(seam_ckpt_reader *r);
int64_t seam_ckpt_get_i64(seam_ckpt_reader *r);
double seam_ckpt_get_f64(seam_ckpt_reader *r);
/* Borrowed: valid while the reader lives; *n gets the length. */
const void *seam_ckpt_get_bytes(seam_ckpt_reader *r, size_t *n);
/* A string written by put_str, NUL-terminated in a copy owned by the caller
 * (free); NULL after an error. */
char *seam_ckpt_get_str(seam_ckpt_reader *r);
/* Exactly n values into v: a different count is an error. */
void seam_ckpt_get_f64s(seam_ckpt_reader *r, double *v, size_t n);
void seam_ckpt_get_i64s(seam_ckpt_reader *r, int64_t *v, size_t n);
/* The count of the array that comes next (its values not consumed). */
size_t seam_ckpt_peek_count(seam_ckpt_reader *r);
/* Record an error of the caller's own (a value out of range), sticky like
 * the reader's: "checkpoint PATH, section NAME: message". */
void seam_ckpt_fail(seam_ckpt_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether every get so far succeeded and the section's values were read to
 * its end when ended is true. */
bool seam_ckpt_ok(seam_ckpt_reader *r, bool ended);
const char *seam_ckpt_error(const seam_ckpt_reader *r);

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of n bytes, continuing from crc (0 to start). */
uint32_t seam_crc32(uint32_t crc, const void *data, size_t n);

#ifdef __cplusplus
}
#endif

#endif
