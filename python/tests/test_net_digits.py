"""The network trainer from Python: digits loaded, a small MLP trained on
PoCL and on the CPU twin to a stated accuracy, save/load, errors."""
import os
import pathlib

import numpy as np
import pytest

from _pyops_ctx import ctx  # noqa: F401 (fixture)
from dlca_cl import net, DlcaError

os.environ.setdefault("DLCA_NET_DATA", str(pathlib.Path(__file__).resolve().parents[2] / "data"))


@pytest.fixture(scope="module")
def digits():
    return net.load_digits()


def test_digits(digits):
    x_tr, y_tr, x_te, y_te = digits
    assert x_tr.shape == (1438, 64) and x_te.shape == (359, 64) and x_tr.dtype == np.float32
    assert 0 <= x_tr.min() and x_tr.max() <= 1 and set(np.unique(y_tr)) == set(range(10))


@pytest.mark.parametrize("device", [True, False], ids=["device", "cpu"])
def test_mlp_reaches_95_percent(ctx, digits, device, tmp_path):  # noqa: F811
    """64-64-10 relu, AdamW lr 3e-3, batch 32, 15 epochs: >= 95% test accuracy (96.4% on PoCL)."""
    x_tr, y_tr, x_te, y_te = digits
    n = net.Net([("dense", 64), "relu", ("dense", 10)], (64,), seed=1)
    assert (n.in_size, n.out_size, n.n_params) == (64, 10, 64 * 64 + 64 + 64 * 10 + 10)
    tr = net.Trainer(n, ctx if device else None, "adamw", batch=32, lr=3e-3)
    losses = tr.fit(x_tr, y_tr, epochs=15)
    assert losses[-1] < 0.2 * losses[0]
    acc, loss = tr.evaluate(x_te, y_te)
    assert acc >= 0.95, f"accuracy {acc:.3f}"
    tr.sync()
    n.save(tmp_path / "mlp.json")
    again = net.Trainer(net.Net.load(tmp_path / "mlp.json"), None, batch=32)
    assert again.evaluate(x_te, y_te)[0] == pytest.approx(acc, abs=1.0 / len(x_te))


def test_cnn_preset_steps(ctx, digits):  # noqa: F811
    x_tr, y_tr, _, _ = digits
    n = net.Net.preset("cnn", seed=2)
    assert n.in_size == 64 and n.out_size == 10
    tr = net.Trainer(n, ctx, "adam", batch=16, lr=1e-3)
    tr.data(x_tr[:64], y_tr[:64])
    for b in range(tr.steps_per_epoch):
        tr.step(0, 0, b)
    assert np.isfinite(tr.loss())


def test_errors(ctx, tmp_path):  # noqa: F811
    with pytest.raises(DlcaError, match="layer|dense"):
        net.Net([("maxpool", 4)], (64,))
    with pytest.raises(DlcaError, match="bogus"):
        net.Net.preset("bogus")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "dlca-net", "version": 2}')
    with pytest.raises(DlcaError, match="bad.json"):
        net.Net.load(bad)
    assert sorted(net.perm(1, 0, 10, i) for i in range(10)) == list(range(10))
