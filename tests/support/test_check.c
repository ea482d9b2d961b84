#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "test_check.h"

bool test_within(const char *what, double measured, double expected, double tolerance)
{
    double off = measured - expected;
    bool pass = fabs(off) <= tolerance;   /* NaN fails */
    printf("check %s: measured %.6g, expected %.6g +- %.3g (off by %+.3g, %.2f of the tolerance): %s\n", what,
           measured, expected, tolerance, off, fabs(off) / tolerance, pass ? "pass" : "FAIL");
    return pass;
}

void test_expect_pass(bool pass, const char *what)
{
    if (!pass)
        fail_msg("%s: the check failed", what);
}

void test_expect_fail(bool pass, const char *what)
{
    if (pass)
        fail_msg("mutated twin %s: the check passed, so it cannot tell this physics from the shipped scene's", what);
    printf("mutated twin %s: fails the check, as it must\n", what);
}
