/* monolithic: rigid solids (solid_rigid) in the coupled system, through
 * their plugin table alone: its mobility (the velocity change of the
 * interface points per impulse on them, constraints included) and its
 * solve (the points' end-of-step velocities under gravity and the body's
 * own loads, and the step itself once the pressures are known).
 *
 * For a rigid solid the points' velocities are v = v_free + dt Mob f with
 * f = G^T p the pressure loads (5.13) and Mob = J M~^-1 J^T of rank at most
 * 6 per body (3 in 2D): Zarifi's rigid block (5.32) written on the points.
 * Mob is taken from k probes (Nystroem): Y = Mob Omega, Omega^T Y =
 * W Lambda W^T, T = Y W_r Lambda_r^-1/2, so Mob = T T^T exactly when its
 * rank is below k. The block has the unknowns w (v = v_perp + T w), S = I/dt
 * (Z1 = S: the Schur form of 5.32) and r = (T^T T)^-1 T^T v_free / dt; the
 * part of v_free outside T's range (a kinematic body's prescribed motion)
 * is a prescribed flux, v_perp, on the fluid's right-hand side. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/dense.h"
#include "seam/log.h"
#include "mono.h"

/* Deterministic probes: a fixed linear congruential sequence in (-1, 1). */
static double probe_value(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

seam_status mono_rigid_block(mono_block *blk, const seam_plugin *P, void *solid, const seam_step *step,
                             size_t n_pts, int dim, int max_rank, size_t first, size_t n_nodes, double *v_perp,
                             const seam_host *host)
{
    memset(blk, 0, sizeof *blk);
    size_t nd = n_pts * (size_t)dim;
    int k = max_rank + 2 < (int)nd ? max_rank + 2 : (int)nd;
    if (k > SEAM_DENSE_MAX)
        k = SEAM_DENSE_MAX;
    if (max_rank + 1 > k && (size_t)k < nd) {
        seam_logf(host, SEAM_LOG_ERROR, "a rigid solid of rank up to %d needs more than %d probes", max_rank,
                  SEAM_DENSE_MAX);
        return SEAM_ERROR;
    }
    double *zero = SEAM_NEW_N(double, nd + 1), *Xf = seam_xmalloc_n(nd + 1, sizeof *Xf);
    double *vfree = seam_xmalloc_n(nd + 1, sizeof *vfree);
    double *Om = seam_xmalloc_n((size_t)k * nd + 1, sizeof *Om), *Y = seam_xmalloc_n((size_t)k * nd + 1, sizeof *Y);
    double *T = seam_xmalloc_n((size_t)k * nd + 1, sizeof *T);
    seam_status st = SEAM_OK;
    /* v_free: the end-of-step velocities without the fluid */
    seam_input in = {n_pts, dim, NULL, NULL, zero};
    seam_output out = {n_pts, dim, Xf, vfree, NULL};
    if ((st = P->solve(solid, step, &in, &out)) != SEAM_OK)
        goto done;
    uint64_t seed = 0x5eedu;
    for (int c = 0; c < k; c++) {
        for (size_t i = 0; i < nd; i++)
            Om[(size_t)c * nd + i] = probe_value(&seed);
        if ((st = P->mobility(solid, Om + (size_t)c * nd, Y + (size_t)c * nd)) != SEAM_OK)
            goto done;
    }
    double OY[SEAM_DENSE_MAX * SEAM_DENSE_MAX], lam[SEAM_DENSE_MAX], W[SEAM_DENSE_MAX * SEAM_DENSE_MAX];
    for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++) {
            double s = 0.0;
            for (size_t i = 0; i < nd; i++)
                s += Om[(size_t)a * nd + i] * Y[(size_t)b * nd + i];
            OY[a * k + b] = s;
        }
    for (int a = 0; a < k; a++)   /* symmetric up to rounding */
        for (int b = 0; b < a; b++)
            OY[a * k + b] = OY[b * k + a] = 0.5 * (OY[a * k + b] + OY[b * k + a]);
    seam_sym_eig(k, OY, lam, W);
    int r = 0;
    while (r < k && lam[r] > 1e-10 * lam[0] && lam[r] > 0.0)
        r++;
    if (r > max_rank)
        r = max_rank;
    /* T = Y W_r Lambda_r^-1/2, column-major nd x r */
    for (int c = 0; c < r; c++) {
        double s = 1.0 / sqrt(lam[c]);
        for (size_t i = 0; i < nd; i++) {
            double acc = 0.0;
            for (int a = 0; a < k; a++)
                acc += Y[(size_t)a * nd + i] * W[a * k + c];
            T[(size_t)c * nd + i] = acc * s;
        }
    }
    /* the part of v_free in T's range: c = (T^T T)^-1 T^T v_free */
    double TT[SEAM_DENSE_MAX * SEAM_DENSE_MAX], Tv[SEAM_DENSE_MAX], coef[SEAM_DENSE_MAX];
    double tl[SEAM_DENSE_MAX], tq[SEAM_DENSE_MAX * SEAM_DENSE_MAX];
    for (int a = 0; a < r; a++) {
        Tv[a] = 0.0;
        for (size_t i = 0; i < nd; i++)
            Tv[a] += T[(size_t)a * nd + i] * vfree[i];
        for (int b = 0; b < r; b++) {
            double s = 0.0;
            for (size_t i = 0; i < nd; i++)
                s += T[(size_t)a * nd + i] * T[(size_t)b * nd + i];
            TT[a * r + b] = s;
        }
    }
    if (r > 0)
        seam_sym_eig(r, TT, tl, tq);
    for (int a = 0; a < r; a++) {
        coef[a] = 0.0;
        for (int c = 0; c < r; c++) {
            double qv = 0.0;
            for (int b = 0; b < r; b++)
                qv += tq[b * r + c] * Tv[b];
            coef[a] += tq[a * r + c] * qv / tl[c];
        }
    }
    for (size_t i = 0; i < nd; i++) {
        double in_range = 0.0;
        for (int a = 0; a < r; a++)
            in_range += T[(size_t)a * nd + i] * coef[a];
        v_perp[first * (size_t)dim + i] += vfree[i] - in_range;
    }
    /* the block: S = I / dt, r = coef / dt, T on this solid's node rows */
    blk->m = (size_t)r;
    blk->r = SEAM_NEW_N(double, (size_t)r + 1);
    seam_triplets *ts = seam_triplets_new((size_t)r, (size_t)r, (size_t)r + 1);
    seam_triplets *tt = seam_triplets_new(n_nodes * (size_t)dim, (size_t)r, nd * (size_t)r + 1);
    if (!ts || !tt) {
        seam_triplets_destroy(&ts);
        seam_triplets_destroy(&tt);
        seam_logf(host, SEAM_LOG_ERROR, "out of memory for a rigid solid's block");
        st = SEAM_ERROR;
        goto done;
    }
    for (int a = 0; a < r; a++) {
        blk->r[a] = coef[a] / step->dt;
        seam_triplets_add(ts, (size_t)a, (size_t)a, 1.0 / step->dt);
        for (size_t i = 0; i < nd; i++)
            seam_triplets_add(tt, first * (size_t)dim + i, (size_t)a, T[(size_t)a * nd + i]);
    }
    blk->S = seam_csr_from_triplets(ts);
    blk->T = seam_csr_from_triplets(tt);
    seam_triplets_destroy(&ts);
    seam_triplets_destroy(&tt);
    if (!blk->S || !blk->T) {
        seam_logf(host, SEAM_LOG_ERROR, "out of memory for a rigid solid's block");
        st = SEAM_ERROR;
    }
done:
    free(zero);
    free(Xf);
    free(vfree);
    free(Om);
    free(Y);
    free(T);
    if (st != SEAM_OK)
        mono_block_free(blk);
    return st;
}

seam_status mono_rigid_advance(const seam_plugin *P, void *solid, const seam_step *step, size_t n_pts, int dim,
                               const double *F)
{
    size_t nd = n_pts * (size_t)dim;
    double *X = seam_xmalloc_n(nd + 1, sizeof *X), *V = seam_xmalloc_n(nd + 1, sizeof *V);
    seam_input in = {n_pts, dim, NULL, NULL, F};
    seam_output out = {n_pts, dim, X, V, NULL};
    seam_status st = P->solve(solid, step, &in, &out);
    free(X);
    free(V);
    return st;
}
