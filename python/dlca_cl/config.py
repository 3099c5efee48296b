"""A preset's training configuration (dlca_train_config) with keyword
overrides, checked in Python before any C call."""
import ctypes as C

import numpy as np

from ._lib import lib, check
from ._decl import TrainConfig
from .model import _preset_struct, _u64

__all__ = ["train_config", "config_dict", "START"]
START = {"random": 0, "seed": 1, "zeros": 2, "upload": 3}
_INTS = ("batch", "height", "width", "steps")
_FLOATS_OPTIM = ("clip", "lr", "beta1", "beta2", "eps", "weight_decay")
_FLOATS_RELAX = ("temperature", "gumbel_scale", "grad_noise")
KEYS = set(_INTS) | set(_FLOATS_OPTIM) | set(_FLOATS_RELAX) | {
    "async_", "fire_rate", "seed", "start", "loss_channels", "straight_through", "shared_program", "population_plan",
    "optimizer", "optimizer_options"}


def _int(v, what, lo=1):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what} must be an int, not {type(v).__name__}")
    if v < lo:
        raise ValueError(f"{what} must be >= {lo}, not {v}")
    return int(v)


def _float(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)):
        raise TypeError(f"{what} must be a number, not {type(v).__name__}")
    return float(v)


def _suite(cfg, name, options):
    kind = C.c_int()
    check(lib.dlca_optim_kind_from_name(str(name).encode(), C.byref(kind)), f"optimizer {name!r}")
    check(lib.dlca_optim_config_default(kind.value, C.byref(cfg.suite)), "optimizer")
    for k, v in (options or {}).items():
        check(lib.dlca_optim_config_set(C.byref(cfg.suite), str(k).encode(), _float(v, k)), f"optimizer {k}")
    check(lib.dlca_optim_config_check(C.byref(cfg.suite)), "optimizer")
    cfg.use_suite = 1


def apply_overrides(cfg, opts):
    """Sets the keyword overrides on a TrainConfig (TypeError for unknown keys)."""
    unknown = set(opts) - KEYS
    if unknown:
        raise TypeError(f"unknown training option(s) {sorted(unknown)}; known: {sorted(KEYS)}")
    for k in _INTS:
        if k in opts:
            setattr(cfg, k, _int(opts[k], k))
    for k in _FLOATS_OPTIM:
        if k in opts:
            setattr(cfg.optim, k, _float(opts[k], k))
    for k in _FLOATS_RELAX:
        if k in opts:
            setattr(cfg.relax, k, _float(opts[k], k))
    if "straight_through" in opts:
        cfg.relax.straight_through = int(bool(opts["straight_through"]))
    if "async_" in opts:
        cfg.async_ = int(bool(opts["async_"]))
    if "fire_rate" in opts:
        cfg.fire_rate = _float(opts["fire_rate"], "fire_rate")
    if "seed" in opts:
        cfg.seed = _u64(opts["seed"], "seed")
    if "shared_program" in opts:
        cfg.shared_program = int(bool(opts["shared_program"]))
    if "population_plan" in opts:
        cfg.population_plan = int(bool(opts["population_plan"]))
    if "start" in opts:
        if opts["start"] not in START:
            raise ValueError(f"start must be one of {sorted(START)}, not {opts['start']!r}")
        cfg.start = START[opts["start"]]
    if "loss_channels" in opts:
        ch = [_int(c, "loss channel", 0) for c in opts["loss_channels"]]
        if not 0 < len(ch) <= 16:
            raise ValueError("loss_channels: 1 to 16 channels")
        cfg.n_loss_channels = len(ch)
        cfg.loss_channels[:len(ch)] = ch
    if "optimizer" in opts:
        _suite(cfg, opts["optimizer"], opts.get("optimizer_options"))
    return cfg


def train_config(preset, **opts):
    """(Preset struct, TrainConfig): the preset's protocol with the overrides."""
    p = _preset_struct(preset)
    cfg = TrainConfig()
    lib.dlca_train_config_from_preset(C.byref(p), C.byref(cfg))
    return p, apply_overrides(cfg, opts)


def config_dict(cfg):
    d = cfg.to_dict()
    d["async"] = bool(d.pop("async_"))
    d["loss_channels"] = d["loss_channels"][:cfg.n_loss_channels]
    d["start"] = {v: k for k, v in START.items()}.get(cfg.start, cfg.start)
    return d
