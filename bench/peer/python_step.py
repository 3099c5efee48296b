#!/usr/bin/env python3
"""What the Python binding adds to a training step: the checkerboard at
batch 2 (the smallest epoch, where overhead shows most), Trainer.step() +
loss() through dlca_cl against the same two library calls made directly
through ctypes, alternating rounds so that clocks and load hit both alike.
Prints ms per step of each round and the medians.

  DLCA_CL_LIBRARY=build/.libs/libdlca_cl.so PYTHONPATH=python \\
    python3 bench/peer/python_step.py [STEPS] [ROUNDS]      # defaults 3000 5
"""
import ctypes as C
import statistics
import sys
import time

import dlca_cl
from dlca_cl._lib import lib


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    t = dlca_cl.Trainer(dlca_cl.Model.from_preset("checkerboard", 1), "checkerboard", context=dlca_cl.Context(),
                        batch=2)
    ptr, loss = t.ptr, C.c_double()

    def binding():
        for _ in range(n):
            t.step(), t.loss()

    def direct():
        for _ in range(n):
            lib.dlca_trainer_step(ptr), lib.dlca_trainer_loss(ptr, C.byref(loss))

    binding(), direct()  # warm-up: builds, caches, clocks
    times = {"binding": [], "direct": []}
    for _ in range(rounds):
        for name, f in (("direct", direct), ("binding", binding)):
            t0 = time.perf_counter()
            f()
            times[name].append((time.perf_counter() - t0) * 1e3 / n)
            print(f"{name:8s} {times[name][-1]:.4f} ms/step", flush=True)
    b, d = statistics.median(times["binding"]), statistics.median(times["direct"])
    print(f"median of {rounds}: binding {b:.4f} ms, direct {d:.4f} ms: {100 * (b / d - 1):+.1f}% "
          f"({t.context.device['name']})")


if __name__ == "__main__":
    main()
