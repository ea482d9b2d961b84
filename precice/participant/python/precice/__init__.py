"""preCICE version 3's Python API (the names, arguments and array shapes of
the python-bindings' precice.Participant) over seam's libprecice.

Errors in the coupling stop the program with "preCICE (seam): ERROR: ..."
as preCICE does; wrong array shapes raise ValueError before any call.
"""
import ctypes
import os

import numpy as np

__all__ = ["Participant", "get_version_information"]


def _load_library():
    here = os.path.dirname(os.path.abspath(__file__))
    # installed: LIBDIR/seam/precice/{python/precice,lib}; build tree: beside python/
    for candidate in (os.path.join(here, "..", "..", "lib", "libprecice.so.3"),
                      os.path.join(here, "..", "..", "libprecice.so.3")):
        if os.path.exists(candidate):
            return ctypes.CDLL(os.path.normpath(candidate))
    raise ImportError("seam's libprecice.so.3 is neither in %s nor in %s" %
                      (os.path.normpath(os.path.join(here, "..", "..", "lib")),
                       os.path.normpath(os.path.join(here, "..", ".."))))


_lib = _load_library()
_c_str = ctypes.c_char_p
_c_int = ctypes.c_int
_c_double = ctypes.c_double
_int_p = ctypes.POINTER(ctypes.c_int)
_double_p = ctypes.POINTER(ctypes.c_double)
_SIGNATURES = {
    "precicec_createParticipant": (None, [_c_str, _c_str, _c_int, _c_int]),
    "precicec_createParticipant_withCommunicator": (None, [_c_str, _c_str, _c_int, _c_int, ctypes.c_void_p]),
    "precicec_initialize": (None, []),
    "precicec_advance": (None, [_c_double]),
    "precicec_finalize": (None, []),
    "precicec_requiresWritingCheckpoint": (_c_int, []),
    "precicec_requiresReadingCheckpoint": (_c_int, []),
    "precicec_getMeshDimensions": (_c_int, [_c_str]),
    "precicec_getDataDimensions": (_c_int, [_c_str, _c_str]),
    "precicec_isCouplingOngoing": (_c_int, []),
    "precicec_isTimeWindowComplete": (_c_int, []),
    "precicec_getMaxTimeStepSize": (_c_double, []),
    "precicec_requiresMeshConnectivityFor": (_c_int, [_c_str]),
    "precicec_resetMesh": (None, [_c_str]),
    "precicec_setMeshVertex": (_c_int, [_c_str, _double_p]),
    "precicec_getMeshVertexSize": (_c_int, [_c_str]),
    "precicec_setMeshVertices": (None, [_c_str, _c_int, _double_p, _int_p]),
    "precicec_setMeshEdge": (None, [_c_str, _c_int, _c_int]),
    "precicec_setMeshEdges": (None, [_c_str, _c_int, _int_p]),
    "precicec_setMeshTriangle": (None, [_c_str, _c_int, _c_int, _c_int]),
    "precicec_setMeshTriangles": (None, [_c_str, _c_int, _int_p]),
    "precicec_setMeshQuad": (None, [_c_str, _c_int, _c_int, _c_int, _c_int]),
    "precicec_setMeshQuads": (None, [_c_str, _c_int, _int_p]),
    "precicec_setMeshTetrahedron": (None, [_c_str, _c_int, _c_int, _c_int, _c_int]),
    "precicec_setMeshTetrahedra": (None, [_c_str, _c_int, _int_p]),
    "precicec_requiresInitialData": (_c_int, []),
    "precicec_writeData": (None, [_c_str, _c_str, _c_int, _int_p, _double_p]),
    "precicec_readData": (None, [_c_str, _c_str, _c_int, _int_p, _c_double, _double_p]),
    "precicec_writeAndMapData": (None, [_c_str, _c_str, _c_int, _double_p, _double_p]),
    "precicec_mapAndReadData": (None, [_c_str, _c_str, _c_int, _double_p, _c_double, _double_p]),
    "precicec_setMeshAccessRegion": (None, [_c_str, _double_p]),
    "precicec_getMeshVertexIDsAndCoordinates": (None, [_c_str, _c_int, _int_p, _double_p]),
    "precicec_requiresGradientDataFor": (_c_int, [_c_str, _c_str]),
    "precicec_writeGradientData": (None, [_c_str, _c_str, _c_int, _int_p, _double_p]),
    "precicec_startProfilingSection": (None, [_c_str]),
    "precicec_stopLastProfilingSection": (None, []),
    "precicec_getVersionInformation": (_c_str, []),
}
for _name, (_res, _args) in _SIGNATURES.items():
    _f = getattr(_lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def _s(text):
    return text.encode() if isinstance(text, str) else bytes(text)


def _doubles(values, what):
    a = np.ascontiguousarray(values, dtype=np.double)
    return a, a.ctypes.data_as(_double_p)


def _ints(values, what):
    a = np.ascontiguousarray(values)
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise ValueError("%s must hold integer vertex ids, not %s" % (what, a.dtype))
    a = np.ascontiguousarray(a, dtype=np.intc)
    return a, a.ctypes.data_as(_int_p)


def _check_array_like(value, name, call):
    if not hasattr(value, "__len__"):
        raise TypeError("%s: %s must be array-like (a list, tuple or numpy array), not %s"
                        % (call, name, type(value).__name__))


def get_version_information():
    """The library's version text (bytes, as the python-bindings return it)."""
    return _lib.precicec_getVersionInformation()


class Participant:
    """One preCICE participant of this process (preCICE's C API keeps one)."""

    def __init__(self, solver_name, configuration_file_name, solver_process_index, solver_process_size,
                 communicator=None):
        self._finalized = False
        if communicator is None:
            _lib.precicec_createParticipant(_s(solver_name), _s(configuration_file_name),
                                            int(solver_process_index), int(solver_process_size))
        else:
            self._comm = ctypes.c_void_p(id(communicator))   # opaque: each rank talks to the coupler itself
            _lib.precicec_createParticipant_withCommunicator(
                _s(solver_name), _s(configuration_file_name), int(solver_process_index),
                int(solver_process_size), ctypes.addressof(self._comm))

    def __del__(self):
        if not getattr(self, "_finalized", True):
            self.finalize()

    # steering
    def initialize(self):
        _lib.precicec_initialize()

    def advance(self, computed_timestep_length):
        _lib.precicec_advance(float(computed_timestep_length))

    def finalize(self):
        if not self._finalized:
            self._finalized = True
            _lib.precicec_finalize()

    # status queries
    def get_mesh_dimensions(self, mesh_name):
        return _lib.precicec_getMeshDimensions(_s(mesh_name))

    def get_data_dimensions(self, mesh_name, data_name):
        return _lib.precicec_getDataDimensions(_s(mesh_name), _s(data_name))

    def is_coupling_ongoing(self):
        return bool(_lib.precicec_isCouplingOngoing())

    def is_time_window_complete(self):
        return bool(_lib.precicec_isTimeWindowComplete())

    def get_max_time_step_size(self):
        return _lib.precicec_getMaxTimeStepSize()

    def requires_initial_data(self):
        return bool(_lib.precicec_requiresInitialData())

    def requires_writing_checkpoint(self):
        return bool(_lib.precicec_requiresWritingCheckpoint())

    def requires_reading_checkpoint(self):
        return bool(_lib.precicec_requiresReadingCheckpoint())

    # meshes
    def requires_mesh_connectivity_for(self, mesh_name):
        return bool(_lib.precicec_requiresMeshConnectivityFor(_s(mesh_name)))

    def reset_mesh(self, mesh_name):
        _lib.precicec_resetMesh(_s(mesh_name))

    def set_mesh_vertex(self, mesh_name, position):
        _check_array_like(position, "position", "set_mesh_vertex")
        dim = self.get_mesh_dimensions(mesh_name)
        p, ptr = _doubles(position, "position")
        if p.size != dim:
            raise ValueError("set_mesh_vertex: the position has %d entries; mesh %s is %dD" % (p.size, mesh_name, dim))
        return _lib.precicec_setMeshVertex(_s(mesh_name), ptr)

    def get_mesh_vertex_size(self, mesh_name):
        return _lib.precicec_getMeshVertexSize(_s(mesh_name))

    def set_mesh_vertices(self, mesh_name, positions):
        _check_array_like(positions, "positions", "set_mesh_vertices")
        dim = self.get_mesh_dimensions(mesh_name)
        p, ptr = _doubles(positions, "positions")
        if p.size and (p.ndim != 2 or p.shape[1] != dim):
            raise ValueError("set_mesh_vertices: positions has shape %s, not (n, %d)" % (p.shape, dim))
        n = p.shape[0] if p.size else 0
        ids = np.zeros(n, dtype=np.intc)
        _lib.precicec_setMeshVertices(_s(mesh_name), n, ptr, ids.ctypes.data_as(_int_p))
        return ids.astype(np.int32)

    def _cells(self, fn, mesh_name, vertices, per_cell, call):
        _check_array_like(vertices, "vertices", call)
        v, ptr = _ints(vertices, "vertices")
        if v.size % per_cell or (v.size and v.ndim == 2 and v.shape[1] != per_cell):
            raise ValueError("%s: vertices has shape %s, not (n, %d)" % (call, v.shape, per_cell))
        fn(_s(mesh_name), v.size // per_cell, ptr)

    def set_mesh_edge(self, mesh_name, first_vertex_id, second_vertex_id):
        _lib.precicec_setMeshEdge(_s(mesh_name), int(first_vertex_id), int(second_vertex_id))

    def set_mesh_edges(self, mesh_name, vertices):
        self._cells(_lib.precicec_setMeshEdges, mesh_name, vertices, 2, "set_mesh_edges")

    def set_mesh_triangle(self, mesh_name, first_vertex_id, second_vertex_id, third_vertex_id):
        _lib.precicec_setMeshTriangle(_s(mesh_name), int(first_vertex_id), int(second_vertex_id),
                                      int(third_vertex_id))

    def set_mesh_triangles(self, mesh_name, vertices):
        self._cells(_lib.precicec_setMeshTriangles, mesh_name, vertices, 3, "set_mesh_triangles")

    def set_mesh_quad(self, mesh_name, first_vertex_id, second_vertex_id, third_vertex_id, fourth_vertex_id):
        _lib.precicec_setMeshQuad(_s(mesh_name), int(first_vertex_id), int(second_vertex_id),
                                  int(third_vertex_id), int(fourth_vertex_id))

    def set_mesh_quads(self, mesh_name, vertices):
        self._cells(_lib.precicec_setMeshQuads, mesh_name, vertices, 4, "set_mesh_quads")

    def set_mesh_tetrahedron(self, mesh_name, first_vertex_id, second_vertex_id, third_vertex_id,
                             fourth_vertex_id):
        _lib.precicec_setMeshTetrahedron(_s(mesh_name), int(first_vertex_id), int(second_vertex_id),
                                         int(third_vertex_id), int(fourth_vertex_id))

    def set_mesh_tetrahedra(self, mesh_name, vertices):
        self._cells(_lib.precicec_setMeshTetrahedra, mesh_name, vertices, 4, "set_mesh_tetrahedra")

    # data
    def _values_shape(self, mesh_name, data_name, n):
        dim = self.get_data_dimensions(mesh_name, data_name)
        return dim, ((n,) if dim == 1 or n == 0 else (n, dim))   # (0,) for no vertices, as the bindings

    def write_data(self, mesh_name, data_name, vertex_ids, values):
        _check_array_like(vertex_ids, "vertex_ids", "write_data")
        _check_array_like(values, "values", "write_data")
        ids, ids_ptr = _ints(vertex_ids, "vertex_ids")
        v, v_ptr = _doubles(values, "values")
        dim, shape = self._values_shape(mesh_name, data_name, ids.size)
        if v.size != ids.size * dim:
            raise ValueError("write_data: values has shape %s, not %s" % (v.shape, shape))
        _lib.precicec_writeData(_s(mesh_name), _s(data_name), ids.size, ids_ptr, v_ptr)

    def read_data(self, mesh_name, data_name, vertex_ids, relative_read_time):
        _check_array_like(vertex_ids, "vertex_ids", "read_data")
        ids, ids_ptr = _ints(vertex_ids, "vertex_ids")
        dim, shape = self._values_shape(mesh_name, data_name, ids.size)
        out = np.zeros(ids.size * dim, dtype=np.double)
        _lib.precicec_readData(_s(mesh_name), _s(data_name), ids.size, ids_ptr, float(relative_read_time),
                               out.ctypes.data_as(_double_p))
        return out.reshape(shape)

    def write_and_map_data(self, mesh_name, data_name, coordinates, values):
        c, c_ptr = _doubles(coordinates, "coordinates")
        v, v_ptr = _doubles(values, "values")
        _lib.precicec_writeAndMapData(_s(mesh_name), _s(data_name), 0, c_ptr, v_ptr)

    def map_and_read_data(self, mesh_name, data_name, coordinates, relative_read_time):
        c, c_ptr = _doubles(coordinates, "coordinates")
        out = np.zeros(1, dtype=np.double)
        _lib.precicec_mapAndReadData(_s(mesh_name), _s(data_name), 0, c_ptr, float(relative_read_time),
                                     out.ctypes.data_as(_double_p))
        return out

    def requires_gradient_data_for(self, mesh_name, data_name):
        return bool(_lib.precicec_requiresGradientDataFor(_s(mesh_name), _s(data_name)))

    def write_gradient_data(self, mesh_name, data_name, vertex_ids, gradients):
        ids, ids_ptr = _ints(vertex_ids, "vertex_ids")
        g, g_ptr = _doubles(gradients, "gradients")
        _lib.precicec_writeGradientData(_s(mesh_name), _s(data_name), ids.size, ids_ptr, g_ptr)

    # direct mesh access
    def set_mesh_access_region(self, mesh_name, bounding_box):
        _check_array_like(bounding_box, "bounding_box", "set_mesh_access_region")
        dim = self.get_mesh_dimensions(mesh_name)
        b, ptr = _doubles(bounding_box, "bounding_box")
        if b.size != 2 * dim:
            raise ValueError("set_mesh_access_region: bounding_box has %d entries, not %d" % (b.size, 2 * dim))
        _lib.precicec_setMeshAccessRegion(_s(mesh_name), ptr)

    def get_mesh_vertex_ids_and_coordinates(self, mesh_name):
        dim = self.get_mesh_dimensions(mesh_name)
        n = self.get_mesh_vertex_size(mesh_name)
        ids = np.zeros(n, dtype=np.intc)
        coords = np.zeros(n * dim, dtype=np.double)
        _lib.precicec_getMeshVertexIDsAndCoordinates(_s(mesh_name), n, ids.ctypes.data_as(_int_p),
                                                     coords.ctypes.data_as(_double_p))
        return ids.astype(np.int32), coords.reshape((n, dim))

    # profiling
    def start_profiling_section(self, event_name):
        _lib.precicec_startProfilingSection(_s(event_name))

    def stop_last_profiling_section(self):
        _lib.precicec_stopLastProfilingSection()
