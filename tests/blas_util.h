/* The test cases of the blas suite (GEMM and dense, CLBlast's tuning section). */
#ifndef DLCA_TESTS_BLAS_UTIL_H
#define DLCA_TESTS_BLAS_UTIL_H
#include <check.h>

#include "ops/ref_blas.h"

/* tests/test_blas_cl.c: GEMM on the device against the twin. */
void tb_add_cl_gemm(TCase *tc);
/* tests/test_blas_dense.c: dense on the device, and every gemm_ and dense_ vector there. */
void tb_add_cl_dense(TCase *tc);
/* tests/test_blas_tuning.c: the tuning table's CLBlast section. */
TCase *tb_tcase_tuning(void);
#endif
