"""What the op modules share: the keep-alive list of the tape being
recorded on this thread, and the output-shape helpers."""
import ctypes as C
import threading

from ._lib import check
from .tensor import Tensor, MAX_RANK

_SZ = C.c_size_t

# ---- the tape's keep-alive: the C tape holds tensors by reference ----
_local = threading.local()


def _keep(*tensors):
    """Records the Tensors an op used while a tape is begun on this thread, so
    that they live until the tape is cleared (the C tape only points at them)."""
    tp = getattr(_local, "tape", None)
    if tp is not None:
        tp._kept.extend(t for t in tensors if t is not None)


def _p(t):
    return None if t is None else t._ptr


def _index(names, fn, what):
    if isinstance(fn, int):
        return fn
    try:
        return names.index(fn)
    except ValueError:
        raise ValueError(f"{what} {fn!r}: expected one of {', '.join(names)}") from None


def _shape_out(fn_shape, *args):
    rank, shape = C.c_int(), (_SZ * MAX_RANK)()
    check(fn_shape(*args, C.byref(rank), shape))
    return tuple(shape[k] for k in range(rank.value))


def _out(like_ctx, shape, out):
    if out is None:
        return Tensor(like_ctx, shape)
    return out
