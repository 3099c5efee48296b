/* A population's batched launches (POP, lib/cl/trainer/group.c,
 * doc/kernels.md): dimension 1 of a launch is the model m. Each kernel
 * moves its per-model buffers on to model m's slot (PS_<buffer>: the
 * slot's stride in bytes, a -D option), and with pop_on reads m's
 * scalars (epoch key, lr, ...) from its record in psc instead of its
 * arguments; a record whose POP_ACTIVE word is 0 (a model not training)
 * makes every group of m return at once. Within one model the work is
 * exactly that of a single model's launch, which has m = 0 and pop_on 0.
 * start, forward and eval take the stride of their grid buffers (states
 * or the hard ping-pong) as pop_gs. Without POP none of this is built. */
#ifndef POP
#define POP 0
#endif
#if POP
#define POP_KEY 0      /* and 1: the epoch key, low word first */
#define POP_ACTIVE 2
#define POP_LR 3
#define POP_BC1 4
#define POP_BC2 5
#define POP_GN 6
#define POP_INV_TAU 7
#define POP_OSC 8      /* the suite's optim_scalars */
#define POP_DECL , __global const uint *psc, int pop_on
#define POP_DECL_G , __global const uint *psc, int pop_on, ulong pop_gs
#define POP_M ((size_t)get_group_id(1))
#define POP_MOVE(p, T, S) p = (T)((__global char *)(p) + POP_M * (size_t)(S))
#define POP_AT(p, T, id) POP_MOVE(p, T, PS_##id)
/* model m's record, or a return for an inactive one; its key into `key` */
#define POP_BEGIN(key)                                                                                             \
  __global const uint *pop_r = psc + POP_M * POP_WORDS;                                                          \
  if (!pop_r[POP_ACTIVE]) return;                                                                                 \
  key = (ulong)pop_r[POP_KEY] | (ulong)pop_r[POP_KEY + 1] << 32
#define POP_F(i) as_float(pop_r[i])
#else
#define POP_DECL
#define POP_DECL_G
#endif
