/* The interface: the solids' coupling surfaces concatenated (indices and
 * body ids offset), handed to the fluid once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rigid_dofs.h"
#include "interface.h"
#include "seam/alloc.h"

/* Check one solid's described surface against the others. */
static bool check_surface(sim_interface *in, participant *pt, const seam_interface *f)
{
    if (f->dim < 1 || f->dim > 3 || (f->n_points && !f->X)) {
        sim_log(in->log, SEAM_LOG_ERROR, pt->name, "describe returned an invalid interface (dim %d, %zu points)", f->dim,
                f->n_points);
        return false;
    }
    bool ok = true;
    if (in->dim && f->dim != in->dim) {
        sim_log(in->log, SEAM_LOG_ERROR, pt->name, "%s: %s: its interface has dimension %d, but %s's has %d",
                seam_doc_locate(in->doc, pt->config_path), pt->config_path, f->dim,
                in->ps->parts[in->ps->first_solid].name, in->dim);
        ok = false;
    }
    in->dim = f->dim;
    if (f->n_elems && in->nodes_per_elem && f->nodes_per_elem != in->nodes_per_elem) {
        sim_log(in->log, SEAM_LOG_ERROR, pt->name, "%s: %s: its interface elements have %d nodes, others have %d",
                seam_doc_locate(in->doc, pt->config_path), pt->config_path, f->nodes_per_elem, in->nodes_per_elem);
        ok = false;
    }
    if (f->n_elems)
        in->nodes_per_elem = f->nodes_per_elem;
    for (size_t e = 0; e < f->n_elems * (size_t)f->nodes_per_elem; e++)
        if (f->elems[e] < 0 || (size_t)f->elems[e] >= f->n_points) {
            sim_log(in->log, SEAM_LOG_ERROR, pt->name, "interface element %zu refers to point %d of %zu",
                    e / (size_t)f->nodes_per_elem, f->elems[e], f->n_points);
            return false;
        }
    return ok;
}

static void allocate(sim_interface *in)
{
    size_t n = in->n_points * (size_t)in->dim, m = n ? n : 1;
    in->X0 = seam_xcalloc(m, sizeof *in->X0);
    in->mass = seam_xcalloc(in->n_points + 1, sizeof *in->mass);
    in->body = seam_xcalloc(in->n_points + 1, sizeof *in->body);
    in->elems = seam_xcalloc(in->n_elems * (size_t)(in->nodes_per_elem ? in->nodes_per_elem : 1) + 1, sizeof *in->elems);
    in->two_sided = seam_xcalloc(in->n_elems + 1, 1);
    in->block = in->Xn = seam_xcalloc((7 + SIM_PAST) * m, sizeof *in->Xn);   /* Xn, X_pred, X_out, V, V_solid, Vn, F_solid, Xpast */
    in->X_pred = in->Xn + m;
    in->X_out = in->X_pred + m;
    in->V = in->X_out + m;
    in->V_solid = in->V + m;
    in->Vn = in->V_solid + m;
    in->F_solid = in->Vn + m;
    for (int j = 0; j < SIM_PAST; j++)
        in->Xpast[j] = in->F_solid + (size_t)(j + 1) * m;
}

/* Copy solid s's surface into its slice of the concatenation. */
static void place(sim_interface *in, participant *pt, const seam_interface *f, size_t *e_at, int32_t *body_base)
{
    memcpy(in->X0 + pt->offset * (size_t)in->dim, f->X, f->n_points * (size_t)f->dim * sizeof(double));
    int32_t max_body = 0;
    for (size_t i = 0; i < f->n_points; i++) {
        in->mass[pt->offset + i] = f->mass ? f->mass[i] : 0.0;
        int32_t b = f->body ? f->body[i] : 0;
        in->body[pt->offset + i] = *body_base + b;
        max_body = b > max_body ? b : max_body;
    }
    for (size_t e = 0; e < f->n_elems; e++, (*e_at)++) {
        for (int k = 0; k < f->nodes_per_elem; k++)
            in->elems[*e_at * (size_t)in->nodes_per_elem + (size_t)k] =
                (int32_t)pt->offset + f->elems[e * (size_t)f->nodes_per_elem + (size_t)k];
        in->two_sided[*e_at] = f->two_sided ? f->two_sided[e] : 0;
    }
    pt->body_base = *body_base;
    pt->n_bodies = f->n_bodies ? f->n_bodies : (size_t)max_body + 1;
    *body_base += (int32_t)pt->n_bodies;
}

bool interface_build(sim_interface *in)
{
    size_t n_solids = in->ps->n_parts - in->ps->first_solid;
    seam_interface *ifs = SEAM_NEW_N(seam_interface, n_solids + 1);
    bool ok = true;
    in->dim = 0;
    for (size_t s = 0; s < n_solids; s++) {
        participant *pt = &in->ps->parts[in->ps->first_solid + s];
        if (pt->p->describe(pt->self, &ifs[s]) != SEAM_OK) {
            sim_log(in->log, SEAM_LOG_ERROR, pt->name, "describe failed");
            ok = false;
            continue;
        }
        if (!check_surface(in, pt, &ifs[s])) {
            ok = false;
            continue;
        }
        pt->offset = in->n_points;
        pt->n_points = ifs[s].n_points;
        in->n_points += ifs[s].n_points;
        in->n_elems += ifs[s].n_elems;
    }
    if (ok && in->n_points == 0) {
        sim_log(in->log, SEAM_LOG_ERROR, NULL, "the solids describe no interface points");
        ok = false;
    }
    if (ok) {
        allocate(in);
        size_t e_at = 0;
        int32_t body_base = 0;
        for (size_t s = 0; s < n_solids; s++)
            place(in, &in->ps->parts[in->ps->first_solid + s], &ifs[s], &e_at, &body_base);
        in->n_bodies = (size_t)body_base;
        size_t n = in->n_points * (size_t)in->dim;
        memcpy(in->Xn, in->X0, n * sizeof *in->Xn);
        for (int j = 0; j < SIM_PAST; j++)
            memcpy(in->Xpast[j], in->X0, n * sizeof *in->Xpast[j]);
    }
    free(ifs);
    return ok;
}

seam_status interface_from_coupled(sim_interface *in, bool shift, long step)
{
    participant *pt = in->ps->coupled;
    if (!pt || !pt->p->describe || !in->n_points)
        return SEAM_OK;
    seam_interface now;
    if (pt->p->describe(pt->self, &now) != SEAM_OK) {
        sim_log(in->log, SEAM_LOG_ERROR, pt->name, "describe failed after step %ld", step);
        return SEAM_ERROR;
    }
    if (now.n_points != in->n_points || now.dim != in->dim || !now.X) {
        sim_log(in->log, SEAM_LOG_ERROR, pt->name, "describe changed its interface from %zu points of dimension %d to %zu of "
                "dimension %d after step %ld", in->n_points, in->dim, now.n_points, now.dim, step);
        return SEAM_ERROR;
    }
    size_t n = in->n_points * (size_t)in->dim;
    for (size_t k = 0; k < n; k++)
        if (!isfinite(now.X[k])) {
            sim_log(in->log, SEAM_LOG_ERROR, pt->name, "describe returned a non-finite position on interface point %zu "
                    "after step %ld", k / (size_t)in->dim, step);
            return SEAM_ERROR;
        }
    if (shift) {
        for (int j = SIM_PAST - 1; j > 0; j--)
            memcpy(in->Xpast[j], in->Xpast[j - 1], n * sizeof *in->Xpast[j]);
        memcpy(in->Xpast[0], in->Xn, n * sizeof *in->Xpast[0]);
    }
    memcpy(in->Xn, now.X, n * sizeof *in->Xn);
    return SEAM_OK;
}

/* An absolute position tolerance wider than the fluid's domain lets every
 * iterate pass: a unit slip (mm for m) or a misplaced key. */
static bool check_tolerances(sim_interface *in, const seam_convergence *conv)
{
    double across = 0.0;
    for (int d = 0; d < in->dim; d++)
        across = fmax(across, in->domain_hi[d] - in->domain_lo[d]);
    bool listed = json_object_get(json_object_get(seam_doc_root(in->doc), "coupling"), "measures") != NULL;
    bool ok = true;
    for (size_t i = 0; i < conv->count; i++) {
        const seam_measure *m = &conv->measures[i];
        if (m->quantity != SEAM_QTY_POSITIONS || m->relative || !(m->tolerance > across))
            continue;
        char key[64];
        if (listed)
            snprintf(key, sizeof key, "coupling.measures[%zu].tolerance", i);
        else
            snprintf(key, sizeof key, "coupling.tolerance");
        sim_log(in->log, SEAM_LOG_ERROR, NULL, "%s: %s: a position tolerance of %g m is wider than the domain of fluid "
                "\"%s\" (%g m across): every iterate would pass as converged", seam_doc_locate(in->doc, key), key,
                m->tolerance, in->ps->fluid->name, across);
        ok = false;
    }
    return ok;
}

bool interface_bind(sim_interface *in, const seam_convergence *conv)
{
    seam_interface iface = {
        .dim = in->dim, .n_points = in->n_points, .X = in->X0, .mass = in->mass, .body = in->body,
        .nodes_per_elem = in->nodes_per_elem, .n_elems = in->n_elems, .elems = in->elems,
        .two_sided = in->two_sided, .n_bodies = in->n_bodies,
    };
    /* The box first: a bind samples the solids' surfaces at the fluid's spacing, work and memory that grow
     * with a solid's size, and a solid far larger than the box would be refused only after them. */
    participant *fl = in->ps->fluid;
    if (fl->p->domain && in->dim >= 2) {
        if (fl->p->domain(fl->self, in->domain_lo, in->domain_hi) != SEAM_OK) {
            sim_log(in->log, SEAM_LOG_ERROR, fl->name, "domain failed");
            return false;
        }
        /* a fluid with a box is 2D (z = [0, 0], plugin.h, domain) or 3D: solids of the other dimension are
         * refused here, located, not as an empty box along z or by the fluid's bind */
        bool flat = in->domain_lo[2] == 0.0 && in->domain_hi[2] == 0.0;
        if (in->dim != (flat ? 2 : 3)) {
            const participant *s0 = &in->ps->parts[in->ps->first_solid];
            sim_log(in->log, SEAM_LOG_ERROR, s0->name, "%s: %s: the solids describe an interface of dimension %d, but "
                    "fluid \"%s\" is %s", seam_doc_locate(in->doc, s0->config_path), s0->config_path, in->dim,
                    fl->name, flat ? "2D" : "3D");
            return false;
        }
        for (int d = 0; d < in->dim; d++)
            if (!(in->domain_lo[d] < in->domain_hi[d]) || !isfinite(in->domain_lo[d]) || !isfinite(in->domain_hi[d])) {
                sim_log(in->log, SEAM_LOG_ERROR, fl->name, "domain returned an empty or non-finite box along %c: [%g, %g]",
                        "xyz"[d], in->domain_lo[d], in->domain_hi[d]);
                return false;
            }
        in->has_domain = true;
        bool tolerances_ok = check_tolerances(in, conv);
        if (!interface_check_domain(in, in->X0, -1, 0.0) || !tolerances_ok)
            return false;
    }
    if (fl->p->bind(fl->self, &iface) != SEAM_OK) {
        sim_log(in->log, SEAM_LOG_ERROR, fl->name, "%s: %s: bind failed for an interface of %zu points (dim %d)",
                seam_doc_locate(in->doc, fl->config_path), fl->config_path, in->n_points, in->dim);
        return false;
    }
    return true;
}

/* "[0, 1] x [0, 2] m" */
static const char *box_text(const sim_interface *in, const double *lo, const double *hi, char *buf, size_t n)
{
    int len = 0;
    for (int d = 0; d < in->dim && len >= 0 && (size_t)len < n; d++)
        len += snprintf(buf + len, n - (size_t)len, "%s[%.6g, %.6g]", d ? " x " : "", lo[d], hi[d]);
    if (len >= 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, " m");
    return buf;
}

/* How far point x lies outside the box (0 inside) and the side it crossed
 * ("below y = 0"). Round-off of the box's size counts as inside. */
static double outside_by(const sim_interface *in, const double *x, char *side, size_t n)
{
    double worst = 0.0, extent = 0.0;
    for (int d = 0; d < in->dim; d++)
        extent = fmax(extent, in->domain_hi[d] - in->domain_lo[d]);
    for (int d = 0; d < in->dim; d++) {
        double below = in->domain_lo[d] - x[d], above = x[d] - in->domain_hi[d];
        if (below > worst) {
            worst = below;
            snprintf(side, n, "below %c = %.6g m", "xyz"[d], in->domain_lo[d]);
        }
        if (above > worst) {
            worst = above;
            snprintf(side, n, "above %c = %.6g m", "xyz"[d], in->domain_hi[d]);
        }
        if (!(x[d] == x[d]))   /* NaN is no position inside */
            return INFINITY;
    }
    return worst > 1e-9 * extent ? worst : 0.0;
}

bool interface_check_domain(sim_interface *in, const double *X, long step, double t)
{
    if (!in->has_domain)
        return true;
    size_t dim = (size_t)in->dim;
    bool ok = true;
    for (size_t s = in->ps->first_solid; s < in->ps->n_parts; s++) {
        participant *pt = &in->ps->parts[s];
        size_t out = 0, first = 0;
        char side[64] = "", first_side[64] = "";
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (size_t i = pt->offset; i < pt->offset + pt->n_points; i++) {
            const double *x = X + i * dim;
            for (size_t d = 0; d < dim; d++) {
                lo[d] = fmin(lo[d], x[d]);
                hi[d] = fmax(hi[d], x[d]);
            }
            if (outside_by(in, x, side, sizeof side) > 0.0 && out++ == 0) {
                first = i;
                snprintf(first_side, sizeof first_side, "%s", side);
            }
        }
        if (out == 0)
            continue;
        ok = false;
        char box[160], span[160], at[160];
        box_text(in, in->domain_lo, in->domain_hi, box, sizeof box);
        const double *x = X + first * dim;
        snprintf(at, sizeof at, dim == 3 ? "(%.6g, %.6g, %.6g)" : "(%.6g, %.6g)", x[0], x[1], dim == 3 ? x[2] : 0.0);
        if (step < 0 && out == pt->n_points)
            sim_log(in->log, SEAM_LOG_ERROR, pt->name, "%s: %s: the solid lies entirely outside the domain of fluid \"%s\" "
                    "(%s): its interface spans %s", seam_doc_locate(in->doc, pt->config_path), pt->config_path,
                    in->ps->fluid->name, box, box_text(in, lo, hi, span, sizeof span));
        else if (step < 0)
            sim_log(in->log, SEAM_LOG_ERROR, pt->name, "%s: %s: %zu of its %zu interface points start outside the domain "
                    "of fluid \"%s\" (%s), the first, point %zu, at %s m (%s)",
                    seam_doc_locate(in->doc, pt->config_path), pt->config_path, out, pt->n_points, in->ps->fluid->name,
                    box, first - pt->offset, at, first_side);
        else
            sim_log(in->log, SEAM_LOG_ERROR, pt->name, "left the domain of fluid \"%s\" (%s) at step %ld (t = %.9g s): "
                    "%zu of its %zu interface points are outside, the first, point %zu, at %s m (%s); the fluid "
                    "cannot follow it there", in->ps->fluid->name, box, step, t, out, pt->n_points, first - pt->offset,
                    at, first_side);
    }
    return ok;
}

void interface_init(sim_interface *in, sim_participants *ps, coupler_log *log, seam_doc *doc)
{
    *in = (sim_interface){.ps = ps, .log = log, .doc = doc};
}

void interface_free(sim_interface *in)
{
    rigid_dofs_free(in->rigid);
    free(in->X0);
    free(in->mass);
    free(in->body);
    free(in->elems);
    free(in->two_sided);
    free(in->block);
    memset(in, 0, sizeof *in);
}

double interface_extent(const double *X, size_t n_points, int dim)
{
    double e = 0.0;
    for (int k = 0; k < dim; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < n_points; i++) {   /* comparisons, not fmin/fmax calls: once per step, n values */
            double x = X[i * (size_t)dim + (size_t)k];
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
        e = fmax(e, fmax(hi - lo, fmax(fabs(lo), fabs(hi))));
    }
    return e;
}

/* One solid's answer to bodies, checked: ranges inside its points and apart,
 * each range's body ids those of the body, a finite centre, a rotation. */
static bool check_bodies(sim_interface *in, participant *pt, const seam_bodies *b, unsigned char *taken)
{
    if (b->count && (!b->centre || !b->rotation || !b->first || !b->points)) {
        sim_log(in->log, SEAM_LOG_ERROR, pt->name, "bodies returned %zu bodies without their arrays", b->count);
        return false;
    }
    for (size_t k = 0; k < b->count; k++) {
        int64_t f = b->first[k], m = b->points[k];
        if (f < 0 || m < 1 || (uint64_t)f > pt->n_points || (uint64_t)m > pt->n_points - (uint64_t)f) {
            sim_log(in->log, SEAM_LOG_ERROR, pt->name, "bodies: body %zu has points %lld to %lld, outside its %zu "
                    "interface points", k, (long long)f, (long long)(f + m - 1), pt->n_points);
            return false;
        }
        for (int64_t i = f; i < f + m; i++) {
            if (taken[pt->offset + (size_t)i]) {
                sim_log(in->log, SEAM_LOG_ERROR, pt->name, "bodies: body %zu claims point %lld, which another body "
                        "has", k, (long long)i);
                return false;
            }
            taken[pt->offset + (size_t)i] = 1;
            if (in->body[pt->offset + (size_t)i] - pt->body_base != (int32_t)k) {
                sim_log(in->log, SEAM_LOG_ERROR, pt->name, "bodies: body %zu claims point %lld, whose body id in "
                        "describe is %d", k, (long long)i, (int)(in->body[pt->offset + (size_t)i] - pt->body_base));
                return false;
            }
        }
        const double *c = b->centre + 3 * k, *R = b->rotation + 9 * k;
        double worst = 0.0;   /* |R R^T - I| */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double d = R[3 * i] * R[3 * j] + R[3 * i + 1] * R[3 * j + 1] + R[3 * i + 2] * R[3 * j + 2];
                worst = fmax(worst, fabs(d - (i == j)));
            }
        double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                     R[2] * (R[3] * R[7] - R[4] * R[6]);
        if (!isfinite(c[0] + c[1] + c[2]) || !(worst < 1e-9) || !(det > 0)) {
            sim_log(in->log, SEAM_LOG_ERROR, pt->name, "bodies: body %zu has centre (%g, %g, %g) and a rotation off "
                    "by %g from orthonormal (determinant %g)", k, c[0], c[1], c[2], worst, det);
            return false;
        }
    }
    return true;
}

bool interface_rigid_bodies(sim_interface *in)
{
    in->rigid = NULL;
    if (in->dim < 2)
        return true;
    unsigned char *taken = seam_xcalloc(in->n_points + 1, 1);
    rigid_dofs_body *list = NULL;
    size_t *owner = NULL;   /* each listed body's participant and its index there */
    size_t count = 0, cap = 0;
    bool ok = true;
    for (size_t s = in->ps->first_solid; ok && s < in->ps->n_parts; s++) {
        participant *pt = &in->ps->parts[s];
        seam_bodies b = {0};
        if (!pt->p->bodies)
            continue;
        if (pt->p->bodies(pt->self, &b) != SEAM_OK) {
            sim_log(in->log, SEAM_LOG_ERROR, pt->name, "bodies failed");
            ok = false;
            break;
        }
        if (!(ok = check_bodies(in, pt, &b, taken)))
            break;
        if (count + b.count > cap) {
            cap = 2 * (count + b.count) + 4;
            list = seam_xrealloc_n(list, cap, sizeof *list);
            owner = seam_xrealloc_n(owner, 2 * cap, sizeof *owner);
        }
        for (size_t k = 0; k < b.count; k++, count++) {
            owner[2 * count] = s, owner[2 * count + 1] = k;
            list[count].first = pt->offset + (size_t)b.first[k];
            list[count].count = (size_t)b.points[k];
            memcpy(list[count].centre, b.centre + 3 * k, sizeof list[count].centre);
            memcpy(list[count].rotation, b.rotation + 9 * k, sizeof list[count].rotation);
        }
    }
    char err[256];
    size_t bad = count;
    if (ok && count &&
        !(in->rigid = rigid_dofs_new(in->dim, in->n_points, in->X0, list, count, err, sizeof err, &bad))) {
        if (bad < count) {
            /* a body whose points coincide (a circle of radius 1e-320 at 0.4 m): located at the solid's body */
            participant *pt = &in->ps->parts[owner[2 * bad]];
            size_t k = owner[2 * bad + 1];
            char key[512];
            snprintf(key, sizeof key, "%s.bodies[%zu]", pt->config_path, k);
            sim_log(in->log, SEAM_LOG_ERROR, pt->name, "%s: %s: its body %zu (points %zu to %zu) does not fix a pose: %s "
                    "(a body too small to tell its points apart?)", seam_doc_locate(in->doc, key), pt->config_path,
                    k, list[bad].first - pt->offset, list[bad].first - pt->offset + list[bad].count - 1,
                    in->dim == 2 ? "fewer than two distinct points" : "fewer than three points off one line");
        } else
            sim_log(in->log, SEAM_LOG_ERROR, NULL, "%s", err);
        ok = false;
    }
    free(taken);
    free(list);
    free(owner);
    return ok;
}

void interface_commit(sim_interface *in, double dt)
{
    double *recycled = in->Xpast[SIM_PAST - 1];   /* ... <- X^{n-1} <- X^n <- X_out by pointers, not copies */
    for (int j = SIM_PAST - 1; j > 0; j--)
        in->Xpast[j] = in->Xpast[j - 1];
    in->Xpast[0] = in->Xn;
    in->Xn = in->X_out;
    in->X_out = recycled;
    memcpy(in->Vn, in->V_solid, in->n_points * (size_t)in->dim * sizeof *in->Vn);
    interface_commit_dt(in, dt);
}

void interface_commit_dt(sim_interface *in, double dt)
{
    memmove(in->dt_past + 1, in->dt_past, (SIM_PAST - 1) * sizeof *in->dt_past);
    in->dt_past[0] = dt;
}

void interface_save(const sim_interface *in, seam_ckpt_writer *w)
{
    size_t n = in->n_points * (size_t)in->dim;
    seam_ckpt_section(w, "interface");
    seam_ckpt_put_f64s(w, in->Xn, n);
    for (int j = 0; j < SIM_PAST; j++)
        seam_ckpt_put_f64s(w, in->Xpast[j], n);
    seam_ckpt_put_f64s(w, in->Vn, n);
}

void interface_load(sim_interface *in, seam_ckpt_reader *r)
{
    size_t n = in->n_points * (size_t)in->dim;
    seam_ckpt_get_f64s(r, in->Xn, n);
    for (int j = 0; j < SIM_PAST; j++)
        seam_ckpt_get_f64s(r, in->Xpast[j], n);
    seam_ckpt_get_f64s(r, in->Vn, n);
}
