"""The ops of the compute layer (include/dlca_cl/ops.h, doc/ops.md) on
dlca_cl.Tensor, with PyTorch's names and semantics, each forward and its
backward, and the tape: a small reverse-mode autograd.

Every forward allocates its output (of the shape the library's *_shape
function gives) unless ``out=`` names one; every op enqueues on the context's
in-order queue and returns at once; ``Tensor.numpy()`` waits. A backward
returns the gradients it computes, as Tensors of its inputs' shapes.

    with dlca_cl.ops.tape(ctx) as t:
        y = ops.relu(ops.linear(x, w, b))
        loss = ops.mse_loss(y, target)
    t.backward(loss)
    t.grad(w).numpy()
"""
import ctypes as C

import numpy as np

from ._lib import check
from .tensor import Tensor, MAX_RANK, _decl
from ._opsutil import _keep, _p, _index, _shape_out, _out

_P, _SZ, _I, _F = C.c_void_p, C.c_size_t, C.c_int, C.c_float
_IP, _SZP = C.POINTER(C.c_int), C.POINTER(C.c_size_t)

UNARY = ("neg", "exp", "log", "relu", "sigmoid", "tanh", "sqrt", "recip", "exp2", "log2", "sin", "cos")
BINARY = ("add", "sub", "mul", "div", "max", "mod", "cmplt")
REDUCE = ("sum", "max", "mean")
MOVE = ("permute", "expand", "pad", "shrink", "stride")


class _Movement(C.Structure):
    _fields_ = [("fn", C.c_int), ("n", C.c_int), ("arg", (C.c_long * 2) * MAX_RANK), ("value", C.c_double)]


# ---- ops.h ----
_unary = _decl("dlca_unary", _I, [_I, _P, _P])
_unary_bw = _decl("dlca_unary_backward", _I, [_I, _P, _P, _P, _P])
_binary = _decl("dlca_binary", _I, [_I, _P, _P, _P])
_binary_bw = _decl("dlca_binary_backward", _I, [_I, _P, _P, _P, _P, _P])
_broadcast_shape = _decl("dlca_broadcast_shape", _I, [_P, _P, _IP, _SZP])
_reduce = _decl("dlca_reduce", _I, [_I, _P, _IP, _I, _I, _P])
_reduce_bw = _decl("dlca_reduce_backward", _I, [_I, _P, _IP, _I, _I, _P, _P])
_reduce_shape = _decl("dlca_reduce_shape", _I, [_P, _IP, _I, _I, _IP, _SZP])
_move = _decl("dlca_move", _I, [C.POINTER(_Movement), _P, _P])
_move_bw = _decl("dlca_move_backward", _I, [C.POINTER(_Movement), _P, _P])
_move_shape = _decl("dlca_move_shape", _I, [C.POINTER(_Movement), _P, _IP, _SZP])
_reshape = _decl("dlca_reshape", _I, [_P, _P])
_reshape_bw = _decl("dlca_reshape_backward", _I, [_P, _P])


def _axes(dim):
    if dim is None:
        return None, 0
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return (_I * max(len(dims), 1))(*dims), len(dims)


# ---- elementwise ----
def unary(fn, x, out=None):
    """y = fn(x) for fn in UNARY ("exp", "relu", ...)."""
    y = _out(x._ctx, x.shape, out)
    check(_unary(_index(UNARY, fn, "unary fn"), x._ptr, y._ptr))
    _keep(x, y)
    return y


def unary_backward(fn, x, y, dy, out=None):
    """dx = dy * fn'(x), given y = fn(x)."""
    dx = _out(x._ctx, x.shape, out)
    check(_unary_bw(_index(UNARY, fn, "unary fn"), x._ptr, y._ptr, dy._ptr, dx._ptr))
    return dx


def _unary_op(name):
    def op(x, out=None):
        return unary(name, x, out)
    op.__name__ = name
    op.__doc__ = f"torch.{name} on a Tensor (dlca_unary {name})."
    return op


neg, exp, log, relu, sigmoid, tanh = (_unary_op(n) for n in ("neg", "exp", "log", "relu", "sigmoid", "tanh"))
sqrt, reciprocal, exp2, log2, sin, cos = (_unary_op(n) for n in ("sqrt", "recip", "exp2", "log2", "sin", "cos"))


def broadcast_shape(a, b):
    return _shape_out(_broadcast_shape, a._ptr, b._ptr)


def binary(fn, a, b, out=None):
    """y = fn(a, b) with NumPy broadcasting for fn in BINARY."""
    y = _out(a._ctx, broadcast_shape(a, b), out)
    check(_binary(_index(BINARY, fn, "binary fn"), a._ptr, b._ptr, y._ptr))
    _keep(a, b, y)
    return y


def binary_backward(fn, a, b, dy, need_a=True, need_b=True):
    """(da, db), each of its input's shape (None where not asked for)."""
    da = Tensor(a._ctx, a.shape) if need_a else None
    db = Tensor(b._ctx, b.shape) if need_b else None
    check(_binary_bw(_index(BINARY, fn, "binary fn"), a._ptr, b._ptr, dy._ptr, _p(da), _p(db)))
    return da, db


def _binary_op(name, fn):
    def op(a, b, out=None):
        return binary(fn, a, b, out)
    op.__name__ = name
    op.__doc__ = f"torch.{name} with broadcasting (dlca_binary {fn})."
    return op


add, sub, mul, div = (_binary_op(n, n) for n in ("add", "sub", "mul", "div"))
maximum, fmod, lt = _binary_op("maximum", "max"), _binary_op("fmod", "mod"), _binary_op("lt", "cmplt")


# ---- reductions ----
def reduce_shape(x, dim=None, keepdim=False):
    axes, n = _axes(dim)
    return _shape_out(_reduce_shape, x._ptr, axes, n, int(keepdim))


def reduce(fn, x, dim=None, keepdim=False, out=None):
    """fn in REDUCE over the axes dim (an int, a sequence, or None: all)."""
    axes, n = _axes(dim)
    y = _out(x._ctx, reduce_shape(x, dim, keepdim), out)
    check(_reduce(_index(REDUCE, fn, "reduce fn"), x._ptr, axes, n, int(keepdim), y._ptr))
    _keep(x, y)
    return y


def reduce_backward(fn, x, dy, dim=None, keepdim=False, out=None):
    axes, n = _axes(dim)
    dx = _out(x._ctx, x.shape, out)
    check(_reduce_bw(_index(REDUCE, fn, "reduce fn"), x._ptr, axes, n, int(keepdim), dy._ptr, dx._ptr))
    return dx


def sum(x, dim=None, keepdim=False, out=None):  # noqa: A001 (torch's name)
    return reduce("sum", x, dim, keepdim, out)


def amax(x, dim=None, keepdim=False, out=None):
    return reduce("max", x, dim, keepdim, out)


def mean(x, dim=None, keepdim=False, out=None):
    return reduce("mean", x, dim, keepdim, out)


# ---- movement ----
class Movement:
    """One movement (dlca_movement): fn in MOVE and one argument per axis:
    permute dims, expand sizes (-1 keeps), pad [before, after] pairs (and a
    value), shrink [start, end) pairs, stride steps."""

    def __init__(self, fn, args, value=0.0):
        self.fn, self.args, self.value = fn, [tuple(a) if np.ndim(a) else (a,) for a in args], float(value)
        m = _Movement()
        m.fn, m.n, m.value = _index(MOVE, fn, "movement fn"), len(self.args), self.value
        if len(self.args) > MAX_RANK:
            raise ValueError(f"{fn}: {len(self.args)} axes, over {MAX_RANK}")
        for k, a in enumerate(self.args):
            for j, v in enumerate(a[:2]):
                m.arg[k][j] = int(v)
        self._c = m

    def shape(self, x):
        return _shape_out(_move_shape, C.byref(self._c), x._ptr)

    def __call__(self, x, out=None):
        y = _out(x._ctx, self.shape(x), out)
        check(_move(C.byref(self._c), x._ptr, y._ptr))
        _keep(x, y)
        return y

    def backward(self, dy, x_shape, out=None):
        dx = _out(dy._ctx, x_shape, out)
        check(_move_bw(C.byref(self._c), dy._ptr, dx._ptr))
        return dx


def permute(x, dims, out=None):
    return Movement("permute", dims)(x, out)


def expand(x, shape, out=None):
    return Movement("expand", shape)(x, out)


def pad(x, pads, value=0.0, out=None):
    """pads: one (before, after) pair per axis of x (numpy.pad's layout)."""
    return Movement("pad", pads, value)(x, out)


def shrink(x, ranges, out=None):
    """ranges: one [start, end) pair per axis: x[s0:e0, s1:e1, ...]."""
    return Movement("shrink", ranges)(x, out)


def stride(x, steps, out=None):
    """x[::s0, ::s1, ...]."""
    return Movement("stride", steps)(x, out)


def reshape(x, shape, out=None):
    """torch.reshape (a copy); one -1 extent is inferred."""
    shape = list(shape)
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1]))
        shape[shape.index(-1)] = x.size // known if known else 0
    y = _out(x._ctx, shape, out)
    check(_reshape(x._ptr, y._ptr))
    _keep(x, y)
    return y


def reshape_backward(dy, x_shape, out=None):
    dx = _out(dy._ctx, x_shape, out)
    check(_reshape_bw(dy._ptr, dx._ptr))
    return dx


def flatten(x, out=None):
    """[N, ...] to [N, prod(...)] (torch.flatten(x, 1))."""
    return reshape(x, (x.shape[0], -1), out)


from ._ops_nn import (ACTIVATIONS, POOL, mse_loss, mse_loss_backward, cross_entropy,  # noqa: E402
                      cross_entropy_backward, gemm, gemm_backward, matmul, linear, linear_backward, conv2d,
                      conv2d_backward, conv2d_shape, pool2d, pool2d_backward, max_pool2d, avg_pool2d, finish)
from ._tape import Tape, tape  # noqa: E402
from ._operators import install as _install  # noqa: E402

_install()
