/* The population's selection (dlca_cl/population.h, issue 34): each
 * model's own hyperparameters (the jitters) with model j still a single
 * run of its seed and configuration; population-based training's copies;
 * the repair of models that are done on a host thread. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dlca_cl.h"
#include "cl_util.h"

#define SEL_M 2
#define SEL_EPOCHS 4

/* The tiny checkerboard of tests/util.h. */
static void tiny(dlca_preset *p, dlca_train_config *cfg, dlca_loop_options *o) {
  tu_tiny_checkerboard(p, cfg, o, SEL_EPOCHS);
}

/* The soft losses of a single run of cfg (its seed) with o. */
static void single_run(dlca_context *ctx, const dlca_train_config *cfg, double *soft) {
  dlca_preset p;
  dlca_train_config c0;
  dlca_loop_options o;
  tiny(&p, &c0, &o);
  o.seed = cfg->seed;
  dlca_model *m;
  dlca_loop *l;
  ck_assert_int_eq(dlca_model_new(&p.shape, cfg->seed, &m), DLCA_OK);
  ck_assert_int_eq(dlca_loop_new(ctx, &p, m, cfg, NULL, &o, &l), DLCA_OK);
  for (int e = 0; e < SEL_EPOCHS; e++) {
    ck_assert_int_eq(dlca_loop_epoch(l), DLCA_OK);
    dlca_loop_result r;
    dlca_loop_get_result(l, &r);
    soft[e] = r.soft;
  }
  dlca_loop_free(l);
  dlca_model_free(m);
}

/* Jittered lr, temperature and Gumbel scale: each within exp(+-j) of the
 * configuration's, drawn per seed, and model j a single run of its seed
 * with dlca_population_model_config's configuration. */
static void jitter_parity(dlca_context *ctx) {
  static const uint64_t seeds[SEL_M] = {21, 22};
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  tiny(&p, &cfg, &o);
  dlca_population_options po = {.n_models = SEL_M, .seeds = seeds, .lr_jitter = 1, .temperature_jitter = 0.5,
                                .gumbel_jitter = 0.7};
  dlca_population *P;
  ck_assert_int_eq(dlca_population_new(ctx, &p, NULL, &cfg, NULL, &o, &po, &P), DLCA_OK);
  double soft[SEL_EPOCHS][SEL_M];
  for (int e = 0; e < SEL_EPOCHS; e++) {
    ck_assert_int_eq(dlca_population_step(P), DLCA_OK);
    dlca_population_losses(P, soft[e]);
  }
  float lr[SEL_M];
  for (int j = 0; j < SEL_M; j++) {
    dlca_train_config c, mine;
    dlca_population_model_config(&po, &cfg, seeds[j], &c);
    ck_assert_int_eq(dlca_population_config(P, j, &mine), DLCA_OK);
    ck_assert_msg(c.optim.lr == mine.optim.lr && c.relax.gumbel_scale == mine.relax.gumbel_scale,
                  "model %d: the population's configuration is not dlca_population_model_config's", j);
    lr[j] = c.optim.lr;
    ck_assert(c.seed == seeds[j]);
    ck_assert(c.optim.lr >= cfg.optim.lr * expf(-1.0f) * 0.999f && c.optim.lr <= cfg.optim.lr * expf(1.0f) * 1.001f);
    ck_assert(c.relax.temperature >= 2 * expf(-0.5f) * 0.999f && c.relax.temperature <= 2 * expf(0.5f) * 1.001f);
    ck_assert(c.relax.gumbel_scale >= 0.5f * expf(-0.7f) * 0.999f &&
              c.relax.gumbel_scale <= 0.5f * expf(0.7f) * 1.001f);
    ck_assert(c.relax.temperature != 2 && c.relax.gumbel_scale != 0.5f);
    double s1[SEL_EPOCHS];
    single_run(ctx, &c, s1);
    for (int e = 0; e < SEL_EPOCHS; e++)
      ck_assert_msg(soft[e][j] == s1[e], "model %d, epoch %d: soft %.9g, single run %.9g", j, e + 1, soft[e][j],
                    s1[e]);
  }
  ck_assert_msg(lr[0] != lr[1], "seeds 21 and 22 drew the same lr %g", lr[0]);
  dlca_population_free(P);
}

START_TEST(test_jitter_parity_ref) { jitter_parity(NULL); }
END_TEST

START_TEST(test_jitter_parity_cl) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  jitter_parity(ctx);
  dlca_context_free(ctx);
}
END_TEST

/* A jitter outside [0, 20] is refused, naming it. */
START_TEST(test_jitter_checked) {
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  tiny(&p, &cfg, &o);
  dlca_population_options po = {.n_models = 1, .gumbel_jitter = -1};
  dlca_population *P = NULL;
  ck_assert_int_eq(dlca_population_new(NULL, &p, NULL, &cfg, NULL, &o, &po, &P), DLCA_EINVAL);
  ck_assert_ptr_null(P);
  ck_assert_msg(strstr(dlca_last_error(), "gumbel_jitter") != NULL, "message: %s", dlca_last_error());
  dlca_train_config c;
  po.gumbel_jitter = 0;
  dlca_population_model_config(&po, &cfg, 5, &c);
  ck_assert(c.optim.lr == cfg.optim.lr && c.relax.temperature == 2 && c.seed == 5);
}
END_TEST

/* Population-based training, 4 models, a round every 2 steps: the worst
 * takes the best's logits and optimizer state (equal right after the
 * round), keeps its seed, gets the best's lr times 0.8 or 1.25 and a
 * lineage; two populations give the same losses. */
static void pbt_run(dlca_context *ctx, double soft[SEL_EPOCHS][4], long *copies) {
  static const uint64_t seeds[4] = {31, 32, 33, 34};
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  tiny(&p, &cfg, &o);
  dlca_population_options po = {.n_models = 4, .seeds = seeds, .pbt_every = 2, .pbt_fraction = 0.25};
  dlca_population *P;
  ck_assert_int_eq(dlca_population_new(ctx, &p, NULL, &cfg, NULL, &o, &po, &P), DLCA_OK);
  for (int e = 0; e < SEL_EPOCHS; e++) {
    dlca_loop_result before[4];
    for (int j = 0; j < 4; j++) dlca_loop_get_result(dlca_population_loop(P, j), &before[j]);
    ck_assert_int_eq(dlca_population_step(P), DLCA_OK);
    dlca_population_losses(P, soft[e]);
    for (int j = 0; j < 4; j++) {
      dlca_population_lineage g;
      dlca_population_get_lineage(P, j, &g);
      ck_assert(dlca_population_seed(P, j) == seeds[j]);
      if (g.copies == 0 || g.from_epoch != (uint64_t)e + 1) continue;
      int d = -1; /* the giver: the slot of from_seed */
      for (int i = 0; i < 4; i++) d = seeds[i] == g.from_seed ? i : d;
      ck_assert_int_ge(d, 0);
      dlca_trainer *tj = dlca_loop_trainer(dlca_population_loop(P, j));
      dlca_trainer *td = dlca_loop_trainer(dlca_population_loop(P, d));
      const size_t n = dlca_trainer_n_params(tj);
      float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n);
      for (size_t slot = 0; slot <= dlca_trainer_state_slots(tj); slot++) {
        if (slot == 0) ck_assert_int_eq(dlca_trainer_get_params(tj, a) | dlca_trainer_get_params(td, b), DLCA_OK);
        else ck_assert_int_eq(dlca_trainer_get_state_slot(tj, slot - 1, a) |
                              dlca_trainer_get_state_slot(td, slot - 1, b), DLCA_OK);
        ck_assert_msg(memcmp(a, b, sizeof(float) * n) == 0, "model %d: slot %zu is not model %d's", j, slot, d);
      }
      free(a), free(b);
      ck_assert(dlca_trainer_epoch(tj) == (uint64_t)e + 1);
      ck_assert_msg(before[d].hard.hard_loss < before[j].hard.hard_loss || before[j].hard_epoch != (uint64_t)e + 1,
                    "model %d took model %d's copy but was not worse", j, d);
      dlca_train_config cj, cd;
      ck_assert_int_eq(dlca_population_config(P, j, &cj) | dlca_population_config(P, d, &cd), DLCA_OK);
      ck_assert(cj.optim.lr == (float)(cd.optim.lr * 0.8) || cj.optim.lr == (float)(cd.optim.lr * 1.25));
      ck_assert(cj.seed == seeds[j] && g.origin_seed == seeds[d]);
    }
  }
  dlca_population_stats st;
  dlca_population_get_stats(P, &st);
  *copies = st.pbt_copies;
  ck_assert_int_eq((int)st.epochs, 4 * SEL_EPOCHS);
  dlca_population_free(P);
}

static void pbt(dlca_context *ctx) {
  double a[SEL_EPOCHS][4], b[SEL_EPOCHS][4];
  long ca, cb;
  pbt_run(ctx, a, &ca);
  pbt_run(ctx, b, &cb);
  ck_assert_int_ge(ca, 1);
  ck_assert_int_eq(ca, cb);
  ck_assert_msg(memcmp(a, b, sizeof a) == 0, "population-based training is not deterministic");
}

START_TEST(test_pbt_ref) { pbt(NULL); }
END_TEST

START_TEST(test_pbt_cl) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  pbt(ctx);
  dlca_context_free(ctx);
}
END_TEST

/* Repair and evolution of models that are done: on a host thread
 * (polish_inline 0) or inline, every model ends with the circuit of its
 * single run (dlca_loop_finish, _polish, _eval_fresh). */
static void polish_run(dlca_context *ctx, int inline_, float **logits, size_t *n, int *states) {
  static const uint64_t seeds[3] = {41, 42, 43};
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  tiny(&p, &cfg, &o);
  o.repair = 2, o.evolve = 16, o.evolve_lineages = 8, o.eval_fresh = 1;
  dlca_population_options po = {.n_models = 3, .seeds = seeds, .polish_inline = inline_};
  dlca_population *P;
  ck_assert_int_eq(dlca_population_new(ctx, &p, NULL, &cfg, NULL, &o, &po, &P), DLCA_OK);
  for (int k = 0; k < 100 && dlca_population_running(P); k++) ck_assert_int_eq(dlca_population_step(P), DLCA_OK);
  ck_assert_int_eq(dlca_population_running(P), 0);
  for (int j = 0; j < 3; j++) {
    dlca_trainer *t = dlca_loop_trainer(dlca_population_loop(P, j));
    *n = dlca_trainer_n_params(t);
    logits[j] = malloc(sizeof(float) * *n);
    ck_assert_int_eq(dlca_trainer_get_params(t, logits[j]), DLCA_OK);
    states[j] = dlca_population_model_state(P, j);
    dlca_loop_result w;
    dlca_loop_get_result(dlca_population_loop(P, j), &w);
    ck_assert_msg(w.have_repair && w.have_fresh, "model %d: no repair or fresh check", j);
  }
  dlca_population_free(P);
}

static void polish(dlca_context *ctx) {
  float *a[3], *b[3];
  size_t n;
  int sa[3], sb[3];
  polish_run(ctx, 0, a, &n, sa);
  polish_run(ctx, 1, b, &n, sb);
  for (int j = 0; j < 3; j++) {
    ck_assert_int_eq(sa[j], sb[j]);
    ck_assert_msg(memcmp(a[j], b[j], sizeof(float) * n) == 0, "model %d: the thread's repair differs", j);
    /* the single run of seed 41 + j */
    dlca_preset p;
    dlca_train_config cfg;
    dlca_loop_options o;
    tiny(&p, &cfg, &o);
    o.repair = 2, o.evolve = 16, o.evolve_lineages = 8, o.eval_fresh = 1;
    o.seed = 41 + (uint64_t)j;
    const dlca_population_options po = {.n_models = 1};
    dlca_train_config mc; /* the population's model of that seed */
    dlca_population_model_config(&po, &cfg, o.seed, &mc);
    dlca_model *m;
    dlca_loop *l;
    ck_assert_int_eq(dlca_model_new(&p.shape, mc.seed, &m), DLCA_OK);
    ck_assert_int_eq(dlca_loop_new(ctx, &p, m, &mc, NULL, &o, &l), DLCA_OK);
    for (int e = 0; e < SEL_EPOCHS; e++) ck_assert_int_eq(dlca_loop_epoch(l), DLCA_OK);
    ck_assert_int_eq(dlca_loop_finish(l), DLCA_OK);
    ck_assert_int_eq(dlca_loop_polish(l), DLCA_OK);
    float *c = malloc(sizeof(float) * n);
    ck_assert_int_eq(dlca_trainer_get_params(dlca_loop_trainer(l), c), DLCA_OK);
    ck_assert_msg(memcmp(a[j], c, sizeof(float) * n) == 0, "model %d: not its single run's circuit", j);
    free(c), free(a[j]), free(b[j]);
    dlca_loop_free(l);
    dlca_model_free(m);
  }
}

START_TEST(test_polish_thread_ref) { polish(NULL); }
END_TEST

START_TEST(test_polish_thread_cl) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  polish(ctx);
  dlca_context_free(ctx);
}
END_TEST

/* accept: gol seed 104 with the recipe is right on all 512 boards at epoch
 * 1900 (tests/dlca-train-measure.sh); an accept that says no makes it
 * wrong, called once, with the model's final circuit in its trainer. */
static int accepts_seen;
static int say_no(void *user, dlca_population *P, int j, int *right) {
  (void)user;
  dlca_loop_result w;
  dlca_loop_get_result(dlca_population_loop(P, j), &w);
  ck_assert(w.have_fresh && w.fresh.errors == 0 && *right == 1);
  accepts_seen++, *right = 0;
  return DLCA_OK;
}

START_TEST(test_accept_cl) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  const dlca_recipe *q;
  ck_assert_int_eq(dlca_preset_get("gol", &p), DLCA_OK);
  dlca_train_config_from_preset(&p, &cfg);
  dlca_loop_options_default(&o);
  ck_assert_int_eq(dlca_recipe_for("gol", DLCA_PARAM_SOFTMAX16, &q), DLCA_OK);
  ck_assert_int_eq(dlca_recipe_apply(q, &p, 0, &cfg, &o), DLCA_OK);
  o.epochs = 2000, o.eval_fresh = 100;
  static const uint64_t seed[1] = {104};
  dlca_population_options po = {.n_models = 1, .seeds = seed, .accept = say_no};
  dlca_population *P;
  ck_assert_int_eq(dlca_population_new(ctx, &p, NULL, &cfg, NULL, &o, &po, &P), DLCA_OK);
  accepts_seen = 0;
  while (dlca_population_running(P)) ck_assert_int_eq(dlca_population_step(P), DLCA_OK);
  ck_assert_int_eq(accepts_seen, 1);
  ck_assert_int_eq(dlca_population_model_state(P, 0), DLCA_POP_WRONG);
  dlca_population_stats st;
  dlca_population_get_stats(P, &st);
  ck_assert_int_eq(st.winner, -1);
  ck_assert_int_eq((int)st.winner_epoch, 0);
  dlca_loop_result w;
  dlca_loop_get_result(dlca_population_loop(P, 0), &w);
  ck_assert_int_eq((int)w.epoch, 1900);
  dlca_population_free(P);
  dlca_context_free(ctx);
}
END_TEST

Suite *suite_population_sel(void) {
  Suite *s = suite_create("population_sel");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_jitter_parity_ref);
  tcase_add_test(tc, test_jitter_parity_cl);
  tcase_add_test(tc, test_jitter_checked);
  tcase_add_test(tc, test_pbt_ref);
  tcase_add_test(tc, test_pbt_cl);
  tcase_add_test(tc, test_polish_thread_ref);
  tcase_add_test(tc, test_polish_thread_cl);
  tcase_add_test(tc, test_accept_cl);
  suite_add_tcase(s, tc);
  return s;
}
