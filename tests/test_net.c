/* Check suite 'net' (issue 31): the network description and its checks,
 * the initialisation, the epoch permutation, the JSON format, the digits
 * data set, central differences through the CPU twin of the layers, and the
 * CPU trainer. The device backend is tests/test_net_cl.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "net/net_impl.h"
#include "ops/ref.h"
#include "util.h"

#define DIGITS DLCA_SRCDIR "/data/digits/digits.csv.gz"

static dlca_net *preset(const char *name, uint64_t seed) {
  dlca_net_spec s;
  dlca_net *net;
  ck_assert_int_eq(dlca_net_preset(name, &s), DLCA_OK);
  ck_assert_int_eq(dlca_net_new(&s, seed, &net), DLCA_OK);
  return net;
}

START_TEST(presets) {
  dlca_net *mlp = preset("mlp", 1), *cnn = preset("cnn", 1);
  ck_assert_uint_eq(dlca_net_n_params(mlp), 64 * 128 + 128 + 128 * 10 + 10);
  ck_assert_uint_eq(dlca_net_n_params(cnn), 16 * 9 + 16 + 32 * 16 * 9 + 32 + 512 * 10 + 10);
  ck_assert_uint_eq(dlca_net_in_size(cnn), 64);
  ck_assert_uint_eq(dlca_net_out_size(cnn), 10);
  ck_assert_uint_eq(dlca_net_target_size(cnn), 1);
  dlca_net_spec s;
  ck_assert_int_eq(dlca_net_preset("resnet", &s), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "resnet"));
  dlca_net_free(mlp), dlca_net_free(cnn);
}
END_TEST

/* spec must be refused with DLCA_EINVAL and a message containing want. */
static void refused(const dlca_net_spec *s, const char *want) {
  dlca_net *net = (dlca_net *)1;
  ck_assert_int_eq(dlca_net_new(s, 1, &net), DLCA_EINVAL);
  ck_assert_ptr_null(net);
  ck_assert_msg(strstr(dlca_last_error(), want), "'%s' lacks '%s'", dlca_last_error(), want);
}

START_TEST(bad_specs) {
  dlca_net_layer dense = {DLCA_NET_DENSE, 10, 0, 0, 0}, conv = {DLCA_NET_CONV2D, 4, 3, 1, 0};
  dlca_net_layer big = {DLCA_NET_MAXPOOL, 0, 9, 0, 0}, zero = {DLCA_NET_DENSE, 0, 0, 0, 0};
  dlca_net_spec s = {3, {1, 8, 8}, 1, &dense, DLCA_NET_SOFTMAX_XENT};
  refused(&s, "layers[0] (dense): input [1, 8, 8] is not flat; add a flatten");
  s.layers = &conv;
  refused(&s, "softmax_cross_entropy needs flat logits");
  s.layers = &big, s.loss = DLCA_NET_MSE;
  refused(&s, "layers[0] (maxpool): a 9x9 window does not fit the input [1, 8, 8]");
  s.in_rank = 1, s.layers = &conv;
  refused(&s, "layers[0] (conv2d): needs an image input");
  s.layers = &zero;
  refused(&s, "units 0 is not in [1, 65536]");
  s.in_rank = 2;
  refused(&s, "input rank 2");
  s.in_rank = 1, s.n_layers = 0;
  refused(&s, "0 layers");
}
END_TEST

START_TEST(init_bounds) {
  dlca_net *a = preset("cnn", 7), *b = preset("cnn", 7), *c = preset("cnn", 8);
  size_t P = dlca_net_n_params(a);
  ck_assert_mem_eq(a->params, b->params, P * sizeof(float));
  ck_assert_int_ne(memcmp(a->params, c->params, P * sizeof(float)), 0);
  for (size_t i = 0; i < a->n_layers; i++) {
    if (!dlca__net_has_params(&a->layers[i])) continue;
    size_t n = a->wsize[i] + dlca__net_bsize(a, i), fan_in = a->wsize[i] / a->layers[i].units;
    double bound = 1 / sqrt((double)fan_in), mean = 0, sq = 0;
    for (size_t e = 0; e < n; e++) {
      double v = a->params[a->poff[i] + e];
      ck_assert(fabs(v) <= bound);
      mean += v, sq += v * v;
    }
    mean /= (double)n, sq /= (double)n;
    /* U(-b, b): mean 0, variance b^2 / 3 */
    ck_assert_msg(fabs(mean) < 0.2 * bound && fabs(sq / (bound * bound) - 1.0 / 3) < 0.1,
                  "layer %zu: mean %g, var/b^2 %g", i, mean, sq / (bound * bound));
  }
  dlca_net_free(a), dlca_net_free(b), dlca_net_free(c);
}
END_TEST

START_TEST(permutation) {
  const uint32_t ns[] = {1, 2, 3, 5, 64, 1438, 4097};
  for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
    uint32_t n = ns[k];
    char *seen = calloc(n, 1);
    size_t fixed = 0;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t p = dlca_net_perm(9, 3, n, i);
      ck_assert_uint_lt(p, n);
      ck_assert_msg(!seen[p], "n %u: %u twice", n, p);
      seen[p] = 1, fixed += p == i;
    }
    if (n >= 64) ck_assert_uint_lt(fixed, n / 8);
    free(seen);
  }
  size_t same = 0;
  for (uint32_t i = 0; i < 1438; i++) same += dlca_net_perm(9, 3, 1438, i) == dlca_net_perm(9, 4, 1438, i);
  ck_assert_uint_lt(same, 100); /* another epoch, another order */
}
END_TEST

START_TEST(json_round_trip) {
  const char *dir = tu_tmpdir("net-json");
  char path[512];
  snprintf(path, sizeof path, "%s/cnn.json", dir);
  dlca_net *a = preset("cnn", 3), *b;
  ck_assert_int_eq(dlca_net_save(a, path), DLCA_OK);
  ck_assert_int_eq(dlca_net_load(path, &b), DLCA_OK);
  ck_assert_uint_eq(b->n_layers, a->n_layers);
  for (size_t i = 0; i < a->n_layers; i++) { /* the stride is written as used */
    ck_assert_int_eq(b->layers[i].kind, a->layers[i].kind);
    ck_assert_uint_eq(b->layers[i].units, a->layers[i].units);
    ck_assert_int_eq(dlca__net_stride(&b->layers[i]), dlca__net_stride(&a->layers[i]));
  }
  ck_assert_mem_eq(b->params, a->params, a->n_params * sizeof(float)); /* bit for bit */
  dlca_net_free(b);
  a->params[5] = NAN;
  ck_assert_int_eq(dlca_net_save(a, path), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "parameter 5 is nan"));
  ck_assert_int_eq(dlca_net_load(path, &b), DLCA_OK); /* the old file is intact */
  dlca_net_free(b);
  dlca_net_free(a);
}
END_TEST

/* text must load as status with a message naming the file and containing want. */
static void corrupt(const char *dir, const char *text, int status, const char *want) {
  const char *path = tu_write(dir, "bad.json", text);
  dlca_net *net = (dlca_net *)1;
  ck_assert_int_eq(dlca_net_load(path, &net), status);
  ck_assert_ptr_null(net);
  ck_assert_msg(strstr(dlca_last_error(), want), "'%s' lacks '%s'", dlca_last_error(), want);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "bad.json"));
}

#define HEAD "{\"format\": \"dlca-net\", \"version\": 1, \"input\": [3], \"loss\": \"mse\", \"layers\": "
#define DENSE(w, b) "{\"type\": \"dense\", \"units\": 2, \"weight\": " w ", \"bias\": " b "}"

START_TEST(json_corrupt) {
  const char *d = tu_tmpdir("net-corrupt");
  dlca_net *net;
  ck_assert_int_eq(dlca_net_load(tu_write(d, "ok.json", HEAD "[" DENSE("[1,2,3,4,5,6]", "[0,0]") "]}"), &net), DLCA_OK);
  ck_assert_uint_eq(dlca_net_out_size(net), 2);
  ck_assert_double_eq(net->params[6], 0);
  dlca_net_free(net);
  corrupt(d, HEAD "[" DENSE("[1,2,3,4,5]", "[0,0]") "]}", DLCA_EMODEL,
          "layers[0].weight: expected 6 numbers for the layer's shape, found 5");
  corrupt(d, HEAD "[" DENSE("[1,2,3,4,5,\"x\"]", "[0,0]") "]}", DLCA_EPARSE, "layers[0].weight[5]: expected a number");
  corrupt(d, HEAD "[" DENSE("[1,2,3,4,5,6]", "[0,1e99]") "]}", DLCA_EPARSE, "layers[0].bias[1]: 1e+99 is not a finite");
  corrupt(d, HEAD "[" DENSE("[1,2,3,4,5,6]", "[0,0]"), DLCA_EPARSE, "not valid JSON");
  corrupt(d, HEAD "[{\"type\": \"softmax\"}]}", DLCA_EPARSE, "layers[0].type: 'softmax' is not one of");
  corrupt(d, HEAD "[{\"type\": \"relu\", \"units\": 3}]}", DLCA_EPARSE, "layers[0].units: not a member");
  corrupt(d, HEAD "[{\"type\": \"conv2d\", \"units\": 3, \"kernel\": 3, \"stride\": 1}]}", DLCA_EMODEL,
          "layers[0] (conv2d): needs an image input");
  corrupt(d, HEAD "[{\"type\": \"maxpool\", \"kernel\": 0, \"stride\": 1}]}", DLCA_EPARSE,
          "layers[0].kernel: 0 is not in [1, 64]");
  corrupt(d, "{\"format\": \"dlca-model\"}", DLCA_EPARSE, "format: expected \"dlca-net\"");
  corrupt(d, HEAD "[]}", DLCA_EPARSE, "layers: expected an array of 1 to 64");
  /* a short file asking for a gigabyte of weights is refused before they are allocated */
  corrupt(d, "{\"format\": \"dlca-net\", \"version\": 1, \"input\": [4096], \"loss\": \"mse\", \"layers\": "
             "[{\"type\": \"dense\", \"units\": 65536, \"weight\": [1], \"bias\": [0]}]}",
          DLCA_EMODEL, "layers[0].weight: expected 268435456 numbers for the layer's shape, found 1");
  ck_assert_int_eq(dlca_net_load("/nonexistent/x.json", &net), DLCA_EIO);
}
END_TEST

START_TEST(digits) {
  dlca_dataset d;
  ck_assert_int_eq(dlca_dataset_load_digits_file(DIGITS, &d), DLCA_OK);
  ck_assert_uint_eq(d.n_train, 1438);
  ck_assert_uint_eq(d.n_test, 359);
  ck_assert_uint_eq(d.in_size, 64);
  /* row 0 of the file: 0,0,5,13,9,1,... class 0; row 4 (the first test row) */
  ck_assert_float_eq(d.x_train[2], 5.0f / 16);
  ck_assert_float_eq(d.x_train[3], 13.0f / 16);
  ck_assert_float_eq(d.y_train[0], 0);
  size_t count[10] = {0};
  for (size_t i = 0; i < d.n_train * 64; i++) ck_assert(d.x_train[i] >= 0 && d.x_train[i] <= 1);
  for (size_t i = 0; i < d.n_test; i++) count[(int)d.y_test[i]]++;
  for (int c = 0; c < 10; c++) ck_assert_uint_gt(count[c], 15); /* every class in the test split */
  dlca_dataset_free(&d);
  const char *dir = tu_tmpdir("net-digits");
  const char *bad = tu_write(dir, "d.csv", "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
                                           "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,17,3\n");
  ck_assert_int_eq(dlca_dataset_load_digits_file(bad, &d), DLCA_EPARSE);
  ck_assert_msg(strstr(dlca_last_error(), "d.csv:1: field 64: 17 is not in [0, 16]"), "%s", dlca_last_error());
  ck_assert_ptr_null(d.x_train);
  ck_assert_int_eq(dlca_dataset_load("mnist", &d), DLCA_EINVAL);
}
END_TEST

/* The loss of N samples through net with parameters p (double); with g, its gradient into g. */
static double net_loss(const dlca_net *net, size_t N, const double *p, const double *x, const double *y, double *g) {
  size_t L = net->n_layers;
  double *a[16], *d[16], loss;
  for (size_t i = 0; i <= L; i++) {
    size_t n = N * dlca__nshape_n(&net->shape[i]);
    a[i] = malloc(n * sizeof(double)), d[i] = malloc(n * sizeof(double));
  }
  memcpy(a[0], x, N * dlca__nshape_n(&net->shape[0]) * sizeof(double));
  for (size_t i = 0; i < L; i++) dlca__net_ref_forward(net, i, N, p + net->poff[i], a[i], a[i + 1]);
  size_t K = dlca_net_out_size(net);
  if (net->loss == DLCA_NET_MSE) {
    loss = dlca__ref_mse(N * K, a[L], y);
    dlca__ref_mse_backward(N * K, a[L], y, 1.0, d[L], NULL);
  } else {
    ck_assert_int_eq(dlca__ref_softmax_xent(N, K, a[L], y, &loss), DLCA_OK);
    ck_assert_int_eq(dlca__ref_softmax_xent_backward(N, K, a[L], y, 1.0, d[L]), DLCA_OK);
  }
  for (size_t i = L; g && i-- > 0;)
    dlca__net_ref_backward(net, i, N, p + net->poff[i], a[i], a[i + 1], d[i + 1], i ? d[i] : NULL, g + net->poff[i]);
  for (size_t i = 0; i <= L; i++) free(a[i]), free(d[i]);
  return loss;
}

/* Central differences against the backward of every parameter of spec's net. */
static double fd_check(const dlca_net_spec *s, size_t N, uint64_t seed) {
  dlca_net *net;
  ck_assert_int_eq(dlca_net_new(s, seed, &net), DLCA_OK);
  size_t P = net->n_params, nx = N * dlca_net_in_size(net), ny = N * dlca_net_target_size(net);
  double *p = malloc(P * sizeof(double)), *g = malloc(P * sizeof(double)), *x = malloc(nx * sizeof(double));
  double *y = malloc(ny * sizeof(double)), worst = 0;
  float *tmp = malloc((nx > ny ? nx : ny) * sizeof(float));
  tu_random(tmp, nx, -1, 1, seed + 1);
  for (size_t i = 0; i < nx; i++) x[i] = tmp[i];
  tu_random(tmp, ny, 0, 1, seed + 2);
  for (size_t i = 0; i < ny; i++) y[i] = s->loss == DLCA_NET_MSE ? tmp[i] : floor(tmp[i] * 3.999);
  for (size_t i = 0; i < P; i++) p[i] = net->params[i];
  net_loss(net, N, p, x, y, g);
  for (size_t i = 0; i < P; i++) {
    double keep = p[i], h = 1e-6;
    p[i] = keep + h;
    double up = net_loss(net, N, p, x, y, NULL);
    p[i] = keep - h;
    double down = net_loss(net, N, p, x, y, NULL);
    p[i] = keep;
    double err = fabs((up - down) / (2 * h) - g[i]) / (1e-3 + fabs(g[i]));
    worst = err > worst ? err : worst;
  }
  free(p), free(g), free(x), free(y), free(tmp);
  dlca_net_free(net);
  return worst;
}

START_TEST(central_differences) {
  const dlca_net_layer img[] = {{DLCA_NET_CONV2D, 3, 3, 1, 1}, {DLCA_NET_TANH, 0, 0, 0, 0},
                                {DLCA_NET_MEANPOOL, 0, 2, 1, 0}, {DLCA_NET_CONV2D, 2, 2, 2, 0},
                                {DLCA_NET_SIGMOID, 0, 0, 0, 0}, {DLCA_NET_MAXPOOL, 0, 2, 0, 0},
                                {DLCA_NET_FLATTEN, 0, 0, 0, 0}, {DLCA_NET_DENSE, 3, 0, 0, 0}};
  const dlca_net_layer flat[] = {{DLCA_NET_DENSE, 5, 0, 0, 0}, {DLCA_NET_TANH, 0, 0, 0, 0},
                                 {DLCA_NET_DENSE, 4, 0, 0, 0}};
  dlca_net_spec a = {3, {2, 5, 5}, 8, img, DLCA_NET_MSE}, b = {1, {6}, 3, flat, DLCA_NET_SOFTMAX_XENT};
  double ea = fd_check(&a, 3, 11), eb = fd_check(&b, 4, 12);
  fprintf(stderr, "net: central differences, worst relative error: conv/pool/mse %.2g, dense/xent %.2g\n", ea, eb);
  ck_assert_double_lt(ea, 1e-5);
  ck_assert_double_lt(eb, 1e-5);
}
END_TEST

/* A trainer of a fresh preset on the CPU twin, with the digits' training set. */
static dlca_net_trainer *ref_trainer(const char *model, uint64_t seed, const dlca_dataset *d, dlca_net **net) {
  dlca_net_trainer *t;
  dlca_optim_config cfg;
  ck_assert_int_eq(dlca_optim_config_default(DLCA_OPTIM_ADAMW, &cfg), DLCA_OK);
  cfg.lr = 3e-3; /* dlca-net's default */
  *net = preset(model, seed);
  ck_assert_int_eq(dlca_net_trainer_new(*net, NULL, &cfg, 64, &t), DLCA_OK);
  ck_assert_int_eq(dlca_net_trainer_data(t, d->n_train, d->x_train, d->y_train), DLCA_OK);
  ck_assert_uint_eq(dlca_net_steps_per_epoch(t), 1438 / 64);
  return t;
}

START_TEST(ref_training) {
  dlca_dataset d;
  ck_assert_int_eq(dlca_dataset_load_digits_file(DIGITS, &d), DLCA_OK);
  dlca_net *na, *nb;
  dlca_net_trainer *a = ref_trainer("mlp", 5, &d, &na), *b = ref_trainer("mlp", 5, &d, &nb);
  double first = 0, last = 0, acc, loss;
  for (uint64_t e = 0; e < 4; e++) {
    for (size_t s = 0; s < dlca_net_steps_per_epoch(a); s++) {
      ck_assert_int_eq(dlca_net_step(a, 5, e, s), DLCA_OK);
      if (e == 0) ck_assert_int_eq(dlca_net_step(b, 5, e, s), DLCA_OK);
    }
    ck_assert_int_eq(dlca_net_trainer_loss(a, e ? &last : &first), DLCA_OK);
  }
  ck_assert_double_lt(last, 0.5 * first);
  ck_assert_int_eq(dlca_net_evaluate(a, d.n_test, d.x_test, d.y_test, &acc, &loss), DLCA_OK);
  fprintf(stderr, "net: ref MLP, 4 epochs: loss %.4f -> %.4f, test accuracy %.4f\n", first, last, acc);
  ck_assert_double_gt(acc, 0.9);
  /* the same seed, the same epoch: the same parameters, bit for bit */
  ck_assert_int_eq(dlca_net_trainer_loss(b, &loss), DLCA_OK);
  ck_assert_double_eq(loss, first);
  ck_assert_int_eq(dlca_net_trainer_loss(b, &loss), DLCA_OK);
  ck_assert(isnan(loss));
  ck_assert_int_eq(dlca_net_trainer_sync(a), DLCA_OK);
  dlca_net_trainer_free(a), dlca_net_trainer_free(b);
  dlca_net_free(na), dlca_net_free(nb);
  dlca_dataset_free(&d);
}
END_TEST

START_TEST(trainer_errors) {
  dlca_net *net = preset("mlp", 1);
  dlca_net_trainer *t;
  float x[64 * 4] = {0}, y[4] = {1, 2, 10, 3};
  ck_assert_int_eq(dlca_net_trainer_new(net, NULL, NULL, 0, &t), DLCA_EINVAL);
  ck_assert_int_eq(dlca_net_trainer_new(net, NULL, NULL, 4, &t), DLCA_OK);
  ck_assert_int_eq(dlca_net_step(t, 1, 0, 0), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "no training data"));
  ck_assert_int_eq(dlca_net_trainer_data(t, 3, x, y), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "3 samples for batch 4"));
  ck_assert_int_eq(dlca_net_trainer_data(t, 4, x, y), DLCA_EINVAL);
  ck_assert_msg(strstr(dlca_last_error(), "target 2 is 10, not a class in 0..9"), "%s", dlca_last_error());
  y[2] = 2.5f;
  ck_assert_int_eq(dlca_net_trainer_data(t, 4, x, y), DLCA_EINVAL);
  y[2] = 0;
  ck_assert_int_eq(dlca_net_trainer_data(t, 4, x, y), DLCA_OK);
  ck_assert_int_eq(dlca_net_step(t, 1, 0, 1), DLCA_EINVAL);
  ck_assert_int_eq(dlca_net_step(t, 1, 0, 0), DLCA_OK);
  dlca_optim_config bad;
  ck_assert_int_eq(dlca_optim_config_default(DLCA_OPTIM_ADAMW, &bad), DLCA_OK);
  bad.beta2 = 1;
  dlca_net_trainer *t2 = (dlca_net_trainer *)1;
  ck_assert_int_eq(dlca_net_trainer_new(net, NULL, &bad, 4, &t2), DLCA_EINVAL);
  ck_assert_ptr_null(t2);
  dlca_net_trainer_free(t);
  dlca_net_free(net);
}
END_TEST

Suite *suite_net(void) {
  Suite *s = suite_create("net");
  TCase *tc = tcase_create("net");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, presets);
  tcase_add_test(tc, bad_specs);
  tcase_add_test(tc, init_bounds);
  tcase_add_test(tc, permutation);
  tcase_add_test(tc, json_round_trip);
  tcase_add_test(tc, json_corrupt);
  tcase_add_test(tc, digits);
  tcase_add_test(tc, central_differences);
  tcase_add_test(tc, ref_training);
  tcase_add_test(tc, trainer_errors);
  suite_add_tcase(s, tc);
  return s;
}
