"""Learning-rate schedules of optim.h in closed form: ``Schedule("cosine",
0.05, T_max=10, eta_min=1e-3).at(t)`` is the lr torch.optim.lr_scheduler
gives after t scheduler.step() calls; SequentialLR chains them."""
import ctypes as C

import numpy as np

from ._lib import check
from .tensor import _decl

_I, _D, _U64, _SZ = C.c_int, C.c_double, C.c_uint64, C.c_size_t


class _Spec(C.Structure):
    _fields_ = [("kind", _I), ("base_lr", _D), ("gamma", _D), ("step_size", _U64), ("t_max", _U64),
                ("eta_min", _D), ("max_lr", _D), ("pct_start", _D), ("div_factor", _D), ("final_div_factor", _D),
                ("total_steps", _U64), ("start_factor", _D), ("end_factor", _D), ("total_iters", _U64)]


_SP = C.POINTER(_Spec)
# ---- optim.h: learning-rate schedules ----
_default = _decl("dlca_lr_spec_default", _I, [_I, _D, _SP])
_kind_from_name = _decl("dlca_lrs_kind_from_name", _I, [C.c_char_p, C.POINTER(_I)])
_set = _decl("dlca_lr_spec_set", _I, [_SP, C.c_char_p, _D])
_check = _decl("dlca_lr_spec_check", _I, [_SP])
_at = _decl("dlca_lr_at", _I, [_SP, _U64, C.POINTER(_D)])
_chain_at = _decl("dlca_lr_chain_at", _I, [_SZ, _SP, C.POINTER(_U64), _U64, C.POINTER(_D)])
_chain_fill = _decl("dlca_lr_chain_fill", _I, [_SZ, _SP, C.POINTER(_U64), _U64, _SZ, C.POINTER(C.c_float)])


class Schedule:
    """name: constant, step, exponential, cosine, onecycle, linear
    (linear_warmup); hyper: the torch scheduler's arguments (gamma,
    step_size, T_max, eta_min, max_lr, pct_start, div_factor,
    final_div_factor, total_steps, start_factor, end_factor, total_iters)."""

    def __init__(self, name, base_lr=0.0, **hyper):
        kind = _I()
        check(_kind_from_name(name.encode(), C.byref(kind)), "schedule")
        self._spec = _Spec()
        check(_default(kind.value, float(base_lr), C.byref(self._spec)))
        for k, v in hyper.items():
            check(_set(C.byref(self._spec), k.encode(), float(v)))
        check(_check(C.byref(self._spec)))

    def at(self, t):
        lr = _D()
        check(_at(C.byref(self._spec), int(t), C.byref(lr)), "dlca_lr_at")
        return lr.value

    __call__ = at

    def values(self, steps):
        return np.array([self.at(t) for t in range(steps)])


class SequentialLR:
    """torch's SequentialLR: parts[i] runs from milestones[i - 1] on."""

    def __init__(self, parts, milestones):
        if len(milestones) != len(parts) - 1:
            raise ValueError(f"SequentialLR: {len(parts)} parts need {len(parts) - 1} milestones")
        self._n = len(parts)
        self._parts = (_Spec * self._n)(*[p._spec for p in parts])
        self._ms = (_U64 * max(len(milestones), 1))(*[int(m) for m in milestones])

    def at(self, t):
        lr = _D()
        check(_chain_at(self._n, self._parts, self._ms, int(t), C.byref(lr)), "dlca_lr_chain_at")
        return lr.value

    __call__ = at

    def fill(self, first, count):
        """The lr of steps first .. first + count - 1 as float32 (a device step's buffer)."""
        out = np.empty(count, dtype=np.float32)
        check(_chain_fill(self._n, self._parts, self._ms, int(first), count,
                          out.ctypes.data_as(C.POINTER(C.c_float))), "dlca_lr_chain_fill")
        return out
