/* The public ops (include/dlca_cl/ops.h) on the OpenCL device (PoCL in CI):
 * each op forward and backward against the CPU twin on fresh random inputs,
 * and the bad inputs the issue names (mismatched shapes, a rank over 4, a
 * tensor of another context, out of device memory). The tape's tests are
 * in tests/test_ops_tape.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "dlca_cl/ops.h"
#include "dlca_cl/parity.h"
#include "ops_util.h"



START_TEST(test_api_unary) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-unary");
  dlca_context *ctx = tcl_context();
  dlca_unary_fn fn = (dlca_unary_fn)_i;
  dlca__shape s = {2, {5, 9}};
  int pos = fn == DLCA_UNARY_LOG || fn == DLCA_UNARY_SQRT || fn == DLCA_UNARY_RECIP || fn == DLCA_UNARY_LOG2;
  double *x, *dy, y[45], dx[45];
  dlca_tensor *tx = to_rand_tensor(ctx, s, pos ? 0.25f : -2, 2, 2000 + (uint64_t)_i, &x);
  dlca_tensor *tdy = to_rand_tensor(ctx, s, -1, 1, 2100 + (uint64_t)_i, &dy);
  dlca_tensor *ty = to_tensor(ctx, s, NULL), *tdx = to_tensor(ctx, s, NULL);
  dlca__ref_unary((dlca__unary_fn)fn, 45, x, y);
  dlca__ref_unary_backward((dlca__unary_fn)fn, 45, x, y, dy, dx);
  TU_OK(dlca_unary(fn, tx, ty));
  TU_OK(dlca_unary_backward(fn, tx, ty, tdy, tdx));
  double ef = to_check(ty, y, "y"), eb = to_check(tdx, dx, "dx");
  fprintf(stderr, "ops api unary %-8s forward %.2e backward %.2e\n", dlca_unary_fn_name(fn), ef, eb);
  dlca_tensor_free(tx), dlca_tensor_free(tdy), dlca_tensor_free(ty), dlca_tensor_free(tdx);
  free(x), free(dy);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_api_binary) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-binary");
  dlca_context *ctx = tcl_context();
  dlca_binary_fn fn = (dlca_binary_fn)_i;
  dlca__shape as = {3, {2, 1, 7}}, bs = {2, {3, 1}}, ys = {3, {2, 3, 7}};
  double *a, *b, *dy, y[42], da[14], db[3];
  dlca_tensor *ta = to_rand_tensor(ctx, as, -3, 3, 2200 + (uint64_t)_i, &a);
  dlca_tensor *tb = to_rand_tensor(ctx, bs, 0.25f, 3, 2300 + (uint64_t)_i, &b);
  dlca_tensor *tdy = to_rand_tensor(ctx, ys, -1, 1, 2400 + (uint64_t)_i, &dy);
  int rank;
  size_t shape[DLCA_TENSOR_MAX_RANK];
  TU_OK(dlca_broadcast_shape(ta, tb, &rank, shape));
  ck_assert_int_eq(rank, 3);
  ck_assert(shape[0] == 2 && shape[1] == 3 && shape[2] == 7);
  dlca_tensor *ty = to_tensor(ctx, ys, NULL), *tda = to_tensor(ctx, as, NULL), *tdb = to_tensor(ctx, bs, NULL);
  ck_assert_int_eq(dlca__ref_binary((dlca__binary_fn)fn, &as, a, &bs, b, y), DLCA_OK);
  ck_assert_int_eq(dlca__ref_binary_backward((dlca__binary_fn)fn, &as, a, &bs, b, dy, da, db), DLCA_OK);
  TU_OK(dlca_binary(fn, ta, tb, ty));
  TU_OK(dlca_binary_backward(fn, ta, tb, tdy, tda, tdb));
  double ef = to_check(ty, y, "y"), ea = to_check(tda, da, "da"), eb = to_check(tdb, db, "db");
  fprintf(stderr, "ops api binary %-6s forward %.2e backward %.2e %.2e\n", dlca_binary_fn_name(fn), ef, ea, eb);
  dlca_tensor_free(ta), dlca_tensor_free(tb), dlca_tensor_free(tdy), dlca_tensor_free(ty), dlca_tensor_free(tda),
      dlca_tensor_free(tdb);
  free(a), free(b), free(dy);
  dlca_context_free(ctx);
}
END_TEST

/* sum/max/mean over axes {0, 2} of [3, 4, 5], with and without keepdim, and over every axis (naxes 0). */
START_TEST(test_api_reduce) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-reduce");
  dlca_context *ctx = tcl_context();
  dlca_reduce_fn fn = (dlca_reduce_fn)(_i % 3);
  int keep = _i / 3 == 1, all = _i / 3 == 2, axes[] = {0, -1};
  dlca__shape xs = {3, {3, 4, 5}}, ys = keep ? (dlca__shape){3, {1, 4, 1}} : (dlca__shape){1, {4}};
  if (all) ys = (dlca__shape){0, {0}};
  unsigned mask = all ? 7u : 5u;
  double *x, *dy, y[4], dx[60];
  dlca_tensor *tx = to_rand_tensor(ctx, xs, -3, 3, 2500 + (uint64_t)_i, &x);
  dlca_tensor *tdy = to_rand_tensor(ctx, ys, -1, 1, 2600 + (uint64_t)_i, &dy);
  int rank;
  size_t shape[DLCA_TENSOR_MAX_RANK];
  TU_OK(dlca_reduce_shape(tx, axes, all ? 0 : 2, keep, &rank, shape));
  ck_assert_int_eq(rank, ys.rank);
  dlca_tensor *ty = to_tensor(ctx, ys, NULL), *tdx = to_tensor(ctx, xs, NULL);
  dlca__ref_reduce((dlca__reduce_fn)fn, &xs, mask, x, y);
  ck_assert_int_eq(dlca__ref_reduce_backward((dlca__reduce_fn)fn, &xs, mask, x, dy, dx), DLCA_OK);
  TU_OK(dlca_reduce(fn, tx, axes, all ? 0 : 2, keep, ty));
  TU_OK(dlca_reduce_backward(fn, tx, axes, all ? 0 : 2, keep, tdy, tdx));
  double ef = to_check(ty, y, "y"), eb = to_check(tdx, dx, "dx");
  fprintf(stderr, "ops api reduce %-4s case %d forward %.2e backward %.2e\n", dlca_reduce_fn_name(fn), _i / 3, ef, eb);
  dlca_tensor_free(tx), dlca_tensor_free(tdy), dlca_tensor_free(ty), dlca_tensor_free(tdx);
  free(x), free(dy);
  dlca_context_free(ctx);
}
END_TEST

static const struct {
  dlca_movement m;
  dlca__shape xs;
} moves[] = {
    {{DLCA_MOVE_PERMUTE, 3, {{2}, {0}, {1}}, 0}, {3, {2, 3, 4}}},
    {{DLCA_MOVE_EXPAND, 3, {{3}, {-1}, {4}}, 0}, {3, {1, 3, 1}}},
    {{DLCA_MOVE_PAD, 2, {{1, 2}, {0, 1}}, -0.5}, {2, {3, 4}}},
    {{DLCA_MOVE_SHRINK, 2, {{1, 3}, {2, 4}}, 0}, {2, {4, 5}}},
    {{DLCA_MOVE_STRIDE, 2, {{2}, {3}}, 0}, {2, {5, 7}}},
};

START_TEST(test_api_move) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-move");
  dlca_context *ctx = tcl_context();
  const dlca_movement *m = &moves[_i].m;
  dlca__shape xs = moves[_i].xs, ys;
  int rank;
  double *x, *dy;
  dlca_tensor *tx = to_rand_tensor(ctx, xs, -3, 3, 2700 + (uint64_t)_i, &x);
  TU_OK(dlca_move_shape(m, tx, &rank, ys.d));
  ys.rank = rank;
  size_t nx = dlca__shape_n(&xs), ny = dlca__shape_n(&ys);
  double *y = malloc(sizeof(double) * ny), *dx = malloc(sizeof(double) * nx);
  dlca_tensor *tdy = to_rand_tensor(ctx, ys, -1, 1, 2800 + (uint64_t)_i, &dy);
  dlca_tensor *ty = to_tensor(ctx, ys, NULL), *tdx = to_tensor(ctx, xs, NULL);
  dlca__move tm = {(dlca__move_fn)m->fn, m->n, {{0}}, m->value};
  memcpy(tm.arg, m->arg, sizeof tm.arg);
  ck_assert_int_eq(dlca__ref_move(&tm, &xs, x, y), DLCA_OK);
  ck_assert_int_eq(dlca__ref_move_backward(&tm, &xs, dy, dx), DLCA_OK);
  TU_OK(dlca_move(m, tx, ty));
  TU_OK(dlca_move_backward(m, tdy, tdx));
  double ef = to_check(ty, y, "y"), eb = to_check(tdx, dx, "dx");
  fprintf(stderr, "ops api move %-8s forward %.2e backward %.2e\n", dlca_move_fn_name(m->fn), ef, eb);
  dlca_tensor_free(tx), dlca_tensor_free(tdy), dlca_tensor_free(ty), dlca_tensor_free(tdx);
  free(x), free(dy), free(y), free(dx);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_api_losses) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-losses");
  dlca_context *ctx = tcl_context();
  dlca__shape s = {2, {6, 5}}, ts = {1, {6}}, one = {0, {0}};
  double *in, *tg, *g, loss, din[30], dt[30];
  dlca_tensor *ti = to_rand_tensor(ctx, s, -2, 2, 2900, &in), *tt = to_rand_tensor(ctx, s, -2, 2, 2901, &tg);
  dlca_tensor *tgr = to_rand_tensor(ctx, one, 0.5f, 2, 2902, &g), *tl = to_tensor(ctx, one, NULL);
  dlca_tensor *tdi = to_tensor(ctx, s, NULL), *tdt = to_tensor(ctx, s, NULL);
  loss = dlca__ref_mse(30, in, tg);
  dlca__ref_mse_backward(30, in, tg, *g, din, dt);
  TU_OK(dlca_mse(ti, tt, tl));
  TU_OK(dlca_mse_backward(ti, tt, tgr, tdi, tdt));
  double e1 = fmax(to_check(tl, &loss, "mse"), fmax(to_check(tdi, din, "d_input"), to_check(tdt, dt, "d_target")));
  float cls[6] = {0, 4, 2, 3, 1, 4};
  double dcls[6], dl[30];
  to_double(cls, dcls, 6);
  dlca_tensor *tc = to_tensor(ctx, ts, cls);
  ck_assert_int_eq(dlca__ref_softmax_xent(6, 5, in, dcls, &loss), DLCA_OK);
  ck_assert_int_eq(dlca__ref_softmax_xent_backward(6, 5, in, dcls, *g, dl), DLCA_OK);
  TU_OK(dlca_softmax_cross_entropy(ti, tc, tl));
  TU_OK(dlca_softmax_cross_entropy_backward(ti, tc, tgr, tdi));
  double e2 = fmax(to_check(tl, &loss, "xent"), to_check(tdi, dl, "d_logits"));
  TU_OK(dlca_ops_finish(ctx));
  fprintf(stderr, "ops api mse %.2e softmax_cross_entropy %.2e\n", e1, e2);
  dlca_tensor_free(ti), dlca_tensor_free(tt), dlca_tensor_free(tgr), dlca_tensor_free(tl), dlca_tensor_free(tdi),
      dlca_tensor_free(tdt), dlca_tensor_free(tc);
  free(in), free(tg), free(g);
  dlca_context_free(ctx);
}
END_TEST

/* Mismatched shapes, bad functions and arguments: DLCA_EINVAL naming the function, the tensor and the shapes. */
START_TEST(test_api_bad_shapes) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-bad-shapes");
  dlca_context *ctx = tcl_context();
  dlca_tensor *a = to_tensor(ctx, (dlca__shape){2, {2, 3}}, NULL), *b = to_tensor(ctx, (dlca__shape){1, {2}}, NULL);
  dlca_tensor *y = to_tensor(ctx, (dlca__shape){2, {3, 2}}, NULL), *s = to_tensor(ctx, (dlca__shape){0, {0}}, NULL);
  TU_EXPECT(dlca_unary(DLCA_UNARY_EXP, a, y), DLCA_EINVAL, "dlca_unary: y has shape [3, 2], expected [2, 3]");
  TU_EXPECT(dlca_unary((dlca_unary_fn)99, a, a), DLCA_EINVAL, "dlca_unary: no unary function 99");
  TU_EXPECT(dlca_binary(DLCA_BINARY_ADD, a, b, a), DLCA_EINVAL, "dlca_binary: a [2, 3] and b [2] do not broadcast");
  TU_EXPECT(dlca_binary(DLCA_BINARY_MUL, a, a, y), DLCA_EINVAL, "dlca_binary: y has shape [3, 2], expected [2, 3]");
  TU_EXPECT(dlca_binary_backward(DLCA_BINARY_MUL, a, a, y, NULL, a), DLCA_EINVAL, "dy has shape [3, 2]");
  TU_EXPECT(dlca_unary_backward(DLCA_UNARY_EXP, a, a, a, y), DLCA_EINVAL, "dx has shape [3, 2], expected [2, 3]");
  int axes[] = {2};
  TU_EXPECT(dlca_reduce(DLCA_REDUCE_SUM, a, axes, 1, 0, b), DLCA_EINVAL, "dlca_reduce: x has rank 2: reduce: axis 2");
  axes[0] = 1;
  TU_EXPECT(dlca_reduce(DLCA_REDUCE_SUM, a, axes, 1, 1, b), DLCA_EINVAL, "dlca_reduce: y has shape [2], expected [2, 1]");
  TU_EXPECT(dlca_reduce(DLCA_REDUCE_SUM, a, axes, 5, 0, b), DLCA_EINVAL, "5 axes given");
  dlca_movement m = {DLCA_MOVE_PERMUTE, 2, {{1}, {1}}, 0};
  TU_EXPECT(dlca_move(&m, a, y), DLCA_EINVAL, "dlca_move: permute on x of rank 2");
  m.arg[0][0] = 1, m.arg[1][0] = 0;
  TU_EXPECT(dlca_move(&m, a, a), DLCA_EINVAL, "dlca_move: y has shape [2, 3], expected [3, 2]");
  TU_OK(dlca_move(&m, a, y));
  TU_EXPECT(dlca_mse(a, y, s), DLCA_EINVAL, "target has shape [3, 2], expected [2, 3]");
  TU_EXPECT(dlca_mse(a, a, a), DLCA_EINVAL, "loss has shape [2, 3], expected one element");
  TU_EXPECT(dlca_softmax_cross_entropy(a, a, s), DLCA_EINVAL, "expected logits [N, K] and target [N]");
  TU_EXPECT(dlca_unary(DLCA_UNARY_EXP, NULL, a), DLCA_EINVAL, "dlca_unary: x: no tensor (NULL)");
  dlca_tensor_free(a), dlca_tensor_free(b), dlca_tensor_free(y), dlca_tensor_free(s);
  dlca_context_free(ctx);
}
END_TEST

/* A rank over 4, a tensor of another context and an allocation the device cannot hold. */
START_TEST(test_api_bad_tensors) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-bad-tensors");
  dlca_context *ctx = tcl_context(), *other = tcl_context();
  size_t five[5] = {1, 2, 1, 2, 1};
  dlca_tensor *t = NULL;
  TU_EXPECT(dlca_tensor_new(ctx, 5, five, &t), DLCA_EINVAL, "rank 5, tensors have rank 0 to 4");
  ck_assert_ptr_null(t);
  dlca_tensor *a = to_tensor(ctx, (dlca__shape){1, {4}}, NULL), *c = to_tensor(other, (dlca__shape){1, {4}}, NULL);
  TU_EXPECT(dlca_binary(DLCA_BINARY_ADD, a, c, a), DLCA_EINVAL, "dlca_binary: b: the tensor belongs to another context");
  TU_EXPECT(dlca_unary(DLCA_UNARY_EXP, a, c), DLCA_EINVAL, "dlca_unary: y: the tensor belongs to another context");
  TU_EXPECT(dlca_mse_backward(a, a, c, NULL, a), DLCA_EINVAL, "dlca_mse_backward: g: the tensor belongs to another");
  dlca_device_info info;
  dlca_context_device(ctx, &info);
  size_t huge = (size_t)(info.max_alloc / sizeof(float)) + 1;
  if (huge < ((size_t)1 << 31)) TU_EXPECT(dlca_tensor_new(ctx, 1, &huge, &t), DLCA_EDEVMEM, "tensor [");
  size_t batch[4] = {1u << 16, 1u << 16, 1, 1}; /* 2^32 elements: refused before any allocation */
  TU_EXPECT(dlca_tensor_new(ctx, 4, batch, &t), DLCA_EINVAL, "over 2^31 elements");
  dlca_tensor_free(a), dlca_tensor_free(c);
  dlca_context_free(other), dlca_context_free(ctx);
}
END_TEST

/* Every ops file through the public parity entry, on the twin and on the
 * device: each passes or is an op this build lacks (DLCA_EUNSUPPORTED); the
 * device runs at least the 39 files of the ops it has launchers for. */
START_TEST(test_api_parity_files) {
  const char *dir = to_dir();
  if (!dir || !tcl_platform()) return;
  tcl_fresh_env("api-parity-files");
  dlca_context *ctx = tcl_context();
  to_list list;
  to_list_files(dir, "", &list);
  int passed[2] = {0, 0};
  for (size_t i = 0; i < list.n; i++) {
    dlca_vector_kind kind;
    TU_OK(dlca_parity_vector_kind(list.path[i], &kind));
    ck_assert_int_eq(kind, DLCA_VECTOR_OPS);
    for (int b = 0; b < 2; b++) {
      dlca_ops_parity_report r;
      int rc = dlca_parity_ops_vector(b ? ctx : NULL, list.path[i], &r);
      if (rc == DLCA_EUNSUPPORTED) {
        ck_assert_msg(strstr(dlca_last_error(), "not implemented"), "%s", dlca_last_error());
        continue;
      }
      ck_assert_msg(rc == DLCA_OK, "%s", dlca_last_error());
      ck_assert_msg(r.all_pass && r.n > 0, "%s on %s: fails", list.path[i], b ? "the device" : "the twin");
      passed[b]++;
    }
  }
  fprintf(stderr, "ops api parity: %d files pass on the twin, %d on the device (of %zu)\n", passed[0], passed[1],
          list.n);
  ck_assert_int_ge(passed[1], 39);
  ck_assert_int_ge(passed[0], passed[1]);
  to_list_free(&list);
  dlca_context_free(ctx);
}
END_TEST

/* A JAX vector is told apart; a corrupt file and a made-up op are refused by name. */
START_TEST(test_api_parity_bad) {
  const char *tmp = tu_tmpdir("api-parity-bad");
  dlca_vector_kind kind;
  const char *jax = tu_write(tmp, "jax.json", "{\"name\": \"x\", \"model\": {\"format\": \"dlca-model\"}}");
  TU_OK(dlca_parity_vector_kind(jax, &kind));
  ck_assert_int_eq(kind, DLCA_VECTOR_JAX);
  const char *bad = tu_write(tmp, "bad.json", "{\"format\": \"dlca-ops-vector\", ");
  TU_EXPECT(dlca_parity_vector_kind(bad, &kind), DLCA_EPARSE, "bad.json:1:");
  TU_EXPECT(dlca_parity_vector_kind("/nonexistent/x.json", &kind), DLCA_EIO, "/nonexistent/x.json: cannot be read");
  const char *made_up = tu_write(tmp, "made_up.json",
                                 "{\"format\": \"dlca-ops-vector\", \"version\": 1, \"case\": \"m\", \"op\": "
                                 "\"frobnicate\", \"inputs\": {}, \"outputs\": {}, \"tolerance\": {\"abs\": 1e-4, "
                                 "\"rel\": 1e-4}}");
  dlca_ops_parity_report r;
  TU_EXPECT(dlca_parity_ops_vector(NULL, made_up, &r), DLCA_EUNSUPPORTED, "op frobnicate not implemented");
  TU_EXPECT(dlca_parity_ops_vector(NULL, bad, &r), DLCA_EPARSE, "bad.json");
}
END_TEST

TCase *to_tcase_tape(void);
TCase *to_tcase_api_blas(void);
TCase *to_tcase_api_conv(void);
TCase *to_tcase_api_train(void);
TCase *to_tcase_api_gru(void);

static TCase *to_tcase_api(void) {
  TCase *tc = tcase_create("api");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_api_unary, 0, DLCA_UNARY_COUNT);
  tcase_add_loop_test(tc, test_api_binary, 0, DLCA_BINARY_COUNT);
  tcase_add_loop_test(tc, test_api_reduce, 0, 9);
  tcase_add_loop_test(tc, test_api_move, 0, (int)(sizeof moves / sizeof moves[0]));
  tcase_add_test(tc, test_api_losses);
  tcase_add_test(tc, test_api_bad_shapes);
  tcase_add_test(tc, test_api_bad_tensors);
  tcase_add_test(tc, test_api_parity_files);
  tcase_add_test(tc, test_api_parity_bad);
  return tc;
}

Suite *suite_ops_api(void) {
  Suite *s = suite_create("ops_api");
  suite_add_tcase(s, to_tcase_api());
  suite_add_tcase(s, to_tcase_tape());
  suite_add_tcase(s, to_tcase_api_blas());
  suite_add_tcase(s, to_tcase_api_conv());
  suite_add_tcase(s, to_tcase_api_train());
  suite_add_tcase(s, to_tcase_api_gru());
  return s;
}
