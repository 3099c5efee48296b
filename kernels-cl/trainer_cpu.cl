/* The forward and backward steps of trainer.cl shaped for CPU devices
 * (PoCL): SIMD across cells instead of threads across gates. All cells share
 * one circuit and one wiring, so one work-item runs VEC cells at once, each
 * activation being a floatVEC with one lane per cell, and a gate is
 * c0 + c1 a + c2 b + c3 a b on whole vectors. A work-group is one work-item
 * and loops over chunks of VEC cells (chunk i = cells i VEC .. i VEC + VEC - 1
 * for i = group, group + groups, ...), with no barriers; its activations
 * live in its slot of a global scratch buffer (plain memory on a CPU).
 * Loops stay rolled, so that each model's program builds in seconds.
 *
 * Semantics are those of dlca_forward and dlca_backward (trainer/forward.cl,
 * trainer/backward.cl; doc/semantics.md sections 1-4; doc/kernels.md), and
 * the host (lib/cl/trainer/enqueue.c) passes them the same arguments, then
 * the scratch buffer.
 * Same -D shape options as trainer.cl. CPU twin: lib/ref/forward.c and
 * lib/ref/backward.c (layer_backward, cell_backward). */
#include "grid.cl"
#include "trainer/pop.cl"
#include "trainer/cpu_common.cl"
#include "trainer/cpu_forward.cl"
#include "trainer/cpu_backward.cl"
