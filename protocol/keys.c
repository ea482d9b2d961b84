/* CURVE key files: "public = Z85" and "secret = Z85" lines. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <zmq.h>

#include "keys.h"

static int write_file(const char *path, int mode, const char *text, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    size_t n = strlen(text);
    bool ok = write(fd, text, n) == (ssize_t)n;
    ok &= close(fd) == 0;
    if (!ok) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int seam_keygen(const char *name, char *err, size_t errlen)
{
    char pub[SEAM_KEY_Z85], sec[SEAM_KEY_Z85];
    if (zmq_curve_keypair(pub, sec) != 0) {
        snprintf(err, errlen, "cannot make a CURVE key pair: %s (libzmq built without CURVE?)", zmq_strerror(errno));
        return -1;
    }
    char path[4096], text[256];
    snprintf(path, sizeof path, "%s.key", name);
    snprintf(text, sizeof text, "# seam CURVE key pair: keep this file secret\npublic = %s\nsecret = %s\n", pub, sec);
    if (write_file(path, 0600, text, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof path, "%s.pub", name);
    snprintf(text, sizeof text, "# seam CURVE public key\npublic = %s\n", pub);
    return write_file(path, 0644, text, err, errlen);
}

static bool is_z85_key(const char *s)
{
    uint8_t bin[32];
    return strlen(s) == 40 && zmq_z85_decode(bin, s) != NULL;
}

int seam_key_read(const char *spec, char public_z85[SEAM_KEY_Z85], char secret_z85[SEAM_KEY_Z85],
                  char *err, size_t errlen)
{
    public_z85[0] = secret_z85[0] = '\0';
    FILE *f = fopen(spec, "r");
    if (!f) {
        if (is_z85_key(spec)) {
            snprintf(public_z85, SEAM_KEY_Z85, "%s", spec);
            return 0;
        }
        snprintf(err, errlen, "cannot read key file %s: %s", spec, strerror(errno));
        return -1;
    }
    char line[256];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char key[16], value[64];
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
            continue;
        if (sscanf(line, " %15[a-z] = %63s", key, value) != 2 || !is_z85_key(value) ||
            (strcmp(key, "public") != 0 && strcmp(key, "secret") != 0)) {
            snprintf(err, errlen, "%s:%d: expected \"public = KEY\" or \"secret = KEY\" with a 40-character Z85 key",
                     spec, lineno);
            fclose(f);
            return -1;
        }
        snprintf(strcmp(key, "public") == 0 ? public_z85 : secret_z85, SEAM_KEY_Z85, "%s", value);
    }
    fclose(f);
    if (!public_z85[0]) {
        snprintf(err, errlen, "%s: no \"public = KEY\" line", spec);
        return -1;
    }
    return 0;
}
