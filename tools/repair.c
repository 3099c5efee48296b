/* Greedy repair of a hard circuit; see repair.h. */
#include "repair.h"
#include <stdlib.h>
#include <string.h>

int repair_hard_op(const float *logits, int npg, size_t g) {
  const float *l = logits + (size_t)npg * g;
  if (npg == 4) return 8 * (l[0] > 0.0f) + 4 * (l[1] > 0.0f) + 2 * (l[2] > 0.0f) + (l[3] > 0.0f);
  int best = 0;
  for (int i = 1; i < 16; i++)
    if (l[i] > l[best]) best = i;
  return best;
}

void repair_set_op(float *logits, int npg, size_t g, int op) {
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
  if (repair_hard_op(logits, npg, g) != op) l[op] = mx + 1.0f;
}

/* (errors, hard loss), lexicographically */
static int better(const dlca_eval *a, const dlca_eval *b) {
  return a->errors < b->errors || (a->errors == b->errors && a->hard_loss < b->hard_loss);
}

int repair_search(const repair_circuit_ops *ops, void *c, int max_passes, repair_tick_fn tick, void *ctx,
                  repair_result *out) {
  memset(out, 0, sizeof *out);
  const size_t block = ops->block ? ops->block : 1, nmax = 15 * block;
  size_t *gates = malloc(sizeof(size_t) * nmax);
  uint8_t *cand = malloc(nmax);
  dlca_eval *ev = malloc(sizeof(dlca_eval) * nmax);
  int rc = gates && cand && ev ? ops->score(c, &out->before) : DLCA_ENOMEM;
  dlca_eval best = out->before;
  out->tried = 1;
  for (int pass = 0; !rc && pass < max_passes && best.errors > 0 && !out->stopped; pass++) {
    size_t changed = 0;
    out->passes = pass + 1;
    for (size_t g0 = 0; !rc && g0 < ops->n_gates && best.errors > 0;) {
      const size_t g1 = g0 + block < ops->n_gates ? g0 + block : ops->n_gates;
      size_t n = 0;
      for (size_t g = g0; g < g1; g++) {
        const int cur = ops->get_op(c, g);
        for (int op = 0; op < 16; op++)
          if (op != cur) gates[n] = g, cand[n++] = (uint8_t)op;
      }
      if ((rc = ops->variants(c, n, gates, cand, ev))) break;
      size_t next = g1, i = 0;
      for (; i < n; i++)
        if (better(&ev[i], &best)) break;
      out->tried += i < n ? i + 1 : n; /* the serial search would have stopped at the kept one */
      if (i < n) {
        if ((rc = ops->set_op(c, gates[i], cand[i]))) break;
        best = ev[i], changed++, next = gates[i] + 1;
      }
      g0 = next;
      if (tick && tick(ctx, pass, g0, ops->n_gates, &best)) out->stopped = 1;
      if (out->stopped) break;
    }
    out->changed += changed;
    if (!changed) break;
  }
  out->after = best;
  free(gates), free(cand), free(ev);
  return rc;
}

/* Logits scored one circuit at a time by the caller. */
typedef struct logits_circuit {
  float *logits;
  int npg;
  repair_score_fn score;
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
    repair_set_op(l->logits, l->npg, gates[i], ops[i]);
    int rc = l->score(l->ctx, l->logits, &out[i]);
    memcpy(lg, keep, sizeof(float) * (size_t)l->npg);
    if (rc) return rc;
  }
  return DLCA_OK;
}

static int logits_get_op(void *c, size_t g) {
  logits_circuit *l = c;
  return repair_hard_op(l->logits, l->npg, g);
}

static int logits_set_op(void *c, size_t g, int op) {
  logits_circuit *l = c;
  repair_set_op(l->logits, l->npg, g, op);
  return DLCA_OK;
}

int repair_circuit(float *logits, size_t n_gates, int npg, int max_passes, repair_score_fn score,
                   repair_tick_fn tick, void *ctx, repair_result *out) {
  logits_circuit l = {logits, npg, score, ctx};
  /* one gate per block: a kept change ends the gate's candidates, as before */
  const repair_circuit_ops ops = {logits_score, logits_variants, logits_get_op, logits_set_op, n_gates, 1};
  return repair_search(&ops, &l, max_passes, tick, ctx, out);
}

static int bits_score(void *c, dlca_eval *out) { return dlca_bits_run(c, out, NULL); }
static int bits_variants(void *c, size_t n, const size_t *gates, const uint8_t *ops, dlca_eval *out) {
  return dlca_bits_run_variants(c, n, gates, ops, out);
}
static int bits_get_op(void *c, size_t g) { return dlca_bits_op(c, g); }
static int bits_set_op(void *c, size_t g, int op) { return dlca_bits_set_op(c, g, op); }

int repair_bits(dlca_bits *b, int max_passes, repair_tick_fn tick, void *ctx, repair_result *out) {
  /* 64 gates (960 variants) a call: enough for every thread, and a kept
   * change (a few per pass) wastes at most one block */
  const repair_circuit_ops ops = {bits_score, bits_variants, bits_get_op, bits_set_op, dlca_bits_n_gates(b), 64};
  return repair_search(&ops, b, max_passes, tick, ctx, out);
}
