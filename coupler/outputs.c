/* The run's files: the per-step observer (outputs.h). */
#define _XOPEN_SOURCE 700   /* nftw, open_memstream, pwrite */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ftw.h>
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

#include "report.h"
#include "seam/frame.h"
#include "seam/raster.h"
#include "outputs.h"
#include "seam/alloc.h"

/* The CSV files' names, by SIM_CSV_*. */
static const char *const csv_names[SIM_CSV_COUNT] = {"stats.csv", "residuals.csv", "interface.csv", "regions.csv",
                                                       "probes.csv", "measures.csv"};

static int mkdir_p(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static void silent(void *ctx, seam_log_level level, const char *who, const char *message)
{
    (void)ctx, (void)level, (void)who, (void)message;
}

/* Whether the fluid offers field `name`, asked without a message: a plugin
 * that has no such field says so through its log, as the contract wants,
 * but the coupler only asked what it could draw (plugin.h, Status). */
static bool field_offered(sim_outputs *o, participant *fl, const char *name, seam_raster *r)
{
    seam_sim_log log = o->log->fn;
    int errors = o->log->errors;
    long warnings = fl->stats.warnings;
    o->log->fn = silent;
    bool has = fl->p->field(fl->self, name, r) == SEAM_OK && r->data;
    o->log->fn = log;
    o->log->errors = errors;
    fl->stats.warnings = warnings;
    return has;
}

/* Whether the fluid offers a 2D level set (a liquid's). */
static bool fluid_has_level_set(sim_outputs *o)
{
    seam_raster r;
    return field_offered(o, participants_field_source(o->ps), "level_set", &r);
}

/* PNG frames need a fluid that rasterizes the field, 2D with a 2D
 * interface, or 3D with a 3D one (a plane through it is drawn). */
bool outputs_check_picture(sim_outputs *o)
{
    if (!o->picture_field || !o->frames)
        return true;
    const char *why = NULL;
    seam_raster r;
    participant *fl = participants_field_source(o->ps);
    if (!fl || !fl->p->field)
        why = "the fluid plugin offers no fields";
    else if (o->picture_explicit ? fl->p->field(fl->self, o->picture_field, &r) != SEAM_OK || !r.data
                                 : !field_offered(o, fl, o->picture_field, &r))   /* the default: drawn if offered */
        why = "the fluid has no field of that name";
    else if (o->in->dim != (r.nz > 1 ? 3 : 2))
        why = r.nz > 1 ? "a slice of a 3D field is drawn with a 3D interface only"
                       : "pictures of a 2D field are drawn with a 2D interface only";
    if (!why && r.nz == 1 && o->slice_given) {
        sim_log(o->log, SEAM_LOG_ERROR, NULL, "%s: output.picture.slice: the fluid's field \"%s\" is 2D: it is drawn "
                "whole, there is no plane to choose", seam_doc_locate(o->doc, "output.picture.slice"),
                o->picture_field);
        return false;
    }
    if (!why && r.nz > 1) {
        int n[3] = {r.nx, r.ny, r.nz};
        double lo = r.origin[o->slice_axis], hi = lo + n[o->slice_axis] * r.dx;
        if (!o->slice_at_given)
            o->slice_at = 0.5 * (lo + hi);
        else if (!(o->slice_at >= lo && o->slice_at <= hi)) {
            sim_log(o->log, SEAM_LOG_ERROR, NULL, "%s: output.picture.slice.at: %g lies outside the fluid's field, "
                    "which covers [%g, %g] along %c", seam_doc_locate(o->doc, "output.picture.slice.at"),
                    o->slice_at, lo, hi, "xyz"[o->slice_axis]);
            return false;
        }
    }
    if (!why) {
        o->has_surface = o->picture_surface && fluid_has_level_set(o);
        return true;
    }
    if (o->picture_explicit) {
        sim_log(o->log, SEAM_LOG_ERROR, NULL, "%s: output.picture.field \"%s\": %s",
                seam_doc_locate(o->doc, "output.picture.field"), o->picture_field, why);
        return false;
    }
    free(o->picture_field);   /* the default picture is drawn only where it can be */
    o->picture_field = NULL;
    return true;
}

/* Whether this run writes CSV file i. */
static bool csv_wanted(const sim_outputs *o, int i)
{
    switch (i) {
    case SIM_CSV_STATS:
    case SIM_CSV_RESIDUALS: return o->stats;
    case SIM_CSV_INTERFACE: return o->interface && o->in->n_points;
    case SIM_CSV_PROBES: return o->probes.n > 0;
    case SIM_CSV_MEASURES: return o->stats && o->conv && o->conv->count;
    default: return o->stats && o->bpp;
    }
}

/* ---- the CSV files: a step's rows in memory, then in one write (outputs.h) ---- */

static void csv_path(const sim_outputs *o, int i, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", o->dir, csv_names[i]);
}

/* CSV file i's name while it is fresh. */
static void csv_tmp_path(const sim_outputs *o, int i, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s.tmp", o->dir, csv_names[i]);
}

/* Open CSV file i: created empty, or (resume) cut back to `at` bytes. */
static seam_status csv_open(sim_outputs *o, int i, int64_t at)
{
    sim_csv *c = &o->csv[i];
    char path[4200];
    csv_path(o, i, path, sizeof path);
    char tmp[4300];
    csv_tmp_path(o, i, tmp, sizeof tmp);
    c->fd = at < 0 ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : open(path, O_WRONLY | O_CLOEXEC);
    c->fresh = at < 0;
    if (c->fd < 0 || (at >= 0 && ftruncate(c->fd, (off_t)at) != 0)) {
        sim_log(o->log, SEAM_LOG_ERROR, NULL, "cannot %s %s: %s", at < 0 ? "write" : "resume: cannot cut back", path,
                strerror(errno));
        if (c->fd >= 0)
            close(c->fd);
        return SEAM_ERROR;
    }
    c->end = at < 0 ? 0 : at;
    if (!(c->rows = open_memstream(&c->buf, &c->len))) {
        sim_log(o->log, SEAM_LOG_ERROR, NULL, "%s: out of memory", path);
        close(c->fd);
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

/* Write every file's pending rows (`what`: whose, for the message); when one
 * cannot be written whole, every file is cut back to where it ended before,
 * so all of them end on the same whole step. */
static seam_status csv_write(sim_outputs *o, const char *what)
{
    if (o->csv_failed)
        return SEAM_ERROR;
    int64_t before[SIM_CSV_COUNT];
    int failed = -1, err = 0;
    for (int i = 0; i < SIM_CSV_COUNT; i++) {
        sim_csv *c = &o->csv[i];
        before[i] = c->end;
        if (!c->rows || failed >= 0)
            continue;
        if (fflush(c->rows) != 0) {
            failed = i, err = errno;
            continue;
        }
        for (size_t done = 0; done < c->len;) {
            ssize_t w = pwrite(c->fd, c->buf + done, c->len - done, (off_t)(c->end + (int64_t)done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                failed = i, err = w < 0 ? errno : EIO;
                break;
            }
            done += (size_t)w;
        }
        if (failed < 0)
            c->end += (int64_t)c->len;
    }
    for (int i = 0; i < SIM_CSV_COUNT; i++)
        if (o->csv[i].rows) {
            if (failed >= 0) {
                o->csv[i].end = before[i];
                if (ftruncate(o->csv[i].fd, (off_t)before[i]) != 0)
                    err = err ? err : errno;
            }
            fseeko(o->csv[i].rows, 0, SEEK_SET);   /* written or dropped: the next rows start afresh */
        }
    if (failed < 0)
        return SEAM_OK;
    char path[4200];
    csv_path(o, failed, path, sizeof path);
    sim_log(o->log, SEAM_LOG_ERROR, NULL, "cannot write %s: %s: %s", what, path, strerror(err));
    o->csv_failed = true;
    return SEAM_ERROR;
}

/* Put the fresh CSV files in place, their headers written. */
static seam_status csv_place(sim_outputs *o)
{
    for (int i = 0; i < SIM_CSV_COUNT; i++) {
        sim_csv *c = &o->csv[i];
        if (!c->rows || !c->fresh)
            continue;
        char path[4200], tmp[4300];
        csv_path(o, i, path, sizeof path);
        csv_tmp_path(o, i, tmp, sizeof tmp);
        if (rename(tmp, path) != 0) {
            sim_log(o->log, SEAM_LOG_ERROR, NULL, "cannot write %s: %s", path, strerror(errno));
            return SEAM_ERROR;
        }
        c->fresh = false;
    }
    return SEAM_OK;
}

static void csv_close(sim_outputs *o, int i)
{
    sim_csv *c = &o->csv[i];
    if (!c->rows)
        return;
    fclose(c->rows);
    free(c->buf);
    close(c->fd);
    if (c->fresh) {   /* never put in place: its header could not be written */
        char tmp[4300];
        csv_tmp_path(o, i, tmp, sizeof tmp);
        unlink(tmp);
    }
    *c = (sim_csv){0};
}

static void write_interface_row(sim_outputs *o, long step, double t)
{
    FILE *f = o->csv[SIM_CSV_INTERFACE].rows;
    if (!f)
        return;
    fprintf(f, "%ld,%.17g", step, t);
    for (size_t i = 0; i < o->in->n_points * (size_t)o->in->dim; i++)
        fprintf(f, ",%.17g", o->in->Xn[i]);
    fputc('\n', f);
}

static seam_status write_picture(sim_outputs *o, double t)
{
    participant *fl = participants_field_source(o->ps);
    seam_raster r, phi;
    if (fl->p->field(fl->self, o->picture_field, &r) != SEAM_OK) {
        sim_log(o->log, SEAM_LOG_ERROR, fl->name, "field \"%s\" failed at frame %d", o->picture_field, o->frame);
        return SEAM_ERROR;
    }
    /* The field's values are the plugin's until its next field call: keep a copy while the level set is asked for. */
    size_t n = (size_t)r.nx * (size_t)r.ny * (size_t)r.nz;
    double *data = o->has_surface ? seam_xmalloc_n(n, sizeof *data) : NULL;
    if (data) {
        memcpy(data, r.data, n * sizeof *data);
        r.data = data;
    }
    bool surface = data && fl->p->field(fl->self, "level_set", &phi) == SEAM_OK;
    /* 3D: the scene's plane through the field and the level set, and where it cuts the interface */
    const sim_interface *in = o->in;
    seam_interface iface = {.dim = in->dim, .n_points = in->n_points, .X = in->Xn, .body = in->body,
                            .nodes_per_elem = in->nodes_per_elem, .n_elems = in->n_elems,
                            .elems = in->elems, .two_sided = in->two_sided, .n_bodies = in->n_bodies};
    seam_picture_cut cut = {0};
    double *plane = NULL, *phi_plane = NULL;
    if (r.nz > 1) {
        plane = seam_xmalloc_n((size_t)r.nx * (size_t)r.ny * (size_t)r.nz, sizeof *plane);
        phi_plane = surface ? seam_xmalloc_n((size_t)phi.nx * (size_t)phi.ny * (size_t)phi.nz, sizeof *phi_plane) : NULL;
        if (seam_picture_cut_plane(&iface, in->Xn, o->slice_axis, o->slice_at, &cut, &fl->host) != SEAM_OK) {
            sim_log(o->log, SEAM_LOG_ERROR, NULL, "cannot draw frame %d: out of memory", o->frame);
            free(plane), free(phi_plane), free(data);
            return SEAM_ERROR;
        }
        seam_raster_slice(&r, o->slice_axis, o->slice_at, plane, &r);
        if (surface)
            seam_raster_slice(&phi, o->slice_axis, o->slice_at, phi_plane, &phi);
        iface = cut.iface;
    }
    seam_picture_track_range(&o->picture_opts, &r);   /* followed over the run: this frame's values in it */
    seam_picture_opts opts = o->picture_opts;
    opts.colour_bar = true;
    opts.label = o->picture_field;
    opts.show_time = true;
    opts.time = t;
    opts.fill_solids = true;
    opts.surface = surface ? &phi : NULL;
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/frames", o->dir);
    seam_status st = SEAM_OK;
    if (mkdir_p(dir) != 0) {
        sim_log(o->log, SEAM_LOG_ERROR, NULL, "cannot create %s: %s", dir, strerror(errno));
        st = SEAM_ERROR;
    } else {
        snprintf(path, sizeof path, "%s/frame_" SEAM_FRAME_FORMAT ".png", dir, o->frame);
        st = seam_picture_write_png(path, &r, &iface, iface.X, &opts, &fl->host);
    }
    seam_picture_cut_free(&cut);
    free(plane), free(phi_plane), free(data);
    return st;
}

/* "frame 3 (t = 0.3 s, after step 29)": which frame, for messages. */
static const char *frame_name(const sim_outputs *o, double t, char *buf, size_t n)
{
    long steps = o->summary->steps;
    if (steps > 0)
        snprintf(buf, n, "frame %d (t = %.9g s, after step %ld)", o->frame, t, steps - 1);
    else
        snprintf(buf, n, "frame %d (t = %.9g s, before the first step)", o->frame, t);
    return buf;
}

/* ---- the observers ---- */

/* The participants' own files of a frame (write_output: VTK and the like). */
static seam_status vtk_frame(sim_outputs *o, double t)
{
    char which[128];
    for (size_t i = 0; i < o->ps->n_parts; i++) {
        participant *pt = &o->ps->parts[i];
        if (!pt->p->write_output)
            continue;
        if (mkdir_p(pt->output_dir) != 0) {
            sim_log(o->log, SEAM_LOG_ERROR, pt->name, "cannot create %s for %s: %s", pt->output_dir,
                    frame_name(o, t, which, sizeof which), strerror(errno));
            return SEAM_ERROR;
        }
        if (pt->p->write_output(pt->self, pt->output_dir, o->frame) != SEAM_OK) {
            sim_log(o->log, SEAM_LOG_ERROR, pt->name, "write_output failed for %s",
                    frame_name(o, t, which, sizeof which));
            return SEAM_ERROR;
        }
    }
    return SEAM_OK;
}

static seam_status vtk_open(sim_outputs *o) { return vtk_frame(o, 0.0); }
static seam_status vtk_step(sim_outputs *o, const sim_step_record *r) { return vtk_frame(o, r->t); }

/* The PNG picture of a frame (frames/frame_NNNN.png). */
static seam_status picture_frame(sim_outputs *o, double t)
{
    char which[128];
    if (o->picture_field && write_picture(o, t) != SEAM_OK) {
        sim_log(o->log, SEAM_LOG_ERROR, NULL, "the picture of %s could not be written", frame_name(o, t, which,
                sizeof which));
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

static seam_status picture_open(sim_outputs *o) { return picture_frame(o, 0.0); }
static seam_status picture_step(sim_outputs *o, const sim_step_record *r) { return picture_frame(o, r->t); }

/* The colour range, fixed by the first frame that was not uniform. */
static void picture_save(sim_outputs *o, seam_ckpt_writer *w)
{
    seam_ckpt_put_f64s(w, o->picture_opts.range, 2);
}

static void picture_load(sim_outputs *o, seam_ckpt_reader *r)
{
    seam_ckpt_get_f64s(r, o->picture_opts.range, 2);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag;
    return ftw->level == 0 ? 0 : remove(path);   /* the directory itself stays */
}

/* An output directory that holds the scene file (the scene's own folder, or
 * one above it: "output": {"dir": "."}, --out ..) would mix the run's files
 * with the user's, and --force would empty it, scene included: refused
 * before anything is written or removed. */
static seam_status check_holds_scene(sim_outputs *o)
{
    char *dir = realpath(o->dir, NULL), *scene = realpath(seam_doc_origin(o->doc), NULL);
    bool holds = false;
    if (dir && scene) {
        size_t n = strlen(dir);
        holds = strncmp(scene, dir, n) == 0 && (scene[n] == '/' || (n == 1 && dir[0] == '/'));
    }
    if (holds) {
        const char *where = o->opts->out_dir ? "--out" : seam_doc_locate(o->doc, "output.dir");
        sim_log(o->log, SEAM_LOG_ERROR, NULL, "%s: the output directory %s holds the scene file itself (%s): a run "
                "writes, and --force empties, its output directory; name a folder of its own (output.dir, --out)",
                where, o->dir, seam_doc_origin(o->doc));
    }
    free(dir);
    free(scene);
    return holds ? SEAM_ERROR : SEAM_OK;
}

/* An earlier run's outputs (its stats.csv) left in the output directory
 * would mix with this run's (stale frames of a longer run): refused, or
 * removed, as the run options say. */
static seam_status check_stale(sim_outputs *o)
{
    if (check_holds_scene(o) != SEAM_OK)
        return SEAM_ERROR;
    char path[4200];
    snprintf(path, sizeof path, "%s/stats.csv", o->dir);
    if (o->opts->stale_output == SEAM_OUTPUT_OVERWRITE || access(path, F_OK) != 0)
        return SEAM_OK;
    if (o->opts->stale_output == SEAM_OUTPUT_REFUSE_STALE) {
        sim_log(o->log, SEAM_LOG_ERROR, NULL, "the output directory %s holds an earlier run (its stats.csv): "
                "--force empties it first, --out names another", o->dir);
        return SEAM_ERROR;
    }
    if (nftw(o->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) {
        sim_log(o->log, SEAM_LOG_ERROR, NULL, "cannot empty the output directory %s: %s", o->dir, strerror(errno));
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

/* measures.csv's columns: each measure's ||d|| under its name (quantity,
 * norm, kind: "loads_2_relative"; a repeated name gets "_2", "_3") and the
 * goal it was held to under NAME_tolerance (docs/coupling.md, "Convergence
 * measures"). */
static void measures_header(const seam_convergence *cv, FILE *f)
{
    char names[SEAM_MEASURES_MAX][64];
    fputs("step,iteration", f);
    for (size_t i = 0; i < cv->count; i++) {
        const seam_measure *m = &cv->measures[i];
        snprintf(names[i], sizeof names[i], "%s_%s_%s", m->quantity == SEAM_QTY_POSITIONS ? "positions" : "loads",
                 m->norm == SEAM_NORM_MAX ? "max" : "2",
                 !m->relative ? "absolute" : m->of_value ? "relative_value" : "relative");
        int same = 1;
        for (size_t j = 0; j < i; j++)
            same += strcmp(names[j], names[i]) == 0;
        fprintf(f, ",%s", names[i]);
        if (same > 1)
            fprintf(f, "_%d", same);
        fprintf(f, ",%s", names[i]);
        if (same > 1)
            fprintf(f, "_%d", same);
        fputs("_tolerance", f);
    }
    fputc('\n', f);
}

/* stats.csv, residuals.csv, regions.csv, interface.csv: their headers and the interface as described. */
static seam_status csv_obs_open(sim_outputs *o)
{
    FILE *rows[SIM_CSV_COUNT];
    for (int i = 0; i < SIM_CSV_COUNT; i++)
        rows[i] = o->csv[i].rows;
    if (rows[SIM_CSV_STATS])
        fputs("step,t,dt,iterations,residual,converged,fluid_s,solid_s,coupler_s,columns,filtered,modes,restarts,"
              "truncated,residual_goal,load_goal\n", rows[SIM_CSV_STATS]);
    if (rows[SIM_CSV_RESIDUALS])
        fputs("step,iteration,residual,load_change\n", rows[SIM_CSV_RESIDUALS]);
    if (rows[SIM_CSV_REGIONS])
        fputs("step,time,region,p0,delta_p0,volume_error\n", rows[SIM_CSV_REGIONS]);
    if (rows[SIM_CSV_MEASURES])
        measures_header(o->conv, rows[SIM_CSV_MEASURES]);
    if (rows[SIM_CSV_INTERFACE]) {
        fputs("step,t", rows[SIM_CSV_INTERFACE]);
        for (size_t i = 0; i < o->in->n_points; i++)
            for (int k = 0; k < o->in->dim; k++)
                fprintf(rows[SIM_CSV_INTERFACE], ",p%zu_%c", i, "xyz"[k]);
        fputc('\n', rows[SIM_CSV_INTERFACE]);
    }
    write_interface_row(o, 0, 0.0);
    return SEAM_OK;
}

static void csv_obs_residual(sim_outputs *o, long step, int iteration, double residual, double loads)
{
    FILE *f = o->csv[SIM_CSV_RESIDUALS].rows, *m = o->csv[SIM_CSV_MEASURES].rows;
    if (f)
        fprintf(f, "%ld,%d,%.17g,%.17g\n", step, iteration, residual, loads);
    if (!m)
        return;
    fprintf(m, "%ld,%d", step, iteration);
    for (size_t i = 0; i < o->conv->count; i++)   /* a diverged iterate was judged no further: no values */
        fprintf(m, ",%.17g,%.17g", isfinite(residual) ? o->conv->value[i] : NAN,
                isfinite(residual) ? o->conv->goal[i] : NAN);
    fputc('\n', m);
}

static seam_status csv_obs_step(sim_outputs *o, const sim_step_record *r)
{
    FILE *stats = o->csv[SIM_CSV_STATS].rows, *regions = o->csv[SIM_CSV_REGIONS].rows;
    if (stats)
        fprintf(stats, "%ld,%.17g,%.17g,%d,%.17g,%d,%.6e,%.6e,%.6e,%ld,%lu,%ld,%lu,%lu,%.17g,%.17g\n", r->step, r->t,
                r->dt, r->iterations, r->residual, r->converged ? 1 : 0, r->fluid_s, r->solid_s, r->coupler_s,
                r->scheme.columns, r->scheme.filtered, r->scheme.modes, r->scheme.restarts, r->scheme.truncated,
                r->residual_goal, r->load_goal);
    write_interface_row(o, r->step + 1, r->t);
    for (size_t k = 0; regions && k < bpp_region_count(o->bpp); k++) {
        long id;
        double p0, dp0, err;
        bpp_region(o->bpp, k, &id, &p0, &dp0, &err);
        fprintf(regions, "%ld,%.17g,%ld,%.17g,%.17g,%.17g\n", r->step, r->t, id, p0, dp0, err);
    }
    return SEAM_OK;
}

/* probes.csv: its header, and every probe sampled after each step. */
static seam_status probes_obs_open(sim_outputs *o)
{
    if (o->csv[SIM_CSV_PROBES].rows)
        probes_header(o->in, &o->probes, o->csv[SIM_CSV_PROBES].rows);
    return SEAM_OK;
}

static seam_status probes_obs_step(sim_outputs *o, const sim_step_record *r)
{
    FILE *f = o->csv[SIM_CSV_PROBES].rows;
    return f ? probes_row(o->ps, o->in, &o->probes, f, r->step, r->t) : SEAM_OK;
}

/* Where the run's time went, per participant, for the report of a finished run. */
static seam_status write_summary(sim_outputs *o)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/summary.csv", o->dir);
    FILE *f = seam_output_open(path, tmp, sizeof tmp);
    if (!f) {
        sim_log(o->log, SEAM_LOG_ERROR, NULL, "cannot write %s: %s", path, strerror(errno));
        return SEAM_ERROR;
    }
    const seam_summary *s = o->summary;
    fputs("name,role,plugin,seconds,solves,warnings\n", f);
    for (size_t i = 0; i < s->n_participants; i++) {
        const seam_participant_stats *p = &s->participants[i];
        fprintf(f, "%s,%s,%s,%.6e,%ld,%ld\n", p->name, seam_role_name(p->role), p->plugin, p->seconds, p->solves,
                p->warnings);
    }
    fprintf(f, "coupler,coupler,,%.6e,,\nwall,wall,,%.6e,,\n", s->coupler_s, s->wall_s);
    if (seam_output_close(f, path, tmp, 0) != 0) {
        sim_log(o->log, SEAM_LOG_ERROR, NULL, "cannot write %s: %s", path, strerror(errno));
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

/* summary.csv and the report, at the end of a run that writes stats. */
static seam_status report_finish(sim_outputs *o)
{
    if (!o->stats)
        return SEAM_OK;
    seam_status st = write_summary(o);
    if (o->report) {
        o->report_written = seam_report_write(o->dir, o->log->fn, o->log->ctx) == SEAM_OK;
        if (!o->report_written)
            st = SEAM_ERROR;
    }
    return st;
}

/* The observers, in the order they are called. */
static const sim_observer observers[] = {
    {"csv", false, csv_obs_open, csv_obs_residual, csv_obs_step, NULL, NULL, NULL},
    {"probes", false, probes_obs_open, NULL, probes_obs_step, NULL, NULL, NULL},
    {"vtk", true, vtk_open, NULL, vtk_step, NULL, NULL, NULL},
    {"picture", true, picture_open, NULL, picture_step, NULL, picture_save, picture_load},
    {"report", false, NULL, NULL, NULL, report_finish, NULL, NULL},
};
enum { N_OBSERVERS = sizeof observers / sizeof observers[0] };

/* A frame: every frame observer's files (rec NULL: frame 0, as described). */
static seam_status write_frame(sim_outputs *o, const sim_step_record *rec)
{
    if (!o->frames)
        return SEAM_OK;
    for (size_t i = 0; i < N_OBSERVERS; i++) {
        const sim_observer *ob = &observers[i];
        if (!ob->frames)
            continue;
        seam_status st = rec ? (ob->step ? ob->step(o, rec) : SEAM_OK) : (ob->open ? ob->open(o) : SEAM_OK);
        if (st != SEAM_OK)
            return st;
    }
    o->frame++;
    return SEAM_OK;
}

seam_status outputs_open(sim_outputs *o)
{
    if (check_stale(o) != SEAM_OK)
        return SEAM_ERROR;
    if (mkdir_p(o->dir) != 0) {
        sim_log(o->log, SEAM_LOG_ERROR, NULL, "cannot create output directory %s: %s", o->dir, strerror(errno));
        return SEAM_ERROR;
    }
    for (int i = 0; i < SIM_CSV_COUNT; i++)
        if (csv_wanted(o, i) && csv_open(o, i, -1) != SEAM_OK)
            return SEAM_ERROR;
    for (size_t i = 0; i < N_OBSERVERS; i++)
        if (!observers[i].frames && observers[i].open && observers[i].open(o) != SEAM_OK)
            return SEAM_ERROR;
    if (csv_write(o, "the headers") != SEAM_OK || csv_place(o) != SEAM_OK || write_frame(o, NULL) != SEAM_OK)
        return SEAM_ERROR;
    o->next_frame = o->frame_dt;
    return SEAM_OK;
}

void outputs_residual(sim_outputs *o, long step, int iteration, double residual, double loads)
{
    for (size_t i = 0; i < N_OBSERVERS; i++)
        if (observers[i].residual)
            observers[i].residual(o, step, iteration, residual, loads);
}

seam_status outputs_step(sim_outputs *o, const sim_step_record *r)
{
    for (size_t i = 0; i < N_OBSERVERS; i++)
        if (!observers[i].frames && observers[i].step && observers[i].step(o, r) != SEAM_OK)
            return SEAM_ERROR;
    /* the step's rows reach the disk before the next step starts, all of them or none */
    char what[64];
    snprintf(what, sizeof what, "the outputs of step %ld", r->step);
    if (csv_write(o, what) != SEAM_OK)
        return SEAM_ERROR;
    if (r->t >= o->next_frame * (1.0 - 1e-9) || r->t >= o->t_end * (1.0 - 1e-12)) {
        if (write_frame(o, r) != SEAM_OK)
            return SEAM_ERROR;
        /* the first frame time after t, computed rather than stepped to: a
         * frame interval far below dt (time.frame = 1e-300) takes no loop */
        double k = floor(r->t * (1.0 + 1e-9) / o->frame_dt) + 1.0;
        o->next_frame = isfinite(k) ? k * o->frame_dt : INFINITY;
    }
    return SEAM_OK;
}

seam_status outputs_flush(sim_outputs *o)
{
    return o->dir ? csv_write(o, "the last rows") : SEAM_OK;
}

seam_status outputs_finish(sim_outputs *o)
{
    if (!o->dir)
        return SEAM_OK;
    seam_status st = SEAM_OK;
    for (size_t i = 0; i < N_OBSERVERS; i++)
        if (observers[i].finish && observers[i].finish(o) != SEAM_OK)
            st = SEAM_ERROR;
    return st;
}

void outputs_close(sim_outputs *o)
{
    for (int i = 0; i < SIM_CSV_COUNT; i++)
        csv_close(o, i);
    probes_free(&o->probes);
    free(o->dir);
    free(o->picture_field);
    o->dir = o->picture_field = NULL;
}

/* ---- checkpoints and resuming ---- */

static void outputs_positions(sim_outputs *o, int64_t pos[SIM_CSV_COUNT])
{
    for (int i = 0; i < SIM_CSV_COUNT; i++)
        pos[i] = o->csv[i].rows ? o->csv[i].end : -1;
}

/* Files the checkpoint handles itself: the CSV files (cut back) and the checkpoint. */
static bool managed(const char *rel)
{
    if (strcmp(rel, SIM_CHECKPOINT_FILE) == 0 || strcmp(rel, SIM_CHECKPOINT_FILE ".tmp") == 0)
        return true;
    for (int i = 0; i < SIM_CSV_COUNT; i++)
        if (strcmp(rel, csv_names[i]) == 0)
            return true;
    return false;
}

typedef struct {
    char **names;
    size_t n, cap;
    bool failed;
} name_list;

/* Every regular file under dir/rel, its path relative to dir added to list. */
static void walk(const char *dir, const char *rel, name_list *list)
{
    char path[4200];
    snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char sub[4200], full[8500];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", dir, sub);
        struct stat st;
        if (lstat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk(dir, sub, list);
        else if (S_ISREG(st.st_mode) && !managed(sub)) {
            if (list->n == list->cap) {
                size_t cap = list->cap ? 2 * list->cap : 64;
                list->names = seam_xrealloc_n(list->names, cap, sizeof *list->names);
                list->cap = cap;
            }
            list->names[list->n++] = seam_xstrdup(sub);
        }
    }
    closedir(d);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void outputs_manifest_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static char **outputs_manifest(sim_outputs *o, size_t *n)
{
    name_list list = {0};
    walk(o->dir, "", &list);
    if (list.failed) {
        outputs_manifest_free(list.names, list.n);
        *n = 0;
        return NULL;
    }
    if (list.n)
        qsort(list.names, list.n, sizeof *list.names, compare_names);
    *n = list.n;
    return list.names;
}

/* Resuming a checkpoint written before measures.csv existed: the file
 * starts at the checkpoint's step, with its header. */
static seam_status measures_restart(sim_outputs *o)
{
    if (csv_open(o, SIM_CSV_MEASURES, -1) != SEAM_OK)
        return SEAM_ERROR;
    measures_header(o->conv, o->csv[SIM_CSV_MEASURES].rows);
    return csv_write(o, "measures.csv's header") == SEAM_OK ? csv_place(o) : SEAM_ERROR;
}

static seam_status outputs_resume(sim_outputs *o, const int64_t pos[SIM_CSV_COUNT], char *const *manifest, size_t n)
{
    for (int i = 0; i < SIM_CSV_COUNT; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", o->dir, csv_names[i]);
        if (i == SIM_CSV_MEASURES && o->measures_new && pos[i] < 0 && csv_wanted(o, i)) {
            if (measures_restart(o) != SEAM_OK)   /* the checkpoint's run predates it: from here on */
                return SEAM_ERROR;
            continue;
        }
        if (csv_wanted(o, i) != (pos[i] >= 0)) {
            sim_log(o->log, SEAM_LOG_ERROR, NULL, "%s/" SIM_CHECKPOINT_FILE ": the checkpoint's run %s %s, this one %s",
                    o->dir, pos[i] >= 0 ? "wrote" : "did not write", csv_names[i], pos[i] >= 0 ? "does not" : "does");
            return SEAM_ERROR;
        }
        if (pos[i] < 0)
            continue;
        struct stat st;
        if (stat(path, &st) != 0) {
            sim_log(o->log, SEAM_LOG_ERROR, NULL, "cannot resume: %s: %s", path, strerror(errno));
            return SEAM_ERROR;
        }
        if ((int64_t)st.st_size < pos[i]) {
            sim_log(o->log, SEAM_LOG_ERROR, NULL, "cannot resume: %s holds %lld bytes, fewer than the %lld it held at "
                    "the checkpoint", path, (long long)st.st_size, (long long)pos[i]);
            return SEAM_ERROR;
        }
        /* the rows of steps after the checkpoint go: the resumed run writes them again */
        if (csv_open(o, i, pos[i]) != SEAM_OK)
            return SEAM_ERROR;
    }
    name_list now = {0};
    walk(o->dir, "", &now);
    size_t removed = 0;
    for (size_t i = 0; i < now.n; i++) {
        if (n && bsearch(&now.names[i], manifest, n, sizeof *manifest, compare_names))
            continue;
        char path[8500];
        snprintf(path, sizeof path, "%s/%s", o->dir, now.names[i]);
        if (remove(path) != 0) {
            sim_log(o->log, SEAM_LOG_ERROR, NULL, "cannot resume: cannot remove %s, written after the checkpoint: %s",
                    path, strerror(errno));
            outputs_manifest_free(now.names, now.n);
            return SEAM_ERROR;
        }
        removed++;
    }
    bool failed = now.failed;
    outputs_manifest_free(now.names, now.n);
    if (failed) {
        sim_log(o->log, SEAM_LOG_ERROR, NULL, "cannot resume: out of memory listing %s", o->dir);
        return SEAM_ERROR;
    }
    if (removed)
        sim_log(o->log, SEAM_LOG_INFO, NULL, "resuming: removed %zu files written after the checkpoint", removed);
    return SEAM_OK;
}

void outputs_save(sim_outputs *o, seam_ckpt_writer *w)
{
    seam_ckpt_section(w, "outputs");
    seam_ckpt_put_i64(w, o->frame);
    seam_ckpt_put_f64(w, o->next_frame);
    for (size_t i = 0; i < N_OBSERVERS; i++)
        if (observers[i].save)
            observers[i].save(o, w);
    int64_t pos[SIM_CSV_COUNT];
    outputs_positions(o, pos);
    seam_ckpt_put_i64s(w, pos, SIM_CSV_COUNT);
    size_t n;
    char **names = outputs_manifest(o, &n);
    seam_ckpt_put_u64(w, n);
    for (size_t i = 0; i < n; i++)
        seam_ckpt_put_str(w, names[i]);
    outputs_manifest_free(names, n);
}

void outputs_load(sim_outputs *o, seam_ckpt_reader *r)
{
    if (!seam_ckpt_need(r, "outputs"))
        return;
    o->frame = (int)seam_ckpt_get_i64(r);
    o->next_frame = seam_ckpt_get_f64(r);
    for (size_t i = 0; i < N_OBSERVERS; i++)
        if (observers[i].load)
            observers[i].load(o, r);
    int64_t pos[SIM_CSV_COUNT];
    /* a checkpoint from before probes.csv or measures.csv existed lists fewer files */
    size_t n_pos = seam_ckpt_peek_count(r);
    if (n_pos != SIM_CSV_PROBES && n_pos != SIM_CSV_MEASURES)
        n_pos = SIM_CSV_COUNT;
    pos[SIM_CSV_PROBES] = pos[SIM_CSV_MEASURES] = -1;
    o->measures_new = n_pos < SIM_CSV_COUNT;
    seam_ckpt_get_i64s(r, pos, n_pos);
    size_t n = (size_t)seam_ckpt_get_u64(r);
    if (!seam_ckpt_ok(r, false))
        return;
    if (n > 100000000) {
        seam_ckpt_fail(r, "implausible count of %zu files", n);
        return;
    }
    char **names = SEAM_NEW_N(char *, n ? n : 1);
    for (size_t i = 0; i < n && seam_ckpt_ok(r, false); i++)
        names[i] = seam_ckpt_get_str(r);
    if (seam_ckpt_ok(r, true) && outputs_resume(o, pos, names, n) != SEAM_OK)
        seam_ckpt_fail(r, "the outputs could not be taken up (see above)");
    outputs_manifest_free(names, n);
}
