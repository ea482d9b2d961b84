/* libFuzzer target: any bytes as one request to a session that hosts the
 * piston solid (greeted, created and described, so every op is reachable).
 * The reply must always be a well-formed message.
 *
 *     CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *     build-fuzz/protocol/fuzz_request protocol/fuzz/corpus */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "wire.h"

const seam_plugin *seam_plugin_v1(void);   /* tests/plugins/piston_solid.c, linked in */

static void request(seam_session *s, const char *op, const char *config)
{
    seam_wbuf w, reply;
    bool ended;
    seam_wbuf_init(&w, 0);
    seam_w_map(&w, config ? 5 : 4);
    seam_w_str(&w, "op"); seam_w_str(&w, op);
    seam_w_str(&w, "id"); seam_w_uint(&w, 1);
    seam_w_str(&w, "protocol"); seam_w_uint(&w, SEAM_PROTOCOL_VERSION);
    seam_w_str(&w, "abi"); seam_w_uint(&w, SEAM_ABI_VERSION);
    if (config) {
        seam_w_str(&w, "config");
        seam_w_str(&w, config);
    }
    seam_session_handle(s, w.sb.data, w.sb.size, &reply, &ended);
    seam_wbuf_free(&reply);
    seam_wbuf_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    seam_session *s = seam_session_new(seam_plugin_v1());
    request(s, "hello", NULL);
    request(s, "create", "{\"mass\": 1, \"stiffness\": 4, \"position\": 0.1}");
    request(s, "describe", NULL);
    seam_wbuf reply;
    bool ended;
    seam_session_handle(s, data, size, &reply, &ended);
    seam_msg m;
    if (!seam_msg_parse(&m, reply.sb.data, reply.sb.size))
        abort();   /* every reply must parse */
    seam_wbuf_free(&reply);
    seam_session_destroy(&s);
    return 0;
}
