/* A preCICE (version 3) XML configuration, read once into plain arrays.
 *
 * The parser (precice/config.c, libxml2) keeps every element seam honours
 * and refuses at load, with "FILE:LINE: <element>: why", every element or
 * attribute it cannot honour (docs/precice-config.md lists both, and the
 * defaults the parser fills in). Elements that change nothing seam computes
 * (<log>, <profiling>, intra-comm, ...) are read and reported once each as a
 * warning, never dropped silently.
 *
 * Both sides use it: the participant library (precice/participant.c) for
 * the exchange directory and its own meshes and data, and the coupler
 * (coupler/precice_*.c) for everything. Indices refer into the arrays of
 * the same precice_config; -1 means "none". Every element keeps its source
 * line for later messages ("precice-config.xml:42: ...").
 */
#ifndef SEAM_PRECICE_CONFIG_H
#define SEAM_PRECICE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pc_data {
    char *name;
    int components;        /* 1 (data:scalar) or the dimension of the meshes using it (data:vector;
                              0 when no mesh uses it) */
    bool vector;
    int waveform_degree;   /* 0..3 (preCICE's default: 1) */
    int line;
} pc_data;

typedef struct pc_mesh {
    char *name;
    int dim;               /* 2 or 3 */
    int *use_data;         /* indices into data */
    size_t n_use_data;
    int line;
} pc_mesh;

typedef enum pc_map_method {
    PC_MAP_NEAREST_NEIGHBOR,
    PC_MAP_NEAREST_PROJECTION,
    PC_MAP_RBF                  /* every rbf-* element and mapping:rbf with a basis child */
} pc_map_method;

typedef enum pc_constraint {
    PC_CONSISTENT,
    PC_CONSERVATIVE,
    PC_SCALED_CONSISTENT_SURFACE,
    PC_SCALED_CONSISTENT_VOLUME
} pc_constraint;

typedef enum pc_rbf_basis {
    PC_RBF_COMPACT_POLYNOMIAL_C0,
    PC_RBF_COMPACT_POLYNOMIAL_C2,
    PC_RBF_COMPACT_POLYNOMIAL_C4,
    PC_RBF_COMPACT_POLYNOMIAL_C6,
    PC_RBF_COMPACT_POLYNOMIAL_C8,
    PC_RBF_COMPACT_TPS_C2,
    PC_RBF_THIN_PLATE_SPLINES,
    PC_RBF_GAUSSIAN,
    PC_RBF_MULTIQUADRICS,
    PC_RBF_INVERSE_MULTIQUADRICS,
    PC_RBF_VOLUME_SPLINES
} pc_rbf_basis;

typedef enum pc_rbf_polynomial { PC_POLY_SEPARATE, PC_POLY_ON, PC_POLY_OFF } pc_rbf_polynomial;

/* How the file asked for the RBF system to be solved: mapping:rbf (preCICE
 * picks), rbf-global-direct, or rbf-global-iterative (to solver_rtol). The
 * interpolant is the same; a direct solve meets any solver-rtol. */
typedef enum pc_rbf_solver { PC_RBF_AUTO, PC_RBF_GLOBAL_DIRECT, PC_RBF_GLOBAL_ITERATIVE } pc_rbf_solver;

typedef struct pc_mapping {
    pc_map_method method;
    bool write;                 /* direction="write" (else "read") */
    int from, to;               /* mesh indices */
    pc_constraint constraint;
    /* RBF only */
    pc_rbf_basis basis;
    double support_radius;      /* compact bases and gaussian (0: not given) */
    double shape_parameter;     /* gaussian, multiquadrics (0: not given) */
    pc_rbf_polynomial polynomial;
    bool dead[3];               /* x-dead, y-dead, z-dead */
    pc_rbf_solver solver;
    double solver_rtol;         /* rbf-global-iterative: 1e-9 unless given; else 0 */
    int line;
} pc_mapping;

typedef struct pc_watch_point {
    char *name;
    int mesh;
    double coordinate[3];
    int line;
} pc_watch_point;

typedef enum pc_export_kind { PC_EXPORT_VTK, PC_EXPORT_VTU, PC_EXPORT_VTP, PC_EXPORT_CSV } pc_export_kind;

typedef struct pc_export {
    pc_export_kind kind;
    char *directory;            /* as written; relative to the participant's working directory */
    int every_n_time_windows;   /* 1 unless given */
    bool every_iteration;
    int line;
} pc_export;

typedef struct pc_receive {
    int mesh, from;             /* mesh and the participant providing it */
    double safety_factor;       /* 0.5 unless given */
    bool direct_access;         /* api-access / direct-access="true" */
    int line;
} pc_receive;

typedef struct pc_data_use {   /* read-data or write-data */
    int data, mesh;
    int line;
} pc_data_use;

typedef struct pc_participant {
    char *name;
    int *provide;  size_t n_provide;           /* mesh indices */
    pc_receive *receive; size_t n_receive;
    pc_data_use *reads;  size_t n_reads;
    pc_data_use *writes; size_t n_writes;
    pc_mapping *mappings; size_t n_mappings;
    pc_watch_point *watch_points; size_t n_watch_points;
    pc_export *exports; size_t n_exports;
    int line;
} pc_participant;

typedef struct pc_m2n {
    int acceptor, connector;    /* participant indices */
    char *exchange_directory;   /* as written ("" unless given): relative to each participant's cwd */
    char *network;              /* "lo" unless given */
    int port;                   /* 0 unless given */
    int line;
} pc_m2n;

typedef struct pc_exchange {
    int data, mesh, from, to;
    bool initialize;
    bool substeps;              /* preCICE 3's default: true in implicit and multi schemes, false in explicit ones */
    int line;
} pc_exchange;

typedef enum pc_measure_kind {
    PC_MEASURE_ABSOLUTE,           /* |r|_2 < limit */
    PC_MEASURE_RELATIVE,           /* |r|_2 < limit |x_new|_2 */
    PC_MEASURE_RESIDUAL_RELATIVE,  /* |r|_2 < limit |r at the window's first iteration|_2 */
    PC_MEASURE_MIN_ITERATIONS      /* preCICE 2's min-iteration measure: never produced (preCICE 3
                                      has <min-iterations>, read into pc_scheme.min_iterations) */
} pc_measure_kind;

typedef struct pc_measure {
    pc_measure_kind kind;
    int data, mesh;             /* -1 for min-iterations */
    double limit;
    int min_iterations;
    bool strict, suffices;
    int line;
} pc_measure;

typedef enum pc_accel_kind {
    PC_ACCEL_NONE, PC_ACCEL_CONSTANT, PC_ACCEL_AITKEN, PC_ACCEL_IQN_ILS, PC_ACCEL_IQN_IMVJ
} pc_accel_kind;

typedef enum pc_filter {
    PC_FILTER_NONE, PC_FILTER_QR1, PC_FILTER_QR2, PC_FILTER_QR3,
    PC_FILTER_QR1_ABSOLUTE      /* QR1 with the absolute test |R(i,i)| < limit */
} pc_filter;

typedef enum pc_preconditioner {
    PC_PRECOND_NONE, PC_PRECOND_CONSTANT, PC_PRECOND_VALUE, PC_PRECOND_RESIDUAL, PC_PRECOND_RESIDUAL_SUM
} pc_preconditioner;

/* Every field holds preCICE's default where the file is silent (the
 * parser fills them in: docs/precice-config.md lists them). */
typedef struct pc_acceleration {
    pc_accel_kind kind;
    pc_data_use *data; size_t n_data;   /* <data name mesh/> children */
    double *scaling;            /* per data, its scaling attribute (1 unless given) */
    double relaxation;          /* constant: <relaxation value>; others: <initial-relaxation value>
                                   (aitken 0.5, IQN 0.1 unless given) */
    bool enforce_initial_relaxation;
    int max_used_iterations;    /* IQN-ILS 100, IQN-IMVJ 20 unless given; 0 otherwise */
    int time_windows_reused;    /* IQN-ILS 10, IQN-IMVJ 0 unless given; 0 otherwise */
    pc_filter filter;           /* IQN: QR3 unless given */
    double filter_limit;        /* IQN: 1e-2 without <filter>, 1e-16 with <filter> and no limit */
    pc_preconditioner preconditioner;   /* aitken and IQN: residual-sum unless given */
    bool preconditioner_update_on_threshold;    /* IQN: true unless given */
    int preconditioner_freeze_after;    /* -1: never; RS-SVD caps it at imvj_chunk_size, as preCICE does */
    bool reduced_time_grid;     /* IQN: only each window's last sample builds the Jacobian (true) */
    /* IQN-IMVJ */
    bool always_build_jacobian;
    char *imvj_restart_mode;    /* "no-restart", "RS-0", "RS-LS", "RS-SVD", "RS-SLIDE"; IMVJ unless given:
                                   "RS-SVD", or "no-restart" with always-build-jacobian; NULL for the others */
    int imvj_chunk_size;        /* 8 unless given */
    int imvj_reused_time_windows_at_restart;    /* RS-LS: 8 unless given */
    double imvj_truncation_threshold;           /* RS-SVD: 1e-4 unless given */
    int line;
} pc_acceleration;

typedef enum pc_scheme_kind {
    PC_SERIAL_EXPLICIT, PC_PARALLEL_EXPLICIT, PC_SERIAL_IMPLICIT, PC_PARALLEL_IMPLICIT, PC_MULTI
} pc_scheme_kind;

typedef struct pc_scheme {
    pc_scheme_kind kind;
    int first, second;          /* two-participant schemes (serial: first solves first) */
    int *participants; size_t n_participants;   /* all, in the file's order (first, second for two) */
    int controller;             /* multi: the participant with control="yes"; else -1 */
    double max_time;            /* -1: not given */
    long max_time_windows;      /* -1: not given */
    double window_size;         /* > 0 */
    int max_iterations;         /* implicit: -1 (no limit, as preCICE 3) unless given */
    int min_iterations;         /* 1 unless given */
    pc_exchange *exchanges; size_t n_exchanges;
    pc_measure *measures; size_t n_measures;
    pc_acceleration acceleration;   /* kind PC_ACCEL_NONE when absent */
    int line;
} pc_scheme;

typedef struct precice_config {
    char *path;                 /* as given */
    char *real_path;            /* realpath(), the key participants and the coupler agree on */
    pc_data *data; size_t n_data;
    pc_mesh *meshes; size_t n_meshes;
    pc_participant *participants; size_t n_participants;
    pc_m2n *m2n; size_t n_m2n;
    pc_scheme scheme;           /* exactly one coupling scheme (several are refused) */
} precice_config;

/* Read and check the file. NULL on any error, with "FILE:LINE: <element>:
 * message" in err (the first problem; every later one goes to warn when
 * given, so that a user sees them all at once). Warnings (elements read but changing nothing) go to warn, one
 * line each, when warn is not NULL. */
typedef void (*precice_config_warn)(void *ctx, const char *message);
precice_config *precice_config_load(const char *path, char *err, size_t errlen,
                                    precice_config_warn warn, void *warn_ctx);
void precice_config_destroy(precice_config **self_p);

/* Lookups by name; -1 when absent. */
int precice_config_participant(const precice_config *c, const char *name);
int precice_config_mesh(const precice_config *c, const char *name);
int precice_config_data(const precice_config *c, const char *name);

/* The exchange directory participant p uses (the first m2n naming it;
 * "" when none names it), as written in the file. */
const char *precice_config_exchange_directory(const precice_config *c, int p);

#endif
