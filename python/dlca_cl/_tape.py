"""The tape of ops.h as a context manager: every forward op run on this
thread between begin and end is recorded; ``backward(loss)`` gives the
gradients of sum(loss), read with ``grad(t)``. The Python side keeps every
recorded Tensor alive until the tape is cleared or freed, since the C tape
only points at them."""
import ctypes as C

from ._lib import check
from .tensor import Tensor, _decl, _ctx_ptr, _alive
from ._opsutil import _local

_P, _I, _SZ = C.c_void_p, C.c_int, C.c_size_t
# ---- ops.h: the tape ----
_tape_new = _decl("dlca_tape_new", _I, [_P, C.POINTER(_P)])
_tape_free = _decl("dlca_tape_free", None, [_P])
_tape_begin = _decl("dlca_tape_begin", _I, [_P])
_tape_end = _decl("dlca_tape_end", None, [_P])
_tape_clear = _decl("dlca_tape_clear", None, [_P])
_tape_size = _decl("dlca_tape_size", _SZ, [_P])
_tape_backward = _decl("dlca_tape_backward", _I, [_P, _P])
_tape_grad = _decl("dlca_tape_grad", _P, [_P, _P])


class Tape:
    """A reverse-mode tape over ctx's ops. ``with tape:`` records;
    ``backward(loss)``; ``grad(t)`` (a Tensor owned by the tape, valid until
    the next backward, clear or free; None where t does not reach the loss)."""

    def __init__(self, ctx):
        out = _P()
        check(_tape_new(_ctx_ptr(ctx), C.byref(out)), "dlca_tape_new")
        self._ptr, self._ctx, self._kept, self._grads = out, ctx, [], []

    def begin(self):
        if getattr(_local, "tape", None) is not None:
            raise RuntimeError("a tape is already recording on this thread")
        check(_tape_begin(self._ptr), "dlca_tape_begin")
        _local.tape = self
        return self

    def end(self):
        _tape_end(self._ptr)
        if getattr(_local, "tape", None) is self:
            _local.tape = None

    def __enter__(self):
        return self.begin()

    def __exit__(self, *exc):
        self.end()
        return False

    def __len__(self):
        return _tape_size(self._ptr)

    def backward(self, loss):
        """The gradients of sum(loss) for every tensor the records reach."""
        self._invalidate()  # the C tape may free or reuse the buffers of the last gradients
        check(_tape_backward(self._ptr, loss._ptr), "dlca_tape_backward")

    def grad(self, t):
        g = _tape_grad(self._ptr, t._ptr)
        if not g:
            return None
        g = Tensor._borrow(g, self._ctx, self)
        self._grads.append(g)
        return g

    def clear(self):
        """Drops the records (and the Tensors kept for them)."""
        self._invalidate()
        _tape_clear(self._ptr)
        self._kept = []

    def _invalidate(self):
        for g in self._grads:
            g._ptr = C.c_void_p()
        self._grads = []

    def free(self):
        if self._ptr:
            self.end()
            self._invalidate()
            if _alive(self._ctx):
                _tape_free(self._ptr)
            self._ptr, self._kept = _P(), []

    def __del__(self):
        try:
            self.free()
        except Exception:  # noqa: BLE001 (interpreter shutdown)
            pass


def tape(ctx):
    """``with dlca_cl.ops.tape(ctx) as t: ...``; then ``t.backward(loss)``."""
    return Tape(ctx)
