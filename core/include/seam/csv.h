/* Numeric CSV tables as seam writes them (stats.csv, residuals.csv,
 * regions.csv): a header line of column names, then rows of numbers. */
#ifndef SEAM_CSV_H
#define SEAM_CSV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct seam_csv seam_csv;

/* Read the whole file. A field that is not a number (empty, text) reads as
 * NaN (its text is kept: seam_csv_text); a short row is padded with NaN, extra fields are dropped. Returns NULL
 * with a message in err when the file cannot be read or has no header. */
seam_csv *seam_csv_read(const char *path, char *err, size_t errlen);
void seam_csv_destroy(seam_csv **self_p);

size_t seam_csv_rows(const seam_csv *self);
size_t seam_csv_cols(const seam_csv *self);
/* Column j's name from the header. */
const char *seam_csv_name(const seam_csv *self, size_t j);
/* The index of the column named name, or -1. */
int seam_csv_column(const seam_csv *self, const char *name);
/* Column j as a contiguous array of seam_csv_rows values (NULL when j is
 * out of range); valid while the table lives. */
const double *seam_csv_values(const seam_csv *self, size_t j);
/* The text of field (row, j) when it is not a number and not empty, else NULL. */
const char *seam_csv_text(const seam_csv *self, size_t row, size_t j);
/* seam_csv_values of the named column, NULL when there is none. */
const double *seam_csv_named(const seam_csv *self, const char *name);

#ifdef __cplusplus
}
#endif

#endif
