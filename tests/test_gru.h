/* The test cases of the gru suite (tests/test_gru*.c, tests/test_rsvd*.c). */
#ifndef DLCA_TESTS_TEST_GRU_H
#define DLCA_TESTS_TEST_GRU_H
#include <check.h>
#include <stdint.h>

/* tests/test_rsvd.c: the rSVD twin against LAPACK's SVD, and its bad input. */
void tg_add_rsvd_ref(TCase *tc);
/* tests/test_rsvd_cl.c: the rSVD's device Cholesky QR against its twin, and the device path against the host path. */
void tg_add_rsvd_cl(TCase *tc);

/* tests/test_gru_cl.c: the device against the vectors and the twin. */
TCase *tg_tcase_cl(void);

/* tests/test_gru_norm.c: layer norm and dropout, twin and device. */
void tg_add_norm(TCase *ref, TCase *cl);

/* A matrix m x n with singular values decay^i (i < min(m, n)) and random singular vectors. */
void tg_decaying(size_t m, size_t n, double decay, uint64_t seed, double *a);
#endif
