/* The device training epoch (doc/semantics.md sections 1-4; doc/kernels.md): gate
 * coefficients, start grids, one launch per forward step, one fused launch
 * per backward step, and one launch for gradient reduction + clip + AdamW.
 * CPU twin: lib/ref/ (forward.c, backward.c, optim.c, gates.c).
 *
 * A macro these kernels read is one of three kinds:
 *  - a tunable: a `// @tunable NAME DEFAULT CANDIDATES | ALLOWED` line with
 *    an #ifndef fallback; the kernel loader injects its tuned value as a
 *    #define line and refuses one outside ALLOWED (doc/tuning-table.md);
 *  - a constant or a value derived from the others (#define, no #ifndef);
 *  - a value the host sets: the -D options of lib/cl/trainer/build.c,
 *    listed here and nowhere else.
 * Host-set (-D), the model's shape and the plan of this run:
 *   C, K, S, NP, P_SIZES (NP+1 widths), NU, U_SIZES (NU+1 widths), U_FANOUT
 *   (the reverse wiring's width of each update layer), PERIODIC, ASYNC,
 *   NLOSS, LOSS_CH (NLOSS channels), PTOT (sum of P_SIZES), UTOTAL (sum of
 *   U_SIZES), PG1 (gates of one perception stack), NGP (perception gates,
 *   K*PG1), NGU (update gates), DW (widest update vector), GMAX (widest
 *   update layer), ST (1: straight-through forward), NPG (logits per gate:
 *   16 for softmax, 4 for the input-wise parametrisation; only dlca_coef
 *   and dlca_adamw read it), CPW (cells a backward unit), CPWP (cells a unit
 *   of dlca_backward_perc), ACTF (floats of one cell's activations), PACT
 *   (floats of one cell's act row in dlca_backward), LWG (the work-group
 *   size taken: WG or WG_NARROW), PERSIST (1: the one-launch backward pass,
 *   BWD_PERSIST), PSPLIT (1: the perception stacks' backward is
 *   dlca_backward_perc, PERC_SPLIT_CELLS), PUSH and PUSH_OFFS (BWD_PUSH
 *   taken, and its slot offsets), TAIL_L (BWD_TAIL taken: its first layer),
 *   BWD_NREG (dlca_backward's register cap), NV_PTX (1 on NVIDIA: inline PTX
 *   for fences and warp barriers), P_XA, P_XB, P_CO, P_CG, P_BQ (one
 *   perception stack as a flat list of gates: compile-time tables, so that
 *   a stack unrolls into registers) and P_WIRES (passed, not read here);
 *   SPIN_MAX (the persistent waits' polls: the host on CPU devices, tests)
 *   and PERSIST_NEVER (tests only) come from DLCA_CL_BUILD_OPTIONS. */
#include "rng.cl"
#include "grid.cl"
#include "trainer/common.cl"
#include "trainer/pop.cl"
#include "trainer/coef.cl"
#include "trainer/start.cl"

#if KERNELS == 0
/* (With KERNELS 1 the host runs trainer_cpu.cl's steps: these two are left
 * out, so that the program builds in a fraction of the time.) */
#include "trainer/forward.cl"
#include "trainer/backward.cl"
#include "trainer/backward_perc.cl"
#endif
#include "trainer/adamw.cl"
#include "trainer/eval.cl"
