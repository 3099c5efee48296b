/* Device tensors (include/dlca_cl/tensor.h): float32 row-major buffers of
 * rank <= 4 owned by a context. */
#include "ops/tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dlca__tensor_shape_text(const dlca_tensor *t, char *buf, size_t len) {
  int p = snprintf(buf, len, "[");
  for (int k = 0; k < t->rank && p > 0 && (size_t)p < len; k++)
    p += snprintf(buf + p, len - (size_t)p, k ? ", %zu" : "%zu", t->shape[k]);
  if (p > 0 && (size_t)p < len) snprintf(buf + p, len - (size_t)p, "]");
}

int dlca__tensor_check(dlca_context *ctx, const dlca_tensor *t, const char *what) {
  if (!t) return dlca__fail(DLCA_EINVAL, "%s: no tensor (NULL)", what);
  if (t->ctx != ctx) return dlca__fail(DLCA_EINVAL, "%s: the tensor belongs to another context", what);
  return DLCA_OK;
}

int dlca_tensor_new(dlca_context *ctx, int rank, const size_t *shape, dlca_tensor **out) {
  *out = NULL;
  if (!ctx) return dlca__fail(DLCA_EINVAL, "dlca_tensor_new: no context (NULL)");
  if (rank < 0 || rank > DLCA_TENSOR_MAX_RANK)
    return dlca__fail(DLCA_EINVAL, "dlca_tensor_new: rank %d, tensors have rank 0 to %d", rank, DLCA_TENSOR_MAX_RANK);
  if (rank > 0 && !shape) return dlca__fail(DLCA_EINVAL, "dlca_tensor_new: rank %d with no shape (NULL)", rank);
  dlca_tensor *t = calloc(1, sizeof *t);
  if (!t) return dlca__fail(DLCA_ENOMEM, "dlca_tensor_new: out of host memory");
  t->ctx = ctx, t->rank = rank, t->n = 1;
  for (int k = 0; k < rank; k++) {
    t->shape[k] = shape[k];
    if (shape[k] && t->n > ((size_t)1 << 31) / shape[k]) {
      free(t);
      return dlca__fail(DLCA_EINVAL, "dlca_tensor_new: over 2^31 elements (axis %d is %zu)", k, shape[k]);
    }
    t->n *= shape[k];
  }
  char what[128], sh[96];
  dlca__tensor_shape_text(t, sh, sizeof sh);
  snprintf(what, sizeof what, "tensor %s", sh);
  int rc = dlca__buffer(ctx, sizeof(float) * (t->n ? t->n : 1), what, &t->buf);
  if (rc) {
    free(t);
    return rc;
  }
  *out = t;
  return DLCA_OK;
}

void dlca_tensor_free(dlca_tensor *t) {
  if (!t) return;
  if (t->buf) clReleaseMemObject(t->buf);
  free(t);
}

/* DLCA_EINVAL where n is not t's element count. */
static int check_n(const dlca_tensor *t, size_t n, const char *fn) {
  if (!t) return dlca__fail(DLCA_EINVAL, "%s: no tensor (NULL)", fn);
  if (n == t->n) return DLCA_OK;
  char sh[96];
  dlca__tensor_shape_text(t, sh, sizeof sh);
  return dlca__fail(DLCA_EINVAL, "%s: the tensor %s has %zu elements, the host array %zu", fn, sh, t->n, n);
}

int dlca_tensor_upload(dlca_tensor *t, const float *data, size_t n) {
  int rc = check_n(t, n, "dlca_tensor_upload");
  if (rc || !n) return rc;
  return dlca__upload(t->ctx, t->buf, 0, sizeof(float) * n, data, "dlca_tensor_upload");
}

int dlca_tensor_download(const dlca_tensor *t, float *data, size_t n) {
  int rc = check_n(t, n, "dlca_tensor_download");
  if (rc || !n) return rc;
  return dlca__download(t->ctx, t->buf, 0, sizeof(float) * n, data, "dlca_tensor_download");
}

int dlca_tensor_rank(const dlca_tensor *t) { return t ? t->rank : 0; }
size_t dlca_tensor_dim(const dlca_tensor *t, int k) { return t && k >= 0 && k < t->rank ? t->shape[k] : 0; }
size_t dlca_tensor_numel(const dlca_tensor *t) { return t ? t->n : 0; }
dlca_context *dlca_tensor_context(const dlca_tensor *t) { return t ? t->ctx : NULL; }
