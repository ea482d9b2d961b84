/* seam's out-of-memory policy (seam/alloc.h): log the request and abort. */
#include "seam/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Noreturn void out_of_memory(size_t n, size_t size, const char *file, int line)
{
    if (size == 0 || n == 1)
        fprintf(stderr, "seam: out of memory: %zu bytes at %s:%d\n", n * size, file, line);
    else
        fprintf(stderr, "seam: out of memory: %zu x %zu bytes at %s:%d\n", n, size, file, line);
    abort();
}

static int overflows(size_t n, size_t size)
{
    return size != 0 && n > SIZE_MAX / size;
}

void *seam_xmalloc_at(size_t size, const char *file, int line)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        out_of_memory(1, size, file, line);
    return p;
}

void *seam_xmalloc_n_at(size_t n, size_t size, const char *file, int line)
{
    if (overflows(n, size))
        out_of_memory(n, size, file, line);
    return seam_xmalloc_at(n * size, file, line);
}

void *seam_xcalloc_at(size_t n, size_t size, const char *file, int line)
{
    if (overflows(n, size))   /* here, not in calloc: a sanitizer's calloc stops with its own report */
        out_of_memory(n, size, file, line);
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory(n, size, file, line);
    return p;
}

void *seam_xrealloc_at(void *ptr, size_t size, const char *file, int line)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        out_of_memory(1, size, file, line);
    return p;
}

void *seam_xrealloc_n_at(void *ptr, size_t n, size_t size, const char *file, int line)
{
    if (overflows(n, size))
        out_of_memory(n, size, file, line);
    return seam_xrealloc_at(ptr, n * size, file, line);
}

char *seam_xstrdup_at(const char *s, const char *file, int line)
{
    size_t n = strlen(s) + 1;
    char *p = seam_xmalloc_at(n, file, line);
    memcpy(p, s, n);
    return p;
}

char *seam_xstrndup_at(const char *s, size_t n, const char *file, int line)
{
    size_t len = strnlen(s, n);
    char *p = seam_xmalloc_at(len + 1, file, line);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}
