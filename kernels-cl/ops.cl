// The program of the compute layer's ops (issue 31): the name that the
// tuning table ("ops") and the binary cache know. Its pieces are in ops/,
// each declaring its own @tunables.
#include "ops/elementwise.cl"
#include "ops/reduce.cl"
#include "ops/movement.cl"
#include "ops/loss.cl"
#include "ops/dense.cl"
#include "ops/conv.cl"
#include "ops/gru.cl"
#include "ops/rsvd.cl"
#include "ops/norm.cl"
#include "ops/net.cl"
