/* The simulation: built from a scene, then the time loop and its summary.
 * The parts: scene.c reads the scene, participant.c owns the solvers,
 * interface.c concatenates the solids' surfaces, stepper.c advances a step
 * (coupling.c and the schemes iterate), outputs.c writes what a run leaves. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interface.h"
#include "log.h"
#include "outputs.h"
#include "participant.h"
#include "probes.h"
#include "resume.h"
#include "scene.h"
#include "seam/alloc.h"
#include "seam/krylov.h"
#include "seam/threads.h"
#include "simulation.h"
#include "stepper.h"

/* The run: its parts, each owning its state, and the loop's own bookkeeping. */
struct seam_sim {
    seam_run_options opts;
    coupler_log log;
    sim_scene scene;         /* parsed once, then only read */
    sim_participants ps;
    sim_interface in;
    stepper st;
    sim_outputs out;
    sim_checkpoint ck;
    seam_summary summary;
    int last_iterations;
    /* divergence across steps: how many steps in a row the interface's
     * fastest point sped up, and the committed residual grew, by GROWTH */
    double last_speed, last_residual;
    int speed_growth, residual_growth;
    /* ... and how many steps in a row its fastest point reversed its motion
     * (a sawtooth at the step's own period), from what speed at the first */
    int sawtooth_steps;
    double sawtooth_from;
    bool diverged;
    /* the step a participant last found stable (SEAM_UNSTABLE above it):
     * later steps start from it, not from the full dt, and it doubles
     * after dt_wait steps in a row were stable (INFINITY: no cap) */
    double dt_cap;
    long dt_stable_steps, dt_wait;
    bool dt_grown;           /* the cap was just doubled: unstable now, the wait doubles; stable, it is reset */
    bool dt_at_cap;          /* this step's dt is the cap (it is smaller than what the rest allows) */
    seam_participant_stats *pstats;
};

/* Steps in a row that must be stable before a capped dt doubles; the wait
 * doubles, up to DT_WAIT_MAX, each time a doubled dt proves unstable again
 * (a lasting limit is probed ever more rarely), and is back at DT_WAIT once
 * one was stable (a passing one costs few steps at a small dt). */
#define DT_WAIT 2
#define DT_WAIT_MAX 64

static void discard_log(void *ctx, seam_log_level level, const char *who, const char *message)
{
    (void)ctx, (void)level, (void)who, (void)message;
}

static void cfg_report(void *ctx, const char *where, const char *key_path, const char *message)
{
    seam_sim *sim = ctx;
    sim_log(&sim->log, SEAM_LOG_ERROR, NULL, "%s%s%s: %s", where ? where : "", where ? ": " : "", key_path, message);
}

/* A scene whose participants all have unlimited steps must name time.dt. */
static bool check_step_limit(seam_sim *sim)
{
    if (isfinite(sim->scene.dt_max))
        return true;
    for (size_t i = 0; i < sim->ps.n_parts; i++) {
        double m = NAN;
        if (sim->ps.parts[i].p->max_dt(sim->ps.parts[i].self, &m) != SEAM_OK || isfinite(m))
            return true;
    }
    sim_log(&sim->log, SEAM_LOG_ERROR, NULL, "%s: time.dt: required key is missing (no participant limits its step)",
            seam_doc_locate(sim->scene.doc, "time"));
    return false;
}

/* The time loop's own values, the checkpoint's section "coupler". */
static void save_loop(void *loop, seam_ckpt_writer *w, double t, double wall_s)
{
    seam_sim *sim = loop;
    const seam_summary *s = &sim->summary;
    seam_ckpt_section(w, "coupler");
    seam_ckpt_put_i64(w, s->steps);
    seam_ckpt_put_f64(w, t);
    seam_ckpt_put_f64s(w, sim->in.dt_past, SIM_PAST);
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
    /* a section of its own, so checkpoints written before the cap existed still load */
    seam_ckpt_section(w, "coupler dt");
    seam_ckpt_put_f64(w, sim->dt_cap);
    seam_ckpt_put_i64(w, sim->dt_stable_steps);
    seam_ckpt_put_i64(w, sim->dt_wait);
    seam_ckpt_put_i64(w, sim->dt_grown);
    seam_ckpt_section(w, "sawtooth");   /* a section of its own: checkpoints from before it still load */
    seam_ckpt_put_i64(w, sim->sawtooth_steps);
    seam_ckpt_put_f64(w, sim->sawtooth_from);
}

static void load_loop(void *loop, seam_ckpt_reader *r, double *t, double *wall_s)
{
    seam_sim *sim = loop;
    seam_summary *s = &sim->summary;
    s->steps = (long)seam_ckpt_get_i64(r);
    *t = seam_ckpt_get_f64(r);
    s->t = *t;
    seam_ckpt_get_f64s(r, sim->in.dt_past, SIM_PAST);
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
    if (seam_ckpt_ok(r, true) && seam_ckpt_find(r, "coupler dt")) {
        sim->dt_cap = seam_ckpt_get_f64(r);
        sim->dt_stable_steps = (long)seam_ckpt_get_i64(r);
        sim->dt_wait = (long)seam_ckpt_get_i64(r);
        sim->dt_grown = seam_ckpt_get_i64(r) != 0;
        if (seam_ckpt_ok(r, false) && !(sim->dt_cap > 0.0 && sim->dt_wait >= DT_WAIT && sim->dt_wait <= DT_WAIT_MAX &&
                                        sim->dt_stable_steps >= 0))
            seam_ckpt_fail(r, "implausible step cap %g s (after %ld of %ld stable steps)", sim->dt_cap,
                           sim->dt_stable_steps, sim->dt_wait);
    }
    if (seam_ckpt_ok(r, true) && seam_ckpt_find(r, "sawtooth")) {
        sim->sawtooth_steps = (int)seam_ckpt_get_i64(r);
        sim->sawtooth_from = seam_ckpt_get_f64(r);
    }
}

static void on_residual(void *ctx, long step, int iteration, double residual, double loads)
{
    outputs_residual(ctx, step, iteration, residual, loads);
}

/* Each part handed the parts it works on, once they exist. */
static void connect_parts(seam_sim *sim)
{
    interface_init(&sim->in, &sim->ps, &sim->log, sim->scene.doc);
    stepper_init(&sim->st, sim->scene.stepper, &sim->scene.stepping, &sim->ps, &sim->in, &sim->log, sim->scene.doc);
    sim->st.on_residual = on_residual;
    sim->st.on_residual_ctx = &sim->out;
    sim_outputs *o = &sim->out;
    o->log = &sim->log;
    o->doc = sim->scene.doc;
    o->opts = &sim->opts;
    o->ps = &sim->ps;
    o->in = &sim->in;
    o->conv = &sim->st.conv;
    o->summary = &sim->summary;
    sim->ck = (sim_checkpoint){&sim->log, sim->scene.doc, &sim->opts, &sim->ps, &sim->in, &sim->st, &sim->out,
                               &sim->summary, save_loop, load_loop, sim};
}

seam_sim *seam_sim_new(seam_doc *doc, const seam_run_options *opts)
{
    seam_blas_serial();   /* the same bits with any thread count (docs/scenes.md, "Threads") */
    seam_threads_tick();  /* set-up on the policy's count too: one thread until a window is measured */
    seam_sim *sim = SEAM_NEW(seam_sim);
    if (opts)
        sim->opts = *opts;
    sim->log = (coupler_log){sim->opts.log ? sim->opts.log : discard_log, sim->opts.log_ctx, 0};
    scene_init(&sim->scene, doc, &sim->opts, &sim->log);
    const char *origin = seam_doc_origin(doc);
    if (!json_is_object(seam_doc_root(doc))) {
        /* Every key of a scene lives in one object: naming each missing one would bury the cause. */
        static const char *const types[] = {"an object", "an array", "a string", "an integer", "a real number",
                                            "true", "false", "null"};
        sim_log(&sim->log, SEAM_LOG_ERROR, NULL, "%s: a scene is a JSON object ({\"time\": ..., ...}), got %s", origin,
                types[json_typeof(seam_doc_root(doc))]);
        seam_sim_destroy(&sim);
        return NULL;
    }
    seam_cfg *root = seam_cfg_new(seam_doc_root(doc), "", doc, cfg_report, sim);
    if (!root) {
        sim_log(&sim->log, SEAM_LOG_ERROR, NULL, "out of memory");
        seam_sim_destroy(&sim);
        return NULL;
    }
    scene_read(&sim->scene, root, &sim->ps, &sim->out);
    seam_cfg_finish(root);
    seam_cfg_destroy(&root);
    connect_parts(sim);
    /* Create every participant whose library loaded, even after errors in
     * the scene, so one validation reports the plugins' problems too. The
     * servers of those in other processes started while the scene was read:
     * the ones in this process are created first, while they start. */
    participants_create(&sim->ps, sim->out.dir);
    bool ok = sim->log.errors == 0 && sim->st.ops->setup(&sim->st);
    sim->out.bpp = sim->st.bpp;
    ok = ok && outputs_check_picture(&sim->out) && probes_check(&sim->ps, &sim->in, &sim->out.probes) &&
         check_step_limit(sim) && checkpoint_check(&sim->ck);
    if (!ok) {
        seam_sim_destroy(&sim);
        return NULL;
    }
    sim->pstats = SEAM_NEW_N(seam_participant_stats, sim->ps.n_parts);
    sim->summary.n_participants = sim->ps.n_parts;
    sim->summary.participants = sim->pstats;
    sim->dt_cap = INFINITY;
    sim->dt_wait = DT_WAIT;
    return sim;
}

void seam_sim_destroy(seam_sim **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_sim *sim = *self_p;
    participants_free(&sim->ps);
    stepper_free(&sim->st);
    outputs_close(&sim->out);
    interface_free(&sim->in);
    scene_free(&sim->scene);
    free(sim->pstats);
    free(sim);
    *self_p = NULL;
}

/* The step size: the smallest any participant allows, no more than the
 * last stable one (dt_cap), landing on the end time. */
static double choose_dt(seam_sim *sim, double t)
{
    double dt = participants_max_dt(&sim->ps, sim->scene.dt_max, sim->scene.dt_min, sim->summary.steps, t);
    if (isnan(dt))
        return NAN;
    if (sim->dt_cap >= sim->scene.dt_max)   /* grown back to the scene's time.dt */
        sim->dt_cap = INFINITY;
    sim->dt_at_cap = sim->dt_cap < dt;
    dt = fmin(dt, sim->dt_cap);
    double left = sim->scene.t_end - t;
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

static bool learn_unstable(seam_sim *sim);
static void remember_unstable(seam_sim *sim, double dt);

/* One step, retried with half the step while a participant says it is
 * unstable, or (on_nonconvergence "retry") while it ends badly unconverged
 * and half the step is no less than time.dt_min. */
static seam_status advance(seam_sim *sim, double t, double *dt, seam_verdict *verdict)
{
    bool first = true, learn = true;
    for (;;) {
        participants_begin_attempt(&sim->ps);   /* the cause quoted below is this attempt's */
        seam_status st = sim->st.ops->attempt(&sim->st, sim->summary.steps, t, *dt, verdict);
        if (st == SEAM_OK && *verdict == SEAM_EXHAUSTED && sim->scene.retry_unconverged && *dt / 2 >= sim->scene.dt_min) {
            double ratio = worst_ratio(&sim->st.conv);
            if (ratio > RETRY_ABOVE) {
                *dt /= 2;
                sim->summary.retries++;
                sim_log(&sim->log, SEAM_LOG_WARN, NULL, "step %ld (t = %.9g s) not converged after %d iterations, %.3g times "
                        "its tolerance (residual %.3g m): retrying with dt = %.3g s", sim->summary.steps, t,
                        sim->st.ops->iterations(&sim->st), ratio, sim->st.coupling.residual, *dt);
                continue;
            }
        }
        if (st != SEAM_UNSTABLE)
            return st;
        if (*dt / 2 < sim->scene.dt_min) {
            /* the participant that refused the step, and why (its last warning) */
            const participant *pt = sim->ps.unstable;
            sim_log(&sim->log, SEAM_LOG_ERROR, pt ? pt->name : NULL, "step %ld (t = %.9g s) is unstable even at dt = %.3g s "
                    "(time.dt_min = %.3g s)%s%s", sim->summary.steps, t, *dt, sim->scene.dt_min,
                    pt && *pt->last_warning ? ": " : "", pt ? pt->last_warning : "");
            return SEAM_ERROR;
        }
        *dt /= 2;
        sim->summary.retries++;
        if (first)
            learn = learn_unstable(sim);
        if (learn)
            remember_unstable(sim, *dt);
        first = false;
        sim_log(&sim->log, SEAM_LOG_WARN, NULL, "retrying step %ld with dt = %.3g s", sim->summary.steps, *dt);
    }
}

/* A step's first refusal: whether its smaller dt is worth remembering. A
 * cap that was stable and is refused now is no limit of the participant's
 * to learn (some refuse small steps as well as large ones: solid_rigid's
 * torque iteration), so it is forgotten and the next step tries the full
 * dt again, as the retries of this one are not remembered. */
static bool learn_unstable(seam_sim *sim)
{
    if (!sim->dt_at_cap || sim->dt_grown)
        return true;
    sim->dt_cap = INFINITY;
    sim->dt_wait = DT_WAIT;
    sim->dt_stable_steps = 0;
    return false;
}

/* A step was unstable, to be retried at dt: the later steps start from dt
 * too; a doubled cap that failed waits twice as long to double again. */
static void remember_unstable(seam_sim *sim, double dt)
{
    if (sim->dt_grown)
        sim->dt_wait = sim->dt_wait > DT_WAIT_MAX / 2 ? DT_WAIT_MAX : 2 * sim->dt_wait;
    sim->dt_grown = false;
    sim->dt_cap = dt;
    sim->dt_stable_steps = 0;
}

/* A step was committed: after dt_wait stable steps in a row the cap
 * doubles (choose_dt drops it once it reaches time.dt). */
static void remember_stable(seam_sim *sim)
{
    if (sim->dt_grown)
        sim->dt_wait = DT_WAIT;
    sim->dt_grown = false;
    if (isinf(sim->dt_cap) || ++sim->dt_stable_steps < sim->dt_wait)
        return;
    sim->dt_cap *= 2;
    sim->dt_stable_steps = 0;
    sim->dt_grown = true;
}

/* What the verdict means for the run: SEAM_OK to commit, else an error said. */
static seam_status accept_verdict(seam_sim *sim, double t, seam_verdict verdict, int iterations)
{
    long step = sim->summary.steps;
    const seam_coupling *c = &sim->st.coupling;
    if (verdict == SEAM_DIVERGED) {
        sim->diverged = true;
        sim_log(&sim->log, SEAM_LOG_ERROR, NULL, "scheme %s diverged at step %ld (t = %.9g s): residual %.3g m after %d iterations (first %.3g m)",
                sim->st.scheme->name, step, t, c->residual, iterations, c->first_residual);
        return SEAM_ERROR;
    }
    if (verdict != SEAM_EXHAUSTED)
        return SEAM_OK;
    char measures[512];
    seam_convergence_describe(&sim->st.conv, measures, sizeof measures);
    if (sim->scene.fail_unconverged) {
        sim_log(&sim->log, SEAM_LOG_ERROR, NULL, "not converged at step %ld (t = %.9g s) after %d iterations: residual %.3g m; needed %s",
                step, t, iterations, c->residual, measures);
        return SEAM_ERROR;
    }
    sim->summary.not_converged++;
    sim_log(&sim->log, SEAM_LOG_WARN, NULL, "not converged at step %ld (t = %.9g s) after %d iterations: residual %.3g m (needed %s); committing anyway",
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
/* Slower growth of a sawtooth: the fastest point reversing its motion in
 * every step, a period of 2 dt that no step resolves (explicit coupling just
 * past its added-mass limit grows so by 1.01x a step), stops the run once
 * it did so SAWTOOTH_STEPS steps in a row and its speed doubled since the
 * first of them. A physical motion resolved by the steps does not reverse
 * in each; a damped numerical one does not grow. */
#define SAWTOOTH_STEPS 20
#define SAWTOOTH_GROWTH 2.0

/* Whether the motion of point i in the last step reversed the one of the step before. */
static bool reversed(const sim_interface *in, size_t i)
{
    const double *x = in->Xn + i * (size_t)in->dim, *x1 = in->Xpast[0] + i * (size_t)in->dim,
                 *x2 = in->Xpast[1] + i * (size_t)in->dim;
    double dot = 0.0;
    for (int d = 0; d < in->dim; d++)
        dot += (x[d] - x1[d]) * (x1[d] - x2[d]);
    return dot < 0.0;
}

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
    bool moving = speed * dt > 1e-6 * sim->st.conv.reference;
    bool faster = moving && speed > GROWTH * sim->last_speed;
    sim->speed_growth = faster ? sim->speed_growth + 1 : 0;
    bool saw = moving && reversed(in, worst);
    if (saw && sim->sawtooth_steps == 0)
        sim->sawtooth_from = speed;
    sim->sawtooth_steps = saw ? sim->sawtooth_steps + 1 : 0;
    sim->last_speed = speed;
    double r = sim->st.coupling.residual;
    bool worse = !converged && r > GROWTH * sim->last_residual;
    sim->residual_growth = worse ? sim->residual_growth + 1 : 0;
    sim->last_residual = converged ? 0.0 : r;
    const char *who = NULL;
    for (size_t s = sim->ps.first_solid; s < sim->ps.n_parts; s++)
        if (worst >= sim->ps.parts[s].offset && worst < sim->ps.parts[s].offset + sim->ps.parts[s].n_points)
            who = sim->ps.parts[s].name;
    if (sim->speed_growth >= GROWTH_STEPS) {
        sim_log(&sim->log, SEAM_LOG_ERROR, who, "scheme %s diverged across steps: the interface sped up more than %gx in "
                "each of the last %d steps, to %.3g m/s at its point %zu at step %ld (t = %.9g s); a stronger "
                "scheme or a smaller time.dt is needed", sim->st.scheme->name, GROWTH, GROWTH_STEPS, speed, worst,
                sim->summary.steps - 1, t);
        return true;
    }
    /* while it also speeds up 1.5x a step, the rule above names it (and stops it as soon) */
    if (sim->sawtooth_steps >= SAWTOOTH_STEPS && !faster && speed >= SAWTOOTH_GROWTH * sim->sawtooth_from) {
        sim_log(&sim->log, SEAM_LOG_ERROR, who, "scheme %s diverged across steps: the interface oscillates at the "
                "step's own period (its fastest point reversed its motion in each of the last %d steps) and that "
                "oscillation grew %.3gx, to %.3g m/s at its point %zu at step %ld (t = %.9g s); a stronger scheme or "
                "a smaller time.dt is needed", sim->st.scheme->name, sim->sawtooth_steps, speed / sim->sawtooth_from,
                speed, worst, sim->summary.steps - 1, t);
        return true;
    }
    if (sim->residual_growth >= GROWTH_STEPS) {
        sim_log(&sim->log, SEAM_LOG_ERROR, NULL, "scheme %s diverged across steps: the unconverged residual grew more "
                "than %gx in each of the last %d steps, to %.3g m at step %ld (t = %.9g s)", sim->st.scheme->name,
                GROWTH, GROWTH_STEPS, r, sim->summary.steps - 1, t);
        return true;
    }
    return false;
}

/* What the step's last judgement held residuals.csv's two measures to, for
 * the report's tolerance lines (none for a coupled plugin or explicit
 * coupling, which no measure stops). */
static void step_goals(const seam_convergence *cv, bool unjudged, sim_step_record *rec)
{
    rec->residual_goal = rec->load_goal = NAN;
    for (size_t i = cv->count; i-- > 0 && !unjudged;) {   /* the first of each quantity wins */
        if (cv->measures[i].quantity == SEAM_QTY_POSITIONS)
            rec->residual_goal = cv->goal[i];
        else
            rec->load_goal = cv->goal[i];
    }
}

static void progress(seam_sim *sim, double t, double t_begin, int iterations, double t_start, bool final)
{
    if (!sim->opts.progress)
        return;
    seam_progress p = {t, sim->scene.t_end, sim->summary.steps, iterations, sim_now() - t_start, final, sim->in.dt_past[0],
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
    if (sim->opts.resume ? checkpoint_restore(&sim->ck, &t, &wall_before) != SEAM_OK : outputs_open(&sim->out) != SEAM_OK) {
        for (size_t i = 0; i < sim->ps.n_parts; i++)   /* for the summary of the run that did not start */
            sim->pstats[i] = sim->ps.parts[i].stats;
        return SEAM_ERROR;
    }
    const double t_begin = t;
    long checkpoint_step = sim->summary.steps;
    double checkpoint_time = t_start;
    bool checkpoints = sim->out.checkpoint_steps > 0 || sim->out.checkpoint_seconds > 0;
    seam_status result = SEAM_OK;
    bool interrupted = false;
    while (t < sim->scene.t_end * (1.0 - 1e-12) && (sim->opts.max_steps <= 0 || sim->summary.steps < sim->opts.max_steps)) {
        if (sim->opts.stop && *sim->opts.stop) {
            interrupted = true;
            break;
        }
        double dt = choose_dt(sim, t);
        if (isnan(dt)) {
            result = SEAM_ERROR;
            break;
        }
        double step_t0 = sim_now(), solvers0 = participants_seconds(&sim->ps);
        double fluid0 = sim->ps.fluid ? sim->ps.fluid->stats.seconds : 0.0;
        seam_verdict verdict;
        int errors = sim->log.errors;
        if (advance(sim, t, &dt, &verdict) != SEAM_OK) {
            if (sim->log.errors == errors)   /* a scheme's failure: its warning said why */
                sim_log(&sim->log, SEAM_LOG_ERROR, NULL, "step %ld (t = %.9g s) failed in scheme %s", sim->summary.steps, t,
                        sim->st.scheme ? sim->st.scheme->name : sim->st.ops->name);
            result = SEAM_ERROR;
            break;
        }
        int iterations = sim->st.ops->iterations(&sim->st);
        if (accept_verdict(sim, t, verdict, iterations) != SEAM_OK) {
            result = SEAM_ERROR;
            break;
        }
        if ((result = participants_commit(&sim->ps, sim->summary.steps)) != SEAM_OK)
            break;
        if ((result = sim->st.ops->accept(&sim->st, sim->summary.steps, dt)) != SEAM_OK)
            break;
        t += dt;
        remember_stable(sim);
        double all_solvers = participants_seconds(&sim->ps) - solvers0;
        double fluid_s = sim->ps.fluid ? sim->ps.fluid->stats.seconds - fluid0 : all_solvers;
        double coupler_s = fmax(0.0, sim_now() - step_t0 - all_solvers);
        sim_step_record rec = {sim->summary.steps, t, dt, iterations, sim->ps.coupled ? 0.0 : sim->st.coupling.residual,
                               verdict == SEAM_CONVERGED, fluid_s, all_solvers - fluid_s, coupler_s, {0}, NAN, NAN};
        stepper_report(&sim->st, &rec.scheme);
        step_goals(&sim->st.conv, sim->ps.coupled || !sim->st.scheme->iterates, &rec);
        sim->summary.steps++;
        sim->summary.t = t;
        sim->summary.iterations += iterations;
        if (iterations > sim->summary.max_iterations)
            sim->summary.max_iterations = iterations;
        sim->summary.coupler_s += coupler_s;
        if (outputs_step(&sim->out, &rec) != SEAM_OK) {
            result = SEAM_ERROR;
            break;
        }
        if (!sim->ps.coupled && diverging_across_steps(sim, t, dt, verdict == SEAM_CONVERGED)) {
            sim->diverged = true;
            result = SEAM_ERROR;
            break;
        }
        sim->last_iterations = iterations;
        if (checkpoints && checkpoint_due(&sim->ck, checkpoint_time)) {
            if (checkpoint_write(&sim->ck, t, wall_before + sim_now() - t_start) != SEAM_OK) {
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
        checkpoint_write(&sim->ck, t, wall_before + sim_now() - t_start) != SEAM_OK)
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
    for (size_t i = 0; i < sim->ps.n_parts; i++)
        sim->pstats[i] = sim->ps.parts[i].stats;
    /* the failed step's residuals (why it failed), the summary and the report: a run whose files are not all
     * written has failed, whatever its steps did */
    seam_status written = outputs_flush(&sim->out);
    if (outputs_finish(&sim->out) != SEAM_OK || written != SEAM_OK) {
        if (sim->summary.outcome == SEAM_RUN_CONVERGED || sim->summary.outcome == SEAM_RUN_UNCONVERGED)
            sim->summary.outcome = SEAM_RUN_ERROR;
        result = SEAM_ERROR;
    }
    if (result == SEAM_OK)
        checkpoint_discard(&sim->ck);
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
const char *seam_sim_description(const seam_sim *self) { return self->scene.description; }

const double *seam_sim_interface(const seam_sim *self, size_t *n, int *dim)
{
    *n = self->in.n_points;
    *dim = self->in.dim;
    return self->in.Xn;
}

void seam_sim_describe(const seam_sim *self, char *buf, size_t n)
{
    int len = 0;
    for (size_t i = 0; i < self->ps.n_parts && len >= 0 && (size_t)len < n; i++) {
        const participant *pt = &self->ps.parts[i];
        len += snprintf(buf + len, n - (size_t)len, "%s%s %s (%s)", i ? ", " : "", seam_role_name(pt->role),
                        pt->name, pt->p->name);
    }
    if (!self->ps.coupled && len >= 0 && (size_t)len < n) {
        char measures[512];
        seam_convergence_describe(&self->st.conv, measures, sizeof measures);
        snprintf(buf + len, n - (size_t)len, "; scheme %s; interface %zu points (dim %d); converged when %s",
                 self->st.scheme->name, self->in.n_points, self->in.dim, measures);
    }
}

void seam_sim_print_summary(const seam_sim *self, FILE *out)
{
    const seam_summary *s = &self->summary;
    fprintf(out, "outcome: %s\n", seam_outcome_name(s->outcome));
    fprintf(out, "steps: %ld to t = %.6g s in %.3f s wall\n", s->steps, s->t, s->wall_s);
    if (!self->ps.coupled)
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
