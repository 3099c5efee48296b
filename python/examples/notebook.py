# %% [markdown]
# # libdlca_cl from a notebook
# Train the checkerboard, draw the curves live, evaluate the circuit on fresh
# grids, export it to C and Verilog, and check one PyTorch ops vector against
# numpy. Each `# %%` is a cell (VS Code, Jupytext, Spyder); run it as a plain
# script too: `python3 python/examples/notebook.py [OUTDIR]`.

# %%
import json
import os
import pathlib
import sys

import numpy as np

import dlca_cl

OUT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else ".")
OUT.mkdir(parents=True, exist_ok=True)
ctx = dlca_cl.Context()  # the best device: a GPU, else PoCL's CPU device
print(ctx.device["name"], "|", [d["name"] for d in dlca_cl.devices()])

# %% [markdown]
# ## Train, with a callback at each hard evaluation
# In Jupyter, redraw a figure in the callback (`IPython.display.clear_output`
# then `dlca_cl.plot.loss_curves(log)`) to watch the curve grow.

# %%
log = []
model, res = dlca_cl.train("checkerboard", seed=1, context=ctx, callback=log.append, eval_fresh=20)
print(f"{res['epoch']} epochs, hard loss {res['hard']['hard_loss']}, fresh grids: {res['fresh']}")

# %% Pictures (matplotlib and Pillow)
try:
    from dlca_cl import plot
    plot.loss_curves(log, OUT / "notebook-loss.png")
    x = dlca_cl.random_grid(16, 16, model.shape["channels"], seed=5)
    plot.rollout_gif(dlca_cl.rollout(model, x, 20, include_start=True), OUT / "notebook-rollout.gif")
    plot.gate_histogram(model, OUT / "notebook-gates.png")
except ImportError as e:
    print("no pictures:", e)

# %% [markdown]
# ## Evaluate: the hard circuit on fresh grids, and its arrays

# %%
print(dlca_cl.evaluate(model, "checkerboard", seed=123, batches=10))
counts, active = model.gate_histogram()
print({dlca_cl.GATE_NAMES[i]: int(c) for i, c in enumerate(counts) if c}, "active:", active)
print("logits", model.logits.shape, model.logits.dtype, "| first update layer's wires", model.wires["update"][0].shape)

# %% Export the hard circuit
c_src, info = model.export("c", name="checkerboard")
model.export("verilog", name="checkerboard", path=OUT / "checkerboard.v")
print(info, "|", c_src.count("\n"), "lines of C")

# %% [markdown]
# ## One PyTorch ops vector against numpy
# The public vectors (shared/testdata/ops) hold the inputs and torch's
# outputs: numpy recomputes them, the library runs the case (dlca_cl.parity),
# and dlca_cl.ops (the compute layer's ops on tensors) does the same op.

# %%
vec = pathlib.Path(os.environ.get("DLCA_SHARED", pathlib.Path(__file__).resolve().parents[3] / "shared"))
vec = vec / "testdata" / "ops" / "binary_mul_0.json"
if vec.exists():
    case = json.load(open(vec))
    a, b = (np.array(case["inputs"][k]["data"], np.float64).reshape(case["inputs"][k]["shape"]) for k in "ab")
    want = np.array(case["outputs"]["y"]["data"]).reshape(case["outputs"]["y"]["shape"])
    print("numpy vs torch:", np.abs(a * b - want).max())
    print("library:", dlca_cl.parity(vec, device=ctx)["errors"])
    try:
        from dlca_cl import ops
        from dlca_cl.tensor import Tensor
        y = ops.mul(Tensor.from_numpy(ctx, a), Tensor.from_numpy(ctx, b)).numpy()
        print("dlca_cl.ops.mul vs numpy:", np.abs(y - a * b).max())
    except (ImportError, AttributeError) as e:  # the package or its library predates the ops
        print("dlca_cl.ops not in this build:", e)
else:
    print(f"{vec} not found (set DLCA_SHARED)")
