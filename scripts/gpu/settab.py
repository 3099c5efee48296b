#!/usr/bin/env python3
"""A/B helper for the GPU sweeps: rewrites tuning/default.json in place so
that every NVIDIA entry gets the given tunables.  NAME=VALUE pairs; names of
trainer_tile.cl (TL, TWG, TILE_GROUPS_PER_CU, TILE_FWD_GROUPS_PER_CU,
TUNROLL, TFWD_UNROLL, TFWD_INPLACE, TFWD_STAGE, TFWD_CHUNK, TFWD_MAXNREG, TV, TFWD_WPAIR) go to its block, the others to trainer.cl's."""
import json, sys
TILE = {"TL", "TWG", "TILE_GROUPS_PER_CU", "TILE_FWD_GROUPS_PER_CU", "TUNROLL", "TFWD_UNROLL", "TFWD_INPLACE", "TFWD_STAGE", "TFWD_CHUNK", "TFWD_MAXNREG", "TV", "TFWD_WPAIR"}
path = "tuning/default.json"
t = json.load(open(path))
for e in t["entries"]:
    if "NVIDIA" not in (e.get("device", "") + e.get("vendor", "")):
        continue
    for kv in sys.argv[1:]:
        k, v = kv.split("=")
        e["params"].setdefault("trainer_tile" if k in TILE else "trainer", {})[k] = int(v)
json.dump(t, open(path, "w"), indent=1)
