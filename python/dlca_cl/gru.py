"""GRUs from Python, torch.nn.GRU's convention (one layer, batch first, gate
order r, z, n; T = 1 is torch.nn.GRUCell):

* ``GRU(ctx, B, T, D, H)``: the library's fused device GRU (dlca_gru_*):
  ``forward(x, h0, w_ih, w_hh, b_ih, b_hh)`` -> (y, h_n) Tensors, then
  ``backward(dy, dh_n)`` -> a dict of gradients (BPTT). Not on the tape.
* ``gru_cell(ctx, ...)``, ``gru(ctx, ...)``, ``gru_grads(ctx, ...)``: the same
  on numpy arrays (fused by default).
* ``gru_cell_t``, ``gru_t``: the GRU composed of the public ops, so that a
  tape records it with the rest of a model."""
import ctypes as C

import numpy as np

from . import ops
from ._lib import check
from .tensor import Tensor, _decl, _ctx_ptr, _alive

_P, _I, _SZ = C.c_void_p, C.c_int, C.c_size_t
# ---- ops.h: the GRU ----
_new = _decl("dlca_gru_new", _I, [_P, _SZ, _SZ, _SZ, _SZ, C.POINTER(_P)])
_free = _decl("dlca_gru_free", None, [_P])
_forward = _decl("dlca_gru_forward", _I, [_P] * 9)
_backward = _decl("dlca_gru_backward", _I, [_P] * 14)

_W = ("w_ih", "w_hh", "b_ih", "b_hh")


def _p(t):
    return None if t is None else t._ptr


class GRU:
    """The fused device GRU of one (B, T, D, H); keeps the last forward for its backward."""

    def __init__(self, ctx, B, T, D, H):
        self._ctx, self.dims, self._ptr = ctx, (B, T, D, H), _P()
        check(_new(_ctx_ptr(ctx), B, T, D, H, C.byref(self._ptr)), "dlca_gru_new")
        self._last = None

    def forward(self, x, h0, w_ih, w_hh, b_ih=None, b_hh=None):
        """(y [B, T, H], h_n [B, H]) Tensors."""
        B, T, _, H = self.dims
        y, hn = Tensor(self._ctx, (B, T, H)), Tensor(self._ctx, (B, H))
        check(_forward(self._ptr, x._ptr, h0._ptr, w_ih._ptr, w_hh._ptr, _p(b_ih), _p(b_hh), y._ptr, hn._ptr),
              "dlca_gru_forward")
        self._last = (x, h0, w_ih, w_hh, b_ih, b_hh)
        return y, hn

    def backward(self, dy=None, dh_n=None):
        """The gradients of sum(y dy) + sum(h_n dh_n): a dict x, h0, w_ih, w_hh (b_ih, b_hh) of Tensors."""
        if self._last is None:
            raise RuntimeError("GRU.backward: no forward ran before")
        x, h0, w_ih, w_hh, b_ih, b_hh = self._last
        g = {k: Tensor(self._ctx, t.shape) for k, t in zip(("x", "h0") + _W, self._last) if t is not None}
        check(_backward(self._ptr, x._ptr, w_ih._ptr, w_hh._ptr, _p(b_ih), _p(b_hh), _p(dy), _p(dh_n),
                        g["x"]._ptr, g["h0"]._ptr, g["w_ih"]._ptr, g["w_hh"]._ptr, _p(g.get("b_ih")),
                        _p(g.get("b_hh"))), "dlca_gru_backward")
        return g

    def __del__(self):
        if getattr(self, "_ptr", None) and _alive(self._ctx):
            _free(self._ptr)
            self._ptr = None


def _cols(t, j, H):
    B = t.shape[0]
    return ops.shrink(t, [(0, B), (j * H, (j + 1) * H)])


def gru_cell_t(x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    """h' of torch.nn.GRUCell from the public ops: x [B, I], h [B, H], w_ih [3H, I], w_hh [3H, H]."""
    H = h.shape[1]
    gi, gh = ops.linear(x, w_ih, b_ih), ops.linear(h, w_hh, b_hh)
    r = ops.sigmoid(ops.add(_cols(gi, 0, H), _cols(gh, 0, H)))
    z = ops.sigmoid(ops.add(_cols(gi, 1, H), _cols(gh, 1, H)))
    n = ops.tanh(ops.add(_cols(gi, 2, H), ops.mul(r, _cols(gh, 2, H))))
    return ops.add(n, ops.mul(z, ops.sub(h, n)))  # (1 - z) n + z h


def gru_t(x, h0, w_ih, w_hh, b_ih=None, b_hh=None):
    """(y [B, T, H], h_n [B, H]) of a one-layer batch-first GRU over x [B, T, I], from the public ops."""
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


def gru(ctx, x, h0, w_ih, w_hh, b_ih=None, b_hh=None):
    """One-layer batch-first torch.nn.GRU on numpy arrays (fused): (y [B, T, H], h_n [B, H])."""
    x = np.asarray(x, np.float32)
    B, T, D = x.shape
    y, hn = GRU(ctx, B, T, D, np.shape(h0)[1]).forward(*_tensors(ctx, x, h0, w_ih, w_hh, b_ih, b_hh))
    return y.numpy(), hn.numpy()


def gru_cell(ctx, x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.nn.GRUCell on numpy arrays (fused): h' [B, H]."""
    return gru(ctx, np.asarray(x, np.float32)[:, None, :], h, w_ih, w_hh, b_ih, b_hh)[1]


def gru_grads(ctx, inputs, grad_outputs, sequence=True, fused=True):
    """Outputs and gradients of sum(output * grad_output) as dicts of numpy
    arrays. inputs: x, h0 (sequence) or h (cell), w_ih, w_hh, b_ih, b_hh;
    grad_outputs: y and h_n, or h_next. fused False: the composed GRU on a tape."""
    hk = "h0" if sequence else "h"
    x = np.asarray(inputs["x"], np.float32)
    xs = x if sequence else x[:, None, :]
    ins = _tensors(ctx, xs, inputs[hk], *[inputs.get(k) for k in _W])
    go = {k: Tensor.from_numpy(ctx, v) for k, v in grad_outputs.items()}
    if fused:
        B, T, D = xs.shape
        g = GRU(ctx, B, T, D, np.shape(inputs[hk])[1])
        y, hn = g.forward(*ins)
        grads = {k: v.numpy() for k, v in g.backward(go.get("y"), go.get("h_n", go.get("h_next"))).items()}
        outs = {"y": y.numpy(), "h_n": hn.numpy()} if sequence else {"h_next": hn.numpy()}
    else:
        outs, grads = _tape_grads(ctx, ins, go, sequence)
    grads[hk] = grads.pop("h0")
    if not sequence:
        grads["x"] = grads["x"].reshape(x.shape)
    return outs, grads


def _tape_grads(ctx, ins, go, sequence):
    with ops.tape(ctx) as tp:
        y, hn = gru_t(*ins)
        outs = {"y": y, "h_n": hn} if sequence else {"h_next": hn}
        parts = [ops.sum(ops.mul(o, go[k])) for k, o in outs.items() if k in go]
        loss = parts[0]
        for p in parts[1:]:
            loss = ops.add(loss, p)
    tp.backward(loss)
    grads = {}
    for k, t in zip(("x", "h0") + _W, ins):
        if t is not None:
            g = tp.grad(t)
            grads[k] = np.zeros(t.shape, np.float32) if g is None else g.numpy()
    out = {k: o.numpy() for k, o in outs.items()}
    tp.free()
    return out, grads
