/* solid_rigid: the plugin's entry points, also used directly by its tests. */
#ifndef SEAM_RIGID_H
#define SEAM_RIGID_H

#include <stddef.h>

#include "seam/plugin.h"

#include "body.h"

typedef struct rigid_solver rigid_solver;

/* The plugin table (export.c exports it as seam_plugin_v1). */
const seam_plugin *solid_rigid_table(void);

void *rigid_create(const seam_plugin *plugin, const char *config_json, const seam_host *host);
void rigid_destroy(void *self);
seam_status rigid_max_dt(void *self, double *dt);
seam_status rigid_describe(void *self, seam_interface *iface);
seam_status rigid_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out);
seam_status rigid_commit(void *self);
seam_status rigid_mobility(void *self, const double *impulse, double *dv);
seam_status rigid_save_state(void *self, seam_buffer *out);
seam_status rigid_load_state(void *self, const void *bytes, size_t n);
seam_status rigid_write_output(void *self, const char *dir, int frame);
seam_status rigid_bodies(void *self, seam_bodies *out);

/* Read access for tests: the bodies and their committed states. */
size_t rigid_body_count(const rigid_solver *rs);
const rigid_body *rigid_get_body(const rigid_solver *rs, size_t i);
const rigid_state *rigid_get_state(const rigid_solver *rs, size_t i);


#endif
