/* dlca-tune's search: each configuration measured in a new context and
 * checked against the reference's results, a full grid or one parameter at
 * a time, and the winner of a kernel file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tune.h"

/* ---- measuring one configuration ---- */

/* 0 when out matches the reference's; else 1 and why. *dp gets the largest
 * difference of a parameter or output value, *dl that of a loss (relative). */
static int compare(const output *o, const output *r, double *dp_out, double *dl_out, char *why, size_t n) {
  double dp = 0, dl = 0;
  size_t bad_words = 0;
  *dp_out = *dl_out = INFINITY;
  if (o->n_losses != r->n_losses || o->n_params != r->n_params || o->n_words != r->n_words) {
    snprintf(why, n, "rejected (its output is not the size of the reference's)");
    return 1;
  }
  for (size_t i = 0; i < o->n_losses; i++) {
    double d = fabs(o->losses[i] - r->losses[i]) / fmax(fabs(r->losses[i]), 1e-30);
    if (!(d <= dl)) dl = isnan(d) ? INFINITY : d; /* NaN counts as the worst */
  }
  for (size_t i = 0; i < o->n_params; i++) {
    double d = fabs((double)o->params[i] - (double)r->params[i]);
    if (!(d <= dp)) dp = isnan(d) ? INFINITY : d;
  }
  for (size_t i = 0; i < o->n_words; i++)
    if (o->words[i] != r->words[i]) {
      double d = fabs((double)o->words[i] - (double)r->words[i]);
      if (d > dp) dp = d;
      bad_words++;
    }
  *dp_out = dp;
  *dl_out = dl;
  if (dl <= LOSS_RTOL && dp <= PARAM_ATOL && !bad_words) return 0;
  if (o->n_words) snprintf(why, n, "rejected (max |dp| = %.4g, %zu of %zu values differ)", dp, bad_words, o->n_words);
  else snprintf(why, n, "rejected (max |dp| = %.3g, losses differ by %.3g relative)", dp, dl);
  return 1;
}

static void print_row(tuner *T, kfile *k, const meas *m, int idx) {
  char ps[512], dev[32] = "-", wall[32] = "-", status[400];
  params_str(k, m->v, ps, sizeof ps);
  if (m->status != ST_FAILED) {
    snprintf(dev, sizeof dev, "%.3f", m->dev_ms);
    snprintf(wall, sizeof wall, "%.3f", m->wall_ms);
  }
  if (m->status == ST_OK && idx == k->ref)
    snprintf(status, sizeof status, "ok (reference)");
  else if (m->status == ST_OK && k->ref_out.n_words)
    snprintf(status, sizeof status, "ok (identical%s)", idx == k->start_idx ? ", current" : "");
  else if (m->status == ST_OK)
    snprintf(status, sizeof status, "ok (max |dp| = %.2g, loss rel. %.2g%s)", m->dp, m->dl,
             idx == k->start_idx ? ", current" : "");
  else if (m->status == ST_REJECTED) snprintf(status, sizeof status, "%s", m->msg);
  else snprintf(status, sizeof status, "failed: %s", m->msg);
  fprintf(T->out, "%-*s  %-*s  %12s  %12s  %s\n", T->kw, k->file, k->pw, ps, dev, wall, status);
  fflush(T->out);
}

/* A hash of file's source with its includes, 0 if it cannot be read. */
static uint64_t source_key(tuner *T, const char *file) {
  char *src, path[1024];
  size_t len;
  if (dlca__kernel_resolve(file, &src, &len, path, sizeof path)) return 0;
  uint64_t key = dlca__cache_key(&T->dev, src, len, "");
  free(src);
  return key;
}

/* Whether the file still is what tuning began with. In a working tree
 * someone may save the kernel mid-run; every candidate is built from the
 * file as it is then, so a comparison across versions would be meaningless. */
static int unchanged(tuner *T, kfile *k) {
  if (!k->changed && source_key(T, k->file) != k->src_key) k->changed = 1;
  return !k->changed;
}

/* The index of v's measurement, measured now if it is new. -1: out of
 * memory; -2: new, but --max-configs are measured already; -3: the source
 * changed on disk. */
static int measure(tuner *T, kfile *k, const int *v) {
  if (!unchanged(T, k)) return -3;
  for (size_t i = 0; i < k->n_m; i++)
    if (!memcmp(k->m[i].v, v, sizeof(int) * k->nt)) return (int)i;
  if (T->o.max_configs > 0 && k->n_m >= (size_t)T->o.max_configs) {
    k->capped = 1;
    return -2;
  }
  if (k->n_m == k->cap_m) {
    size_t cap = k->cap_m ? 2 * k->cap_m : 16;
    meas *p = realloc(k->m, cap * sizeof *p);
    if (!p) return -1;
    k->m = p;
    k->cap_m = cap;
  }
  int idx = (int)k->n_m++;
  meas *m = &k->m[idx];
  memset(m, 0, sizeof *m);
  memcpy(m->v, v, sizeof(int) * k->nt);
  output out = {0};
  dlca__clear_error();
  dlca_context *ctx = NULL;
  /* A new context per configuration: programs are built when the workload
   * first needs them, with the overrides in force, and nothing built or
   * allocated for one candidate lingers into the next. */
  int rc = dlca_context_new(T->o.device, &ctx);
  for (size_t i = 0; !rc && i < k->nt; i++) rc = dlca__tuning_override(ctx, k->file, k->t[i].name, v[i]);
  if (!rc) rc = k->w->run(T, k, ctx, m, &out);
  if (!unchanged(T, k)) {
    dlca_context_free(ctx);
    output_free(&out);
    k->n_m--;
    return -3;
  }
  if (rc) {
    m->status = ST_FAILED;
    first_line(m->msg, sizeof m->msg, lib_error(rc));
  }
  dlca_context_free(ctx);
  if (!rc) {
    if (k->ref < 0) { /* the first configuration that runs is the reference */
      k->ref = idx;
      k->ref_out = out;
      memset(&out, 0, sizeof out);
      if (k->m[idx].dev_ms <= 0) k->use_wall = 1;
    } else if (compare(&out, &k->ref_out, &m->dp, &m->dl, m->msg, sizeof m->msg)) {
      m->status = ST_REJECTED;
    }
  }
  output_free(&out);
  if (!memcmp(v, k->start, sizeof(int) * k->nt)) k->start_idx = idx;
  print_row(T, k, m, idx);
  return idx;
}

static int better(const kfile *k, int a, int b) {
  if (a < 0 || k->m[a].status != ST_OK) return 0;
  if (b < 0 || k->m[b].status != ST_OK) return 1;
  return score(k, &k->m[a]) < score(k, &k->m[b]);
}

/* ---- the searches ---- */

size_t n_combinations(const kfile *k) {
  size_t c = 1;
  for (size_t i = 0; i < k->nt && c <= 1000000; i++) c *= (size_t)k->n_trials[i];
  return c;
}

static int search_grid(tuner *T, kfile *k) {
  int pos[MAX_T] = {0}, v[MAX_T];
  for (;;) {
    for (size_t i = 0; i < k->nt; i++) v[i] = k->trials[i][pos[i]];
    int idx = measure(T, k, v);
    if (idx < 0) return idx == -2 ? 0 : idx;
    size_t i = k->nt;
    while (i > 0 && ++pos[i - 1] == k->n_trials[i - 1]) pos[--i] = 0;
    if (i == 0) return 0;
  }
}

/* Coordinate descent: each tunable in turn, over its candidates, with the
 * others at their best so far; another pass only if the last one moved. */
static int search_descent(tuner *T, kfile *k, long passes) {
  int best = k->start_idx >= 0 && k->m[k->start_idx].status == ST_OK ? k->start_idx : k->ref;
  int v[MAX_T];
  for (long pass = 0; pass < passes && best >= 0; pass++) {
    int moved = 0;
    for (size_t i = 0; i < k->nt; i++) {
      int from = best;
      for (int j = 0; j < k->n_trials[i]; j++) {
        memcpy(v, k->m[from].v, sizeof(int) * k->nt);
        v[i] = k->trials[i][j];
        int idx = measure(T, k, v);
        if (idx < 0) return idx == -2 ? 0 : idx;
        if (better(k, idx, best)) best = idx;
      }
      if (best != from) moved = 1;
    }
    if (!moved) break;
  }
  return 0;
}

int tune_file(tuner *T, kfile *k) {
  char buf[1024], ps[512];
  k->ref = k->winner = k->start_idx = -1;
  size_t o = 0;
  for (size_t i = 0; i < k->nt && o < sizeof buf; i++) {
    o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s {", i ? ", " : "", k->t[i].name);
    for (int j = 0; j < k->n_trials[i] && o < sizeof buf; j++)
      o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%d", j ? " " : "", k->trials[i][j]);
    if (o < sizeof buf) o += (size_t)snprintf(buf + o, sizeof buf - o, "}");
  }
  params_str(k, k->start, ps, sizeof ps);
  fprintf(T->out, "\n%s: %s\n  search: ", k->file, buf);
  if (k->search == SEARCH_GRID) fprintf(T->out, "full grid, %zu combinations", n_combinations(k));
  else fprintf(T->out, "one parameter at a time, up to %ld pass%s", T->o.passes, T->o.passes == 1 ? "" : "es");
  fprintf(T->out, ", from the current values %s\n", ps);
  k->w->describe(T, buf, sizeof buf);
  fprintf(T->out, "  workload: %s; %ld warm-up + %ld timed per configuration, each in a new context\n", buf,
          T->o.warmup, T->o.repeats);
  fprintf(T->out, "%-*s  %-*s  %12s  %12s  %s\n", T->kw, "kernel", k->pw, "params", "dev ms/epoch", "wall ms/epoch",
          "status");

  int def[MAX_T];
  for (size_t i = 0; i < k->nt; i++) def[i] = k->t[i].values[0];
  k->src_key = source_key(T, k->file);
  int r = measure(T, k, def);
  if (r >= 0 || r == -2) r = measure(T, k, k->start);
  if (r >= 0 || r == -2) r = k->search == SEARCH_GRID ? search_grid(T, k) : search_descent(T, k, T->o.passes);
  if (r == -1) return -1;
  if (k->changed) {
    fprintf(T->out, "  (%s changed on disk during tuning: its results are discarded)\n", k->file);
    return 0;
  }

  int win = -1;
  for (size_t i = 0; i < k->n_m; i++)
    if (better(k, (int)i, win)) win = (int)i;
  /* Measurements are noisy: the default keeps its place unless beaten clearly. */
  if (win >= 0 && k->ref >= 0 && win != k->ref && !memcmp(k->m[k->ref].v, def, sizeof(int) * k->nt) &&
      score(k, &k->m[win]) > (1.0 - MIN_GAIN) * score(k, &k->m[k->ref]))
    win = k->ref;
  k->winner = win;
  if (k->capped) fprintf(T->out, "  (stopped after %ld configurations: --max-configs)\n", T->o.max_configs);
  return 0;
}


/* One line on the winner of a tuned file (0), or on why there is none (1). */
int report_file(tuner *T, kfile *k) {
  char ps[512], rs[512];
  if (k->changed) {
    fprintf(stderr, "%s: %s: the file changed on disk while it was being tuned; run dlca-tune again\n", PROG,
            k->file);
    return CLI_FAIL;
  }
  if (k->winner < 0) {
    const char *why = k->n_m ? k->m[0].msg : "nothing measured";
    fprintf(stderr, "%s: %s: no configuration ran; the default's failure: %s\n", PROG, k->file, why);
    return CLI_FAIL;
  }
  const meas *w = &k->m[k->winner], *r = &k->m[k->ref];
  params_str(k, w->v, ps, sizeof ps);
  params_str(k, r->v, rs, sizeof rs);
  fprintf(T->out, "winner %-*s  %s: %.3f ms/epoch (%s)", T->kw, k->file, ps, score(k, w),
          k->use_wall ? "wall" : "device");
  if (k->winner == k->ref) fprintf(T->out, ", the reference");
  else fprintf(T->out, ", x%.2f over the reference %s (%.3f ms)", score(k, r) / score(k, w), rs, score(k, r));
  if (k->start_idx >= 0 && k->start_idx != k->ref && k->start_idx != k->winner && k->m[k->start_idx].status == ST_OK) {
    params_str(k, k->start, rs, sizeof rs);
    fprintf(T->out, ", x%.2f over the current %s", score(k, &k->m[k->start_idx]) / score(k, w), rs);
  }
  fprintf(T->out, "\n");
  if (memcmp(k->m[k->ref].v, k->m[0].v, sizeof(int) * k->nt))
    fprintf(T->out, "       (the defaults failed, so the first configuration that ran was the reference)\n");
  return CLI_OK;
}
