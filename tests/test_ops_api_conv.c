/* The public conv2d and pooling (include/dlca_cl/ops.h) on the OpenCL
 * device (PoCL in CI) against the CPU twin (lib/ops/ref_conv.h) on fresh
 * random inputs, their shape errors, and a small CNN (conv2d, relu, mean
 * pool, sum over space, softmax_cross_entropy) on the tape against the
 * twin's composed gradients. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "dlca_cl/ops.h"
#include "ops/ref_blas.h"
#include "ops/ref_conv.h"
#include "ops_util.h"


TCase *to_tcase_api_conv(void);


static const struct {
  dlca__shape xs, ws;
  dlca_conv2d_params p;
  int bias;
} convs[] = {
    {{4, {2, 3, 6, 5}}, {4, {4, 3, 3, 3}}, {1, 1, 0, 0}, 1},
    {{4, {1, 2, 7, 7}}, {4, {3, 2, 3, 3}}, {2, 2, 1, 1}, 0},
    {{4, {3, 1, 5, 8}}, {4, {2, 1, 2, 3}}, {1, 2, 1, 0}, 1},
};

START_TEST(test_api_conv2d) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-conv2d");
  dlca_context *ctx = tcl_context();
  const dlca__shape xs = convs[_i].xs, ws = convs[_i].ws, bs = {1, {ws.d[0]}};
  const dlca_conv2d_params *p = &convs[_i].p;
  dlca__conv2d c = {p->stride_h, p->stride_w, p->pad_h, p->pad_w};
  dlca__conv_dims d;
  ck_assert_int_eq(dlca__conv2d_dims(&xs, &ws, &bs, &c, &d), DLCA_OK);
  dlca__shape ys = {4, {d.N, d.O, d.OH, d.OW}};
  double *x, *w, *b, *dy;
  dlca_tensor *tx = to_rand_tensor(ctx, xs, -1, 1, 5000 + (uint64_t)_i, &x), *tw = to_rand_tensor(ctx, ws, -1, 1, 5100 + (uint64_t)_i, &w);
  dlca_tensor *tb = to_rand_tensor(ctx, bs, -1, 1, 5200 + (uint64_t)_i, &b), *tdy = to_rand_tensor(ctx, ys, -1, 1, 5300 + (uint64_t)_i, &dy);
  int rank;
  size_t shape[4];
  TU_OK(dlca_conv2d_shape(p, tx, tw, &rank, shape));
  ck_assert(rank == 4 && shape[2] == d.OH && shape[3] == d.OW);
  size_t nx = dlca__shape_n(&xs), nw = dlca__shape_n(&ws), ny = dlca__shape_n(&ys);
  double *y = malloc(sizeof(double) * ny), *dx = malloc(sizeof(double) * nx), *dw = malloc(sizeof(double) * nw);
  double db[8];
  dlca__ref_conv2d(&d, x, w, convs[_i].bias ? b : NULL, y);
  dlca__ref_conv2d_backward(&d, x, w, dy, dx, dw, db);
  dlca_tensor *ty = to_tensor(ctx, ys, NULL), *tdx = to_tensor(ctx, xs, NULL), *tdw = to_tensor(ctx, ws, NULL);
  dlca_tensor *tdb = to_tensor(ctx, bs, NULL);
  TU_OK(dlca_conv2d(p, tx, tw, convs[_i].bias ? tb : NULL, ty));
  TU_OK(dlca_conv2d_backward(p, tx, tw, tdy, tdx, tdw, tdb));
  double ef = to_check(ty, y, "y");
  double eb = fmax(to_check(tdx, dx, "dx"), fmax(to_check(tdw, dw, "dw"), to_check(tdb, db, "db")));
  fprintf(stderr, "ops api conv2d case %d forward %.2e backward %.2e\n", _i, ef, eb);
  dlca_tensor *ts[] = {tx, tw, tb, tdy, ty, tdx, tdw, tdb};
  for (int i = 0; i < 8; i++) dlca_tensor_free(ts[i]);
  free(x), free(w), free(b), free(dy), free(y), free(dx), free(dw);
  dlca_context_free(ctx);
}
END_TEST

/* max and mean, k 2 s 2 and k 3 s 1. */
START_TEST(test_api_pool2d) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-pool2d");
  dlca_context *ctx = tcl_context();
  dlca_pool_fn fn = (dlca_pool_fn)(_i % 2);
  int k = _i < 2 ? 2 : 3, s = _i < 2 ? 2 : 1;
  dlca__shape xs = {4, {2, 3, 6, 7}}, ys;
  ck_assert_int_eq(dlca__pool2d_shape(&xs, k, s, &ys), DLCA_OK);
  double *x, *dy, y[2 * 3 * 6 * 7], dx[2 * 3 * 6 * 7];
  dlca_tensor *tx = to_rand_tensor(ctx, xs, -1, 1, 5400 + (uint64_t)_i, &x), *tdy = to_rand_tensor(ctx, ys, -1, 1, 5500 + (uint64_t)_i, &dy);
  dlca_tensor *ty = to_tensor(ctx, ys, NULL), *tdx = to_tensor(ctx, xs, NULL);
  dlca__ref_pool2d((dlca__pool_fn)fn, k, s, &xs, x, y);
  dlca__ref_pool2d_backward((dlca__pool_fn)fn, k, s, &xs, x, dy, dx);
  TU_OK(dlca_pool2d(fn, k, s, tx, ty));
  TU_OK(dlca_pool2d_backward(fn, k, s, tx, tdy, tdx));
  double ef = to_check(ty, y, "y"), eb = to_check(tdx, dx, "dx");
  fprintf(stderr, "ops api pool2d fn %d k %d s %d forward %.2e backward %.2e\n", (int)fn, k, s, ef, eb);
  dlca_tensor_free(tx), dlca_tensor_free(tdy), dlca_tensor_free(ty), dlca_tensor_free(tdx);
  free(x), free(dy);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_api_conv_bad) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-conv-bad");
  dlca_context *ctx = tcl_context();
  dlca_tensor *x = to_tensor(ctx, (dlca__shape){4, {1, 2, 5, 5}}, NULL);
  dlca_tensor *w = to_tensor(ctx, (dlca__shape){4, {3, 4, 3, 3}}, NULL);
  dlca_tensor *w2 = to_tensor(ctx, (dlca__shape){4, {3, 2, 3, 3}}, NULL);
  dlca_tensor *y = to_tensor(ctx, (dlca__shape){4, {1, 3, 5, 5}}, NULL),
              *m = to_tensor(ctx, (dlca__shape){2, {5, 5}}, NULL);
  ck_assert_int_eq(dlca_conv2d(NULL, x, w, NULL, y), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "dlca_conv2d: "));
  TU_EXPECT(dlca_conv2d(NULL, x, w2, NULL, y), DLCA_EINVAL,
         "dlca_conv2d: y has shape [1, 3, 5, 5], expected [1, 3, 3, 3]");
  dlca_conv2d_params same = {1, 1, 1, 1};
  TU_OK(dlca_conv2d(&same, x, w2, NULL, y));
  ck_assert_int_eq(dlca_pool2d(DLCA_POOL_MAX, 2, 2, m, m), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "dlca_pool2d: "));
  TU_EXPECT(dlca_pool2d((dlca_pool_fn)5, 2, 2, x, x), DLCA_EINVAL, "no pooling function 5");
  TU_EXPECT(dlca_pool2d(DLCA_POOL_MEAN, 2, 2, x, x), DLCA_EINVAL,
         "dlca_pool2d: y has shape [1, 2, 5, 5], expected [1, 2, 2, 2]");
  dlca_tensor_free(x), dlca_tensor_free(w), dlca_tensor_free(w2), dlca_tensor_free(y), dlca_tensor_free(m);
  dlca_context_free(ctx);
}
END_TEST

/* loss = softmax_cross_entropy(sum_{h,w} mean_pool2(relu(conv2d(x, w, b))), t) on the tape. */
START_TEST(test_api_tape_cnn) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-tape-cnn");
  dlca_context *ctx = tcl_context();
  enum { N = 2, C = 2, H = 6, W = 6, O = 3 };
  dlca__shape xs = {4, {N, C, H, W}}, ws = {4, {O, C, 3, 3}}, bs = {1, {O}}, cs = {4, {N, O, 4, 4}};
  dlca__shape ps = {4, {N, O, 2, 2}}, ls = {2, {N, O}};
  dlca__conv2d cp = {1, 1, 0, 0};
  dlca__conv_dims d;
  ck_assert_int_eq(dlca__conv2d_dims(&xs, &ws, &bs, &cp, &d), DLCA_OK);
  double *x, *w, *b, c[N * O * 16], r[N * O * 16], pl[N * O * 4], l[N * O], t[N] = {2, 0}, loss;
  double dl[N * O], dpl[N * O * 4], dr[N * O * 16], dc[N * O * 16], dx[N * C * H * W], dw[O * C * 9], db[O];
  dlca_tensor *tx = to_rand_tensor(ctx, xs, -1, 1, 5600, &x), *tw = to_rand_tensor(ctx, ws, -1, 1, 5601, &w), *tb = to_rand_tensor(ctx, bs, -1, 1, 5602, &b);
  float tf[N] = {2, 0};
  dlca_tensor *tt = to_tensor(ctx, (dlca__shape){1, {N}}, tf);
  dlca_tensor *tmp[5] = {to_tensor(ctx, cs, NULL), to_tensor(ctx, cs, NULL), to_tensor(ctx, ps, NULL),
                         to_tensor(ctx, ls, NULL), to_tensor(ctx, (dlca__shape){0, {0}}, NULL)};
  dlca__ref_conv2d(&d, x, w, b, c);
  dlca__ref_unary(DLCA__U_relu, N * O * 16, c, r);
  dlca__ref_pool2d(DLCA__POOL_mean, 2, 2, &cs, r, pl);
  dlca__ref_reduce(DLCA__R_sum, &ps, 12u, pl, l);
  ck_assert_int_eq(dlca__ref_softmax_xent(N, O, l, t, &loss), DLCA_OK);
  ck_assert_int_eq(dlca__ref_softmax_xent_backward(N, O, l, t, 1.0, dl), DLCA_OK);
  ck_assert_int_eq(dlca__ref_reduce_backward(DLCA__R_sum, &ps, 12u, pl, dl, dpl), DLCA_OK);
  dlca__ref_pool2d_backward(DLCA__POOL_mean, 2, 2, &cs, r, dpl, dr);
  dlca__ref_unary_backward(DLCA__U_relu, N * O * 16, c, r, dr, dc);
  dlca__ref_conv2d_backward(&d, x, w, dc, dx, dw, db);
  dlca_tape *tape;
  int axes[] = {2, 3};
  TU_OK(dlca_tape_new(ctx, &tape));
  TU_OK(dlca_tape_begin(tape));
  TU_OK(dlca_conv2d(NULL, tx, tw, tb, tmp[0]));
  TU_OK(dlca_unary(DLCA_UNARY_RELU, tmp[0], tmp[1]));
  TU_OK(dlca_pool2d(DLCA_POOL_MEAN, 2, 2, tmp[1], tmp[2]));
  TU_OK(dlca_reduce(DLCA_REDUCE_SUM, tmp[2], axes, 2, 0, tmp[3]));
  TU_OK(dlca_softmax_cross_entropy(tmp[3], tt, tmp[4]));
  dlca_tape_end(tape);
  TU_OK(dlca_tape_backward(tape, tmp[4]));
  double e = fmax(to_check(tmp[4], &loss, "loss"), to_check(dlca_tape_grad(tape, tx), dx, "dx"));
  e = fmax(e, fmax(to_check(dlca_tape_grad(tape, tw), dw, "dw"), to_check(dlca_tape_grad(tape, tb), db, "db")));
  fprintf(stderr, "ops tape cnn (conv2d, relu, mean pool, sum, softmax_cross_entropy): device vs twin %.2e\n", e);
  dlca_tape_free(tape);
  dlca_tensor_free(tx), dlca_tensor_free(tw), dlca_tensor_free(tb), dlca_tensor_free(tt);
  for (int i = 0; i < 5; i++) dlca_tensor_free(tmp[i]);
  free(x), free(w), free(b);
  dlca_context_free(ctx);
}
END_TEST

/* loss = softmax_cross_entropy(dense(flatten(max_pool2(relu(conv2d(x, w, b)))), w2, b2), t) on the tape:
 * conv2d with padding, max pooling, dlca_reshape as the flatten, a dense layer. */
START_TEST(test_api_tape_cnn_dense) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-tape-cnn-dense");
  dlca_context *ctx = tcl_context();
  enum { N = 3, C = 1, H = 5, W = 5, O = 2, F = O * 2 * 2, K = 4 };
  dlca__shape xs = {4, {N, C, H, W}}, ws = {4, {O, C, 3, 3}}, bs = {1, {O}}, cs = {4, {N, O, 5, 5}};
  dlca__shape ps = {4, {N, O, 2, 2}}, fs = {2, {N, F}}, w2s = {2, {K, F}}, b2s = {1, {K}}, ls = {2, {N, K}};
  dlca__conv2d cp = {1, 1, 1, 1};
  dlca_conv2d_params pp = {1, 1, 1, 1};
  dlca__conv_dims d;
  ck_assert_int_eq(dlca__conv2d_dims(&xs, &ws, &bs, &cp, &d), DLCA_OK);
  double *x, *w, *b, *w2, *b2, c[N * O * 25], r[N * O * 25], pl[N * F], l[N * K], t[N] = {3, 0, 1}, loss;
  double dl[N * K], dpl[N * F], dw2[K * F], db2[K], dr[N * O * 25], dc[N * O * 25], dx[N * C * H * W], dw[O * 9];
  double db[O];
  dlca_tensor *tx = to_rand_tensor(ctx, xs, -1, 1, 5700, &x), *tw = to_rand_tensor(ctx, ws, -1, 1, 5701, &w), *tb = to_rand_tensor(ctx, bs, -1, 1, 5702, &b);
  dlca_tensor *tw2 = to_rand_tensor(ctx, w2s, -1, 1, 5703, &w2), *tb2 = to_rand_tensor(ctx, b2s, -1, 1, 5704, &b2);
  float tf[N] = {3, 0, 1};
  dlca_tensor *tt = to_tensor(ctx, (dlca__shape){1, {N}}, tf);
  dlca_tensor *tmp[6] = {to_tensor(ctx, cs, NULL), to_tensor(ctx, cs, NULL),
                         to_tensor(ctx, ps, NULL), to_tensor(ctx, fs, NULL),
                         to_tensor(ctx, ls, NULL), to_tensor(ctx, (dlca__shape){0, {0}}, NULL)};
  dlca__ref_conv2d(&d, x, w, b, c);
  dlca__ref_unary(DLCA__U_relu, N * O * 25, c, r);
  dlca__ref_pool2d(DLCA__POOL_max, 2, 2, &cs, r, pl);
  dlca__ref_dense(DLCA__ACT_none, N, F, K, pl, w2, b2, l);
  ck_assert_int_eq(dlca__ref_softmax_xent(N, K, l, t, &loss), DLCA_OK);
  ck_assert_int_eq(dlca__ref_softmax_xent_backward(N, K, l, t, 1.0, dl), DLCA_OK);
  dlca__ref_dense_backward(DLCA__ACT_none, N, F, K, pl, w2, l, dl, dpl, dw2, db2);
  dlca__ref_pool2d_backward(DLCA__POOL_max, 2, 2, &cs, r, dpl, dr);
  dlca__ref_unary_backward(DLCA__U_relu, N * O * 25, c, r, dr, dc);
  dlca__ref_conv2d_backward(&d, x, w, dc, dx, dw, db);
  dlca_tape *tape;
  TU_OK(dlca_tape_new(ctx, &tape));
  TU_OK(dlca_tape_begin(tape));
  TU_OK(dlca_conv2d(&pp, tx, tw, tb, tmp[0]));
  TU_OK(dlca_unary(DLCA_UNARY_RELU, tmp[0], tmp[1]));
  TU_OK(dlca_pool2d(DLCA_POOL_MAX, 2, 2, tmp[1], tmp[2]));
  TU_OK(dlca_reshape(tmp[2], tmp[3]));
  TU_OK(dlca_dense(DLCA_ACT_NONE, tmp[3], tw2, tb2, tmp[4]));
  TU_OK(dlca_softmax_cross_entropy(tmp[4], tt, tmp[5]));
  dlca_tape_end(tape);
  TU_OK(dlca_tape_backward(tape, tmp[5]));
  double e = fmax(to_check(tmp[5], &loss, "loss"), to_check(dlca_tape_grad(tape, tx), dx, "dx"));
  e = fmax(e, fmax(to_check(dlca_tape_grad(tape, tw), dw, "dw"), to_check(dlca_tape_grad(tape, tb), db, "db")));
  e = fmax(e, fmax(to_check(dlca_tape_grad(tape, tw2), dw2, "dw2"), to_check(dlca_tape_grad(tape, tb2), db2, "db2")));
  fprintf(stderr, "ops tape cnn (conv2d pad 1, relu, max pool, reshape, dense, xent): device vs twin %.2e\n", e);
  ck_assert_int_eq(dlca_reshape(tmp[2], tmp[4]), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "dlca_reshape: x [3, 2, 2, 2] has 24 elements, y [3, 4] 12"));
  dlca_tape_free(tape);
  dlca_tensor *ts[] = {tx, tw, tb, tw2, tb2, tt};
  for (int i = 0; i < 6; i++) dlca_tensor_free(ts[i]);
  for (int i = 0; i < 6; i++) dlca_tensor_free(tmp[i]);
  free(x), free(w), free(b), free(w2), free(b2);
  dlca_context_free(ctx);
}
END_TEST

TCase *to_tcase_api_conv(void) {
  TCase *tc = tcase_create("api_conv");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_api_conv2d, 0, (int)(sizeof convs / sizeof convs[0]));
  tcase_add_loop_test(tc, test_api_pool2d, 0, 4);
  tcase_add_test(tc, test_api_conv_bad);
  tcase_add_test(tc, test_api_tape_cnn);
  tcase_add_test(tc, test_api_tape_cnn_dense);
  return tc;
}
