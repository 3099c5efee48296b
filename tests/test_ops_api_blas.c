/* The public GEMM and dense (include/dlca_cl/ops.h) on the OpenCL device
 * (PoCL in CI) against the CPU twin (lib/ops/ref_blas.h) on fresh random
 * inputs: every transpose, plain and strided-batched with a shared operand;
 * dense with each activation, with and without bias; and a two-layer MLP
 * and a GEMM on the tape against the twin's composed gradients. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "dlca_cl/ops.h"
#include "ops/ref_blas.h"
#include "ops_util.h"


TCase *to_tcase_api_blas(void);


/* _i: the transposes (bits 0, 1) and the batching (_i / 4: none, a shared, both batched). */
START_TEST(test_api_gemm) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-gemm");
  dlca_context *ctx = tcl_context();
  int ta = _i & 1, tb = _i >> 1 & 1, mode = _i / 4;
  size_t m = 5, n = 7, k = 3, B = mode ? 3 : 1;
  dlca__shape as = ta ? (dlca__shape){2, {k, m}} : (dlca__shape){2, {m, k}};
  dlca__shape bs = tb ? (dlca__shape){2, {n, k}} : (dlca__shape){2, {k, n}}, ys = {2, {m, n}};
  if (mode) ys = (dlca__shape){3, {B, m, n}}, bs = (dlca__shape){3, {B, bs.d[0], bs.d[1]}};
  if (mode == 2) as = (dlca__shape){3, {B, as.d[0], as.d[1]}};
  float alpha = 1.5f, beta = 0.5f;
  double *a, *b, *c, *dy;
  dlca_tensor *tA = to_rand_tensor(ctx, as, -1, 1, 4000 + (uint64_t)_i, &a),
              *tB = to_rand_tensor(ctx, bs, -1, 1, 4100 + (uint64_t)_i, &b);
  dlca_tensor *tC = to_rand_tensor(ctx, ys, -1, 1, 4200 + (uint64_t)_i, &c),
              *tdy = to_rand_tensor(ctx, ys, -1, 1, 4300 + (uint64_t)_i, &dy);
  dlca_tensor *ty = to_tensor(ctx, ys, NULL), *tda = to_tensor(ctx, as, NULL), *tdb = to_tensor(ctx, bs, NULL);
  dlca_tensor *tdc = to_tensor(ctx, ys, NULL);
  size_t na = dlca__shape_n(&as), nb = dlca__shape_n(&bs), ny = dlca__shape_n(&ys);
  double *y = malloc(sizeof(double) * ny), *da = calloc(na, sizeof(double)), *db = calloc(nb, sizeof(double));
  double *dc = malloc(sizeof(double) * ny);
  memcpy(y, c, sizeof(double) * ny);
  dlca__gemm g = {
      ta,   tb, m, n, k, alpha, beta, ta ? m : k, tb ? k : n, n, 0, 0, 0, B, mode == 2 ? m * k : 0, mode ? k * n : 0,
      m * n};
  dlca__ref_gemm(&g, a, b, y);
  dlca__ref_gemm_backward(&g, a, b, dy, da, db, dc);
  TU_OK(dlca_gemm(ta, tb, alpha, tA, tB, beta, tC, ty));
  TU_OK(dlca_gemm_backward(ta, tb, alpha, tA, tB, beta, tdy, tda, tdb, tdc));
  double ef = to_check(ty, y, "y"),
         eb = fmax(to_check(tda, da, "da"), fmax(to_check(tdb, db, "db"), to_check(tdc, dc, "dc")));
  fprintf(stderr, "ops api gemm ta %d tb %d batch mode %d forward %.2e backward %.2e\n", ta, tb, mode, ef, eb);
  dlca_tensor_free(tA), dlca_tensor_free(tB), dlca_tensor_free(tC), dlca_tensor_free(tdy), dlca_tensor_free(ty),
      dlca_tensor_free(tda), dlca_tensor_free(tdb), dlca_tensor_free(tdc);
  free(a), free(b), free(c), free(dy), free(y), free(da), free(db), free(dc);
  dlca_context_free(ctx);
}
END_TEST

/* _i: the activation (_i % 4), with bias (_i < 4) or without. */
START_TEST(test_api_dense) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-dense");
  dlca_context *ctx = tcl_context();
  dlca_activation act = (dlca_activation)(_i % 4);
  int bias = _i < 4;
  size_t N = 6, in = 5, out = 4;
  double *x, *w, *b, *dy, y[24], dx[30], dw[20], db[4];
  dlca_tensor *tx = to_rand_tensor(ctx, (dlca__shape){2, {N, in}}, -1, 1, 4400 + (uint64_t)_i, &x);
  dlca_tensor *tw = to_rand_tensor(ctx, (dlca__shape){2, {out, in}}, -1, 1, 4500 + (uint64_t)_i, &w);
  dlca_tensor *tb = to_rand_tensor(ctx, (dlca__shape){1, {out}}, -1, 1, 4600 + (uint64_t)_i, &b);
  dlca_tensor *tdy = to_rand_tensor(ctx, (dlca__shape){2, {N, out}}, -1, 1, 4700 + (uint64_t)_i, &dy);
  dlca_tensor *ty = to_tensor(ctx, (dlca__shape){2, {N, out}}, NULL),
              *tdx = to_tensor(ctx, (dlca__shape){2, {N, in}}, NULL);
  dlca_tensor *tdw = to_tensor(ctx, (dlca__shape){2, {out, in}}, NULL),
              *tdb = to_tensor(ctx, (dlca__shape){1, {out}}, NULL);
  dlca__ref_dense((dlca__act)act, N, in, out, x, w, bias ? b : NULL, y);
  dlca__ref_dense_backward((dlca__act)act, N, in, out, x, w, y, dy, dx, dw, db);
  TU_OK(dlca_dense(act, tx, tw, bias ? tb : NULL, ty));
  TU_OK(dlca_dense_backward(act, tx, tw, ty, tdy, tdx, tdw, bias ? tdb : NULL));
  double ef = to_check(ty, y, "y"), eb = fmax(to_check(tdx, dx, "dx"), to_check(tdw, dw, "dw"));
  if (bias) eb = fmax(eb, to_check(tdb, db, "db"));
  fprintf(stderr, "ops api dense act %d bias %d forward %.2e backward %.2e\n", (int)act, bias, ef, eb);
  dlca_tensor_free(tx), dlca_tensor_free(tw), dlca_tensor_free(tb), dlca_tensor_free(tdy), dlca_tensor_free(ty),
      dlca_tensor_free(tdx), dlca_tensor_free(tdw), dlca_tensor_free(tdb);
  free(x), free(w), free(b), free(dy);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_api_blas_bad) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-blas-bad");
  dlca_context *ctx = tcl_context();
  dlca_tensor *a = to_tensor(ctx, (dlca__shape){2, {2, 3}}, NULL), *b = to_tensor(ctx, (dlca__shape){2, {2, 4}}, NULL);
  dlca_tensor *y = to_tensor(ctx, (dlca__shape){2, {2, 4}}, NULL), *v = to_tensor(ctx, (dlca__shape){1, {3}}, NULL);
  TU_EXPECT(dlca_gemm(0, 0, 1, a, b, 0, NULL, y), DLCA_EINVAL, "dlca_gemm: op(a) is 2 x 3, op(b) 2 x 4: the inner");
  TU_EXPECT(dlca_gemm(1, 0, 1, a, b, 0, NULL, y), DLCA_EINVAL, "dlca_gemm: y has shape [2, 4], expected [3, 4]");
  TU_EXPECT(dlca_gemm(0, 0, 1, v, b, 0, NULL, y), DLCA_EINVAL, "a has rank 1, b rank 2");
  dlca_tensor *y34 = to_tensor(ctx, (dlca__shape){2, {3, 4}}, NULL);
  TU_EXPECT(dlca_gemm(1, 0, 1, a, b, 1, y, y34), DLCA_EINVAL, "dlca_gemm: c has shape [2, 4], expected [3, 4]");
  TU_EXPECT(dlca_gemm(1, 0, 1, a, b, 1, y34, y34), DLCA_EINVAL, "c and y are the same tensor");
  TU_OK(dlca_gemm(1, 0, 1, a, b, 0, NULL, y34));
  dlca_tensor_free(y34);
  TU_EXPECT(dlca_dense(DLCA_ACT_RELU, a, b, NULL, y), DLCA_EINVAL, "expected x [N, in] and w [out, in]");
  TU_EXPECT(dlca_dense(DLCA_ACT_RELU, b, b, v, a), DLCA_EINVAL, "dlca_dense: b has shape [3], expected [2]");
  TU_EXPECT(dlca_dense((dlca_activation)7, b, b, NULL, a), DLCA_EINVAL, "no activation 7");
  dlca_tensor_free(a), dlca_tensor_free(b), dlca_tensor_free(y), dlca_tensor_free(v);
  dlca_context_free(ctx);
}
END_TEST

/* loss = softmax_cross_entropy(dense(none, dense(relu, x, w1, b1), w2, b2), t) on the tape, against the twin. */
START_TEST(test_api_tape_mlp) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-tape-mlp");
  dlca_context *ctx = tcl_context();
  enum { N = 5, I = 4, H = 6, O = 3 };
  double *x, *w1, *b1, *w2, *b2, h[N * H], l[N * O], loss, t[N] = {0, 2, 1, 1, 0};
  double dl[N * O], dh[N * H], dx[N * I], dw1[H * I], db1[H], dw2[O * H], db2[O];
  dlca_tensor *tx = to_rand_tensor(ctx, (dlca__shape){2, {N, I}}, -1, 1, 4800, &x);
  dlca_tensor *tw1 = to_rand_tensor(ctx, (dlca__shape){2, {H, I}}, -1, 1, 4801, &w1),
              *tb1 = to_rand_tensor(ctx, (dlca__shape){1, {H}}, -1, 1, 4802, &b1);
  dlca_tensor *tw2 = to_rand_tensor(ctx, (dlca__shape){2, {O, H}}, -1, 1, 4803, &w2),
              *tb2 = to_rand_tensor(ctx, (dlca__shape){1, {O}}, -1, 1, 4804, &b2);
  float tf[N];
  for (int i = 0; i < N; i++) tf[i] = (float)t[i];
  dlca_tensor *tt = to_tensor(ctx, (dlca__shape){1, {N}}, tf), *th = to_tensor(ctx, (dlca__shape){2, {N, H}}, NULL);
  dlca_tensor *tl = to_tensor(ctx, (dlca__shape){2, {N, O}}, NULL),
              *tloss = to_tensor(ctx, (dlca__shape){0, {0}}, NULL);
  dlca__ref_dense(DLCA__ACT_relu, N, I, H, x, w1, b1, h);
  dlca__ref_dense(DLCA__ACT_none, N, H, O, h, w2, b2, l);
  ck_assert_int_eq(dlca__ref_softmax_xent(N, O, l, t, &loss), DLCA_OK);
  ck_assert_int_eq(dlca__ref_softmax_xent_backward(N, O, l, t, 1.0, dl), DLCA_OK);
  dlca__ref_dense_backward(DLCA__ACT_none, N, H, O, h, w2, l, dl, dh, dw2, db2);
  dlca__ref_dense_backward(DLCA__ACT_relu, N, I, H, x, w1, h, dh, dx, dw1, db1);
  dlca_tape *tape;
  TU_OK(dlca_tape_new(ctx, &tape));
  TU_OK(dlca_tape_begin(tape));
  TU_OK(dlca_dense(DLCA_ACT_RELU, tx, tw1, tb1, th));
  TU_OK(dlca_dense(DLCA_ACT_NONE, th, tw2, tb2, tl));
  TU_OK(dlca_softmax_cross_entropy(tl, tt, tloss));
  dlca_tape_end(tape);
  TU_OK(dlca_tape_backward(tape, tloss));
  double e = to_check(tloss, &loss, "loss");
  e = fmax(e, to_check(dlca_tape_grad(tape, tx), dx, "dx"));
  e = fmax(e, fmax(to_check(dlca_tape_grad(tape, tw1), dw1, "dw1"), to_check(dlca_tape_grad(tape, tb1), db1, "db1")));
  e = fmax(e, fmax(to_check(dlca_tape_grad(tape, tw2), dw2, "dw2"), to_check(dlca_tape_grad(tape, tb2), db2, "db2")));
  fprintf(stderr, "ops tape mlp (dense relu, dense, softmax_cross_entropy): device vs twin %.2e\n", e);
  dlca_tape_free(tape);
  dlca_tensor *ts[] = {tx, tw1, tb1, tw2, tb2, tt, th, tl, tloss};
  for (int i = 0; i < 9; i++) dlca_tensor_free(ts[i]);
  free(x), free(w1), free(b1), free(w2), free(b2);
  dlca_context_free(ctx);
}
END_TEST

/* loss = mse(gemm(1, 0, 0.5, a, b, 2, c), target) with a shared b across 2 batches, on the tape. */
START_TEST(test_api_tape_gemm) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-tape-gemm");
  dlca_context *ctx = tcl_context();
  enum { B = 2, M = 3, K = 4, NN = 2 };
  dlca__shape as = {3, {B, K, M}}, bs = {2, {K, NN}}, ys = {3, {B, M, NN}};
  double *a, *b, *c, *tg, y[B * M * NN], dy[B * M * NN], dyt[B * M * NN], da[B * K * M] = {0}, db[K * NN] = {0};
  double dc[B * M * NN];
  dlca_tensor *ta = to_rand_tensor(ctx, as, -1, 1, 4900, &a), *tb = to_rand_tensor(ctx, bs, -1, 1, 4901, &b);
  dlca_tensor *tc = to_rand_tensor(ctx, ys, -1, 1, 4902, &c), *tt = to_rand_tensor(ctx, ys, -1, 1, 4903, &tg);
  dlca_tensor *ty = to_tensor(ctx, ys, NULL), *tl = to_tensor(ctx, (dlca__shape){0, {0}}, NULL);
  dlca__gemm g = {1, 0, M, NN, K, 0.5f, 2.0f, M, NN, NN, 0, 0, 0, B, K * M, 0, M * NN};
  memcpy(y, c, sizeof y);
  dlca__ref_gemm(&g, a, b, y);
  double loss = dlca__ref_mse(B * M * NN, y, tg);
  dlca__ref_mse_backward(B * M * NN, y, tg, 1.0, dy, dyt);
  dlca__ref_gemm_backward(&g, a, b, dy, da, db, dc);
  dlca_tape *tape;
  TU_OK(dlca_tape_new(ctx, &tape));
  TU_OK(dlca_tape_begin(tape));
  TU_OK(dlca_gemm(1, 0, 0.5f, ta, tb, 2.0f, tc, ty));
  TU_OK(dlca_mse(ty, tt, tl));
  dlca_tape_end(tape);
  TU_OK(dlca_tape_backward(tape, tl));
  double e = fmax(to_check(tl, &loss, "loss"), to_check(dlca_tape_grad(tape, ta), da, "da"));
  e = fmax(e, fmax(to_check(dlca_tape_grad(tape, tb), db, "db"), to_check(dlca_tape_grad(tape, tc), dc, "dc")));
  e = fmax(e, to_check(dlca_tape_grad(tape, tt), dyt, "dtarget"));
  fprintf(stderr, "ops tape gemm (batched, b shared, transposed a) + mse: device vs twin %.2e\n", e);
  dlca_tape_free(tape);
  dlca_tensor_free(ta), dlca_tensor_free(tb), dlca_tensor_free(tc), dlca_tensor_free(tt), dlca_tensor_free(ty),
      dlca_tensor_free(tl);
  free(a), free(b), free(c), free(tg);
  dlca_context_free(ctx);
}
END_TEST

TCase *to_tcase_api_blas(void) {
  TCase *tc = tcase_create("api_blas");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_api_gemm, 0, 12);
  tcase_add_loop_test(tc, test_api_dense, 0, 8);
  tcase_add_test(tc, test_api_blas_bad);
  tcase_add_test(tc, test_api_tape_mlp);
  tcase_add_test(tc, test_api_tape_gemm);
  return tc;
}
