/* preCICE version 3's C API, as implemented by seam's libprecice.
 *
 * The names, arguments and meanings are preCICE's (precicec_*, one
 * participant per process); the coupling runs in a seam coupler that the
 * first participant starts (precice/PROTOCOL.md). A call seam cannot honour
 * (gradient data, just-in-time mapping, mesh resets) stops the program
 * with "preCICE (seam): ERROR: ..." naming the call, as preCICE stops on
 * an error. docs/precice.md lists what differs from preCICE. */
#ifndef SEAM_PRECICE_C_H
#define SEAM_PRECICE_C_H

#include <precice/Version.h>
#include <precice/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Construction: rank and size of the solver's processes; seam runs one. */
PRECICE_API void precicec_createParticipant(const char *participantName, const char *configFileName,
                                            int solverProcessIndex, int solverProcessSize);
/* communicator: an MPI_Comm's address; only size 1 is accepted here. */
PRECICE_API void precicec_createParticipant_withCommunicator(const char *participantName,
                                                             const char *configFileName,
                                                             int solverProcessIndex,
                                                             int solverProcessSize, void *communicator);

/* Steering */
PRECICE_API void precicec_initialize(void);
PRECICE_API void precicec_advance(double computedTimeStepSize);
PRECICE_API void precicec_finalize(void);

/* Implicit coupling (1: yes, 0: no) */
PRECICE_API int precicec_requiresWritingCheckpoint(void);
PRECICE_API int precicec_requiresReadingCheckpoint(void);

/* Status queries */
PRECICE_API int precicec_getMeshDimensions(const char *meshName);
PRECICE_API int precicec_getDataDimensions(const char *meshName, const char *dataName);
PRECICE_API int precicec_isCouplingOngoing(void);
PRECICE_API int precicec_isTimeWindowComplete(void);
PRECICE_API double precicec_getMaxTimeStepSize(void);

/* Mesh access: vertices and connectivity of the meshes this participant provides */
PRECICE_API int precicec_requiresMeshConnectivityFor(const char *meshName);
PRECICE_API void precicec_resetMesh(const char *meshName);
PRECICE_API int precicec_setMeshVertex(const char *meshName, const double *coordinates);
PRECICE_API int precicec_getMeshVertexSize(const char *meshName);
PRECICE_API void precicec_setMeshVertices(const char *meshName, int size, const double *coordinates,
                                          int *ids);
PRECICE_API void precicec_setMeshEdge(const char *meshName, int firstVertexID, int secondVertexID);
PRECICE_API void precicec_setMeshEdges(const char *meshName, int size, const int *ids);
PRECICE_API void precicec_setMeshTriangle(const char *meshName, int firstVertexID, int secondVertexID,
                                          int thirdVertexID);
PRECICE_API void precicec_setMeshTriangles(const char *meshName, int size, const int *ids);
PRECICE_API void precicec_setMeshQuad(const char *meshName, int firstVertexID, int secondVertexID,
                                      int thirdVertexID, int fourthVertexID);
PRECICE_API void precicec_setMeshQuads(const char *meshName, int size, const int *ids);
PRECICE_API void precicec_setMeshTetrahedron(const char *meshName, int firstVertexID, int secondVertexID,
                                             int thirdVertexID, int fourthVertexID);
PRECICE_API void precicec_setMeshTetrahedra(const char *meshName, int size, const int *ids);

/* Data access */
PRECICE_API int precicec_requiresInitialData(void);
PRECICE_API void precicec_writeData(const char *meshName, const char *dataName, int size,
                                    const int *valueIndices, const double *values);
PRECICE_API void precicec_readData(const char *meshName, const char *dataName, int size,
                                   const int *valueIndices, double relativeReadTime, double *values);

/* Just-in-time mapping (not supported by seam: stops with an error) */
PRECICE_API void precicec_writeAndMapData(const char *meshName, const char *dataName, int size,
                                          const double *coordinates, const double *values);
PRECICE_API void precicec_mapAndReadData(const char *meshName, const char *dataName, int size,
                                         const double *coordinates, double relativeReadTime,
                                         double *values);

/* Direct access to a received mesh inside a bounding box
 * (xmin, xmax, ymin, ymax[, zmin, zmax]) */
PRECICE_API void precicec_setMeshAccessRegion(const char *meshName, const double *boundingBox);
PRECICE_API void precicec_getMeshVertexIDsAndCoordinates(const char *meshName, const int size, int *ids,
                                                         double *coordinates);

/* Gradient data (never required; writing it is not supported by seam) */
PRECICE_API int precicec_requiresGradientDataFor(const char *meshName, const char *dataName);
PRECICE_API void precicec_writeGradientData(const char *meshName, const char *dataName, int size,
                                            const int *valueIndices, const double *gradients);

/* User-defined profiling sections: accepted, recorded nowhere */
PRECICE_API void precicec_startProfilingSection(const char *sectionName);
PRECICE_API void precicec_stopLastProfilingSection(void);

PRECICE_API const char *precicec_getVersionInformation(void);

#ifdef __cplusplus
}
#endif
#endif
