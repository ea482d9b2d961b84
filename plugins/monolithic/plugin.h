/* monolithic: the plugin around the pieces of mono.h, one concept per file:
 *
 *   config.c        the scene object's keys into a plain struct (mono_config);
 *   participants.c  the fluid and the solids inside it, each with its own
 *                   host, and their surfaces concatenated;
 *   step.c          one step of Zarifi's Algorithm 4 (mono_step), and the
 *                   solve entry around it;
 *   state.c         save and load through core's checkpoint format;
 *   monolithic.c    the plugin table (create, commit, outputs).
 *
 * Private to plugins/monolithic. */
#ifndef MONOLITHIC_PLUGIN_H
#define MONOLITHIC_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "seam/plugin.h"
#include "fluid.h"
#include "mono.h"

/* ---- config.c --------------------------------------------------------- */

/* A participant of the scene object: its name, its key path, which plugin,
 * and its object without the coupler's keys, as that plugin's create takes it. */
typedef struct mono_participant {
    char name[64];
    char path[32];           /* "fluid", "solids[1]" */
    int rigid;               /* solids: solid_rigid (1) or solid_fem (0) */
    char *json;
} mono_participant;

typedef struct mono_config {
    mono_solve_opts opts;    /* "coupling": sigma, row_scaling, pcg_tolerance, pcg_max_iterations, preconditioner */
    mono_participant fluid;
    size_t ns;
    mono_participant *solids;
} mono_config;

/* Read the scene object create() received; false after the messages. */
bool mono_config_read(mono_config *c, const char *config_json, const seam_host *host);
void mono_config_free(mono_config *c);

/* ---- participants.c --------------------------------------------------- */

/* A participant run inside this plugin: its own host, whose messages and
 * key locations go through the outer one with its name and key path. */
typedef struct sub_host {
    seam_host host;
    const seam_host *outer;
    char name[64];
    char path[64];           /* "fluid", "solids[1]" */
} sub_host;

/* A solid: solid_fem (its block from the corotated linear model) or
 * solid_rigid (its block from its mobility), both driven through their tables. */
typedef struct solid {
    const seam_plugin *P;
    void *self;
    int rigid;
    size_t first, n_pts;     /* its boundary nodes */
    size_t n_bodies;
} solid;

typedef struct mono {
    const seam_host *host;
    sub_host fh;
    fluid_mac *fl;
    size_t ns;
    sub_host *sh;
    solid *sol;
    /* the solids' surfaces, concatenated (the fluid is bound to them) */
    int dim;
    size_t n_nodes, n_elems, n_bodies;
    double *X, *mass;
    double *V;               /* dim per boundary node: the solids' committed velocities (the fluid's viscosity) */
    int32_t *body, *elems;
    uint8_t *two_sided;
    mono_solve_opts opts;
    /* the last solve */
    mono_cut cut;
    mono_fluid F;
    mono_block *blk;
    double *p, *v;
    double *v_perp, *Fn;     /* dim per boundary node: prescribed velocities, pressure loads */
    double *all_fluid;       /* smoke: the level set of a domain full of fluid (-dx per cell) */
    double *phi;             /* the last solve's level set, continued through the solids (mono_liquid_phi) */
    size_t m;                /* solid unknowns of the last solve */
    mono_solve_stats stats;
    mono_kept kept;          /* what the solves keep (the solid block's CHOLMOD analysis) */
    int solved;
    /* save */
    unsigned char *saved;
} mono;

/* Create the fluid and the solids of c, each with its sub host; false after the messages. */
bool mono_participants_create(mono *self, const mono_config *c);
void mono_participants_destroy(mono *self);
/* Concatenate the solids' surfaces (volumes only) and bind the fluid to them; false after the messages. */
bool mono_surface_build(mono *self);
/* The solids' surfaces at their committed positions, concatenated into self->X. */
seam_status mono_gather_positions(mono *self);
/* The solids' committed velocities at their boundary nodes into self->V. */
void mono_gather_velocities(mono *self);

/* ---- step.c ----------------------------------------------------------- */

seam_status mono_plugin_solve(void *p, const seam_step *step, const seam_input *in, seam_output *out);

/* ---- state.c ---------------------------------------------------------- */

seam_status mono_plugin_save(void *p, seam_buffer *out);
seam_status mono_plugin_load(void *p, const void *bytes, size_t n);

/* ---- monolithic.c ----------------------------------------------------- */

/* The plugin table (export.c exports it as seam_plugin_v1). */
const seam_plugin *monolithic_table(void);

#endif
