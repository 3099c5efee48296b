/* Shapes and strided views of the CPU twin: the one index map that movement
 * ops, broadcasting and their adjoints share (lib/ops/ref.h). */
#include <string.h>

#include "core/internal.h"
#include "ops/ref.h"

size_t dlca__shape_n(const dlca__shape *s) {
  size_t n = 1;
  for (int k = 0; k < s->rank; k++) n *= s->d[k];
  return n;
}

int dlca__shape_eq(const dlca__shape *a, const dlca__shape *b) {
  if (a->rank != b->rank) return 0;
  for (int k = 0; k < a->rank; k++)
    if (a->d[k] != b->d[k]) return 0;
  return 1;
}

ptrdiff_t dlca__view_at(const dlca__view *v, size_t j) {
  ptrdiff_t off = v->offset;
  for (int k = v->shape.rank - 1; k >= 0; k--) {
    size_t d = v->shape.d[k];
    off += (ptrdiff_t)(j % d) * v->stride[k];
    j /= d;
  }
  return off;
}

void dlca__ref_gather(const dlca__view *v, const double *src, double *dst) {
  size_t n = dlca__shape_n(&v->shape);
  for (size_t j = 0; j < n; j++) dst[j] = src[dlca__view_at(v, j)];
}

void dlca__ref_scatter_add(const dlca__view *v, const double *src, double *dst) {
  size_t n = dlca__shape_n(&v->shape);
  for (size_t j = 0; j < n; j++) dst[dlca__view_at(v, j)] += src[j];
}

int dlca__broadcast_shape(const dlca__shape *a, const dlca__shape *b, dlca__shape *y) {
  int r = a->rank > b->rank ? a->rank : b->rank;
  y->rank = r;
  for (int k = 0; k < r; k++) {
    int ka = k - (r - a->rank), kb = k - (r - b->rank);
    size_t da = ka >= 0 ? a->d[ka] : 1, db = kb >= 0 ? b->d[kb] : 1;
    if (da != db && da != 1 && db != 1)
      return dlca__fail(DLCA_EINVAL, "shapes do not broadcast: axis %d (from the right) is %zu and %zu", r - k, da, db);
    y->d[k] = da == 1 ? db : da;
  }
  return DLCA_OK;
}

/* Row-major strides of s. */
static void dense_strides(const dlca__shape *s, ptrdiff_t *st) {
  ptrdiff_t acc = 1;
  for (int k = s->rank - 1; k >= 0; k--) st[k] = acc, acc *= (ptrdiff_t)s->d[k];
}

void dlca__broadcast_view(const dlca__shape *xs, const dlca__shape *ys, dlca__view *v) {
  ptrdiff_t st[DLCA__MAX_RANK];
  dense_strides(xs, st);
  memset(v, 0, sizeof *v);
  v->shape = *ys;
  for (int k = 0; k < ys->rank; k++) {
    int kx = k - (ys->rank - xs->rank);
    v->stride[k] = kx >= 0 && xs->d[kx] == ys->d[k] && xs->d[kx] != 1 ? st[kx] : 0;
  }
}
