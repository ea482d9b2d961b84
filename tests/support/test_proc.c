/* Processes for tests (test_proc.h). */
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_proc.h"

#define MAX_CHILDREN 16

static pid_t children[MAX_CHILDREN];

double test_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void track(pid_t pid)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] <= 0) {
            children[i] = pid;
            return;
        }
    fail_msg("more than %d child processes at once", MAX_CHILDREN);
}

static void untrack(pid_t pid)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] == pid)
            children[i] = 0;
}

pid_t test_proc_spawn(char *const argv[], const char *log_path, int stdout_fd)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (log_path) {
            int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(fd, STDERR_FILENO);
            dup2(fd, STDOUT_FILENO);
        }
        if (stdout_fd >= 0)
            dup2(stdout_fd, STDOUT_FILENO);
        execv(argv[0], argv);
        _exit(127);
    }
    track(pid);
    return pid;
}

pid_t test_proc_start_server(char *const argv[], const char *log_path, char *endpoint, size_t n)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);   /* the server must not hold its own pipe open */
    pid_t pid = test_proc_spawn(argv, log_path, fds[1]);
    close(fds[1]);
    char line[2048] = "";
    size_t len = 0;
    struct pollfd pfd = {fds[0], POLLIN, 0};
    while (len < sizeof line - 1 && !memchr(line, '\n', len) && poll(&pfd, 1, 10000) > 0) {
        ssize_t got = read(fds[0], line + len, sizeof line - 1 - len);
        if (got <= 0)
            break;
        len += (size_t)got;
        line[len] = '\0';
    }
    close(fds[0]);
    const char *on = strstr(line, " on ");
    if (!on)
        fail_msg("%s did not say it was serving: \"%s\"", argv[0], line);
    snprintf(endpoint, n, "%s", on + 4);
    endpoint[strcspn(endpoint, "\n")] = '\0';
    return pid;
}

int test_proc_wait(pid_t pid, double limit, double *took)
{
    double t0 = test_now_s();
    int st;
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (test_now_s() - t0 > limit) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            st = -1;
            break;
        }
        usleep(5000);
    }
    *took = test_now_s() - t0;
    untrack(pid);
    return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void test_proc_stop(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGCONT);
    kill(pid, SIGTERM);
    int st;
    for (int i = 0; i < 300 && waitpid(pid, &st, WNOHANG) == 0; i++)
        usleep(10000);
    if (kill(pid, 0) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
    }
    untrack(pid);
}

int test_proc_reap_all(void **state)
{
    (void)state;
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] > 0) {
            kill(children[i], SIGKILL);
            waitpid(children[i], NULL, 0);
            children[i] = 0;
        }
    return 0;
}

char *test_slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

void test_expect_in_file(const char *path, const char *needle)
{
    char *text = test_slurp(path);
    if (!text)
        fail_msg("cannot read %s", path);
    if (!strstr(text, needle)) {
        print_error("%s:\n%s\n", path, text);
        free(text);
        fail_msg("expected \"%s\" in %s", needle, path);
    }
    free(text);
}
