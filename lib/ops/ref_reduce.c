/* The CPU twin of sum/max/mean over a set of axes, with keepdim, and their
 * gradients (shared/testdata/ops/README.md, op reduce). Each output sums its
 * inputs in row-major order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "ops/ref.h"

int dlca__reduce_fn_from_name(const char *name) {
  static const char *const names[] = {"sum", "max", "mean"};
  for (int i = 0; i < DLCA__R_COUNT; i++)
    if (!strcmp(name, names[i])) return i;
  return -1;
}

int dlca__reduce_shape(const dlca__shape *x, const long *axes, size_t naxes, int keepdim, unsigned *mask,
                       dlca__shape *y) {
  *mask = 0;
  for (size_t i = 0; i < naxes; i++) {
    long a = axes[i] < 0 ? axes[i] + x->rank : axes[i];
    if (a < 0 || a >= x->rank)
      return dlca__fail(DLCA_EINVAL, "reduce: axis %ld is out of range for rank %d", axes[i], x->rank);
    if (*mask & (1u << a)) return dlca__fail(DLCA_EINVAL, "reduce: axis %ld is listed twice", axes[i]);
    *mask |= 1u << a;
  }
  y->rank = 0;
  for (int k = 0; k < x->rank; k++) {
    if (!(*mask & (1u << k)))
      y->d[y->rank++] = x->d[k];
    else if (keepdim)
      y->d[y->rank++] = 1;
  }
  return DLCA_OK;
}

/* The view of y (as kept-dim, over x's shape): stride 0 on the reduced axes. */
static void out_view(const dlca__shape *xs, unsigned mask, dlca__view *v) {
  memset(v, 0, sizeof *v);
  v->shape = *xs;
  ptrdiff_t acc = 1;
  for (int k = xs->rank - 1; k >= 0; k--) {
    if (mask & (1u << k)) continue;
    v->stride[k] = acc;
    acc *= (ptrdiff_t)xs->d[k];
  }
}

/* The output's element count and the count reduced into each. */
static size_t out_n(const dlca__shape *xs, unsigned mask, size_t *per) {
  size_t n = 1, r = 1;
  for (int k = 0; k < xs->rank; k++) {
    if (mask & (1u << k))
      r *= xs->d[k];
    else
      n *= xs->d[k];
  }
  *per = r;
  return n;
}

void dlca__ref_reduce(dlca__reduce_fn fn, const dlca__shape *xs, unsigned mask, const double *x, double *y) {
  dlca__view v;
  out_view(xs, mask, &v);
  size_t per, ny = out_n(xs, mask, &per), nx = dlca__shape_n(xs);
  for (size_t i = 0; i < ny; i++) y[i] = fn == DLCA__R_max ? -INFINITY : 0;
  for (size_t j = 0; j < nx; j++) {
    ptrdiff_t o = dlca__view_at(&v, j);
    if (fn == DLCA__R_max)
      y[o] = x[j] > y[o] ? x[j] : y[o];
    else
      y[o] += x[j];
  }
  if (fn == DLCA__R_mean)
    for (size_t i = 0; i < ny; i++) y[i] /= (double)per;
}

int dlca__ref_reduce_backward(dlca__reduce_fn fn, const dlca__shape *xs, unsigned mask, const double *x,
                              const double *dy, double *dx) {
  dlca__view v;
  out_view(xs, mask, &v);
  size_t per, ny = out_n(xs, mask, &per), nx = dlca__shape_n(xs);
  if (fn != DLCA__R_max) {
    for (size_t j = 0; j < nx; j++) dx[j] = dy[dlca__view_at(&v, j)] / (fn == DLCA__R_mean ? (double)per : 1.0);
    return DLCA_OK;
  }
  /* the first maximum of each output, in row-major order */
  size_t *arg = malloc(sizeof(size_t) * (ny ? ny : 1));
  char *seen = calloc(ny ? ny : 1, 1);
  if (!arg || !seen) {
    free(arg), free(seen);
    return dlca__fail(DLCA_ENOMEM, "reduce max backward: out of memory for %zu outputs", ny);
  }
  for (size_t j = 0; j < nx; j++) {
    ptrdiff_t o = dlca__view_at(&v, j);
    if (!seen[o] || x[j] > x[arg[o]]) arg[o] = j, seen[o] = 1;
    dx[j] = 0;
  }
  for (size_t i = 0; i < ny; i++)
    if (seen[i]) dx[arg[i]] = dy[i];
  free(arg), free(seen);
  return DLCA_OK;
}
