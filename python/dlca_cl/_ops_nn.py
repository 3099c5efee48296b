"""Losses, GEMM, dense (torch.nn.Linear), conv2d and pooling of ops.h, with
their backwards; re-exported by dlca_cl.ops."""
import ctypes as C

from ._lib import check
from .tensor import Tensor, _decl, _ctx_ptr
from ._opsutil import _keep, _p, _index, _shape_out, _out

_P, _SZ, _I, _F = C.c_void_p, C.c_size_t, C.c_int, C.c_float
_IP, _SZP = C.POINTER(C.c_int), C.POINTER(C.c_size_t)

ACTIVATIONS = ("none", "relu", "sigmoid", "tanh")
POOL = ("max", "mean")


class _Conv2dParams(C.Structure):
    _fields_ = [("stride_h", C.c_int), ("stride_w", C.c_int), ("pad_h", C.c_int), ("pad_w", C.c_int)]


_CP = C.POINTER(_Conv2dParams)
# ---- ops.h: losses, gemm, dense, conv2d, pool2d ----
_mse = _decl("dlca_mse", _I, [_P, _P, _P])
_mse_bw = _decl("dlca_mse_backward", _I, [_P, _P, _P, _P, _P])
_xent = _decl("dlca_softmax_cross_entropy", _I, [_P, _P, _P])
_xent_bw = _decl("dlca_softmax_cross_entropy_backward", _I, [_P, _P, _P, _P])
_gemm = _decl("dlca_gemm", _I, [_I, _I, _F, _P, _P, _F, _P, _P])
_gemm_bw = _decl("dlca_gemm_backward", _I, [_I, _I, _F, _P, _P, _F, _P, _P, _P, _P])
_dense = _decl("dlca_dense", _I, [_I, _P, _P, _P, _P])
_dense_bw = _decl("dlca_dense_backward", _I, [_I, _P, _P, _P, _P, _P, _P, _P])
_conv2d = _decl("dlca_conv2d", _I, [_CP, _P, _P, _P, _P])
_conv2d_bw = _decl("dlca_conv2d_backward", _I, [_CP, _P, _P, _P, _P, _P, _P])
_conv2d_shape = _decl("dlca_conv2d_shape", _I, [_CP, _P, _P, _IP, _SZP])
_pool2d = _decl("dlca_pool2d", _I, [_I, _I, _I, _P, _P])
_pool2d_bw = _decl("dlca_pool2d_backward", _I, [_I, _I, _I, _P, _P, _P])
_pool2d_shape = _decl("dlca_pool2d_shape", _I, [_I, _I, _I, _P, _IP, _SZP])
_finish = _decl("dlca_ops_finish", _I, [_P])


def _like(t, need):
    return Tensor(t._ctx, t.shape) if need and t is not None else None


# ---- losses (reduction mean, a scalar tensor) ----
def mse_loss(input, target, out=None):  # noqa: A002 (torch's name)
    loss = _out(input._ctx, (), out)
    check(_mse(input._ptr, target._ptr, loss._ptr))
    _keep(input, target, loss)
    return loss


def mse_loss_backward(input, target, g, need_input=True, need_target=False):  # noqa: A002
    """(d_input, d_target) given the upstream gradient g (a one-element tensor)."""
    di, dt = _like(input, need_input), _like(target, need_target)
    check(_mse_bw(input._ptr, target._ptr, g._ptr, _p(di), _p(dt)))
    return di, dt


def cross_entropy(logits, target, out=None):
    """torch.nn.functional.cross_entropy: logits [N, K], target [N] class indices as floats."""
    loss = _out(logits._ctx, (), out)
    check(_xent(logits._ptr, target._ptr, loss._ptr))
    _keep(logits, target, loss)
    return loss


def cross_entropy_backward(logits, target, g, out=None):
    d = _out(logits._ctx, logits.shape, out)
    check(_xent_bw(logits._ptr, target._ptr, g._ptr, d._ptr))
    return d


# ---- gemm and dense ----
def _gemm_shape(a, b, trans_a, trans_b):
    sa, sb = a.shape, b.shape
    m = sa[-1] if trans_a else sa[-2]
    n = sb[-2] if trans_b else sb[-1]
    batch = sa[0] if len(sa) == 3 else (sb[0] if len(sb) == 3 else None)
    return (m, n) if batch is None else (batch, m, n)


def gemm(a, b, c=None, alpha=1.0, beta=0.0, trans_a=False, trans_b=False, out=None):
    """y = alpha op(a) op(b) + beta c (CLBlast; rank 2, or 3 for a batch)."""
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise ValueError(f"gemm: a {a.shape} and b {b.shape} must have rank 2 or 3")
    y = _out(a._ctx, _gemm_shape(a, b, trans_a, trans_b), out)
    check(_gemm(int(trans_a), int(trans_b), alpha, a._ptr, b._ptr, beta, _p(c), y._ptr))
    _keep(a, b, c, y)
    return y


def gemm_backward(a, b, dy, alpha=1.0, beta=0.0, trans_a=False, trans_b=False, need=(True, True, False)):
    """(da, db, dc); need says which to compute."""
    da, db = _like(a, need[0]), _like(b, need[1])
    dc = Tensor(dy._ctx, dy.shape) if need[2] else None
    check(_gemm_bw(int(trans_a), int(trans_b), alpha, a._ptr, b._ptr, beta, dy._ptr, _p(da), _p(db), _p(dc)))
    return da, db, dc


def matmul(a, b, out=None):
    return gemm(a, b, out=out)


def linear(x, weight, bias=None, activation="none", out=None):
    """act(x [N, in] weight [out, in]^T + bias [out]): torch.nn.functional.linear, then act."""
    y = _out(x._ctx, (x.shape[0], weight.shape[0]), out)
    check(_dense(_index(ACTIVATIONS, activation, "activation"), x._ptr, weight._ptr, _p(bias), y._ptr))
    _keep(x, weight, bias, y)
    return y


def linear_backward(x, weight, y, dy, activation="none", need=(True, True, True)):
    """(dx, dweight, dbias) from y = linear(x, ...) and dy."""
    dx, dw, db = _like(x, need[0]), _like(weight, need[1]), None
    if need[2]:
        db = Tensor(x._ctx, (weight.shape[0],))
    check(_dense_bw(_index(ACTIVATIONS, activation, "activation"), x._ptr, weight._ptr, y._ptr, dy._ptr, _p(dx),
                    _p(dw), _p(db)))
    return dx, dw, db


# ---- conv2d and pooling ----
def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _conv_params(stride, padding):
    (sh, sw), (ph, pw) = _pair(stride), _pair(padding)
    return _Conv2dParams(sh, sw, ph, pw)


def conv2d_shape(x, weight, stride=1, padding=0):
    return _shape_out(_conv2d_shape, C.byref(_conv_params(stride, padding)), x._ptr, weight._ptr)


def conv2d(x, weight, bias=None, stride=1, padding=0, out=None):
    """torch.nn.functional.conv2d (groups 1, zero padding)."""
    p = _conv_params(stride, padding)
    y = _out(x._ctx, conv2d_shape(x, weight, stride, padding), out)
    check(_conv2d(C.byref(p), x._ptr, weight._ptr, _p(bias), y._ptr))
    _keep(x, weight, bias, y)
    return y


def conv2d_backward(x, weight, dy, stride=1, padding=0, need=(True, True, True)):
    """(dx, dweight, dbias)."""
    p = _conv_params(stride, padding)
    dx, dw = _like(x, need[0]), _like(weight, need[1])
    db = Tensor(x._ctx, (weight.shape[0],)) if need[2] else None
    check(_conv2d_bw(C.byref(p), x._ptr, weight._ptr, dy._ptr, _p(dx), _p(dw), _p(db)))
    return dx, dw, db


def pool2d(fn, x, kernel_size, stride=None, out=None):
    """fn "max" or "mean" over k x k windows, stride (default k), no padding."""
    f, s = _index(POOL, fn, "pool fn"), kernel_size if stride is None else stride
    y = _out(x._ctx, _shape_out(_pool2d_shape, f, kernel_size, s, x._ptr), out)
    check(_pool2d(f, kernel_size, s, x._ptr, y._ptr))
    _keep(x, y)
    return y


def pool2d_backward(fn, x, dy, kernel_size, stride=None, out=None):
    f, s = _index(POOL, fn, "pool fn"), kernel_size if stride is None else stride
    dx = _out(x._ctx, x.shape, out)
    check(_pool2d_bw(f, kernel_size, s, x._ptr, dy._ptr, dx._ptr))
    return dx


def max_pool2d(x, kernel_size, stride=None, out=None):
    return pool2d("max", x, kernel_size, stride, out)


def avg_pool2d(x, kernel_size, stride=None, out=None):
    return pool2d("mean", x, kernel_size, stride, out)


def finish(ctx):
    """Waits for every op enqueued on ctx."""
    check(_finish(_ctx_ptr(ctx)))
