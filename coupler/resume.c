/* Checkpoints of a run and resuming from them: everything the time loop
 * carries from one step to the next, in the core's checkpoint format
 * (seam/checkpoint.h), one section per part:
 *   run          the scene (every --set applied), its file, --end, --steps
 *   coupler      step, time, the last two dt, the summary's counters, the
 *                divergence watch
 *   interface    X^n, X^{n-1}, X^{n-2}, V^n and the last step's loads
 *   scheme       its name and what it carries across steps
 *   bpp          the projection's committed regions and p0
 *   participant/NAME  its plugin's name, its statistics, its save bytes
 *   outputs      frame counter, next frame time, picture range, where each
 *                CSV file ended and which other files existed */
#define _XOPEN_SOURCE 700   /* realpath */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "seam/checkpoint.h"
#include "sim_internal.h"

static void checkpoint_path(const char *dir, char *buf, size_t n)
{
    snprintf(buf, n, "%s/" SIM_CHECKPOINT_FILE, dir);
}

bool sim_checkpoint_check(seam_sim *sim)
{
    if (!sim->opts.resume && !sim->out.checkpoint_steps && !(sim->out.checkpoint_seconds > 0))
        return true;
    bool ok = true;
    for (size_t i = 0; i < sim->n_parts; i++) {
        participant *pt = &sim->parts[i];
        if (pt->p->save && pt->p->load && (pt->caps & SEAM_CAP_SAVE))
            continue;
        sim_log(sim, SEAM_LOG_ERROR, pt->name, "%s: %s needs every participant's save and load; %s (%s) has none",
                sim->opts.resume ? "--resume" : seam_doc_locate(sim->doc, "output.checkpoint"),
                sim->opts.resume ? "resuming" : "output.checkpoint", pt->name, pt->p->name);
        ok = false;
    }
    return ok;
}

bool sim_checkpoint_due(const seam_sim *sim, double last_time)
{
    const sim_outputs *o = &sim->out;
    if (o->checkpoint_steps > 0 && sim->summary.steps % o->checkpoint_steps == 0)
        return true;
    return o->checkpoint_seconds > 0 && sim_now() - last_time >= o->checkpoint_seconds;
}

static void write_run(seam_sim *sim, seam_ckpt_writer *w)
{
    seam_ckpt_section(w, "run");
    char *text = json_dumps(seam_doc_root(sim->doc), JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    seam_ckpt_put_str(w, text);
    free(text);
    char abs[PATH_MAX];
    const char *origin = seam_doc_origin(sim->doc);
    seam_ckpt_put_str(w, realpath(origin, abs) ? abs : origin);
    seam_ckpt_put_f64(w, sim->opts.end);
    seam_ckpt_put_i64(w, sim->opts.max_steps);
}

static void write_coupler(seam_sim *sim, seam_ckpt_writer *w, double t, double wall_s)
{
    const seam_summary *s = &sim->summary;
    seam_ckpt_section(w, "coupler");
    seam_ckpt_put_i64(w, s->steps);
    seam_ckpt_put_f64(w, t);
    seam_ckpt_put_f64s(w, sim->dt_past, SIM_PAST);
    seam_ckpt_put_i64(w, s->iterations);
    seam_ckpt_put_i64(w, s->max_iterations);
    seam_ckpt_put_i64(w, s->not_converged);
    seam_ckpt_put_i64(w, s->retries);
    seam_ckpt_put_f64(w, s->coupler_s);
    seam_ckpt_put_f64(w, wall_s);
    seam_ckpt_put_f64(w, sim->last_speed);
    seam_ckpt_put_f64(w, sim->last_residual);
    seam_ckpt_put_i64(w, sim->speed_growth);
    seam_ckpt_put_i64(w, sim->residual_growth);
    seam_ckpt_put_i64(w, sim->last_iterations);
}

static void write_interface(seam_sim *sim, seam_ckpt_writer *w)
{
    const sim_interface *in = &sim->in;
    size_t n = in->n_points * (size_t)in->dim;
    seam_ckpt_section(w, "interface");
    seam_ckpt_put_f64s(w, in->Xn, n);
    for (int j = 0; j < SIM_PAST; j++)
        seam_ckpt_put_f64s(w, in->Xpast[j], n);
    seam_ckpt_put_f64s(w, in->Vn, n);
    seam_ckpt_put_f64s(w, sim->coupling.F_n, n);
    seam_ckpt_section(w, "scheme");
    seam_ckpt_put_str(w, sim->scheme->name);
    if (sim->scheme->save)
        sim->scheme->save(sim->scheme_self, w);
    if (sim->bpp) {
        seam_ckpt_section(w, "bpp");
        bpp_save(sim->bpp, w);
    }
}

static seam_status write_participants(seam_sim *sim, seam_ckpt_writer *w)
{
    for (size_t i = 0; i < sim->n_parts; i++) {
        participant *pt = &sim->parts[i];
        seam_buffer buf = {NULL, 0};
        seam_status st = pt->p->save(pt->self, &buf);
        if (st != SEAM_OK) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name, "save failed for the checkpoint after step %ld (t = %.9g s)",
                    sim->summary.steps - 1, sim->summary.t);
            return SEAM_ERROR;
        }
        char name[512];
        snprintf(name, sizeof name, "participant/%s", pt->name);
        seam_ckpt_section(w, name);
        seam_ckpt_put_str(w, pt->p->name);
        seam_ckpt_put_f64(w, pt->stats.seconds);
        seam_ckpt_put_i64(w, pt->stats.solves);
        seam_ckpt_put_bytes(w, buf.data, buf.size);
        /* a section of its own, so checkpoints written before the count existed still load */
        snprintf(name, sizeof name, "warnings/%s", pt->name);
        seam_ckpt_section(w, name);
        seam_ckpt_put_i64(w, pt->stats.warnings);
    }
    return SEAM_OK;
}

static void write_outputs(seam_sim *sim, seam_ckpt_writer *w)
{
    const sim_outputs *o = &sim->out;
    seam_ckpt_section(w, "outputs");
    seam_ckpt_put_i64(w, o->frame);
    seam_ckpt_put_f64(w, o->next_frame);
    seam_ckpt_put_f64s(w, o->picture_opts.range, 2);
    int64_t pos[SIM_CSV_COUNT];
    outputs_positions(sim, pos);
    seam_ckpt_put_i64s(w, pos, SIM_CSV_COUNT);
    size_t n;
    char **names = outputs_manifest(sim, &n);
    seam_ckpt_put_u64(w, n);
    for (size_t i = 0; i < n; i++)
        seam_ckpt_put_str(w, names[i]);
    outputs_manifest_free(names, n);
}

seam_status sim_checkpoint_write(seam_sim *sim, double t, double wall_s)
{
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    if (!w) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "out of memory writing a checkpoint");
        return SEAM_ERROR;
    }
    write_run(sim, w);
    write_coupler(sim, w, t, wall_s);
    if (!sim->coupled)
        write_interface(sim, w);
    seam_status st = write_participants(sim, w);
    write_outputs(sim, w);
    char path[4200], err[1024];
    checkpoint_path(sim->out.dir, path, sizeof path);
    if (st == SEAM_OK && seam_ckpt_writer_save(w, path, err, sizeof err) != 0) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "cannot write the checkpoint after step %ld: %s", sim->summary.steps - 1,
                err);
        st = SEAM_ERROR;
    }
    seam_ckpt_writer_destroy(&w);
    return st;
}

/* ---- resuming ---- */

int seam_resume_info_read(const char *dir, seam_resume_info *info, char *err, size_t errlen)
{
    *info = (seam_resume_info){0};
    char path[4200];
    checkpoint_path(dir, path, sizeof path);
    seam_ckpt_reader *r = seam_ckpt_reader_open(path, err, errlen);
    if (!r)
        return -1;
    if (seam_ckpt_need(r, "run")) {
        info->scene = seam_ckpt_get_str(r);
        info->origin = seam_ckpt_get_str(r);
        info->end = seam_ckpt_get_f64(r);
        info->max_steps = (long)seam_ckpt_get_i64(r);
    }
    int rc = seam_ckpt_ok(r, true) ? 0 : -1;
    if (rc != 0) {
        snprintf(err, errlen, "%s", seam_ckpt_error(r));
        seam_resume_info_free(info);
    }
    seam_ckpt_reader_destroy(&r);
    return rc;
}

void seam_resume_info_free(seam_resume_info *info)
{
    free(info->scene);
    free(info->origin);
    *info = (seam_resume_info){0};
}

static void read_coupler(seam_sim *sim, seam_ckpt_reader *r, double *t, double *wall_s)
{
    seam_summary *s = &sim->summary;
    if (!seam_ckpt_need(r, "coupler"))
        return;
    s->steps = (long)seam_ckpt_get_i64(r);
    *t = seam_ckpt_get_f64(r);
    s->t = *t;
    seam_ckpt_get_f64s(r, sim->dt_past, SIM_PAST);
    s->iterations = (long)seam_ckpt_get_i64(r);
    s->max_iterations = (int)seam_ckpt_get_i64(r);
    s->not_converged = (long)seam_ckpt_get_i64(r);
    s->retries = (long)seam_ckpt_get_i64(r);
    s->coupler_s = seam_ckpt_get_f64(r);
    *wall_s = seam_ckpt_get_f64(r);
    sim->last_speed = seam_ckpt_get_f64(r);
    sim->last_residual = seam_ckpt_get_f64(r);
    sim->speed_growth = (int)seam_ckpt_get_i64(r);
    sim->residual_growth = (int)seam_ckpt_get_i64(r);
    sim->last_iterations = (int)seam_ckpt_get_i64(r);
    seam_ckpt_ok(r, true);
}

static void read_interface(seam_sim *sim, seam_ckpt_reader *r)
{
    sim_interface *in = &sim->in;
    size_t n = in->n_points * (size_t)in->dim;
    if (seam_ckpt_need(r, "interface")) {
        seam_ckpt_get_f64s(r, in->Xn, n);
        for (int j = 0; j < SIM_PAST; j++)
            seam_ckpt_get_f64s(r, in->Xpast[j], n);
        seam_ckpt_get_f64s(r, in->Vn, n);
        seam_ckpt_get_f64s(r, sim->coupling.F_n, n);
        memcpy(sim->coupling.F_last, sim->coupling.F_n, n * sizeof *sim->coupling.F_n);
        seam_ckpt_ok(r, true);
    }
    if (seam_ckpt_need(r, "scheme")) {
        char *name = seam_ckpt_get_str(r);
        if (name && strcmp(name, sim->scheme->name) != 0)
            seam_ckpt_fail(r, "written by scheme %s, this run's is %s", name, sim->scheme->name);
        free(name);
        if (sim->scheme->load)
            sim->scheme->load(sim->scheme_self, r);
        /* the totals stats.csv's per-step counts are taken from: those of the restored state */
        if (seam_ckpt_ok(r, true) && sim->scheme->report)
            sim->scheme->report(sim->scheme_self, &sim->scheme_totals);
    }
    if (sim->bpp && seam_ckpt_need(r, "bpp")) {
        bpp_load(sim->bpp, r);
        seam_ckpt_ok(r, true);
    }
}

static void read_participants(seam_sim *sim, seam_ckpt_reader *r)
{
    for (size_t i = 0; i < sim->n_parts && seam_ckpt_ok(r, false); i++) {
        participant *pt = &sim->parts[i];
        char name[512];
        snprintf(name, sizeof name, "participant/%s", pt->name);
        if (!seam_ckpt_need(r, name))
            return;
        char *plugin = seam_ckpt_get_str(r);
        if (plugin && strcmp(plugin, pt->p->name) != 0)
            seam_ckpt_fail(r, "saved by plugin %s, this run's %s is %s", plugin, pt->name, pt->p->name);
        free(plugin);
        pt->stats.seconds = seam_ckpt_get_f64(r);
        pt->stats.solves = (long)seam_ckpt_get_i64(r);
        size_t n;
        const void *bytes = seam_ckpt_get_bytes(r, &n);
        if (!seam_ckpt_ok(r, true))
            return;
        if (pt->proxy)
            seam_remote_at(pt->proxy, sim->summary.steps, sim->summary.t);
        if (pt->p->load(pt->self, bytes, n) != SEAM_OK)
            seam_ckpt_fail(r, "%s (%s) could not load its state of %zu bytes, saved after step %ld (t = %.9g s) "
                           "(see its message above)", pt->name, pt->p->name, n, sim->summary.steps - 1, sim->summary.t);
        snprintf(name, sizeof name, "warnings/%s", pt->name);
        if (seam_ckpt_ok(r, false) && seam_ckpt_find(r, name)) {   /* absent in older checkpoints */
            pt->stats.warnings += (long)seam_ckpt_get_i64(r);
            seam_ckpt_ok(r, true);
        }
    }
}

static void read_outputs(seam_sim *sim, seam_ckpt_reader *r)
{
    sim_outputs *o = &sim->out;
    if (!seam_ckpt_need(r, "outputs"))
        return;
    o->frame = (int)seam_ckpt_get_i64(r);
    o->next_frame = seam_ckpt_get_f64(r);
    seam_ckpt_get_f64s(r, o->picture_opts.range, 2);
    int64_t pos[SIM_CSV_COUNT];
    /* a checkpoint from before probes.csv existed lists one file fewer */
    size_t n_pos = seam_ckpt_peek_count(r) == SIM_CSV_PROBES ? SIM_CSV_PROBES : SIM_CSV_COUNT;
    pos[SIM_CSV_PROBES] = -1;
    seam_ckpt_get_i64s(r, pos, n_pos);
    size_t n = (size_t)seam_ckpt_get_u64(r);
    if (!seam_ckpt_ok(r, false))
        return;
    if (n > 100000000) {
        seam_ckpt_fail(r, "implausible count of %zu files", n);
        return;
    }
    char **names = calloc(n ? n : 1, sizeof *names);
    if (!names) {
        seam_ckpt_fail(r, "out of memory");
        return;
    }
    for (size_t i = 0; i < n && seam_ckpt_ok(r, false); i++)
        names[i] = seam_ckpt_get_str(r);
    if (seam_ckpt_ok(r, true) && outputs_resume(sim, pos, names, n) != SEAM_OK)
        seam_ckpt_fail(r, "the outputs could not be taken up (see above)");
    outputs_manifest_free(names, n);
}

seam_status sim_checkpoint_restore(seam_sim *sim, double *t, double *wall_s)
{
    char path[4200], err[1024];
    checkpoint_path(sim->out.dir, path, sizeof path);
    seam_ckpt_reader *r = seam_ckpt_reader_open(path, err, sizeof err);
    if (!r) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "cannot resume: %s", err);
        return SEAM_ERROR;
    }
    read_coupler(sim, r, t, wall_s);
    if (!sim->coupled && seam_ckpt_ok(r, false))
        read_interface(sim, r);
    if (seam_ckpt_ok(r, false))
        read_participants(sim, r);
    if (seam_ckpt_ok(r, false) && sim->coupled && interface_from_coupled(sim, false) != SEAM_OK)
        seam_ckpt_fail(r, "the coupled participant could not describe its restored surfaces");
    if (seam_ckpt_ok(r, false))   /* last: the outputs change only once the state is restored */
        read_outputs(sim, r);
    seam_status st = SEAM_OK;
    if (!seam_ckpt_ok(r, false)) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "cannot resume: %s", seam_ckpt_error(r));
        st = SEAM_ERROR;
    } else
        sim_log(sim, SEAM_LOG_INFO, NULL, "resuming after step %ld (t = %.9g s) from %s", sim->summary.steps - 1, *t,
                path);
    seam_ckpt_reader_destroy(&r);
    return st;
}
