/* What lib/ops/rsvd_cl.c and rsvd_orth.c share: the device rSVD's buffers
 * and its orthonormalisation. Internal. */
#ifndef DLCA_OPS_RSVD_INT_H
#define DLCA_OPS_RSVD_INT_H
#include "ops/tensor.h"

typedef struct dlca__rsvd_cl {
  dlca_context *ctx;
  size_t m, n, l;
  cl_mem a;     /* A [m, n], borrowed */
  cl_mem q[2];  /* Y and Q [m, l], and a spare */
  cl_mem z[2];  /* Z [n, l], and a spare */
  cl_mem g, f;  /* l x l: the Gram matrix, and R^-1 (then Ur, Vr) */
  float *hg;    /* host l x l */
  double *work; /* host 4 l x l + 2 l */
} dlca__rsvd_cl;

/* x (rows x l, *x of the pair xs) <- an orthonormal basis of its columns by
 * Cholesky QR (the Gram matrix on the device, its Cholesky factor on the
 * host), `passes` times; a Gram matrix that is not positive definite gets
 * the shift of Fukaya et al. 2020 (shifted CholeskyQR3) and one more pass; one
 * whose Cholesky fails even so, or that is not finite, falls back to
 * Householder QR on the host. With r (l x l, row-major, may be NULL): the R
 * of the whole, x_in = x_out R. *x may swap with the spare. DLCA_EINVAL for
 * a non-finite Gram matrix (A not finite, or past float32's range). */
int dlca__rsvd_orth(dlca__rsvd_cl *s, cl_mem *xs, size_t rows, int passes, double *r);
#endif
