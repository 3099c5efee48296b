/* trainer.cl: dlca_adamw, the gradient reduction, clip and optimizer step
 * of an epoch; twin lib/ref/optim.c. The optimizer is one case of the
 * suite's rules (issue 32), chosen by OPTIM, a constant of the
 * configuration (build.c; not a tunable): 0 the default AdamW in optax's
 * form, else 1 + dlca_optim_kind with torch's rule and its OPT_* flags. */
#include "../optim/rules.cl"

#ifndef OPTIM
#define OPTIM 0
#endif

/* The optimizer's state: slot k of logit j at ost[j + k OPT_SS]. */
#define OPT_SS ((size_t)NPG * (NGP + NGU))

/* The suite's rule of OPTIM (1 + dlca_optim_kind: sgd, adam, adamw,
 * rmsprop, adagrad) with the configuration's flags, as lib/optim/rules.c
 * decides them. */
#if OPTIM == 1
#define OPT_RULE(p, g, s, ss, k) optim_sgd(p, g, s, ss, k, OPT_MOMENTUM, OPT_NESTEROV, OPT_WD)
#elif OPTIM == 2 || OPTIM == 3
#define OPT_RULE(p, g, s, ss, k) optim_adam(p, g, s, ss, k, OPTIM == 3, OPTIM == 2 && OPT_WD, OPT_AMSGRAD)
#elif OPTIM == 4
#define OPT_RULE(p, g, s, ss, k) optim_rmsprop(p, g, s, ss, k, OPT_WD, OPT_CENTERED, OPT_MOMENTUM)
#elif OPTIM == 5
#define OPT_RULE(p, g, s, ss, k) optim_adagrad(p, g, s, ss, k, OPT_WD)
#endif

/* Where gate g's 4 sums dL/dc lie in work-group 0's slot of the partial
 * sums (perception gate g: layer l, kernel k, gate i -> stack index q). */
inline size_t gate_sums_at(int g) {
  if (g >= NGP) return ACC_PERC + (size_t)(g - NGP) * 4;
  int rest = g, go = 0, q = 0, k = 0;
  for (int l = 0; l < NP; l++) {
    int G = PS[l + 1];
    if (rest < K * G) {
      k = rest / G;
      q = go + rest % G;
      break;
    }
    rest -= K * G, go += G;
  }
  return (size_t)(k * PG1 + q) * 4;
}

/* One N(0, 1) draw of annealed gradient noise (issue 6) for counter jk;
 * twin: dlca__grad_noise. */
inline float grad_noise(ulong key, uint jk) {
  float u1 = ((float)(dlca_rng_u32(key, 0xFFFFFF01u, 2u * jk) >> 8) + 0.5f) * (1.0f / 16777216.0f);
  float u2 = (float)(dlca_rng_u32(key, 0xFFFFFF01u, 2u * jk + 1u) >> 8) * (1.0f / 16777216.0f);
  return sqrt(-2.0f * log(u1)) * cos(6.2831853f * u2);
}

/* Gradient reduction + clip + the optimizer step: one thread per gate. The 4 sums dL/dc
 * are summed over work-groups (and channels, for perception gates) in a fixed
 * order; then dL/dp = M dL/dc, dL/dlogit = p (dL/dp - p . dL/dp) (doc/semantics.md section 1). */
__kernel void dlca_adamw(__global float *params, __global float *grad, __global float *ost,
                         __global const float *partial, int nwg, __global const float *loss_partial,
                         __global float *loss_out, __global int *flags, int units, float lr, float b1, float b2,
                         float eps, float wd, float clip, float bc1, float bc2, __global const float *gumbel, int use_gumbel, ulong key,
                         float inv_tau, float gn_sigma, __global const int *gkey, optim_scalars osc POP_DECL) {
#if POP
  if (pop_on) {
    POP_BEGIN(key);
    lr = POP_F(POP_LR), bc1 = POP_F(POP_BC1), bc2 = POP_F(POP_BC2), gn_sigma = POP_F(POP_GN);
    inv_tau = POP_F(POP_INV_TAU), osc = *(__global const optim_scalars *)(pop_r + POP_OSC);
    POP_AT(params, __global float *, params), POP_AT(grad, __global float *, grad);
    POP_AT(ost, __global float *, slots), POP_AT(partial, __global const float *, partial);
    POP_AT(loss_partial, __global const float *, loss_partial), POP_AT(loss_out, __global float *, loss);
    POP_AT(flags, __global int *, flags), POP_AT(gumbel, __global const float *, gumbel);
    POP_AT(gkey, __global const int *, gkey);
  }
#endif
  const int g = get_global_id(0);
  if (g == 0) {
    float s = 0.0f;
    for (int i = 0; i < nwg; i++) s += loss_partial[i];
    loss_out[0] = s;
    /* PERSIST: the status word travels with the loss; the step flags are
     * cleared for the next epoch (units is 0 without PERSIST) */
    loss_out[1] = as_float(units ? flags[units] : 0);
  }
  for (int i = g; i < units; i += get_global_size(0)) flags[i] = 0;
  if (g >= NGP + NGU) return;
  real_t dc0 = 0, dc1 = 0, dc2 = 0, dc3 = 0;
  __global const float *a = partial + gate_sums_at(g);
  for (int w = 0; w < nwg; w++, a += ACC_STRIDE) dc0 += a[0], dc1 += a[1], dc2 += a[2], dc3 += a[3];
  __global float *l = params + NPG * (size_t)g;
  float z[NPG];
  /* the noise of gate g is keyed by its index in the model (gkey: the
   * identity, or the model's order where the device runs another,
   * BWD_BANKS), so that it does not depend on the order */
  const int gk = gkey[g];
  noisy_logits(l, gumbel, use_gumbel, key, gk, z);
  real_t gz[NPG];
#if NPG == 4
  /* IWP: s = sigmoid(z * inv_tau); dL/ds from c = (s00, s10 - s00, s01 - s00,
   * s00 - s01 - s10 + s11), then dL/dz = dL/ds s (1 - s) inv_tau */
  const real_t dsum[4] = {dc0 - dc1 - dc2 + dc3, dc2 - dc3, dc1 - dc3, dc3};
  for (int i = 0; i < 4; i++) {
    real_t sv, ds;
    sigmoid_d((real_t)z[i] * inv_tau, &sv, &ds);
    gz[i] = dsum[i] * ds * inv_tau;
  }
#else
  /* p = softmax(z * inv_tau) of this epoch's (noisy) logits, as dlca_coef;
   * dL/dz = p (dp - p . dp) inv_tau is the gradient of the logits */
  real_t mx = z[0];
  for (int i = 1; i < 16; i++) mx = fmax(mx, (real_t)z[i]);
  real_t p[16], s = 0;
  for (int i = 0; i < 16; i++) s += (p[i] = exp(((real_t)z[i] - mx) * inv_tau));
  real_t dp[16], dot = 0;
  for (int i = 0; i < 16; i++) {
    const float4 M = GATE_M[i];
    p[i] /= s;
    dp[i] = M.x * dc0 + M.y * dc1 + M.z * dc2 + M.w * dc3;
    dot += p[i] * dp[i];
  }
  for (int i = 0; i < 16; i++) gz[i] = p[i] * (dp[i] - dot) * inv_tau;
#endif
  for (int i = 0; i < NPG; i++) {
    size_t j = NPG * (size_t)g + i;
    float gr = (float)gz[i];
    grad[j] = gr;
    if (gn_sigma > 0.0f) gr += gn_sigma * grad_noise(key, (uint)(NPG * gk + i));
#if OPTIM == 0
    l[i] = optim_adamw_optax(l[i], gr, ost + j, ost + j + OPT_SS, lr, b1, b2, eps, wd, clip, bc1, bc2);
#else
    l[i] = OPT_RULE(l[i], clamp(gr, -clip, clip), ost + j, OPT_SS, osc);
#endif
  }
}
