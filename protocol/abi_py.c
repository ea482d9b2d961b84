/* Writes seam_abi.py, the Python client's view of the plugin ABI, from
 * plugin.h's entry list, statuses and log levels, so the Python side cannot fall out of step. */
#include <stdio.h>

#include "seam/plugin.h"
#include "seam/vtk.h"
#include "shape_list.h"

/* SHAPES[name] = (receiver, "(KIND, ...)", ...): what travels for each shaped entry (plugin.h). */
#define PY_SHAPE_1(name, recv, p0) fprintf(f, "SHAPES[\"%s\"] = (\"%s\", \"%s\")\n", #name, #recv, #p0);
#define PY_SHAPE_2(name, recv, p0, p1) \
    fprintf(f, "SHAPES[\"%s\"] = (\"%s\", \"%s\", \"%s\")\n", #name, #recv, #p0, #p1);
#define PY_SHAPE_3(name, recv, p0, p1, p2) \
    fprintf(f, "SHAPES[\"%s\"] = (\"%s\", \"%s\", \"%s\", \"%s\")\n", #name, #recv, #p0, #p1, #p2);
#define PY_SHAPE(name, abi, need, shape) WIRE_SHAPED(PY_SHAPE_, name, shape)
/* STRUCTS[type] = ((member, kind, flags, k, (length members...)), ...) for each struct handed over. */
#define PY_M0(member, kind, flags, k) fprintf(f, "    (\"%s\", %d, %d, %d, ()),\n", #member, kind, flags, k);
#define PY_M1(member, kind, flags, k, a) \
    fprintf(f, "    (\"%s\", %d, %d, %d, (\"%s\",)),\n", #member, kind, flags, k, #a);
#define PY_M2(member, kind, flags, k, a, b) \
    fprintf(f, "    (\"%s\", %d, %d, %d, (\"%s\", \"%s\")),\n", #member, kind, flags, k, #a, #b);
#define PY_ST_STEP(i, ...)
#define PY_ST_IN_F64S(i, ...)
#define PY_ST_OUT_F64S(i, ...)
#define PY_ST_IN_BYTES(i, ...)
#define PY_ST_IN_STR(i, ...)
#define PY_ST_IN_PATH(i, ...)
#define PY_ST_IN_INDEX(i, ...)
#define PY_ST_IN_STRUCT(i, type) PY_ST_OUT_STRUCT(i, type)
#define PY_ST_OUT_STRUCT(i, type) \
    fprintf(f, "STRUCTS[\"%s\"] = (\n", #type); SEAM_SHAPE_##type(PY_M0, PY_M1, PY_M2) fprintf(f, ")\n");
#define PY_STS_1(name, recv, p0) WIRE_P(PY_ST_, 0, p0)
#define PY_STS_2(name, recv, p0, p1) WIRE_P(PY_ST_, 0, p0) WIRE_P(PY_ST_, 1, p1)
#define PY_STS_3(name, recv, p0, p1, p2) WIRE_P(PY_ST_, 0, p0) WIRE_P(PY_ST_, 1, p1) WIRE_P(PY_ST_, 2, p2)
#define PY_STS(name, abi, need, shape) WIRE_SHAPED(PY_STS_, name, shape)

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
            (unsigned)SEAM_CAP_LOADS_PRESSURE, (unsigned)SEAM_CAP_LOADS_IMPULSE, (unsigned)SEAM_CAP_RIGID,
            (unsigned)SEAM_CAP_REGIONS, (unsigned)SEAM_CAP_MOBILITY, (unsigned)SEAM_CAP_SAVE);
    fprintf(f, "STATUS_OK, STATUS_ERROR, STATUS_UNSTABLE = %d, %d, %d\n", SEAM_OK, SEAM_ERROR, SEAM_UNSTABLE);
    fprintf(f, "LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR = %d, %d, %d, %d\n", SEAM_LOG_DEBUG, SEAM_LOG_INFO,
            SEAM_LOG_WARN, SEAM_LOG_ERROR);
    fprintf(f, "W_INT, W_SIZE, W_F64S, W_I32S, W_U8S, W_BYTES, W_STRS = %d, %d, %d, %d, %d, %d, %d\nW_OPT = %d\n",
            SEAM_W_INT, SEAM_W_SIZE, SEAM_W_F64S, SEAM_W_I32S, SEAM_W_U8S, SEAM_W_BYTES, SEAM_W_STRS, SEAM_W_OPT);
    fprintf(f, "SHAPES = {}\n");
    SEAM_PLUGIN_ENTRIES(PY_SHAPE)
    fprintf(f, "STRUCTS = {}\n");
    SEAM_PLUGIN_ENTRIES(PY_STS)
    fprintf(f, "VTK_FORMATS = (");
    for (int i = 0; seam_vtk_format_names[i]; i++)
        fprintf(f, "\"%s\", ", seam_vtk_format_names[i]);
    fprintf(f, ")\n");
    return fclose(f) == 0 ? 0 : 1;
}
