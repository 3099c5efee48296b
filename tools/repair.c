/* Greedy repair of a hard circuit; see repair.h. */
#include "repair.h"
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

int repair_circuit(float *logits, size_t n_gates, int npg, int max_passes, repair_score_fn score,
                   repair_tick_fn tick, void *ctx, repair_result *out) {
  memset(out, 0, sizeof *out);
  dlca_eval best;
  int rc = score(ctx, logits, &best);
  if (rc) return rc;
  out->before = best, out->tried = 1;
  float keep[16];
  for (int pass = 0; pass < max_passes && best.errors > 0; pass++) {
    size_t changed = 0;
    out->passes = pass + 1;
    for (size_t g = 0; g < n_gates && best.errors > 0; g++) {
      const int cur = repair_hard_op(logits, npg, g);
      memcpy(keep, logits + (size_t)npg * g, sizeof(float) * (size_t)npg);
      for (int op = 0; op < 16; op++) {
        if (op == cur) continue;
        repair_set_op(logits, npg, g, op);
        dlca_eval ev;
        if ((rc = score(ctx, logits, &ev))) return rc;
        out->tried++;
        if (better(&ev, &best)) {
          best = ev, changed++;
          break;
        }
        memcpy(logits + (size_t)npg * g, keep, sizeof(float) * (size_t)npg);
      }
      if (tick && tick(ctx, pass, g + 1, n_gates, &best)) out->stopped = 1;
      if (out->stopped) break;
    }
    out->changed += changed;
    if (!changed || out->stopped) break;
  }
  out->after = best;
  return DLCA_OK;
}
