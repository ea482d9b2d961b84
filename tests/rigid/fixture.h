/* Helpers shared by the solid_rigid tests: build an instance from JSON and
 * step it with given point loads. */
#ifndef SEAM_RIGID_TEST_FIXTURE_H
#define SEAM_RIGID_TEST_FIXTURE_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rigid.h"
#include "quat.h"
#include "test_host.h"

/* cmocka's assert_float_equal compares floats; physics needs doubles. */
#define assert_close(a, b, tol)                                                                    \
    do {                                                                                           \
        double a_ = (a), b_ = (b), t_ = (tol);                                                     \
        if (!(fabs(a_ - b_) <= t_))                                                                \
            fail_msg("%s = %.17g, expected %.17g within %.3g", #a, a_, b_, t_);                    \
    } while (0)

typedef struct fixture {
    test_host th;
    rigid_solver *rs;
    seam_interface iface;
    size_t nd;               /* n_points * dim */
    double *X, *V;           /* outputs of the last solve */
    double t;
    int64_t step;
} fixture;

/* f->rs NULL when create refused the configuration. gravity: the scene's
 * (x y z), or NULL when the host names none. */
static inline fixture *fixture_new_in(const double *gravity, const char *json)
{
    fixture *f = calloc(1, sizeof *f);
    test_host_init(&f->th, "rigid", "solids[0]");
    if (gravity)
        test_host_gravity(&f->th, gravity[0], gravity[1], gravity[2]);
    f->rs = rigid_create(NULL, json, &f->th.host);
    if (!f->rs)
        return f;
    rigid_describe(f->rs, &f->iface);
    f->nd = f->iface.n_points * (size_t)f->iface.dim;
    f->X = calloc(f->nd, sizeof *f->X);
    f->V = calloc(f->nd, sizeof *f->V);
    return f;
}

static inline fixture *fixture_new(const char *json) { return fixture_new_in(NULL, json); }

static inline void fixture_destroy(fixture *f)
{
    rigid_destroy(f->rs);
    free(f->X);
    free(f->V);
    free(f);
}

/* One solve with point loads F (may be NULL), without commit. */
static inline seam_status fixture_solve(fixture *f, double dt, const double *F)
{
    seam_step st = {f->step, f->t, dt, 0};
    seam_input in = {f->iface.n_points, f->iface.dim, NULL, NULL, F};
    seam_output out = {f->iface.n_points, f->iface.dim, f->X, f->V, NULL};
    return rigid_solve(f->rs, &st, &in, &out);
}

/* Solve and commit. */
static inline seam_status fixture_step(fixture *f, double dt, const double *F)
{
    seam_status s = fixture_solve(f, dt, F);
    if (s != SEAM_OK)
        return s;
    f->t += dt;
    f->step++;
    return rigid_commit(f->rs);
}

static inline const rigid_state *fixture_state(fixture *f, size_t body)
{
    return rigid_get_state(f->rs, body);
}

/* A 2 x 1 x 0.5 box as an OBJ file (quads), its vertices turned by R
 * (row-major); drop_face leaves it open. Returns 0, or -1 when unwritable. */
static inline int write_box_obj(const char *path, bool drop_face, const double *R)
{
    static const double v[8][3] = {{0, 0, 0}, {2, 0, 0}, {2, 1, 0}, {0, 1, 0},
                                   {0, 0, 0.5}, {2, 0, 0.5}, {2, 1, 0.5}, {0, 1, 0.5}};
    FILE *fp = fopen(path, "w");
    if (!fp)
        return -1;
    fprintf(fp, "# a 2 x 1 x 0.5 box\n");
    for (int i = 0; i < 8; i++) {
        double p[3];
        seam_m3_mul_v(p, R, v[i]);
        fprintf(fp, "v %.17g %.17g %.17g\n", p[0], p[1], p[2]);
    }
    fprintf(fp, "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\n");
    if (!drop_face)
        fprintf(fp, "f 4 1 5 8\n");
    return fclose(fp) == 0 ? 0 : -1;
}

#endif
