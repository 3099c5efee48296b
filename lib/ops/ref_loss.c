/* The CPU twin of the losses, reduction mean: mse and softmax cross-entropy
 * (shared/testdata/ops/README.md; torch.nn.functional.mse_loss, cross_entropy). */
#include <math.h>

#include "core/internal.h"
#include "ops/ref.h"

double dlca__ref_mse(size_t n, const double *in, const double *target) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += (in[i] - target[i]) * (in[i] - target[i]);
  return n ? s / (double)n : NAN;
}

void dlca__ref_mse_backward(size_t n, const double *in, const double *target, double g, double *d_in,
                            double *d_target) {
  for (size_t i = 0; i < n; i++) {
    double d = 2.0 * g * (in[i] - target[i]) / (double)n;
    if (d_in) d_in[i] = d;
    if (d_target) d_target[i] = -d;
  }
}

static int check_targets(size_t N, size_t K, const double *target) {
  for (size_t i = 0; i < N; i++)
    if (!(target[i] >= 0 && target[i] < (double)K) || target[i] != floor(target[i]))
      return dlca__fail(DLCA_EINVAL, "softmax_cross_entropy: target[%zu] = %g is not a class in [0, %zu)", i, target[i],
                        K);
  return DLCA_OK;
}

/* log sum exp of one row, shifted by its maximum. */
static double logsumexp(size_t K, const double *l) {
  double m = -INFINITY, s = 0;
  for (size_t k = 0; k < K; k++) m = l[k] > m ? l[k] : m;
  for (size_t k = 0; k < K; k++) s += exp(l[k] - m);
  return m + log(s);
}

int dlca__ref_softmax_xent(size_t N, size_t K, const double *logits, const double *target, double *loss) {
  int rc = check_targets(N, K, target);
  if (rc) return rc;
  double s = 0;
  for (size_t i = 0; i < N; i++) s += logsumexp(K, logits + i * K) - logits[i * K + (size_t)target[i]];
  *loss = N ? s / (double)N : NAN;
  return DLCA_OK;
}

int dlca__ref_softmax_xent_backward(size_t N, size_t K, const double *logits, const double *target, double g,
                                    double *d_logits) {
  int rc = check_targets(N, K, target);
  if (rc) return rc;
  for (size_t i = 0; i < N; i++) {
    const double *l = logits + i * K;
    double lse = logsumexp(K, l);
    for (size_t k = 0; k < K; k++) {
      double p = exp(l[k] - lse) - (k == (size_t)target[i] ? 1.0 : 0.0);
      d_logits[i * K + k] = g * p / (double)N;
    }
  }
  return DLCA_OK;
}
