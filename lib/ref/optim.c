/* Clip by value and AdamW with optax semantics, doc/semantics.md section 4.5-4.6. */
#include <math.h>
#include "ref/ref_impl.h"

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
