/* The tape with the device optimizer (include/dlca_cl/optim.h): a small MLP
 * (dense relu, dense, softmax_cross_entropy) learns a linearly separable
 * rule on PoCL, each step a forward on a begun tape, dlca_tape_backward and
 * dlca_optim_cl_step on the tape's gradients, with no host round trip until
 * the loss is read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "dlca_cl/ops.h"
#include "dlca_cl/optim.h"
#include "ops_util.h"


TCase *to_tcase_api_train(void);

enum { N = 32, I = 4, H = 16, K = 2, STEPS = 60 };

/* One training step: forward on the tape, backward, the optimizer's step. */
static void train_step(dlca_tape *tape, dlca_tensor *const *p, dlca_tensor *x, dlca_tensor *t, dlca_tensor *const *tmp,
                       dlca_optim_cl *opt) {
  dlca_tape_clear(tape);
  TU_OK(dlca_tape_begin(tape));
  TU_OK(dlca_dense(DLCA_ACT_RELU, x, p[0], p[1], tmp[0]));
  TU_OK(dlca_dense(DLCA_ACT_NONE, tmp[0], p[2], p[3], tmp[1]));
  TU_OK(dlca_softmax_cross_entropy(tmp[1], t, tmp[2]));
  dlca_tape_end(tape);
  TU_OK(dlca_tape_backward(tape, tmp[2]));
  const dlca_tensor *g[4];
  for (int i = 0; i < 4; i++) ck_assert_ptr_nonnull(g[i] = dlca_tape_grad(tape, p[i]));
  TU_OK(dlca_optim_cl_step(opt, p, g));
}

START_TEST(test_api_tape_train) {
  if (!tcl_platform()) return;
  tcl_fresh_env("api-tape-train");
  dlca_context *ctx = tcl_context();
  float xf[N * I], tf[N], pf[H * I + H + K * H + K];
  tu_random(xf, N * I, -1, 1, 6000);
  tu_random(pf, sizeof pf / sizeof pf[0], -0.5f, 0.5f, 6001);
  for (int i = 0; i < N; i++) tf[i] = xf[i * I] + 0.5f * xf[i * I + 1] > 0 ? 1.0f : 0.0f;
  dlca__shape ps[4] = {{2, {H, I}}, {1, {H}}, {2, {K, H}}, {1, {K}}};
  dlca_tensor *p[4];
  for (int i = 0, off = 0; i < 4; off += (int)dlca__shape_n(&ps[i]), i++) p[i] = to_tensor(ctx, ps[i], pf + off);
  dlca_tensor *x = to_tensor(ctx, (dlca__shape){2, {N, I}}, xf), *t = to_tensor(ctx, (dlca__shape){1, {N}}, tf);
  dlca_tensor *tmp[3] = {to_tensor(ctx, (dlca__shape){2, {N, H}}, NULL), to_tensor(ctx, (dlca__shape){2, {N, K}}, NULL),
                         to_tensor(ctx, (dlca__shape){0, {0}}, NULL)};
  dlca_optim_config cfg;
  TU_OK(dlca_optim_config_default(DLCA_OPTIM_ADAM, &cfg));
  cfg.lr = 0.05;
  dlca_optim_cl *opt;
  TU_OK(dlca_optim_cl_new(ctx, &cfg, 4, p, &opt));
  dlca_tape *tape;
  TU_OK(dlca_tape_new(ctx, &tape));
  float first = 0, last = 0;
  for (int s = 0; s < STEPS; s++) {
    train_step(tape, p, x, t, tmp, opt);
    if (s == 0) TU_OK(dlca_tensor_download(tmp[2], &first, 1));
  }
  TU_OK(dlca_tensor_download(tmp[2], &last, 1));
  float logits[N * K];
  TU_OK(dlca_tensor_download(tmp[1], logits, N * K));
  int right = 0;
  for (int i = 0; i < N; i++) right += (logits[2 * i + 1] > logits[2 * i]) == (tf[i] > 0.5f);
  fprintf(stderr, "ops tape training: loss %.4f -> %.4f after %d Adam steps, %d of %d right\n", first, last, STEPS,
          right, N);
  ck_assert_msg(last < 0.25f * first, "loss %g -> %g", first, last);
  ck_assert_int_ge(right, N - 2);
  dlca_optim_cl_free(opt);
  dlca_tape_free(tape);
  for (int i = 0; i < 4; i++) dlca_tensor_free(p[i]);
  for (int i = 0; i < 3; i++) dlca_tensor_free(tmp[i]);
  dlca_tensor_free(x), dlca_tensor_free(t);
  dlca_context_free(ctx);
}
END_TEST

TCase *to_tcase_api_train(void) {
  TCase *tc = tcase_create("api_train");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_api_tape_train);
  return tc;
}
