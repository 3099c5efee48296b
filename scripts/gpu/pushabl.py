# Timing-only switches for BWD_PUSH in kernels-cl/trainer.cl (results are wrong under PABL != 0):
# 1 no scatter stores of the push phase, 2 the output gradient from slot 0 only, 4 a and b read at g (contiguous).
import sys
p = sys.argv[1]
s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
rep('#include "rng.cl"', '#ifndef PABL\n#define PABL 0\n#endif\n#include "rng.cl"')
rep("for (int j = 0; j < CPW; j++) act[j * BACT + dou + sa] = ga[j], act[j * BACT + dou + sb] = gb[j];",
    "for (int j = 0; j < CPW; j++) if (!(PABL & 1)) act[j * BACT + dou + sa] = ga[j], act[j * BACT + dou + sb] = gb[j]; else if (ga[j] == 1234.5f) act[0] = gb[j];")
rep("if (RO > 1 && w.z > 1) d += A[din + G + g];", "if (!(PABL & 2) && RO > 1 && w.z > 1) d += A[din + G + g];")
rep("const float a = A[ao + ia], bb = A[ao + ib];", "const float a = A[ao + ((PABL & 4) ? g : ia)], bb = A[ao + ((PABL & 4) ? (g ^ 1) : ib)];")
open(p, 'w').write(s)
