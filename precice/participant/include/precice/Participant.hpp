// precice::Participant of preCICE version 3, header-only over seam's C API
// (precice/preciceC.h). Like preCICE's C API it drives the process's one
// participant: construct one at a time. Errors stop the program with
// "preCICE (seam): ERROR: ..." as preCICE does.
#pragma once

#include <string>

#include <precice/Types.hpp>
#include <precice/Version.h>
#include <precice/preciceC.h>
#include <precice/span.hpp>

namespace precice {

using string_view = ::precice::span<const char>;

class Participant {
public:
  Participant(::precice::string_view participantName, ::precice::string_view configurationFileName,
              int solverProcessIndex, int solverProcessSize)
      : _name(str(participantName))
  {
    precicec_createParticipant(str(participantName).c_str(), str(configurationFileName).c_str(),
                               solverProcessIndex, solverProcessSize);
  }

  Participant(::precice::string_view participantName, ::precice::string_view configurationFileName,
              int solverProcessIndex, int solverProcessSize, void *communicator)
      : _name(str(participantName))
  {
    precicec_createParticipant_withCommunicator(str(participantName).c_str(),
                                                str(configurationFileName).c_str(), solverProcessIndex,
                                                solverProcessSize, communicator);
  }

  // preCICE finalizes a participant that is destroyed without finalize().
  ~Participant()
  {
    if (!_finalized)
      precicec_finalize();
  }

  Participant(const Participant &)            = delete;
  Participant &operator=(const Participant &) = delete;

  void initialize() { precicec_initialize(); }
  void advance(double computedTimeStepSize) { precicec_advance(computedTimeStepSize); }
  void finalize()
  {
    if (!_finalized)
      precicec_finalize();
    _finalized = true;
  }

  bool requiresWritingCheckpoint() { return precicec_requiresWritingCheckpoint() != 0; }
  bool requiresReadingCheckpoint() { return precicec_requiresReadingCheckpoint() != 0; }

  int getMeshDimensions(::precice::string_view meshName) const
  {
    return precicec_getMeshDimensions(str(meshName).c_str());
  }
  int getDataDimensions(::precice::string_view meshName, ::precice::string_view dataName) const
  {
    return precicec_getDataDimensions(str(meshName).c_str(), str(dataName).c_str());
  }
  bool   isCouplingOngoing() const { return precicec_isCouplingOngoing() != 0; }
  bool   isTimeWindowComplete() const { return precicec_isTimeWindowComplete() != 0; }
  double getMaxTimeStepSize() const { return precicec_getMaxTimeStepSize(); }

  bool requiresMeshConnectivityFor(::precice::string_view meshName) const
  {
    return precicec_requiresMeshConnectivityFor(str(meshName).c_str()) != 0;
  }
  void resetMesh(::precice::string_view meshName) { precicec_resetMesh(str(meshName).c_str()); }

  VertexID setMeshVertex(::precice::string_view meshName, ::precice::span<const double> position)
  {
    std::string mesh = str(meshName);
    sized(position.size(), static_cast<std::size_t>(precicec_getMeshDimensions(mesh.c_str())), "setMeshVertex",
          "position");
    return precicec_setMeshVertex(mesh.c_str(), position.data());
  }
  int getMeshVertexSize(::precice::string_view meshName) const
  {
    return precicec_getMeshVertexSize(str(meshName).c_str());
  }
  void setMeshVertices(::precice::string_view meshName, ::precice::span<const double> coordinates,
                       ::precice::span<VertexID> ids)
  {
    std::string mesh = str(meshName);
    sized(coordinates.size(), ids.size() * static_cast<std::size_t>(precicec_getMeshDimensions(mesh.c_str())),
          "setMeshVertices", "coordinates");
    precicec_setMeshVertices(mesh.c_str(), static_cast<int>(ids.size()), coordinates.data(), ids.data());
  }

  void setMeshEdge(::precice::string_view meshName, VertexID first, VertexID second)
  {
    precicec_setMeshEdge(str(meshName).c_str(), first, second);
  }
  void setMeshEdges(::precice::string_view meshName, ::precice::span<const VertexID> ids)
  {
    precicec_setMeshEdges(str(meshName).c_str(), cells(ids.size(), 2, "setMeshEdges"), ids.data());
  }
  void setMeshTriangle(::precice::string_view meshName, VertexID first, VertexID second, VertexID third)
  {
    precicec_setMeshTriangle(str(meshName).c_str(), first, second, third);
  }
  void setMeshTriangles(::precice::string_view meshName, ::precice::span<const VertexID> ids)
  {
    precicec_setMeshTriangles(str(meshName).c_str(), cells(ids.size(), 3, "setMeshTriangles"), ids.data());
  }
  void setMeshQuad(::precice::string_view meshName, VertexID first, VertexID second, VertexID third,
                   VertexID fourth)
  {
    precicec_setMeshQuad(str(meshName).c_str(), first, second, third, fourth);
  }
  void setMeshQuads(::precice::string_view meshName, ::precice::span<const VertexID> ids)
  {
    precicec_setMeshQuads(str(meshName).c_str(), cells(ids.size(), 4, "setMeshQuads"), ids.data());
  }
  void setMeshTetrahedron(::precice::string_view meshName, VertexID first, VertexID second, VertexID third,
                          VertexID fourth)
  {
    precicec_setMeshTetrahedron(str(meshName).c_str(), first, second, third, fourth);
  }
  void setMeshTetrahedra(::precice::string_view meshName, ::precice::span<const VertexID> ids)
  {
    precicec_setMeshTetrahedra(str(meshName).c_str(), cells(ids.size(), 4, "setMeshTetrahedra"), ids.data());
  }

  bool requiresInitialData() { return precicec_requiresInitialData() != 0; }

  void writeData(::precice::string_view meshName, ::precice::string_view dataName,
                 ::precice::span<const VertexID> ids, ::precice::span<const double> values)
  {
    std::string mesh = str(meshName), data = str(dataName);
    sized(values.size(), ids.size() * components(mesh, data), "writeData", "values");
    precicec_writeData(mesh.c_str(), data.c_str(), static_cast<int>(ids.size()), ids.data(), values.data());
  }
  void readData(::precice::string_view meshName, ::precice::string_view dataName,
                ::precice::span<const VertexID> ids, double relativeReadTime,
                ::precice::span<double> values) const
  {
    std::string mesh = str(meshName), data = str(dataName);
    sized(values.size(), ids.size() * components(mesh, data), "readData", "values");
    precicec_readData(mesh.c_str(), data.c_str(), static_cast<int>(ids.size()), ids.data(), relativeReadTime,
                      values.data());
  }

  void writeAndMapData(::precice::string_view meshName, ::precice::string_view dataName,
                       ::precice::span<const double> coordinates, ::precice::span<const double> values)
  {
    precicec_writeAndMapData(str(meshName).c_str(), str(dataName).c_str(), 0, coordinates.data(),
                             values.data());
  }
  void mapAndReadData(::precice::string_view meshName, ::precice::string_view dataName,
                      ::precice::span<const double> coordinates, double relativeReadTime,
                      ::precice::span<double> values) const
  {
    precicec_mapAndReadData(str(meshName).c_str(), str(dataName).c_str(), 0, coordinates.data(),
                            relativeReadTime, values.data());
  }

  void setMeshAccessRegion(::precice::string_view meshName, ::precice::span<const double> boundingBox) const
  {
    std::string mesh = str(meshName);
    sized(boundingBox.size(), 2 * static_cast<std::size_t>(precicec_getMeshDimensions(mesh.c_str())),
          "setMeshAccessRegion", "boundingBox");
    precicec_setMeshAccessRegion(mesh.c_str(), boundingBox.data());
  }
  void getMeshVertexIDsAndCoordinates(::precice::string_view meshName, ::precice::span<VertexID> ids,
                                      ::precice::span<double> coordinates) const
  {
    std::string mesh = str(meshName);
    sized(coordinates.size(), ids.size() * static_cast<std::size_t>(precicec_getMeshDimensions(mesh.c_str())),
          "getMeshVertexIDsAndCoordinates", "coordinates");
    precicec_getMeshVertexIDsAndCoordinates(mesh.c_str(), static_cast<int>(ids.size()), ids.data(),
                                            coordinates.data());
  }

  bool requiresGradientDataFor(::precice::string_view meshName, ::precice::string_view dataName) const
  {
    return precicec_requiresGradientDataFor(str(meshName).c_str(), str(dataName).c_str()) != 0;
  }
  void writeGradientData(::precice::string_view meshName, ::precice::string_view dataName,
                         ::precice::span<const VertexID> ids, ::precice::span<const double> gradients)
  {
    precicec_writeGradientData(str(meshName).c_str(), str(dataName).c_str(), static_cast<int>(ids.size()),
                               ids.data(), gradients.data());
  }

  void startProfilingSection(::precice::string_view sectionName)
  {
    precicec_startProfilingSection(str(sectionName).c_str());
  }
  void stopLastProfilingSection() { precicec_stopLastProfilingSection(); }

private:
  std::string _name;
  bool        _finalized = false;

  static std::string str(::precice::string_view s) { return std::string(s.data(), s.size()); }

  static std::size_t components(const std::string &mesh, const std::string &data)
  {
    return static_cast<std::size_t>(precicec_getDataDimensions(mesh.c_str(), data.c_str()));
  }

  // A span of the wrong length is an error, as preCICE checks it.
  void sized(std::size_t got, std::size_t want, const char *call, const char *what) const
  {
    if (got != want)
      fail(call, std::string(what) + " has " + std::to_string(got) + " elements, not " + std::to_string(want));
  }

  int cells(std::size_t n, std::size_t per_cell, const char *call) const
  {
    if (n % per_cell != 0)
      fail(call, "ids has " + std::to_string(n) + " elements, not a multiple of " + std::to_string(per_cell));
    return static_cast<int>(n / per_cell);
  }

  [[noreturn]] void fail(const char *call, const std::string &msg) const;
};

} // namespace precice

#include <cstdio>
#include <cstdlib>

inline void precice::Participant::fail(const char *call, const std::string &msg) const
{
  std::fprintf(stderr, "preCICE (seam): ERROR: participant %s, %s: %s\n", _name.c_str(), call, msg.c_str());
  std::exit(1);
}
