/* The FEM blocks of Zarifi's coupled projection (Zarifi 2017, ch. 3;
 * ../shared/specs/monolithic-sph-fem.md 1.1): corotated linear elasticity
 * with the rotations held over the step. Rigid blocks are in rigid.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mono.h"
#include "seam/alloc.h"
#include "seam/dense.h"
#include "seam/log.h"

void mono_block_free(mono_block *blk)
{
    if (!blk)
        return;
    seam_csr_destroy(&blk->S);
    seam_csr_destroy(&blk->T);
    free(blk->Zdiag);
    free(blk->r);
    free(blk->unknown);
    memset(blk, 0, sizeof *blk);
}

/* ---- corotated linear elements ------------------------------------------ */

/* K_t (3.36-3.44) in the form K_t[(a i),(c k)] = W sum_jl C_ijkl b_a[j] b_c[l]
 * with C_ijkl = mu (d_ik d_jl + d_il d_jk) + lambda d_ij d_kl (3.8), then
 * rotated: Ke = R~ K_t R~^T (3.53), be = R~ K_t X0 (3.54). R = U V^T from the
 * sign-corrected SVD of F at x (3.56-3.58 built as Irving 2.5 requires). */
static void corotated_element(const fem *f, const fem_elem *e, const double *x, double *Ke, double *be)
{
    int d = f->d, m = (d + 1) * d;
    const fem_material *mat = &f->bodies[e->body].mat;
    double b[4][3], F[9] = {0}, U[9], sig[3], V[9], R[9], Kt[144];
    fem_deformation_gradient(d, e, x, b, F);
    seam_svd_rotation(d, F, U, sig, V);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double s = 0.0;
            for (int k = 0; k < d; k++)
                s += U[i * d + k] * V[j * d + k];
            R[i * d + j] = s;
        }
    for (int a = 0; a <= d; a++)
        for (int c = 0; c <= d; c++) {
            double bb = 0.0;
            for (int j = 0; j < d; j++)
                bb += b[a][j] * b[c][j];
            for (int i = 0; i < d; i++)
                for (int k = 0; k < d; k++)
                    Kt[(a * d + i) * m + c * d + k] =
                        e->W * ((i == k ? mat->mu * bb : 0.0) + mat->mu * b[a][k] * b[c][i] +
                                mat->lambda * b[a][i] * b[c][k]);
        }
    /* Ke = R~ K_t R~^T, blockwise R Kt_ac R^T. */
    for (int a = 0; a <= d; a++)
        for (int c = 0; c <= d; c++) {
            double KR[9];
            for (int i = 0; i < d; i++)
                for (int k = 0; k < d; k++) {
                    double s = 0.0;
                    for (int l = 0; l < d; l++)
                        s += Kt[(a * d + i) * m + c * d + l] * R[k * d + l];
                    KR[i * d + k] = s;
                }
            for (int i = 0; i < d; i++)
                for (int k = 0; k < d; k++) {
                    double s = 0.0;
                    for (int l = 0; l < d; l++)
                        s += R[i * d + l] * KR[l * d + k];
                    Ke[(a * d + i) * m + c * d + k] = s;
                }
        }
    double KX[12];
    for (int r = 0; r < m; r++) {
        double s = 0.0;
        for (int c = 0; c <= d; c++)
            for (int k = 0; k < d; k++)
                s += Kt[r * m + c * d + k] * f->X0[e->n[c] * d + k];
        KX[r] = s;
    }
    for (int a = 0; a <= d; a++)
        for (int i = 0; i < d; i++) {
            double s = 0.0;
            for (int l = 0; l < d; l++)
                s += R[i * d + l] * KX[a * d + l];
            be[a * d + i] = s;
        }
}

seam_csr *mono_fem_corotated(const fem *f, const double *x, double *b)
{
    int d = f->d, m = (d + 1) * d;
    size_t nd = f->n * (size_t)d;
    seam_triplets *t = seam_triplets_new(nd, nd, f->n_elems * (size_t)(m * m));
    memset(b, 0, nd * sizeof *b);
    double Ke[144], be[12];
    for (size_t q = 0; q < f->n_elems; q++) {
        const fem_elem *e = &f->elems[q];
        corotated_element(f, e, x, Ke, be);
        for (int a = 0; a <= d; a++)
            for (int i = 0; i < d; i++) {
                size_t row = (size_t)e->n[a] * (size_t)d + (size_t)i;
                b[row] += be[a * d + i];
                for (int c = 0; c <= d; c++)
                    for (int k = 0; k < d; k++)
                        seam_triplets_add(t, row, (size_t)e->n[c] * (size_t)d + (size_t)k,
                                          Ke[(a * d + i) * m + c * d + k]);
            }
    }
    seam_csr *K = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    return K;
}

/* ---- the FEM block ------------------------------------------------------- */

/* S's pattern, zeroed: solid_fem's stiffness pattern (every pair of nodes
 * sharing an element, diagonal included) on the free nodes' unknowns, whose
 * order follows the nodes' so each row stays sorted. */
static seam_csr *free_pattern(const fem *f, const int32_t *unknown, size_t m)
{
    int d = f->d;
    const seam_csr *K = f->K;
    seam_csr *S = seam_xcalloc(1, sizeof *S);
    S->rows = S->cols = m;
    S->row_ptr = seam_xcalloc(m + 1, sizeof *S->row_ptr);
    size_t nnz = 0;
    for (int pass = 0; pass < 2; pass++) {
        nnz = 0;
        for (size_t r = 0; r < K->rows; r++) {
            int32_t ur = unknown[r / (size_t)d];
            if (ur < 0)
                continue;
            size_t row = (size_t)ur + r % (size_t)d;
            for (int64_t k = K->row_ptr[r]; k < K->row_ptr[r + 1]; k++) {
                int32_t uc = unknown[K->col[k] / d];
                if (uc < 0)
                    continue;
                if (pass == 1) {
                    S->col[nnz] = uc + K->col[k] % d;
                    S->val[nnz] = 0.0;
                }
                nnz++;
            }
            S->row_ptr[row + 1] = (int64_t)nnz;
        }
        if (pass == 0) {
            S->col = seam_xmalloc((nnz ? nnz : 1) * sizeof *S->col);
            S->val = seam_xmalloc((nnz ? nnz : 1) * sizeof *S->val);
        }
    }
    S->nnz = nnz;
    return S;
}

/* Refuse what the block cannot represent, naming the body. */
static int fem_supported(const fem *f, const seam_host *host)
{
    for (size_t bi = 0; bi < f->n_bodies; bi++) {
        const fem_body *b = &f->bodies[bi];
        if (b->kind != FEM_VOLUME) {
            seam_logf(host, SEAM_LOG_ERROR,
                      "monolithic: solid body \"%s\" is a %s: the coupled solve takes volumetric bodies only", b->name,
                      f->d == 3 ? "cloth" : "shell");
            return -1;
        }
    }
    if (f->walls.on) {
        seam_logf(host, SEAM_LOG_ERROR, "monolithic: solid walls are not part of the coupled solve; remove `walls`");
        return -1;
    }
    return 0;
}

seam_status mono_fem_block(mono_block *blk, const fem *f, double dt, double sigma, const double *f_ext,
                           size_t offset, size_t n_nodes, const seam_host *host)
{
    memset(blk, 0, sizeof *blk);
    int d = f->d, m_e = (d + 1) * d;
    if (fem_supported(f, host) != 0)
        return SEAM_ERROR;
    if (!(dt > 0.0) || !(sigma > 0.0 && sigma < 1.0)) {
        seam_logf(host, SEAM_LOG_ERROR, "monolithic: solid block needs dt > 0 and sigma in (0, 1) (dt %g, sigma %g)",
                  dt, sigma);
        return SEAM_ERROR;
    }
    if (offset + f->n_iface > n_nodes) {
        seam_logf(host, SEAM_LOG_ERROR,
                  "monolithic: the solid's %zu boundary nodes at offset %zu overrun the %zu boundary nodes",
                  f->n_iface, offset, n_nodes);
        return SEAM_ERROR;
    }
    size_t nd = f->n * (size_t)d;
    int32_t *body_of = seam_xmalloc((f->n ? f->n : 1) * sizeof *body_of);
    for (size_t bi = 0; bi < f->n_bodies; bi++)
        for (size_t i = 0; i < f->bodies[bi].n_nodes; i++)
            body_of[f->bodies[bi].node0 + i] = (int32_t)bi;
    blk->n_fem_nodes = f->n;
    blk->unknown = seam_xmalloc((f->n ? f->n : 1) * sizeof *blk->unknown);
    size_t m = 0;
    for (size_t i = 0; i < f->n; i++) {
        blk->unknown[i] = f->fixed[i] ? -1 : (int32_t)m;
        m += f->fixed[i] ? 0 : (size_t)d;
    }
    blk->m = m;
    blk->sigma = sigma;
    blk->r = seam_xcalloc(m ? m : 1, sizeof *blk->r);
    blk->Zdiag = seam_xmalloc((m ? m : 1) * sizeof *blk->Zdiag);
    /* Elastic forces b - K x* at the committed state, and S = M/dt + D + dt K
     * with D = alpha M + beta K (3.50, 3.55); fixed nodes' velocities move to r. */
    double *fe = seam_xcalloc(nd ? nd : 1, sizeof *fe), Ke[144], be[12];
    blk->S = free_pattern(f, blk->unknown, m);
    int corotated = 1;
    for (size_t bi = 0; bi < f->n_bodies; bi++)
        corotated &= f->bodies[bi].mat.model == FEM_COROTATED;
    if (!corotated) {
        /* Another model (Neo-Hookean, StVK): linearly implicit Euler on
         * solid_fem's own forces f(x^n) and tangent K = -df/dx at x^n
         * (positive semidefinite: solid_fem clamps its material tangent, as
         * its Newton solve has it):
         * M (v - v^n)/dt = f(x^n) - K dt v - D v + M g + f_ext, i.e. (3.55)
         * with b - K x* replaced by f(x^n) and K by the tangent. */
        seam_csr *K = seam_csr_transpose(f->K);   /* a copy of solid_fem's pattern (symmetric) */
        fem_elastic(f, f->x, fe, K);
        for (size_t row = 0; row < nd; row++) {
            size_t node = row / (size_t)d;
            int32_t ua = blk->unknown[node];
            if (ua < 0)
                continue;
            double kscale = dt + f->bodies[body_of[node]].beta;   /* nodes, so rows, belong to one body */
            for (int64_t k = K->row_ptr[row]; k < K->row_ptr[row + 1]; k++) {
                size_t col = (size_t)K->col[k];
                int32_t uc = blk->unknown[col / (size_t)d];
                double S_ac = kscale * K->val[k];
                if (uc >= 0)
                    *seam_csr_at(blk->S, (size_t)ua + row % (size_t)d, (size_t)uc + col % (size_t)d) += S_ac;
                else
                    blk->r[(size_t)ua + row % (size_t)d] -= S_ac * f->v_fixed[col];
            }
        }
        seam_csr_destroy(&K);
    }
    for (size_t q = 0; corotated && q < f->n_elems; q++) {
        const fem_elem *e = &f->elems[q];
        double kscale = dt + f->bodies[e->body].beta;
        corotated_element(f, e, f->x, Ke, be);
        for (int a = 0; a <= d; a++)
            for (int i = 0; i < d; i++) {
                size_t row = (size_t)e->n[a] * (size_t)d + (size_t)i;
                double s = be[a * d + i];
                for (int c = 0; c <= d; c++)
                    for (int k = 0; k < d; k++)
                        s -= Ke[(a * d + i) * m_e + c * d + k] * f->x[e->n[c] * d + k];
                fe[row] += s;
                int32_t ua = blk->unknown[e->n[a]];
                if (ua < 0)
                    continue;
                for (int c = 0; c <= d; c++) {
                    int32_t uc = blk->unknown[e->n[c]];
                    for (int k = 0; k < d; k++) {
                        double S_ac = kscale * Ke[(a * d + i) * m_e + c * d + k];
                        if (uc >= 0)
                            *seam_csr_at(blk->S, (size_t)ua + (size_t)i, (size_t)uc + (size_t)k) += S_ac;
                        else
                            blk->r[ua + i] -= S_ac * f->v_fixed[e->n[c] * d + k];
                    }
                }
            }
    }
    /* r = M v* / dt - K x* + b + f with v* = v + dt (g + f_ext/m) (3.55, Algorithm 2). */
    for (size_t i = 0; i < f->n; i++) {
        int32_t u = blk->unknown[i];
        if (u < 0)
            continue;
        const fem_body *b = &f->bodies[body_of[i]];
        double mass = f->mass[i], rate = 1.0 / dt + b->alpha;
        for (int k = 0; k < d; k++) {
            size_t dof = i * (size_t)d + (size_t)k;
            *seam_csr_at(blk->S, (size_t)u + (size_t)k, (size_t)u + (size_t)k) += rate * mass;
            blk->r[u + k] += mass * f->v[dof] / dt + mass * f->gravity[k] + (f_ext ? f_ext[dof] : 0.0) + fe[dof];
            blk->Zdiag[u + k] = sigma * rate * mass;   /* Z1 (5.31) */
        }
    }
    free(fe);
    free(body_of);
    /* T: interface point p is boundary node offset + p. */
    seam_triplets *tt = seam_triplets_new(n_nodes * (size_t)d, m, f->n_iface * (size_t)d);
    for (size_t p = 0; p < f->n_iface; p++) {
        int32_t node = f->iface_node[p], u = blk->unknown[node];
        size_t row = (offset + p) * (size_t)d;
        if (u >= 0)   /* fixed nodes' rows stay empty: the caller knows their flux */
            for (int k = 0; k < d; k++)
                seam_triplets_add(tt, row + (size_t)k, (size_t)u + (size_t)k, 1.0);
    }
    blk->T = seam_csr_from_triplets(tt);
    seam_triplets_destroy(&tt);
    return SEAM_OK;
}

void mono_fem_advance(fem *f, const mono_block *blk, const double *v, double dt)
{
    int d = f->d;
    for (size_t i = 0; i < f->n; i++) {
        int32_t u = blk->unknown[i];
        for (int k = 0; k < d; k++) {
            size_t dof = i * (size_t)d + (size_t)k;
            f->v_new[dof] = u >= 0 ? v[u + k] : f->v_fixed[dof];
            f->x_new[dof] = f->x[dof] + dt * f->v_new[dof];   /* (5.2) */
        }
    }
    f->have_solve = 1;
}
