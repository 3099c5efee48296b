"""Models: load, save, build from a preset, the logits and wires as numpy
arrays, the gate histogram, export of the hard circuit to C and Verilog."""
import ctypes as C
import os
import tempfile

import numpy as np

from ._lib import lib, check
from ._decl import ModelShape, Preset, ExportInfo
from .device import _Owned

__all__ = ["Model", "presets", "preset", "GATE_NAMES"]

# doc/semantics.md section 1: op i's name, as dlca-eval prints it.
GATE_NAMES = ("FALSE", "AND", "A AND NOT B", "A", "NOT A AND B", "B", "XOR", "OR", "NOR", "XNOR", "NOT B",
              "A OR NOT B", "NOT A", "NOT A OR B", "NAND", "TRUE")
_PARAMS = {"softmax16": 0, "iwp": 1}


def _str(name, what):
    if not isinstance(name, (str, os.PathLike)):
        raise TypeError(f"{what} must be a str or path, not {type(name).__name__}")
    return os.fsencode(name)


def presets():
    """The preset names ("gol", "checkerboard", ...)."""
    names, out = lib.dlca_preset_names(), []
    while names[len(out)]:
        out.append(names[len(out)].decode())
    return out


def _preset_struct(name):
    p = Preset()
    check(lib.dlca_preset_get(_str(name, "preset"), C.byref(p)), f"preset {name!r}")
    return p


def _shape_dict(s):
    d = s.to_dict()
    d["perceive_layers"] = d["perceive_layers"][:s.n_perceive_layers]
    d["update_layers"] = d["update_layers"][:s.n_update_layers]
    d["parametrisation"] = (lib.dlca_parametrisation_name(s.parametrisation) or b"").decode()
    return d


def preset(name):
    """A preset as a dict: its shape and the paper's protocol (height, width,
    steps, batch, epochs, async, fire_rate, lr, start, loss_channels)."""
    p = _preset_struct(name)
    d = p.to_dict()
    d["shape"] = _shape_dict(p.shape)
    d["async"] = bool(d.pop("async_"))
    d["loss_channels"] = d["loss_channels"][:p.n_loss_channels]
    return d


def param_code(parametrisation):
    if parametrisation not in _PARAMS:
        raise ValueError(f"parametrisation must be one of {sorted(_PARAMS)}, not {parametrisation!r}")
    return _PARAMS[parametrisation]


class Model(_Owned):
    """A DiffLogic CA model (its shape, wires and logits). Build one with
    Model.load(path), Model.from_preset(name, seed) or Model.from_shape."""
    _free = "dlca_model_free"

    def __init__(self, _ptr):
        if not isinstance(_ptr, int) or not _ptr:
            raise TypeError("use Model.load, Model.from_preset or Model.from_shape")
        self._ptr = _ptr

    @classmethod
    def _make(cls, fn, *args, what):
        p = C.c_void_p()
        check(fn(*args, C.byref(p)), what)
        return cls(p.value)

    @classmethod
    def load(cls, path):
        """A dlca-model JSON file (doc/model-format.md); errors name the file and field."""
        return cls._make(lib.dlca_model_load, _str(path, "path"), what=f"Model.load({os.fspath(path)!r})")

    @classmethod
    def from_preset(cls, name, seed=1, parametrisation="softmax16"):
        """A fresh model of a preset's shape, wires drawn from seed, logits at
        the pass-through initialisation."""
        p = _preset_struct(name)
        p.shape.parametrisation = param_code(parametrisation)
        return cls.from_shape(p.shape, seed)

    @classmethod
    def from_shape(cls, shape, seed=1):
        """shape: a dict as Model.shape gives it (or a preset's "shape")."""
        if isinstance(shape, dict):
            s = ModelShape()
            for k in ("channels", "periodic", "n_kernels", "perceive_first_wiring", "wiring"):
                if k in shape:
                    setattr(s, k, int(shape[k]))
            for k in ("perceive_layers", "update_layers"):
                v = list(shape[k])
                if not 0 < len(v) <= 64:
                    raise ValueError(f"shape[{k!r}] must have 1 to 64 entries")
                setattr(s, "n_" + k, len(v))
                getattr(s, k)[:len(v)] = [int(x) for x in v]
            s.parametrisation = param_code(shape.get("parametrisation", "softmax16"))
            shape = s
        seed = _u64(seed, "seed")
        return cls._make(lib.dlca_model_new, C.byref(shape), seed, what="Model.from_shape")

    def clone(self):
        return Model._make(lib.dlca_model_clone, self.ptr, what="Model.clone")

    def save(self, path):
        """Writes the model atomically (temp file, fsync, rename)."""
        check(lib.dlca_model_save(self.ptr, _str(path, "path")), f"Model.save({os.fspath(path)!r})")

    @property
    def shape(self):
        s = ModelShape()
        lib.dlca_model_get_shape(self.ptr, C.byref(s))
        return _shape_dict(s)

    @property
    def n_gates(self):
        return lib.dlca_model_n_gates(self.ptr)

    @property
    def n_params(self):
        return lib.dlca_model_n_params(self.ptr)

    @property
    def params_per_gate(self):
        return lib.dlca_model_params_per_gate(self.ptr)

    @property
    def logits(self):
        """A float32 copy of every logit, flat, in the JSON's order
        (perception [kernel][gate][NPG] layer by layer, then update [gate][NPG])."""
        p = lib.dlca_model_params(self.ptr)
        return np.ctypeslib.as_array(p, shape=(self.n_params,)).copy()

    @logits.setter
    def logits(self, value):
        a = _f32(value, (self.n_params,), "logits")
        C.memmove(lib.dlca_model_params(self.ptr), a.ctypes.data, a.nbytes)

    def _n_layers(self, update):
        s = self.shape
        return len(s["update_layers" if update else "perceive_layers"]) - 1

    def layer_logits(self, update, layer):
        """One layer's logits, float32 copy: perception [K][G][NPG], update [G][NPG]."""
        s, n = self.shape, self._n_layers(update)
        if not 0 <= layer < n:
            raise ValueError(f"{'update' if update else 'perception'} layer {layer} out of range 0..{n - 1}")
        g = s["update_layers" if update else "perceive_layers"][layer + 1]
        off = lib.dlca_model_layer_offset(self.ptr, int(bool(update)), layer)
        shape = (g, self.params_per_gate) if update else (s["n_kernels"], g, self.params_per_gate)
        return self.logits[off:off + int(np.prod(shape))].reshape(shape)

    @property
    def wires(self):
        """{"perceive": [...], "update": [...]}: per layer an int32 array [2, G]
        (row 0 wa, row 1 wb: the inputs of each gate). Copies."""
        s, out = self.shape, {}
        for key, update, layers in (("perceive", 0, s["perceive_layers"]), ("update", 1, s["update_layers"])):
            out[key] = []
            for layer in range(len(layers) - 1):
                w = np.empty((2, layers[layer + 1]), np.int32)
                i32p = C.POINTER(C.c_int32)
                check(lib.dlca_model_wires(self.ptr, update, layer, w[0].ctypes.data_as(i32p),
                                           w[1].ctypes.data_as(i32p)), "Model.wires")
                out[key].append(w)
        return out

    def gate_histogram(self):
        """(counts, active): counts int64 [16], gates whose hard op is i; active
        the gates other than the pass-throughs A and B."""
        c = (C.c_size_t * 16)()
        active = lib.dlca_model_gate_histogram(self.ptr, c)
        return np.array(c[:], np.int64), int(active)

    def init_pass_through(self, z):
        check(lib.dlca_model_init_pass_through(self.ptr, float(z)), "Model.init_pass_through")

    def export(self, format="c", name="dlca", path=None, keep=None):
        """The hard circuit as C ("c") or Verilog ("verilog"), doc/export.md.
        With path: written atomically and the counts dict returned; without:
        (source text, counts)."""
        fmt = {"c": 0, "verilog": 1}.get(format)
        if fmt is None:
            raise ValueError(f"format must be 'c' or 'verilog', not {format!r}")
        if not isinstance(name, str):
            raise TypeError("name must be a str")
        kp = None
        if keep is not None:
            keep = [int(k) for k in keep]
            kp = (C.c_int * len(keep))(*keep)
        info = ExportInfo()
        if path is not None:
            check(lib.dlca_model_export(self.ptr, fmt, name.encode(), kp, len(keep or ()), _str(path, "path"),
                                        C.byref(info)), f"Model.export({os.fspath(path)!r})")
            return info.to_dict()
        with tempfile.TemporaryDirectory(prefix="dlca_export") as d:
            f = os.path.join(d, name + (".c" if fmt == 0 else ".v"))
            check(lib.dlca_model_export(self.ptr, fmt, name.encode(), kp, len(keep or ()), f.encode(),
                                        C.byref(info)), "Model.export")
            with open(f) as fh:
                return fh.read(), info.to_dict()

    def __repr__(self):
        if not self._ptr:
            return "Model(closed)"
        s = self.shape
        return (f"Model(channels {s['channels']}, kernels {s['n_kernels']}, {self.n_gates} gates, "
                f"{s['parametrisation']})")


def _u64(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what} must be an int, not {type(v).__name__}")
    if not 0 <= int(v) < 2 ** 64:
        raise ValueError(f"{what} {v} out of range 0..2^64-1")
    return int(v)


def _f32(value, shape, what):
    """value as a C-contiguous float32 array of exactly shape (ValueError otherwise)."""
    a = np.ascontiguousarray(value, dtype=np.float32)
    if a.shape != tuple(shape):
        if a.size == int(np.prod(shape)) and a.ndim == 1:
            a = a.reshape(shape)
        else:
            raise ValueError(f"{what}: shape {a.shape}, expected {tuple(shape)}")
    return a
