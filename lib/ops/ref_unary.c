/* The CPU twin of the 12 unary elementwise functions and their derivatives
 * (shared/testdata/ops/README.md, op unary). */
#include <math.h>
#include <string.h>

#include "ops/ref.h"

static const char *const names[] = {
#define NAME(n) #n,
    DLCA__UNARY_FNS(NAME)
#undef NAME
};

int dlca__unary_fn_from_name(const char *name) {
  for (int i = 0; i < DLCA__U_COUNT; i++)
    if (!strcmp(name, names[i])) return i;
  return -1;
}

const char *dlca__unary_fn_name(dlca__unary_fn fn) { return fn < DLCA__U_COUNT ? names[fn] : "?"; }

static double f(dlca__unary_fn fn, double x) {
  switch (fn) {
    case DLCA__U_neg:
      return -x;
    case DLCA__U_exp:
      return exp(x);
    case DLCA__U_log:
      return log(x);
    case DLCA__U_relu:
      return x > 0 ? x : 0;
    case DLCA__U_sigmoid:
      return 1 / (1 + exp(-x));
    case DLCA__U_tanh:
      return tanh(x);
    case DLCA__U_sqrt:
      return sqrt(x);
    case DLCA__U_recip:
      return 1 / x;
    case DLCA__U_exp2:
      return exp2(x);
    case DLCA__U_log2:
      return log2(x);
    case DLCA__U_sin:
      return sin(x);
    case DLCA__U_cos:
      return cos(x);
    default:
      return NAN;
  }
}

/* f'(x), given y = f(x); relu'(0) is 0, as in PyTorch. */
static double df(dlca__unary_fn fn, double x, double y) {
  switch (fn) {
    case DLCA__U_neg:
      return -1;
    case DLCA__U_exp:
      return y;
    case DLCA__U_log:
      return 1 / x;
    case DLCA__U_relu:
      return x > 0 ? 1 : 0;
    case DLCA__U_sigmoid:
      return y * (1 - y);
    case DLCA__U_tanh:
      return 1 - y * y;
    case DLCA__U_sqrt:
      return 0.5 / y;
    case DLCA__U_recip:
      return -y * y;
    case DLCA__U_exp2:
      return y * M_LN2;
    case DLCA__U_log2:
      return 1 / (x * M_LN2);
    case DLCA__U_sin:
      return cos(x);
    case DLCA__U_cos:
      return -sin(x);
    default:
      return NAN;
  }
}

void dlca__ref_unary(dlca__unary_fn fn, size_t n, const double *x, double *y) {
  for (size_t i = 0; i < n; i++) y[i] = f(fn, x[i]);
}

void dlca__ref_unary_backward(dlca__unary_fn fn, size_t n, const double *x, const double *y, const double *dy,
                              double *dx) {
  for (size_t i = 0; i < n; i++) dx[i] = dy[i] * df(fn, x[i], y[i]);
}
