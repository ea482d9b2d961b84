/* One preCICE participant inside libprecice: its meshes and data as the
 * configuration declares them, the time in the current window, and the
 * samples it writes and reads (private to precice/participant/). */
#ifndef SEAM_PRECICE_PARTICIPANT_H
#define SEAM_PRECICE_PARTICIPANT_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "link.h"
#include "waveform.h"

typedef struct int_list {
    int *v;
    size_t n, cap;
} int_list;

typedef struct pmesh {
    int mesh;                  /* index into the configuration's meshes */
    const char *name;
    int dim;
    bool provided;             /* else received from another participant */
    bool direct_access;
    bool has_region;
    double region[6];          /* xmin, xmax, ymin, ymax[, zmin, zmax] */
    double *coords;            /* n x dim */
    size_t n, cap;
    int *ids;                  /* received meshes: the coupler's ids, in its order */
    size_t *by_id;             /* received meshes: positions in ascending id order */
    int_list edges, triangles, quads, tetrahedra;
} pmesh;

typedef struct pdata {
    int data;                  /* index into the configuration's data */
    size_t mesh;               /* index into the participant's meshes */
    const char *name;
    int components;
    bool write;                /* else read */
    bool substeps;             /* write: keep every substep's sample */
    bool initial;              /* write: exchanged with initialize="true" */
    int degree;                /* read: the data's waveform-degree */
    double *values;            /* write: the current values, vertices x components */
    size_t n_values;
    size_t n_samples;          /* write: samples of this window */
    double *sample_times;
    double *sample_values;     /* n_samples x n_values */
    precice_waveform wave;     /* read: the samples of the window being solved */
} pdata;

typedef enum { PARTICIPANT_CREATED, PARTICIPANT_INITIALIZED, PARTICIPANT_FINALIZED } participant_state;

typedef struct participant {
    char *name;
    precice_config *config;
    int p;                     /* index into the configuration's participants */
    pmesh *meshes; size_t n_meshes;
    pdata *data; size_t n_data;
    participant_state state;
    double time;               /* the current window's start */
    double window;             /* its size */
    double t_in;               /* time solved inside it */
    bool ongoing, complete, write_checkpoint, read_checkpoint;
    int profiling_depth;
    precice_link *link;
} participant;

/* Every failure stops the program with preCICE's kind of message. */
_Noreturn void participant_fail(const participant *pt, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* participant.c: life cycle and the exchange with the coupler */
participant *participant_create(const char *name, const char *config_path, int rank, int size,
                                bool with_communicator);
void participant_initialize(participant *pt);
void participant_advance(participant *pt, double dt);
void participant_finalize(participant **pt_p);
double participant_max_time_step(const participant *pt);
bool participant_requires_initial_data(const participant *pt);

/* mesh.c: meshes, connectivity and data buffers */
void participant_build_meshes(participant *pt);
pmesh *participant_mesh(const participant *pt, const char *call, const char *mesh);
pmesh *participant_provided_mesh(const participant *pt, const char *call, const char *mesh);
pdata *participant_data(const participant *pt, const char *call, const char *mesh, const char *data,
                        bool write);
int participant_data_dimensions(const participant *pt, const char *call, const char *mesh,
                                const char *data);
bool participant_connectivity_required(const participant *pt, const pmesh *m);
int mesh_add_vertex(pmesh *m, const double *x);
void mesh_add_cells(const participant *pt, const char *call, pmesh *m, int_list *list, int per_cell,
                    const int *ids, size_t n_cells);
void mesh_index_received(pmesh *m);
size_t mesh_position(const participant *pt, const char *call, const pmesh *m, int id);
void data_write(const participant *pt, const char *call, pdata *d, const pmesh *m, size_t n,
                const int *ids, const double *values);
void data_read(const participant *pt, const char *call, const pdata *d, const pmesh *m, size_t n,
               const int *ids, double t, double *values);
void data_keep_sample(pdata *d, double t);
void participant_free_meshes(participant *pt);

#endif
