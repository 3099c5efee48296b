/* Helpers of the ops suite: the vector directory and its files. */
#ifndef DLCA_TESTS_OPS_UTIL_H
#define DLCA_TESTS_OPS_UTIL_H
#include <stddef.h>
#include <stdint.h>

/* DLCA_OPS_TESTDATA, else ../shared/testdata/ops; NULL (and a SKIP message)
 * where it is absent. */
const char *to_dir(void);
/* dir/name (static buffer, rotates 8). */
const char *to_path(const char *dir, const char *name);

/* The .json files of dir whose names start with prefix, sorted. */
typedef struct to_list {
  size_t n;
  char **path;
} to_list;
void to_list_files(const char *dir, const char *prefix, to_list *out);
void to_list_free(to_list *l);
#include <check.h>
/* The test cases of tests/test_ops_ref.c, test_ops_fd.c and test_ops_cl.c. */
TCase *to_tcase_ref(void);
TCase *to_tcase_fd(void);
TCase *to_tcase_cl(void);
/* tests/test_ops_cl_reduce.c's tests, in the cl case. */
void to_add_cl_reduce(TCase *tc);
/* tests/test_ops_cl_move.c's tests, in the cl case. */
void to_add_cl_move(TCase *tc);
/* tests/test_ops_cl_loss.c's tests, in the cl case. */
void to_add_cl_loss(TCase *tc);

/* Device helpers of the cl case (tests/test_ops_cl.c). */
#include "ops/ref_case.h"
#include "ops/tensor.h"
/* A new tensor of shape s, uploaded from data where not NULL; fails the test on error. */
dlca_tensor *to_tensor(dlca_context *ctx, dlca__shape s, const float *data);
/* The worst |got - want| of t, failing where one misses 1e-4 + 1e-4|want|. */
double to_check(const dlca_tensor *t, const double *want, const char *what);
void to_double(const float *f, double *d, size_t n);
/* A tensor of shape s with seeded uniform values in [lo, hi), and those values in double (*d, malloc'd). */
dlca_tensor *to_rand_tensor(dlca_context *ctx, dlca__shape s, float lo, float hi, uint64_t seed, double **d);
/* A vector file's tensor on the device as float32. */
dlca_tensor *to_vec_tensor(dlca_context *ctx, const dlca__ops_tensor *t);
/* The worst error of a device result against the file's values at its tolerance, failing on a miss. */
double to_vec_check(const dlca__ops_vector *v, const dlca_tensor *t, const dlca__ops_tensor *want);
/* A vector file run on the device by the library (dlca__ops_cl_run), each result checked at its tolerance. */
void to_vec_run(dlca_context *ctx, const char *path);
#endif
