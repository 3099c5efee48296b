# Probe for sweep118 (run in the unpacked tarball's tree, then make): the staged tile forward's
# tables in the same local allocation as its two rows (after them), instead of an argument of
# their own, so that ptxas cannot tell the tables' loads from the rows' stores apart and hoist them.
import sys
def patch(p, pairs):
    s = open(p).read()
    for old, new in pairs:
        assert s.count(old) == 1, (p, old)
        s = s.replace(old, new)
    open(p, "w").write(s)
patch("kernels-cl/trainer_tile.cl", [(
    "  __local uint *tabw = (__local uint *)(tab + 2 * TABN);",
    "  tab = (__local float4 *)(buf + 2 * DW * TL);\n  __local uint *tabw = (__local uint *)(tab + 2 * TABN);")])
patch("lib/cl/cl_trainer.c", [(
    """    LOCAL(&a, 2 * (size_t)s->dw * (size_t)s->tl), LOCAL(&a, 9 * (size_t)s->C * (size_t)s->tl);
    LOCAL(&a, tile_fwd_tab_floats(s));""",
    """    LOCAL(&a, 2 * (size_t)s->dw * (size_t)s->tl + tile_fwd_tab_floats(s)), LOCAL(&a, 9 * (size_t)s->C * (size_t)s->tl);
    LOCAL(&a, 4);""")])
