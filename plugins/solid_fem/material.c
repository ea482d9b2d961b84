/* Isotropic hyperelastic models in the diagonal space of Irving ch. 2, made
 * robust to inversion: stress at signed singular values, extrapolated
 * linearly past a compression limit, and a positive semidefinite tangent. */
#include <math.h>
#include <string.h>

#include "seam/dense.h"
#include "fem.h"

void fem_lame(double E, double nu, double *mu, double *lambda)
{
    *lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));   /* Zarifi eq. 3.9 */
    *mu = E / (2.0 * (1.0 + nu));                          /* Zarifi eq. 3.10 */
}

/* The model itself, no extrapolation: Phat, A = dPhat/dsigma, energy. */
static double diag_model(const fem_material *m, int d, const double *s, double *P, double *A)
{
    double mu = m->mu, la = m->lambda, psi = 0.0;
    switch (m->model) {
    case FEM_COROTATED: {
        /* Rotated linear: Phat = 2 mu (Fhat - I) + lambda tr(Fhat - I) I (Irving 2.6). */
        double tr = 0.0;
        for (int i = 0; i < d; i++) {
            tr += s[i] - 1.0;
            psi += mu * (s[i] - 1.0) * (s[i] - 1.0);
        }
        psi += 0.5 * la * tr * tr;
        for (int i = 0; i < d; i++) {
            P[i] = 2.0 * mu * (s[i] - 1.0) + la * tr;
            for (int j = 0; j < d; j++)
                A[i * d + j] = la + (i == j ? 2.0 * mu : 0.0);
        }
        break;
    }
    case FEM_NEO_HOOKEAN: {
        /* Phat = mu (Fhat - Fhat^-1) + lambda log(J) Fhat^-1 (Irving 2.14). */
        double J = 1.0, sum2 = 0.0;
        for (int i = 0; i < d; i++) {
            J *= s[i];
            sum2 += s[i] * s[i];
        }
        double lJ = log(J);
        psi = 0.5 * mu * (sum2 - d) - mu * lJ + 0.5 * la * lJ * lJ;
        for (int i = 0; i < d; i++) {
            P[i] = mu * (s[i] - 1.0 / s[i]) + la * lJ / s[i];
            for (int j = 0; j < d; j++)
                A[i * d + j] = i == j ? mu * (1.0 + 1.0 / (s[i] * s[i])) + la * (1.0 - lJ) / (s[i] * s[i])
                                      : la / (s[i] * s[j]);
        }
        break;
    }
    case FEM_STVK: {
        /* Phat = Fhat Shat, Shat = 2 mu E + lambda tr(E) I, E = (Fhat^2 - I)/2. */
        double E[3], trE = 0.0;
        for (int i = 0; i < d; i++) {
            E[i] = 0.5 * (s[i] * s[i] - 1.0);
            trE += E[i];
            psi += mu * E[i] * E[i];
        }
        psi += 0.5 * la * trE * trE;
        for (int i = 0; i < d; i++) {
            P[i] = s[i] * (2.0 * mu * E[i] + la * trE);
            for (int j = 0; j < d; j++)
                A[i * d + j] = i == j ? 2.0 * mu * E[i] + la * trE + s[i] * s[i] * (2.0 * mu + la)
                                      : la * s[i] * s[j];
        }
        break;
    }
    }
    return psi;
}

double fem_diag_stress(const fem_material *m, int d, const double *sigma, double *P, double *A)
{
    if (m->model == FEM_COROTATED)
        return diag_model(m, d, sigma, P, A);   /* linear in sigma: valid for any sign */
    double c = m->compression_limit, sc[3] = {0, 0, 0}, delta[3] = {0, 0, 0};
    int clamped = 0;
    for (int i = 0; i < d; i++) {
        sc[i] = sigma[i] < c ? c : sigma[i];
        delta[i] = sigma[i] - sc[i];
        clamped |= sigma[i] < c;
    }
    double psi = diag_model(m, d, sc, P, A);
    if (!clamped)
        return psi;
    /* Linearize at the compression limit with a definite slope (Irving 2.6, 2.14). */
    seam_sym_project_psd(d, A);
    for (int i = 0; i < d; i++) {
        double Ad = 0.0;
        for (int j = 0; j < d; j++)
            Ad += A[i * d + j] * delta[j];
        psi += P[i] * delta[i] + 0.5 * Ad * delta[i];
        P[i] += Ad;
    }
    return psi;
}

double fem_first_piola(const fem_material *m, int d, const double *F, double *P, double *dPdF)
{
    double U[9], V[9], s[3], Ph[3], A[9];
    seam_svd_rotation(d, F, U, s, V);
    double psi = fem_diag_stress(m, d, s, Ph, A);
    /* P = U Phat V^T (Irving eq. 2.1). */
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double sum = 0.0;
            for (int a = 0; a < d; a++)
                sum += U[i * d + a] * Ph[a] * V[j * d + a];
            P[i * d + j] = sum;
        }
    if (!dPdF)
        return psi;
    /* Tangent in the rotated frame: the diagonal block A and one 2x2 block per
     * pair (a,b) with eigenvalues x, y; clamping them makes it definite. */
    int dd = d * d;
    double Ch[81];
    memset(Ch, 0, sizeof Ch);
    double Ap[9];
    memcpy(Ap, A, sizeof Ap);
    seam_sym_project_psd(d, Ap);
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++)
            Ch[(a * d + a) * dd + b * d + b] = Ap[a * d + b];
    for (int a = 0; a < d; a++)
        for (int b = a + 1; b < d; b++) {
            double ds = s[a] - s[b], ss = s[a] + s[b];
            double x = fabs(ds) > 1e-6 * (1.0 + fabs(s[a])) ? (Ph[a] - Ph[b]) / ds : A[a * d + a] - A[a * d + b];
            double y = (Ph[a] + Ph[b]) / (fabs(ss) > 1e-6 ? ss : (ss < 0 ? -1e-6 : 1e-6));
            x = fmax(x, 0.0);
            y = fmax(y, 0.0);
            int ab = a * d + b, ba = b * d + a;
            Ch[ab * dd + ab] = Ch[ba * dd + ba] = 0.5 * (x + y);
            Ch[ab * dd + ba] = Ch[ba * dd + ab] = 0.5 * (x - y);
        }
    /* Rotate back: dP_ij/dF_kl = sum Ch[ab][ce] U_ia V_jb U_kc V_le. */
    double R[81];   /* R[(i*d+j)*dd + a*d+b] = U_ia V_jb */
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++)
            for (int a = 0; a < d; a++)
                for (int b = 0; b < d; b++)
                    R[(i * d + j) * dd + a * d + b] = U[i * d + a] * V[j * d + b];
    double T[81];   /* T = R Ch */
    for (int p = 0; p < dd; p++)
        for (int q = 0; q < dd; q++) {
            double sum = 0.0;
            for (int r = 0; r < dd; r++)
                sum += R[p * dd + r] * Ch[r * dd + q];
            T[p * dd + q] = sum;
        }
    for (int p = 0; p < dd; p++)
        for (int q = 0; q < dd; q++) {
            double sum = 0.0;
            for (int r = 0; r < dd; r++)
                sum += T[p * dd + r] * R[q * dd + r];
            dPdF[p * dd + q] = sum;
        }
    return psi;
}
