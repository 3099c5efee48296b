/* Finite-difference check of every backward of the CPU twin, in double, on
 * shapes other than the vectors': for L = sum(y * w) with random w, the
 * gradient from the backward (dy = w) against central differences. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ref.h"
#include "ops_util.h"

enum kind { K_UNARY, K_BINARY, K_REDUCE, K_MOVE, K_MSE, K_XENT };

typedef struct fd_case {
  enum kind kind;
  int fn, n_in, keep;
  dlca__shape in[2];
  double lo[2], hi[2]; /* each input's range */
  long axes[DLCA__MAX_RANK];
  size_t naxes;
  dlca__move move;
} fd_case;

static const double xent_target[] = {3, 0, 1, 3, 2};

static double urand(uint64_t *s, double lo, double hi) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * (double)(*s >> 11) / 9007199254740992.0;
}

static size_t out_n(const fd_case *c) {
  dlca__shape ys;
  dlca__view v;
  unsigned mask;
  switch (c->kind) {
    case K_BINARY:
      ck_assert_int_eq(dlca__broadcast_shape(&c->in[0], &c->in[1], &ys), 0);
      return dlca__shape_n(&ys);
    case K_REDUCE:
      ck_assert_int_eq(dlca__reduce_shape(&c->in[0], c->axes, c->naxes, c->keep, &mask, &ys), 0);
      return dlca__shape_n(&ys);
    case K_MOVE:
      ck_assert_int_eq(dlca__move_plan(&c->move, &c->in[0], &ys, &v), 0);
      return dlca__shape_n(&ys);
    case K_MSE:
    case K_XENT:
      return 1;
    default:
      return dlca__shape_n(&c->in[0]);
  }
}

static void forward(const fd_case *c, double *const *x, double *y) {
  unsigned mask;
  dlca__shape ys;
  const dlca__shape *s = c->in;
  size_t n = dlca__shape_n(s);
  switch (c->kind) {
    case K_UNARY:
      dlca__ref_unary((dlca__unary_fn)c->fn, n, x[0], y);
      break;
    case K_BINARY:
      ck_assert_int_eq(dlca__ref_binary((dlca__binary_fn)c->fn, s, x[0], s + 1, x[1], y), 0);
      break;
    case K_REDUCE:
      dlca__reduce_shape(s, c->axes, c->naxes, c->keep, &mask, &ys);
      dlca__ref_reduce((dlca__reduce_fn)c->fn, s, mask, x[0], y);
      break;
    case K_MOVE:
      ck_assert_int_eq(dlca__ref_move(&c->move, s, x[0], y), 0);
      break;
    case K_MSE:
      *y = dlca__ref_mse(n, x[0], x[1]);
      break;
    case K_XENT:
      ck_assert_int_eq(dlca__ref_softmax_xent(s->d[0], s->d[1], x[0], xent_target, y), 0);
      break;
  }
}

static void backward(const fd_case *c, double *const *x, const double *y, const double *dy, double *const *dx) {
  unsigned mask;
  dlca__shape ys;
  const dlca__shape *s = c->in;
  size_t n = dlca__shape_n(s);
  switch (c->kind) {
    case K_UNARY:
      dlca__ref_unary_backward((dlca__unary_fn)c->fn, n, x[0], y, dy, dx[0]);
      break;
    case K_BINARY:
      ck_assert_int_eq(dlca__ref_binary_backward((dlca__binary_fn)c->fn, s, x[0], s + 1, x[1], dy, dx[0], dx[1]), 0);
      break;
    case K_REDUCE:
      dlca__reduce_shape(s, c->axes, c->naxes, c->keep, &mask, &ys);
      ck_assert_int_eq(dlca__ref_reduce_backward((dlca__reduce_fn)c->fn, s, mask, x[0], dy, dx[0]), 0);
      break;
    case K_MOVE:
      ck_assert_int_eq(dlca__ref_move_backward(&c->move, s, dy, dx[0]), 0);
      break;
    case K_MSE:
      dlca__ref_mse_backward(n, x[0], x[1], *dy, dx[0], dx[1]);
      break;
    case K_XENT:
      ck_assert_int_eq(dlca__ref_softmax_xent_backward(s->d[0], s->d[1], x[0], xent_target, *dy, dx[0]), 0);
      break;
  }
}

static double loss(const fd_case *c, double *const *x, double *y, const double *w, size_t ny) {
  forward(c, x, y);
  double l = 0;
  for (size_t j = 0; j < ny; j++) l += y[j] * w[j];
  return l;
}

/* The worst |analytic - numeric| / (1 + |analytic|) over every input element. */
static double fd_check(const fd_case *c, uint64_t seed) {
  size_t ny = out_n(c), nx[2] = {0, 0};
  double *x[2] = {NULL, NULL}, *dx[2] = {NULL, NULL}, *y = malloc(sizeof(double) * ny),
         *w = malloc(sizeof(double) * ny);
  for (int k = 0; k < c->n_in; k++) {
    nx[k] = dlca__shape_n(&c->in[k]);
    x[k] = malloc(sizeof(double) * nx[k]), dx[k] = malloc(sizeof(double) * nx[k]);
    for (size_t i = 0; i < nx[k]; i++) x[k][i] = urand(&seed, c->lo[k], c->hi[k]);
  }
  for (size_t j = 0; j < ny; j++) w[j] = urand(&seed, -1, 1);
  forward(c, x, y);
  backward(c, x, y, w, dx);
  double worst = 0, h = 1e-6;
  for (int k = 0; k < c->n_in; k++)
    for (size_t i = 0; i < nx[k]; i++) {
      double keep = x[k][i];
      x[k][i] = keep + h;
      double lp = loss(c, x, y, w, ny);
      x[k][i] = keep - h;
      double lm = loss(c, x, y, w, ny);
      x[k][i] = keep;
      worst = fmax(worst, fabs((lp - lm) / (2 * h) - dx[k][i]) / (1 + fabs(dx[k][i])));
    }
  for (int k = 0; k < 2; k++) free(x[k]), free(dx[k]);
  free(y), free(w);
  return worst;
}

#define SH(...)                                                              \
  {                                                                          \
    (int)(sizeof((size_t[]){__VA_ARGS__}) / sizeof(size_t)), { __VA_ARGS__ } \
  }

/* Unary domains: the positive ones for log, sqrt, recip, log2; relu away from its kink. */
static fd_case unary_case(int fn) {
  fd_case c = {K_UNARY, fn, 1, 0, {SH(2, 3, 4)}, {-2}, {2}, {0}, 0, {0}};
  if (fn == DLCA__U_log || fn == DLCA__U_sqrt || fn == DLCA__U_recip || fn == DLCA__U_log2) c.lo[0] = 0.5;
  if (fn == DLCA__U_relu) c.lo[0] = 0.05, c.hi[0] = 1; /* the kink at 0 has no derivative */
  return c;
}

START_TEST(test_ops_fd_unary) {
  fd_case c = unary_case(_i);
  double e = fd_check(&c, 100 + (uint64_t)_i);
  if (_i == DLCA__U_relu) {
    c.lo[0] = -1, c.hi[0] = -0.05;
    e = fmax(e, fd_check(&c, 200));
  }
  fprintf(stderr, "ops fd unary %-8s %.2e\n", dlca__unary_fn_name((dlca__unary_fn)_i), e);
  ck_assert_msg(e < 1e-6, "unary %s: finite-difference error %g", dlca__unary_fn_name((dlca__unary_fn)_i), e);
}
END_TEST

/* Two broadcast pairs per function (the vectors have [2,1,5]+[3,1] and same-shape). */
START_TEST(test_ops_fd_binary) {
  int fn = _i / 2;
  fd_case c = {K_BINARY, fn, 2, 0, {SH(4, 1, 3), SH(2, 1)}, {-2, 0.5}, {2, 2}, {0}, 0, {0}};
  if (_i % 2) c.in[0] = (dlca__shape)SH(3), c.in[1] = (dlca__shape)SH(2, 2, 1, 3);
  if (fn == DLCA__B_mod) c.lo[0] = 0.1; /* fmod's jumps at integer a/b are measure zero; keep a > 0 */
  double e = fd_check(&c, 300 + (uint64_t)_i);
  fprintf(stderr, "ops fd binary %-6s pair %d %.2e\n", dlca__binary_fn_name((dlca__binary_fn)fn), _i % 2, e);
  ck_assert_msg(e < 1e-6, "binary %s: finite-difference error %g", dlca__binary_fn_name((dlca__binary_fn)fn), e);
}
END_TEST

START_TEST(test_ops_fd_reduce) {
  fd_case c = {K_REDUCE, _i / 3, 1, 0, {SH(3, 4, 5)}, {-2}, {2}, {0, 2}, 2, {0}};
  if (_i % 3 == 1) c.in[0] = (dlca__shape)SH(2, 3, 2, 3), c.axes[0] = -1, c.naxes = 1, c.keep = 1;
  if (_i % 3 == 2) c.in[0] = (dlca__shape)SH(4, 3), c.axes[0] = 0, c.axes[1] = 1;
  double e = fd_check(&c, 400 + (uint64_t)_i);
  fprintf(stderr, "ops fd reduce fn %d case %d %.2e\n", _i / 3, _i % 3, e);
  ck_assert_msg(e < 1e-6, "reduce fn %d case %d: finite-difference error %g", _i / 3, _i % 3, e);
}
END_TEST

static const struct {
  dlca__move m;
  dlca__shape s;
} moves[] = {
    {{DLCA__M_permute, 3, {{1}, {2}, {0}}, 0}, SH(3, 4, 2)},
    {{DLCA__M_permute, 4, {{3}, {1}, {0}, {2}}, 0}, SH(2, 3, 1, 2)},
    {{DLCA__M_expand, 3, {{2}, {3}, {4}}, 0}, SH(3, 1)},
    {{DLCA__M_expand, 3, {{2}, {-1}, {3}}, 0}, SH(1, 4, 1)},
    {{DLCA__M_pad, 3, {{2, 1}, {0, 2}, {1, 1}}, 0.5}, SH(2, 3, 2)},
    {{DLCA__M_shrink, 3, {{1, 4}, {0, 3}, {2, 3}}, 0}, SH(5, 4, 3)},
    {{DLCA__M_stride, 3, {{3}, {2}, {1}}, 0}, SH(5, 7, 3)},
};

START_TEST(test_ops_fd_movement) {
  fd_case c = {K_MOVE, 0, 1, 0, {moves[_i].s}, {-2}, {2}, {0}, 0, moves[_i].m};
  double e = fd_check(&c, 500 + (uint64_t)_i);
  fprintf(stderr, "ops fd movement case %d (fn %d) %.2e\n", _i, (int)moves[_i].m.fn, e);
  ck_assert_msg(e < 1e-6, "movement case %d: finite-difference error %g", _i, e);
}
END_TEST

START_TEST(test_ops_fd_losses) {
  fd_case mse = {K_MSE, 0, 2, 0, {SH(5, 2), SH(5, 2)}, {-2, -2}, {2, 2}, {0}, 0, {0}};
  fd_case xent = {K_XENT, 0, 1, 0, {SH(5, 4)}, {-3}, {3}, {0}, 0, {0}};
  double e1 = fd_check(&mse, 600), e2 = fd_check(&xent, 601);
  fprintf(stderr, "ops fd mse %.2e softmax_cross_entropy %.2e\n", e1, e2);
  ck_assert_msg(e1 < 1e-6 && e2 < 1e-6, "losses: finite-difference errors %g %g", e1, e2);
}
END_TEST

TCase *to_tcase_fd(void) {
  TCase *tc = tcase_create("fd");
  tcase_add_loop_test(tc, test_ops_fd_unary, 0, DLCA__U_COUNT);
  tcase_add_loop_test(tc, test_ops_fd_binary, 0, 2 * DLCA__B_cmplt);
  tcase_add_loop_test(tc, test_ops_fd_reduce, 0, 3 * DLCA__R_COUNT);
  tcase_add_loop_test(tc, test_ops_fd_movement, 0, (int)(sizeof moves / sizeof moves[0]));
  tcase_add_test(tc, test_ops_fd_losses);
  return tc;
}
