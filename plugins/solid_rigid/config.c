/* solid_rigid's configuration: the participant's keys into the settings,
 * the walls, and each body's description and initial state. Every key is
 * read here, with its default (each number's range is declared in
 * ranges.c, which the reading call takes); a refused key is reported at its
 * place in the scene file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/config.h"
#include "seam/log.h"

#include "quat.h"
#include "ranges.h"
#include "solver.h"

/* Points a rigid solver samples in all (RIGID_MAX_POINTS): far beyond any
 * fluid grid's resolution of a surface, far below what would exhaust memory. */
#define RIGID_MAX_POINTS 4e6

enum { SHAPE_CIRCLE, SHAPE_RECTANGLE, SHAPE_POLYGON, SHAPE_SPHERE, SHAPE_BOX, SHAPE_MESH, SHAPE_CYLINDER, SHAPE_TORUS };
static const char *const shape_names[] = {"circle", "rectangle", "polygon", "sphere", "box", "mesh", "cylinder", "torus",
                                          NULL};
static const char *const profile_names[] = {"constant", "ramp", "cosine_release", NULL};

/* A vector of the scene's dimension into a 3-vector (z = 0 in 2D). */
static bool read_vec(seam_cfg *c, const seam_range_table *t, int dim, const char *key, double *out, unsigned flags)
{
    double v[3] = {0, 0, 0};
    bool got = seam_cfg_key_vec(c, t, key, v, (size_t)dim, flags);
    if (got)
        seam_v3_copy(out, v);
    return got;
}

/* An angular quantity: a number about z in 2D, a vector in 3D. */
static void read_angular(seam_cfg *c, const seam_range_table *t, int dim, const char *key, double *out)
{
    seam_v3_set(out, 0, 0, 0);
    if (dim == 2)
        out[2] = seam_cfg_key(c, t, key, 0.0, 0);
    else
        seam_cfg_key_vec(c, t, key, out, 3, 0);
}

static bool unit_axis(seam_cfg *c, const char *key, const char *name, double *a)
{
    double n = seam_v3_norm(a);
    if (!(n > 0) || !isfinite(n)) {
        seam_cfg_error(c, key, "body \"%s\": the axis must be a non-zero vector", name);
        return false;
    }
    seam_v3_scale(a, 1.0 / n, a);
    return true;
}

static int parse_polygon(seam_cfg *item, const char *name, rigid_shape *shape)
{
    size_t n;
    double *xy = seam_cfg_key_points(item, RIGID_BODY_KEYS, "vertices", 2, &n, SEAM_CFG_REQUIRED);
    if (!xy)
        return -1;   /* missing or malformed: reported with the key's location */
    char err[256];
    int rc = -1;
    if (rigid_shape_polygon(shape, xy, n, err, sizeof err))
        seam_cfg_error(item, "vertices", "body \"%s\": %s", name, err);
    else
        rc = 0;
    free(xy);
    return rc;
}

static int parse_shape(const rigid_solver *rs, seam_cfg *item, const char *name, rigid_shape *shape)
{
    int kind = seam_cfg_enum(item, "shape", shape_names, -1, SEAM_CFG_REQUIRED);
    if (kind < 0)
        return -1;
    bool flat = kind == SHAPE_CIRCLE || kind == SHAPE_RECTANGLE || kind == SHAPE_POLYGON;
    if (flat != (rs->set.dim == 2)) {
        seam_cfg_error(item, "shape", "body \"%s\": shape \"%s\" needs a %s scene, this one is %dD", name,
                       shape_names[kind], flat ? "2D" : "3D", rs->set.dim);
        return -1;
    }
    char err[512];
    const char *key = "radius";
    int rc = 0;
    if (kind == SHAPE_CIRCLE || kind == SHAPE_SPHERE) {
        double r = seam_cfg_key(item, RIGID_BODY_KEYS, "radius", NAN, SEAM_CFG_REQUIRED);
        if (isnan(r))
            return -1;
        rc = rigid_shape_round(shape, rs->set.dim, r, err, sizeof err);
    } else if (kind == SHAPE_RECTANGLE || kind == SHAPE_BOX) {
        double size[3] = {0, 0, 0};
        if (!seam_cfg_key_vec(item, RIGID_BODY_KEYS, "size", size, (size_t)rs->set.dim, SEAM_CFG_REQUIRED))
            return -1;
        key = "size";
        rc = rigid_shape_box(shape, rs->set.dim, size, err, sizeof err);
    } else if (kind == SHAPE_POLYGON) {
        return parse_polygon(item, name, shape);
    } else if (kind == SHAPE_CYLINDER) {
        double r = seam_cfg_key(item, RIGID_BODY_KEYS, "radius", NAN, SEAM_CFG_REQUIRED);
        double h = seam_cfg_key(item, RIGID_BODY_KEYS, "height", NAN, SEAM_CFG_REQUIRED);
        if (isnan(r) || isnan(h))
            return -1;
        rc = rigid_shape_cylinder(shape, r, h, err, sizeof err);
    } else if (kind == SHAPE_TORUS) {
        double r = seam_cfg_key(item, RIGID_BODY_KEYS, "radius", NAN, SEAM_CFG_REQUIRED);
        double a = seam_cfg_key(item, RIGID_BODY_KEYS, "tube_radius", NAN, SEAM_CFG_REQUIRED);
        if (isnan(r) || isnan(a))
            return -1;
        key = "tube_radius";
        rc = rigid_shape_torus(shape, r, a, err, sizeof err);
    } else {
        char resolved[4096];
        const char *path = seam_cfg_file(item, "mesh", NULL, resolved, sizeof resolved, SEAM_CFG_REQUIRED);
        double scale = seam_cfg_key(item, RIGID_BODY_KEYS, "scale", 1.0, 0);
        if (!path)
            return -1;
        key = "mesh";
        rc = rigid_shape_obj(shape, path, scale, err, sizeof err);
    }
    if (rc)
        seam_cfg_error(item, key, "body \"%s\": %s", name, err);
    return rc;
}

/* Density or mass, exactly one (kinematic bodies may give neither). */
static int parse_mass(seam_cfg *item, const char *name, rigid_body *b, bool kinematic)
{
    bool has_d = seam_cfg_has(item, "density"), has_m = seam_cfg_has(item, "mass");
    double d = seam_cfg_key(item, RIGID_BODY_KEYS, "density", NAN, 0);
    double m = seam_cfg_key(item, RIGID_BODY_KEYS, "mass", NAN, 0);
    if (has_d && has_m) {
        seam_cfg_error(item, "mass", "body \"%s\": give density or mass, not both", name);
        return -1;
    }
    if (!has_d && !has_m && !kinematic) {
        seam_cfg_error(item, "density", "body \"%s\": give density (kg/m^%d) or mass", name, b->shape.dim);
        return -1;
    }
    if ((has_d && isnan(d)) || (has_m && isnan(m)))   /* refused against its declared range */
        return -1;
    double rho = has_m ? m / b->shape.measure : has_d ? d : 1000.0;
    b->m = rho * b->shape.measure;
    seam_v3_scale(b->I0, rho, b->shape.J);
    return 0;
}

static int parse_loads(const rigid_solver *rs, seam_cfg *item, const char *name, rigid_body *b)
{
    size_t n = seam_cfg_count(item, "forces", 0);
    if (n && b->mode == RIGID_KINEMATIC) {
        seam_cfg_error(item, "forces", "body \"%s\": a kinematic body does not respond to forces", name);
        return -1;
    }
    b->loads = seam_xcalloc(n ? n : 1, sizeof *b->loads);
    b->n_loads = n;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        seam_cfg *f = seam_cfg_item(item, "forces", i);
        if (!f) {
            rc = -1;
            continue;
        }
        rigid_load *ld = &b->loads[i];
        double p[3] = {0, 0, 0}, qc[4];
        read_vec(f, RIGID_FORCE_KEYS, rs->set.dim, "force", ld->force, 0);
        read_angular(f, RIGID_FORCE_KEYS, rs->set.dim, "torque", ld->torque);
        read_vec(f, RIGID_FORCE_KEYS, rs->set.dim, "point", p, 0);
        /* the point is given in the shape's own frame; samples live in the principal frame */
        qc[0] = b->shape.q_frame[0];
        for (int k = 1; k < 4; k++)
            qc[k] = -b->shape.q_frame[k];
        double R[9];
        q_to_mat(R, qc);
        seam_m3_mul_v(ld->point, R, p);
        ld->profile = (rigid_profile)seam_cfg_enum(f, "profile", profile_names, RIGID_CONSTANT, 0);
        ld->start = seam_cfg_key(f, RIGID_FORCE_KEYS, "start", 0.0, 0);
        ld->end = seam_cfg_key(f, RIGID_FORCE_KEYS, "end", INFINITY, 0);
        ld->duration = seam_cfg_key(f, RIGID_FORCE_KEYS, "duration", 1.0,
                                    ld->profile == RIGID_CONSTANT ? 0 : SEAM_CFG_REQUIRED);
        if (ld->profile == RIGID_CONSTANT && seam_cfg_has(f, "duration")) {
            seam_cfg_error(f, "duration", "body \"%s\": a constant profile has no duration (use end)", name);
            rc = -1;
        }
    }
    return rc;
}

static int parse_kinematic(const rigid_solver *rs, seam_cfg *item, seam_cfg *k, const char *name, rigid_body *b)
{
    b->mode = RIGID_KINEMATIC;
    const char *own[] = {"velocity", "angular_velocity", "constraint"};
    for (int i = 0; i < 3; i++) {
        if (seam_cfg_has(item, own[i])) {
            seam_cfg_error(item, own[i], "body \"%s\": a kinematic body moves as its \"kinematic\" object says; "
                           "remove this key", name);
            return -1;
        }
    }
    read_vec(k, RIGID_KINEMATIC_KEYS, rs->set.dim, "velocity", b->kv, 0);
    read_vec(k, RIGID_KINEMATIC_KEYS, rs->set.dim, "amplitude", b->kamp, 0);
    b->kfreq = seam_cfg_key(k, RIGID_KINEMATIC_KEYS, "frequency", 0.0, 0);
    b->kphase = seam_cfg_key(k, RIGID_KINEMATIC_KEYS, "phase", 0.0, 0);
    read_angular(k, RIGID_KINEMATIC_KEYS, rs->set.dim, "angular_velocity", b->kw);
    return 0;
}

static int parse_constraint(const rigid_solver *rs, seam_cfg *item, seam_cfg *c, const char *name, rigid_body *b,
                            rigid_state *S)
{
    bool tr = seam_cfg_has(c, "translate_along"), ro = seam_cfg_has(c, "rotate_about");
    if (tr == ro) {
        seam_cfg_error(item, "constraint", "body \"%s\": give exactly one of translate_along and rotate_about", name);
        return -1;
    }
    double a[3] = {0, 0, 1};
    if (tr) {
        if (!read_vec(c, RIGID_CONSTRAINT_KEYS, rs->set.dim, "translate_along", a, 0) ||
            !unit_axis(c, "translate_along", name, a))
            return -1;
        double along = seam_v3_dot(a, S->v), off[3];
        seam_v3_copy(off, S->v);
        seam_v3_axpy(off, -along, a);
        if (seam_v3_norm(off) > 1e-12 * (1.0 + seam_v3_norm(S->v)) || seam_v3_norm(S->w) != 0.0) {
            seam_cfg_error(item, "velocity", "body \"%s\": under translate_along the velocity must point along "
                           "the axis and angular_velocity must be 0", name);
            return -1;
        }
        b->mode = RIGID_TRANSLATE;
        S->sdot = along;
        b->m_axis = b->m;
    } else {
        if (!read_vec(c, RIGID_CONSTRAINT_KEYS, rs->set.dim, "rotate_about", b->pivot, 0))
            return -1;
        if (rs->set.dim == 3 && (!seam_cfg_key_vec(c, RIGID_CONSTRAINT_KEYS, "axis", a, 3, SEAM_CFG_REQUIRED) ||
                                 !unit_axis(c, "axis", name, a)))
            return -1;
        if (seam_cfg_has(item, "velocity")) {
            seam_cfg_error(item, "velocity", "body \"%s\": under rotate_about the velocity follows from "
                           "angular_velocity", name);
            return -1;
        }
        double along = seam_v3_dot(a, S->w), off[3];
        seam_v3_copy(off, S->w);
        seam_v3_axpy(off, -along, a);
        if (seam_v3_norm(off) > 1e-12 * (1.0 + seam_v3_norm(S->w))) {
            seam_cfg_error(item, "angular_velocity", "body \"%s\": must point along constraint.axis", name);
            return -1;
        }
        b->mode = RIGID_ROTATE;
        S->sdot = along;
        double ab[3], R[9], arm[3], ax[3];
        q_to_mat(R, S->q);
        seam_m3_mul_tv(ab, R, a);
        seam_v3_sub(arm, S->x, b->pivot);
        seam_v3_cross(ax, a, arm);
        /* parallel-axis theorem: I about the pivot axis */
        b->m_axis = b->I0[0] * ab[0] * ab[0] + b->I0[1] * ab[1] * ab[1] + b->I0[2] * ab[2] * ab[2] +
                    b->m * seam_v3_dot(ax, ax);
    }
    seam_v3_copy(b->axis, a);
    S->s = 0.0;
    return 0;
}

/* The initial pose and velocities into S, in the body (principal) frame. */
static int parse_pose(const rigid_solver *rs, seam_cfg *item, const char *name, rigid_body *b, rigid_state *S)
{
    memset(S, 0, sizeof *S);
    read_vec(item, RIGID_BODY_KEYS, rs->set.dim, "position", S->x, 0);
    read_vec(item, RIGID_BODY_KEYS, rs->set.dim, "velocity", S->v, 0);
    read_angular(item, RIGID_BODY_KEYS, rs->set.dim, "angular_velocity", S->w);
    double qg[4] = {1, 0, 0, 0};
    if (rs->set.dim == 2) {
        double th[3] = {0, 0, seam_cfg_key(item, RIGID_BODY_KEYS, "angle", 0.0, 0)};
        q_exp(qg, th);
    } else if (seam_cfg_key_vec(item, RIGID_BODY_KEYS, "orientation", qg, 4, 0)) {
        double n = sqrt(qg[0] * qg[0] + qg[1] * qg[1] + qg[2] * qg[2] + qg[3] * qg[3]);
        if (!(n > 0) || !isfinite(n)) {
            seam_cfg_error(item, "orientation", "body \"%s\": the quaternion [w, x, y, z] must be non-zero", name);
            return -1;
        }
        q_normalize(qg);
    }
    q_mul(S->q, qg, b->shape.q_frame);
    return 0;
}

/* Every key a body may have: marked known when parsing stops early, so only
 * the real error and true typos are reported. */
static const char *const body_keys[] = {"name", "shape", "radius", "height", "tube_radius", "size", "vertices", "mesh", "scale",
                                        "density", "mass", "position", "velocity", "angle", "orientation",
                                        "angular_velocity", "restitution", "friction", "kinematic",
                                        "constraint", "forces", NULL};

static int parse_body_keys(const rigid_solver *rs, seam_cfg *item, size_t index, rigid_body *b, rigid_state *S);

static int parse_body(const rigid_solver *rs, seam_cfg *item, size_t index, rigid_body *b, rigid_state *S)
{
    int rc = parse_body_keys(rs, item, index, b, S);
    if (rc)
        for (int k = 0; body_keys[k]; k++)
            seam_cfg_skip(item, body_keys[k]);
    return rc;
}

static int parse_body_keys(const rigid_solver *rs, seam_cfg *item, size_t index, rigid_body *b, rigid_state *S)
{
    char fallback[32];
    snprintf(fallback, sizeof fallback, "body%zu", index);
    b->name = seam_xstrdup(seam_cfg_str(item, "name", fallback, 0));
    const char *name = b->name;
    if (parse_shape(rs, item, name, &b->shape))
        return -1;
    seam_cfg *kin = seam_cfg_child(item, "kinematic", 0);
    seam_cfg *con = kin ? NULL : seam_cfg_child(item, "constraint", 0);
    if (parse_mass(item, name, b, kin != NULL) || parse_pose(rs, item, name, b, S))
        return -1;
    b->restitution = seam_cfg_key(item, RIGID_BODY_KEYS, "restitution", 0.0, 0);
    b->friction = seam_cfg_key(item, RIGID_BODY_KEYS, "friction", 0.5, 0);
    seam_v3_copy(b->x0, S->x);
    memcpy(b->q0, S->q, sizeof b->q0);
    b->mode = RIGID_FREE;
    if (kin && parse_kinematic(rs, item, kin, name, b))
        return -1;
    if (con && parse_constraint(rs, item, con, name, b, S))
        return -1;
    if (b->mode == RIGID_FREE) {
        double R[9], wb[3];   /* L = I w with I = R I_0 R^T */
        q_to_mat(R, S->q);
        seam_m3_mul_tv(wb, R, S->w);
        for (int k = 0; k < 3; k++)
            wb[k] *= b->I0[k];
        seam_m3_mul_v(S->L, R, wb);
    }
    if (parse_loads(rs, item, name, b))
        return -1;
    rigid_body_place(b, S, 0.0);
    return 0;
}

static int parse_walls(rigid_solver *rs, seam_cfg *w)
{
    rs->world.walls = true;
    bool ok = read_vec(w, RIGID_WALL_KEYS, rs->set.dim, "min", rs->world.wmin, SEAM_CFG_REQUIRED);
    ok = read_vec(w, RIGID_WALL_KEYS, rs->set.dim, "max", rs->world.wmax, SEAM_CFG_REQUIRED) && ok;
    rs->world.wall_restitution = seam_cfg_key(w, RIGID_WALL_KEYS, "restitution", 0.0, 0);
    rs->world.wall_friction = seam_cfg_key(w, RIGID_WALL_KEYS, "friction", 0.5, 0);
    for (int k = 0; ok && k < rs->set.dim; k++) {
        if (!(rs->world.wmin[k] < rs->world.wmax[k])) {
            seam_cfg_error(w, "max", "each component must exceed the one of min");
            return -1;
        }
    }
    return ok ? 0 : -1;
}

/* The top-level keys (rigid_settings) in the order they were always read. */
static void read_settings(rigid_settings *s, seam_cfg *cfg, const seam_host *host)
{
    s->dim = (int)seam_cfg_int(cfg, "dim", 2, 2, 3, SEAM_CFG_REQUIRED);
    /* The scene's gravity; without one, -9.81 along y. Its own key wins, loudly. */
    static const double g_default[3] = {0, -9.81, 0};
    seam_cfg_gravity(cfg, host, s->dim, g_default, s->gravity);
    /* Samples about one fluid cell apart (Akbay 2.3.4) when the scene names its cell size. */
    double spacing_default = host && host->cell_size > 0 ? host->cell_size : 0.05;
    s->spacing = seam_cfg_key(cfg, RIGID_KEYS, "spacing", spacing_default, 0);
    s->contact_iterations = (int)seam_cfg_key_int(cfg, RIGID_KEYS, "contact_iterations", 30, 0);
    s->contact_tolerance = seam_cfg_key(cfg, RIGID_KEYS, "contact_tolerance", 1e-9, 0);
}

int rigid_config_read(rigid_solver *rs, seam_cfg *cfg)
{
    read_settings(&rs->set, cfg, rs->host);
    rs->world.dim = rs->set.dim;
    rs->world.iterations = rs->set.contact_iterations;
    rs->world.tolerance = rs->set.contact_tolerance;
    rs->world.slop = 1e-4 * rs->set.spacing;
    seam_cfg *walls = seam_cfg_child(cfg, "walls", 0);
    int rc = walls ? parse_walls(rs, walls) : 0;
    size_t n = seam_cfg_count(cfg, "bodies", SEAM_CFG_REQUIRED);
    if (n == 0 && seam_cfg_has(cfg, "bodies"))
        seam_cfg_error(cfg, "bodies", "at least one body is needed");
    rs->bodies = SEAM_NEW_N(rigid_body, n);
    rs->S = SEAM_NEW_N(rigid_state, n);
    rs->n_bodies = n;
    double estimate = 0.0, most = -1.0;   /* interface points in all, and on the body that takes the most */
    seam_cfg *most_item = NULL;
    for (size_t i = 0; i < n; i++) {
        seam_cfg *item = seam_cfg_item(cfg, "bodies", i);
        if (!item) {
            rc = -1;
            continue;
        }
        int before = seam_cfg_error_count(cfg);
        if (parse_body(rs, item, i, &rs->bodies[i], &rs->S[i]) || seam_cfg_error_count(cfg) > before) {
            seam_logf(rs->host, SEAM_LOG_ERROR, "%s: body \"%s\" refused", seam_cfg_path(item),
                      rs->bodies[i].name ? rs->bodies[i].name : "?");
            rc = -1;
            continue;
        }
        double e = rigid_shape_sample_estimate(&rs->bodies[i].shape, rs->set.spacing);
        estimate += e;
        if (!(e <= most)) {
            most = e;
            most_item = item;
        }
    }
    /* A spacing that samples the bodies with more than RIGID_MAX_POINTS points is refused before anything
     * that grows with their number is allocated, located at the body that would take the most. */
    if (rc == 0 && seam_cfg_error_count(cfg) == 0 && estimate > RIGID_MAX_POINTS)
        seam_cfg_error(most_item, NULL, "spacing %g m would sample the %zu bodies with about %.3g interface points, "
                       "%.3g of them on this one (at most %.0e): raise spacing, or the scene's fluid cell size it "
                       "defaults to", rs->set.spacing, n, estimate, most, RIGID_MAX_POINTS);
    rs->world.bodies = rs->bodies;
    rs->world.n_bodies = rs->n_bodies;
    return rc != 0 || n == 0 ? -1 : 0;
}

/* Where a body the walls hold starts: its centre beyond a wall is refused
 * (the position correction, docs/solid_rigid.md step 5, would carry it
 * across the box at its first step); a body whose surface starts across a
 * wall is pushed inside at its first step, with a warning that says how
 * far. Checked on the points contact uses: a round body's surface, every
 * other body's samples. Kinematic bodies are not held by the walls. */
bool rigid_config_inside_walls(const rigid_solver *rs, seam_cfg *cfg)
{
    if (!rs->world.walls)
        return true;
    const double *lo = rs->world.wmin, *hi = rs->world.wmax;
    bool ok = true;
    for (size_t i = 0; i < rs->n_bodies; i++) {
        const rigid_body *b = &rs->bodies[i];
        if (b->mode == RIGID_KINEMATIC)
            continue;
        seam_cfg *item = seam_cfg_item(cfg, "bodies", i);
        const char *key = seam_cfg_has(item, "position") ? "position" : NULL;
        const double *c = rs->S[i].x;
        bool outside = false;
        for (int a = 0; !outside && a < rs->set.dim; a++)
            if (c[a] < lo[a] || c[a] > hi[a]) {
                int up = c[a] > hi[a];
                seam_cfg_error(item, key, "body \"%s\": its centre, %c = %g, lies beyond walls.%s[%d] = %g; a body the "
                               "walls hold must start inside them", b->name, "xyz"[a], c[a], up ? "max" : "min", a,
                               up ? hi[a] : lo[a]);
                outside = true;
            }
        if (outside) {
            ok = false;
            continue;
        }
        double worst = rs->world.slop;   /* depth across a wall, past round-off */
        int axis = -1, up = 0;
        size_t n = b->shape.kind == RIGID_ROUND ? 1 : b->n_pts;
        for (size_t k = 0; k < n; k++) {
            double p[3], r = 0.0;
            if (b->shape.kind == RIGID_ROUND) {
                seam_v3_copy(p, c);
                r = b->shape.radius;
            } else
                rigid_body_point(&rs->S[i], b->r + 3 * k, p);
            for (int a = 0; a < rs->set.dim; a++) {
                if (lo[a] - (p[a] - r) > worst)
                    worst = lo[a] - (p[a] - r), axis = a, up = 0;
                if ((p[a] + r) - hi[a] > worst)
                    worst = (p[a] + r) - hi[a], axis = a, up = 1;
            }
        }
        if (axis >= 0)
            seam_logf(rs->host, SEAM_LOG_WARN, "%s: body \"%s\" starts %g m across walls.%s[%d] = %g: pushed inside "
                      "at its first step", seam_cfg_path(item), b->name, worst, up ? "max" : "min", axis,
                      up ? hi[axis] : lo[axis]);
    }
    return ok;
}
