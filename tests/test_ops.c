/* The compute layer (issue 31): the dlca-ops-vector reader, and the CPU twin
 * of the ops against every vector of shared/testdata/ops. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/vector.h"
#include "ops_util.h"
#include "util.h"

START_TEST(test_ops_read_all) {
  const char *dir = to_dir();
  if (!dir) return;
  to_list list;
  to_list_files(dir, "", &list);
  ck_assert_msg(list.n >= 50, "%s: only %zu vector files", dir, list.n);
  for (size_t i = 0; i < list.n; i++) {
    dlca__ops_vector v;
    int rc = dlca__ops_vector_load(list.path[i], &v);
    ck_assert_msg(rc == DLCA_OK, "%s", dlca_last_error());
    ck_assert_msg(v.op && *v.op && v.tol_abs > 0, "%s: op or tolerance", list.path[i]);
    ck_assert_msg(v.grads.n == 0 || v.grad_outputs.n == v.outputs.n, "%s: one grad_output per output", list.path[i]);
    dlca__ops_vector_free(&v);
  }
  to_list_free(&list);
}
END_TEST

START_TEST(test_ops_read_fields) {
  const char *dir = to_dir();
  if (!dir) return;
  dlca__ops_vector v;
  ck_assert_int_eq(dlca__ops_vector_load(to_path(dir, "reduce_max_1.json"), &v), DLCA_OK);
  ck_assert_str_eq(v.op, "reduce");
  ck_assert_str_eq(v.name, "reduce_max_1");
  const char *fn;
  long axes[4];
  size_t na;
  int keep;
  ck_assert_int_eq(dlca__ops_vector_attr_string(&v, "fn", &fn), DLCA_OK);
  ck_assert_str_eq(fn, "max");
  ck_assert_int_eq(dlca__ops_vector_attr_ints(&v, "axes", axes, 4, &na), DLCA_OK);
  ck_assert(na == 2 && axes[0] == 0 && axes[1] == 2);
  ck_assert_int_eq(dlca__ops_vector_attr_bool(&v, "keepdim", &keep), DLCA_OK);
  ck_assert_int_eq(keep, 1);
  ck_assert_int_eq(dlca__ops_vector_attr_string(&v, "axes", &fn), DLCA_EPARSE);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "attrs.axes: expected a string, found an array"));
  const dlca__ops_tensor *x;
  ck_assert_int_eq(dlca__ops_vector_tensor(&v, "inputs", "x", &x), DLCA_OK);
  ck_assert(x->rank == 3 && x->shape[0] == 2 && x->shape[1] == 3 && x->shape[2] == 5 && x->n == 30);
  ck_assert_int_eq(dlca__ops_vector_tensor(&v, "grads", "nope", &x), DLCA_EPARSE);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "grads.nope: missing"));
  const dlca__ops_tensor *y = dlca__ops_set_find(&v.outputs, "y");
  dlca__ops_cmp c = dlca__ops_compare(y->data, y, v.tol_abs, v.tol_rel);
  ck_assert(c.pass && c.worst == 0);
  double *off = malloc(sizeof(double) * y->n);
  for (size_t i = 0; i < y->n; i++) off[i] = y->data[i];
  off[1] += 1.0;
  c = dlca__ops_compare(off, y, v.tol_abs, v.tol_rel);
  ck_assert(!c.pass && c.worst_index == 1 && fabs(c.worst - 1.0) < 1e-12);
  off[2] = NAN;
  c = dlca__ops_compare(off, y, v.tol_abs, v.tol_rel);
  ck_assert(!c.pass && isinf(c.worst) && c.worst_index == 2);
  free(off);
  dlca__ops_vector_free(&v);
}
END_TEST

static const struct {
  const char *text, *msg;
} bad[] = {
    {"{\"format\": \"dlca-model\", \"version\": 1}", "format: expected \"dlca-ops-vector\""},
    {"{\"format\": \"dlca-ops-vector\", \"version\": 2}", "version: expected 1"},
    {"{\"format\": \"dlca-ops-vector\", \"version\": 1, \"op\": \"unary\", \"attrs\": {}, \"tolerance\": "
     "{\"abs\": 1e-4, \"rel\": 1e-4}, \"inputs\": {\"x\": {\"shape\": [1,1,1,1,2], \"data\": [1,2]}}}",
     "inputs.x.shape: rank 5 is over"},
    {"{\"format\": \"dlca-ops-vector\", \"version\": 1, \"op\": \"unary\", \"tolerance\": "
     "{\"abs\": 1e-4, \"rel\": 1e-4}, \"outputs\": {\"y\": {\"shape\": [2,2], \"data\": [1,2,3]}}}",
     "outputs.y.data: 3 values, the shape has 4"},
    {"{\"format\": \"dlca-ops-vector\", \"version\": 1, \"op\": \"unary\", \"tolerance\": "
     "{\"abs\": 1e-4, \"rel\": 1e-4}, \"grads\": {\"x\": {\"shape\": [2], \"data\": [1,\"a\"]}}}",
     "grads.x.data[1]: expected a number, found a string"},
    {"{\"format\": \"dlca-ops-vector\", \"version\": 1, \"op\": \"unary\", \"tolerance\": {\"abs\": -1}}",
     "tolerance: expected"},
    {"{\"format\": \"dlca-ops-vector\", \"version\": 1, \"op\": 3}", "op: expected a string, found an integer"},
    {"[1, 2", "bad.json:1:"},
};

START_TEST(test_ops_read_bad) {
  const char *tmp = tu_tmpdir("ops-bad");
  const char *path = tu_write(tmp, "bad.json", bad[_i].text);
  dlca__ops_vector v;
  ck_assert_int_eq(dlca__ops_vector_load(path, &v), DLCA_EPARSE);
  const char *e = dlca_last_error();
  ck_assert_msg(strstr(e, path) && strstr(e, bad[_i].msg), "case %d: \"%s\" lacks \"%s\"", _i, e, bad[_i].msg);
  ck_assert_ptr_null(v.root);
  dlca__ops_vector_free(&v);
}
END_TEST

START_TEST(test_ops_read_missing) {
  dlca__ops_vector v;
  ck_assert_int_eq(dlca__ops_vector_load("/nonexistent/ops.json", &v), DLCA_EIO);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "/nonexistent/ops.json"));
}
END_TEST

Suite *suite_ops(void) {
  Suite *s = suite_create("ops");
  TCase *tc = tcase_create("vector");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_ops_read_all);
  tcase_add_test(tc, test_ops_read_fields);
  tcase_add_loop_test(tc, test_ops_read_bad, 0, (int)(sizeof bad / sizeof bad[0]));
  tcase_add_test(tc, test_ops_read_missing);
  suite_add_tcase(s, tc);
  suite_add_tcase(s, to_tcase_ref());
  suite_add_tcase(s, to_tcase_fd());
  suite_add_tcase(s, to_tcase_cl());
  return s;
}
