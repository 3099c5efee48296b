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

/* The permutation and gather kernels against dlca_net_perm on the host, bit for bit. */
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
  cl_int err;
  cl_mem perm = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, n * sizeof(cl_uint), NULL, &err);
  ck_assert_int_eq(err, CL_SUCCESS);
  ck_assert_msg(dlca__net_cl_perm(ctx, perm, n, 77, 5) == DLCA_OK, "%s", dlca_last_error());
  for (int permute = 0; permute < 2; permute++) {
    size_t first = permute ? 13 * N : 1438 - N;
    ck_assert_msg(dlca__net_cl_gather(ctx, s, d, n, permute ? perm : NULL, first) == DLCA_OK, "%s",
                  dlca_last_error());
    ck_assert_int_eq(dlca_tensor_download(d, got, N * row), DLCA_OK);
    for (size_t j = 0; j < N; j++) {
      size_t r = permute ? dlca_net_perm(77, 5, (uint32_t)n, (uint32_t)(first + j)) : first + j;
      ck_assert_mem_eq(got + j * row, src + r * row, row * sizeof(float));
    }
  }
  ck_assert_int_eq(dlca__net_cl_gather(ctx, s, d, n, NULL, n - N + 1), DLCA_EINVAL);
  clReleaseMemObject(perm);
  dlca_tensor_free(s), dlca_tensor_free(d);
  free(src), free(got);
  dlca_context_free(ctx);
}
END_TEST

/* A trainer of spec from seed on ctx (NULL: the CPU twin) with cfg, over n random samples. */
static dlca_net_trainer *trainer(dlca_context *ctx, const dlca_net_spec *spec, const dlca_optim_config *cfg,
                                 size_t batch, size_t n, dlca_net **net) {
  ck_assert_int_eq(dlca_net_new(spec, 21, net), DLCA_OK);
  size_t nx = n * dlca_net_in_size(*net), ny = n * dlca_net_target_size(*net);
  float *x = malloc(nx * sizeof(float)), *y = malloc(ny * sizeof(float));
  tu_random(x, nx, -1, 1, 22), tu_random(y, ny, 0, 1, 23);
  size_t K = dlca_net_out_size(*net);
  if (spec->loss == DLCA_NET_SOFTMAX_XENT)
    for (size_t i = 0; i < ny; i++) y[i] = floorf(y[i] * (float)K * 0.999f);
  dlca_net_trainer *t;
  ck_assert_msg(dlca_net_trainer_new(*net, ctx, cfg, batch, &t) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca_net_trainer_data(t, n, x, y) == DLCA_OK, "%s", dlca_last_error());
  free(x), free(y);
  return t;
}

/* steps steps of both backends from the same seed; the worst |difference|
 * of the parameters relative to their change from the start, and of the loss. */
static double agree(dlca_context *ctx, const dlca_net_spec *spec, const dlca_optim_config *cfg, int steps,
                    double *loss_err) {
  dlca_net *nr, *nc;
  dlca_net_trainer *tr = trainer(NULL, spec, cfg, 16, 80, &nr), *tc = trainer(ctx, spec, cfg, 16, 80, &nc);
  size_t P = dlca_net_n_params(nr);
  float *p0 = malloc(P * sizeof(float));
  memcpy(p0, nr->params, P * sizeof(float));
  for (int s = 0; s < steps; s++) {
    ck_assert_int_eq(dlca_net_step(tr, 3, (uint64_t)s / 5, (size_t)s % 5), DLCA_OK);
    ck_assert_msg(dlca_net_step(tc, 3, (uint64_t)s / 5, (size_t)s % 5) == DLCA_OK, "%s", dlca_last_error());
  }
  double lr, lc, worst = 0, scale = 0;
  ck_assert_int_eq(dlca_net_trainer_loss(tr, &lr), DLCA_OK);
  ck_assert_int_eq(dlca_net_trainer_loss(tc, &lc), DLCA_OK);
  ck_assert_int_eq(dlca_net_trainer_sync(tr), DLCA_OK);
  ck_assert_int_eq(dlca_net_trainer_sync(tc), DLCA_OK);
  for (size_t i = 0; i < P; i++) {
    worst = fmax(worst, fabs((double)nr->params[i] - nc->params[i]));
    scale = fmax(scale, fabs((double)nr->params[i] - p0[i]));
  }
  *loss_err = fabs(lr - lc) / fabs(lr);
  dlca_net_trainer_free(tr), dlca_net_trainer_free(tc);
  dlca_net_free(nr), dlca_net_free(nc);
  free(p0);
  return worst / scale;
}

static const dlca_net_layer flat_layers[] = {{DLCA_NET_DENSE, 12, 0, 0, 0}, {DLCA_NET_TANH, 0, 0, 0, 0},
                                             {DLCA_NET_DENSE, 9, 0, 0, 0},  {DLCA_NET_SIGMOID, 0, 0, 0, 0},
                                             {DLCA_NET_DENSE, 3, 0, 0, 0}};
static const dlca_net_layer pool_layers[] = {{DLCA_NET_MEANPOOL, 0, 2, 1, 0}, {DLCA_NET_RELU, 0, 0, 0, 0},
                                             {DLCA_NET_MAXPOOL, 0, 2, 0, 0},  {DLCA_NET_FLATTEN, 0, 0, 0, 0},
                                             {DLCA_NET_DENSE, 4, 0, 0, 0}};

/* One step (SGD: the parameters move by lr times the gradient) and five
 * (AdamW) of the device against the CPU twin, for the MLP, a dense stack
 * with tanh/sigmoid and mse, pooling layers, and the CNN. */
START_TEST(one_step_agrees) {
  if (!tcl_platform()) return;
  tcl_fresh_env("net-cl-step");
  dlca_context *ctx = tcl_context();
  dlca_net_spec specs[4] = {{0}, {1, {7}, 5, flat_layers, DLCA_NET_MSE}, {3, {2, 6, 6}, 5, pool_layers, 0}, {0}};
  ck_assert_int_eq(dlca_net_preset("mlp", &specs[0]), DLCA_OK);
  ck_assert_int_eq(dlca_net_preset("cnn", &specs[3]), DLCA_OK);
  dlca_optim_config sgd, adamw;
  ck_assert_int_eq(dlca_optim_config_default(DLCA_OPTIM_SGD, &sgd), DLCA_OK);
  ck_assert_int_eq(dlca_optim_config_default(DLCA_OPTIM_ADAMW, &adamw), DLCA_OK);
  sgd.lr = 0.1;
  for (int k = 0; k < 4; k++) {
    double le1, le5, e1 = agree(ctx, &specs[k], &sgd, 1, &le1), e5 = agree(ctx, &specs[k], &adamw, 5, &le5);
    fprintf(stderr, "net_cl: net %d, device vs CPU twin: sgd 1 step %.2e (loss %.1e), adamw 5 steps %.2e (loss %.1e)\n",
            k, e1, le1, e5, le5);
    ck_assert_double_lt(e1, 1e-4);
    ck_assert_double_lt(le1, 1e-5);
    ck_assert_double_lt(e5, 1e-3);
    ck_assert_double_lt(le5, 1e-5);
  }
  dlca_context_free(ctx);
}
END_TEST

/* The MLP learns the digits on the device as on the CPU twin. */
START_TEST(mlp_digits) {
  if (!tcl_platform()) return;
  tcl_fresh_env("net-cl-mlp");
  dlca_context *ctx = tcl_context();
  dlca_dataset d;
  ck_assert_int_eq(dlca_dataset_load_digits_file(DIGITS, &d), DLCA_OK);
  dlca_net_spec s;
  dlca_net *net;
  dlca_net_trainer *t;
  ck_assert_int_eq(dlca_net_preset("mlp", &s), DLCA_OK);
  ck_assert_int_eq(dlca_net_new(&s, 2, &net), DLCA_OK);
  ck_assert_int_eq(dlca_net_trainer_new(net, ctx, NULL, 32, &t), DLCA_OK);
  ck_assert_int_eq(dlca_net_trainer_data(t, d.n_train, d.x_train, d.y_train), DLCA_OK);
  ck_assert_int_eq(dlca_net_trainer_set_lr(t, 3e-3), DLCA_OK);
  for (uint64_t e = 0; e < 8; e++)
    for (size_t b = 0; b < dlca_net_steps_per_epoch(t); b++) ck_assert_int_eq(dlca_net_step(t, 2, e, b), DLCA_OK);
  double acc, loss, train;
  ck_assert_int_eq(dlca_net_trainer_loss(t, &train), DLCA_OK);
  ck_assert_int_eq(dlca_net_evaluate(t, d.n_test, d.x_test, d.y_test, &acc, &loss), DLCA_OK);
  fprintf(stderr, "net_cl: MLP on the device, 8 epochs of batch 32: test accuracy %.4f, loss %.4f\n", acc, loss);
  ck_assert_double_gt(acc, 0.94);
  /* the CPU twin evaluates the synced parameters alike (359 = 11 batches of 32 and a tail of 7) */
  dlca_net_trainer *r;
  double racc, rloss;
  ck_assert_int_eq(dlca_net_trainer_sync(t), DLCA_OK);
  ck_assert_int_eq(dlca_net_trainer_new(net, NULL, NULL, 32, &r), DLCA_OK);
  ck_assert_int_eq(dlca_net_evaluate(r, d.n_test, d.x_test, d.y_test, &racc, &rloss), DLCA_OK);
  ck_assert_double_eq(racc, acc);
  ck_assert_double_eq_tol(rloss, loss, 1e-5);
  dlca_net_trainer_free(r);
  dlca_net_trainer_free(t);
  dlca_net_free(net);
  dlca_dataset_free(&d);
  dlca_context_free(ctx);
}
END_TEST

/* A batch that cannot fit is refused up front on both backends, naming what fits. */
START_TEST(memory) {
  if (!tcl_platform()) return;
  tcl_fresh_env("net-cl-memory");
  dlca_context *ctx = tcl_context();
  const dlca_net_layer big[] = {{DLCA_NET_CONV2D, 16, 3, 1, 1}, {DLCA_NET_MAXPOOL, 0, 64, 0, 0},
                                {DLCA_NET_FLATTEN, 0, 0, 0, 0}, {DLCA_NET_DENSE, 2, 0, 0, 0}};
  dlca_net_spec s = {3, {1, 4096, 4096}, 4, big, DLCA_NET_SOFTMAX_XENT};
  dlca_net_layer flat = {DLCA_NET_DENSE, 2, 0, 0, 0};
  dlca_net_spec small = {1, {4}, 1, &flat, DLCA_NET_SOFTMAX_XENT};
  dlca_net *net, *tiny;
  dlca_net_trainer *t = (dlca_net_trainer *)1;
  ck_assert_int_eq(dlca_net_new(&small, 1, &tiny), DLCA_OK);
  /* the parameters of the big net are few; its activations are 1 GiB a sample */
  ck_assert_int_eq(dlca_net_new(&s, 1, &net), DLCA_OK);
  for (int b = 0; b < 2; b++) {
    ck_assert_int_eq(dlca_net_trainer_new(net, b ? ctx : NULL, NULL, 4096, &t), DLCA_EDEVMEM);
    ck_assert_ptr_null(t);
    ck_assert_msg(strstr(dlca_last_error(), "batch") && strstr(dlca_last_error(), "would fit"), "%s",
                  dlca_last_error());
  }
  dlca_net_free(net), dlca_net_free(tiny);
  dlca_context_free(ctx);
}
END_TEST

Suite *suite_net_cl(void) {
  Suite *s = suite_create("net_cl");
  TCase *tc = tcase_create("net_cl");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, gather);
  tcase_add_test(tc, one_step_agrees);
  tcase_add_test(tc, mlp_digits);
  tcase_add_test(tc, memory);
  suite_add_tcase(s, tc);
  return s;
}
