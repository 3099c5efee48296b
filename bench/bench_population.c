/* dlca-bench --population (bench_population.h): steps of a population, as
 * a user steps it; the same before and after its phases are batched into
 * one launch each. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "bench_population.h"

static int cmp_ms(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The paper's configuration of the preset at batch and steps, never an
 * evaluation or an end while timed. */
static int configure(const char *preset, int batch, int steps, dlca_preset *p, dlca_train_config *cfg,
                     dlca_loop_options *o) {
  int rc = dlca_preset_get(preset, p);
  if (rc) return rc;
  dlca_train_config_from_preset(p, cfg);
  cfg->seed = 1;
  if (batch > 0) cfg->batch = batch;
  if (steps > 0) cfg->steps = steps;
  dlca_loop_options_default(o);
  o->epochs = 1000000000L, o->eval_every = 1000000000L;
  return DLCA_OK;
}

int bench_population(dlca_context *ctx, const char *preset, int batch, int steps, int models, long warmup,
                     long repeats, bench_pop *out) {
  memset(out, 0, sizeof *out);
  dlca_preset p;
  dlca_train_config cfg;
  dlca_loop_options o;
  dlca_population *P = NULL;
  double *ms = malloc(sizeof *ms * (size_t)repeats);
  int rc = ms ? configure(preset, batch, steps, &p, &cfg, &o) : DLCA_ENOMEM;
  out->what = "configuration";
  if (!rc) rc = dlca_population_estimate_memory(&p, NULL, &cfg, models, &out->bytes);
  dlca_population_options po = {.n_models = models};
  const double t0 = cli_now();
  out->what = "population";
  if (!rc) rc = dlca_population_new(ctx, &p, NULL, &cfg, NULL, &o, &po, &P);
  out->setup_s = cli_now() - t0;
  out->what = "warm-up step";
  for (long i = 0; i < warmup && !rc; i++) rc = dlca_population_step(P);
  out->what = "timed step";
  for (long i = 0; i < repeats && !rc; i++) {
    const double s = cli_now();
    rc = dlca_population_step(P);
    ms[i] = 1e3 * (cli_now() - s);
  }
  if (!rc) {
    qsort(ms, (size_t)repeats, sizeof *ms, cmp_ms);
    out->ms_min = ms[0];
    out->ms_med = repeats % 2 ? ms[repeats / 2] : 0.5 * (ms[repeats / 2 - 1] + ms[repeats / 2]);
    out->what = NULL;
  }
  dlca_population_free(P);
  free(ms);
  return rc;
}
