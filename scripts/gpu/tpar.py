# Timing-only switch (results are wrong under TPAR 1) for the tree of 2026-11-26 (v28): in
# dlca_forward_tile's staged layers, every input row's index takes the parity of the reading
# slice, so that the two slices of a warp (TL 16) read rows in different halves of the 32 banks:
# the ceiling of a bank-aware gate order for the tile forward.
import sys
for p in sys.argv[1:]:
    s = open(p).read()
    old = "v[q] = gate_t(lc[g], in[(w & 0xffff) * TL + lane], in[(w >> 16) * TL + lane]);"
    new = ("v[q] = gate_t(lc[g], in[(TPAR ? (((w & 0xffff) & ~1) | (sl & 1)) : (w & 0xffff)) * TL + lane], "
           "in[(TPAR ? (((w >> 16) & ~1) | (sl & 1)) : (w >> 16)) * TL + lane]);")
    assert s.count(old) == 1
    s = s.replace(old, new)
    s = s.replace('#include "grid.cl"', '#ifndef TPAR\n#define TPAR 0\n#endif\n#include "grid.cl"', 1)
    open(p, "w").write(s)
