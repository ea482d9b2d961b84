/* The declared key ranges (each plugin's and the coupler's ranges.c) and the
 * docs' key tables agree: every declared key has a row in the table its
 * declaration names, whose "range" cell is the declared range as messages
 * write it (seam_range_describe), and no row shows a range nobody declared.
 * `test_key_ranges --dump` prints the declarations, one JSON object a line,
 * for tests/coupler/test_key_ranges.py. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/config.h"

#include "../../coupler/ranges.h"
#include "../../plugins/fluid_mac/ranges.h"
#include "../../plugins/fluid_sph/ranges.h"
#include "../../plugins/monolithic/ranges.h"
#include "../../plugins/solid_fem/ranges.h"
#include "../../plugins/solid_rigid/ranges.h"
#include "../../examples/plugins/ranges.h"
#include "../plugins/ranges.h"

static const struct {
    const seam_range_table *t;
    const size_t *n;
} sets[] = {
    {scene_ranges, &scene_n_ranges},           {fluid_mac_ranges, &fluid_mac_n_ranges},
    {fluid_sph_ranges, &fluid_sph_n_ranges},   {solid_fem_ranges, &solid_fem_n_ranges},
    {solid_rigid_ranges, &solid_rigid_n_ranges}, {monolithic_ranges, &monolithic_n_ranges},
    {tube_ranges, &tube_n_ranges},             {test_plugin_ranges, &test_plugin_n_ranges},
};

/* Cells of a markdown table row, trimmed, into cells (at most max); their count. */
static int split_row(char *line, char **cells, int max)
{
    int n = 0;
    char *p = line + 1;   /* past the leading '|' */
    while (n < max && *p && *p != '\n') {
        char *end = p;
        while (*end && *end != '\n' && !(*end == '|' && end[-1] != '\\'))
            end++;
        if (*end != '|')
            break;
        *end = '\0';
        while (*p == ' ')
            p++;
        char *q = end;
        while (q > p && q[-1] == ' ')
            *--q = '\0';
        cells[n++] = p;
        p = end + 1;
    }
    return n;
}

static int check_table(const seam_range_table *t, const char *root)
{
    char path[4096], line[8192];
    snprintf(path, sizeof path, "%s/%s", root, t->doc);
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("FAIL %s: cannot open\n", path);
        return 1;
    }
    int errors = 0, state = 0, range_col = -1;   /* state 0: before the anchor, 1: before the table, 2: in it */
    int *seen = calloc(t->n, sizeof *seen);
    while (fgets(line, sizeof line, f)) {
        if (state == 0 && strncmp(line, t->anchor, strlen(t->anchor)) == 0)
            state = 1;
        else if (state == 1 && strncmp(line, "| key", 5) == 0) {
            char *cells[16];
            int n = split_row(line, cells, 16);
            for (int c = 0; c < n; c++)
                if (strcmp(cells[c], "range") == 0)
                    range_col = c;
            if (range_col < 0) {
                printf("FAIL %s, table after \"%s\": no \"range\" column\n", t->doc, t->anchor);
                errors++;
                break;
            }
            state = 2;
        } else if (state == 2 && line[0] != '|')
            break;
        else if (state == 2 && strncmp(line, "|---", 4) != 0) {
            char *cells[16];
            int n = split_row(line, cells, 16);
            if (n <= range_col || cells[0][0] != '`') {
                printf("FAIL %s, table after \"%s\": row without a key or a range cell: %s", t->doc, t->anchor, line);
                errors++;
                continue;
            }
            char name[256];
            snprintf(name, sizeof name, "%s", cells[0] + 1);
            char *tick = strchr(name, '`');
            if (tick)
                *tick = '\0';
            const seam_range *r = seam_range_find(t, name);
            char want[256] = "";
            if (r) {
                seam_range_describe(r, want, sizeof want);
                seen[r - t->keys] = 1;
            }
            if (strcmp(cells[range_col], want) != 0) {
                printf("FAIL %s, table after \"%s\", key %s: the docs say \"%s\", the declaration %s%s%s\n", t->doc,
                       t->anchor, name, cells[range_col], r ? "\"" : "(none)", want, r ? "\"" : "");
                errors++;
            }
        }
    }
    fclose(f);
    if (state == 0) {
        printf("FAIL %s: no line starts with \"%s\"\n", t->doc, t->anchor);
        errors++;
    }
    for (size_t i = 0; state == 2 && i < t->n; i++)
        if (!seen[i]) {
            printf("FAIL %s, table after \"%s\": no row for the declared key %s\n", t->doc, t->anchor, t->keys[i].name);
            errors++;
        }
    free(seen);
    return errors;
}

/* s as a JSON string's content: quotes and backslashes escaped. */
static const char *json_text(const char *s, char *buf, size_t n)
{
    size_t k = 0;
    for (; *s && k + 2 < n; s++) {
        if (*s == '"' || *s == '\\')
            buf[k++] = '\\';
        buf[k++] = *s;
    }
    buf[k] = '\0';
    return buf;
}

static void dump(const seam_range_table *t)
{
    char anchor[512];
    for (size_t i = 0; i < t->n; i++) {
        const seam_range *r = &t->keys[i];
        char want[256];
        seam_range_describe(r, want, sizeof want);
        printf("{\"plugin\": %s%s%s, \"path\": \"%s\", \"name\": \"%s\", \"integer\": %s, "
               "\"lo\": %.17g, \"hi\": %.17g, "
               "\"lo_open\": %s, \"hi_open\": %s, \"each\": %s, \"range\": \"%s\", \"anchor\": \"%s\"}\n",
               t->plugin ? "\"" : "", t->plugin ? t->plugin : "null", t->plugin ? "\"" : "", t->path, r->name,
               r->integer ? "true" : "false", r->lo, r->hi, (r->ends & SEAM_CFG_LO_OPEN) ? "true" : "false",
               (r->ends & SEAM_CFG_HI_OPEN) ? "true" : "false", (r->ends & SEAM_RANGE_EACH) ? "true" : "false", want,
               json_text(t->anchor, anchor, sizeof anchor));
    }
}

int main(int argc, char **argv)
{
    const char *root = getenv("SEAM_SOURCE_ROOT");
    bool dumping = argc > 1 && strcmp(argv[1], "--dump") == 0;
    if (!root && !dumping) {
        fprintf(stderr, "SEAM_SOURCE_ROOT is not set\n");
        return 1;
    }
    int errors = 0;
    size_t keys = 0;
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++)
        for (size_t i = 0; i < *sets[s].n; i++) {
            const seam_range_table *t = &sets[s].t[i];
            keys += t->n;
            for (size_t k = 0; k < t->n; k++)   /* both ends finite and ordered: no key takes any number */
                if (!(isfinite(t->keys[k].lo) && isfinite(t->keys[k].hi) && t->keys[k].lo < t->keys[k].hi)) {
                    printf("FAIL %s: key %s: range [%g, %g] is not finite and ordered\n", t->doc, t->keys[k].name,
                           t->keys[k].lo, t->keys[k].hi);
                    errors++;
                }
            if (dumping)
                dump(t);
            else
                errors += check_table(t, root);
        }
    if (!dumping)
        printf("%zu declared keys checked against the docs: %d disagreements\n", keys, errors);
    return errors ? 1 : 0;
}
