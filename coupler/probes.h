/* Probes (output.probes, docs/scenes.md): values a run records after every
 * step into probes.csv — a fluid field at a point, asked of the fluid
 * through its `field` entry, and a solid's (or one of its bodies') mean
 * interface position and the total load it received in its last solve. */
#ifndef SEAM_COUPLER_PROBES_H
#define SEAM_COUPLER_PROBES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "interface.h"
#include "participant.h"
#include "seam/config.h"

typedef struct sim_probe {
    char *name;
    char *field;             /* a point probe's fluid field; NULL: a solid probe */
    double point[3];
    size_t n_coords;         /* numbers the scene gave for point */
    char *solid;             /* a solid probe's participant */
    long body;               /* its body id within that solid, -1: every point of it */
    size_t part;             /* index of the solid in the simulation's participants */
    int32_t body_global;     /* the body's id in the concatenated interface */
    char where[48];          /* "output.probes[2]", for messages */
} sim_probe;

typedef struct sim_probes {
    sim_probe *p;
    size_t n;
    double *values;          /* one step's row, probes_columns long */
} sim_probes;

/* Read output.probes (an array of objects) from the output reader; each
 * solid probe names a solid of ps (builtin_coupled: scheme "monolithic"). */
void probes_read(sim_participants *ps, bool builtin_coupled, seam_cfg *out, sim_probes *pr);
/* Check them against the built simulation: each solid is a solid of the
 * scene with that body, each point lies in the fluid's field of that name
 * with the field's number of coordinates. */
bool probes_check(sim_participants *ps, const sim_interface *in, sim_probes *pr);
/* The header line of probes.csv ("step,t,NAME.FIELD,NAME.x,...\n"). */
void probes_header(const sim_interface *in, const sim_probes *pr, FILE *f);
/* Sample every probe after the step just committed and write its row. */
seam_status probes_row(sim_participants *ps, const sim_interface *in, sim_probes *pr, FILE *f, long step, double t);
void probes_free(sim_probes *pr);

#endif
