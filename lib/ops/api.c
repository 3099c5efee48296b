/* The public ops (include/dlca_cl/ops.h), elementwise part: the function
 * names, the checks every op shares, unary and binary. Each wraps a
 * launcher of lib/ops/cl_*.c and records itself on a begun tape. */
#include "ops/api.h"

#include <stdio.h>
#include <string.h>

#include "core/internal.h"

/* The public enums are the twin's, in the same order. */
_Static_assert((int)DLCA_UNARY_COUNT == (int)DLCA__U_COUNT, "unary functions");
_Static_assert((int)DLCA_UNARY_COS == (int)DLCA__U_cos, "unary order");
_Static_assert((int)DLCA_BINARY_COUNT == (int)DLCA__B_COUNT, "binary functions");
_Static_assert((int)DLCA_BINARY_CMPLT == (int)DLCA__B_cmplt, "binary order");
_Static_assert((int)DLCA_REDUCE_COUNT == (int)DLCA__R_COUNT && (int)DLCA_REDUCE_MEAN == (int)DLCA__R_mean, "reduce");
_Static_assert((int)DLCA_MOVE_COUNT == (int)DLCA__M_COUNT && (int)DLCA_MOVE_STRIDE == (int)DLCA__M_stride, "move");
_Static_assert(DLCA_TENSOR_MAX_RANK == DLCA__MAX_RANK, "rank");

#define NAME_(U, l) #l,
static const char *const unary_names[] = {DLCA_UNARY_FNS(NAME_)};
static const char *const binary_names[] = {DLCA_BINARY_FNS(NAME_)};
static const char *const reduce_names[] = {DLCA_REDUCE_FNS(NAME_)};
static const char *const move_names[] = {DLCA_MOVE_FNS(NAME_)};
#undef NAME_

const char *dlca_unary_fn_name(dlca_unary_fn fn) { return (unsigned)fn < DLCA_UNARY_COUNT ? unary_names[fn] : NULL; }
const char *dlca_binary_fn_name(dlca_binary_fn fn) {
  return (unsigned)fn < DLCA_BINARY_COUNT ? binary_names[fn] : NULL;
}
const char *dlca_reduce_fn_name(dlca_reduce_fn fn) {
  return (unsigned)fn < DLCA_REDUCE_COUNT ? reduce_names[fn] : NULL;
}
const char *dlca_move_fn_name(dlca_move_fn fn) { return (unsigned)fn < DLCA_MOVE_COUNT ? move_names[fn] : NULL; }

int dlca__api_ctx(const char *fn, dlca_context **ctx, int n, const dlca_tensor *const *t, const char *const *names,
                  unsigned optional) {
  *ctx = NULL;
  for (int i = 0; i < n && !*ctx; i++)
    if (t[i]) *ctx = t[i]->ctx;
  char what[96];
  for (int i = 0; i < n; i++) {
    if (!t[i] && (optional >> i & 1u)) continue;
    snprintf(what, sizeof what, "%s: %s", fn, names[i]);
    int rc = dlca__tensor_check(*ctx, t[i], what);
    if (rc) return rc;
  }
  return DLCA_OK;
}

int dlca__api_fwd(const char *fn, dlca_context **ctx, int n, const dlca_tensor *const *t, const char *const *names,
                  unsigned optional) {
  int rc = dlca__api_ctx(fn, ctx, n, t, names, optional);
  return rc ? rc : dlca__tape_check(*ctx, fn, n, t);
}

static void shape_text(const dlca__shape *s, char *buf, size_t len) {
  int p = snprintf(buf, len, "[");
  for (int k = 0; k < s->rank && p > 0 && (size_t)p < len; k++)
    p += snprintf(buf + p, len - (size_t)p, k ? ", %zu" : "%zu", s->d[k]);
  if (p > 0 && (size_t)p < len) snprintf(buf + p, len - (size_t)p, "]");
}

int dlca__api_shape(const char *fn, const char *name, const dlca_tensor *t, const dlca__shape *want) {
  dlca__shape have = dlca__ops_cl_shape(t);
  if (dlca__shape_eq(&have, want)) return DLCA_OK;
  char a[96], b[96];
  shape_text(&have, a, sizeof a), shape_text(want, b, sizeof b);
  return dlca__fail(DLCA_EINVAL, "%s: %s has shape %s, expected %s", fn, name, a, b);
}

/* Copies a twin shape out through the public (rank, shape) pair. */
static int shape_out(const char *fn, const dlca__shape *s, int *rank, size_t *shape) {
  if (!rank || !shape) return dlca__fail(DLCA_EINVAL, "%s: NULL rank or shape", fn);
  *rank = s->rank;
  for (int k = 0; k < s->rank; k++) shape[k] = s->d[k];
  return DLCA_OK;
}

static int unary_fn(const char *fn, dlca_unary_fn f) {
  return (unsigned)f < DLCA_UNARY_COUNT ? DLCA_OK : dlca__fail(DLCA_EINVAL, "%s: no unary function %d", fn, (int)f);
}

static int binary_fn(const char *fn, dlca_binary_fn f) {
  return (unsigned)f < DLCA_BINARY_COUNT ? DLCA_OK : dlca__fail(DLCA_EINVAL, "%s: no binary function %d", fn, (int)f);
}

int dlca_unary(dlca_unary_fn fn, const dlca_tensor *x, dlca_tensor *y) {
  static const char *const names[] = {"x", "y"};
  const dlca_tensor *t[] = {x, y};
  dlca_context *ctx;
  dlca__shape xs;
  int rc;
  if ((rc = unary_fn("dlca_unary", fn)) || (rc = dlca__api_fwd("dlca_unary", &ctx, 2, t, names, 0)) ||
      (xs = dlca__ops_cl_shape(x), rc = dlca__api_shape("dlca_unary", "y", y, &xs)) ||
      (rc = dlca__ops_cl_unary(ctx, (dlca__unary_fn)fn, x, y)))
    return rc;
  dlca__tape_rec r = {.kind = DLCA__T_unary, .fn = (int)fn, .in = {x, NULL}, .out = y};
  return dlca__tape_record(ctx, &r);
}

int dlca_unary_backward(dlca_unary_fn fn, const dlca_tensor *x, const dlca_tensor *y, const dlca_tensor *dy,
                        dlca_tensor *dx) {
  static const char *const names[] = {"x", "y", "dy", "dx"};
  const dlca_tensor *t[] = {x, y, dy, dx};
  const char *f = "dlca_unary_backward";
  dlca_context *ctx;
  dlca__shape xs;
  int rc;
  if ((rc = unary_fn(f, fn)) || (rc = dlca__api_ctx(f, &ctx, 4, t, names, 0))) return rc;
  xs = dlca__ops_cl_shape(x);
  if ((rc = dlca__api_shape(f, "y", y, &xs)) || (rc = dlca__api_shape(f, "dy", dy, &xs)) ||
      (rc = dlca__api_shape(f, "dx", dx, &xs)))
    return rc;
  return dlca__ops_cl_unary_backward(ctx, (dlca__unary_fn)fn, x, y, dy, dx);
}

/* The broadcast shape of a and b, the message naming fn. */
static int broadcast(const char *fn, const dlca_tensor *a, const dlca_tensor *b, dlca__shape *ys) {
  dlca__shape as = dlca__ops_cl_shape(a), bs = dlca__ops_cl_shape(b);
  if (!dlca__broadcast_shape(&as, &bs, ys)) return DLCA_OK;
  char sa[96], sb[96];
  shape_text(&as, sa, sizeof sa), shape_text(&bs, sb, sizeof sb);
  return dlca__fail(DLCA_EINVAL, "%s: a %s and b %s do not broadcast", fn, sa, sb);
}

int dlca_broadcast_shape(const dlca_tensor *a, const dlca_tensor *b, int *rank, size_t *shape) {
  static const char *const names[] = {"a", "b"};
  const dlca_tensor *t[] = {a, b};
  dlca_context *ctx;
  dlca__shape ys;
  int rc;
  if ((rc = dlca__api_ctx("dlca_broadcast_shape", &ctx, 2, t, names, 0)) ||
      (rc = broadcast("dlca_broadcast_shape", a, b, &ys)))
    return rc;
  return shape_out("dlca_broadcast_shape", &ys, rank, shape);
}

int dlca_binary(dlca_binary_fn fn, const dlca_tensor *a, const dlca_tensor *b, dlca_tensor *y) {
  static const char *const names[] = {"a", "b", "y"};
  const dlca_tensor *t[] = {a, b, y};
  dlca_context *ctx;
  dlca__shape ys;
  int rc;
  if ((rc = binary_fn("dlca_binary", fn)) || (rc = dlca__api_fwd("dlca_binary", &ctx, 3, t, names, 0)) ||
      (rc = broadcast("dlca_binary", a, b, &ys)) || (rc = dlca__api_shape("dlca_binary", "y", y, &ys)) ||
      (rc = dlca__ops_cl_binary(ctx, (dlca__binary_fn)fn, a, b, y)))
    return rc;
  dlca__tape_rec r = {.kind = DLCA__T_binary, .fn = (int)fn, .in = {a, b}, .out = y};
  return dlca__tape_record(ctx, &r);
}

int dlca_binary_backward(dlca_binary_fn fn, const dlca_tensor *a, const dlca_tensor *b, const dlca_tensor *dy,
                         dlca_tensor *da, dlca_tensor *db) {
  static const char *const names[] = {"a", "b", "dy", "da", "db"};
  const dlca_tensor *t[] = {a, b, dy, da, db};
  const char *f = "dlca_binary_backward";
  dlca_context *ctx;
  dlca__shape ys, as, bs;
  int rc;
  if ((rc = binary_fn(f, fn)) || (rc = dlca__api_ctx(f, &ctx, 5, t, names, 3u << 3)) ||
      (rc = broadcast(f, a, b, &ys)) || (rc = dlca__api_shape(f, "dy", dy, &ys)))
    return rc;
  as = dlca__ops_cl_shape(a), bs = dlca__ops_cl_shape(b);
  if ((da && (rc = dlca__api_shape(f, "da", da, &as))) || (db && (rc = dlca__api_shape(f, "db", db, &bs)))) return rc;
  return dlca__ops_cl_binary_backward(ctx, (dlca__binary_fn)fn, a, b, dy, da, db);
}

int dlca_ops_finish(dlca_context *ctx) {
  if (!ctx) return dlca__fail(DLCA_EINVAL, "dlca_ops_finish: no context (NULL)");
  return dlca__finish(ctx, "dlca_ops_finish");
}
