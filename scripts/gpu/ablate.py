# Timing-only ablation switches for kernels-cl/trainer.cl (results are wrong under ABL != 0).
import sys
p = sys.argv[1]
s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
rep('#include "rng.cl"', '#ifndef ABL\n#define ABL 0\n#endif\n#include "rng.cl"')
rep("    {\n      int ao = UTOTAL - C, go = NGP + NGU", "    if (!(ABL & 1)) {\n      int ao = UTOTAL - C, go = NGP + NGU")
rep("    for (int ps = 0; ps < PAIR_SLOTS; ps++) {", "    for (int ps = 0; ps < ((ABL & 2) ? 0 : PAIR_SLOTS); ps++) {")
rep("    cell_forward(coef, pcoef, wires, patch, act, CPW, 9 * C, ACTF);", "    if (!(ABL & 4)) cell_forward(coef, pcoef, wires, patch, act, CPW, 9 * C, ACTF);")
rep("  /* 6. add this work-group's sums", "  if (ABL & 16) return;\n  /* 6. add this work-group's sums")
rep("    cell_forward(coef, pcoef, wires, patch, act, 1, 0, 0);", "    if (!(ABL & 32)) cell_forward(coef, pcoef, wires, patch, act, 1, 0, 0);")
open(p, 'w').write(s)
