/* The Wavefront OBJ reader (seam/mesh_io.h). */
#include "seam/mesh_io.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"

typedef struct obj_reader {
    const char *path;
    size_t line;
    seam_trimesh *m;
    size_t cap_v, cap_t;
    char *err;
    size_t errlen;
} obj_reader;

static seam_status obj_fail(obj_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static seam_status obj_fail(obj_reader *r, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errlen, "%s:%zu: %s", r->path, r->line, msg);
    return SEAM_ERROR;
}

/* "v x y z": three numbers after the keyword (a w coordinate is ignored). */
static seam_status obj_vertex(obj_reader *r, const char *p)
{
    double c[3];
    for (int k = 0; k < 3; k++) {
        char *end;
        c[k] = strtod(p, &end);
        if (end == p)
            return obj_fail(r, "a vertex needs three coordinates");
        p = end;
    }
    seam_trimesh *m = r->m;
    if (m->n_verts == r->cap_v) {
        r->cap_v = r->cap_v ? 2 * r->cap_v : 256;
        m->X = seam_xrealloc_n(m->X, 3 * r->cap_v, sizeof *m->X);
    }
    memcpy(m->X + 3 * m->n_verts++, c, sizeof c);
    return SEAM_OK;
}

static void obj_triangle(obj_reader *r, int32_t a, int32_t b, int32_t c)
{
    seam_trimesh *m = r->m;
    if (m->n_tris == r->cap_t) {
        r->cap_t = r->cap_t ? 2 * r->cap_t : 256;
        m->tris = seam_xrealloc_n(m->tris, 3 * r->cap_t, sizeof *m->tris);
    }
    int32_t *t = m->tris + 3 * m->n_tris++;
    t[0] = a;
    t[1] = b;
    t[2] = c;
}

/* "f i j k ...": the polygon as a fan of triangles from its first vertex. */
static seam_status obj_face(obj_reader *r, const char *p)
{
    size_t nv = r->m->n_verts;
    int32_t first = -1, prev = -1;
    int count = 0;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v == 0)
            return obj_fail(r, "bad vertex index \"%.*s\"", (int)strcspn(p, " \t\r\n"), p);
        long i = v > 0 ? v - 1 : (long)nv + v;   /* negative: relative to the last vertex */
        if (i < 0 || (size_t)i >= nv)
            return obj_fail(r, "face refers to missing vertex %ld (%zu defined so far)", v, nv);
        p = end + strcspn(end, " \t\r\n");   /* skip /texture/normal */
        if (count >= 2)
            obj_triangle(r, first, prev, (int32_t)i);
        if (count == 0)
            first = (int32_t)i;
        prev = (int32_t)i;
        count++;
    }
    if (count < 3)
        return obj_fail(r, "a face needs at least three vertices");
    return SEAM_OK;
}

seam_status seam_obj_read(const char *path, seam_trimesh *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open mesh file: %s", path, strerror(errno));
        return SEAM_ERROR;
    }
    obj_reader r = {.path = path, .m = m, .err = err, .errlen = errlen};
    char *line = NULL;
    size_t cap = 0;
    seam_status st = SEAM_OK;
    while (st == SEAM_OK && getline(&line, &cap, fp) > 0) {
        r.line++;
        const char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (p[0] == 'v' && isspace((unsigned char)p[1]))
            st = obj_vertex(&r, p + 1);
        else if (p[0] == 'f' && isspace((unsigned char)p[1]))
            st = obj_face(&r, p + 1);
    }
    free(line);
    fclose(fp);
    if (st == SEAM_OK && m->n_tris == 0) {
        snprintf(err, errlen, "%s: no faces in the file", path);
        st = SEAM_ERROR;
    }
    if (st != SEAM_OK)
        seam_trimesh_free(m);
    return st;
}

void seam_trimesh_free(seam_trimesh *m)
{
    free(m->X);
    free(m->tris);
    memset(m, 0, sizeof *m);
}
