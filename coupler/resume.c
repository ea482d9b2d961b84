/* Checkpoints of a run and resuming from them: everything the time loop
 * carries from one step to the next, in the core's checkpoint format
 * (seam/checkpoint.h), one section per part:
 *   run          the scene (every --set applied), its file, --end, --steps
 *   coupler      step, time, the last dt, the summary's counters, the
 *                divergence watch (the time loop's own, simulation.c)
 *   interface    X^n, X^{n-1}, ..., V^n (interface.c), the last step's
 *                loads (stepper.c)
 *   scheme       its name and what it carries across steps (stepper.c)
 *   bpp          the projection's committed regions and p0 (stepper.c)
 *   participant/NAME  its plugin's name, its statistics, its save bytes
 *                (participant.c)
 *   outputs      frame counter, next frame time, picture range, where each
 *                CSV file ended and which other files existed (outputs.c) */
#define _XOPEN_SOURCE 700   /* realpath */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "seam/checkpoint.h"
#include "resume.h"
#include "seam/alloc.h"

static void checkpoint_path(const char *dir, char *buf, size_t n)
{
    snprintf(buf, n, "%s/" SIM_CHECKPOINT_FILE, dir);
}

/* The first participant that cannot be saved and loaded, NULL: none. */
static const participant *first_unsaved(const sim_participants *ps)
{
    for (size_t i = 0; i < ps->n_parts; i++) {
        const participant *pt = &ps->parts[i];
        if (!(pt->p->save && pt->p->load && (pt->caps & SEAM_CAP_SAVE)))
            return pt;
    }
    return NULL;
}

bool checkpoint_check(const sim_checkpoint *ck)
{
    sim_outputs *o = ck->out;
    const participant *pt = first_unsaved(ck->ps);
    if (o->checkpoint_default && pt && !ck->opts->resume) {   /* the default asks nothing a participant cannot do */
        sim_log(ck->log, SEAM_LOG_INFO, NULL, "no checkpoints: %s (%s) cannot save its state, so this run cannot be "
                "resumed", pt->name, pt->p->name);
        o->checkpoint_default = false;
        o->checkpoint_seconds = 0.0;
    }
    if (!ck->opts->resume && !o->checkpoint_steps && !(o->checkpoint_seconds > 0))
        return true;
    return participants_check_save(ck->ps, ck->opts->resume ? "--resume" : seam_doc_locate(ck->doc, "output.checkpoint"),
                                   ck->opts->resume ? "resuming" : "output.checkpoint");
}

bool checkpoint_due(const sim_checkpoint *ck, double last_time)
{
    const sim_outputs *o = ck->out;
    if (o->checkpoint_steps > 0 && ck->summary->steps % o->checkpoint_steps == 0)
        return true;
    double every = o->checkpoint_default ? fmax(o->checkpoint_seconds, SIM_CHECKPOINT_COST * o->checkpoint_write_s)
                                         : o->checkpoint_seconds;
    return every > 0 && sim_now() - last_time >= every;
}

static void write_run(const sim_checkpoint *ck, seam_ckpt_writer *w)
{
    seam_ckpt_section(w, "run");
    char *text = json_dumps(seam_doc_root(ck->doc), JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    seam_ckpt_put_str(w, text);
    free(text);
    char abs[PATH_MAX];
    const char *origin = seam_doc_origin(ck->doc);
    seam_ckpt_put_str(w, realpath(origin, abs) ? abs : origin);
    seam_ckpt_put_f64(w, ck->opts->end);
    seam_ckpt_put_i64(w, ck->opts->max_steps);
}

seam_status checkpoint_write(const sim_checkpoint *ck, double t, double wall_s)
{
    double t0 = sim_now();
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    if (!w) {
        sim_log(ck->log, SEAM_LOG_ERROR, NULL, "out of memory writing a checkpoint");
        return SEAM_ERROR;
    }
    long step = ck->summary->steps - 1;
    write_run(ck, w);
    ck->save_loop(ck->loop, w, t, wall_s);
    if (!ck->ps->coupled) {   /* a coupled plugin keeps its interface and loads itself */
        interface_save(ck->in, w);
        stepper_save(ck->st, w);
    }
    seam_status st = participants_save(ck->ps, w, step, ck->summary->t);
    outputs_save(ck->out, w);
    char path[4200], err[1024];
    checkpoint_path(ck->out->dir, path, sizeof path);
    if (st == SEAM_OK && seam_ckpt_writer_save(w, path, err, sizeof err) != 0) {
        sim_log(ck->log, SEAM_LOG_ERROR, NULL, "cannot write the checkpoint after step %ld: %s", step, err);
        st = SEAM_ERROR;
    }
    seam_ckpt_writer_destroy(&w);
    ck->out->checkpoint_write_s = sim_now() - t0;
    struct stat sb;
    if (st == SEAM_OK)   /* what a checkpoint costs (docs/scenes.md, "Checkpoint and resume") */
        sim_log(ck->log, SEAM_LOG_DEBUG, NULL, "checkpoint after step %ld: %lld bytes in %.6f s", step,
                stat(path, &sb) == 0 ? (long long)sb.st_size : -1LL, ck->out->checkpoint_write_s);
    return st;
}

void checkpoint_discard(const sim_checkpoint *ck)
{
    if (!ck->out->checkpoint_default)
        return;
    char path[4200];
    checkpoint_path(ck->out->dir, path, sizeof path);
    if (remove(path) != 0 && errno != ENOENT)
        sim_log(ck->log, SEAM_LOG_WARN, NULL, "cannot remove %s: %s", path, strerror(errno));
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

seam_status checkpoint_restore(const sim_checkpoint *ck, double *t, double *wall_s)
{
    char path[4200], err[1024];
    checkpoint_path(ck->out->dir, path, sizeof path);
    seam_ckpt_reader *r = seam_ckpt_reader_open(path, err, sizeof err);
    if (!r) {
        sim_log(ck->log, SEAM_LOG_ERROR, NULL, "cannot resume: %s", err);
        return SEAM_ERROR;
    }
    if (seam_ckpt_need(r, "coupler")) {
        ck->load_loop(ck->loop, r, t, wall_s);
        seam_ckpt_ok(r, true);
    }
    if (!ck->ps->coupled && seam_ckpt_ok(r, false) && seam_ckpt_need(r, "interface")) {
        interface_load(ck->in, r);
        stepper_load(ck->st, r);   /* its loads close the interface's section */
    }
    long steps = ck->summary->steps;
    if (seam_ckpt_ok(r, false))
        participants_load(ck->ps, r, steps, ck->summary->t);
    if (seam_ckpt_ok(r, false) && ck->ps->coupled && interface_from_coupled(ck->in, false, steps - 1) != SEAM_OK)
        seam_ckpt_fail(r, "the coupled participant could not describe its restored surfaces");
    if (seam_ckpt_ok(r, false))   /* last: the outputs change only once the state is restored */
        outputs_load(ck->out, r);
    seam_status st = SEAM_OK;
    if (!seam_ckpt_ok(r, false)) {
        sim_log(ck->log, SEAM_LOG_ERROR, NULL, "cannot resume: %s", seam_ckpt_error(r));
        st = SEAM_ERROR;
    } else
        sim_log(ck->log, SEAM_LOG_INFO, NULL, "resuming after step %ld (t = %.9g s) from %s", steps - 1, *t, path);
    seam_ckpt_reader_destroy(&r);
    return st;
}
