/* The population of dlca_cl/population.h: model j gives exactly the
 * losses, evaluations and circuit of a single run of its seed (on PoCL and
 * on the CPU reference), abandoned models are replaced by fresh seeds
 * within max_models, and the memory estimate refuses a population that
 * does not fit, naming the most that would. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dlca_cl.h"
#include "cl_util.h"
#include "cl/runtime.h"
#include "cl/trainer_backend.h"

#define POP_M 3
#define POP_EPOCHS 6

/* The tiny checkerboard (tests/util.h) with keep-best and 2 fresh
 * batches, so that every part of a run's end is compared. */
static void tiny(dlca_preset *p, dlca_train_config *cfg, dlca_loop_options *o) {
  tu_tiny_checkerboard(p, cfg, o, POP_EPOCHS);
  o->keep_best = 1, o->eval_fresh = 2;
}

/* One run of seed s as dlca-train runs it: soft[e] per epoch, the hard
 * losses of its evaluations, and its final logits. */
static void single_run(dlca_context *ctx, uint64_t s, int shared, double *soft, double *hard, float **logits,
                       size_t *n) {
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  tiny(&p, &cfg, &o);
  cfg.shared_program = shared, o.seed = s;
  const dlca_population_options po = {.n_models = 1};
  dlca_train_config c; /* the population's model of seed s */
  dlca_population_model_config(&po, &cfg, s, &c);
  dlca_model *m;
  dlca_loop *l;
  ck_assert_int_eq(dlca_model_new(&p.shape, s, &m), DLCA_OK);
  ck_assert_int_eq(dlca_loop_new(ctx, &p, m, &c, NULL, &o, &l), DLCA_OK);
  dlca_loop_result r;
  for (int e = 0; e < POP_EPOCHS; e++) {
    ck_assert_int_eq(dlca_loop_epoch(l), DLCA_OK);
    dlca_loop_get_result(l, &r);
    soft[e] = r.soft, hard[e] = r.evaluated ? r.hard.hard_loss : -1;
  }
  ck_assert_int_eq(dlca_loop_finish(l), DLCA_OK);
  ck_assert_int_eq(dlca_loop_polish(l), DLCA_OK);
  ck_assert_int_eq(dlca_loop_eval_fresh(l), DLCA_OK);
  dlca_trainer *t = dlca_loop_trainer(l);
  *n = dlca_trainer_n_params(t);
  *logits = malloc(sizeof(float) * *n);
  ck_assert_int_eq(dlca_trainer_get_params(t, *logits), DLCA_OK);
  dlca_loop_free(l);
  dlca_model_free(m);
}

/* Model j of a population of seeds {11, 40, 12} against single runs
 * (shared: with one program for the three, which gives the compiled-in
 * wires' bits, test_shared_program_parity; saves two builds); persist >=
 * 0: whether the group's trainers plan BWD_PERSIST. */
static void parity(dlca_context *ctx, int shared, int persist) {
  static const uint64_t seeds[POP_M] = {11, 40, 12};
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  tiny(&p, &cfg, &o);
  dlca_population_options po = {.n_models = POP_M, .seeds = seeds};
  dlca_population *P;
  ck_assert_int_eq(dlca_population_new(ctx, &p, NULL, &cfg, NULL, &o, &po, &P), DLCA_OK);
  if (persist >= 0) ck_assert_int_eq(dlca__cl_trainer_persist(dlca_loop_trainer(dlca_population_loop(P, 0))), persist);
  double soft[POP_EPOCHS][POP_M], hard[POP_EPOCHS][POP_M];
  for (int e = 0; e < POP_EPOCHS; e++) {
    ck_assert_int_eq(dlca_population_running(P), 1);
    ck_assert_int_eq(dlca_population_step(P), DLCA_OK);
    dlca_population_losses(P, soft[e]);
    for (int j = 0; j < POP_M; j++) {
      dlca_loop_result r;
      dlca_loop_get_result(dlca_population_loop(P, j), &r);
      hard[e][j] = r.evaluated ? r.hard.hard_loss : -1;
    }
  }
  ck_assert_int_eq(dlca_population_running(P), 0); /* no replace: every model is done */
  for (int j = 0; j < POP_M; j++) {
    double s1[POP_EPOCHS], h1[POP_EPOCHS];
    float *l1, *lp;
    size_t n;
    single_run(ctx, seeds[j], shared, s1, h1, &l1, &n);
    ck_assert_int_eq((int)dlca_population_seed(P, j), (int)seeds[j]);
    for (int e = 0; e < POP_EPOCHS; e++) {
      ck_assert_msg(soft[e][j] == s1[e], "model %d, epoch %d: soft %.9g, single run %.9g", j, e + 1, soft[e][j], s1[e]);
      ck_assert_msg(hard[e][j] == h1[e], "model %d, epoch %d: hard %g, single run %g", j, e + 1, hard[e][j], h1[e]);
    }
    dlca_model *m;
    ck_assert_int_eq(dlca_population_take(P, j, &m), DLCA_OK);
    lp = dlca_model_params(m);
    ck_assert_int_eq((int)dlca_model_n_params(m), (int)n);
    ck_assert_msg(memcmp(lp, l1, sizeof(float) * n) == 0, "model %d: the circuit differs from the single run's", j);
    dlca_model_free(m);
    free(l1);
  }
  ck_assert_msg(soft[0][0] != soft[0][1], "seeds 11 and 40 gave the same first loss");
  dlca_population_stats st;
  dlca_population_get_stats(P, &st);
  ck_assert_int_eq((int)st.models, POP_M);
  ck_assert_int_eq((int)st.epochs, POP_M * POP_EPOCHS);
  ck_assert_int_eq((int)st.steps, POP_EPOCHS);
  dlca_population_free(P);
}

START_TEST(test_population_parity_ref) { parity(NULL, 0, -1); }
END_TEST

/* _i 0: PoCL's own kernels (KERNELS 1); 1: the GPU-shaped trainer.cl
 * (KERNELS 0), planned as a population's (population_plan: WG_NARROW 0,
 * so the model is wide; POP_GROUPS 3 groups a model); 2: that with the
 * perception stacks' backward in a launch of its own (PERC_SPLIT_CELLS 1,
 * and its BWD_PUSH); 3: KERNELS 0 with a single run's plan (WG_NARROW
 * 128, C K of the model) and the one-launch backward pass (BWD_PERSIST
 * 1024), which the group keeps (POP_PERSIST 1), launched once per model. */
START_TEST(test_population_parity_cl) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  tcl_step_kernels(ctx, _i == 0, 0, 0);
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "WG_NARROW", _i == 3 ? 128 : 0) == DLCA_OK);
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "POP_GROUPS", 3) == DLCA_OK);
  if (_i == 2) {
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "PERC_SPLIT_CELLS", 1) == DLCA_OK);
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_PUSH", 1) == DLCA_OK);
  }
  if (_i == 3) { /* one group a compute unit: PoCL runs a group a thread, all at once */
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_PERSIST", 1024) == DLCA_OK);
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_GROUPS_PER_CU", 1) == DLCA_OK);
  }
  parity(ctx, _i > 0, _i == 3 ? 1 : _i > 0 ? 0 : -1);
  dlca_context_free(ctx);
}
END_TEST

/* Every model is abandoned at epoch 2 (no hard loss is below 0): each slot
 * gets fresh seeds 100, 101, ... until max_models were started. */
START_TEST(test_population_replaces) {
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  tiny(&p, &cfg, &o);
  o.eval_every = 1, o.eval_fresh = 0;
  ck_assert_int_eq(dlca_loop_parse_abandon("2:0", &o), DLCA_OK);
  dlca_population_options po = {.n_models = 2, .replace = 1, .next_seed = 100, .max_models = 5};
  dlca_population *P;
  ck_assert_int_eq(dlca_population_new(NULL, &p, NULL, &cfg, NULL, &o, &po, &P), DLCA_OK);
  ck_assert_int_eq((int)dlca_population_seed(P, 1), 8);
  int steps = 0;
  while (dlca_population_running(P) && steps < 100) {
    ck_assert_int_eq(dlca_population_step(P), DLCA_OK);
    steps++;
  }
  dlca_population_stats st;
  dlca_population_get_stats(P, &st);
  ck_assert_int_eq(st.winner, -1);
  ck_assert_int_eq((int)st.models, 5);
  ck_assert_int_eq((int)st.abandoned, 5);
  ck_assert_int_eq((int)st.epochs, 10);
  ck_assert_int_eq(steps, 6); /* 2 + 2 (both slots), then 2 for the fifth model alone */
  ck_assert_int_eq((int)dlca_population_seed(P, 0), 102);
  ck_assert_int_eq(dlca_population_model_state(P, 0), DLCA_POP_ABANDONED);
  dlca_population_free(P);
}
END_TEST

/* shared_program (the perception wires from the wires buffer) gives the
 * compiled-in wires' losses and logits bit for bit: _i 0 KERNELS 1 (PoCL's
 * own), 1 KERNELS 0, 2 KERNELS 0 with the perception stacks' backward in a
 * launch of its own (PERC_SPLIT_CELLS 1). Checkerboard, async, 3 epochs. */
START_TEST(test_shared_program_parity) {
  if (!tcl_platform()) return;
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  tiny(&p, &cfg, &o);
  cfg.async = 1, cfg.fire_rate = 0.5f;
  dlca_model *m;
  ck_assert_int_eq(dlca_model_new(&p.shape, 21, &m), DLCA_OK);
  float *y;
  ck_assert_int_eq(dlca_preset_target(&p, p.shape.channels, NULL, &y), DLCA_OK);
  const size_t n = dlca_model_n_params(m);
  float *lg[2] = {malloc(sizeof(float) * n), malloc(sizeof(float) * n)};
  double loss[2][3];
  for (int shared = 0; shared < 2; shared++) {
    dlca_context *ctx = tcl_context();
    tcl_step_kernels(ctx, _i == 0, 0, 0);
    if (_i == 2) ck_assert(dlca__tuning_override(ctx, "trainer.cl", "PERC_SPLIT_CELLS", 1) == DLCA_OK);
    cfg.shared_program = shared;
    dlca_trainer *t;
    ck_assert_int_eq(dlca_trainer_new(ctx, m, &cfg, &t), DLCA_OK);
    ck_assert_int_eq(dlca_trainer_set_target(t, y, 0), DLCA_OK);
    for (int e = 0; e < 3; e++) {
      ck_assert_int_eq(dlca_trainer_step(t), DLCA_OK);
      ck_assert_int_eq(dlca_trainer_loss(t, &loss[shared][e]), DLCA_OK);
    }
    ck_assert_int_eq(dlca_trainer_get_params(t, lg[shared]), DLCA_OK);
    dlca_trainer_free(t);
    dlca_context_free(ctx);
  }
  for (int e = 0; e < 3; e++)
    ck_assert_msg(loss[0][e] == loss[1][e], "case %d, epoch %d: compiled-in %.9g, shared %.9g", _i, e + 1,
                  loss[0][e], loss[1][e]);
  ck_assert_msg(memcmp(lg[0], lg[1], sizeof(float) * n) == 0, "case %d: the logits differ", _i);
  free(lg[0]), free(lg[1]), free(y);
  dlca_model_free(m);
}
END_TEST

/* The estimate is M times one model's; a population over the device's
 * memory is refused, naming the most that fit. */
START_TEST(test_population_memory) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  tiny(&p, &cfg, &o);
  size_t one, four;
  ck_assert_int_eq(dlca_population_estimate_memory(&p, NULL, &cfg, 1, &one), DLCA_OK);
  ck_assert_int_eq(dlca_population_estimate_memory(&p, NULL, &cfg, 4, &four), DLCA_OK);
  ck_assert_uint_gt(one, 0);
  ck_assert_uint_eq(four, 4 * one);
  int fit;
  ck_assert_int_eq(dlca_population_max_models(ctx, &p, NULL, &cfg, &fit), DLCA_OK);
  ck_assert_int_ge(fit, 1);
  if (fit < 1000000) {
    dlca_population_options po = {.n_models = fit + 1};
    dlca_population *P = NULL;
    ck_assert_int_eq(dlca_population_new(ctx, &p, NULL, &cfg, NULL, &o, &po, &P), DLCA_EDEVMEM);
    ck_assert_ptr_null(P);
    char want[64];
    snprintf(want, sizeof want, "at most %d fit", fit);
    ck_assert_msg(strstr(dlca_last_error(), want) != NULL, "message: %s", dlca_last_error());
  }
  dlca_context_free(ctx);
}
END_TEST

/* Launches in one population step of M models with no evaluation due: the
 * same for M = 1 and M = 4 (one a phase: coef, start, the forward and
 * backward steps, adamw), so the batched group ran. */
static uint64_t launches_of_step(int M) {
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  tiny(&p, &cfg, &o);
  o.eval_every = 100;
  dlca_context *ctx = tcl_context();
  dlca_population_options po = {.n_models = M};
  dlca_population *P;
  ck_assert_int_eq(dlca_population_new(ctx, &p, NULL, &cfg, NULL, &o, &po, &P), DLCA_OK);
  dlca_context_set_profiling(ctx, 1);
  dlca_context_profile_reset(ctx);
  ck_assert_int_eq(dlca_population_step(P), DLCA_OK);
  dlca_kernel_profile *k;
  size_t n;
  ck_assert_int_eq(dlca_context_profile(ctx, &k, &n), DLCA_OK);
  uint64_t count = 0;
  for (size_t i = 0; i < n; i++) count += k[i].count;
  free(k);
  dlca_population_free(P);
  dlca_context_free(ctx);
  return count;
}

START_TEST(test_population_launches) {
  if (!tcl_platform()) return;
  const uint64_t one = launches_of_step(1), four = launches_of_step(4);
  /* tiny: 4 steps, a launch per step forward and backward (2 * 4 + 3), or
   * where the device plans the one-launch backward pass (BWD_PERSIST, an
   * NVIDIA GPU) that one launch per model (POP_PERSIST: single runs' bits),
   * 4 + 4 for one model and 3 more for four */
  const int persist = one == 4 + 4;
  ck_assert_msg(one == 2 * 4 + 3 || persist, "a step of 1 model made %llu launches", (unsigned long long)one);
  ck_assert_msg(four == one + (persist ? 3 : 0), "a step of 1 model made %llu launches, of 4 models %llu",
                (unsigned long long)one, (unsigned long long)four);
}
END_TEST

/* A replaced model starts later than its neighbours and a model that is
 * done stays as it was: seeds {11, 40} are abandoned at epoch 2, then slot
 * 0 alone trains seed 100 (max_models 3) while slot 1 is inactive. Slot
 * 0's losses and circuit are those of a single run of seed 100; slot 1's
 * logits do not change. Asynchronous, so that the fire masks are each
 * model's too. */
START_TEST(test_population_replaced_parity) {
  if (!tcl_platform()) return;
  static const uint64_t seeds[2] = {11, 40};
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  tiny(&p, &cfg, &o);
  cfg.async = 1, cfg.fire_rate = 0.5f; /* each model its own fire masks */
  o.eval_every = 1, o.eval_fresh = 0;
  ck_assert_int_eq(dlca_loop_parse_abandon("2:0", &o), DLCA_OK);
  dlca_context *ctx = tcl_context();
  dlca_population_options po = {.n_models = 2, .seeds = seeds, .replace = 1, .next_seed = 100, .max_models = 3};
  dlca_population *P;
  ck_assert_int_eq(dlca_population_new(ctx, &p, NULL, &cfg, NULL, &o, &po, &P), DLCA_OK);
  double soft[2];
  for (int e = 0; e < 2; e++) ck_assert_int_eq(dlca_population_step(P), DLCA_OK);
  ck_assert_int_eq(dlca_population_model_state(P, 1), DLCA_POP_ABANDONED);
  dlca_model *before, *after;
  ck_assert_int_eq(dlca_population_take(P, 1, &before), DLCA_OK);
  double pop_soft[2];
  for (int e = 0; e < 2; e++) {
    ck_assert_int_eq(dlca_population_step(P), DLCA_OK);
    dlca_population_losses(P, soft);
    pop_soft[e] = soft[0];
  }
  ck_assert_int_eq((int)dlca_population_seed(P, 0), 100);
  ck_assert_int_eq(dlca_population_running(P), 0);
  ck_assert_int_eq(dlca_population_take(P, 1, &after), DLCA_OK);
  const size_t n = dlca_model_n_params(after);
  ck_assert_msg(memcmp(dlca_model_params(before), dlca_model_params(after), sizeof(float) * n) == 0,
                "the inactive slot's logits changed");
  /* the single run of seed 100 with the same options */
  dlca_model *m, *mp;
  dlca_loop *l;
  dlca_train_config c1;
  dlca_loop_options o1 = o;
  dlca_population_model_config(&po, &cfg, 100, &c1);
  o1.seed = 100;
  ck_assert_int_eq(dlca_model_new(&p.shape, 100, &m), DLCA_OK);
  ck_assert_int_eq(dlca_loop_new(ctx, &p, m, &c1, NULL, &o1, &l), DLCA_OK);
  for (int e = 0; e < 2; e++) {
    dlca_loop_result r;
    ck_assert_int_eq(dlca_loop_epoch(l), DLCA_OK);
    dlca_loop_get_result(l, &r);
    ck_assert_msg(r.soft == pop_soft[e], "epoch %d: population %.9g, single run %.9g", e + 1, pop_soft[e], r.soft);
  }
  ck_assert_int_eq(dlca_loop_finish(l), DLCA_OK);
  ck_assert_int_eq(dlca_loop_polish(l), DLCA_OK);
  ck_assert_int_eq(dlca_population_take(P, 0, &mp), DLCA_OK);
  float *l1 = malloc(sizeof(float) * n);
  ck_assert_int_eq(dlca_trainer_get_params(dlca_loop_trainer(l), l1), DLCA_OK);
  ck_assert_msg(memcmp(l1, dlca_model_params(mp), sizeof(float) * n) == 0, "the replaced model's circuit differs");
  free(l1);
  dlca_model_free(m), dlca_model_free(mp), dlca_model_free(before), dlca_model_free(after);
  dlca_loop_free(l);
  dlca_population_free(P);
  dlca_context_free(ctx);
}
END_TEST

Suite *suite_population(void) {
  Suite *s = suite_create("population");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_population_parity_ref);
  tcase_add_loop_test(tc, test_population_parity_cl, 0, 4);
  tcase_add_test(tc, test_population_replaces);
  tcase_add_test(tc, test_population_memory);
  tcase_add_test(tc, test_population_launches);
  tcase_add_test(tc, test_population_replaced_parity);
  tcase_add_loop_test(tc, test_shared_program_parity, 0, 3);
  suite_add_tcase(s, tc);
  return s;
}
