/* The module's one exported symbol; the static library (used by
 * plugins/monolithic and the tests) does not define it. */
#include "rigid.h"

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return solid_rigid_table(); }
