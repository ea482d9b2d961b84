/* Output files written whole or not at all (seam/frame.h). */
#include <errno.h>

#include "seam/frame.h"

FILE *seam_output_open(const char *path, char *tmp, size_t n)
{
    snprintf(tmp, n, "%s.tmp", path);
    return fopen(tmp, "wb");
}

int seam_output_close(FILE *f, const char *path, const char *tmp, int failed)
{
    int bad = failed ? failed : ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !bad)
        bad = errno;
    if (!bad && rename(tmp, path) != 0)
        bad = errno;
    if (bad) {
        remove(tmp);
        errno = bad;
        return -1;
    }
    return 0;
}
