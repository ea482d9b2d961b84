/* The module's one exported symbol; everything else in it is hidden, and the
 * static library (used by plugins/monolithic and the tests) does not define it. */
#include "fluid.h"

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return fluid_mac_table(); }
