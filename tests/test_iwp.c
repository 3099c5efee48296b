/* The input-wise parametrisation (IWP, issue 6) on the CPU: the gate
 * algebra against hand-computed values for all 16 truth tables, the logit
 * gradient against finite differences, the model (initialisation, layout,
 * histogram, JSON round trip) and the reference trainer (determinism,
 * bit-for-bit resume, checkpoints of the other parametrisation refused).
 * The OpenCL side is in test_trainer.c and test_relax.c; the finite
 * differences of the whole BPTT gradient in test_gradcheck.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ref/ref_impl.h"
#include "train/trainer_impl.h"
#include "util.h"

/* doc/semantics.md section 1, typed in again from its table (not read from
 * the library): op i = c0 + c1 a + c2 b + c3 ab. */
static const double spec_M[16][4] = {
    {0, 0, 0, 0},  {0, 0, 0, 1},   {0, 1, 0, -1}, {0, 1, 0, 0},  {0, 0, 1, -1},  {0, 0, 1, 0},
    {0, 1, 1, -2}, {0, 1, 1, -1},  {1, -1, -1, 1}, {1, -1, -1, 2}, {1, 0, -1, 0}, {1, 0, -1, 1},
    {1, -1, 0, 0}, {1, -1, 0, 1},  {1, 0, 0, -1},  {1, 0, 0, 0}};

/* The truth table of op i, from the real-valued forms (doc/semantics.md section 1) evaluated at
 * (a, b): t[0] = op(0,0), t[1] = op(0,1), t[2] = op(1,0), t[3] = op(1,1). */
static void truth(int op, int t[4]) {
  for (int k = 0; k < 4; k++) {
    double a = k >> 1, b = k & 1;
    double v = spec_M[op][0] + spec_M[op][1] * a + spec_M[op][2] * b + spec_M[op][3] * a * b;
    t[k] = v > 0.5;
  }
}

/* Gate op's IWP logits: +z where the op outputs 1, -z where 0. The coefficients
 * are then, by hand: s_ab = q + (p - q) t_ab with p = sigmoid(z / T),
 * q = 1 - p, and c linear in s, so c = (p - q) M[op] + (q, 0, 0, 0). */
START_TEST(test_truth_tables) {
  /* sigmoid(2) and sigmoid(1), to 16 digits */
  static const struct { float z, inv_tau; double p; } cases[] = {
      {2.0f, 1.0f, 0.8807970779778823}, {2.0f, 0.5f, 0.7310585786300049}, {1.0f, 1.0f, 0.7310585786300049}};
  for (int c = 0; c < 3; c++)
    for (int op = 0; op < 16; op++) {
      int t[4];
      truth(op, t);
      /* doc/semantics.md's numbering: bit 3 op(0,0), bit 2 op(0,1), bit 1 op(1,0), bit 0 op(1,1) */
      ck_assert_int_eq(8 * t[0] + 4 * t[1] + 2 * t[2] + t[3], op);
      float w[4];
      for (int k = 0; k < 4; k++) w[k] = t[k] ? cases[c].z : -cases[c].z;
      ck_assert_int_eq(dlca__hard_op(DLCA_PARAM_IWP, w), op);
      float soft[4], hard[4];
      dlca__coefficients(DLCA_PARAM_IWP, 1, w, cases[c].inv_tau, 0, soft);
      dlca__coefficients(DLCA_PARAM_IWP, 1, w, cases[c].inv_tau, 1, hard);
      const double p = cases[c].p, q = 1.0 - p;
      for (int j = 0; j < 4; j++) {
        double want = (p - q) * spec_M[op][j] + (j == 0 ? q : 0.0);
        ck_assert_msg(fabs(soft[j] - want) < 1e-7, "op %d, z %g, 1/T %g: c%d = %.9g, by hand %.9g", op,
                      cases[c].z, cases[c].inv_tau, j, soft[j], want);
        ck_assert_msg(hard[j] == (float)spec_M[op][j], "op %d: hard c%d = %g", op, j, hard[j]);
      }
    }
  /* hand-computed at mixed logits: w = (0.5, -1, 2, 0) at T = 1:
   * s = (0.6224593312, 0.2689414214, 0.8807970780, 0.5) */
  const float w[4] = {0.5f, -1.0f, 2.0f, 0.0f};
  const double s[4] = {0.6224593312018546, 0.2689414213699951, 0.8807970779778823, 0.5};
  const double want[4] = {s[0], s[2] - s[0], s[1] - s[0], s[0] - s[1] - s[2] + s[3]};
  float c[4];
  dlca__coefficients(DLCA_PARAM_IWP, 1, w, 1.0f, 0, c);
  for (int j = 0; j < 4; j++) ck_assert_msg(fabs(c[j] - want[j]) < 1e-7, "c%d = %.9g, by hand %.9g", j, c[j], want[j]);
  /* w = 0 is not > 0: (0.5, -1, 2, 0) is 0b1010, NOT B; all zeros is FALSE */
  ck_assert_int_eq(dlca__hard_op(DLCA_PARAM_IWP, w), 10);
  const float zero[4] = {0, 0, 0, 0}, negz[4] = {-0.0f, 1e-30f, -1e-30f, 1e-45f};
  ck_assert_int_eq(dlca__hard_op(DLCA_PARAM_IWP, zero), 0);
  ck_assert_int_eq(dlca__hard_op(DLCA_PARAM_IWP, negz), 5); /* 0b0101: B */
  /* large logits saturate without NaN */
  const float big[4] = {-1e30f, 1e30f, -100.0f, 100.0f};
  dlca__coefficients(DLCA_PARAM_IWP, 1, big, 1.0f, 0, c);
  for (int j = 0; j < 4; j++) ck_assert_msg(fabs(c[j] - spec_M[5][j]) < 1e-30, "c%d = %g", j, c[j]);
}
END_TEST

/* dL/dw of L = sum_j dc_j c_j(w) against central differences of the
 * coefficients, at T = 1 and T = 2, for random logits and sums. */
START_TEST(test_logit_grad) {
  enum { N = 64 };
  float w[4 * N], g[4 * N];
  double dc[4 * N];
  tu_random(w, 4 * N, -4.0f, 4.0f, 31);
  for (int i = 0; i < 4 * N; i++) dc[i] = 2.0 * (dlca_rng_u32(32, 0, (uint32_t)i) >> 8) / 16777216.0 - 1.0;
  for (int t = 0; t < 2; t++) {
    const float inv_tau = t ? 0.5f : 1.0f;
    dlca__logit_grad_t(DLCA_PARAM_IWP, N, w, inv_tau, dc, g);
    double worst = 0;
    for (int i = 0; i < 4 * N; i++) {
      const int gate = i / 4;
      float wp[4], wm[4], cp[4], cm[4];
      memcpy(wp, w + 4 * gate, sizeof wp), memcpy(wm, w + 4 * gate, sizeof wm);
      const float h = 1e-2f;
      wp[i % 4] += h, wm[i % 4] -= h;
      dlca__coefficients(DLCA_PARAM_IWP, 1, wp, inv_tau, 0, cp);
      dlca__coefficients(DLCA_PARAM_IWP, 1, wm, inv_tau, 0, cm);
      double fd = 0;
      for (int j = 0; j < 4; j++) fd += dc[4 * gate + j] * ((double)cp[j] - cm[j]);
      fd /= (double)wp[i % 4] - wm[i % 4];
      worst = fmax(worst, fabs(fd - g[i]));
    }
    ck_assert_msg(worst < 2e-5, "1/T %g: worst |fd - g| %g", inv_tau, worst);
  }
}
END_TEST

static dlca_model_shape iwp_shape(void) {
  dlca_model_shape s = tu_small_shape(3, 3, 0, 0, 0, DLCA_WIRING_UNIQUE);
  s.parametrisation = DLCA_PARAM_IWP;
  return s;
}

START_TEST(test_model) {
  dlca_model_shape s = iwp_shape(), s16 = s;
  s16.parametrisation = DLCA_PARAM_SOFTMAX16;
  dlca_model *m, *m16;
  ck_assert_msg(dlca_model_new(&s, 4, &m) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq(dlca_model_new(&s16, 4, &m16), DLCA_OK);
  /* the same gates and wires, a quarter of the logits */
  const size_t n = dlca_model_n_gates(m);
  ck_assert_uint_eq(n, dlca_model_n_gates(m16));
  ck_assert_uint_eq(dlca_model_n_params(m), 4 * n);
  ck_assert_uint_eq(dlca_model_n_params(m16), 16 * n);
  ck_assert_int_eq(dlca_model_params_per_gate(m), 4);
  ck_assert_str_eq(dlca_parametrisation_name(DLCA_PARAM_IWP), "iwp");
  ck_assert_str_eq(dlca_parametrisation_name(DLCA_PARAM_SOFTMAX16), "softmax16");
  for (int u = 0; u < 2; u++)
    for (int l = 0; l < (u ? m->n_update : m->n_perceive); l++)
      ck_assert_uint_eq(dlca_model_layer_offset(m, u, l) * 4, dlca_model_layer_offset(m16, u, l));
  ck_assert(!memcmp(m->update[1].wa, m16->update[1].wa, sizeof(int32_t) * (size_t)m->update[1].n_gates));
  dlca_model_shape got;
  dlca_model_get_shape(m, &got);
  ck_assert_int_eq(got.parametrisation, DLCA_PARAM_IWP);
  /* pass-through initialisation: (-z, -z, z, z), every gate A */
  const float z = DLCA_IWP_INIT_DEFAULT;
  for (size_t i = 0; i < m->n_params; i++) ck_assert(m->params[i] == (i % 4 < 2 ? -z : z));
  size_t counts[16];
  ck_assert_uint_eq(dlca_model_gate_histogram(m, counts), 0);
  ck_assert_uint_eq(counts[3], n);
  ck_assert_int_eq(dlca_model_init_pass_through(m, 5.0f), DLCA_OK);
  for (size_t i = 0; i < m->n_params; i++) ck_assert(m->params[i] == (i % 4 < 2 ? -5.0f : 5.0f));
  ck_assert_int_eq(dlca_model_init_pass_through(m16, 7.0f), DLCA_OK);
  for (size_t i = 0; i < m16->n_params; i++) ck_assert(m16->params[i] == (i % 16 == 3 ? 7.0f : 0.0f));
  ck_assert_int_eq(dlca_model_init_pass_through(m, 0.0f), DLCA_EINVAL);
  ck_assert_int_eq(dlca_model_init_pass_through(m, NAN), DLCA_EINVAL);
  ck_assert_int_eq(dlca_model_init_pass_through(NULL, 1.0f), DLCA_EINVAL);
  /* the histogram is the truth table of the signs: gate g is op g % 16 */
  size_t want[16] = {0};
  for (size_t g = 0; g < n; g++) {
    int op = (int)(g % 16), t[4];
    truth(op, t);
    for (int k = 0; k < 4; k++) m->params[4 * g + k] = (t[k] ? 1.0f : -1.0f) * (float)(1 + g % 3);
    want[op]++;
  }
  size_t active = dlca_model_gate_histogram(m, counts);
  for (int i = 0; i < 16; i++) ck_assert_uint_eq(counts[i], want[i]);
  ck_assert_uint_eq(active, n - want[3] - want[5]);
  /* the hard forward pass uses the same ops: a clone runs like the original */
  dlca_model *c;
  ck_assert_int_eq(dlca_model_clone(m, &c), DLCA_OK);
  ck_assert_int_eq(dlca_model_params_per_gate(c), 4);
  ck_assert(!memcmp(c->params, m->params, sizeof(float) * m->n_params));
  dlca_model_free(c);
  /* an unknown parametrisation is refused */
  s.parametrisation = (dlca_parametrisation)7;
  ck_assert_int_eq(dlca_model_new(&s, 4, &c), DLCA_EMODEL);
  ck_assert_msg(strstr(dlca_last_error(), "parametrisation: 7"), "%s", dlca_last_error());
  dlca_model_free(m);
  dlca_model_free(m16);
}
END_TEST

/* Save, load, save: the same bits and the same bytes; the file says "iwp",
 * a softmax-16 file does not mention the parametrisation. */
START_TEST(test_json_round_trip) {
  const char *dir = tu_tmpdir("iwp-json");
  char p1[1100], p2[1100], p3[1100];
  snprintf(p1, sizeof p1, "%s/a.json", dir), snprintf(p2, sizeof p2, "%s/b.json", dir);
  snprintf(p3, sizeof p3, "%s/c.json", dir);
  dlca_model_shape s = iwp_shape();
  dlca_model *m, *r;
  ck_assert_int_eq(dlca_model_new(&s, 9, &m), DLCA_OK);
  tu_random(m->params, m->n_params, -6.0f, 6.0f, 10);
  m->params[0] = -0.0f, m->params[1] = 1e-45f;
  ck_assert_msg(dlca_model_save(m, p1) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca_model_load(p1, &r) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq(r->shape.parametrisation, DLCA_PARAM_IWP);
  ck_assert_uint_eq(r->n_params, m->n_params);
  ck_assert(!memcmp(r->params, m->params, sizeof(float) * m->n_params));
  ck_assert(!memcmp(r->update[0].wb, m->update[0].wb, sizeof(int32_t) * (size_t)m->update[0].n_gates));
  ck_assert_int_eq(dlca_model_save(r, p2), DLCA_OK);
  char *a = tu_read(p1, NULL), *b = tu_read(p2, NULL);
  ck_assert_str_eq(a, b);
  ck_assert_msg(strstr(a, "\"parametrisation\":\"iwp\""), "%.200s", a);
  free(a), free(b);
  dlca_model_free(r);
  /* a non-finite IWP logit is named by its path, 4 logits per gate */
  m->params[m->update[1].offset + 4 * 3 + 2] = NAN;
  ck_assert_int_eq(dlca_model_save(m, p3), DLCA_EMODEL);
  ck_assert_msg(strstr(dlca_last_error(), "update.logits[1][3][2]"), "%s", dlca_last_error());
  dlca_model_free(m);
  s.parametrisation = DLCA_PARAM_SOFTMAX16;
  ck_assert_int_eq(dlca_model_new(&s, 9, &m), DLCA_OK);
  ck_assert_int_eq(dlca_model_save(m, p3), DLCA_OK);
  a = tu_read(p3, NULL);
  ck_assert_msg(!strstr(a, "parametrisation"), "a softmax-16 file names its parametrisation");
  free(a);
  dlca_model_free(m);
}
END_TEST

/* ---- the reference trainer ----------------------------------------------- */

static dlca_train_config iwp_config(void) { return tu_small_train_config(); }

static dlca_trainer *iwp_trainer(const dlca_model *m, dlca_relax r) {
  dlca_train_config cfg = iwp_config();
  cfg.relax = r;
  dlca_trainer *t;
  ck_assert_msg(dlca_trainer_new(NULL, m, &cfg, &t) == DLCA_OK, "%s", dlca_last_error());
  float y[6 * 6 * 3];
  for (int i = 0; i < 36; i++)
    for (int c = 0; c < 3; c++) y[i * 3 + c] = c == 0 ? (float)(((i / 6) / 2 + (i % 6) / 2) & 1) : 0.0f;
  ck_assert_int_eq(dlca_trainer_set_target(t, y, 0), DLCA_OK);
  return t;
}

static void epochs(dlca_trainer *t, int n, double *loss) {
  for (int e = 0; e < n; e++) {
    ck_assert_msg(dlca_trainer_step(t) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_int_eq(dlca_trainer_loss(t, &loss[e]), DLCA_OK);
  }
}

/* Determinism, a bit-for-bit resume (with temperature and logistic noise, so
 * that the noise stream is resumed too), and the loss falls. */
START_TEST(test_ref_resume) {
  dlca_model_shape s = iwp_shape();
  dlca_model *m;
  ck_assert_int_eq(dlca_model_new(&s, 6, &m), DLCA_OK);
  const dlca_relax r = {2.0f, 0.5f, 0, 0};
  double a[20], b[20], c[20];
  dlca_trainer *t = iwp_trainer(m, r);
  epochs(t, 20, a);
  size_t P = dlca_trainer_n_params(t);
  ck_assert_uint_eq(P, dlca_model_n_params(m));
  float *pa = malloc(sizeof(float) * P), *pc = malloc(sizeof(float) * P);
  ck_assert_int_eq(dlca_trainer_get_params(t, pa), DLCA_OK);
  dlca_trainer_free(t);
  t = iwp_trainer(m, r);
  epochs(t, 20, b);
  dlca_trainer_free(t);
  const char *ckpt = tu_write(tu_tmpdir("iwp-resume"), "t.ckpt", "");
  t = iwp_trainer(m, r);
  epochs(t, 10, c);
  ck_assert_msg(dlca_trainer_save_checkpoint(t, ckpt) == DLCA_OK, "%s", dlca_last_error());
  dlca_trainer_free(t);
  t = iwp_trainer(m, r);
  ck_assert_msg(dlca_trainer_load_checkpoint(t, ckpt) == DLCA_OK, "%s", dlca_last_error());
  epochs(t, 10, c + 10);
  ck_assert_int_eq(dlca_trainer_get_params(t, pc), DLCA_OK);
  dlca_trainer_free(t);
  for (int e = 0; e < 20; e++) {
    ck_assert_msg(a[e] == b[e], "epoch %d: %.17g != %.17g", e, a[e], b[e]);
    ck_assert_msg(a[e] == c[e], "resumed epoch %d: %.17g != %.17g", e, a[e], c[e]);
  }
  ck_assert(!memcmp(pa, pc, sizeof(float) * P));
  ck_assert_msg(a[19] < a[0], "the loss did not fall: %g -> %g", a[0], a[19]);
  /* the softmax-16 model of the same wires is another model */
  s.parametrisation = DLCA_PARAM_SOFTMAX16;
  dlca_model *m16;
  ck_assert_int_eq(dlca_model_new(&s, 6, &m16), DLCA_OK);
  t = iwp_trainer(m16, r);
  ck_assert_int_eq(dlca_trainer_load_checkpoint(t, ckpt), DLCA_ECHECKPOINT);
  ck_assert_msg(strstr(dlca_last_error(), "t.ckpt") && strstr(dlca_last_error(), "another model"), "%s",
                dlca_last_error());
  ck_assert_int_eq((int)dlca_trainer_epoch(t), 0);
  /* and an export keeps the parametrisation */
  dlca_model *x;
  dlca_trainer_free(t);
  t = iwp_trainer(m, r);
  ck_assert_int_eq(dlca_trainer_export_model(t, &x), DLCA_OK);
  ck_assert_int_eq(dlca_model_params_per_gate(x), 4);
  dlca_model_free(x);
  dlca_trainer_free(t);
  free(pa), free(pc);
  dlca_model_free(m);
  dlca_model_free(m16);
}
END_TEST

/* The relaxations keep their meaning under IWP: straight-through trains on
 * the hard loss with a soft gradient; the noise is reproducible, changes
 * the gradient, and is the logistic quantile table. */
START_TEST(test_ref_relax) {
  dlca_model_shape s = iwp_shape();
  dlca_model *m;
  ck_assert_int_eq(dlca_model_new(&s, 6, &m), DLCA_OK);
  tu_random(m->params, m->n_params, -3.0f, 3.0f, 12);
  const dlca_relax st = {0, 0, 1, 0}, none = {0, 0, 0, 0}, noise = {0, 1.0f, 0, 0};
  dlca_trainer *t = iwp_trainer(m, st);
  for (int e = 0; e < 3; e++) {
    dlca_eval ev;
    double l;
    ck_assert_int_eq(dlca_trainer_eval_hard(t, &ev), DLCA_OK);
    epochs(t, 1, &l);
    ck_assert_msg(fabs(l - ev.hard_loss) < 1e-9, "epoch %d: straight-through loss %g, hard loss %g", e, l,
                  ev.hard_loss);
  }
  dlca_trainer_free(t);
  dlca_trainer *a = iwp_trainer(m, none), *b = iwp_trainer(m, noise), *c = iwp_trainer(m, noise);
  double l;
  epochs(a, 1, &l), epochs(b, 1, &l), epochs(c, 1, &l);
  size_t P = dlca_model_n_params(m);
  float *ga = malloc(sizeof(float) * P), *gb = malloc(sizeof(float) * P), *gc = malloc(sizeof(float) * P);
  ck_assert_int_eq(dlca_trainer_get_grad(a, ga), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_get_grad(b, gb), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_get_grad(c, gc), DLCA_OK);
  ck_assert(!memcmp(gb, gc, sizeof(float) * P));
  double d = 0;
  for (size_t i = 0; i < P; i++) d = fmax(d, fabs((double)ga[i] - gb[i]));
  ck_assert_msg(d > 1e-6, "logistic noise did not change the gradient");
  free(ga), free(gb), free(gc);
  dlca_trainer_free(a), dlca_trainer_free(b), dlca_trainer_free(c);
  /* the table: scale times the logistic quantile log(u / (1 - u)), odd about
   * the middle; the softmax-16 one is the Gumbel quantile -log(-log u) */
  float *tl, *tg;
  ck_assert_int_eq(dlca__gumbel_table(DLCA_PARAM_IWP, 0.5f, &tl), DLCA_OK);
  ck_assert_int_eq(dlca__gumbel_table(DLCA_PARAM_SOFTMAX16, 0.5f, &tg), DLCA_OK);
  for (int i = 0; i < DLCA_GUMBEL_LEVELS; i += 997) {
    double u = (i + 0.5) / DLCA_GUMBEL_LEVELS;
    ck_assert(tl[i] == (float)(0.5 * log(u / (1 - u))));
    ck_assert(tl[i] == -tl[DLCA_GUMBEL_LEVELS - 1 - i]);
    ck_assert(tg[i] == (float)(0.5 * -log(-log(u))));
  }
  free(tl), free(tg);
  dlca_model_free(m);
}
END_TEST

Suite *suite_iwp(void) {
  Suite *s = suite_create("iwp");
  TCase *tc = tcase_create("ref");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_truth_tables);
  tcase_add_test(tc, test_logit_grad);
  tcase_add_test(tc, test_model);
  tcase_add_test(tc, test_json_round_trip);
  tcase_add_test(tc, test_ref_resume);
  tcase_add_test(tc, test_ref_relax);
  suite_add_tcase(s, tc);
  return s;
}
