/* Runs fuzz_session.c's target on files, without libFuzzer: every file named,
 * and every file in each directory named (the committed corpus, in the
 * normal test suite). Exit 0 when all ran; a finding aborts. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *data = malloc(cap);
    for (size_t got; data && (got = fread(data + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *more = realloc(data, cap *= 2);
            if (!more)
                free(data);
            data = more;
        }
    }
    fclose(f);
    if (!data) {
        fprintf(stderr, "fuzz_replay: %s: out of memory\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(data, n);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    int failed = 0, ran = 0;
    for (int a = 1; a < argc; a++) {
        struct stat st;
        if (stat(argv[a], &st) != 0) {
            fprintf(stderr, "fuzz_replay: cannot open %s\n", argv[a]);
            failed++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            failed += run_file(argv[a]);
            ran++;
            continue;
        }
        struct dirent **names;
        int n = scandir(argv[a], &names, NULL, alphasort);
        for (int i = 0; i < n; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[a], names[i]->d_name);
            if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                failed += run_file(path);
                ran++;
            }
            free(names[i]);
        }
        free(names);
    }
    printf("fuzz_replay: %d inputs, %d not readable\n", ran, failed);
    return failed || ran == 0 ? 1 : 0;
}
