/* The trainer's optimizer on the host: clip by value, then AdamW with optax
 * semantics (doc/semantics.md section 4.5-4.6), or one of the optimizer
 * suite's torch.optim rules (lib/optim/rules.c). Twin of kernels-cl/trainer/adamw.cl. */
#include <math.h>
#include "optim/internal.h"
#include "ref/ref_impl.h"
#include "ref/ref_trainer.h"

void dlca_ref_adamw(size_t n, float *p, const float *grad, float *m, float *v, int t, const dlca_optim *o) {
  const double bc1 = 1.0 - pow(o->beta1, t), bc2 = 1.0 - pow(o->beta2, t);
#pragma omp parallel for schedule(static) if (n > 65536)
  for (size_t i = 0; i < n; i++) {
    float g = grad[i];
    if (g > o->clip) g = o->clip;
    if (g < -o->clip) g = -o->clip;
    m[i] = o->beta1 * m[i] + (1.0f - o->beta1) * g;
    v[i] = o->beta2 * v[i] + (1.0f - o->beta2) * g * g;
    float mh = (float)(m[i] / bc1), vh = (float)(v[i] / bc2);
    p[i] = p[i] - o->lr * (mh / (sqrtf(vh) + o->eps) + o->weight_decay * p[i]);
  }
}

enum { CHUNK = 1024 };

/* Elements [i0, i0 + n) of a tensor of `total` floats: the clipped gradient,
 * then the rule of c's kind on the element's slots. */
static void suite_chunk(const dlca_optim_config *c, const dlca__optim_scalars *k, float clip, size_t total,
                        size_t i0, size_t n, float *p, const float *grad, float *slots) {
  float g[CHUNK], *s[3] = {NULL, NULL, NULL};
  for (size_t i = 0; i < n; i++) {
    float x = grad[i0 + i];
    if (x > clip) x = clip;
    if (x < -clip) x = -clip;
    g[i] = x;
  }
  for (size_t j = 0; j < dlca__optim_slots(c); j++) s[j] = slots + j * total + i0;
  switch (c->kind) {
  case DLCA_OPTIM_SGD: dlca__sgd(n, p + i0, g, s, c, k); break;
  case DLCA_OPTIM_ADAM:
  case DLCA_OPTIM_ADAMW: dlca__adam(n, p + i0, g, s, c, k); break;
  case DLCA_OPTIM_RMSPROP: dlca__rmsprop(n, p + i0, g, s, c, k); break;
  default: dlca__adagrad(n, p + i0, g, s, c, k); break;
  }
}

void dlca__ref_optim_step(const dlca_optim_config *c, float clip, size_t n, float *p, const float *grad,
                          float *slots, uint64_t t) {
  dlca__optim_scalars k;
  (void)dlca__optim_scalars_at(c, t, &k); /* fails only on NULL */
  const size_t chunks = (n + CHUNK - 1) / CHUNK;
#pragma omp parallel for schedule(static) if (n > 65536)
  for (size_t q = 0; q < chunks; q++) {
    const size_t i0 = q * CHUNK;
    suite_chunk(c, &k, clip, n, i0, n - i0 < CHUNK ? n - i0 : CHUNK, p, grad, slots);
  }
}
