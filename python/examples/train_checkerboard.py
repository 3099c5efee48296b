#!/usr/bin/env python3
"""Trains the checkerboard on the best device found (a GPU, else PoCL's CPU
device; DLCA_CL_DEVICE picks another) with the recommended recipe, then
writes the loss curve (checkerboard-loss.png) and a rollout of the trained
circuit from a random grid (checkerboard-rollout.gif), into the directory
given (default: the current one).

  python3 python/examples/train_checkerboard.py [OUTDIR] [SEED]
"""
import os
import sys
import time

import dlca_cl

try:
    from dlca_cl import plot
except ImportError as e:  # dlca_cl.plot needs matplotlib and Pillow
    plot, plot_error = None, e


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    os.makedirs(out, exist_ok=True)
    ctx = dlca_cl.Context()
    print(f"device: {ctx.device['name']} ({ctx.device['type']}); recipe: {dlca_cl.recipe('checkerboard')}")
    t0 = time.time()

    def progress(info):
        print(f"epoch {info['epoch']:5d}  soft {info['soft']:9.3f}  hard {info['hard']:6.0f}  "
              f"{time.time() - t0:6.1f} s", flush=True)

    model, res = dlca_cl.train("checkerboard", seed=seed, context=ctx, callback=progress, restarts=4)
    ok = "right" if res["fresh_ok"] else "WRONG"
    print(f"seed {res['seed']}: {res['epoch']} epochs, {time.time() - t0:.1f} s; {ok} on "
          f"{res['fresh']['total']} fresh cell values ({res['fresh']['errors']} wrong)")
    model.save(os.path.join(out, "checkerboard.json"))
    shape = dlca_cl.preset("checkerboard")
    x = dlca_cl.random_grid(shape["height"], shape["width"], model.shape["channels"], seed=seed + 99)
    frames = dlca_cl.rollout(model, x, shape["steps"], include_start=True)  # [steps + 1, H, W, C]
    if plot is None:
        sys.exit(f"dlca_cl.plot is not available ({plot_error}); install matplotlib and Pillow "
                 "(Debian: apt-get install python3-matplotlib python3-pil) for the pictures")
    plot.loss_curves(res["log"], os.path.join(out, "checkerboard-loss.png"))
    plot.rollout_gif(frames, os.path.join(out, "checkerboard-rollout.gif"))
    print(f"wrote {out}/checkerboard-loss.png, {out}/checkerboard-rollout.gif, {out}/checkerboard.json")
    return 0 if res["fresh_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
