/* The 16 relaxed gates as 4 coefficients each, spec/dlca.md section 1. */
#include <math.h>
#include "ref/ref_impl.h"

const float dlca__gate_M[16][4] = {
    {0, 0, 0, 0},   /*  0 FALSE */
    {0, 0, 0, 1},   /*  1 AND */
    {0, 1, 0, -1},  /*  2 A AND NOT B */
    {0, 1, 0, 0},   /*  3 A */
    {0, 0, 1, -1},  /*  4 NOT A AND B */
    {0, 0, 1, 0},   /*  5 B */
    {0, 1, 1, -2},  /*  6 XOR */
    {0, 1, 1, -1},  /*  7 OR */
    {1, -1, -1, 1}, /*  8 NOR */
    {1, -1, -1, 2}, /*  9 XNOR */
    {1, 0, -1, 0},  /* 10 NOT B */
    {1, 0, -1, 1},  /* 11 A OR NOT B */
    {1, -1, 0, 0},  /* 12 NOT A */
    {1, -1, 0, 1},  /* 13 NOT A OR B */
    {1, 0, 0, -1},  /* 14 NAND */
    {1, 0, 0, 0},   /* 15 TRUE */
};

void dlca__softmax16(const float *l, double p[16]) { dlca__softmax16_t(l, 1.0f, p); }

void dlca__softmax16_t(const float *l, float inv_tau, double p[16]) {
  double mx = (double)l[0] * inv_tau, s = 0;
  for (int i = 1; i < 16; i++)
    if ((double)l[i] * inv_tau > mx) mx = (double)l[i] * inv_tau;
  for (int i = 0; i < 16; i++) s += (p[i] = exp((double)l[i] * inv_tau - mx));
  for (int i = 0; i < 16; i++) p[i] /= s;
}

void dlca__coefficients(size_t n, const float *z, float inv_tau, int hard, float *coef) {
#pragma omp parallel for schedule(static) if (n > 4096)
  for (size_t g = 0; g < n; g++) {
    const float *l = z + 16 * g;
    double p[16];
    if (hard) {
      int best = 0;
      for (int i = 1; i < 16; i++)
        if (l[i] > l[best]) best = i;
      for (int i = 0; i < 16; i++) p[i] = i == best;
    } else {
      dlca__softmax16_t(l, inv_tau, p);
    }
    for (int j = 0; j < 4; j++) {
      double c = 0;
      for (int i = 0; i < 16; i++) c += dlca__gate_M[i][j] * p[i];
      coef[4 * g + j] = (float)c;
    }
  }
}

void dlca__gate_coefficients(const dlca_model *m, int hard, float *coef) {
  dlca__coefficients(m->n_params / 16, m->params, 1.0f, hard, coef);
}

void dlca__logit_grad_t(size_t n, const float *z, float inv_tau, const double *dc, float *grad) {
#pragma omp parallel for schedule(static) if (n > 4096)
  for (size_t g = 0; g < n; g++) {
    double p[16], dp[16], dot = 0;
    dlca__softmax16_t(z + 16 * g, inv_tau, p);
    for (int i = 0; i < 16; i++) {
      dp[i] = dlca__gate_M[i][0] * dc[4 * g] + dlca__gate_M[i][1] * dc[4 * g + 1] +
              dlca__gate_M[i][2] * dc[4 * g + 2] + dlca__gate_M[i][3] * dc[4 * g + 3];
      dot += p[i] * dp[i];
    }
    /* p = softmax(z / tau): dp/dz = p (dp - p . dp) / tau */
    for (int i = 0; i < 16; i++) grad[16 * g + i] = (float)(p[i] * (dp[i] - dot) * inv_tau);
  }
}

void dlca__logit_grad(const dlca_model *m, const double *dc, float *grad) {
  dlca__logit_grad_t(m->n_params / 16, m->params, 1.0f, dc, grad);
}
