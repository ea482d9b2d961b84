/* Weak coupling: one fluid and one solid solve per step, no iteration. */
#include <stdlib.h>

#include "scheme.h"
#include "seam/alloc.h"

typedef struct {
    size_t n;
    double *F;               /* loads, kept across steps */
} explicit_scheme;

static void *explicit_create(seam_cfg *coupling)
{
    (void)coupling;
    return SEAM_NEW(explicit_scheme);
}

static void explicit_destroy(void *self)
{
    explicit_scheme *e = self;
    if (e)
        free(e->F);
    free(e);
}

static seam_status explicit_step(void *self, seam_coupling *c, const double *X_pred, double *X_out,
                                 seam_verdict *verdict)
{
    explicit_scheme *e = self;
    size_t n = seam_coupling_size(c);
    if (e->n != n) {
        free(e->F);
        e->F = seam_xmalloc_n(n ? n : 1, sizeof *e->F);
        e->n = n;
    }
    seam_status st = seam_coupling_fluid(c, X_pred, e->F);
    if (st == SEAM_OK)
        st = seam_coupling_solid(c, e->F, X_out);
    if (st == SEAM_OK) {
        /* The residual says how far the prediction was from the solid's answer;
         * weak coupling accepts it whatever it is, unless it is not finite. */
        seam_verdict v = seam_coupling_judge(c, X_out, X_pred);
        *verdict = v == SEAM_DIVERGED ? SEAM_DIVERGED : SEAM_CONVERGED;
    }
    return st;
}

const seam_scheme_ops seam_scheme_explicit = {
    .name = "explicit",
    .summary = "weak coupling: one fluid and one solid solve per step",
    .keys = (const char *const[]){NULL},
    .create = explicit_create,
    .destroy = explicit_destroy,
    .step = explicit_step,
    .iterates = false,
};
