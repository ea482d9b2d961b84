/* fluid_sph: a particle fluid, divergence-free SPH (Bender and Koschier 2015,
 * 2017) in 2D and 3D, coupled to solids through the seam plugin contract as
 * in Akbay ch. 3: the solids' surfaces become boundary particles (Akinci et
 * al. 2012), the loads are the reflected pressure forces on them. This file
 * is its table; fluid_sph.h says where each part lives. */
#include "fluid_sph.h"

static uint32_t fluid_capabilities(void *p)
{
    (void)p;
    return SEAM_CAP_LOADS_PRESSURE | SEAM_CAP_LOADS_IMPULSE | SEAM_CAP_REGIONS | SEAM_CAP_SAVE;
}

/* The walled box: interface points beyond it are out of the fluid's reach. */
static seam_status fluid_domain(void *p, double lo[3], double hi[3])
{
    const fluid_sph *self = p;
    for (int d = 0; d < 3; d++) {
        lo[d] = d < self->cfg.dim ? self->cfg.lo[d] : 0.0;
        hi[d] = d < self->cfg.dim ? self->cfg.hi[d] : 0.0;
    }
    return SEAM_OK;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "fluid_sph",
    .role = SEAM_FLUID,
    .summary = "2D/3D divergence-free SPH liquid: walled domain, free surface, solids as boundary particles",
    .create = fluid_sph_create,
    .destroy = fluid_sph_destroy,
    .max_dt = fluid_sph_max_dt,
    .solve = fluid_sph_solve,
    .commit = fluid_sph_commit,
    .bind = fluid_sph_bind,
    .regions = fluid_sph_regions,
    .save = fluid_sph_save,
    .load = fluid_sph_load,
    .field = fluid_sph_field,
    .write_output = fluid_sph_write_output,
    .capabilities = fluid_capabilities,
    .domain = fluid_domain,
};

/* The one exported symbol; everything else in the module is hidden. */
SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &plugin; }
