/* The CPU twin of the 7 binary functions with NumPy broadcasting, and their
 * gradients summed over the broadcast axes in y's row-major order
 * (shared/testdata/ops/README.md, op binary). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "ops/ref.h"

static const char *const names[] = {
#define NAME(n) #n,
    DLCA__BINARY_FNS(NAME)
#undef NAME
};

int dlca__binary_fn_from_name(const char *name) {
  for (int i = 0; i < DLCA__B_COUNT; i++)
    if (!strcmp(name, names[i])) return i;
  return -1;
}

const char *dlca__binary_fn_name(dlca__binary_fn fn) { return fn < DLCA__B_COUNT ? names[fn] : "?"; }

static double f(dlca__binary_fn fn, double a, double b) {
  switch (fn) {
    case DLCA__B_add:
      return a + b;
    case DLCA__B_sub:
      return a - b;
    case DLCA__B_mul:
      return a * b;
    case DLCA__B_div:
      return a / b;
    case DLCA__B_max:
      return a > b ? a : b; /* torch.maximum; a NaN is not in the data */
    case DLCA__B_mod:
      return fmod(a, b); /* torch.fmod: C's */
    case DLCA__B_cmplt:
      return a < b ? 1.0 : 0.0;
    default:
      return NAN;
  }
}

/* d f/da and d f/db at (a, b). torch.maximum splits a tie in halves;
 * fmod(a, b) = a - trunc(a/b) * b. */
static void df(dlca__binary_fn fn, double a, double b, double *ga, double *gb) {
  switch (fn) {
    case DLCA__B_add:
      *ga = 1, *gb = 1;
      break;
    case DLCA__B_sub:
      *ga = 1, *gb = -1;
      break;
    case DLCA__B_mul:
      *ga = b, *gb = a;
      break;
    case DLCA__B_div:
      *ga = 1 / b, *gb = -a / (b * b);
      break;
    case DLCA__B_max:
      *ga = a > b ? 1 : a == b ? 0.5 : 0, *gb = 1 - *ga;
      break;
    case DLCA__B_mod:
      *ga = 1, *gb = -trunc(a / b);
      break;
    default:
      *ga = 0, *gb = 0;
      break;
  }
}

int dlca__ref_binary(dlca__binary_fn fn, const dlca__shape *as, const double *a, const dlca__shape *bs, const double *b,
                     double *y) {
  dlca__shape ys;
  int rc = dlca__broadcast_shape(as, bs, &ys);
  if (rc) return rc;
  dlca__view va, vb;
  dlca__broadcast_view(as, &ys, &va);
  dlca__broadcast_view(bs, &ys, &vb);
  size_t n = dlca__shape_n(&ys);
  for (size_t j = 0; j < n; j++) y[j] = f(fn, a[dlca__view_at(&va, j)], b[dlca__view_at(&vb, j)]);
  return DLCA_OK;
}

int dlca__ref_binary_backward(dlca__binary_fn fn, const dlca__shape *as, const double *a, const dlca__shape *bs,
                              const double *b, const double *dy, double *da, double *db) {
  dlca__shape ys;
  int rc = dlca__broadcast_shape(as, bs, &ys);
  if (rc) return rc;
  dlca__view va, vb;
  dlca__broadcast_view(as, &ys, &va);
  dlca__broadcast_view(bs, &ys, &vb);
  if (da) memset(da, 0, sizeof(double) * dlca__shape_n(as));
  if (db) memset(db, 0, sizeof(double) * dlca__shape_n(bs));
  size_t n = dlca__shape_n(&ys);
  for (size_t j = 0; j < n; j++) {
    ptrdiff_t ia = dlca__view_at(&va, j), ib = dlca__view_at(&vb, j);
    double ga, gb;
    df(fn, a[ia], b[ib], &ga, &gb);
    if (da) da[ia] += dy[j] * ga;
    if (db) db[ib] += dy[j] * gb;
  }
  return DLCA_OK;
}
