#!/usr/bin/env python3
"""Plots dlca-train CSV logs (soft and hard loss against epoch) to a PNG,
through dlca_cl.plot.loss_curves (python/dlca_cl/plot.py).

usage: plot_curves.py OUT.png LOG.csv [LOG.csv ...]
e.g.   plot_curves.py doc/figures/gol-recipe-5seeds.png doc/figures/gol-recipe-5seeds.csv
A log may carry a leading `seed` column (several runs in one file): a number
is labelled "seed N", any other text is used as the label."""
import importlib.util
import pathlib
import sys


def load_plot():
    """python/dlca_cl/plot.py on its own: it needs numpy and matplotlib, not libdlca_cl."""
    path = pathlib.Path(__file__).resolve().parents[1] / "python" / "dlca_cl" / "plot.py"
    spec = importlib.util.spec_from_file_location("dlca_cl_plot", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 2)
    logs = sys.argv[2:]
    load_plot().loss_curves(logs[0] if len(logs) == 1 else logs, path=sys.argv[1])
