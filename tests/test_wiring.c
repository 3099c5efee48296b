/* Wiring generation (doc/semantics.md section 2), the preset shapes (section 5)
 * and the random numbers behind them (doc/rng.md): first_kernel, unique and
 * random layers, reproducibility for a seed, and the exact formulas that
 * doc/rng.md documents, re-implemented here from the document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/model_impl.h"
#include "util.h"

/* ---- helpers ------------------------------------------------------------ */

/* A bare layer of G gates over N inputs, wired by `kind` from `seed`. */
static int wire(int N, int G, dlca_wiring kind, uint64_t seed, dlca_layer *L) {
  memset(L, 0, sizeof *L);
  L->n_in = N, L->n_gates = G;
  L->wa = calloc((size_t)G, sizeof(int32_t));
  L->wb = calloc((size_t)G, sizeof(int32_t));
  ck_assert(L->wa && L->wb);
  uint64_t rng = seed;
  return dlca__wire_layer(L, kind, &rng);
}

static void unwire(dlca_layer *L) {
  free(L->wa);
  free(L->wb);
}

/* Inputs that no gate reads; writes them to unused[] (may be NULL). */
static int count_unused(const dlca_layer *L, int *unused) {
  char *seen = calloc((size_t)L->n_in, 1);
  for (int g = 0; g < L->n_gates; g++) seen[L->wa[g]] = seen[L->wb[g]] = 1;
  int n = 0;
  for (int i = 0; i < L->n_in; i++)
    if (!seen[i]) {
      if (unused) unused[n] = i;
      n++;
    }
  free(seen);
  return n;
}

static void check_in_range(const dlca_layer *L, const char *what) {
  for (int g = 0; g < L->n_gates; g++) {
    ck_assert_msg(L->wa[g] >= 0 && L->wa[g] < L->n_in, "%s: wa[%d] = %d not in [0, %d)", what, g, L->wa[g], L->n_in);
    ck_assert_msg(L->wb[g] >= 0 && L->wb[g] < L->n_in, "%s: wb[%d] = %d not in [0, %d)", what, g, L->wb[g], L->n_in);
  }
}

/* The pair list of doc/semantics.md section 2 for `unique`, in its order, written
 * from that text independently of lib/model/wiring.c. */
static int spec_unique_pairs(int N, int G, int32_t *a, int32_t *b) {
  int n = 0;
  for (int i = 0; i + 1 < N; i += 2) a[n] = i, b[n] = i + 1, n++;        /* 1. (0,1), (2,3), ... */
  if (n < G)
    for (int i = 1; i + 1 < N; i += 2) a[n] = i, b[n] = i + 1, n++;      /* 2. (1,2), (3,4), ... */
  for (int k = 2; n < G && k < N; k++)                                   /* 3. (i, i+k), k = 2, 3, ... */
    for (int i = 0; i + k < N; i++) a[n] = i, b[n] = i + k, n++;
  return n < G ? n : G;                                                  /* 4. the first G */
}

static int cmp_pair(const void *x, const void *y) {
  const int64_t *p = x, *q = y;
  return *p < *q ? -1 : *p > *q;
}

/* Sorted (a << 32 | b) keys of a layer's pairs. */
static int64_t *pair_keys(const int32_t *a, const int32_t *b, int G) {
  int64_t *k = malloc(sizeof(int64_t) * (size_t)G);
  for (int g = 0; g < G; g++) k[g] = ((int64_t)a[g] << 32) | (uint32_t)b[g];
  qsort(k, (size_t)G, sizeof *k, cmp_pair);
  return k;
}

/* Whether two models have identical wires in every layer. */
static int same_wires(const dlca_model *x, const dlca_model *y) {
  for (int l = 0; l < x->n_perceive; l++)
    if (memcmp(x->perceive[l].wa, y->perceive[l].wa, sizeof(int32_t) * (size_t)x->perceive[l].n_gates) ||
        memcmp(x->perceive[l].wb, y->perceive[l].wb, sizeof(int32_t) * (size_t)x->perceive[l].n_gates))
      return 0;
  for (int l = 0; l < x->n_update; l++)
    if (memcmp(x->update[l].wa, y->update[l].wa, sizeof(int32_t) * (size_t)x->update[l].n_gates) ||
        memcmp(x->update[l].wb, y->update[l].wb, sizeof(int32_t) * (size_t)x->update[l].n_gates))
      return 0;
  return 1;
}

/* ---- first_kernel ------------------------------------------------------- */

START_TEST(test_first_kernel) {
  for (uint64_t seed = 0; seed < 200; seed++) {
    dlca_layer L;
    ck_assert_int_eq(wire(9, 8, DLCA_WIRING_FIRST_KERNEL, seed, &L), DLCA_OK);
    int count[9] = {0};
    for (int g = 0; g < 8; g++) {
      ck_assert_msg(L.wb[g] == 4, "seed %llu gate %d: b = %d, not the centre", (unsigned long long)seed, g, L.wb[g]);
      ck_assert_msg(L.wa[g] >= 0 && L.wa[g] < 9 && L.wa[g] != 4, "seed %llu gate %d: a = %d",
                    (unsigned long long)seed, g, L.wa[g]);
      count[L.wa[g]]++;
    }
    for (int f = 0; f < 9; f++) ck_assert_int_eq(count[f], f == 4 ? 0 : 1);
    unwire(&L);
  }
  /* the pairs are shuffled: over many seeds, gate 0 sees every neighbour */
  int first[9] = {0};
  for (uint64_t seed = 0; seed < 200; seed++) {
    dlca_layer L;
    ck_assert_int_eq(wire(9, 8, DLCA_WIRING_FIRST_KERNEL, seed, &L), DLCA_OK);
    first[L.wa[0]]++;
    unwire(&L);
  }
  for (int f = 0; f < 9; f++)
    if (f != 4) ck_assert_msg(first[f] > 0, "neighbour %d never comes first in 200 seeds", f);
  /* wrong shape */
  dlca_layer L;
  ck_assert_int_eq(wire(9, 7, DLCA_WIRING_FIRST_KERNEL, 1, &L), DLCA_EMODEL);
  unwire(&L);
}
END_TEST

/* ---- unique ------------------------------------------------------------- */

static const int unique_shapes[][2] = {
    /* N, G with 2G >= N */
    {2, 1},     {4, 2},     {8, 4},    {8, 8},     {9, 8},      {10, 5},    {10, 7},   {10, 30},
    {10, 45},   {7, 6},     {7, 20},   {17, 128},  {17, 16},    {264, 256}, {264, 132}, {256, 128},
    {128, 64},  {640, 512}, {576, 512}, {512, 512}, {33, 32},   {3, 2},     {3, 3},    {5, 10},
    {1, 1},     {1, 3},     {101, 100}, {100, 50},  {100, 200}, {6, 15},
};

START_TEST(test_unique_spec_pairs) {
  /* every (N, G): the generated pairs are exactly doc/semantics.md's first G pairs, in some order */
  for (size_t c = 0; c < sizeof unique_shapes / sizeof *unique_shapes; c++) {
    int N = unique_shapes[c][0], G = unique_shapes[c][1];
    dlca_layer L;
    int rc = wire(N, G, DLCA_WIRING_UNIQUE, 1000 + c, &L);
    int32_t *a = malloc(sizeof(int32_t) * (size_t)(N * N + G)), *b = malloc(sizeof(int32_t) * (size_t)(N * N + G));
    int n = spec_unique_pairs(N, G, a, b);
    if (n < G) { /* more gates than distinct pairs: refused */
      ck_assert_msg(rc == DLCA_EMODEL, "N %d G %d: rc %d", N, G, rc);
    } else {
      ck_assert_msg(rc == DLCA_OK, "N %d G %d: %s", N, G, dlca_last_error());
      check_in_range(&L, "unique");
      int64_t *got = pair_keys(L.wa, L.wb, G), *want = pair_keys(a, b, G);
      for (int g = 0; g < G; g++)
        ck_assert_msg(got[g] == want[g], "N %d G %d: pair set differs from doc/semantics.md section 2 at %d", N, G, g);
      /* distinct pairs, a < b, no gate reads one input twice */
      for (int g = 1; g < G; g++) ck_assert_msg(got[g] != got[g - 1], "N %d G %d: duplicate pair", N, G);
      for (int g = 0; g < G; g++) ck_assert_msg(L.wa[g] < L.wb[g], "N %d G %d: gate %d (%d, %d)", N, G, g, L.wa[g], L.wb[g]);
      free(got);
      free(want);
    }
    free(a);
    free(b);
    unwire(&L);
  }
}
END_TEST

START_TEST(test_unique_covers_inputs) {
  /* Every input is read when N is even and 2G >= N, or N is odd and G >= N - 1.
   * For odd N with (N+1)/2 <= G < N-1 doc/semantics.md's own rule (and difflogic's
   * get_unique_connections, which it follows) leaves input N-1 unread: step 2
   * reaches (N-2, N-1) only at its last pair. test_unique_odd_gap pins that. */
  for (size_t c = 0; c < sizeof unique_shapes / sizeof *unique_shapes; c++) {
    int N = unique_shapes[c][0], G = unique_shapes[c][1];
    if (N % 2 == 1 && G < N - 1) continue;
    if ((long)G > (long)N * (N - 1) / 2) continue;
    if (N == 1) continue; /* no pair at all */
    dlca_layer L;
    ck_assert_int_eq(wire(N, G, DLCA_WIRING_UNIQUE, 77 + c, &L), DLCA_OK);
    int unused[1024];
    int n = count_unused(&L, N <= 1024 ? unused : NULL);
    ck_assert_msg(n == 0, "unique N %d G %d: %d inputs unread (first %d)", N, G, n, n ? unused[0] : -1);
    unwire(&L);
  }
  /* the same for every even N in 2..64 and every G in [N/2, N] */
  for (int N = 2; N <= 64; N += 2)
    for (int G = N / 2; G <= N && G <= N * (N - 1) / 2; G++) {
      dlca_layer L;
      ck_assert_int_eq(wire(N, G, DLCA_WIRING_UNIQUE, (uint64_t)N * 100 + G, &L), DLCA_OK);
      ck_assert_msg(count_unused(&L, NULL) == 0, "unique N %d G %d leaves inputs unread", N, G);
      unwire(&L);
    }
}
END_TEST

START_TEST(test_unique_odd_gap) {
  /* doc/semantics.md section 2 with N = 9, G = 5: (0,1) (2,3) (4,5) (6,7) then (1,2); input 8 is never read */
  dlca_layer L;
  ck_assert_int_eq(wire(9, 5, DLCA_WIRING_UNIQUE, 3, &L), DLCA_OK);
  int unused[9];
  ck_assert_int_eq(count_unused(&L, unused), 1);
  ck_assert_int_eq(unused[0], 8);
  unwire(&L);
  /* G = N - 1 closes the gap */
  ck_assert_int_eq(wire(9, 8, DLCA_WIRING_UNIQUE, 3, &L), DLCA_OK);
  ck_assert_int_eq(count_unused(&L, NULL), 0);
  unwire(&L);
}
END_TEST

START_TEST(test_unique_impossible) {
  /* 2G < N: refused by the layer generator and by dlca_model_new */
  dlca_layer L;
  ck_assert_int_eq(wire(9, 4, DLCA_WIRING_UNIQUE, 1, &L), DLCA_EMODEL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "2G >= N"));
  unwire(&L);
  ck_assert_int_eq(wire(264, 131, DLCA_WIRING_UNIQUE, 1, &L), DLCA_EMODEL);
  unwire(&L);
  /* more gates than distinct pairs: N = 4 has 6 */
  ck_assert_int_eq(wire(4, 6, DLCA_WIRING_UNIQUE, 1, &L), DLCA_OK);
  unwire(&L);
  ck_assert_int_eq(wire(4, 7, DLCA_WIRING_UNIQUE, 1, &L), DLCA_EMODEL);
  unwire(&L);

  dlca_model_shape s = tu_small_shape(2, 2, 0, 0, 0, DLCA_WIRING_UNIQUE);
  s.n_update_layers = 4; /* [10, 4, 4, 2]: 2*4 < 10 */
  s.update_layers[1] = 4;
  s.update_layers[2] = 4;
  s.update_layers[3] = 2;
  dlca_model *m = (dlca_model *)1;
  ck_assert_int_eq(dlca_model_new(&s, 1, &m), DLCA_EMODEL);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(dlca_last_error(), "update.layers[1]") && strstr(dlca_last_error(), "2G >= N"), "%s",
                dlca_last_error());
  /* the same shape is fine with random wiring */
  s.wiring = DLCA_WIRING_RANDOM;
  ck_assert_int_eq(dlca_model_new(&s, 1, &m), DLCA_OK);
  dlca_model_free(m);
  /* first_kernel needs 8 gates in the first perception layer */
  s = tu_small_shape(2, 2, 0, 0, 0, DLCA_WIRING_UNIQUE);
  s.perceive_layers[1] = 6;
  ck_assert_int_eq(dlca_model_new(&s, 1, &m), DLCA_EMODEL);
  ck_assert_msg(strstr(dlca_last_error(), "perceive.layers[1]"), "%s", dlca_last_error());
  s.perceive_first_wiring = DLCA_WIRING_UNIQUE; /* 2*6 >= 9 */
  ck_assert_int_eq(dlca_model_new(&s, 1, &m), DLCA_OK);
  dlca_model_free(m);
}
END_TEST

/* ---- random ------------------------------------------------------------- */

START_TEST(test_random) {
  static const int shapes[][2] = {{9, 8}, {10, 5}, {264, 256}, {17, 128}, {7, 4}, {100, 50}, {5, 100},
                                  {264, 8}, {9, 1}, {1000, 3}, {640, 512}, {3, 2}};
  for (size_t c = 0; c < sizeof shapes / sizeof *shapes; c++) {
    int N = shapes[c][0], G = shapes[c][1];
    for (uint64_t seed = 0; seed < 20; seed++) {
      dlca_layer L;
      ck_assert_int_eq(wire(N, G, DLCA_WIRING_RANDOM, seed * 31 + c, &L), DLCA_OK);
      check_in_range(&L, "random");
      if (2 * G >= N) ck_assert_msg(count_unused(&L, NULL) == 0, "random N %d G %d: inputs unread", N, G);
      /* spec: 2G indices, a permutation of 0..2G-1 taken mod N, through a
       * permutation of 0..N-1: every input is read floor(2G/N) or ceil(2G/N) times */
      int *uses = calloc((size_t)N, sizeof(int));
      for (int g = 0; g < G; g++) uses[L.wa[g]]++, uses[L.wb[g]]++;
      for (int i = 0; i < N; i++)
        ck_assert_msg(uses[i] == 2 * G / N || uses[i] == (2 * G + N - 1) / N, "random N %d G %d: input %d read %d times",
                      N, G, i, uses[i]);
      free(uses);
      unwire(&L);
    }
  }
}
END_TEST

START_TEST(test_seeds) {
  for (int kind = 0; kind < 2; kind++) {
    dlca_model_shape s = tu_small_shape(3, 4, 0, 0, 0, kind ? DLCA_WIRING_RANDOM : DLCA_WIRING_UNIQUE);
    dlca_model *a, *b, *c;
    ck_assert_int_eq(dlca_model_new(&s, 42, &a), DLCA_OK);
    ck_assert_int_eq(dlca_model_new(&s, 42, &b), DLCA_OK);
    ck_assert_int_eq(dlca_model_new(&s, 43, &c), DLCA_OK);
    ck_assert_msg(same_wires(a, b), "same seed, different wires");
    ck_assert_msg(!same_wires(a, c), "seeds 42 and 43 give the same wires");
    /* every layer of 6 gates or more differs between the seeds */
    for (int l = 0; l < a->n_update; l++)
      if (a->update[l].n_gates >= 6)
        ck_assert_msg(memcmp(a->update[l].wa, c->update[l].wa, sizeof(int32_t) * (size_t)a->update[l].n_gates) ||
                        memcmp(a->update[l].wb, c->update[l].wb, sizeof(int32_t) * (size_t)a->update[l].n_gates),
                    "update layer %d has the same wires for seeds 42 and 43", l);
    dlca_model_free(a);
    dlca_model_free(b);
    dlca_model_free(c);
  }
  /* a preset too */
  dlca_model *a, *b;
  ck_assert_int_eq(dlca_model_new_preset("checkerboard", 7, &a), DLCA_OK);
  ck_assert_int_eq(dlca_model_new_preset("checkerboard", 7, &b), DLCA_OK);
  ck_assert(same_wires(a, b));
  dlca_model_free(b);
  ck_assert_int_eq(dlca_model_new_preset("checkerboard", 8, &b), DLCA_OK);
  ck_assert(!same_wires(a, b));
  dlca_model_free(a);
  dlca_model_free(b);
}
END_TEST

/* ---- presets ------------------------------------------------------------ */

START_TEST(test_presets) {
  /* doc/semantics.md section 5 */
  static const struct {
    const char *name;
    int C, periodic, K, S, update_in, H, T, batch, epochs, async;
  } want[] = {
      {"gol", 1, 1, 16, 1, 17, 3, 1, 20, 3000, 0},
      {"checkerboard", 8, 0, 16, 2, 264, 16, 20, 2, 500, 0},
      {"checkerboard-async", 8, 0, 16, 2, 264, 14, 50, 1, 800, 1},
      {"growth", 128, 1, 4, 1, 640, 20, 12, 1, 3500, 0},
      {"colour", 64, 0, 4, 2, 576, 16, 15, 1, 3000, 0},
  };
  const char *const *names = dlca_preset_names();
  int n_names = 0;
  while (names[n_names]) n_names++;
  ck_assert_int_eq(n_names, 5);
  for (int i = 0; i < 5; i++) {
    ck_assert_str_eq(names[i], want[i].name);
    dlca_preset p;
    ck_assert_int_eq(dlca_preset_get(want[i].name, &p), DLCA_OK);
    ck_assert_str_eq(p.name, want[i].name);
    const dlca_model_shape *s = &p.shape;
    ck_assert_int_eq(s->channels, want[i].C);
    ck_assert_int_eq(s->periodic, want[i].periodic);
    ck_assert_int_eq(s->n_kernels, want[i].K);
    ck_assert_int_eq(s->perceive_layers[s->n_perceive_layers - 1], want[i].S);
    ck_assert_int_eq(s->update_layers[0], want[i].update_in);
    ck_assert_int_eq(s->update_layers[s->n_update_layers - 1], want[i].C);
    ck_assert_int_eq(p.height, want[i].H);
    ck_assert_int_eq(p.width, want[i].H);
    ck_assert_int_eq(p.steps, want[i].T);
    ck_assert_int_eq(p.batch, want[i].batch);
    ck_assert_int_eq(p.epochs, want[i].epochs);
    ck_assert_int_eq(p.async, want[i].async);
    ck_assert(p.fire_rate == 0.6f);
    dlca_model *m;
    ck_assert_msg(dlca_model_new_preset(want[i].name, 1, &m) == DLCA_OK, "%s: %s", want[i].name, dlca_last_error());
    /* layers are contiguous in the flat array and cover it */
    size_t off = 0;
    for (int l = 0; l < m->n_perceive; l++) {
      ck_assert_uint_eq(dlca_model_layer_offset(m, 0, l), off);
      off += (size_t)s->n_kernels * m->perceive[l].n_gates * 16;
    }
    for (int l = 0; l < m->n_update; l++) {
      ck_assert_uint_eq(dlca_model_layer_offset(m, 1, l), off);
      off += (size_t)m->update[l].n_gates * 16;
    }
    ck_assert_uint_eq(off, dlca_model_n_params(m));
    ck_assert_uint_eq(dlca_model_n_gates(m) * 16, dlca_model_n_params(m));
    ck_assert_uint_eq(dlca_model_layer_offset(m, 0, m->n_perceive), dlca_model_n_params(m));
    ck_assert_uint_eq(dlca_model_layer_offset(m, 1, -1), dlca_model_n_params(m));
    /* every preset layer reads every one of its inputs */
    check_in_range(&m->perceive[0], want[i].name);
    for (int l = 0; l < m->n_perceive; l++)
      ck_assert_msg(count_unused(&m->perceive[l], NULL) == 0, "%s perceive layer %d", want[i].name, l);
    for (int l = 0; l < m->n_update; l++) {
      check_in_range(&m->update[l], want[i].name);
      ck_assert_msg(count_unused(&m->update[l], NULL) == 0, "%s update layer %d", want[i].name, l);
    }
    dlca_model_free(m);
  }
  /* the checkerboard in numbers: 224 perception + 2816 update gates, 48,640 logits */
  dlca_model *m;
  ck_assert_int_eq(dlca_model_new_preset("checkerboard", 23, &m), DLCA_OK);
  ck_assert_uint_eq(dlca_model_n_gates(m), 3040);
  ck_assert_uint_eq(dlca_model_n_params(m), 48640);
  ck_assert_uint_eq(dlca_model_layer_offset(m, 0, 1), 2048); /* doc/model-format.md */
  ck_assert_uint_eq(dlca_model_layer_offset(m, 0, 2), 3072);
  ck_assert_uint_eq(dlca_model_layer_offset(m, 1, 0), 224 * 16);
  ck_assert_uint_eq(dlca_model_layer_offset(m, 1, 15), 48512);
  dlca_model_free(m);
  /* gol update: [17, 128 x16, 128, 64, 32, 16, 8, 4, 2, 1] */
  dlca_preset p;
  ck_assert_int_eq(dlca_preset_get("gol", &p), DLCA_OK);
  ck_assert_int_eq(p.shape.n_update_layers, 25);
  ck_assert_int_eq(p.shape.update_layers[17], 128);
  ck_assert_int_eq(p.shape.update_layers[23], 2);
  ck_assert_int_eq(p.shape.update_layers[24], 1);
  ck_assert_int_eq(dlca_preset_get("checkerboard-async", &p), DLCA_OK);
  ck_assert_int_eq(p.shape.n_update_layers, 1 + 14 + 6);
  ck_assert_int_eq(dlca_preset_get("colour", &p), DLCA_OK);
  ck_assert_int_eq(p.n_loss_channels, 3);
  ck_assert(p.lr == 0.06f);
  ck_assert_int_eq(dlca_preset_get("COLOR", &p), DLCA_OK); /* names are case-insensitive; "color" too */
  ck_assert_int_eq(dlca_preset_get("lizard", &p), DLCA_EINVAL);
  ck_assert_int_eq(dlca_model_new_preset("nope", 1, &m), DLCA_EINVAL);
}
END_TEST

/* ---- doc/rng.md, re-implemented from the document ----------------------- */

static uint64_t doc_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static uint32_t doc_rng_u32(uint64_t key, uint32_t a, uint32_t b) {
  uint64_t z = doc_mix64(key + 0x9e3779b97f4a7c15ULL * ((uint64_t)a + 1));
  z = doc_mix64(z ^ (b * 0xd1b54a32d192ed03ULL + 0x8cb92ba72f3d8dd7ULL));
  return (uint32_t)(z >> 32);
}

static uint32_t doc_below(uint64_t *s, uint32_t n) {
  for (;;) {
    *s += 0x9e3779b97f4a7c15ULL;
    uint64_t x = doc_mix64(*s) >> 32; /* the high 32 bits of splitmix64 */
    uint64_t m = x * n;
    if ((uint32_t)m >= (uint32_t)(-n) % n) return (uint32_t)(m >> 32);
  }
}

START_TEST(test_rng_doc) {
  /* dlca_rng_u32: the formula of doc/rng.md */
  static const uint64_t keys[] = {0, 1, 23, 0xffffffffffffffffULL, 0x123456789abcdef0ULL};
  for (size_t k = 0; k < 5; k++)
    for (uint32_t a = 0; a < 40; a++)
      for (uint32_t b = 0; b < 40; b++) {
        uint32_t bb = b * 0x9e3779b9u; /* spread over the 32-bit range too */
        ck_assert_uint_eq(dlca_rng_u32(keys[k], a, b), doc_rng_u32(keys[k], a, b));
        ck_assert_uint_eq(dlca_rng_u32(keys[k], ~a, bb), doc_rng_u32(keys[k], ~a, bb));
      }
  /* pinned values: changing the generator changes every seeded start grid,
   * fire mask and checkpointed run, and kernels-cl/rng.cl must follow */
  ck_assert_uint_eq(dlca_rng_u32(0, 0, 0), 2609431501u);
  ck_assert_uint_eq(dlca_rng_u32(23, 1, 5), 3727211219u);
  ck_assert_uint_eq(dlca_rng_u32(0xffffffffffffffffULL, 7, 0xffffffffu), 2550696526u);
  ck_assert_uint_eq(dlca_rng_u32(0x123456789abcdef0ULL, 0, 1), 2692139238u);
  /* splitmix64 as documented */
  uint64_t s1 = 5, s2 = 5;
  for (int i = 0; i < 100; i++) {
    s2 += 0x9e3779b97f4a7c15ULL;
    ck_assert_uint_eq(dlca__splitmix64(&s1), doc_mix64(s2));
  }
  /* Lemire rejection, including bounds where rejection happens often */
  static const uint32_t bounds[] = {1, 2, 3, 7, 8, 9, 1000, 65537, 0x80000001u, 0xfffffffbu};
  for (size_t i = 0; i < sizeof bounds / sizeof *bounds; i++) {
    uint64_t a = 99 + i, b = 99 + i;
    for (int j = 0; j < 1000; j++) {
      uint32_t x = dlca__rand_below(&a, bounds[i]);
      ck_assert_uint_lt(x, bounds[i]);
      ck_assert_uint_eq(x, doc_below(&b, bounds[i]));
    }
    ck_assert_uint_eq(a, b); /* same number of draws */
  }
  /* wiring shuffles: Fisher-Yates from the last index down, one seeded
   * splitmix64 state for the whole model, layers in order */
  dlca_model_shape s = tu_small_shape(2, 2, 0, 0, 0, DLCA_WIRING_UNIQUE);
  for (uint64_t seed = 0; seed < 50; seed++) {
    dlca_model *m;
    ck_assert_int_eq(dlca_model_new(&s, seed, &m), DLCA_OK);
    uint64_t st = seed;
    int32_t wa[8] = {0, 1, 2, 3, 5, 6, 7, 8};
    for (int i = 7; i > 0; i--) {
      int j = (int)doc_below(&st, (uint32_t)i + 1);
      int32_t t = wa[i];
      wa[i] = wa[j];
      wa[j] = t;
    }
    ck_assert_msg(!memcmp(wa, m->perceive[0].wa, sizeof wa), "seed %llu: first_kernel order differs from doc/rng.md",
                  (unsigned long long)seed);
    /* perception layer 1 (8 -> 4, unique): (0,1) (2,3) (4,5) (6,7) shuffled with the same state */
    int32_t a[4] = {0, 2, 4, 6}, b[4] = {1, 3, 5, 7};
    for (int i = 3; i > 0; i--) {
      int j = (int)doc_below(&st, (uint32_t)i + 1);
      int32_t t = a[i];
      a[i] = a[j], a[j] = t;
      t = b[i];
      b[i] = b[j], b[j] = t;
    }
    ck_assert(!memcmp(a, m->perceive[1].wa, sizeof a) && !memcmp(b, m->perceive[1].wb, sizeof b));
    dlca_model_free(m);
  }
}
END_TEST

START_TEST(test_fire_mask) {
  dlca_run run = dlca_run_default(3, 17, 19, 5);
  run.async = 1;
  run.mask_key = 0xfeedULL;
  for (int ri = 0; ri < 3; ri++) {
    run.fire_rate = ri == 0 ? 0.6f : ri == 1 ? 0.25f : 1.0f;
    long fired = 0, total = 0;
    for (int t = 0; t < run.steps; t++)
      for (int b = 0; b < run.batch; b++)
        for (int r = 0; r < run.height; r++)
          for (int q = 0; q < run.width; q++) {
            uint32_t cell = (uint32_t)(((size_t)b * run.height + r) * run.width + q);
            uint32_t u = doc_rng_u32(run.mask_key, 1u + (uint32_t)t, cell) >> 8;
            int want = (double)u / 16777216.0 < run.fire_rate;
            int got = dlca_fire_mask(&run, t, b, r, q);
            ck_assert_int_eq(got, want);
            fired += got, total++;
          }
    double frac = (double)fired / total;
    ck_assert_msg(frac > run.fire_rate - 0.05 && frac < run.fire_rate + 0.05, "fire rate %g: fraction %g", run.fire_rate,
                  frac);
  }
  run.fire_rate = 0;
  for (int q = 0; q < run.width; q++) ck_assert_int_eq(dlca_fire_mask(&run, 0, 0, 0, q), 0);
  /* explicit masks win: [steps][batch][height][width] */
  uint8_t *mk = calloc((size_t)run.steps * run.batch * run.height * run.width, 1);
  mk[((size_t)(3 * run.batch + 2) * run.height + 4) * run.width + 6] = 1;
  run.fire_masks = mk;
  ck_assert_int_eq(dlca_fire_mask(&run, 3, 2, 4, 6), 1);
  ck_assert_int_eq(dlca_fire_mask(&run, 3, 2, 4, 5), 0);
  ck_assert_int_eq(dlca_fire_mask(&run, 2, 2, 4, 6), 0);
  free(mk);
}
END_TEST

Suite *suite_wiring(void) {
  Suite *s = suite_create("wiring");
  TCase *tc = tcase_create("wiring");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_first_kernel);
  tcase_add_test(tc, test_unique_spec_pairs);
  tcase_add_test(tc, test_unique_covers_inputs);
  tcase_add_test(tc, test_unique_odd_gap);
  tcase_add_test(tc, test_unique_impossible);
  tcase_add_test(tc, test_random);
  tcase_add_test(tc, test_seeds);
  tcase_add_test(tc, test_presets);
  suite_add_tcase(s, tc);
  TCase *tr = tcase_create("rng");
  tcase_add_test(tr, test_rng_doc);
  tcase_add_test(tr, test_fire_mask);
  suite_add_tcase(s, tr);
  return s;
}
