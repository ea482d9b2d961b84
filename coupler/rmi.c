/* The reduced model interface (Akbay sec. 2.3, Algorithm 1): reduced
 * Jacobians of both black boxes from their input/output pairs, coupled in a
 * small monolithic system (eqs. 2.5-2.7) whose solution gives the next input
 * of each solver. The Jacobians are kept as low-rank factors
 *     F_X = P R_1^{-1} Q_1^T  (from the fluid's position differences V),
 *     S_p = V' R'_1^{-1} Q'_1^T (from the solid's load differences P'),
 * and eqs. 2.6/2.7 are solved either exactly through the Woodbury identity
 * (a k x k system) or matrix-free by GMRES, never with an n x n matrix. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "ranges.h"
#include "iqn.h"
#include "rigid_dofs.h"
#include "scheme.h"
#include "seam/krylov.h"
#include "seam/lsq.h"
#include "lanes.h"
#include "seam/alloc.h"

enum { RMI_WOODBURY, RMI_GMRES };
static const char *const solver_names[] = {"woodbury", "gmres", NULL};

/* A cross product C = Qb_a^T B_b of one model's orthonormal basis with the
 * other model's paired columns (m_a x k_b, ld ldc): with both, the reduced
 * k x k system of the Woodbury identity is formed without O(n k^2) work. */
typedef struct {
    double *C;
    size_t rows, cols, ldc, capc;
    unsigned long epoch;     /* of Qb_a when the rows were computed */
    unsigned long *ids;      /* serial numbers of B_b's columns held */
} rmi_cross;

typedef struct {
    double omega;        /* relaxation of the first model-free update (Algorithm 1 line 3 uses 1) */
    double filter;       /* rcond of the QR filter */
    long reuse;          /* steps whose pairs are kept besides the current one */
    long max_columns;    /* cap on the secant columns kept (the oldest go first) */
    int solver;          /* RMI_WOODBURY or RMI_GMRES */
    bool rigid_on;       /* coupling.rigid_dofs: rigid bodies on their own coordinates when the solids tell them */
    rigid_dofs *rd;      /* this step's, NULL: every vector is the points' own */
    size_t n;            /* length of the model's vectors (reduced when rd) */
    size_t nf;           /* length of the points' vectors */
    double *full;        /* the one allocation behind the points' vectors below */
    double *Xfull, *pfull;        /* the next fluid input, the fluid's output / the next solid input */
    double *Xf_full, *pf_full;    /* the fluid's last input and output */
    double *Xs_old_full;          /* the solid's output before its last */
    double *yt, *Gt, *ys;         /* the newest call's reduced positions and loads; the solid's reduced output */
    seam_qr *lsq_f;      /* updated QR of V (position differences), paired with P (load differences) */
    seam_qr *lsq_s;      /* updated QR of P' (load differences), paired with V' (position differences) */
    rmi_cross fs, sf;    /* Qb_f^T V' and Qb_s^T P, kept up to date pair by pair */
    double *Xf, *pf, *ps, *Xs_old, *d, *g, *w;   /* anchors, increments, scratch */
    double *coef, *X_next, *p_next;               /* k <= n coefficients; the next inputs */
    double *work;                                 /* small scratch of the reduced solves, grown */
    lapack_int *ipiv;
    size_t cap_work, cap_ipiv;
    int fallbacks;                                /* this step, reported at its end */
} rmi;

/* The operator y -> Z y of one Woodbury/GMRES solve: Z = second^+ mid first^+,
 * first^+ y = argmin ||C_first alpha - y|| (the reduced Jacobian's solve). */
typedef struct {
    seam_qr *first, *second;
    const double *mid, *U;   /* n x k1 and n x k2 */
    const rmi_cross *CU;     /* Qb_first^T U */
    const rmi_cross *CM;     /* Qb_second^T mid */
    size_t n, k1, k2;
    double *M;               /* k2 x k2 + k2 scratch (Woodbury's matrix and right-hand side) */
    double *tmp;             /* scratch of lowrank_apply_Z and lowrank_ZU */
} rmi_lowrank;

/* omega_default: the first model-free update's relaxation (rmi 0.1, xpm 1 as Algorithm 1). */
static void *rmi_create_with(seam_cfg *coupling, double omega_default)
{
    rmi *r = SEAM_NEW(rmi);
    r->omega = seam_cfg_key(coupling, RMI_KEYS, "relaxation", omega_default, 0);
    r->filter = seam_cfg_key(coupling, RMI_KEYS, "filter", 1e-3, 0);
    r->reuse = seam_cfg_key_int(coupling, RMI_KEYS, "reuse", 0, 0);
    r->max_columns = seam_cfg_key_int(coupling, RMI_KEYS, "max_columns", 100, 0);
    r->solver = seam_cfg_enum(coupling, "rmi_solver", solver_names, RMI_WOODBURY, 0);
    r->rigid_on = seam_cfg_bool(coupling, "rigid_dofs", true, 0);
    return r;
}

static void *rmi_create(seam_cfg *coupling) { return rmi_create_with(coupling, 0.1); }
static void *xpm_create(seam_cfg *coupling) { return rmi_create_with(coupling, 1.0); }

static void cross_free(rmi_cross *x)
{
    free(x->C);
    free(x->ids);
    *x = (rmi_cross){0};
}

/* Bring C = Qb_a^T B_b up to date: drop the columns of pairs b no longer
 * holds, add rows for basis vectors a appended since, columns for pairs b
 * added since; all from scratch only when Qb_a was rewritten. */
static void cross_update(rmi_cross *x, seam_qr *a, seam_qr *b, size_t n)
{
    size_t m, k = seam_qr_cols(b);
    const double *Qb = seam_qr_basis(a, &m), *B = seam_qr_B(b);
    const unsigned long *ids = seam_qr_ids(b);
    if (x->epoch != seam_qr_epoch(a) || m < x->rows) {   /* a zeroed x holds nothing either way */
        x->rows = x->cols = 0;
        x->epoch = seam_qr_epoch(a);
    }
    if (m > x->ldc || k > x->capc) {   /* grow, keeping what is held */
        size_t ldc = m > x->ldc ? 2 * m + 8 : x->ldc, capc = k > x->capc ? 2 * k + 8 : x->capc;
        double *C = seam_xmalloc_n(ldc * capc, sizeof *C);
        for (size_t j = 0; j < x->cols; j++)
            memcpy(C + j * ldc, x->C + j * x->ldc, x->rows * sizeof *C);
        free(x->C);
        x->C = C, x->ldc = ldc;
        x->ids = seam_xrealloc_n(x->ids, capc, sizeof *x->ids);
        x->capc = capc;
    }
    /* Both id lists increase: keep the held columns b still has, in order. */
    size_t w = 0, jb = 0;
    for (size_t j = 0; j < x->cols; j++) {
        while (jb < k && ids[jb] < x->ids[j])
            jb++;
        if (jb < k && ids[jb] == x->ids[j]) {
            if (w != j)
                memcpy(x->C + w * x->ldc, x->C + j * x->ldc, x->rows * sizeof *x->C);
            x->ids[w++] = x->ids[j];
        }
    }
    x->cols = w;   /* b's columns: these w held ones (oldest), then the ones added since */
    for (size_t i = x->rows; i < m && w > 0; i++)   /* rows of basis vectors appended since (one a pair, as a rule) */
        cblas_dgemv(CblasColMajor, CblasTrans, (int)n, (int)w, 1.0, B, (int)n, Qb + i * n, 1, 0.0, x->C + i,
                    (int)x->ldc);
    x->rows = m;
    size_t add = k - w;
    for (size_t j = w; j < k && m > 0; j++)   /* whole columns for pairs added since */
        cblas_dgemv(CblasColMajor, CblasTrans, (int)n, (int)m, 1.0, Qb, (int)n, B + j * n, 1, 0.0, x->C + j * x->ldc,
                    1);
    for (size_t j = 0; j < add; j++)
        x->ids[w + j] = ids[w + j];
    x->cols = k;
}

static void rmi_free_vectors(rmi *r)
{
    cross_free(&r->fs);
    cross_free(&r->sf);
    seam_qr_destroy(&r->lsq_f);
    seam_qr_destroy(&r->lsq_s);
    free(r->Xf);
    r->Xf = NULL;
    free(r->work);
    free(r->ipiv);
    r->work = NULL, r->ipiv = NULL;
    r->cap_work = r->cap_ipiv = 0;
}

static void rmi_destroy(void *self)
{
    rmi *r = self;
    if (!r)
        return;
    rmi_free_vectors(r);
    free(r->full);
    free(r);
}

static bool rmi_reserve(rmi *r, size_t n)
{
    if (r->Xf && r->n == n)
        return true;
    rmi_free_vectors(r);
    r->n = n;
    size_t m = n ? n : 1;
    r->lsq_f = seam_qr_new(n, (size_t)r->max_columns < n ? (size_t)r->max_columns : n, r->filter);
    r->lsq_s = seam_qr_new(n, (size_t)r->max_columns < n ? (size_t)r->max_columns : n, r->filter);
    r->Xf = seam_xmalloc_n(13 * m + 1, sizeof *r->Xf);
    if (!r->lsq_f || !r->lsq_s) {
        rmi_free_vectors(r);
        return false;
    }
    r->pf = r->Xf + m;
    r->ps = r->pf + m;
    r->Xs_old = r->ps + m;
    r->d = r->Xs_old + m;
    r->g = r->d + m;
    r->w = r->g + m;
    r->X_next = r->w + m;
    r->p_next = r->X_next + m;
    r->yt = r->p_next + m;
    r->Gt = r->yt + m;
    r->ys = r->Gt + m;
    r->coef = r->ys + m;
    return true;
}

/* The points' vectors, nf values each. */
static void rmi_reserve_full(rmi *r, size_t nf)
{
    if (r->full && r->nf == nf)
        return;
    free(r->full);
    size_t m = nf ? nf : 1;
    r->nf = nf;
    r->full = seam_xmalloc_n(5 * m, sizeof *r->full);
    r->Xfull = r->full;
    r->pfull = r->Xfull + m;
    r->Xf_full = r->pfull + m;
    r->pf_full = r->Xf_full + m;
    r->Xs_old_full = r->pf_full + m;
}

/* Between the points' vectors and the model's: the log and exp maps of each
 * rigid body (rigid_dofs.h), copies when no body is on its own coordinates. */
static void to_y(const rmi *r, const double *X, double *y)
{
    if (r->rd)
        rigid_dofs_reduce_X(r->rd, X, y);
    else
        memcpy(y, X, r->n * sizeof *y);
}

static void from_y(const rmi *r, const double *y, double *X)
{
    if (r->rd)
        rigid_dofs_expand_X(r->rd, y, X);
    else
        memcpy(X, y, r->n * sizeof *X);
}

/* loads p acting on the points at X */
static void to_G(const rmi *r, const double *X, const double *p, double *G)
{
    if (r->rd)
        rigid_dofs_reduce_F(r->rd, X, p, G);
    else
        memcpy(G, p, r->n * sizeof *G);
}

/* Scratch for one reduced solve with k1, k2 columns and bases of m1, m2
 * vectors, kept across iterations so that no solve allocates. */
static void rmi_lowrank_scratch(rmi *r, rmi_lowrank *L)
{
    size_t m1 = L->CU->rows, m2 = L->CM->rows, k1 = L->k1, k2 = L->k2;
    size_t apply = m1 + m2 + k1 + 1, zu = k1 * k2 + m2 * k2 + 1;
    size_t need = k2 * k2 + k2 + (apply > zu ? apply : zu);
    if (need > r->cap_work) {
        free(r->work);
        r->cap_work = 2 * need;
        r->work = seam_xmalloc_n(r->cap_work, sizeof *r->work);
    }
    if (k2 > r->cap_ipiv) {
        free(r->ipiv);
        r->cap_ipiv = 2 * k2;
        r->ipiv = seam_xmalloc_n(r->cap_ipiv, sizeof *r->ipiv);
    }
    L->M = r->work;
    L->tmp = r->work + k2 * k2 + k2;
}

/* z (k2) = Z x = second^+ (mid (first^+ x)) for one n-vector x: one product
 * with Qb_first, then mid's coordinates in Qb_second come from CM. */
static void lowrank_apply_Z(const rmi_lowrank *L, const double *x, double *z)
{
    size_t m1, m2 = L->CM->rows;
    const double *Q1 = seam_qr_basis(L->first, &m1);
    double *c = L->tmp, *cm = c + m1, *alpha = cm + m2;
    cblas_dgemv(CblasColMajor, CblasTrans, (int)L->n, (int)m1, 1.0, Q1, (int)L->n, x, 1, 0.0, c, 1);
    seam_qr_solve_coords(L->first, 1, c, m1, alpha, L->k1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)m2, (int)L->k1, 1.0, L->CM->C, (int)L->CM->ldc, alpha, 1, 0.0, cm,
                1);
    seam_qr_solve_coords(L->second, 1, cm, m2, z, L->k2);
}

/* ZU (k2 x k2) = second^+ mid first^+ U from the cross products alone: O(m k^2). */
static void lowrank_ZU(const rmi_lowrank *L, double *ZU)
{
    size_t k1 = L->k1, k2 = L->k2, m2 = L->CM->rows;
    double *T1 = L->tmp, *W2 = T1 + k1 * k2;
    seam_qr_solve_coords(L->first, k2, L->CU->C, L->CU->ldc, T1, k1);                 /* first^+ U */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m2, (int)k2, (int)k1, 1.0, L->CM->C,
                (int)L->CM->ldc, T1, (int)k1, 0.0, W2, (int)m2);                       /* Qb_second^T mid T1 */
    seam_qr_solve_coords(L->second, k2, W2, m2, ZU, k2);
}

/* y = (I - U Z) x, the matrix-free operator of eq. 2.6 / 2.7 for GMRES. */
static void lowrank_apply(void *ctx, const double *x, double *y)
{
    const rmi_lowrank *L = ctx;
    double *z = L->M;   /* Woodbury's matrix is not used on the GMRES path */
    lowrank_apply_Z(L, x, z);
    memcpy(y, x, L->n * sizeof *y);
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)L->n, (int)L->k2, -1.0, L->U, (int)L->n, z, 1, 1.0, y, 1);
}

/* x = (I - U Z)^{-1} g = g + U (I_k - Z U)^{-1} Z g (Woodbury). Returns 0, or -1
 * when the reduced system is singular (x = g then). */
static int lowrank_solve_woodbury(const rmi_lowrank *L, const double *g, double *x, lapack_int *ipiv)
{
    size_t k = L->k2;
    memcpy(x, g, L->n * sizeof *x);
    double *M = L->M, *y = M + k * k;
    lowrank_ZU(L, M);
    for (size_t i = 0; i < k * k; i++)
        M[i] = -M[i];
    for (size_t i = 0; i < k; i++)
        M[i * k + i] += 1.0;
    lowrank_apply_Z(L, g, y);
    lapack_int info = LAPACKE_dgesv(LAPACK_COL_MAJOR, (lapack_int)k, 1, M, (lapack_int)k, ipiv, y, (lapack_int)k);
    if (info == 0)
        cblas_dgemv(CblasColMajor, CblasNoTrans, (int)L->n, (int)k, 1.0, L->U, (int)L->n, y, 1, 1.0, x, 1);
    return info == 0 ? 0 : -1;
}

/* The same by GMRES on the n-vector operator; it ends in at most rank + 1 iterations. */
static int lowrank_solve_gmres(rmi_lowrank *L, const double *g, double *x)
{
    seam_linop A = {L->n, lowrank_apply, L};
    seam_krylov_opts o = {.tol = 1e-13, .abs_tol = 0.0, .max_iter = (int)(L->k2 + 10), .restart = (int)(L->k2 + 10)};
    seam_krylov_stats s;
    memcpy(x, g, L->n * sizeof *x);
    int rc = seam_gmres(&A, NULL, g, x, &o, &s);
    if (rc != 0 && !(s.residual <= 1e-10 * seam_norm2(L->n, g)))
        return -1;
    return 0;
}

static int rmi_lowrank_solve(rmi *r, rmi_lowrank *L, const double *g, double *x)
{
    if (L->k2 == 0 || L->k1 == 0) {
        memcpy(x, g, L->n * sizeof *x);
        return 0;
    }
    rmi_lowrank_scratch(r, L);
    int rc = r->solver == RMI_GMRES ? lowrank_solve_gmres(L, g, x) : lowrank_solve_woodbury(L, g, x, r->ipiv);
    if (rc != 0) {
        memcpy(x, g, L->n * sizeof *x);   /* singular reduced model: fall back to the plain update */
        r->fallbacks++;
    }
    return rc;
}

/* F_X y = P R_1^{-1} Q_1^T y, into out (n). */
static void rmi_apply_FX(rmi *r, const double *y, double *out)
{
    size_t k = seam_qr_cols(r->lsq_f);
    double *alpha = r->coef;
    seam_qr_solve(r->lsq_f, y, alpha);
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)r->n, (int)k, 1.0, seam_qr_B(r->lsq_f), (int)r->n, alpha, 1,
                0.0, out, 1);
}

/* S_p y = V' R'_1^{-1} Q'_1^T y, added to out (n). */
static void rmi_add_Sp(rmi *r, const double *y, double *out)
{
    size_t k = seam_qr_cols(r->lsq_s);
    double *beta = r->coef;
    seam_qr_solve(r->lsq_s, y, beta);
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)r->n, (int)k, 1.0, seam_qr_B(r->lsq_s), (int)r->n, beta, 1,
                1.0, out, 1);
}

/* Vector helpers four lanes wide with restrict parameters (GCC vectorizes
 * them at -O2): out = a - b; out += a - b; out = a + b; d = x - x_old, x_old = x. */
static void vsub(size_t n, const double *restrict a, const double *restrict b, double *restrict out)
{
    SEAM_LANES(j, l, n, out[j] = a[j] - b[j];);
}

static void vadd_sub(size_t n, const double *restrict a, const double *restrict b, double *restrict out)
{
    SEAM_LANES(j, l, n, out[j] += a[j] - b[j];);
}

static void vadd(size_t n, const double *restrict a, const double *restrict b, double *restrict out)
{
    SEAM_LANES(j, l, n, out[j] = a[j] + b[j];);
}

static void diff_keep(size_t n, const double *restrict x, double *restrict x_old, double *restrict d)
{
    SEAM_LANES(j, l, n, d[j] = x[j] - x_old[j]; x_old[j] = x[j];);
}

/* Eq. 2.6 for the increment d = X^ - X_k^f:
 * (I - S_p F_X) d = (X_k^s - X_k^f) + S_p (p_k^f - p_k^s). */
static void rmi_solve_X(rmi *r, const double *Xs, double *X_next)
{
    size_t n = r->n;
    vsub(n, Xs, r->Xf, r->g);
    vsub(n, r->pf, r->ps, r->w);
    rmi_add_Sp(r, r->w, r->g);
    cross_update(&r->fs, r->lsq_f, r->lsq_s, n);
    cross_update(&r->sf, r->lsq_s, r->lsq_f, n);
    rmi_lowrank L = {r->lsq_f, r->lsq_s, seam_qr_B(r->lsq_f), seam_qr_B(r->lsq_s), &r->fs, &r->sf, n,
                     seam_qr_cols(r->lsq_f), seam_qr_cols(r->lsq_s), NULL, NULL};
    rmi_lowrank_solve(r, &L, r->g, r->d);
    vadd(n, r->Xf, r->d, X_next);
}

/* Eq. 2.7 for the increment e = p^ - p_k^s:
 * (I - F_X S_p) e = (p_k^f - p_k^s) + F_X (X_k^s - X_k^f). */
static void rmi_solve_p(rmi *r, const double *Xs, double *p_next)
{
    size_t n = r->n;
    vsub(n, Xs, r->Xf, r->w);
    rmi_apply_FX(r, r->w, r->g);
    vadd_sub(n, r->pf, r->ps, r->g);
    cross_update(&r->fs, r->lsq_f, r->lsq_s, n);
    cross_update(&r->sf, r->lsq_s, r->lsq_f, n);
    rmi_lowrank L = {r->lsq_s, r->lsq_f, seam_qr_B(r->lsq_s), seam_qr_B(r->lsq_f), &r->sf, &r->fs, n,
                     seam_qr_cols(r->lsq_s), seam_qr_cols(r->lsq_f), NULL, NULL};
    rmi_lowrank_solve(r, &L, r->g, r->d);
    vadd(n, r->ps, r->d, p_next);
}

/* Call the fluid at X and record the pair difference (Algorithm 1 lines 2, 4, 12). */
static seam_status rmi_call_fluid(rmi *r, seam_coupling *c, const double *X_pts, double *p_pts, bool first,
                                  long step)
{
    seam_status st = seam_coupling_fluid(c, X_pts, p_pts);
    if (st != SEAM_OK)
        return st;
    memcpy(r->Xf_full, X_pts, r->nf * sizeof *r->Xf_full);
    memcpy(r->pf_full, p_pts, r->nf * sizeof *r->pf_full);
    const double *X = r->yt, *p = r->Gt;
    to_y(r, X_pts, r->yt);
    to_G(r, X_pts, p_pts, r->Gt);   /* the torque with the arms where the fluid had the points */
    if (first) {
        memcpy(r->Xf, X, r->n * sizeof *r->Xf);
        memcpy(r->pf, p, r->n * sizeof *r->pf);
        return SEAM_OK;
    }
    double *dX, *dp;   /* formed where the QR keeps them */
    seam_qr_slots(r->lsq_f, &dX, &dp);
    diff_keep(r->n, X, r->Xf, dX);
    diff_keep(r->n, p, r->pf, dp);
    seam_qr_push(r->lsq_f, dX, dp, step, NULL);   /* updates F_X's QR: O(n k) */
    return SEAM_OK;
}

/* Call the solid at p into Xs and record the pair difference (lines 3, 5, 15). */
static seam_status rmi_call_solid(rmi *r, seam_coupling *c, const double *p_pts, double *Xs_pts, bool first,
                                  long step)
{
    if (!first) {
        memcpy(r->Xs_old_full, Xs_pts, r->nf * sizeof *Xs_pts);
        memcpy(r->Xs_old, r->ys, r->n * sizeof *r->ys);
    }
    seam_status st = seam_coupling_solid(c, p_pts, Xs_pts);
    if (st != SEAM_OK)
        return st;
    const double *p = r->Gt, *Xs = r->ys;
    to_y(r, Xs_pts, r->ys);
    to_G(r, Xs_pts, p_pts, r->Gt);   /* the torque with the arms where the solid ends (its own, as it sums them) */
    if (first) {
        memcpy(r->ps, p, r->n * sizeof *r->ps);
        return SEAM_OK;
    }
    double *dp, *dX;
    seam_qr_slots(r->lsq_s, &dp, &dX);
    diff_keep(r->n, p, r->ps, dp);
    vsub(r->n, Xs, r->Xs_old, dX);
    seam_qr_push(r->lsq_s, dp, dX, step, NULL);   /* updates S_p's QR */
    return SEAM_OK;
}

/* The verdict on the solid's output X_out. seam counts the residual
 * against the positions the fluid was handed (X^f: at the first iteration
 * the prediction, so a good prediction ends the step after one call of
 * each solver); with coupling.count "thesis", between successive solid
 * outputs, as Algorithm 1 does, so no step ends before its second solid
 * output (the first is judged against X^f, for the record only). */
static seam_verdict rmi_judge(rmi *r, seam_coupling *c, const double *X_out, bool first)
{
    if (!c->count_thesis)
        return seam_coupling_judge(c, X_out, r->Xf_full);
    seam_verdict v = seam_coupling_judge(c, X_out, first ? r->Xf_full : r->Xs_old_full);
    return first && v == SEAM_CONVERGED ? SEAM_ITERATE : v;
}

/* The model-free update X = X_k^f + w (X_k^s - X_k^f) (Algorithm 1 line 3 with w = 1). */
static void rmi_relax(const rmi *r, double *X)
{
    for (size_t i = 0; i < r->n; i++)
        X[i] = r->Xf[i] + r->omega * (r->ys[i] - r->Xf[i]);
}

static seam_status rmi_step(void *self, seam_coupling *c, const double *X_pred, double *X_out, seam_verdict *verdict)
{
    rmi *r = self;
    size_t nf = seam_coupling_size(c);
    r->rd = r->rigid_on ? c->rigid : NULL;
    size_t n = r->rd ? rigid_dofs_reduced(r->rd) : nf;
    if (!rmi_reserve(r, n)) {
        seam_coupling_warn(c, "out of memory for %zu interface values", nf);
        return SEAM_ERROR;
    }
    rmi_reserve_full(r, nf);
    if (r->rd && !rigid_dofs_begin(r->rd, seam_coupling_Xn(c))) {
        seam_coupling_warn(c, "the committed points of a rigid body fix no pose");
        return SEAM_ERROR;
    }
    long step = seam_coupling_step_index(c);
    seam_qr_keep(r->lsq_f, step - r->reuse, step - 1);
    seam_qr_keep(r->lsq_s, step - r->reuse, step - 1);
    double *X = r->X_next, *p = r->p_next;   /* next fluid input, next solid input (the model's) */
    double *Xp = r->Xfull, *pp = r->pfull;   /* the same on the points */
    const double *X_first = X_pred;
    if (r->rd) {   /* the prediction moved as each body: a rigid motion of its points */
        to_y(r, X_pred, X);
        from_y(r, X, Xp);
        X_first = Xp;
    }
    seam_status st = rmi_call_fluid(r, c, X_first, pp, true, step);           /* line 2 */
    if (st == SEAM_OK)
        st = rmi_call_solid(r, c, pp, X_out, true, step);                      /* line 3 */
    if (st == SEAM_OK)
        *verdict = rmi_judge(r, c, X_out, true);
    int rejected = 0;
    while (st == SEAM_OK && *verdict == SEAM_ITERATE) {
        /* Eq. 2.6 once the fluid has a pair. The solid gets one with every change of its loads, so it
         * has none only when they have not changed: then its answer does not move either, S_p = 0 says
         * so, and eq. 2.6 hands the fluid X_k^s (relaxing by w instead would only creep towards it). */
        bool modelled = seam_qr_cols(r->lsq_f) > 0;
        if (modelled)
            rmi_solve_X(r, r->ys, X);                                          /* line 11: eq. 2.6 */
        else
            rmi_relax(r, X);                                                   /* line 3: X_2^f = X_1^s */
        from_y(r, X, Xp);   /* on a rigid body: the exp map, an exact rigid motion */
        st = rmi_call_fluid(r, c, Xp, pp, false, step);                        /* line 12 */
        if (st == SEAM_UNSTABLE && modelled && rejected < IQN_MAX_REJECTED) {
            /* the fluid refused the model's positions (no shape of the solid): as iqn_reject does,
             * the pairs that made them go and the step goes on from the model-free update */
            rejected++;
            size_t cols = seam_qr_cols(r->lsq_f) + seam_qr_cols(r->lsq_s);
            seam_qr_keep(r->lsq_f, 1, 0);   /* none */
            seam_qr_keep(r->lsq_s, 1, 0);
            seam_coupling_warn(c, "step %ld: the fluid refused iterate %d (see its message): rejected, %zu pairs "
                               "dropped, relaxation %g from the last iterate instead", step,
                               seam_coupling_iterations(c) + 1, cols, r->omega);
            rmi_relax(r, X);
            from_y(r, X, Xp);
            st = rmi_call_fluid(r, c, Xp, pp, false, step);
        }
        if (st != SEAM_OK)
            break;
        /* line 13: the reduced Jacobians were updated by the pushes in rmi_call_fluid/solid */
        if (seam_qr_cols(r->lsq_s)) {
            rmi_solve_p(r, r->ys, p);                                          /* line 14: eq. 2.7 */
            if (r->rd)   /* the fluid's loads with the wrench the model asks for on each body */
                rigid_dofs_lift_F(r->rd, r->Xf_full, p, r->pf_full, pp);
            else
                memcpy(pp, p, n * sizeof *pp);
        }
        st = rmi_call_solid(r, c, pp, X_out, false, step);                     /* line 15 */
        if (st != SEAM_OK)
            break;
        *verdict = rmi_judge(r, c, X_out, false);                              /* line 16 */
    }
    if (r->fallbacks)
        seam_coupling_warn(c, "the reduced system was singular %d times; those updates fell back to plain "
                              "Gauss-Seidel", r->fallbacks);
    r->fallbacks = 0;
    return st;
}

/* columns: the fluid model's pairs (the solid's have the same count or one less) */
static void rmi_report(void *self, seam_scheme_report *out)
{
    rmi *r = self;
    *out = (seam_scheme_report){0};
    if (r->lsq_f && r->lsq_s) {
        out->columns = (long)seam_qr_cols(r->lsq_f);
        out->filtered = seam_qr_filtered(r->lsq_f) + seam_qr_filtered(r->lsq_s);
    }
}

/* ---- checkpoints: the pairs kept for reuse and their cross products ---- */

static void cross_save(const rmi_cross *x, seam_ckpt_writer *w)
{
    seam_ckpt_put_u64(w, x->rows);
    seam_ckpt_put_u64(w, x->cols);
    seam_ckpt_put_u64(w, x->epoch);
    int64_t *ids = seam_xmalloc_n(x->cols ? x->cols : 1, sizeof *ids);
    size_t size = x->rows * x->cols;
    double *C = seam_xmalloc_n(size ? size : 1, sizeof *C);
    for (size_t j = 0; j < x->cols; j++) {
        ids[j] = (int64_t)x->ids[j];
        memcpy(C + j * x->rows, x->C + j * x->ldc, x->rows * sizeof *C);
    }
    seam_ckpt_put_i64s(w, ids, x->cols);
    seam_ckpt_put_f64s(w, C, x->rows * x->cols);
    free(ids);
    free(C);
}

static void cross_load(rmi_cross *x, seam_ckpt_reader *r)
{
    cross_free(x);
    size_t rows = (size_t)seam_ckpt_get_u64(r), cols = (size_t)seam_ckpt_get_u64(r);
    unsigned long epoch = (unsigned long)seam_ckpt_get_u64(r);
    if (!seam_ckpt_ok(r, false))
        return;
    if (rows > 100000 || cols > 100000) {
        seam_ckpt_fail(r, "implausible cross product of %zu x %zu", rows, cols);
        return;
    }
    size_t ldc = 2 * rows + 8, capc = 2 * cols + 8;
    int64_t *ids = seam_xmalloc_n(capc, sizeof *ids);
    x->C = seam_xcalloc(ldc * capc, sizeof *x->C);
    x->ids = seam_xmalloc_n(capc, sizeof *x->ids);
    size_t size = rows * cols;
    double *C = seam_xmalloc_n(size ? size : 1, sizeof *C);
    x->ldc = ldc, x->capc = capc;
    seam_ckpt_get_i64s(r, ids, cols);
    seam_ckpt_get_f64s(r, C, rows * cols);
    if (seam_ckpt_ok(r, false)) {
        for (size_t j = 0; j < cols; j++) {
            x->ids[j] = (unsigned long)ids[j];
            memcpy(x->C + j * ldc, C + j * rows, rows * sizeof *C);
        }
        x->rows = rows, x->cols = cols, x->epoch = epoch;
    }
    free(ids);
    free(C);
}

static void rmi_save(const void *self, seam_ckpt_writer *w)
{
    const rmi *r = self;
    seam_ckpt_put_u64(w, r->Xf ? r->n : UINT64_MAX);   /* UINT64_MAX: no step has run */
    if (!r->Xf)
        return;
    seam_qr_save(r->lsq_f, w);
    seam_qr_save(r->lsq_s, w);
    cross_save(&r->fs, w);
    cross_save(&r->sf, w);
}

static void rmi_load(void *self, seam_ckpt_reader *rd)
{
    rmi *r = self;
    uint64_t n = seam_ckpt_get_u64(rd);
    if (n == UINT64_MAX || !seam_ckpt_ok(rd, false))
        return;
    if (n > ((uint64_t)1 << 40) || !rmi_reserve(r, (size_t)n)) {
        seam_ckpt_fail(rd, "no room for %llu interface values", (unsigned long long)n);
        return;
    }
    seam_qr_load(r->lsq_f, rd);
    seam_qr_load(r->lsq_s, rd);
    cross_load(&r->fs, rd);
    cross_load(&r->sf, rd);
}

const seam_scheme_ops seam_scheme_rmi = {
    .name = "rmi",
    .summary = "reduced model interface: low-rank Jacobians of both solvers (Akbay Algorithm 1)",
    .keys = (const char *const[]){"relaxation", "filter", "reuse", "max_columns", "rmi_solver", "rigid_dofs", NULL},
    .create = rmi_create,
    .destroy = rmi_destroy,
    .step = rmi_step,
    .save = rmi_save,
    .load = rmi_load,
    .report = rmi_report,
    .iterates = true,
};

/* The extended partitioned method (Akbay 2.6): the RMI above with the
 * thesis's first update (w = 1); the coupler adds the boundary pressure
 * projection and checks that the fluid returns conservative impulses
 * (coupler/scene.c), and the defaults of 30 iterations and 0.05 cells. */
const seam_scheme_ops seam_scheme_xpm = {
    .name = "xpm",
    .summary = "extended partitioned method: rmi + conservative impulse loads + boundary pressure projection (Akbay 2.6)",
    .keys = (const char *const[]){"relaxation", "filter", "reuse", "max_columns", "rmi_solver", "rigid_dofs", NULL},
    .create = xpm_create,
    .destroy = rmi_destroy,
    .step = rmi_step,
    .save = rmi_save,
    .load = rmi_load,
    .report = rmi_report,
    .iterates = true,
    .needs_bpp = true,
    .needs_impulse_loads = true,
    .defaults = {30, 0.05, true, true},   /* Akbay 2.6: 30 iterations, 0.05 cell sizes on the positions alone */
};
