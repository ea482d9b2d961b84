/* The coupling layer as schemes see it: calls through the ops table, with
 * the counters and the loads' history the judge needs kept here once. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheme.h"
#include "seam/alloc.h"

seam_status seam_coupling_init(seam_coupling *c, const seam_coupling_ops *ops, void *ctx, size_t n, int dim)
{
    *c = (seam_coupling){.ops = ops, .ctx = ctx, .n = n, .dim = dim};
    c->F_store = c->F_last = seam_xcalloc(3 * (n ? n : 1), sizeof *c->F_last);
    c->F_prev = c->F_last + n;
    c->F_n = c->F_prev + n;
    return SEAM_OK;
}

void seam_coupling_fini(seam_coupling *c)
{
    free(c->F_store);
    c->F_store = c->F_last = c->F_prev = c->F_n = NULL;
}

void seam_coupling_begin(seam_coupling *c, const double *Xn, double t, double dt, long step)
{
    c->Xn = Xn;
    c->t = t;
    c->dt = dt;
    c->step = step;
    c->fluid_calls = c->solid_calls = c->judged = 0;
    c->residual = c->first_residual = 0.0;
}

void seam_coupling_accept(seam_coupling *c)
{
    memcpy(c->F_n, c->F_last, c->n * sizeof *c->F_n);
}

size_t seam_coupling_size(const seam_coupling *c) { return c->n; }
int seam_coupling_dim(const seam_coupling *c) { return c->dim; }
const double *seam_coupling_Xn(const seam_coupling *c) { return c->Xn; }
double seam_coupling_dt(const seam_coupling *c) { return c->dt; }
long seam_coupling_step_index(const seam_coupling *c) { return c->step; }
double seam_coupling_residual(const seam_coupling *c) { return c->residual; }
int seam_coupling_iterations(const seam_coupling *c) { return c->judged; }

seam_status seam_coupling_fluid(seam_coupling *c, const double *X, double *F)
{
    seam_status st = c->ops->fluid(c->ctx, c, X, F);
    c->fluid_calls++;
    if (st == SEAM_OK) {   /* F_prev <- F_last <- F by pointers; the first call of a step follows F^n */
        double *recycled = c->F_prev;
        c->F_prev = c->F_last;
        c->F_last = recycled;
        memcpy(c->F_last, F, c->n * sizeof *F);
    }
    return st;
}

seam_status seam_coupling_solid(seam_coupling *c, const double *F, double *X)
{
    seam_status st = c->ops->solid(c->ctx, c, F, X);
    c->solid_calls++;
    return st;
}

seam_verdict seam_coupling_judge(seam_coupling *c, const double *X_new, const double *X_old)
{
    c->judged++;
    seam_iterate it = {X_new, X_old, c->fluid_calls ? c->F_last : NULL,
                       c->fluid_calls > 1 ? c->F_prev : c->F_n};
    return c->ops->judge(c->ctx, c, &it);
}

void seam_coupling_warn(seam_coupling *c, const char *fmt, ...)
{
    if (!c->ops->warn)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->ops->warn(c->ctx, c, msg);
}
