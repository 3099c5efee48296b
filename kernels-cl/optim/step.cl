/* One optimizer step over many tensors in one launch (issue 32; launcher
 * lib/optim/cl_step.c, twin lib/optim/optimizer.c). A launch takes up to
 * OPTIM_CHUNK parameter/gradient buffer pairs (a tensor group is one pair:
 * its parent buffers) and a table of blocks: work-group b updates the
 * elements [off, off + count) of pair `slot`, whose state starts at float
 * soff of each state slot (slot stride ss). A block never crosses a tensor,
 * so the gaps of a group are never touched. */

/* The buffer pairs a launch takes: a constant of the host (OPTIM_CHUNK in
 * lib/optim/cl_internal.h), not a tunable. */
#define OPTIM_CHUNK 8

// @tunable OPTIM_WG 256 64 128 512 1024 | 32..1024 pow2
#ifndef OPTIM_WG
#define OPTIM_WG 256
#endif

/* One block of the table: {slot, off, soff, count}. */
typedef ulong4 optim_block;

#define OPTIM_PAIRS                                                                                             \
  __global float *p0, __global float *p1, __global float *p2, __global float *p3, __global float *p4,         \
      __global float *p5, __global float *p6, __global float *p7, __global const float *g0,                   \
      __global const float *g1, __global const float *g2, __global const float *g3, __global const float *g4, \
      __global const float *g5, __global const float *g6, __global const float *g7

/* The block's parameter and gradient pointers, at its first element. */
#define OPTIM_BLOCK_START                                                                                      \
  const optim_block b = blocks[first + get_group_id(0)];                                                      \
  const uint sl = (uint)b.x;                                                                                  \
  __global float *p = sl == 0 ? p0 : sl == 1 ? p1 : sl == 2 ? p2 : sl == 3 ? p3 : sl == 4 ? p4 : sl == 5 ? p5 \
                    : sl == 6 ? p6 : p7;                                                                      \
  __global const float *g = sl == 0 ? g0 : sl == 1 ? g1 : sl == 2 ? g2 : sl == 3 ? g3 : sl == 4 ? g4          \
                          : sl == 5 ? g5 : sl == 6 ? g6 : g7;                                                 \
  p += b.y, g += b.y;                                                                                         \
  __global float *s = st + b.z;                                                                               \
  const uint n = (uint)b.w

__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_sgd(OPTIM_PAIRS, __global float *st, __global const optim_block *blocks, uint first, ulong ss,
               optim_scalars k, int momentum_on, int nesterov, int wd_on) {
  OPTIM_BLOCK_START;
  for (uint i = get_local_id(0); i < n; i += OPTIM_WG)
    p[i] = optim_sgd(p[i], g[i], s + i, ss, k, momentum_on, nesterov, wd_on);
}

__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_adam(OPTIM_PAIRS, __global float *st, __global const optim_block *blocks, uint first, ulong ss,
                optim_scalars k, int decoupled, int l2, int amsgrad) {
  OPTIM_BLOCK_START;
  for (uint i = get_local_id(0); i < n; i += OPTIM_WG) p[i] = optim_adam(p[i], g[i], s + i, ss, k, decoupled, l2, amsgrad);
}

__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_rmsprop(OPTIM_PAIRS, __global float *st, __global const optim_block *blocks, uint first, ulong ss,
                   optim_scalars k, int wd_on, int centered, int momentum_on) {
  OPTIM_BLOCK_START;
  for (uint i = get_local_id(0); i < n; i += OPTIM_WG)
    p[i] = optim_rmsprop(p[i], g[i], s + i, ss, k, wd_on, centered, momentum_on);
}

__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_adagrad(OPTIM_PAIRS, __global float *st, __global const optim_block *blocks, uint first, ulong ss,
                   optim_scalars k, int wd_on) {
  OPTIM_BLOCK_START;
  for (uint i = get_local_id(0); i < n; i += OPTIM_WG) p[i] = optim_adagrad(p[i], g[i], s + i, ss, k, wd_on);
}

/* The flat step (lib/optim/cl_step.c): n elements of one buffer pair from
 * element `base`, whose state is st[0 .. n) of each slot (ss a multiple of
 * 4): one tensor, or a whole group whose params and grads share a layout
 * (the gaps are zero and the rules keep them zero). Work-item i updates
 * elements 4i .. 4i + 3, in float4 loads and stores where all four exist. */
#define OPTIM_FLAT_ARGS                                                                                  \
  __global float *p, __global const float *g, __global float *st, ulong ss, ulong base, ulong n,       \
      optim_scalars k

inline void optim_flat_in(float *d, __global const float *s, uint m) {
  if (m == 4) {
    float4 v = *(__global const float4 *)s;
    d[0] = v.x, d[1] = v.y, d[2] = v.z, d[3] = v.w;
  } else {
    for (uint c = 0; c < m; c++) d[c] = s[c];
  }
}

inline void optim_flat_out(__global float *s, const float *d, uint m) {
  if (m == 4) *(__global float4 *)s = (float4)(d[0], d[1], d[2], d[3]);
  else
    for (uint c = 0; c < m; c++) s[c] = d[c];
}

/* RULE(p, g, r): the rule on element c's values, its slots in r; SLOTS: the
 * three flags of the slots it uses (rules.cl's OPTIM_*_SLOTS). */
#define OPTIM_FLAT_BODY(SLOTS, RULE)                                                                \
  const ulong i = 4 * (ulong)get_global_id(0);                                                          \
  if (i >= n) return;                                                                                   \
  const uint m = n - i < 4 ? (uint)(n - i) : 4;                                                         \
  const int on[3] = {SLOTS};                                                                            \
  float pa[4], ga[4], sa[3][4] = {{0}};                                                                 \
  optim_flat_in(pa, p + base + i, m);                                                                   \
  optim_flat_in(ga, g + base + i, m);                                                                   \
  for (int j = 0; j < 3; j++)                                                                           \
    if (on[j]) optim_flat_in(sa[j], st + j * ss + i, m);                                                \
  for (uint c = 0; c < 4; c++) {                                                                        \
    float r[3] = {sa[0][c], sa[1][c], sa[2][c]};                                                        \
    if (c < m) pa[c] = RULE(pa[c], ga[c], r);                                                           \
    sa[0][c] = r[0], sa[1][c] = r[1], sa[2][c] = r[2];                                                  \
  }                                                                                                     \
  optim_flat_out(p + base + i, pa, m);                                                                  \
  for (int j = 0; j < 3; j++)                                                                           \
    if (on[j]) optim_flat_out(st + j * ss + i, sa[j], m)

__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_sgd_flat(OPTIM_FLAT_ARGS, int momentum_on, int nesterov, int wd_on) {
#define RULE(p, g, r) optim_sgd_p(p, g, r, k, momentum_on, nesterov, wd_on)
  OPTIM_FLAT_BODY(OPTIM_SGD_SLOTS(momentum_on), RULE);
#undef RULE
}

__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_adam_flat(OPTIM_FLAT_ARGS, int decoupled, int l2, int amsgrad) {
#define RULE(p, g, r) optim_adam_p(p, g, r, k, decoupled, l2, amsgrad)
  OPTIM_FLAT_BODY(OPTIM_ADAM_SLOTS(amsgrad), RULE);
#undef RULE
}

__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_rmsprop_flat(OPTIM_FLAT_ARGS, int wd_on, int centered, int momentum_on) {
#define RULE(p, g, r) optim_rmsprop_p(p, g, r, k, wd_on, centered, momentum_on)
  OPTIM_FLAT_BODY(OPTIM_RMSPROP_SLOTS(centered, momentum_on), RULE);
#undef RULE
}

__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_adagrad_flat(OPTIM_FLAT_ARGS, int wd_on) {
#define RULE(p, g, r) optim_adagrad_p(p, g, r, k, wd_on)
  OPTIM_FLAT_BODY(OPTIM_ADAGRAD_SLOTS, RULE);
#undef RULE
}
