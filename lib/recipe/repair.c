/* Greedy repair of a hard circuit; see repair.h. */
#include "recipe/repair.h"
#include <stdlib.h>
#include <string.h>

int dlca__repair_hard_op(const float *logits, int npg, size_t g) {
  const float *l = logits + (size_t)npg * g;
  if (npg == 4) return 8 * (l[0] > 0.0f) + 4 * (l[1] > 0.0f) + 2 * (l[2] > 0.0f) + (l[3] > 0.0f);
  int best = 0;
  for (int i = 1; i < 16; i++)
    if (l[i] > l[best]) best = i;
  return best;
}

void dlca__repair_set_op(float *logits, int npg, size_t g, int op) {
  float *l = logits + (size_t)npg * g;
  if (npg == 4) {
    for (int i = 0; i < 4; i++) {
      const int on = (op >> (3 - i)) & 1;
      if (on != (l[i] > 0.0f)) l[i] = on ? (l[i] < 0.0f ? -l[i] : 1e-3f) : (l[i] > 0.0f ? -l[i] : -1e-3f);
    }
    return;
  }
  float mx = l[0];
  for (int i = 1; i < 16; i++)
    if (l[i] > mx) mx = l[i];
  if (dlca__repair_hard_op(logits, npg, g) != op) l[op] = mx + 1.0f;
}

/* (errors, hard loss), lexicographically */
static int better(const dlca_eval *a, const dlca_eval *b) {
  return a->errors < b->errors || (a->errors == b->errors && a->hard_loss < b->hard_loss);
}

int dlca__repair_search(const dlca__repair_circuit_ops *ops, void *c, int max_passes, dlca__repair_tick_fn tick, void *ctx,
                  dlca_repair_result *out) {
  memset(out, 0, sizeof *out);
  const size_t block = ops->block ? ops->block : 1, nmax = 15 * block;
  size_t *gates = malloc(sizeof(size_t) * nmax);
  uint8_t *cand = malloc(nmax);
  dlca_eval *ev = malloc(sizeof(dlca_eval) * nmax);
  uint8_t *live = ops->live ? malloc(ops->n_gates ? ops->n_gates : 1) : NULL;
  int rc = gates && cand && ev && (live || !ops->live) ? ops->score(c, &out->before) : DLCA_ENOMEM;
  if (!rc && live) ops->live(c, live);
  dlca_eval best = out->before;
  out->tried = 1;
  for (int pass = 0; !rc && pass < max_passes && best.errors > 0 && !out->stopped; pass++) {
    size_t changed = 0;
    out->passes = pass + 1;
    for (size_t g0 = 0; !rc && g0 < ops->n_gates && best.errors > 0;) {
      const size_t g1 = g0 + block < ops->n_gates ? g0 + block : ops->n_gates;
      size_t n = 0;
      for (size_t g = g0; g < g1; g++) {
        if (live && !live[g]) continue;
        const int cur = ops->get_op(c, g);
        for (int op = 0; op < 16; op++)
          if (op != cur) gates[n] = g, cand[n++] = (uint8_t)op;
      }
      if (n && (rc = ops->variants(c, n, gates, cand, ev))) break;
      size_t next = g1, i = 0;
      for (; i < n; i++)
        if (better(&ev[i], &best)) break;
      out->tried += i < n ? i + 1 : n; /* the serial search would have stopped at the kept one */
      if (i < n) {
        if ((rc = ops->set_op(c, gates[i], cand[i]))) break;
        best = ev[i], changed++, next = gates[i] + 1;
        if (live) ops->live(c, live); /* the new op may read other inputs, or ignore some */
      }
      g0 = next;
      if (tick && tick(ctx, pass, g0, ops->n_gates, &best)) out->stopped = 1;
      if (out->stopped) break;
    }
    out->changed += changed;
    if (!changed) break;
  }
  out->after = best;
  free(gates), free(cand), free(ev), free(live);
  return rc;
}

/* Logits scored one circuit at a time by the caller. */
typedef struct logits_circuit {
  float *logits;
  int npg;
  dlca__repair_score_fn score;
  void *ctx;
} logits_circuit;

static int logits_score(void *c, dlca_eval *out) {
  logits_circuit *l = c;
  return l->score(l->ctx, l->logits, out);
}

static int logits_variants(void *c, size_t n, const size_t *gates, const uint8_t *ops, dlca_eval *out) {
  logits_circuit *l = c;
  float keep[16];
  for (size_t i = 0; i < n; i++) {
    float *lg = l->logits + (size_t)l->npg * gates[i];
    memcpy(keep, lg, sizeof(float) * (size_t)l->npg);
    dlca__repair_set_op(l->logits, l->npg, gates[i], ops[i]);
    int rc = l->score(l->ctx, l->logits, &out[i]);
    memcpy(lg, keep, sizeof(float) * (size_t)l->npg);
    if (rc) return rc;
  }
  return DLCA_OK;
}

static int logits_get_op(void *c, size_t g) {
  logits_circuit *l = c;
  return dlca__repair_hard_op(l->logits, l->npg, g);
}

static int logits_set_op(void *c, size_t g, int op) {
  logits_circuit *l = c;
  dlca__repair_set_op(l->logits, l->npg, g, op);
  return DLCA_OK;
}

int dlca__repair_circuit(float *logits, size_t n_gates, int npg, int max_passes, dlca__repair_score_fn score,
                   dlca__repair_tick_fn tick, void *ctx, dlca_repair_result *out) {
  logits_circuit l = {logits, npg, score, ctx};
  /* one gate per block: a kept change ends the gate's candidates, as before */
  const dlca__repair_circuit_ops ops = {logits_score, logits_variants, logits_get_op, logits_set_op, NULL, n_gates, 1};
  return dlca__repair_search(&ops, &l, max_passes, tick, ctx, out);
}

static int bits_score(void *c, dlca_eval *out) { return dlca_bits_run(c, out, NULL); }
static int bits_variants(void *c, size_t n, const size_t *gates, const uint8_t *ops, dlca_eval *out) {
  return dlca_bits_run_variants(c, n, NULL, gates, ops, out);
}
static int bits_get_op(void *c, size_t g) { return dlca_bits_op(c, g); }
static int bits_set_op(void *c, size_t g, int op) { return dlca_bits_set_op(c, g, op); }
static void bits_live(void *c, uint8_t *live) {
  if (!dlca_bits_live_gates(c, live)) memset(live, 1, dlca_bits_n_gates(c)); /* none, or out of memory: all */
}

int dlca__repair_bits(dlca_bits *b, int max_passes, dlca__repair_tick_fn tick, void *ctx, dlca_repair_result *out) {
  /* 64 gates (960 variants) a call: enough for every thread, and a kept
   * change (a few per pass) wastes at most one block */
  const dlca__repair_circuit_ops ops = {bits_score,  bits_variants, bits_get_op, bits_set_op,
                                  bits_live,   dlca_bits_n_gates(b), 64};
  return dlca__repair_search(&ops, b, max_passes, tick, ctx, out);
}

/* The evolution's state: P lineages of G ops each, L offspring a lineage a
 * generation, each at most k changes from its lineage. Offspring i is the
 * changes [first[i], first[i + 1]) of gates/ops: its lineage's drift from
 * base, then, from own[i], its own mutations. */
typedef struct evo {
  size_t G, P, L, k, n, cap;
  uint8_t *base, *lin, *ops;
  size_t *diff, *first, *own, *gates;
  dlca_eval *ev, *cur;
} evo;

static void evo_free(evo *e) {
  free(e->base), free(e->lin), free(e->diff), free(e->first), free(e->own), free(e->gates), free(e->ops);
  free(e->ev), free(e->cur);
}

static int evo_alloc(evo *e, size_t G, const dlca__evolve_params *p) {
  memset(e, 0, sizeof *e);
  e->G = G, e->P = (size_t)p->lineages, e->L = (size_t)p->lambda, e->k = (size_t)p->max_changes;
  e->n = e->P * e->L, e->cap = e->n * (e->k + 16);
  e->base = malloc(G), e->lin = malloc(e->P * G), e->ops = malloc(e->cap);
  e->diff = malloc(sizeof(size_t) * G), e->first = malloc(sizeof(size_t) * (e->n + 1));
  e->own = malloc(sizeof(size_t) * e->n), e->gates = malloc(sizeof(size_t) * e->cap);
  e->ev = malloc(sizeof(dlca_eval) * e->n), e->cur = malloc(sizeof(dlca_eval) * e->P);
  return e->base && e->lin && e->ops && e->diff && e->first && e->own && e->gates && e->ev && e->cur ? DLCA_OK
                                                                                                      : DLCA_ENOMEM;
}

/* Room for `need` changes in gates/ops. */
static int evo_reserve(evo *e, size_t need) {
  if (need <= e->cap) return DLCA_OK;
  e->cap = 2 * need;
  size_t *g2 = realloc(e->gates, sizeof(size_t) * e->cap);
  uint8_t *o2 = g2 ? realloc(e->ops, e->cap) : NULL;
  if (g2) e->gates = g2;
  if (o2) e->ops = o2;
  return g2 && o2 ? DLCA_OK : DLCA_ENOMEM;
}

/* Generation gen's offspring: each its lineage's drift, then 1 to k
 * mutations drawn from (seed, the generation's stream, the offspring). */
static int evo_breed(evo *e, const dlca__evolve_params *p, uint64_t gen) {
  const uint32_t stream = (uint32_t)gen ^ (uint32_t)(gen >> 32) * 0x9E3779B9u;
  const size_t G = e->G, L = e->L, k = e->k;
  size_t ne = 0;
  for (size_t l = 0; l < e->P; l++) {
    size_t nd = 0;
    for (size_t g = 0; g < G; g++)
      if (e->lin[l * G + g] != e->base[g]) e->diff[nd++] = g;
    if (evo_reserve(e, ne + L * (nd + k))) return DLCA_ENOMEM;
    for (size_t o = 0; o < L; o++) {
      const size_t i = l * L + o;
      e->first[i] = ne;
      for (size_t d = 0; d < nd; d++) e->gates[ne] = e->diff[d], e->ops[ne++] = e->lin[l * G + e->diff[d]];
      e->own[i] = ne;
      const uint32_t c0 = (uint32_t)(i * (k + 1) * 2);
      const size_t m = 1 + dlca_rng_u32(p->seed, stream, c0) % k;
      for (size_t j = 0; j < m; j++) {
        const uint32_t c = c0 + 2 * (uint32_t)(j + 1);
        const size_t g = dlca_rng_u32(p->seed, stream, c) % G;
        const uint32_t r = dlca_rng_u32(p->seed, stream, c + 1);
        e->gates[ne] = g;
        e->ops[ne++] = (uint8_t)(j == 0 ? (e->lin[l * G + g] + 1 + r % 15) % 16 : r % 16);
      }
    }
  }
  e->first[e->n] = ne;
  return DLCA_OK;
}

/* Each lineage takes its best offspring unless that is worse than it. */
static void evo_select(evo *e, dlca_evolve_result *out) {
  for (size_t l = 0; l < e->P; l++) {
    size_t w = l * e->L;
    for (size_t o = 1; o < e->L; o++)
      if (better(&e->ev[l * e->L + o], &e->ev[w])) w = l * e->L + o;
    if (better(&e->cur[l], &e->ev[w])) continue;
    for (size_t c = e->own[w]; c < e->first[w + 1]; c++) e->lin[l * e->G + e->gates[c]] = e->ops[c];
    out->improved += better(&e->ev[w], &e->cur[l]);
    out->taken++;
    e->cur[l] = e->ev[w];
  }
}

/* The best lineage; every migrate_every generations it replaces the worst. */
static size_t evo_best(evo *e, const dlca__evolve_params *p, uint64_t gen) {
  size_t best = 0, worst = 0;
  for (size_t l = 1; l < e->P; l++) {
    if (better(&e->cur[l], &e->cur[best])) best = l;
    if (!better(&e->cur[l], &e->cur[worst])) worst = l;
  }
  if (p->migrate_every > 0 && (gen + 1) % (uint64_t)p->migrate_every == 0 && worst != best) {
    memcpy(e->lin + worst * e->G, e->lin + best * e->G, e->G);
    e->cur[worst] = e->cur[best];
  }
  return best;
}

int dlca__repair_evolve(dlca_bits *b, const dlca__evolve_params *p, dlca__repair_tick_fn tick, void *ctx, dlca_evolve_result *out) {
  memset(out, 0, sizeof *out);
  const size_t G = dlca_bits_n_gates(b);
  if (p->lineages < 1 || p->lambda < 1 || p->max_changes < 1 || G < 1) return DLCA_EINVAL;
  evo e;
  int rc = evo_alloc(&e, G, p);
  if (!rc) rc = dlca_bits_run(b, &out->before, NULL);
  for (size_t g = 0; !rc && g < G; g++) e.base[g] = (uint8_t)dlca_bits_op(b, g);
  for (size_t l = 0; !rc && l < e.P; l++) memcpy(e.lin + l * G, e.base, G), e.cur[l] = out->before;
  out->scored = 1;
  size_t best = 0;
  for (uint64_t gen = 0; !rc && gen < p->generations && e.cur[best].errors > 0; gen++) {
    if ((rc = evo_breed(&e, p, gen)) || (rc = dlca_bits_run_variants(b, e.n, e.first, e.gates, e.ops, e.ev))) break;
    out->scored += e.n;
    out->generations = gen + 1;
    evo_select(&e, out);
    best = evo_best(&e, p, gen);
    if (tick && ((gen + 1) % 64 == 0 || gen + 1 == p->generations || e.cur[best].errors == 0) &&
        tick(ctx, 0, (size_t)(gen + 1), (size_t)p->generations, &e.cur[best])) {
      out->stopped = 1;
      break;
    }
  }
  out->after = out->before;
  if (!rc && out->generations) {
    for (size_t g = 0; g < G && !rc; g++)
      if (e.lin[best * G + g] != e.base[g]) rc = dlca_bits_set_op(b, g, e.lin[best * G + g]), out->drift++;
    out->after = e.cur[best];
  }
  evo_free(&e);
  return rc;
}

/* Sets gates[0..n) to their orig ops and keeps that unless it is worse
 * than *cur; else the same for each half. */
static int tidy_set(dlca_bits *b, const uint8_t *orig, const size_t *gates, size_t n, dlca_eval *cur,
                    size_t *reverted) {
  if (!n) return DLCA_OK;
  uint8_t *keep = malloc(n);
  if (!keep) return DLCA_ENOMEM;
  int rc = DLCA_OK;
  for (size_t i = 0; i < n; i++) keep[i] = (uint8_t)dlca_bits_op(b, gates[i]);
  for (size_t i = 0; i < n && !rc; i++) rc = dlca_bits_set_op(b, gates[i], orig[gates[i]]);
  dlca_eval ev;
  if (!rc && !(rc = dlca_bits_run(b, &ev, NULL)) && !better(cur, &ev)) {
    *cur = ev, *reverted += n;
    free(keep);
    return DLCA_OK;
  }
  for (size_t i = 0; i < n && !rc; i++) rc = dlca_bits_set_op(b, gates[i], keep[i]);
  free(keep);
  if (rc || n == 1) return rc;
  if ((rc = tidy_set(b, orig, gates, n / 2, cur, reverted))) return rc;
  return tidy_set(b, orig, gates + n / 2, n - n / 2, cur, reverted);
}

int dlca__repair_tidy(dlca_bits *b, const uint8_t *orig_ops, size_t *reverted) {
  *reverted = 0;
  const size_t G = dlca_bits_n_gates(b);
  size_t *gates = malloc(sizeof(size_t) * (G ? G : 1)), n = 0;
  if (!gates) return DLCA_ENOMEM;
  for (size_t g = 0; g < G; g++)
    if (dlca_bits_op(b, g) != orig_ops[g]) gates[n++] = g;
  dlca_eval cur;
  int rc = dlca_bits_run(b, &cur, NULL);
  if (!rc) rc = tidy_set(b, orig_ops, gates, n, &cur, reverted);
  /* a gate that a kept revert left dead (no live gate reads it any more) goes
   * back too: its op cannot change the score, nor which gates are live */
  uint8_t *live = rc ? NULL : malloc(G ? G : 1);
  if (live && dlca_bits_live_gates(b, live))
    for (size_t g = 0; g < G && !rc; g++)
      if (!live[g] && dlca_bits_op(b, g) != orig_ops[g]) rc = dlca_bits_set_op(b, g, orig_ops[g]), (*reverted)++;
  free(live);
  free(gates);
  return rc;
}
