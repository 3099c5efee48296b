/* The tape of the public ops (include/dlca_cl/ops.h) on the OpenCL device:
 * a small composite (mul and add with broadcasting, relu, a reused input,
 * sum, mse), and a second (permute, expand, mean with keepdim, sub with
 * broadcasting, tanh, softmax_cross_entropy), whose tape gradients match the
 * CPU twin's composed gradients, which match central differences in double;
 * reproducible bitwise; and the tape's errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "dlca_cl/ops.h"
#include "ops_util.h"

#define N 4
#define K 3

TCase *to_tcase_tape(void);

/* The composite's inputs in double: x [N,K], w [K], b [N,1], t [N]. */
typedef struct comp {
  double x[N * K], w[K], b[N], t[N];
} comp;
static const dlca__shape xs = {2, {N, K}}, ws = {1, {K}}, bs = {2, {N, 1}}, ts = {1, {N}}, ls = {0, {0}};

/* loss = mse(sum(relu(x*w + b) * x, axis 1), t) on the twin; with g, its gradients (g may be NULL). */
static double composite(const comp *c, comp *g) {
  double h[N * K], h2[N * K], r[N * K], z[N * K], s[N];
  dlca__ref_binary(DLCA__B_mul, &xs, c->x, &ws, c->w, h);
  dlca__ref_binary(DLCA__B_add, &xs, h, &bs, c->b, h2);
  dlca__ref_unary(DLCA__U_relu, N * K, h2, r);
  dlca__ref_binary(DLCA__B_mul, &xs, r, &xs, c->x, z);
  dlca__ref_reduce(DLCA__R_sum, &xs, 2u, z, s);
  double loss = dlca__ref_mse(N, s, c->t);
  if (!g) return loss;
  double ds[N], dz[N * K], dr[N * K], dx2[N * K], dh2[N * K], dh[N * K];
  dlca__ref_mse_backward(N, s, c->t, 1.0, ds, g->t);
  ck_assert_int_eq(dlca__ref_reduce_backward(DLCA__R_sum, &xs, 2u, z, ds, dz), DLCA_OK);
  dlca__ref_binary_backward(DLCA__B_mul, &xs, r, &xs, c->x, dz, dr, dx2);
  dlca__ref_unary_backward(DLCA__U_relu, N * K, h2, r, dr, dh2);
  dlca__ref_binary_backward(DLCA__B_add, &xs, h, &bs, c->b, dh2, dh, g->b);
  dlca__ref_binary_backward(DLCA__B_mul, &xs, c->x, &ws, c->w, dh, g->x, g->w);
  for (int i = 0; i < N * K; i++) g->x[i] += dx2[i];
  return loss;
}

/* Central differences of the twin's loss in every input, against its composed gradients. */
static double fd_check(comp *c, const comp *g) {
  double *p = (double *)c, worst = 0;
  const double *gp = (const double *)g;
  for (size_t i = 0; i < sizeof(comp) / sizeof(double); i++) {
    double keep = p[i], eps = 1e-6;
    p[i] = keep + eps;
    double up = composite(c, NULL);
    p[i] = keep - eps;
    double down = composite(c, NULL);
    p[i] = keep;
    double fd = (up - down) / (2 * eps), d = fabs(fd - gp[i]);
    ck_assert_msg(d <= 1e-6 + 1e-6 * fabs(fd), "input %zu: composed %.12g, central difference %.12g", i, gp[i], fd);
    worst = fmax(worst, d);
  }
  return worst;
}

/* n random floats in [lo, hi) and the same in double. */
static void fill(float *f, size_t n, double *d, float lo, float hi, uint64_t seed) {
  tu_random(f, n, lo, hi, seed);
  to_double(f, d, n);
}

/* The composite's forward ops, recorded on the begun tape. */
static void forward(dlca_tensor *const *in, dlca_tensor **tmp) {
  TU_OK(dlca_binary(DLCA_BINARY_MUL, in[0], in[1], tmp[0]));
  TU_OK(dlca_binary(DLCA_BINARY_ADD, tmp[0], in[2], tmp[1]));
  TU_OK(dlca_unary(DLCA_UNARY_RELU, tmp[1], tmp[2]));
  TU_OK(dlca_binary(DLCA_BINARY_MUL, tmp[2], in[0], tmp[3]));
  int axis = 1;
  TU_OK(dlca_reduce(DLCA_REDUCE_SUM, tmp[3], &axis, 1, 0, tmp[4]));
  TU_OK(dlca_mse(tmp[4], in[3], tmp[5]));
}

/* The tape's gradient of t, downloaded. */
static void grad_of(const dlca_tape *tape, const dlca_tensor *t, float *out) {
  const dlca_tensor *g = dlca_tape_grad(tape, t);
  ck_assert_ptr_nonnull(g);
  TU_OK(dlca_tensor_download(g, out, dlca_tensor_numel(t)));
}

START_TEST(test_tape_composite) {
  if (!tcl_platform()) return;
  tcl_fresh_env("tape-composite");
  dlca_context *ctx = tcl_context();
  comp c, g;
  float fx[N * K], fw[K], fb[N], ft[N];
  fill(fx, N * K, c.x, -2, 2, 3000), fill(fw, K, c.w, -1.5f, 1.5f, 3001);
  fill(fb, N, c.b, -1, 1, 3002), fill(ft, N, c.t, -2, 2, 3003);
  double loss = composite(&c, &g), efd = fd_check(&c, &g);
  dlca_tensor *in[4] = {to_tensor(ctx, xs, fx), to_tensor(ctx, ws, fw), to_tensor(ctx, bs, fb), to_tensor(ctx, ts, ft)};
  dlca_tensor *tmp[6] = {to_tensor(ctx, xs, NULL), to_tensor(ctx, xs, NULL), to_tensor(ctx, xs, NULL),
                         to_tensor(ctx, xs, NULL), to_tensor(ctx, ts, NULL), to_tensor(ctx, ls, NULL)};
  dlca_tape *tape;
  TU_OK(dlca_tape_new(ctx, &tape));
  TU_OK(dlca_tape_begin(tape));
  forward(in, tmp);
  dlca_tape_end(tape);
  ck_assert_uint_eq(dlca_tape_size(tape), 6);
  TU_OK(dlca_tape_backward(tape, tmp[5]));
  double e = to_check(tmp[5], &loss, "loss");
  e = fmax(e, to_check(dlca_tape_grad(tape, in[0]), g.x, "dx"));
  e = fmax(e, to_check(dlca_tape_grad(tape, in[1]), g.w, "dw"));
  e = fmax(e, to_check(dlca_tape_grad(tape, in[2]), g.b, "db"));
  e = fmax(e, to_check(dlca_tape_grad(tape, in[3]), g.t, "dt"));
  /* Bitwise reproducible: a second backward gives the same bits. */
  float first[N * K], second[N * K];
  grad_of(tape, in[0], first);
  const dlca_tensor *kept = dlca_tape_grad(tape, in[0]);
  TU_OK(dlca_tape_backward(tape, tmp[5]));
  grad_of(tape, in[0], second);
  ck_assert_int_eq(memcmp(first, second, sizeof first), 0);
  ck_assert_ptr_eq(dlca_tape_grad(tape, in[0]), kept); /* the same buffer, written again */
  fprintf(stderr, "ops tape composite: device vs twin %.2e, twin vs central differences %.2e\n", e, efd);
  dlca_tape_free(tape);
  for (int i = 0; i < 4; i++) dlca_tensor_free(in[i]);
  for (int i = 0; i < 6; i++) dlca_tensor_free(tmp[i]);
  dlca_context_free(ctx);
}
END_TEST

/* The second composite: loss = softmax_cross_entropy(tanh(l - mean(l, 1)), target) with
 * l = permute(X) + expand(v); X [K,N], v [1,K]; l is used twice. */
typedef struct comp2 {
  double X[K * N], v[K];
} comp2;
static const double classes[N] = {2, 0, 1, 2};
static const dlca__shape Xs = {2, {K, N}}, vs = {2, {1, K}}, ms = {2, {N, 1}};
static const dlca__move perm = {DLCA__M_permute, 2, {{1}, {0}}, 0}, expd = {DLCA__M_expand, 2, {{N}, {-1}}, 0};

static double composite2(const comp2 *c, comp2 *g) {
  double p[N * K], e[N * K], l[N * K], mu[N], l2[N * K], t[N * K], loss;
  dlca__ref_move(&perm, &Xs, c->X, p);
  dlca__ref_move(&expd, &vs, c->v, e);
  dlca__ref_binary(DLCA__B_add, &xs, p, &xs, e, l);
  dlca__ref_reduce(DLCA__R_mean, &xs, 2u, l, mu);
  dlca__ref_binary(DLCA__B_sub, &xs, l, &ms, mu, l2);
  dlca__ref_unary(DLCA__U_tanh, N * K, l2, t);
  ck_assert_int_eq(dlca__ref_softmax_xent(N, K, t, classes, &loss), DLCA_OK);
  if (!g) return loss;
  double dt[N * K], dl2[N * K], dl[N * K], dmu[N], dlb[N * K], dp[N * K], de[N * K];
  dlca__ref_softmax_xent_backward(N, K, t, classes, 1.0, dt);
  dlca__ref_unary_backward(DLCA__U_tanh, N * K, l2, t, dt, dl2);
  dlca__ref_binary_backward(DLCA__B_sub, &xs, l, &ms, mu, dl2, dl, dmu);
  dlca__ref_reduce_backward(DLCA__R_mean, &xs, 2u, l, dmu, dlb);
  for (int i = 0; i < N * K; i++) dl[i] += dlb[i];
  dlca__ref_binary_backward(DLCA__B_add, &xs, p, &xs, e, dl, dp, de);
  dlca__ref_move_backward(&perm, &Xs, dp, g->X);
  dlca__ref_move_backward(&expd, &vs, de, g->v);
  return loss;
}

static double fd_check2(comp2 *c, const comp2 *g) {
  double *p = (double *)c, worst = 0;
  const double *gp = (const double *)g;
  for (size_t i = 0; i < sizeof(comp2) / sizeof(double); i++) {
    double keep = p[i], eps = 1e-6;
    p[i] = keep + eps;
    double up = composite2(c, NULL);
    p[i] = keep - eps;
    double down = composite2(c, NULL);
    p[i] = keep;
    double fd = (up - down) / (2 * eps), d = fabs(fd - gp[i]);
    ck_assert_msg(d <= 1e-6 + 1e-6 * fabs(fd), "input %zu: composed %.12g, central difference %.12g", i, gp[i], fd);
    worst = fmax(worst, d);
  }
  return worst;
}

START_TEST(test_tape_composite2) {
  if (!tcl_platform()) return;
  tcl_fresh_env("tape-composite2");
  dlca_context *ctx = tcl_context();
  comp2 c, g;
  float fX[K * N], fv[K], fc[N];
  fill(fX, K * N, c.X, -2, 2, 3100), fill(fv, K, c.v, -1, 1, 3101);
  for (int i = 0; i < N; i++) fc[i] = (float)classes[i];
  double loss = composite2(&c, &g), efd = fd_check2(&c, &g);
  dlca_tensor *tX = to_tensor(ctx, Xs, fX), *tv = to_tensor(ctx, vs, fv), *tc = to_tensor(ctx, ts, fc);
  dlca_tensor *tmp[7] = {to_tensor(ctx, xs, NULL), to_tensor(ctx, xs, NULL), to_tensor(ctx, xs, NULL),
                         to_tensor(ctx, ms, NULL), to_tensor(ctx, xs, NULL), to_tensor(ctx, xs, NULL),
                         to_tensor(ctx, ls, NULL)};
  dlca_movement mp = {DLCA_MOVE_PERMUTE, 2, {{1}, {0}}, 0}, me = {DLCA_MOVE_EXPAND, 2, {{N}, {-1}}, 0};
  int axis = 1;
  dlca_tape *tape;
  TU_OK(dlca_tape_new(ctx, &tape));
  TU_OK(dlca_tape_begin(tape));
  TU_OK(dlca_move(&mp, tX, tmp[0]));
  TU_OK(dlca_move(&me, tv, tmp[1]));
  TU_OK(dlca_binary(DLCA_BINARY_ADD, tmp[0], tmp[1], tmp[2]));
  TU_OK(dlca_reduce(DLCA_REDUCE_MEAN, tmp[2], &axis, 1, 1, tmp[3]));
  TU_OK(dlca_binary(DLCA_BINARY_SUB, tmp[2], tmp[3], tmp[4]));
  TU_OK(dlca_unary(DLCA_UNARY_TANH, tmp[4], tmp[5]));
  TU_OK(dlca_softmax_cross_entropy(tmp[5], tc, tmp[6]));
  dlca_tape_end(tape);
  TU_OK(dlca_tape_backward(tape, tmp[6]));
  double e = to_check(tmp[6], &loss, "loss");
  e = fmax(e, to_check(dlca_tape_grad(tape, tX), g.X, "dX"));
  e = fmax(e, to_check(dlca_tape_grad(tape, tv), g.v, "dv"));
  ck_assert_ptr_null(dlca_tape_grad(tape, tc)); /* class targets have no gradient */
  fprintf(stderr, "ops tape composite 2: device vs twin %.2e, twin vs central differences %.2e\n", e, efd);
  dlca_tape_free(tape);
  dlca_tensor_free(tX), dlca_tensor_free(tv), dlca_tensor_free(tc);
  for (int i = 0; i < 7; i++) dlca_tensor_free(tmp[i]);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_tape_errors) {
  if (!tcl_platform()) return;
  tcl_fresh_env("tape-errors");
  dlca_context *ctx = tcl_context(), *other = tcl_context();
  dlca_tensor *a = to_tensor(ctx, (dlca__shape){1, {3}}, NULL), *y = to_tensor(ctx, (dlca__shape){1, {3}}, NULL);
  dlca_tensor *c = to_tensor(other, (dlca__shape){1, {3}}, NULL), *z = to_tensor(other, (dlca__shape){1, {3}}, NULL);
  dlca_tape *tape, *second;
  TU_OK(dlca_tape_new(ctx, &tape));
  TU_OK(dlca_tape_new(ctx, &second));
  TU_OK(dlca_tape_begin(tape));
  TU_EXPECT(dlca_tape_begin(second), DLCA_EINVAL, "another tape is begun on this thread");
  TU_EXPECT(dlca_unary(DLCA_UNARY_EXP, a, a), DLCA_EINVAL, "dlca_unary: the output is also an input");
  TU_OK(dlca_unary(DLCA_UNARY_EXP, a, y));
  TU_EXPECT(dlca_binary(DLCA_BINARY_ADD, y, y, a), DLCA_EINVAL,
         "dlca_binary: the output is a tensor the tape already holds");
  TU_OK(dlca_unary(DLCA_UNARY_EXP, c, z)); /* another context: not recorded */
  TU_OK(dlca_unary(DLCA_UNARY_EXP, z, z)); /* nor checked */
  dlca_tape_end(tape);
  TU_OK(dlca_unary(DLCA_UNARY_EXP, a, y)); /* ended: not recorded */
  ck_assert_uint_eq(dlca_tape_size(tape), 1);
  TU_EXPECT(dlca_tape_backward(tape, a), DLCA_EINVAL, "no op on the tape (1 records) made the loss [3]");
  TU_EXPECT(dlca_tape_backward(tape, z), DLCA_EINVAL, "loss: the tensor belongs to another context");
  TU_OK(dlca_tape_backward(tape, y));
  ck_assert_ptr_nonnull(dlca_tape_grad(tape, a));
  ck_assert_ptr_null(dlca_tape_grad(tape, c));
  dlca_tape_clear(tape);
  ck_assert_uint_eq(dlca_tape_size(tape), 0);
  ck_assert_ptr_null(dlca_tape_grad(tape, a));
  TU_OK(dlca_tape_begin(second));
  dlca_tape_free(second); /* ends it */
  TU_OK(dlca_tape_begin(tape));
  dlca_tape_free(tape);
  dlca_tensor_free(a), dlca_tensor_free(y), dlca_tensor_free(c), dlca_tensor_free(z);
  dlca_context_free(other), dlca_context_free(ctx);
}
END_TEST

TCase *to_tcase_tape(void) {
  TCase *tc = tcase_create("tape");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_tape_composite);
  tcase_add_test(tc, test_tape_composite2);
  tcase_add_test(tc, test_tape_errors);
  return tc;
}
