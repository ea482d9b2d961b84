/* The monolithic plugin's one exported symbol. */
#include "plugin.h"

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return monolithic_table(); }
