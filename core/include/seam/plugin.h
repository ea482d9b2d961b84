/* seam plugin ABI.
 *
 * A plugin is a shared library that exports one symbol,
 *
 *     SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void);
 *
 * (declared below as seam_plugin_v1; the name stays for every ABI version)
 * returning a pointer to a static, immutable table. The coupler dlopens the
 * library, calls seam_plugin_v1 once, checks `abi`, `role` and that every
 * required function is present, and from then on talks to the solver only
 * through this table. The same table is served over the wire by seam-serve,
 * so a plugin cannot tell whether its coupler is local or remote.
 *
 * Versions (the rule of SQLite's iVersion): entries are only ever appended
 * to the table, and each appended group bumps SEAM_ABI_VERSION. A host
 * accepts every plugin whose `abi` lies in [SEAM_ABI_OLDEST,
 * SEAM_ABI_VERSION] and reads only the entries that the plugin's version
 * defines; the others count as absent (NULL). A plugin built against an
 * older header therefore keeps loading, in-process and over the protocol.
 * Version 2 was the last breaking revision (version 1 plugins are refused
 * with both version numbers). SEAM_PLUGIN_ENTRIES below lists every entry
 * with the version that introduced it; the loader, `seam info`, the remote
 * proxy, seam-serve and the Python client are all derived from that list.
 *
 * Conventions that hold for every function below:
 *  - Arrays are double, interleaved by point (x0 y0 [z0] x1 y1 ...), SI units.
 *    A 2D simulation is per unit depth: mass kg/m, force N/m.
 *  - Inputs are const and belong to the caller; they are valid only for the
 *    duration of the call (copy what you keep), except bind's interface,
 *    which stays valid until destroy.
 *  - Outputs the plugin hands out through pointers in a struct (describe,
 *    regions, save, field) belong to the plugin; they stay valid until the
 *    next call of the same function on the same instance, or destroy.
 *  - Output arrays of seam_output are the coupler's, sized as the struct
 *    says, and never alias an input; the plugin fills them.
 *  - Status: SEAM_OK on success; SEAM_ERROR for a failure the coupler cannot
 *    fix by itself (bad config, a broken mesh, a memory request the scene's
 *    sizes make too large), always after a message through host->log;
 *    SEAM_UNSTABLE when the step failed in a way a smaller dt may fix (CFL
 *    exceeded, NaN, Newton diverged). Plugins never exit the process and
 *    never write to stdout; the one exception is an allocation that fails,
 *    which aborts through seam/alloc.h (docs/errors.md).
 */
#ifndef SEAM_PLUGIN_H
#define SEAM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SEAM_ABI_VERSION 6u   /* this header */
#define SEAM_ABI_OLDEST 2u    /* the oldest version a host accepts */

/* Put before the entry function so it is exported even when the plugin is
 * built with -fvisibility=hidden (which every plugin should be). */
#if defined(_WIN32)
#define SEAM_PLUGIN_EXPORT __declspec(dllexport)
#else
#define SEAM_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

typedef enum seam_status {
    SEAM_OK = 0,
    SEAM_ERROR = 1,    /* give up: the message went through host->log */
    SEAM_UNSTABLE = 2  /* this step failed; retrying with a smaller dt may work */
} seam_status;

typedef enum seam_role {
    SEAM_FLUID = 1,    /* loads = F(X, V) */
    SEAM_SOLID = 2,    /* X, V = S(loads) */
    SEAM_COUPLED = 3   /* advances fluid and solid together (monolithic) */
} seam_role;

typedef enum seam_log_level {
    SEAM_LOG_DEBUG = 0,
    SEAM_LOG_INFO = 1,
    SEAM_LOG_WARN = 2,
    SEAM_LOG_ERROR = 3
} seam_log_level;

/* What the coupler hands every instance at create. Valid until destroy. */
typedef struct seam_host {
    uint32_t abi;                 /* SEAM_ABI_VERSION of the host */
    const char *name;             /* the participant's name in the scene ("fluid", "piston") */
    const char *config_path;      /* key path of its object in the scene ("solids[0]"), for messages */
    const char *output_dir;       /* the participant's directory in the run's output (`seam run` always gives
                                   * one, OUT/NAME; write_output names the directory to write each time);
                                   * NULL from a host without one (a server whose create had none) */
    void *ctx;                    /* passed back to the callbacks below */
    /* One line, no trailing newline; the host adds the participant's name. */
    void (*log)(void *ctx, seam_log_level level, const char *message);
    /* "scene.json:12:7" for a key path relative to the participant's object
     * ("mesh.size"), or NULL when unknown. The string is owned by the host and
     * valid until the next call. May be NULL itself. */
    const char *(*locate)(void *ctx, const char *key_path);
    /* Directory of the scene file: resolve relative file names in the
     * configuration (meshes, inputs) against it. NULL means the working directory. */
    const char *scene_dir;
    /* The fluid cell size the scene names (its top-level "cell_size", m), 0
     * when it names none: solids sample their coupling surfaces about this
     * far apart by default (Akbay 2.3.4: 1-1.5 dx), grid fluids may take it
     * as their dx. */
    double cell_size;
    /* The scene's gravity (m/s^2, x y z; z is 0 in 2D), the same for every
     * participant, or NULL when the host names none (a plugin then uses its
     * own default). A plugin whose configuration names its own gravity uses
     * that and says so with a warning through log. */
    const double *gravity;
    /* ABI 6 (read it only when abi >= 6; seam_host_vtk_format in seam/vtk.h
     * does): the files write_output makes, a seam_vtk_format (0 VTK XML with
     * Float64 values, 1 legacy ASCII, 2 VTK XML with Float32 values), from
     * the participant's "vtk" key or the run's output.vtk. */
    uint32_t vtk_format;
} seam_host;

/* The coupling surface, owned by the solids (Lagrangian). For one solid,
 * describe fills it with arrays the plugin owns. The coupler concatenates the
 * surfaces of all solids (point and element indices and body ids offset) and
 * hands the result to the fluid's bind. */
typedef struct seam_interface {
    int dim;                 /* components per point: 2 or 3 for surfaces, 1 for reduced models */
    size_t n_points;
    const double *X;         /* n_points*dim: positions in the committed state (m) */
    const double *mass;      /* n_points: lumped mass (kg, kg/m in 2D); may be NULL for reduced models */
    const int32_t *body;     /* n_points: body id, 0-based within this solid; may be NULL (all 0) */
    int nodes_per_elem;      /* 2 (segments, 2D), 3 (triangles, 3D), 0 (no elements) */
    size_t n_elems;
    const int32_t *elems;    /* n_elems*nodes_per_elem point indices */
    const uint8_t *two_sided;/* n_elems: 1 = thin shell (fluid on both sides), 0 = boundary of a
                                volume, oriented so the element normal points out of the solid.
                                In 2D the outward normal of segment (a, b) is (dy, -dx)/|ab|,
                                i.e. a volume's boundary runs counter-clockwise. */
    size_t n_bodies;         /* number of distinct body ids */
} seam_interface;

/* The step being taken. */
typedef struct seam_step {
    int64_t index;           /* 0 for the first step */
    double t;                /* time at the start of the step (s) */
    double dt;               /* step size (s) */
    int iteration;           /* solve call within the step, 0-based */
} seam_step;

/* What one solve reads, n points of dimension dim (a solid sees its own
 * points, the fluid sees all of them).
 *  fluid:  X, V  (F is NULL)
 *  solid:  F     (X and V are NULL)
 * X: positions at the end of the step (m). V: the coupler's effective
 * velocity (X - X^n)/dt (m/s), with the boundary pressure projection
 * projected onto the enclosed regions' constraints C V = q. F: loads on the points (N, N/m in 2D), the
 * time average over the step. */
typedef struct seam_input {
    size_t n;
    int dim;
    const double *X;
    const double *V;
    const double *F;
} seam_input;

/* What one solve writes, in arrays the coupler owns.
 *  fluid:  F     (X and V are NULL)
 *  solid:  X, V  (F is NULL)
 * A solid's V is the velocity of each interface point at the END of the
 * step (m/s), as its own time integrator has it (for backward Euler the new
 * velocity; for a rigid body v + omega x r at the new pose). It differs from
 * (X - X^n)/dt whenever the integrator is not a plain two-point difference;
 * the coupler keeps the committed V^n, offers it as a predictor
 * ("predictor": "velocity") and hands it to the boundary pressure
 * projection, which needs end-of-step velocities (Akbay eq. 4.8). */
typedef struct seam_output {
    size_t n;
    int dim;
    double *X;
    double *V;
    double *F;
} seam_output;

/* Enclosed fluid regions, for the boundary pressure projection (Akbay ch. 4).
 * Row r of C (c_r, length n_points*dim, row-major m x (n_points*dim)) maps
 * interface velocities to the rate of change of the region's volume: c_r . V
 * = dVol/dt contributed by the walls (Akbay eq. 4.9, area-weighted outward
 * normals of the region's solid faces distributed to points with W^T);
 * q[r] is the volume flux the fluid's own sources and kinematic walls push
 * into the region (m^3/s, m^2/s in 2D). M (optional, count x n like C,
 * NULL when not given) is the fluid mass behind each value of a row: the
 * dual cells of the region's wall faces mapped to the points with W^T, for
 * the fluid-momentum form of the projection (Akbay eqs. 2.10-2.13). The
 * host zeroes the struct before the call, so a plugin built before M
 * existed leaves it NULL. With the coupler's default `bpp.rows`
 * "geometric" (docs/coupling.md), C decides which interface elements bound
 * which region, and with which orientation (an element is taken when the
 * row at its points, along its normal, carries at least half of the area
 * its points stand for); the elements' own area vectors then replace the
 * row, so solids should describe their elements. Owned by the plugin. */
typedef struct seam_regions {
    size_t count;
    size_t n;                /* n_points*dim, the row length */
    const double *C;
    const double *q;
    const double *M;         /* optional fluid masses (kg, kg/m in 2D), count x n */
} seam_regions;

/* The rigid bodies among a solid's interface points (the bodies entry):
 * body b moves its points first[b] .. first[b] + count[b] - 1 (indices into
 * the solid's own describe arrays, whose body ids there all equal b) as one
 * rigid body, X_i = centre + R r_i with r_i fixed in the body. centre[b] (3
 * values, z 0 in 2D) is the body's reference point in the committed state,
 * its centre of mass, the point whose motion is its translation and about
 * which its rotation turns it; rotation[b] (9 values, row-major) the
 * committed rotation R from the body frame to the world (in 2D the rotation
 * about z, last row and column those of the identity). With them the
 * coupler can write any rigid motion of the points as the body's 3 (2D) or
 * 6 (3D) degrees of freedom and back (Akbay 2.3.4: the reduced model on a
 * rigid body's own coordinates). Owned by the plugin. */
typedef struct seam_bodies {
    size_t count;
    const double *centre;    /* count*3 (m) */
    const double *rotation;  /* count*9 */
    const int64_t *first;    /* count: first point of each body */
    const int64_t *points;   /* count: how many points each body moves */
} seam_bodies;

/* Opaque bytes, owned by the plugin. */
typedef struct seam_buffer {
    const void *data;
    size_t size;
} seam_buffer;

/* A sampled scalar field for pictures: nx*ny*nz values, x fastest, cell
 * centred, cell (i,j,k) at origin + (i+0.5, j+0.5, k+0.5)*dx. nz = 1 in 2D.
 * Owned by the plugin. */
typedef struct seam_raster {
    int nx, ny, nz;
    double origin[3];
    double dx;
    const double *data;
    const char *units;       /* "m/s", "Pa", ... may be NULL */
} seam_raster;

/* The configuration keys a plugin reads (the keys entry), so that a host
 * can check and forward them without knowing the plugin: key i is name[i],
 * a path in the participant's object ("coupling.sigma"), of type[i]
 * (SEAM_KEY_*), between lo[i] and hi[i] for numbers (-INFINITY, INFINITY:
 * unbounded; NAN for other types), one of choices[i] ("ic0|multigrid") for
 * SEAM_KEY_ENUM ("" otherwise), explained in one line by doc[i]. Owned by
 * the plugin (static data). */
enum { SEAM_KEY_NUMBER = 1, SEAM_KEY_INTEGER = 2, SEAM_KEY_BOOL = 3, SEAM_KEY_STRING = 4, SEAM_KEY_ENUM = 5 };
typedef struct seam_keys {
    size_t count;
    const char *const *name;
    const int32_t *type;
    const double *lo, *hi;
    const char *const *choices;
    const char *const *doc;
} seam_keys;

/* Capability flags (the capabilities entry). What a table's NULL entries
 * already say need not be repeated: a host derives SEAM_CAP_REGIONS,
 * SEAM_CAP_MOBILITY and SEAM_CAP_SAVE from the entries present when the
 * plugin has no capabilities entry, and clears a flag whose entry is NULL. */
enum {
    SEAM_CAP_LOADS_PRESSURE = 1u << 0, /* fluid: loads are the boundary integral of pressure (and viscous stress) */
    SEAM_CAP_LOADS_IMPULSE = 1u << 1,  /* fluid: loads are conservative impulses / dt (Akbay 2.4, eq. 2.8) */
    SEAM_CAP_RIGID = 1u << 2,          /* solid: every body it describes moves rigidly */
    SEAM_CAP_REGIONS = 1u << 3,        /* fluid: regions works for this instance */
    SEAM_CAP_MOBILITY = 1u << 4,       /* solid: mobility works for this instance */
    SEAM_CAP_SAVE = 1u << 5            /* save and load work for this instance */
};

struct seam_plugin;

/* What travels of each struct an entry hands over (PROTOCOL.md): the
 * remote proxy, seam-serve and the Python client encode and decode these
 * lists and nothing else. Each line is one member, its wire key the
 * member's name, in an order where every length a member needs comes
 * before it:
 *   F0(member, kind, flags, k)        a scalar (k 1), or an array of k values
 *   F1(member, kind, flags, k, a)     an array of k * a values
 *   F2(member, kind, flags, k, a, b)  an array of k * a * b values
 * where a and b are scalar members of the same struct. Flags: SEAM_W_OPT,
 * the array may be NULL (then absent on the wire), else it is there
 * whenever its length is not 0. */
enum {
    SEAM_W_INT = 1,    /* int, a MessagePack int */
    SEAM_W_SIZE = 2,   /* size_t, a uint */
    SEAM_W_F64S = 3,   /* const double *: bin of little-endian float64 */
    SEAM_W_I32S = 4,   /* const int32_t *: bin of little-endian int32 */
    SEAM_W_U8S = 5,    /* const uint8_t *: bin */
    SEAM_W_BYTES = 6,  /* const void * of a bytes, a travelling as the bin's size */
    SEAM_W_STRS = 7    /* const char *const *: an array of str */
};
enum { SEAM_W_OPT = 1 };
#define SEAM_SHAPE_seam_interface(F0, F1, F2)                 \
    F0(dim, SEAM_W_INT, 0, 1)                                   \
    F0(n_points, SEAM_W_SIZE, 0, 1)                             \
    F0(nodes_per_elem, SEAM_W_INT, 0, 1)                        \
    F0(n_elems, SEAM_W_SIZE, 0, 1)                              \
    F0(n_bodies, SEAM_W_SIZE, SEAM_W_OPT, 1)                    \
    F2(X, SEAM_W_F64S, 0, 1, n_points, dim)                     \
    F1(mass, SEAM_W_F64S, SEAM_W_OPT, 1, n_points)              \
    F1(body, SEAM_W_I32S, SEAM_W_OPT, 1, n_points)              \
    F2(elems, SEAM_W_I32S, 0, 1, n_elems, nodes_per_elem)       \
    F1(two_sided, SEAM_W_U8S, SEAM_W_OPT, 1, n_elems)
#define SEAM_SHAPE_seam_regions(F0, F1, F2)                   \
    F0(count, SEAM_W_SIZE, 0, 1)                                \
    F0(n, SEAM_W_SIZE, 0, 1)                                    \
    F2(C, SEAM_W_F64S, 0, 1, count, n)                          \
    F1(q, SEAM_W_F64S, 0, 1, count)                             \
    F2(M, SEAM_W_F64S, SEAM_W_OPT, 1, count, n)
#define SEAM_SHAPE_seam_buffer(F0, F1, F2)                    \
    F1(data, SEAM_W_BYTES, 0, 1, size)
#define SEAM_SHAPE_seam_keys(F0, F1, F2)                      \
    F0(count, SEAM_W_SIZE, 0, 1)                                \
    F1(name, SEAM_W_STRS, 0, 1, count)                          \
    F1(type, SEAM_W_I32S, 0, 1, count)                          \
    F1(lo, SEAM_W_F64S, 0, 1, count)                            \
    F1(hi, SEAM_W_F64S, 0, 1, count)                            \
    F1(choices, SEAM_W_STRS, 0, 1, count)                       \
    F1(doc, SEAM_W_STRS, 0, 1, count)

/* Every entry of the table after the four header fields, in table order:
 * ENTRY(name, abi that introduced it, who must provide it, shape). "need" is
 * SEAM_NEED_ALL (every plugin), SEAM_NEED_SOLID, SEAM_NEED_FLUID or
 * SEAM_NEED_NONE (optional). Appended entries go at the end, with the new
 * version number.
 *
 * The shape says what travels over the wire (PROTOCOL.md) for the remote
 * proxy (protocol/remote.c), seam-serve (protocol/session.c) and the Python
 * client (protocol/python), which derive their calls from it:
 *   SEAM_SHAPE(receiver, params...) with receiver SEAM_READS (a call that
 *   leaves the committed state as it is) or SEAM_CHANGES (one that replaces
 *   it), and after self each parameter of the C function, in order:
 *     (STEP)                   const seam_step *, as the map "step"
 *     (IN_F64S, key, n)        const double * of n values: a number, or
 *                              IFACE (points x dim of the interface)
 *     (OUT_F64S, key, n)       double * of n values the plugin fills
 *     (IN_STRUCT, type)        const type *, its members (SEAM_SHAPE_type)
 *                              as top-level keys
 *     (OUT_STRUCT, type)       type * the plugin fills, likewise
 *     (IN_BYTES, key)          const void *, size_t: one bin
 *     (IN_STR, key)            const char *
 *     (IN_PATH, key)           const char *, a path (made absolute when the
 *                              server runs in another directory)
 *     (IN_INDEX, key)          int, 0 or more
 *   SEAM_HAND: the entry's codec is written by hand (create, destroy and
 *   the entries whose replies the proxy caches or reshapes; protocol/remote.c). */
enum { SEAM_NEED_NONE = 0, SEAM_NEED_ALL = 1, SEAM_NEED_SOLID = 2, SEAM_NEED_FLUID = 3 };
#define SEAM_PLUGIN_ENTRIES(ENTRY)                                                                          \
    ENTRY(create, 2, SEAM_NEED_ALL, SEAM_HAND)                                                              \
    ENTRY(destroy, 2, SEAM_NEED_ALL, SEAM_HAND)                                                             \
    ENTRY(max_dt, 2, SEAM_NEED_ALL, SEAM_HAND)                                                              \
    ENTRY(solve, 2, SEAM_NEED_ALL, SEAM_HAND)                                                               \
    ENTRY(commit, 2, SEAM_NEED_ALL, SEAM_HAND)                                                              \
    ENTRY(describe, 2, SEAM_NEED_SOLID, SEAM_SHAPE(SEAM_READS, (OUT_STRUCT, seam_interface)))               \
    ENTRY(bind, 2, SEAM_NEED_FLUID, SEAM_SHAPE(SEAM_CHANGES, (IN_STRUCT, seam_interface)))                  \
    ENTRY(regions, 2, SEAM_NEED_NONE,                                                                       \
      SEAM_SHAPE(SEAM_READS, (STEP), (IN_F64S, X, IFACE), (OUT_STRUCT, seam_regions)))                  \
    ENTRY(mobility, 2, SEAM_NEED_NONE, SEAM_SHAPE(SEAM_READS, (IN_F64S, impulse, IFACE), (OUT_F64S, dv, IFACE))) \
    ENTRY(save, 2, SEAM_NEED_NONE, SEAM_SHAPE(SEAM_READS, (OUT_STRUCT, seam_buffer)))                       \
    ENTRY(load, 2, SEAM_NEED_NONE, SEAM_SHAPE(SEAM_CHANGES, (IN_BYTES, data)))                              \
    ENTRY(field, 2, SEAM_NEED_NONE, SEAM_HAND)                                                              \
    ENTRY(write_output, 2, SEAM_NEED_NONE, SEAM_SHAPE(SEAM_READS, (IN_PATH, dir), (IN_INDEX, frame)))       \
    ENTRY(capabilities, 3, SEAM_NEED_NONE, SEAM_HAND)                                                       \
    ENTRY(domain, 4, SEAM_NEED_NONE, SEAM_SHAPE(SEAM_READS, (OUT_F64S, lo, 3), (OUT_F64S, hi, 3)))          \
    ENTRY(bodies, 5, SEAM_NEED_NONE, SEAM_HAND)                                                         \
    ENTRY(keys, 6, SEAM_NEED_NONE, SEAM_SHAPE(SEAM_PLUGIN, (OUT_STRUCT, seam_keys)))

typedef struct seam_plugin {
    uint32_t abi;            /* SEAM_ABI_VERSION of the header it was built against */
    const char *name;        /* short identifier, equal to the library's file name without .so */
    seam_role role;
    const char *summary;     /* one line for `seam plugins` */

    /* ABI 2. Required for every role. ----------------------------------- */

    /* Build an instance from the participant's JSON object (the scene object
     * without the coupler's own keys "plugin", "name", "process", "connect",
     * ...). `plugin` is the table this function was reached through, so one
     * piece of code can serve several tables (the remote proxy does).
     * Unknown keys must be refused. Returns NULL after logging on failure. */
    void *(*create)(const struct seam_plugin *plugin, const char *config_json, const seam_host *host);
    /* Free everything. NULL self is allowed. */
    void (*destroy)(void *self);
    /* Stable step from the committed state into *dt (s); INFINITY when
     * unlimited. SEAM_ERROR (after a message) when it cannot tell, e.g. the
     * committed state holds a NaN. */
    seam_status (*max_dt)(void *self, double *dt);
    /* Advance from the committed state over step->dt with the given inputs.
     * A pure function of the committed state and `in`: called any number of
     * times per step (coupling iterations), each call starting again from the
     * committed state. Coupled plugins get in = out = NULL. */
    seam_status (*solve)(void *self, const seam_step *step, const seam_input *in, seam_output *out);
    /* Make the last solve the committed state. Called once per step. */
    seam_status (*commit)(void *self);

    /* ABI 2. Required by role. ------------------------------------------ */

    /* Solid: fill iface with its coupling surface in the committed state.
     * Called once after create; the coupler reads the arrays at once and
     * keeps its own copy. */
    seam_status (*describe)(void *self, seam_interface *iface);
    /* Fluid: the surfaces it meets (all solids, concatenated). Called once,
     * after create and before the first solve; the arrays are the coupler's
     * and valid until destroy. */
    seam_status (*bind)(void *self, const seam_interface *iface);

    /* ABI 2. Optional (NULL when not provided). ------------------------- */

    /* Fluid: the enclosed regions given end-of-step positions X. */
    seam_status (*regions)(void *self, const seam_step *step, const double *X, seam_regions *out);
    /* Solid: dv = M^-1 impulse at its interface points (both n_points*dim):
     * the velocity change an impulse pattern (N s) would cause, from the
     * committed state. */
    seam_status (*mobility)(void *self, const double *impulse, double *dv);
    /* Whole committed state to bytes and back (restart, rollback). */
    seam_status (*save)(void *self, seam_buffer *out);
    seam_status (*load)(void *self, const void *bytes, size_t n);
    /* A named field of the committed state ("speed", "pressure", ...). */
    seam_status (*field)(void *self, const char *name, seam_raster *out);
    /* Write the committed state for frame `frame` into directory dir
     * (exists: the coupler creates it; a plugin served on another host than
     * the coupler's gets the coupler's path, which may not exist there). */
    seam_status (*write_output)(void *self, const char *dir, int frame);

    /* ABI 3. Optional. -------------------------------------------------- */

    /* SEAM_CAP_* flags of this instance (they may depend on its
     * configuration, e.g. a fluid's load mode). */
    uint32_t (*capabilities)(void *self);

    /* ABI 4. Optional. -------------------------------------------------- */

    /* Fluid: the box it covers, lo and hi (m; x y z, z 0 in 2D). Interface
     * points outside it are beyond the fluid's reach: the coupler refuses a
     * scene whose solids start outside it and stops a run, naming the solid,
     * when one leaves it. Called once, before the fluid's bind, when the
     * interface has 2 or 3 values per point (a reduced one of 1 has no box). */
    seam_status (*domain)(void *self, double lo[3], double hi[3]);

    /* ABI 5. Optional. -------------------------------------------------- */

    /* Solid: the rigid bodies among its interface points and their
     * committed poses (seam_bodies). Called once, after the fluid's bind (when
     * the interface has 2 or 3 values per point); a solid
     * whose points move only as rigid bodies (SEAM_CAP_RIGID) should offer
     * it, so that the reduced model interface can work on each body's
     * degrees of freedom (docs/coupling.md, "rigid_dofs"). */
    seam_status (*bodies)(void *self, seam_bodies *out);

    /* ABI 6. Optional. -------------------------------------------------- */

    /* The keys its configuration reads (seam_keys), asked of the table
     * itself, before any create: the coupler forwards the scene's keys a
     * plugin declares instead of keeping a list of its own (the monolithic
     * plugin's "coupling" keys). */
    seam_status (*keys)(const struct seam_plugin *plugin, seam_keys *out);
} seam_plugin;

/* The one symbol a plugin exports, and its type. */
#define SEAM_PLUGIN_SYMBOL "seam_plugin_v1"
typedef const seam_plugin *(*seam_plugin_entry)(void);
SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void);

#ifdef __cplusplus
}
#endif

#endif
