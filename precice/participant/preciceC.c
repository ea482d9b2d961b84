/* preCICE's C API (precice/preciceC.h) over the one participant of this
 * process: argument checks, then participant.c and mesh.c. */
#include "precice/preciceC.h"

#include <math.h>
#include <stdio.h>

#include "participant.h"

static participant *the;   /* preCICE's C API keeps one participant per process too */

static participant *need(const char *call)
{
    if (!the)
        participant_fail(NULL, call, "no participant: call precicec_createParticipant() first "
                         "(or again after precicec_finalize())");
    return the;
}

static size_t count(const char *call, int size)
{
    if (size < 0)
        participant_fail(the, call, "size %d is negative", size);
    return (size_t)size;
}

static _Noreturn void unsupported(const char *call, const char *what)
{
    participant_fail(the, call, "%s is not supported by seam (docs/precice.md)", what);
}

void precicec_createParticipant(const char *participantName, const char *configFileName,
                                int solverProcessIndex, int solverProcessSize)
{
    if (the)
        participant_fail(the, "createParticipant", "a participant exists already in this process");
    the = participant_create(participantName, configFileName, solverProcessIndex, solverProcessSize, false);
}

void precicec_createParticipant_withCommunicator(const char *participantName, const char *configFileName,
                                                 int solverProcessIndex, int solverProcessSize,
                                                 void *communicator)
{
    if (the)
        participant_fail(the, "createParticipant", "a participant exists already in this process");
    if (!communicator)
        participant_fail(NULL, "createParticipant (with communicator)", "the communicator is NULL");
    the = participant_create(participantName, configFileName, solverProcessIndex, solverProcessSize, true);
}

void precicec_initialize(void)
{
    participant_initialize(need("initialize"));
}

void precicec_advance(double computedTimeStepSize)
{
    participant_advance(need("advance"), computedTimeStepSize);
}

void precicec_finalize(void)
{
    need("finalize");
    participant_finalize(&the);
}

int precicec_requiresWritingCheckpoint(void)
{
    return need("requiresWritingCheckpoint")->write_checkpoint;
}

int precicec_requiresReadingCheckpoint(void)
{
    return need("requiresReadingCheckpoint")->read_checkpoint;
}

int precicec_getMeshDimensions(const char *meshName)
{
    return participant_mesh(need("getMeshDimensions"), "getMeshDimensions", meshName)->dim;
}

int precicec_getDataDimensions(const char *meshName, const char *dataName)
{
    return participant_data_dimensions(need("getDataDimensions"), "getDataDimensions", meshName, dataName);
}

int precicec_isCouplingOngoing(void)
{
    return need("isCouplingOngoing")->ongoing;
}

int precicec_isTimeWindowComplete(void)
{
    return need("isTimeWindowComplete")->complete;
}

double precicec_getMaxTimeStepSize(void)
{
    participant *pt = need("getMaxTimeStepSize");
    if (pt->state != PARTICIPANT_INITIALIZED)
        participant_fail(pt, "getMaxTimeStepSize", "the window is known after initialize()");
    return participant_max_time_step(pt);
}

int precicec_requiresMeshConnectivityFor(const char *meshName)
{
    participant *pt = need("requiresMeshConnectivityFor");
    return participant_connectivity_required(pt, participant_mesh(pt, "requiresMeshConnectivityFor", meshName));
}

void precicec_resetMesh(const char *meshName)
{
    participant_mesh(need("resetMesh"), "resetMesh", meshName);
    unsupported("resetMesh", "changing a mesh after initialize() (resetMesh)");
}

int precicec_setMeshVertex(const char *meshName, const double *coordinates)
{
    participant *pt = need("setMeshVertex");
    pmesh *m = participant_provided_mesh(pt, "setMeshVertex", meshName);
    if (!coordinates)
        participant_fail(pt, "setMeshVertex", "the coordinates are NULL");
    for (int k = 0; k < m->dim; k++)
        if (!isfinite(coordinates[k]))
            participant_fail(pt, "setMeshVertex", "coordinate %d of the vertex is not finite", k);
    return mesh_add_vertex(m, coordinates);
}

int precicec_getMeshVertexSize(const char *meshName)
{
    participant *pt = need("getMeshVertexSize");
    pmesh *m = participant_mesh(pt, "getMeshVertexSize", meshName);
    if (!m->provided && !m->direct_access)
        participant_fail(pt, "getMeshVertexSize", "received mesh \"%s\" has no direct access", meshName);
    if (!m->provided && pt->state != PARTICIPANT_INITIALIZED)
        participant_fail(pt, "getMeshVertexSize", "received mesh \"%s\" is known after initialize()", meshName);
    return (int)m->n;
}

void precicec_setMeshVertices(const char *meshName, int size, const double *coordinates, int *ids)
{
    participant *pt = need("setMeshVertices");
    pmesh *m = participant_provided_mesh(pt, "setMeshVertices", meshName);
    size_t n = count("setMeshVertices", size);
    if (n && (!coordinates || !ids))
        participant_fail(pt, "setMeshVertices", "the coordinates or ids are NULL");
    for (size_t i = 0; i < n * (size_t)m->dim; i++)
        if (!isfinite(coordinates[i]))
            participant_fail(pt, "setMeshVertices", "coordinate %zu of vertex %zu is not finite",
                             i % (size_t)m->dim, i / (size_t)m->dim);
    for (size_t i = 0; i < n; i++)
        ids[i] = mesh_add_vertex(m, coordinates + i * (size_t)m->dim);
}

static void cells(const char *call, const char *meshName, int per_cell, const int *ids, size_t n)
{
    participant *pt = need(call);
    pmesh *m = participant_provided_mesh(pt, call, meshName);
    int_list *l = per_cell == 2 ? &m->edges : per_cell == 3 ? &m->triangles : &m->quads;
    mesh_add_cells(pt, call, m, l, per_cell, ids, n);
}

void precicec_setMeshEdge(const char *meshName, int firstVertexID, int secondVertexID)
{
    int v[2] = { firstVertexID, secondVertexID };
    cells("setMeshEdge", meshName, 2, v, 1);
}

void precicec_setMeshEdges(const char *meshName, int size, const int *ids)
{
    cells("setMeshEdges", meshName, 2, ids, count("setMeshEdges", size));
}

void precicec_setMeshTriangle(const char *meshName, int firstVertexID, int secondVertexID, int thirdVertexID)
{
    int v[3] = { firstVertexID, secondVertexID, thirdVertexID };
    cells("setMeshTriangle", meshName, 3, v, 1);
}

void precicec_setMeshTriangles(const char *meshName, int size, const int *ids)
{
    cells("setMeshTriangles", meshName, 3, ids, count("setMeshTriangles", size));
}

void precicec_setMeshQuad(const char *meshName, int firstVertexID, int secondVertexID, int thirdVertexID,
                          int fourthVertexID)
{
    int v[4] = { firstVertexID, secondVertexID, thirdVertexID, fourthVertexID };
    cells("setMeshQuad", meshName, 4, v, 1);
}

void precicec_setMeshQuads(const char *meshName, int size, const int *ids)
{
    cells("setMeshQuads", meshName, 4, ids, count("setMeshQuads", size));
}

static void tetrahedra(const char *call, const char *meshName, const int *ids, size_t n)
{
    participant *pt = need(call);
    pmesh *m = participant_provided_mesh(pt, call, meshName);
    if (m->dim != 3)
        participant_fail(pt, call, "tetrahedra need a 3D mesh; \"%s\" is %dD", meshName, m->dim);
    mesh_add_cells(pt, call, m, &m->tetrahedra, 4, ids, n);
}

void precicec_setMeshTetrahedron(const char *meshName, int firstVertexID, int secondVertexID,
                                 int thirdVertexID, int fourthVertexID)
{
    int v[4] = { firstVertexID, secondVertexID, thirdVertexID, fourthVertexID };
    tetrahedra("setMeshTetrahedron", meshName, v, 1);
}

void precicec_setMeshTetrahedra(const char *meshName, int size, const int *ids)
{
    tetrahedra("setMeshTetrahedra", meshName, ids, count("setMeshTetrahedra", size));
}

int precicec_requiresInitialData(void)
{
    participant *pt = need("requiresInitialData");
    if (pt->state != PARTICIPANT_CREATED)
        participant_fail(pt, "requiresInitialData", "asked before initialize(), not after");
    return participant_requires_initial_data(pt);
}

void precicec_writeData(const char *meshName, const char *dataName, int size, const int *valueIndices,
                        const double *values)
{
    participant *pt = need("writeData");
    pdata *d = participant_data(pt, "writeData", meshName, dataName, true);
    const pmesh *m = &pt->meshes[d->mesh];
    if (pt->state == PARTICIPANT_FINALIZED || (!m->provided && pt->state != PARTICIPANT_INITIALIZED))
        participant_fail(pt, "writeData", "received mesh \"%s\" is written after initialize()", meshName);
    data_write(pt, "writeData", d, m, count("writeData", size), valueIndices, values);
}

void precicec_readData(const char *meshName, const char *dataName, int size, const int *valueIndices,
                       double relativeReadTime, double *values)
{
    participant *pt = need("readData");
    pdata *d = participant_data(pt, "readData", meshName, dataName, false);
    if (pt->state != PARTICIPANT_INITIALIZED)
        participant_fail(pt, "readData", "data is read after initialize()");
    double max = participant_max_time_step(pt);
    double tol = 1e-12 * (pt->window > 1.0 ? pt->window : 1.0);
    if (!(relativeReadTime >= -tol && relativeReadTime <= max + tol))
        participant_fail(pt, "readData", "relativeReadTime %.17g is outside [0, getMaxTimeStepSize() = %.17g]",
                         relativeReadTime, max);
    data_read(pt, "readData", d, &pt->meshes[d->mesh], count("readData", size), valueIndices,
              pt->t_in + relativeReadTime, values);
}

void precicec_writeAndMapData(const char *meshName, const char *dataName, int size, const double *coordinates,
                              const double *values)
{
    (void)meshName; (void)dataName; (void)size; (void)coordinates; (void)values;
    need("writeAndMapData");
    unsupported("writeAndMapData", "just-in-time mapping (writeAndMapData)");
}

void precicec_mapAndReadData(const char *meshName, const char *dataName, int size, const double *coordinates,
                             double relativeReadTime, double *values)
{
    (void)meshName; (void)dataName; (void)size; (void)coordinates; (void)relativeReadTime; (void)values;
    need("mapAndReadData");
    unsupported("mapAndReadData", "just-in-time mapping (mapAndReadData)");
}

void precicec_setMeshAccessRegion(const char *meshName, const double *boundingBox)
{
    participant *pt = need("setMeshAccessRegion");
    pmesh *m = participant_mesh(pt, "setMeshAccessRegion", meshName);
    if (m->provided || !m->direct_access)
        participant_fail(pt, "setMeshAccessRegion", "mesh \"%s\" is not a received mesh with "
                         "api-access=\"true\"", meshName);
    if (pt->state != PARTICIPANT_CREATED)
        participant_fail(pt, "setMeshAccessRegion", "the region is set before initialize()");
    if (m->has_region)
        participant_fail(pt, "setMeshAccessRegion", "the region of mesh \"%s\" is set once", meshName);
    if (!boundingBox)
        participant_fail(pt, "setMeshAccessRegion", "the bounding box is NULL");
    for (int k = 0; k < m->dim; k++)
        if (!(boundingBox[2 * k] <= boundingBox[2 * k + 1]))
            participant_fail(pt, "setMeshAccessRegion", "axis %d of the box has min %g > max %g", k,
                             boundingBox[2 * k], boundingBox[2 * k + 1]);
    for (int k = 0; k < 2 * m->dim; k++)
        m->region[k] = boundingBox[k];
    m->has_region = true;
}

void precicec_getMeshVertexIDsAndCoordinates(const char *meshName, const int size, int *ids, double *coordinates)
{
    participant *pt = need("getMeshVertexIDsAndCoordinates");
    pmesh *m = participant_mesh(pt, "getMeshVertexIDsAndCoordinates", meshName);
    if (m->provided || !m->direct_access || pt->state != PARTICIPANT_INITIALIZED)
        participant_fail(pt, "getMeshVertexIDsAndCoordinates", "mesh \"%s\" is not a received mesh with "
                         "api-access=\"true\" after initialize()", meshName);
    if (count("getMeshVertexIDsAndCoordinates", size) != m->n)
        participant_fail(pt, "getMeshVertexIDsAndCoordinates", "size %d differs from the %zu vertices in the "
                         "access region (getMeshVertexSize())", size, m->n);
    if (m->n && (!ids || !coordinates))
        participant_fail(pt, "getMeshVertexIDsAndCoordinates", "the ids or coordinates are NULL");
    for (size_t i = 0; i < m->n; i++) {
        ids[i] = m->ids[i];
        for (int k = 0; k < m->dim; k++)
            coordinates[i * (size_t)m->dim + (size_t)k] = m->coords[i * (size_t)m->dim + (size_t)k];
    }
}

int precicec_requiresGradientDataFor(const char *meshName, const char *dataName)
{
    participant *pt = need("requiresGradientDataFor");
    participant_data(pt, "requiresGradientDataFor", meshName, dataName, true);
    return 0;   /* no seam mapping uses gradients, so none is ever required */
}

void precicec_writeGradientData(const char *meshName, const char *dataName, int size, const int *valueIndices,
                                const double *gradients)
{
    (void)meshName; (void)dataName; (void)size; (void)valueIndices; (void)gradients;
    need("writeGradientData");
    unsupported("writeGradientData", "gradient data (writeGradientData)");
}

void precicec_startProfilingSection(const char *sectionName)
{
    participant *pt = need("startProfilingSection");
    if (!sectionName)
        participant_fail(pt, "startProfilingSection", "the section name is NULL");
    pt->profiling_depth++;
}

void precicec_stopLastProfilingSection(void)
{
    participant *pt = need("stopLastProfilingSection");
    if (pt->profiling_depth == 0)
        participant_fail(pt, "stopLastProfilingSection", "no profiling section was started");
    pt->profiling_depth--;
}

const char *precicec_getVersionInformation(void)
{
    return "seam " SEAM_VERSION " (preCICE API " PRECICE_VERSION ", libprecice of seam)";
}
