/* Deliberately broken plugins for the loader's refusal tests, one per
 * BROKEN_* macro: a wrong ABI version (a newer one, or version 1, older than
 * the oldest a host accepts), a NULL required function, a solid
 * without describe. (A library without the entry symbol is built from
 * no_entry.c.) */
#include <math.h>
#include <stddef.h>

#include "seam/plugin.h"

static void *b_create(const seam_plugin *p, const char *c, const seam_host *h) { (void)p; (void)c; (void)h; return NULL; }
static void b_destroy(void *s) { (void)s; }
static seam_status b_max_dt(void *s, double *dt) { (void)s; *dt = INFINITY; return SEAM_OK; }
__attribute__((unused)) static seam_status b_solve(void *s, const seam_step *st, const seam_input *in, seam_output *out)
{
    (void)s; (void)st; (void)in; (void)out;
    return SEAM_ERROR;
}
static seam_status b_commit(void *s) { (void)s; return SEAM_ERROR; }

static const seam_plugin plugin = {
#if defined(BROKEN_ABI)
    .abi = 99, .name = "broken_abi", .role = SEAM_SOLID,
#elif defined(BROKEN_ABI1)
    .abi = 1, .name = "broken_abi1", .role = SEAM_SOLID,
#elif defined(BROKEN_NULL)
    .abi = SEAM_ABI_VERSION, .name = "broken_null", .role = SEAM_SOLID,
#else
    .abi = SEAM_ABI_VERSION, .name = "broken_nodescribe", .role = SEAM_SOLID,
#endif
    .create = b_create, .destroy = b_destroy, .max_dt = b_max_dt,
#if !defined(BROKEN_NULL)
    .solve = b_solve,
#endif
    .commit = b_commit,
};

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &plugin; }
