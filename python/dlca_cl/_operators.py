"""Python operators on Tensor: + - * / (broadcasting, a Python number is
made a scalar tensor), unary minus, @ (gemm), and .sum() .mean() .max()
.reshape() .permute() .relu() ... as the device ops of dlca_cl.ops."""
import numbers

import numpy as np

from .tensor import Tensor


def _t(ctx, v):
    if isinstance(v, Tensor):
        return v
    if isinstance(v, (numbers.Number, np.ndarray)):
        return Tensor.from_numpy(ctx, np.asarray(v, dtype=np.float32))
    return NotImplemented


def install():
    from . import ops

    def binop(fn, swap=False):
        def f(self, other):
            o = _t(self._ctx, other)
            if o is NotImplemented:
                return o
            return fn(o, self) if swap else fn(self, o)
        return f

    for name, fn in (("add", ops.add), ("sub", ops.sub), ("mul", ops.mul), ("truediv", ops.div)):
        setattr(Tensor, f"__{name}__", binop(fn))
        setattr(Tensor, f"__r{name}__", binop(fn, swap=True))
    Tensor.__matmul__ = lambda self, other: ops.matmul(self, other)
    Tensor.__neg__ = lambda self: ops.neg(self)
    Tensor.__lt__ = binop(ops.lt)
    Tensor.sum = lambda self, dim=None, keepdim=False: ops.sum(self, dim, keepdim)
    Tensor.mean = lambda self, dim=None, keepdim=False: ops.mean(self, dim, keepdim)
    Tensor.max = lambda self, dim=None, keepdim=False: ops.amax(self, dim, keepdim)
    Tensor.reshape = lambda self, *shape: ops.reshape(self, shape[0] if len(shape) == 1 and
                                                       not isinstance(shape[0], int) else shape)
    Tensor.permute = lambda self, *dims: ops.permute(self, dims[0] if len(dims) == 1 and
                                                      not isinstance(dims[0], int) else dims)
    for name in ("exp", "log", "relu", "sigmoid", "tanh", "sqrt", "sin", "cos"):
        setattr(Tensor, name, getattr(ops, name))
