/* A bank-aware order of each update layer's gates for trainer.cl's
 * gate-per-thread steps (doc/kernels.md, "The bank-aware order").
 *
 * Gate g of an update layer runs on thread g (mod the work-group): a warp is
 * 32 consecutive gates, and a layer's outputs are stored in gate order. The
 * warp's gathers of input a (and of b), and under BWD_PUSH its stores into
 * the inputs' gradient slots, cost as many local-memory cycles as the most
 * distinct inputs that share a bank (index mod 32). Permuting the gates of a
 * layer, with the wires of the layer above that read them, gives the same
 * function with other banks. The update input (level 0) and the last
 * layer's outputs (the new state) keep their order.
 *
 * The search: simulated annealing over swaps of two units of one level,
 * whose cost is the sum over every warp gather (layer, warp, side) of the
 * pairs of distinct inputs in one bank. A fixed seed and iteration count:
 * the same model always gets the same order. Host code only; no twin (the
 * order changes no value: cl_trainer.c keeps every sum in the model's
 * order, tests/test_trainer.c checks bit for bit). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cl/bank_order.h"
#include "cl/runtime.h"

#define BANKS 32

typedef struct search {
  const dlca_model *m;
  int NU;
  int *row[DLCA_MAX_LAYERS + 1]; /* row[l][u]: storage index of unit u of level l */
  int *at[DLCA_MAX_LAYERS + 1];  /* at[l][r]: the unit stored at row r */
  /* readers of each unit of level l (as an input of layer l): gate << 1 | side */
  int *rd_off[DLCA_MAX_LAYERS], *rd[DLCA_MAX_LAYERS];
  unsigned *mark, stamp; /* mark[u] == stamp: unit u already counted in this gather */
} search;

/* Conflicting pairs of one warp gather: layer i, warp w (gates at rows
 * 32 w ..), side s; an input read twice counts once. */
static int gather_cost(search *S, int i, int w, int s) {
  const dlca_layer *L = &S->m->update[i];
  const int32_t *wire = s ? L->wb : L->wa;
  const int *at = S->at[i + 1], *row = S->row[i];
  unsigned char cnt[BANKS] = {0};
  int cost = 0;
  const int r1 = (w + 1) * BANKS < L->n_gates ? (w + 1) * BANKS : L->n_gates;
  const unsigned stamp = ++S->stamp;
  for (int r = w * BANKS; r < r1; r++) {
    const int u = wire[at[r]];
    if (S->mark[u] == stamp) continue;
    S->mark[u] = stamp;
    cost += cnt[row[u] % BANKS]++;
  }
  return cost;
}

/* The distinct gathers (layer, warp, side) a swap of units u and v of level
 * lvl touches, into keys (at most cap); returns their count. */
static int touched(const search *S, int lvl, int u, int v, int *keys, int cap) {
  int n = 0;
  const int uv[2] = {u, v};
  for (int t = 0; t < 2; t++) {
    /* as gates of layer lvl - 1: their warps, both sides */
    for (int s = 0; s < 2; s++) keys[n++] = ((lvl - 1) << 24) | ((S->row[lvl][uv[t]] / BANKS) << 1) | s;
    /* as inputs of layer lvl: the gathers that read them */
    if (lvl < S->NU)
      for (int q = S->rd_off[lvl][uv[t]]; q < S->rd_off[lvl][uv[t] + 1] && n < cap; q++) {
        const int g = S->rd[lvl][q] >> 1, side = S->rd[lvl][q] & 1;
        keys[n++] = (lvl << 24) | ((S->row[lvl + 1][g] / BANKS) << 1) | side;
      }
  }
  /* distinct keys */
  int m = 0;
  for (int a = 0; a < n; a++) {
    int dup = 0;
    for (int b = 0; b < m && !dup; b++) dup = keys[b] == keys[a];
    if (!dup) keys[m++] = keys[a];
  }
  return m;
}

static int cost_of(search *S, const int *keys, int n) {
  int c = 0;
  for (int k = 0; k < n; k++) c += gather_cost(S, keys[k] >> 24, (keys[k] & 0xFFFFFF) >> 1, keys[k] & 1);
  return c;
}

static void swap_units(search *S, int lvl, int u, int v) {
  const int ru = S->row[lvl][u], rv = S->row[lvl][v];
  S->row[lvl][u] = rv, S->row[lvl][v] = ru;
  S->at[lvl][rv] = u, S->at[lvl][ru] = v;
}

static void search_free(search *S) {
  free(S->mark);
  for (int l = 0; l <= S->NU; l++) free(S->row[l]), free(S->at[l]);
  for (int l = 0; l < S->NU; l++) free(S->rd_off[l]), free(S->rd[l]);
}

int dlca__bank_order(const dlca_model *m, int **rows) {
  search S;
  memset(&S, 0, sizeof S);
  S.m = m, S.NU = m->n_update;
  const int *U = m->shape.update_layers;
  int free_units = 0, widest = 1;
  for (int l = 0; l <= S.NU; l++) widest = U[l] > widest ? U[l] : widest;
  if (!(S.mark = calloc((size_t)widest, sizeof(unsigned)))) goto oom;
  for (int l = 0; l <= S.NU; l++) {
    S.row[l] = malloc(sizeof(int) * (size_t)U[l]), S.at[l] = malloc(sizeof(int) * (size_t)U[l]);
    if (!S.row[l] || !S.at[l]) goto oom;
    for (int u = 0; u < U[l]; u++) S.row[l][u] = S.at[l][u] = u;
    if (l > 0 && l < S.NU) free_units += U[l];
  }
  for (int l = 0; l < S.NU; l++) {
    const dlca_layer *L = &m->update[l];
    S.rd_off[l] = calloc((size_t)L->n_in + 1, sizeof(int)), S.rd[l] = malloc(sizeof(int) * 2 * (size_t)L->n_gates);
    if (!S.rd_off[l] || !S.rd[l]) goto oom;
    for (int g = 0; g < L->n_gates; g++) S.rd_off[l][L->wa[g] + 1]++, S.rd_off[l][L->wb[g] + 1]++;
    for (int i = 0; i < L->n_in; i++) S.rd_off[l][i + 1] += S.rd_off[l][i];
    int *fill = malloc(sizeof(int) * (size_t)L->n_in);
    if (!fill) goto oom;
    memcpy(fill, S.rd_off[l], sizeof(int) * (size_t)L->n_in);
    for (int g = 0; g < L->n_gates; g++) S.rd[l][fill[L->wa[g]]++] = g << 1, S.rd[l][fill[L->wb[g]]++] = g << 1 | 1;
    free(fill);
  }
  if (free_units > 0) {
    /* about 150 proposals a unit (the checkerboard: 0.4 M, the script's
     * count; its 3.3 -> 1.9 cycles per gather) */
    const long iters = 150L * free_units < 2000000L ? 150L * free_units : 2000000L;
    uint64_t rng = 0x6a09e667f3bcc909ull;
    enum { CAP = 256 };
    int keys[CAP];
    for (long it = 0; it < iters; it++) {
      int lvl = 1 + (int)dlca__rand_below(&rng, (uint32_t)(S.NU - 1));
      const int n = U[lvl];
      const int u = (int)dlca__rand_below(&rng, (uint32_t)n), v = (int)dlca__rand_below(&rng, (uint32_t)n);
      const double p = (double)(dlca__splitmix64(&rng) >> 11) * (1.0 / 9007199254740992.0);
      if (u == v) continue;
      const int nk = touched(&S, lvl, u, v, keys, CAP - 4);
      const int before = cost_of(&S, keys, nk);
      swap_units(&S, lvl, u, v);
      /* the keys of the warps u and v moved to were taken before the swap;
       * the new ones are the same pair of warps */
      const int after = cost_of(&S, keys, nk);
      const double temp = 0.6 * (1.0 - (double)it / (double)iters);
      if (!(after <= before || (temp > 0 && p < exp((double)(before - after) / temp)))) swap_units(&S, lvl, u, v);
    }
  }
  for (int l = 0; l <= S.NU; l++) rows[l] = S.row[l], S.row[l] = NULL;
  search_free(&S);
  return DLCA_OK;
oom:
  search_free(&S);
  return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory (bank order)");
}
