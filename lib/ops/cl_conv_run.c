/* The device runner of the conv2d vector files (lib/ops/cl_conv.h): inputs
 * x, W and (optional) b uploaded as float32, the forward and the backward
 * with grad_outputs.y, the results widened into r's slots. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "ops/cl_conv.h"
#include "ops/ref_ops.h"

enum { T_X, T_W, T_B, T_Y, T_DY, T_DX, T_DW, T_DB, T_COUNT };

static int up(dlca_context *ctx, const dlca__ops_tensor *t, dlca_tensor **out) {
  *out = NULL;
  if (!t) return DLCA_OK;
  float *f = malloc(sizeof(float) * (t->n ? t->n : 1));
  if (!f) return dlca__fail(DLCA_ENOMEM, "%s: out of host memory", t->name);
  for (size_t i = 0; i < t->n; i++) f[i] = (float)t->data[i];
  int rc = dlca_tensor_new(ctx, t->rank, t->shape, out);
  if (!rc && (rc = dlca_tensor_upload(*out, f, t->n))) dlca_tensor_free(*out), *out = NULL;
  free(f);
  return rc;
}

/* A new tensor of shape s where want is not NULL. */
static int fresh(dlca_context *ctx, const double *want, const dlca__shape *s, dlca_tensor **out) {
  *out = NULL;
  return want ? dlca_tensor_new(ctx, s->rank, s->d, out) : DLCA_OK;
}

static int fetch(const dlca_tensor *t, double *dst) {
  if (!t || !dst) return DLCA_OK;
  float *f = malloc(sizeof(float) * (t->n ? t->n : 1));
  if (!f) return dlca__fail(DLCA_ENOMEM, "out of host memory for %zu floats", t->n);
  int rc = dlca_tensor_download(t, f, t->n);
  for (size_t i = 0; !rc && i < t->n; i++) dst[i] = f[i];
  free(f);
  return rc;
}

/* The backward: dy from the file, the gradients the file asks for. */
static int backward(dlca_context *ctx, const dlca__ops_vector *v, const dlca__conv2d *p, const dlca__shape *sh,
                    double *const *g, dlca_tensor **t) {
  const dlca__ops_tensor *dy;
  const double *unused;
  int rc;
  if ((rc = dlca__ops_upstream(v, "y", &sh[T_Y], &unused)) ||
      (rc = dlca__ops_vector_tensor(v, "grad_outputs", "y", &dy)) || (rc = up(ctx, dy, &t[T_DY])))
    return rc;
  for (int k = 0; k < 3 && !rc; k++) rc = fresh(ctx, g[k], &sh[k], &t[T_DX + k]);
  if (rc || (rc = dlca__ops_cl_conv2d_backward(ctx, p, t[T_X], t[T_W], t[T_DY], t[T_DX], t[T_DW], t[T_DB], NULL)))
    return rc;
  for (int k = 0; k < 3 && !rc; k++) rc = fetch(t[T_DX + k], g[k]);
  return rc;
}

static int run(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r, dlca_tensor **t) {
  int rc;
  const dlca__ops_tensor *x, *w, *b;
  dlca__shape sh[4];
  dlca__conv2d p;
  dlca__conv_dims d;
  double *y, *g[3] = {NULL, NULL, NULL};
  if ((rc = dlca__ops_vector_conv2d(v, &p)) || (rc = dlca__ops_input(v, "x", &x, &sh[T_X])) ||
      (rc = dlca__ops_input(v, "W", &w, &sh[T_W])))
    return rc;
  if ((b = dlca__ops_set_find(&v->inputs, "b"))) sh[T_B] = dlca__ops_shape(b);
  if ((rc = dlca__ops_as_parse(v, dlca__conv2d_dims(&sh[T_X], &sh[T_W], b ? &sh[T_B] : NULL, &p, &d)))) return rc;
  sh[T_Y] = (dlca__shape){4, {d.N, d.O, d.OH, d.OW}};
  if ((rc = dlca__ops_out(v, r, "y", &sh[T_Y], &y)) || (rc = dlca__ops_grad(v, r, "x", &sh[T_X], &g[0])) ||
      (rc = dlca__ops_grad(v, r, "W", &sh[T_W], &g[1])) || (b && (rc = dlca__ops_grad(v, r, "b", &sh[T_B], &g[2]))))
    return rc;
  if ((rc = up(ctx, x, &t[T_X])) || (rc = up(ctx, w, &t[T_W])) || (rc = up(ctx, b, &t[T_B])) ||
      (rc = dlca_tensor_new(ctx, 4, sh[T_Y].d, &t[T_Y])) ||
      (rc = dlca__ops_cl_conv2d(ctx, &p, t[T_X], t[T_W], t[T_B], t[T_Y], NULL)) || (rc = fetch(t[T_Y], y)))
    return rc;
  return g[0] || g[1] || g[2] ? backward(ctx, v, &p, sh, g, t) : DLCA_OK;
}

int dlca__ops_cl_run_conv2d(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r) {
  dlca_tensor *t[T_COUNT] = {NULL};
  int rc = run(ctx, v, r, t);
  for (int k = 0; k < T_COUNT; k++) dlca_tensor_free(t[k]);
  return rc;
}
