#!/usr/bin/env python3
"""Plots groups of dlca-train CSV logs side by side: one row of two panels
(soft loss, log scale; hard loss) per group, so that recipes can be compared.

usage: plot_runs.py OUT.png [--title TEXT] GROUP [GROUP ...]
  (a literal \\n in TEXT breaks the line)
  GROUP is  "LABEL=LOG.csv,LOG.csv,..."  (one run per log; a log named
  ...-sN.csv is labelled "seed N"). A log may also carry a leading `seed`
  column with several runs, as plot_curves.py reads it.
  e.g. plot_runs.py cb.png --title "checkerboard" \\
         "b8t2=sw/checkerboard-b8t2-s1.csv,sw/checkerboard-b8t2-s2.csv" \\
         "ref=sw/checkerboard-ref-s1.csv"
"""
import csv
import os
import re
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter


def runs_of(path):
    """{label: rows} of one log."""
    rows = list(csv.DictReader(open(path)))
    if rows and "seed" in rows[0]:
        runs = {}
        for r in rows:
            runs.setdefault(r["seed"], []).append(r)
        return {(f"seed {k}" if k.isdigit() else k): v for k, v in runs.items()}
    m = re.search(r"-s(\d+)\.csv$", os.path.basename(path))
    return {(f"seed {m.group(1)}" if m else os.path.basename(path)): rows}


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    out, args = argv[1], argv[2:]
    title = None
    groups = []
    while args:
        a = args.pop(0)
        if a == "--title":
            title = args.pop(0)
        else:
            label, _, logs = a.partition("=")
            groups.append((label, [p for p in logs.split(",") if p]))
    if not groups:
        print("plot_runs: no GROUP given (see --help)", file=sys.stderr)
        return 2
    fig, axes = plt.subplots(len(groups), 2, figsize=(12, 3.6 * len(groups)),
                             squeeze=False)
    for (label, logs), (ax_soft, ax_hard) in zip(groups, axes):
        for path in logs:
            for name, rows in runs_of(path).items():
                ep = [int(r["epoch"]) for r in rows]
                ax_soft.plot(ep, [float(r["soft_loss"]) for r in rows],
                             label=name, lw=1.2)
                ax_hard.plot(ep, [float(r["hard_loss"]) for r in rows],
                             label=name, lw=1.2)
        ax_soft.set_yscale("log")
        ax_soft.set(title=f"{label}: soft loss", xlabel="epoch",
                    ylabel="soft loss (log scale)")
        ax_hard.set(title=f"{label}: hard loss", xlabel="epoch",
                    ylabel="hard loss (values wrong)")
        ax_hard.set_ylim(bottom=0)
        lo, hi = ax_soft.get_ylim()
        if hi / lo < 100:  # under two decades: label 2, 3 and 5 too
            ax_soft.yaxis.set_minor_formatter(FuncFormatter(
                lambda v, _: f"{v:g}" if f"{v:.1e}"[0] in "235" else ""))
        for ax in (ax_soft, ax_hard):
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
    if title:
        fig.suptitle(title.replace("\\n", "\n"))
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
