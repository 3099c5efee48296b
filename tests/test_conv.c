/* conv2d and 2-D pooling (issue 31) on the CPU twin: the conv2d_* vectors of
 * shared/testdata/ops, central differences in double of every backward on
 * other shapes, and the shape errors. The device tests are test_conv_cl.c. */
#include "test_conv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ref_conv.h"
#include "ops/vector.h"
#include "ops_util.h"
#include "util.h"

START_TEST(test_conv_ref_vectors) {
  const char *dir = to_dir();
  if (!dir) return;
  to_list list;
  to_list_files(dir, "conv2d_", &list);
  ck_assert_msg(list.n > 0, "%s: no conv2d_*.json", dir);
  for (size_t i = 0; i < list.n; i++) {
    dlca__ops_vector v;
    dlca__ops_result r;
    ck_assert_msg(dlca__ops_vector_load(list.path[i], &v) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_msg(dlca__ops_ref_run(&v, &r) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_int_eq(v.grads.n, 3);
    double worst[2] = {0, 0};
    for (int g = 0; g < 2; g++) {
      const dlca__ops_set *set = g ? &v.grads : &v.outputs;
      for (size_t k = 0; k < set->n; k++) {
        dlca__ops_cmp c = dlca__ops_compare(g ? r.grad[k] : r.out[k], &set->t[k], v.tol_abs, v.tol_rel);
        ck_assert_msg(c.pass, "%s: %s.%s[%zu]: error %.3g", v.path, g ? "grads" : "outputs", set->t[k].name,
                      c.worst_index, c.worst);
        worst[g] = fmax(worst[g], c.worst);
      }
    }
    fprintf(stderr, "conv ref %s forward %.2e backward %.2e\n", v.name, worst[0], worst[1]);
    dlca__ops_result_free(&r);
    dlca__ops_vector_free(&v);
  }
  to_list_free(&list);
}
END_TEST

/* ---- finite differences: L = sum(y * w8) for random w8, dL/dinput from the backward vs central differences ---- */

typedef struct fd_conv {
  dlca__shape xs, ws;
  dlca__conv2d p;
  int pool; /* 0 conv2d, else 1 + dlca__pool_fn */
  int k, s;
} fd_conv;

static size_t fd_out(const fd_conv *c, dlca__conv_dims *d) {
  dlca__shape ys, bs = {1, {c->ws.d[0]}};
  if (c->pool) {
    ck_assert_int_eq(dlca__pool2d_shape(&c->xs, c->k, c->s, &ys), DLCA_OK);
    return dlca__shape_n(&ys);
  }
  ck_assert_msg(dlca__conv2d_dims(&c->xs, &c->ws, &bs, &c->p, d) == DLCA_OK, "%s", dlca_last_error());
  return d->N * d->O * d->OH * d->OW;
}

/* x, w, b in in[0..2] (the pool has x only). */
static double fd_loss(const fd_conv *c, const dlca__conv_dims *d, double *const *in, double *y, const double *w8,
                      size_t ny) {
  if (c->pool)
    dlca__ref_pool2d((dlca__pool_fn)(c->pool - 1), c->k, c->s, &c->xs, in[0], y);
  else
    dlca__ref_conv2d(d, in[0], in[1], in[2], y);
  double l = 0;
  for (size_t j = 0; j < ny; j++) l += y[j] * w8[j];
  return l;
}

static double fd_run(const fd_conv *c, uint64_t seed) {
  dlca__conv_dims d;
  size_t ny = fd_out(c, &d), n[3] = {dlca__shape_n(&c->xs), dlca__shape_n(&c->ws), c->ws.d[0]};
  int nin = c->pool ? 1 : 3;
  double *in[3], *g[3], *y = malloc(sizeof(double) * ny), *w8 = tconv_rand_d(ny, -1, 1, seed + 7);
  for (int k = 0; k < 3; k++)
    in[k] = tconv_rand_d(n[k], -1, 1, seed + (uint64_t)k), g[k] = calloc(n[k], sizeof(double));
  if (c->pool)
    dlca__ref_pool2d_backward((dlca__pool_fn)(c->pool - 1), c->k, c->s, &c->xs, in[0], w8, g[0]);
  else
    dlca__ref_conv2d_backward(&d, in[0], in[1], w8, g[0], g[1], g[2]);
  double worst = 0, h = 1e-6;
  for (int k = 0; k < nin; k++)
    for (size_t i = 0; i < n[k]; i++) {
      double keep = in[k][i];
      in[k][i] = keep + h;
      double lp = fd_loss(c, &d, in, y, w8, ny);
      in[k][i] = keep - h;
      double lm = fd_loss(c, &d, in, y, w8, ny);
      in[k][i] = keep;
      worst = fmax(worst, fabs((lp - lm) / (2 * h) - g[k][i]) / (1 + fabs(g[k][i])));
    }
  for (int k = 0; k < 3; k++) free(in[k]), free(g[k]);
  free(y), free(w8);
  return worst;
}

static const fd_conv fd_cases[] = {
    {{4, {2, 3, 7, 6}}, {4, {5, 3, 3, 2}}, {1, 1, 0, 0}, 0, 0, 0},
    {{4, {2, 3, 7, 6}}, {4, {5, 3, 3, 2}}, {2, 1, 1, 2}, 0, 0, 0},
    {{4, {3, 2, 5, 9}}, {4, {3, 2, 1, 4}}, {2, 3, 2, 1}, 0, 0, 0},
    {{4, {1, 5, 4, 4}}, {4, {7, 5, 4, 4}}, {1, 1, 1, 0}, 0, 0, 0},
    {{4, {2, 3, 7, 6}}, {4, {1, 1, 1, 1}}, {0}, 1 + DLCA__POOL_max, 2, 2},
    {{4, {2, 3, 7, 6}}, {4, {1, 1, 1, 1}}, {0}, 1 + DLCA__POOL_max, 3, 1},
    {{4, {2, 3, 7, 6}}, {4, {1, 1, 1, 1}}, {0}, 1 + DLCA__POOL_mean, 2, 1},
    {{4, {2, 3, 7, 6}}, {4, {1, 1, 1, 1}}, {0}, 1 + DLCA__POOL_mean, 3, 2},
};

START_TEST(test_conv_fd) {
  double e = fd_run(&fd_cases[_i], 4000 + 10 * (uint64_t)_i);
  fprintf(stderr, "conv fd case %d (%s) %.2e\n", _i, fd_cases[_i].pool ? "pool" : "conv2d", e);
  ck_assert_msg(e < 1e-6, "case %d: finite-difference error %g", _i, e);
}
END_TEST

/* ---- shape errors: DLCA_EINVAL naming the shapes ---- */

#define EXPECT_EINVAL(call, text) TU_EXPECT(call, DLCA_EINVAL, text)

START_TEST(test_conv_ref_errors) {
  dlca__shape x = {4, {2, 3, 5, 5}}, w = {4, {4, 3, 3, 3}}, b = {1, {4}}, y;
  dlca__conv2d p = {1, 1, 0, 0}, big = {1, 1, 1, 0};
  dlca__conv_dims d;
  dlca__shape x3 = {3, {3, 5, 5}}, w2 = {4, {4, 2, 3, 3}}, wk = {4, {4, 3, 8, 3}}, b5 = {1, {5}};
  EXPECT_EINVAL(dlca__conv2d_dims(&x3, &w, &b, &p, &d), "x has shape [3, 5, 5], expected rank 4 [N, C, H, W]");
  EXPECT_EINVAL(dlca__conv2d_dims(&x, &b, &b, &p, &d), "w has shape [4], expected rank 4 [O, C, KH, KW]");
  EXPECT_EINVAL(dlca__conv2d_dims(&x, &w2, &b, &p, &d), "w [4, 2, 3, 3] has 2 input channels, x [2, 3, 5, 5] has 3");
  EXPECT_EINVAL(dlca__conv2d_dims(&x, &wk, &b, &big, &d),
                "the kernel 8x3 of w [4, 3, 8, 3] does not fit x [2, 3, 5, 5] padded by (1, 0): 7x5");
  EXPECT_EINVAL(dlca__conv2d_dims(&x, &w, &b5, &p, &d), "b has shape [5], expected [4]");
  p.sh = 0;
  EXPECT_EINVAL(dlca__conv2d_dims(&x, &w, &b, &p, &d), "stride (0, 1) must be >= 1");
  ck_assert_int_eq(dlca__conv2d_dims(&x, &wk, NULL, &(dlca__conv2d){2, 1, 2, 0}, &d), DLCA_OK);
  ck_assert(d.OH == 1 && d.OW == 3 && d.O == 4);
  EXPECT_EINVAL(dlca__pool2d_shape(&x3, 2, 2, &y), "pool2d: x has shape [3, 5, 5], expected rank 4 [N, C, H, W]");
  EXPECT_EINVAL(dlca__pool2d_shape(&x, 6, 1, &y), "the window 6x6 does not fit x [2, 3, 5, 5]");
  EXPECT_EINVAL(dlca__pool2d_shape(&x, 2, 0, &y), "stride 0 must be >= 1");
  ck_assert_int_eq(dlca__pool2d_shape(&x, 2, 2, &y), DLCA_OK);
  ck_assert(y.d[2] == 2 && y.d[3] == 2);
}
END_TEST

double *tconv_rand_d(size_t n, double lo, double hi, uint64_t seed) {
  float *f = malloc(sizeof(float) * (n ? n : 1));
  double *d = malloc(sizeof(double) * (n ? n : 1));
  tu_random(f, n, (float)lo, (float)hi, seed);
  for (size_t i = 0; i < n; i++) d[i] = f[i];
  free(f);
  return d;
}

Suite *suite_conv(void) {
  Suite *s = suite_create("conv");
  TCase *tc = tcase_create("ref");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_conv_ref_vectors);
  tcase_add_loop_test(tc, test_conv_fd, 0, (int)(sizeof fd_cases / sizeof fd_cases[0]));
  tcase_add_test(tc, test_conv_ref_errors);
  suite_add_tcase(s, tc);
  suite_add_tcase(s, tconv_tcase_cl());
  return s;
}
