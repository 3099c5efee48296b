"""Tensors to and from numpy (every rank, odd shapes), errors as DlcaError
with the library's message, and no leak over 1,000 create/free cycles."""
import gc

import numpy as np
import pytest

from _pyops_ctx import ctx  # noqa: F401 (fixture)
import dlca_cl
from dlca_cl import ops, DlcaError
from dlca_cl.tensor import Tensor, TensorGroup

SHAPES = [(), (1,), (7,), (3, 5), (1, 1), (2, 3, 7), (1, 13, 1), (2, 3, 5, 7), (1, 1, 1, 1), (4, 1, 3, 2)]


def _rss_kib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_round_trip(ctx, shape):  # noqa: F811
    a = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    t = dlca_cl.tensor(ctx, a)
    assert t.shape == shape and t.ndim == len(shape) and t.size == a.size
    b = t.numpy()
    assert b.dtype == np.float32 and b.shape == shape
    np.testing.assert_array_equal(b, a)
    np.testing.assert_array_equal(np.asarray(t), a)


def test_conversions(ctx):  # noqa: F811
    """float64, Fortran order and strided views go in as C-contiguous float32."""
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    np.testing.assert_array_equal(Tensor.from_numpy(ctx, a.T).numpy(), a.T.astype(np.float32))
    np.testing.assert_array_equal(Tensor.from_numpy(ctx, a[::2, 1::3]).numpy(), a[::2, 1::3])
    t = Tensor(ctx, (2, 3)).upload(np.ones(6))
    np.testing.assert_array_equal(t.numpy(), np.ones((2, 3)))


def test_group(ctx):  # noqa: F811
    arrays = [np.full((3, 2), 1.5), np.arange(5.0), np.array(2.0)]
    g = TensorGroup.from_numpy(ctx, arrays)
    assert len(g) == 3 and [t.shape for t in g] == [(3, 2), (5,), ()]
    member = g[1]
    del g
    gc.collect()
    np.testing.assert_array_equal(member.numpy(), arrays[1])


def test_operators(ctx):  # noqa: F811
    a, b = np.random.default_rng(1).random((2, 3, 4)).astype(np.float32) + 0.5, np.float32(2.0)
    t = dlca_cl.tensor(ctx, a)
    np.testing.assert_allclose(((t * b + 1) / t - t).numpy(), (a * b + 1) / a - a, rtol=1e-6)
    np.testing.assert_allclose((-t).exp().sum(1).numpy(), np.exp(-a).sum(1), rtol=1e-6)
    np.testing.assert_allclose(t.permute(2, 0, 1).reshape(4, 6).numpy(), a.transpose(2, 0, 1).reshape(4, 6))
    m = dlca_cl.tensor(ctx, a[0])
    np.testing.assert_allclose((m @ dlca_cl.tensor(ctx, a[1].T)).numpy(), a[0] @ a[1].T, rtol=1e-5)


def test_errors_name_both_shapes(ctx):  # noqa: F811
    a, b = Tensor(ctx, (2, 3)), Tensor(ctx, (4, 5))
    with pytest.raises(DlcaError) as e:
        ops.add(a, b)
    assert "[2, 3]" in str(e.value) and "[4, 5]" in str(e.value) and e.value.name == "EINVAL"
    with pytest.raises(DlcaError, match=r"\[2, 3\].*\[4, 5\]|\[4, 5\].*\[2, 3\]"):
        ops.mse_loss(a, b)
    with pytest.raises(DlcaError) as e:
        a.upload(np.zeros(5))
    assert "5" in e.value.message and "6" in e.value.message
    with pytest.raises(ValueError, match="rank 5"):
        Tensor(ctx, (1, 1, 1, 1, 1))
    with pytest.raises(ValueError, match="unary fn 'erf'"):
        ops.unary("erf", a)


def test_tape_refuses_in_place(ctx):  # noqa: F811
    x = Tensor.from_numpy(ctx, np.ones(3))
    with ops.tape(ctx):
        with pytest.raises(DlcaError):
            ops.exp(x, out=x)


def test_no_leak(ctx):  # noqa: F811
    """1,000 create/upload/op/tape/download/free cycles, after 1,000 to warm
    up the allocators, grow the process by < 512 KiB (48 bytes a cycle)."""
    a = np.random.default_rng(3).random((64, 65)).astype(np.float32)

    def cycle():
        t = Tensor.from_numpy(ctx, a)
        y = ops.relu(t)
        y.numpy()
        with ops.tape(ctx) as tp:
            s = ops.sum(ops.mul(t, t))
        tp.backward(s)
        tp.grad(t).numpy()

    for _ in range(1000):
        cycle()
    gc.collect()
    before = _rss_kib()
    for _ in range(1000):
        cycle()
    gc.collect()
    assert _rss_kib() - before < 512


def test_closed_context_and_stale_grads(ctx):  # noqa: F811
    """A closed context or a replaced tape gradient raises instead of crashing."""
    from dlca_cl import Context
    own = Context("cpu")
    t = dlca_cl.tensor(own, np.ones(3))
    own.close()
    with pytest.raises(ValueError, match="closed"):
        t.numpy()
    with pytest.raises(ValueError, match="closed"):
        ops.exp(t)
    del t
    x = dlca_cl.tensor(ctx, np.arange(3.0))
    with ops.tape(ctx) as tp:
        s = ops.sum(ops.mul(x, x))
    tp.backward(s)
    g = tp.grad(x)
    np.testing.assert_allclose(g.numpy(), 2 * np.arange(3.0))
    tp.backward(s)
    with pytest.raises(ValueError, match="freed"):
        g.numpy()
