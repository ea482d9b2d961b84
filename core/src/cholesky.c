/* Sparse Cholesky on CHOLMOD's long-integer interface, seeing seam_csr's
 * int64_t arrays in place. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <suitesparse/cholmod.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "seam/alloc.h"
#include "seam/cholesky.h"

_Static_assert(sizeof(SuiteSparse_long) == sizeof(int64_t), "SuiteSparse_long must be 64-bit");

struct seam_cholesky {
    cholmod_common c;
    cholmod_factor *L;       /* symbolic analysis of the pattern, refactored numerically */
    cholmod_dense *B, *X, *Y, *E;   /* kept between solves (cholmod_solve2 reuses them) */
    size_t n, nnz;           /* the pattern L was analysed for: n x n, nnz entries, */
    int64_t *row_ptr, *col;  /* a copy of its row pointers and column indices (NULL: none analysed) */
    size_t analyses;
    int factored;
};

/* A (CSR, symmetric) seen as CHOLMOD's compressed columns without a copy:
 * row i of a symmetric matrix is its column i; only the upper part is read. */
static cholmod_sparse csr_view(const seam_csr *A)
{
    cholmod_sparse S;
    memset(&S, 0, sizeof S);
    S.nrow = S.ncol = A->rows;
    S.nzmax = A->nnz;
    S.p = A->row_ptr;
    S.i = A->col;
    S.x = A->val;
    S.stype = 1;
    S.itype = CHOLMOD_LONG;
    S.xtype = CHOLMOD_REAL;
    S.dtype = CHOLMOD_DOUBLE;
    S.sorted = 1;
    S.packed = 1;
    return S;
}

/* The fill-reducing ordering and symbolic factorization of A's pattern,
 * which is kept to compare the next matrices with; -1 when CHOLMOD fails. */
static int analyse(seam_cholesky *s, const seam_csr *A)
{
    cholmod_l_free_factor(&s->L, &s->c);
    free(s->row_ptr);
    free(s->col);
    s->row_ptr = s->col = NULL;
    s->factored = 0;
    if (s->n != A->rows || !s->B) {   /* the solve's vectors have the matrix's size */
        cholmod_l_free_dense(&s->B, &s->c);
        cholmod_l_free_dense(&s->X, &s->c);
        cholmod_l_free_dense(&s->Y, &s->c);
        cholmod_l_free_dense(&s->E, &s->c);
        s->B = cholmod_l_allocate_dense(A->rows, 1, A->rows, CHOLMOD_REAL, &s->c);
    }
    s->n = A->rows;
    s->nnz = A->nnz;
    cholmod_sparse S = csr_view(A);
    s->L = cholmod_l_analyze(&S, &s->c);
    s->analyses++;
    if (!s->L || !s->B)   /* CHOLMOD's own failure: no pattern, fits() is false and the next factor() analyses again */
        return -1;
    s->row_ptr = seam_xmalloc_n((size_t)A->rows + 1, sizeof *s->row_ptr);
    s->col = seam_xmalloc_n((size_t)A->nnz, sizeof *s->col);
    memcpy(s->row_ptr, A->row_ptr, (A->rows + 1) * sizeof *s->row_ptr);
    memcpy(s->col, A->col, A->nnz * sizeof *s->col);
    return 0;
}

seam_cholesky *seam_cholesky_new(const seam_csr *A)
{
    seam_cholesky *s = SEAM_NEW(seam_cholesky);
    cholmod_l_start(&s->c);
    s->c.print = 0;          /* library code never prints; failures are read from the status */
    /* Supernodal where CHOLMOD's analysis finds it pays (flops per entry of
     * L of at least Common->supernodal_switch, 40), simplicial on thin
     * factors (a shell's chain, a small cloth): there the supernodal code's
     * OpenMP regions, one futex call each even on one thread, cost more
     * than the arithmetic (two_balloons 12% less CPU, docs/performance.md).
     * final_ll keeps a simplicial factor LL', so a matrix that is not
     * positive definite stops it at its pivot as the supernodal one does. */
    s->c.supernodal = CHOLMOD_AUTO;
    s->c.final_ll = 1;
    if (analyse(s, A) != 0)
        seam_cholesky_destroy(&s);
    return s;
}

void seam_cholesky_destroy(seam_cholesky **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_cholesky *s = *self_p;
    cholmod_l_free_factor(&s->L, &s->c);
    cholmod_l_free_dense(&s->B, &s->c);
    cholmod_l_free_dense(&s->X, &s->c);
    cholmod_l_free_dense(&s->Y, &s->c);
    cholmod_l_free_dense(&s->E, &s->c);
    cholmod_l_finish(&s->c);
    free(s->row_ptr);
    free(s->col);
    free(s);
    *self_p = NULL;
}

int seam_cholesky_fits(const seam_cholesky *self, const seam_csr *A)
{
    return self->row_ptr && self->n == A->rows && self->nnz == A->nnz &&
           memcmp(self->row_ptr, A->row_ptr, (A->rows + 1) * sizeof *A->row_ptr) == 0 &&
           memcmp(self->col, A->col, A->nnz * sizeof *A->col) == 0;
}

int seam_cholesky_factor(seam_cholesky *self, const seam_csr *A)
{
    self->factored = 0;
    if (!seam_cholesky_fits(self, A) && analyse(self, A) != 0)
        return -1;
    cholmod_sparse S = csr_view(A);
#ifdef _OPENMP
    /* Debian's CHOLMOD (SuiteSparse 5.12) zeroes and fills each large
     * supernode in OpenMP loops of CHOLMOD_OMP_NUM_THREADS = 4 threads, a
     * number fixed when it was built, whatever OMP_NUM_THREADS says: on two
     * cores that is a team of four for every factorization, and the cloth of
     * smoke_cloth made 13 000 context switches in 0.3 s of simulated time
     * (docs/performance.md). With no active parallel level allowed, those loops
     * (memory copies, a small share of the work) run on the calling thread;
     * the dense kernels, where the work is, keep OpenBLAS's threads. */
    int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(0);
#endif
    int ok = cholmod_l_factorize(&S, self->L, &self->c);
#ifdef _OPENMP
    omp_set_max_active_levels(levels);
#endif
    /* CHOLMOD stops at a non-positive pivot with a warning status and L->minor < n. */
    if (self->c.status == CHOLMOD_NOT_POSDEF || (ok && self->L->minor < self->L->n))
        return 1;
    if (!ok || self->c.status != CHOLMOD_OK)
        return -1;
    self->factored = 1;
    return 0;
}

int seam_cholesky_solve(seam_cholesky *self, const double *b, double *x)
{
    if (!self->factored)
        return -1;
    memcpy(self->B->x, b, self->n * sizeof *b);
    if (!cholmod_l_solve2(CHOLMOD_A, self->L, self->B, NULL, &self->X, NULL, &self->Y, &self->E, &self->c))
        return -1;
    memcpy(x, self->X->x, self->n * sizeof *x);
    for (size_t r = 0; r < self->n; r++)
        if (!isfinite(x[r]))
            return -1;
    return 0;
}

size_t seam_cholesky_minor(const seam_cholesky *self)
{
    if (!self->L)
        return self->n;
    size_t k = self->L->minor;   /* a column of the permuted matrix */
    return k < self->n && self->L->Perm ? (size_t)((const SuiteSparse_long *)self->L->Perm)[k] : k;
}
int seam_cholesky_status(const seam_cholesky *self) { return self->c.status; }
size_t seam_cholesky_analyses(const seam_cholesky *self) { return self->analyses; }
double seam_cholesky_factor_nnz(const seam_cholesky *self) { return self->c.lnz; }

int seam_cholesky_ordering(const seam_cholesky *self)
{
    return self->c.selected >= 0 ? self->c.method[self->c.selected].ordering : -1;
}
