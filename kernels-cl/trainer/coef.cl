/* trainer.cl: dlca_coef, the gate coefficients of an epoch (soft, hard,
 * straight-through) from the logits; twin lib/ref/gates.c, lib/train/relax.c. */

/* The reverse wiring's coefficients (rcoef, parallel to rev): an update
 * gate's thread in dlca_coef writes the (c1, c3) that its input a needs and
 * the (c2, c3) of input b to the slots rslot[gate] of its two reverse
 * entries, from the soft set (also under straight-through), so that
 * dlca_backward reads them in the reverse table's order, coalesced, instead
 * of gathering a float4 of dcoef per entry (doc/kernels.md). The
 * padding slots stay zero (the host clears them). */
inline void write_rev_coef(__global const int2 *rslot, __global float2 *rcoef, int g, float4 c) {
  if (g < NGP) return;
  const int2 sl = rslot[g - NGP];
  rcoef[sl.x] = (float2)(c.y, c.w);
  rcoef[sl.y] = (float2)(c.z, c.w);
}

/* The logits z of gate g in this epoch: the logits, plus one draw of the
 * host's noise table per logit when use_gumbel (issue 6; Gumbel for
 * softmax-16, logistic for IWP; the twin is dlca__noisy_logits in
 * lib/train/relax.c, doc/rng.md). */
inline void noisy_logits(__global const float *l, __global const float *gumbel, int use_gumbel, ulong key, int g,
                         float *z) {
  for (int i = 0; i < NPG; i++) {
    z[i] = l[i];
    if (use_gumbel) z[i] += gumbel[dlca_rng_u32(key, 0xFFFFFF00u, (uint)(NPG * g + i)) >> 16];
  }
}

__constant float4 GATE_M[16] = {
    (float4)(0, 0, 0, 0),   (float4)(0, 0, 0, 1),  (float4)(0, 1, 0, -1),  (float4)(0, 1, 0, 0),
    (float4)(0, 0, 1, -1),  (float4)(0, 0, 1, 0),  (float4)(0, 1, 1, -2),  (float4)(0, 1, 1, -1),
    (float4)(1, -1, -1, 1), (float4)(1, -1, -1, 2), (float4)(1, 0, -1, 0), (float4)(1, 0, -1, 1),
    (float4)(1, -1, 0, 0),  (float4)(1, -1, 0, 1), (float4)(1, 0, 0, -1),  (float4)(1, 0, 0, 0)};

/* A population (POP): model m's key, 1/tau and buffers (pop.cl), for both
 * parametrisations' dlca_coef. */
#if POP
#define COEF_POP_ENTER()                                                                              \
  do {                                                                                                \
    if (pop_on) {                                                                                     \
      POP_BEGIN(key);                                                                                 \
      inv_tau = POP_F(POP_INV_TAU);                                                                   \
      POP_AT(params, __global const float *, params), POP_AT(coef, __global float4 *, coef);          \
      POP_AT(coef_hard, __global float4 *, coef_hard), POP_AT(coef_st, __global float4 *, coef_st);   \
      POP_AT(gumbel, __global const float *, gumbel), POP_AT(rslot, __global const int2 *, rslot);    \
      POP_AT(rcoef, __global float2 *, rcoef), POP_AT(gkey, __global const int *, gkey);              \
    }                                                                                                 \
  } while (0)
#else
#define COEF_POP_ENTER() do {} while (0)
#endif

#if NPG == 4
/* IWP: the hard op is the truth table of the signs, bit 3 op(0,0) ... bit 0
 * op(1,1) (doc/semantics.md section 1's numbering); twin: dlca__hard_op. */
inline int hard_op(const float *w) {
  return 8 * (w[0] > 0.0f) + 4 * (w[1] > 0.0f) + 2 * (w[2] > 0.0f) + (w[3] > 0.0f);
}

/* sigmoid(x) and s (1 - s) without cancellation, as sigmoid_d in lib/ref/gates.c */
inline void sigmoid_d(real_t x, real_t *s, real_t *ds) {
  real_t e = exp(-fabs(x)), q = (real_t)1 / ((real_t)1 + e);
  *s = x >= 0 ? q : e * q;
  *ds = e * q * q;
}

/* Per-gate coefficients of the input-wise parametrisation (issue 6):
 * s_ab = sigmoid(z_ab * inv_tau), c = (s00, s10 - s00, s01 - s00,
 * s00 - s01 - s10 + s11), in real_t as the twin computes them in double;
 * the hard sets are rows of M as for softmax-16. One thread per gate. */
__kernel void dlca_coef(__global const float *params, __global float4 *coef, __global float4 *coef_hard,
                        __global float4 *coef_st, int st, __global const float *gumbel, int use_gumbel, ulong key,
                        float inv_tau, int n_gates, __global const int2 *rslot, __global float2 *rcoef,
                        __global const int *gkey POP_DECL) {
  COEF_POP_ENTER();
  int g = get_global_id(0);
  if (g >= n_gates) return;
  __global const float *l = params + 4 * (size_t)g;
  float z[4], lc[4];
  noisy_logits(l, gumbel, use_gumbel, key, gkey[g], z);
  for (int i = 0; i < 4; i++) lc[i] = l[i];
  real_t sv[4], ds;
  for (int i = 0; i < 4; i++) sigmoid_d((real_t)z[i] * inv_tau, &sv[i], &ds);
  const float4 c = (float4)((float)sv[0], (float)(sv[2] - sv[0]), (float)(sv[1] - sv[0]),
                            (float)(sv[0] - sv[1] - sv[2] + sv[3]));
  coef[g] = c;
  write_rev_coef(rslot, rcoef, g, c);
  coef_hard[g] = GATE_M[hard_op(lc)];
  if (st) coef_st[g] = GATE_M[hard_op(z)];
}
#else
inline int argmax16(const float *z) {
  int best = 0;
  for (int i = 1; i < 16; i++)
    if (z[i] > z[best]) best = i;
  return best;
}

/* Per-gate coefficients c = M^T softmax(z * inv_tau) (soft), the one-hot
 * argmax of the clean logits (hard, ties to the lowest index: evaluation),
 * and, when st, the one-hot argmax of z (the straight-through forward pass).
 * One thread per gate. */
__kernel void dlca_coef(__global const float *params, __global float4 *coef, __global float4 *coef_hard,
                        __global float4 *coef_st, int st, __global const float *gumbel, int use_gumbel, ulong key,
                        float inv_tau, int n_gates, __global const int2 *rslot, __global float2 *rcoef,
                        __global const int *gkey POP_DECL) {
  COEF_POP_ENTER();
  int g = get_global_id(0);
  if (g >= n_gates) return;
  __global const float *l = params + 16 * (size_t)g;
  float z[16], lc[16];
  noisy_logits(l, gumbel, use_gumbel, key, gkey[g], z);
  for (int i = 0; i < 16; i++) lc[i] = l[i];
  const int bz = argmax16(z);
  float p[16], s = 0;
  for (int i = 0; i < 16; i++) s += (p[i] = exp((z[i] - z[bz]) * inv_tau));
  float inv = 1.0f / s;
  for (int i = 0; i < 16; i++) p[i] *= inv;
  /* c = M^T p with M of doc/semantics.md section 1 (rows: FALSE, AND, A&~B, A, ~A&B, B, XOR, OR,
   * NOR, XNOR, ~B, A|~B, ~A, ~A|B, NAND, TRUE) */
  float c0 = p[8] + p[9] + p[10] + p[11] + p[12] + p[13] + p[14] + p[15];
  float c1 = p[2] + p[3] + p[6] + p[7] - p[8] - p[9] - p[12] - p[13];
  float c2 = p[4] + p[5] + p[6] + p[7] - p[8] - p[9] - p[10] - p[11];
  float c3 = p[1] - p[2] - p[4] - 2.0f * p[6] - p[7] + p[8] + 2.0f * p[9] + p[11] + p[13] - p[14];
  coef[g] = (float4)(c0, c1, c2, c3);
  write_rev_coef(rslot, rcoef, g, (float4)(c0, c1, c2, c3));
  coef_hard[g] = GATE_M[argmax16(lc)];
  if (st) coef_st[g] = GATE_M[bz];
}
#endif
