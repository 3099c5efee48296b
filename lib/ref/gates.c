/* The 16 relaxed gates as 4 coefficients each, doc/semantics.md section 1, from
 * either parametrisation: softmax-16, or the input-wise one (IWP, issue 6). */
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

/* The sigmoid of x and its derivative s (1 - s), in double, without
 * cancellation for large |x|: with e = exp(-|x|), s = 1 / (1 + e) for x >= 0
 * and e / (1 + e) below; s (1 - s) = e / (1 + e)^2. */
static void sigmoid_d(double x, double *s, double *ds) {
  double e = exp(-fabs(x)), q = 1.0 / (1.0 + e);
  *s = x >= 0 ? q : e * q;
  *ds = e * q * q;
}

/* IWP (issue 6): s_ab = sigmoid(w_ab / T) for w = (w00, w01, w10, w11);
 * c0 = s00, c1 = s10 - s00, c2 = s01 - s00, c3 = s00 - s01 - s10 + s11. */
static void iwp_coefficients(const float *w, float inv_tau, double c[4]) {
  double s[4], ds;
  for (int i = 0; i < 4; i++) sigmoid_d((double)w[i] * inv_tau, &s[i], &ds);
  c[0] = s[0], c[1] = s[2] - s[0], c[2] = s[1] - s[0], c[3] = s[0] - s[1] - s[2] + s[3];
}

void dlca__coefficients(dlca_parametrisation par, size_t n, const float *z, float inv_tau, int hard, float *coef) {
  const size_t npg = (size_t)dlca__npg(par);
#pragma omp parallel for schedule(static) if (n > 4096)
  for (size_t g = 0; g < n; g++) {
    const float *l = z + npg * g;
    if (hard) {
      /* the one op of the hard gate: a row of M */
      const float *row = dlca__gate_M[dlca__hard_op(par, l)];
      for (int j = 0; j < 4; j++) coef[4 * g + j] = row[j];
    } else if (par == DLCA_PARAM_IWP) {
      double c[4];
      iwp_coefficients(l, inv_tau, c);
      for (int j = 0; j < 4; j++) coef[4 * g + j] = (float)c[j];
    } else {
      double p[16];
      dlca__softmax16_t(l, inv_tau, p);
      for (int j = 0; j < 4; j++) {
        double c = 0;
        for (int i = 0; i < 16; i++) c += dlca__gate_M[i][j] * p[i];
        coef[4 * g + j] = (float)c;
      }
    }
  }
}

void dlca__gate_coefficients(const dlca_model *m, int hard, float *coef) {
  dlca__coefficients(m->shape.parametrisation, dlca__model_n_gates(m), m->params, 1.0f, hard, coef);
}

void dlca__logit_grad_t(dlca_parametrisation par, size_t n, const float *z, float inv_tau, const double *dc,
                        float *grad) {
  if (par == DLCA_PARAM_IWP) {
#pragma omp parallel for schedule(static) if (n > 4096)
    for (size_t g = 0; g < n; g++) {
      const double *d = dc + 4 * g;
      /* dL/ds from c = (s00, s10 - s00, s01 - s00, s00 - s01 - s10 + s11) */
      const double dsum[4] = {d[0] - d[1] - d[2] + d[3], d[2] - d[3], d[1] - d[3], d[3]};
      for (int i = 0; i < 4; i++) {
        double s, ds;
        sigmoid_d((double)z[4 * g + i] * inv_tau, &s, &ds);
        grad[4 * g + i] = (float)(dsum[i] * ds * inv_tau);
      }
    }
    return;
  }
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
  dlca__logit_grad_t(m->shape.parametrisation, dlca__model_n_gates(m), m->params, 1.0f, dc, grad);
}
