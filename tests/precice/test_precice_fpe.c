/* libprecice under a solver that traps floating-point exceptions, as
 * OpenFOAM does (FOAM_SIGFPE): creating a participant reads the XML
 * configuration with libxml2, whose first parse computes NaN as 0/0. The
 * library must hold the traps off for that. The participant named here is not in the file, so a correct library
 * gets as far as the name check and exits 1 with its message; a SIGFPE there
 * is the failure this test catches. */
#define _GNU_SOURCE
#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <precice/preciceC.h>

static const int traps = FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW;

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CONFIG.xml\n", argv[0]);
        return 2;
    }
    fflush(NULL);
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child == 0) {
        feenableexcept(traps);
        precicec_createParticipant("NoSuchParticipant", argv[1], 0, 1);
        _exit(3); // the name check must have stopped it
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child) {
        perror("waitpid");
        return 1;
    }
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "FAIL: createParticipant under trapped FP exceptions died of signal %d\n", WTERMSIG(status));
        return 1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) {
        fprintf(stderr, "FAIL: expected the unknown participant's exit status 1, got %d\n", WEXITSTATUS(status));
        return 1;
    }
    printf("ok: the configuration read under FE_DIVBYZERO|FE_INVALID|FE_OVERFLOW traps, no SIGFPE\n");
    return 0;
}
