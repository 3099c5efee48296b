/* The device trainer on PoCL: the JAX vectors through dlca_parity_vector,
 * fresh random cases against the CPU reference (sync, async with explicit
 * and with drawn fire masks, periodic), bitwise determinism, bit-for-bit
 * resume, and the memory and configuration errors. Both backends run
 * through the same trainer API. The parity and determinism tests run every
 * set of step kernels (trainer.cl's KERNELS 0, 1 and 2, tcl_step_kernels). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cl_util.h"
#include "cl/trainer_backend.h"

static const char *const cases[] = {"tiny_sync.json", "tiny_periodic.json", "tiny_async.json",
                                    "checkerboard_init.json", "checkerboard_mixed.json"};

static void print_report(const dlca_parity_report *r) {
  fprintf(stderr, "%-20s", r->case_name);
  for (int q = 0; q < DLCA_Q_COUNT; q++) fprintf(stderr, " %s %.2e", dlca_quantity_name(q), r->max_abs[q]);
  fprintf(stderr, " %s\n", r->all_pass ? "PASS" : "FAIL");
}

/* _i: vector _i % 5 with KERNELS _i / 5 */
START_TEST(test_cl_vector) {
  const char *name = cases[_i % 5];
  const int kernels = _i / 5;
  const char *path = tu_vector_path(name);
  if (!path || !tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  tcl_step_kernels(ctx, kernels, 0, 0);
  dlca_parity_report r;
  ck_assert_msg(dlca_parity_vector(ctx, path, &r) == DLCA_OK, "%s", dlca_last_error());
  fprintf(stderr, "KERNELS %d ", kernels);
  print_report(&r);
  for (int q = 0; q < DLCA_Q_COUNT; q++)
    ck_assert_msg(r.pass[q], "%s, KERNELS %d: %s error %g > tolerance %g", name, kernels, dlca_quantity_name(q),
                  r.max_abs[q], r.tolerance[q]);
  dlca_context_free(ctx);
}
END_TEST

/* A small model: C channels, perception [9,8,4,2(,1)], update [.., 24, 12, 6, C]. */
static dlca_model *small_model(int C, int K, int with_one, int periodic, uint64_t seed) {
  dlca_model_shape s;
  memset(&s, 0, sizeof s);
  s.channels = C, s.periodic = periodic, s.n_kernels = K;
  int pl[] = {9, 8, 4, 2, 1};
  s.n_perceive_layers = with_one ? 5 : 4;
  memcpy(s.perceive_layers, pl, sizeof(int) * (size_t)s.n_perceive_layers);
  int S = with_one ? 1 : 2;
  int ul[] = {C * (1 + S * K), 24, 12, 6, C};
  s.n_update_layers = 5;
  memcpy(s.update_layers, ul, sizeof ul);
  s.perceive_first_wiring = DLCA_WIRING_FIRST_KERNEL;
  s.wiring = DLCA_WIRING_UNIQUE;
  dlca_model *m;
  ck_assert_msg(dlca_model_new(&s, seed, &m) == DLCA_OK, "%s", dlca_last_error());
  return m;
}

/* A trainer of m on batch grids of H x W for T steps, defaults otherwise
 * (one loss channel, AdamW's defaults, no target yet). */
static dlca_trainer *plain_trainer(dlca_context *ctx, const dlca_model *m, int batch, int H, int W, int T) {
  dlca_train_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.batch = batch, cfg.height = H, cfg.width = W, cfg.steps = T, cfg.n_loss_channels = 1;
  cfg.optim = dlca_optim_default();
  dlca_trainer *t = NULL;
  ck_assert_msg(dlca_trainer_new(ctx, m, &cfg, &t) == DLCA_OK, "%s", dlca_last_error());
  return t;
}

/* Fails the test on any quantity of r outside its tolerance. */
static void assert_report(const dlca_parity_report *r, const char *what) {
  for (int q = 0; q < DLCA_Q_COUNT; q++)
    ck_assert_msg(r->pass[q], "%s: %s error %g > tolerance %g", what, dlca_quantity_name(q), r->max_abs[q],
                  r->tolerance[q]);
}

/* n fresh random cases of m on `run` (dlca_parity_random, from seed) on the
 * device against the reference: printed, and every quantity within its
 * tolerance. */
static void check_random(dlca_context *ctx, const dlca_model *m, const dlca_run *run, int n, uint64_t seed,
                         const char *what) {
  dlca_parity_report r;
  ck_assert_msg(dlca_parity_random(ctx, m, run, n, seed, &r) == DLCA_OK, "%s", dlca_last_error());
  print_report(&r);
  assert_report(&r, what);
}

/* _i: shape _i % 3 with KERNELS _i / 3 */
START_TEST(test_cl_random) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  /* each kernel build costs PoCL seconds, so three shapes cover the features:
   * sync zero-padded [9,8,4,2]; async periodic [9,8,4,2]; sync periodic
   * [9,8,4,2,1]; and with KERNELS 1 each a different VEC and group count
   * (the 60 cells end in a partial chunk of VEC 8 and 16), with KERNELS 2
   * a different TL and TWG (partial tiles of 8 and 16; TWG 8 < 4 K, so
   * that a thread sums two (kernel, sum) pairs of the perception gates;
   * NSL = TWG / TL never a multiple of K = 3: a set of sums per pair slot);
   * _i / 3 == 3: KERNELS 0 with TILE_CELLS 1, trainer_tile.cl's forward
   * steps and trainer.cl's backward, with KERNELS 2's TL and TWG, its loops
   * unrolled (TUNROLL 1) and TFWD_UNROLL 0, 1, 2;
   * _i / 3 == 4: KERNELS 0 with PERC_SPLIT_CELLS 1, the perception stacks'
   * backward in a launch of its own (dlca_backward_perc), with 2 to 4
   * groups per compute unit of its own (PERC_SPLIT_GROUPS_PER_CU), and
   * dlca_backward's update layers pushing their input gradients (BWD_PUSH 1)
   * in shapes 0 and 2, pulling them (0) in shape 1 */
  static const int shapes[3][7] = {{0, 0, 0, 16, 2, 8, 32}, {1, 1, 0, 4, 1, 4, 8}, {0, 1, 1, 8, 4, 16, 64}};
  const int *sh = shapes[_i % 3], mode = _i / 3;
  int kernels = mode == 3 ? 2 : mode == 4 ? 0 : mode;
  int async = sh[0], periodic = sh[1], one = sh[2];
  tcl_step_kernels(ctx, kernels, kernels ? sh[2 * kernels + 1] : 0, kernels ? sh[2 * kernels + 2] : 0);
  /* KERNELS 2's recompute with two cells a lane of tile_forward in shape 0 */
  if (mode == 2 && _i % 3 == 0) ck_assert(dlca__tuning_override(ctx, "trainer_tile.cl", "TV", 2) == DLCA_OK);
  if (mode == 3) {
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "KERNELS", 0) == DLCA_OK);
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "TILE_CELLS", 1) == DLCA_OK);
    /* the forward step's layers as a loop, unrolled, and unrolled with their gate loops */
    ck_assert(dlca__tuning_override(ctx, "trainer_tile.cl", "TUNROLL", 1) == DLCA_OK);
    ck_assert(dlca__tuning_override(ctx, "trainer_tile.cl", "TFWD_UNROLL", _i % 3) == DLCA_OK);
    /* the tables staged in local memory (TFWD_STAGE 1, the default) in
     * shapes 0 and 2, read from global memory by every lane in shape 1 */
    ck_assert(dlca__tuning_override(ctx, "trainer_tile.cl", "TFWD_STAGE", _i % 3 != 1) == DLCA_OK);
    /* and in shape 2 (TG 6 gates a thread) its gates in chunks of 4: a full
     * chunk and a partial one */
    ck_assert(dlca__tuning_override(ctx, "trainer_tile.cl", "TFWD_CHUNK", _i % 3 == 2 ? 4 : 0) == DLCA_OK);
    /* two and four cells a lane (TV 2, 4) where staged, a cell a lane where not */
    ck_assert(dlca__tuning_override(ctx, "trainer_tile.cl", "TV", (int[]){2, 1, 4}[_i % 3]) == DLCA_OK);
    /* and in shape 2 (2 gates a slice, one chunk) each pair of a slice's
     * gates' wires read at once (TFWD_WPAIR 1) */
    ck_assert(dlca__tuning_override(ctx, "trainer_tile.cl", "TFWD_WPAIR", _i % 3 == 2) == DLCA_OK);
    kernels = 0;
  }
  /* trainer.cl's backward with slot 1's table loads where they are used
   * (BWD_EARLY 0) in one of its three shapes, at the start of each layer's
   * phase (1, the default) in the others */
  if (mode == 0 && _i % 3 == 1) ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_EARLY", 0) == DLCA_OK);
  if (mode == 4) {
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "PERC_SPLIT_CELLS", 1) == DLCA_OK);
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_PERSIST", 0) == DLCA_OK);
    /* the split's own groups per compute unit: the groups are planned again */
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "PERC_SPLIT_GROUPS_PER_CU", 2 + _i % 3) == DLCA_OK);
    /* and dlca_backward_perc's own groups: more than dlca_backward's (5 a
     * compute unit against 2: slots that only it writes), the same (0), fewer
     * (1 against 4: slots that only dlca_backward writes) */
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "PERC_GROUPS_PER_CU", (int[]){5, 0, 1}[_i % 3]) == DLCA_OK);
    /* and its own cells per unit: 5, 7 or 64 (60 cells: partial units; 64:
     * more than the cells, lowered to what local memory holds) */
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "PERC_SPLIT_UNIT_CELLS", _i % 3 == 2 ? 64 : 5 + 2 * (_i % 3)) ==
              DLCA_OK);
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_PUSH", _i % 3 != 1) == DLCA_OK);
    /* and in shape 2 the last layers in warp 0 (BWD_TAIL 1, which needs a
     * work-group of at least 32: 64 here): layers 1-3, 21 gates, a lane each */
    if (_i % 3 == 2) {
      ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_TAIL", 1) == DLCA_OK);
      ck_assert(dlca__tuning_override(ctx, "trainer.cl", "WG", 64) == DLCA_OK);
    }
  }
  if (kernels == 1) fprintf(stderr, "KERNELS 1 (VEC %d, %d groups per unit): ", sh[3], sh[4]);
  else if (kernels == 2) fprintf(stderr, "KERNELS 2 (TL %d, TWG %d, TV %d): ", sh[5], sh[6], _i % 3 == 0 ? 2 : 1);
  else if (mode == 3)
    fprintf(stderr,
            "KERNELS 0, TILE_CELLS 1 (TL %d, TWG %d, TFWD_UNROLL %d, TFWD_STAGE %d, TFWD_CHUNK %d, TV %d, TFWD_WPAIR %d): ",
            sh[5], sh[6], _i % 3, _i % 3 != 1, _i % 3 == 2 ? 4 : 0, (int[]){2, 1, 4}[_i % 3], _i % 3 == 2);
  else if (mode == 4)
    fprintf(stderr, "KERNELS 0, PERC_SPLIT_CELLS 1, PERC_SPLIT_UNIT_CELLS %d, BWD_PUSH %d, BWD_TAIL %d: ",
            _i % 3 == 2 ? 64 : 5 + 2 * (_i % 3), _i % 3 != 1, _i % 3 == 2);
  else fprintf(stderr, "KERNELS 0%s: ", _i % 3 == 1 ? ", BWD_EARLY 0" : "");
  dlca_model *m = small_model(3, 3, one, periodic, 100 + (uint64_t)(_i % 3));
  dlca_run run = dlca_run_default(2, 6, 5, 4);
  run.async = async;
  run.n_loss_channels = 2, run.loss_channels[0] = 0, run.loss_channels[1] = 2;
  if (mode == 4) { /* the split is taken */
    dlca_trainer *t = plain_trainer(ctx, m, 2, 6, 5, 4);
    ck_assert_int_eq(dlca__cl_trainer_psplit(t), 1);
    ck_assert_int_eq(dlca__cl_trainer_push(t), _i % 3 != 1);
    if (_i % 3 < 2) ck_assert_int_eq(dlca__cl_trainer_perc_unit(t), 5 + 2 * (_i % 3));
    else ck_assert(dlca__cl_trainer_perc_unit(t) >= 1 && dlca__cl_trainer_perc_unit(t) <= 64);
    /* (on a device of a few compute units, such as PoCL's on the CI
     * machine: on a GPU's 132 both launches have fewer units than groups) */
    int nwg_perc, nwg = dlca__cl_trainer_groups(t, &nwg_perc);
    if (ctx->info.compute_units <= 4)
      ck_assert_msg(_i % 3 == 1 ? nwg_perc == nwg : _i % 3 == 0 ? nwg_perc > nwg : nwg_perc < nwg,
                    "dlca_backward %d groups, dlca_backward_perc %d", nwg, nwg_perc);
    else ck_assert(nwg_perc >= 1 && nwg >= 1 && (_i % 3 != 1 || nwg_perc == nwg));
    dlca_trainer_free(t);
  }
  char what[32];
  snprintf(what, sizeof what, "case %d, KERNELS %d", _i % 3, kernels);
  check_random(ctx, m, &run, 2, 7 + (uint64_t)(_i % 3), what);
  dlca_model_free(m);
  dlca_context_free(ctx);
}
END_TEST

/* WG_NARROW (lib/cl/trainer/plan.c): a narrow model whose backward groups
 * would queue is built for the narrower work-group, and still matches the
 * reference (a WG_NARROW that is not a power of two: test_tuning.c,
 * test_bad_trainer_value). */
START_TEST(test_cl_wg_narrow) {
  if (!tcl_platform()) return;
  tcl_fresh_env("wg-narrow");
  dlca_context *ctx = tcl_context();
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "KERNELS", 0) == DLCA_OK); /* the GPU-shaped steps */
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "WG", 64) == DLCA_OK);
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "WG_NARROW", 32) == DLCA_OK);
  /* one cell per group and one group per compute unit, so that a batch of
   * more cells than compute units queues its groups on any device */
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "CELLS_PER_GROUP", 1) == DLCA_OK);
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "CELLS_PER_GROUP_MIN", 1) == DLCA_OK);
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_GROUPS_PER_CU", 1) == DLCA_OK);
  const int batch = (int)(ctx->info.compute_units / 30) + 2; /* 30 cells per sample */
  dlca_model *m = small_model(3, 3, 0, 0, 104); /* C K = 9 <= 32, widest layer 24 <= 64 */
  dlca_run run = dlca_run_default(batch, 6, 5, 4);
  run.n_loss_channels = 2, run.loss_channels[0] = 0, run.loss_channels[1] = 2;
  dlca_trainer *t = plain_trainer(ctx, m, batch, 6, 5, 4);
  ck_assert_int_eq(dlca__cl_trainer_wg(t), 32);
  dlca_trainer_free(t);
  check_random(ctx, m, &run, 2, 41, "WG_NARROW");
  dlca_model_free(m);
  dlca_context_free(ctx);
}
END_TEST

/* BWD_PERSIST (trainer.cl): the whole backward pass in one launch, one group
 * per compute unit (PoCL: one per thread), each waiting for the units next
 * to its own, against the reference on fresh random cases. _i: 0 sync
 * zero-padded, units of one cell; 1 async periodic (the half-grid start of
 * odd steps); 2 sync periodic, units of two cells (across rows). */
START_TEST(test_cl_persist) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  static const int cases[3][3] = {{0, 0, 1}, {1, 1, 1}, {0, 1, 2}}; /* async, periodic, CPW */
  const int *c = cases[_i];
  tcl_step_kernels(ctx, 0, 0, 0);
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_PERSIST", 1024) == DLCA_OK);
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_GROUPS_PER_CU", 1) == DLCA_OK);
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "CELLS_PER_GROUP", c[2]) == DLCA_OK);
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "CELLS_PER_GROUP_MIN", c[2]) == DLCA_OK);
  dlca_model *m = small_model(3, 3, _i == 2, c[1], 120 + (uint64_t)_i);
  dlca_run run = dlca_run_default(2, 6, 5, 4);
  run.async = c[0];
  run.n_loss_channels = 2, run.loss_channels[0] = 0, run.loss_channels[1] = 2;
  dlca_trainer *t = plain_trainer(ctx, m, 2, 6, 5, 4);
  ck_assert_int_eq(dlca__cl_trainer_persist(t), 1);
  dlca_trainer_free(t);
  fprintf(stderr, "BWD_PERSIST (%u groups, %d cells each): ", ctx->info.compute_units, c[2]);
  check_random(ctx, m, &run, 2, 51 + (uint64_t)_i, "BWD_PERSIST");
  dlca_model_free(m);
  dlca_context_free(ctx);
}
END_TEST

/* BWD_PERSIST on a device that would not run every group at once: a build
 * whose waits never see their step (-DPERSIST_NEVER) gives up after
 * SPIN_MAX polls, and the loss read fails with DLCA_ECL naming the tunable:
 * an error, not a hang. */
START_TEST(test_cl_persist_gives_up) {
  if (!tcl_platform()) return;
  tcl_fresh_env("persist-never");
  setenv("DLCA_CL_BUILD_OPTIONS", "-DPERSIST_NEVER -DSPIN_MAX=1000u", 1);
  dlca_context *ctx = tcl_context();
  tcl_step_kernels(ctx, 0, 0, 0);
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_PERSIST", 1024) == DLCA_OK);
  dlca_model *m = small_model(3, 3, 0, 0, 130);
  dlca_trainer *t = plain_trainer(ctx, m, 1, 4, 4, 3);
  ck_assert_int_eq(dlca__cl_trainer_persist(t), 1);
  float y[4 * 4 * 3] = {0};
  ck_assert_int_eq(dlca_trainer_set_target(t, y, 0), DLCA_OK);
  double loss;
  ck_assert_msg(dlca_trainer_step(t) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq(dlca_trainer_loss(t, &loss), DLCA_ECL);
  ck_assert_msg(strstr(dlca_last_error(), "BWD_PERSIST"), "%s", dlca_last_error());
  fprintf(stderr, "BWD_PERSIST gives up: %s\n", dlca_last_error());
  dlca_trainer_free(t);
  dlca_model_free(m);
  dlca_context_free(ctx);
  unsetenv("DLCA_CL_BUILD_OPTIONS");
}
END_TEST

/* A checkerboard-like trainer on a small model; fills losses[epochs]. */
static dlca_trainer *make_trainer(dlca_context *ctx, const dlca_model *m, int async) {
  dlca_train_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.batch = 2, cfg.height = 6, cfg.width = 6, cfg.steps = 5, cfg.async = async, cfg.fire_rate = 0.6f;
  cfg.n_loss_channels = 1;
  cfg.start = DLCA_START_RANDOM;
  cfg.seed = 99;
  cfg.optim = dlca_optim_default();
  dlca_trainer *t;
  ck_assert_msg(dlca_trainer_new(ctx, m, &cfg, &t) == DLCA_OK, "%s", dlca_last_error());
  float y[6 * 6 * 3];
  for (int i = 0; i < 36; i++)
    for (int c = 0; c < 3; c++) y[i * 3 + c] = c == 0 ? (float)(((i / 6) / 2 + (i % 6) / 2) & 1) : 0.0f;
  ck_assert_int_eq(dlca_trainer_set_target(t, y, 0), DLCA_OK);
  return t;
}

static void run_epochs(dlca_trainer *t, int n, double *losses) {
  for (int e = 0; e < n; e++) {
    ck_assert_msg(dlca_trainer_step(t) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_int_eq(dlca_trainer_loss(t, &losses[e]), DLCA_OK);
  }
}

/* _i: async _i & 1 (fire masks drawn on the device) with KERNELS (_i >> 1) & 1;
 * _i 4, 5: KERNELS 0 with the one-launch backward pass (BWD_PERSIST);
 * _i 6, 7: KERNELS 2 */
START_TEST(test_cl_determinism) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  const int async = _i & 1, kernels = _i >= 6 ? 2 : (_i >> 1) & 1, persist = _i >> 1 == 2;
  tcl_step_kernels(ctx, kernels, 0, 0);
  if (persist) {
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_PERSIST", 1024) == DLCA_OK);
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_GROUPS_PER_CU", 1) == DLCA_OK);
  }
  dlca_model *m = small_model(3, 4, 0, 0, 5);
  double a[20], b[20];
  for (int pass = 0; pass < 2; pass++) {
    dlca_trainer *t = make_trainer(ctx, m, async);
    run_epochs(t, 20, pass ? b : a);
    dlca_trainer_free(t);
  }
  for (int e = 0; e < 20; e++)
    ck_assert_msg(a[e] == b[e], "KERNELS %d, epoch %d: %.17g != %.17g", kernels, e, a[e], b[e]);
  if (!async) ck_assert_msg(a[19] < a[0], "KERNELS %d: the loss did not fall: %g -> %g", kernels, a[0], a[19]);
  dlca_model_free(m);
  dlca_context_free(ctx);
}
END_TEST

/* BWD_BANKS (lib/cl/bank_order.c): the device runs the model with its
 * hidden update gates in another order, which changes no value. A model with
 * several warps a layer (random wiring, widths 96, 64, 40) trains 6 epochs
 * with the push in the model's order and in the bank-aware order: the same
 * losses, logits and gradients, bit for bit; a checkpoint of the reordered
 * trainer (logits and moments through the order's map) resumes in the other
 * bit for bit. _i 1: with a temperature, Gumbel noise, straight-through and
 * gradient noise, whose counters stay keyed by the model's gate indices. */
START_TEST(test_cl_banks) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  tcl_step_kernels(ctx, 0, 0, 0);
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "PERC_SPLIT_CELLS", 1) == DLCA_OK);
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_PERSIST", 0) == DLCA_OK);
  ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_PUSH", 1) == DLCA_OK);
  dlca_model_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.channels = 3, sh.n_kernels = 3;
  int pl[] = {9, 8, 4, 2}, ul[] = {21, 96, 64, 40, 3};
  sh.n_perceive_layers = 4, sh.n_update_layers = 5;
  memcpy(sh.perceive_layers, pl, sizeof pl), memcpy(sh.update_layers, ul, sizeof ul);
  sh.perceive_first_wiring = DLCA_WIRING_FIRST_KERNEL, sh.wiring = DLCA_WIRING_RANDOM;
  dlca_model *m;
  ck_assert_msg(dlca_model_new(&sh, 11, &m) == DLCA_OK, "%s", dlca_last_error());
  const size_t P = dlca_model_n_params(m);
  float *p0 = malloc(sizeof(float) * P), *pa = malloc(sizeof(float) * P), *pb = malloc(sizeof(float) * P);
  float *ga = malloc(sizeof(float) * P), *gb = malloc(sizeof(float) * P);
  tu_random(p0, P, -3.0f, 3.0f, 12);
  double la[6], lb[6], lc[3];
  dlca_trainer *t[2];
  for (int banks = 0; banks < 2; banks++) {
    ck_assert(dlca__tuning_override(ctx, "trainer.cl", "BWD_BANKS", banks) == DLCA_OK);
    t[banks] = make_trainer(ctx, m, 0);
    if (_i) {
      const dlca_relax r = {0.7f, 0.5f, 1, 0.1f};
      ck_assert_int_eq(dlca_trainer_set_relax(t[banks], &r), DLCA_OK);
    }
    ck_assert_int_eq(dlca__cl_trainer_push(t[banks]), 1);
    /* (without the order none moved; with it most of the 200 hidden units) */
    ck_assert_msg(banks ? dlca__cl_trainer_banks(t[banks]) > 100 : dlca__cl_trainer_banks(t[banks]) == 0, "%d moved",
                  dlca__cl_trainer_banks(t[banks]));
    ck_assert_int_eq(dlca_trainer_set_params(t[banks], p0), DLCA_OK);
    run_epochs(t[banks], 6, banks ? lb : la);
  }
  ck_assert_int_eq(dlca_trainer_get_params(t[0], pa), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_get_params(t[1], pb), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_get_grad(t[0], ga), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_get_grad(t[1], gb), DLCA_OK);
  for (int e = 0; e < 6; e++) ck_assert_msg(la[e] == lb[e], "epoch %d: %.17g != %.17g", e, la[e], lb[e]);
  ck_assert_msg(memcmp(pa, pb, sizeof(float) * P) == 0, "the logits differ");
  ck_assert_msg(memcmp(ga, gb, sizeof(float) * P) == 0, "the gradients differ");
  char path[1200];
  snprintf(path, sizeof path, "%s/b.ckpt", tu_tmpdir("banks"));
  ck_assert_msg(dlca_trainer_save_checkpoint(t[1], path) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca_trainer_load_checkpoint(t[0], path) == DLCA_OK, "%s", dlca_last_error());
  run_epochs(t[0], 3, lc);
  run_epochs(t[1], 3, la);
  for (int e = 0; e < 3; e++) ck_assert_msg(la[e] == lc[e], "resumed epoch %d: %.17g != %.17g", e, la[e], lc[e]);
  fprintf(stderr, "BWD_BANKS%s: 9 epochs, the same losses (%.6f ... %.6f) and logits in both orders\n",
          _i ? " with the relaxations" : "", lb[0], la[2]);
  dlca_trainer_free(t[0]), dlca_trainer_free(t[1]);
  free(p0), free(pa), free(pb), free(ga), free(gb);
  dlca_model_free(m);
  dlca_context_free(ctx);
}
END_TEST

static double max_diff(const float *a, const float *b, size_t n, double *max_a) {
  double d = 0, m = 0;
  for (size_t i = 0; i < n; i++) d = fmax(d, fabs((double)a[i] - b[i])), m = fmax(m, fabs((double)a[i]));
  if (max_a) *max_a = m;
  return d;
}

/* Async training with the fire masks drawn from the seed (no explicit
 * masks: the counter RNG of fires() against dlca_fire_mask) on the device
 * against the reference, from the same random logits: 3 epochs whose
 * losses, gradients and logits agree. _i: KERNELS. */
START_TEST(test_cl_async_drawn) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  tcl_step_kernels(ctx, _i, 0, 0);
  dlca_model *m = small_model(3, 3, 0, 1, 8);
  dlca_trainer *a = make_trainer(NULL, m, 1), *b = make_trainer(ctx, m, 1);
  size_t P = dlca_trainer_n_params(a);
  float *p = malloc(sizeof(float) * P), *ga = malloc(sizeof(float) * P), *gb = malloc(sizeof(float) * P);
  float *pb = malloc(sizeof(float) * P);
  tu_random(p, P, -3.0f, 3.0f, 41);
  ck_assert_int_eq(dlca_trainer_set_params(a, p), DLCA_OK);
  ck_assert_int_eq(dlca_trainer_set_params(b, p), DLCA_OK);
  for (int e = 0; e < 3; e++) {
    ck_assert_msg(dlca_trainer_step(a) == DLCA_OK && dlca_trainer_step(b) == DLCA_OK, "%s", dlca_last_error());
    double la, lb, gmax;
    ck_assert_int_eq(dlca_trainer_loss(a, &la), DLCA_OK);
    ck_assert_int_eq(dlca_trainer_loss(b, &lb), DLCA_OK);
    ck_assert_int_eq(dlca_trainer_get_grad(a, ga), DLCA_OK);
    ck_assert_int_eq(dlca_trainer_get_grad(b, gb), DLCA_OK);
    ck_assert_int_eq(dlca_trainer_get_params(a, p), DLCA_OK);
    ck_assert_int_eq(dlca_trainer_get_params(b, pb), DLCA_OK);
    double dg = max_diff(ga, gb, P, &gmax) / fmax(1.0, gmax), dp = max_diff(p, pb, P, NULL);
    fprintf(stderr, "async, drawn masks, KERNELS %d, epoch %d: loss ref %.6f device %.6f; grad %.2e (scaled), "
                    "logits %.2e\n", _i, e, la, lb, dg, dp);
    ck_assert_msg(fabs(la - lb) <= 1e-4 * fmax(1.0, fabs(la)), "KERNELS %d epoch %d: loss %g vs %g", _i, e, la, lb);
    ck_assert_msg(dg <= 1e-3, "KERNELS %d epoch %d: gradient differs by %g", _i, e, dg);
    ck_assert_msg(dp <= 1e-3, "KERNELS %d epoch %d: logits differ by %g", _i, e, dp);
    /* go on from the reference's logits, so that float noise does not grow */
    ck_assert_int_eq(dlca_trainer_set_params(b, p), DLCA_OK);
  }
  free(p), free(ga), free(gb), free(pb);
  dlca_trainer_free(a), dlca_trainer_free(b);
  dlca_model_free(m);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_cl_resume) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  dlca_model *m = small_model(3, 4, 0, 1, 6);
  double straight[20], resumed[20];
  dlca_trainer *t = make_trainer(ctx, m, _i);
  run_epochs(t, 20, straight);
  dlca_trainer_free(t);
  const char *dir = tu_tmpdir("resume");
  char path[1200];
  snprintf(path, sizeof path, "%s/t.ckpt", dir);
  t = make_trainer(ctx, m, _i);
  run_epochs(t, 10, resumed);
  ck_assert_msg(dlca_trainer_save_checkpoint(t, path) == DLCA_OK, "%s", dlca_last_error());
  dlca_trainer_free(t);
  t = make_trainer(ctx, m, _i);
  ck_assert_msg(dlca_trainer_load_checkpoint(t, path) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq((int)dlca_trainer_epoch(t), 10);
  run_epochs(t, 10, resumed + 10);
  dlca_trainer_free(t);
  for (int e = 0; e < 20; e++) ck_assert_msg(straight[e] == resumed[e], "epoch %d: %.17g != %.17g", e, straight[e], resumed[e]);
  /* a truncated checkpoint is refused by name, and the trainer is untouched */
  FILE *f = fopen(path, "r+b");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(ftruncate(fileno(f), 100), 0);
  fclose(f);
  t = make_trainer(ctx, m, _i);
  ck_assert_int_eq(dlca_trainer_load_checkpoint(t, path), DLCA_ECHECKPOINT);
  ck_assert_msg(strstr(dlca_last_error(), "t.ckpt") && strstr(dlca_last_error(), "truncated"), "%s", dlca_last_error());
  ck_assert_int_eq((int)dlca_trainer_epoch(t), 0);
  dlca_trainer_free(t);
  dlca_model_free(m);
  dlca_context_free(ctx);
}
END_TEST

/* Issue 6: an IWP model (-DNPG=4) on PoCL. Fresh random cases against the
 * reference (dlca_parity_random: random logits, binary start grids, random
 * targets), then determinism and a bit-for-bit resume. The shape and run
 * are test_relax.c's, so the kernel build is shared. */
START_TEST(test_cl_iwp) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  dlca_model_shape s = tu_small_shape(3, 3, 0, 0, 0, DLCA_WIRING_UNIQUE);
  s.parametrisation = DLCA_PARAM_IWP;
  dlca_model *m;
  ck_assert_msg(dlca_model_new(&s, 5, &m) == DLCA_OK, "%s", dlca_last_error());
  dlca_run run = dlca_run_default(2, 6, 6, 4);
  check_random(ctx, m, &run, 4, 21, "iwp");
  double a[20], b[20], c[20];
  for (int pass = 0; pass < 2; pass++) {
    dlca_trainer *t = make_trainer(ctx, m, 0);
    run_epochs(t, 20, pass ? b : a);
    dlca_trainer_free(t);
  }
  const char *path = tu_write(tu_tmpdir("resume-iwp"), "t.ckpt", "");
  dlca_trainer *t = make_trainer(ctx, m, 0);
  run_epochs(t, 10, c);
  ck_assert_msg(dlca_trainer_save_checkpoint(t, path) == DLCA_OK, "%s", dlca_last_error());
  dlca_trainer_free(t);
  t = make_trainer(ctx, m, 0);
  ck_assert_msg(dlca_trainer_load_checkpoint(t, path) == DLCA_OK, "%s", dlca_last_error());
  run_epochs(t, 10, c + 10);
  dlca_trainer_free(t);
  for (int e = 0; e < 20; e++) {
    ck_assert_msg(a[e] == b[e], "iwp epoch %d: %.17g != %.17g", e, a[e], b[e]);
    ck_assert_msg(a[e] == c[e], "iwp resumed epoch %d: %.17g != %.17g", e, a[e], c[e]);
  }
  ck_assert_msg(a[19] < a[0], "iwp: the loss did not fall: %g -> %g", a[0], a[19]);
  dlca_model_free(m);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_cl_out_of_memory) {
  if (!tcl_platform()) return;
  dlca_context *ctx = tcl_context();
  dlca_model *m;
  ck_assert_int_eq(dlca_model_new_preset("checkerboard", 1, &m), DLCA_OK);
  dlca_preset p;
  ck_assert_int_eq(dlca_preset_get("checkerboard", &p), DLCA_OK);
  dlca_train_config cfg;
  dlca_train_config_from_preset(&p, &cfg);
  cfg.batch = 1 << 19; /* about 90 GiB of states: more than any device here */
  dlca_trainer *t = NULL;
  ck_assert_int_eq(dlca_trainer_new(ctx, m, &cfg, &t), DLCA_EDEVMEM);
  ck_assert_ptr_null(t);
  const char *e = dlca_last_error();
  ck_assert_msg(strstr(e, "MiB") && strstr(e, "would fit"), "%s", e);
  fprintf(stderr, "out of memory message: %s\n", e);
  /* an impossible configuration: a loss channel the model lacks */
  dlca_train_config_from_preset(&p, &cfg);
  cfg.loss_channels[0] = 8;
  ck_assert_int_eq(dlca_trainer_new(ctx, m, &cfg, &t), DLCA_ECONFIG);
  ck_assert_msg(strstr(dlca_last_error(), "loss_channels"), "%s", dlca_last_error());
  dlca_model_free(m);
  dlca_context_free(ctx);
}
END_TEST

Suite *suite_trainer(void) {
  Suite *s = suite_create("trainer");
  TCase *tc = tcase_create("cl");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_cl_vector, 0, 15);
  tcase_add_loop_test(tc, test_cl_random, 0, 15);
  tcase_add_test(tc, test_cl_wg_narrow);
  tcase_add_loop_test(tc, test_cl_persist, 0, 3);
  tcase_add_test(tc, test_cl_persist_gives_up);
  tcase_add_loop_test(tc, test_cl_async_drawn, 0, 3);
  tcase_add_loop_test(tc, test_cl_determinism, 0, 8);
  tcase_add_loop_test(tc, test_cl_resume, 0, 1);
  tcase_add_test(tc, test_cl_iwp);
  tcase_add_test(tc, test_cl_out_of_memory);
  suite_add_tcase(s, tc);
  /* the bank-aware order (BWD_BANKS), a case of its own */
  TCase *tb = tcase_create("banks");
  tcase_set_timeout(tb, 600);
  tcase_add_loop_test(tb, test_cl_banks, 0, 2);
  suite_add_tcase(s, tb);
  return s;
}
