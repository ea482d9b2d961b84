/* Validation checks that can be shown to fail (issue 32, item 5). A
 * validation test measures a physical quantity and compares it with an
 * analytic or reference answer through test_within, which prints the
 * measurement against its band and returns whether it lies inside. The test
 * asserts that the scene as shipped passes (test_expect_pass) and that a
 * mutated twin of it, the same scene with the physics changed by as much as
 * would matter to a user (a mass +20%, a density ratio, a projection), fails
 * the same check (test_expect_fail): the twin proves the check can fail. */
#ifndef SEAM_TEST_CHECK_H
#define SEAM_TEST_CHECK_H

#include <stdbool.h>

/* |measured - expected| <= tolerance, printed as one line under `what`. */
bool test_within(const char *what, double measured, double expected, double tolerance);

/* Fail the test unless the check `pass` of the shipped scene `what` passed. */
void test_expect_pass(bool pass, const char *what);
/* Fail the test unless the check `pass` of the mutated twin `what` failed:
 * a twin that passes means the check cannot tell its physics from the shipped one's. */
void test_expect_fail(bool pass, const char *what);

#endif
