/* dlca-bench --population: the time of one step of a population of M
 * models (dlca_cl/population.h), every model one epoch, beside the
 * single-model rows. */
#ifndef DLCA_BENCH_POPULATION_H
#define DLCA_BENCH_POPULATION_H

#include <stddef.h>
#include "dlca_cl.h"

typedef struct bench_pop {
  double ms_med, ms_min; /* per step, wall clock: enqueue to the last loss read */
  double setup_s;        /* dlca_population_new */
  size_t bytes;          /* dlca_population_estimate_memory */
  const char *what;      /* on failure: the part that failed */
} bench_pop;

/* models models of the preset (the paper's configuration at batch and
 * steps, seeds 1..models, no evaluation while timed) on ctx (NULL: the
 * CPU reference): warmup steps, then the median and minimum of repeats.
 * Returns a dlca status (DLCA_EDEVMEM: it does not fit). */
int bench_population(dlca_context *ctx, const char *preset, int batch, int steps, int models, long warmup,
                     long repeats, bench_pop *out);

#endif
