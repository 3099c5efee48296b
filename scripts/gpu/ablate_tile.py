# Timing-only ablation switches for kernels-cl/trainer_tile.cl (results are wrong under ABL != 0):
# 1 the gate sums of the update layers, 2 the reverse pass (input gradients), 4 the recompute,
# 8 the perception backward, 16 the dP sum, 32 the staging of each layer's input.
import sys
p = sys.argv[1]
s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
rep('#include "grid.cl"', '#ifndef ABL\n#define ABL 0\n#endif\n#include "grid.cl"')
rep("        for (int i = 0; i < (G + TWG - 1) / TWG; i++) {\n          const int g = tid + i * TWG;\n          if (g < G) {\n            const int ia",
    "        for (int i = 0; i < ((ABL & 1) ? 0 : (G + TWG - 1) / TWG); i++) {\n          const int g = tid + i * TWG;\n          if (g < G) {\n            const int ia")
rep("        for (int i = tid / TQ; i < n; i += NSQ) {", "        for (int i = tid / TQ; i < ((ABL & 2) ? 0 : n); i += NSQ) {")
rep("    tile_forward(coef, wires, patch, dbuf, act, 1);", "    if (!(ABL & 4)) tile_forward(coef, wires, patch, dbuf, act, 1);")
rep("      for (int ps = 0; ps < PSLOTS; ps++) {", "      for (int ps = 0; ps < ((ABL & 8) ? 0 : PSLOTS); ps++) {")
rep("      for (int i = tid; i < 9 * C * TL; i += TWG) {\n        const int fc", "      for (int i = tid; i < ((ABL & 16) ? 0 : 9 * C * TL); i += TWG) {\n        const int fc")
rep("        for (int i = tid; i < n * TL / 4; i += TWG) vstore4", "        for (int i = tid; i < ((ABL & 32) ? 0 : n * TL / 4); i += TWG) vstore4")
open(p, 'w').write(s)
