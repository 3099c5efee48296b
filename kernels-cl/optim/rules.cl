/* The optimizer suite's per-element rules (issue 32): the device twin of
 * lib/optim/rules.c, line for line in torch.optim's single-tensor float32
 * order (torch/optim/{sgd,adam,rmsprop,adagrad}.py, foreach=False). Included
 * by kernels-cl/optim.cl and by the DiffLogic CA trainer.
 *
 * The step's scalars come from the host (dlca__optim_scalars_at in
 * lib/optim/internal.h: the same struct, field for field) as a kernel
 * argument. Slot k of an element's state is at s[k * ss]. Each rule returns
 * the new parameter and writes the element's state slots.
 *
 * Bits: the rules turn contraction off (a*b+c stays two roundings, as the
 * C twin computes it); a program that wants the twin's bits also builds with
 * -cl-fp32-correctly-rounded-divide-sqrt (lib/optim/cl_kernels.c does). */
#ifndef DLCA_OPTIM_RULES_CL
#define DLCA_OPTIM_RULES_CL

typedef struct {
  float lr, wd, eps, decay; /* decay: AdamW's 1 - lr * wd */
  float momentum, damp1;    /* damp1: 1 - dampening */
  float b1, omb1, b2, omb2; /* beta and 1 - beta; rmsprop's alpha in b2 */
  float step_size, bc2_sqrt; /* adam: lr / bc1, sqrt(bc2); adagrad: its decayed lr in step_size */
  int first;                /* sgd: the momentum buffer starts as the gradient */
} optim_scalars;

/* torch.lerp's formula: exact at both ends whatever the weight. */
inline float optim_lerp(float a, float b, float w) {
#pragma OPENCL FP_CONTRACT OFF
  return w < 0.5f ? a + w * (b - a) : b - (b - a) * (1.0f - w);
}

/* The rules take an element's state slots in private memory (s[k]: slot k)
 * and write them there; optim_state_in/out move the slots a rule uses
 * between it and the global state (slot k at g[k * ss]). */
inline void optim_state_in(float *s, __global const float *g, size_t ss, int s0, int s1, int s2) {
  if (s0) s[0] = g[0];
  if (s1) s[1] = g[ss];
  if (s2) s[2] = g[2 * ss];
}

inline void optim_state_out(__global float *g, const float *s, size_t ss, int s0, int s1, int s2) {
  if (s0) g[0] = s[0];
  if (s1) g[ss] = s[1];
  if (s2) g[2 * ss] = s[2];
}

/* SGD: slot 0 the momentum buffer (with momentum). */
inline float optim_sgd_p(float p, float g, float *s, optim_scalars k, int momentum_on, int nesterov, int wd_on) {
#pragma OPENCL FP_CONTRACT OFF
  float d = wd_on ? g + k.wd * p : g;
  if (momentum_on) {
    float b = k.first ? d : s[0] * k.momentum + k.damp1 * d;
    s[0] = b;
    d = nesterov ? d + k.momentum * b : b;
  }
  return p + -k.lr * d;
}

/* Adam (decoupled 0, l2: weight decay added to the gradient) and AdamW
 * (decoupled 1): slots m, v, and v's running maximum with amsgrad. */
inline float optim_adam_p(float p, float g, float *s, optim_scalars k, int decoupled, int l2, int amsgrad) {
#pragma OPENCL FP_CONTRACT OFF
  if (decoupled) p = p * k.decay;
  if (l2) g = g + k.wd * p;
  float m = optim_lerp(s[0], g, k.omb1);
  float v = s[1] * k.b2 + k.omb2 * g * g;
  s[0] = m, s[1] = v;
  if (amsgrad) v = s[2] = fmax(s[2], v);
  float denom = sqrt(v) / k.bc2_sqrt + k.eps;
  return p + -k.step_size * m / denom;
}

/* RMSprop: slots square_avg, grad_avg (centered), momentum_buffer (momentum). */
inline float optim_rmsprop_p(float p, float g, float *s, optim_scalars k, int wd_on, int centered,
                             int momentum_on) {
#pragma OPENCL FP_CONTRACT OFF
  if (wd_on) g = g + k.wd * p;
  float q = s[0] * k.b2 + k.omb2 * g * g;
  s[0] = q;
  float avg;
  if (centered) {
    float a = optim_lerp(s[1], g, k.omb2);
    s[1] = a;
    avg = sqrt(q + -1.0f * a * a);
  } else {
    avg = sqrt(q);
  }
  avg = avg + k.eps;
  if (momentum_on) { /* the buffer in slot 2 (centered) or 1; constant indices keep s in registers */
    float b = (centered ? s[2] : s[1]) * k.momentum + g / avg;
    if (centered) s[2] = b;
    else s[1] = b;
    return p + -k.lr * b;
  }
  return p + -k.lr * g / avg;
}

/* Adagrad: slot 0 the sum of squares (starts at initial_accumulator_value). */
inline float optim_adagrad_p(float p, float g, float *s, optim_scalars k, int wd_on) {
#pragma OPENCL FP_CONTRACT OFF
  if (wd_on) g = g + k.wd * p;
  float q = s[0] + 1.0f * g * g;
  s[0] = q;
  float std = sqrt(q) + k.eps;
  return p + -k.step_size * g / std;
}

/* The slots each rule uses, as optim_state_in's flags. */
#define OPTIM_SGD_SLOTS(momentum_on) (momentum_on), 0, 0
#define OPTIM_ADAM_SLOTS(amsgrad) 1, 1, (amsgrad)
#define OPTIM_RMSPROP_SLOTS(centered, momentum_on) 1, (centered) || (momentum_on), (centered) && (momentum_on)
#define OPTIM_ADAGRAD_SLOTS 1, 0, 0

/* The rules on an element whose slot k is at s[k * ss] (the trainer's form). */
inline float optim_sgd(float p, float g, __global float *s, size_t ss, optim_scalars k, int momentum_on,
                       int nesterov, int wd_on) {
  float r[3];
  optim_state_in(r, s, ss, OPTIM_SGD_SLOTS(momentum_on));
  p = optim_sgd_p(p, g, r, k, momentum_on, nesterov, wd_on);
  optim_state_out(s, r, ss, OPTIM_SGD_SLOTS(momentum_on));
  return p;
}

inline float optim_adam(float p, float g, __global float *s, size_t ss, optim_scalars k, int decoupled, int l2,
                        int amsgrad) {
  float r[3];
  optim_state_in(r, s, ss, OPTIM_ADAM_SLOTS(amsgrad));
  p = optim_adam_p(p, g, r, k, decoupled, l2, amsgrad);
  optim_state_out(s, r, ss, OPTIM_ADAM_SLOTS(amsgrad));
  return p;
}

inline float optim_rmsprop(float p, float g, __global float *s, size_t ss, optim_scalars k, int wd_on,
                           int centered, int momentum_on) {
  float r[3];
  optim_state_in(r, s, ss, OPTIM_RMSPROP_SLOTS(centered, momentum_on));
  p = optim_rmsprop_p(p, g, r, k, wd_on, centered, momentum_on);
  optim_state_out(s, r, ss, OPTIM_RMSPROP_SLOTS(centered, momentum_on));
  return p;
}

inline float optim_adagrad(float p, float g, __global float *s, size_t ss, optim_scalars k, int wd_on) {
  float r[3];
  optim_state_in(r, s, ss, OPTIM_ADAGRAD_SLOTS);
  p = optim_adagrad_p(p, g, r, k, wd_on);
  optim_state_out(s, r, ss, OPTIM_ADAGRAD_SLOTS);
  return p;
}

/* The DiffLogic CA trainer's AdamW (optax's form, kernels-cl/trainer/adamw.cl;
 * twin lib/ref/optim.c): clip by value, the moments, then the bias-corrected
 * step with decoupled decay inside the lr. bc1, bc2: 1 - beta^t. Written
 * exactly as the trainer has always computed it (contraction as the program
 * is built), so that its losses keep their bits. m and v point at the
 * element's moments. */
inline float optim_adamw_optax(float p, float g, __global float *m, __global float *v, float lr, float b1,
                               float b2, float eps, float wd, float clip, float bc1, float bc2) {
  float gr = clamp(g, -clip, clip);
  float mi = b1 * m[0] + (1.0f - b1) * gr, vi = b2 * v[0] + (1.0f - b2) * gr * gr;
  m[0] = mi, v[0] = vi;
  float mh = mi / bc1, vh = vi / bc2;
  return p - lr * (mh / (sqrt(vh) + eps) + wd * p);
}

#endif
