/* solid_fem: the linear solve of each Newton step, by sparse Cholesky
 * (CHOLMOD, supernodal or simplicial, one symbolic analysis per instance) or by PCG. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seam/cholesky.h"
#include "seam/krylov.h"
#include "seam/log.h"
#include "fem.h"

static void log_analysis(const seam_cholesky *s, const seam_csr *K, const seam_host *host)
{
    seam_logf(host, SEAM_LOG_DEBUG, "CHOLMOD: %zu unknowns, %.0f nonzeros in L, ordering %d (analysis %zu)", K->rows,
              seam_cholesky_factor_nnz(s), seam_cholesky_ordering(s), seam_cholesky_analyses(s));
}

static seam_cholesky *direct_new(const seam_csr *K, const seam_host *host)
{
    seam_cholesky *s = seam_cholesky_new(K);
    if (!s) {
        seam_logf(host, SEAM_LOG_ERROR, "CHOLMOD could not analyse the %zu x %zu system (out of memory?)", K->rows,
                  K->rows);
        return NULL;
    }
    log_analysis(s, K, host);
    return s;
}

/* Returns 0 when solved, 1 when S is not positive definite, -1 on other failures. */
static int direct_solve(fem *self, const double *b, double *x)
{
    const seam_csr *K = self->K;
    if (!self->direct && !(self->direct = direct_new(K, self->host)))
        return -1;
    size_t analyses = seam_cholesky_analyses(self->direct);
    int rc = seam_cholesky_factor(self->direct, K);   /* a new pattern is analysed first */
    if (seam_cholesky_analyses(self->direct) != analyses)
        log_analysis(self->direct, K, self->host);
    self->newton.factorizations++;
    if (rc == 1) {
        seam_logf(self->host, SEAM_LOG_WARN, "Cholesky factorization: system not positive definite at column %zu",
                  seam_cholesky_minor(self->direct));
        return 1;
    }
    if (rc != 0)
        return -1;
    return seam_cholesky_solve(self->direct, b, x);
}

/* PCG from x = 0; 1 on breakdown. Running out of iterations is not a
 * failure: the partial solve still descends (inexact Newton); it is
 * counted, and Newton does not take its short step for convergence. */
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
    seam_krylov_opts o = {self->set.lin_tol, 0.0, self->set.lin_max, 0};
    seam_krylov_stats st;
    seam_pcg(&A, &M, b, x, &o, &st);
    seam_jacobi_destroy(&J);
    seam_ichol_destroy(&L);
    self->newton.cg_iterations += st.iterations;
    self->newton.last_truncated = !st.converged && !st.breakdown;
    self->newton.truncated += self->newton.last_truncated;
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
            double bytes = 8.0 * seam_cholesky_factor_nnz(self->direct);
            why = bytes > FEM_AUTO_MAX_FACTOR_BYTES ? "factor too large" : "2D or surface mesh";
            if (bytes > FEM_AUTO_MAX_FACTOR_BYTES)
                seam_cholesky_destroy(&self->direct);
            else
                self->lin_active = FEM_LIN_CHOLMOD;
        }
    }
    seam_logf(self->host, SEAM_LOG_INFO, "linear solver: %s (%s)", self->lin_active == FEM_LIN_CG ? "PCG" : "CHOLMOD",
              why);
}

static seam_status linear_solve(fem *self, const double *b, double *x)
{
    self->newton.last_truncated = 0;
    if (self->lin_active == FEM_LIN_AUTO)
        choose_method(self);
    if (self->lin_active == FEM_LIN_CHOLMOD) {
        int rc = direct_solve(self, b, x);
        if (rc == 0)
            return SEAM_OK;
        if (rc < 0)
            seam_logf(self->host, SEAM_LOG_WARN, "CHOLMOD failed (status %d)",
                      self->direct ? seam_cholesky_status(self->direct) : -2);
    } else if (cg_solve(self, self->set.precond, b, x) == 0) {
        return SEAM_OK;
    }
    /* One retry with Jacobi-PCG: it breaks down only on a truly indefinite system. */
    if (!(self->lin_active == FEM_LIN_CG && self->set.precond == FEM_JACOBI)) {
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
