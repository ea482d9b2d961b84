/* Numeric CSV tables, stored by column so a column is one array. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/csv.h"

struct seam_csv {
    size_t rows, cols, capacity;
    char **names;
    double **columns;        /* cols arrays of capacity values */
    char ***text;            /* per column: NULL, or capacity strings (NULL where the field is a number) */
};

/* Split line in place at commas; trailing newline and spaces trimmed from each field. */
static size_t split(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        while (*p == ' ' || *p == '\t')
            p++;
        char *end = p + strlen(p);
        while (end > p && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
            *--end = '\0';
        if (n < max)
            fields[n] = p;
        n++;
        if (!comma)
            return n;
        p = comma + 1;
    }
}

static bool parse_number(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    if (end == s || *end) {
        *v = NAN;
        return false;
    }
    return true;
}

/* Keep the text of a field that is not a number (the column's text array made on first need). */
static int keep_text(seam_csv *t, size_t j, const char *field)
{
    if (!t->text[j] && !(t->text[j] = calloc(t->capacity, sizeof *t->text[j])))
        return -1;
    return (t->text[j][t->rows] = strdup(field)) ? 0 : -1;
}

static int grow(seam_csv *t)
{
    size_t cap = t->capacity ? 2 * t->capacity : 256;
    for (size_t j = 0; j < t->cols; j++) {
        double *c = realloc(t->columns[j], cap * sizeof *c);
        if (!c)
            return -1;
        t->columns[j] = c;
        if (t->text[j]) {
            char **s = realloc(t->text[j], cap * sizeof *s);
            if (!s)
                return -1;
            memset(s + t->capacity, 0, (cap - t->capacity) * sizeof *s);
            t->text[j] = s;
        }
    }
    t->capacity = cap;
    return 0;
}

seam_csv *seam_csv_read(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    seam_csv *t = calloc(1, sizeof *t);
    char *line = NULL, **fields = NULL;
    size_t cap = 0;
    const char *why = NULL;
    if (!t || getline(&line, &cap, f) < 0) {
        why = t ? "empty file (no header)" : "out of memory";
        goto fail;
    }
    size_t cols = 1;
    for (const char *c = line; *c; c++)
        cols += *c == ',';
    t->names = calloc(cols, sizeof *t->names);
    t->columns = calloc(cols, sizeof *t->columns);
    t->text = calloc(cols, sizeof *t->text);
    fields = calloc(cols, sizeof *fields);
    if (!t->names || !t->columns || !t->text || !fields) {
        why = "out of memory";
        goto fail;
    }
    t->cols = cols;
    split(line, fields, cols);
    for (size_t j = 0; j < cols; j++)
        if (!(t->names[j] = strdup(fields[j]))) {
            why = "out of memory";
            goto fail;
        }
    while (getline(&line, &cap, f) >= 0) {
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;   /* blank line */
        if (t->rows == t->capacity && grow(t) != 0) {
            why = "out of memory";
            goto fail;
        }
        size_t n = split(line, fields, cols);
        for (size_t j = 0; j < cols; j++) {
            double *v = &t->columns[j][t->rows];
            if (j < n && !parse_number(fields[j], v) && fields[j][0] && keep_text(t, j, fields[j]) != 0) {
                why = "out of memory";
                goto fail;
            }
            if (j >= n)
                *v = NAN;
        }
        t->rows++;
    }
    free(line);
    free(fields);
    fclose(f);
    return t;
fail:
    snprintf(err, errlen, "%s: %s", path, why);
    free(line);
    free(fields);
    fclose(f);
    seam_csv_destroy(&t);
    return NULL;
}

void seam_csv_destroy(seam_csv **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_csv *t = *self_p;
    for (size_t j = 0; j < t->cols; j++) {
        if (t->names)
            free(t->names[j]);
        if (t->columns)
            free(t->columns[j]);
        if (t->text && t->text[j]) {
            for (size_t i = 0; i < t->rows; i++)
                free(t->text[j][i]);
            free(t->text[j]);
        }
    }
    free(t->text);
    free(t->names);
    free(t->columns);
    free(t);
    *self_p = NULL;
}

size_t seam_csv_rows(const seam_csv *self) { return self->rows; }
size_t seam_csv_cols(const seam_csv *self) { return self->cols; }

const char *seam_csv_name(const seam_csv *self, size_t j) { return j < self->cols ? self->names[j] : NULL; }

int seam_csv_column(const seam_csv *self, const char *name)
{
    for (size_t j = 0; j < self->cols; j++)
        if (strcmp(self->names[j], name) == 0)
            return (int)j;
    return -1;
}

const double *seam_csv_values(const seam_csv *self, size_t j)
{
    static const double none[1] = {NAN};
    if (j >= self->cols)
        return NULL;
    return self->columns[j] ? self->columns[j] : none;   /* no rows: no array was allocated */
}

const char *seam_csv_text(const seam_csv *self, size_t row, size_t j)
{
    if (row >= self->rows || j >= self->cols || !self->text[j])
        return NULL;
    return self->text[j][row];
}

const double *seam_csv_named(const seam_csv *self, const char *name)
{
    int j = seam_csv_column(self, name);
    return j < 0 ? NULL : seam_csv_values(self, (size_t)j);
}
