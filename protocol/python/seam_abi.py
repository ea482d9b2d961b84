# Generated from core/include/seam/plugin.h by protocol/abi_py.c; do not edit.
ABI_VERSION = 6
ABI_OLDEST = 2
NEED_NONE, NEED_ALL, NEED_SOLID, NEED_FLUID = 0, 1, 2, 3
# (name, abi that introduced it, who must provide it), in table order
ENTRIES = (
    ("create", 2, 1),
    ("destroy", 2, 1),
    ("max_dt", 2, 1),
    ("solve", 2, 1),
    ("commit", 2, 1),
    ("describe", 2, 2),
    ("bind", 2, 3),
    ("regions", 2, 0),
    ("mobility", 2, 0),
    ("save", 2, 0),
    ("load", 2, 0),
    ("field", 2, 0),
    ("write_output", 2, 0),
    ("capabilities", 3, 0),
    ("domain", 4, 0),
    ("bodies", 5, 0),
    ("keys", 6, 0),
)
CAP_LOADS_PRESSURE = 1
CAP_LOADS_IMPULSE = 2
CAP_RIGID = 4
CAP_REGIONS = 8
CAP_MOBILITY = 16
CAP_SAVE = 32
STATUS_OK, STATUS_ERROR, STATUS_UNSTABLE = 0, 1, 2
LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR = 0, 1, 2, 3
W_INT, W_SIZE, W_F64S, W_I32S, W_U8S, W_BYTES, W_STRS = 1, 2, 3, 4, 5, 6, 7
W_OPT = 1
SHAPES = {}
SHAPES["describe"] = ("SEAM_READS", "(OUT_STRUCT, seam_interface)")
SHAPES["bind"] = ("SEAM_CHANGES", "(IN_STRUCT, seam_interface)")
SHAPES["regions"] = ("SEAM_READS", "(STEP)", "(IN_F64S, X, IFACE)", "(OUT_STRUCT, seam_regions)")
SHAPES["mobility"] = ("SEAM_READS", "(IN_F64S, impulse, IFACE)", "(OUT_F64S, dv, IFACE)")
SHAPES["save"] = ("SEAM_READS", "(OUT_STRUCT, seam_buffer)")
SHAPES["load"] = ("SEAM_CHANGES", "(IN_BYTES, data)")
SHAPES["write_output"] = ("SEAM_READS", "(IN_PATH, dir)", "(IN_INDEX, frame)")
SHAPES["domain"] = ("SEAM_READS", "(OUT_F64S, lo, 3)", "(OUT_F64S, hi, 3)")
SHAPES["keys"] = ("SEAM_PLUGIN", "(OUT_STRUCT, seam_keys)")
STRUCTS = {}
STRUCTS["seam_interface"] = (
    ("dim", 1, 0, 1, ()),
    ("n_points", 2, 0, 1, ()),
    ("nodes_per_elem", 1, 0, 1, ()),
    ("n_elems", 2, 0, 1, ()),
    ("n_bodies", 2, 1, 1, ()),
    ("X", 3, 0, 1, ("n_points", "dim")),
    ("mass", 3, 1, 1, ("n_points",)),
    ("body", 4, 1, 1, ("n_points",)),
    ("elems", 4, 0, 1, ("n_elems", "nodes_per_elem")),
    ("two_sided", 5, 1, 1, ("n_elems",)),
)
STRUCTS["seam_interface"] = (
    ("dim", 1, 0, 1, ()),
    ("n_points", 2, 0, 1, ()),
    ("nodes_per_elem", 1, 0, 1, ()),
    ("n_elems", 2, 0, 1, ()),
    ("n_bodies", 2, 1, 1, ()),
    ("X", 3, 0, 1, ("n_points", "dim")),
    ("mass", 3, 1, 1, ("n_points",)),
    ("body", 4, 1, 1, ("n_points",)),
    ("elems", 4, 0, 1, ("n_elems", "nodes_per_elem")),
    ("two_sided", 5, 1, 1, ("n_elems",)),
)
STRUCTS["seam_regions"] = (
    ("count", 2, 0, 1, ()),
    ("n", 2, 0, 1, ()),
    ("C", 3, 0, 1, ("count", "n")),
    ("q", 3, 0, 1, ("count",)),
    ("M", 3, 1, 1, ("count", "n")),
)
STRUCTS["seam_buffer"] = (
    ("data", 6, 0, 1, ("size",)),
)
STRUCTS["seam_keys"] = (
    ("count", 2, 0, 1, ()),
    ("name", 7, 0, 1, ("count",)),
    ("type", 4, 0, 1, ("count",)),
    ("lo", 3, 0, 1, ("count",)),
    ("hi", 3, 0, 1, ("count",)),
    ("choices", 7, 0, 1, ("count",)),
    ("doc", 7, 0, 1, ("count",)),
)
VTK_FORMATS = ("xml", "legacy", "xml_float32", )
