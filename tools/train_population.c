/* dlca-train --population M: M models side by side on one device over the
 * library's population (dlca_cl/population.h), seeds seed .. seed + M - 1,
 * then fresh ones for models that end wrong or are abandoned, until the
 * first is right on every fresh grid. --log holds the winner's curve with
 * the population's best and median hard loss at each of its evaluations;
 * --save the winner's circuit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "outfile.h"
#include "train_measure.h"
#include "train_run.h"

#define POP_LOG_HEADER CSVLOG_HEADER ",pop_best_hard,pop_median_hard"
#define POP_TICK_S 10.0
#define POP_RUNS_S 10.0 /* --runs is rewritten at most this often while models end */

typedef struct pop_row {
  uint64_t epoch;
  double soft, rate, best, median;
  dlca_eval hard;
} pop_row;

typedef struct pop_curve { /* one slot's current model */
  uint64_t seed;
  pop_row *rows;
  size_t n, cap;
} pop_curve;

typedef struct pop_run {
  run *r;
  dlca_population *P;
  pop_curve *curves;
  dlca_population_state *was; /* each slot's state before the step */
  double *hard;               /* scratch: the latest hard losses */
  pop_tally done;             /* every model done (--runs, --measure) */
  double t0, tick, rate;      /* start, last progress line, model-epochs per second */
  uint64_t rate_epochs;
  double runs_at;             /* --runs: when it was last written, with runs_n rows */
  size_t runs_n;
  int runs_failed;
} pop_run;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The lowest and the median of the models' latest hard losses. */
static void pop_hard_stats(pop_run *p, double *best, double *median) {
  int n = 0;
  for (int j = 0; j < dlca_population_size(p->P); j++) {
    dlca_loop_result w;
    dlca_loop_get_result(dlca_population_loop(p->P, j), &w);
    if (w.have_hard) p->hard[n++] = w.hard.hard_loss;
  }
  *best = *median = NAN;
  if (!n) return;
  qsort(p->hard, (size_t)n, sizeof *p->hard, cmp_double);
  *best = p->hard[0];
  *median = n % 2 ? p->hard[n / 2] : 0.5 * (p->hard[n / 2 - 1] + p->hard[n / 2]);
}

static int add_row(pop_curve *c, const pop_row *row) {
  pop_row *rows = dlca__grow(c->rows, &c->cap, c->n + 1, sizeof *rows, 64);
  if (!rows) return -1;
  c->rows = rows;
  c->rows[c->n++] = *row;
  return 0;
}

/* Each slot's evaluation of this step joins its model's curve; a slot whose
 * model was replaced starts a new curve. */
static int record(pop_run *p) {
  double best = NAN, median = NAN;
  int have_stats = 0;
  for (int j = 0; j < dlca_population_size(p->P); j++) {
    pop_curve *c = &p->curves[j];
    const uint64_t s = dlca_population_seed(p->P, j);
    if (c->seed != s) c->seed = s, c->n = 0;
    dlca_loop_result w;
    dlca_loop_get_result(dlca_population_loop(p->P, j), &w);
    if (!w.evaluated) continue;
    if (!have_stats) pop_hard_stats(p, &best, &median), have_stats = 1;
    pop_row row = {w.hard_epoch, w.soft, p->rate, best, median, w.hard};
    if (add_row(c, &row)) return train_fail(p->r, CLI_FAIL, DLCA_ENOMEM, "--population: the curves");
  }
  return 0;
}

/* Each model that ended in this step joins the tally, with a line (not
 * with --quiet). */
static int announce(pop_run *p) {
  for (int j = 0; j < dlca_population_size(p->P); j++) {
    const dlca_population_state s = dlca_population_model_state(p->P, j), was = p->was[j];
    if ((was != DLCA_POP_TRAINING && was != DLCA_POP_POLISHING) || s == DLCA_POP_TRAINING || s == DLCA_POP_POLISHING)
      continue; /* not one that ended in this step (a repair on a host thread ends later) */
    int rc = pop_tally_add(p->r, &p->done, p->P, j);
    if (rc) return rc;
    if (p->r->opt.quiet) continue;
    dlca_loop_result w;
    dlca_loop_get_result(dlca_population_loop(p->P, j), &w);
    const pop_done *d = &p->done.rows[p->done.n - 1];
    const unsigned long long seed = (unsigned long long)dlca_population_seed(p->P, j), e = w.epoch;
    if (d->right)
      fprintf(stderr, "%s: seed %llu: right on every fresh grid after epoch %llu (%.1f s)\n", TRAIN_PROG, seed, e,
              cli_now() - p->r->t_start);
    else if (d->have_scale && d->scale_errors)
      fprintf(stderr, "%s: seed %llu: right on fresh grids after epoch %llu, but %zu of %zu values wrong at "
              "--eval-scale %ld\n", TRAIN_PROG, seed, e, d->scale_errors, d->scale_total, p->r->opt.eval_scale);
    else if (s == DLCA_POP_ABANDONED)
      fprintf(stderr, "%s: seed %llu: abandoned at epoch %llu (lowest hard loss %g)\n", TRAIN_PROG, seed,
              (unsigned long long)w.abandoned_epoch, w.min_hard);
    else if (w.diverged) fprintf(stderr, "%s: seed %llu: diverged at epoch %llu\n", TRAIN_PROG, seed, e);
    else
      fprintf(stderr, "%s: seed %llu: wrong after epoch %llu (%zu of %zu fresh values wrong)\n", TRAIN_PROG, seed, e,
              w.fresh.errors, w.fresh.total);
  }
  return 0;
}

/* The nearest miss of the models done: how close the population has come
 * (the fewest hard errors, the first such), or NULL. */
static const pop_done *closest_done(const pop_run *p) {
  const pop_done *c = NULL;
  for (size_t i = 0; i < p->done.n; i++)
    if (!c || p->done.rows[i].hard_errors < c->hard_errors) c = &p->done.rows[i];
  return c;
}

/* The rate, and every POP_TICK_S a line of where the population stands. */
static void tick(pop_run *p) {
  dlca_population_stats st;
  dlca_population_get_stats(p->P, &st);
  const double now = cli_now();
  if (now - p->tick < POP_TICK_S && st.steps > 1) return;
  p->rate = now > p->tick ? (double)(st.epochs - p->rate_epochs) / (now - p->tick) : 0;
  p->tick = now, p->rate_epochs = st.epochs;
  if (p->r->opt.quiet || st.steps <= 1) return;
  double best, median;
  pop_hard_stats(p, &best, &median);
  char closest[96] = "";
  const pop_done *c = closest_done(p);
  if (c) snprintf(closest, sizeof closest, "; %zu done, the closest %zu values wrong (seed %llu)", p->done.n,
                  c->hard_errors, (unsigned long long)c->seed);
  fprintf(stderr, "%s: population: %ld models, %llu epochs in all, %.0f model-epochs/s; hard loss best %g, "
          "median %g%s\n", TRAIN_PROG, st.models, (unsigned long long)st.epochs, p->rate, best, median, closest);
}

/* --runs, every POP_RUNS_S while models end, so that a run cut short (a
 * kill, a lost machine) keeps the rows of its models done. After a failure,
 * said once, only the write at the end tries again (and sets the exit). */
static void runs_now(pop_run *p) {
  if (!p->r->opt.runs || p->runs_failed || p->done.n == p->runs_n) return; /* most steps end no model */
  const double now = cli_now();
  if (now - p->runs_at < POP_RUNS_S) return;
  p->runs_at = now, p->runs_n = p->done.n;
  if (pop_tally_write(p->r, &p->done)) {
    p->runs_failed = 1;
    fprintf(stderr, "%s: --runs: trying again at the end\n", TRAIN_PROG);
  }
}

/* --log: the winner's curve, written whole or not at all. */
static int write_log(pop_run *p, int j) {
  const char *path = p->r->opt.log;
  char err[256] = "out of memory";
  outfile_mem m;
  int bad = outfile_mem_open(&m, err, sizeof err);
  if (!bad) {
    fprintf(m.f, "%s\n", POP_LOG_HEADER);
    const pop_curve *c = &p->curves[j];
    for (size_t i = 0; i < c->n; i++) {
      const pop_row *w = &c->rows[i];
      fprintf(m.f, "%llu,%.9g,%.9g,%.6f,%.3f,%.9g,%.9g\n", (unsigned long long)w->epoch, w->soft, w->hard.hard_loss,
              w->hard.accuracy, w->rate, w->best, w->median);
    }
    bad = outfile_mem_commit(&m, path, err, sizeof err);
  }
  if (bad) {
    fprintf(stderr, "%s: --log %s: %s\n", TRAIN_PROG, path, err);
    return CLI_FAIL;
  }
  return 0;
}

/* Whether a model with these --pbt copies trains alone as --seed S
 * --population 0: no jitter drew its hyperparameters, no copy replaced it. */
static int seed_alone(const train_options *o, long copies) {
  return !(o->lr_jitter > 0 || o->temperature_jitter > 0 || o->gumbel_jitter > 0 || copies);
}

/* With jitters: the winner's own hyperparameters, which its single run
 * needs; after --pbt's copies, that it is no single run. */
static void print_hypers(pop_run *p, int j) {
  const train_options *o = &p->r->opt;
  dlca_population_lineage g;
  dlca_population_get_lineage(p->P, j, &g);
  if (g.copies)
    printf("lineage:        no single run of its seed: %ld --pbt cop%s, the last of seed %llu's model at epoch %llu; "
           "the wires of seed %llu\n", g.copies, g.copies == 1 ? "y" : "ies", (unsigned long long)g.from_seed,
           (unsigned long long)g.from_epoch, (unsigned long long)g.origin_seed);
  dlca_train_config c;
  if (seed_alone(o, g.copies)) {
    printf("single run:     --seed %llu --population 0 trains the same circuit alone\n",
           (unsigned long long)dlca_population_seed(p->P, j));
    return;
  }
  if (dlca_population_config(p->P, j, &c)) return;
  printf("its own:        --lr %.9g --temperature %.9g --gumbel %.9g (its seed's jitters, or a copy's)\n",
         c.optim.lr, c.relax.temperature > 0 ? c.relax.temperature : 1.0, c.relax.gumbel_scale);
}

/* Without a winner: the nearest miss, and how to train it alone. */
static void print_closest(pop_run *p) {
  const pop_done *c = closest_done(p);
  if (!c) return;
  printf("closest:        seed %llu, %zu values wrong (%s at epoch %llu)\n", (unsigned long long)c->seed,
         c->hard_errors, c->how, (unsigned long long)c->epoch);
  if (seed_alone(&p->r->opt, c->copies))
    printf("single run:     --seed %llu --population 0 trains it alone%s\n", (unsigned long long)c->seed,
           strcmp(c->how, "abandoned") ? "" : ", and on past the epoch it was abandoned at");
}

/* The summary on stdout; --save and --log of the winner. */
static int summary(pop_run *p, int interrupted) {
  run *r = p->r;
  dlca_population_stats st;
  dlca_population_get_stats(p->P, &st);
  const double dt = cli_now() - r->t_start;
  char took[32];
  if (!r->opt.quiet) {
    printf("population:     %ld at once, %ld models started (%ld finished, %ld abandoned), %llu epochs in all\n",
           r->opt.population, st.models, st.finished, st.abandoned, (unsigned long long)st.epochs);
    if (r->opt.pbt_every)
      printf("pbt:            %ld copies of a best model into a worst (every %ld steps, the worst %g)\n",
             st.pbt_copies, r->opt.pbt_every, r->opt.pbt_fraction);
    if (r->opt.measure) {
      pop_tally_print(r, &p->done, interrupted);
    } else if (st.winner >= 0) {
      dlca_loop_result w;
      dlca_loop_get_result(dlca_population_loop(p->P, st.winner), &w);
      printf("winner:         seed %llu, epoch %llu, right on every fresh grid (%zu values)\n",
             (unsigned long long)st.winner_seed, (unsigned long long)st.winner_epoch, w.fresh.total);
      print_hypers(p, st.winner);
    } else {
      printf("winner:         none%s\n", interrupted ? " (interrupted)" : " right on every fresh grid");
      print_closest(p);
    }
    printf("wall time:      %s from the start (%.2f s)\n", cli_duration(dt, took, sizeof took), dt);
  }
  int rc = pop_tally_write(r, &p->done);
  if (r->opt.measure) return rc ? rc : interrupted ? CLI_INTERRUPTED : 0;
  if (st.winner < 0) return rc ? rc : interrupted ? CLI_INTERRUPTED : 0;
  if (!rc && r->opt.log) rc = write_log(p, st.winner);
  if (!rc && r->opt.save) {
    dlca_model *m = NULL;
    int s = dlca_population_take(p->P, st.winner, &m);
    if (!s) s = dlca_model_save(m, r->opt.save);
    dlca_model_free(m);
    if (s) rc = train_fail(r, CLI_FAIL, s, "--save");
  }
  r->fresh_ok = 1;
  return rc;
}

/* The recipe's population where it was not asked for: as many models as
 * fit the device, if fewer (a population asked for that does not fit is
 * refused, naming the most that would). */
static void fit_default(run *r, const dlca_model_shape *shape) {
  int fit;
  if (!r->opt.population_default || dlca_population_max_models(r->ctx, &r->preset, shape, &r->cfg, &fit) ||
      fit >= r->opt.population)
    return;
  if (!r->opt.quiet)
    fprintf(stderr, "%s: the recipe's population of %ld models does not fit %s: %d\n", TRAIN_PROG,
            r->opt.population, r->device, fit > 1 ? fit : 1);
  r->opt.population = fit > 1 ? fit : 1;
}

static int setup(pop_run *p) {
  run *r = p->r;
  dlca_model_shape shape;
  dlca_model_get_shape(r->model, &shape);
  fit_default(r, &shape);
  const int M = (int)r->opt.population;
  const int measure = r->opt.measure;
  dlca_population_options po = {.n_models = M, .replace = !measure,
                                 .max_models = measure ? M : r->opt.max_models > 0 ? r->opt.max_models : 128L * M,
                                 .iwp_init = (float)r->opt.iwp_init, .compiled_wires = r->opt.compiled_wires,
                                 .run_all = measure, .lr_jitter = r->opt.lr_jitter,
                                 .temperature_jitter = r->opt.temperature_jitter,
                                 .gumbel_jitter = r->opt.gumbel_jitter, .pbt_every = r->opt.pbt_every,
                                 .pbt_fraction = r->opt.pbt_fraction, .accept = pop_accept_scale,
                                 .accept_user = &p->done};
  int rc = pop_tally_init(&p->done, r, M);
  if (rc) return rc;
  p->curves = calloc((size_t)M, sizeof *p->curves);
  p->was = calloc((size_t)M, sizeof *p->was);
  p->hard = calloc((size_t)M, sizeof *p->hard);
  if (!p->curves || !p->was || !p->hard) return train_fail(r, CLI_FAIL, DLCA_ENOMEM, "--population");
  rc = dlca_population_new(r->ctx, &r->preset, &shape, &r->cfg, r->target, &r->lo, &po, &p->P);
  if (rc) return train_fail(r, rc == DLCA_EDEVMEM || rc == DLCA_EINVAL ? CLI_USAGE : CLI_FAIL, rc,
                            "--population %d", M);
  if (!r->opt.quiet)
    fprintf(stderr, "%s: %s on %s: a population of %d models (seeds %llu..%llu%s), batch %d, %d steps, "
            "lr %g, epochs up to %ld each, at most %ld models\n", TRAIN_PROG, r->preset.name, r->device, M,
            (unsigned long long)r->opt.seed, (unsigned long long)r->opt.seed + (unsigned long long)M - 1,
            measure ? ", each to its end" : ", then fresh ones", r->cfg.batch, r->cfg.steps, r->cfg.optim.lr,
            r->opt.epochs, po.max_models);
  return 0;
}

int train_population(run *r) {
  pop_run p;
  memset(&p, 0, sizeof p);
  p.r = r;
  int rc = setup(&p);
  p.t0 = p.tick = cli_now();
  p.runs_at = -INFINITY; /* the first model done is written at once */
  train_catch_signals();
  while (!rc && dlca_population_running(p.P) && !train_stop_signal) {
    for (int j = 0; j < dlca_population_size(p.P); j++) p.was[j] = dlca_population_model_state(p.P, j);
    int s = dlca_population_step(p.P);
    if (s) rc = train_fail(r, CLI_FAIL, s, "--population");
    if (!rc) rc = record(&p);
    if (!rc) rc = announce(&p);
    if (!rc) tick(&p), runs_now(&p);
  }
  if (!rc) rc = summary(&p, train_stop_signal != 0);
  for (int j = 0; p.curves && j < (int)r->opt.population; j++) free(p.curves[j].rows);
  free(p.curves), free(p.was), free(p.hard);
  pop_tally_free(&p.done);
  dlca_population_free(p.P);
  return rc;
}
