"""torch.optim over libdlca_cl (include/dlca_cl/optim.h): SGD, Adam, AdamW,
RMSprop and Adagrad on numpy arrays (the CPU twin, ctx None) or on device
Tensors (ctx a Context), gradient clipping and learning-rate schedules.

    opt = dlca_cl.optim.AdamW(None, [w, b], lr=1e-3)     # numpy, in place
    opt = dlca_cl.optim.AdamW(ctx, [tw, tb], lr=1e-3)    # device Tensors
    opt.step([gw, gb]); opt.lr = 5e-4; blob = opt.state_dict()
"""
import ctypes as C

import numpy as np

from ._lib import lib, check
from .tensor import Tensor, _decl, _ctx_ptr, _alive

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "config", "clip_grad_norm_",
           "clip_grad_value_", "grad_norm", "Schedule", "SequentialLR"]

_P, _I, _SZ, _D, _U64 = C.c_void_p, C.c_int, C.c_size_t, C.c_double, C.c_uint64
_FP = C.POINTER(C.c_float)


# dlca_optim_config: the one mirror, with its four functions declared there (pycore's _decl.py)
from ._decl import OptimConfig as _Config  # noqa: E402

_CFG = C.POINTER(_Config)
# ---- optim.h: the CPU optimizer ----
_cfg_default, _kind_from_name = lib.dlca_optim_config_default, lib.dlca_optim_kind_from_name
_cfg_set, _cfg_check = lib.dlca_optim_config_set, lib.dlca_optim_config_check
_new = _decl("dlca_optim_new", _I, [_CFG, _SZ, C.POINTER(_SZ), C.POINTER(_P)])
_free = _decl("dlca_optim_free", None, [_P])
_step = _decl("dlca_optim_step", _I, [_P, C.POINTER(_FP), C.POINTER(_FP)])
_set_lr = _decl("dlca_optim_set_lr", _I, [_P, _D])
_get_lr = _decl("dlca_optim_lr", _D, [_P])
_steps = _decl("dlca_optim_steps", _U64, [_P])
_slots = _decl("dlca_optim_state_slots", _SZ, [_P])
_slot = _decl("dlca_optim_state_slot", _FP, [_P, _SZ])
_state_size = _decl("dlca_optim_state_size", _SZ, [_P])
_state_save = _decl("dlca_optim_state_save", _I, [_P, _P, _SZ])
_state_load = _decl("dlca_optim_state_load", _I, [_P, _P, _SZ])
# ---- optim.h: clipping ----
_grad_norm = _decl("dlca_grad_norm", _I, [_SZ, C.POINTER(_FP), C.POINTER(_SZ), C.POINTER(_D)])
_clip_norm = _decl("dlca_clip_grad_norm", _I, [_SZ, C.POINTER(_FP), C.POINTER(_SZ), _D, C.POINTER(_D)])
_clip_value = _decl("dlca_clip_grad_value", _I, [_SZ, C.POINTER(_FP), C.POINTER(_SZ), _D])
# ---- optim.h: the device optimizer ----
_cl_new = _decl("dlca_optim_cl_new", _I, [_P, _CFG, _SZ, C.POINTER(_P), C.POINTER(_P)])
_cl_free = _decl("dlca_optim_cl_free", None, [_P])
_cl_step = _decl("dlca_optim_cl_step", _I, [_P, C.POINTER(_P), C.POINTER(_P)])
_cl_set_lr = _decl("dlca_optim_cl_set_lr", _I, [_P, _D])
_cl_steps = _decl("dlca_optim_cl_steps", _U64, [_P])
_cl_clip_norm = _decl("dlca_optim_cl_clip_grad_norm", _I, [_P, C.POINTER(_P), _D])
_cl_last_norm = _decl("dlca_optim_cl_last_norm", _I, [_P, C.POINTER(_D)])
_cl_clip_value = _decl("dlca_optim_cl_clip_grad_value", _I, [_P, C.POINTER(_P), _D])
_cl_state_size = _decl("dlca_optim_cl_state_size", _SZ, [_P])
_cl_state_save = _decl("dlca_optim_cl_state_save", _I, [_P, _P, _SZ])
_cl_state_load = _decl("dlca_optim_cl_state_load", _I, [_P, _P, _SZ])


def config(name, **hyper):
    """The library's configuration for optimizer name ("adamw", ...) with
    torch.optim's arguments (betas=(b1, b2) is beta1, beta2), checked."""
    kind, cfg = _I(), _Config()
    check(_kind_from_name(name.encode(), C.byref(kind)), "optimizer")
    check(_cfg_default(kind.value, C.byref(cfg)))
    if "betas" in hyper:
        hyper["beta1"], hyper["beta2"] = hyper.pop("betas")
    for k, v in hyper.items():
        check(_cfg_set(C.byref(cfg), k.encode(), float(v)))
    check(_cfg_check(C.byref(cfg)))
    return cfg


def _f32_arrays(arrays, what):
    for i, a in enumerate(arrays):
        if not (isinstance(a, np.ndarray) and a.dtype == np.float32 and a.flags.c_contiguous):
            raise TypeError(f"{what}[{i}]: expected a C-contiguous float32 numpy array")
    return (_FP * max(len(arrays), 1))(*[a.ctypes.data_as(_FP) for a in arrays])


def _tensors(ts, what):
    for i, t in enumerate(ts):
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}[{i}]: expected a dlca_cl.Tensor")
    return (_P * max(len(ts), 1))(*[t._ptr for t in ts])


class Optimizer:
    """One optimizer over params: numpy float32 arrays (ctx None, updated in
    place by step) or Tensors of ctx (a device step, enqueued)."""

    def __init__(self, ctx, params, name, **hyper):
        self._cfg, self.params, self._ctx = config(name, **hyper), list(params), ctx
        self._ptr, n = _P(), len(self.params)
        if ctx is None:
            self._parr = _f32_arrays(self.params, "params")
            sizes = (_SZ * max(n, 1))(*[a.size for a in self.params])
            check(_new(C.byref(self._cfg), n, sizes, C.byref(self._ptr)), "dlca_optim_new")
        else:
            self._parr = _tensors(self.params, "params")
            check(_cl_new(_ctx_ptr(ctx), C.byref(self._cfg), n, self._parr, C.byref(self._ptr)),
                  "dlca_optim_cl_new")

    @property
    def device(self):
        return self._ctx is not None

    def step(self, grads):
        """One torch optimizer.step() with these gradients (one per param)."""
        if len(grads) != len(self.params):
            raise ValueError(f"step: {len(grads)} gradients for {len(self.params)} parameters")
        if self.device:
            check(_cl_step(self._ptr, self._parr, _tensors(grads, "grads")), "dlca_optim_cl_step")
        else:
            check(_step(self._ptr, self._parr, _f32_arrays(grads, "grads")), "dlca_optim_step")

    @property
    def lr(self):
        return self._cfg.lr if self.device else _get_lr(self._ptr)

    @lr.setter
    def lr(self, value):
        check((_cl_set_lr if self.device else _set_lr)(self._ptr, float(value)), "set_lr")
        self._cfg.lr = float(value)

    @property
    def steps(self):
        return (_cl_steps if self.device else _steps)(self._ptr)

    def state(self, slot):
        """State slot (momentum, exp_avg, ...) of the CPU optimizer as a flat copy."""
        if self.device:
            raise NotImplementedError("state slots: the CPU optimizer's (use state_dict on the device)")
        if slot >= _slots(self._ptr):
            raise IndexError(f"slot {slot}: the optimizer keeps {_slots(self._ptr)}")
        total = int(np.sum([a.size for a in self.params]))
        return np.ctypeslib.as_array(_slot(self._ptr, slot), (total,)).copy()

    def state_dict(self):
        """The state as the library's DLCAOPT1 bytes (either backend loads them)."""
        size = (_cl_state_size if self.device else _state_size)(self._ptr)
        buf = C.create_string_buffer(size)
        check((_cl_state_save if self.device else _state_save)(self._ptr, buf, size), "state_save")
        return buf.raw

    def load_state_dict(self, blob):
        buf = C.create_string_buffer(bytes(blob), len(blob))
        check((_cl_state_load if self.device else _state_load)(self._ptr, buf, len(blob)), "state_load")

    def clip_grad_norm_(self, grads, max_norm):
        """Device clip_grad_norm_ over grads (Tensors), in place; returns the norm before clipping."""
        if not self.device:
            return clip_grad_norm_(grads, max_norm)
        check(_cl_clip_norm(self._ptr, _tensors(grads, "grads"), float(max_norm)), "clip_grad_norm")
        norm = _D()
        check(_cl_last_norm(self._ptr, C.byref(norm)), "last_norm")
        return norm.value

    def clip_grad_value_(self, grads, clip):
        if not self.device:
            return clip_grad_value_(grads, clip)
        check(_cl_clip_value(self._ptr, _tensors(grads, "grads"), float(clip)), "clip_grad_value")
        return None

    def __del__(self):
        if getattr(self, "_ptr", None) and (not self.device or _alive(self._ctx)):
            (_cl_free if self.device else _free)(self._ptr)
            self._ptr = None


def _named(name, cls_name):
    def init(self, ctx, params, **hyper):
        Optimizer.__init__(self, ctx, params, name, **hyper)
    return type(cls_name, (Optimizer,), {"__init__": init, "__doc__": f"torch.optim.{cls_name} ({name})."})


SGD, Adam, AdamW = _named("sgd", "SGD"), _named("adam", "Adam"), _named("adamw", "AdamW")
RMSprop, Adagrad = _named("rmsprop", "RMSprop"), _named("adagrad", "Adagrad")


def _grad_args(grads):
    arr = _f32_arrays(grads, "grads")
    return len(grads), arr, (_SZ * max(len(grads), 1))(*[g.size for g in grads])


def grad_norm(grads):
    """The global L2 norm over numpy float32 arrays (clip_grad_norm_'s total_norm)."""
    norm = _D()
    check(_grad_norm(*_grad_args(grads), C.byref(norm)), "dlca_grad_norm")
    return norm.value


def clip_grad_norm_(grads, max_norm):
    """torch.nn.utils.clip_grad_norm_ on numpy float32 arrays, in place; the norm before."""
    norm = _D()
    check(_clip_norm(*_grad_args(grads), float(max_norm), C.byref(norm)), "dlca_clip_grad_norm")
    return norm.value


def clip_grad_value_(grads, clip):
    """torch.nn.utils.clip_grad_value_ on numpy float32 arrays, in place."""
    check(_clip_value(*_grad_args(grads), float(clip)), "dlca_clip_grad_value")


from ._schedule import Schedule, SequentialLR  # noqa: E402
