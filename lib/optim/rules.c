/* The per-element update rules, in torch.optim's single-tensor order of
 * float32 operations (torch/optim/{sgd,adam,rmsprop,adagrad}.py, foreach=False),
 * so that a device kernel can follow the same lines. */
#include <math.h>
#include "optim/internal.h"

/* torch.lerp's CPU formula: exact at both ends whatever the weight. */
static inline float lerp(float a, float b, float w) {
  return w < 0.5f ? a + w * (b - a) : b - (b - a) * (1.0f - w);
}

void dlca__sgd(size_t n, float *p, const float *g, float *const *s, const dlca_optim_config *c,
               const dlca__optim_scalars *k) {
  float *buf = s[0];
  for (size_t i = 0; i < n; i++) {
    float d = c->weight_decay != 0 ? g[i] + k->wd * p[i] : g[i];
    if (c->momentum != 0) {
      float b = k->first ? d : buf[i] * k->momentum + k->damp1 * d;
      buf[i] = b;
      d = c->nesterov ? d + k->momentum * b : b;
    }
    p[i] = p[i] + -k->lr * d;
  }
}

void dlca__adam(size_t n, float *p, const float *g, float *const *s, const dlca_optim_config *c,
                const dlca__optim_scalars *k) {
  float *m = s[0], *v = s[1], *vmax = c->amsgrad ? s[2] : NULL;
  int decoupled = c->kind == DLCA_OPTIM_ADAMW, l2 = !decoupled && c->weight_decay != 0;
  for (size_t i = 0; i < n; i++) {
    float pi = p[i], gi = g[i];
    if (decoupled) pi = pi * k->decay;
    if (l2) gi = gi + k->wd * pi;
    float mi = lerp(m[i], gi, k->omb1);
    float vi = v[i] * k->b2 + k->omb2 * gi * gi;
    m[i] = mi, v[i] = vi;
    if (vmax) vi = vmax[i] = fmaxf(vmax[i], vi);
    float denom = sqrtf(vi) / k->bc2_sqrt + k->eps;
    p[i] = pi + -k->step_size * mi / denom;
  }
}

void dlca__rmsprop(size_t n, float *p, const float *g, float *const *s, const dlca_optim_config *c,
                   const dlca__optim_scalars *k) {
  float *sq = s[0], *ga = c->centered ? s[1] : NULL, *buf = c->momentum > 0 ? s[1 + (c->centered != 0)] : NULL;
  for (size_t i = 0; i < n; i++) {
    float gi = c->weight_decay != 0 ? g[i] + k->wd * p[i] : g[i];
    float q = sq[i] * k->b2 + k->omb2 * gi * gi;
    sq[i] = q;
    float avg;
    if (ga) {
      float a = lerp(ga[i], gi, k->omb2);
      ga[i] = a;
      avg = sqrtf(q + -1.0f * a * a);
    } else {
      avg = sqrtf(q);
    }
    avg = avg + k->eps;
    if (buf) {
      float b = buf[i] * k->momentum + gi / avg;
      buf[i] = b;
      p[i] = p[i] + -k->lr * b;
    } else {
      p[i] = p[i] + -k->lr * gi / avg;
    }
  }
}

void dlca__adagrad(size_t n, float *p, const float *g, float *const *s, const dlca_optim_config *c,
                   const dlca__optim_scalars *k) {
  float *sum = s[0];
  for (size_t i = 0; i < n; i++) {
    float gi = c->weight_decay != 0 ? g[i] + k->wd * p[i] : g[i];
    float q = sum[i] + 1.0f * gi * gi;
    sum[i] = q;
    float std = sqrtf(q) + k->eps;
    p[i] = p[i] + -k->step_size * gi / std;
  }
}
