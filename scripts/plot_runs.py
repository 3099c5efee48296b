#!/usr/bin/env python3
"""Plots groups of dlca-train CSV logs side by side: one row of two panels
(soft loss, log scale; hard loss) per group, so that recipes can be compared
(dlca_cl.plot.compare_runs, python/dlca_cl/plot.py).

usage: plot_runs.py OUT.png [--title TEXT] GROUP [GROUP ...]
  (a literal \\n in TEXT breaks the line)
  GROUP is  "LABEL=LOG.csv,LOG.csv,..."  (one run per log; a log named
  ...-sN.csv is labelled "seed N"). A log may also carry a leading `seed`
  column with several runs, as plot_curves.py reads it.
  e.g. plot_runs.py cb.png --title "checkerboard" \\
         "b8t2=sw/checkerboard-b8t2-s1.csv,sw/checkerboard-b8t2-s2.csv" \\
         "ref=sw/checkerboard-ref-s1.csv"
"""
import sys

from plot_curves import load_plot


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    out, args = argv[1], argv[2:]
    title, groups = None, []
    while args:
        a = args.pop(0)
        if a == "--title":
            title = args.pop(0).replace("\\n", "\n") if args else None
        else:
            label, _, logs = a.partition("=")
            groups.append((label, [p for p in logs.split(",") if p]))
    if not groups:
        print("plot_runs: no GROUP given (see --help)", file=sys.stderr)
        return 2
    load_plot().compare_runs(groups, path=out, title=title)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
