/* dlca-train --population: each model done becomes a row (--runs), judged
 * as the single run of its seed judges (right on every fresh grid, and
 * with --eval-scale exact on the larger grid: finish() in dlca-train.c);
 * --measure's summary is the fraction right and the median epoch of the
 * right ones, the success rate of the recipe over M single runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "outfile.h"
#include "train_measure.h"

/* The circuit a run ends with: the evolution's, else the repair's, else
 * the last evaluation's (after keep-best, dlca_loop_polish). */
static void final_hard(const dlca_loop_result *w, double *loss, size_t *errors) {
  const dlca_eval *e = w->have_evolve ? &w->evolve.after : w->have_repair ? &w->repair.after : &w->hard;
  *loss = w->have_hard ? e->hard_loss : NAN, *errors = w->have_hard ? e->errors : 0;
}

static int push(pop_tally *t, const pop_done *d) {
  pop_done *rows = dlca__grow(t->rows, &t->cap, t->n + 1, sizeof *rows, 64);
  if (!rows) return -1;
  t->rows = rows;
  t->rows[t->n++] = *d;
  return 0;
}

int pop_tally_init(pop_tally *t, run *r, int M) {
  memset(t, 0, sizeof *t);
  t->r = r;
  if (!(t->scale = calloc((size_t)M, sizeof *t->scale)))
    return train_fail(r, CLI_FAIL, DLCA_ENOMEM, "--population");
  return 0;
}

int pop_accept_scale(void *user, dlca_population *P, int j, int *right) {
  pop_tally *t = user;
  run *r = t->r;
  if (r->opt.eval_scale <= 0) return DLCA_OK;
  dlca_model *m = NULL;
  int rc = dlca_population_take(P, j, &m);
  if (rc) return rc;
  outcome o;
  memset(&o, 0, sizeof o);
  rc = train_eval_scale(r, m, dlca_population_seed(P, j), &o);
  dlca_model_free(m);
  if (rc) return DLCA_EINVAL; /* train_eval_scale said why */
  t->scale[j] = (pop_scale){1, o.scale_errors, o.scale_total};
  *right = o.scale_errors == 0;
  return DLCA_OK;
}

int pop_tally_add(run *r, pop_tally *t, dlca_population *P, int j) {
  dlca_loop_result w;
  dlca_loop_get_result(dlca_population_loop(P, j), &w);
  const dlca_population_state s = dlca_population_model_state(P, j);
  pop_done d;
  memset(&d, 0, sizeof d);
  d.seed = dlca_population_seed(P, j), d.epoch = w.epoch;
  d.right = s == DLCA_POP_RIGHT;
  d.how = d.right ? "right" : s == DLCA_POP_ABANDONED ? "abandoned" : w.diverged ? "diverged" : "wrong";
  if (t->scale[j].have) {
    d.have_scale = 1, d.scale_errors = t->scale[j].errors, d.scale_total = t->scale[j].total;
    if (!d.right) d.how = "wrong at scale";
    t->scale[j].have = 0; /* the slot's next model */
  }
  final_hard(&w, &d.hard_loss, &d.hard_errors);
  d.have_fresh = w.have_fresh, d.fresh_errors = w.fresh.errors, d.fresh_total = w.fresh.total;
  dlca_train_config c;
  int rc = dlca_population_config(P, j, &c);
  if (rc) return train_fail(r, CLI_FAIL, rc, "--population");
  d.lr = c.optim.lr, d.temperature = c.relax.temperature > 0 ? c.relax.temperature : 1;
  d.gumbel = c.relax.gumbel_scale;
  dlca_population_lineage g;
  dlca_population_get_lineage(P, j, &g);
  d.copies = g.copies, d.origin_seed = g.origin_seed;
  d.seconds = cli_now() - r->t_start;
  if (push(t, &d)) return train_fail(r, CLI_FAIL, DLCA_ENOMEM, "--population: the models done");
  return 0;
}

static int by_seed(const void *a, const void *b) {
  const uint64_t x = ((const pop_done *)a)->seed, y = ((const pop_done *)b)->seed;
  return x < y ? -1 : x > y;
}

/* The rows in seed order as CSV, into f. */
static void tally_csv(const pop_tally *t, const pop_done *rows, FILE *f) {
  fprintf(f, "seed,right,how,epoch,hard_loss,hard_errors,fresh_errors,fresh_total,scale_errors,scale_total,"
          "lr,temperature,gumbel,seconds,copies,origin_seed\n");
  for (size_t i = 0; i < t->n; i++) {
    const pop_done *d = &rows[i];
    fprintf(f, "%llu,%d,%s,%llu,%.9g,%zu,", (unsigned long long)d->seed, d->right, d->how,
            (unsigned long long)d->epoch, d->hard_loss, d->hard_errors);
    fprintf(f, d->have_fresh ? "%zu,%zu," : ",,", d->fresh_errors, d->fresh_total);
    fprintf(f, d->have_scale ? "%zu,%zu," : ",,", d->scale_errors, d->scale_total);
    fprintf(f, "%.9g,%.9g,%.9g,%.3f,%ld,%llu\n", d->lr, d->temperature, d->gumbel, d->seconds, d->copies,
            (unsigned long long)d->origin_seed);
  }
}

int pop_tally_write(run *r, const pop_tally *t) {
  const char *path = r->opt.runs;
  if (!path) return 0;
  char err[256] = "out of memory";
  pop_done *rows = t->n ? malloc(t->n * sizeof *rows) : NULL;
  outfile_mem m;
  int bad = (t->n && !rows) || outfile_mem_open(&m, err, sizeof err);
  if (!bad) {
    if (t->n) memcpy(rows, t->rows, t->n * sizeof *rows);
    qsort(rows, t->n, sizeof *rows, by_seed);
    tally_csv(t, rows, m.f);
    bad = outfile_mem_commit(&m, path, err, sizeof err);
  }
  free(rows);
  if (bad) {
    fprintf(stderr, "%s: --runs %s: %s\n", TRAIN_PROG, path, err);
    return CLI_FAIL;
  }
  return 0;
}

static int cmp_u64(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

void pop_tally_print(const run *r, const pop_tally *t, int interrupted) {
  size_t right = 0;
  uint64_t *e = malloc((t->n ? t->n : 1) * sizeof *e);
  for (size_t i = 0; i < t->n; i++)
    if (t->rows[i].right && e) e[right++] = t->rows[i].epoch;
  char crit[128];
  if (dlca_preset_is_gol(&r->preset)) snprintf(crit, sizeof crit, "all 512 boards");
  else snprintf(crit, sizeof crit, "%ld fresh batches", r->opt.eval_fresh);
  if (r->opt.eval_scale > 0)
    snprintf(crit + strlen(crit), sizeof crit - strlen(crit), " and exact at --eval-scale %ld", r->opt.eval_scale);
  printf("measured:       %zu of %zu right (%.1f%%) on %s, seeds %llu..%llu%s\n", right, t->n,
         t->n ? 100.0 * (double)right / (double)t->n : 0.0, crit, (unsigned long long)r->opt.seed,
         (unsigned long long)(r->opt.seed + (uint64_t)r->opt.population - 1), interrupted ? " (interrupted)" : "");
  if (right && e) {
    qsort(e, right, sizeof *e, cmp_u64);
    const double med = right % 2 ? (double)e[right / 2] : 0.5 * (double)(e[right / 2 - 1] + e[right / 2]);
    printf("right ones:     median epoch %g (%llu to %llu)\n", med, (unsigned long long)e[0],
           (unsigned long long)e[right - 1]);
  }
  free(e);
}

void pop_tally_free(pop_tally *t) {
  free(t->rows), free(t->scale);
  memset(t, 0, sizeof *t);
}
