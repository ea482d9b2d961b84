/* Numeric CSV tables, stored by column so a column is one array. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
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
static void keep_text(seam_csv *t, size_t j, const char *field)
{
    if (!t->text[j])
        t->text[j] = SEAM_NEW_N(char *, t->capacity);
    t->text[j][t->rows] = seam_xstrdup(field);
}

static void grow(seam_csv *t)
{
    size_t cap = t->capacity ? 2 * t->capacity : 256;
    for (size_t j = 0; j < t->cols; j++) {
        t->columns[j] = seam_xrealloc_n(t->columns[j], cap, sizeof *t->columns[j]);
        if (t->text[j]) {
            char **s = seam_xrealloc_n(t->text[j], cap, sizeof *s);
            memset(s + t->capacity, 0, (cap - t->capacity) * sizeof *s);
            t->text[j] = s;
        }
    }
    t->capacity = cap;
}

seam_csv *seam_csv_read(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *line = NULL;
    size_t cap = 0;
    if (getline(&line, &cap, f) < 0) {
        snprintf(err, errlen, "%s: empty file (no header)", path);
        free(line);
        fclose(f);
        return NULL;
    }
    size_t cols = 1;
    for (const char *c = line; *c; c++)
        cols += *c == ',';
    seam_csv *t = SEAM_NEW(seam_csv);
    t->names = SEAM_NEW_N(char *, cols);
    t->columns = SEAM_NEW_N(double *, cols);
    t->text = SEAM_NEW_N(char **, cols);
    char **fields = SEAM_NEW_N(char *, cols);
    t->cols = cols;
    split(line, fields, cols);
    for (size_t j = 0; j < cols; j++)
        t->names[j] = seam_xstrdup(fields[j]);
    while (getline(&line, &cap, f) >= 0) {
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;   /* blank line */
        if (t->rows == t->capacity)
            grow(t);
        size_t n = split(line, fields, cols);
        for (size_t j = 0; j < cols; j++) {
            double *v = &t->columns[j][t->rows];
            if (j < n && !parse_number(fields[j], v) && fields[j][0])
                keep_text(t, j, fields[j]);
            if (j >= n)
                *v = NAN;
        }
        t->rows++;
    }
    free(line);
    free(fields);
    fclose(f);
    return t;
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
