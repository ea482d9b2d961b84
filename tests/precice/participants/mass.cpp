// One mass of two_masses.xml in C++ against precice::Participant (see
// mass.c for the model); built by the test with CMake find_package(precice).
// usage: mass_cpp NAME CONFIG MASS K_WALL K_COUPLING U0
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <precice/precice.hpp>

int main(int argc, char **argv)
{
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s NAME CONFIG MASS K_WALL K_COUPLING U0\n", argv[0]);
    return 2;
  }
  const std::string name = argv[1], other = name == "Left" ? "Right" : "Left";
  const std::string mesh = name + "-Mesh", write = name + "-Displacement", read = other + "-Displacement";
  const double m = std::atof(argv[3]), k_wall = std::atof(argv[4]), k_c = std::atof(argv[5]);
  double u = std::atof(argv[6]), v = 0.0, t = 0.0;

  precice::Participant participant(name, argv[2], 0, 1);
  // names as std::string and as literals, spans from a C array and from vectors, as adapters pass them
  if (participant.getMeshDimensions(mesh) != 2 || participant.getDataDimensions(mesh, "Left-Displacement") != 1)
    return 3;
  const double                   x[2] = {0.0, 0.0};
  std::vector<precice::VertexID> ids(1);
  participant.setMeshVertices(mesh, x, ids);
  if (participant.requiresInitialData())
    participant.writeData(mesh, write, ids, {&u, 1});
  participant.initialize();
  double u_saved = u, v_saved = v;
  while (participant.isCouplingOngoing()) {
    if (participant.requiresWritingCheckpoint()) {
      u_saved = u;
      v_saved = v;
    }
    double dt = participant.getMaxTimeStepSize();
    std::vector<double> u_other(1);
    participant.readData(mesh, read, ids, dt, u_other);
    double v_new = (v + dt / m * (-(k_wall + k_c) * u + k_c * u_other[0])) / (1.0 + dt * dt * (k_wall + k_c) / m);
    double u_new = u + dt * v_new;
    participant.writeData(mesh, write, ids, {&u_new, 1});
    participant.advance(dt);
    u = u_new;
    v = v_new;
    if (participant.requiresReadingCheckpoint()) {
      u = u_saved;
      v = v_saved;
    } else if (participant.isTimeWindowComplete()) {
      t += dt;
      std::printf("%.17g %.17g\n", t, u);
    }
  }
  participant.finalize();
  return 0;
}
