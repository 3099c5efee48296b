# Timing-only probe (results are wrong) for sweep146.sh: dlca_backward runs only update layers
# [PL0, PL1) in its recompute and its push, and with PNOPERC 1 skips the recompute's perception
# stacks (build options -DPL0=.. -DPL1=.. -DPNOPERC=1). With probe140.py's PROBE_CPW, it sizes a
# pipeline of two groups a cell that split the layers (each half the rows and the sums) before it
# is built: the first half's time plus the second's.
import sys
p = sys.argv[1]
s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, (p, old)
    s = s.replace(old, new)
rep('#include "rng.cl"', '#ifndef PL0\n#define PL0 0\n#endif\n#ifndef PL1\n#define PL1 NU\n#endif\n#ifndef PNOPERC\n#define PNOPERC 0\n#endif\n#include "rng.cl"')
rep("  for (int p = tid; p < C * K; p += WG) {\n    int c = p / K, k = p - c * K;\n    for (int j = 0; j < ncell; j++) {",
    "  for (int p = tid; p < (PNOPERC ? 0 : C * K); p += WG) {\n    int c = p / K, k = p - c * K;\n    for (int j = 0; j < ncell; j++) {")
rep("    const int n = US[l], G = US[l + 1];\n    int wa0[FSLOTS], wb0[FSLOTS];",
    "    const int n = US[l], G = US[l + 1];\n    if (l < PL0 || l >= PL1) { ao += n, wo += 2 * G, go += G; continue; }\n    int wa0[FSLOTS], wb0[FSLOTS];")
rep("        ao -= n, go -= G, slot -= (G + WG - 1) / WG;\n        const int4 w0 = pw;",
    "        ao -= n, go -= G, slot -= (G + WG - 1) / WG;\n        if (l < PL0 || l >= PL1) continue;\n        const int4 w0 = pw;")
open(p, "w").write(s)
