/* Numbered output files. Every file seam and its plugins write once per
 * frame (PNG frames, VTK files, a plugin's own per-frame files) carries its
 * frame number in this one width, so the files of a run sort in frame order
 * by name and look alike across participants: "frame_000012.png",
 * "fluid_mac_000012.vti". Six digits hold the 1e6 frames a scene may ask
 * for (docs/scenes.md, "Limits"). */
#ifndef SEAM_FRAME_H
#define SEAM_FRAME_H

#define SEAM_FRAME_DIGITS 6
/* printf conversion of a frame number (an int): snprintf(buf, n, "bodies_" SEAM_FRAME_FORMAT, frame) */
#define SEAM_FRAME_FORMAT "%06d"

#endif
