/* solid_rigid: rigid bodies in 2D and 3D behind the seam solid contract.
 *
 * The coupling surface is a set of points sampled on each body's surface
 * (Akbay section 2.3.4: embedded points about one fluid cell apart); loads on
 * them are summed into a force and a torque about the centre of mass, and
 * the points move rigidly with their body. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/config.h"
#include "seam/frame.h"
#include "seam/log.h"
#include "seam/vtk.h"

#include "body.h"
#include "contact.h"
#include "rigid.h"
#include "quat.h"

struct rigid_solver {
    const seam_host *host;
    /* output: the frames written, and the time of the trial and committed states (s) */
    seam_vtk_series vtk;
    double t_trial, t_n;
    int dim;
    double gravity[3];
    double spacing;
    rigid_body *bodies;
    size_t n_bodies;
    rigid_world world;
    rigid_state *S;          /* committed */
    rigid_state *T;          /* result of the last solve */
    rigid_state *A;          /* where the interface loads' arms are taken: T, once a solve converged */
    bool have_trial;
    rigid_contacts contacts;
    /* the interface */
    size_t n_pts, n_elems;
    double *X;               /* handed out by describe; changed only by describe */
    double *Xs;              /* scratch positions for mobility */
    double *mass;
    int32_t *body_id;
    int32_t *elems;
    uint8_t *two_sided;
    unsigned char *saved;
    double *pose;            /* handed out by bodies: centres (3 per body), rotations (9 per body) */
    int64_t *ranges;         /* handed out by bodies: first points, then point counts */
    double *sweep;           /* SWEEP_STRIDE per body: the arm sweeps' last rotation, its change, and Jacobian */
};

/* The interface loads' arms are settled when a sweep moves none by more than
 * ARM_TOLERANCE times the longest arm; ARM_SWEEPS sweeps at most. */
#define ARM_TOLERANCE 1e-13
#define ARM_SWEEPS 60
/* Per body in rs->sweep: a (3), g (3) of the last sweep and the Broyden Jacobian J (3 x 3). */
#define SWEEP_STRIDE 15

enum { SHAPE_CIRCLE, SHAPE_RECTANGLE, SHAPE_POLYGON, SHAPE_SPHERE, SHAPE_BOX, SHAPE_MESH, SHAPE_CYLINDER, SHAPE_TORUS };
static const char *const shape_names[] = {"circle", "rectangle", "polygon", "sphere", "box", "mesh", "cylinder", "torus",
                                          NULL};
static const char *const profile_names[] = {"constant", "ramp", "cosine_release", NULL};

/* ---- configuration ----------------------------------------------------- */

/* A vector of the scene's dimension into a 3-vector (z = 0 in 2D). */
static bool read_vec(seam_cfg *c, int dim, const char *key, double *out, unsigned flags)
{
    double v[3] = {0, 0, 0};
    bool got = seam_cfg_vec(c, key, v, (size_t)dim, flags);
    if (got)
        seam_v3_copy(out, v);
    return got;
}

/* An angular quantity: a number about z in 2D, a vector in 3D. */
static void read_angular(seam_cfg *c, int dim, const char *key, double *out)
{
    seam_v3_set(out, 0, 0, 0);
    if (dim == 2)
        out[2] = seam_cfg_num(c, key, 0.0, -INFINITY, INFINITY, 0);
    else
        seam_cfg_vec(c, key, out, 3, 0);
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
    double *xy = seam_cfg_points(item, "vertices", 2, &n, SEAM_CFG_REQUIRED);
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

static int parse_shape(rigid_solver *rs, seam_cfg *item, const char *name, rigid_shape *shape)
{
    int kind = seam_cfg_enum(item, "shape", shape_names, -1, SEAM_CFG_REQUIRED);
    if (kind < 0)
        return -1;
    bool flat = kind == SHAPE_CIRCLE || kind == SHAPE_RECTANGLE || kind == SHAPE_POLYGON;
    if (flat != (rs->dim == 2)) {
        seam_cfg_error(item, "shape", "body \"%s\": shape \"%s\" needs a %s scene, this one is %dD", name,
                       shape_names[kind], flat ? "2D" : "3D", rs->dim);
        return -1;
    }
    char err[512];
    const char *key = "radius";
    int rc = 0;
    if (kind == SHAPE_CIRCLE || kind == SHAPE_SPHERE) {
        double r = seam_cfg_num(item, "radius", NAN, -INFINITY, INFINITY, SEAM_CFG_REQUIRED);
        if (isnan(r))
            return -1;
        rc = rigid_shape_round(shape, rs->dim, r, err, sizeof err);
    } else if (kind == SHAPE_RECTANGLE || kind == SHAPE_BOX) {
        double size[3] = {0, 0, 0};
        if (!seam_cfg_vec(item, "size", size, (size_t)rs->dim, SEAM_CFG_REQUIRED))
            return -1;
        key = "size";
        rc = rigid_shape_box(shape, rs->dim, size, err, sizeof err);
    } else if (kind == SHAPE_POLYGON) {
        return parse_polygon(item, name, shape);
    } else if (kind == SHAPE_CYLINDER) {
        double r = seam_cfg_num(item, "radius", NAN, -INFINITY, INFINITY, SEAM_CFG_REQUIRED);
        double h = seam_cfg_num(item, "height", NAN, -INFINITY, INFINITY, SEAM_CFG_REQUIRED);
        if (isnan(r) || isnan(h))
            return -1;
        rc = rigid_shape_cylinder(shape, r, h, err, sizeof err);
    } else if (kind == SHAPE_TORUS) {
        double r = seam_cfg_num(item, "radius", NAN, -INFINITY, INFINITY, SEAM_CFG_REQUIRED);
        double a = seam_cfg_num(item, "tube_radius", NAN, -INFINITY, INFINITY, SEAM_CFG_REQUIRED);
        if (isnan(r) || isnan(a))
            return -1;
        key = "tube_radius";
        rc = rigid_shape_torus(shape, r, a, err, sizeof err);
    } else {
        char resolved[4096];
        const char *path = seam_cfg_file(item, "mesh", NULL, resolved, sizeof resolved, SEAM_CFG_REQUIRED);
        double scale = seam_cfg_num(item, "scale", 1.0, 0.0, INFINITY, SEAM_CFG_LO_OPEN);
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
    double d = seam_cfg_num(item, "density", 1000.0, -INFINITY, INFINITY, 0);
    double m = seam_cfg_num(item, "mass", 0.0, -INFINITY, INFINITY, 0);
    if (has_d && has_m) {
        seam_cfg_error(item, "mass", "body \"%s\": give density or mass, not both", name);
        return -1;
    }
    if (!has_d && !has_m && !kinematic) {
        seam_cfg_error(item, "density", "body \"%s\": give density (kg/m^%d) or mass", name, b->shape.dim);
        return -1;
    }
    if (has_d && !(d > 0 && isfinite(d))) {
        seam_cfg_error(item, "density", "body \"%s\": density must be positive, got %g", name, d);
        return -1;
    }
    if (has_d && d > SEAM_DENSITY_MAX) {
        seam_cfg_error(item, "density", "body \"%s\": density %g kg/m^%d is above %g, denser than any material "
                       "(osmium, the densest, is 22590 kg/m^3): a unit slip?", name, d, b->shape.dim, SEAM_DENSITY_MAX);
        return -1;
    }
    if (has_m && !(m > 0 && isfinite(m))) {
        seam_cfg_error(item, "mass", "body \"%s\": mass must be positive, got %g", name, m);
        return -1;
    }
    double rho = has_m ? m / b->shape.measure : d;
    b->m = rho * b->shape.measure;
    seam_v3_scale(b->I0, rho, b->shape.J);
    return 0;
}

static int parse_loads(rigid_solver *rs, seam_cfg *item, const char *name, rigid_body *b)
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
        read_vec(f, rs->dim, "force", ld->force, 0);
        read_angular(f, rs->dim, "torque", ld->torque);
        read_vec(f, rs->dim, "point", p, 0);
        /* the point is given in the shape's own frame; samples live in the principal frame */
        qc[0] = b->shape.q_frame[0];
        for (int k = 1; k < 4; k++)
            qc[k] = -b->shape.q_frame[k];
        double R[9];
        q_to_mat(R, qc);
        seam_m3_mul_v(ld->point, R, p);
        ld->profile = (rigid_profile)seam_cfg_enum(f, "profile", profile_names, RIGID_CONSTANT, 0);
        ld->start = seam_cfg_num(f, "start", 0.0, -INFINITY, INFINITY, 0);
        ld->end = seam_cfg_num(f, "end", INFINITY, -INFINITY, INFINITY, 0);
        ld->duration = seam_cfg_num(f, "duration", 1.0, 0.0, INFINITY,
                                    SEAM_CFG_LO_OPEN | (ld->profile == RIGID_CONSTANT ? 0 : SEAM_CFG_REQUIRED));
        if (ld->profile == RIGID_CONSTANT && seam_cfg_has(f, "duration")) {
            seam_cfg_error(f, "duration", "body \"%s\": a constant profile has no duration (use end)", name);
            rc = -1;
        }
    }
    return rc;
}

static int parse_kinematic(rigid_solver *rs, seam_cfg *item, seam_cfg *k, const char *name, rigid_body *b)
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
    read_vec(k, rs->dim, "velocity", b->kv, 0);
    read_vec(k, rs->dim, "amplitude", b->kamp, 0);
    b->kfreq = seam_cfg_num(k, "frequency", 0.0, 0.0, INFINITY, 0);
    b->kphase = seam_cfg_num(k, "phase", 0.0, -INFINITY, INFINITY, 0);
    read_angular(k, rs->dim, "angular_velocity", b->kw);
    return 0;
}

static int parse_constraint(rigid_solver *rs, seam_cfg *item, seam_cfg *c, const char *name, rigid_body *b,
                            rigid_state *S)
{
    bool tr = seam_cfg_has(c, "translate_along"), ro = seam_cfg_has(c, "rotate_about");
    if (tr == ro) {
        seam_cfg_error(item, "constraint", "body \"%s\": give exactly one of translate_along and rotate_about", name);
        return -1;
    }
    double a[3] = {0, 0, 1};
    if (tr) {
        if (!read_vec(c, rs->dim, "translate_along", a, 0) || !unit_axis(c, "translate_along", name, a))
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
        if (!read_vec(c, rs->dim, "rotate_about", b->pivot, 0))
            return -1;
        if (rs->dim == 3 && (!seam_cfg_vec(c, "axis", a, 3, SEAM_CFG_REQUIRED) || !unit_axis(c, "axis", name, a)))
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
static int parse_pose(rigid_solver *rs, seam_cfg *item, const char *name, rigid_body *b, rigid_state *S)
{
    memset(S, 0, sizeof *S);
    read_vec(item, rs->dim, "position", S->x, 0);
    read_vec(item, rs->dim, "velocity", S->v, 0);
    read_angular(item, rs->dim, "angular_velocity", S->w);
    double qg[4] = {1, 0, 0, 0};
    if (rs->dim == 2) {
        double th[3] = {0, 0, seam_cfg_num(item, "angle", 0.0, -INFINITY, INFINITY, 0)};
        q_exp(qg, th);
    } else if (seam_cfg_vec(item, "orientation", qg, 4, 0)) {
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

static int parse_body_keys(rigid_solver *rs, seam_cfg *item, size_t index, rigid_body *b, rigid_state *S);

static int parse_body(rigid_solver *rs, seam_cfg *item, size_t index, rigid_body *b, rigid_state *S)
{
    int rc = parse_body_keys(rs, item, index, b, S);
    if (rc)
        for (int k = 0; body_keys[k]; k++)
            seam_cfg_skip(item, body_keys[k]);
    return rc;
}

static int parse_body_keys(rigid_solver *rs, seam_cfg *item, size_t index, rigid_body *b, rigid_state *S)
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
    b->restitution = seam_cfg_num(item, "restitution", 0.0, 0.0, 1.0, 0);
    b->friction = seam_cfg_num(item, "friction", 0.5, 0.0, INFINITY, 0);
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
    bool ok = read_vec(w, rs->dim, "min", rs->world.wmin, SEAM_CFG_REQUIRED);
    ok = read_vec(w, rs->dim, "max", rs->world.wmax, SEAM_CFG_REQUIRED) && ok;
    rs->world.wall_restitution = seam_cfg_num(w, "restitution", 0.0, 0.0, 1.0, 0);
    rs->world.wall_friction = seam_cfg_num(w, "friction", 0.5, 0.0, INFINITY, 0);
    for (int k = 0; ok && k < rs->dim; k++) {
        if (!(rs->world.wmin[k] < rs->world.wmax[k])) {
            seam_cfg_error(w, "max", "each component must exceed the one of min");
            return -1;
        }
    }
    return ok ? 0 : -1;
}

/* ---- the interface ----------------------------------------------------- */

/* Points a rigid solver samples in all (RIGID_MAX_POINTS): far beyond any
 * fluid grid's resolution of a surface, far below what would exhaust memory. */
#define RIGID_MAX_POINTS 4e6

static int build_interface(rigid_solver *rs)
{
    size_t np = 0, ne = 0;
    int32_t **el = seam_xcalloc(rs->n_bodies, sizeof *el);
    size_t *nel = seam_xcalloc(rs->n_bodies, sizeof *nel);
    for (size_t i = 0; i < rs->n_bodies; i++) {
        rigid_body *b = &rs->bodies[i];
        rigid_shape_sample(&b->shape, rs->spacing, &b->r, &b->n_pts, &el[i], &nel[i]);
        b->first = np;
        np += b->n_pts;
        ne += nel[i];
    }
    int npe = rs->dim;   /* segments in 2D, triangles in 3D */
    rs->n_pts = np;
    rs->n_elems = ne;
    rs->X = seam_xmalloc(np * (size_t)rs->dim * sizeof *rs->X);
    rs->Xs = seam_xmalloc(np * (size_t)rs->dim * sizeof *rs->Xs);
    rs->mass = seam_xmalloc(np * sizeof *rs->mass);
    rs->body_id = seam_xmalloc(np * sizeof *rs->body_id);
    rs->elems = seam_xmalloc(ne * (size_t)npe * sizeof *rs->elems);
    rs->two_sided = seam_xcalloc(ne ? ne : 1, 1);
    size_t e = 0;
    for (size_t i = 0; i < rs->n_bodies; i++) {
        rigid_body *b = &rs->bodies[i];
        for (size_t k = 0; k < b->n_pts; k++) {
            rs->mass[b->first + k] = b->m / (double)b->n_pts;   /* informative only; mobility is exact */
            rs->body_id[b->first + k] = (int32_t)i;
        }
        for (size_t k = 0; k < nel[i] * (size_t)npe; k++)
            rs->elems[e * (size_t)npe + k] = el[i][k] + (int32_t)b->first;
        e += nel[i];
        free(el[i]);
    }
    free(el);
    free(nel);
    return 0;
}

/* World positions (and velocities when V is not NULL) of all samples in state S. */
static void sample_points(const rigid_solver *rs, const rigid_state *S, double *X, double *V)
{
    for (size_t i = 0; i < rs->n_bodies; i++) {
        const rigid_body *b = &rs->bodies[i];
        for (size_t k = 0; k < b->n_pts; k++) {
            double p[3], v[3];
            rigid_body_point(&S[i], b->r + 3 * k, p);
            rigid_body_velocity_at(&S[i], p, v);
            for (int d = 0; d < rs->dim; d++) {
                X[(b->first + k) * (size_t)rs->dim + (size_t)d] = p[d];
                if (V)
                    V[(b->first + k) * (size_t)rs->dim + (size_t)d] = v[d];
            }
        }
    }
}

/* ---- the plugin -------------------------------------------------------- */

void rigid_destroy(void *self)
{
    rigid_solver *rs = self;
    if (!rs)
        return;
    seam_vtk_series_free(&rs->vtk);
    for (size_t i = 0; i < rs->n_bodies; i++) {
        free(rs->bodies[i].name);
        free(rs->bodies[i].loads);
        free(rs->bodies[i].r);
        rigid_shape_free(&rs->bodies[i].shape);
    }
    free(rs->bodies);
    free(rs->S);
    free(rs->T);
    free(rs->A);
    rigid_contacts_free(&rs->contacts);
    free(rs->X);
    free(rs->Xs);
    free(rs->mass);
    free(rs->body_id);
    free(rs->elems);
    free(rs->two_sided);
    free(rs->saved);
    free(rs->pose);
    free(rs->ranges);
    free(rs->sweep);
    free(rs);
}

/* Where a body the walls hold starts: its centre beyond a wall is refused
 * (the position correction, docs/solid_rigid.md step 5, would carry it
 * across the box at its first step); a body whose surface starts across a
 * wall is pushed inside at its first step, with a warning that says how
 * far. Checked on the points contact uses: a round body's surface, every
 * other body's samples. Kinematic bodies are not held by the walls. */
static bool bodies_inside_walls(rigid_solver *rs, seam_cfg *cfg)
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
        for (int a = 0; !outside && a < rs->dim; a++)
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
            for (int a = 0; a < rs->dim; a++) {
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

void *rigid_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *cfg = seam_cfg_from_host(config_json, host);
    if (!cfg)
        return NULL;
    rigid_solver *rs = seam_xcalloc(1, sizeof *rs);
    rs->host = host;
    rs->dim = (int)seam_cfg_int(cfg, "dim", 2, 2, 3, SEAM_CFG_REQUIRED);
    /* The scene's gravity; without one, -9.81 along y. Its own key wins, loudly. */
    static const double g_default[3] = {0, -9.81, 0};
    seam_cfg_gravity(cfg, host, rs->dim, g_default, rs->gravity);
    /* Samples about one fluid cell apart (Akbay 2.3.4) when the scene names its cell size. */
    double spacing_default = host && host->cell_size > 0 ? host->cell_size : 0.05;
    rs->spacing = seam_cfg_num(cfg, "spacing", spacing_default, 0.0, INFINITY, SEAM_CFG_LO_OPEN);
    rs->vtk.format = (seam_vtk_format)seam_cfg_enum(cfg, "vtk", seam_vtk_format_names, SEAM_VTK_XML, 0);
    rs->world.dim = rs->dim;
    rs->world.iterations = (int)seam_cfg_int(cfg, "contact_iterations", 30, 1, 100000, 0);
    rs->world.tolerance = seam_cfg_num(cfg, "contact_tolerance", 1e-9, 0.0, INFINITY, 0);
    rs->world.slop = 1e-4 * rs->spacing;
    seam_cfg *walls = seam_cfg_child(cfg, "walls", 0);
    int rc = walls ? parse_walls(rs, walls) : 0;
    size_t n = seam_cfg_count(cfg, "bodies", SEAM_CFG_REQUIRED);
    if (n == 0 && seam_cfg_has(cfg, "bodies"))
        seam_cfg_error(cfg, "bodies", "at least one body is needed");
    rs->bodies = seam_xcalloc(n ? n : 1, sizeof *rs->bodies);
    rs->S = seam_xcalloc(n ? n : 1, sizeof *rs->S);
    rs->T = seam_xcalloc(n ? n : 1, sizeof *rs->T);
    rs->A = seam_xcalloc(n ? n : 1, sizeof *rs->A);
    rs->sweep = seam_xcalloc(SWEEP_STRIDE * n + 1, sizeof *rs->sweep);
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
            seam_logf(host, SEAM_LOG_ERROR, "%s: body \"%s\" refused", seam_cfg_path(item),
                      rs->bodies[i].name ? rs->bodies[i].name : "?");
            rc = -1;
            continue;
        }
        double e = rigid_shape_sample_estimate(&rs->bodies[i].shape, rs->spacing);
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
                       "defaults to", rs->spacing, n, estimate, most, RIGID_MAX_POINTS);
    if (seam_cfg_finish(cfg) != SEAM_OK || rc != 0 || n == 0) {
        seam_cfg_destroy(&cfg);
        rigid_destroy(rs);
        return NULL;
    }
    rs->world.bodies = rs->bodies;
    rs->world.n_bodies = rs->n_bodies;
    if (build_interface(rs) != 0 || !bodies_inside_walls(rs, cfg)) {
        seam_cfg_destroy(&cfg);
        rigid_destroy(rs);
        return NULL;
    }
    seam_cfg_destroy(&cfg);
    sample_points(rs, rs->S, rs->X, NULL);
    seam_logf(host, SEAM_LOG_INFO, "%zu bodies, %zu interface points, %zu elements", rs->n_bodies, rs->n_pts,
              rs->n_elems);
    return rs;
}

seam_status rigid_describe(void *self, seam_interface *iface)
{
    rigid_solver *rs = self;
    sample_points(rs, rs->S, rs->X, NULL);
    iface->dim = rs->dim;
    iface->n_points = rs->n_pts;
    iface->X = rs->X;
    iface->mass = rs->mass;
    iface->body = rs->body_id;
    iface->nodes_per_elem = rs->dim;
    iface->n_elems = rs->n_elems;
    iface->elems = rs->elems;
    iface->two_sided = rs->two_sided;
    iface->n_bodies = rs->n_bodies;
    return SEAM_OK;
}

seam_status rigid_max_dt(void *self, double *dt)
{
    rigid_solver *rs = self;
    *dt = INFINITY;
    if (rs->dim == 2)
        return SEAM_OK;   /* planar rotation is exact; nothing limits the step */
    for (size_t i = 0; i < rs->n_bodies; i++) {
        double w = seam_v3_norm(rs->S[i].w);
        if (!isfinite(w)) {
            seam_logf(rs->host, SEAM_LOG_ERROR, "max_dt: body %zu has angular velocity %g", i, w);
            return SEAM_ERROR;
        }
        /* the implicit rotation update converges while the body turns less than about half a radian */
        if (rs->bodies[i].mode == RIGID_FREE && w > 0)
            *dt = fmin(*dt, 0.5 / w);
    }
    return SEAM_OK;
}

/* Step-averaged force and torque about the centre of mass on body i, with
 * the points and load arms placed as in state S. */
static void body_loads(const rigid_solver *rs, size_t i, const rigid_state *S, const rigid_state *A,
                       const seam_step *step, const seam_input *in, double *F, double *tau)
{
    const rigid_body *b = &rs->bodies[i];
    seam_v3_scale(F, b->m, rs->gravity);
    seam_v3_set(tau, 0, 0, 0);
    for (size_t k = 0; k < b->n_loads; k++) {
        const rigid_load *ld = &b->loads[k];
        double f = rigid_load_factor(ld, step->t, step->dt), fk[3], p[3], arm[3], t[3];
        seam_v3_scale(fk, f, ld->force);
        seam_v3_add(F, F, fk);
        seam_v3_axpy(tau, f, ld->torque);
        rigid_body_point(S, ld->point, p);
        seam_v3_sub(arm, p, S->x);
        seam_v3_cross(t, arm, fk);
        seam_v3_add(tau, tau, t);
    }
    if (!in || !in->F)
        return;
    for (size_t k = 0; k < b->n_pts; k++) {
        double Fi[3] = {0, 0, 0}, p[3], arm[3], t[3];
        for (int d = 0; d < rs->dim; d++)
            Fi[d] = in->F[(b->first + k) * (size_t)rs->dim + (size_t)d];
        rigid_body_point(A, b->r + 3 * k, p);
        seam_v3_sub(arm, p, A->x);
        seam_v3_cross(t, arm, Fi);
        seam_v3_add(F, F, Fi);   /* point loads summed into force and torque (Akbay 2.3.4) */
        seam_v3_add(tau, tau, t);
    }
}

/* The largest distance between a sample's arm in state A and in state B. */
static double arms_moved(const rigid_solver *rs, const rigid_state *A, const rigid_state *B)
{
    double moved = 0.0;
    for (size_t i = 0; i < rs->n_bodies; i++)
        for (size_t k = 0; k < rs->bodies[i].n_pts; k++) {
            double a[3], bb[3], d[3];
            rigid_body_point(&A[i], rs->bodies[i].r + 3 * k, a);
            rigid_body_point(&B[i], rs->bodies[i].r + 3 * k, bb);
            seam_v3_sub(a, a, A[i].x);
            seam_v3_sub(bb, bb, B[i].x);
            seam_v3_sub(d, a, bb);
            moved = fmax(moved, seam_v3_norm(d));
        }
    return moved;
}

/* One pass of the step from S to T with the interface loads' arms taken in
 * state A; false when the rotation update failed or the state is not finite. */
static bool step_bodies(rigid_solver *rs, const seam_step *step, const seam_input *in, const rigid_state *A)
{
    double dt = step->dt, t_end = step->t + step->dt;
    bool ok = true;
    /* kick and a provisional drift: where the bodies would go without contact */
    for (size_t i = 0; i < rs->n_bodies; i++) {
        double F[3], tau[3];
        body_loads(rs, i, &rs->S[i], &A[i], step, in, F, tau);
        rigid_body_kick(&rs->bodies[i], &rs->S[i], F, tau, dt, &rs->T[i]);
        ok = rigid_body_drift(&rs->bodies[i], &rs->S[i], &rs->T[i], dt, t_end) && ok;
    }
    /* contact impulses at the provisional positions; impulses can close gaps
     * the provisional positions had open, so detect again until nothing changes */
    bool touched = false;
    for (int round = 0; round < 4; round++) {
        rigid_contacts_find(&rs->world, rs->T, &rs->contacts);
        if (rs->contacts.n == 0)
            break;
        double change = rigid_contacts_solve(&rs->world, rs->T, &rs->contacts, 2.0 * seam_v3_norm(rs->gravity) * dt);
        if (change <= rs->world.tolerance)
            break;
        touched = true;
        for (size_t i = 0; i < rs->n_bodies; i++)   /* the drift with the new velocities */
            ok = rigid_body_drift(&rs->bodies[i], &rs->S[i], &rs->T[i], dt, t_end) && ok;
    }
    if (touched || rs->contacts.n)
        rigid_contacts_project(&rs->world, rs->T, &rs->contacts);
    /* Verlet for the plugin's own loads only: the interface loads already
     * act at the end of the step, where the fluid computed them */
    for (size_t i = 0; i < rs->n_bodies; i++) {
        double F0[3], tau0[3], F1[3], tau1[3];
        body_loads(rs, i, &rs->S[i], &rs->S[i], step, NULL, F0, tau0);
        body_loads(rs, i, &rs->T[i], &rs->T[i], step, NULL, F1, tau1);
        rigid_body_correct(&rs->bodies[i], &rs->S[i], &rs->T[i], F0, tau0, tau1, dt);
    }
    for (size_t i = 0; i < rs->n_bodies && ok; i++)
        ok = isfinite(seam_v3_norm(rs->T[i].x) + seam_v3_norm(rs->T[i].v) + seam_v3_norm(rs->T[i].w) + rs->T[i].q[0]);
    return ok;
}

/* The rotation vector of state B's rotation from state S's (world frame);
 * in 2D its z component alone. */
static void rotation_from(const rigid_solver *rs, const rigid_state *S, const rigid_state *B, double *a)
{
    double qs[4] = {S->q[0], -S->q[1], -S->q[2], -S->q[3]}, r[4];
    q_mul(r, B->q, qs);
    q_log(a, r);
    if (rs->dim == 2)
        a[0] = a[1] = 0.0;
}

/* One Broyden step (sweep > 0) or plain step (sweep 0) of body i's arms on
 * g(a) = a_T - a, a the rotation of the arms (rs->A) from the committed
 * state (rs->S) and a_T that of the sweep's result (rs->T): the next arms
 * take T's state with the rotation a - J^-1 g. J starts at -I; the "good"
 * update J += (dg - J da) da^T / (da . da) (Broyden 1965) keeps
 * J da = dg on the last change. In 2D only the angle (z) is solved for. */
static void arm_broyden(rigid_solver *rs, size_t i, int sweep)
{
    double *a_prev = rs->sweep + SWEEP_STRIDE * i, *g_prev = a_prev + 3, *J = a_prev + 6;
    int k0 = rs->dim == 2 ? 2 : 0;
    double a[3], at[3], g[3], next[3];
    rotation_from(rs, &rs->S[i], &rs->A[i], a);
    rotation_from(rs, &rs->S[i], &rs->T[i], at);
    seam_v3_sub(g, at, a);
    seam_v3_copy(next, at);   /* the plain sweep: a + g */
    if (sweep == 0) {
        for (int r = 0; r < 9; r++)
            J[r] = r % 4 == 0 ? -1.0 : 0.0;
    } else {
        double da[3], dg[3], Jda[3];
        seam_v3_sub(da, a, a_prev);
        seam_v3_sub(dg, g, g_prev);
        double dd = seam_v3_dot(da, da);
        if (dd > 1e-300) {
            seam_m3_mul_v(Jda, J, da);
            for (int r = k0; r < 3; r++)
                for (int c = k0; c < 3; c++)
                    J[3 * r + c] += (dg[r] - Jda[r]) * da[c] / dd;
        }
        /* next = a - J^-1 g on the solved components (Cramer's rule in 3D) */
        double s[3] = {0.0, 0.0, 0.0};
        bool solved = false;
        if (rs->dim == 2) {
            if (fabs(J[8]) > 1e-300 && isfinite(J[8])) {
                s[2] = -g[2] / J[8];
                solved = true;
            }
        } else {
            double c0[3] = {J[0], J[3], J[6]}, c1[3] = {J[1], J[4], J[7]}, c2[3] = {J[2], J[5], J[8]}, x[3];
            seam_v3_cross(x, c1, c2);
            double det = seam_v3_dot(c0, x);
            if (isfinite(det) && fabs(det) > 1e-300) {
                double mg[3] = {-g[0], -g[1], -g[2]}, t[3];
                seam_v3_cross(t, c1, c2);
                s[0] = seam_v3_dot(mg, t) / det;
                seam_v3_cross(t, c2, c0);
                s[1] = seam_v3_dot(mg, t) / det;
                seam_v3_cross(t, c0, c1);
                s[2] = seam_v3_dot(mg, t) / det;
                solved = true;
            }
        }
        if (solved && isfinite(seam_v3_norm(s)))
            seam_v3_add(next, a, s);
    }
    seam_v3_copy(a_prev, a);
    seam_v3_copy(g_prev, g);
    double dq[4];
    q_exp(dq, next);
    rs->A[i] = rs->T[i];
    q_mul(rs->A[i].q, dq, rs->S[i].q);
    q_normalize(rs->A[i].q);
}

seam_status rigid_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    rigid_solver *rs = self;
    if (!(step->dt > 0) || !isfinite(step->dt)) {
        seam_logf(rs->host, SEAM_LOG_ERROR, "step %lld: dt must be positive, got %g", (long long)step->index,
                  step->dt);
        return SEAM_ERROR;
    }
    const size_t n[2] = {in ? in->n : rs->n_pts, out ? out->n : rs->n_pts};
    const int dims[2] = {in ? in->dim : rs->dim, out ? out->dim : rs->dim};
    for (int k = 0; k < 2; k++) {
        if (n[k] != rs->n_pts || dims[k] != rs->dim) {
            seam_logf(rs->host, SEAM_LOG_ERROR, "solve: %s has %zu points of dimension %d, expected %zu of %d",
                      k ? "out" : "in", n[k], dims[k], rs->n_pts, rs->dim);
            return SEAM_ERROR;
        }
    }
    rs->t_trial = step->t + step->dt;
    /* The fluid computed the interface loads on the samples where this step
     * ends (the positions it was given), so their torque takes its arms
     * there: the step is repeated with the arms of its own result until they
     * stop moving. Arms that lag the body's turn dtheta make a uniform
     * pressure p0, which pushes on no closed body, exert p0 (2 x area) sin
     * dtheta: a torque that depends on the pressure's gauge and spins a
     * body up in a fluid whose pressure is negative around it. The sweeps
     * contract by about dt^2 |p0| (2 x area) / I. */
    memcpy(rs->A, rs->S, rs->n_bodies * sizeof *rs->A);
    double scale = 0.0;   /* the longest arm */
    for (size_t i = 0; i < rs->n_bodies; i++)
        for (size_t k = 0; k < rs->bodies[i].n_pts; k++)
            scale = fmax(scale, seam_v3_norm(rs->bodies[i].r + 3 * k));
    bool ok = true, settled = !in || !in->F;
    int sweep = 0;
    /* The arms depend on each body's rotation alone, and the sweep is a
     * fixed point a -> a_T(a) on the rotation a of the arms (its rotation
     * vector from the committed state S), whose slope is about
     * -dt^2 |p0| (2 x area) / I: beyond 1 in magnitude (a light body in a
     * deep liquid: a disc of 100 kg/m^2 under 1.2 m of water at dt = 0.01
     * s has about 2) plain sweeps diverge. Broyden's method per body on
     * g(a) = a_T - a, its Jacobian started at -1 (the first sweep is a plain
     * one), converges for any slope: in 2D (one angle) it is the secant
     * method, exact in one step where the map is affine. */
    bool arms = !settled;
    do {
        ok = step_bodies(rs, step, in, rs->A);
        double moved = ok ? arms_moved(rs, rs->A, rs->T) : 0.0;
        settled = settled || moved <= ARM_TOLERANCE * scale;
        for (size_t i = 0; arms && ok && !settled && i < rs->n_bodies; i++)
            arm_broyden(rs, i, sweep);
        if (!arms || settled)
            memcpy(rs->A, rs->T, rs->n_bodies * sizeof *rs->A);
    } while (ok && !settled && ++sweep < ARM_SWEEPS);
    if (!ok) {
        seam_logf(rs->host, SEAM_LOG_WARN, "step %lld: the rotation update did not converge or the state is not "
                  "finite; a smaller dt may help", (long long)step->index);
        rs->have_trial = false;
        return SEAM_UNSTABLE;
    }
    if (!settled) {
        seam_logf(rs->host, SEAM_LOG_WARN, "step %lld: the torque of the interface loads, taken at the end of the "
                  "step, did not settle in %d sweeps (the loads turn the bodies more than the bodies turn the "
                  "loads' arms at dt = %g s); a smaller dt will help", (long long)step->index, ARM_SWEEPS, step->dt);
        rs->have_trial = false;
        return SEAM_UNSTABLE;
    }
    if (out && out->X)
        sample_points(rs, rs->T, out->X, out->V);
    else if (out && out->V) {
        double *tmp = seam_xmalloc(rs->n_pts * (size_t)rs->dim * sizeof *tmp);
        sample_points(rs, rs->T, tmp, out->V);
        free(tmp);
    }
    rs->have_trial = true;
    return SEAM_OK;
}

seam_status rigid_commit(void *self)
{
    rigid_solver *rs = self;
    if (!rs->have_trial) {
        seam_logf(rs->host, SEAM_LOG_ERROR, "commit without a successful solve");
        return SEAM_ERROR;
    }
    memcpy(rs->S, rs->T, rs->n_bodies * sizeof *rs->S);
    rs->have_trial = false;
    rs->t_n = rs->t_trial;
    return SEAM_OK;
}

seam_status rigid_mobility(void *self, const double *impulse, double *dv)
{
    rigid_solver *rs = self;
    sample_points(rs, rs->S, rs->Xs, NULL);
    for (size_t i = 0; i < rs->n_bodies; i++) {
        const rigid_body *b = &rs->bodies[i];
        rigid_state R = rs->S[i];   /* a body at rest, then hit by every point's impulse */
        seam_v3_set(R.v, 0, 0, 0);
        seam_v3_set(R.L, 0, 0, 0);
        seam_v3_set(R.w, 0, 0, 0);
        R.sdot = 0.0;
        for (size_t k = 0; k < b->n_pts; k++) {
            double J[3] = {0, 0, 0}, p[3] = {0, 0, 0};
            for (int d = 0; d < rs->dim; d++) {
                J[d] = impulse[(b->first + k) * (size_t)rs->dim + (size_t)d];
                p[d] = rs->Xs[(b->first + k) * (size_t)rs->dim + (size_t)d];
            }
            rigid_body_impulse(b, &R, p, J);
        }
        for (size_t k = 0; k < b->n_pts; k++) {
            double p[3] = {0, 0, 0}, v[3];
            for (int d = 0; d < rs->dim; d++)
                p[d] = rs->Xs[(b->first + k) * (size_t)rs->dim + (size_t)d];
            rigid_body_velocity_at(&R, p, v);   /* dv_i = J/m + (I^-1 sum r_j x J_j) x r_i */
            for (int d = 0; d < rs->dim; d++)
                dv[(b->first + k) * (size_t)rs->dim + (size_t)d] = v[d];
        }
    }
    return SEAM_OK;
}

typedef struct save_header {
    char magic[8];
    uint32_t dim;
    uint32_t n_bodies;
} save_header;

static const char save_magic[8] = "seamRB1";

seam_status rigid_save_state(void *self, seam_buffer *out)
{
    rigid_solver *rs = self;
    size_t size = sizeof(save_header) + rs->n_bodies * sizeof(rigid_state);
    free(rs->saved);
    rs->saved = seam_xmalloc(size);
    save_header h = {{0}, (uint32_t)rs->dim, (uint32_t)rs->n_bodies};
    memcpy(h.magic, save_magic, sizeof h.magic);
    memcpy(rs->saved, &h, sizeof h);
    memcpy(rs->saved + sizeof h, rs->S, rs->n_bodies * sizeof(rigid_state));
    out->data = rs->saved;
    out->size = size;
    return SEAM_OK;
}

seam_status rigid_load_state(void *self, const void *bytes, size_t n)
{
    rigid_solver *rs = self;
    save_header h;
    if (n != sizeof h + rs->n_bodies * sizeof(rigid_state)) {
        seam_logf(rs->host, SEAM_LOG_ERROR, "load: %zu bytes, expected %zu for %zu bodies", n,
                  sizeof h + rs->n_bodies * sizeof(rigid_state), rs->n_bodies);
        return SEAM_ERROR;
    }
    memcpy(&h, bytes, sizeof h);
    if (memcmp(h.magic, save_magic, sizeof h.magic) != 0 || h.dim != (uint32_t)rs->dim ||
        h.n_bodies != (uint32_t)rs->n_bodies) {
        seam_logf(rs->host, SEAM_LOG_ERROR, "load: not a saved state of this %dD scene with %zu bodies", rs->dim,
                  rs->n_bodies);
        return SEAM_ERROR;
    }
    memcpy(rs->S, (const unsigned char *)bytes + sizeof h, rs->n_bodies * sizeof(rigid_state));
    rs->have_trial = false;
    return SEAM_OK;
}

seam_status rigid_write_output(void *self, const char *dir, int frame)
{
    rigid_solver *rs = self;
    size_t nd = rs->n_pts * (size_t)rs->dim;
    double *X = seam_xmalloc(nd * sizeof *X), *V = seam_xmalloc(nd * sizeof *V), *id = seam_xmalloc(rs->n_pts * sizeof *id);
    sample_points(rs, rs->S, X, V);
    for (size_t k = 0; k < rs->n_pts; k++)
        id[k] = rs->body_id[k];
    seam_vtk_field fields[2] = {{"velocity", 3, rs->dim, V}, {"body", 1, 1, id}};
    char stem[64];
    snprintf(stem, sizeof stem, "bodies_" SEAM_FRAME_FORMAT, frame);
    seam_status st = seam_vtk_frame_cells(&rs->vtk, rs->host, dir, stem, rs->dim, rs->n_pts, X,
                                          rs->dim == 2 ? SEAM_VTK_LINE : SEAM_VTK_TRIANGLE, rs->dim, rs->n_elems,
                                          rs->elems, fields, 2);
    if (st == SEAM_OK)
        st = seam_vtk_frame_done(&rs->vtk, rs->host, dir,
                                 rs->host && rs->host->name ? rs->host->name : "solid_rigid", rs->t_n);
    free(X);
    free(V);
    free(id);
    return st;
}

/* The committed pose of every body and its points' range: the centre of
 * mass and the rotation from the body frame (in which its samples' r are
 * fixed) to the world, so sample k of body b sits at x + R r_k. */
seam_status rigid_bodies(void *self, seam_bodies *out)
{
    rigid_solver *rs = self;
    size_t n = rs->n_bodies;
    if (!rs->pose) {
        rs->pose = seam_xmalloc((12 * n + 1) * sizeof *rs->pose);
        rs->ranges = seam_xmalloc((2 * n + 1) * sizeof *rs->ranges);
    }
    for (size_t i = 0; i < n; i++) {
        seam_v3_copy(rs->pose + 3 * i, rs->S[i].x);
        q_to_mat(rs->pose + 3 * n + 9 * i, rs->S[i].q);
        rs->ranges[i] = (int64_t)rs->bodies[i].first;
        rs->ranges[n + i] = (int64_t)rs->bodies[i].n_pts;
    }
    *out = (seam_bodies){.count = n, .centre = rs->pose, .rotation = rs->pose + 3 * n, .first = rs->ranges,
                         .points = rs->ranges + n};
    return SEAM_OK;
}

/* ---- for tests --------------------------------------------------------- */

size_t rigid_body_count(const rigid_solver *rs) { return rs->n_bodies; }
const rigid_body *rigid_get_body(const rigid_solver *rs, size_t i) { return &rs->bodies[i]; }
const rigid_state *rigid_get_state(const rigid_solver *rs, size_t i) { return &rs->S[i]; }

/* Every body moves rigidly; mobility is exact and the state saves whole. */
static uint32_t rigid_capabilities(void *self)
{
    (void)self;
    return SEAM_CAP_RIGID | SEAM_CAP_MOBILITY | SEAM_CAP_SAVE;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "solid_rigid",
    .role = SEAM_SOLID,
    .summary = "rigid bodies in 2D and 3D: surface samples, exact mobility, contact with restitution and friction",
    .create = rigid_create,
    .destroy = rigid_destroy,
    .max_dt = rigid_max_dt,
    .solve = rigid_solve,
    .commit = rigid_commit,
    .describe = rigid_describe,
    .bind = NULL,
    .regions = NULL,
    .mobility = rigid_mobility,
    .save = rigid_save_state,
    .load = rigid_load_state,
    .field = NULL,
    .write_output = rigid_write_output,
    .capabilities = rigid_capabilities,
    .domain = NULL,
    .bodies = rigid_bodies,
};

/* The table; export.c makes it the module's one exported symbol. */
const seam_plugin *solid_rigid_table(void) { return &plugin; }
