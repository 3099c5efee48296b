/* The suites of dlca-opsbench, one line each: X(name, what it times). A
 * suite is `int ob_suite_<name>(ob_bench *b)` in a file of its own
 * (bench/opsbench_<part>.c), returning a dlca status after adding its rows
 * with ob_add. To add one: a line here, the file, and the file on the
 * program's SOURCES line in bench/local.mk. */
#ifndef DLCA_BENCH_OPSBENCH_SUITES_H
#define DLCA_BENCH_OPSBENCH_SUITES_H
#include "opsbench.h"

#define OB_SUITES(X)                                                                                 \
  X(gemm, "SGEMM C = A B of n x n matrices through CLBlast, n from --sizes (512..8192)")            \
  X(dense, "dense 64->128 + ReLU at batch 32: the forward (one call, waited for), and forward + backward") \
  X(conv, "conv2d 3x3 pad 1 + bias, forward and forward + backward: N 64 C 16 8x8 O 32, N 64 C 32 32x32 O 64") \
  X(optim, "one step of each optimizer (sgd, sgd_momentum, adam, adamw, rmsprop, adagrad) at 1M, 10M and\n" \
           "        100M parameters (100k, 1M on a CPU), in 1 tensor, 100 of a group and 100 of their own") \
  X(gru, "GRU batch 32, input 128, hidden 256, 10 steps: forward, + backward, a 5-GRU ensemble, a cell x10 from the host") \
  X(rsvd, "randomized SVD (p 10, q 2) of 1024^2 and 4096^2 at rank 32, 8192 x 2048 at rank 64") \
  X(hybrid, "the hybrid-trainer pipeline (encode, 5-GRU ensemble, rSVD, correction) at batch 32, stage by stage and end to end, device and CPU twin") \
  X(net, "one training step of the digits MLP and CNN (lib/net), batch 64: gather, forward, loss, backward, AdamW")

#define OB_DECLARE(name, what) int ob_suite_##name(ob_bench *b);
OB_SUITES(OB_DECLARE)
#undef OB_DECLARE
#endif
