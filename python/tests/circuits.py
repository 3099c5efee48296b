"""Models and the library's hard circuit for the numpy evaluator's tests:
trained models from dlca-train (PoCL), random models written in Python, and
the library's hard circuit as dlca-export's C, compiled with cc and run."""
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

from dlca_cl import modelfile

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The C export's step functions over a batch: stdin is int32 b, h, w, steps,
# async, then per sample its grid and (async) steps fire masks of h*w bytes;
# stdout is per sample its steps + 1 grids.
DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include "m.h"
int main(void) {
  int32_t hd[5];
  if (fread(hd, sizeof hd[0], 5, stdin) != 5) return 2;
  size_t cells = (size_t)hd[1] * (size_t)hd[2], n = cells * m_CHANNELS;
  uint8_t *x = malloc(n), *y = malloc(n), *fire = malloc(cells), *t;
  if (!x || !y || !fire) return 3;
  for (int s = 0; s < hd[0]; s++) {
    if (fread(x, 1, n, stdin) != n) return 2;
    fwrite(x, 1, n, stdout);
    for (int k = 0; k < hd[3]; k++) {
      if (hd[4]) {
        if (fread(fire, 1, cells, stdin) != cells) return 2;
        m_step_async(hd[1], hd[2], x, fire, y);
      } else {
        m_step(hd[1], hd[2], x, y);
      }
      fwrite(y, 1, n, stdout);
      t = x, x = y, y = t;
    }
  }
  return 0;
}
"""


def tool(name):
    """A built tool: beside the library under test (build/.libs -> build/tools),
    the source tree's build/, or PATH; skip if none."""
    lib = os.environ.get("DLCA_CL_LIBRARY")
    cands = [pathlib.Path(lib).resolve().parent.parent / "tools" / name] if lib else []
    cands.append(ROOT / "build" / "tools" / name)
    for c in cands:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    found = shutil.which(name)
    if not found:
        pytest.skip(f"{name} not built (build/tools) nor on PATH")
    return found


def train(tmp, preset, epochs, seed=0):
    out = tmp / f"{preset}.json"
    subprocess.run([tool("dlca-train"), "--preset", preset, "--epochs", str(epochs), "--seed", str(seed),
                    "--save", str(out)], check=True, capture_output=True, timeout=600)
    return out


class LibraryCircuit:
    """The library's hard circuit of a model file: dlca-export's C, compiled."""

    def __init__(self, model_path, tmp):
        cc = os.environ.get("CC", "cc")
        if not shutil.which(cc):
            pytest.skip(f"no C compiler ({cc})")
        tmp.mkdir(parents=True, exist_ok=True)
        subprocess.run([tool("dlca-export"), "--model", str(model_path), "--out", str(tmp / "m.h"), "--name", "m"],
                       check=True, capture_output=True, timeout=300)
        (tmp / "driver.c").write_text(DRIVER)
        self.exe = tmp / "driver"
        subprocess.run([cc, "-O1", "-o", str(self.exe), str(tmp / "driver.c")], check=True, cwd=tmp, timeout=600)

    def rollout(self, grid, steps, fire_masks=None):
        """As hard.rollout: [steps + 1, B, H, W, C] uint8."""
        grid = np.asarray(grid, np.uint8)
        b, h, w, c = grid.shape
        head = np.array([b, h, w, steps, fire_masks is not None], np.int32).tobytes()
        parts = [head]
        for s in range(b):
            parts.append(grid[s].tobytes())
            if fire_masks is not None:
                parts.append(np.asarray(fire_masks, np.uint8)[:, s].tobytes())
        out = subprocess.run([str(self.exe)], input=b"".join(parts), capture_output=True, check=True, timeout=600)
        states = np.frombuffer(out.stdout, np.uint8).reshape(b, steps + 1, h, w, c)
        return states.transpose(1, 0, 2, 3, 4)


def random_model(rng, channels, periodic, kernels, perceive, update, parametrisation="softmax16"):
    """A model with random wires in range and random logits: every op occurs."""
    npg = modelfile.params_per_gate(parametrisation)

    def net(widths, extra):
        wires = [(rng.integers(0, n, g).astype(np.int32), rng.integers(0, n, g).astype(np.int32))
                 for n, g in zip(widths[:-1], widths[1:])]
        logits = [(rng.standard_normal(extra + (g, npg)) * 3).astype(np.float32) for g in widths[1:]]
        return wires, logits

    pw, pl = net([9] + perceive, (kernels,))
    uw, ul = net([channels + channels * perceive[-1] * kernels] + update + [channels], ())
    return modelfile.NumpyModel(channels, periodic, pw, pl, uw, ul, parametrisation)


def random_bits(rng, shape):
    return rng.integers(0, 2, shape).astype(np.uint8)
