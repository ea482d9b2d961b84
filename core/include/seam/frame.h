/* Numbered output files. Every file seam and its plugins write once per
 * frame (PNG frames, VTK files, a plugin's own per-frame files) carries its
 * frame number in this one width, so the files of a run sort in frame order
 * by name and look alike across participants: "frame_000012.png",
 * "fluid_mac_000012.vti". Six digits number frames 0 to 999999, about
 * the most a scene may ask for (docs/scenes.md, "Limits": 1e6 frame
 * intervals; a frame past 999999 takes a seventh digit). */
#ifndef SEAM_FRAME_H
#define SEAM_FRAME_H

#include <stdio.h>

/* printf conversion of a frame number (an int), six digits:
 * snprintf(buf, n, "bodies_" SEAM_FRAME_FORMAT, frame) */
#define SEAM_FRAME_FORMAT "%06d"

/* An output file put in place whole or not at all, so that a run killed
 * while it writes (or out of disk space) leaves the previous file or none,
 * never part of one: written as PATH.tmp, renamed to PATH when closed.
 * seam_output_open: the stream, its temporary name in tmp (n bytes);
 * NULL with errno. seam_output_close: 0 once PATH is in place; -1 with
 * errno when a write, the close or the rename failed, or when `failed`
 * (an errno the caller met, e.g. from its own encoder) is nonzero; the
 * temporary file is then removed. */
FILE *seam_output_open(const char *path, char *tmp, size_t n);
int seam_output_close(FILE *f, const char *path, const char *tmp, int failed);

#endif
