"""GRUs from Python: torch.nn.GRUCell and a one-layer torch.nn.GRU
(batch_first, gate order r, z, n), built from the device ops of dlca_cl.ops,
so that a tape records them and gives their gradients through time.

``gru_cell(ctx, x, h, w_ih, w_hh, b_ih, b_hh)`` and ``gru(ctx, x, h0, ...)``
take and return numpy arrays; ``gru_cell_t`` and ``gru_t`` take and return
Tensors (for use under a tape). The library's fused device GRU
(lib/ops/cl_gru.h) is internal; these compose the public ops instead."""
import numpy as np

from . import ops
from .tensor import Tensor


def _cols(t, j, H):
    B = t.shape[0]
    return ops.shrink(t, [(0, B), (j * H, (j + 1) * H)])


def gru_cell_t(x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    """h' of torch.nn.GRUCell: x [B, I], h [B, H], w_ih [3H, I], w_hh [3H, H], biases [3H] or None."""
    H = h.shape[1]
    gi, gh = ops.linear(x, w_ih, b_ih), ops.linear(h, w_hh, b_hh)
    r = ops.sigmoid(ops.add(_cols(gi, 0, H), _cols(gh, 0, H)))
    z = ops.sigmoid(ops.add(_cols(gi, 1, H), _cols(gh, 1, H)))
    n = ops.tanh(ops.add(_cols(gi, 2, H), ops.mul(r, _cols(gh, 2, H))))
    return ops.add(n, ops.mul(z, ops.sub(h, n)))  # (1 - z) n + z h


def gru_t(x, h0, w_ih, w_hh, b_ih=None, b_hh=None):
    """(y [B, T, H], h_n [B, H]) of a one-layer batch-first torch.nn.GRU over x [B, T, I]."""
    B, T, D = x.shape
    H, h, y = h0.shape[1], h0, None
    for t in range(T):
        xt = ops.reshape(ops.shrink(x, [(0, B), (t, t + 1), (0, D)]), (B, D))
        h = gru_cell_t(xt, h, w_ih, w_hh, b_ih, b_hh)
        yt = ops.pad(ops.reshape(h, (B, 1, H)), [(0, 0), (t, T - 1 - t), (0, 0)])
        y = yt if y is None else ops.add(y, yt)
    return y, h


def _tensors(ctx, *arrays):
    return [None if a is None else Tensor.from_numpy(ctx, a) for a in arrays]


def gru_cell(ctx, x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.nn.GRUCell on numpy arrays: h' [B, H] as a float32 array."""
    return gru_cell_t(*_tensors(ctx, x, h, w_ih, w_hh, b_ih, b_hh)).numpy()


def gru(ctx, x, h0, w_ih, w_hh, b_ih=None, b_hh=None):
    """One-layer batch-first torch.nn.GRU on numpy arrays: (y [B, T, H], h_n [B, H])."""
    y, h = gru_t(*_tensors(ctx, x, h0, w_ih, w_hh, b_ih, b_hh))
    return y.numpy(), h.numpy()


def gru_grads(ctx, inputs, grad_outputs, sequence=True):
    """The outputs and the gradients of sum(output * grad_output) for every
    input, by the tape: inputs a dict of x, h (cell) or h0 (sequence), w_ih,
    w_hh, b_ih, b_hh; grad_outputs h_next (cell) or y and h_n. Returns
    (outputs, grads) as dicts of numpy arrays."""
    names = ("x", "h0" if sequence else "h", "w_ih", "w_hh", "b_ih", "b_hh")
    ts = dict(zip(names, _tensors(ctx, *[inputs.get(k) for k in names])))
    gs = {k: Tensor.from_numpy(ctx, v) for k, v in grad_outputs.items()}
    with ops.tape(ctx) as tp:
        if sequence:
            y, hn = gru_t(*ts.values())
            outs = {"y": y, "h_n": hn}
        else:
            outs = {"h_next": gru_cell_t(*ts.values())}
        parts = [ops.sum(ops.mul(o, gs[k])) for k, o in outs.items() if k in gs]
        loss = parts[0]
        for p in parts[1:]:
            loss = ops.add(loss, p)
    tp.backward(loss)
    grads = {}
    for k, t in ts.items():
        if t is not None:
            g = tp.grad(t)
            grads[k] = np.zeros(t.shape, np.float32) if g is None else g.numpy()
    out = {k: o.numpy() for k, o in outs.items()}
    tp.free()
    return out, grads
