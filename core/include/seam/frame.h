/* Numbered output files. Every file seam and its plugins write once per
 * frame (PNG frames, VTK files, a plugin's own per-frame files) carries its
 * frame number in this one width, so the files of a run sort in frame order
 * by name and look alike across participants: "frame_000012.png",
 * "fluid_mac_000012.vti". Six digits number frames 0 to 999999, about
 * the most a scene may ask for (docs/scenes.md, "Limits": 1e6 frame
 * intervals; a frame past 999999 takes a seventh digit). */
#ifndef SEAM_FRAME_H
#define SEAM_FRAME_H

/* printf conversion of a frame number (an int), six digits:
 * snprintf(buf, n, "bodies_" SEAM_FRAME_FORMAT, frame) */
#define SEAM_FRAME_FORMAT "%06d"

#endif
