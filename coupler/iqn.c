/* The secant bookkeeping of the interface quasi-Newton schemes (iqn.h). */
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "iqn.h"
#include "lanes.h"
#include "seam/alloc.h"

void iqn_read(iqn_secant *s, seam_cfg *coupling, const seam_range_table *keys)
{
    s->omega = seam_cfg_key(coupling, keys, "relaxation", 0.1, 0);
    s->filter = seam_cfg_key(coupling, keys, "filter", 1e-3, 0);
    s->reuse = seam_cfg_key_int(coupling, keys, "reuse", 0, 0);
    s->max_columns = seam_cfg_key_int(coupling, keys, "max_columns", 100, 0);
}

void iqn_free(iqn_secant *s)
{
    seam_qr_destroy(&s->VW);
    free(s->X);
    s->X = NULL;
}

bool iqn_reserve(iqn_secant *s, size_t n, size_t n_extra)
{
    if (s->X && s->n == n)
        return true;
    iqn_free(s);
    s->n = n;
    size_t m = n ? n : 1;
    /* at most n columns: alpha fits in m + 1 */
    s->VW = seam_qr_new(n, (size_t)s->max_columns < n ? (size_t)s->max_columns : n, s->filter);
    s->X = seam_xmalloc_n((5 + n_extra) * m + m + 1, sizeof *s->X);
    if (!s->VW) {
        iqn_free(s);
        return false;
    }
    s->r = s->X + m;
    s->r_old = s->r + m;
    s->Xt_old = s->r_old + m;
    s->F = s->Xt_old + m;
    s->extra = s->F + m;
    s->alpha = s->extra + n_extra * m;
    return true;
}

/* r^k = X~^k - X^k and the new columns V: r^k - r^{k-1}, W: X~^k - X~^{k-1}
 * in one pass, four lanes wide (GCC vectorizes that at -O2; restrict
 * parameters tell it the vectors are distinct). */
static void differences(size_t n, const double *restrict Xt, const double *restrict X, const double *restrict r_old,
                        double *restrict r, double *restrict dr, double *restrict dXt, double *restrict Xt_old)
{
    SEAM_LANES(j, l, n, {
        double rj = Xt[j] - X[j];
        dr[j] = rj - r_old[j];
        dXt[j] = Xt[j] - Xt_old[j];
        r[j] = rj;
        Xt_old[j] = Xt[j];
    });
}

void iqn_record(iqn_secant *s, int k, const double *Xt, long step, seam_qr *also)
{
    size_t n = s->n;
    if (k == 0) {   /* r^0 and X~^0 only */
        for (size_t i = 0; i < n; i++) {
            s->r[i] = Xt[i] - s->X[i];
            s->Xt_old[i] = Xt[i];
        }
        seam_qr_track(s->VW, s->r);
        return;
    }
    /* the new columns are formed where the QR keeps them; kept even when this iterate converges */
    double *dr, *dXt;
    seam_qr_slots(s->VW, &dr, &dXt);
    differences(n, Xt, s->X, s->r_old, s->r, dr, dXt, s->Xt_old);
    if (also)   /* first: the push below works on dr in place */
        seam_qr_push(also, dr, dXt, step, NULL);
    seam_qr_push(s->VW, dr, dXt, step, s->r);
}

void iqn_next(iqn_secant *s)
{
    double *t = s->r_old;
    s->r_old = s->r;
    s->r = t;
}

bool iqn_reject(iqn_secant *s, seam_coupling *c, long step, int k, int *rejected)
{
    if (*rejected >= IQN_MAX_REJECTED)
        return false;
    (*rejected)++;
    size_t cols = seam_qr_cols(s->VW);
    seam_qr_keep(s->VW, 1, 0);   /* none */
    seam_qr_track(s->VW, s->r_old);
    for (size_t i = 0; i < s->n; i++)   /* X^k = X~^k - r^k, then relaxation */
        s->X[i] = s->Xt_old[i] - (1.0 - s->omega) * s->r_old[i];
    seam_coupling_warn(c, "step %ld: the fluid refused iterate %d (see its message): rejected, %zu secant columns "
                       "dropped, relaxation %g from iterate %d instead", step, k + 1, cols, s->omega, k);
    return true;
}

void iqn_relax(iqn_secant *s)
{
    for (size_t i = 0; i < s->n; i++)
        s->X[i] += s->omega * s->r_old[i];
}
