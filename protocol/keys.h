/* CURVE key pairs in files, as `seam keygen` writes them. */
#ifndef SEAM_KEYS_H
#define SEAM_KEYS_H

#include <stddef.h>

#define SEAM_KEY_Z85 41      /* 40 Z85 characters and a NUL */

/* Write NAME.key (public and secret, mode 0600) and NAME.pub (public only).
 * 0, or -1 with a message in err. */
int seam_keygen(const char *name, char *err, size_t errlen);
/* Read a key file: public is always filled, secret when the file has one
 * (else ""). `spec` may also be a 40-character Z85 public key itself. */
int seam_key_read(const char *spec, char public_z85[SEAM_KEY_Z85], char secret_z85[SEAM_KEY_Z85],
                  char *err, size_t errlen);

#endif
