// preCICE's vertex id type.
#pragma once

namespace precice {
// Ids come from setMeshVertex/setMeshVertices or getMeshVertexIDsAndCoordinates.
using VertexID = int;
} // namespace precice
