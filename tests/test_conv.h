/* Shared by tests/test_conv.c (the CPU twin) and test_conv_cl.c (the device). */
#ifndef DLCA_TESTS_TEST_CONV_H
#define DLCA_TESTS_TEST_CONV_H
#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* n values in [lo, hi) from tu_random's seeded floats, as double (malloc'd). */
double *tconv_rand_d(size_t n, double lo, double hi, uint64_t seed);
/* The device test case (test_conv_cl.c). */
TCase *tconv_tcase_cl(void);
/* test_conv_cl2.c's conv2d tests, in the cl case. */
void tconv_add_cl_conv(TCase *tc);
#endif
