/* Helpers shared by the 2D and 3D fluid_mac plugin tests. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fluid_test.h"
#include "seam/checkpoint.h"

void *fluid_make(const seam_plugin *P, test_host *th, const char *json)
{
    test_host_init(th, "fluid", "fluids[0]");
    void *fl = P->create(P, json, &th->host);
    assert_non_null(fl);
    return fl;
}

const seam_interface *fluid_no_solid(int dim)
{
    static const seam_interface none[2] = {{2, 0, NULL, NULL, NULL, 2, 0, NULL, NULL, 0},
                                           {3, 0, NULL, NULL, NULL, 3, 0, NULL, NULL, 0}};
    return &none[dim == 3];
}

/* The sum over the cells of field `name` (each value through clip when
 * clip is set) times the cell volume. */
static double cell_integral(const seam_plugin *P, void *fl, const char *name, int dim, int clip)
{
    seam_raster r;
    assert_int_equal(P->field(fl, name, &r), SEAM_OK);
    int n = r.nx * r.ny * (dim == 3 ? r.nz : 1);
    double sum = 0.0;
    for (int c = 0; c < n; c++) {
        double v = clip ? fmin(1.0, fmax(0.0, 0.5 - r.data[c] / r.dx)) : r.data[c];
        sum += dim == 3 ? v * r.dx * r.dx * r.dx : v * r.dx * r.dx;
    }
    return sum;
}

double fluid_liquid_volume(const seam_plugin *P, void *fl, int dim)
{
    return cell_integral(P, fl, "level_set", dim, 1);
}

double fluid_total_smoke(const seam_plugin *P, void *fl, int dim)
{
    return cell_integral(P, fl, "density", dim, 0);
}

size_t fluid_particles_right_of(const char *dir, int frame, const double *a, const double *b, size_t *wrong)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/fluid_mac_particles_%06d.vtp", dir, frame);
    size_t n;
    double *p = test_read_vtk_points(path, &n);
    *wrong = 0;
    for (size_t k = 0; k < n; k++)
        *wrong += (b[0] - a[0]) * (p[3 * k + 1] - a[1]) - (b[1] - a[1]) * (p[3 * k] - a[0]) < 0.0;
    free(p);
    return n;
}

/* ---- the saved state (plugins/fluid_mac/state.c: one checkpoint section) ---- */

enum { STATE_ARRAYS = 3 + 4 + 3 };   /* up to 3 velocity axes, p d T (and the solid flags), phi xp vp */

/* A state image decoded: header words, time, the arrays in their order. */
typedef struct state_image {
    uint64_t head[5];   /* dim nx ny nz liquid */
    double t;
    double *arr[STATE_ARRAYS];
    size_t len[STATE_ARRAYS];
    unsigned char *solid;
    size_t n_solid;
    int n_arr;
} state_image;

#define STATE_SECTION "fluid_mac state v3"

static void state_decode(const seam_plugin *P, void *fl, state_image *s)
{
    seam_buffer b;
    assert_int_equal(P->save(fl, &b), SEAM_OK);
    char err[256];
    seam_ckpt_reader *r = seam_ckpt_reader_from_bytes(b.data, b.size, "state", err, sizeof err);
    assert_non_null(r);
    assert_true(seam_ckpt_need(r, STATE_SECTION));
    for (int k = 0; k < 5; k++)
        s->head[k] = seam_ckpt_get_u64(r);
    s->t = seam_ckpt_get_f64(r);
    int before_solid = (int)s->head[0] + 3, after = s->head[4] ? 3 : 0;
    s->n_arr = before_solid + after;
    for (int a = 0; a < s->n_arr; a++) {
        if (a == before_solid) {
            const void *bytes = seam_ckpt_get_bytes(r, &s->n_solid);
            s->solid = malloc(s->n_solid + 1);
            memcpy(s->solid, bytes, s->n_solid);
        }
        s->len[a] = seam_ckpt_peek_count(r);
        s->arr[a] = malloc((s->len[a] + 1) * sizeof(double));
        seam_ckpt_get_f64s(r, s->arr[a], s->len[a]);
    }
    if (s->n_arr == before_solid) {
        const void *bytes = seam_ckpt_get_bytes(r, &s->n_solid);
        s->solid = malloc(s->n_solid + 1);
        memcpy(s->solid, bytes, s->n_solid);
    }
    assert_true(seam_ckpt_ok(r, true));
    seam_ckpt_reader_destroy(&r);
}

static void state_free(state_image *s)
{
    for (int a = 0; a < s->n_arr; a++)
        free(s->arr[a]);
    free(s->solid);
}

double *fluid_state_velocities(const seam_plugin *P, void *fl, size_t *n)
{
    state_image s;
    state_decode(P, fl, &s);
    size_t total = 0;
    for (uint64_t a = 0; a < s.head[0]; a++)
        total += s.len[a];
    double *v = malloc((total + 1) * sizeof *v), *at = v;
    for (uint64_t a = 0; a < s.head[0]; a++) {
        memcpy(at, s.arr[a], s.len[a] * sizeof *v);
        at += s.len[a];
    }
    state_free(&s);
    *n = total;
    return v;
}

void fluid_state_set_velocities(const seam_plugin *P, void *fl, const double *vel)
{
    state_image s;
    state_decode(P, fl, &s);
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, STATE_SECTION);
    for (int k = 0; k < 5; k++)
        seam_ckpt_put_u64(w, s.head[k]);
    seam_ckpt_put_f64(w, s.t);
    int before_solid = (int)s.head[0] + 3;
    for (int a = 0; a < s.n_arr; a++) {
        if (a == before_solid)
            seam_ckpt_put_bytes(w, s.solid, s.n_solid);
        seam_ckpt_put_f64s(w, a < (int)s.head[0] ? vel : s.arr[a], s.len[a]);
        if (a < (int)s.head[0])
            vel += s.len[a];
    }
    if (s.n_arr == before_solid)
        seam_ckpt_put_bytes(w, s.solid, s.n_solid);
    size_t n = 0;
    unsigned char *image = seam_ckpt_writer_take(w, &n);
    seam_ckpt_writer_destroy(&w);
    assert_int_equal(P->load(fl, image, n), SEAM_OK);
    free(image);
    state_free(&s);
}
