"""Sequential networks of the compute layer (include/dlca_cl/net.h): dense,
conv2d, relu/sigmoid/tanh, flatten and pooling layers with a loss, trained
on a device (or the CPU twin) with no host round trip a step, and the digits
data set.

    x_tr, y_tr, x_te, y_te = dlca_cl.net.load_digits()
    net = dlca_cl.net.Net.preset("mlp", seed=1)
    tr = dlca_cl.net.Trainer(net, ctx, optimizer="adamw", lr=3e-3, batch=32)
    tr.fit(x_tr, y_tr, epochs=20); acc, loss = tr.evaluate(x_te, y_te)
"""
import ctypes as C

import numpy as np

from ._lib import check
from .tensor import _decl, _ctx_ptr, _alive
from .optim import config as _optim_config, _Config

__all__ = ["Net", "Trainer", "load_digits", "load_digits_file", "perm", "LAYERS", "LOSSES"]

_P, _I, _SZ, _D, _U32, _U64 = C.c_void_p, C.c_int, C.c_size_t, C.c_double, C.c_uint32, C.c_uint64
_FP = C.POINTER(C.c_float)
LAYERS = ("dense", "conv2d", "relu", "sigmoid", "tanh", "flatten", "maxpool", "meanpool")
LOSSES = ("softmax_cross_entropy", "mse")


class _Layer(C.Structure):
    _fields_ = [("kind", _I), ("units", _SZ), ("k", _I), ("stride", _I), ("pad", _I)]


class _Spec(C.Structure):
    _fields_ = [("in_rank", _I), ("in_shape", _SZ * 3), ("n_layers", _SZ), ("layers", C.POINTER(_Layer)),
                ("loss", _I)]


class _Dataset(C.Structure):
    _fields_ = [("n_train", _SZ), ("n_test", _SZ), ("in_size", _SZ), ("x_train", _FP), ("y_train", _FP),
                ("x_test", _FP), ("y_test", _FP)]


# ---- net.h ----
_preset = _decl("dlca_net_preset", _I, [C.c_char_p, C.POINTER(_Spec)])
_new = _decl("dlca_net_new", _I, [C.POINTER(_Spec), _U64, C.POINTER(_P)])
_free = _decl("dlca_net_free", None, [_P])
_in_size = _decl("dlca_net_in_size", _SZ, [_P])
_out_size = _decl("dlca_net_out_size", _SZ, [_P])
_n_params = _decl("dlca_net_n_params", _SZ, [_P])
_target_size = _decl("dlca_net_target_size", _SZ, [_P])
_save = _decl("dlca_net_save", _I, [_P, C.c_char_p])
_load = _decl("dlca_net_load", _I, [C.c_char_p, C.POINTER(_P)])
_tr_new = _decl("dlca_net_trainer_new", _I, [_P, _P, C.POINTER(_Config), _SZ, C.POINTER(_P)])
_tr_free = _decl("dlca_net_trainer_free", None, [_P])
_tr_data = _decl("dlca_net_trainer_data", _I, [_P, _SZ, _FP, _FP])
_steps_per_epoch = _decl("dlca_net_steps_per_epoch", _SZ, [_P])
_step = _decl("dlca_net_step", _I, [_P, _U64, _U64, _SZ])
_tr_loss = _decl("dlca_net_trainer_loss", _I, [_P, C.POINTER(_D)])
_evaluate = _decl("dlca_net_evaluate", _I, [_P, _SZ, _FP, _FP, C.POINTER(_D), C.POINTER(_D)])
_sync = _decl("dlca_net_trainer_sync", _I, [_P])
_tr_set_lr = _decl("dlca_net_trainer_set_lr", _I, [_P, _D])
_perm = _decl("dlca_net_perm", _U32, [_U64, _U64, _U32, _U32])
_ds_load = _decl("dlca_dataset_load", _I, [C.c_char_p, C.POINTER(_Dataset)])
_ds_load_file = _decl("dlca_dataset_load_digits_file", _I, [C.c_char_p, C.POINTER(_Dataset)])
_ds_free = _decl("dlca_dataset_free", None, [C.POINTER(_Dataset)])


def _index(names, v, what):
    if isinstance(v, int):
        return v
    if v not in names:
        raise ValueError(f"{what} {v!r}: expected one of {', '.join(names)}")
    return names.index(v)


def _layer(spec):
    """("dense", 128), ("conv2d", 16, 3, 1, 1) (units, k, stride, pad), ("maxpool", 2), ("relu",) or a dict."""
    if isinstance(spec, str):
        spec = (spec,)
    if isinstance(spec, dict):
        d = dict(spec)
        kind = d.pop("type")
        spec = (kind, d.pop("units", 0), d.pop("kernel", 0), d.pop("stride", 0), d.pop("padding", 0))
        if d:
            raise ValueError(f"layer {kind}: unknown keys {sorted(d)}")
    kind = _index(LAYERS, spec[0], "layer")
    if kind in (LAYERS.index("maxpool"), LAYERS.index("meanpool")):
        spec = (spec[0], 0) + tuple(spec[1:])
    vals = list(spec[1:]) + [0] * (4 - len(spec[1:]))
    return _Layer(kind, int(vals[0]), int(vals[1]), int(vals[2]), int(vals[3]))


class Net:
    """A network (dlca_net). ``Net(layers, in_shape, loss, seed)`` with
    PyTorch's default initialisation; ``Net.preset("mlp"|"cnn")``,
    ``Net.load(path)``; ``save(path)``."""

    def __init__(self, layers, in_shape, loss="softmax_cross_entropy", seed=0):
        in_shape = tuple(int(d) for d in in_shape)
        if len(in_shape) not in (1, 3):
            raise ValueError(f"in_shape {in_shape}: one sample is [n] or [C, H, W]")
        ls = [_layer(s) for s in layers]
        arr = (_Layer * max(len(ls), 1))(*ls)
        spec = _Spec(len(in_shape), (_SZ * 3)(*in_shape), len(ls), arr, _index(LOSSES, loss, "loss"))
        self._make(spec, seed)

    def _make(self, spec, seed):
        self._ptr = _P()
        check(_new(C.byref(spec), int(seed), C.byref(self._ptr)), "dlca_net_new")

    @classmethod
    def preset(cls, name, seed=0):
        spec, net = _Spec(), cls.__new__(cls)
        check(_preset(name.encode(), C.byref(spec)), "dlca_net_preset")
        net._make(spec, seed)
        return net

    @classmethod
    def load(cls, path):
        net = cls.__new__(cls)
        net._ptr = _P()
        check(_load(str(path).encode(), C.byref(net._ptr)), "dlca_net_load")
        return net

    def save(self, path):
        check(_save(self._ptr, str(path).encode()), "dlca_net_save")

    in_size = property(lambda self: _in_size(self._ptr))
    out_size = property(lambda self: _out_size(self._ptr))
    n_params = property(lambda self: _n_params(self._ptr))
    target_size = property(lambda self: _target_size(self._ptr))

    def __del__(self):
        if getattr(self, "_ptr", None):
            _free(self._ptr)
            self._ptr = None


def _rows(a, width, what):
    a = np.ascontiguousarray(a, dtype=np.float32).reshape(len(a), -1)
    if a.shape[1] != width:
        raise ValueError(f"{what}: {a.shape[1]} floats a sample, the network takes {width}")
    return a


class Trainer:
    """Trains net on ctx's device (ctx None: the CPU twin) with optimizer
    (a name and torch.optim's arguments; default AdamW), batch samples a step."""

    def __init__(self, net, ctx=None, optimizer="adamw", batch=32, **hyper):
        self.net, self._ctx, self._cfg = net, ctx, _optim_config(optimizer, **hyper)
        self._ptr, self._data = _P(), None
        check(_tr_new(net._ptr, None if ctx is None else _ctx_ptr(ctx), C.byref(self._cfg), int(batch),
                      C.byref(self._ptr)), "dlca_net_trainer_new")

    def data(self, x, y):
        """The training set (n samples), uploaded once."""
        x, y = _rows(x, self.net.in_size, "x"), _rows(y, self.net.target_size, "y")
        if len(x) != len(y):
            raise ValueError(f"data: {len(x)} samples but {len(y)} targets")
        check(_tr_data(self._ptr, len(x), x.ctypes.data_as(_FP), y.ctypes.data_as(_FP)), "dlca_net_trainer_data")
        self._data = (x, y)

    @property
    def steps_per_epoch(self):
        return _steps_per_epoch(self._ptr)

    def step(self, seed, epoch, b):
        """Batch b of epoch e in the seeded order; enqueues only."""
        check(_step(self._ptr, int(seed), int(epoch), int(b)), "dlca_net_step")

    def loss(self):
        """The mean loss of the steps since the last call (waits); NaN if none."""
        v = _D()
        check(_tr_loss(self._ptr, C.byref(v)), "dlca_net_trainer_loss")
        return v.value

    def evaluate(self, x, y):
        """(accuracy, mean loss) over the samples (accuracy NaN for mse)."""
        x, y = _rows(x, self.net.in_size, "x"), _rows(y, self.net.target_size, "y")
        acc, loss = _D(), _D()
        check(_evaluate(self._ptr, len(x), x.ctypes.data_as(_FP), y.ctypes.data_as(_FP), C.byref(acc),
                        C.byref(loss)), "dlca_net_evaluate")
        return acc.value, loss.value

    def sync(self):
        """Copies the trained parameters back into net (then net.save works)."""
        check(_sync(self._ptr), "dlca_net_trainer_sync")

    def set_lr(self, lr):
        check(_tr_set_lr(self._ptr, float(lr)), "dlca_net_trainer_set_lr")

    def fit(self, x, y, epochs, seed=0, callback=None):
        """epochs over (x, y); the mean loss of each epoch, and callback(epoch, loss)."""
        self.data(x, y)
        losses = []
        for e in range(epochs):
            for b in range(self.steps_per_epoch):
                self.step(seed, e, b)
            losses.append(self.loss())
            if callback:
                callback(e, losses[-1])
        return np.array(losses)

    def __del__(self):
        if getattr(self, "_ptr", None) and (self._ctx is None or _alive(self._ctx)):
            _tr_free(self._ptr)
            self._ptr = None


def perm(seed, epoch, n, i):
    """Sample i of the seeded permutation of 0..n-1 of an epoch (dlca_net_perm)."""
    return _perm(int(seed), int(epoch), int(n), int(i))


def _take(ds):
    n_tr, n_te, w = ds.n_train, ds.n_test, ds.in_size
    arr = np.ctypeslib.as_array
    out = (arr(ds.x_train, (n_tr, w)).copy(), arr(ds.y_train, (n_tr,)).copy(),
           arr(ds.x_test, (n_te, w)).copy(), arr(ds.y_test, (n_te,)).copy())
    _ds_free(C.byref(ds))
    return out


def load_digits():
    """The digits set (data/digits; $DLCA_NET_DATA overrides the directory):
    x_train [n, 64] in 0..1, y_train [n] classes as floats, x_test, y_test."""
    ds = _Dataset()
    check(_ds_load(b"digits", C.byref(ds)), "dlca_dataset_load")
    return _take(ds)


def load_digits_file(path):
    """The same from a (gzip'd) CSV of 64 pixels and a class per line."""
    ds = _Dataset()
    check(_ds_load_file(str(path).encode(), C.byref(ds)), "dlca_dataset_load_digits_file")
    return _take(ds)
