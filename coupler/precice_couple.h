/* A preCICE configuration's coupling, run on seam's schemes (no sockets).
 *
 * Every exchange of the configuration is one block of values on its mesh;
 * the blocks stack into the vectors a seam scheme iterates on:
 *   serial (first A, second B): X = the blocks B writes, F = the blocks A
 *     writes; fluid(X) hands A its reads and returns A's writes, solid(F)
 *     likewise for B, so the scheme's fixed point is r = S(F(X)) - X;
 *   parallel and multi: Z = every block; fluid is the identity (F = Z),
 *     solid(Z) hands every participant its reads and gathers all writes.
 * X and F are padded with zeros to one length n (schemes pair them).
 *
 * The participants are black boxes behind pcs_transport: a test answers
 * with analytic maps, the server (precice_serve.c) with the real programs.
 * Data a participant reads or writes on its own mesh is mapped at the
 * reader (read mappings) or the writer (write mappings) with
 * seam_meshmap_interpolation (consistent: u_to = M u_from; conservative:
 * u_to = M^T u_from with M built the other way).
 *
 * Waveforms: a writer's samples inside a window are kept; the scheme
 * iterates on the window-end values only, and a reader gets the samples
 * corrected by the end value's correction scaled with their relative time,
 * s(t) + (t / T) (x_end - s(T)), with the window's start value at t = 0. */
#ifndef SEAM_COUPLER_PRECICE_COUPLE_H
#define SEAM_COUPLER_PRECICE_COUPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "predict.h"
#include "scheme.h"
#include "seam/sparse.h"

/* Samples of one data on one mesh over a window: times relative to the
 * window's start (ascending), n values per sample. */
typedef struct pcs_samples {
    size_t n;                    /* values per sample (vertices x components) */
    size_t n_samples;
    double *times;               /* n_samples */
    double *values;              /* n_samples x n */
    size_t cap;                  /* samples there is room for */
} pcs_samples;

void pcs_samples_resize(pcs_samples *s, size_t n, size_t n_samples);
void pcs_samples_free(pcs_samples *s);

/* A mesh as its provider gave it. */
typedef struct pcs_mesh {
    bool known;
    int dim;
    size_t n;
    double *X;                   /* n x dim */
    int *edges, *triangles, *quads, *tetrahedra;
    size_t n_edges, n_triangles, n_quads, n_tetrahedra;
} pcs_mesh;

/* What one participant is handed before a solve and hands back after it. */
typedef struct pcs_port {
    pcs_samples *reads;          /* one per cfg reads[], on the read's mesh (all its vertices) */
    pcs_samples *writes;         /* one per cfg writes[], on the write's mesh */
    double time, window;         /* the window to solve: start and size (0 once the coupling ended) */
    bool ongoing, complete, write_checkpoint, read_checkpoint;
    long last_window;            /* the window of its last solve (-1: none yet) */
    int iterations;              /* solves in the current window */
    int *read_block, *read_map;  /* per read: the block it reads, the mapping (index into maps[p], -1: none) */
} pcs_port;

typedef struct pcs pcs;

#define PCS_PAST PREDICT_MAX_ORDER               /* the quartic predictor's past windows */

/* The participants, behind a table. solve: hand each of parts[0..n) its
 * port's reads and flags, and wait for each to fill its port's writes
 * (false: the run failed; message already in s via pcs_fail). finish: the
 * coupling ended (ports say ongoing false); may be NULL. */
typedef struct pcs_transport {
    bool (*solve)(void *ctx, pcs *s, const int *parts, size_t n);
    bool (*finish)(void *ctx, pcs *s);
} pcs_transport;

/* One exchange's values on its mesh. */
typedef struct pcs_block {
    int exchange, data, mesh, from, to;
    int components;
    size_t n;                    /* values: vertices x components */
    size_t offset;               /* into X, F or Z */
    bool in_x;                   /* serial: the second participant writes it */
    double *start;               /* at the window's start (the last window's end, or initial data) */
    double *end;                 /* handed to the reader now (what the scheme iterates) */
    pcs_samples raw;             /* the writer's samples this window (t > 0); n_samples 0: none yet */
    double weight;               /* preconditioner: the scheme sees weight x value (fixed within a window) */
    double res_norm;             /* ||x~ - x|| of the last iteration (unscaled; blocks the scheme iterates on) */
    double res_sum, prev_res_sum;   /* residual-sum preconditioner: this window's sum, the one the weight is from */
    int write_index, write_map;  /* the writer's write (cfg writes[]) and mapping (-1: none) */
} pcs_block;

/* A mapping of one participant, built once the meshes are known. */
typedef struct pcs_map {
    const pc_mapping *cfg;
    seam_csr *M;
} pcs_map;

struct pcs {
    const precice_config *cfg;
    const pc_scheme *sc;
    bool serial, implicit;
    pcs_mesh *meshes;            /* cfg->n_meshes */
    pcs_port *ports;             /* cfg->n_participants */
    pcs_map **maps;              /* per participant, its mappings (M NULL until built) */
    pcs_block *blocks;
    size_t n_blocks;
    size_t n_x, n_f, n;          /* serial: X and F lengths, n their max; parallel: n_x = n_f = n = |Z| */
    /* the predictor: the first iterate of a window extrapolated by the
     * polynomial through the accepted values of the last `predictor` windows
     * (0: none, the last window's values, as preCICE) */
    int predictor;
    double *past[PCS_PAST];      /* unscaled stacked values at the starts of past windows, newest first */
    double dt_past[PCS_PAST];
    int n_past;
    /* the run */
    const seam_scheme_ops *scheme;
    void *scheme_self;
    seam_coupling c;
    long window;                 /* index of the window under way */
    double time;
    double *measure_first;       /* residual-relative: each measure's residual at the window's first iteration */
    double *measure_value;       /* each measure's last residual norm (absolute) */
    double *measure_norm;        /* and the norm of the new values */
    int *measure_block;          /* each measure's block (-1: min-iterations) */
    int total_iterations;
    long unconverged;            /* windows accepted at max-iterations without convergence (preCICE's rule) */
    int last_iterations;         /* of the last accepted window */
    bool last_converged;
    const pcs_transport *io;
    void *io_ctx;
    char error[1024];            /* the first failure */
    /* outputs (may be NULL) */
    FILE **iterations_logs;      /* per participant (NULL: none) */
    FILE *convergence_log;
    FILE *stats_csv, *residuals_csv;   /* seam's own: step,t,dt,iterations,converged; step,iteration,residual */
    double residual;             /* ||x~ - x|| of the last iteration over every iterated block (unscaled) */
    void (*on_window)(void *ctx, pcs *s);   /* after a window was accepted */
    void *on_window_ctx;
};

/* Set up from a loaded configuration (kept borrowed). False with a message
 * in err when the configuration asks what this coupling cannot honour
 * ("FILE:LINE: <element>: why"). */
bool pcs_init(pcs *s, const precice_config *cfg, char *err, size_t errlen);
void pcs_fini(pcs *s);

/* The coupling scheme as a seam scheme's `coupling` object: a JSON text,
 * {"scheme": ..., its keys}, from the acceleration element (for --set to
 * override). False with "FILE:LINE: <element>: why" when there is none seam has. */
bool pcs_coupling_json(const precice_config *cfg, char *json, size_t n, char *err, size_t errlen);

/* The coupling object's keys of the coupling itself (not the scheme's):
 * predictor ("none", "linear", "quadratic", "cubic", "quartic"; none
 * unless given). Errors go through the reader. */
void pcs_read(pcs *s, seam_cfg *coupling);

/* Every mesh known (pcs_mesh filled by the caller): build the mappings
 * and size the blocks. False with a message in err. */
bool pcs_build(pcs *s, char *err, size_t errlen);
/* Initial data written by participant p (its write index wi) at initialize:
 * mapped like a write, it becomes the first window's start and predicted value. */
void pcs_initial_data(pcs *s, int p, size_t wi, const double *values);

/* Run every window to the end with the named seam scheme (already created
 * from the coupling object). False with the failure in s->error. */
bool pcs_run(pcs *s, const seam_scheme_ops *scheme, void *scheme_self, const pcs_transport *io, void *io_ctx);

/* Record the run's failure (the first one wins); the window and iteration are added. */
void pcs_fail(pcs *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value participant p reads with its read r at the window's start (the
 * accepted values, mapped to its mesh), into out (reads[r].n values). */
void pcs_read_start(pcs *s, int p, size_t r, double *out);

/* Index of the mesh's read (cfg reads[]) of participant p, -1 when none. */
int pcs_read_index(const pcs *s, int p, int data, int mesh);

/* The number of windows the configuration asks for, and the size of window w starting at t. */
double pcs_window_size(const pcs *s, double t);

#endif
