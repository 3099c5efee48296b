/* The CPU twin of the GRU (issue 33), in double on row-major host arrays:
 * torch.nn.GRUCell and a one-layer torch.nn.GRU (batch_first), forward and
 * backward through time, and ensembles of M independent GRUs; and of the
 * randomized SVD (Halko et al. 2011). Internal. Gate order r, z, n:
 *   r = s(W_ir x + b_ir + W_hr h + b_hr), z = s(W_iz x + b_iz + W_hz h + b_hz),
 *   n = tanh(W_in x + b_in + r (W_hn h + b_hn)), h' = (1 - z) n + z h.
 * Every sum has a fixed order (batch rows, then time backwards). */
#ifndef DLCA_OPS_REF_GRU_H
#define DLCA_OPS_REF_GRU_H
#include <stddef.h>
#include <stdint.h>

/* Batch B, steps T (1 for a cell), input size D, hidden size H. */
typedef struct dlca__gru_dims {
  size_t B, T, D, H;
} dlca__gru_dims;

/* The weights: w_ih [3H, D], w_hh [3H, H], b_ih [3H], b_hh [3H] (biases may be NULL: zero). */
typedef struct dlca__ref_gru_w {
  const double *w_ih, *w_hh, *b_ih, *b_hh;
} dlca__ref_gru_w;

/* Their gradients; any may be NULL (not computed). The backward overwrites them. */
typedef struct dlca__ref_gru_dw {
  double *w_ih, *w_hh, *b_ih, *b_hh;
} dlca__ref_gru_dw;

/* DLCA_EINVAL for a zero or oversized dimension, naming it. */
int dlca__gru_dims_check(const dlca__gru_dims *d, const char *fn);

/* h_next [B, H] from x [B, D] and h [B, H] (d->T is ignored). DLCA_ENOMEM only. */
int dlca__ref_gru_cell(const dlca__gru_dims *d, const dlca__ref_gru_w *w, const double *x, const double *h,
                       double *h_next);
/* Given dh_next: dx [B, D], dh [B, H] (either may be NULL) and dw. */
int dlca__ref_gru_cell_backward(const dlca__gru_dims *d, const dlca__ref_gru_w *w, const double *x, const double *h,
                                const double *dh_next, double *dx, double *dh, const dlca__ref_gru_dw *dw);

/* y [B, T, H] (every step's h) and h_n [B, H] (may be NULL) from x [B, T, D] and h0 [B, H]. */
int dlca__ref_gru_sequence(const dlca__gru_dims *d, const dlca__ref_gru_w *w, const double *x, const double *h0,
                           double *y, double *h_n);
/* BPTT given the forward's y and the upstream dy [B, T, H] and dh_n [B, H]
 * (either may be NULL: zero): dx [B, T, D], dh0 [B, H] (either may be NULL), dw. */
int dlca__ref_gru_sequence_backward(const dlca__gru_dims *d, const dlca__ref_gru_w *w, const double *x,
                                    const double *h0, const double *y, const double *dy, const double *dh_n,
                                    double *dx, double *dh0, const dlca__ref_gru_dw *dw);

/* An ensemble of M GRUs: weights stacked on a leading axis M (w_ih [M, 3H, D], ...), h0 [M, B, H], y [M, B, T, H],
 * h_n [M, B, H]; x [B, T, D] shared by every member (x_shared) or [M, B, T, D]. Gradients likewise stacked; dx
 * of a shared x is the sum over the members, in member order. */
int dlca__ref_gru_ensemble(size_t M, int x_shared, const dlca__gru_dims *d, const dlca__ref_gru_w *w,
                           const double *x, const double *h0, double *y, double *h_n);
int dlca__ref_gru_ensemble_backward(size_t M, int x_shared, const dlca__gru_dims *d, const dlca__ref_gru_w *w,
                                    const double *x, const double *h0, const double *y, const double *dy,
                                    const double *dh_n, double *dx, double *dh0, const dlca__ref_gru_dw *dw);

/* ---- randomized SVD (Halko, Martinsson, Tropp 2011, algorithms 4.4 and 5.1) ---- */
typedef struct dlca__rsvd {
  size_t rank, oversample, power_iters;
  uint64_t seed; /* the Gaussian sketch: dlca__rsvd_gauss(seed, i, j) */
} dlca__rsvd;

/* Entry (i, j) of the n x (k + p) Gaussian test matrix: Box-Muller on two
 * dlca_rng_u32 draws (kernels-cl/ops/rsvd.cl computes the same in float). */
double dlca__rsvd_gauss(uint64_t seed, uint32_t i, uint32_t j);

/* DLCA_EINVAL for a rank of 0 or above min(m, n), or a non-finite entry of a (m x n, floats or doubles). */
int dlca__rsvd_check(const dlca__rsvd *p, size_t m, size_t n, const double *a, const float *af);

/* The twin: u [m, k], s [k] (descending), v [n, k] with A ~ U diag(S) V^T, A
 * [m, n]; l = min(k + p, min(m, n)) columns in the sketch. Orthonormalises
 * by Householder QR (LAPACKE) after every product with A or A^T. */
int dlca__ref_rsvd(const dlca__rsvd *p, size_t m, size_t n, const double *a, double *u, double *s, double *v);

/* The SVD of R^T for R l x l (row-major): ur, vr l x l, s [l] descending,
 * each pair's largest |ur| entry made positive. */
int dlca__rsvd_small_svd(size_t l, const double *r, double *ur, double *s, double *vr);

/* The README's three conditions for a result: max |U^T U - I| and |V^T V - I|
 * into *orth, ||A - U diag(S) V^T||_F into *err. */
void dlca__rsvd_quality(size_t m, size_t n, size_t k, const double *a, const double *u, const double *s,
                        const double *v, double *orth, double *err);

/* ---- vector runners (lib/ops/ref_case.c's dispatch; the same layout as dlca__ops_ref_run) ---- */
struct dlca__ops_vector;
struct dlca__ops_result;
int dlca__ops_run_gru_cell(const struct dlca__ops_vector *v, struct dlca__ops_result *r);
int dlca__ops_run_gru_sequence(const struct dlca__ops_vector *v, struct dlca__ops_result *r);
/* S into the result; DLCA_EPARITY where U or V is not orthonormal or the
 * reconstruction misses the case's optimal_rank_k_frobenius_error by over 1%. */
int dlca__ops_run_rsvd(const struct dlca__ops_vector *v, struct dlca__ops_result *r);
/* A gru case's weights and d->D, d->H, checked (DLCA_EPARSE naming the input). */
int dlca__ops_gru_weights(const struct dlca__ops_vector *v, dlca__gru_dims *d, dlca__ref_gru_w *w);
#endif
