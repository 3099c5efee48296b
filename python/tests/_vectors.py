"""Reads shared/testdata/ops/*.json (a dlca-ops-vector case, README there)
and runs one case's forward and backward through dlca_cl.ops; the library's
own vector reader is internal, so this parses the JSON."""
import json

import numpy as np

from dlca_cl import ops, gru
from dlca_cl.tensor import Tensor


def load(path):
    d = json.loads(path.read_text())
    arr = {}
    for sec in ("inputs", "outputs", "grad_outputs", "grads"):
        arr[sec] = {k: np.array(v["data"], dtype=np.float64).reshape(v["shape"])
                    for k, v in d.get(sec, {}).items()}
    return d, arr


def close(got, want, tol, what):
    got = np.asarray(got, dtype=np.float64).reshape(np.shape(want))
    bound = tol["abs"] + tol["rel"] * np.abs(want)
    err = np.abs(got - want)
    assert np.all(err <= bound), f"{what}: max |error| {err.max():.3g} over the tolerance"
    return float(err.max()) if err.size else 0.0


def _movement(a):
    fn = a["fn"]
    key = {"permute": "dims", "expand": "shape", "pad": "pads", "shrink": "ranges", "stride": "strides"}[fn]
    return ops.Movement(fn, a[key], a.get("value", 0.0))


def run(ctx, d, arr, fused=True):
    """(outputs, grads) as dicts of numpy arrays for one case (GRU: the fused
    device GRU, or with fused False the GRU composed of ops on a tape)."""
    op, a = d["op"], d["attrs"]
    t = {k: Tensor.from_numpy(ctx, v) for k, v in arr["inputs"].items()}
    g = {k: Tensor.from_numpy(ctx, v) for k, v in arr["grad_outputs"].items()}
    if op in ("gru_cell", "gru_sequence"):
        return gru.gru_grads(ctx, arr["inputs"], arr["grad_outputs"], op == "gru_sequence", fused)
    return _RUN[op](t, g, a)


def _unary(t, g, a):
    y = ops.unary(a["fn"], t["x"])
    return {"y": y}, {"x": ops.unary_backward(a["fn"], t["x"], y, g["y"])}


def _binary(t, g, a):
    y = ops.binary(a["fn"], t["a"], t["b"])
    da, db = ops.binary_backward(a["fn"], t["a"], t["b"], g["y"])
    return {"y": y}, {"a": da, "b": db}


def _reduce(t, g, a):
    y = ops.reduce(a["fn"], t["x"], a["axes"], a["keepdim"])
    return {"y": y}, {"x": ops.reduce_backward(a["fn"], t["x"], g["y"], a["axes"], a["keepdim"])}


def _move(t, g, a):
    m = _movement(a)
    return {"y": m(t["x"])}, {"x": m.backward(g["y"], t["x"].shape)}


def _mse(t, g, a):
    loss = ops.mse_loss(t["input"], t["target"])
    di, dt = ops.mse_loss_backward(t["input"], t["target"], g["loss"], need_target=True)
    return {"loss": loss}, {"input": di, "target": dt}


def _xent(t, g, a):
    loss = ops.cross_entropy(t["logits"], t["target"])
    return {"loss": loss}, {"logits": ops.cross_entropy_backward(t["logits"], t["target"], g["loss"])}


def _gemm(t, g, a):
    kw = dict(alpha=a["alpha"], beta=a["beta"], trans_a=a["trans_a"], trans_b=a["trans_b"])
    y = ops.gemm(t["A"], t["B"], t.get("C"), **kw)
    dA, dB, dC = ops.gemm_backward(t["A"], t["B"], g["y"], need=(True, True, "C" in t), **kw)
    return {"y": y}, {"A": dA, "B": dB, "C": dC}


def _dense(t, g, a):
    y = ops.linear(t["x"], t["W"], t.get("b"), a["activation"])
    dx, dw, db = ops.linear_backward(t["x"], t["W"], y, g["y"], a["activation"])
    return {"y": y}, {"x": dx, "W": dw, "b": db}


def _conv2d(t, g, a):
    y = ops.conv2d(t["x"], t["W"], t.get("b"), a["stride"], a["padding"])
    dx, dw, db = ops.conv2d_backward(t["x"], t["W"], g["y"], a["stride"], a["padding"])
    return {"y": y}, {"x": dx, "W": dw, "b": db}


_RUN = {"unary": _unary, "binary": _binary, "reduce": _reduce, "movement": _move, "mse": _mse,
        "softmax_cross_entropy": _xent, "gemm": _gemm, "dense": _dense, "conv2d": _conv2d}
OPS = tuple(_RUN) + ("gru_cell", "gru_sequence")
