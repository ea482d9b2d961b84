/* Memory allocation: seam's one out-of-memory policy.
 *
 * Allocation failure is not an error a caller can handle: seam logs one
 * line on stderr naming the size and the place, and aborts. Every
 * allocation in seam's libraries, programs and plugins goes through these
 * wrappers, so no function carries an untested "out of memory" branch and
 * no NULL from malloc reaches a dereference. Every other failure stays a
 * value (seam_status, or a bool whose false was logged): docs/errors.md.
 *
 * Counts are multiplied with an overflow check: seam_xmalloc_n(n, size)
 * aborts on n * size overflowing, as calloc refuses it. Zero-size
 * requests return a unique pointer that may be freed (never NULL). */
#ifndef SEAM_ALLOC_H
#define SEAM_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void *seam_xmalloc_at(size_t size, const char *file, int line)
    __attribute__((malloc, returns_nonnull, alloc_size(1)));
void *seam_xmalloc_n_at(size_t n, size_t size, const char *file, int line)
    __attribute__((malloc, returns_nonnull, alloc_size(1, 2)));
void *seam_xcalloc_at(size_t n, size_t size, const char *file, int line)
    __attribute__((malloc, returns_nonnull, alloc_size(1, 2)));
/* realloc that never loses the old block: on failure it aborts, so
 * `p = seam_xrealloc(p, size)` cannot leak. */
void *seam_xrealloc_at(void *ptr, size_t size, const char *file, int line)
    __attribute__((returns_nonnull, alloc_size(2)));
void *seam_xrealloc_n_at(void *ptr, size_t n, size_t size, const char *file, int line)
    __attribute__((returns_nonnull, alloc_size(2, 3)));
char *seam_xstrdup_at(const char *s, const char *file, int line)
    __attribute__((malloc, returns_nonnull));
char *seam_xstrndup_at(const char *s, size_t n, const char *file, int line)
    __attribute__((malloc, returns_nonnull));

#define seam_xmalloc(size) seam_xmalloc_at((size), __FILE__, __LINE__)
#define seam_xmalloc_n(n, size) seam_xmalloc_n_at((n), (size), __FILE__, __LINE__)
#define seam_xcalloc(n, size) seam_xcalloc_at((n), (size), __FILE__, __LINE__)
#define seam_xrealloc(ptr, size) seam_xrealloc_at((ptr), (size), __FILE__, __LINE__)
#define seam_xrealloc_n(ptr, n, size) seam_xrealloc_n_at((ptr), (n), (size), __FILE__, __LINE__)
#define seam_xstrdup(s) seam_xstrdup_at((s), __FILE__, __LINE__)
#define seam_xstrndup(s, n) seam_xstrndup_at((s), (n), __FILE__, __LINE__)

/* One object or an array of n objects of the pointer's type, zeroed:
 * `grid *g = SEAM_NEW(grid);`, `double *x = SEAM_NEW_N(double, n);` */
#define SEAM_NEW(type) ((type *)seam_xcalloc(1, sizeof(type)))
#define SEAM_NEW_N(type, n) ((type *)seam_xcalloc((n), sizeof(type)))

#ifdef __cplusplus
}
#endif

#endif
