/* fluid_sph: the configuration's keys into sph_config, each key's default
 * here and each number's range in ranges.c, which the reading call takes
 * (docs/fluid_sph.md lists them). */
#include <math.h>
#include <stdlib.h>

#include "seam/config.h"
#include "fluid_sph.h"
#include "ranges.h"

int sph_config_read(sph_config *c, seam_cfg *cfg, const seam_host *host)
{
    size_t nd = 0;
    double *dom = seam_cfg_key_numbers(cfg, SPH_KEYS, "domain", &nd, SEAM_CFG_REQUIRED);
    c->dim = 2;
    if (dom && nd != 4 && nd != 6)
        seam_cfg_error(cfg, "domain", "expected [x0, y0, x1, y1] (2D) or [x0, y0, z0, x1, y1, z1] (3D), got %zu numbers",
                       nd);
    else if (dom) {
        c->dim = (int)nd / 2;
        for (int d = 0; d < c->dim; d++) {
            c->lo[d] = dom[d];
            c->hi[d] = dom[c->dim + d];
            if (!(c->lo[d] < c->hi[d]))
                seam_cfg_error(cfg, "domain", "empty along %c: need %c0 < %c1", "xyz"[d], "xyz"[d], "xyz"[d]);
        }
    }
    free(dom);
    size_t dim = (size_t)c->dim;
    double cell = host && host->cell_size > 0 ? host->cell_size : 0.0;
    c->s = seam_cfg_key(cfg, SPH_KEYS, "spacing", cell, cell > 0 ? 0 : SEAM_CFG_REQUIRED);
    size_t nf = 0;
    c->fill = seam_cfg_key_numbers(cfg, SPH_KEYS, "fill", &nf, SEAM_CFG_REQUIRED);
    if (c->fill && (nf == 0 || nf % (2 * dim) != 0))
        seam_cfg_error(cfg, "fill", "expected boxes as %s (a multiple of %zu numbers), got %zu numbers",
                       dim == 3 ? "x0 y0 z0 x1 y1 z1" : "x0 y0 x1 y1", 2 * dim, nf);
    c->n_fill = nf / (2 * dim);
    for (size_t b = 0; b < c->n_fill; b++)
        for (size_t d = 0; d < dim; d++)
            if (!(c->fill[2 * dim * b + d] < c->fill[2 * dim * b + dim + d])) {
                seam_cfg_error(cfg, "fill", "box %zu is empty: need %c0 < %c1", b, "xyz"[d], "xyz"[d]);
                break;
            }
    c->rho0 = seam_cfg_key(cfg, SPH_KEYS, "density", 1000.0, 0);
    static const double g_default[3] = {0.0, -9.81, 0.0};
    seam_cfg_gravity(cfg, host, c->dim, g_default, c->gravity);
    c->cfl = seam_cfg_key(cfg, SPH_KEYS, "cfl", 0.2, 0);
    c->xsph = seam_cfg_key(cfg, SPH_KEYS, "xsph", 0.05, 0);
    static const char *const solvers[] = {"dfsph", "takahashi", NULL};
    int takahashi = seam_cfg_enum(cfg, "pressure_solver", solvers, 0, 0) == 1;
    /* Takahashi's threshold is 0.01% (ch. 3.6) */
    c->eta_rho = seam_cfg_key(cfg, SPH_KEYS, "density_tolerance", takahashi ? 1e-4 : 5e-4, 0);
    c->eta_div = seam_cfg_key(cfg, SPH_KEYS, "divergence_tolerance", 1e-3, 0);
    c->max_iter = (int)seam_cfg_key_int(cfg, SPH_KEYS, "max_iterations", 100, 0);
    c->mu = seam_cfg_key(cfg, SPH_KEYS, "viscosity", 0.0, 0);
    c->eta_visc = seam_cfg_key(cfg, SPH_KEYS, "viscosity_tolerance", 1e-4, 0);
    c->step_cache = seam_cfg_bool(cfg, "step_cache", 1, 0);
    c->tak_opts = (sph_takahashi_opts){c->eta_rho, c->max_iter,
                                          seam_cfg_key(cfg, SPH_KEYS, "multigrid_lambda", 0.5, 0),
                                          seam_cfg_bool(cfg, "multigrid", true, 0) ? 1 : 0};
    if (!takahashi) {
        static const char *const only[] = {"multigrid_lambda", "multigrid"};
        for (size_t q = 0; q < sizeof only / sizeof only[0]; q++)
            if (seam_cfg_has(cfg, only[q]))
                seam_cfg_error(cfg, only[q], "applies to \"pressure_solver\": \"takahashi\" only");
    } else if (seam_cfg_has(cfg, "divergence_tolerance")) {
        seam_cfg_error(cfg, "divergence_tolerance", "applies to \"pressure_solver\": \"dfsph\" only (the takahashi "
                       "solver has no divergence solve)");
    }
    c->solver_takahashi = takahashi;
    return seam_cfg_finish(cfg) == SEAM_OK ? 0 : -1;
}
