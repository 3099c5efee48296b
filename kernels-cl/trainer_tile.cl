/* The forward and backward steps of trainer.cl shaped for many cells on a
 * GPU (trainer KERNELS 2; with KERNELS 0 the forward step alone, from
 * TILE_CELLS cells per step on, next to trainer.cl's backward step):
 * a work-group runs a tile of TL cells side by side, one cell per lane.
 * Thread tid is lane tid % TL of slice tid / TL; the NSL = TWG / TL slices
 * share the gates of each layer, and every activation of the tile is a row
 * of TL floats, one per cell. All cells run one circuit with one wiring, so
 * the lanes of a slice read the same row: a gate's two gathered reads are
 * contiguous, conflict-free local-memory accesses instead of the random
 * addresses of dlca_backward's cell-per-group layout (doc/kernels.md). The tile's update-layer activations go to the group's slot of the
 * global `scratch` buffer during the recompute, coalesced, for the backward
 * pass to read; two local rows ping-pong the forward pass and the gradients.
 *
 * Semantics are those of dlca_forward and dlca_backward (trainer/forward.cl,
 * trainer/backward.cl; doc/semantics.md sections 1-4; doc/kernels.md); the
 * host (lib/cl/trainer/enqueue.c) passes the arguments of trainer_cpu.cl's steps, then local
 * memory (the forward step takes no scratch). Same -D shape options as trainer.cl (ACTF: the floats of one
 * lane's scratch). CPU twin: lib/ref/forward.c and lib/ref/backward.c. */
#include "grid.cl"
#include "trainer/tile_common.cl"
#include "trainer/tile_forward.cl"
#include "trainer/tile_backward.cl"
