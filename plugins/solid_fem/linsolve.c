/* solid_fem: the linear solve of each Newton step, by sparse Cholesky
 * (CHOLMOD, supernodal, one symbolic analysis per instance) or by PCG. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <suitesparse/cholmod.h>

#include "seam/krylov.h"
#include "seam/log.h"
#include "fem.h"

/* K's int64_t arrays are handed to CHOLMOD's long-integer interface as they are. */
_Static_assert(sizeof(SuiteSparse_long) == sizeof(int64_t), "SuiteSparse_long must be 64-bit");

struct fem_direct {
    cholmod_common c;
    cholmod_factor *L;       /* symbolic analysis of K's pattern, refactored numerically per solve */
    cholmod_dense *B, *X, *Y, *E;   /* kept between solves (cholmod_solve2 reuses them) */
    size_t n, nnz;           /* the pattern L was analysed for */
};

void fem_direct_destroy(fem_direct **self_p)
{
    if (!self_p || !*self_p)
        return;
    fem_direct *s = *self_p;
    cholmod_l_free_factor(&s->L, &s->c);
    cholmod_l_free_dense(&s->B, &s->c);
    cholmod_l_free_dense(&s->X, &s->c);
    cholmod_l_free_dense(&s->Y, &s->c);
    cholmod_l_free_dense(&s->E, &s->c);
    cholmod_l_finish(&s->c);
    free(s);
    *self_p = NULL;
}

/* K (CSR, symmetric) seen as CHOLMOD's compressed columns without a copy:
 * row i of a symmetric matrix is its column i; only the upper part is read. */
static cholmod_sparse csr_view(const seam_csr *K)
{
    cholmod_sparse A;
    memset(&A, 0, sizeof A);
    A.nrow = A.ncol = K->rows;
    A.nzmax = K->nnz;
    A.p = K->row_ptr;
    A.i = K->col;
    A.x = K->val;
    A.stype = 1;
    A.itype = CHOLMOD_LONG;
    A.xtype = CHOLMOD_REAL;
    A.dtype = CHOLMOD_DOUBLE;
    A.sorted = 1;
    A.packed = 1;
    return A;
}

static fem_direct *direct_new(const seam_csr *K, const seam_host *host)
{
    fem_direct *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    cholmod_l_start(&s->c);
    s->c.print = 0;          /* plugins never print; failures are read from c.status */
    s->c.supernodal = CHOLMOD_SUPERNODAL;
    cholmod_sparse A = csr_view(K);
    s->L = cholmod_l_analyze(&A, &s->c);
    s->B = cholmod_l_allocate_dense(K->rows, 1, K->rows, CHOLMOD_REAL, &s->c);
    if (!s->L || !s->B) {
        seam_logf(host, SEAM_LOG_ERROR, "CHOLMOD could not analyse the %zu x %zu system (status %d)", K->rows,
                  K->rows, s->c.status);
        fem_direct_destroy(&s);
        return NULL;
    }
    s->n = K->rows;
    s->nnz = K->nnz;
    seam_logf(host, SEAM_LOG_DEBUG, "CHOLMOD: %zu unknowns, %.0f nonzeros in L, ordering %d", s->n,
              s->c.lnz, s->c.selected >= 0 ? s->c.method[s->c.selected].ordering : -1);
    return s;
}

/* Returns 0 when solved, 1 when S is not positive definite, -1 on other failures. */
static int direct_solve(fem *self, const double *b, double *x)
{
    const seam_csr *K = self->K;
    if (self->direct && (self->direct->n != K->rows || self->direct->nnz != K->nnz))
        fem_direct_destroy(&self->direct);   /* a new pattern needs a new analysis */
    if (!self->direct && !(self->direct = direct_new(K, self->host)))
        return -1;
    fem_direct *s = self->direct;
    cholmod_sparse A = csr_view(K);
    int ok = cholmod_l_factorize(&A, s->L, &s->c);
    self->newton.factorizations++;
    if (s->c.status == CHOLMOD_NOT_POSDEF || (ok && s->L->minor < s->L->n)) {
        seam_logf(self->host, SEAM_LOG_WARN, "Cholesky factorization: system not positive definite at column %ld",
                  (long)s->L->minor);
        return 1;
    }
    if (!ok || s->c.status != CHOLMOD_OK)
        return -1;
    memcpy(s->B->x, b, s->n * sizeof *b);
    if (!cholmod_l_solve2(CHOLMOD_A, s->L, s->B, NULL, &s->X, NULL, &s->Y, &s->E, &s->c))
        return -1;
    memcpy(x, s->X->x, s->n * sizeof *x);
    for (size_t r = 0; r < s->n; r++)
        if (!isfinite(x[r]))
            return -1;
    return 0;
}

/* PCG from x = 0; 1 on breakdown. Running out of iterations is not a
 * failure: the partial solve still descends (inexact Newton). */
static int cg_solve(fem *self, fem_precond precond, const double *b, double *x)
{
    size_t n = self->K->rows;
    memset(x, 0, n * sizeof *x);
    seam_linop A = seam_csr_linop(self->K);
    seam_jacobi *J = NULL;
    seam_ichol *L = NULL;
    seam_linop M;
    if (precond == FEM_IC0) {
        L = seam_ichol_new(self->K);
        M = seam_ichol_linop(L);
    } else {
        J = seam_jacobi_new(self->K);
        M = seam_jacobi_linop(J);
    }
    seam_krylov_opts o = {self->lin_tol, 0.0, self->lin_max, 0};
    seam_krylov_stats st;
    seam_pcg(&A, &M, b, x, &o, &st);
    seam_jacobi_destroy(&J);
    seam_ichol_destroy(&L);
    self->newton.cg_iterations += st.iterations;
    if (st.breakdown)
        seam_logf(self->host, SEAM_LOG_WARN, "PCG (%s) broke down after %d iterations",
                  precond == FEM_IC0 ? "IC(0)" : "Jacobi", st.iterations);
    return st.breakdown ? 1 : 0;
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* auto: CG for 3D volumes, whose factors fill (the 3D crossover lies below
 * 10^3 tetrahedra); CHOLMOD for the rest unless its factor is too large. */
static void choose_method(fem *self)
{
    self->lin_active = FEM_LIN_CG;
    const char *why = "3D volume elements";
    if (!(self->d == 3 && self->n_elems > 0)) {
        why = "no analysis";
        if (self->direct || (self->direct = direct_new(self->K, self->host))) {
            double bytes = 8.0 * self->direct->c.lnz;
            why = bytes > FEM_AUTO_MAX_FACTOR_BYTES ? "factor too large" : "2D or surface mesh";
            if (bytes > FEM_AUTO_MAX_FACTOR_BYTES)
                fem_direct_destroy(&self->direct);
            else
                self->lin_active = FEM_LIN_CHOLMOD;
        }
    }
    seam_logf(self->host, SEAM_LOG_INFO, "linear solver: %s (%s)", self->lin_active == FEM_LIN_CG ? "PCG" : "CHOLMOD",
              why);
}

static seam_status linear_solve(fem *self, const double *b, double *x)
{
    if (self->lin_active == FEM_LIN_AUTO)
        choose_method(self);
    if (self->lin_active == FEM_LIN_CHOLMOD) {
        int rc = direct_solve(self, b, x);
        if (rc == 0)
            return SEAM_OK;
        if (rc < 0)
            seam_logf(self->host, SEAM_LOG_WARN, "CHOLMOD failed (status %d)",
                      self->direct ? self->direct->c.status : CHOLMOD_OUT_OF_MEMORY);
    } else if (cg_solve(self, self->precond, b, x) == 0) {
        return SEAM_OK;
    }
    /* One retry with Jacobi-PCG: it breaks down only on a truly indefinite system. */
    if (!(self->lin_active == FEM_LIN_CG && self->precond == FEM_JACOBI)) {
        self->newton.fallbacks++;
        if (cg_solve(self, FEM_JACOBI, b, x) == 0)
            return SEAM_OK;
    }
    seam_logf(self->host, SEAM_LOG_WARN, "the Newton system could not be solved (not positive definite?)");
    return SEAM_UNSTABLE;
}

seam_status fem_linear_solve(fem *self, const double *b, double *x)
{
    double t0 = seconds();
    seam_status s = linear_solve(self, b, x);
    self->newton.linear_seconds += seconds() - t0;
    return s;
}
