/* The device tensor behind include/dlca_cl/tensor.h, for the ops' launchers. Internal. */
#ifndef DLCA_OPS_TENSOR_H
#define DLCA_OPS_TENSOR_H
#include "cl/runtime.h"
#include "dlca_cl/tensor.h"

struct dlca_tensor {
  dlca_context *ctx;
  int rank;
  size_t shape[DLCA_TENSOR_MAX_RANK];
  size_t n;   /* the element count */
  cl_mem buf; /* n floats, row-major (at least one, for a 0-element tensor) */
};

/* "[2, 3, 4]" into buf. */
void dlca__tensor_shape_text(const dlca_tensor *t, char *buf, size_t len);
/* DLCA_EINVAL naming `what` where t is NULL or belongs to another context. */
int dlca__tensor_check(dlca_context *ctx, const dlca_tensor *t, const char *what);
#endif
