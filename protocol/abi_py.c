/* Writes seam_abi.py, the Python client's view of the plugin ABI, from
 * plugin.h's entry list, statuses and log levels, so the Python side cannot fall out of step. */
#include <stdio.h>

#include "seam/plugin.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTPUT.py\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fprintf(f, "# Generated from core/include/seam/plugin.h by protocol/abi_py.c; do not edit.\n");
    fprintf(f, "ABI_VERSION = %u\nABI_OLDEST = %u\n", SEAM_ABI_VERSION, SEAM_ABI_OLDEST);
    fprintf(f, "NEED_NONE, NEED_ALL, NEED_SOLID, NEED_FLUID = %d, %d, %d, %d\n", SEAM_NEED_NONE, SEAM_NEED_ALL,
            SEAM_NEED_SOLID, SEAM_NEED_FLUID);
    fprintf(f, "# (name, abi that introduced it, who must provide it), in table order\nENTRIES = (\n");
#define PY_ENTRY(fn, version, needed, shape) fprintf(f, "    (\"%s\", %d, %d),\n", #fn, version, needed);
    SEAM_PLUGIN_ENTRIES(PY_ENTRY)
#undef PY_ENTRY
    fprintf(f, ")\nCAP_LOADS_PRESSURE = %u\nCAP_LOADS_IMPULSE = %u\nCAP_RIGID = %u\nCAP_REGIONS = %u\n"
               "CAP_MOBILITY = %u\nCAP_SAVE = %u\n",
            SEAM_CAP_LOADS_PRESSURE, SEAM_CAP_LOADS_IMPULSE, SEAM_CAP_RIGID, SEAM_CAP_REGIONS, SEAM_CAP_MOBILITY,
            SEAM_CAP_SAVE);
    fprintf(f, "STATUS_OK, STATUS_ERROR, STATUS_UNSTABLE = %d, %d, %d\n", SEAM_OK, SEAM_ERROR, SEAM_UNSTABLE);
    fprintf(f, "LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR = %d, %d, %d, %d\n", SEAM_LOG_DEBUG, SEAM_LOG_INFO,
            SEAM_LOG_WARN, SEAM_LOG_ERROR);
    return fclose(f) == 0 ? 0 : 1;
}
