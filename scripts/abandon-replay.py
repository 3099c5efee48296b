#!/usr/bin/env python3
"""Replays dlca-train --abandon rules on the growth chains' runs.

    scripts/abandon-replay.py [--data DIR] [--exact SEEDS] [--held-out FILES] RULE [RULE ...]

Each row of DIR/sweep5*-runs.csv (scripts/gpu/growth-chains.sh) holds a run's best cells wrong so
far at epochs 250, 500, ..., 3500, and A if the rule it ran under abandoned it. A RULE such as
750:25,1500:10,2000:5 stops a run at the first E whose best so far is above W (dlca-train
--abandon); a run the data end earlier (abandoned by its own rule, or stopped early) costs what it
cost. For each rule it prints the mean epochs a run, the runs abandoned, the exact runs (--exact)
that it would stop, and the wall time a run predicted by the fit of sweep53-54 (14 workers on an
H100): 3.31 s + 13.97 ms an epoch; --held-out restricts the rows to those files. doc/training.md
"""
import argparse
import csv
import glob
import os
import statistics
import sys

EVERY, LAST = 250, 3500
WALL0, WALL_PER_EPOCH = 3.31, 0.01397


def load(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.reader(f):
                if not r or not r[0].isdigit():
                    continue
                best = [int(x) if x != "" else None for x in r[7:21]]
                flag = r[35] if len(r) > 35 else "F"
                rows.append({"seed": int(r[2]), "best": best, "flag": flag, "file": os.path.basename(path)})
    return rows


def observed_end(run):
    n = sum(1 for b in run["best"] if b is not None)
    return n * EVERY


def cost(run, rule):
    """Epochs the run takes under rule."""
    for e, w in rule:
        b = run["best"][e // EVERY - 1]
        if b is None:  # the run ended before e: as observed
            return observed_end(run)
        if b > w:
            return e
    return observed_end(run) if run["flag"] == "A" else LAST


def parse_rule(text):
    rule = []
    for pair in text.split(","):
        e, w = pair.split(":")
        e, w = int(e), int(w)
        if e % EVERY or not EVERY <= e <= LAST:
            sys.exit(f"abandon-replay: {text}: epoch {e} is not a multiple of {EVERY} in [{EVERY}, {LAST}]")
        rule.append((e, w))
    return rule


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="doc/data/growth-chains-h100")
    ap.add_argument("--exact", default="51002,126003,136003,132004,189005",
                    help="seeds of the runs the recipe made exact (default: sweep50-54's five)")
    ap.add_argument("--held-out", default="", help="comma-separated runs files to restrict the rows to")
    ap.add_argument("rules", nargs="+")
    a = ap.parse_args()
    paths = sorted(glob.glob(os.path.join(a.data, "sweep5*-runs.csv")))
    if not paths:
        sys.exit(f"abandon-replay: {a.data}: no sweep5*-runs.csv")
    rows = load(paths)
    if a.held_out:
        keep = set(a.held_out.split(","))
        rows = [r for r in rows if r["file"] in keep]
    exact = {int(s) for s in a.exact.split(",") if s}
    print(f"{len(rows)} runs from {len(paths)} files")
    print("rule,mean_epochs,fraction,abandoned,wall_s_per_run,stops_exact")
    for text in a.rules:
        rule = parse_rule(text)
        costs = [cost(r, rule) for r in rows]
        mean = statistics.mean(costs)
        wall = statistics.mean(WALL0 + WALL_PER_EPOCH * c for c in costs)
        stopped = [r["seed"] for r, c in zip(rows, costs) if r["seed"] in exact and c < LAST
                   and not (r["flag"] == "F" and c == observed_end(r))]
        print(f"{text},{mean:.0f},{mean / LAST:.3f},{sum(c < LAST for c in costs)},{wall:.1f},"
              f"{' '.join(map(str, stopped)) or 'none'}")


if __name__ == "__main__":
    main()
