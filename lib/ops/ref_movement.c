/* The CPU twin of the movement ops (permute, expand, pad, shrink, stride) and
 * their adjoints (shared/testdata/ops/README.md, op movement). Each is a
 * strided view (lib/ops/ref_view.c): y gathers x through it, and the backward
 * scatter-adds dy back through the same view; pad is the other way round. */
#include <string.h>

#include "core/internal.h"
#include "ops/ref.h"

#define BAD(...) dlca__fail(DLCA_EINVAL, __VA_ARGS__)

int dlca__move_fn_from_name(const char *name) {
  static const char *const names[] = {"permute", "expand", "pad", "shrink", "stride"};
  for (int i = 0; i < DLCA__M_COUNT; i++)
    if (!strcmp(name, names[i])) return i;
  return -1;
}

static void dense_strides(const dlca__shape *s, ptrdiff_t *st) {
  ptrdiff_t acc = 1;
  for (int k = s->rank - 1; k >= 0; k--) st[k] = acc, acc *= (ptrdiff_t)s->d[k];
}

static int plan_permute(const dlca__move *m, const dlca__shape *xs, const ptrdiff_t *st, dlca__view *v) {
  unsigned seen = 0;
  for (int k = 0; k < xs->rank; k++) {
    long d = m->arg[k][0];
    if (d < 0 || d >= xs->rank || (seen & (1u << d)))
      return BAD("permute: dims is not a permutation of 0..%d (entry %d is %ld)", xs->rank - 1, k, d);
    seen |= 1u << d;
    v->shape.d[k] = xs->d[d];
    v->stride[k] = st[d];
  }
  return DLCA_OK;
}

/* NumPy's rule: x's axes align on the right; -1 keeps one; a new leading axis or a 1 broadcasts. */
static int plan_expand(const dlca__move *m, const dlca__shape *xs, const ptrdiff_t *st, dlca__view *v) {
  if (m->n < xs->rank) return BAD("expand: shape has %d entries, fewer than the rank %d", m->n, xs->rank);
  v->shape.rank = m->n;
  for (int k = 0; k < m->n; k++) {
    int kx = k - (m->n - xs->rank);
    long want = m->arg[k][0];
    size_t have = kx >= 0 ? xs->d[kx] : 1;
    if (want == -1 && kx >= 0) want = (long)have;
    if (want < 0 || (have != 1 && (size_t)want != have))
      return BAD("expand: axis %d of size %zu cannot become %ld", k, have, m->arg[k][0]);
    v->shape.d[k] = (size_t)want;
    v->stride[k] = kx >= 0 && have != 1 ? st[kx] : 0;
  }
  return DLCA_OK;
}

/* shrink: [start, end) per axis; stride: x[::s]; pad: x's place in y. */
static int plan_window(const dlca__move *m, const dlca__shape *xs, const ptrdiff_t *st, dlca__view *v) {
  for (int k = 0; k < xs->rank; k++) {
    long a = m->arg[k][0], b = m->arg[k][1];
    if (m->fn == DLCA__M_shrink) {
      if (a < 0 || b < a || (size_t)b > xs->d[k])
        return BAD("shrink: axis %d range [%ld, %ld) is outside [0, %zu]", k, a, b, xs->d[k]);
      v->shape.d[k] = (size_t)(b - a), v->stride[k] = st[k], v->offset += a * st[k];
    } else if (m->fn == DLCA__M_stride) {
      if (a < 1) return BAD("stride: axis %d step %ld is below 1", k, a);
      v->shape.d[k] = (xs->d[k] + (size_t)a - 1) / (size_t)a, v->stride[k] = a * st[k];
    } else {
      if (a < 0 || b < 0) return BAD("pad: axis %d has a negative pad [%ld, %ld]", k, a, b);
      v->shape.d[k] = xs->d[k] + (size_t)(a + b); /* y's shape, for now */
    }
  }
  return DLCA_OK;
}

/* pad's view: over x's shape, into y (row-major strides of y). */
static void pad_view(const dlca__move *m, const dlca__shape *xs, dlca__shape *ys, dlca__view *v) {
  *ys = v->shape;
  ptrdiff_t sy[DLCA__MAX_RANK];
  dense_strides(ys, sy);
  v->shape = *xs;
  v->offset = 0;
  for (int k = 0; k < xs->rank; k++) v->stride[k] = sy[k], v->offset += m->arg[k][0] * sy[k];
}

int dlca__move_plan(const dlca__move *m, const dlca__shape *xs, dlca__shape *ys, dlca__view *v) {
  ptrdiff_t st[DLCA__MAX_RANK];
  dense_strides(xs, st);
  memset(v, 0, sizeof *v);
  v->shape.rank = xs->rank;
  if (m->fn != DLCA__M_expand && m->n != xs->rank)
    return BAD("movement: %d per-axis entries for a tensor of rank %d", m->n, xs->rank);
  int rc = m->fn == DLCA__M_permute  ? plan_permute(m, xs, st, v)
           : m->fn == DLCA__M_expand ? plan_expand(m, xs, st, v)
           : m->fn < DLCA__M_COUNT   ? plan_window(m, xs, st, v)
                                     : BAD("movement: unknown function %d", (int)m->fn);
  if (rc) return rc;
  if (m->fn == DLCA__M_pad)
    pad_view(m, xs, ys, v);
  else
    *ys = v->shape;
  return DLCA_OK;
}

int dlca__ref_move(const dlca__move *m, const dlca__shape *xs, const double *x, double *y) {
  dlca__shape ys;
  dlca__view v;
  int rc = dlca__move_plan(m, xs, &ys, &v);
  if (rc) return rc;
  if (m->fn != DLCA__M_pad) {
    dlca__ref_gather(&v, x, y);
    return DLCA_OK;
  }
  size_t ny = dlca__shape_n(&ys), nx = dlca__shape_n(xs);
  for (size_t j = 0; j < ny; j++) y[j] = m->value;
  for (size_t j = 0; j < nx; j++) y[dlca__view_at(&v, j)] = x[j];
  return DLCA_OK;
}

int dlca__ref_move_backward(const dlca__move *m, const dlca__shape *xs, const double *dy, double *dx) {
  dlca__shape ys;
  dlca__view v;
  int rc = dlca__move_plan(m, xs, &ys, &v);
  if (rc) return rc;
  if (m->fn == DLCA__M_pad) {
    dlca__ref_gather(&v, dy, dx);
    return DLCA_OK;
  }
  memset(dx, 0, sizeof(double) * dlca__shape_n(xs));
  dlca__ref_scatter_add(&v, dy, dx);
  return DLCA_OK;
}
