/* Helpers shared by the solid_fem tests. */
#ifndef FEM_TEST_H
#define FEM_TEST_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fem.h"
#include "test_host.h"

/* Build a solver from JSON; fails the test when creation fails. */
static inline fem *fem_make(test_host *th, const char *json)
{
    test_host_init(th, "solid", "solids[0]");
    fem *f = fem_new(json, &th->host);
    if (!f)
        fprintf(stderr, "fem_new failed: %s\n", th->all);
    assert_non_null(f);
    return f;
}

/* Run n steps of size dt, failing on any unstable step. */
static inline void fem_run(fem *f, double dt, int n)
{
    for (int i = 0; i < n; i++) {
        seam_status s = fem_step(f, dt, NULL);
        if (s != SEAM_OK) {
            fprintf(stderr, "step %d failed; Newton residuals:", i);
            for (int k = 0; k <= f->newton.iterations && k < 64; k++)
                fprintf(stderr, " %.3e", f->newton.residual[k]);
            fprintf(stderr, "\n");
        }
        assert_int_equal(s, SEAM_OK);
        fem_commit(f);
    }
}

/* Deformation gradient of element e at positions x. */
static inline void fem_test_F(const fem *f, size_t e, const double *x, double *F)
{
    int d = f->d;
    const fem_elem *el = &f->elems[e];
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double s = 0.0;
            for (int a = 1; a <= d; a++)
                s += (x[el->n[a] * d + i] - x[el->n[0] * d + i]) * el->Dm_inv[(a - 1) * d + j];
            F[i * d + j] = s;
        }
}

#endif
