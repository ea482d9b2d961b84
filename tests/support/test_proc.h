/* Processes for tests that start servers and runs (seam-serve, `seam run`,
 * Python servers): every child is tracked, so a failed test still ends and
 * reaps it (test_proc_reap_all as the cmocka teardown). */
#ifndef SEAM_TEST_PROC_H
#define SEAM_TEST_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* CLOCK_MONOTONIC in seconds. */
double test_now_s(void);
/* Fork and exec argv. stdout and stderr go to log_path (NULL: inherited);
 * stdout to stdout_fd instead when it is >= 0. The child is tracked. */
pid_t test_proc_spawn(char *const argv[], const char *log_path, int stdout_fd);
/* Spawn a server (stderr to log_path, NULL: inherited) and wait up to 10 s
 * for its ready line, "... on ENDPOINT" (seam-serve's and the Python
 * servers'): the endpoint into endpoint[n]. Fails the test without one. */
pid_t test_proc_start_server(char *const argv[], const char *log_path, char *endpoint, size_t n);
/* Wait for pid at most limit s: its exit status, or 128 + the signal that
 * ended it; -1 after killing it when it did not end. *took: the wait. */
int test_proc_wait(pid_t pid, double limit, double *took);
/* End pid (SIGCONT and SIGTERM; SIGKILL after 3 s) and reap it; it may be
 * gone already. */
void test_proc_stop(pid_t pid);
/* SIGKILL and reap every child still tracked; a cmocka setup/teardown. */
int test_proc_reap_all(void **state);

/* A file's whole text (at most 1 MiB), malloc'ed; NULL when unreadable. */
char *test_slurp(const char *path);
/* Fail the test, showing the file, unless it contains needle. */
void test_expect_in_file(const char *path, const char *needle);

#endif
