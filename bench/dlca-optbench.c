/* dlca-optbench: the optimizer suite's benchmark (issue 32) on its own,
 * until the ops benchmark takes it as its "optim" suite: one step of each
 * optimizer at 1M, 10M and 100M parameters (or the sizes given), as CSV on
 * stdout, on $DLCA_CL_DEVICE or the default device. The PyTorch peer with
 * the same columns: python3 bench/peer/torch_optim.py [REPS [SIZES...]].
 *   dlca-optbench [--reps N] [SIZE...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opsbench_optim.h"

int main(int argc, char **argv) {
  size_t sizes[16], n = 0;
  int reps = 20;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: dlca-optbench [--reps N] [SIZE...]  (sizes default to 1000000 10000000 100000000)\n");
      return 0;
    } else if (n < 16 && strtoull(argv[i], NULL, 10) > 0) sizes[n++] = strtoull(argv[i], NULL, 10);
    else return fprintf(stderr, "dlca-optbench: bad argument '%s' (--help)\n", argv[i]), 2;
  }
  if (reps < 1) return fprintf(stderr, "dlca-optbench: --reps %d, at least 1\n", reps), 2;
  dlca_context *ctx;
  if (dlca_context_new(NULL, &ctx) != DLCA_OK) return fprintf(stderr, "dlca-optbench: %s\n", dlca_last_error()), 1;
  int rc = opsbench_optim(ctx, stdout, n ? sizes : NULL, n, reps);
  dlca_context_free(ctx);
  return rc == DLCA_OK ? 0 : 1;
}
