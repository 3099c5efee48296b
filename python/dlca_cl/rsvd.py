"""The library's randomized SVD on the device (dlca_rsvd, include/dlca_cl/ops.h;
Halko, Martinsson and Tropp 2011, with the twin lib/ops/ref_rsvd.c)."""
import ctypes as C

import numpy as np

from ._lib import check
from .tensor import Tensor, _decl

_P, _I, _SZ = C.c_void_p, C.c_int, C.c_size_t
# ---- ops.h: the randomized SVD ----
_rsvd = _decl("dlca_rsvd", _I, [_P, _SZ, _SZ, _SZ, C.c_uint64, _P, _P, _P])


def rsvd_t(a, rank, oversample=10, power_iters=2, seed=20111):
    """(U [m, k], S [k] descending, V [n, k]) Tensors with A ~ U diag(S) V^T, A a Tensor [m, n]."""
    if a.ndim != 2:
        raise ValueError(f"rsvd: A has shape {list(a.shape)}, expected a matrix [m, n]")
    (m, n), k, ctx = a.shape, max(int(rank), 0), a.context
    u, s, v = Tensor(ctx, (m, k)), Tensor(ctx, (k,)), Tensor(ctx, (n, k))
    check(_rsvd(a._ptr, int(rank), int(oversample), int(power_iters), int(seed), u._ptr, s._ptr, v._ptr),
          "dlca_rsvd")
    return u, s, v


def rsvd(ctx, a, rank, oversample=10, power_iters=2, seed=20111):
    """The same on a numpy array (or a Tensor): (U, S, V) as float32 arrays."""
    t = a if isinstance(a, Tensor) else Tensor.from_numpy(ctx, np.asarray(a, np.float32))
    return tuple(x.numpy() for x in rsvd_t(t, rank, oversample, power_iters, seed))
