/* The trainer's optimizer (issue 32): each of the suite's rules trains on
 * PoCL as on the CPU twin, resumes from a checkpoint bit for bit on both
 * backends, and a bad hyperparameter or a checkpoint of another optimizer
 * is refused by name. The default (use_suite 0) is the JAX vectors' AdamW,
 * covered by the vectors and trainer suites. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl_util.h"
#include "util.h"

enum { N_CONFIGS = 7, DEFAULT_CONFIG = 6 };

/* Configuration i: every rule with its options; 6 is the default AdamW. */
static dlca_train_config config(int i) {
  static const int kinds[] = {DLCA_OPTIM_SGD, DLCA_OPTIM_SGD, DLCA_OPTIM_ADAM, DLCA_OPTIM_ADAMW,
                              DLCA_OPTIM_RMSPROP, DLCA_OPTIM_ADAGRAD};
  dlca_train_config c = tu_small_train_config();
  if (i == DEFAULT_CONFIG) return c;
  c.use_suite = 1;
  ck_assert_int_eq(dlca_optim_config_default(kinds[i], &c.suite), DLCA_OK);
  dlca_optim_config *s = &c.suite;
  c.optim.lr = i < 2 ? 0.5f : 0.05f;
  c.optim.clip = 0.5f; /* so that the clip bites */
  if (i == 1) s->momentum = 0.9, s->nesterov = 1, s->weight_decay = 0.01;
  if (i == 2) s->amsgrad = 1, s->weight_decay = 0.01;
  if (i == 4) s->centered = 1, s->momentum = 0.5, s->weight_decay = 0.01;
  if (i == 5) s->lr_decay = 0.01, s->initial_accumulator_value = 0.1, s->weight_decay = 0.01;
  return c;
}

static dlca_model *model(void) {
  dlca_model_shape s = tu_small_shape(3, 3, 0, 0, 0, DLCA_WIRING_UNIQUE);
  dlca_model *m;
  ck_assert_msg(dlca_model_new(&s, 5, &m) == DLCA_OK, "%s", dlca_last_error());
  return m;
}

/* A trainer of configuration i on ctx with a checkerboard-like target and
 * random logits (seed 41: the same on every backend). */
static dlca_trainer *trainer(dlca_context *ctx, const dlca_model *m, int i) {
  dlca_train_config c = config(i);
  dlca_trainer *t;
  ck_assert_msg(dlca_trainer_new(ctx, m, &c, &t) == DLCA_OK, "config %d: %s", i, dlca_last_error());
  float y[6 * 6 * 3], *p = malloc(sizeof(float) * dlca_trainer_n_params(t));
  for (int q = 0; q < 36; q++)
    for (int ch = 0; ch < 3; ch++) y[q * 3 + ch] = ch == 0 ? (float)(((q / 6) / 2 + (q % 6) / 2) & 1) : 0.0f;
  ck_assert_int_eq(dlca_trainer_set_target(t, y, 0), DLCA_OK);
  tu_random(p, dlca_trainer_n_params(t), -2.0f, 2.0f, 41);
  ck_assert_int_eq(dlca_trainer_set_params(t, p), DLCA_OK);
  free(p);
  return t;
}

/* The logits then every state slot, (1 + slots) P floats (free it). */
static float *state_of(dlca_trainer *t) {
  const size_t P = dlca_trainer_n_params(t), S = dlca_trainer_state_slots(t);
  float *s = malloc(sizeof(float) * (1 + S) * P);
  ck_assert_int_eq(dlca_trainer_get_params(t, s), DLCA_OK);
  for (size_t k = 0; k < S; k++) ck_assert_int_eq(dlca_trainer_get_state_slot(t, k, s + (1 + k) * P), DLCA_OK);
  return s;
}

static void steps(dlca_trainer *t, int n, double *losses) {
  for (int e = 0; e < n; e++) {
    ck_assert_msg(dlca_trainer_step(t) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_int_eq(dlca_trainer_loss(t, &losses[e]), DLCA_OK);
  }
}

/* _i: configuration. 4 epochs on PoCL and on the CPU twin from the same
 * random logits: the losses within 1e-4 relative, the logits and every
 * state slot within 1e-3 of their scale (test_trainer.c's tolerances). */
START_TEST(test_optim_cl_twin) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  dlca_model *m = model();
  dlca_trainer *a = trainer(NULL, m, _i), *b = trainer(ctx, m, _i);
  const size_t P = dlca_trainer_n_params(a), S = dlca_trainer_state_slots(a);
  ck_assert_int_eq((int)S, (int)dlca_trainer_state_slots(b));
  double la[4], lb[4];
  steps(a, 4, la), steps(b, 4, lb);
  float *sa = state_of(a), *sb = state_of(b);
  for (int e = 0; e < 4; e++)
    ck_assert_msg(fabs(la[e] - lb[e]) <= 1e-4 * fmax(1.0, fabs(la[e])), "config %d epoch %d: loss %.9g vs %.9g", _i,
                  e, la[e], lb[e]);
  for (size_t k = 0; k <= S; k++) {
    double d = 0, scale = 1e-30;
    for (size_t j = 0; j < P; j++)
      d = fmax(d, fabs((double)sa[k * P + j] - sb[k * P + j])), scale = fmax(scale, fabs((double)sa[k * P + j]));
    fprintf(stderr, "trainer optimizer %d (%s), %s: device vs twin %.3g of %.3g\n", _i,
            _i == DEFAULT_CONFIG ? "adamw" : dlca_optim_kind_name(config(_i).suite.kind), k ? "slot" : "logits", d,
            scale);
    ck_assert_msg(d <= 1e-3 * fmax(1.0, scale), "config %d, %s %zu: differs by %g", _i, k ? "slot" : "logits",
                  k ? k - 1 : 0, d);
    ck_assert_msg(k == 0 || scale > 1e-30 || _i == 0, "config %d: slot %zu stayed zero", _i, k - 1);
  }
  free(sa), free(sb);
  dlca_trainer_free(a), dlca_trainer_free(b);
  dlca_model_free(m);
  dlca_context_free(ctx);
}
END_TEST

/* _i: configuration _i % 7 on the twin (_i < 7) or on PoCL. 3 epochs, a
 * checkpoint, 3 more in a fresh trainer: the losses, logits and state of
 * 6 straight epochs, bit for bit; the file's version is 2 for a suite
 * rule, 1 (the old format) for the default. */
START_TEST(test_optim_resume) {
  const int cfg = _i % N_CONFIGS, on_cl = _i >= N_CONFIGS;
  if (on_cl && !tcl_platform()) return;
  dlca_context *ctx = on_cl ? tcl_context() : NULL;
  dlca_model *m = model();
  double straight[6], resumed[6];
  dlca_trainer *t = trainer(ctx, m, cfg);
  steps(t, 6, straight);
  float *want = state_of(t);
  dlca_trainer_free(t);
  char path[1200];
  snprintf(path, sizeof path, "%s/o.ckpt", tu_tmpdir("optim-resume"));
  t = trainer(ctx, m, cfg);
  steps(t, 3, resumed);
  ck_assert_msg(dlca_trainer_save_checkpoint(t, path) == DLCA_OK, "%s", dlca_last_error());
  dlca_trainer_free(t);
  size_t len;
  char *file = tu_read(path, &len);
  ck_assert_int_eq(file[8], cfg == DEFAULT_CONFIG ? 1 : 2);
  free(file);
  t = trainer(ctx, m, cfg);
  ck_assert_msg(dlca_trainer_load_checkpoint(t, path) == DLCA_OK, "%s", dlca_last_error());
  steps(t, 3, resumed + 3);
  float *got = state_of(t);
  const size_t n = (1 + dlca_trainer_state_slots(t)) * dlca_trainer_n_params(t);
  for (int e = 0; e < 6; e++)
    ck_assert_msg(straight[e] == resumed[e], "config %d epoch %d: %.17g != %.17g", cfg, e, straight[e], resumed[e]);
  ck_assert_msg(memcmp(want, got, sizeof(float) * n) == 0, "config %d: the resumed state differs", cfg);
  free(want), free(got);
  dlca_trainer_free(t);
  dlca_model_free(m);
  dlca_context_free(ctx);
}
END_TEST

/* A relaxation that rebuilds the backend (straight-through) keeps the
 * suite's state: rmsprop's 3 slots and adagrad's sums, bit for bit, on the
 * twin; the default keeps its moments (tests/test_relax.c). */
START_TEST(test_optim_relax_keeps_state) {
  dlca_model *m = model();
  dlca_trainer *t = trainer(NULL, m, _i ? 5 : 4);
  double l[2];
  steps(t, 2, l);
  float *before = state_of(t);
  dlca_relax r = dlca_trainer_relax(t);
  r.straight_through = 1;
  ck_assert_msg(dlca_trainer_set_relax(t, &r) == DLCA_OK, "%s", dlca_last_error());
  float *after = state_of(t);
  const size_t n = (1 + dlca_trainer_state_slots(t)) * dlca_trainer_n_params(t);
  ck_assert_msg(memcmp(before, after, sizeof(float) * n) == 0, "the state changed across set_relax");
  steps(t, 1, l);
  free(before), free(after);
  dlca_trainer_free(t);
  dlca_model_free(m);
}
END_TEST

/* dlca_trainer_new refuses c, and its message holds every one of the words. */
static void refused(const dlca_model *m, const dlca_train_config *c, int code, const char *w1, const char *w2) {
  dlca_trainer *t = NULL;
  ck_assert_int_eq(dlca_trainer_new(NULL, m, c, &t), code);
  ck_assert_ptr_null(t);
  const char *e = dlca_last_error();
  ck_assert_msg(strstr(e, w1) && (!w2 || strstr(e, w2)), "'%s' lacks '%s' or '%s'", e, w1, w2 ? w2 : "");
}

START_TEST(test_optim_bad) {
  dlca_model *m = model();
  dlca_train_config c = config(0);
  c.suite.amsgrad = 1;
  refused(m, &c, DLCA_EINVAL, "amsgrad", "sgd");
  c = config(0), c.suite.nesterov = 1;
  refused(m, &c, DLCA_EINVAL, "nesterov", "momentum");
  c = config(2), c.suite.beta2 = 1;
  refused(m, &c, DLCA_EINVAL, "beta2 = 1", "[0, 1)");
  c = config(4), c.suite.eps = -1;
  refused(m, &c, DLCA_EINVAL, "eps = -1", "rmsprop");
  c = config(1), c.optim.lr = -0.5f;
  refused(m, &c, DLCA_ECONFIG, "lr = -0.5", NULL);
  c = config(1), c.optim.clip = 0;
  refused(m, &c, DLCA_ECONFIG, "clip = 0", NULL);
  c = config(1), c.use_suite = 2;
  refused(m, &c, DLCA_ECONFIG, "use_suite = 2", NULL);
  c = config(1), c.suite.kind = 9;
  refused(m, &c, DLCA_EINVAL, "kind 9", NULL);
  c = config(DEFAULT_CONFIG), c.optim.beta1 = 1;
  refused(m, &c, DLCA_ECONFIG, "beta1 = 1", "adamw");
  /* a checkpoint of one optimizer does not load into another, by name */
  char path[1200];
  snprintf(path, sizeof path, "%s/o.ckpt", tu_tmpdir("optim-bad"));
  dlca_trainer *a = trainer(NULL, m, DEFAULT_CONFIG), *b = trainer(NULL, m, 1), *d = trainer(NULL, m, 2);
  ck_assert_int_eq(dlca_trainer_save_checkpoint(a, path), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_load_checkpoint(b, path), DLCA_ECHECKPOINT);
  ck_assert_msg(strstr(dlca_last_error(), "adamw") && strstr(dlca_last_error(), "sgd"), "%s", dlca_last_error());
  ck_assert_int_eq(dlca_trainer_save_checkpoint(b, path), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_load_checkpoint(d, path), DLCA_ECHECKPOINT);
  ck_assert_msg(strstr(dlca_last_error(), "sgd") && strstr(dlca_last_error(), "adam"), "%s", dlca_last_error());
  ck_assert_int_eq(dlca_trainer_load_checkpoint(a, path), DLCA_ECHECKPOINT);
  ck_assert_int_eq((int)dlca_trainer_epoch(a), 0);
  float one[1];
  ck_assert_int_eq(dlca_trainer_get_state_slot(b, 1, one), DLCA_EINVAL);
  ck_assert_msg(strstr(dlca_last_error(), "slot 1"), "%s", dlca_last_error());
  dlca_trainer_free(a), dlca_trainer_free(b), dlca_trainer_free(d);
  dlca_model_free(m);
}
END_TEST

/* The loop's chain of torch's schedules (DLCA_LR_CHAIN): a warm-up then a
 * cosine on the checkerboard preset through dlca_loop; the lr of every
 * epoch is dlca_lr_chain_at's with the run's defaults (base lr the
 * trainer's, T_max the epochs left), rounded to float. Bad chains are
 * refused naming the part. */
START_TEST(test_optim_lr_chain) {
  dlca_preset p;
  ck_assert_int_eq(dlca_preset_get("checkerboard", &p), DLCA_OK);
  dlca_train_config cfg;
  dlca_train_config_from_preset(&p, &cfg);
  cfg.batch = 1, cfg.steps = 2, cfg.seed = 3;
  cfg.use_suite = 1;
  ck_assert_int_eq(dlca_optim_config_default(DLCA_OPTIM_SGD, &cfg.suite), DLCA_OK);
  cfg.suite.momentum = 0.9;
  dlca_model *m;
  ck_assert_int_eq(dlca_model_new(&p.shape, 3, &m), DLCA_OK);
  dlca_loop_options o;
  dlca_loop_options_default(&o);
  o.epochs = 8, o.eval_every = 100;
  ck_assert_msg(dlca_loop_parse_lr_chain("linear:start_factor=0.1:total_iters=3,cosine@3:eta_min=0.001", &o) ==
                    DLCA_OK, "%s", dlca_last_error());
  dlca_lr_spec want[2];
  ck_assert_int_eq(dlca_lr_spec_default(DLCA_LRS_LINEAR, cfg.optim.lr, &want[0]), DLCA_OK);
  want[0].start_factor = 0.1, want[0].total_iters = 3;
  ck_assert_int_eq(dlca_lr_spec_default(DLCA_LRS_COSINE, cfg.optim.lr, &want[1]), DLCA_OK);
  want[1].eta_min = 0.001, want[1].t_max = 5;
  const uint64_t at[1] = {3};
  dlca_loop *l;
  ck_assert_msg(dlca_loop_new(NULL, &p, m, &cfg, NULL, &o, &l) == DLCA_OK, "%s", dlca_last_error());
  for (uint64_t e = 0; e < 8; e++) {
    double lr;
    ck_assert_int_eq(dlca_lr_chain_at(2, want, at, e, &lr), DLCA_OK);
    ck_assert_msg(dlca_loop_epoch(l) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_msg(dlca_trainer_lr(dlca_loop_trainer(l)) == (float)lr, "epoch %d: lr %g, want %g", (int)e,
                  (double)dlca_trainer_lr(dlca_loop_trainer(l)), lr);
  }
  dlca_loop_free(l);
  static const char *const bad[][2] = {{"linear,cosine", "@EPOCH"}, {"cosine@3", "starts at 0"},
                                       {"step:gama=2", "gama"}, {"nosuch", "nosuch"},
                                       {"linear,cosine@5,step@4", "@4"}, {"step:gamma=x", "not a number"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    dlca_loop_options_default(&o);
    ck_assert_int_eq(dlca_loop_parse_lr_chain(bad[i][0], &o), DLCA_EINVAL);
    ck_assert_msg(strstr(dlca_last_error(), bad[i][1]), "'%s': %s", bad[i][0], dlca_last_error());
  }
  /* a part left without its size (step_size) is refused when the loop starts */
  dlca_loop_options_default(&o);
  o.epochs = 8;
  ck_assert_int_eq(dlca_loop_parse_lr_chain("step", &o), DLCA_OK);
  ck_assert_int_eq(dlca_loop_new(NULL, &p, m, &cfg, NULL, &o, &l), DLCA_EINVAL);
  ck_assert_msg(strstr(dlca_last_error(), "step_size"), "%s", dlca_last_error());
  dlca_model_free(m);
}
END_TEST

Suite *suite_trainer_optim(void) {
  Suite *s = suite_create("trainer_optim");
  TCase *tc = tcase_create("optim");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_optim_cl_twin, 0, N_CONFIGS);
  tcase_add_loop_test(tc, test_optim_resume, 0, 2 * N_CONFIGS);
  tcase_add_test(tc, test_optim_bad);
  tcase_add_loop_test(tc, test_optim_relax_keeps_state, 0, 2);
  tcase_add_test(tc, test_optim_lr_chain);
  suite_add_tcase(s, tc);
  return s;
}
