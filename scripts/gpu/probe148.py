# Timing-only probe (results are wrong under PROBE_TAB > 0) for sweep148.sh, on the v30 tree:
# what dlca_forward_tile's tables cost, the ceiling of a tile forward specialised to the model's
# wiring (wires as immediates, coefficients as uniform operands, nothing staged).
#   PROBE_TAB 1: every input row takes the reading slice's parity (tpar.py's TPAR: no bank conflicts
#                between a warp's two slices), the tables as they are;
#   PROBE_TAB 2: the update layers' gates read rows g and g ^ 1 (conflict-free, as 1) with constant
#                coefficients, and nothing is staged: no table loads or stores at all;
#   PROBE_TAB 3: 2, and the perception stacks' coefficients constant and not staged either;
#   PROBE_TAB 4: the real wires staged and read, only the coefficients constant.
#     python3 probe148.py kernels-cl/trainer_tile.cl
import sys
p = sys.argv[1]
s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, (p, old)
    s = s.replace(old, new)
s = s.replace('#include "grid.cl"', '#ifndef PROBE_TAB\n#define PROBE_TAB 0\n#endif\n'
              '#define PKC ((float4)(0.25f, 0.5f, -0.25f, 0.125f))\n#include "grid.cl"', 1)
rep("          v[q] = gate_t(lc[g], in[(w & 0xffff) * TL + lane], in[(w >> 16) * TL + lane]);",
    "          const int ia = PROBE_TAB == 1 ? (((w & 0xffff) & ~1) | (sl & 1)) : (int)(w & 0xffff);\n"
    "          const int ib = PROBE_TAB == 1 ? (((w >> 16) & ~1) | (sl & 1)) : (int)(w >> 16);\n"
    "          if (PROBE_TAB == 2 || PROBE_TAB == 3)\n"
    "            v[q] = gate_t(PKC, in[g * TL + lane], in[(g ^ 1) * TL + lane]);\n"
    "          else\n"
    "            v[q] = gate_t(PROBE_TAB == 4 ? PKC : lc[g], in[ia * TL + lane], in[ib * TL + lane]);")
rep("          const uint w = lw[g];", "          const uint w = (PROBE_TAB == 2 || PROBE_TAB == 3) ? 0u : lw[g];")
# no staging under 2 and 3
rep("    if (g < G) c[i] = coef[go + g], w[i] = (uint)wires[wo + g] | ((uint)wires[wo + G + g] << 16);",
    "    if (g < G && PROBE_TAB != 2 && PROBE_TAB != 3) c[i] = coef[go + g], w[i] = (uint)wires[wo + g] | ((uint)wires[wo + G + g] << 16);")
rep("    if (g < G) tc[g] = c[i], tw[g] = w[i];",
    "    if (g < G && PROBE_TAB != 2 && PROBE_TAB != 3) tc[g] = c[i], tw[g] = w[i];")
rep("inline void perceive_tl(__local const float4 *coef, __local const float *patch, int c, int k, int lane, float *x) {\n  PERCEIVE_T(coef)",
    "inline void perceive_tl(__local const float4 *coef, __local const float *patch, int c, int k, int lane, float *x) {\n"
    "#if PROBE_TAB == 3\n  T_UNROLL for (int f = 0; f < 9; f++) x[f] = patch[(f * C + c) * TL + lane];\n"
    "  T_UNROLL for (int q = 0; q < PG1; q++) x[9 + q] = gate_t(PKC, x[PXA[q]], x[PXB[q]]);\n#else\n  PERCEIVE_T(coef)\n#endif")
rep("    if (TFWD_STAGE)\n      for (int i = tid; i < NGP; i += TWG) tab[TABN + i] = coef[i];",
    "    if (TFWD_STAGE && PROBE_TAB != 3)\n      for (int i = tid; i < NGP; i += TWG) tab[TABN + i] = coef[i];")
open(p, "w").write(s)
