#!/usr/bin/env python3
"""Relabels a model's update gates so that the gathers of trainer.cl's
gate-per-thread kernels hit distinct local-memory banks (an experiment of
issue 5, doc/performance.md "Bank conflicts of the gathers, measured").

usage: relabel-banks.py IN.json OUT.json [--iters N] [--seed S]

Gate g of an update layer runs on thread g (mod the work-group), a warp is
32 consecutive gates, and a layer's outputs are stored in gate order, so the
gather of input a (or b) by one warp costs as many local-memory cycles as
the most distinct inputs that share a bank (index mod 32). Permuting the
gates of a layer (their logits, and the wires of the next layer that read
them) gives the same function with other banks. The update input (level 0)
and the last layer (the new state) keep their order. A local search swaps
two gates of one layer while the summed conflicts (pairs of distinct inputs
in one bank of one warp's gather) do not grow. Prints the mean cycles per
warp gather before and after."""
import json
import math
import random
import sys

BANKS = 32


def main():
    args = sys.argv[1:]
    iters, seed = 400000, 1
    if "--iters" in args:
        i = args.index("--iters"); iters = int(args[i + 1]); del args[i:i + 2]
    if "--seed" in args:
        i = args.index("--seed"); seed = int(args[i + 1]); del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    rng = random.Random(seed)
    m = json.load(open(args[0]))
    up = m["update"]
    sizes = up["layers"]
    NU = len(sizes) - 1
    wires = [[list(w[0]), list(w[1])] for w in up["wires"]]
    # row[i][u]: the row (storage index) of unit u of level i (level i + 1 = outputs of layer i)
    row = [list(range(n)) for n in sizes]

    def groups_of_layer(i):
        """layer i's gathers: for each warp of its gates and each side, the units of level i read"""
        out = {}
        for g in range(sizes[i + 1]):
            w = row[i + 1][g] // BANKS
            for s in (0, 1):
                out.setdefault((w, s), []).append(wires[i][s][g])
        return out

    def group_cost(units, lvl):
        seen = set(units)
        cnt = {}
        for u in seen:
            b = row[lvl][u] % BANKS
            cnt[b] = cnt.get(b, 0) + 1
        return sum(c * (c - 1) // 2 for c in cnt.values()), max(cnt.values())

    def report(tag):
        tot, n, per = 0, 0, []
        for i in range(NU):
            cyc = [group_cost(units, i)[1] for units in groups_of_layer(i).values()]
            tot += sum(cyc); n += len(cyc); per.append(f"{sum(cyc) / len(cyc):.2f}")
        print(f"{tag}: {tot / n:.3f} cycles per warp gather (mean over {n} gathers); per layer {' '.join(per)}")

    report("before")
    free = list(range(1, NU))  # levels whose order may change
    # a simple, correct (if slow) local search: recompute the affected costs from scratch
    def layer_groups_all():
        return [groups_of_layer(i) for i in range(NU)]

    def cost_of(keys):
        c = 0
        for (i, key) in keys:
            units = groups_cache[i].get(key, [])
            if units:
                c += group_cost(units, i)[0]
        return c

    groups_cache = layer_groups_all()
    # the groups each unit of level i belongs to (as an input of layer i)
    def unit_index():
        idx = []
        for i in range(NU):
            d = {}
            for key, units in groups_cache[i].items():
                for x in units:
                    d.setdefault(x, []).append(key)
            idx.append(d)
        return idx

    uidx = unit_index()

    def swap(lvl, u, v):
        """exchanges the rows of units u and v of level lvl; as gates of layer lvl - 1 they
        exchange warps, and so their inputs the gathers they are in (its own inverse)"""
        wu, wv = row[lvl][u] // BANKS, row[lvl][v] // BANKS
        row[lvl][u], row[lvl][v] = row[lvl][v], row[lvl][u]
        if wu == wv:
            return
        for s in (0, 1):
            a, b = groups_cache[lvl - 1][(wu, s)], groups_cache[lvl - 1][(wv, s)]
            xu, xv = wires[lvl - 1][s][u], wires[lvl - 1][s][v]
            a.remove(xu); b.remove(xv); a.append(xv); b.append(xu)
            for x, old, new in ((xu, (wu, s), (wv, s)), (xv, (wv, s), (wu, s))):
                lst = uidx[lvl - 1][x]
                lst.remove(old); lst.append(new)
    accepted = 0
    for it in range(iters):
        lvl = rng.choice(free)
        n = sizes[lvl]
        u, v = rng.randrange(n), rng.randrange(n)
        if u == v or row[lvl][u] % BANKS == row[lvl][v] % BANKS and row[lvl][u] // BANKS == row[lvl][v] // BANKS:
            continue
        keys = set((lvl, k) for k in uidx[lvl].get(u, []) + uidx[lvl].get(v, []))
        wu, wv = row[lvl][u] // BANKS, row[lvl][v] // BANKS
        for w in (wu, wv):
            for s in (0, 1):
                keys.add((lvl - 1, (w, s)))
        before = cost_of(keys)
        swap(lvl, u, v)
        after = cost_of(keys)
        temp = 0.6 * (1 - it / iters)
        if after <= before or (temp > 0 and rng.random() < math.exp((before - after) / temp)):
            accepted += 1
        else:
            swap(lvl, u, v)  # undo
    report("after")
    # write the model with every level in row order: new index = row
    new_wires, new_logits = [], []
    for i in range(NU):
        G = sizes[i + 1]
        order = sorted(range(G), key=lambda g: row[i + 1][g])  # the gate stored at each row
        new_wires.append([[row[i][wires[i][s][g]] for g in order] for s in (0, 1)])
        new_logits.append([up["logits"][i][g] for g in order])
    up["wires"], up["logits"] = new_wires, new_logits
    m["comment"] = "relabelled by scripts/relabel-banks.py: the same function, gates reordered for local-memory banks"
    tmp = args[1] + ".tmp"
    with open(tmp, "w") as f:
        json.dump(m, f)
    import os
    os.replace(tmp, args[1])


if __name__ == "__main__":
    main()
