/* libFuzzer target: any bytes as one request to a session that hosts the
 * piston solid (greeted, created and described, so every op is reachable).
 * The input is cut into frames at each SEP (4 bytes of 0xc1, a byte that
 * MessagePack never uses): the first piece is the map, the others are the
 * frames after it (protocol 2's out-of-band arrays). The reply must always
 * be a well-formed message.
 *
 *     CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *     build-fuzz/protocol/fuzz_request protocol/fuzz/corpus */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "wire.h"


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

static const uint8_t SEP[4] = {0xc1, 0xc1, 0xc1, 0xc1};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    seam_session *s = seam_session_new(seam_plugin_v1());
    request(s, "hello", NULL);
    request(s, "create", "{\"mass\": 1, \"stiffness\": 4, \"position\": 0.1}");
    request(s, "describe", NULL);
    seam_part piece[65];
    size_t n = 0, start = 0;
    for (size_t i = 0; i + sizeof SEP <= size && n < 64; i++)
        if (memcmp(data + i, SEP, sizeof SEP) == 0) {
            piece[n++] = (seam_part){data + start, i - start};
            start = i + sizeof SEP;
            i += sizeof SEP - 1;
        }
    piece[n++] = (seam_part){data + start, size - start};
    seam_wbuf reply;
    bool ended;
    seam_session_handle_parts(s, piece[0].data, piece[0].len, piece + 1, n - 1, &reply, &ended);
    seam_part rparts[16];
    if (reply.n_att > 16)
        abort();   /* no reply has that many arrays */
    for (size_t a = 0; a < reply.n_att; a++)
        rparts[a] = (seam_part){reply.att[a].data, reply.att[a].size};
    seam_msg m;
    if (!seam_msg_parse_parts(&m, reply.sb.data, reply.sb.size, rparts, reply.n_att))
        abort();   /* every reply must parse */
    seam_wbuf_free(&reply);
    seam_session_destroy(&s);
    return 0;
}
