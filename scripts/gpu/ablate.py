# Timing-only ablation switches for kernels-cl/trainer.cl (results are wrong under ABL != 0): 1 no update backward,
# 2 no perception backward, 4 no recompute, 16 no flush, 32 no forward, 64 rev_coef coalesced (before v12), 128 reverse gathers
# contiguous, 256 and 512 below.
import sys
p = sys.argv[1]
s = open(p).read()
def rep(old, new, many=False, gone_ok=False):
    global s
    if gone_ok and old not in s:
        return  # a switch of an older tree
    assert s.count(old) == 1 or (many and s.count(old) > 1), old
    s = s.replace(old, new)
rep('#include "rng.cl"', '#ifndef ABL\n#define ABL 0\n#endif\n#include "rng.cl"')
rep("    {\n      int ao = UTOTAL - C, wo = 2 * PG1", "    if (!(ABL & 1)) {\n      int ao = UTOTAL - C, wo = 2 * PG1", gone_ok=True)
rep("    {\n      int ao = UTOTAL - C, go = NGP + NGU", "    if (!(ABL & 1)) {\n      int ao = UTOTAL - C, go = NGP + NGU", gone_ok=True)  # before v12
assert "ABL & 1" in s
rep("    for (int ps = 0; ps < PAIR_SLOTS; ps++) {", "    for (int ps = 0; ps < ((ABL & 2) ? 0 : PAIR_SLOTS); ps++) {", True)
rep("    cell_forward(coef, pcoef, wires, patch, act, CPW, 9 * C, ACTF);", "    if (!(ABL & 4)) cell_forward(coef, pcoef, wires, patch, act, CPW, 9 * C, ACTF);")
rep("  /* 6. add this work-group's sums", "  if (ABL & 16) return;\n  /* 6. add this work-group's sums")
rep("    cell_forward(coef, pcoef, wires, patch, act, 1, 0, 0);", "    if (!(ABL & 32)) cell_forward(coef, pcoef, wires, patch, act, 1, 0, 0);")
rep("  const float4 cf = dcoef[go + (ent.x >> 1)];", "  const float4 cf = dcoef[go + ((ABL & 64) ? (int)(get_local_id(0) & 7) : (ent.x >> 1))];", gone_ok=True)
rep("const float d = dg[j * 2 * DW + g], o = act[j * ACTF + ao + ent.y];", "const float d = dg[j * 2 * DW + ((ABL & 128) ? (i & 7) : g)], o = act[j * ACTF + ao + ((ABL & 128) ? i : ent.y)];")
# 256: every table load of dlca_backward's update layers (wires, rev, rcoef) inside a 64-entry
# window of its layer (a tiny footprint: L1 hits); 512: the loads of a thread's second and third
# slots (not prefetched) at its first slot's addresses (loaded a layer before)
rep("#include \"rng.cl\"", "#define TW(base, off) ((ABL & 256) ? (base) + ((off) & 63) : (ABL & 512) ? (base) + ((off) & (WG - 1)) : (base) + (off))\n#include \"rng.cl\"")
rep("            const int ia = i ? wires[wo + g] : wa0, ib = i ? wires[wo + G + g] : wb0;", "            const int ia = i ? wires[TW(wo, g)] : wa0, ib = i ? wires[TW(wo + G, g)] : wb0;", gone_ok=True)
rep("              const int2 ent = pf ? e0[k < RPF ? k : 0] : rev[rb + k * n + i];", "              const int2 ent = pf ? e0[k < RPF ? k : 0] : rev[TW(rb + k * n, i)];", gone_ok=True)
rep("              const float2 cc = pf && CPF ? c0[k < RPF ? k : 0] : rcoef[rb + k * n + i];", "              const float2 cc = pf && CPF ? c0[k < RPF ? k : 0] : rcoef[TW(rb + k * n, i)];", gone_ok=True)
rep("          pe[k] = in ? rev[e] : (int2)(-1, 0);\n          pcf[k] = CPF && in ? rcoef[e] : (float2)(0.0f);", "          pe[k] = in ? rev[(ABL & 256) ? TW(rb - R1 * n1 + k * n1, tid) : e] : (int2)(-1, 0);\n          pcf[k] = CPF && in ? rcoef[(ABL & 256) ? TW(rb - R1 * n1 + k * n1, tid) : e] : (float2)(0.0f);", gone_ok=True)
rep("            pe[k] = in ? rev[e] : (int2)(-1, 0);\n            pcf[k] = CPF && in ? rcoef[e] : (float2)(0.0f);", "            pe[k] = in ? rev[(ABL & 256) ? TW(rb - R1 * n1 + k * n1, tid) : e] : (int2)(-1, 0);\n            pcf[k] = CPF && in ? rcoef[(ABL & 256) ? TW(rb - R1 * n1 + k * n1, tid) : e] : (float2)(0.0f);", gone_ok=True)
open(p, 'w').write(s)
