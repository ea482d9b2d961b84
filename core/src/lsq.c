/* Least squares on a column history by an updated QR factorization (BLAS only). */
#include "seam/lsq.h"
#include "seam/alloc.h"
#include "seam/checkpoint.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

/* ---- updated QR of a column history ----------------------------------- */

/* Dead directions tolerated in Qb before Qb <- Qb G: max(QR_DEAD_MIN, k).
 * Compacting costs 2 n m k and one deletion comes per pushed column in a
 * steady state, so D dead directions cost 2 n k^2 / D + 2 n D per column:
 * least at D = k. */
enum { QR_DEAD_MIN = 8 };

struct seam_qr {
    size_t n, max_cols;
    double rcond;
    size_t k, m;           /* kept columns; basis vectors in Qb */
    size_t cap;            /* capacity in columns of R, G, norm, tags (>= QR_DEAD_MIN); Qb holds 2 cap */
    double *Qb, *Qb_spare; /* n x 2 cap */
    double *G;             /* ld = 2 cap, k columns */
    double *R;             /* ld = cap, newest column first */
    double *norm;          /* ||c_j||, newest first */
    double *B;             /* paired columns, oldest first from slot b0 */
    long *tag;             /* tags, oldest first from slot b0 */
    unsigned long *id;     /* serial number of each pair, oldest first from slot b0 */
    unsigned long serial;  /* pairs pushed so far */
    unsigned long epoch;   /* times Qb was rewritten (not just appended to) */
    unsigned long filtered; /* columns the filter removed so far */
    size_t b0, cap_b;
    double *y;             /* Qb^T t for the tracked t */
    bool tracking;
    double *s, *z, *t, *u; /* scratch, 2 cap + 1 each */
    double *work;          /* scratch of seam_qr_solve_coords, cap_work values */
    size_t cap_work;
};

static size_t qr_ldg(const seam_qr *q) { return 2 * q->cap; }

seam_qr *seam_qr_new(size_t n, size_t max_cols, double rcond)
{
    seam_qr *q = SEAM_NEW(seam_qr);
    q->n = n;
    q->max_cols = max_cols ? max_cols : n;
    q->rcond = rcond;
    return q;
}

void seam_qr_destroy(seam_qr **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_qr *q = *self_p;
    free(q->Qb); free(q->Qb_spare); free(q->G); free(q->R); free(q->norm);
    free(q->B); free(q->tag); free(q->id); free(q->y); free(q->s); free(q->z);
    free(q->t); free(q->u); free(q->work);
    free(q);
    *self_p = NULL;
}

/* Room for one more column: R, G (relaid out with the new leading dimensions) and B. */
static void qr_reserve(seam_qr *q)
{
    if (q->k + 1 > q->cap) {
        size_t cap = q->cap ? 2 * q->cap : QR_DEAD_MIN, ldg_old = qr_ldg(q), ldg = 2 * cap;
        double *G = SEAM_NEW_N(double, ldg * cap), *R = SEAM_NEW_N(double, cap * cap);
        for (size_t j = 0; j < q->k; j++) {
            memcpy(G + j * ldg, q->G + j * ldg_old, q->m * sizeof *G);
            memcpy(R + j * cap, q->R + j * q->cap, q->k * sizeof *R);
        }
        free(q->G); free(q->R);
        q->G = G, q->R = R;
        q->norm = seam_xrealloc_n(q->norm, cap, sizeof *q->norm);
        q->Qb = seam_xrealloc_n(q->Qb, q->n * ldg, sizeof *q->Qb);
        q->Qb_spare = seam_xrealloc_n(q->Qb_spare, q->n * ldg, sizeof *q->Qb);
        q->y = seam_xrealloc_n(q->y, ldg + 1, sizeof *q->y);
        q->s = seam_xrealloc_n(q->s, ldg + 1, sizeof *q->s);
        q->z = seam_xrealloc_n(q->z, ldg + 1, sizeof *q->z);
        q->t = seam_xrealloc_n(q->t, ldg + 1, sizeof *q->t);
        q->u = seam_xrealloc_n(q->u, ldg + 1, sizeof *q->u);
        q->cap = cap;
    }
    if (q->b0 + q->k + 1 > q->cap_b) {
        if (q->b0 > 0) {   /* slide the window back to slot 0: O(n) per column, amortized */
            memmove(q->B, q->B + q->b0 * q->n, q->k * q->n * sizeof *q->B);
            memmove(q->tag, q->tag + q->b0, q->k * sizeof *q->tag);
            memmove(q->id, q->id + q->b0, q->k * sizeof *q->id);
            q->b0 = 0;
        }
        if (q->k + 1 > q->cap_b / 2) {   /* keep half the window free for sliding */
            q->cap_b = 2 * (q->k + 1) + 8;
            q->B = seam_xrealloc_n(q->B, q->cap_b * q->n, sizeof *q->B);
            q->tag = seam_xrealloc_n(q->tag, q->cap_b, sizeof *q->tag);
            q->id = seam_xrealloc_n(q->id, q->cap_b, sizeof *q->id);
        }
    }
}

/* One Givens rotation [c s; -s c] on x and y (length len, strides incx, incy). */
static void rotate(size_t len, double *x, size_t incx, double *y, size_t incy, double c, double s)
{
    for (size_t i = 0; i < len; i++) {
        double a = x[i * incx], b = y[i * incy];
        x[i * incx] = c * a + s * b;
        y[i * incy] = c * b - s * a;
    }
}

/* The rotation of rows (a, b) of R zeroing R[b][col]; applied to R from
 * column col on and to columns a, b of G, so that C = Qb G R still holds. */
static void qr_givens(seam_qr *q, size_t a, size_t b, size_t col, size_t ncols)
{
    double *Ra = q->R + col * q->cap + a, *Rb = q->R + col * q->cap + b;
    if (*Rb == 0.0)
        return;
    double h = hypot(*Ra, *Rb);
    double c = *Ra / h, s = *Rb / h;
    rotate(ncols - col, Ra, q->cap, Rb, q->cap, c, s);
    *Rb = 0.0;
    rotate(q->m, q->G + a * qr_ldg(q), 1, q->G + b * qr_ldg(q), 1, c, s);
}

/* Remove column j (newest-first index): R turns Hessenberg from j on and is
 * made triangular again by rotations; O(k^2 + m k), no O(n) work. */
static void qr_delete(seam_qr *q, size_t j)
{
    size_t k = q->k, p = k - 1 - j;   /* p: physical slot, oldest first */
    for (size_t c = j; c + 1 < k; c++) {
        memcpy(q->R + c * q->cap, q->R + (c + 1) * q->cap, k * sizeof *q->R);
        q->norm[c] = q->norm[c + 1];
    }
    for (size_t i = j; i + 1 < k; i++)
        qr_givens(q, i, i + 1, i, k - 1);
    q->k = k - 1;
    double *B = q->B + q->b0 * q->n;
    if (p == 0)
        q->b0++;
    else {
        memmove(B + p * q->n, B + (p + 1) * q->n, (k - 1 - p) * q->n * sizeof *B);
        memmove(q->tag + q->b0 + p, q->tag + q->b0 + p + 1, (k - 1 - p) * sizeof *q->tag);
        memmove(q->id + q->b0 + p, q->id + q->b0 + p + 1, (k - 1 - p) * sizeof *q->id);
    }
    if (q->k == 0) {   /* nothing left to span: no basis to orthogonalize against */
        q->b0 = 0;
        if (q->m > 0)
            q->m = 0, q->epoch++;
    }
}

/* Drop the dead directions: Qb <- Qb G (n x k), G <- I, the tracked coordinates follow. */
static void qr_compact(seam_qr *q)
{
    size_t n = q->n, m = q->m, k = q->k, ldg = qr_ldg(q);
    if (k > 0 && n > 0)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)k, (int)m, 1.0, q->Qb, (int)n, q->G,
                    (int)ldg, 0.0, q->Qb_spare, (int)n);
    double *t = q->Qb;
    q->Qb = q->Qb_spare, q->Qb_spare = t;
    if (q->tracking) {
        if (k > 0)
            cblas_dgemv(CblasColMajor, CblasTrans, (int)m, (int)k, 1.0, q->G, (int)ldg, q->y, 1, 0.0, q->z, 1);
        memcpy(q->y, q->z, k * sizeof *q->y);
    }
    for (size_t j = 0; j < k; j++) {
        memset(q->G + j * ldg, 0, k * sizeof *q->G);
        q->G[j * ldg + j] = 1.0;
    }
    q->m = k;
    q->epoch++;
}

/* Classical Gram-Schmidt of v against the first m columns of Q (ld ldq)
 * into coefficients s, re-orthogonalized once when the first pass kept less
 * than 1/sqrt 2 of the length (Kahan's "twice is enough"); nrm is ||v|| before.
 * Returns the remaining length, 0 when v lies in the span numerically. */
static double cgs2(size_t n, size_t m, const double *Q, size_t ldq, double *v, double *s, double *work,
                   double nrm)
{
    if (m == 0)
        return nrm;
    cblas_dgemv(CblasColMajor, CblasTrans, (int)n, (int)m, 1.0, Q, (int)ldq, v, 1, 0.0, s, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, (int)m, -1.0, Q, (int)ldq, s, 1, 1.0, v, 1);
    double rho = sqrt(cblas_ddot((int)n, v, 1, v, 1));
    if (rho > M_SQRT1_2 * nrm)
        return rho;
    cblas_dgemv(CblasColMajor, CblasTrans, (int)n, (int)m, 1.0, Q, (int)ldq, v, 1, 0.0, work, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, (int)m, -1.0, Q, (int)ldq, work, 1, 1.0, v, 1);
    cblas_daxpy((int)m, 1.0, work, 1, s, 1);
    double rho2 = sqrt(cblas_ddot((int)n, v, 1, v, 1));
    return rho2 > M_SQRT1_2 * rho ? rho2 : 0.0;
}

/* The new column's coordinates t = G^T s in span(Q) and its part d = s - G t
 * along the dead directions, re-orthogonalized like cgs2; d = 0 when it
 * lies in span(Q) numerically. Returns ||d||. */
static double qr_split(seam_qr *q, const double *s, double *t, double *d)
{
    size_t m = q->m, k = q->k, ldg = qr_ldg(q);
    if (k == 0) {
        memcpy(d, s, m * sizeof *d);
        return cblas_dnrm2((int)m, d, 1);
    }
    cblas_dgemv(CblasColMajor, CblasTrans, (int)m, (int)k, 1.0, q->G, (int)ldg, s, 1, 0.0, t, 1);
    memset(d, 0, m * sizeof *d);
    if (m == k)
        return 0.0;
    memcpy(d, s, m * sizeof *d);
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)m, (int)k, -1.0, q->G, (int)ldg, t, 1, 1.0, d, 1);
    double sn = cblas_dnrm2((int)m, s, 1), dn = cblas_dnrm2((int)m, d, 1);
    if (dn > M_SQRT1_2 * sn)
        return dn;
    double *t2 = q->z;
    cblas_dgemv(CblasColMajor, CblasTrans, (int)m, (int)k, 1.0, q->G, (int)ldg, d, 1, 0.0, t2, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)m, (int)k, -1.0, q->G, (int)ldg, t2, 1, 1.0, d, 1);
    cblas_daxpy((int)k, 1.0, t2, 1, t, 1);
    double dn2 = cblas_dnrm2((int)m, d, 1);
    if (dn2 > M_SQRT1_2 * dn)
        return dn2;
    memset(d, 0, m * sizeof *d);
    return 0.0;
}

/* Filter: newest first, a column within relative distance rcond of the span
 * of the newer kept ones leaves (|R_jj| is that distance). */
static void qr_filter(seam_qr *q)
{
    for (size_t j = 1; j < q->k;) {
        if (fabs(q->R[j * q->cap + j]) > q->rcond * q->norm[j])
            j++;
        else {
            qr_delete(q, j);
            q->filtered++;
        }
    }
}

/* Room for the next column, and the dead directions squeezed out when there are too many. */
static void qr_prepare(seam_qr *q)
{
    qr_reserve(q);
    if (q->m - q->k >= (q->k > QR_DEAD_MIN ? q->k : QR_DEAD_MIN) || (q->m == q->n && q->m > q->k))
        qr_compact(q);
}

void seam_qr_slots(seam_qr *q, double **c, double **b)
{
    qr_prepare(q);
    *c = q->Qb + q->m * q->n;
    *b = q->B + (q->b0 + q->k) * q->n;
}

int seam_qr_push(seam_qr *q, const double *c, const double *b, long tag, const double *t_new)
{
    size_t n = q->n;
    double nrm = sqrt(cblas_ddot((int)n, c, 1, c, 1));   /* not dnrm2, several times slower; Inf/NaN pass through */
    if (!(nrm > 0.0) || !isfinite(nrm)) {
        if (t_new)
            seam_qr_track(q, t_new);
        return 0;
    }
    if (q->k == q->max_cols)
        qr_delete(q, q->k - 1);
    qr_prepare(q);
    size_t m = q->m, k = q->k, ldg = qr_ldg(q), cap = q->cap;
    /* Its part outside span(Qb) becomes a new basis vector of Qb, worked on in place ... */
    double *v = q->Qb + m * n, rho = 0.0;
    if (m < n) {
        if (v != c)   /* c may already lie there (seam_qr_slots) */
            memmove(v, c, n * sizeof *v);
        rho = cgs2(n, m, q->Qb, n, v, q->s, q->z, nrm);
    } else
        cblas_dgemv(CblasColMajor, CblasTrans, (int)n, (int)m, 1.0, q->Qb, (int)n, c, 1, 0.0, q->s, 1);
    /* ... and its part inside span(Qb) splits into span(Q) and the dead directions. */
    double *t = q->t, *u = q->u;
    double dn = qr_split(q, q->s, t, u);
    if (rho > 0.0) {
        cblas_dscal((int)n, 1.0 / rho, v, 1);
        for (size_t j = 0; j < k; j++)
            q->G[j * ldg + m] = 0.0;
        u[m] = rho;
        q->m = m + 1;
    }
    double nu = hypot(dn, rho);
    double *g = q->G + k * ldg;   /* the new direction of Q: u / nu, or none (zero) */
    for (size_t i = 0; i < q->m; i++)
        g[i] = nu > 0.0 ? u[i] / nu : 0.0;
    /* Put c first: H = [t R; nu 0] (k+1 square), then rotations from the bottom up. */
    for (size_t j = k; j-- > 0;) {
        memcpy(q->R + (j + 1) * cap, q->R + j * cap, k * sizeof *q->R);
        q->R[(j + 1) * cap + k] = 0.0;
        q->norm[j + 1] = q->norm[j];
    }
    memcpy(q->R, t, k * sizeof *q->R);
    q->R[k] = nu;
    q->norm[0] = nrm;
    q->k = k + 1;
    for (size_t i = k; i > 0; i--)
        qr_givens(q, i - 1, i, 0, k + 1);
    if (q->B + (q->b0 + k) * n != b)
        memmove(q->B + (q->b0 + k) * n, b, n * sizeof *q->B);
    q->tag[q->b0 + k] = tag;
    q->id[q->b0 + k] = ++q->serial;
    /* The tracked vector moved by c: Qb^T t_new = Qb^T t_old + s, plus the new row. */
    if (t_new && q->tracking) {
        cblas_daxpy((int)m, 1.0, q->s, 1, q->y, 1);
        if (q->m > m)
            q->y[m] = cblas_ddot((int)n, q->Qb + m * n, 1, t_new, 1);
    }
    qr_filter(q);
    if (t_new && !q->tracking)
        seam_qr_track(q, t_new);
    else if (!t_new)
        q->tracking = false;
    return 1;
}

void seam_qr_track(seam_qr *q, const double *t)
{
    if (q->m > 0)
        cblas_dgemv(CblasColMajor, CblasTrans, (int)q->n, (int)q->m, 1.0, q->Qb, (int)q->n, t, 1, 0.0, q->y, 1);
    q->tracking = true;
}

void seam_qr_keep(seam_qr *q, long lo, long hi)
{
    for (size_t j = q->k; j-- > 0;) {   /* newest-first index j is physical slot k - 1 - j */
        long tg = q->tag[q->b0 + q->k - 1 - j];
        if (tg < lo || tg > hi)
            qr_delete(q, j);
    }
}

void seam_qr_remove(seam_qr *q, size_t j)
{
    if (j < q->k)
        qr_delete(q, q->k - 1 - j);
}

unsigned long seam_qr_filtered(const seam_qr *q) { return q->filtered; }

size_t seam_qr_cols(const seam_qr *q) { return q->k; }
const double *seam_qr_B(const seam_qr *q) { return q->B ? q->B + q->b0 * q->n : NULL; }

/* alpha = R_1^{-1} Q_1^T b (Akbay sec. 2.3.2) with Q_1 = Qb G, given w = Qb^T b; into physical order. */
static void qr_back_substitute(seam_qr *q, const double *w, double *alpha)
{
    size_t k = q->k;
    if (k == 0)
        return;
    cblas_dgemv(CblasColMajor, CblasTrans, (int)q->m, (int)k, 1.0, q->G, (int)qr_ldg(q), w, 1, 0.0, q->z, 1);
    cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, (int)k, q->R, (int)q->cap, q->z, 1);
    for (size_t j = 0; j < k; j++)
        alpha[k - 1 - j] = q->z[j];
}

const double *seam_qr_basis(const seam_qr *q, size_t *m)
{
    *m = q->m;
    return q->Qb;
}

unsigned long seam_qr_epoch(const seam_qr *q) { return q->epoch; }
const unsigned long *seam_qr_ids(const seam_qr *q) { return q->id ? q->id + q->b0 : NULL; }

void seam_qr_solve_coords(seam_qr *q, size_t nrhs, const double *W, size_t ldw, double *Alpha, size_t ldalpha)
{
    size_t k = q->k, m = q->m;
    if (k == 0 || nrhs == 0)
        return;
    if (k * nrhs > q->cap_work) {   /* scratch kept: the schemes solve every iteration */
        free(q->work);
        q->cap_work = 2 * k * nrhs;
        q->work = seam_xmalloc_n(q->cap_work, sizeof *q->work);
    }
    double *Z = q->work;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)k, (int)nrhs, (int)m, 1.0, q->G, (int)qr_ldg(q), W,
                (int)ldw, 0.0, Z, (int)k);
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, (int)k, (int)nrhs, 1.0, q->R,
                (int)q->cap, Z, (int)k);
    for (size_t c = 0; c < nrhs; c++)
        for (size_t j = 0; j < k; j++)
            Alpha[c * ldalpha + k - 1 - j] = Z[c * k + j];
}

void seam_qr_solve_tracked(seam_qr *q, double *alpha)
{
    qr_back_substitute(q, q->y, alpha);
}

void seam_qr_solve(seam_qr *q, const double *b, double *alpha)
{
    if (q->k == 0)
        return;
    cblas_dgemv(CblasColMajor, CblasTrans, (int)q->n, (int)q->m, 1.0, q->Qb, (int)q->n, b, 1, 0.0, q->s, 1);
    qr_back_substitute(q, q->s, alpha);
}

void seam_qr_project_tracked(seam_qr *q, double *p)
{
    if (q->k == 0) {
        memset(p, 0, q->n * sizeof *p);
        return;
    }
    /* Q Q^T t with Q = Qb G: s = G^T (Qb^T t), z = G s, p = Qb z */
    cblas_dgemv(CblasColMajor, CblasTrans, (int)q->m, (int)q->k, 1.0, q->G, (int)qr_ldg(q), q->y, 1, 0.0, q->s, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)q->m, (int)q->k, 1.0, q->G, (int)qr_ldg(q), q->s, 1, 0.0, q->z, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)q->n, (int)q->m, 1.0, q->Qb, (int)q->n, q->z, 1, 0.0, p, 1);
}

void seam_qr_explicit(const seam_qr *q, double *Q, double *Rm)
{
    size_t k = q->k;
    if (k == 0)
        return;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)q->n, (int)k, (int)q->m, 1.0, q->Qb, (int)q->n, q->G,
                (int)qr_ldg(q), 0.0, Q, (int)q->n);
    for (size_t j = 0; j < k; j++)
        for (size_t i = 0; i < k; i++)
            Rm[j * k + i] = i <= j ? q->R[j * q->cap + i] : 0.0;
}

/* ---- checkpoints ---- */

void seam_qr_save(const seam_qr *q, seam_ckpt_writer *w)
{
    size_t ldg = qr_ldg(q);
    seam_ckpt_put_u64(w, q->n);
    seam_ckpt_put_u64(w, q->max_cols);
    seam_ckpt_put_f64(w, q->rcond);
    seam_ckpt_put_u64(w, q->k);
    seam_ckpt_put_u64(w, q->m);
    seam_ckpt_put_u64(w, q->cap);
    seam_ckpt_put_u64(w, q->serial);
    seam_ckpt_put_u64(w, q->epoch);
    seam_ckpt_put_u64(w, q->tracking);
    seam_ckpt_put_u64(w, q->filtered);
    /* the arrays whole as laid out (capacities decide when Qb is compacted) */
    seam_ckpt_put_f64s(w, q->Qb, q->n * q->m);
    seam_ckpt_put_f64s(w, q->G, ldg * q->k);
    seam_ckpt_put_f64s(w, q->R, q->cap * q->k);
    seam_ckpt_put_f64s(w, q->norm, q->k);
    seam_ckpt_put_f64s(w, q->B ? q->B + q->b0 * q->n : NULL, q->n * q->k);
    seam_ckpt_put_f64s(w, q->y, q->tracking ? q->m : 0);
    int64_t *tags = seam_xmalloc_n(q->k, sizeof *tags), *ids = seam_xmalloc_n(q->k, sizeof *ids);
    for (size_t j = 0; j < q->k; j++)
        tags[j] = q->tag[q->b0 + j], ids[j] = (int64_t)q->id[q->b0 + j];
    seam_ckpt_put_i64s(w, tags, q->k);
    seam_ckpt_put_i64s(w, ids, q->k);
    free(tags);
    free(ids);
}

void seam_qr_load(seam_qr *q, seam_ckpt_reader *r)
{
    size_t n = (size_t)seam_ckpt_get_u64(r), max_cols = (size_t)seam_ckpt_get_u64(r);
    double rcond = seam_ckpt_get_f64(r);
    size_t k = (size_t)seam_ckpt_get_u64(r), m = (size_t)seam_ckpt_get_u64(r), cap = (size_t)seam_ckpt_get_u64(r);
    unsigned long serial = (unsigned long)seam_ckpt_get_u64(r), epoch = (unsigned long)seam_ckpt_get_u64(r);
    bool tracking = seam_ckpt_get_u64(r) != 0;
    unsigned long filtered = (unsigned long)seam_ckpt_get_u64(r);
    if (!seam_ckpt_ok(r, false))
        return;
    if (n != q->n || max_cols != q->max_cols || rcond != q->rcond) {
        seam_ckpt_fail(r, "a column history of %zu values, at most %zu columns, filter %g; this run has %zu, %zu, %g",
                       n, max_cols, rcond, q->n, q->max_cols, q->rcond);
        return;
    }
    if (k > cap || k > max_cols || m > 2 * cap || (cap && cap < QR_DEAD_MIN) || cap > 2 * max_cols + QR_DEAD_MIN) {
        seam_ckpt_fail(r, "an inconsistent column history (%zu columns, %zu basis vectors, capacity %zu)", k, m, cap);
        return;
    }
    /* empty and sized like the history that was saved */
    seam_qr fresh = {.n = n, .max_cols = max_cols, .rcond = rcond};
    seam_qr *old = seam_xmalloc(sizeof *old);   /* the arrays of q, freed by destroy */
    *old = *q;
    seam_qr_destroy(&old);
    *q = fresh;
    size_t ldg = 2 * cap, cap_b = 2 * (k + 1) + 8, nn = n ? n : 1;
    if (cap) {
        q->G = SEAM_NEW_N(double, ldg * cap);
        q->R = SEAM_NEW_N(double, cap * cap);
        q->norm = SEAM_NEW_N(double, cap);
        q->Qb = SEAM_NEW_N(double, nn * ldg);
        q->Qb_spare = SEAM_NEW_N(double, nn * ldg);
        q->y = SEAM_NEW_N(double, ldg + 1);
        q->s = SEAM_NEW_N(double, ldg + 1);
        q->z = SEAM_NEW_N(double, ldg + 1);
        q->t = SEAM_NEW_N(double, ldg + 1);
        q->u = SEAM_NEW_N(double, ldg + 1);
        q->B = SEAM_NEW_N(double, cap_b * nn);
        q->tag = SEAM_NEW_N(long, cap_b);
        q->id = SEAM_NEW_N(unsigned long, cap_b);
        q->cap = cap;
        q->cap_b = cap_b;
    } else if (k || m) {
        seam_ckpt_fail(r, "columns without capacity");
        return;
    }
    q->k = k, q->m = m, q->serial = serial, q->epoch = epoch, q->tracking = tracking, q->filtered = filtered;
    double dummy;
    seam_ckpt_get_f64s(r, cap ? q->Qb : &dummy, n * m);
    seam_ckpt_get_f64s(r, cap ? q->G : &dummy, ldg * k);
    seam_ckpt_get_f64s(r, cap ? q->R : &dummy, cap * k);
    seam_ckpt_get_f64s(r, cap ? q->norm : &dummy, k);
    seam_ckpt_get_f64s(r, cap ? q->B : &dummy, n * k);
    seam_ckpt_get_f64s(r, cap ? q->y : &dummy, tracking ? m : 0);
    int64_t *v = seam_xmalloc_n(2 * k, sizeof *v);
    seam_ckpt_get_i64s(r, v, k);
    seam_ckpt_get_i64s(r, v + k, k);
    for (size_t j = 0; j < k && seam_ckpt_ok(r, false); j++)
        q->tag[j] = (long)v[j], q->id[j] = (unsigned long)v[k + j];
    free(v);
}
