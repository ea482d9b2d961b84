#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "contact.h"
#include "quat.h"

void rigid_contacts_free(rigid_contacts *cs)
{
    free(cs->c);
    memset(cs, 0, sizeof *cs);
}

/* World point p in the body frame of S. */
static void to_body(const rigid_state *S, const double *p, double *r)
{
    double R[9], d[3];
    q_to_mat(R, S->q);
    seam_v3_sub(d, p, S->x);
    seam_m3_mul_tv(r, R, d);
}

static void add_contact(const rigid_world *w, const rigid_state *S, rigid_contacts *cs, int a, int b,
                        const double *p, const double *n, double gap)
{
    if (cs->n == cs->cap) {
        cs->cap = cs->cap ? 2 * cs->cap : 64;
        cs->c = seam_xrealloc(cs->c, cs->cap * sizeof *cs->c);
    }
    rigid_contact *c = &cs->c[cs->n++];
    memset(c, 0, sizeof *c);
    c->a = a;
    c->b = b;
    seam_v3_copy(c->p, p);
    seam_v3_copy(c->n, n);
    c->gap = gap;
    to_body(&S[a], p, c->ra);
    const rigid_body *A = &w->bodies[a];
    double eb = w->wall_restitution, mub = w->wall_friction;
    if (b >= 0) {
        to_body(&S[b], p, c->rb);
        eb = w->bodies[b].restitution;
        mub = w->bodies[b].friction;
    }
    c->e = fmax(A->restitution, eb);          /* the bouncier surface wins */
    c->mu = sqrt(A->friction * mub);          /* geometric mean */
}

/* Distance of p from the line through a and b (3D), or from a when a = b. */
static double off_line(const double *p, const double *a, const double *b)
{
    double ab[3], ap[3], c[3];
    seam_v3_sub(ab, b, a);
    seam_v3_sub(ap, p, a);
    double L = seam_v3_norm(ab);
    if (L == 0)
        return seam_v3_norm(ap);
    seam_v3_cross(c, ab, ap);
    return seam_v3_norm(c) / L;
}

/* The contact of c[0..n) farthest from point p. */
static size_t farthest_from(const rigid_contact *c, size_t n, const double p[3])
{
    size_t far = 0;
    double best = -1;
    for (size_t i = 0; i < n; i++) {
        double d[3];
        seam_v3_sub(d, c[i].p, p);
        double dist = seam_v3_norm(d);
        if (dist > best) {
            best = dist;
            far = i;
        }
    }
    return far;
}

/* Keep the contacts of one touching region that carry it: the deepest, the
 * one farthest from it, and in 3D the two farthest from that line on either
 * side (in 2D the line's far end suffices). A face resting on a face keeps
 * its support polygon with 2-4 points instead of every sample. */
static void reduce_group(const rigid_world *w, rigid_contacts *cs, size_t start)
{
    size_t n = cs->n - start, keep[4], k = 0;
    if (n <= (w->dim == 2 ? 2u : 4u))
        return;
    rigid_contact *c = cs->c + start;
    size_t deep = 0, far;
    for (size_t i = 1; i < n; i++)
        if (c[i].gap < c[deep].gap)
            deep = i;
    far = farthest_from(c, n, c[deep].p);
    keep[k++] = deep;
    if (far != deep)
        keep[k++] = far;
    if (w->dim == 2) {
        /* the far end from the deepest one, and the far end from that */
        size_t other = farthest_from(c, n, c[far].p);
        if (other != deep && other != far)
            keep[k++] = other;
    } else {
        double ab[3], nrm[3], side_best[2] = {0, 0};
        size_t side_i[2] = {deep, deep};
        seam_v3_sub(ab, c[far].p, c[deep].p);
        seam_v3_cross(nrm, c[deep].n, ab);   /* in-plane direction across the line */
        for (size_t i = 0; i < n; i++) {
            double d[3];
            seam_v3_sub(d, c[i].p, c[deep].p);
            double sgn = seam_v3_dot(d, nrm), dist = off_line(c[i].p, c[deep].p, c[far].p);
            int sd = sgn >= 0 ? 0 : 1;
            if (dist > side_best[sd]) {
                side_best[sd] = dist;
                side_i[sd] = i;
            }
        }
        for (int sd = 0; sd < 2; sd++)
            if (side_best[sd] > 0)
                keep[k++] = side_i[sd];
    }
    rigid_contact tmp[4];
    for (size_t i = 0; i < k; i++)
        tmp[i] = c[keep[i]];
    memcpy(c, tmp, k * sizeof *tmp);
    cs->n = start + k;
}

static void find_walls(const rigid_world *w, const rigid_state *S, int a, rigid_contacts *cs)
{
    const rigid_body *A = &w->bodies[a];
    for (int k = 0; k < w->dim; k++) {
        for (int side = 0; side < 2; side++) {
            double n[3] = {0, 0, 0};
            n[k] = side ? -1.0 : 1.0;   /* pointing into the domain */
            double plane = side ? w->wmax[k] : w->wmin[k];
            if (A->shape.kind == RIGID_ROUND) {
                double gap = n[k] * (S[a].x[k] - plane) - A->shape.radius, p[3];
                if (gap < 0) {
                    seam_v3_copy(p, S[a].x);   /* the touching point of the body's surface */
                    seam_v3_axpy(p, -A->shape.radius, n);
                    add_contact(w, S, cs, a, -1, p, n, gap);
                }
                continue;
            }
            if (n[k] * (S[a].x[k] - plane) > A->shape.bound)
                continue;
            double R[9];
            q_to_mat(R, S[a].q);
            size_t start = cs->n;
            for (size_t i = 0; i < A->n_pts; i++) {
                double X[3];
                seam_m3_mul_v(X, R, A->r + 3 * i);
                seam_v3_add(X, X, S[a].x);
                double gap = n[k] * (X[k] - plane);
                if (gap < 0)
                    add_contact(w, S, cs, a, -1, X, n, gap);
            }
            reduce_group(w, cs, start);
        }
    }
}

/* Signed distance of world point p to body b; false when b has none. */
static bool world_sdf(const rigid_body *B, const rigid_state *S, const double *p, double *d, double *n)
{
    double r[3], nb[3], R[9];
    to_body(S, p, r);
    if (!rigid_shape_sdf(&B->shape, r, d, nb))
        return false;
    q_to_mat(R, S->q);
    seam_m3_mul_v(n, R, nb);
    return true;
}

/* Samples (or the centre of a round shape) of a against the distance of b. */
static void find_into(const rigid_world *w, const rigid_state *S, int a, int b, rigid_contacts *cs)
{
    const rigid_body *A = &w->bodies[a], *B = &w->bodies[b];
    double d, n[3], p[3];
    if (A->shape.kind == RIGID_ROUND) {
        if (!world_sdf(B, &S[b], S[a].x, &d, n) || d - A->shape.radius >= 0)
            return;
        seam_v3_copy(p, S[a].x);
        seam_v3_axpy(p, -A->shape.radius, n);
        add_contact(w, S, cs, a, b, p, n, d - A->shape.radius);
        return;
    }
    double R[9];
    q_to_mat(R, S[a].q);
    size_t start = cs->n;
    for (size_t i = 0; i < A->n_pts; i++) {
        seam_m3_mul_v(p, R, A->r + 3 * i);
        seam_v3_add(p, p, S[a].x);
        double dd[3];
        seam_v3_sub(dd, p, S[b].x);
        if (seam_v3_norm(dd) > B->shape.bound)
            continue;
        if (world_sdf(B, &S[b], p, &d, n) && d < 0)
            add_contact(w, S, cs, a, b, p, n, d);
    }
    reduce_group(w, cs, start);
}

void rigid_contacts_find(const rigid_world *w, const rigid_state *S, rigid_contacts *cs)
{
    cs->n = 0;
    for (size_t a = 0; a < w->n_bodies; a++) {
        if (w->walls && w->bodies[a].mode != RIGID_KINEMATIC)
            find_walls(w, S, (int)a, cs);
        for (size_t b = a + 1; b < w->n_bodies; b++) {
            const rigid_body *A = &w->bodies[a], *B = &w->bodies[b];
            if (A->mode == RIGID_KINEMATIC && B->mode == RIGID_KINEMATIC)
                continue;
            double d[3];
            seam_v3_sub(d, S[a].x, S[b].x);
            if (seam_v3_norm(d) > A->shape.bound + B->shape.bound)
                continue;
            if (A->shape.kind == RIGID_ROUND && B->shape.kind == RIGID_ROUND) {
                double dist = seam_v3_norm(d), gap = dist - A->shape.radius - B->shape.radius, n[3], p[3];
                if (gap >= 0 || dist == 0)
                    continue;
                seam_v3_scale(n, 1.0 / dist, d);
                seam_v3_copy(p, S[b].x);
                seam_v3_axpy(p, B->shape.radius + 0.5 * gap, n);
                add_contact(w, S, cs, (int)a, (int)b, p, n, gap);
                continue;
            }
            /* a round body: its centre against the other's distance, one exact contact */
            if (B->shape.kind != RIGID_ROUND)
                find_into(w, S, (int)a, (int)b, cs);
            if (A->shape.kind == RIGID_ROUND)
                continue;
            size_t mid = cs->n;
            find_into(w, S, (int)b, (int)a, cs);
            for (size_t i = mid; i < cs->n; i++) {   /* keep a as the first body */
                rigid_contact *c = &cs->c[i];
                int t = c->a; c->a = c->b; c->b = t;
                double r[3];
                seam_v3_copy(r, c->ra); seam_v3_copy(c->ra, c->rb); seam_v3_copy(c->rb, r);
                seam_v3_scale(c->n, -1.0, c->n);
            }
        }
    }
}

/* Relative velocity of a to b at the contact point. */
static void rel_velocity(const rigid_contact *c, const rigid_state *S, double *u)
{
    rigid_body_velocity_at(&S[c->a], c->p, u);
    if (c->b >= 0) {
        double vb[3];
        rigid_body_velocity_at(&S[c->b], c->p, vb);
        seam_v3_sub(u, u, vb);
    }
}

/* d(u . dir) per unit impulse along dir: the pair's inverse effective mass. */
static double inv_mass(const rigid_world *w, const rigid_contact *c, const rigid_state *S, const double *dir)
{
    double dv[3];
    rigid_body_response(&w->bodies[c->a], &S[c->a], c->p, dir, c->p, dv);
    double k = seam_v3_dot(dv, dir);
    if (c->b >= 0) {
        rigid_body_response(&w->bodies[c->b], &S[c->b], c->p, dir, c->p, dv);
        k += seam_v3_dot(dv, dir);
    }
    return k;
}

static void apply_pair(const rigid_world *w, const rigid_contact *c, rigid_state *S, const double *J)
{
    rigid_body_impulse(&w->bodies[c->a], &S[c->a], c->p, J);
    if (c->b >= 0) {
        double mJ[3];
        seam_v3_scale(mJ, -1.0, J);
        rigid_body_impulse(&w->bodies[c->b], &S[c->b], c->p, mJ);
    }
}

typedef struct contact_row {
    double t[2][3];          /* tangents */
    double kn, kt[2];        /* inverse effective masses */
    double target;           /* wanted normal velocity */
    double jn, jt[2];        /* accumulated impulses */
} contact_row;

static void tangents(int dim, const double *n, double t[2][3])
{
    if (dim == 2) {
        seam_v3_set(t[0], -n[1], n[0], 0.0);
        seam_v3_set(t[1], 0, 0, 0);
        return;
    }
    double a[3] = {1, 0, 0};
    if (fabs(n[0]) > 0.6)
        seam_v3_set(a, 0, 1, 0);
    seam_v3_cross(t[0], n, a);
    seam_v3_scale(t[0], 1.0 / seam_v3_norm(t[0]), t[0]);
    seam_v3_cross(t[1], n, t[0]);
}

double rigid_contacts_solve(const rigid_world *w, rigid_state *S, const rigid_contacts *cs, double rest_speed)
{
    if (cs->n == 0)
        return 0.0;
    double first = 0.0;   /* the largest velocity change of the first sweep */
    contact_row *row = seam_xcalloc(cs->n, sizeof *row);
    int nt = w->dim == 2 ? 1 : 2;
    for (size_t i = 0; i < cs->n; i++) {
        const rigid_contact *c = &cs->c[i];
        contact_row *r = &row[i];
        double u[3];
        rel_velocity(c, S, u);
        double un = seam_v3_dot(u, c->n);
        /* Newton's restitution law on closing contacts; slow ones rest (no jitter) */
        r->target = un < -rest_speed ? -c->e * un : 0.0;
        r->kn = inv_mass(w, c, S, c->n);
        tangents(w->dim, c->n, r->t);
        for (int k = 0; k < nt; k++)
            r->kt[k] = inv_mass(w, c, S, r->t[k]);
    }
    for (int it = 0; it < w->iterations; it++) {
        double change = 0.0;   /* largest velocity change of this sweep */
        for (size_t i = 0; i < cs->n; i++) {
            const rigid_contact *c = &cs->c[i];
            contact_row *r = &row[i];
            if (!(r->kn > 0))
                continue;
            double u[3], J[3];
            rel_velocity(c, S, u);
            double jn = fmax(r->jn + (r->target - seam_v3_dot(u, c->n)) / r->kn, 0.0);   /* no pulling */
            seam_v3_scale(J, jn - r->jn, c->n);
            apply_pair(w, c, S, J);
            change = fmax(change, fabs(jn - r->jn) * r->kn);
            r->jn = jn;
            /* Coulomb friction: tangential impulse inside the cone |jt| <= mu jn */
            rel_velocity(c, S, u);
            double jt[2] = {r->jt[0], r->jt[1]};
            for (int k = 0; k < nt; k++)   /* none along a tangent the pair cannot move on (a constraint carries it) */
                if (r->kt[k] > 0)
                    jt[k] -= seam_v3_dot(u, r->t[k]) / r->kt[k];
            double mag = hypot(jt[0], jt[1]), lim = c->mu * r->jn;
            if (mag > lim) {
                jt[0] *= lim / mag;
                jt[1] *= lim / mag;
            }
            seam_v3_set(J, 0, 0, 0);
            for (int k = 0; k < nt; k++)
                seam_v3_axpy(J, jt[k] - r->jt[k], r->t[k]);
            apply_pair(w, c, S, J);
            change = fmax(change, hypot((jt[0] - r->jt[0]) * r->kt[0], (jt[1] - r->jt[1]) * r->kt[1]));
            r->jt[0] = jt[0];
            r->jt[1] = jt[1];
        }
        if (it == 0)
            first = change;
        if (change <= w->tolerance)
            break;   /* converged: another sweep would change no velocity */
    }
    free(row);
    return first;
}

/* Current gap of a contact after its bodies moved since detection (linearized). */
static double current_gap(const rigid_contact *c, const rigid_state *S)
{
    double pa[3], d[3];
    rigid_body_point(&S[c->a], c->ra, pa);
    seam_v3_sub(d, pa, c->p);
    if (c->b >= 0) {
        double pb[3];
        rigid_body_point(&S[c->b], c->rb, pb);
        seam_v3_sub(d, d, pb);
        seam_v3_add(d, d, c->p);
    }
    return c->gap + seam_v3_dot(d, c->n);
}

void rigid_contacts_project(const rigid_world *w, rigid_state *S, rigid_contacts *cs)
{
    for (int pass = 0; pass < 4; pass++) {
        rigid_contacts_find(w, S, cs);
        bool moved = false;
        for (int sweep = 0; sweep < 8; sweep++) {
            for (size_t i = 0; i < cs->n; i++) {
                rigid_contact *c = &cs->c[i];
                /* Between bodies an overlap of slop is left so resting contacts persist; against a
                 * wall none: the walls are often the fluid's domain too, and a sample past it
                 * stops a coupled run (the next step's provisional drift finds the contact again). */
                double slop = c->b >= 0 ? w->slop : 0.0, g = current_gap(c, S);
                if (g >= -slop)
                    continue;
                double k = inv_mass(w, c, S, c->n);
                if (!(k > 0))
                    continue;
                double P[3], mP[3];
                seam_v3_scale(P, (-slop - g) / k, c->n);   /* pseudo-impulse closing the overlap */
                rigid_body_displace(&w->bodies[c->a], &S[c->a], c->p, P);
                if (c->b >= 0) {
                    seam_v3_scale(mP, -1.0, P);
                    rigid_body_displace(&w->bodies[c->b], &S[c->b], c->p, mP);
                }
                moved = true;
            }
        }
        if (!moved)
            return;
    }
}
