/* Finite-difference checks of dlca_ref_gradient: random small models (logits
 * N(0, 2), then again "peaked": one op per gate raised by 6, as in a trained
 * circuit, which lets gradients through cells and steps be seen), random start grids in (0, 1) and random targets; sync and async
 * (explicit random masks and seeded masks), periodic and zero-padded, loss
 * over 1 and 2 channels, perception [9,8,4,2] and [9,8,4,2,1], and odd
 * grids (1x1, 1x3, 2x2 wrap-around, 66 channels). The numerical derivative
 * is the central difference of the soft loss of dlca_ref_forward (float32
 * states, loss summed in double), with the actual float32 step. Also: the
 * gradient's loss and state equal the forward pass's, the gradient does not
 * depend on the thread count, and async with every mask 1 is sync.
 *
 * Every case runs again under the input-wise parametrisation (IWP, issue
 * 6): 4 logits per gate N(0, 2), then peaked (a random op per gate, its
 * truth table pushed to +-6).
 *
 * For exploring (not needed by make check): DLCA_GRADCHECK_SEED=n draws other
 * models, grids and samples; DLCA_GRADCHECK_ALL=1 checks every logit;
 * DLCA_GRADCHECK_H=x sets the step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "model/model_impl.h"
#include "util.h"

/* Tolerance on |fd - g| / max(1, |g|). Measured with h = 1e-2 (float32
 * logits, loss in double): the sampled logits of the default seeds give at
 * most 1.1e-4; every logit of every case for 9 other seeds (DLCA_GRADCHECK_ALL)
 * gives at most 1.9e-4 (peaked) and 1.4e-4 (N(0, 2)), where the rounding of
 * the float32 states (a few 1e-6 of loss, over 2h) and the h^2 term are
 * what is left. Smaller steps are worse (h = 3e-3: 2.6e-4, h = 5e-3:
 * 1.2e-4 on N(0, 2)), a larger one is no better (2e-2: 7.5e-5 vs 7.5e-5).
 * Bugs planted in backward.c while writing this (async pass-through, the
 * ab sum, din of b, periodic gather, gather direction, perception output
 * order, loss channels, centre copy, only the last step, blocks of 64
 * channels) each make at least one case fail. One planted bug was not
 * caught: channels 64 and 65 gathering the gradient of channels 0 and 1. */
#define GC_TOL 3e-4
#define GC_H 1e-2f
#define GC_PEAK 6.0f  /* the second pass of every case: one op per gate raised by this */
#define GC_TOP 10     /* the largest |g| */
#define GC_RANDOM 10  /* plus this many random logits from perception, and as many from update */

typedef struct gc_case {
  const char *name;
  int C, K, with_one, periodic;
  int async;          /* 0 sync, 1 explicit random masks, 2 masks from mask_key */
  int n_loss;         /* 1: channel 0; 2: channels 0 and C-1; 3: and 63 */
  int random_wiring;  /* update layers (and perception after the first) */
  int B, H, W, T;
  int extra;          /* more full-width update layers, so that every output reads every input */
} gc_case;

static const gc_case gc_cases[] = {
    /* the 16 combinations of sync/async, periodic, 1/2 loss channels, S = 2 / S = 1 */
    {"sync pad 1ch S2", 2, 2, 0, 0, 0, 1, 0, 2, 4, 5, 3, 0},
    {"sync pad 1ch S1", 2, 3, 1, 0, 0, 1, 1, 2, 4, 5, 3, 0},
    {"sync pad 2ch S2", 3, 2, 0, 0, 0, 2, 0, 2, 5, 4, 3, 0},
    {"sync pad 2ch S1", 3, 2, 1, 0, 0, 2, 1, 1, 5, 5, 4, 0},
    {"sync wrap 1ch S2", 2, 2, 0, 1, 0, 1, 1, 2, 4, 4, 3, 0},
    {"sync wrap 1ch S1", 2, 3, 1, 1, 0, 1, 0, 2, 5, 3, 3, 0},
    {"sync wrap 2ch S2", 3, 2, 0, 1, 0, 2, 1, 1, 4, 6, 3, 0},
    {"sync wrap 2ch S1", 2, 2, 1, 1, 0, 2, 0, 2, 4, 4, 4, 0},
    {"async pad 1ch S2", 2, 2, 0, 0, 1, 1, 0, 2, 4, 5, 4, 0},
    {"async pad 1ch S1", 2, 3, 1, 0, 1, 1, 1, 2, 4, 4, 4, 0},
    {"async pad 2ch S2", 3, 2, 0, 0, 1, 2, 0, 2, 5, 4, 3, 0},
    {"async pad 2ch S1", 3, 2, 1, 0, 2, 2, 1, 1, 5, 5, 5, 0},
    {"async wrap 1ch S2", 2, 2, 0, 1, 1, 1, 1, 2, 4, 4, 4, 0},
    {"async wrap 1ch S1", 2, 3, 1, 1, 2, 1, 0, 2, 5, 3, 4, 0},
    {"async wrap 2ch S2", 3, 2, 0, 1, 1, 2, 1, 1, 4, 6, 3, 0},
    {"async wrap 2ch S1", 2, 2, 1, 1, 1, 2, 0, 2, 4, 4, 5, 0},
    /* odd grids: patches that wrap onto the same cell, a grid of one cell */
    {"wrap 2x2", 2, 2, 0, 1, 0, 2, 0, 2, 2, 2, 3, 0},
    {"wrap 1x3 async", 2, 2, 1, 1, 1, 1, 1, 1, 1, 3, 4, 0},
    {"pad 1x1", 2, 2, 0, 0, 0, 2, 0, 3, 1, 1, 3, 0},
    {"wrap 1x1", 1, 2, 1, 1, 0, 1, 1, 2, 1, 1, 2, 0},
    /* more than 64 channels: the backward gather works in blocks of 64; loss
     * on 0, 65 and 63 (the last of the first block) */
    {"66 channels", 66, 1, 1, 0, 0, 3, 0, 1, 3, 3, 3, 7},
};

/* The model of a case: perception [9,8,4,2(,1)], update [in, in, halving to C]. */
static dlca_model *gc_model_p(const gc_case *c, uint64_t seed, int peaked, dlca_parametrisation par) {
  dlca_model_shape s = tu_small_shape(c->C, c->K, c->with_one, c->periodic, c->extra,
                                      c->random_wiring ? DLCA_WIRING_RANDOM : DLCA_WIRING_UNIQUE);
  s.parametrisation = par;
  dlca_model *m;
  ck_assert_msg(dlca_model_new(&s, seed, &m) == DLCA_OK, "%s", dlca_last_error());
  /* logits N(0, 2) by Box-Muller */
  for (size_t i = 0; i < m->n_params; i++) {
    double u1 = ((dlca_rng_u32(seed, 100, (uint32_t)i) >> 8) + 0.5) / 16777216.0;
    double u2 = ((dlca_rng_u32(seed, 101, (uint32_t)i) >> 8) + 0.5) / 16777216.0;
    m->params[i] = (float)(2.0 * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
  }
  /* peaked: one random op of every gate 6 higher, as in a trained circuit.
   * The gates then pass signals on nearly undamped, so that the gradient
   * through neighbouring cells and earlier steps is large enough for the
   * finite differences to see an error in it. */
  const size_t npg = (size_t)dlca_model_params_per_gate(m);
  if (peaked && npg == 16)
    for (size_t g = 0; g < m->n_params / 16; g++) m->params[16 * g + dlca_rng_u32(seed, 102, (uint32_t)g) % 16] += GC_PEAK;
  /* IWP: the truth table of a random op, bit 3 - k of the op for w_k */
  if (peaked && npg == 4)
    for (size_t g = 0; g < m->n_params / 4; g++) {
      const uint32_t op = dlca_rng_u32(seed, 102, (uint32_t)g) % 16;
      for (int k = 0; k < 4; k++) m->params[4 * g + k] += (op >> (3 - k)) & 1 ? GC_PEAK : -GC_PEAK;
    }
  return m;
}

static dlca_model *gc_model(const gc_case *c, uint64_t seed, int peaked) {
  return gc_model_p(c, seed, peaked, DLCA_PARAM_SOFTMAX16);
}

typedef struct gc_data {
  dlca_run run;
  float *x, *y;
  uint8_t *masks;
  size_t n;
} gc_data;

static void gc_setup(const gc_case *c, const dlca_model *m, uint64_t seed, gc_data *d) {
  memset(d, 0, sizeof *d);
  d->run = dlca_run_default(c->B, c->H, c->W, c->T);
  d->run.n_loss_channels = c->n_loss;
  d->run.loss_channels[0] = 0;
  if (c->n_loss >= 2) d->run.loss_channels[1] = c->C - 1;
  if (c->n_loss >= 3) d->run.loss_channels[2] = 63;
  d->n = (size_t)c->B * c->H * c->W * m->shape.channels;
  d->x = malloc(sizeof(float) * d->n);
  d->y = malloc(sizeof(float) * d->n);
  tu_random(d->x, d->n, 0.02f, 0.98f, seed * 3 + 1);
  tu_random(d->y, d->n, 0.0f, 1.0f, seed * 3 + 2);
  if (c->async) {
    d->run.async = 1;
    size_t nm = (size_t)c->T * c->B * c->H * c->W, ones = 0;
    if (c->async == 1) {
      d->masks = malloc(nm);
      for (size_t i = 0; i < nm; i++) ones += d->masks[i] = (dlca_rng_u32(seed, 55, (uint32_t)i) >> 31) & 1;
      /* the explicit masks are a real mix: some cells fire, some do not */
      if (nm > 1) ck_assert_msg(ones > 0 && ones < nm, "masks all %d", ones > 0);
      d->run.fire_masks = d->masks;
    } else {
      d->run.mask_key = seed ^ 0xabcdefULL;
      d->run.fire_rate = 0.6f;
    }
  }
}

static void gc_free(gc_data *d) {
  free(d->x);
  free(d->y);
  free(d->masks);
}

static double soft_loss(const dlca_model *m, const gc_data *d, float *state) {
  double L;
  int rc = dlca_ref_forward(m, &d->run, d->x, 0, d->y, state, &L);
  ck_assert_msg(rc == DLCA_OK, "%s", dlca_last_error());
  return L;
}

/* Central difference of the loss at logit i, with the float32 step actually taken. */
static double fd_at(dlca_model *m, const gc_data *d, size_t i, float h, float *state) {
  float p0 = m->params[i], pp = p0 + h, pm = p0 - h;
  m->params[i] = pp;
  double lp = soft_loss(m, d, state);
  m->params[i] = pm;
  double lm = soft_loss(m, d, state);
  m->params[i] = p0;
  return (lp - lm) / ((double)pp - (double)pm);
}

/* The indices of the k largest |g|, largest first. */
static size_t top_k(const float *g, size_t n, size_t *out, size_t k) {
  size_t have = 0;
  for (size_t i = 0; i < n; i++) {
    float a = fabsf(g[i]);
    if (have == k && a <= fabsf(g[out[k - 1]])) continue;
    size_t pos = have < k ? have++ : k - 1;
    while (pos > 0 && fabsf(g[out[pos - 1]]) < a) {
      out[pos] = out[pos - 1];
      pos--;
    }
    out[pos] = i;
  }
  return have;
}

START_TEST(test_gradcheck) {
  /* _i / n_cases: 0 N(0, 2), 1 peaked, 2 IWP N(0, 2), 3 IWP peaked */
  const int n_cases = (int)(sizeof gc_cases / sizeof *gc_cases), peaked = (_i / n_cases) & 1,
            iwp = _i >= 2 * n_cases;
  const gc_case *c = &gc_cases[_i % n_cases];
  const char *env_seed = getenv("DLCA_GRADCHECK_SEED"), *env_h = getenv("DLCA_GRADCHECK_H");
  const int all = getenv("DLCA_GRADCHECK_ALL") && atoi(getenv("DLCA_GRADCHECK_ALL"));
  const float h = env_h ? strtof(env_h, NULL) : GC_H;
  uint64_t seed = 1000 + (uint64_t)_i + (env_seed ? 1000 * strtoull(env_seed, NULL, 10) : 0);
  dlca_model *m = gc_model_p(c, seed, peaked, iwp ? DLCA_PARAM_IWP : DLCA_PARAM_SOFTMAX16);
  gc_data d;
  gc_setup(c, m, seed, &d);
  const size_t P = m->n_params, split = m->update[0].offset;
  float *g = malloc(sizeof(float) * P), *s1 = malloc(sizeof(float) * d.n), *s2 = malloc(sizeof(float) * d.n);
  double Lg;
  ck_assert_msg(dlca_ref_gradient(m, &d.run, d.x, d.y, &Lg, g, s1) == DLCA_OK, "%s", dlca_last_error());
  /* the gradient's loss and final state are the forward pass's, bit for bit */
  double Lf = soft_loss(m, &d, s2);
  ck_assert_msg(Lg == Lf, "%s: gradient loss %.17g, forward loss %.17g", c->name, Lg, Lf);
  ck_assert_msg(!memcmp(s1, s2, sizeof(float) * d.n), "%s: final states differ", c->name);
  for (size_t i = 0; i < P; i++) ck_assert_msg(isfinite(g[i]), "%s: grad[%zu] = %g", c->name, i, g[i]);

  /* the sample: the largest |g|, and random logits of both parts */
  size_t *idx = malloc(sizeof(size_t) * (P + GC_TOP + 2 * GC_RANDOM)), n = top_k(g, P, idx, GC_TOP);
  for (int j = 0; j < 2 * GC_RANDOM; j++) {
    size_t lo = j < GC_RANDOM ? 0 : split, hi = j < GC_RANDOM ? split : P;
    idx[n++] = lo + dlca_rng_u32(seed, 77, (uint32_t)j) % (hi - lo);
  }
  if (all)
    for (size_t i = 0; i < P; i++) idx[n++] = i;
  double worst = 0, worst_fd = 0, gmax = fabsf(g[idx[0]]);
  size_t worst_i = 0;
  for (size_t j = 0; j < n; j++) {
    size_t i = idx[j];
    double fd = fd_at(m, &d, i, h, s2);
    double err = fabs(fd - g[i]) / fmax(1.0, fabs(g[i]));
    if (err > worst || isnan(err)) worst = isnan(err) ? INFINITY : err, worst_i = i, worst_fd = fd;
  }
  fprintf(stderr, "gradcheck %-18s %-3s %-6s %5zu logits  loss %9.4f  max|g| %8.3g  worst |fd-g|/max(1,|g|) %.2e (logit %zu: fd %.6g, g %.6g)\n",
          c->name, iwp ? "iwp" : "s16", peaked ? "peaked" : "N(0,2)", P, Lg, gmax, worst, worst_i, worst_fd,
          g[worst_i]);
  ck_assert_msg(worst <= GC_TOL, "%s%s%s: worst error %.3e > %.1e at logit %zu: fd %.8g, g %.8g", c->name,
                iwp ? " (iwp)" : "", peaked ? " (peaked)" : "", worst, GC_TOL,
                worst_i, worst_fd, g[worst_i]);
  ck_assert_msg(gmax > 1e-4, "%s: the gradient is all but zero (max %g): the check would prove nothing", c->name, gmax);
  free(idx);
  free(g);
  free(s1);
  free(s2);
  gc_free(&d);
  dlca_model_free(m);
}
END_TEST

START_TEST(test_gradient_threads) {
  /* chunked accumulation: the same bits for 1, 2 and 3 threads */
#ifdef _OPENMP
  const gc_case *c = &gc_cases[9];
  dlca_model *m = gc_model(c, 5, 1);
  gc_data d;
  gc_setup(c, m, 5, &d);
  d.run.batch = 2, d.run.height = d.run.width = 9; /* more cells than chunks */
  free(d.x), free(d.y), free(d.masks);
  d.n = (size_t)2 * 9 * 9 * c->C;
  d.x = malloc(sizeof(float) * d.n), d.y = malloc(sizeof(float) * d.n);
  tu_random(d.x, d.n, 0, 1, 8);
  tu_random(d.y, d.n, 0, 1, 9);
  d.masks = malloc((size_t)c->T * 2 * 81);
  for (size_t i = 0; i < (size_t)c->T * 2 * 81; i++) d.masks[i] = dlca_rng_u32(3, 4, (uint32_t)i) & 1;
  d.run.fire_masks = d.masks;
  const size_t P = m->n_params;
  float *g[3];
  double L[3];
  int saved = omp_get_max_threads();
  for (int t = 0; t < 3; t++) {
    omp_set_num_threads(t + 1);
    g[t] = malloc(sizeof(float) * P);
    ck_assert_int_eq(dlca_ref_gradient(m, &d.run, d.x, d.y, &L[t], g[t], NULL), DLCA_OK);
  }
  omp_set_num_threads(saved);
  for (int t = 1; t < 3; t++) {
    ck_assert(L[t] == L[0]);
    ck_assert_msg(!memcmp(g[t], g[0], sizeof(float) * P), "%d threads give another gradient than 1", t + 1);
  }
  for (int t = 0; t < 3; t++) free(g[t]);
  gc_free(&d);
  dlca_model_free(m);
#endif
}
END_TEST

START_TEST(test_async_limits) {
  /* every mask 1 is the sync step, bit for bit; every mask 0 freezes the grid
   * and gives a zero gradient */
  const gc_case *c = &gc_cases[0];
  dlca_model *m = gc_model(c, 9, 0);
  gc_data d;
  gc_setup(c, m, 9, &d);
  const size_t P = m->n_params, nm = (size_t)c->T * c->B * c->H * c->W;
  float *g0 = malloc(sizeof(float) * P), *g1 = malloc(sizeof(float) * P);
  float *s0 = malloc(sizeof(float) * d.n), *s1 = malloc(sizeof(float) * d.n);
  double L0, L1;
  ck_assert_int_eq(dlca_ref_gradient(m, &d.run, d.x, d.y, &L0, g0, s0), DLCA_OK);
  uint8_t *mk = malloc(nm);
  memset(mk, 1, nm);
  d.run.async = 1, d.run.fire_masks = mk;
  ck_assert_int_eq(dlca_ref_gradient(m, &d.run, d.x, d.y, &L1, g1, s1), DLCA_OK);
  ck_assert(L0 == L1);
  ck_assert(!memcmp(g0, g1, sizeof(float) * P));
  ck_assert(!memcmp(s0, s1, sizeof(float) * d.n));
  memset(mk, 0, nm);
  ck_assert_int_eq(dlca_ref_gradient(m, &d.run, d.x, d.y, &L1, g1, s1), DLCA_OK);
  ck_assert(!memcmp(s1, d.x, sizeof(float) * d.n));
  for (size_t i = 0; i < P; i++) ck_assert(g1[i] == 0.0f);
  /* the same with seeded masks at fire rate 0 and 1 */
  d.run.fire_masks = NULL, d.run.mask_key = 77, d.run.fire_rate = 0.0f;
  ck_assert_int_eq(dlca_ref_gradient(m, &d.run, d.x, d.y, &L1, g1, s1), DLCA_OK);
  ck_assert(!memcmp(s1, d.x, sizeof(float) * d.n));
  d.run.fire_rate = 1.0f;
  ck_assert_int_eq(dlca_ref_gradient(m, &d.run, d.x, d.y, &L1, g1, s1), DLCA_OK);
  ck_assert(!memcmp(g0, g1, sizeof(float) * P));
  free(mk), free(g0), free(g1), free(s0), free(s1);
  gc_free(&d);
  dlca_model_free(m);
}
END_TEST

Suite *suite_gradcheck(void) {
  Suite *s = suite_create("gradcheck");
  TCase *tc = tcase_create("fd");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_gradcheck, 0, 4 * (int)(sizeof gc_cases / sizeof *gc_cases));
  tcase_add_test(tc, test_gradient_threads);
  tcase_add_test(tc, test_async_limits);
  suite_add_tcase(s, tc);
  return s;
}
