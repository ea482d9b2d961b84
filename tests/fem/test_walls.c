/* solid_fem against the walls of a box (issue 12: a dense FEM block fell
 * through the tank floor to y = -59 m and the run exited 0). Blocks dropped
 * on the floor come to rest on it, carried by a wall force equal to their
 * weight; a block thrown at a side wall comes back; nothing ever lies beyond
 * a wall. */
#include "fem_test.h"
#include "test_scene.h"

static double total_mass(const fem *f)
{
    double m = 0.0;
    for (size_t i = 0; i < f->n; i++)
        m += f->mass[i];
    return m;
}

/* Smallest (or largest, sign -1) coordinate k over the nodes. */
static double extreme(const fem *f, int k, double sign)
{
    double e = INFINITY;
    for (size_t i = 0; i < f->n; i++)
        e = fmin(e, sign * f->x[i * (size_t)f->d + (size_t)k]);
    return sign * e;
}

static double mean_velocity(const fem *f, int k)
{
    double p = 0.0;
    for (size_t i = 0; i < f->n; i++)
        p += f->mass[i] * f->v[i * (size_t)f->d + (size_t)k];
    return p / total_mass(f);
}

static double max_speed(const fem *f)
{
    double s = 0.0;
    for (size_t r = 0; r < f->n * (size_t)f->d; r++)
        s = fmax(s, fabs(f->v[r]));
    return s;
}

/* A block of density 3000 dropped from `drop` m above the floor y = 0 (2D) or
 * z = 0 (3D): it lands, settles and rests on the floor. */
static void drop_on_floor(int d, const char *mesh, const char *linear_solver)
{
    char json[1536];
    snprintf(json, sizeof json,
             "{\"dim\": %d, \"gravity\": %s, \"linear_solver\": {\"method\": \"%s\"}, \"walls\": {\"min\": %s, "
             "\"max\": %s}, \"bodies\": [{\"mesh\": %s, \"material\": {\"model\": \"neo_hookean\", \"E\": 1e6, "
             "\"nu\": 0.3, \"density\": 3000}}]}",
             d, d == 2 ? "[0, -9.81]" : "[0, 0, -9.81]", linear_solver, d == 2 ? "[-1, 0]" : "[-1, -1, 0]",
             d == 2 ? "[2, 2]" : "[2, 2, 2]", mesh);
    test_host th;
    fem *f = fem_make(&th, json);
    int up = d - 1;
    double dt = 0.01, worst = 0.0;
    for (int s = 0; s < 150; s++) {
        fem_run(f, dt, 1);
        worst = fmin(worst, extreme(f, up, 1.0));
    }
    double weight = total_mass(f) * 9.81;
    printf("%dD %s: deepest node %.3e m, max speed %.3e m/s, %d coordinates on the floor, wall force %.6f N "
           "(weight %.6f N)\n",
           d, linear_solver, worst, max_speed(f), f->newton.contacts, f->newton.wall_force[up], weight);
    assert_true(worst >= -1e-12);               /* never below the floor */
    assert_true(extreme(f, up, 1.0) < 1e-6);    /* on it, not hovering */
    assert_true(max_speed(f) < 1e-3);           /* at rest */
    assert_true(f->newton.contacts > 0);
    assert_float_equal(f->newton.wall_force[up], weight, 1e-3 * weight);   /* the floor carries the weight */
    for (int k = 0; k < up; k++)
        if (!(fabs(f->newton.wall_force[k]) < 1e-6 * weight))   /* at rest nothing else pushes sideways */
            fail_msg("tangential wall force %g N", f->newton.wall_force[k]);
    /* And stays there. */
    double y_rest = extreme(f, up, -1.0);
    for (int s = 0; s < 50; s++) {
        fem_run(f, dt, 1);
        assert_true(extreme(f, up, 1.0) >= -1e-12);
    }
    assert_float_equal(extreme(f, up, -1.0), y_rest, 1e-5);
    fem_destroy(&f);
}

static void test_block_rests_on_floor_2d(void **state)
{
    (void)state;
    const char *mesh = "{\"generate\": \"rectangle\", \"min\": [0, 0.3], \"max\": [0.4, 0.5], \"cells\": [8, 4]}";
    drop_on_floor(2, mesh, "cholmod");
    drop_on_floor(2, mesh, "cg");
}

static void test_block_rests_on_floor_3d(void **state)
{
    (void)state;
    drop_on_floor(3, "{\"generate\": \"box\", \"min\": [0, 0, 0.3], \"max\": [0.4, 0.4, 0.5], \"cells\": [2, 2, 1]}",
                  "auto");
}

/* A light cloth (the one whose IC(0) broke down) dropped flat from 5 cm lies
 * on the floor, carried by it; and a 2D shell ring (a balloon skin) dropped
 * on the floor rests on it. */
static void test_shells_rest_on_floor(void **state)
{
    (void)state;
    test_host th;
    fem *f = fem_make(&th, "{\"dim\": 3, \"gravity\": [0, 0, -9.81], \"walls\": {\"min\": [-1, -1, 0], \"max\": "
                           "[2, 2, 1]}, \"bodies\": [{\"mesh\": {\"generate\": \"cloth\", \"origin\": [0, 0, 0.05], "
                           "\"u\": [1, 0, 0], \"v\": [0, 1, 0], \"cells\": [8, 8]}, \"material\": {\"kind\": \"shell\", "
                           "\"k_stretch\": 5000, \"b_stretch\": 50, \"k_bend\": 1e-3, \"b_bend\": 1e-3, "
                           "\"density\": 0.2}}]}");
    for (int s = 0; s < 30; s++) {
        fem_run(f, 0.01, 1);
        assert_true(extreme(f, 2, 1.0) >= -1e-12);
    }
    double weight = total_mass(f) * 9.81;
    printf("cloth: highest node %.3e m, %d nodes on the floor of %zu, wall force %.6f N (weight %.6f N)\n",
           extreme(f, 2, -1.0), f->newton.contacts, f->n, f->newton.wall_force[2], weight);
    assert_true(extreme(f, 2, -1.0) < 1e-9);   /* flat on the floor */
    assert_int_equal(f->newton.contacts, (int)f->n);
    assert_float_equal(f->newton.wall_force[2], weight, 1e-6 * weight);
    fem_destroy(&f);
    f = fem_make(&th, "{\"dim\": 2, \"gravity\": [0, -9.81], \"walls\": {\"min\": [-1, 0], \"max\": [1, 2]}, "
                      "\"bodies\": [{\"mesh\": {\"generate\": \"ring\", \"center\": [0, 0.3], \"radius\": 0.2, "
                      "\"segments\": 40}, \"material\": {\"kind\": \"shell\", \"k_stretch\": 5e4, \"b_stretch\": "
                      "1500, \"k_bend\": 50, \"b_bend\": 10, \"density\": 200}}]}");
    for (int s = 0; s < 150; s++) {
        fem_run(f, 0.01, 1);
        assert_true(extreme(f, 1, 1.0) >= -1e-12);
    }
    weight = total_mass(f) * 9.81;
    printf("ring: lowest node %.3e m, max speed %.3e m/s, wall force %.4f N/m (weight %.4f N/m)\n",
           extreme(f, 1, 1.0), max_speed(f), f->newton.wall_force[1], weight);
    assert_true(extreme(f, 1, 1.0) < 1e-9);
    assert_true(max_speed(f) < 1e-3);
    assert_float_equal(f->newton.wall_force[1], weight, 1e-3 * weight);
    fem_destroy(&f);
}

/* A block thrown at the right wall at 2 m/s, no gravity: it stops at the wall
 * and its own elasticity throws it back; it never crosses the wall and
 * gains no energy. */
static void test_block_bounces_off_side_wall(void **state)
{
    (void)state;
    for (int d = 2; d <= 3; d++) {
        test_host th;
        fem *f = fem_make(&th, d == 2 ? "{\"dim\": 2, \"walls\": {\"min\": [-1, -1], \"max\": [1, 1]}, \"bodies\": "
                                        "[{\"mesh\": {\"generate\": \"rectangle\", \"min\": [0, -0.1], \"max\": "
                                        "[0.4, 0.1], \"cells\": [8, 4]}, \"material\": {\"E\": 1e6, \"nu\": 0.3, "
                                        "\"density\": 3000}, \"velocity\": [2, 0]}]}"
                                      : "{\"dim\": 3, \"walls\": {\"min\": [-1, -1, -1], \"max\": [1, 1, 1]}, "
                                        "\"bodies\": [{\"mesh\": {\"generate\": \"box\", \"min\": [0, -0.1, -0.1], "
                                        "\"max\": [0.4, 0.1, 0.1], \"cells\": [4, 2, 2]}, \"material\": {\"E\": 1e6, "
                                        "\"nu\": 0.3, \"density\": 3000}, \"velocity\": [2, 0, 0]}]}");
        double ke0 = 0.5 * total_mass(f) * 4.0, worst = -INFINITY;
        int touched = 0;
        for (int s = 0; s < 100; s++) {   /* 1 s: the block reaches the wall after 0.3 s */
            fem_run(f, 0.005, 1);
            worst = fmax(worst, extreme(f, 0, -1.0));
            touched |= f->newton.contacts > 0;
        }
        double vx = mean_velocity(f, 0), ke = 0.0;
        for (size_t r = 0; r < f->n * (size_t)d; r++)
            ke += 0.5 * f->mass[r / (size_t)d] * f->v[r] * f->v[r];
        printf("%dD: farthest node %.6f m (wall at 1), mean x velocity %.4f m/s (thrown at 2), kinetic energy %.4f "
               "of %.4f J\n", d, worst, vx, ke, ke0);
        assert_true(touched);
        assert_true(worst <= 1.0 + 1e-12);
        assert_true(vx < -0.1);          /* on its way back */
        assert_true(ke < ke0);
        assert_true(extreme(f, 0, -1.0) < 1.0 - 1e-3);   /* off the wall again */
        fem_destroy(&f);
    }
}

/* A block set sliding along the floor at v0 with friction mu stops after
 * v0^2 / (2 mu g) (the floor's friction mu M g decelerates it uniformly);
 * without friction it keeps its speed. */
static double slide(int d, double mu, double v0, double T, double *v_end, int explicit)
{
    char json[1536];
    snprintf(json, sizeof json,
             d == 2 ? "{\"dim\": 2, \"integrator\": \"%s\", \"gravity\": [0, -9.81], \"walls\": {\"min\": [-1, 0], \"max\": [3, 2], "
                      "\"friction\": %g}, \"bodies\": [{\"mesh\": {\"generate\": \"rectangle\", \"max\": [0.4, 0.1], "
                      "\"cells\": [8, 2]}, \"material\": {\"E\": 1e6, \"nu\": 0.3, \"density\": 1000}, "
                      "\"velocity\": [%g, 0]}]}"
                    : "{\"dim\": 3, \"integrator\": \"%s\", \"gravity\": [0, 0, -9.81], \"walls\": {\"min\": [-1, -1, 0], \"max\": [3, 1, 2], "
                      "\"friction\": %g}, \"bodies\": [{\"mesh\": {\"generate\": \"box\", \"max\": [0.4, 0.2, 0.1], "
                      "\"cells\": [4, 2, 1]}, \"material\": {\"E\": 1e6, \"nu\": 0.3, \"density\": 1000}, "
                      "\"velocity\": [%g, 0, 0]}]}",
             explicit ? "explicit" : "backward_euler", mu, v0);
    test_host th;
    fem *f = fem_make(&th, json);
    double dt = explicit ? fem_max_dt(f) : 0.005;
    double x0 = 0.0;
    for (size_t i = 0; i < f->n; i++)
        x0 += f->mass[i] * f->x[i * (size_t)d];
    for (int s = 0; s < (int)lround(T / dt); s++) {
        fem_run(f, dt, 1);
        assert_true(extreme(f, d - 1, 1.0) >= -1e-12);
    }
    double x1 = 0.0;
    for (size_t i = 0; i < f->n; i++)
        x1 += f->mass[i] * f->x[i * (size_t)d];
    *v_end = mean_velocity(f, 0);
    double travel = (x1 - x0) / total_mass(f);
    fem_destroy(&f);
    return travel;
}

static void test_block_slides_to_rest_with_friction(void **state)
{
    (void)state;
    const double g = 9.81, v0 = 2.0;
    for (int d = 2; d <= 3; d++) {
        double v, stop = v0 * v0 / (2.0 * 0.5 * g);
        double travel = slide(d, 0.5, v0, 0.6, &v, 0);
        printf("%dD mu 0.5: travel %.4f m (v0^2/(2 mu g) = %.4f m), end velocity %.2e m/s\n", d, travel, stop, v);
        assert_float_equal(travel, stop, 0.02 * stop);
        assert_true(fabs(v) < 1e-3);
        double travel2 = slide(d, 0.25, v0, 1.0, &v, 0);
        printf("%dD mu 0.25: travel %.4f m (%.4f m)\n", d, travel2, 2.0 * stop);
        assert_float_equal(travel2, 2.0 * stop, 0.02 * 2.0 * stop);
        if (d == 2) {   /* the explicit integrator's projection and friction */
            double travel_ex = slide(d, 0.5, v0, 0.6, &v, 1);
            printf("%dD explicit, mu 0.5: travel %.4f m (%.4f m)\n", d, travel_ex, stop);
            assert_float_equal(travel_ex, stop, 0.02 * stop);
        }
        double travel0 = slide(d, 0.0, v0, 0.3, &v, 0);
        printf("%dD frictionless: travel %.4f m in 0.3 s, velocity %.6f m/s\n", d, travel0, v);
        assert_float_equal(v, v0, 1e-6);
        assert_float_equal(travel0, 0.3 * v0, 1e-6);
    }
}

/* Bad walls are refused, naming the key and the body. */
static void test_bad_walls_are_refused(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"{\"dim\": 2, \"walls\": {\"min\": [0, 0], \"max\": [1, 0]}, ", "must exceed"},
        {"{\"dim\": 2, \"walls\": {\"min\": [0, 0.35], \"max\": [1, 1]}, ", "node 0 of body 'slab' starts outside"},
        {"{\"dim\": 2, \"walls\": {\"max\": [1, 1]}, ", "min"},
        {"{\"dim\": 2, \"walls\": {\"min\": [0, 0], \"max\": [1, 1], \"restitution\": 0.5}, ", "restitution"},
        {"{\"dim\": 2, \"walls\": {\"min\": [0, 0], \"max\": [1, 1], \"friction\": -1}, ", "friction"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof *bad; c++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "%s\"bodies\": [{\"name\": \"slab\", \"mesh\": {\"generate\": \"rectangle\", \"min\": [0.1, 0.3], "
                 "\"max\": [0.5, 0.5], \"cells\": [2, 2]}, \"material\": {\"E\": 1e6, \"density\": 1000}}]}",
                 bad[c][0]);
        test_host th;
        test_host_init(&th, "solid", "solids[0]");
        fem *f = fem_new(json, &th.host);
        if (f || !test_host_saw(&th, bad[c][1]) || !test_host_saw(&th, "walls"))
            fail_msg("case %zu: expected a refusal naming '%s', got: %s", c, bad[c][1], th.all);
    }
}

/* Issue 12's scene: a 0.3 x 0.1 m block of density 3000 in a 1 x 1 m closed
 * tank of water (fluid_mac), the solid's walls those of the tank. It sinks,
 * lands on the floor and stays there. */
static void test_dense_block_in_water_rests_on_tank_floor(void **state)
{
    (void)state;
    static const char scene[] =
        "{\"cell_size\": 0.03125, \"time\": {\"end\": 1.2, \"dt\": 0.01}, \"coupling\": {\"scheme\": \"iqn-ils\", "
        "\"convergence\": \"cells\", \"tolerance\": 0.02, \"max_iterations\": 30}, \"fluid\": {\"plugin\": "
        "\"fluid_mac\", \"cells\": [32, 32], \"density\": 1000, \"loads\": \"impulse\"}, \"solids\": [{\"name\": "
        "\"block\", \"plugin\": \"solid_fem\", \"dim\": 2, \"walls\": {\"min\": [0, 0], \"max\": [1, 1]}, "
        "\"bodies\": [{\"mesh\": {\"generate\": \"rectangle\", \"min\": [0.35, 0.5], \"max\": [0.65, 0.6], "
        "\"cells\": [6, 2]}, \"material\": {\"model\": \"neo_hookean\", \"E\": 1e6, \"nu\": 0.3, "
        "\"density\": 3000}}]}]}";
    const char *const sets[] = {"output.frames=false", "solids.0.linear_solver.method=cholmod", NULL};
    test_run *r = test_run_scene("fem_block_in_water", scene, NULL, sets);
    assert_int_equal(r->status, SEAM_OK);
    assert_true(r->rows > 100);
    size_t points = r->n / 2, landed = 0;
    double deepest = INFINITY, mean_y[512];
    assert_true(r->rows <= 512);
    for (size_t i = 0; i < r->rows; i++) {
        double lo = INFINITY, sum = 0.0;
        for (size_t k = 0; k < points; k++) {
            double y = r->X[i * r->n + 2 * k + 1];
            lo = fmin(lo, y);
            sum += y;
        }
        deepest = fmin(deepest, lo);
        mean_y[i] = sum / (double)points;
        if (!landed && lo < 1e-9)
            landed = i;
    }
    size_t last = r->rows - 1;
    printf("block in water: lands at t = %.3f s, deepest interface point %.3e m, mean height %.6f m at the end "
           "(%.6f m 0.3 s earlier)\n", landed ? r->t[landed] : -1.0, deepest, mean_y[last], mean_y[last - 30]);
    assert_true(landed > 0 && r->t[landed] < 0.9);   /* it sank to the floor */
    assert_true(deepest >= -1e-9);                   /* and never through it */
    /* Resting on the floor: its centre half its height up (less the squeeze
     * of its own weight), the same over the last 0.3 s. */
    assert_float_equal(mean_y[last], 0.05, 1e-3);
    assert_float_equal(mean_y[last], mean_y[last - 30], 1e-4);
    /* The same scene with CG for the Newton systems: the same motion, to the
     * linear solvers' tolerance. */
    const char *const sets_cg[] = {"output.frames=false", "solids.0.linear_solver.method=cg",
                                   "solids.0.linear_solver.tolerance=1e-12", NULL};
    test_run *c = test_run_scene("fem_block_in_water_cg", scene, NULL, sets_cg);
    assert_int_equal(c->status, SEAM_OK);
    assert_int_equal(c->rows, r->rows);
    double diff = 0.0;
    for (size_t i = 0; i < r->rows * r->n; i++)
        diff = fmax(diff, fabs(c->X[i] - r->X[i]));
    printf("block in water, CG against CHOLMOD: largest difference of an interface position %.3e m\n", diff);
    assert_true(diff < 1e-9);
    test_run_free(c);
    test_run_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_rests_on_floor_2d),
        cmocka_unit_test(test_block_rests_on_floor_3d),
        cmocka_unit_test(test_shells_rest_on_floor),
        cmocka_unit_test(test_block_bounces_off_side_wall),
        cmocka_unit_test(test_block_slides_to_rest_with_friction),
        cmocka_unit_test(test_bad_walls_are_refused),
        cmocka_unit_test(test_dense_block_in_water_rests_on_tank_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
