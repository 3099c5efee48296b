"""Devices and contexts: list the OpenCL devices, open a context on one by
the same specs as $DLCA_CL_DEVICE ("gpu", "cpu", "0", "1:0", part of a name)."""
import ctypes as C
import threading

from ._lib import lib, check
from ._decl import DeviceInfo, libc

__all__ = ["devices", "Context", "default_context"]
_TYPES = {1: "cpu", 2: "gpu", 4: "accelerator", 8: "other"}


def _info_dict(d):
    out = d.to_dict()
    out["type"] = _TYPES.get(d.type, "other")
    out["is_default"] = bool(d.is_default)
    return out


def devices():
    """Every device of every platform as a list of dicts (spec, name, vendor,
    type "gpu"/"cpu"/..., compute_units, global_mem, is_default, ...)."""
    p, n = C.POINTER(DeviceInfo)(), C.c_size_t()
    check(lib.dlca_device_list(C.byref(p), C.byref(n)), "dlca_device_list")
    try:
        return [_info_dict(p[i]) for i in range(n.value)]
    finally:
        libc.free(C.cast(p, C.c_void_p))


class _Owned:
    """A C object that frees itself once: close(), `with`, or garbage collection."""
    _free = None
    _ptr = None

    def close(self):
        ptr, self._ptr = self._ptr, None
        if ptr and self._free is not None:
            getattr(lib, self._free)(ptr)

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def ptr(self):
        if not self._ptr:
            raise ValueError(f"{type(self).__name__} is closed")
        return self._ptr


class Context(_Owned):
    """An OpenCL context on one device. spec: None (the library's default:
    $DLCA_CL_DEVICE, else the best GPU, else an accelerator, else a CPU),
    "gpu", "cpu", "accelerator", "P:D", "D", or part of a device name."""
    _free = "dlca_context_free"

    def __init__(self, spec=None):
        if spec is not None and not isinstance(spec, str):
            raise TypeError(f"Context spec must be a str or None, not {type(spec).__name__}")
        p = C.c_void_p()
        check(lib.dlca_context_new(spec.encode() if spec else None, C.byref(p)),
              f"Context({spec!r})" if spec else "Context()")
        self._ptr = p.value

    @property
    def device(self):
        """The device's info dict (as devices() gives it)."""
        d = DeviceInfo()
        lib.dlca_context_device(self.ptr, C.byref(d))
        return _info_dict(d)

    @property
    def warnings(self):
        """Warnings the context recorded (tuning table ignored, cache unusable), one per line."""
        return (lib.dlca_context_warnings(self.ptr) or b"").decode()

    def __repr__(self):
        return f"Context({self.device['name']!r}, spec {self.device['spec']!r})" if self._ptr else "Context(closed)"


_default = None
_lock = threading.Lock()


def default_context():
    """One shared Context() for the objects that are given none."""
    global _default
    with _lock:
        if _default is None or not _default._ptr:
            _default = Context()
        return _default


def resolve(context):
    """(Context or None, pointer): None -> the shared default context; "ref"
    -> the CPU reference (no context); a str -> Context(spec); a Context."""
    if context is None:
        context = default_context()
    if isinstance(context, str):
        if context == "ref":
            return None, None
        context = Context(context)
    if not isinstance(context, Context):
        raise TypeError(f"context must be a Context, a device spec, 'ref' or None, not {type(context).__name__}")
    return context, context.ptr
