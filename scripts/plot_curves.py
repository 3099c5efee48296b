#!/usr/bin/env python3
"""Plots dlca-train CSV logs (soft and hard loss against epoch) to a PNG.

usage: plot_curves.py OUT.png LOG.csv [LOG.csv ...]
e.g.   plot_curves.py doc/figures/gol-recipe-5seeds.png doc/figures/gol-recipe-5seeds.csv
A log may carry a leading `seed` column (several runs in one file): a number
is labelled "seed N", any other text is used as the label."""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
    print(__doc__.strip())
    sys.exit(0 if len(sys.argv) == 2 else 2)
out, logs = sys.argv[1], sys.argv[2:]
fig, (ax_soft, ax_hard) = plt.subplots(1, 2, figsize=(11, 4))
for path in logs:
    runs = {}
    for row in csv.DictReader(open(path)):
        runs.setdefault(row.get("seed", path), []).append(row)
    for name, rows in runs.items():
        ep = [int(r["epoch"]) for r in rows]
        label = f"seed {name}" if str(name).isdigit() else name
        ax_soft.plot(ep, [float(r["soft_loss"]) for r in rows], label=label)
        ax_hard.plot(ep, [float(r["hard_loss"]) for r in rows], label=label)
ax_soft.set_yscale("log")
ax_soft.set(title="soft loss", xlabel="epoch")
ax_hard.set(title="hard loss (cells wrong)", xlabel="epoch")
for ax in (ax_soft, ax_hard):
    ax.grid(alpha=0.3)
    ax.legend()
fig.tight_layout()
fig.savefig(out, dpi=110)
