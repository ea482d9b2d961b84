/* Meshes for solid_fem: the Gmsh v4 ASCII reader and OBJ files through core. The generators live with
 * the configuration in fem.c, which knows their keys. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/log.h"
#include "seam/mesh_io.h"
#include "fem.h"

void fem_mesh_free(fem_mesh *m)
{
    free(m->X);
    free(m->cells);
    free(m->tags);
    m->tags = NULL;
    m->X = NULL;
    m->cells = NULL;
    m->n_nodes = m->n_cells = 0;
}

/* Token reader over a text file that knows its line number. */
typedef struct reader {
    FILE *fp;
    const char *path;
    const seam_host *host;
    int line;
    char tok[256];
    int failed;
} reader;

static int next_token(reader *r)
{
    int c;
    do {
        c = fgetc(r->fp);
        if (c == '\n')
            r->line++;
    } while (c != EOF && isspace(c));
    if (c == EOF)
        return 0;
    size_t n = 0;
    while (c != EOF && !isspace(c)) {
        if (n + 1 < sizeof r->tok)
            r->tok[n++] = (char)c;
        c = fgetc(r->fp);
    }
    if (c == '\n')
        ungetc(c, r->fp);
    r->tok[n] = '\0';
    return 1;
}

static void fail(reader *r, const char *what)
{
    if (!r->failed)
        seam_logf(r->host, SEAM_LOG_ERROR, "%s:%d: %s", r->path, r->line, what);
    r->failed = 1;
}

static long read_long(reader *r, const char *what)
{
    if (r->failed)
        return 0;
    if (!next_token(r)) {
        char msg[160];
        snprintf(msg, sizeof msg, "unexpected end of file, expected %s", what);
        fail(r, msg);
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(r->tok, &end, 10);
    if (*end || errno) {
        char msg[400];
        snprintf(msg, sizeof msg, "expected %s (an integer), got \"%s\"", what, r->tok);
        fail(r, msg);
    }
    return v;
}

static double read_double(reader *r, const char *what)
{
    if (r->failed)
        return 0;
    if (!next_token(r)) {
        fail(r, "unexpected end of file in a coordinate");
        return 0;
    }
    char *end;
    double v = strtod(r->tok, &end);
    if (*end) {
        char msg[400];
        snprintf(msg, sizeof msg, "expected %s (a number), got \"%s\"", what, r->tok);
        fail(r, msg);
    }
    return v;
}

/* Skip to the line after "$Name"; 0 when absent. */
static int find_section(reader *r, const char *name)
{
    while (next_token(r))
        if (strcmp(r->tok, name) == 0)
            return 1;
    return 0;
}

/* Nodes per element of the Gmsh types we accept or knowingly skip. */
static int gmsh_nodes(long type)
{
    switch (type) {
    case 15: return 1;   /* point */
    case 1: return 2;    /* line */
    case 2: return 3;    /* triangle */
    case 4: return 4;    /* tetrahedron */
    default: return 0;
    }
}

int fem_mesh_read_msh(const char *path, int d, fem_mesh *m, const seam_host *host)
{
    memset(m, 0, sizeof *m);
    m->d = d;
    m->nodes_per_cell = d + 1;
    reader r = {fopen(path, "r"), path, host, 1, {0}, 0};
    if (!r.fp) {
        seam_logf(host, SEAM_LOG_ERROR, "%s: cannot open mesh file: %s", path, strerror(errno));
        return -1;
    }
    long *tag_to_node = NULL;
    long min_tag = 0, max_tag = -1;
    if (!find_section(&r, "$MeshFormat")) {
        fail(&r, "not a Gmsh file: no $MeshFormat section");
        goto done;
    }
    if (!next_token(&r) || strncmp(r.tok, "4", 1) != 0) {
        fail(&r, "only Gmsh format version 4 is read (re-export with -format msh4)");
        goto done;
    }
    if (read_long(&r, "file type") != 0 && !r.failed) {
        fail(&r, "binary Gmsh files are not read (re-export as ASCII)");
        goto done;
    }
    if (!find_section(&r, "$Nodes")) {
        fail(&r, "no $Nodes section");
        goto done;
    }
    long blocks = read_long(&r, "the number of node blocks");
    long n_nodes = read_long(&r, "the number of nodes");
    min_tag = read_long(&r, "the minimum node tag");
    max_tag = read_long(&r, "the maximum node tag");
    if (r.failed)
        goto done;
    if (n_nodes <= 0 || max_tag < min_tag || max_tag - min_tag > 100000000L) {
        fail(&r, "bad node counts in the $Nodes header");
        goto done;
    }
    tag_to_node = seam_xmalloc((size_t)(max_tag - min_tag + 1) * sizeof *tag_to_node);
    for (long i = 0; i <= max_tag - min_tag; i++)
        tag_to_node[i] = -1;
    m->X = seam_xmalloc((size_t)n_nodes * (size_t)d * sizeof *m->X);
    long seen = 0;
    for (long b = 0; b < blocks && !r.failed; b++) {
        read_long(&r, "the entity dimension");
        read_long(&r, "the entity tag");
        long parametric = read_long(&r, "the parametric flag");
        long count = read_long(&r, "the number of nodes in the block");
        if (parametric) {
            fail(&r, "parametric nodes are not supported");
            break;
        }
        if (count < 0 || seen + count > n_nodes) {
            fail(&r, "more nodes in the blocks than the header announced");
            break;
        }
        for (long i = 0; i < count && !r.failed; i++) {
            long tag = read_long(&r, "a node tag");
            if (tag < min_tag || tag > max_tag) {
                fail(&r, "node tag outside the announced range");
                break;
            }
            tag_to_node[tag - min_tag] = seen + i;
        }
        for (long i = 0; i < count && !r.failed; i++) {
            double c[3];
            for (int k = 0; k < 3; k++)
                c[k] = read_double(&r, "a node coordinate");
            for (int k = 0; k < d; k++)
                m->X[(size_t)(seen + i) * (size_t)d + (size_t)k] = c[k];
        }
        seen += count;
    }
    if (r.failed)
        goto done;
    m->n_nodes = (size_t)seen;
    if (!find_section(&r, "$Elements")) {
        fail(&r, "no $Elements section");
        goto done;
    }
    blocks = read_long(&r, "the number of element blocks");
    long n_elems = read_long(&r, "the number of elements");
    read_long(&r, "the minimum element tag");
    read_long(&r, "the maximum element tag");
    if (r.failed)
        goto done;
    m->cells = seam_xmalloc((size_t)(n_elems > 0 ? n_elems : 1) * (size_t)(d + 1) * sizeof *m->cells);
    m->tags = seam_xmalloc((size_t)(n_elems > 0 ? n_elems : 1) * sizeof *m->tags);
    int want = d == 2 ? 2 : 4;
    for (long b = 0; b < blocks && !r.failed; b++) {
        read_long(&r, "the entity dimension");
        read_long(&r, "the entity tag");
        long type = read_long(&r, "the element type");
        long count = read_long(&r, "the number of elements in the block");
        int nn = gmsh_nodes(type);
        if (!r.failed && nn == 0) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "unsupported element type %ld (only linear triangles (2) and tetrahedra (4))", type);
            fail(&r, msg);
            break;
        }
        for (long i = 0; i < count && !r.failed; i++) {
            long etag = read_long(&r, "an element tag");
            int32_t nodes[4];
            for (int k = 0; k < nn && !r.failed; k++) {
                long tag = read_long(&r, "a node tag");
                if (!r.failed && (tag < min_tag || tag > max_tag || tag_to_node[tag - min_tag] < 0)) {
                    char msg[200];
                    snprintf(msg, sizeof msg, "element %ld refers to missing node %ld", etag, tag);
                    fail(&r, msg);
                }
                if (!r.failed)
                    nodes[k] = (int32_t)tag_to_node[tag - min_tag];
            }
            if (!r.failed && type == want && m->n_cells < (size_t)n_elems) {
                memcpy(m->cells + m->n_cells * (size_t)(d + 1), nodes, (size_t)(d + 1) * sizeof *nodes);
                m->tags[m->n_cells] = etag;
                m->n_cells++;
            }
        }
    }
    if (!r.failed && m->n_cells == 0)
        fail(&r, d == 2 ? "no triangles in the file" : "no tetrahedra in the file");
done:
    free(tag_to_node);
    fclose(r.fp);
    if (r.failed) {
        fem_mesh_free(m);
        return -1;
    }
    return 0;
}

/* Wavefront OBJ through core's reader (seam/mesh_io.h): triangles, polygons as fans. */
int fem_mesh_read_obj(const char *path, fem_mesh *m, const seam_host *host)
{
    memset(m, 0, sizeof *m);
    seam_trimesh t;
    char err[1024];
    if (seam_obj_read(path, &t, err, sizeof err) != SEAM_OK) {
        seam_logf(host, SEAM_LOG_ERROR, "%s", err);
        return -1;
    }
    m->d = 3;
    m->nodes_per_cell = 3;
    m->n_nodes = t.n_verts;
    m->X = t.X;
    m->n_cells = t.n_tris;
    m->cells = t.tris;
    return 0;
}
