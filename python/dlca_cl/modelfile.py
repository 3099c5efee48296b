"""A dlca-model JSON file (doc/model-format.md) as numpy arrays, read and
written in Python alone: no libdlca_cl needed.

``read(source)`` takes a path or an already parsed JSON object (a reference
vector's ``"model"``) and checks it as the library's loader does, naming the
offending field; ``write(model, path)`` writes the library's bytes: compact
JSON, keys in the library's order, logits to 9 significant digits, so that
every float32 reads back bit for bit.
"""
import dataclasses
import json
import os
import tempfile

import numpy as np

__all__ = ["NumpyModel", "read", "write", "to_json", "params_per_gate"]

PATCH = 9  # a 3x3 neighbourhood


@dataclasses.dataclass
class NumpyModel:
    """A model's shape, wires and logits.

    perceive_wires[l] and update_wires[l] are (wa, wb) int32 arrays, one index
    per gate; perceive_logits[l] is float32 [K, G, NPG] (every kernel its own
    logits, all kernels the same wires), update_logits[l] float32 [G, NPG];
    NPG is 16 (softmax16) or 4 (iwp)."""
    channels: int
    periodic: bool
    perceive_wires: list
    perceive_logits: list
    update_wires: list
    update_logits: list
    parametrisation: str = "softmax16"

    @property
    def n_kernels(self):
        return int(self.perceive_logits[0].shape[0])

    @property
    def perceive_layers(self):
        return [PATCH] + [int(lg.shape[1]) for lg in self.perceive_logits]

    @property
    def update_layers(self):
        c, s, k = self.channels, self.perceive_layers[-1], self.n_kernels
        return [c + c * s * k] + [int(lg.shape[0]) for lg in self.update_logits]


def params_per_gate(parametrisation):
    if parametrisation not in ("softmax16", "iwp"):
        raise ValueError(f'parametrisation: "{parametrisation}" is not "softmax16" or "iwp"')
    return 16 if parametrisation == "softmax16" else 4


def _field(obj, key, kind, where, path=""):
    if key not in obj:
        raise ValueError(f"{where}: {path}{key}: missing")
    v = obj[key]
    ok = {"int": isinstance(v, int) and not isinstance(v, bool), "bool": isinstance(v, bool),
          "list": isinstance(v, list), "dict": isinstance(v, dict)}[kind]
    if not ok:
        raise ValueError(f"{where}: {path}{key}: expected {kind}, found {type(v).__name__}")
    return v


def _wires(entry, n_in, n_gates, where, path):
    if not (isinstance(entry, list) and len(entry) == 2):
        raise ValueError(f"{where}: {path}: expected [[wa...], [wb...]]")
    out = []
    for side, w in enumerate(entry):
        w = np.asarray(w)
        if w.shape != (n_gates,) or (w.size and w.dtype.kind not in "iu"):
            raise ValueError(f"{where}: {path}[{side}]: expected {n_gates} integer wires, found shape {w.shape}")
        bad = np.flatnonzero((w < 0) | (w >= n_in))
        if bad.size:
            g = int(bad[0])
            raise ValueError(f"{where}: {path}[{side}][{g}]: index {int(w[g])} out of [0, {n_in})")
        out.append(w.astype(np.int32))
    return tuple(out)


def _logits(entry, shape, where, path):
    try:
        a = np.asarray(entry, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {path}: expected an array of numbers of shape {shape}") from None
    if a.shape != shape:
        raise ValueError(f"{where}: {path}: shape {a.shape}, expected {shape}")
    with np.errstate(over="ignore"):
        f = a.astype(np.float32)
    if not np.all(np.isfinite(f)):
        raise ValueError(f"{where}: {path}: a logit is not finite in float32")
    return f


def _network(net, part, n_in, extra, npg, where):
    """One network's (wires, logits): extra is (K,) for perception, () for update."""
    layers = _field(net, "layers", "list", where, part + ".")
    wires = _field(net, "wires", "list", where, part + ".")
    logits = _field(net, "logits", "list", where, part + ".")
    if len(layers) < 2 or layers[0] != n_in or not all(isinstance(x, int) and x >= 1 for x in layers):
        raise ValueError(f"{where}: {part}.layers: {layers} must be [{n_in}, gates...] with 2 or more entries")
    if len(wires) != len(layers) - 1 or len(logits) != len(layers) - 1:
        raise ValueError(f"{where}: {part}: {len(layers) - 1} layers, but {len(wires)} wires and {len(logits)} logits")
    ws, ls = [], []
    for l in range(len(layers) - 1):
        ws.append(_wires(wires[l], layers[l], layers[l + 1], where, f"{part}.wires[{l}]"))
        ls.append(_logits(logits[l], extra + (layers[l + 1], npg), where, f"{part}.logits[{l}]"))
    return ws, ls


def from_json(obj, where="model"):
    """A NumpyModel from a parsed dlca-model object; ValueError names the field."""
    if not isinstance(obj, dict) or obj.get("format") != "dlca-model":
        raise ValueError(f'{where}: format: expected "dlca-model"')
    if _field(obj, "version", "int", where) != 1:
        raise ValueError(f"{where}: version: {obj['version']} is not 1")
    c = _field(obj, "channels", "int", where)
    periodic = _field(obj, "periodic", "bool", where)
    par = obj.get("parametrisation", "softmax16")
    npg = params_per_gate(par)
    P, U = _field(obj, "perceive", "dict", where), _field(obj, "update", "dict", where)
    k = _field(P, "n_kernels", "int", where, "perceive.")
    pw, pl = _network(P, "perceive", PATCH, (k,), npg, where)
    s = pl[-1].shape[1]
    uw, ul = _network(U, "update", c + c * s * k, (), npg, where)
    if ul[-1].shape[0] != c:
        raise ValueError(f"{where}: update.layers: the last layer has {ul[-1].shape[0]} gates, not C = {c}")
    return NumpyModel(c, periodic, pw, pl, uw, ul, par)


def read(source):
    """A NumpyModel from a file path, a parsed JSON object, a NumpyModel, or
    a library model (dlca_cl.Model: anything with save(path)), saved first."""
    if isinstance(source, NumpyModel):
        return source
    if isinstance(source, dict):
        return from_json(source)
    if hasattr(source, "save"):
        with tempfile.TemporaryDirectory() as d:
            source.save(os.path.join(d, "model.json"))
            return read(os.path.join(d, "model.json"))
    path = os.fspath(source)
    with open(path, "rb") as f:
        try:
            obj = json.loads(f.read())
        except ValueError as e:
            raise ValueError(f"{path}: not valid JSON: {e}") from None
    return from_json(obj, path)


def _real(x):
    """A float32 as jansson writes it with JSON_REAL_PRECISION(9)."""
    s = "%.9g" % float(x)
    if "." not in s and "e" not in s:
        s += ".0"
    if "e" in s:
        mant, exp = s.split("e")
        sign = "-" if exp.startswith("-") else ""
        s = f"{mant}e{sign}{exp.lstrip('+-').lstrip('0') or '0'}"
    return s


def _ints(a):
    return "[" + ",".join(str(int(v)) for v in a) + "]"


def _reals(a):
    """A nested list of float32 logits, innermost axis one gate."""
    if a.ndim == 1:
        return "[" + ",".join(_real(v) for v in a) + "]"
    return "[" + ",".join(_reals(sub) for sub in a) + "]"


def _net_json(layers, wires, logits, head=""):
    return ("{" + head + '"layers":' + _ints(layers) + ',"wires":[' +
            ",".join("[" + _ints(wa) + "," + _ints(wb) + "]" for wa, wb in wires) +
            '],"logits":[' + ",".join(_reals(np.asarray(lg, np.float32)) for lg in logits) + "]}")


def to_json(model):
    """The model's text, byte for byte as dlca_model_save writes it."""
    if not all(np.all(np.isfinite(lg)) for lg in model.perceive_logits + model.update_logits):
        raise ValueError("a logit is not finite; JSON has no NaN or infinity")
    par = "" if model.parametrisation == "softmax16" else f',"parametrisation":"{model.parametrisation}"'
    head = (f'{{"format":"dlca-model","version":1,"channels":{model.channels},'
            f'"periodic":{"true" if model.periodic else "false"}{par},')
    per = _net_json(model.perceive_layers, model.perceive_wires, model.perceive_logits,
                    f'"n_kernels":{model.n_kernels},')
    upd = _net_json(model.update_layers, model.update_wires, model.update_logits)
    return head + '"perceive":' + per + ',"update":' + upd + "}"


def _mode(path):
    """An existing file's permission bits, else 0666 less the umask (as the library's writer)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomic(path, data):
    """Write bytes to path through a temporary file beside it, fsynced, and a rename."""
    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.", dir=d)
    try:
        os.fchmod(fd, _mode(path))
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write(model, path):
    """Save a NumpyModel as a dlca-model file, atomically."""
    text = to_json(model)
    from_json(json.loads(text), os.fspath(path))  # the checks of read(), before the disk is touched
    write_atomic(path, text.encode())
