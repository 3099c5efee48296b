# Timing-only probes (results are wrong) for sweep139.sh, on the v29 tree with BWD_GSUMS:
# NOACC: push_gate adds nothing to its 4 gate sums (what holding the sums costs);
# NOBAR: no barrier between dlca_backward's pushed layers (what the layer phases' sync costs);
# NORECOMP: dlca_backward skips its recompute of the forward step (what the recompute costs);
# L2X (sweep142.sh): the recompute's and the push's coefficient loads each load a second float4 from
# another layer's lines (60% more table bytes from the L2; is the L2 what binds?); COEFW (sweep142.sh):
# those coefficient loads read inside a 64-gate window of their layer (L1 hits), the wires as they are.
import sys
what, p = sys.argv[1], sys.argv[2]
s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, (p, old)
    s = s.replace(old, new)
if what == "NOACC":
    rep("    acc[0] += d, acc[1] += d * a, acc[2] += d * bb, acc[3] += d * a * bb;\n    ga[j]",
        "    ga[j]")
elif what == "NOBAR":
    rep("        barrier(CLK_LOCAL_MEM_FENCE);\n      }\n    }\n#else", "      }\n    }\n#else")
elif what == "NORECOMP":
    rep("    cell_forward(coef, pcoef, wires, patch, act, CPW, 9 * C, BACT, TAIL);\n#if PUSH", "#if PUSH")
elif what == "L2X":
    x = " == 0x7fc00001"
    rep("pc[i] = coef[go + G + g];",
        "pc[i] = coef[go + G + g], pa[i] ^= as_int(coef[(go + G + g + 1031) % (NGP + NGU)].x)" + x + ";")
    rep("w1 = pwire[go + tid + WG], k1 = dcoef[NGP + go + tid + WG];",
        "w1 = pwire[go + tid + WG], k1 = dcoef[NGP + go + tid + WG], w1.z ^= as_int(dcoef[(NGP + go + tid + WG + 1031) % (NGP + NGU)].x)" + x + ";")
    rep("pc = dcoef[NGP + go - US[l] + tid];",
        "pc = dcoef[NGP + go - US[l] + tid], pw.z ^= as_int(dcoef[(NGP + go - US[l] + tid + 1031) % (NGP + NGU)].x)" + x + ";")
elif what == "COEFW":
    rep("pc[i] = coef[go + G + g];", "pc[i] = coef[go + G + (g & 63)];")
    rep("k1 = dcoef[NGP + go + tid + WG];", "k1 = dcoef[NGP + go + ((tid + WG) & 63)];")
    rep("pc = dcoef[NGP + go - US[l] + tid];", "pc = dcoef[NGP + go - US[l] + (tid & 63)];")
open(p, "w").write(s)
