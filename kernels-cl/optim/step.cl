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
 * elements 4i .. 4i + 3 in float4 loads and stores, the last one the tail
 * element by element. Every index into the rules' private slots is a
 * constant, so that they stay in registers. */
#define OPTIM_FLAT_ARGS                                                                                  \
  __global float *p, __global const float *g, __global float *st, ulong ss, ulong base, ulong n,       \
      optim_scalars k

inline float4 optim_flat_in(__global const float *s, int on) {
  return on ? *(__global const float4 *)s : (float4)(0.0f);
}

inline void optim_flat_out(__global float *s, float4 v, int on) {
  if (on) *(__global float4 *)s = v;
}

/* Lane L (x, y, z or w) of the four elements through RULE(p, g, r). */
#define OPTIM_FLAT_LANE(L, RULE)                                                                         \
  do {                                                                                                  \
    float r[3] = {s0.L, s1.L, s2.L};                                                                    \
    pv.L = RULE(pv.L, gv.L, r);                                                                         \
    s0.L = r[0], s1.L = r[1], s2.L = r[2];                                                              \
  } while (0)

/* RULE(p, g, r): the rule on one element's values, its slots in r; SLOTS:
 * the three flags of the slots it uses (rules.cl's OPTIM_*_SLOTS); GRULE(p,
 * g, s): the rule on the global state at s (the tail). */
#define OPTIM_FLAT_BODY(SLOTS, RULE, GRULE)                                                              \
  const ulong i = 4 * (ulong)get_global_id(0);                                                          \
  const int on[3] = {SLOTS};                                                                            \
  if (i + 4 <= n) {                                                                                     \
    __global float *pp = p + base + i, *s = st + i;                                                     \
    float4 pv = *(__global float4 *)pp, gv = *(__global const float4 *)(g + base + i);                  \
    float4 s0 = optim_flat_in(s, on[0]), s1 = optim_flat_in(s + ss, on[1]),                             \
           s2 = optim_flat_in(s + 2 * ss, on[2]);                                                       \
    OPTIM_FLAT_LANE(x, RULE);                                                                           \
    OPTIM_FLAT_LANE(y, RULE);                                                                           \
    OPTIM_FLAT_LANE(z, RULE);                                                                           \
    OPTIM_FLAT_LANE(w, RULE);                                                                           \
    *(__global float4 *)pp = pv;                                                                        \
    optim_flat_out(s, s0, on[0]), optim_flat_out(s + ss, s1, on[1]), optim_flat_out(s + 2 * ss, s2, on[2]); \
  } else {                                                                                              \
    for (ulong e = i; e < n; e++) p[base + e] = GRULE(p[base + e], g[base + e], st + e);                \
  }

__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_sgd_flat(OPTIM_FLAT_ARGS, int momentum_on, int nesterov, int wd_on) {
#define RULE(p, g, r) optim_sgd_p(p, g, r, k, momentum_on, nesterov, wd_on)
#define GRULE(p, g, s) optim_sgd(p, g, s, ss, k, momentum_on, nesterov, wd_on)
  OPTIM_FLAT_BODY(OPTIM_SGD_SLOTS(momentum_on), RULE, GRULE)
#undef RULE
#undef GRULE
}

__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_adam_flat(OPTIM_FLAT_ARGS, int decoupled, int l2, int amsgrad) {
#define RULE(p, g, r) optim_adam_p(p, g, r, k, decoupled, l2, amsgrad)
#define GRULE(p, g, s) optim_adam(p, g, s, ss, k, decoupled, l2, amsgrad)
  OPTIM_FLAT_BODY(OPTIM_ADAM_SLOTS(amsgrad), RULE, GRULE)
#undef RULE
#undef GRULE
}

__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_rmsprop_flat(OPTIM_FLAT_ARGS, int wd_on, int centered, int momentum_on) {
#define RULE(p, g, r) optim_rmsprop_p(p, g, r, k, wd_on, centered, momentum_on)
#define GRULE(p, g, s) optim_rmsprop(p, g, s, ss, k, wd_on, centered, momentum_on)
  OPTIM_FLAT_BODY(OPTIM_RMSPROP_SLOTS(centered, momentum_on), RULE, GRULE)
#undef RULE
#undef GRULE
}

__kernel __attribute__((reqd_work_group_size(OPTIM_WG, 1, 1))) void
dlca_optim_adagrad_flat(OPTIM_FLAT_ARGS, int wd_on) {
#define RULE(p, g, r) optim_adagrad_p(p, g, r, k, wd_on)
#define GRULE(p, g, s) optim_adagrad(p, g, s, ss, k, wd_on)
  OPTIM_FLAT_BODY(OPTIM_ADAGRAD_SLOTS, RULE, GRULE)
#undef RULE
#undef GRULE
}
