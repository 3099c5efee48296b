/* The optimizer variants that no public vector covers (amsgrad, L2 decay in
 * Adam, centered RMSprop with momentum, SGD dampening, Adagrad's lr_decay and
 * initial accumulator) against a plain double-precision transcription of
 * torch.optim's update equations (the docs' algorithm boxes), over 20 steps
 * and three tensors; the float twin must stay within 1e-5 abs + 1e-5 rel. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

dlca_optim_config optim_case_config(int i);
enum { N = 50, STEPS = 20 };

typedef struct ref_state {
  double m[N], v[N], vmax[N], buf[N];
} ref_state;

/* One torch step of cfg c (step t >= 1) on p from g, in double. */
static void ref_step(const dlca_optim_config *c, int t, double *p, const double *g0, ref_state *s) {
  for (int i = 0; i < N; i++) {
    double g = g0[i];
    if (c->kind == DLCA_OPTIM_ADAMW) p[i] *= 1 - c->lr * c->weight_decay;
    else g += c->weight_decay * p[i];
    if (c->kind == DLCA_OPTIM_SGD) {
      if (c->momentum != 0) {
        s->buf[i] = t == 1 ? g : c->momentum * s->buf[i] + (1 - c->dampening) * g;
        g = c->nesterov ? g + c->momentum * s->buf[i] : s->buf[i];
      }
      p[i] -= c->lr * g;
    } else if (c->kind == DLCA_OPTIM_ADAM || c->kind == DLCA_OPTIM_ADAMW) {
      s->m[i] = c->beta1 * s->m[i] + (1 - c->beta1) * g;
      s->v[i] = c->beta2 * s->v[i] + (1 - c->beta2) * g * g;
      s->vmax[i] = fmax(s->vmax[i], s->v[i]);
      double v = c->amsgrad ? s->vmax[i] : s->v[i];
      double mhat = s->m[i] / (1 - pow(c->beta1, t)), vhat = v / (1 - pow(c->beta2, t));
      p[i] -= c->lr * mhat / (sqrt(vhat) + c->eps);
    } else if (c->kind == DLCA_OPTIM_RMSPROP) {
      s->v[i] = c->alpha * s->v[i] + (1 - c->alpha) * g * g;
      s->m[i] = c->alpha * s->m[i] + (1 - c->alpha) * g;
      double den = sqrt(c->centered ? s->v[i] - s->m[i] * s->m[i] : s->v[i]) + c->eps;
      s->buf[i] = c->momentum * s->buf[i] + g / den;
      p[i] -= c->lr * (c->momentum > 0 ? s->buf[i] : g / den);
    } else {
      if (t == 1) s->v[i] = c->initial_accumulator_value;
      s->v[i] += g * g;
      p[i] -= c->lr / (1 + (t - 1) * c->lr_decay) * g / (sqrt(s->v[i]) + c->eps);
    }
  }
}

START_TEST(test_optim_against_ref) {
  dlca_optim_config c = optim_case_config(_i);
  static ref_state s;
  memset(&s, 0, sizeof s);
  float p[N], g[N];
  double pd[N], gd[N];
  tu_random(p, N, -1.0f, 1.0f, 7);
  for (int i = 0; i < N; i++) pd[i] = p[i];
  size_t sizes[3] = {10, 1, N - 11};
  dlca_optimizer *o;
  ck_assert_int_eq(dlca_optim_new(&c, 3, sizes, &o), DLCA_OK);
  float *pp[3] = {p, p + 10, p + 11};
  const float *gg[3] = {g, g + 10, g + 11};
  double worst = 0;
  for (int t = 1; t <= STEPS; t++) {
    tu_random(g, N, -2.0f, 2.0f, 300 + (uint64_t)t);
    for (int i = 0; i < N; i++) gd[i] = g[i];
    ck_assert_int_eq(dlca_optim_step(o, pp, gg), DLCA_OK);
    ref_step(&c, t, pd, gd, &s);
    for (int i = 0; i < N; i++) worst = fmax(worst, fabs(p[i] - pd[i]) / (1e-5 + 1e-5 * fabs(pd[i])));
  }
  fprintf(stderr, "optim: %-8s case %d against the double reference: worst %.3g of 1e-5 abs + 1e-5 rel\n",
          dlca_optim_kind_name(c.kind), _i, worst);
  ck_assert_msg(worst <= 1, "%s case %d: %.3g of the tolerance", dlca_optim_kind_name(c.kind), _i, worst);
  dlca_optim_free(o);
}
END_TEST

void optim_add_ref(TCase *tc, int n_cases) { tcase_add_loop_test(tc, test_optim_against_ref, 0, n_cases); }
