/* dlca-opsbench: timings of the compute layer's ops on one OpenCL device,
 * suite by suite (bench/opsbench_suites.h lists them). What a suite gets and
 * gives. */
#ifndef DLCA_BENCH_OPSBENCH_H
#define DLCA_BENCH_OPSBENCH_H
#include <stddef.h>

#include "cl/runtime.h"

#define OB_MAX_SIZES 16

/* One measurement: a row of the table, the CSV and the JSON. */
typedef struct ob_row {
  char suite[24], name[64];
  double median_ms, min_ms;
  double flops, bytes; /* per call: the floors' counts */
} ob_row;

typedef struct ob_bench {
  dlca_context *ctx;
  dlca_device_info dev;
  long warmup, repeats;
  long sizes[OB_MAX_SIZES]; /* --sizes (the gemm suite's n) */
  int n_sizes;
  double peak_tflops, peak_gbs; /* the floors' rates */
  ob_row *rows;
  size_t n_rows, cap_rows;
} ob_bench;

/* Times call(arg) (enqueues) followed by a wait for the queue: b->warmup untimed, then b->repeats timed by
 * the wall clock. *median_ms and *min_ms get the results. A dlca status (the message set). */
int ob_time(ob_bench *b, int (*call)(void *arg), void *arg, double *median_ms, double *min_ms);
/* Adds a row and prints it. */
void ob_add(ob_bench *b, const char *suite, const char *name, double median_ms, double min_ms, double flops,
            double bytes);
#endif
