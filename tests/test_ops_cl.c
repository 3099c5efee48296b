/* The elementwise kernels (kernels-cl/ops/elementwise.cl) on the OpenCL
 * device (PoCL in CI) against the CPU twin, on fresh random inputs, at the
 * vectors' tolerance (1e-4 + 1e-4 |want|); and the device tensors' errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "ops/cl_case.h"
#include "ops/cl_elementwise.h"
#include "ops/ref_case.h"
#include "ops_util.h"

#define TOL_ABS 1e-4
#define TOL_REL 1e-4

dlca_tensor *to_tensor(dlca_context *ctx, dlca__shape s, const float *data) {
  dlca_tensor *t;
  ck_assert_msg(dlca_tensor_new(ctx, s.rank, s.d, &t) == DLCA_OK, "%s", dlca_last_error());
  if (data) ck_assert_msg(dlca_tensor_upload(t, data, dlca_tensor_numel(t)) == DLCA_OK, "%s", dlca_last_error());
  return t;
}

/* The worst |got - want| of t against want, failing where one misses the tolerance. */
double to_check(const dlca_tensor *t, const double *want, const char *what) {
  size_t n = dlca_tensor_numel(t);
  float *got = malloc(sizeof(float) * n);
  ck_assert_msg(dlca_tensor_download(t, got, n) == DLCA_OK, "%s", dlca_last_error());
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    double d = fabs((double)got[i] - want[i]);
    ck_assert_msg(d <= TOL_ABS + TOL_REL * fabs(want[i]), "%s[%zu] = %.9g, twin %.9g", what, i, got[i], want[i]);
    worst = fmax(worst, d);
  }
  free(got);
  return worst;
}

void to_double(const float *f, double *d, size_t n) {
  for (size_t i = 0; i < n; i++) d[i] = f[i];
}

dlca_tensor *to_rand_tensor(dlca_context *ctx, dlca__shape s, float lo, float hi, uint64_t seed, double **d) {
  size_t n = dlca__shape_n(&s);
  float *f = malloc(sizeof(float) * n);
  *d = malloc(sizeof(double) * n);
  tu_random(f, n, lo, hi, seed);
  to_double(f, *d, n);
  dlca_tensor *t = to_tensor(ctx, s, f);
  free(f);
  return t;
}

START_TEST(test_ops_cl_unary) {
  if (!tcl_platform()) return;
  tcl_fresh_env("ops-cl-unary");
  dlca_context *ctx = tcl_context();
  dlca__unary_fn fn = (dlca__unary_fn)_i;
  dlca__shape s = {3, {3, 5, 37}};
  size_t n = dlca__shape_n(&s);
  int pos = fn == DLCA__U_log || fn == DLCA__U_sqrt || fn == DLCA__U_recip || fn == DLCA__U_log2;
  float *xf = malloc(sizeof(float) * n), *dyf = malloc(sizeof(float) * n);
  double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), *dy = malloc(sizeof(double) * n);
  double *dx = malloc(sizeof(double) * n);
  tu_random(xf, n, pos ? 0.25f : -3.0f, 3.0f, 700 + (uint64_t)_i);
  tu_random(dyf, n, -1, 1, 800 + (uint64_t)_i);
  to_double(xf, x, n), to_double(dyf, dy, n);
  dlca__ref_unary(fn, n, x, y);
  dlca__ref_unary_backward(fn, n, x, y, dy, dx);
  dlca_tensor *tx = to_tensor(ctx, s, xf), *ty = to_tensor(ctx, s, NULL), *tdy = to_tensor(ctx, s, dyf),
              *tdx = to_tensor(ctx, s, NULL);
  ck_assert_msg(dlca__ops_cl_unary(ctx, fn, tx, ty) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_cl_unary_backward(ctx, fn, tx, ty, tdy, tdx) == DLCA_OK, "%s", dlca_last_error());
  double ef = to_check(ty, y, "y"), eb = to_check(tdx, dx, "dx");
  fprintf(stderr, "ops cl unary %-8s forward %.2e backward %.2e\n", dlca__unary_fn_name(fn), ef, eb);
  dlca_tensor_free(tx), dlca_tensor_free(ty), dlca_tensor_free(tdy), dlca_tensor_free(tdx);
  free(xf), free(dyf), free(x), free(y), free(dy), free(dx);
  dlca_context_free(ctx);
}
END_TEST

/* Every function on two broadcast pairs; b > 0.25 keeps div and mod away from 0. */
START_TEST(test_ops_cl_binary) {
  if (!tcl_platform()) return;
  tcl_fresh_env("ops-cl-binary");
  dlca_context *ctx = tcl_context();
  dlca__binary_fn fn = (dlca__binary_fn)(_i / 2);
  dlca__shape as = {3, {4, 1, 33}}, bs = {2, {6, 1}}, ys;
  if (_i % 2) as = (dlca__shape){1, {5}}, bs = (dlca__shape){4, {2, 3, 1, 5}};
  ck_assert_int_eq(dlca__broadcast_shape(&as, &bs, &ys), DLCA_OK);
  size_t na = dlca__shape_n(&as), nb = dlca__shape_n(&bs), ny = dlca__shape_n(&ys);
  float *af = malloc(sizeof(float) * na), *bf = malloc(sizeof(float) * nb), *dyf = malloc(sizeof(float) * ny);
  double *a = malloc(sizeof(double) * na), *b = malloc(sizeof(double) * nb), *y = malloc(sizeof(double) * ny);
  double *dy = malloc(sizeof(double) * ny), *da = malloc(sizeof(double) * na), *db = malloc(sizeof(double) * nb);
  tu_random(af, na, -3, 3, 900 + (uint64_t)_i);
  tu_random(bf, nb, 0.25f, 3, 950 + (uint64_t)_i);
  tu_random(dyf, ny, -1, 1, 980 + (uint64_t)_i);
  to_double(af, a, na), to_double(bf, b, nb), to_double(dyf, dy, ny);
  ck_assert_int_eq(dlca__ref_binary(fn, &as, a, &bs, b, y), DLCA_OK);
  ck_assert_int_eq(dlca__ref_binary_backward(fn, &as, a, &bs, b, dy, da, db), DLCA_OK);
  dlca_tensor *ta = to_tensor(ctx, as, af), *tb = to_tensor(ctx, bs, bf), *ty = to_tensor(ctx, ys, NULL);
  dlca_tensor *tdy = to_tensor(ctx, ys, dyf), *tda = to_tensor(ctx, as, NULL), *tdb = to_tensor(ctx, bs, NULL);
  ck_assert_msg(dlca__ops_cl_binary(ctx, fn, ta, tb, ty) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_cl_binary_backward(ctx, fn, ta, tb, tdy, tda, tdb) == DLCA_OK, "%s", dlca_last_error());
  double e = to_check(ty, y, "y"), ea = to_check(tda, da, "da"), eb = to_check(tdb, db, "db");
  fprintf(stderr, "ops cl binary %-6s pair %d forward %.2e backward a %.2e b %.2e\n", dlca__binary_fn_name(fn), _i % 2,
          e, ea, eb);
  dlca_tensor_free(ta), dlca_tensor_free(tb), dlca_tensor_free(ty);
  dlca_tensor_free(tdy), dlca_tensor_free(tda), dlca_tensor_free(tdb);
  free(af), free(bf), free(dyf), free(a), free(b), free(y), free(dy), free(da), free(db);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_ops_cl_errors) {
  if (!tcl_platform()) return;
  tcl_fresh_env("ops-cl-errors");
  dlca_context *ctx = tcl_context(), *other = tcl_context();
  size_t big[5] = {1, 2, 3, 4, 5};
  dlca_tensor *t = NULL;
  TU_EXPECT(dlca_tensor_new(ctx, 5, big, &t), DLCA_EINVAL, "rank 5, tensors have rank 0 to 4");
  ck_assert_ptr_null(t);
  dlca_tensor *a = to_tensor(ctx, (dlca__shape){2, {2, 3}}, NULL), *b = to_tensor(ctx, (dlca__shape){1, {2}}, NULL);
  dlca_tensor *c = to_tensor(other, (dlca__shape){2, {2, 3}}, NULL),
              *y = to_tensor(ctx, (dlca__shape){2, {3, 2}}, NULL);
  float v[6] = {0};
  TU_EXPECT(dlca_tensor_upload(a, v, 5), DLCA_EINVAL, "the tensor [2, 3] has 6 elements, the host array 5");
  TU_EXPECT(dlca_tensor_download(a, v, 7), DLCA_EINVAL, "has 6 elements, the host array 7");
  TU_EXPECT(dlca__ops_cl_binary(ctx, DLCA__B_add, a, b, a), DLCA_EINVAL, "do not broadcast");
  TU_EXPECT(dlca__ops_cl_binary(ctx, DLCA__B_add, a, a, y), DLCA_EINVAL, "y has shape [3, 2], not the broadcast");
  TU_EXPECT(dlca__ops_cl_unary(ctx, DLCA__U_exp, c, a), DLCA_EINVAL, "another context");
  TU_EXPECT(dlca__ops_cl_unary(ctx, DLCA__U_exp, a, y), DLCA_EINVAL, "y has shape [3, 2], expected [2, 3]");
  dlca_device_info info;
  dlca_context_device(ctx, &info);
  size_t huge = (size_t)(info.max_alloc / sizeof(float)) + 1;
  if (huge < ((size_t)1 << 31)) TU_EXPECT(dlca_tensor_new(ctx, 1, &huge, &t), DLCA_EDEVMEM, "tensor [");
  dlca_tensor_free(a), dlca_tensor_free(b), dlca_tensor_free(c), dlca_tensor_free(y);
  dlca_context_free(other), dlca_context_free(ctx);
}
END_TEST

/* EW_WG from the tuning table (here an override) is the launch's work-group size; a value outside its range is refused.
 */
START_TEST(test_ops_cl_tuned) {
  if (!tcl_platform()) return;
  tcl_fresh_env("ops-cl-tuned");
  dlca_context *ctx = tcl_context();
  dlca__shape s = {1, {1000}};
  float xf[1000];
  double x[1000], y[1000];
  tu_random(xf, 1000, -2, 2, 42);
  to_double(xf, x, 1000);
  dlca__ref_unary(DLCA__U_exp, 1000, x, y);
  static const int wgs[] = {32, 256};
  for (int i = 0; i < 2; i++) {
    ck_assert_msg(dlca__tuning_override(ctx, "ops.cl", "EW_WG", wgs[i]) == DLCA_OK, "%s", dlca_last_error());
    dlca_tensor *tx = to_tensor(ctx, s, xf), *ty = to_tensor(ctx, s, NULL);
    ck_assert_msg(dlca__ops_cl_unary(ctx, DLCA__U_exp, tx, ty) == DLCA_OK, "%s", dlca_last_error());
    to_check(ty, y, "y");
    dlca_tensor_free(tx), dlca_tensor_free(ty);
  }
  TU_EXPECT(dlca__tuning_override(ctx, "ops.cl", "EW_WG", 3), DLCA_ETUNING, "EW_WG");
  dlca_context_free(ctx);
}
END_TEST

/* Uploads a file's tensor as float32 (the library's dlca__ops_cl_tensor). */
dlca_tensor *to_vec_tensor(dlca_context *ctx, const dlca__ops_tensor *t) {
  dlca_tensor *d;
  ck_assert_msg(dlca__ops_cl_tensor(ctx, t, &d) == DLCA_OK, "%s", dlca_last_error());
  return d;
}

/* The worst error of a device result against the file's values, failing on a miss. */
double to_vec_check(const dlca__ops_vector *v, const dlca_tensor *t, const dlca__ops_tensor *want) {
  float *got = malloc(sizeof(float) * want->n);
  ck_assert_msg(dlca_tensor_download(t, got, want->n) == DLCA_OK, "%s", dlca_last_error());
  dlca__ops_cmp c = dlca__ops_compare_f(got, want, v->tol_abs, v->tol_rel);
  ck_assert_msg(c.pass, "%s: %s[%zu] = %.9g, want %.9g", v->path, want->name, c.worst_index, got[c.worst_index],
                want->data[c.worst_index]);
  free(got);
  return c.worst;
}

/* A vector file on the device through the library's runner (dlca__ops_cl_run), every output and
 * gradient checked at the file's tolerance. */
void to_vec_run(dlca_context *ctx, const char *path) {
  dlca__ops_vector v;
  dlca__ops_result r;
  ck_assert_msg(dlca__ops_vector_load(path, &v) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_cl_run(ctx, &v, &r) == DLCA_OK, "%s", dlca_last_error());
  double worst[2] = {0, 0};
  for (int g = 0; g < 2; g++) {
    const dlca__ops_set *set = g ? &v.grads : &v.outputs;
    for (size_t i = 0; i < set->n; i++) {
      const double *got = g ? r.grad[i] : r.out[i];
      dlca__ops_cmp c = dlca__ops_compare(got, &set->t[i], v.tol_abs, v.tol_rel);
      ck_assert_msg(c.pass, "%s: %s[%zu] = %.9g, want %.9g", path, set->t[i].name, c.worst_index, got[c.worst_index],
                    set->t[i].data[c.worst_index]);
      worst[g] = fmax(worst[g], c.worst);
    }
  }
  fprintf(stderr, "ops cl %-24s forward %.2e backward %.2e (%zu grads)\n", v.name, worst[0], worst[1], v.grads.n);
  dlca__ops_result_free(&r);
  dlca__ops_vector_free(&v);
}

START_TEST(test_ops_cl_vectors) {
  const char *dir = to_dir();
  if (!dir || !tcl_platform()) return;
  tcl_fresh_env("ops-cl-vectors");
  dlca_context *ctx = tcl_context();
  to_list list;
  to_list_files(dir, _i ? "binary_" : "unary_", &list);
  ck_assert(list.n > 0);
  for (size_t i = 0; i < list.n; i++) to_vec_run(ctx, list.path[i]);
  to_list_free(&list);
  dlca_context_free(ctx);
}
END_TEST

TCase *to_tcase_cl(void) {
  TCase *tc = tcase_create("cl");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_ops_cl_unary, 0, DLCA__U_COUNT);
  tcase_add_loop_test(tc, test_ops_cl_binary, 0, 2 * DLCA__B_COUNT);
  tcase_add_test(tc, test_ops_cl_errors);
  tcase_add_test(tc, test_ops_cl_tuned);
  tcase_add_loop_test(tc, test_ops_cl_vectors, 0, 2);
  to_add_cl_reduce(tc);
  to_add_cl_move(tc);
  to_add_cl_loss(tc);
  return tc;
}
