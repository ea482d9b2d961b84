/* The plugin contract (core/include/seam/plugin.h) checked on any plugin
 * table, so every plugin's tests check the same promises the same way:
 *
 *  (a) solve/commit purity: solve is a pure function of the committed state
 *      and its input (inputs A, B, A give the first answer twice), and commit
 *      takes the last solve (an instance that solved A, B, A and committed
 *      runs on exactly as one that solved A once);
 *  (b) save/load: save, step on, load, step again: the same bits; load then
 *      save gives the same image; the image is core's checkpoint format
 *      (seam/checkpoint.h); a damaged image (one byte flipped, cut short, or
 *      written with the other byte order) is refused with SEAM_ERROR and a
 *      logged message, and the instance still loads the good one;
 *  (c) absent optional entries: NULL entries agree with the instance's
 *      SEAM_CAP_* flags, and role-required entries are there;
 *  (d) bad keys: create refuses an unknown key and a key of the wrong type,
 *      each with a message that names the key where the host locates it.
 *
 * Inputs are made from the plugin's own interface: a fluid's bound interface
 * moves rigidly (input A and input B at two different velocities), a solid
 * takes two different load patterns on its described points, a coupled
 * plugin takes none. What is compared after each solve and commit: the
 * solve's outputs, a solid's (or coupled plugin's) described positions, and
 * optionally one field of the committed state. Failures are cmocka
 * failures: call from a cmocka test. */
#ifndef SEAM_TEST_PLUGIN_CONTRACT_H
#define SEAM_TEST_PLUGIN_CONTRACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "seam/plugin.h"

typedef struct plugin_contract {
    const seam_plugin *plugin;
    const char *config;            /* JSON object that creates a working instance */
    const seam_interface *iface;   /* fluid: the surface to bind (required); others: NULL */
    const double *gravity;         /* the scene's gravity handed to create (x y z), or NULL */
    double dt;                     /* every step's size (s) */
    int steps;                     /* committed steps before the checks, and compared after them (>= 1) */
    double speed;                  /* fluid: the interface's speed in input A (m/s); B moves otherwise */
    double load;                   /* solid: the loads' amplitude (N, N/m in 2D) */
    const char *field;             /* a field of the committed state to compare too, or NULL */
    const char *typed_key;         /* key path in config ("coupling.sigma") given a value of the wrong
                                    * type in (d); NULL: the first key of config */
} plugin_contract;

/* Every check above; c->plugin must offer save and load (SEAM_CAP_SAVE). */
void plugin_contract_check(const plugin_contract *c);

/* The parts, for a plugin test that wants only some of them. */
void plugin_contract_purity(const plugin_contract *c);
void plugin_contract_save_load(const plugin_contract *c);
void plugin_contract_entries(const plugin_contract *c);
void plugin_contract_bad_keys(const plugin_contract *c);
/* load(bad) is refused with SEAM_ERROR and leaves the committed state: a
 * save after it gives the same bytes as a save before it. */
void plugin_contract_refused_load_keeps_state(const seam_plugin *P, void *self, const void *bad, size_t n);

/* ---- an independent little-endian reader of checkpoint images ----------
 * Written from the layout in seam/checkpoint.h, sharing no code with core,
 * so a test can check that an image holds the values it should, whatever
 * the byte order of the machine that runs it. */

/* One value of a section: its tag ('u', 'i', 'd', 's', 'D', 'I'); scalars in
 * u (the 8 bytes as a little-endian number: f64 bits for 'd'); for 's', 'D'
 * and 'I' the count of bytes or values in u and their first byte in at. */
typedef struct contract_value {
    char tag;
    uint64_t u;
    const unsigned char *at;
} contract_value;

/* Whether img (n bytes) is a well-formed checkpoint image: magic, version 1,
 * the length, every section's values tagged and ending where it says, and
 * the CRC-32. On false, why in err. */
bool contract_image_valid(const void *img, size_t n, char *err, size_t errlen);
/* Value k (0-based) of the section named `section` of a valid image: false
 * when there is none. */
bool contract_image_value(const void *img, size_t n, const char *section, size_t k, contract_value *v);
/* A little-endian u64 / f64 at p (array elements of a value). */
uint64_t contract_le_u64(const unsigned char *p);
double contract_le_f64(const unsigned char *p);
/* The image as a host-endian writer of the same layout would have made it on
 * a machine of the other byte order: every number (version, lengths, counts,
 * values, CRC) byte-reversed. malloc'ed, n bytes like img. */
unsigned char *contract_image_swapped(const void *img, size_t n);

#endif
