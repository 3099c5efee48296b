/* dense on the OpenCL device (PoCL in CI) against the CPU twin on fresh
 * random inputs, forward and backward, every activation; the device
 * runners on every gemm_ and dense_ vector; dense's bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_util.h"
#include "cl_util.h"
#include "ops/cl_blas.h"
#include "ops_util.h"

/* x [n,in], W [out,in], b [out] random; the device's y, dx, dW, db against the twin's. The worst error. */
static double dense_check(dlca_context *ctx, dlca__act act, size_t n, size_t in, size_t out, int bias, int inplace,
                          uint64_t seed) {
  size_t nx = n * in, nw = out * in, ny = n * out;
  float *f = malloc(sizeof(float) * (nx + nw + out + ny));
  double *d = malloc(sizeof(double) * (nx + nw + out + ny)), *y = malloc(sizeof(double) * ny);
  double *dx = malloc(sizeof(double) * nx), *dw = malloc(sizeof(double) * nw), *db = malloc(sizeof(double) * out);
  tu_random(f, nx + nw + out + ny, -1, 1, seed);
  to_double(f, d, nx + nw + out + ny);
  double *x = d, *w = d + nx, *b = d + nx + nw, *dy = d + nx + nw + out;
  dlca__ref_dense(act, n, in, out, x, w, bias ? b : NULL, y);
  dlca__ref_dense_backward(act, n, in, out, x, w, y, dy, dx, dw, bias ? db : NULL);
  dlca_tensor *tx = to_tensor(ctx, (dlca__shape){2, {n, in}}, f), *tw = to_tensor(ctx, (dlca__shape){2, {out, in}}, f + nx);
  dlca_tensor *tb = bias ? to_tensor(ctx, (dlca__shape){1, {out}}, f + nx + nw) : NULL;
  dlca_tensor *ty = to_tensor(ctx, (dlca__shape){2, {n, out}}, NULL);
  dlca_tensor *tdy = to_tensor(ctx, (dlca__shape){2, {n, out}}, f + nx + nw + out);
  dlca_tensor *tdz = inplace ? tdy : to_tensor(ctx, (dlca__shape){2, {n, out}}, NULL);
  dlca_tensor *tdx = to_tensor(ctx, (dlca__shape){2, {n, in}}, NULL), *tdw = to_tensor(ctx, (dlca__shape){2, {out, in}}, NULL);
  dlca_tensor *tdb = bias ? to_tensor(ctx, (dlca__shape){1, {out}}, NULL) : NULL;
  ck_assert_msg(dlca__ops_cl_dense(ctx, act, tx, tw, tb, ty) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_cl_dense_backward(ctx, act, tx, tw, ty, tdy, tdz, tdx, tdw, tdb) == DLCA_OK, "%s",
                dlca_last_error());
  double e = fmax(to_check(ty, y, "y"), fmax(to_check(tdx, dx, "dx"), to_check(tdw, dw, "dW")));
  if (bias) e = fmax(e, to_check(tdb, db, "db"));
  dlca_tensor_free(tx), dlca_tensor_free(tw), dlca_tensor_free(tb), dlca_tensor_free(ty), dlca_tensor_free(tdy);
  if (!inplace) dlca_tensor_free(tdz);
  dlca_tensor_free(tdx), dlca_tensor_free(tdw), dlca_tensor_free(tdb);
  free(f), free(d), free(y), free(dx), free(dw), free(db);
  return e;
}

START_TEST(test_blas_cl_dense_random) {
  if (!tcl_platform()) return;
  tcl_fresh_env("blas-cl-dense");
  dlca_context *ctx = tcl_context();
  dlca__act act = (dlca__act)_i;
  /* the fused forward (every shape here is under DENSE_FUSED_MAX), then GEMM + bias kernel (0: never fused) */
  for (int gemm = 0; gemm < 2; gemm++) {
    if (gemm) ck_assert_int_eq(dlca__tuning_override(ctx, "ops.cl", "DENSE_FUSED_MAX", 0), DLCA_OK);
    int fused_max = -1;
    ck_assert_int_eq(dlca__dense_kernel(ctx, NULL, NULL, NULL, &fused_max), DLCA_OK);
    ck_assert_msg(gemm ? fused_max == 0 : fused_max >= 32 * 64 * 128, "DENSE_FUSED_MAX %d", fused_max);
    double e = fmax(dense_check(ctx, act, 13, 7, 5, 1, 0, 40 + (uint64_t)_i),
                    dense_check(ctx, act, 32, 64, 128, 1, 1, 50 + (uint64_t)_i));
    e = fmax(e, dense_check(ctx, act, 1, 3, 67, 0, 0, 60 + (uint64_t)_i));
    e = fmax(e, dense_check(ctx, act, 100, 1, 9, 1, 1, 70 + (uint64_t)_i));
    fprintf(stderr, "blas cl dense %-7s %s worst |device - twin| %.2e (4 shapes)\n", dlca__act_name(act),
            gemm ? "GEMM + bias kernel" : "fused forward     ", e);
  }
  dlca_context_free(ctx);
}
END_TEST

/* r's slots for v, as the dispatch of lib/ops/cl_case.c allocates them. */
static void alloc_result(const dlca__ops_vector *v, dlca__ops_result *r) {
  r->n_out = v->outputs.n, r->n_grad = v->grads.n;
  r->out = calloc(r->n_out + 1, sizeof(double *)), r->grad = calloc(r->n_grad + 1, sizeof(double *));
  for (size_t i = 0; i < r->n_out; i++) r->out[i] = calloc(v->outputs.t[i].n + 1, sizeof(double));
  for (size_t i = 0; i < r->n_grad; i++) r->grad[i] = calloc(v->grads.t[i].n + 1, sizeof(double));
}

/* One file on the device through its runner, against the file's values. */
static void run_file(dlca_context *ctx, const char *path) {
  dlca__ops_vector v;
  dlca__ops_result r;
  ck_assert_msg(dlca__ops_vector_load(path, &v) == DLCA_OK, "%s", dlca_last_error());
  alloc_result(&v, &r);
  int rc = !strcmp(v.op, "gemm") ? dlca__ops_cl_run_gemm(ctx, &v, &r) : dlca__ops_cl_run_dense(ctx, &v, &r);
  ck_assert_msg(rc == DLCA_OK, "%s", dlca_last_error());
  double wf = 0, wb = 0;
  for (int s = 0; s < 2; s++) {
    const dlca__ops_set *set = s ? &v.grads : &v.outputs;
    for (size_t i = 0; i < set->n; i++) {
      dlca__ops_cmp c = dlca__ops_compare(s ? r.grad[i] : r.out[i], &set->t[i], v.tol_abs, v.tol_rel);
      ck_assert_msg(c.pass, "%s: %s[%zu] misses by %g", v.path, set->t[i].name, c.worst_index, c.worst);
      if (s) wb = fmax(wb, c.worst);
      else wf = fmax(wf, c.worst);
    }
  }
  fprintf(stderr, "blas cl %-24s forward %.2e backward %.2e (%zu grads)\n", v.name, wf, wb, v.grads.n);
  dlca__ops_result_free(&r);
  dlca__ops_vector_free(&v);
}

START_TEST(test_blas_cl_vectors) {
  const char *dir = to_dir();
  if (!dir || !tcl_platform()) return;
  tcl_fresh_env("blas-cl-vectors");
  dlca_context *ctx = tcl_context();
  to_list list;
  to_list_files(dir, _i ? "dense_" : "gemm_", &list);
  ck_assert(list.n > 0);
  for (size_t i = 0; i < list.n; i++) run_file(ctx, list.path[i]);
  to_list_free(&list);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_blas_cl_dense_errors) {
  if (!tcl_platform()) return;
  tcl_fresh_env("blas-cl-dense-errors");
  dlca_context *ctx = tcl_context(), *other = tcl_context();
  dlca_tensor *x = to_tensor(ctx, (dlca__shape){2, {4, 6}}, NULL), *w = to_tensor(ctx, (dlca__shape){2, {3, 6}}, NULL);
  dlca_tensor *b = to_tensor(ctx, (dlca__shape){1, {3}}, NULL), *y = to_tensor(ctx, (dlca__shape){2, {4, 3}}, NULL);
  dlca_tensor *bad = to_tensor(ctx, (dlca__shape){2, {3, 5}}, NULL), *far = to_tensor(other, (dlca__shape){1, {3}}, NULL);
  TU_EXPECT(dlca__ops_cl_dense(ctx, DLCA__ACT_relu, x, bad, b, y), DLCA_EINVAL, "got x [4, 6], W [3, 5], b [3], y [4, 3]");
  TU_EXPECT(dlca__ops_cl_dense(ctx, DLCA__ACT_relu, x, w, far, y), DLCA_EINVAL, "another context");
  TU_EXPECT(dlca__ops_cl_dense(ctx, DLCA__ACT_COUNT, x, w, b, y), DLCA_EINVAL, "no activation");
  TU_EXPECT(dlca__ops_cl_dense_backward(ctx, DLCA__ACT_tanh, x, w, y, y, y, x, bad, b), DLCA_EINVAL,
         "dW has shape [3, 5], expected [3, 6]");
  TU_EXPECT(dlca__ops_cl_dense_backward(ctx, DLCA__ACT_tanh, x, w, y, y, y, NULL, w, NULL), DLCA_OK, "");
  dlca_tensor_free(x), dlca_tensor_free(w), dlca_tensor_free(b), dlca_tensor_free(y), dlca_tensor_free(bad),
      dlca_tensor_free(far);
  dlca_context_free(other), dlca_context_free(ctx);
}
END_TEST

void tb_add_cl_dense(TCase *tc) {
  tcase_add_loop_test(tc, test_blas_cl_dense_random, 0, DLCA__ACT_COUNT);
  tcase_add_loop_test(tc, test_blas_cl_vectors, 0, 2);
  tcase_add_test(tc, test_blas_cl_dense_errors);
}
