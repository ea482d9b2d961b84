/* `seam run precice-config.xml`: the coupler side of seam's preCICE
 * participant protocol (precice/PROTOCOL.md). It gathers the participants'
 * meshes, builds the mappings and runs the configuration's coupling scheme on
 * a seam scheme (precice_couple.h), replying to each participant when it may
 * solve. Exit status 0 only when every participant finalized. */
#ifndef SEAM_COUPLER_PRECICE_SERVE_H
#define SEAM_COUPLER_PRECICE_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* argv: CONFIG.xml [--precice-serve EXCH] [--set coupling.KEY=VALUE]... [--out DIR] [--quiet]
 * seam's own outputs (stats.csv, residuals.csv, probes.csv of the watch
 * points, index.html) go to DIR, by default DIR/precice-run/seam-out beside
 * the address file; they are overwritten by the next run, as preCICE's logs are. */
int seam_precice_main(int argc, char **argv);

/* The key participants and the coupler agree on: FNV-1a (64 bits) of the
 * file's bytes, 16 lowercase hex digits (PROTOCOL.md). False when unreadable. */
bool seam_precice_config_key(const char *path, char key[17]);

/* Whether a scene argument names a preCICE configuration (ends in .xml). */
bool seam_precice_is_config(const char *path);

#endif
