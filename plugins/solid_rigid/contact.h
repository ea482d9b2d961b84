/* Contact between rigid bodies and with the walls of an axis-aligned box:
 * detection at a configuration, impulses with restitution and Coulomb
 * friction on the velocities, and position correction of what still overlaps.
 *
 * Detection tests the surface samples of a body (and the centre of a circle
 * or sphere) against the signed distance of the other shape, so circles,
 * convex and concave polygons, spheres, boxes and meshes all meet each other. */
#ifndef SEAM_RIGID_CONTACT_H
#define SEAM_RIGID_CONTACT_H

#include <stdbool.h>
#include <stddef.h>

#include "body.h"

typedef struct rigid_world {
    int dim;
    const rigid_body *bodies;
    size_t n_bodies;
    bool walls;
    double wmin[3], wmax[3];
    double wall_restitution, wall_friction;
    int iterations;          /* most Gauss-Seidel sweeps of the impulse solver */
    double tolerance;        /* sweeps stop when no velocity changes more than this (m/s) */
    double slop;             /* overlap left alone by the position correction (m) */
} rigid_world;

typedef struct rigid_contact {
    int a, b;                /* bodies; b = -1 for a wall */
    double p[3];             /* contact point (world) */
    double n[3];             /* unit normal from b to a */
    double gap;              /* signed distance along n, negative when overlapping */
    double ra[3], rb[3];     /* p in the body frames of a and b at detection */
    double e, mu;            /* restitution and friction of the pair */
} rigid_contact;

typedef struct rigid_contacts {
    rigid_contact *c;
    size_t n, cap;
} rigid_contacts;

void rigid_contacts_free(rigid_contacts *cs);
/* All contacts with gap < 0 at configuration S (one state per body). */
void rigid_contacts_find(const rigid_world *w, const rigid_state *S, rigid_contacts *cs);
/* Impulses on the velocities of S so that no contact approaches: a contact
 * closing faster than rest_speed separates at e times its closing speed,
 * slower ones come to rest; friction impulses within the Coulomb cone.
 * Returns the largest velocity change of the first sweep (0: nothing to do). */
double rigid_contacts_solve(const rigid_world *w, rigid_state *S, const rigid_contacts *cs, double rest_speed);
/* Move overlapping bodies apart (positions only, velocities untouched). */
void rigid_contacts_project(const rigid_world *w, rigid_state *S, rigid_contacts *cs);

#endif
