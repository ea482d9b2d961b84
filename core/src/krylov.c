/* Conjugate gradients and GMRES over linear-operator tables. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "seam/alloc.h"
#include "seam/krylov.h"

double seam_dot(size_t n, const double *x, const double *y) { return cblas_ddot((int)n, x, 1, y, 1); }
double seam_norm2(size_t n, const double *x) { return cblas_dnrm2((int)n, x, 1); }
void seam_axpy(size_t n, double a, const double *x, double *y) { cblas_daxpy((int)n, a, x, 1, y, 1); }
void seam_blas_serial(void) { openblas_set_num_threads(1); }

static void apply_or_copy(const seam_linop *M, const double *x, double *y, size_t n)
{
    if (M && M->apply)
        M->apply(M->ctx, x, y);
    else
        memcpy(y, x, n * sizeof *y);
}

static seam_krylov_opts defaults(const seam_krylov_opts *o, size_t n)
{
    seam_krylov_opts d = {1e-10, 0.0, (int)n, 50};
    if (o) {
        d = *o;
        if (d.max_iter <= 0)
            d.max_iter = (int)n;
        if (d.restart <= 0)
            d.restart = 50;
    }
    return d;
}

int seam_pcg(const seam_linop *A, const seam_linop *M, const double *b, double *x,
             const seam_krylov_opts *opts, seam_krylov_stats *stats)
{
    return seam_pcg_until(A, M, b, x, opts, NULL, NULL, stats);
}

/* The fused kernels' sums: at most DOT_BLOCKS blocks of a length fixed by
 * n, each summed with four running sums, then the blocks in order. Under
 * DOT_OMP_MIN unknowns, or with one thread, the blocks run on the calling
 * thread without entering an OpenMP parallel region (libgomp enters one, a
 * futex system call, even under a false if clause). */
enum { DOT_BLOCKS = 1024, DOT_BLOCK_MIN = 2048, DOT_OMP_MIN = 1 << 15 };

static int dot_threaded(size_t n)
{
#ifdef _OPENMP
    return n >= DOT_OMP_MIN && omp_get_max_threads() > 1;
#else
    (void)n;
    return 0;
#endif
}

static size_t dot_block(size_t n)
{
    size_t B = (n + DOT_BLOCKS - 1) / DOT_BLOCKS;
    return B < DOT_BLOCK_MIN ? DOT_BLOCK_MIN : B;
}

static double sum_blocks(const double *part, size_t nb)
{
    double s = 0.0;
    for (size_t q = 0; q < nb; q++)
        s += part[q];
    return s;
}

/* x . y over block [i, hi). */
static double dot_part(const double *x, const double *y, size_t i, size_t hi)
{
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    for (; i + 4 <= hi; i += 4)
        for (int k = 0; k < 4; k++)
            s[k] += x[i + k] * y[i + k];
    for (; i < hi; i++)
        s[0] += x[i] * y[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

double seam_dot_ordered(size_t n, const double *x, const double *y)
{
    size_t B = dot_block(n), nb = (n + B - 1) / B;
    double part[DOT_BLOCKS];
    if (dot_threaded(n)) {
#pragma omp parallel for schedule(static)
        for (size_t q = 0; q < nb; q++)
            part[q] = dot_part(x, y, q * B, q * B + B < n ? q * B + B : n);
    } else {
        for (size_t q = 0; q < nb; q++)
            part[q] = dot_part(x, y, q * B, q * B + B < n ? q * B + B : n);
    }
    return sum_blocks(part, nb);
}

/* r -= alpha q over block [i, hi): its part of |r|^2. */
static double update_r_part(double alpha, const double *q, double *r, size_t i, size_t hi)
{
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    for (; i + 4 <= hi; i += 4)
        for (int k = 0; k < 4; k++) {
            double ri = r[i + k] - alpha * q[i + k];
            r[i + k] = ri;
            s[k] += ri * ri;
        }
    for (; i < hi; i++) {
        r[i] -= alpha * q[i];
        s[0] += r[i] * r[i];
    }
    return (s[0] + s[1]) + (s[2] + s[3]);
}

/* r -= alpha q; returns |r|^2 (summed as seam_dot_ordered). */
static double update_r(size_t n, double alpha, const double *q, double *r)
{
    size_t B = dot_block(n), nb = (n + B - 1) / B;
    double part[DOT_BLOCKS];
    if (dot_threaded(n)) {
#pragma omp parallel for schedule(static)
        for (size_t b = 0; b < nb; b++)
            part[b] = update_r_part(alpha, q, r, b * B, b * B + B < n ? b * B + B : n);
    } else {
        for (size_t b = 0; b < nb; b++)
            part[b] = update_r_part(alpha, q, r, b * B, b * B + B < n ? b * B + B : n);
    }
    return sum_blocks(part, nb);
}

/* p = z + beta p over [i, hi). */
static void update_p(double beta, const double *z, double *p, size_t i, size_t hi)
{
    for (; i < hi; i++)
        p[i] = z[i] + beta * p[i];
}

/* x += alpha p, then p = z + beta p (z NULL: x only), over [i, hi). */
static void update_xp(double alpha, double beta, const double *z, double *p, double *x, size_t i, size_t hi)
{
    if (!z) {
        for (; i < hi; i++)
            x[i] += alpha * p[i];
        return;
    }
    for (; i < hi; i++) {
        x[i] += alpha * p[i];
        p[i] = z[i] + beta * p[i];
    }
}

/* x += alpha p, then p = z + beta p (z NULL: x only), in one pass over the
 * blocks of update_r: fused CG moves x's update from r's pass to p's, which
 * reads p anyway. */
static void update_x(size_t n, double alpha, double beta, const double *z, double *p, double *x)
{
    size_t B = dot_block(n), nb = (n + B - 1) / B;
    if (dot_threaded(n)) {
#pragma omp parallel for schedule(static)
        for (size_t q = 0; q < nb; q++)
            update_xp(alpha, beta, z, p, x, q * B, q * B + B < n ? q * B + B : n);
    } else {
        update_xp(alpha, beta, z, p, x, 0, n);
    }
}

/* z = M r (identity when neither is given); returns r . z when fused. */
static double precondition(const seam_linop *M, const seam_dot_linop *FM, int fused, const double *r, double *z,
                           size_t n)
{
    if (fused && FM)
        return FM->apply_dot(FM->ctx, r, z);
    apply_or_copy(M, r, z, n);
    return fused ? seam_dot_ordered(n, r, z) : seam_dot(n, r, z);
}

/* One CG loop for both forms, of n unknowns: plain (A, M: separate BLAS
 * passes) or fused (FA, FM: the passes of seam_pcg_fused). */
static int pcg(size_t n, const seam_linop *A, const seam_linop *M, const seam_dot_linop *FA,
               const seam_dot_linop *FM, const double *b, double *x, const seam_krylov_opts *opts,
               seam_krylov_stop_fn stop, void *stop_ctx, double *work, seam_krylov_stats *stats)
{
    int fused = FA != NULL;   /* the calls through FA test FA itself: cppcheck can follow that */
    seam_krylov_opts o = defaults(opts, n);
    double *r = work ? work : seam_xmalloc_n(4 * n, sizeof *r);
    double *z = r + n, *p = z + n, *Ap = p + n;
    seam_krylov_stats st = {0, 0.0, 0, 0};

    if (FA)
        FA->apply_dot(FA->ctx, x, Ap);
    else
        A->apply(A->ctx, x, Ap);
    for (size_t i = 0; i < n; i++)
        r[i] = b[i] - Ap[i];
    double bnorm = fused ? sqrt(seam_dot_ordered(n, b, b)) : seam_norm2(n, b);
    double goal = fmax(o.tol * bnorm, o.abs_tol);
    double rnorm = fused ? sqrt(seam_dot_ordered(n, r, r)) : seam_norm2(n, r);
    if (rnorm <= goal || (stop && stop(stop_ctx, x, r))) {
        st.converged = 1;
        goto done;
    }
    double rz = precondition(M, FM, fused, r, z, n);
    memcpy(p, z, n * sizeof *p);
    while (st.iterations < o.max_iter) {
        double pAp;
        if (FA) {
            pAp = FA->apply_dot(FA->ctx, p, Ap);
        } else {
            A->apply(A->ctx, p, Ap);
            pAp = seam_dot(n, p, Ap);
        }
        if (!(pAp > 0.0) || !(rz > 0.0)) {   /* indefinite operator or preconditioner */
            st.breakdown = 1;
            break;
        }
        double alpha = rz / pAp;
        if (fused) {   /* x += alpha p waits for p's pass (update_x) */
            rnorm = sqrt(update_r(n, alpha, Ap, r));
        } else {
            seam_axpy(n, alpha, p, x);
            seam_axpy(n, -alpha, Ap, r);
            rnorm = seam_norm2(n, r);
        }
        st.iterations++;
        if (fused && rnorm <= goal) {   /* (fused solves take no stop function) */
            update_x(n, alpha, 0.0, NULL, p, x);
            st.converged = 1;
            break;
        }
        if (rnorm <= goal || (stop && stop(stop_ctx, x, r))) {
            st.converged = 1;
            break;
        }
        double rz_new = precondition(M, FM, fused, r, z, n);
        double beta = rz_new / rz;
        rz = rz_new;
        if (fused)
            update_x(n, alpha, beta, z, p, x);
        else
            update_p(beta, z, p, 0, n);
    }
done:
    st.residual = rnorm;
    if (!work)
        free(r);
    if (stats)
        *stats = st;
    return st.converged ? 0 : 1;
}

int seam_pcg_until(const seam_linop *A, const seam_linop *M, const double *b, double *x,
                   const seam_krylov_opts *opts, seam_krylov_stop_fn stop, void *stop_ctx,
                   seam_krylov_stats *stats)
{
    return pcg(A->n, A, M, NULL, NULL, b, x, opts, stop, stop_ctx, NULL, stats);
}

int seam_pcg_work(const seam_linop *A, const seam_linop *M, const double *b, double *x,
                  const seam_krylov_opts *opts, double *work, seam_krylov_stats *stats)
{
    return pcg(A->n, A, M, NULL, NULL, b, x, opts, NULL, NULL, work, stats);
}

int seam_pcg_fused(const seam_dot_linop *A, const seam_dot_linop *M, const double *b, double *x,
                   const seam_krylov_opts *opts, double *work, seam_krylov_stats *stats)
{
    return pcg(A->n, NULL, NULL, A, M, b, x, opts, NULL, NULL, work, stats);
}

/* Right-preconditioned restarted GMRES with Givens rotations (Saad, Alg. 9.5). */
int seam_gmres(const seam_linop *A, const seam_linop *M, const double *b, double *x,
               const seam_krylov_opts *opts, seam_krylov_stats *stats)
{
    size_t n = A->n;
    seam_krylov_opts o = defaults(opts, n);
    int m = o.restart;
    double *V = seam_xmalloc_n((size_t)(m + 1) * n, sizeof *V);
    double *Z = seam_xmalloc_n((size_t)m * n, sizeof *Z);
    double *H = SEAM_NEW_N(double, (size_t)(m + 1) * m);   /* column-major (m+1) x m */
    double *cs = seam_xmalloc_n((size_t)m, sizeof *cs), *sn = seam_xmalloc_n((size_t)m, sizeof *sn);
    double *g = seam_xmalloc_n((size_t)m + 1, sizeof *g), *y = seam_xmalloc_n((size_t)m, sizeof *y);
    double *w = seam_xmalloc_n(n, sizeof *w);
    seam_krylov_stats st = {0, 0.0, 0, 0};
    double goal = fmax(o.tol * seam_norm2(n, b), o.abs_tol);

    for (;;) {
        A->apply(A->ctx, x, w);
        for (size_t i = 0; i < n; i++)
            V[i] = b[i] - w[i];
        double beta = seam_norm2(n, V);
        st.residual = beta;
        if (beta <= goal) {
            st.converged = 1;
            break;
        }
        if (st.iterations >= o.max_iter)
            break;
        for (size_t i = 0; i < n; i++)
            V[i] /= beta;
        memset(g, 0, (size_t)(m + 1) * sizeof *g);
        g[0] = beta;
        int j = 0;
        for (; j < m && st.iterations < o.max_iter; j++) {
            double *vj = V + (size_t)j * n, *zj = Z + (size_t)j * n, *vn = V + (size_t)(j + 1) * n;
            apply_or_copy(M, vj, zj, n);
            A->apply(A->ctx, zj, vn);
            for (int i = 0; i <= j; i++) {   /* modified Gram-Schmidt */
                double h = seam_dot(n, vn, V + (size_t)i * n);
                H[(size_t)j * (m + 1) + i] = h;
                seam_axpy(n, -h, V + (size_t)i * n, vn);
            }
            double hn = seam_norm2(n, vn);
            H[(size_t)j * (m + 1) + j + 1] = hn;
            if (hn > 0)
                for (size_t i = 0; i < n; i++)
                    vn[i] /= hn;
            for (int i = 0; i < j; i++) {
                double *hc = H + (size_t)j * (m + 1);
                double t = cs[i] * hc[i] + sn[i] * hc[i + 1];
                hc[i + 1] = -sn[i] * hc[i] + cs[i] * hc[i + 1];
                hc[i] = t;
            }
            double *hc = H + (size_t)j * (m + 1);
            double d = hypot(hc[j], hc[j + 1]);
            cs[j] = d > 0 ? hc[j] / d : 1.0;
            sn[j] = d > 0 ? hc[j + 1] / d : 0.0;
            hc[j] = d;
            hc[j + 1] = 0.0;
            g[j + 1] = -sn[j] * g[j];
            g[j] = cs[j] * g[j];
            st.iterations++;
            if (fabs(g[j + 1]) <= goal || hn == 0.0) {
                j++;
                break;
            }
        }
        for (int i = j - 1; i >= 0; i--) {   /* back substitution on the triangle */
            double s = g[i];
            for (int k = i + 1; k < j; k++)
                s -= H[(size_t)k * (m + 1) + i] * y[k];
            double diag = H[(size_t)i * (m + 1) + i];
            y[i] = diag != 0.0 ? s / diag : 0.0;
        }
        for (int i = 0; i < j; i++)
            seam_axpy(n, y[i], Z + (size_t)i * n, x);
    }
    free(V); free(Z); free(H); free(cs); free(sn); free(g); free(y); free(w);
    if (stats)
        *stats = st;
    return st.converged ? 0 : 1;
}
