"""The optimizer, clipping and schedule vectors of shared/testdata/ops
through dlca_cl.optim, on the CPU twin and on the device, and the state
round trip."""
import numpy as np
import pytest

from _pyops_ctx import ctx  # noqa: F401 (fixture)
import _vectors
from dlca_cl import optim, DlcaError
from dlca_cl.tensor import Tensor

_OPTIM = ["optim_sgd_0", "optim_sgd_2", "optim_adam_4", "optim_adamw_6", "optim_rmsprop_8", "optim_adagrad_10"]


def _vec(shared, name):
    return _vectors.load(shared / "testdata" / "ops" / f"{name}.json")


def _make(ctx, d, params):
    a = d["attrs"]
    return optim.Optimizer(ctx, params, a["name"], **a["hyper"])


@pytest.mark.parametrize("device", [False, True], ids=["cpu", "device"])
@pytest.mark.parametrize("name", _OPTIM)
def test_optimizer_vector(ctx, shared, name, device):  # noqa: F811
    d, arr = _vec(shared, name)
    p = arr["inputs"]["params"].astype(np.float32)
    want = arr["outputs"]["params_after_each_step"]
    if device:
        pt = Tensor.from_numpy(ctx, p)
        opt = _make(ctx, d, [pt])
    else:
        opt = _make(None, d, [p])
    for s, g in enumerate(arr["inputs"]["grads"].astype(np.float32)):
        opt.step([Tensor.from_numpy(ctx, g)] if device else [g])
        _vectors.close(pt.numpy() if device else p, want[s], d["tolerance"], f"{name} step {s}")
    assert opt.steps == len(want)


@pytest.mark.parametrize("device", [False, True], ids=["cpu", "device"])
def test_clip_grad_norm_vector(ctx, shared, device):  # noqa: F811
    d, arr = _vec(shared, "clip_norm_0")
    gs = [arr["inputs"][k].astype(np.float32) for k in ("g0", "g1")]
    if device:
        ts = [Tensor.from_numpy(ctx, g) for g in gs]
        opt = optim.SGD(ctx, [Tensor.from_numpy(ctx, g) for g in gs], lr=0.1)
        norm = opt.clip_grad_norm_(ts, d["attrs"]["max_norm"])
        gs = [t.numpy() for t in ts]
    else:
        assert optim.grad_norm(gs) == pytest.approx(arr["outputs"]["total_norm"][0], rel=1e-6)
        norm = optim.clip_grad_norm_(gs, d["attrs"]["max_norm"])
    _vectors.close([norm], arr["outputs"]["total_norm"], d["tolerance"], "total_norm")
    for k, g in zip(("g0", "g1"), gs):
        _vectors.close(g, arr["outputs"][k], d["tolerance"], k)


@pytest.mark.parametrize("name", ["lr_step", "lr_exponential", "lr_cosine"])
def test_schedule_vector(shared, name):
    d, arr = _vec(shared, name)
    a = d["attrs"]
    s = optim.Schedule(a["name"], a["base_lr"], **a["hyper"])
    want = arr["outputs"]["lr"]
    _vectors.close(s.values(len(want)), want, d["tolerance"], name)
    chain = optim.SequentialLR([optim.Schedule("constant", 0.0), s], [0])
    assert chain.at(3) == s.at(3)
    np.testing.assert_allclose(chain.fill(0, 4), [s.at(t) for t in range(4)], rtol=1e-7)


@pytest.mark.parametrize("device", [False, True], ids=["cpu", "device"])
def test_state_round_trip(ctx, device):  # noqa: F811
    """A restored optimizer continues bit for bit; either backend loads the other's bytes."""
    rng = np.random.default_rng(7)
    p0, gs = rng.standard_normal(9).astype(np.float32), rng.standard_normal((4, 9)).astype(np.float32)

    def run(steps, blob=None, dev=device):
        p = p0.copy()
        holder = Tensor.from_numpy(ctx, p) if dev else p
        opt = optim.AdamW(ctx if dev else None, [holder], lr=0.01, amsgrad=1)
        if blob is not None:
            opt.load_state_dict(blob)
        for g in steps:
            opt.step([Tensor.from_numpy(ctx, g)] if dev else [g])
        return (holder.numpy() if dev else p), opt.state_dict()

    _, blob = run(gs[:2])
    p_a, _ = run(gs[2:], blob)
    p_b, _ = run(gs[2:], blob, dev=not device)
    np.testing.assert_array_equal(p_a, p_b)
    with pytest.raises(DlcaError, match="ECHECKPOINT|checkpoint|state"):
        optim.SGD(None, [np.zeros(3, np.float32)], lr=0.1, momentum=0.9).load_state_dict(blob)


def test_config_errors_carry_the_message():
    with pytest.raises(DlcaError) as e:
        optim.Adam(None, [np.zeros(2, np.float32)], betas=(0.9, 1.0))
    assert "beta2" in str(e.value) and e.value.name == "EINVAL"
    with pytest.raises(DlcaError, match="amsgrad"):
        optim.SGD(None, [np.zeros(2, np.float32)], amsgrad=1)
    with pytest.raises(TypeError):
        optim.SGD(None, [np.zeros(2, np.float64)])


def test_device_step_over_groups_matches_cpu(ctx):  # noqa: F811
    """A device AdamW over two tensor groups (one launch) gives the CPU twin's bits."""
    from dlca_cl.tensor import TensorGroup
    rng = np.random.default_rng(11)
    shapes = [(4, 3), (3,), (2, 2, 2)]
    ps = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    gs = [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(3)]
    pg = TensorGroup.from_numpy(ctx, ps)
    dev = optim.AdamW(ctx, list(pg), lr=0.01, weight_decay=0.1)
    cpu = optim.AdamW(None, ps, lr=0.01, weight_decay=0.1)
    for g in gs:
        dev.step(list(TensorGroup.from_numpy(ctx, g)))
        cpu.step(g)
    for t, p in zip(pg, ps):
        np.testing.assert_array_equal(t.numpy(), p)
