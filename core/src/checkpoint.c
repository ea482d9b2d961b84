/* Checkpoint files (seam/checkpoint.h). */
#define _POSIX_C_SOURCE 200809L   /* fsync */
#include "seam/checkpoint.h"

#include "seam/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* zlib's crc32, over lengths past its uInt in pieces. */
uint32_t seam_crc32(uint32_t crc, const void *data, size_t n)
{
    const Bytef *p = data;
    uLong c = crc;
    while (n > 0) {
        uInt piece = n > 1u << 30 ? 1u << 30 : (uInt)n;
        c = crc32(c, p, piece);
        p += piece;
        n -= piece;
    }
    return (uint32_t)c;
}

/* ---- writing ---- */

struct seam_ckpt_writer {
    unsigned char *buf;
    size_t len, cap;
    size_t section;          /* offset of the open section's body length, 0: none */
    bool spent;              /* sealed by save or take: nothing more can be put */
};

static const size_t HEADER = 8 + 4 + 8;

seam_ckpt_writer *seam_ckpt_writer_new(void)
{
    seam_ckpt_writer *w = SEAM_NEW(seam_ckpt_writer);
    w->cap = 4096;
    w->buf = seam_xmalloc(w->cap);
    w->len = HEADER;   /* filled in by save */
    return w;
}

void seam_ckpt_writer_destroy(seam_ckpt_writer **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->buf);
    free(*self_p);
    *self_p = NULL;
}

static unsigned char *room(seam_ckpt_writer *w, size_t n)
{
    if (w->spent)
        return NULL;
    if (w->len + n > w->cap) {
        size_t cap = w->cap;
        while (cap < w->len + n)
            cap *= 2;
        w->buf = seam_xrealloc(w->buf, cap);
        w->cap = cap;
    }
    unsigned char *p = w->buf + w->len;
    w->len += n;
    return p;
}

static void le_store(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t le_load(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint64_t f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static void put_raw(seam_ckpt_writer *w, uint64_t v, int bytes)
{
    unsigned char *p = room(w, (size_t)bytes);
    if (p)
        le_store(p, v, bytes);
}

static void end_section(seam_ckpt_writer *w)
{
    if (w->section && !w->spent)
        le_store(w->buf + w->section, w->len - w->section - 8, 8);
    w->section = 0;
}

void seam_ckpt_section(seam_ckpt_writer *w, const char *name)
{
    end_section(w);
    size_t n = strlen(name);
    put_raw(w, n, 4);
    unsigned char *p = room(w, n);
    if (p)
        memcpy(p, name, n);
    w->section = w->len;
    put_raw(w, 0, 8);
}

static void put_tagged(seam_ckpt_writer *w, char tag, uint64_t v)
{
    put_raw(w, (unsigned char)tag, 1);
    put_raw(w, v, 8);
}

void seam_ckpt_put_u64(seam_ckpt_writer *w, uint64_t v) { put_tagged(w, 'u', v); }
void seam_ckpt_put_i64(seam_ckpt_writer *w, int64_t v) { put_tagged(w, 'i', (uint64_t)v); }
void seam_ckpt_put_f64(seam_ckpt_writer *w, double v) { put_tagged(w, 'd', f64_bits(v)); }

void seam_ckpt_put_bytes(seam_ckpt_writer *w, const void *data, size_t n)
{
    put_tagged(w, 's', n);
    unsigned char *p = room(w, n);
    if (p && n)
        memcpy(p, data, n);
}

void seam_ckpt_put_str(seam_ckpt_writer *w, const char *s) { seam_ckpt_put_bytes(w, s, s ? strlen(s) : 0); }

void seam_ckpt_put_f64s(seam_ckpt_writer *w, const double *v, size_t n)
{
    put_tagged(w, 'D', n);
    unsigned char *p = room(w, 8 * n);
    for (size_t i = 0; p && i < n; i++)
        le_store(p + 8 * i, f64_bits(v[i]), 8);
}

void seam_ckpt_put_i64s(seam_ckpt_writer *w, const int64_t *v, size_t n)
{
    put_tagged(w, 'I', n);
    unsigned char *p = room(w, 8 * n);
    for (size_t i = 0; p && i < n; i++)
        le_store(p + 8 * i, (uint64_t)v[i], 8);
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k, n -= (size_t)k;
    }
    return 0;
}

/* End the last section and fill in the header and the CRC: the buffer is
 * the whole file. False when the writer was sealed before. */
static bool seal(seam_ckpt_writer *w)
{
    if (w->spent)
        return false;
    end_section(w);
    put_raw(w, 0, 4);   /* room for the CRC */
    memcpy(w->buf, SEAM_CKPT_MAGIC, 8);
    le_store(w->buf + 8, SEAM_CKPT_VERSION, 4);
    le_store(w->buf + 12, w->len - HEADER - 4, 8);
    le_store(w->buf + w->len - 4, seam_crc32(0, w->buf, w->len - 4), 4);
    w->spent = true;
    return true;
}

unsigned char *seam_ckpt_writer_take(seam_ckpt_writer *w, size_t *n)
{
    *n = 0;
    if (!seal(w))
        return NULL;
    unsigned char *bytes = w->buf;
    *n = w->len;
    w->buf = NULL;
    w->len = w->cap = 0;
    return bytes;
}

seam_status seam_ckpt_writer_save(seam_ckpt_writer *w, const char *path, char *err, size_t errlen)
{
    if (!seal(w)) {
        snprintf(err, errlen, "%s: the checkpoint writer was saved or taken already", path);
        return SEAM_ERROR;
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
        return SEAM_ERROR;
    }
    if (write_all(fd, w->buf, w->len) != 0 || fsync(fd) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return SEAM_ERROR;
    }
    close(fd);
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return SEAM_ERROR;
    }
    /* the rename itself reaches the disk with the directory */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return SEAM_OK;
}

/* ---- reading ---- */

struct seam_ckpt_reader {
    char *path;
    unsigned char *buf;
    size_t len;              /* of the sections */
    const unsigned char *sections;
    const char *name;        /* the section being read, NULL: none */
    size_t name_len;
    const unsigned char *p, *end;   /* within it */
    bool failed;
    char error[1024];
};

static void reader_fail(seam_ckpt_reader *r, const char *fmt, va_list ap)
{
    if (r->failed)
        return;
    r->failed = true;
    char msg[768];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (r->name)
        snprintf(r->error, sizeof r->error, "checkpoint %s, section \"%.*s\": %s", r->path, (int)r->name_len, r->name,
                 msg);
    else
        snprintf(r->error, sizeof r->error, "checkpoint %s: %s", r->path, msg);
}

void seam_ckpt_fail(seam_ckpt_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    reader_fail(r, fmt, ap);
    va_end(ap);
}

/* Check a whole image (header, length against n, CRC) and make a reader
 * that owns buf; what names it in messages. NULL with err (buf freed). */
static seam_ckpt_reader *reader_new(unsigned char *buf, size_t n, const char *what, char *err, size_t errlen)
{
    if (n < HEADER + 4 || memcmp(buf, SEAM_CKPT_MAGIC, 8) != 0) {
        snprintf(err, errlen, "%s: not a seam checkpoint (no \"" SEAM_CKPT_MAGIC "\" magic number)", what);
        free(buf);
        return NULL;
    }
    uint32_t version = (uint32_t)le_load(buf + 8, 4);
    if (version != SEAM_CKPT_VERSION) {
        snprintf(err, errlen, "%s: checkpoint format version %u; this seam reads version %d only", what, version,
                 SEAM_CKPT_VERSION);
        free(buf);
        return NULL;
    }
    uint64_t len = le_load(buf + 12, 8);
    if (len > n || n != HEADER + len + 4) {
        snprintf(err, errlen, "%s: %s (%zu bytes, its header says %llu)", what,
                 len > n || n < HEADER + len + 4 ? "truncated" : "longer than its header says", n,
                 (unsigned long long)(HEADER + len + 4));
        free(buf);
        return NULL;
    }
    uint32_t crc = (uint32_t)le_load(buf + HEADER + len, 4);
    if (crc != seam_crc32(0, buf, HEADER + (size_t)len)) {
        snprintf(err, errlen, "%s: damaged (CRC mismatch)", what);
        free(buf);
        return NULL;
    }
    seam_ckpt_reader *r = seam_xcalloc(1, sizeof *r);
    r->path = seam_xstrdup(what);
    r->buf = buf;
    r->len = (size_t)len;
    r->sections = buf + HEADER;
    return r;
}

seam_ckpt_reader *seam_ckpt_reader_open(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
        fclose(f);
        return NULL;
    }
    size_t n = (size_t)st.st_size;
    unsigned char *buf = seam_xmalloc(n);
    size_t got = fread(buf, 1, n, f);
    fclose(f);
    if (got != n) {
        snprintf(err, errlen, "%s: read error", path);
        free(buf);
        return NULL;
    }
    return reader_new(buf, n, path, err, errlen);
}

seam_ckpt_reader *seam_ckpt_reader_from_bytes(const void *bytes, size_t n, const char *what, char *err,
                                              size_t errlen)
{
    unsigned char *buf = seam_xmalloc(n);
    if (n)
        memcpy(buf, bytes, n);
    return reader_new(buf, n, what, err, errlen);
}

void seam_ckpt_reader_destroy(seam_ckpt_reader **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->buf);
    free((*self_p)->path);
    free(*self_p);
    *self_p = NULL;
}

bool seam_ckpt_find(seam_ckpt_reader *r, const char *name)
{
    if (r->failed)
        return false;
    size_t want = strlen(name);
    const unsigned char *p = r->sections, *end = r->sections + r->len;
    while ((size_t)(end - p) >= 12) {
        size_t nl = (size_t)le_load(p, 4);
        if ((size_t)(end - p) - 4 < nl + 8)
            break;
        uint64_t bl = le_load(p + 4 + nl, 8);
        const unsigned char *body = p + 4 + nl + 8;
        if (bl > (uint64_t)(end - body))
            break;
        if (nl == want && memcmp(p + 4, name, nl) == 0) {
            r->name = (const char *)p + 4;
            r->name_len = nl;
            r->p = body;
            r->end = body + bl;
            return true;
        }
        p = body + bl;
    }
    if (p != end)
        seam_ckpt_fail(r, "malformed section table at byte %zu", (size_t)(p - r->buf));
    return false;
}

bool seam_ckpt_need(seam_ckpt_reader *r, const char *name)
{
    if (seam_ckpt_find(r, name))
        return true;
    r->name = NULL;
    seam_ckpt_fail(r, "no section \"%s\"", name);
    return false;
}

static const char *tag_name(char tag)
{
    switch (tag) {
    case 'u': return "an unsigned integer";
    case 'i': return "an integer";
    case 'd': return "a number";
    case 's': return "a string";
    case 'D': return "an array of numbers";
    case 'I': return "an array of integers";
    }
    return "an unknown value";
}

/* The next value's header: its tag must be tag; returns its 8-byte field. */
static bool get_tagged(seam_ckpt_reader *r, char tag, uint64_t *v)
{
    *v = 0;
    if (r->failed)
        return false;
    if (!r->name) {
        seam_ckpt_fail(r, "a value read outside any section");
        return false;
    }
    if (r->end - r->p < 9) {
        seam_ckpt_fail(r, "expected %s at its end", tag_name(tag));
        return false;
    }
    if ((char)r->p[0] != tag) {
        seam_ckpt_fail(r, "expected %s, found %s", tag_name(tag), tag_name((char)r->p[0]));
        return false;
    }
    *v = le_load(r->p + 1, 8);
    r->p += 9;
    return true;
}

uint64_t seam_ckpt_get_u64(seam_ckpt_reader *r)
{
    uint64_t v;
    get_tagged(r, 'u', &v);
    return v;
}

int64_t seam_ckpt_get_i64(seam_ckpt_reader *r)
{
    uint64_t v;
    get_tagged(r, 'i', &v);
    return (int64_t)v;
}

static double bits_f64(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

double seam_ckpt_get_f64(seam_ckpt_reader *r)
{
    uint64_t v;
    return get_tagged(r, 'd', &v) ? bits_f64(v) : 0.0;
}

/* The payload of a counted value: count items of size bytes, within the section. */
static const unsigned char *get_payload(seam_ckpt_reader *r, char tag, size_t size, size_t *count)
{
    uint64_t n;
    *count = 0;
    if (!get_tagged(r, tag, &n))
        return NULL;
    if (n > (uint64_t)(r->end - r->p) / size) {
        seam_ckpt_fail(r, "%s of %llu items runs past the section's end", tag_name(tag), (unsigned long long)n);
        return NULL;
    }
    const unsigned char *p = r->p;
    r->p += n * size;
    *count = (size_t)n;
    return p;
}

const void *seam_ckpt_get_bytes(seam_ckpt_reader *r, size_t *n)
{
    const unsigned char *p = get_payload(r, 's', 1, n);
    return p ? p : (const void *)"";
}

char *seam_ckpt_get_str(seam_ckpt_reader *r)
{
    size_t n;
    const unsigned char *p = get_payload(r, 's', 1, &n);
    if (!p)
        return NULL;
    char *s = seam_xmalloc(n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

static const unsigned char *get_array(seam_ckpt_reader *r, char tag, size_t n)
{
    size_t have;
    const unsigned char *p = get_payload(r, tag, 8, &have);
    if (p && have != n) {
        seam_ckpt_fail(r, "expected %zu values, found %zu", n, have);
        return NULL;
    }
    return p;
}

void seam_ckpt_get_f64s(seam_ckpt_reader *r, double *v, size_t n)
{
    const unsigned char *p = get_array(r, 'D', n);
    for (size_t i = 0; p && i < n; i++)
        v[i] = bits_f64(le_load(p + 8 * i, 8));
}

void seam_ckpt_get_i64s(seam_ckpt_reader *r, int64_t *v, size_t n)
{
    const unsigned char *p = get_array(r, 'I', n);
    for (size_t i = 0; p && i < n; i++)
        v[i] = (int64_t)le_load(p + 8 * i, 8);
}

size_t seam_ckpt_peek_count(seam_ckpt_reader *r)
{
    if (r->failed || !r->name || r->end - r->p < 9)
        return 0;
    uint64_t n = le_load(r->p + 1, 8);
    return n > (uint64_t)(r->end - r->p) ? 0 : (size_t)n;
}

bool seam_ckpt_ok(seam_ckpt_reader *r, bool ended)
{
    if (!r->failed && ended && r->name && r->p != r->end)
        seam_ckpt_fail(r, "%zu bytes left unread at its end", (size_t)(r->end - r->p));
    return !r->failed;
}

const char *seam_ckpt_error(const seam_ckpt_reader *r) { return r->failed ? r->error : ""; }
