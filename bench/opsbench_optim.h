/* The ops benchmark's suite "optim" (bench/opsbench_optim.c). */
#ifndef DLCA_BENCH_OPSBENCH_OPTIM_H
#define DLCA_BENCH_OPSBENCH_OPTIM_H
#include <stdio.h>
#include "dlca_cl.h"

/* CSV rows (suite,case,params,tensors,impl,ms,gbps,device, a header first)
 * into out: the copy floor, then each optimizer at each size (NULL: 1M,
 * 10M, 100M) in 1 and 100 tensors, reps timed steps each. DLCA_OK when
 * every case ran. */
int opsbench_optim(dlca_context *ctx, FILE *out, const size_t *sizes, size_t n_sizes, int reps);
#endif
