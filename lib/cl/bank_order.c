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
 * pairs of distinct inputs in one bank. Two of three proposals are aimed: a
 * gather whose inputs share a bank moves one of them to a bank it lacks, or
 * moves the gate that reads it to another warp (random swaps alone stall
 * near 1.9 cycles a gather; aimed ones reach 1.2 with 1200 proposals a
 * unit: doc/performance.md, "What is fast, and why"). A fixed seed and effort (`proposals` a
 * hidden unit, the tunable BWD_BANKS_EFFORT): the same model always gets
 * the same order. Host code only; no twin (the
 * order changes no value: lib/cl/trainer/ keeps every sum in the model's
 * order, tests/test_trainer.c checks bit for bit). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
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
  int key0[DLCA_MAX_LAYERS]; /* the index in cost of layer i's first gather */
  int *cost;                 /* each gather's cost, as gather_cost last found it */
} search;

static int key_index(const search *S, int key) { return S->key0[key >> 24] + (key & 0xFFFFFF); }

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

/* The summed costs of the gathers keys as they stand, each stored into cost. */
static int cost_of(search *S, const int *keys, int n) {
  int c = 0;
  for (int k = 0; k < n; k++)
    c += S->cost[key_index(S, keys[k])] = gather_cost(S, keys[k] >> 24, (keys[k] & 0xFFFFFF) >> 1, keys[k] & 1);
  return c;
}

/* An aimed proposal (kind 1 or 2) at level lvl: a random gather of layer lvl
 * (kind 1) or lvl - 1 (kind 2); if its distinct inputs share a bank, *u gets
 * one of those inputs (kind 1; *v a unit in a bank the gather lacks) or the
 * gate that reads it (kind 2; *v stays random). 0: nothing to aim at. */
static int aim(search *S, uint64_t *rng, int kind, int lvl, int *u, int *v) {
  const int i = kind == 1 ? lvl : lvl - 1, n = S->m->shape.update_layers[lvl];
  const dlca_layer *L = &S->m->update[i];
  const int w = (int)dlca__rand_below(rng, (uint32_t)((L->n_gates + BANKS - 1) / BANKS));
  const int32_t *wire = dlca__rand_below(rng, 2) ? L->wb : L->wa;
  if (kind == 1 && (n <= BANKS || n % BANKS)) return 0;
  int cnt[BANKS] = {0}, in[BANKS], gate[BANKS], nin = 0;
  const unsigned stamp = ++S->stamp;
  for (int r = w * BANKS; r < (w + 1) * BANKS && r < L->n_gates; r++) {
    const int x = wire[S->at[i + 1][r]];
    if (S->mark[x] == stamp) continue;
    S->mark[x] = stamp, cnt[S->row[i][x] % BANKS]++, gate[nin] = S->at[i + 1][r], in[nin++] = x;
  }
  int shared[BANKS], ns = 0, lacks[BANKS], nl = 0;
  for (int k = 0; k < nin; k++)
    if (cnt[S->row[i][in[k]] % BANKS] > 1) shared[ns++] = k;
  for (int b = 0; b < BANKS; b++)
    if (!cnt[b]) lacks[nl++] = b;
  if (!ns || (kind == 1 && !nl)) return 0;
  const int k = shared[dlca__rand_below(rng, (uint32_t)ns)];
  if (kind == 2) {
    *u = gate[k];
    return 1;
  }
  *u = in[k];
  *v = S->at[lvl][lacks[dlca__rand_below(rng, (uint32_t)nl)] + BANKS * (int)dlca__rand_below(rng, (uint32_t)(n / BANKS))];
  return 1;
}

static void swap_units(search *S, int lvl, int u, int v) {
  const int ru = S->row[lvl][u], rv = S->row[lvl][v];
  S->row[lvl][u] = rv, S->row[lvl][v] = ru;
  S->at[lvl][rv] = u, S->at[lvl][ru] = v;
}

static void search_free(search *S) {
  free(S->mark), free(S->cost);
  for (int l = 0; l <= S->NU; l++) free(S->row[l]), free(S->at[l]);
  for (int l = 0; l < S->NU; l++) free(S->rd_off[l]), free(S->rd[l]);
}

/* S for model m: every level's units in their order, and for each layer
 * the gates that read each input (rd_off/rd, gate << 1 | side); the
 * number of units free to move into *free_units. A status. */
static int search_init(search *S, const dlca_model *m, int *free_units) {
  memset(S, 0, sizeof *S);
  S->m = m, S->NU = m->n_update;
  const int *U = m->shape.update_layers;
  int widest = 1;
  *free_units = 0;
  for (int l = 0; l <= S->NU; l++) widest = U[l] > widest ? U[l] : widest;
  if (!(S->mark = calloc((size_t)widest, sizeof(unsigned)))) return DLCA_ENOMEM;
  for (int l = 0; l <= S->NU; l++) {
    S->row[l] = malloc(sizeof(int) * (size_t)U[l]), S->at[l] = malloc(sizeof(int) * (size_t)U[l]);
    if (!S->row[l] || !S->at[l]) return DLCA_ENOMEM;
    for (int u = 0; u < U[l]; u++) S->row[l][u] = S->at[l][u] = u;
    if (l > 0 && l < S->NU) *free_units += U[l];
  }
  for (int l = 0; l < S->NU; l++) {
    const dlca_layer *L = &m->update[l];
    S->rd_off[l] = calloc((size_t)L->n_in + 1, sizeof(int)), S->rd[l] = malloc(sizeof(int) * 2 * (size_t)L->n_gates);
    if (!S->rd_off[l] || !S->rd[l]) return DLCA_ENOMEM;
    for (int g = 0; g < L->n_gates; g++) S->rd_off[l][L->wa[g] + 1]++, S->rd_off[l][L->wb[g] + 1]++;
    for (int i = 0; i < L->n_in; i++) S->rd_off[l][i + 1] += S->rd_off[l][i];
    int *fill = malloc(sizeof(int) * (size_t)L->n_in);
    if (!fill) return DLCA_ENOMEM;
    memcpy(fill, S->rd_off[l], sizeof(int) * (size_t)L->n_in);
    for (int g = 0; g < L->n_gates; g++) S->rd[l][fill[L->wa[g]]++] = g << 1, S->rd[l][fill[L->wb[g]]++] = g << 1 | 1;
    free(fill);
  }
  int nkeys = 0;
  for (int i = 0; i < S->NU; i++) S->key0[i] = nkeys, nkeys += 2 * ((U[i + 1] + BANKS - 1) / BANKS);
  if (!(S->cost = malloc(sizeof(int) * (size_t)nkeys))) return DLCA_ENOMEM;
  for (int i = 0; i < S->NU; i++)
    for (int w = 0; w < (U[i + 1] + BANKS - 1) / BANKS; w++)
      for (int sd = 0; sd < 2; sd++) S->cost[S->key0[i] + 2 * w + sd] = gather_cost(S, i, w, sd);
  return DLCA_OK;
}

/* The annealing: iters proposals, each a swap of two units of one level,
 * kept when it lowers the cost, or by the Metropolis rule at a temperature
 * falling from 0.2 to 0. */
static void anneal(search *S, long iters) {
  const int *U = S->m->shape.update_layers;
  uint64_t rng = 0x6a09e667f3bcc909ull;
  enum { CAP = 256 };
  int keys[CAP], old[CAP];
  for (long it = 0; it < iters; it++) {
    int lvl = 1 + (int)dlca__rand_below(&rng, (uint32_t)(S->NU - 1));
    const int n = U[lvl], kind = (int)dlca__rand_below(&rng, 3);
    int u = (int)dlca__rand_below(&rng, (uint32_t)n), v = (int)dlca__rand_below(&rng, (uint32_t)n);
    const double p = (double)(dlca__splitmix64(&rng) >> 11) * (1.0 / 9007199254740992.0);
    if (kind && !aim(S, &rng, kind, lvl, &u, &v)) continue;
    if (u == v) continue;
    /* (a unit read by more than about 250 gates would overflow keys:
     * the gathers left out keep a stale cost, which costs the search
     * quality, never the order's validity) */
    const int nk = touched(S, lvl, u, v, keys, CAP - 4);
    /* their costs before the swap, as last stored */
    int before = 0;
    for (int k = 0; k < nk; k++) before += old[k] = S->cost[key_index(S, keys[k])];
    swap_units(S, lvl, u, v);
    /* the keys of the warps u and v moved to were taken before the swap;
     * the new ones are the same pair of warps */
    const int after = cost_of(S, keys, nk);
    const double temp = 0.2 * (1.0 - (double)it / (double)iters);
    if (!(after <= before || (temp > 0 && p < exp((double)(before - after) / temp)))) {
      swap_units(S, lvl, u, v);
      for (int k = 0; k < nk; k++) S->cost[key_index(S, keys[k])] = old[k];
    }
  }
}

int dlca__bank_order(const dlca_model *m, int proposals, int **rows) {
  search S;
  int free_units;
  if (search_init(&S, m, &free_units)) {
    search_free(&S);
    return dlca__fail(DLCA_ENOMEM, "OpenCL trainer: out of host memory (bank order)");
  }
  /* `proposals` a unit, at most 20 M (the checkerboard at 1200: 2.9 M,
   * 3.3 -> 1.2 cycles per gather) */
  const long iters = (long)proposals * free_units < 20000000L ? (long)proposals * free_units : 20000000L;
  if (free_units > 0) anneal(&S, iters);
  for (int l = 0; l <= S.NU; l++) rows[l] = S.row[l], S.row[l] = NULL;
  search_free(&S);
  return DLCA_OK;
}

/* The cache key of an order: the search's version (change it with the
 * search), the effort, the update layers' sizes and wires. */
#define ORDER_VERSION "dlca_cl bank order 2 (aimed swaps)"
static uint64_t order_key(const dlca_model *m, int proposals) {
  XXH3_state_t *h = XXH3_createState();
  if (!h) return 0;
  XXH3_64bits_reset(h);
  XXH3_64bits_update(h, ORDER_VERSION, sizeof ORDER_VERSION);
  XXH3_64bits_update(h, &proposals, sizeof proposals);
  XXH3_64bits_update(h, &m->n_update, sizeof m->n_update);
  XXH3_64bits_update(h, m->shape.update_layers, sizeof(int) * (size_t)(m->n_update + 1));
  for (int l = 0; l < m->n_update; l++) {
    XXH3_64bits_update(h, m->update[l].wa, sizeof(int32_t) * (size_t)m->update[l].n_gates);
    XXH3_64bits_update(h, m->update[l].wb, sizeof(int32_t) * (size_t)m->update[l].n_gates);
  }
  uint64_t k = XXH3_64bits_digest(h);
  XXH3_freeState(h);
  return k;
}

/* The rows of an order: one a unit of every level. */
static size_t order_units(const dlca_model *m) {
  size_t n = 0;
  for (int l = 0; l <= m->n_update; l++) n += (size_t)m->shape.update_layers[l];
  return n;
}

/* rows from a cache payload: every level's rows, a permutation each. 0 if
 * the payload is one. */
static int rows_from(const dlca_model *m, const unsigned char *p, size_t len, int **rows) {
  const int *U = m->shape.update_layers;
  size_t widest = 1;
  for (int l = 0; l <= m->n_update; l++) widest = (size_t)U[l] > widest ? (size_t)U[l] : widest;
  if (len != order_units(m) * sizeof(int32_t)) return 1;
  unsigned char *seen = malloc(widest);
  if (!seen) return 1;
  int bad = 0;
  for (int l = 0; l <= m->n_update && !bad; l++) {
    memset(seen, 0, widest);
    if (!(rows[l] = malloc(sizeof(int) * (size_t)U[l]))) bad = 1;
    for (int u = 0; u < U[l] && !bad; u++) {
      int32_t r;
      memcpy(&r, p, sizeof r), p += sizeof r;
      bad = r < 0 || r >= U[l] || seen[r];
      if (!bad) seen[r] = 1, rows[l][u] = r;
    }
  }
  free(seen);
  if (bad)
    for (int l = 0; l <= m->n_update; l++) free(rows[l]), rows[l] = NULL;
  return bad;
}

int dlca__bank_order_cached(dlca_context *ctx, const dlca_model *m, int proposals, int **rows, int *from_cache) {
  char path[1200];
  const uint64_t key = order_key(m, proposals);
  unsigned char *p;
  size_t len;
  dlca__cache_id ck;
  dlca__cache_key_hash(&ck, &key);
  if (from_cache) *from_cache = 0;
  for (int l = 0; l <= m->n_update; l++) rows[l] = NULL;
  if (ctx->cache_on && key) {
    dlca__cache_order_path(ctx->cache_dir, key, path, sizeof path);
    if (dlca__cache_load(path, &ck, &p, &len) == 0) {
      const int bad = rows_from(m, p, len, rows);
      free(p);
      if (!bad) {
        if (from_cache) *from_cache = 1;
        return DLCA_OK;
      }
      unlink(path); /* well formed, but not this model's: computed again */
    }
  }
  int rc = dlca__bank_order(m, proposals, rows);
  if (rc || !ctx->cache_on || !key) return rc;
  int32_t *out = malloc(sizeof(int32_t) * order_units(m));
  if (!out) return DLCA_OK; /* the order stands; only its entry is lost */
  size_t n = 0;
  for (int l = 0; l <= m->n_update; l++)
    for (int u = 0; u < m->shape.update_layers[l]; u++) out[n++] = rows[l][u];
  if (dlca__cache_store(path, &ck, (const unsigned char *)out, sizeof(int32_t) * n) != DLCA_OK)
    dlca__warn(ctx, "bank order cache: %s", dlca_last_error());
  free(out);
  return DLCA_OK;
}
