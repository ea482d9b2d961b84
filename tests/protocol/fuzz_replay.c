/* Runs a libFuzzer target (fuzz_session.c, protocol/fuzz_request.c,
 * fuzz_server.c) on files without libFuzzer: every file
 * named, and every file in each directory named (the committed corpora, in
 * the normal test suite). Each input runs in a fresh process, as a libFuzzer
 * reproduction does, so that no finding hides behind state an earlier input
 * left (a buffer already allocated). Exit 0 when all ran cleanly; 1 when an
 * input was unreadable or its process did not exit 0 (a finding). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        LLVMFuzzerTestOneInput(data, n);
        free(data);
        exit(0);   /* the target's atexit handlers (and the sanitizers' leak check) run here */
    }
    free(data);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        fprintf(stderr, "fuzz_replay: %s: cannot run a process for it\n", path);
        return 1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "fuzz_replay: %s: a finding (%s %d)\n", path, WIFEXITED(status) ? "exit" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        return 1;
    }
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
    printf("fuzz_replay: %d inputs, %d not readable or a finding\n", ran, failed);
    return failed || ran == 0 ? 1 : 0;
}
