/* The registry of coupling schemes. */
#include <string.h>

#include "scheme.h"

static const seam_scheme_ops *const all[] = {
    &seam_scheme_explicit,
    &seam_scheme_relaxation,
    &seam_scheme_aitken,
    &seam_scheme_iqn_ils,
    &seam_scheme_iqn_imvj,
    &seam_scheme_rmi,
    &seam_scheme_xpm,
    &seam_scheme_newton_fd,
};

size_t seam_scheme_count(void) { return sizeof all / sizeof all[0]; }
const seam_scheme_ops *seam_scheme_at(size_t i) { return i < seam_scheme_count() ? all[i] : NULL; }

const seam_scheme_ops *seam_scheme_find(const char *name)
{
    for (size_t i = 0; i < seam_scheme_count(); i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
