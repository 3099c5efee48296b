/* The hard circuit on packed bits (include/dlca_cl/bits.h, doc/bits.md).
 *
 * Layout: a plane is one channel (or one gate's output) of every cell of the
 * batch, cell j = (b H + r) W + q at bit j % 64 of word j / 64. A pass runs
 * `copies` planes side by side (copy v at word v * nwc), so that variants of
 * the circuit share every gate's loop; a variant's changed gate is redone on
 * its own copy's words after the shared op.
 *
 * Neighbours: patch element f of cell j is cell j + delta, where delta is
 * one of at most 4 values per f (wrap-around in rows and columns adds the
 * others); terms[f] holds each delta with the mask of the cells that use it
 * (no cell: the neighbour is outside a non-periodic grid and reads 0). */
#if defined(__GNUC__) && !defined(__clang__)
/* the word loops of gate_op vectorise at -O3 (1.4x on colour variants) */
#pragma GCC optimize("O3")
#endif
#include <stdlib.h>
#include <string.h>
#include "dlca_cl/bits.h"
#include "ref/ref_impl.h"
#include "train/epoch.h" /* dlca__eval_add */

typedef uint64_t word;

enum { MAX_TERMS = 4, TARGET_WORDS = 96 };

typedef struct shift_term {
  long delta;  /* bit i of the result reads bit i + delta */
  word *mask;  /* [copies_max * nwc] */
} shift_term;

struct dlca_bits {
  dlca_model *m;
  dlca_ref_layout lay;
  int B, H, W, C, T, async;
  int n_loss, loss[DLCA_MAX_LOSS_CHANNELS];
  size_t cells, n_gates;
  int nwc;         /* words per copy */
  int copies_max;  /* copies per pass of run_variants */
  uint8_t *ops;    /* [n_gates] */
  int nterms[9];
  shift_term terms[9][MAX_TERMS];
  word *valid;  /* [copies_max * nwc]: bits of real cells */
  word *fire;   /* async: [T][copies_max * nwc] */
  word *x;      /* start state [C][copies_max * nwc] */
  float *target;/* [cells][C] */
};

/* One pass's changes: gate g's are head[g], then next[...]; change e is
 * op[e] on copy copy[e] */
typedef struct variant_set {
  int32_t *head;      /* [n_gates], -1: none */
  int32_t *next;      /* [the group's changes] */
  uint8_t *op, *copy;
} variant_set;

/* A thread's planes for one pass. */
typedef struct workspace {
  int NW;           /* words per plane of the last rollout: copies * nwc */
  word *cur, *nxt;  /* [C][NW] */
  word *patch;      /* [9][NW] */
  word *pbuf;       /* perception layer outputs [sum of perception widths after 9][NW] */
  word *uin;        /* update input [C + C S K][NW] */
  word *ua, *ub;    /* update layers, ping-pong [max width][NW] */
} workspace;

static void gate_op(int op, const word *a, const word *b, word *o, int n) {
  switch (op) {
    case 0: for (int w = 0; w < n; w++) o[w] = 0; break;
    case 1: for (int w = 0; w < n; w++) o[w] = a[w] & b[w]; break;
    case 2: for (int w = 0; w < n; w++) o[w] = a[w] & ~b[w]; break;
    case 3: for (int w = 0; w < n; w++) o[w] = a[w]; break;
    case 4: for (int w = 0; w < n; w++) o[w] = ~a[w] & b[w]; break;
    case 5: for (int w = 0; w < n; w++) o[w] = b[w]; break;
    case 6: for (int w = 0; w < n; w++) o[w] = a[w] ^ b[w]; break;
    case 7: for (int w = 0; w < n; w++) o[w] = a[w] | b[w]; break;
    case 8: for (int w = 0; w < n; w++) o[w] = ~(a[w] | b[w]); break;
    case 9: for (int w = 0; w < n; w++) o[w] = ~(a[w] ^ b[w]); break;
    case 10: for (int w = 0; w < n; w++) o[w] = ~b[w]; break;
    case 11: for (int w = 0; w < n; w++) o[w] = a[w] | ~b[w]; break;
    case 12: for (int w = 0; w < n; w++) o[w] = ~a[w]; break;
    case 13: for (int w = 0; w < n; w++) o[w] = ~a[w] | b[w]; break;
    case 14: for (int w = 0; w < n; w++) o[w] = ~(a[w] & b[w]); break;
    default: for (int w = 0; w < n; w++) o[w] = ~(word)0; break;
  }
}

/* out |= (in shifted by delta) & mask over NW words */
static void or_shifted(word *out, const word *in, const word *mask, int NW, long delta) {
  const long k = delta >= 0 ? delta / 64 : -((-delta + 63) / 64);
  const int s = (int)(delta - 64 * k);
  for (int w = 0; w < NW; w++) {
    const long a = w + k;
    const word lo = a >= 0 && a < NW ? in[a] : 0;
    word v = lo;
    if (s) {
      const word hi = a + 1 >= 0 && a + 1 < NW ? in[a + 1] : 0;
      v = (lo >> s) | (hi << (64 - s));
    }
    out[w] |= v & mask[w];
  }
}


/* Whether op reads a (b): its truth table (bit 3 - (2a + b) is op(a, b))
 * differs between a = 0 and a = 1 for some b. */
static int reads_a(int op) { return ((op >> 3) & 1) != ((op >> 1) & 1) || ((op >> 2) & 1) != (op & 1); }
static int reads_b(int op) { return ((op >> 3) & 1) != ((op >> 2) & 1) || ((op >> 1) & 1) != (op & 1); }

/* What the loss needs of a circuit with these ops: gate[g] = 1 for a gate
 * whose output can reach the loss; state[c] = 1 for a channel whose state
 * some needed gate reads (or a loss channel); percept[c] = 1 where some
 * needed update gate reads a perception output of channel c. */
typedef struct live_marks {
  uint8_t *gate, *state, *percept;
  uint8_t *need, *need_in, *uin; /* scratch */
  int wmax;
} live_marks;

static void live_free(live_marks *lm) {
  free(lm->gate), free(lm->state), free(lm->percept), free(lm->need), free(lm->need_in), free(lm->uin);
  memset(lm, 0, sizeof *lm);
}

static int live_alloc(const dlca_bits *b, live_marks *lm) {
  memset(lm, 0, sizeof *lm);
  const dlca_model *m = b->m;
  int wmax = 9 + b->C;
  for (int l = 0; l < b->lay.nU; l++) wmax = m->update[l].n_in > wmax ? m->update[l].n_in : wmax;
  for (int l = 0; l < b->lay.nP; l++) wmax = m->perceive[l].n_in > wmax ? m->perceive[l].n_in : wmax;
  lm->wmax = wmax;
  lm->gate = malloc(b->n_gates ? b->n_gates : 1);
  lm->state = malloc((size_t)b->C), lm->percept = malloc((size_t)b->C);
  lm->need = malloc((size_t)wmax), lm->need_in = malloc((size_t)wmax), lm->uin = malloc((size_t)wmax);
  if (!lm->gate || !lm->state || !lm->percept || !lm->need || !lm->need_in || !lm->uin) {
    live_free(lm);
    return DLCA_ENOMEM;
  }
  return DLCA_OK;
}

/* Marks the gates of one layer whose output is in need[], and the inputs
 * those gates read through their ops into need_in[] (cleared first). */
static void live_layer(const uint8_t *ops, const dlca_layer *L, size_t g0, const uint8_t *need, uint8_t *need_in,
                       uint8_t *gate) {
  memset(need_in, 0, (size_t)L->n_in);
  for (int g = 0; g < L->n_gates; g++) {
    if (!need[g]) continue;
    const int op = ops[g0 + g];
    gate[g0 + g] = 1;
    if (reads_a(op)) need_in[L->wa[g]] = 1;
    if (reads_b(op)) need_in[L->wb[g]] = 1;
  }
}

/* Back from the loss channels through the ops' actual inputs, over every
 * step: a channel read by a needed gate is needed at every step, so the
 * marking repeats until no channel is added. Returns the needed gates. */
static size_t live_of(const dlca_bits *b, const uint8_t *ops, live_marks *lm) {
  const int C = b->C, K = b->lay.K, S = b->lay.S, nP = b->lay.nP, nU = b->lay.nU, nin = b->m->update[0].n_in;
  const dlca_model *m = b->m;
  memset(lm->state, 0, (size_t)C);
  for (int j = 0; j < b->n_loss; j++) lm->state[b->loss[j]] = 1;
  for (int changed = 1; changed;) {
    changed = 0;
    memset(lm->gate, 0, b->n_gates);
    memset(lm->percept, 0, (size_t)C);
    memset(lm->need, 0, (size_t)lm->wmax);
    memcpy(lm->need, lm->state, (size_t)C); /* the last update layer's C outputs */
    for (int l = nU - 1; l >= 0; l--) {
      const dlca_layer *L = &m->update[l];
      live_layer(ops, L, L->gate0, lm->need, lm->need_in, lm->gate);
      memcpy(lm->need, lm->need_in, (size_t)L->n_in);
    }
    memcpy(lm->uin, lm->need, (size_t)nin); /* C centre values, then the perception outputs */
    for (int c = 0; c < C; c++) {
      int reads = lm->uin[c];
      for (int k = 0; k < K; k++) {
        memset(lm->need, 0, (size_t)lm->wmax);
        int any = 0;
        for (int s = 0; s < S; s++) any |= lm->need[s] = lm->uin[C + c * S * K + s * K + k];
        if (!any) continue;
        lm->percept[c] = 1;
        for (int l = nP - 1; l >= 0; l--) {
          const dlca_layer *L = &m->perceive[l];
          live_layer(ops, L, L->gate0 + (size_t)k * L->n_gates, lm->need, lm->need_in, lm->gate);
          memcpy(lm->need, lm->need_in, (size_t)L->n_in);
        }
        for (int f = 0; f < 9; f++) reads |= lm->need[f];
      }
      if (reads && !lm->state[c]) lm->state[c] = 1, changed = 1;
    }
  }
  size_t n = 0;
  for (size_t g = 0; g < b->n_gates; g++) n += lm->gate[g];
  return n;
}

size_t dlca_bits_live_gates(const dlca_bits *b, uint8_t *live) {
  if (!b || !live) return 0;
  live_marks lm;
  if (live_alloc(b, &lm)) return 0;
  const size_t n = live_of(b, b->ops, &lm);
  memcpy(live, lm.gate, b->n_gates);
  live_free(&lm);
  return n;
}

/* One layer of gates over NW words; gate g of the layer is flat gate g0 + g.
 * With `need`, only the needed gates run (the others' planes keep garbage
 * that no needed gate reads). */
static void layer_bits(const dlca_bits *b, const variant_set *vs, const uint8_t *need, const dlca_layer *L,
                       size_t g0, const word *in, word *out, int NW) {
  const int nwc = b->nwc;
  for (int g = 0; g < L->n_gates; g++) {
    if (need && !need[g0 + g]) continue;
    const word *pa = in + (size_t)L->wa[g] * NW, *pb = in + (size_t)L->wb[g] * NW;
    word *po = out + (size_t)g * NW;
    gate_op(b->ops[g0 + g], pa, pb, po, NW);
    if (vs)
      for (int32_t e = vs->head[g0 + g]; e >= 0; e = vs->next[e]) {
        const size_t o = (size_t)vs->copy[e] * nwc;
        gate_op(vs->op[e], pa + o, pb + o, po + o, nwc);
      }
  }
}

/* T steps of `copies` copies from the start state; the final state is
 * ws->cur. With lm, only what it marks runs: the loss channels' state is
 * exact, the other channels' is not. */
static void rollout_bits(const dlca_bits *b, const variant_set *vs, const live_marks *lm, workspace *ws,
                         int copies) {
  const uint8_t *need = lm ? lm->gate : NULL;
  const int NW = copies * b->nwc, C = b->C, K = b->lay.K, S = b->lay.S, nP = b->lay.nP, nU = b->lay.nU;
  const dlca_model *m = b->m;
  ws->NW = NW;
  for (int c = 0; c < C; c++) memcpy(ws->cur + (size_t)c * NW, b->x + (size_t)c * b->copies_max * b->nwc, sizeof(word) * NW);
  for (int t = 0; t < b->T; t++) {
    for (int c = 0; c < C; c++) {
      const word *src = ws->cur + (size_t)c * NW;
      memcpy(ws->uin + (size_t)c * NW, src, sizeof(word) * NW);
      if (lm && !lm->percept[c]) continue; /* no needed gate reads this channel's perception */
      memset(ws->patch, 0, sizeof(word) * 9 * (size_t)NW);
      for (int f = 0; f < 9; f++)
        for (int i = 0; i < b->nterms[f]; i++)
          or_shifted(ws->patch + (size_t)f * NW, src, b->terms[f][i].mask, NW, b->terms[f][i].delta);
      for (int k = 0; k < K; k++) {
        const word *in = ws->patch;
        word *out = ws->pbuf;
        for (int l = 0; l < nP; l++) {
          const dlca_layer *L = &m->perceive[l];
          layer_bits(b, vs, need, L, L->gate0 + (size_t)k * L->n_gates, in, out, NW);
          in = out;
          out += (size_t)L->n_gates * NW;
        }
        /* doc/semantics.md section 3.2: output s of kernel k on channel c at C + c*(S*K) + s*K + k */
        for (int s = 0; s < S; s++)
          memcpy(ws->uin + (size_t)(C + c * S * K + s * K + k) * NW, in + (size_t)s * NW, sizeof(word) * NW);
      }
    }
    const word *in = ws->uin;
    for (int l = 0; l < nU; l++) {
      const dlca_layer *L = &m->update[l];
      word *out = l == nU - 1 ? ws->nxt : (l % 2 ? ws->ub : ws->ua);
      layer_bits(b, vs, need, L, L->gate0, in, out, NW);
      in = out;
    }
    const word *fire = b->async ? b->fire + (size_t)t * b->copies_max * b->nwc : NULL;
    for (int c = 0; c < C; c++) {
      word *n = ws->nxt + (size_t)c * NW;
      const word *o = ws->cur + (size_t)c * NW;
      for (int w = 0; w < NW; w++) {
        word v = n[w] & b->valid[w];
        if (fire) v = (v & fire[w]) | (o[w] & ~fire[w]);
        n[w] = v;
      }
    }
    word *tmp = ws->cur;
    ws->cur = ws->nxt, ws->nxt = tmp;
  }
}

static int bit_of(const word *plane, size_t j) { return (int)((plane[j / 64] >> (j % 64)) & 1u); }

/* The hard evaluation of copy v of the final state, as dlca__hard_eval's. */
static void eval_copy(const dlca_bits *b, const workspace *ws, int v, dlca_eval *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < b->cells; i++)
    for (int j = 0; j < b->n_loss; j++) {
      const int c = b->loss[j];
      dlca__eval_add(out, (double)bit_of(ws->cur + (size_t)c * ws->NW + (size_t)v * b->nwc, i) -
                              b->target[i * b->C + c]);
    }
  dlca__eval_end(out, b->cells * (size_t)b->n_loss);
}

static void ws_free(workspace *ws) {
  free(ws->cur), free(ws->nxt), free(ws->patch), free(ws->pbuf), free(ws->uin), free(ws->ua), free(ws->ub);
  memset(ws, 0, sizeof *ws);
}

static int ws_alloc(const dlca_bits *b, int copies, workspace *ws) {
  memset(ws, 0, sizeof *ws);
  const size_t NW = (size_t)copies * b->nwc;
  size_t pw = 0, uw = 0;
  for (int l = 0; l < b->lay.nP; l++) pw += (size_t)b->m->perceive[l].n_gates;
  for (int l = 0; l < b->lay.nU; l++)
    if ((size_t)b->m->update[l].n_gates > uw) uw = (size_t)b->m->update[l].n_gates;
  ws->cur = calloc((size_t)b->C * NW, sizeof(word));
  ws->nxt = calloc(uw * NW, sizeof(word)); /* the last update layer writes C planes; uw >= C */
  ws->patch = calloc(9 * NW, sizeof(word));
  ws->pbuf = calloc((pw ? pw : 1) * NW, sizeof(word));
  ws->uin = calloc((size_t)b->m->update[0].n_in * NW, sizeof(word));
  ws->ua = calloc(uw * NW, sizeof(word));
  ws->ub = calloc(uw * NW, sizeof(word));
  if (!ws->cur || !ws->nxt || !ws->patch || !ws->pbuf || !ws->uin || !ws->ua || !ws->ub) {
    ws_free(ws);
    return dlca__fail(DLCA_ENOMEM, "packed-bits circuit: out of memory for %d copies of %d words", copies, b->nwc);
  }
  return DLCA_OK;
}

void dlca_bits_free(dlca_bits *b) {
  if (!b) return;
  for (int f = 0; f < 9; f++)
    for (int i = 0; i < b->nterms[f]; i++) free(b->terms[f][i].mask);
  free(b->valid), free(b->fire), free(b->x), free(b->target), free(b->ops);
  dlca_model_free(b->m);
  free(b);
}

/* Sets bit j of every copy of a tiled plane. */
static void set_tiled(const dlca_bits *b, word *plane, size_t j) {
  for (int v = 0; v < b->copies_max; v++) plane[(size_t)v * b->nwc + j / 64] |= (word)1 << (j % 64);
}

static int build_terms(dlca_bits *b) {
  const size_t NWT = (size_t)b->copies_max * b->nwc;
  const int periodic = b->m->shape.periodic;
  for (int f = 0; f < 9; f++) {
    const int dr = f / 3 - 1, dq = f % 3 - 1;
    for (size_t j = 0; j < b->cells; j++) {
      const int q = (int)(j % (size_t)b->W), r = (int)(j / (size_t)b->W % (size_t)b->H);
      int rr = r + dr, qq = q + dq;
      if (periodic) {
        rr = (rr + b->H) % b->H;
        qq = (qq + b->W) % b->W;
      } else if (rr < 0 || rr >= b->H || qq < 0 || qq >= b->W) {
        continue;
      }
      const long delta = (long)(rr - r) * b->W + (qq - q);
      int i = 0;
      while (i < b->nterms[f] && b->terms[f][i].delta != delta) i++;
      if (i == b->nterms[f]) {
        if (i == MAX_TERMS) return dlca__fail(DLCA_EINVAL, "packed-bits circuit: more than %d neighbour shifts", MAX_TERMS);
        if (!(b->terms[f][i].mask = calloc(NWT, sizeof(word))))
          return dlca__fail(DLCA_ENOMEM, "packed-bits circuit: out of memory");
        b->terms[f][i].delta = delta;
        b->nterms[f]++;
      }
      set_tiled(b, b->terms[f][i].mask, j);
    }
  }
  return DLCA_OK;
}

int dlca_bits_new(const dlca_model *m, const dlca_run *run, const float *x, const float *target, dlca_bits **out) {
  if (!m || !run || !x || !target || !out) return dlca__fail(DLCA_EINVAL, "dlca_bits_new: NULL argument");
  *out = NULL;
  int rc = dlca_run_validate(m, run);
  if (rc) return rc;
  const int C = m->shape.channels;
  const size_t cells = (size_t)run->batch * run->height * run->width;
  for (size_t i = 0; i < cells * (size_t)C; i++)
    if (x[i] != 0.0f && x[i] != 1.0f)
      return dlca__fail(DLCA_EINVAL, "packed-bits circuit: start grid value %zu (cell %zu, channel %d) is %g, not 0 or 1",
                        i, i / (size_t)C, (int)(i % (size_t)C), (double)x[i]);
  dlca_bits *b = calloc(1, sizeof *b);
  if (!b) return dlca__fail(DLCA_ENOMEM, "packed-bits circuit: out of memory");
  if ((rc = dlca_model_clone(m, &b->m))) {
    free(b);
    return rc;
  }
  dlca__ref_layout(b->m, &b->lay);
  b->B = run->batch, b->H = run->height, b->W = run->width, b->C = C, b->T = run->steps, b->async = run->async;
  b->n_loss = run->n_loss_channels;
  memcpy(b->loss, run->loss_channels, sizeof b->loss);
  b->cells = cells;
  b->n_gates = dlca__model_n_gates(b->m);
  b->nwc = (int)((cells + 63) / 64);
  b->copies_max = b->nwc >= TARGET_WORDS ? 1 : TARGET_WORDS / b->nwc;
  if (b->copies_max > 64) b->copies_max = 64;
  const size_t NWT = (size_t)b->copies_max * b->nwc;
  b->ops = malloc(b->n_gates);
  b->valid = calloc(NWT, sizeof(word));
  b->x = calloc((size_t)C * NWT, sizeof(word));
  b->target = malloc(sizeof(float) * cells * (size_t)C);
  b->fire = run->async ? calloc((size_t)run->steps * NWT, sizeof(word)) : NULL;
  if (!b->ops || !b->valid || !b->x || !b->target || (run->async && !b->fire)) {
    dlca_bits_free(b);
    return dlca__fail(DLCA_ENOMEM, "packed-bits circuit: out of memory");
  }
  const int npg = dlca__model_npg(b->m);
  for (size_t g = 0; g < b->n_gates; g++)
    b->ops[g] = (uint8_t)dlca__hard_op(b->m->shape.parametrisation, b->m->params + (size_t)npg * g);
  memcpy(b->target, target, sizeof(float) * cells * (size_t)C);
  for (size_t j = 0; j < cells; j++) {
    set_tiled(b, b->valid, j);
    for (int c = 0; c < C; c++)
      if (x[j * C + c] != 0.0f) set_tiled(b, b->x + (size_t)c * NWT, j);
  }
  if (run->async)
    for (int t = 0; t < run->steps; t++)
      for (size_t j = 0; j < cells; j++) {
        const int q = (int)(j % (size_t)b->W), r = (int)(j / (size_t)b->W % (size_t)b->H),
                  bb = (int)(j / ((size_t)b->W * b->H));
        if (dlca_fire_mask(run, t, bb, r, q)) set_tiled(b, b->fire + (size_t)t * NWT, j);
      }
  if ((rc = build_terms(b))) {
    dlca_bits_free(b);
    return rc;
  }
  *out = b;
  return DLCA_OK;
}

size_t dlca_bits_n_gates(const dlca_bits *b) { return b ? b->n_gates : 0; }

int dlca_bits_op(const dlca_bits *b, size_t gate) { return b && gate < b->n_gates ? b->ops[gate] : -1; }

int dlca_bits_set_op(dlca_bits *b, size_t gate, int op) {
  if (!b) return dlca__fail(DLCA_EINVAL, "dlca_bits_set_op: NULL circuit");
  if (gate >= b->n_gates || op < 0 || op > 15)
    return dlca__fail(DLCA_EINVAL, "dlca_bits_set_op: gate %zu of %zu, op %d of 0..15", gate, b->n_gates, op);
  b->ops[gate] = (uint8_t)op;
  return DLCA_OK;
}

int dlca_bits_run(const dlca_bits *b, dlca_eval *out, float *state) {
  if (!b || !out) return dlca__fail(DLCA_EINVAL, "dlca_bits_run: NULL argument");
  workspace ws;
  int rc = ws_alloc(b, 1, &ws);
  if (rc) return rc;
  rollout_bits(b, NULL, NULL, &ws, 1);
  eval_copy(b, &ws, 0, out);
  if (state)
    for (size_t j = 0; j < b->cells; j++)
      for (int c = 0; c < b->C; c++) state[j * b->C + c] = (float)bit_of(ws.cur + (size_t)c * ws.NW, j);
  ws_free(&ws);
  return DLCA_OK;
}

/* Variant i's changes are [F(i), F(i + 1)) of gates and ops. */
#define F(i) (first ? first[i] : (size_t)(i))

/* Every variant's changes in order and in range; the most changes of one
 * variant into *most. */
static int check_variants(const dlca_bits *b, size_t n, const size_t *first, const size_t *gates, const uint8_t *ops,
                          size_t *most) {
  *most = 0;
  for (size_t i = 0; i < n; i++) {
    if (F(i + 1) < F(i))
      return dlca__fail(DLCA_EINVAL, "dlca_bits_run_variants: variant %zu: first[%zu] = %zu > first[%zu] = %zu", i,
                        i + 1, F(i + 1), i, F(i));
    if (F(i + 1) - F(i) > *most) *most = F(i + 1) - F(i);
    for (size_t e = F(i); e < F(i + 1); e++)
      if (gates[e] >= b->n_gates || ops[e] > 15)
        return dlca__fail(DLCA_EINVAL, "dlca_bits_run_variants: variant %zu: gate %zu of %zu, op %d of 0..15", i,
                          gates[e], b->n_gates, (int)ops[e]);
  }
  return DLCA_OK;
}

/* A thread's scratch for the groups of variants. */
typedef struct group_scratch {
  workspace ws;
  variant_set vs;
  live_marks lu; /* what the group's variants need */
  uint8_t *vops;
  int ws_ok, lu_ok;
} group_scratch;

/* For groups of V variants of at most `most` changes each; 0 when out of memory. */
static int scratch_alloc(const dlca_bits *b, int V, size_t most, group_scratch *s) {
  const size_t cap = (size_t)V * (most ? most : 1); /* the changes of one group at most */
  s->ws_ok = ws_alloc(b, V, &s->ws) == DLCA_OK;
  s->lu_ok = live_alloc(b, &s->lu) == DLCA_OK;
  s->vops = malloc(b->n_gates ? b->n_gates : 1);
  s->vs.head = s->ws_ok ? malloc(sizeof(int32_t) * b->n_gates) : NULL;
  s->vs.next = malloc(sizeof(int32_t) * cap);
  s->vs.op = malloc(cap), s->vs.copy = malloc(cap);
  if (!s->vs.head || !s->vs.next || !s->vs.op || !s->vs.copy || !s->lu_ok || !s->vops) {
    free(s->vs.head);
    s->vs.head = NULL;
    return 0;
  }
  for (size_t g = 0; g < b->n_gates; g++) s->vs.head[g] = -1;
  return 1;
}

static void scratch_free(group_scratch *s) {
  free(s->vs.head), free(s->vs.next), free(s->vs.op), free(s->vs.copy), free(s->vops);
  if (s->lu_ok) live_free(&s->lu);
  if (s->ws_ok) ws_free(&s->ws);
}

/* Variants v0 .. v0 + count - 1 as the copies of one packed rollout. */
static void run_group(const dlca_bits *b, const size_t *first, const size_t *gates, const uint8_t *ops, size_t v0,
                      size_t count, group_scratch *s, dlca_eval *out) {
  variant_set *vs = &s->vs;
  const size_t e0 = F(v0), ec = F(v0 + count) - e0;
  /* in reverse, so that a gate's chain runs in change order (the later op wins) */
  for (size_t v = count; v-- > 0;)
    for (size_t e = F(v0 + v + 1); e-- > F(v0 + v);) {
      const size_t g = gates[e], x = e - e0;
      vs->op[x] = ops[e];
      vs->copy[x] = (uint8_t)v;
      vs->next[x] = vs->head[g];
      vs->head[g] = (int32_t)x;
    }
  /* only what some variant of the group needs runs. Needs grow with the
   * inputs an op reads, so the circuit with every changed gate of the
   * group set to XOR (which reads both) needs all that any variant
   * needs: one marking per group. */
  memcpy(s->vops, b->ops, b->n_gates);
  for (size_t e = 0; e < ec; e++) s->vops[gates[e0 + e]] = 6;
  live_of(b, s->vops, &s->lu);
  rollout_bits(b, vs, &s->lu, &s->ws, (int)count);
  for (size_t v = 0; v < count; v++) eval_copy(b, &s->ws, (int)v, &out[v0 + v]);
  for (size_t e = 0; e < ec; e++) vs->head[gates[e0 + e]] = -1;
}
#undef F

int dlca_bits_run_variants(const dlca_bits *b, size_t n, const size_t *first, const size_t *gates,
                           const uint8_t *ops, dlca_eval *out) {
  if (!b || (n && (!gates || !ops || !out))) return dlca__fail(DLCA_EINVAL, "dlca_bits_run_variants: NULL argument");
  size_t most;
  int rc = check_variants(b, n, first, gates, ops, &most);
  if (rc) return rc;
  const int V = b->copies_max;
  const long groups = (long)((n + (size_t)V - 1) / (size_t)V);
  int failed = 0;
#pragma omp parallel if (groups > 1)
  {
    group_scratch s;
    const int ok = scratch_alloc(b, V, most, &s);
    if (!ok) {
#pragma omp atomic write
      failed = 1;
    }
#pragma omp for schedule(dynamic, 1)
    for (long grp = 0; grp < groups; grp++) {
      if (!ok) continue;
      const size_t v0 = (size_t)grp * V;
      run_group(b, first, gates, ops, v0, n - v0 < (size_t)V ? n - v0 : (size_t)V, &s, out);
    }
    scratch_free(&s);
  }
  if (failed) return dlca__fail(DLCA_ENOMEM, "dlca_bits_run_variants: out of memory for %d copies of %d words", V, b->nwc);
  return DLCA_OK;
}

