#!/usr/bin/env python3
"""Merges dlca-recipes JSON files into one markdown table: per recipe, the
seeds run, how many reached 100% on fresh grids, the median epoch of those
and the mean final fresh accuracy. A recipe run in several files pools its
seeds (a seed run twice keeps the later file's run).

usage: recipes-table.py RUNS.json [RUNS.json ...]"""
import json
import statistics
import sys

runs, what = {}, {}
for path in sys.argv[1:]:
    d = json.load(open(path))
    for s in d["summary"]:
        what.setdefault(s["recipe"], s["what"])
    for r in d["runs"]:
        runs.setdefault(r["recipe"], {})[r["seed"]] = r
print("| recipe | what | seeds | at 100% fresh | median epoch of those | mean fresh accuracy |")
print("|---|---|---|---:|---:|---:|")
for name in what:
    rs = runs[name]
    seeds = sorted(rs)
    ok = [rs[s]["success_epoch"] for s in seeds if rs[s]["success_epoch"]]
    med = "-" if not ok else "%g" % statistics.median(ok)
    acc = sum(rs[s]["fresh_accuracy"] for s in seeds) / len(seeds)
    span = ",".join(str(s) for s in seeds) if len(seeds) < 3 else "%d-%d" % (seeds[0], seeds[-1])
    print(f"| {name} | {what[name]} | {span} | {len(ok)}/{len(seeds)} | {med} | {100 * acc:.1f}% |")
