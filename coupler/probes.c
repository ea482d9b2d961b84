/* Probes: output.probes read, checked, sampled after every step (probes.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "probes.h"
#include "seam/raster.h"
#include "interface.h"
#include "participant.h"
#include "seam/alloc.h"

static const char *const axis_names[] = {"x", "y", "z"};

/* A probe's name becomes part of column names: letters, digits, '_' and '-'. */
static bool name_ok(const char *s)
{
    if (!*s || strlen(s) > SEAM_NAME_MAX)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '-'))
            return false;
    return true;
}

void probes_read(sim_participants *ps, bool builtin_coupled, seam_cfg *out, sim_probes *pr)
{
    size_t n = seam_cfg_count(out, "probes", 0);
    if (!n)
        return;
    pr->p = SEAM_NEW_N(sim_probe, n);
    for (size_t i = 0; i < n; i++) {
        seam_cfg *c = seam_cfg_item(out, "probes", i);
        if (!c)
            continue;
        sim_probe *p = &pr->p[pr->n++];
        snprintf(p->where, sizeof p->where, "output.probes[%zu]", i);
        p->body = -1;
        const char *name = seam_cfg_str(c, "name", NULL, SEAM_CFG_REQUIRED);
        if (name && !name_ok(name))
            seam_cfg_error(c, "name", "a probe name is 1 to %d of A-Z a-z 0-9 _ - (it names CSV columns), got \"%s\"",
                           SEAM_NAME_MAX, name);
        for (size_t k = 0; name && k + 1 < pr->n; k++)
            if (pr->p[k].name && strcmp(pr->p[k].name, name) == 0)
                seam_cfg_error(c, "name", "probe name \"%s\" is used twice", name);
        bool has_point = seam_cfg_has(c, "point"), has_solid = seam_cfg_has(c, "solid");
        if (has_point == has_solid) {
            seam_cfg_error(c, NULL, "a probe names either a \"point\" (a fluid field there) or a \"solid\" (its "
                           "position and load)%s", has_point ? ", not both" : "");
            continue;
        }
        if (has_point) {
            double *x = seam_cfg_key_numbers(c, PROBE_KEYS, "point", &p->n_coords, 0);
            if (x && (p->n_coords < 2 || p->n_coords > 3))
                seam_cfg_error(c, "point", "expected 2 (2D) or 3 (3D) coordinates, got %zu", p->n_coords);
            for (size_t k = 0; x && k < p->n_coords && k < 3; k++)
                p->point[k] = x[k];
            free(x);
            const char *field = seam_cfg_str(c, "field", "pressure", 0);
            p->field = seam_xstrdup(field ? field : "pressure");   /* a wrong type is reported already */
        } else {
            const char *solid = seam_cfg_str(c, "solid", NULL, 0);
            p->body = seam_cfg_key_int(c, PROBE_KEYS, "body", -1, 0);
            p->solid = solid ? seam_xstrdup(solid) : NULL;
            bool found = false;
            for (size_t k = ps->first_solid; solid && !ps->coupled && k < ps->n_parts; k++)
                if (ps->parts[k].name && strcmp(ps->parts[k].name, solid) == 0) {
                    p->part = k;
                    found = true;
                }
            if (solid && ps->coupled)
                seam_cfg_error(c, "solid", "%s hands the coupler no loads: only point probes",
                               builtin_coupled ? "scheme \"monolithic\" solves fluid and solids as one system and"
                                               : "a scene with a \"coupled\" participant");
            else if (solid && !found)
                seam_cfg_error(c, "solid", "no solid of this scene is named \"%s\"", solid);
        }
        p->name = name ? seam_xstrdup(name) : NULL;
    }
}

static size_t columns(const sim_interface *in, const sim_probe *p)
{
    return p->field ? 1 : 2 * (size_t)in->dim;
}

bool probes_check(sim_participants *ps, const sim_interface *in, sim_probes *pr)
{
    bool ok = true;
    size_t total = 0;
    for (size_t i = 0; i < pr->n; i++) {
        sim_probe *p = &pr->p[i];
        total += columns(in, p);
        if (!p->field) {
            participant *pt = &ps->parts[p->part];
            if (p->body >= (long)pt->n_bodies) {
                sim_log(ps->env.log, SEAM_LOG_ERROR, NULL, "%s: %s.body: %s has %zu bodies (ids 0 to %zu), not %ld",
                        seam_doc_locate(ps->env.doc, p->where), p->where, pt->name, pt->n_bodies, pt->n_bodies - 1,
                        p->body);
                ok = false;
            }
            p->body_global = pt->body_base + (int32_t)(p->body >= 0 ? p->body : 0);
            continue;
        }
        participant *fl = participants_field_source(ps);
        seam_raster r;
        const char *why = NULL;
        char field_at[64];
        snprintf(field_at, sizeof field_at, "%s.field", p->where);
        if (!fl->p->field)
            why = ps->coupled ? "the coupled plugin offers no fields" : "the fluid offers no fields";
        else if (fl->p->field(fl->self, p->field, &r) != SEAM_OK || !r.data)
            why = "the fluid has no field of that name (see its message)";
        if (why) {
            sim_log(ps->env.log, SEAM_LOG_ERROR, fl->name, "%s: %s \"%s\": %s", seam_doc_locate(ps->env.doc, field_at), field_at,
                    p->field, why);
            ok = false;
            continue;
        }
        size_t want = r.nz > 1 ? 3 : 2;
        char point_at[64];
        snprintf(point_at, sizeof point_at, "%s.point", p->where);
        if (p->n_coords != want) {
            sim_log(ps->env.log, SEAM_LOG_ERROR, NULL, "%s: %s: the fluid's field \"%s\" is %zuD: expected %zu coordinates, "
                    "got %zu", seam_doc_locate(ps->env.doc, point_at), point_at, p->field, want, want, p->n_coords);
            ok = false;
        } else if (!seam_raster_contains(&r, p->point)) {
            char at[128], box[256];
            int n = snprintf(at, sizeof at, "(%g", p->point[0]), m = snprintf(box, sizeof box, "[%g, %g]",
                                                                                r.origin[0], r.origin[0] + r.nx * r.dx);
            for (size_t a = 1; a < want; a++) {
                int cells = a == 1 ? r.ny : r.nz;
                n += snprintf(at + n, sizeof at - (size_t)n, ", %g", p->point[a]);
                m += snprintf(box + m, sizeof box - (size_t)m, " x [%g, %g]", r.origin[a], r.origin[a] + cells * r.dx);
            }
            snprintf(at + n, sizeof at - (size_t)n, ")");
            sim_log(ps->env.log, SEAM_LOG_ERROR, NULL, "%s: %s: %s lies outside the fluid's field \"%s\", which covers %s",
                    seam_doc_locate(ps->env.doc, point_at), point_at, at, p->field, box);
            ok = false;
        }
    }
    if (ok && pr->n)
        pr->values = SEAM_NEW_N(double, total);
    return ok;
}

void probes_header(const sim_interface *in, const sim_probes *pr, FILE *f)
{
    fputs("step,t", f);
    for (size_t i = 0; i < pr->n; i++) {
        const sim_probe *p = &pr->p[i];
        if (p->field) {
            fprintf(f, ",%s.%s", p->name, p->field);
            continue;
        }
        for (int a = 0; a < in->dim; a++)
            fprintf(f, ",%s.%s", p->name, axis_names[a]);
        for (int a = 0; a < in->dim; a++)
            fprintf(f, ",%s.f%s", p->name, axis_names[a]);
    }
    fputc('\n', f);
}

/* A solid probe: the mean of its points' committed positions, the sum of
 * the loads they received in the committed solve. */
static void solid_values(const sim_participants *ps, const sim_interface *in, const sim_probe *p, double *v)
{
    const participant *pt = &ps->parts[p->part];
    size_t d = (size_t)in->dim, count = 0;
    for (size_t a = 0; a < 2 * d; a++)
        v[a] = 0.0;
    for (size_t i = pt->offset; i < pt->offset + pt->n_points; i++) {
        if (p->body >= 0 && in->body[i] != p->body_global)
            continue;
        for (size_t a = 0; a < d; a++) {
            v[a] += in->Xn[i * d + a];
            v[d + a] += in->F_solid[i * d + a];
        }
        count++;
    }
    for (size_t a = 0; a < d; a++)
        v[a] = count ? v[a] / (double)count : NAN;
}

seam_status probes_row(sim_participants *ps, const sim_interface *in, sim_probes *pr, FILE *f, long step, double t)
{
    size_t col = 0;
    for (size_t i = 0; i < pr->n; i++) {
        sim_probe *p = &pr->p[i];
        if (!p->field)
            solid_values(ps, in, p, pr->values + col);
        col += columns(in, p);
    }
    /* point probes: one field call per field, every probe of it read from that raster */
    participant *fl = participants_field_source(ps);
    for (size_t i = 0, col_i = 0; i < pr->n; col_i += columns(in, &pr->p[i]), i++) {
        sim_probe *p = &pr->p[i];
        bool first = p->field != NULL;
        for (size_t k = 0; first && k < i; k++)
            first = !(pr->p[k].field && strcmp(pr->p[k].field, p->field) == 0);
        if (!first)
            continue;
        seam_raster r;
        if (fl->p->field(fl->self, p->field, &r) != SEAM_OK || !r.data) {
            sim_log(ps->env.log, SEAM_LOG_ERROR, fl->name, "field \"%s\" failed for probe %s after step %ld (t = %.9g s)",
                    p->field, p->name, step, t);
            return SEAM_ERROR;
        }
        for (size_t k = i, col_k = col_i; k < pr->n; col_k += columns(in, &pr->p[k]), k++)
            if (pr->p[k].field && strcmp(pr->p[k].field, p->field) == 0)
                pr->values[col_k] = seam_raster_at(&r, pr->p[k].point);
    }
    fprintf(f, "%ld,%.17g", step, t);
    for (size_t k = 0; k < col; k++)
        fprintf(f, ",%.17g", pr->values[k]);
    fputc('\n', f);
    return SEAM_OK;
}

void probes_free(sim_probes *pr)
{
    for (size_t i = 0; i < pr->n; i++) {
        free(pr->p[i].name);
        free(pr->p[i].field);
        free(pr->p[i].solid);
    }
    free(pr->p);
    free(pr->values);
    *pr = (sim_probes){0};
}
