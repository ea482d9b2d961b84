/* Symbol visibility of libprecice's API (preCICE's header name). */
#ifndef SEAM_PRECICE_EXPORT_H
#define SEAM_PRECICE_EXPORT_H
#define PRECICE_API __attribute__((visibility("default")))
#endif
