#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <zlib.h>

#include "test_host.h"

void test_assert_close(double a, double b, double tol, const char *ea, const char *eb,
                       const char *file, int line)
{
    if (fabs(a - b) <= tol)
        return;
    print_error("%s = %.17g and %s = %.17g differ by %.3g, more than %.3g\n", ea, a, eb, b, fabs(a - b), tol);
    _fail(file, line);
}

static void th_log(void *ctx, seam_log_level level, const char *message)
{
    test_host *th = ctx;
    th->n_messages++;
    if (level >= SEAM_LOG_ERROR) {
        th->n_errors++;
        fprintf(stderr, "[%s] %s\n", th->host.name ? th->host.name : "plugin", message);
    }
    snprintf(th->last, sizeof th->last, "%s", message);
    size_t len = strlen(th->all);
    if (len + 2 < sizeof th->all)
        snprintf(th->all + len, sizeof th->all - len, "%s\n", message);
}

void test_host_init(test_host *th, const char *name, const char *config_path)
{
    memset(th, 0, sizeof *th);
    th->host.abi = SEAM_ABI_VERSION;
    th->host.name = name ? name : "test";
    th->host.config_path = config_path ? config_path : "";
    th->host.ctx = th;
    th->host.log = th_log;
}

void test_host_gravity(test_host *th, double x, double y, double z)
{
    th->gravity[0] = x;
    th->gravity[1] = y;
    th->gravity[2] = z;
    th->host.gravity = th->gravity;
}

int test_host_saw(const test_host *th, const char *needle) { return strstr(th->all, needle) != NULL; }

const char *test_source_path(const char *relative)
{
    static char buf[4096];
    const char *root = getenv("SEAM_SOURCE_ROOT");
    snprintf(buf, sizeof buf, "%s/%s", root ? root : ".", relative);
    return buf;
}

const char *test_tmpdir(const char *name)
{
    static char buf[4096];
    const char *root = getenv("SEAM_BUILD_ROOT");
    char cmd[2 * sizeof buf + 64];
    snprintf(buf, sizeof buf, "%s/tmp/%s", root ? root : ".", name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", buf, buf);
    if (system(cmd) != 0)
        return NULL;
    return buf;
}

static double *read_legacy_points(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("%s: cannot open", path);
    char word[64];
    *n = 0;
    while (fscanf(f, "%63s", word) == 1 && strcmp(word, "POINTS") != 0)
        ;
    if (fscanf(f, "%zu %63s", n, word) != 2)
        fail_msg("%s: no POINTS", path);
    double *x = malloc((*n ? *n : 1) * 3 * sizeof *x);
    for (size_t k = 0; k < 3 * *n; k++)
        if (fscanf(f, "%lf", &x[k]) != 1)
            fail_msg("%s: point %zu is cut short", path, k / 3);
    fclose(f);
    return x;
}

double *test_read_vtk_points(const char *path, size_t *n)
{
    size_t len = strlen(path);
    if (len > 4 && strcmp(path + len - 4, ".vtk") == 0)
        return read_legacy_points(path, n);
    double *x = test_read_vtk_xml(path, "Points", n);
    if (!x || *n % 3 != 0)
        fail_msg("%s: no Points of 3 components", path);
    *n /= 3;
    return x;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s: cannot open", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *b = malloc((size_t)size + 1);
    if (!b || fread(b, 1, (size_t)size, f) != (size_t)size)
        fail_msg("%s: cannot read", path);
    b[size] = '\0';
    fclose(f);
    *len = (size_t)size;
    return b;
}

/* The <DataArray ...> tag of the array, NULL when absent (searched in the XML part only). */
static const char *find_array(const char *xml, const char *name)
{
    if (strcmp(name, "Points") == 0) {
        const char *p = strstr(xml, "<Points>");
        return p ? strstr(p, "<DataArray") : NULL;
    }
    char want[256];
    snprintf(want, sizeof want, "Name=\"%s\"", name);
    for (const char *p = strstr(xml, "<DataArray"); p; p = strstr(p + 1, "<DataArray")) {
        const char *end = strchr(p, '>');
        const char *q = strstr(p, want);
        if (end && q && q < end)
            return p;
    }
    return NULL;
}

/* The value of attribute key in the tag at p, copied into out. */
static int attribute(const char *p, const char *key, char *out, size_t n)
{
    const char *end = strchr(p, '>');
    char want[64];
    snprintf(want, sizeof want, " %s=\"", key);
    const char *q = strstr(p, want);
    if (!q || q > end)
        return 0;
    q += strlen(want);
    size_t k = 0;
    while (q[k] && q[k] != '"' && k + 1 < n) {
        out[k] = q[k];
        k++;
    }
    out[k] = '\0';
    return 1;
}

int test_vtk_xml_components(const char *path, const char *name)
{
    size_t len;
    char *b = slurp(path, &len), v[64];
    char *appended = strstr(b, "<AppendedData");
    if (appended)
        *appended = '\0';
    const char *tag = find_array(b, name);
    int c = !tag ? -1 : attribute(tag, "NumberOfComponents", v, sizeof v) ? atoi(v) : 1;
    free(b);
    return c;
}

double *test_read_vtk_xml(const char *path, const char *name, size_t *n)
{
    size_t len;
    char *b = slurp(path, &len);
    if (!strstr(b, "header_type=\"UInt64\"") || !strstr(b, "compressor=\"vtkZLibDataCompressor\"") ||
        !strstr(b, "byte_order=\"LittleEndian\""))
        fail_msg("%s: not UInt64 headers, zlib, little endian", path);
    const char *marker = "<AppendedData encoding=\"raw\">";
    char *appended = strstr(b, marker);
    if (!appended)
        fail_msg("%s: no raw appended data", path);
    char *under = strchr(appended, '_');
    if (!under)
        fail_msg("%s: no _ opening the appended data", path);
    const unsigned char *base = (const unsigned char *)under + 1;
    *appended = '\0';   /* tags are looked for in the XML part only */
    const char *tag = find_array(b, name);
    if (!tag) {
        free(b);
        return NULL;
    }
    char type[32], offs[32], fmt[32];
    if (!attribute(tag, "type", type, sizeof type) || !attribute(tag, "offset", offs, sizeof offs) ||
        !attribute(tag, "format", fmt, sizeof fmt) || strcmp(fmt, "appended") != 0)
        fail_msg("%s: array %s lacks type, offset or format=\"appended\"", path, name);
    size_t width = strcmp(type, "Float64") == 0 || strcmp(type, "Int64") == 0 ? 8
                   : strcmp(type, "Float32") == 0                            ? 4
                   : strcmp(type, "UInt8") == 0                              ? 1
                                                                             : 0;
    if (!width)
        fail_msg("%s: array %s has type %s", path, name, type);
    size_t avail = len - (size_t)(base - (const unsigned char *)b);
    uint64_t off = strtoull(offs, NULL, 10), head[3];
    if (off + sizeof head > avail)
        fail_msg("%s: array %s: offset %llu past the data", path, name, (unsigned long long)off);
    memcpy(head, base + off, sizeof head);
    uint64_t nb = head[0], bs = head[1], last = head[2];
    if (bs == 0 || last >= bs || off + (3 + nb) * 8 > avail)
        fail_msg("%s: array %s: bad block header %llu %llu %llu", path, name, (unsigned long long)nb,
                 (unsigned long long)bs, (unsigned long long)last);
    uint64_t total = nb == 0 ? 0 : (nb - 1) * bs + (last ? last : bs);
    if (total % width != 0)
        fail_msg("%s: array %s: %llu bytes, not whole %s values", path, name, (unsigned long long)total, type);
    unsigned char *raw = malloc(total + 1);
    const unsigned char *block = base + off + (3 + nb) * 8;
    for (uint64_t k = 0; k < nb; k++) {
        uint64_t csize;
        memcpy(&csize, base + off + (3 + k) * 8, 8);
        if ((size_t)(block - base) + csize > avail)
            fail_msg("%s: array %s: block %llu runs past the data", path, name, (unsigned long long)k);
        uLongf want = (uLongf)(k + 1 < nb || last == 0 ? bs : last), got = want;
        if (uncompress(raw + k * bs, &got, block, (uLong)csize) != Z_OK || got != want)
            fail_msg("%s: array %s: block %llu does not inflate to %lu bytes", path, name, (unsigned long long)k,
                     (unsigned long)want);
        block += csize;
    }
    *n = (size_t)(total / width);
    double *v = malloc((*n + 1) * sizeof *v);
    for (size_t i = 0; i < *n; i++) {
        if (width == 1)
            v[i] = raw[i];
        else if (width == 4) {
            float x;
            memcpy(&x, raw + 4 * i, 4);
            v[i] = x;
        }
        else if (strcmp(type, "Int64") == 0) {
            int64_t x;
            memcpy(&x, raw + 8 * i, 8);
            v[i] = (double)x;
        } else
            memcpy(&v[i], raw + 8 * i, 8);
    }
    free(raw);
    free(b);
    return v;
}

double test_max_dt(const seam_plugin *p, void *self)
{
    double dt = NAN;
    assert_int_equal(p->max_dt(self, &dt), SEAM_OK);
    return dt;
}
