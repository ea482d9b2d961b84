/* A request with no arguments but its op and id (a hello also names the
 * protocol and ABI versions), as the protocol tests send it to a server. */
#ifndef SEAM_TESTS_BARE_REQUEST_H
#define SEAM_TESTS_BARE_REQUEST_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "seam/plugin.h"
#include "wire.h"

/* w is initialised here; the caller frees it with seam_wbuf_free. */
static inline void bare_request(seam_wbuf *w, const char *op, uint64_t id)
{
    seam_wbuf_init(w, 0);
    bool hello = strcmp(op, "hello") == 0;
    seam_w_map(w, hello ? 4 : 2);
    seam_w_str(w, "op");
    seam_w_str(w, op);
    seam_w_str(w, "id");
    seam_w_uint(w, id);
    if (hello) {
        seam_w_str(w, "protocol");
        seam_w_uint(w, SEAM_PROTOCOL_VERSION);
        seam_w_str(w, "abi");
        seam_w_uint(w, SEAM_ABI_VERSION);
    }
}

#endif
