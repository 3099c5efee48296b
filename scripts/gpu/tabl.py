# Timing-only switches (results are wrong under TABL != 0) for the tree of 2026-11-26 (v25):
# 1 dlca_backward's recompute reads its tables (wires, coef) inside a 64-gate window of each
#   layer (a tiny footprint: L1 hits); 2 the push phase's tables (pwire, dcoef) the same way;
# 4 dlca_forward_tile's tables the same way; 8 dlca_backward skips update layers 10 and up
#   (recompute and push: the small layers' phases); 16 the tile forward skips them;
# 32 the tile forward skips its perception stacks.
import sys
for p in sys.argv[1:]:
    s = open(p).read()
    def rep(old, new):
        global s
        assert s.count(old) == 1, (p, old)
        s = s.replace(old, new)
    if p.endswith("trainer.cl"):
        rep('#include "rng.cl"', '#ifndef TABL\n#define TABL 0\n#endif\n#define TW1(x) ((TABL & 1) ? ((x) & 63) : (x))\n#define TW2(x) ((TABL & 2) ? ((x) & 63) : (x))\n#include "rng.cl"')
        rep("if (g < US[1]) pa[i] = wires[wo + g], pb[i] = wires[wo + US[1] + g], pc[i] = coef[go + g];",
            "if (g < US[1]) pa[i] = wires[wo + TW1(g)], pb[i] = wires[wo + US[1] + TW1(g)], pc[i] = coef[go + TW1(g)];")
        rep("if (g < G2) pa[i] = wires[wo + 2 * G + g], pb[i] = wires[wo + 2 * G + G2 + g], pc[i] = coef[go + G + g];",
            "if (g < G2) pa[i] = wires[wo + 2 * G + TW1(g)], pb[i] = wires[wo + 2 * G + G2 + TW1(g)], pc[i] = coef[go + G + TW1(g)];")
        rep("if (BWD_EARLY && G > WG && tid + WG < G) w1 = pwire[go + tid + WG], k1 = dcoef[NGP + go + tid + WG];",
            "if (BWD_EARLY && G > WG && tid + WG < G) w1 = pwire[go + TW2(tid + WG)], k1 = dcoef[NGP + go + TW2(tid + WG)];")
        rep("if (l > 0 && tid < US[l]) pw = pwire[go - US[l] + tid], pc = dcoef[NGP + go - US[l] + tid];",
            "if (l > 0 && tid < US[l]) pw = pwire[go - US[l] + TW2(tid)], pc = dcoef[NGP + go - US[l] + TW2(tid)];")
        # the small layers: the recompute's loop and the push's loop
        rep("  for (int l = 0; l < NU; l++) {\n    const int n = US[l], G = US[l + 1];\n    int wa0[FSLOTS]",
            "  for (int l = 0; l < ((TABL & 8) ? 10 : NU); l++) {\n    const int n = US[l], G = US[l + 1];\n    int wa0[FSLOTS]")
        rep("        const int din = PUSH_OFF[l + 1], dou = PUSH_OFF[l], RO = l + 1 < NU ? UF[l + 1] : 1;",
            "        const int din = PUSH_OFF[l + 1], dou = PUSH_OFF[l], RO = l + 1 < NU ? UF[l + 1] : 1;\n        if ((TABL & 8) && l >= 10) { ao -= n, go -= G, slot -= (G + WG - 1) / WG; continue; }")
    else:
        rep('#include "grid.cl"', '#ifndef TABL\n#define TABL 0\n#endif\n#define TW4(x) ((TABL & 4) ? ((x) & 63) : (x))\n#include "grid.cl"')
        rep("if (g < G) v[q] = gate_t(coef[go + g], in[wires[wo + g] * TL + lane], in[wires[wo + G + g] * TL + lane]);",
            "if (g < G) v[q] = gate_t(coef[go + TW4(g)], in[wires[wo + TW4(g)] * TL + lane], in[wires[wo + G + TW4(g)] * TL + lane]);")
        rep("  for (int l = 0; l < NU; l++) {\n    const int n = US[l], G = US[l + 1], keep",
            "  for (int l = 0; l < ((TABL & 16) ? 10 : NU); l++) {\n    const int n = US[l], G = US[l + 1], keep")
        rep("  for (int p = sl; p < C * K; p += NSL) {\n    const int c = p / K, k = p - c * K;\n    float x[PTOT];\n    perceive_t",
            "  for (int p = sl; p < ((TABL & 32) ? 0 : C * K); p += NSL) {\n    const int c = p / K, k = p - c * K;\n    float x[PTOT];\n    perceive_t")
    open(p, "w").write(s)
