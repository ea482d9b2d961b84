/* Reading JSON configuration with precise errors.
 *
 * seam_doc holds a parsed JSON document together with the position of every
 * key in its source text, so an error can name file, line and column.
 * seam_cfg reads one JSON object of a document: each getter marks its key as
 * known and validates type and range; seam_cfg_finish then refuses every key
 * that nobody asked for, suggesting the nearest known one. Scene files and
 * plugin configurations use the same reader, so messages look alike:
 *
 *     scene.json:14:21: coupling.relaxation: expected a number in [1e-16, 1], got 1.5
 *     scene.json:9:5: coupling.tolerence: unknown key (did you mean "tolerance"?)
 */
#ifndef SEAM_CONFIG_H
#define SEAM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "seam/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- documents -------------------------------------------------------- */

typedef struct seam_doc seam_doc;

/* Parse text; `origin` names it in messages (a file path, "--config").
 * On failure returns NULL and writes "origin:line:col: message" to err. */
seam_doc *seam_doc_parse(const char *text, const char *origin, char *err, size_t errlen);
/* Read and parse a file. */
seam_doc *seam_doc_load(const char *path, char *err, size_t errlen);
void seam_doc_destroy(seam_doc **self_p);
json_t *seam_doc_root(const seam_doc *self);      /* borrowed */
const char *seam_doc_origin(const seam_doc *self);
/* Apply "key.path=VALUE" (also "a[0].b" or "a.0.b"). VALUE is parsed as JSON
 * when it is valid JSON, else taken as a string. Missing objects on the way
 * are created. SEAM_OK, or SEAM_ERROR with a message in err. */
seam_status seam_doc_set(seam_doc *self, const char *assignment, char *err, size_t errlen);
/* Where a key path was written: "file:line:col", "--set key" for an override;
 * for a key the file does not hold, where its nearest written ancestor is
 * (seam_key_path_parent), else (a top-level key) the origin alone. Valid until the next call. */
const char *seam_doc_locate(seam_doc *self, const char *key_path);
/* The length of the parent of the key path made of the first `len` bytes of
 * `path`: "fluid.liquid[2]" -> "fluid.liquid" -> "fluid" -> "" (0; also for ""). */
size_t seam_key_path_parent(const char *path, size_t len);

/* ---- readers ---------------------------------------------------------- */

typedef struct seam_cfg seam_cfg;

/* Receives each error: where ("file:line:col" or NULL), the full key path,
 * and the message. */
typedef void (*seam_cfg_report)(void *ctx, const char *where, const char *key_path,
                                const char *message);

/* A reader over `obj` (an object; any other type is an error reported at
 * finish) whose keys are named `prefix.key`. `doc` may be NULL when
 * positions are unknown. */
seam_cfg *seam_cfg_new(json_t *obj, const char *prefix, seam_doc *doc,
                       seam_cfg_report report, void *report_ctx);
/* For plugins: parse the JSON text create() received; messages go through
 * host->log, located with host->config_path and host->locate. On a parse
 * error, logs and returns NULL. */
seam_cfg *seam_cfg_from_host(const char *config_json, const seam_host *host);
void seam_cfg_destroy(seam_cfg **self_p);

enum {
    SEAM_CFG_REQUIRED = 1u << 0,  /* absent is an error */
    SEAM_CFG_LO_OPEN = 1u << 1,   /* lower bound excluded */
    SEAM_CFG_HI_OPEN = 1u << 2,   /* upper bound excluded */
    /* In a declaration's ends: the key is an array (a position, a box, a
     * list of points) and the range holds for each of its numbers. */
    SEAM_RANGE_EACH = 1u << 3
};

/* ---- declared ranges ------------------------------------------------- */

/* A numeric key's accepted values, declared once in its plugin's (or the
 * coupler's) table: the reader of the key takes the declaration, not a range
 * of its own (seam_cfg_key), and the docs' key tables show it
 * (tests/docs/test_key_ranges.c checks that the two agree). Both ends are
 * finite: no key means every number (docs/scenes.md, "Limits"). */
typedef struct seam_range {
    const char *name;   /* the key in the table's object; "liquid.flip": key "flip" of the child "liquid" */
    bool integer;       /* a whole number */
    double lo, hi;      /* finite */
    unsigned ends;      /* SEAM_CFG_LO_OPEN, SEAM_CFG_HI_OPEN */
    const char *unit;   /* "m", "kg/m^3", "" for a plain number */
} seam_range;

/* The bounds the declarations share, each physical and generous: a value
 * past one is a typo or a unit slip, not a scene.
 * Lengths: a nanometre (below it a continuum holds no more) to 1000 km. */
#define SEAM_LENGTH_MIN 1e-9
#define SEAM_LENGTH_MAX 1e6
/* Durations: from a femtosecond (molecular vibrations: below any
 * continuum's time scale) to 1e9 s, some 30 years of simulated time. */
#define SEAM_TIME_MIN 1e-15
#define SEAM_TIME_MAX 1e9
/* Speeds: 1e4 m/s, past the speed of sound of every solid and liquid
 * (diamond 1.8e4 m/s along an axis is the one exception, not a flow). */
#define SEAM_SPEED_MAX 1e4
/* Densities (and a 2D scene's per unit depth, a shell's per area): graphene,
 * one atom thick, has 7.6e-7 kg/m^2; osmium, the densest material,
 * 22590 kg/m^3 (SEAM_DENSITY_MAX, below, leaves room for unit slips to be
 * named). */
#define SEAM_DENSITY_MIN 1e-9
/* Temperatures, K (or a smoke's temperature offset): the sun's surface is 5800 K. */
#define SEAM_TEMPERATURE_MAX 1e4
/* Gravity, m/s^2, the scene's and a plugin's own: |g| up to 1000 times the Earth's. */
#define SEAM_GRAVITY_MAX 1e4
/* Relative tolerances of an iterative solve: below double's epsilon
 * (2.2e-16) a residual cannot be measured. */
#define SEAM_TOLERANCE_MIN 1e-16
/* Iteration limits: 1e8 iterations of any solve is hours of a run. */
#define SEAM_ITERATIONS_MAX 1e8
/* Stiffnesses and moduli, Pa (N/m per unit depth for springs): diamond's
 * Young's modulus is 1.2e12 Pa. */
#define SEAM_MODULUS_MAX 1e13

/* A position, a box's corners, a point list: each coordinate within
 * SEAM_LENGTH_MAX of the origin (a declaration for seam_cfg_key_vec,
 * seam_cfg_key_numbers, seam_cfg_key_points). */
#define SEAM_COORDINATES(name) {name, false, -SEAM_LENGTH_MAX, SEAM_LENGTH_MAX, SEAM_RANGE_EACH, "m"}

/* The declarations of one object's keys, and where the docs list them. */
typedef struct seam_range_table {
    const char *plugin;   /* the plugin of the participants that hold the object; NULL: the scene's own keys */
    const char *path;     /* the object in the participant (or scene): "" itself, "sources[]" each source */
    const char *doc;      /* the docs page ("docs/fluid_mac.md") ... */
    const char *anchor;   /* ... and the start of the line its key table follows there: a heading
                           * ("## Configuration") or the sentence that introduces it */
    const seam_range *keys;
    size_t n;
} seam_range_table;

#define SEAM_RANGE_TABLE(plugin, path, doc, anchor, keys) \
    {plugin, path, doc, anchor, keys, sizeof(keys) / sizeof(keys)[0]}

/* The declaration named `name` in t; NULL when there is none. */
const seam_range *seam_range_find(const seam_range_table *t, const char *name);
/* "[1e-9, 1e6] m": the interval (shortest round-trip numbers, exponents as
 * 1e6) and the unit, as messages and the docs write it. */
void seam_range_describe(const seam_range *r, char *buf, size_t n);
/* Read t's key `name` (it must be declared there: an undeclared name is a
 * programming error and aborts with a message), refusing a value outside its
 * range with the key path, the value and the range with its unit. Returns
 * def when absent or refused. flags: SEAM_CFG_REQUIRED. */
double seam_cfg_key(seam_cfg *self, const seam_range_table *t, const char *name, double def, unsigned flags);
/* The same for a declaration with integer set. */
long seam_cfg_key_int(seam_cfg *self, const seam_range_table *t, const char *name, long def, unsigned flags);
/* Arrays of a declaration with SEAM_RANGE_EACH (these on a declaration
 * without it are a reader's bug, reported as one; seam_cfg_key reads a
 * number through either, for a key that is a number in 2D): as
 * seam_cfg_vec, seam_cfg_numbers and seam_cfg_points, each number in the
 * declared range, a refusal naming its item ("fluid.box[3]",
 * "bodies[0].vertices[2][1]"). out is left untouched, NULL returned, when
 * any is refused. */
bool seam_cfg_key_vec(seam_cfg *self, const seam_range_table *t, const char *name, double *out, size_t n,
                      unsigned flags);
double *seam_cfg_key_numbers(seam_cfg *self, const seam_range_table *t, const char *name, size_t *n, unsigned flags);
double *seam_cfg_key_points(seam_cfg *self, const seam_range_table *t, const char *name, int dim, size_t *n,
                            unsigned flags);

/* Getters return `def` when the key is absent or wrong (and record the error).
 * Every function here accepts a NULL reader (what seam_cfg_item or
 * seam_cfg_child return for a value that is not an object, after reporting
 * it) and then returns its default, so a bad item cannot crash a plugin. */
double seam_cfg_num(seam_cfg *self, const char *key, double def, double lo, double hi, unsigned flags);
/* The densest material there is (osmium) is 22590 kg/m^3: a density above
 * this in a scene is a typo or a unit slip (g/m^3, kg/mm^3). The same bound
 * holds for a 2D scene's per-unit-depth densities (kg/m^2: a 1 m deep slab)
 * and for shells' areal densities (kg/m^2, kg/m in 2D: a sheet 1 m thick). */
#define SEAM_DENSITY_MAX 1e6
/* A density in (0, SEAM_DENSITY_MAX]; units ("kg/m^3", "kg/m^2 per unit
 * depth") go into the message of a value out of range. */
double seam_cfg_density(seam_cfg *self, const char *key, double def, const char *units, unsigned flags);
long seam_cfg_int(seam_cfg *self, const char *key, long def, long lo, long hi, unsigned flags);
bool seam_cfg_bool(seam_cfg *self, const char *key, bool def, unsigned flags);
/* The string is owned by the document; valid while it lives. */
const char *seam_cfg_str(seam_cfg *self, const char *key, const char *def, unsigned flags);
/* Index into the NULL-terminated `names`, or def. */
int seam_cfg_enum(seam_cfg *self, const char *key, const char *const *names, int def, unsigned flags);
/* A file name: the string at key, made relative to the scene's directory
 * when it is relative (host->scene_dir for plugin readers, the document's
 * directory for scene readers; the working directory when neither is known).
 * Written to buf (size n); returns buf, or def (unresolved) when absent. */
const char *seam_cfg_file(seam_cfg *self, const char *key, const char *def, char *buf, size_t n, unsigned flags);
/* Exactly n numbers into out (left untouched when absent). Returns true when read. */
bool seam_cfg_vec(seam_cfg *self, const char *key, double *out, size_t n, unsigned flags);
/* A participant's gravity, for plugins (out: x y z, components past dim 0).
 * The scene's (host->gravity) when the host names one, else dflt (dim
 * numbers); the reader's own "gravity" key (dim numbers, |g| at most
 * SEAM_GRAVITY_MAX, as the scene's) wins over both, with a warning through
 * the host when it differs from the scene's. Returns true when the
 * configuration named it. */
bool seam_cfg_gravity(seam_cfg *self, const seam_host *host, int dim, const double *dflt, double out[3]);
/* Any number of numbers; malloc'ed array (caller frees) and its length in *n;
 * NULL when absent. */
double *seam_cfg_numbers(seam_cfg *self, const char *key, size_t *n, unsigned flags);
/* An array of points, each an array of dim numbers ([[x, y], ...] for dim 2):
 * malloc'ed, interleaved (n * dim, caller frees), the point count in *n;
 * NULL when absent or malformed (reported, naming the first bad item). */
double *seam_cfg_points(seam_cfg *self, const char *key, int dim, size_t *n, unsigned flags);
/* A child object; NULL when absent. Owned by self. */
seam_cfg *seam_cfg_child(seam_cfg *self, const char *key, unsigned flags);
/* An array of objects: its length (0 when absent) and its items (owned by self). */
size_t seam_cfg_count(seam_cfg *self, const char *key, unsigned flags);
seam_cfg *seam_cfg_item(seam_cfg *self, const char *key, size_t i);
/* Whether the key is present; marks it known. */
bool seam_cfg_has(seam_cfg *self, const char *key);
/* Mark a key known without reading it (it belongs to someone else). */
void seam_cfg_skip(seam_cfg *self, const char *key);
/* The raw value, borrowed; marks the key known. NULL when absent. */
json_t *seam_cfg_json(seam_cfg *self, const char *key);
/* The full key path of this reader ("solids[0]"), or of a key in it. */
const char *seam_cfg_path(const seam_cfg *self);
/* Report an error of the caller's own about `key` (NULL: the object itself). */
void seam_cfg_error(seam_cfg *self, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The memory a scene may ask of this machine, in bytes: its physical
 * memory (sysconf); 0 when the system does not tell. */
double seam_cfg_memory_limit(void);
/* Refuse `key` (NULL: the object itself), as seam_cfg_error does, when
 * `bytes`, a lower bound of what `what` needs ("1.5e9 particles"), is more
 * than seam_cfg_memory_limit(); true when it fits (or the limit is unknown).
 * Checked before the work and memory that grow with the size, so a scene
 * that cannot fit is refused at once. */
bool seam_cfg_check_memory(seam_cfg *self, const char *key, double bytes, const char *what);
/* Refuse unknown keys here and in every child, with suggestions. Returns
 * SEAM_OK when no error at all was recorded by this reader tree. */
seam_status seam_cfg_finish(seam_cfg *self);
int seam_cfg_error_count(const seam_cfg *self);

/* Levenshtein distance, for suggestions. */
size_t seam_edit_distance(const char *a, const char *b);

#ifdef __cplusplus
}
#endif

#endif
