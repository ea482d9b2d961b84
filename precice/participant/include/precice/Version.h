/* The preCICE API version seam's libprecice implements (preCICE's macros). */
#ifndef SEAM_PRECICE_VERSION_H
#define SEAM_PRECICE_VERSION_H
#define PRECICE_VERSION_MAJOR 3
#define PRECICE_VERSION_MINOR 0
#define PRECICE_VERSION_PATCH 0
#define PRECICE_VERSION "3.0.0"
#define PRECICE_VERSION_GREATER_EQUAL(major, minor, patch)                                          \
    ((PRECICE_VERSION_MAJOR > (major)) ||                                                           \
     (PRECICE_VERSION_MAJOR == (major) && PRECICE_VERSION_MINOR > (minor)) ||                       \
     (PRECICE_VERSION_MAJOR == (major) && PRECICE_VERSION_MINOR == (minor) &&                       \
      PRECICE_VERSION_PATCH >= (patch)))
#endif
