/* Issue 6, host side: dlca_trainer_set_lr and dlca_trainer_eval_hard_fresh
 * on the CPU reference and on PoCL (one kernel build: every OpenCL case
 * shares one model and one synchronous configuration), and a CI-sized
 * convergence run of a reduced checkerboard with a cooldown schedule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cl_util.h"
#include "recipe/repair.h"

static dlca_model *model_of(int C, int K, const int *ul, int n_ul, uint64_t seed) {
  dlca_model_shape s;
  memset(&s, 0, sizeof s);
  s.channels = C, s.n_kernels = K;
  int pl[] = {9, 8, 4, 2};
  s.n_perceive_layers = 4;
  memcpy(s.perceive_layers, pl, sizeof pl);
  s.n_update_layers = n_ul;
  memcpy(s.update_layers, ul, sizeof(int) * (size_t)n_ul);
  s.perceive_first_wiring = DLCA_WIRING_FIRST_KERNEL;
  s.wiring = DLCA_WIRING_UNIQUE;
  dlca_model *m;
  ck_assert_msg(dlca_model_new(&s, seed, &m) == DLCA_OK, "%s", dlca_last_error());
  return m;
}

/* 3 channels, 3 kernels, update [21, 24, 12, 6, 3]. */
static dlca_model *small_model(uint64_t seed) {
  static const int ul[] = {3 * (1 + 2 * 3), 24, 12, 6, 3};
  return model_of(3, 3, ul, 5, seed);
}

/* Checkerboard of 2-cell squares on channel 0 of an H x W x C target. */
static void checkerboard(float *y, int H, int W, int C) {
  for (int i = 0; i < H * W; i++)
    for (int c = 0; c < C; c++) y[i * C + c] = c == 0 ? (float)(((i / W) / 2 + (i % W) / 2) & 1) : 0.0f;
}

static dlca_train_config small_config(int async) {
  dlca_train_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.batch = 2, cfg.height = 6, cfg.width = 6, cfg.steps = 4, cfg.async = async, cfg.fire_rate = 0.6f;
  cfg.n_loss_channels = 1;
  cfg.start = DLCA_START_RANDOM;
  cfg.seed = 31;
  cfg.optim = dlca_optim_default();
  return cfg;
}

/* A trainer of small_model on a 6x6 checkerboard; random-ish logits in
 * [-3, 3] when logit_seed != 0, so that the hard circuit is not all
 * pass-through. */
static dlca_trainer *make(dlca_context *ctx, const dlca_model *m, int async, uint64_t logit_seed) {
  dlca_train_config cfg = small_config(async);
  dlca_trainer *t;
  ck_assert_msg(dlca_trainer_new(ctx, m, &cfg, &t) == DLCA_OK, "%s", dlca_last_error());
  float y[6 * 6 * 3];
  checkerboard(y, 6, 6, 3);
  ck_assert_int_eq(dlca_trainer_set_target(t, y, 0), DLCA_OK);
  if (logit_seed) {
    size_t P = dlca_trainer_n_params(t);
    float *p = malloc(sizeof(float) * P);
    tu_random(p, P, -3.0f, 3.0f, logit_seed);
    ck_assert_int_eq(dlca_trainer_set_params(t, p), DLCA_OK);
    free(p);
  }
  return t;
}

static void step(dlca_trainer *t) { ck_assert_msg(dlca_trainer_step(t) == DLCA_OK, "%s", dlca_last_error()); }

static float *params_of(dlca_trainer *t) {
  float *p = malloc(sizeof(float) * dlca_trainer_n_params(t));
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(dlca_trainer_get_params(t, p), DLCA_OK);
  return p;
}

static double max_diff(const float *a, const float *b, size_t n) {
  double d = 0;
  for (size_t i = 0; i < n; i++) d = fmax(d, fabs((double)a[i] - b[i]));
  return d;
}

/* set_lr validates, and the next step moves each logit by about the new lr:
 * the first AdamW step is lr * sign(g) (plus weight decay). */
START_TEST(test_set_lr_ref) {
  dlca_model *m = small_model(3);
  dlca_trainer *t = make(NULL, m, 0, 11);
  ck_assert(dlca_trainer_lr(t) == 0.05f);
  ck_assert_int_eq(dlca_trainer_set_lr(t, 0.0f), DLCA_EINVAL);
  ck_assert_int_eq(dlca_trainer_set_lr(t, -1.0f), DLCA_EINVAL);
  ck_assert_int_eq(dlca_trainer_set_lr(t, NAN), DLCA_EINVAL);
  ck_assert_int_eq(dlca_trainer_set_lr(t, INFINITY), DLCA_EINVAL);
  ck_assert(dlca_trainer_lr(t) == 0.05f);
  ck_assert_int_eq(dlca_trainer_set_lr(t, 0.25f), DLCA_OK);
  ck_assert(dlca_trainer_lr(t) == 0.25f);
  size_t P = dlca_trainer_n_params(t);
  float *p0 = params_of(t);
  step(t);
  float *p1 = params_of(t);
  double moved = 0;
  for (size_t i = 0; i < P; i++) moved = fmax(moved, fabs(p1[i] - p0[i] * (1 - 0.25 * 0.01)));
  ck_assert_msg(moved > 0.2 && moved < 0.2501, "largest step %g, expected about lr = 0.25", moved);
  free(p0), free(p1);
  dlca_trainer_free(t);
  dlca_model_free(m);
}
END_TEST

/* eval_hard_fresh: batch i is epoch i of seed ^ DLCA_FRESH_SEED_XOR; the
 * trainer's own state is untouched, and explicit fire masks are bypassed. */
START_TEST(test_fresh_ref) {
  const int async = _i;
  dlca_model *m = small_model(3);
  dlca_trainer *t = make(NULL, m, async, 12);
  dlca_eval f, one, e;
  ck_assert_msg(dlca_trainer_eval_hard_fresh(t, 5, 3, &f) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq((int)f.total, 3 * 2 * 36);
  ck_assert_int_eq((int)dlca_trainer_epoch(t), 0);
  /* the same batches as a trainer seeded with seed ^ XOR, at epochs 0, 1, 2 */
  dlca_train_config cfg = small_config(async);
  cfg.seed = 5 ^ DLCA_FRESH_SEED_XOR;
  dlca_trainer *u;
  ck_assert_int_eq(dlca_trainer_new(NULL, m, &cfg, &u), DLCA_OK);
  float y[6 * 6 * 3], *p = params_of(t);
  checkerboard(y, 6, 6, 3);
  ck_assert_int_eq(dlca_trainer_set_target(u, y, 0), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_set_params(u, p), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_eval_hard(u, &one), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_eval_hard_fresh(t, 5, 1, &e), DLCA_OK);
  ck_assert_int_eq((int)e.errors, (int)one.errors);
  ck_assert(e.hard_loss == one.hard_loss);
  ck_assert_msg(f.errors > 0 && f.errors < f.total, "random logits, yet %zu of %zu wrong", f.errors, f.total);
  /* explicit masks (all zero: nothing would ever fire) are not used */
  if (async) {
    size_t n = (size_t)cfg.steps * cfg.batch * cfg.height * cfg.width;
    uint8_t *zeros = calloc(n, 1);
    ck_assert_int_eq(dlca_trainer_set_fire_masks(t, zeros), DLCA_OK);
    dlca_eval g;
    ck_assert_int_eq(dlca_trainer_eval_hard_fresh(t, 5, 3, &g), DLCA_OK);
    ck_assert_int_eq((int)g.errors, (int)f.errors);
    ck_assert(g.hard_loss == f.hard_loss);
    ck_assert_int_eq(dlca_trainer_set_fire_masks(t, NULL), DLCA_OK);
    free(zeros);
  }
  ck_assert_int_eq(dlca_trainer_eval_hard_fresh(t, 5, 0, &e), DLCA_EINVAL);
  free(p);
  dlca_trainer_free(u);
  dlca_trainer_free(t);
  dlca_model_free(m);
}
END_TEST

/* A trainer that evaluates on fresh batches between steps takes exactly the
 * steps of one that never does: same losses, same logits, same epoch. */
static void check_state_unchanged(dlca_context *ctx, int async) {
  dlca_model *m = small_model(3);
  dlca_trainer *a = make(ctx, m, async, 0), *b = make(ctx, m, async, 0);
  for (int e = 0; e < 4; e++) {
    dlca_eval f, h0, h1;
    step(a), step(b);
    ck_assert_int_eq(dlca_trainer_eval_hard(a, &h0), DLCA_OK);
    ck_assert_msg(dlca_trainer_eval_hard_fresh(a, 77 + (uint64_t)e, 2, &f) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_int_eq(dlca_trainer_eval_hard(a, &h1), DLCA_OK);
    ck_assert(h0.hard_loss == h1.hard_loss && h0.errors == h1.errors);
    ck_assert_int_eq((int)dlca_trainer_epoch(a), e + 1);
  }
  step(a), step(b);
  double la, lb;
  ck_assert_int_eq(dlca_trainer_loss(a, &la), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_loss(b, &lb), DLCA_OK);
  ck_assert_msg(la == lb, "%s: loss %.17g after fresh evaluations, %.17g without", dlca_trainer_backend(a), la, lb);
  float *pa = params_of(a), *pb = params_of(b);
  ck_assert(memcmp(pa, pb, sizeof(float) * dlca_trainer_n_params(a)) == 0);
  free(pa), free(pb);
  dlca_trainer_free(a);
  dlca_trainer_free(b);
  dlca_model_free(m);
}

START_TEST(test_fresh_state_ref) {
  check_state_unchanged(NULL, 0);
  check_state_unchanged(NULL, 1);
}
END_TEST

/* PoCL: set_lr parity, fresh-evaluation parity and state. One model, one
 * synchronous configuration, so one kernel build (10-25 s on PoCL). */
START_TEST(test_cl) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  dlca_model *m = small_model(3);
  dlca_trainer *r = make(NULL, m, 0, 21), *c = make(ctx, m, 0, 21);
  size_t P = dlca_trainer_n_params(r);
  /* set_lr: each step after a new lr, from the same logits, on both backends */
  static const float lrs[] = {0.3f, 0.01f, 0.12f};
  for (int k = 0; k < 3; k++) {
    ck_assert_int_eq(dlca_trainer_set_lr(r, lrs[k]), DLCA_OK);
    ck_assert_int_eq(dlca_trainer_set_lr(c, lrs[k]), DLCA_OK);
    ck_assert(dlca_trainer_lr(c) == lrs[k]);
    float *before = params_of(r);
    step(r), step(c);
    float *pr = params_of(r), *pc = params_of(c);
    double d = max_diff(pr, pc, P), moved = max_diff(pr, before, P);
    fprintf(stderr, "set_lr %g: ref vs device logits differ by %.2e; largest step %.4f\n", lrs[k], d, moved);
    /* relative to the lr: AdamW moves a logit by about lr g / (|g| + eps), so
     * a gradient near eps that differs in its last bits between backends
     * moves its logit by a fraction of lr (H100: 1.2e-4 at lr 0.3; PoCL 6.5e-5) */
    ck_assert_msg(d <= 1e-3 * lrs[k], "lr %g: ref and the device differ by %g", lrs[k], d);
    ck_assert_msg(moved > 0.5 * lrs[k] && moved < 1.5 * lrs[k] + 0.1, "lr %g: largest step %g", lrs[k], moved);
    /* continue both from identical logits */
    ck_assert_int_eq(dlca_trainer_set_params(c, pr), DLCA_OK);
    free(before), free(pr), free(pc);
  }
  /* fresh evaluation: identical error counts on identical logits */
  for (uint64_t seed = 1; seed <= 3; seed++) {
    dlca_eval fr, fc;
    ck_assert_int_eq(dlca_trainer_eval_hard_fresh(r, seed, 4, &fr), DLCA_OK);
    ck_assert_msg(dlca_trainer_eval_hard_fresh(c, seed, 4, &fc) == DLCA_OK, "%s", dlca_last_error());
    fprintf(stderr, "fresh seed %llu: ref %zu, PoCL %zu of %zu wrong\n", (unsigned long long)seed, fr.errors,
            fc.errors, fc.total);
    ck_assert_int_eq((int)fr.errors, (int)fc.errors);
    ck_assert_int_eq((int)fr.total, (int)fc.total);
    ck_assert(fabs(fr.hard_loss - fc.hard_loss) < 1e-3);
    ck_assert_msg(fr.errors > 0 && fr.errors < fr.total, "degenerate circuit: %zu of %zu wrong", fr.errors, fr.total);
  }
  dlca_trainer_free(r);
  dlca_trainer_free(c);
  dlca_model_free(m);
  check_state_unchanged(ctx, 0);
  dlca_context_free(ctx);
}
END_TEST

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A reduced checkerboard on the CPU reference: C = 4, K = 4, perception
 * [9,8,4,2], update [36, 64, 64, 32, 16, 8, 4], 8x8 grid, 8 steps, batch 2.
 * The schedule is dlca-train's cooldown: lr 0.05, times 0.1 when the hard
 * loss reaches 0 at an evaluation (every 20 epochs), at most twice; done
 * when the hard circuit is right on 10 fresh batches.
 *
 * Found by a search of model seeds (lr 0.05, up to 6000 epochs): seed 2
 * reaches 100% on 10 fresh batches at epoch 340 (about 1 s); other seeds
 * plateau between 82% and 99.8% fresh accuracy within 6000 epochs (the hard
 * circuit of this small a model often keeps a few wrong cells). The run is
 * deterministic, so seed 2 converges every time on the reference. */
static void converge_checkerboard(dlca_context *ctx, const char *where) {
  static const int ul[] = {4 + 4 * 2 * 4, 64, 64, 32, 16, 8, 4};
  const uint64_t seed = 2;
  dlca_model *m = model_of(4, 4, ul, 7, seed);
  dlca_train_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.batch = 2, cfg.height = 8, cfg.width = 8, cfg.steps = 8;
  cfg.n_loss_channels = 1;
  cfg.start = DLCA_START_RANDOM;
  cfg.seed = seed;
  cfg.optim = dlca_optim_default();
  dlca_trainer *t;
  ck_assert_msg(dlca_trainer_new(ctx, m, &cfg, &t) == DLCA_OK, "%s", dlca_last_error());
  float y[8 * 8 * 4];
  checkerboard(y, 8, 8, 4);
  ck_assert_int_eq(dlca_trainer_set_target(t, y, 0), DLCA_OK);
  const int max_epochs = 3000, eval_every = 20;
  int cooldowns = 0, done = 0;
  double last_hard = -1, t0 = seconds();
  dlca_eval fresh = {0};
  for (int e = 1; e <= max_epochs && !done; e++) {
    step(t);
    if (e % eval_every) continue;
    dlca_eval h;
    ck_assert_int_eq(dlca_trainer_eval_hard(t, &h), DLCA_OK);
    if (h.hard_loss == 0) {
      ck_assert_int_eq(dlca_trainer_eval_hard_fresh(t, 1000, 10, &fresh), DLCA_OK);
      if (fresh.errors == 0) {
        fprintf(stderr, "reduced checkerboard (%s): 100%% on 10 fresh batches at epoch %d (%.1f s, %d cooldowns)\n",
                where, e, seconds() - t0, cooldowns);
        done = 1;
      } else if (last_hard != 0 && cooldowns < 2) {
        ck_assert_int_eq(dlca_trainer_set_lr(t, dlca_trainer_lr(t) * 0.1f), DLCA_OK);
        cooldowns++;
      }
    }
    last_hard = h.hard_loss;
  }
  if (!done) {
    ck_assert_int_eq(dlca_trainer_eval_hard_fresh(t, 1000, 10, &fresh), DLCA_OK);
    ck_assert_msg(0, "%s: no 100%% in %d epochs: %zu of %zu wrong on 10 fresh batches", where, max_epochs,
                  fresh.errors, fresh.total);
  }
  ck_assert_int_eq((int)fresh.total, 10 * 2 * 64);
  dlca_trainer_free(t);
  dlca_model_free(m);
}

START_TEST(test_converge_checkerboard) { converge_checkerboard(NULL, "CPU reference"); }
END_TEST

/* The same run on the OpenCL device (PoCL in CI): the whole epoch on the
 * device, float sums in another order, so its own trajectory. */
START_TEST(test_converge_checkerboard_cl) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  converge_checkerboard(ctx, "OpenCL");
  dlca_context_free(ctx);
}
END_TEST

/* dlca-train --repair (lib/recipe/repair.c): the hard op of a gate and setting it,
 * for both parametrisations, on random logits. */
START_TEST(test_repair_ops) {
  float l[16 * 8];
  for (int npg = 4; npg <= 16; npg += 12) {
    tu_random(l, 16 * 8, -3.0f, 3.0f, 77 + (uint64_t)npg);
    for (size_t g = 0; g < 8; g++)
      for (int op = 0; op < 16; op++) {
        const int before = dlca__repair_hard_op(l, npg, (g + 1) % 8);
        dlca__repair_set_op(l, npg, g, op);
        ck_assert_int_eq(dlca__repair_hard_op(l, npg, g), op);
        ck_assert_int_eq(dlca__repair_hard_op(l, npg, (g + 1) % 8), before); /* the other gates keep theirs */
      }
  }
}
END_TEST

/* The search itself, against a score that counts the gates whose op is not
 * a hidden one: one pass finds every op. */
typedef struct hidden_ops {
  int op[6];
  size_t calls;
} hidden_ops;
static int hidden_score(void *ctx, const float *logits, dlca_eval *ev) {
  hidden_ops *h = ctx;
  memset(ev, 0, sizeof *ev);
  ev->total = 6;
  for (size_t g = 0; g < 6; g++) ev->errors += dlca__repair_hard_op(logits, 16, g) != h->op[g];
  ev->hard_loss = (double)ev->errors;
  h->calls++;
  return DLCA_OK;
}
START_TEST(test_repair_search) {
  hidden_ops h = {{3, 0, 15, 6, 9, 3}, 0};
  float l[6 * 16];
  tu_random(l, 6 * 16, -3.0f, 3.0f, 78);
  dlca_repair_result r;
  ck_assert_int_eq(dlca__repair_circuit(l, 6, 16, 3, hidden_score, NULL, &h, &r), DLCA_OK);
  ck_assert_uint_eq(r.after.errors, 0);
  ck_assert_uint_le(r.tried, h.calls); /* a gate's 15 candidates are scored together */
  for (size_t g = 0; g < 6; g++) ck_assert_int_eq(dlca__repair_hard_op(l, 16, g), h.op[g]);
}
END_TEST

/* On a real circuit (the CPU reference): a teacher's hard rollout is the
 * target, a student differs by one gate of the last layer set to its
 * complement (op 15 - op: every output value of that channel flips), and
 * the repair brings the student back to 0 values wrong. */
static int trainer_score(void *ctx, const float *logits, dlca_eval *ev) {
  dlca_trainer *t = ctx;
  int rc = dlca_trainer_set_params(t, logits);
  return rc ? rc : dlca_trainer_eval_hard(t, ev);
}
START_TEST(test_repair_ref) {
  dlca_model *m = small_model(81);
  dlca_train_config cfg = small_config(0);
  cfg.start = DLCA_START_SEED; /* a fixed start: the repair's objective is one rollout */
  dlca_trainer *t;
  ck_assert_msg(dlca_trainer_new(NULL, m, &cfg, &t) == DLCA_OK, "%s", dlca_last_error());
  const size_t P = dlca_trainer_n_params(t), G = P / 16, n = (size_t)cfg.batch * 6 * 6 * 3;
  float *p = malloc(sizeof(float) * P), *y = malloc(sizeof(float) * n);
  tu_random(p, P, -3.0f, 3.0f, 82);
  ck_assert_int_eq(dlca_trainer_set_params(t, p), DLCA_OK);
  memset(y, 0, sizeof(float) * n);
  ck_assert_int_eq(dlca_trainer_set_target(t, y, 1), DLCA_OK); /* any target, for the teacher's rollout */
  dlca_eval ev;
  ck_assert_int_eq(dlca_trainer_eval_hard(t, &ev), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_get_state(t, 1, y), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_set_target(t, y, 1), DLCA_OK);
  const size_t g = G - 3; /* the last layer's first gate: channel 0, the loss channel */
  dlca__repair_set_op(p, 16, g, 15 - dlca__repair_hard_op(p, 16, g));
  /* and two gates of the layers before, so that the search keeps several changes */
  for (size_t k = G - 12; k > G - 30; k -= 9) dlca__repair_set_op(p, 16, k, 15 - dlca__repair_hard_op(p, 16, k));
  /* the same search on the packed-bits circuit of the student */
  ck_assert_int_eq(dlca_trainer_set_params(t, p), DLCA_OK);
  dlca_bits *b;
  ck_assert_msg(dlca_trainer_bits(t, &b) == DLCA_OK, "%s", dlca_last_error());
  dlca_repair_result rb;
  ck_assert_int_eq(dlca__repair_bits(b, 2, NULL, NULL, &rb), DLCA_OK);
  dlca_repair_result r;
  ck_assert_int_eq(dlca__repair_circuit(p, G, 16, 2, trainer_score, NULL, t, &r), DLCA_OK);
  fprintf(stderr, "repair on the reference: %zu -> %zu of %zu values wrong, %zu gates changed, %zu circuits scored\n",
          r.before.errors, r.after.errors, r.after.total, r.changed, r.tried);
  ck_assert_uint_gt(r.before.errors, 0);
  ck_assert_uint_eq(r.after.errors, 0);
  /* the same kept changes, whatever the block size */
  ck_assert_uint_eq(rb.before.errors, r.before.errors);
  ck_assert_uint_eq(rb.after.errors, r.after.errors);
  ck_assert(rb.after.hard_loss == r.after.hard_loss);
  ck_assert_uint_eq(rb.changed, r.changed);
  ck_assert_uint_le(rb.tried, r.tried); /* the packed bits skip the gates that cannot reach the loss */
  for (size_t k = 0; k < G; k++) ck_assert_int_eq(dlca_bits_op(b, k), dlca__repair_hard_op(p, 16, k));
  dlca_bits_free(b);
  free(p), free(y);
  dlca_trainer_free(t);
  dlca_model_free(m);
}
END_TEST

/* --evolve and its clean-up (lib/recipe/repair.c) on the packed bits of a small
 * trainer: the same seed gives the same circuit; the result is never worse
 * than the start; dlca__repair_tidy sets back every changed gate that the result
 * does not need, and keeps its score. */
START_TEST(test_repair_evolve_tidy) {
  dlca_model *m = small_model(83);
  dlca_train_config cfg = small_config(0);
  cfg.start = DLCA_START_SEED;
  dlca_trainer *t;
  ck_assert_int_eq(dlca_trainer_new(NULL, m, &cfg, &t), DLCA_OK);
  const size_t P = dlca_trainer_n_params(t), n = (size_t)cfg.batch * 6 * 6 * 3;
  float *p = malloc(sizeof(float) * P), *y = malloc(sizeof(float) * n);
  tu_random(p, P, -3.0f, 3.0f, 84);
  ck_assert_int_eq(dlca_trainer_set_params(t, p), DLCA_OK);
  checkerboard(y, 6, 6, 3);
  ck_assert_int_eq(dlca_trainer_set_target(t, y, 0), DLCA_OK);
  dlca_bits *b[2];
  dlca_evolve_result r[2];
  const dlca__evolve_params ep = {200, 7, 8, 4, 3, 64};
  for (int k = 0; k < 2; k++) {
    ck_assert_int_eq(dlca_trainer_bits(t, &b[k]), DLCA_OK);
    ck_assert_int_eq(dlca__repair_evolve(b[k], &ep, NULL, NULL, &r[k]), DLCA_OK);
  }
  const size_t G = dlca_bits_n_gates(b[0]);
  for (size_t g = 0; g < G; g++) ck_assert_int_eq(dlca_bits_op(b[0], g), dlca_bits_op(b[1], g));
  ck_assert(r[0].after.errors <= r[0].before.errors);
  ck_assert_uint_eq(r[0].after.errors, r[1].after.errors);
  ck_assert_uint_gt(r[0].taken, 0);
  /* the trained ops, and the clean-up of what the evolution changed */
  uint8_t *orig = malloc(G);
  dlca_bits *o;
  ck_assert_int_eq(dlca_trainer_bits(t, &o), DLCA_OK);
  for (size_t g = 0; g < G; g++) orig[g] = (uint8_t)dlca_bits_op(o, g);
  dlca_eval before, after;
  ck_assert_int_eq(dlca_bits_run(b[0], &before, NULL), DLCA_OK);
  size_t reverted = 0, changed = 0;
  ck_assert_int_eq(dlca__repair_tidy(b[0], orig, &reverted), DLCA_OK);
  ck_assert_int_eq(dlca_bits_run(b[0], &after, NULL), DLCA_OK);
  ck_assert_msg(after.errors < before.errors || (after.errors == before.errors && after.hard_loss <= before.hard_loss),
                "tidy made it worse: %zu (%.9g) -> %zu (%.9g)", before.errors, before.hard_loss, after.errors,
                after.hard_loss); /* set back only where not worse */
  uint8_t *live = malloc(G);
  dlca_bits_live_gates(b[0], live);
  for (size_t g = 0; g < G; g++) {
    changed += dlca_bits_op(b[0], g) != orig[g];
    /* a changed gate that is not live could have been set back */
    ck_assert_msg(live[g] || dlca_bits_op(b[0], g) == orig[g], "gate %zu: dead and still changed", g);
  }
  fprintf(stderr, "evolve: %zu -> %zu wrong, %zu gates changed of %zu drifted, %zu set back\n", r[0].before.errors,
          r[0].after.errors, changed, r[0].drift, reverted);
  ck_assert_uint_eq(changed + reverted, r[0].drift);
  for (int k = 0; k < 2; k++) dlca_bits_free(b[k]);
  dlca_bits_free(o);
  free(p), free(y), free(orig), free(live);
  dlca_trainer_free(t);
  dlca_model_free(m);
}
END_TEST

Suite *suite_schedule(void) {
  Suite *s = suite_create("schedule");
  TCase *tc = tcase_create("ref");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_set_lr_ref);
  tcase_add_loop_test(tc, test_fresh_ref, 0, 2);
  tcase_add_test(tc, test_fresh_state_ref);
  tcase_add_test(tc, test_converge_checkerboard);
  tcase_add_test(tc, test_repair_ops);
  tcase_add_test(tc, test_repair_search);
  tcase_add_test(tc, test_repair_ref);
  tcase_add_test(tc, test_repair_evolve_tidy);
  suite_add_tcase(s, tc);
  TCase *cl = tcase_create("cl");
  tcase_set_timeout(cl, 300);
  tcase_add_test(cl, test_cl);
  tcase_add_test(cl, test_converge_checkerboard_cl);
  suite_add_tcase(s, cl);
  return s;
}
