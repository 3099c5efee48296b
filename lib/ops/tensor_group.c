/* Tensor groups (include/dlca_cl/tensor.h, issue 32): n tensors as
 * sub-buffers of one device buffer, each at the device's base-address
 * alignment, so that one launch can reach every member through the parent. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ops/tensor.h"

struct dlca_tensor_group {
  dlca_context *ctx;
  cl_mem parent;
  size_t n;
  dlca_tensor **m;
};

/* The device's base-address alignment in bytes (at least a float). */
static size_t base_align(dlca_context *ctx) {
  cl_uint bits = 0;
  if (clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL) != CL_SUCCESS)
    bits = 1024;
  size_t a = bits / 8;
  return a < sizeof(float) ? sizeof(float) : a;
}

/* Member i's shape into t (not its buffer), checked as dlca_tensor_new checks. */
static int member_shape(dlca_tensor *t, size_t i, int rank, const size_t *shape) {
  if (rank < 0 || rank > DLCA_TENSOR_MAX_RANK)
    return dlca__fail(DLCA_EINVAL, "dlca_tensor_group_new: member %zu has rank %d, tensors have rank 0 to %d", i,
                      rank, DLCA_TENSOR_MAX_RANK);
  if (rank > 0 && !shape)
    return dlca__fail(DLCA_EINVAL, "dlca_tensor_group_new: member %zu has rank %d and no shape (NULL)", i, rank);
  t->rank = rank, t->n = 1;
  for (int k = 0; k < rank; k++) {
    t->shape[k] = shape[k];
    if (shape[k] && t->n > ((size_t)1 << 31) / shape[k])
      return dlca__fail(DLCA_EINVAL, "dlca_tensor_group_new: member %zu is over 2^31 elements (axis %d is %zu)", i,
                        k, shape[k]);
    t->n *= shape[k];
  }
  return DLCA_OK;
}

/* The members' shapes and byte offsets; the total size into *bytes. */
static int plan(dlca_tensor_group *g, const int *ranks, const size_t *const *shapes, size_t *offs, size_t *bytes) {
  size_t align = base_align(g->ctx), at = 0;
  for (size_t i = 0; i < g->n; i++) {
    if (!(g->m[i] = calloc(1, sizeof *g->m[i]))) return dlca__fail(DLCA_ENOMEM, "dlca_tensor_group_new: out of host memory");
    g->m[i]->ctx = g->ctx;
    int rc = member_shape(g->m[i], i, ranks[i], shapes[i]);
    if (rc) return rc;
    offs[i] = at;
    size_t len = sizeof(float) * (g->m[i]->n ? g->m[i]->n : 1);
    if (len > SIZE_MAX / 2 - at) return dlca__fail(DLCA_EINVAL, "dlca_tensor_group_new: the group is too large");
    at = (at + len + align - 1) / align * align;
  }
  *bytes = at;
  return DLCA_OK;
}

/* The parent buffer, zeroed, and a sub-buffer for each member. */
static int carve(dlca_tensor_group *g, const size_t *offs, size_t bytes) {
  char what[96];
  snprintf(what, sizeof what, "tensor group of %zu tensors", g->n);
  int rc = dlca__buffer(g->ctx, bytes, what, &g->parent);
  if (rc) return rc;
  float zero = 0.0f;
  cl_int err = clEnqueueFillBuffer(g->ctx->queue, g->parent, &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
  if (err != CL_SUCCESS) return dlca__fail_cl(err, "dlca_tensor_group_new: zeroing the group: %s", dlca__cl_error_name(err));
  for (size_t i = 0; i < g->n; i++) {
    cl_buffer_region r = {offs[i], sizeof(float) * (g->m[i]->n ? g->m[i]->n : 1)};
    g->m[i]->buf = clCreateSubBuffer(g->parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    if (err != CL_SUCCESS)
      return dlca__fail_cl(err, "dlca_tensor_group_new: member %zu (%zu bytes at %zu): %s", i, r.size, r.origin,
                           dlca__cl_error_name(err));
  }
  return DLCA_OK;
}

int dlca_tensor_group_new(dlca_context *ctx, size_t n, const int *ranks, const size_t *const *shapes,
                          dlca_tensor_group **out) {
  *out = NULL;
  if (!ctx) return dlca__fail(DLCA_EINVAL, "dlca_tensor_group_new: no context (NULL)");
  if (!n || !ranks || !shapes) return dlca__fail(DLCA_EINVAL, "dlca_tensor_group_new: no members");
  dlca_tensor_group *g = calloc(1, sizeof *g);
  size_t *offs = calloc(n, sizeof *offs), bytes = 0;
  if (g) g->m = calloc(n, sizeof *g->m);
  if (!g || !offs || !g->m) {
    free(offs), dlca_tensor_group_free(g);
    return dlca__fail(DLCA_ENOMEM, "dlca_tensor_group_new: out of host memory");
  }
  g->ctx = ctx, g->n = n;
  int rc = plan(g, ranks, shapes, offs, &bytes);
  if (!rc) rc = carve(g, offs, bytes);
  free(offs);
  if (rc) dlca_tensor_group_free(g);
  else *out = g;
  return rc;
}

dlca_tensor *dlca_tensor_group_member(dlca_tensor_group *g, size_t i) { return g && i < g->n ? g->m[i] : NULL; }
size_t dlca_tensor_group_size(const dlca_tensor_group *g) { return g ? g->n : 0; }

void dlca_tensor_group_free(dlca_tensor_group *g) {
  if (!g) return;
  for (size_t i = 0; g->m && i < g->n; i++)
    if (g->m[i]) {
      if (g->m[i]->buf) clReleaseMemObject(g->m[i]->buf);
      free(g->m[i]);
    }
  if (g->parent) clReleaseMemObject(g->parent);
  free(g->m), free(g);
}
