/* Gradient clipping over many tensors (issue 32; launcher lib/optim/cl_clip.c,
 * twin lib/optim/clip.c), on step.cl's block table. clip_grad_norm_ is a
 * deterministic two-pass reduction with no atomics: each block's sum of
 * squares into partial[block] (each work-item in a fixed order, then a
 * fixed tree), then one work-group sums the partials in block order into
 * the norm and the scale, which a third kernel applies in place: the host
 * never reads the norm unless it asks (dlca_optim_cl_last_norm). Sums are
 * double where the device has it, else compensated (Kahan) float (the host
 * builds with -DOPTIM_FLOAT_SUMS=1 where it finds no cl_khr_fp64, and tests
 * force it). */

#if defined(cl_khr_fp64) && !defined(OPTIM_FLOAT_SUMS)
#define OPTIM_FP64 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double optim_real;
#else
typedef float optim_real;
#endif

#define OPTIM_GRADS                                                                                             \
  __global float *g0, __global float *g1, __global float *g2, __global float *g3, __global float *g4,         \
      __global float *g5, __global float *g6, __global float *g7

#define OPTIM_GRAD_START                                                                                       \
  const optim_block b = blocks[first + get_group_id(0)];                                                      \
  const uint sl = (uint)b.x;                                                                                  \
  __global float *g = sl == 0 ? g0 : sl == 1 ? g1 : sl == 2 ? g2 : sl == 3 ? g3 : sl == 4 ? g4 : sl == 5 ? g5 \
                    : sl == 6 ? g6 : g7;                                                                      \
  g += b.y;                                                                                                   \
  const uint n = (uint)b.w

/* The sum of a[0..OPTIM_WG) in local memory, in a fixed tree; all items return it. */
inline optim_real optim_tree_sum(__local optim_real *a) {
  const uint l = get_local_id(0);
  for (uint h = OPTIM_WG / 2; h > 0; h >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < h) a[l] += a[l + h];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  return a[0];
}

__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_sumsq(OPTIM_GRADS, __global const optim_block *blocks, uint first, __global optim_real *partial) {
  __local optim_real a[OPTIM_WG];
  OPTIM_GRAD_START;
  optim_real s = 0, c = 0;
  for (uint i = get_local_id(0); i < n; i += OPTIM_WG) {
    optim_real x = (optim_real)g[i];
#ifdef OPTIM_FP64
    s += x * x; /* exact square of a float; one rounding a term */
#else
    optim_real y = x * x - c, t = s + y;
    c = (t - s) - y, s = t;
#endif
  }
  a[get_local_id(0)] = s;
  optim_real total = optim_tree_sum(a);
  if (get_local_id(0) == 0) partial[first + get_group_id(0)] = total;
}

/* One work-group over the partials [lo, hi): out[0] = the norm, out[1] =
 * max_norm / (norm + 1e-6). */
__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_norm(__global const optim_real *partial, uint lo, uint hi, optim_real max_norm,
                __global optim_real *out) {
  __local optim_real a[OPTIM_WG];
  optim_real s = 0;
  for (uint i = lo + get_local_id(0); i < hi; i += OPTIM_WG) s += partial[i];
  a[get_local_id(0)] = s;
  optim_real norm = sqrt(optim_tree_sum(a));
  if (get_local_id(0) == 0) out[0] = norm, out[1] = max_norm / (norm + (optim_real)1e-6);
}

/* g *= (float)coef where coef < 1 (torch multiplies by 1 otherwise: no
 * change; a NaN coef spreads, as torch's does). */
__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_scale(OPTIM_GRADS, __global const optim_block *blocks, uint first, __global const optim_real *out) {
  OPTIM_GRAD_START;
  const optim_real coef = out[1];
  if (coef >= (optim_real)1) return;
  const float c = (float)coef;
  for (uint i = get_local_id(0); i < n; i += OPTIM_WG) g[i] *= c;
}

/* clip_grad_value_: g = clamp(g, -clip, clip), a NaN staying NaN. */
__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_clamp(OPTIM_GRADS, __global const optim_block *blocks, uint first, float hi) {
  OPTIM_GRAD_START;
  const float lo = -hi;
  for (uint i = get_local_id(0); i < n; i += OPTIM_WG) {
    float x = g[i];
    g[i] = x < lo ? lo : x > hi ? hi : x;
  }
}
