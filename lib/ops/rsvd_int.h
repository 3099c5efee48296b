/* What lib/ops/rsvd_cl.c and rsvd_orth.c share: the device rSVD's buffers
 * and its orthonormalisation. Internal. */
#ifndef DLCA_OPS_RSVD_INT_H
#define DLCA_OPS_RSVD_INT_H
#include "ops/ref_gru.h"
#include "ops/tensor.h"

#define DLCA__RSVD_NK 6
/* The device path's flag slots: it takes 2 q + 4 passes. */
#define DLCA__RSVD_FLAGS 160

/* The scratch of one call, kept per context between calls (ctx->rsvd_scratch, taken out while a call runs):
 * device buffers grow to the largest shapes asked for, host arrays to the largest l. */
typedef struct dlca__rsvd_cl {
  dlca_context *ctx;
  size_t m, n, l;
  cl_mem a;     /* A [m, n], borrowed */
  cl_mem q[2];  /* Y and Q [m, l], and a spare */
  cl_mem z[2];  /* Z [n, l], and a spare */
  cl_mem g, f;  /* l x l: the Gram matrix, and R^-1 (then Ur, Vr) */
  cl_mem part;  /* the device path's partial Gram matrices [P, l, l] */
  cl_mem fac;   /* the device path's two kept R (2 l x l) and a flag a pass */
  cl_mem ap;    /* dlca_rsvd_amul's partial products [splits, rows, l] */
  size_t cap[9]; /* the bytes of q[0] .. ap */
  int own;      /* the products with A by dlca_rsvd_amul (RSVD_GEMM 1), not CLBlast */
  size_t host_l; /* the l that hg, work and small fit */
  float *hg;    /* host 4 l x l: the Gram matrix read back; R^-1, Ur, Vr written without waiting */
  double *work; /* host 4 l x l + 2 l */
  double *small; /* host 4 l x l + l: R, Ur, Vr, S */
  size_t flags; /* the device path: passes enqueued, each with its flag in fac */
  cl_program prog; /* ops.cl's program that k were created from, and its RSVD_WG */
  size_t wg;
  cl_kernel k[DLCA__RSVD_NK];
} dlca__rsvd_cl;

/* The largest l that the device path (kernels-cl/ops/rsvd.cl, RSVD_LMAX) takes; above, the host path. */
#define DLCA__RSVD_LMAX 96
/* The rSVD's kernels into s->k (created again where ops.cl's program changed), and their release. */
int dlca__rsvd_kernels(dlca__rsvd_cl *s);
void dlca__rsvd_kernels_free(dlca__rsvd_cl *s);
/* The device path's row chunk per work-group of the Gram matrix, and the number of chunks. */
size_t dlca__rsvd_chunk(size_t rows);
/* The device path of Q and the R of the final factorization A^T Q = Z R (as dlca__rsvd_orth's r): every pass on
 * the device, one blocking read at the end. *ok 0 where a pass flagged a Cholesky factor that failed or was not
 * finite: the caller runs the host path from the start. */
int dlca__rsvd_dev_subspace(dlca__rsvd_cl *s, const dlca__rsvd *p, double *r, int *ok);
/* One device pass of Cholesky QR for the tests: q (rows x l) = x R^-1 with G = x^T x = R^T R, r (l x l floats,
 * row-major) = R; *ok 0 where the pass flagged a pivot that was not positive and finite. l <= DLCA__RSVD_LMAX. */
int dlca__rsvd_cl_cholqr(dlca_context *ctx, cl_mem x, size_t rows, size_t l, cl_mem q, float *r, int *ok);
/* One product by dlca_rsvd_amul for the tests: out (rows x l) = A x (at 0, rows m) or A^T x (at 1, rows n). */
int dlca__rsvd_cl_amul(dlca_context *ctx, cl_mem a, size_t m, size_t n, int at, cl_mem x, size_t l, cl_mem out);
/* r <- rp r (both upper triangular l x l); tmp l x l. */
void dlca__rsvd_accumulate(size_t l, const double *rp, double *r, double *tmp);
/* out (m x l) = A x (x n x l), or with at: out (n x l) = A^T x (x m x l). */
int dlca__rsvd_times_a(dlca__rsvd_cl *s, int at, cl_mem x, cl_mem out);
/* The splits of the inner dimension in dlca_rsvd_amul (*per rows of it each) for an output of rows rows. */
size_t dlca__rsvd_splits(size_t rows, size_t inner, size_t *per);
/* out (rows x l) = A x or A^T x by dlca_rsvd_amul (s->ap holds the splits' parts). */
int dlca__rsvd_amul(dlca__rsvd_cl *s, int at, cl_mem x, cl_mem out);
/* out (rows x kout) = x (rows x l) f (l x kout, upper triangular where tri) by dlca_rsvd_trmul. */
int dlca__rsvd_xf(dlca__rsvd_cl *s, cl_mem x, size_t rows, cl_mem f, size_t kout, int tri, cl_mem out);
/* The Gaussian sketch into s->z[0]. */
int dlca__rsvd_gauss_cl(dlca__rsvd_cl *s, uint64_t seed);

/* x (rows x l, *x of the pair xs) <- an orthonormal basis of its columns by
 * Cholesky QR (the Gram matrix on the device, its Cholesky factor on the
 * host), `passes` times; a Gram matrix that is not positive definite gets
 * the shift of Fukaya et al. 2020 (shifted CholeskyQR3) and one more pass; one
 * whose Cholesky fails even so, or that is not finite, falls back to
 * Householder QR on the host. With r (l x l, row-major, may be NULL): the R
 * of the whole, x_in = x_out R. *x may swap with the spare. DLCA_EINVAL for
 * a non-finite Gram matrix (A not finite, or past float32's range). */
/* Enqueues a write of bytes from src (which must stay as it is until the queue next drains: a blocking read or
 * write after it in the in-order queue). */
int dlca__rsvd_write(dlca__rsvd_cl *s, cl_mem buf, size_t bytes, const void *src, const char *what);
int dlca__rsvd_orth(dlca__rsvd_cl *s, cl_mem *xs, size_t rows, int passes, double *r);
#endif
