/* solid_rigid's state: the committed bodies saved and loaded through core's
 * checkpoint format (seam/checkpoint.h: typed, little-endian, CRC-checked),
 * so an image made on one host loads on any other. Layout, one section
 * "solid_rigid": u64 dim, u64 body count, f64 committed time, then per body
 * its name and rigid_state's fields (x, q, v, L, w as arrays; s, sdot). */
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/checkpoint.h"
#include "seam/log.h"

#include "solver.h"

static const char section[] = "solid_rigid";

static void state_put(seam_ckpt_writer *w, const rigid_state *S)
{
    seam_ckpt_put_f64s(w, S->x, 3);
    seam_ckpt_put_f64s(w, S->q, 4);
    seam_ckpt_put_f64s(w, S->v, 3);
    seam_ckpt_put_f64s(w, S->L, 3);
    seam_ckpt_put_f64s(w, S->w, 3);
    seam_ckpt_put_f64(w, S->s);
    seam_ckpt_put_f64(w, S->sdot);
}

static void state_get(seam_ckpt_reader *r, rigid_state *S)
{
    seam_ckpt_get_f64s(r, S->x, 3);
    seam_ckpt_get_f64s(r, S->q, 4);
    seam_ckpt_get_f64s(r, S->v, 3);
    seam_ckpt_get_f64s(r, S->L, 3);
    seam_ckpt_get_f64s(r, S->w, 3);
    S->s = seam_ckpt_get_f64(r);
    S->sdot = seam_ckpt_get_f64(r);
}

seam_status rigid_save_state(void *self, seam_buffer *out)
{
    rigid_solver *rs = self;
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, section);
    seam_ckpt_put_u64(w, (uint64_t)rs->set.dim);
    seam_ckpt_put_u64(w, rs->n_bodies);
    seam_ckpt_put_f64(w, rs->t_n);
    for (size_t i = 0; i < rs->n_bodies; i++) {
        seam_ckpt_put_str(w, rs->bodies[i].name);
        state_put(w, &rs->S[i]);
    }
    size_t n = 0;
    unsigned char *image = seam_ckpt_writer_take(w, &n);
    seam_ckpt_writer_destroy(&w);
    if (!image) {
        seam_logf(rs->host, SEAM_LOG_ERROR, "save: the state of %zu bodies could not be written", rs->n_bodies);
        return SEAM_ERROR;
    }
    free(rs->saved);
    rs->saved = image;
    *out = (seam_buffer){.data = image, .size = n};
    return SEAM_OK;
}

/* The states of an image into S (n_bodies of them): false with the reason
 * recorded in r when the image is not one of this scene's. */
static bool read_states(const rigid_solver *rs, seam_ckpt_reader *r, rigid_state *S, double *t_n)
{
    if (!seam_ckpt_need(r, section))
        return false;
    uint64_t dim = seam_ckpt_get_u64(r), count = seam_ckpt_get_u64(r);
    *t_n = seam_ckpt_get_f64(r);
    if (seam_ckpt_ok(r, false) && (dim != (uint64_t)rs->set.dim || count != rs->n_bodies))
        seam_ckpt_fail(r, "a state of a %lluD scene with %llu bodies, this one is %dD with %zu",
                       (unsigned long long)dim, (unsigned long long)count, rs->set.dim, rs->n_bodies);
    for (size_t i = 0; i < rs->n_bodies && seam_ckpt_ok(r, false); i++) {
        char *name = seam_ckpt_get_str(r);
        if (name && strcmp(name, rs->bodies[i].name) != 0)
            seam_ckpt_fail(r, "body %zu is \"%s\" in the image, \"%s\" here", i, name, rs->bodies[i].name);
        free(name);
        state_get(r, &S[i]);
    }
    return seam_ckpt_ok(r, true);
}

seam_status rigid_load_state(void *self, const void *bytes, size_t n)
{
    rigid_solver *rs = self;
    char err[512];
    seam_ckpt_reader *r = seam_ckpt_reader_from_bytes(bytes, n, "solid_rigid state", err, sizeof err);
    if (!r) {
        seam_logf(rs->host, SEAM_LOG_ERROR, "load: %s", err);
        return SEAM_ERROR;
    }
    rigid_state *S = SEAM_NEW_N(rigid_state, rs->n_bodies);   /* the committed state changes only when all is read */
    double t_n = 0.0;
    bool ok = read_states(rs, r, S, &t_n);
    if (ok) {
        memcpy(rs->S, S, rs->n_bodies * sizeof *S);
        rs->t_n = t_n;
        rs->have_trial = false;
    } else {
        seam_logf(rs->host, SEAM_LOG_ERROR, "load: %s", seam_ckpt_error(r));
    }
    free(S);
    seam_ckpt_reader_destroy(&r);
    return ok ? SEAM_OK : SEAM_ERROR;
}

/* ---- read access for tests ---- */

size_t rigid_body_count(const rigid_solver *rs) { return rs->n_bodies; }
const rigid_body *rigid_get_body(const rigid_solver *rs, size_t i) { return &rs->bodies[i]; }
const rigid_state *rigid_get_state(const rigid_solver *rs, size_t i) { return &rs->S[i]; }
