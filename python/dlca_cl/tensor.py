"""Device tensors (include/dlca_cl/tensor.h): float32, row-major, rank 0 to 4,
owned by a context and living on its device. numpy arrays go in with
``Tensor.from_numpy(ctx, a)`` (or ``dlca_cl.tensor(ctx, a)``) and come out
with ``t.numpy()``; a tensor frees its device memory when collected.

A context is any object with a ``_ptr`` attribute holding the
``dlca_context*`` (dlca_cl.Context); a tensor keeps its context alive."""
import ctypes as C
import sys
import types

import numpy as np

from ._lib import lib, check

__all__ = ["Tensor", "TensorGroup", "tensor", "MAX_RANK"]

MAX_RANK = 4
_P, _SZ = C.c_void_p, C.c_size_t


def _decl(name, restype, argtypes):
    f = getattr(lib, name)
    f.restype, f.argtypes = restype, argtypes
    return f


# ---- tensor.h ----
_new = _decl("dlca_tensor_new", C.c_int, [_P, C.c_int, C.POINTER(_SZ), C.POINTER(_P)])
_free = _decl("dlca_tensor_free", None, [_P])
_upload = _decl("dlca_tensor_upload", C.c_int, [_P, C.POINTER(C.c_float), _SZ])
_download = _decl("dlca_tensor_download", C.c_int, [_P, C.POINTER(C.c_float), _SZ])
_rank = _decl("dlca_tensor_rank", C.c_int, [_P])
_dim = _decl("dlca_tensor_dim", _SZ, [_P, C.c_int])
_numel = _decl("dlca_tensor_numel", _SZ, [_P])
_context = _decl("dlca_tensor_context", _P, [_P])
_group_new = _decl("dlca_tensor_group_new", C.c_int,
                   [_P, _SZ, C.POINTER(C.c_int), C.POINTER(C.POINTER(_SZ)), C.POINTER(_P)])
_group_member = _decl("dlca_tensor_group_member", _P, [_P, _SZ])
_group_size = _decl("dlca_tensor_group_size", _SZ, [_P])
_group_free = _decl("dlca_tensor_group_free", None, [_P])


def _ctx_ptr(ctx):
    if not hasattr(ctx, "_ptr"):
        raise TypeError(f"expected a dlca_cl.Context, got {type(ctx).__name__}")
    if not ctx._ptr:
        raise ValueError("the context is closed")
    return ctx._ptr


def _alive(ctx):
    """Whether ctx is still open (Context.close() sets its _ptr to None)."""
    return bool(getattr(ctx, "_ptr", None))


def _shape_array(shape):
    shape = tuple(int(d) for d in shape)
    if len(shape) > MAX_RANK:
        raise ValueError(f"shape {shape}: rank {len(shape)} is over {MAX_RANK}")
    if any(d < 0 for d in shape):
        raise ValueError(f"shape {shape}: negative extent")
    return shape, (_SZ * max(len(shape), 1))(*shape)


def _as_f32(a):
    """C-contiguous float32 of a's shape (np.ascontiguousarray would make a 0-d array 1-d)."""
    return np.require(np.asarray(a, dtype=np.float32), requirements="C")


def _fptr(a):
    return a.ctypes.data_as(C.POINTER(C.c_float))


class Tensor:
    """A float32 device tensor. ``Tensor(ctx, shape)`` allocates one whose
    contents are undefined until written; ``Tensor.from_numpy(ctx, a)``
    uploads an array. Arithmetic operators run the device ops
    (dlca_cl.ops)."""

    __slots__ = ("_ptr", "_ctx", "_owner", "__weakref__")

    def __init__(self, ctx, shape=()):
        shape, arr = _shape_array(shape)
        out = _P()
        check(_new(_ctx_ptr(ctx), len(shape), arr if shape else None, C.byref(out)), "dlca_tensor_new")
        self._ptr, self._ctx, self._owner = out, ctx, None

    @classmethod
    def _borrow(cls, ptr, ctx, owner):
        """A view of a tensor owned by owner (a group, a tape): never freed here."""
        t = cls.__new__(cls)
        t._ptr, t._ctx, t._owner = _P(ptr), ctx, owner
        return t

    @classmethod
    def from_numpy(cls, ctx, a):
        """A new tensor holding a (converted to C-contiguous float32)."""
        a = _as_f32(a)
        t = cls(ctx, a.shape)
        t.upload(a)
        return t

    @classmethod
    def empty_like(cls, other):
        return cls(other._ctx, other.shape)

    def upload(self, a):
        """Copies a (of the tensor's element count) in, and waits."""
        a = _as_f32(a)
        self._check_open()
        check(_upload(self._ptr, _fptr(a), a.size), "dlca_tensor_upload")
        return self

    def numpy(self):
        """Waits for the ops enqueued before, and returns a new float32 array."""
        self._check_open()
        out = np.empty(self.shape, dtype=np.float32)
        check(_download(self._ptr, _fptr(out), out.size), "dlca_tensor_download")
        return out

    def _check_open(self):
        if not _alive(self._ctx):
            raise ValueError("the tensor's context is closed")
        if not self._ptr:
            raise ValueError("the tensor was freed (or was a tape's gradient, replaced by a later backward)")

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    @property
    def context(self):
        return self._ctx

    @property
    def ndim(self):
        return _rank(self._ptr)

    @property
    def shape(self):
        return tuple(_dim(self._ptr, k) for k in range(_rank(self._ptr)))

    @property
    def size(self):
        return _numel(self._ptr)

    def __bool__(self):
        raise TypeError("the truth value of a dlca_cl.Tensor is ambiguous (compare its .numpy())")

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a rank-0 tensor")
        return self.shape[0]

    def free(self):
        """Frees the device memory now (a group's member: a no-op; after its
        context was closed, nothing is freed rather than touch a freed context)."""
        if self._owner is None and self._ptr and _alive(self._ctx):
            _free(self._ptr)
        self._ptr = _P()

    def __del__(self):
        try:
            self.free()
        except Exception:  # noqa: BLE001 (interpreter shutdown)
            pass

    def __repr__(self):
        return f"dlca_cl.Tensor(shape={self.shape})"


class TensorGroup:
    """n tensors carved out of one device buffer (dlca_tensor_group): a
    device optimizer steps a whole group in one launch. Members are Tensors
    that keep the group alive; ``group[i]``, ``len(group)``, iteration."""

    def __init__(self, ctx, shapes):
        shapes = [_shape_array(s) for s in shapes]
        n = len(shapes)
        ranks = (C.c_int * max(n, 1))(*[len(s) for s, _ in shapes])
        ptrs = (C.POINTER(_SZ) * max(n, 1))(*[C.cast(a, C.POINTER(_SZ)) if s else None for s, a in shapes])
        out = _P()
        check(_group_new(_ctx_ptr(ctx), n, ranks, ptrs, C.byref(out)), "dlca_tensor_group_new")
        self._ptr, self._ctx = out, ctx
        self.members = [Tensor._borrow(_group_member(out, i), ctx, self) for i in range(n)]

    @classmethod
    def from_numpy(cls, ctx, arrays):
        arrays = [_as_f32(a) for a in arrays]
        g = cls(ctx, [a.shape for a in arrays])
        for t, a in zip(g.members, arrays):
            t.upload(a)
        return g

    def __getitem__(self, i):
        return self.members[i]

    def __len__(self):
        return len(self.members)

    def __iter__(self):
        return iter(self.members)

    def __del__(self):
        if getattr(self, "_ptr", None) and _alive(self._ctx):
            _group_free(self._ptr)
            self._ptr = None


def tensor(ctx, array):
    """dlca_cl.tensor(ctx, a): Tensor.from_numpy(ctx, a)."""
    return Tensor.from_numpy(ctx, array)


class _CallableModule(types.ModuleType):
    """dlca_cl.tensor is this module and, called, the shortcut tensor(ctx, array)."""

    def __call__(self, ctx, array):
        return tensor(ctx, array)


sys.modules[__name__].__class__ = _CallableModule
