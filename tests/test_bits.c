/* The hard circuit on packed bits (lib/ref/bits.c) against its oracle, the
 * float CPU reference with hard gates: final states bit for bit, hard loss
 * and errors exactly, on fresh random circuits (random logits, so that every
 * op occurs), random 0/1 start grids and random targets; sync and async,
 * periodic or not, softmax-16 and IWP, the small shapes and two presets.
 * Variants scored together must equal the same circuits run one by one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl_util.h"
#include "util.h"

/* Random 0/1 grids from seed (some of each). */
static void random_bits01(float *x, size_t n, uint64_t seed) {
  for (size_t i = 0; i < n; i++) x[i] = (float)(dlca_rng_u32(seed, 3, (uint32_t)i) >> 31);
}

static dlca_model *random_model(const dlca_model_shape *s, uint64_t seed) {
  dlca_model *m;
  ck_assert_msg(dlca_model_new(s, seed, &m) == DLCA_OK, "%s", dlca_last_error());
  tu_random(dlca_model_params(m), dlca_model_n_params(m), -3.0f, 3.0f, seed ^ 0xB175u);
  return m;
}

/* The trainer's hard evaluation of a state (lib/train/trainer.c). */
static dlca_eval eval_of(const dlca_run *run, int C, const float *s, const float *y) {
  dlca_eval e;
  memset(&e, 0, sizeof e);
  const size_t cells = (size_t)run->batch * run->height * run->width;
  for (size_t i = 0; i < cells; i++)
    for (int j = 0; j < run->n_loss_channels; j++) {
      const size_t k = i * C + run->loss_channels[j];
      const double d = (double)s[k] - y[k];
      e.hard_loss += d * d;
      e.errors += fabs(d) >= 0.5;
    }
  e.total = cells * (size_t)run->n_loss_channels;
  return e;
}

/* One case: bits against dlca_ref_forward(hard = 1). */
static void check_case(const dlca_model *m, const dlca_run *run, uint64_t seed, const char *what) {
  dlca_model_shape s;
  dlca_model_get_shape(m, &s);
  const size_t n = (size_t)run->batch * run->height * run->width * s.channels;
  float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
  float *ref = malloc(sizeof(float) * n), *got = malloc(sizeof(float) * n);
  ck_assert(x && y && ref && got);
  random_bits01(x, n, seed);
  tu_random(y, n, 0.0f, 1.0f, seed + 1); /* fractional targets: the loss is not the error count */
  for (size_t i = 0; i < n; i += 3) y[i] = (float)(y[i] > 0.5f);
  ck_assert_msg(dlca_ref_forward(m, run, x, 1, NULL, ref, NULL) == DLCA_OK, "%s", dlca_last_error());
  dlca_bits *b;
  ck_assert_msg(dlca_bits_new(m, run, x, y, &b) == DLCA_OK, "%s: %s", what, dlca_last_error());
  dlca_eval e;
  ck_assert_int_eq(dlca_bits_run(b, &e, got), DLCA_OK);
  size_t ones = 0, diff = 0;
  for (size_t i = 0; i < n; i++) ones += ref[i] == 1.0f, diff += ref[i] != got[i];
  ck_assert_msg(diff == 0, "%s: %zu of %zu state values differ from the reference", what, diff, n);
  ck_assert_msg(ones > 0 && ones < n, "%s: a constant final state (%zu ones of %zu) tests little", what, ones, n);
  const dlca_eval r = eval_of(run, s.channels, ref, y);
  ck_assert_msg(e.hard_loss == r.hard_loss && e.errors == r.errors && e.total == r.total,
                "%s: loss %.17g errors %zu/%zu, reference %.17g %zu/%zu", what, e.hard_loss, e.errors, e.total,
                r.hard_loss, r.errors, r.total);
  dlca_bits_free(b);
  free(x), free(y), free(ref), free(got);
}

START_TEST(test_bits_small) {
  /* _i: bit 0 periodic, bit 1 async, bit 2 IWP, bit 3 explicit fire masks */
  const int periodic = _i & 1, async = (_i >> 1) & 1, iwp = (_i >> 2) & 1, explicit = (_i >> 3) & 1;
  if (explicit && !async) return;
  dlca_model_shape s = tu_small_shape(3, 3, (_i ^ (_i >> 1)) & 1, periodic, 1, DLCA_WIRING_RANDOM);
  s.parametrisation = iwp ? DLCA_PARAM_IWP : DLCA_PARAM_SOFTMAX16;
  dlca_model *m = random_model(&s, 100 + (uint64_t)_i);
  /* 5x7: rows that straddle words; batch 3: grids that straddle words too */
  dlca_run run = dlca_run_default(3, 5, 7, 4);
  run.async = async, run.mask_key = 0xA5A5u + (uint64_t)_i;
  run.n_loss_channels = 2, run.loss_channels[0] = 0, run.loss_channels[1] = 2;
  uint8_t *masks = NULL;
  if (explicit) {
    masks = malloc(4 * 3 * 5 * 7);
    for (int i = 0; i < 4 * 3 * 5 * 7; i++) masks[i] = (uint8_t)(dlca_rng_u32(9, 1, (uint32_t)i) >> 31);
    run.fire_masks = masks;
  }
  char what[96];
  snprintf(what, sizeof what, "periodic %d async %d iwp %d explicit masks %d", periodic, async, iwp, explicit);
  check_case(m, &run, 500 + (uint64_t)_i, what);
  /* a grid of more than 64 cells per row, and a single-cell grid */
  dlca_run wide = dlca_run_default(2, 3, 70, 3);
  wide.async = async, wide.mask_key = 77, wide.fire_masks = NULL;
  check_case(m, &wide, 600 + (uint64_t)_i, what);
  free(masks);
  dlca_model_free(m);
}
END_TEST

/* The real shapes of three presets, with their own runs (at most 6 steps):
 * colour's three loss channels, the async checkerboard's drawn fire masks,
 * growth's 128 channels on a periodic grid. */
START_TEST(test_bits_presets) {
  static const char *const names[] = {"colour", "checkerboard-async", "growth"};
  dlca_preset p;
  ck_assert_int_eq(dlca_preset_get(names[_i], &p), DLCA_OK);
  dlca_model *m0;
  ck_assert_int_eq(dlca_model_new_preset(names[_i], 3, &m0), DLCA_OK);
  dlca_model_shape s;
  dlca_model_get_shape(m0, &s);
  dlca_model_free(m0);
  dlca_model *m = random_model(&s, 7 + (uint64_t)_i);
  dlca_run run = dlca_run_default(p.batch, p.height, p.width, p.steps < 6 ? p.steps : 6);
  run.async = p.async, run.fire_rate = p.fire_rate, run.mask_key = 12345;
  run.n_loss_channels = p.n_loss_channels;
  memcpy(run.loss_channels, p.loss_channels, sizeof run.loss_channels);
  check_case(m, &run, 900 + (uint64_t)_i, names[_i]);
  dlca_model_free(m);
}
END_TEST

/* run_variants equals set_op + run, variant by variant: more variants than
 * one pass holds, several on one gate, perception and update gates. */
START_TEST(test_bits_variants) {
  dlca_model_shape s = tu_small_shape(3, 3, 0, 1, 1, DLCA_WIRING_RANDOM);
  dlca_model *m = random_model(&s, 41);
  /* random ops collapse a grid to a constant within a few steps: 2 steps,
   * the loss on every channel */
  dlca_run run = dlca_run_default(1, 4, 5, 2);
  run.n_loss_channels = 3, run.loss_channels[1] = 1, run.loss_channels[2] = 2;
  const size_t n = (size_t)4 * 5 * 3;
  float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
  random_bits01(x, n, 5);
  tu_random(y, n, 0.0f, 1.0f, 6);
  dlca_bits *b;
  ck_assert_int_eq(dlca_bits_new(m, &run, x, y, &b), DLCA_OK);
  const size_t G = dlca_bits_n_gates(b), nv = 150;
  size_t gates[150];
  uint8_t ops[150];
  dlca_eval got[150];
  for (size_t i = 0; i < nv; i++) {
    /* the first 20 on one gate, then every other one among the last 30 gates
     * (the last update layers, which reach the state), the rest anywhere */
    gates[i] = i < 20 ? G - 2 : dlca_rng_u32(11, 2, (uint32_t)i) % (i % 2 ? 30 : G) + (i % 2 ? G - 30 : 0);
    ops[i] = (uint8_t)(i < 20 ? i % 16 : dlca_rng_u32(11, 3, (uint32_t)i) % 16);
  }
  ck_assert_int_eq(dlca_bits_run_variants(b, nv, NULL, gates, ops, got), DLCA_OK);
  size_t distinct = 0;
  dlca_eval base;
  ck_assert_int_eq(dlca_bits_run(b, &base, NULL), DLCA_OK);
  for (size_t i = 0; i < nv; i++) {
    const int keep = dlca_bits_op(b, gates[i]);
    ck_assert_int_eq(dlca_bits_set_op(b, gates[i], ops[i]), DLCA_OK);
    dlca_eval e;
    ck_assert_int_eq(dlca_bits_run(b, &e, NULL), DLCA_OK);
    ck_assert_int_eq(dlca_bits_set_op(b, gates[i], keep), DLCA_OK);
    ck_assert_msg(e.errors == got[i].errors && e.hard_loss == got[i].hard_loss,
                  "variant %zu (gate %zu op %d): %zu errors together, %zu alone", i, gates[i], ops[i],
                  got[i].errors, e.errors);
    distinct += e.hard_loss != base.hard_loss;
  }
  ck_assert_msg(distinct > 10, "only %zu of %zu variants change the hard loss", distinct, nv);
  /* three changes a variant (50 variants of the same draws), some on one gate twice */
  const int k = 3;
  size_t first[51];
  for (size_t i = 0; i <= nv / k; i++) first[i] = i * k;
  ck_assert_int_eq(dlca_bits_run_variants(b, nv / k, first, gates, ops, got), DLCA_OK);
  for (size_t i = 0; i < nv / k; i++) {
    int keep[3];
    for (int j = 0; j < k; j++) keep[j] = dlca_bits_op(b, gates[i * k + j]);
    for (int j = 0; j < k; j++) ck_assert_int_eq(dlca_bits_set_op(b, gates[i * k + j], ops[i * k + j]), DLCA_OK);
    dlca_eval e;
    ck_assert_int_eq(dlca_bits_run(b, &e, NULL), DLCA_OK);
    for (int j = k; j-- > 0;) ck_assert_int_eq(dlca_bits_set_op(b, gates[i * k + j], keep[j]), DLCA_OK);
    ck_assert_msg(e.errors == got[i].errors && e.hard_loss == got[i].hard_loss,
                  "variant %zu of %d changes: %zu errors together, %zu alone", i, k, got[i].errors, e.errors);
  }
  dlca_bits_free(b);
  free(x), free(y);
  dlca_model_free(m);
}
END_TEST

/* Liveness: a gate that dlca_bits_live_gates leaves out cannot change the
 * loss, whatever op it gets; some gates are live and some are not, and the
 * changed circuit keeps the loss channels' state. _i: async, periodic. */
START_TEST(test_bits_live) {
  dlca_model_shape s = tu_small_shape(3, 3, 1, _i, 1, DLCA_WIRING_RANDOM);
  dlca_model *m = random_model(&s, 45 + (uint64_t)_i);
  dlca_run run = dlca_run_default(2, 5, 6, 3);
  run.async = _i, run.mask_key = 3;
  run.n_loss_channels = 1, run.loss_channels[0] = 1;
  const size_t n = (size_t)2 * 5 * 6 * 3;
  float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
  random_bits01(x, n, 13);
  tu_random(y, n, 0.0f, 1.0f, 14);
  dlca_bits *b;
  ck_assert_int_eq(dlca_bits_new(m, &run, x, y, &b), DLCA_OK);
  const size_t G = dlca_bits_n_gates(b);
  uint8_t *live = malloc(G), *ops = malloc(16 * G);
  size_t *gates = malloc(sizeof(size_t) * 16 * G), nd = 0;
  const size_t nl = dlca_bits_live_gates(b, live);
  ck_assert_msg(nl > 0 && nl < G, "%zu of %zu gates live", nl, G);
  for (size_t g = 0; g < G; g++)
    if (!live[g])
      for (int op = 0; op < 16; op++) gates[nd] = g, ops[nd++] = (uint8_t)op;
  dlca_eval base, *ev = malloc(sizeof(dlca_eval) * nd);
  ck_assert_int_eq(dlca_bits_run(b, &base, NULL), DLCA_OK);
  ck_assert_int_eq(dlca_bits_run_variants(b, nd, NULL, gates, ops, ev), DLCA_OK);
  for (size_t i = 0; i < nd; i++)
    ck_assert_msg(ev[i].errors == base.errors && ev[i].hard_loss == base.hard_loss,
                  "dead gate %zu with op %d: loss %.17g, the circuit's %.17g", gates[i], ops[i], ev[i].hard_loss,
                  base.hard_loss);
  /* and every dead gate at once, to its op's complement */
  float *s0 = malloc(sizeof(float) * n), *s1 = malloc(sizeof(float) * n);
  ck_assert_int_eq(dlca_bits_run(b, &base, s0), DLCA_OK);
  for (size_t g = 0; g < G; g++)
    if (!live[g]) ck_assert_int_eq(dlca_bits_set_op(b, g, 15 - dlca_bits_op(b, g)), DLCA_OK);
  dlca_eval all;
  ck_assert_int_eq(dlca_bits_run(b, &all, s1), DLCA_OK);
  ck_assert(all.hard_loss == base.hard_loss);
  for (size_t i = 1; i < n; i += 3) ck_assert_msg(s0[i] == s1[i], "loss channel value %zu changed", i);
  fprintf(stderr, "liveness (async %d): %zu of %zu gates live, %zu dead candidates unchanged\n", _i, nl, G, nd);
  dlca_bits_free(b);
  free(x), free(y), free(live), free(ops), free(gates), free(ev), free(s0), free(s1);
  dlca_model_free(m);
}
END_TEST

/* The trainer's bits give what dlca_trainer_eval_hard gives. */
START_TEST(test_bits_trainer) {
  dlca_model_shape s = tu_small_shape(3, 3, 0, 0, 1, DLCA_WIRING_RANDOM);
  dlca_model *m = random_model(&s, 43);
  dlca_train_config cfg = tu_small_train_config();
  cfg.async = _i;
  dlca_trainer *t;
  ck_assert_int_eq(dlca_trainer_new(NULL, m, &cfg, &t), DLCA_OK);
  dlca_bits *b;
  ck_assert_int_eq(dlca_trainer_bits(t, &b), DLCA_ECONFIG);
  const size_t n = (size_t)cfg.batch * cfg.height * cfg.width * s.channels;
  float *y = malloc(sizeof(float) * n);
  random_bits01(y, n, 8);
  ck_assert_int_eq(dlca_trainer_set_target(t, y, 1), DLCA_OK);
  for (int e = 0; e < 2; e++) {
    ck_assert_msg(dlca_trainer_bits(t, &b) == DLCA_OK, "%s", dlca_last_error());
    dlca_eval want, got;
    ck_assert_int_eq(dlca_trainer_eval_hard(t, &want), DLCA_OK);
    ck_assert_int_eq(dlca_bits_run(b, &got, NULL), DLCA_OK);
    ck_assert_msg(got.errors == want.errors && got.hard_loss == want.hard_loss,
                  "epoch %d: bits %zu errors, trainer %zu", e, got.errors, want.errors);
    dlca_bits_free(b);
    ck_assert_int_eq(dlca_trainer_step(t), DLCA_OK);
  }
  dlca_trainer_free(t);
  dlca_model_free(m);
  free(y);
}
END_TEST

/* dlca_parity_bits (dlca-parity --backend bits): the library's own check of
 * the packed bits against the reference, on its random cases. */
START_TEST(test_bits_parity_fn) {
  dlca_model_shape s = tu_small_shape(3, 3, 1, 1, 1, DLCA_WIRING_RANDOM);
  dlca_model *m;
  ck_assert_int_eq(dlca_model_new(&s, 46, &m), DLCA_OK);
  dlca_run run = dlca_run_default(2, 5, 7, 3);
  run.async = 1;
  dlca_parity_report r;
  ck_assert_msg(dlca_parity_bits(m, &run, 4, 9, &r) == DLCA_OK, "%s", dlca_last_error());
  ck_assert(r.all_pass);
  ck_assert(r.tolerance[DLCA_Q_HARD_STATE] == 0 && r.tolerance[DLCA_Q_HARD_LOSS] == 0);
  ck_assert(r.tolerance[DLCA_Q_GRAD] < 0 && r.tolerance[DLCA_Q_SOFT_STATE] < 0); /* not compared */
  ck_assert_int_eq(dlca_parity_bits(m, &run, 0, 9, &r), DLCA_EINVAL);
  dlca_model_free(m);
}
END_TEST

/* Bad input: non-binary start grids, gates and ops out of range. */
START_TEST(test_bits_errors) {
  dlca_model_shape s = tu_small_shape(3, 3, 0, 0, 1, DLCA_WIRING_RANDOM);
  dlca_model *m = random_model(&s, 44);
  dlca_run run = dlca_run_default(1, 3, 3, 2);
  float x[27], y[27];
  random_bits01(x, 27, 1);
  random_bits01(y, 27, 2);
  x[13] = 0.5f;
  dlca_bits *b;
  ck_assert_int_eq(dlca_bits_new(m, &run, x, y, &b), DLCA_EINVAL);
  ck_assert_msg(strstr(dlca_last_error(), "cell 4, channel 1") && strstr(dlca_last_error(), "0.5"), "%s",
                dlca_last_error());
  x[13] = 1.0f;
  run.loss_channels[0] = 7;
  ck_assert_int_eq(dlca_bits_new(m, &run, x, y, &b), DLCA_ECONFIG);
  run.loss_channels[0] = 0;
  ck_assert_int_eq(dlca_bits_new(m, &run, x, y, &b), DLCA_OK);
  const size_t G = dlca_bits_n_gates(b);
  ck_assert_int_eq(dlca_bits_set_op(b, G, 3), DLCA_EINVAL);
  ck_assert_int_eq(dlca_bits_set_op(b, 0, 16), DLCA_EINVAL);
  ck_assert_int_eq(dlca_bits_op(b, G), -1);
  size_t g = G;
  uint8_t op = 1;
  dlca_eval e;
  ck_assert_int_eq(dlca_bits_run_variants(b, 1, NULL, &g, &op, &e), DLCA_EINVAL);
  ck_assert_msg(strstr(dlca_last_error(), "variant 0"), "%s", dlca_last_error());
  dlca_bits_free(b);
  dlca_model_free(m);
}
END_TEST

/* dlca_trainer_eval_fresh_bits: what dlca_trainer_eval_hard_fresh gives on
 * fresh batches of random start grids and async fire masks, fractional
 * targets: errors and totals exactly, the loss exactly against the
 * reference and to float rounding against a device (its sums are floats). */
static void check_fresh(dlca_context *ctx, int async) {
  dlca_model_shape s = tu_small_shape(3, 3, 0, 0, 1, DLCA_WIRING_RANDOM);
  dlca_model *m = random_model(&s, 47 + (uint64_t)async);
  dlca_train_config cfg = tu_small_train_config();
  cfg.async = async, cfg.start = DLCA_START_RANDOM;
  dlca_trainer *t;
  ck_assert_msg(dlca_trainer_new(ctx, m, &cfg, &t) == DLCA_OK, "%s", dlca_last_error());
  const size_t n = (size_t)cfg.batch * cfg.height * cfg.width * s.channels;
  float *y = malloc(sizeof(float) * n);
  tu_random(y, n, 0.0f, 1.0f, 9);
  ck_assert_int_eq(dlca_trainer_set_target(t, y, 1), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_step(t), DLCA_OK);
  for (uint64_t seed = 1; seed <= 2; seed++) {
    dlca_eval want, got;
    ck_assert_msg(dlca_trainer_eval_hard_fresh(t, seed, 7, &want) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_msg(dlca_trainer_eval_fresh_bits(t, seed, 7, &got) == DLCA_OK, "%s", dlca_last_error());
    const double tol = ctx ? 1e-6 * want.hard_loss : 0.0;
    ck_assert_msg(fabs(got.hard_loss - want.hard_loss) <= tol && got.errors == want.errors &&
                      got.total == want.total && got.accuracy == want.accuracy,
                  "%s async %d seed %llu: bits %.17g %zu/%zu, trainer %.17g %zu/%zu", ctx ? "OpenCL" : "ref", async,
                  (unsigned long long)seed, got.hard_loss, got.errors, got.total, want.hard_loss, want.errors,
                  want.total);
    ck_assert_msg(want.errors > 0 && want.errors < want.total, "degenerate: %zu of %zu", want.errors, want.total);
  }
  ck_assert_int_eq(dlca_trainer_epoch(t), 1);
  dlca_eval e;
  ck_assert_int_eq(dlca_trainer_eval_fresh_bits(t, 1, 0, &e), DLCA_EINVAL);
  dlca_trainer_free(t);
  dlca_model_free(m);
  free(y);
}

START_TEST(test_bits_fresh_ref) { check_fresh(NULL, _i); }
END_TEST

/* The same against PoCL's trainer (one async build). */
START_TEST(test_bits_fresh_cl) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  check_fresh(ctx, 1);
  dlca_context_free(ctx);
}
END_TEST

Suite *suite_bits(void) {
  Suite *s = suite_create("bits");
  TCase *tc = tcase_create("ref");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_bits_small, 0, 16);
  tcase_add_loop_test(tc, test_bits_presets, 0, 3);
  tcase_add_test(tc, test_bits_variants);
  tcase_add_loop_test(tc, test_bits_live, 0, 2);
  tcase_add_loop_test(tc, test_bits_trainer, 0, 2);
  tcase_add_test(tc, test_bits_errors);
  tcase_add_test(tc, test_bits_parity_fn);
  tcase_add_loop_test(tc, test_bits_fresh_ref, 0, 2);
  suite_add_tcase(s, tc);
  TCase *cl = tcase_create("cl");
  tcase_set_timeout(cl, 300);
  tcase_add_test(cl, test_bits_fresh_cl);
  suite_add_tcase(s, cl);
  return s;
}
