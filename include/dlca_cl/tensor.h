/* Device tensors of the general compute layer (issue 31), a draft: float32,
 * row-major, rank 0 to 4, owned by a context and living on its device.
 * Uploads and downloads block; ops on tensors enqueue on the context's one
 * in-order queue and never block. */
#ifndef DLCA_CL_TENSOR_H
#define DLCA_CL_TENSOR_H

#include <stddef.h>
#include "dlca_cl/cl.h"
#include "dlca_cl/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DLCA_TENSOR_MAX_RANK 4

typedef struct dlca_tensor dlca_tensor;

/* A tensor of the given shape (rank 0 is a scalar; shape may then be NULL),
 * its contents undefined until an upload or an op writes it. DLCA_EINVAL
 * for a rank over 4 or over 2^31 elements; DLCA_EDEVMEM, naming the shape
 * and the bytes, where the device has no room. */
DLCA_API DLCA_WUR int dlca_tensor_new(dlca_context *ctx, int rank, const size_t *shape, dlca_tensor **out);
/* Frees the tensor and its device memory (NULL is allowed). The context
 * must outlive its tensors. */
DLCA_API void dlca_tensor_free(dlca_tensor *t);

/* Copies n floats from data into the tensor, and waits. DLCA_EINVAL where n
 * is not the tensor's element count (the message gives both). */
DLCA_API DLCA_WUR int dlca_tensor_upload(dlca_tensor *t, const float *data, size_t n);
/* Waits for every op enqueued before, then copies the tensor's n floats
 * into data. DLCA_EINVAL where n is not its element count. */
DLCA_API DLCA_WUR int dlca_tensor_download(const dlca_tensor *t, float *data, size_t n);

DLCA_API int dlca_tensor_rank(const dlca_tensor *t);
/* The extent of axis k (0 <= k < rank), else 0. */
DLCA_API size_t dlca_tensor_dim(const dlca_tensor *t, int k);
/* The element count (1 for a scalar). */
DLCA_API size_t dlca_tensor_numel(const dlca_tensor *t);
DLCA_API dlca_context *dlca_tensor_context(const dlca_tensor *t);

/* ---- Tensor groups (issue 32) ------------------------------------------ */

/* n tensors carved out of one device buffer: member i has rank ranks[i] and
 * shape shapes[i] (NULL for a scalar), at an offset aligned to the device's
 * base-address alignment, the gaps zero. An optimizer (dlca_optim_cl_step)
 * steps the parameters of a whole model in one launch when params and
 * grads are two groups of the same shapes. Each member is an ordinary
 * dlca_tensor, freed with its group and never alone. The errors are
 * dlca_tensor_new's, naming the member. */
typedef struct dlca_tensor_group dlca_tensor_group;
DLCA_API DLCA_WUR int dlca_tensor_group_new(dlca_context *ctx, size_t n, const int *ranks,
                                            const size_t *const *shapes, dlca_tensor_group **out);
/* Member i (NULL for i >= n). */
DLCA_API dlca_tensor *dlca_tensor_group_member(dlca_tensor_group *g, size_t i);
DLCA_API size_t dlca_tensor_group_size(const dlca_tensor_group *g);
/* Frees the members and the buffer (NULL is allowed). */
DLCA_API void dlca_tensor_group_free(dlca_tensor_group *g);

#ifdef __cplusplus
}
#endif
#endif
