/* A library that is not a plugin: loading it runs its constructor, which
 * creates the file $SEAM_TEST_CTOR_MARK. `seam validate` must not load it
 * from outside the plugin search path (test_cli.c). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void mark(void)
{
    const char *path = getenv("SEAM_TEST_CTOR_MARK");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f)
        fclose(f);
}
