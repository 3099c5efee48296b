/* The working recipe of dlca_cl/recipe.h: the preset targets and the image
 * reader's bounds, the recipe table, the abandon lists, and the training
 * loop, which with the paper's protocol must give the bare trainer's
 * losses bit for bit. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dlca_cl.h"
#include "util.h"

START_TEST(test_targets) {
  dlca_preset p;
  float *y = NULL;
  ck_assert_int_eq(dlca_preset_get("checkerboard", &p), DLCA_OK);
  ck_assert_int_eq(dlca_preset_target(&p, p.shape.channels, NULL, &y), DLCA_OK);
  const int C = p.shape.channels;
  ck_assert_float_eq(y[0], 0.0f);
  ck_assert_float_eq(y[2 * C], 1.0f);                        /* (0, 2) */
  ck_assert_float_eq(y[((size_t)2 * p.width + 2) * C], 0.0f); /* (2, 2) */
  ck_assert_float_eq(y[1], 0.0f);                            /* channel 1 stays 0 */
  free(y);
  ck_assert_int_eq(dlca_preset_target(&p, C, "x.png", &y), DLCA_EINVAL);
  ck_assert_ptr_null(y);
  ck_assert_int_eq(dlca_preset_get("gol", &p), DLCA_OK);
  ck_assert_int_eq(dlca_preset_is_gol(&p), 1);
  ck_assert_int_eq(dlca_preset_target(&p, 1, NULL, &y), DLCA_EINVAL);
  ck_assert_int_eq(dlca_preset_get("growth", &p), DLCA_OK);
  ck_assert_int_eq(dlca_preset_target(&p, p.shape.channels, NULL, &y), DLCA_OK); /* the built-in lizard */
  free(y);
}
END_TEST

/* Issue 35: a header may not claim more than the file holds, nor gigabytes. */
START_TEST(test_image_bounds) {
  const char *dir = tu_tmpdir("recipe");
  dlca_preset p;
  float *y = NULL;
  ck_assert_int_eq(dlca_preset_get("growth", &p), DLCA_OK);
  const char *big = tu_write(dir, "big.pbm", "P110301\n13111\n111");
  ck_assert_int_eq(dlca_preset_target(&p, p.shape.channels, big, &y), DLCA_EPARSE);
  ck_assert_msg(strstr(dlca_last_error(), "out of range"), "%s", dlca_last_error());
  const char *tall = tu_write(dir, "tall.pbm", "P1 20 20\n0101");
  ck_assert_int_eq(dlca_preset_target(&p, p.shape.channels, tall, &y), DLCA_EPARSE);
  ck_assert_msg(strstr(dlca_last_error(), "truncated"), "%s", dlca_last_error());
  ck_assert_int_eq(dlca_preset_target(&p, p.shape.channels, "/nonexistent/t.png", &y), DLCA_EIO);
  ck_assert_ptr_null(y);
}
END_TEST

START_TEST(test_recipes) {
  const dlca_recipe *q = NULL;
  ck_assert_int_eq(dlca_recipe_for("growth", DLCA_PARAM_SOFTMAX16, &q), DLCA_OK);
  ck_assert_int_eq((int)q->repair, 2);
  ck_assert_ptr_nonnull(q->abandon);
  ck_assert_int_eq(dlca_recipe_for("checkerboard", DLCA_PARAM_IWP, &q), DLCA_EUNSUPPORTED);
  ck_assert_ptr_null(q);
  size_t n = 0;
  while (dlca_recipe_at(n)) n++;
  ck_assert_int_ge((int)n, 4);
  char buf[256];
  dlca_recipe_describe(dlca_recipe_at(0), 1, buf, sizeof buf);
  ck_assert_msg(strstr(buf, "--temperature 2"), "%s", buf);
  /* applied: the recipe's batch, schedule and stopping, and the abandon points only for a chain */
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  ck_assert_int_eq(dlca_preset_get("growth", &p), DLCA_OK);
  dlca_train_config_from_preset(&p, &cfg);
  dlca_loop_options_default(&o);
  ck_assert_int_eq(dlca_recipe_for("growth", DLCA_PARAM_SOFTMAX16, &q), DLCA_OK);
  ck_assert_int_eq(dlca_recipe_apply(q, &p, 0, &cfg, &o), DLCA_OK);
  ck_assert_int_eq(o.n_abandon, 0);
  ck_assert_int_eq(o.keep_best, 1);
  ck_assert_int_eq((int)o.early_stop, 1);
  ck_assert_int_eq((int)o.eval_every, 2);
  ck_assert_int_eq((int)o.epochs, p.epochs);
  ck_assert_int_eq(dlca_recipe_apply(q, &p, 1, &cfg, &o), DLCA_OK);
  ck_assert_int_eq(o.n_abandon, 4);
  ck_assert_int_eq((int)o.abandon_epoch[0], 250);
  ck_assert_double_eq(o.abandon_above[0], 75);
  ck_assert_int_eq((int)o.abandon_epoch[3], 1500);
  ck_assert_double_eq(o.abandon_above[3], 10);
}
END_TEST

START_TEST(test_abandon_lists) {
  dlca_loop_options o;
  dlca_loop_options_default(&o);
  ck_assert_int_eq(dlca_loop_parse_abandon("750:25,1500:10", &o), DLCA_OK);
  ck_assert_int_eq(o.n_abandon, 2);
  ck_assert_int_eq((int)o.abandon_epoch[1], 1500);
  ck_assert_double_eq(o.abandon_above[1], 10);
  ck_assert_int_eq(dlca_loop_parse_abandon("2:1,1:1", &o), DLCA_EINVAL);
  ck_assert_int_eq(dlca_loop_parse_abandon("", &o), DLCA_EINVAL);
  ck_assert_int_eq(dlca_loop_parse_abandon("5:1,", &o), DLCA_EINVAL);
  ck_assert_int_eq(dlca_loop_parse_abandon("0:1", &o), DLCA_EINVAL);
}
END_TEST

static int count_events(void *user, const dlca_loop_event *ev) {
  int *n = user;
  if (ev->kind == DLCA_LOOP_COOLDOWN) ck_assert_double_lt(ev->new_lr, ev->old_lr);
  (*n)++;
  return 0;
}

/* A tiny checkerboard: 2 grids, 4 steps, on the CPU reference. */
static void tiny(dlca_preset *p, dlca_train_config *cfg, dlca_model **m) {
  ck_assert_int_eq(dlca_preset_get("checkerboard", p), DLCA_OK);
  dlca_train_config_from_preset(p, cfg);
  cfg->batch = 2, cfg->steps = 4, cfg->seed = 7;
  ck_assert_int_eq(dlca_model_new(&p->shape, 7, m), DLCA_OK);
}

/* The paper's protocol through the loop is the bare trainer, bit for bit;
 * evaluations come every eval_every epochs and at the last. */
START_TEST(test_loop_is_the_trainer) {
  dlca_preset p;
  dlca_train_config cfg;
  dlca_model *m;
  tiny(&p, &cfg, &m);
  dlca_loop_options o;
  dlca_loop_options_default(&o);
  o.epochs = 5, o.eval_every = 2;
  dlca_loop *l;
  ck_assert_int_eq(dlca_loop_new(NULL, &p, m, &cfg, NULL, &o, &l), DLCA_OK);
  dlca_trainer *t;
  float *y;
  ck_assert_int_eq(dlca_trainer_new(NULL, m, &cfg, &t), DLCA_OK);
  ck_assert_int_eq(dlca_preset_target(&p, p.shape.channels, NULL, &y), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_set_target(t, y, 0), DLCA_OK);
  free(y);
  dlca_loop_result r;
  int evaluations = 0;
  for (int e = 1; e <= 5; e++) {
    double soft;
    ck_assert_int_eq(dlca_loop_epoch(l), DLCA_OK);
    ck_assert_int_eq(dlca_trainer_step(t), DLCA_OK);
    ck_assert_int_eq(dlca_trainer_loss(t, &soft), DLCA_OK);
    dlca_loop_get_result(l, &r);
    ck_assert_int_eq((int)r.epoch, e);
    ck_assert_msg(r.soft == soft, "epoch %d: loop %.9g, trainer %.9g", e, r.soft, soft);
    evaluations += r.evaluated;
    ck_assert_int_eq(r.evaluated, e % 2 == 0 || e == 5);
    ck_assert_int_eq(r.done, e == 5);
  }
  ck_assert_int_eq(evaluations, 3);
  dlca_eval ev;
  ck_assert_int_eq(dlca_trainer_eval_hard(t, &ev), DLCA_OK);
  ck_assert_double_eq(r.hard.hard_loss, ev.hard_loss);
  ck_assert_int_eq(dlca_loop_finish(l), DLCA_OK);
  ck_assert_int_eq(dlca_loop_polish(l), DLCA_OK);
  dlca_loop_get_result(l, &r);
  ck_assert_int_eq((int)r.hard_epoch, 5);
  ck_assert_int_eq(r.have_best + r.have_repair + r.have_fresh, 0);
  dlca_trainer_free(t);
  dlca_loop_free(l);
  dlca_model_free(m);
}
END_TEST

/* Cooldown with a one-epoch plateau, keep-best and early stop. */
START_TEST(test_loop_cooldown_keep_best) {
  dlca_preset p;
  dlca_train_config cfg;
  dlca_model *m;
  tiny(&p, &cfg, &m);
  dlca_loop_options o;
  dlca_loop_options_default(&o);
  o.epochs = 8, o.eval_every = 1, o.lr_schedule = DLCA_LR_COOLDOWN, o.plateau = 1, o.max_cooldowns = 2;
  o.keep_best = 1, o.eval_fresh = 2, o.seed = 7;
  dlca_loop *l;
  ck_assert_int_eq(dlca_loop_new(NULL, &p, m, &cfg, NULL, &o, &l), DLCA_OK);
  int events = 0;
  dlca_loop_set_events(l, count_events, &events);
  dlca_loop_result r;
  do {
    ck_assert_int_eq(dlca_loop_epoch(l), DLCA_OK);
    dlca_loop_get_result(l, &r);
  } while (!r.done);
  ck_assert_int_eq(events, r.cooldowns);
  ck_assert_int_le(r.cooldowns, 2);
  ck_assert_int_eq(r.have_best, 1);
  ck_assert_double_le(r.best_hard, r.min_hard);
  ck_assert_int_eq(dlca_loop_finish(l), DLCA_OK);
  ck_assert_int_eq(dlca_loop_polish(l), DLCA_OK);
  ck_assert_int_eq(dlca_loop_eval_fresh(l), DLCA_OK);
  dlca_loop_get_result(l, &r);
  ck_assert_int_eq(r.have_fresh, 1);
  ck_assert_int_eq(dlca_loop_fresh_ok(l), r.fresh.errors == 0);
  dlca_loop_free(l);
  dlca_model_free(m);
}
END_TEST

Suite *suite_recipe(void) {
  Suite *s = suite_create("recipe");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_targets);
  tcase_add_test(tc, test_image_bounds);
  tcase_add_test(tc, test_recipes);
  tcase_add_test(tc, test_abandon_lists);
  tcase_add_test(tc, test_loop_is_the_trainer);
  tcase_add_test(tc, test_loop_cooldown_keep_best);
  suite_add_tcase(s, tc);
  return s;
}
