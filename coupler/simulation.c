/* The simulation: built from a scene, then the time loop and its summary.
 * The parts: scene.c reads the scene, participant.c owns the solvers,
 * interface.c concatenates the solids' surfaces, stepper.c advances a step
 * (coupling.c and the schemes iterate), outputs.c writes what a run leaves. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rigid_dofs.h"
#include "sim_internal.h"

double sim_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void discard_log(void *ctx, seam_log_level level, const char *who, const char *message)
{
    (void)ctx, (void)level, (void)who, (void)message;
}

void sim_log(seam_sim *sim, seam_log_level level, const char *who, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (level >= SEAM_LOG_ERROR)
        sim->errors++;
    char full[2200];
    if (level == SEAM_LOG_WARN)
        snprintf(full, sizeof full, "warning: %s", msg);
    else if (level == SEAM_LOG_ERROR)
        snprintf(full, sizeof full, "error: %s", msg);
    else
        snprintf(full, sizeof full, "%s", msg);
    sim->opts.log(sim->opts.log_ctx, level, who, full);
}

static void cfg_report(void *ctx, const char *where, const char *key_path, const char *message)
{
    seam_sim *sim = ctx;
    sim_log(sim, SEAM_LOG_ERROR, NULL, "%s%s%s: %s", where ? where : "", where ? ": " : "", key_path, message);
}

/* A scene whose participants all have unlimited steps must name time.dt. */
static bool check_step_limit(seam_sim *sim)
{
    if (isfinite(sim->dt_max))
        return true;
    for (size_t i = 0; i < sim->n_parts; i++) {
        double m = NAN;
        if (sim->parts[i].p->max_dt(sim->parts[i].self, &m) != SEAM_OK || isfinite(m))
            return true;
    }
    sim_log(sim, SEAM_LOG_ERROR, NULL, "%s: time.dt: required key is missing (no participant limits its step)",
            seam_doc_locate(sim->doc, "time"));
    return false;
}

seam_sim *seam_sim_new(seam_doc *doc, const seam_run_options *opts)
{
    seam_sim *sim = calloc(1, sizeof *sim);
    if (!sim)
        return NULL;
    sim->doc = doc;
    if (opts)
        sim->opts = *opts;
    if (!sim->opts.log)
        sim->opts.log = discard_log;
    const char *origin = seam_doc_origin(doc);
    const char *slash = strrchr(origin, '/');
    sim->scene_dir = slash == origin ? strdup("/") : slash ? strndup(origin, (size_t)(slash - origin)) : strdup(".");
    if (!json_is_object(seam_doc_root(doc))) {
        /* Every key of a scene lives in one object: naming each missing one would bury the cause. */
        static const char *const types[] = {"an object", "an array", "a string", "an integer", "a real number",
                                            "true", "false", "null"};
        sim_log(sim, SEAM_LOG_ERROR, NULL, "%s: a scene is a JSON object ({\"time\": ..., ...}), got %s", origin,
                types[json_typeof(seam_doc_root(doc))]);
        seam_sim_destroy(&sim);
        return NULL;
    }
    seam_cfg *root = sim->scene_dir ? seam_cfg_new(seam_doc_root(doc), "", doc, cfg_report, sim) : NULL;
    if (!root) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "out of memory");
        seam_sim_destroy(&sim);
        return NULL;
    }
    sim_read_scene(sim, root);
    seam_cfg_finish(root);
    seam_cfg_destroy(&root);
    /* Create every participant whose library loaded, even after errors in
     * the scene, so one validation reports the plugins' problems too. The
     * servers of those in other processes started while the scene was read:
     * the ones in this process are created first, while they start. */
    for (size_t i = 0; i < sim->n_parts; i++)
        if (sim->parts[i].p && !sim->parts[i].remote)
            participant_create(sim, &sim->parts[i]);
    for (size_t i = 0; i < sim->n_parts; i++)
        if (sim->parts[i].remote && participant_ready(sim, &sim->parts[i]))
            participant_create(sim, &sim->parts[i]);
    bool ok = sim->errors == 0;
    if (ok && !sim->coupled)
        ok = interface_build(sim) && interface_bind(sim) && sim_coupling_init(sim) == SEAM_OK;
    else if (ok && sim->coupled->p->describe)   /* the surfaces it moves, for interface.csv and pictures */
        ok = interface_build(sim);
    ok = ok && outputs_check_picture(sim) && probes_check(sim, &sim->out.probes) && check_step_limit(sim) &&
         sim_checkpoint_check(sim);
    if (ok && !(sim->pstats = calloc(sim->n_parts, sizeof *sim->pstats))) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "out of memory");
        ok = false;
    }
    if (!ok) {
        seam_sim_destroy(&sim);
        return NULL;
    }
    sim->summary.n_participants = sim->n_parts;
    sim->summary.participants = sim->pstats;
    return sim;
}

void seam_sim_destroy(seam_sim **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_sim *sim = *self_p;
    for (size_t i = 0; i < sim->n_parts; i++)
        participant_free(&sim->parts[i]);
    free(sim->parts);
    if (sim->scheme && sim->scheme->destroy)
        sim->scheme->destroy(sim->scheme_self);
    outputs_close(&sim->out);
    bpp_destroy(&sim->bpp);
    interface_free(&sim->in);
    seam_coupling_fini(&sim->coupling);
    rigid_dofs_free(sim->rigid);
    free(sim->scene_dir);
    free(sim->description);
    free(sim->pstats);
    free(sim);
    *self_p = NULL;
}

/* The step size: the smallest any participant allows, landing on the end time. */
static double choose_dt(seam_sim *sim, double t)
{
    double dt = sim->dt_max;
    for (size_t i = 0; i < sim->n_parts; i++) {
        participant *pt = &sim->parts[i];
        double m = NAN;
        if (pt->p->max_dt(pt->self, &m) != SEAM_OK) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name, "max_dt failed at step %ld (t = %.9g s)", sim->summary.steps, t);
            return NAN;
        }
        if (isnan(m) || m <= 0.0) {
            sim_log(sim, SEAM_LOG_ERROR, pt->name, "max_dt returned %g at step %ld (t = %.9g s)", m,
                    sim->summary.steps, t);
            return NAN;
        }
        if (m < sim->dt_min) {   /* a solver whose stable step collapsed: its state has blown up */
            sim_log(sim, SEAM_LOG_ERROR, pt->name, "its stable step fell to %.3g s at step %ld (t = %.9g s), below "
                    "time.dt_min = %.3g s: its state is blowing up (see its messages above) or dt_min is too large",
                    m, sim->summary.steps, t, sim->dt_min);
            return NAN;
        }
        dt = fmin(dt, m);
    }
    double left = sim->t_end - t;
    if (dt >= left * (1.0 - 1e-9))
        dt = left;
    return dt;
}

/* on_nonconvergence "retry": a step that ran out of iterations with a
 * position measure more than this many times its tolerance is badly
 * unconverged. (Load measures are left out: a relative load change does
 * not shrink with the step.) */
#define RETRY_ABOVE 10.0

/* The worst position measure of the last verdict, in multiples of its tolerance. */
static double worst_ratio(const seam_convergence *cv)
{
    double worst = 0.0;
    for (size_t i = 0; i < cv->count; i++)
        if (cv->measures[i].quantity == SEAM_QTY_POSITIONS && cv->goal[i] > 0 && isfinite(cv->value[i]))
            worst = fmax(worst, cv->value[i] / cv->goal[i]);
    return worst;
}

/* One step, retried with half the step while a participant says it is
 * unstable, or (on_nonconvergence "retry") while it ends badly unconverged
 * and half the step is no less than time.dt_min. */
static seam_status advance(seam_sim *sim, double t, double *dt, seam_verdict *verdict)
{
    for (;;) {
        sim->unstable = NULL;
        for (size_t i = 0; i < sim->n_parts; i++)   /* the cause quoted below is this attempt's */
            sim->parts[i].last_warning[0] = '\0';
        seam_status st = sim->stepper->attempt(sim, t, *dt, verdict);
        if (st == SEAM_OK && *verdict == SEAM_EXHAUSTED && sim->retry_unconverged && *dt / 2 >= sim->dt_min) {
            double ratio = worst_ratio(&sim->conv);
            if (ratio > RETRY_ABOVE) {
                *dt /= 2;
                sim->summary.retries++;
                sim_log(sim, SEAM_LOG_WARN, NULL, "step %ld (t = %.9g s) not converged after %d iterations, %.3g times "
                        "its tolerance (residual %.3g m): retrying with dt = %.3g s", sim->summary.steps, t,
                        sim->stepper->iterations(sim), ratio, sim->coupling.residual, *dt);
                continue;
            }
        }
        if (st != SEAM_UNSTABLE)
            return st;
        if (*dt / 2 < sim->dt_min) {
            /* the participant that refused the step, and why (its last warning) */
            const participant *pt = sim->unstable;
            sim_log(sim, SEAM_LOG_ERROR, pt ? pt->name : NULL, "step %ld (t = %.9g s) is unstable even at dt = %.3g s "
                    "(time.dt_min = %.3g s)%s%s", sim->summary.steps, t, *dt, sim->dt_min,
                    pt && *pt->last_warning ? ": " : "", pt ? pt->last_warning : "");
            return SEAM_ERROR;
        }
        *dt /= 2;
        sim->summary.retries++;
        sim_log(sim, SEAM_LOG_WARN, NULL, "retrying step %ld with dt = %.3g s", sim->summary.steps, *dt);
    }
}

/* What the verdict means for the run: SEAM_OK to commit, else an error said. */
static seam_status accept_verdict(seam_sim *sim, double t, seam_verdict verdict, int iterations)
{
    long step = sim->summary.steps;
    const seam_coupling *c = &sim->coupling;
    if (verdict == SEAM_DIVERGED) {
        sim->diverged = true;
        sim_log(sim, SEAM_LOG_ERROR, NULL, "scheme %s diverged at step %ld (t = %.9g s): residual %.3g m after %d iterations (first %.3g m)",
                sim->scheme->name, step, t, c->residual, iterations, c->first_residual);
        return SEAM_ERROR;
    }
    if (verdict != SEAM_EXHAUSTED)
        return SEAM_OK;
    char measures[512];
    seam_convergence_describe(&sim->conv, measures, sizeof measures);
    if (sim->fail_unconverged) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "not converged at step %ld (t = %.9g s) after %d iterations: residual %.3g m; needed %s",
                step, t, iterations, c->residual, measures);
        return SEAM_ERROR;
    }
    sim->summary.not_converged++;
    sim_log(sim, SEAM_LOG_WARN, NULL, "not converged at step %ld (t = %.9g s) after %d iterations: residual %.3g m (needed %s); committing anyway",
            step, t, iterations, c->residual, measures);
    return SEAM_OK;
}

/* Divergence across steps: a blow-up that each step, judged alone, does not
 * show (explicit coupling converges every step by definition; a scheme past
 * its stability bound may exhaust its iterations every step). Growth by
 * this factor in each of this many steps in a row (1.5^20 = 3300) is no
 * physical transient that starts from rest: a motion like t^k needs k >= 8
 * to keep it up for 20 steps. */
#define GROWTH 1.5
#define GROWTH_STEPS 20

static bool diverging_across_steps(seam_sim *sim, double t, double dt, bool converged)
{
    const sim_interface *in = &sim->in;
    size_t worst = 0;
    double speed = 0.0;
    for (size_t i = 0; i < in->n_points; i++) {
        double d = seam_norm_max_point(in->Xn + i * (size_t)in->dim, in->Xpast[0] + i * (size_t)in->dim,
                                       (size_t)in->dim, in->dim) / dt;
        if (d > speed)
            speed = d, worst = i;
    }
    /* speeds of round-off (below a micrometre per step) are not followed */
    bool faster = speed * dt > 1e-6 * sim->conv.reference && speed > GROWTH * sim->last_speed;
    sim->speed_growth = faster ? sim->speed_growth + 1 : 0;
    sim->last_speed = speed;
    double r = sim->coupling.residual;
    bool worse = !converged && r > GROWTH * sim->last_residual;
    sim->residual_growth = worse ? sim->residual_growth + 1 : 0;
    sim->last_residual = converged ? 0.0 : r;
    const char *who = NULL;
    for (size_t s = sim->first_solid; s < sim->n_parts; s++)
        if (worst >= sim->parts[s].offset && worst < sim->parts[s].offset + sim->parts[s].n_points)
            who = sim->parts[s].name;
    if (sim->speed_growth >= GROWTH_STEPS) {
        sim_log(sim, SEAM_LOG_ERROR, who, "scheme %s diverged across steps: the interface sped up more than %gx in "
                "each of the last %d steps, to %.3g m/s at its point %zu at step %ld (t = %.9g s); a stronger "
                "scheme or a smaller time.dt is needed", sim->scheme->name, GROWTH, GROWTH_STEPS, speed, worst,
                sim->summary.steps - 1, t);
        return true;
    }
    if (sim->residual_growth >= GROWTH_STEPS) {
        sim_log(sim, SEAM_LOG_ERROR, NULL, "scheme %s diverged across steps: the unconverged residual grew more "
                "than %gx in each of the last %d steps, to %.3g m at step %ld (t = %.9g s)", sim->scheme->name,
                GROWTH, GROWTH_STEPS, r, sim->summary.steps - 1, t);
        return true;
    }
    return false;
}

static double solver_seconds(const seam_sim *sim)
{
    double s = 0.0;
    for (size_t i = 0; i < sim->n_parts; i++)
        s += sim->parts[i].stats.seconds;
    return s;
}

/* What the scheme keeps after this step: its counts, and how much its
 * running totals grew during the step (a scheme rebuilt for another
 * interface size starts its totals again). */
static void scheme_report(seam_sim *sim, seam_scheme_report *rec)
{
    *rec = (seam_scheme_report){0};
    if (sim->coupled || !sim->scheme || !sim->scheme->report)
        return;
    seam_scheme_report now;
    sim->scheme->report(sim->scheme_self, &now);
    seam_scheme_report *was = &sim->scheme_totals;
    *rec = now;
    rec->filtered = now.filtered >= was->filtered ? now.filtered - was->filtered : now.filtered;
    rec->restarts = now.restarts >= was->restarts ? now.restarts - was->restarts : now.restarts;
    rec->truncated = now.truncated >= was->truncated ? now.truncated - was->truncated : now.truncated;
    *was = now;
}

static void progress(seam_sim *sim, double t, double t_begin, int iterations, double t_start, bool final)
{
    if (!sim->opts.progress)
        return;
    seam_progress p = {t, sim->t_end, sim->summary.steps, iterations, sim_now() - t_start, final, sim->dt_past[0],
                       t_begin};
    sim->opts.progress(sim->opts.progress_ctx, &p);
}

double seam_progress_eta(const seam_progress *p)
{
    double done = p->t - p->t_begin;
    return done > 0.0 ? p->elapsed_s * fmax(0.0, p->t_end - p->t) / done : NAN;
}

seam_status seam_sim_run(seam_sim *sim)
{
    double t_start = sim_now(), t = 0.0, wall_before = 0.0;   /* wall time of the run before it was resumed */
    sim->summary.outcome = SEAM_RUN_ERROR;
    if (sim->opts.resume ? sim_checkpoint_restore(sim, &t, &wall_before) != SEAM_OK : outputs_open(sim) != SEAM_OK) {
        for (size_t i = 0; i < sim->n_parts; i++)   /* for the summary of the run that did not start */
            sim->pstats[i] = sim->parts[i].stats;
        return SEAM_ERROR;
    }
    const double t_begin = t;
    long checkpoint_step = sim->summary.steps;
    double checkpoint_time = t_start;
    bool checkpoints = sim->out.checkpoint_steps > 0 || sim->out.checkpoint_seconds > 0;
    seam_status result = SEAM_OK;
    bool interrupted = false;
    while (t < sim->t_end * (1.0 - 1e-12) && (sim->opts.max_steps <= 0 || sim->summary.steps < sim->opts.max_steps)) {
        if (sim->opts.stop && *sim->opts.stop) {
            interrupted = true;
            break;
        }
        double dt = choose_dt(sim, t);
        if (isnan(dt)) {
            result = SEAM_ERROR;
            break;
        }
        double step_t0 = sim_now(), solvers0 = solver_seconds(sim);
        double fluid0 = sim->fluid ? sim->fluid->stats.seconds : 0.0;
        seam_verdict verdict;
        int errors = sim->errors;
        if (advance(sim, t, &dt, &verdict) != SEAM_OK) {
            if (sim->errors == errors)   /* a scheme's failure: its warning said why */
                sim_log(sim, SEAM_LOG_ERROR, NULL, "step %ld (t = %.9g s) failed in scheme %s", sim->summary.steps, t,
                        sim->scheme ? sim->scheme->name : sim->stepper->name);
            result = SEAM_ERROR;
            break;
        }
        int iterations = sim->stepper->iterations(sim);
        if (accept_verdict(sim, t, verdict, iterations) != SEAM_OK) {
            result = SEAM_ERROR;
            break;
        }
        if ((result = participants_commit(sim, sim->summary.steps)) != SEAM_OK)
            break;
        if ((result = sim->stepper->accept(sim)) != SEAM_OK)
            break;
        memmove(sim->dt_past + 1, sim->dt_past, (SIM_PAST - 1) * sizeof *sim->dt_past);
        sim->dt_past[0] = dt;
        t += dt;
        double all_solvers = solver_seconds(sim) - solvers0;
        double fluid_s = sim->fluid ? sim->fluid->stats.seconds - fluid0 : all_solvers;
        double coupler_s = fmax(0.0, sim_now() - step_t0 - all_solvers);
        sim_step_record rec = {sim->summary.steps, t, dt, iterations, sim->coupled ? 0.0 : sim->coupling.residual,
                               verdict == SEAM_CONVERGED, fluid_s, all_solvers - fluid_s, coupler_s, {0}};
        scheme_report(sim, &rec.scheme);
        sim->summary.steps++;
        sim->summary.t = t;
        sim->summary.iterations += iterations;
        if (iterations > sim->summary.max_iterations)
            sim->summary.max_iterations = iterations;
        sim->summary.coupler_s += coupler_s;
        if (outputs_step(sim, &rec) != SEAM_OK) {
            result = SEAM_ERROR;
            break;
        }
        if (!sim->coupled && diverging_across_steps(sim, t, dt, verdict == SEAM_CONVERGED)) {
            sim->diverged = true;
            result = SEAM_ERROR;
            break;
        }
        sim->last_iterations = iterations;
        if (checkpoints && sim_checkpoint_due(sim, checkpoint_time)) {
            if (sim_checkpoint_write(sim, t, wall_before + sim_now() - t_start) != SEAM_OK) {
                result = SEAM_ERROR;
                break;
            }
            checkpoint_step = sim->summary.steps;
            checkpoint_time = sim_now();
        }
        progress(sim, t, t_begin, iterations, t_start, false);
    }
    /* a run stopped by a signal can be taken up where it stopped */
    if (interrupted && checkpoints && result == SEAM_OK && checkpoint_step != sim->summary.steps &&
        sim_checkpoint_write(sim, t, wall_before + sim_now() - t_start) != SEAM_OK)
        result = SEAM_ERROR;
    progress(sim, t, t_begin, sim->last_iterations, t_start, true);
    /* a stop asked for while a step failed (a separate server that got the
     * same SIGINT) is an interruption, not the server's failure */
    if (sim->opts.stop && *sim->opts.stop)
        interrupted = true;
    sim->summary.outcome = interrupted ? SEAM_RUN_INTERRUPTED
                         : result != SEAM_OK ? (sim->diverged ? SEAM_RUN_DIVERGED : SEAM_RUN_ERROR)
                         : sim->summary.not_converged ? SEAM_RUN_UNCONVERGED : SEAM_RUN_CONVERGED;
    if (interrupted)
        result = SEAM_ERROR;
    sim->summary.wall_s = wall_before + sim_now() - t_start;
    for (size_t i = 0; i < sim->n_parts; i++)
        sim->pstats[i] = sim->parts[i].stats;
    /* the failed step's residuals (why it failed), the summary and the report: a run whose files are not all
     * written has failed, whatever its steps did */
    seam_status written = outputs_flush(sim);
    if (outputs_finish(sim) != SEAM_OK || written != SEAM_OK) {
        if (sim->summary.outcome == SEAM_RUN_CONVERGED || sim->summary.outcome == SEAM_RUN_UNCONVERGED)
            sim->summary.outcome = SEAM_RUN_ERROR;
        result = SEAM_ERROR;
    }
    return result;
}

const seam_summary *seam_sim_summary(const seam_sim *self) { return &self->summary; }

int seam_outcome_exit_status(seam_outcome o, int signal)
{
    switch (o) {
    case SEAM_RUN_CONVERGED: return 0;
    case SEAM_RUN_UNCONVERGED: return 3;
    case SEAM_RUN_DIVERGED: return 4;
    case SEAM_RUN_INTERRUPTED: return 128 + (signal > 0 ? signal : 2);
    case SEAM_RUN_ERROR: break;
    }
    return 1;
}

const char *seam_outcome_name(seam_outcome o)
{
    static const char *const names[] = {"converged", "finished with unconverged steps", "diverged", "failed",
                                        "interrupted"};
    return (unsigned)o < sizeof names / sizeof names[0] ? names[o] : "failed";
}
const char *seam_sim_output_dir(const seam_sim *self) { return self->out.dir; }
const char *seam_sim_description(const seam_sim *self) { return self->description; }

const double *seam_sim_interface(const seam_sim *self, size_t *n, int *dim)
{
    *n = self->in.n_points;
    *dim = self->in.dim;
    return self->in.Xn;
}

void seam_sim_describe(const seam_sim *self, char *buf, size_t n)
{
    int len = 0;
    for (size_t i = 0; i < self->n_parts && len >= 0 && (size_t)len < n; i++) {
        const participant *pt = &self->parts[i];
        len += snprintf(buf + len, n - (size_t)len, "%s%s %s (%s)", i ? ", " : "", seam_role_name(pt->role),
                        pt->name, pt->p->name);
    }
    if (!self->coupled && len >= 0 && (size_t)len < n) {
        char measures[512];
        seam_convergence_describe(&self->conv, measures, sizeof measures);
        snprintf(buf + len, n - (size_t)len, "; scheme %s; interface %zu points (dim %d); converged when %s",
                 self->scheme->name, self->in.n_points, self->in.dim, measures);
    }
}

void seam_sim_print_summary(const seam_sim *self, FILE *out)
{
    const seam_summary *s = &self->summary;
    fprintf(out, "outcome: %s\n", seam_outcome_name(s->outcome));
    fprintf(out, "steps: %ld to t = %.6g s in %.3f s wall\n", s->steps, s->t, s->wall_s);
    if (!self->coupled)
        fprintf(out, "iterations per step: mean %.2f, max %d%s\n", s->steps ? (double)s->iterations / (double)s->steps : 0.0,
                s->max_iterations, s->not_converged ? " (some steps unconverged)" : "");
    if (s->not_converged)
        fprintf(out, "unconverged steps committed: %ld\n", s->not_converged);
    if (s->retries)
        fprintf(out, "steps retried with a smaller dt: %ld\n", s->retries);
    for (size_t i = 0; i < s->n_participants; i++) {
        const seam_participant_stats *p = &s->participants[i];
        fprintf(out, "  %-12s %-8s %-14s %9.3f s  %ld solves", p->name, seam_role_name(p->role), p->plugin,
                p->seconds, p->solves);
        if (p->warnings)
            fprintf(out, ", %ld warning%s", p->warnings, p->warnings == 1 ? "" : "s");
        fputc('\n', out);
    }
    fprintf(out, "  %-12s %-8s %-14s %9.3f s  (%.1f%% of wall)\n", "coupler", "", "", s->coupler_s,
            s->wall_s > 0 ? 100.0 * s->coupler_s / s->wall_s : 0.0);
    if (self->out.dir)
        fprintf(out, "output: %s\n", self->out.dir);
    if (self->out.report_written)
        fprintf(out, "report: %s/index.html\n", self->out.dir);
}
