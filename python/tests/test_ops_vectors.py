"""The public PyTorch vectors of shared/testdata/ops through the binding:
every op's forward and backward (the backward functions of dlca_cl.ops, and
the tape for the GRU), at each file's tolerance, on $DLCA_CL_DEVICE."""
import json

import numpy as np
import pytest

from _pyops_ctx import ctx  # noqa: F401 (fixture)
import _vectors
from conftest import _shared
from dlca_cl import ops, DlcaError
from dlca_cl.tensor import Tensor

_SHARED = _shared()
_DIR = _SHARED / "testdata" / "ops" if _SHARED else None


def _cases(ops_wanted):
    files = sorted(_DIR.glob("*.json")) if _DIR else []
    return [f.name for f in files if json.loads(f.read_text()).get("op") in ops_wanted]


@pytest.mark.parametrize("name", _cases(_vectors.OPS) or ["(no vectors)"])
def test_op_vector(ctx, shared, name):  # noqa: F811
    path = shared / "testdata" / "ops" / name
    d, arr = _vectors.load(path)
    outs, grads = _vectors.run(ctx, d, arr)
    tol = d["tolerance"]
    for k, want in arr["outputs"].items():
        _vectors.close(np.asarray(outs[k]), want, tol, f"{name} outputs.{k}")
    for k, want in arr["grads"].items():
        got = grads[k]
        _vectors.close(got if isinstance(got, np.ndarray) else got.numpy(), want, tol, f"{name} grads.{k}")


@pytest.mark.parametrize("name", _cases(("gru_cell", "gru_sequence")) or ["(no vectors)"])
def test_gru_composed_on_tape(ctx, shared, name):  # noqa: F811
    """The GRU composed of the public ops, gradients by the tape, meets the same vectors."""
    d, arr = _vectors.load(shared / "testdata" / "ops" / name)
    outs, grads = _vectors.run(ctx, d, arr, fused=False)
    for sec, got in (("outputs", outs), ("grads", grads)):
        for k, want in arr[sec].items():
            _vectors.close(got[k], want, d["tolerance"], f"{name} {sec}.{k}")


def test_tape_matches_backward_functions(ctx, shared):  # noqa: F811
    """dense -> relu -> mse through the tape gives the vector file's dense grads."""
    d, arr = _vectors.load(shared / "testdata" / "ops" / "dense_4x6x3_relu.json")
    t = {k: Tensor.from_numpy(ctx, v) for k, v in arr["inputs"].items()}
    gy = Tensor.from_numpy(ctx, arr["grad_outputs"]["y"])
    with ops.tape(ctx) as tp:
        y = ops.relu(ops.linear(t["x"], t["W"], t["b"]))
        loss = ops.sum(ops.mul(y, gy))
    assert len(tp) == 4
    tp.backward(loss)
    for k in ("x", "W", "b"):
        _vectors.close(tp.grad(t[k]).numpy(), arr["grads"][k], d["tolerance"], f"tape grads.{k}")
    assert tp.grad(gy) is not None and tp.grad(Tensor(ctx, (2,))) is None


@pytest.mark.parametrize("name", ["rsvd_0.json", "rsvd_1.json"])
def test_rsvd_vector(ctx, shared, name):  # noqa: F811
    """The library's device rSVD: S within the file's tolerance; U, V orthonormal (1e-4);
    ||A - U S V^T||_F within 1.01 x the optimal error + 1e-4."""
    from dlca_cl.rsvd import rsvd
    d, arr = _vectors.load(shared / "testdata" / "ops" / name)
    A, at = arr["inputs"]["A"], d["attrs"]
    u, s, v = rsvd(ctx, A, at["rank"], at["oversample"], at["power_iters"], seed=at.get("seed", 20111))
    _vectors.close(s, arr["outputs"]["S"], d["tolerance"], f"{name} S")
    k = at["rank"]
    for name_m, mat in (("U", u), ("V", v)):
        assert np.abs(mat.T.astype(np.float64) @ mat - np.eye(k)).max() <= 1e-4, name_m
    err = np.linalg.norm(A - (u * s) @ v.T)
    assert err <= 1.01 * d["optimal_rank_k_frobenius_error"] + 1e-4


def test_rsvd_errors(ctx):  # noqa: F811
    from dlca_cl.rsvd import rsvd
    with pytest.raises(DlcaError, match="rank 0"):
        rsvd(ctx, np.ones((4, 3)), 0)
    with pytest.raises(DlcaError, match="rank 4"):
        rsvd(ctx, np.ones((4, 3)), 4)
