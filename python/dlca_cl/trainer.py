"""The trainer (trainer.h): one epoch per step() on a device or the CPU
reference, the soft and hard losses, and every state as a numpy array."""
import ctypes as C
import os

import numpy as np

from ._lib import lib, check
from ._decl import Eval, Relax, libc
from .config import train_config, config_dict
from .device import _Owned, resolve
from .model import Model, _f32, _str, _u64

__all__ = ["Trainer", "eval_dict", "preset_target"]
_FP = C.POINTER(C.c_float)


def eval_dict(e):
    """dlca_eval as a dict: hard_loss, errors, total, accuracy."""
    return {"hard_loss": e.hard_loss, "errors": e.errors, "total": e.total, "accuracy": e.accuracy}


def _ptr(a):
    return a.ctypes.data_as(_FP)


def preset_target(preset_struct, channels, height=None, width=None, image=None):
    """The preset's one target [H][W][C] as float32 (None for gol, which has
    per-sample boards)."""
    if lib.dlca_preset_is_gol(C.byref(preset_struct)):
        return None
    p = type(preset_struct).from_buffer_copy(preset_struct)
    p.height, p.width = height or p.height, width or p.width
    out = _FP()
    check(lib.dlca_preset_target(C.byref(p), channels, _str(image, "image") if image else None, C.byref(out)),
          "preset target")
    try:
        return np.ctypeslib.as_array(out, shape=(p.height, p.width, channels)).copy()
    finally:
        libc.free(C.cast(out, C.c_void_p))


class Trainer(_Owned):
    """Trains a copy of `model` with preset's protocol and the overrides
    (batch, steps, lr, seed, height, width, async_, fire_rate, start,
    temperature, gumbel_scale, straight_through, grad_noise, clip, beta1,
    beta2, eps, weight_decay, loss_channels, optimizer="adam"|...,
    optimizer_options={...}, shared_program, population_plan). context: a
    Context, a device spec, "ref" for the CPU reference, or None for the
    shared default context. target: [H][W][C] (one for every sample) or [B][H][W][C]; None:
    the preset's own (required for gol, which has none)."""
    _free = "dlca_trainer_free"

    def __init__(self, model, preset="checkerboard", context=None, target=None, **options):
        if not isinstance(model, Model):
            raise TypeError(f"model must be a dlca_cl.Model, not {type(model).__name__}")
        self._preset, cfg = train_config(preset, **options)
        self.context, cptr = resolve(context)  # held: the context outlives the trainer
        self.config = cfg
        self.channels = model.shape["channels"]
        p = C.c_void_p()
        check(lib.dlca_trainer_new(cptr, model.ptr, C.byref(cfg), C.byref(p)), "Trainer")
        self._ptr = p.value
        if target is None:
            target = preset_target(self._preset, self.channels, cfg.height, cfg.width)
        if target is not None:
            self.set_target(target)

    # ---- shapes and inputs ----
    @property
    def grid_shape(self):
        """(batch, height, width, channels)."""
        c = self.config
        return (c.batch, c.height, c.width, self.channels)

    def set_target(self, y):
        """y [H][W][C] for every sample, or [B][H][W][C] per sample."""
        b, h, w, ch = self.grid_shape
        a = np.ascontiguousarray(y, dtype=np.float32)
        if a.shape not in ((h, w, ch), (b, h, w, ch)):
            raise ValueError(f"target: shape {a.shape}, expected {(h, w, ch)} or {(b, h, w, ch)}")
        check(lib.dlca_trainer_set_target(self.ptr, _ptr(a), int(a.ndim == 4)), "Trainer.set_target")

    def set_input(self, x):
        """Start grids [B][H][W][C] (for start="upload")."""
        a = _f32(x, self.grid_shape, "input")
        check(lib.dlca_trainer_set_input(self.ptr, _ptr(a)), "Trainer.set_input")

    def set_fire_masks(self, masks):
        """Async fire masks uint8 [steps][B][H][W], or None to draw them from the seed."""
        if masks is None:
            check(lib.dlca_trainer_set_fire_masks(self.ptr, None), "Trainer.set_fire_masks")
            return
        b, h, w, _ = self.grid_shape
        a = np.ascontiguousarray(masks, dtype=np.uint8)
        if a.shape != (self.config.steps, b, h, w):
            raise ValueError(f"fire masks: shape {a.shape}, expected {(self.config.steps, b, h, w)}")
        self._masks = a  # the library may read them until the next set
        check(lib.dlca_trainer_set_fire_masks(self.ptr, a.ctypes.data_as(C.POINTER(C.c_uint8))),
              "Trainer.set_fire_masks")

    # ---- training ----
    def step(self):
        """One epoch (start grids, T soft steps, loss, BPTT, clip, optimizer)."""
        rc = lib.dlca_trainer_step(self._ptr)
        if rc:
            check(rc, "Trainer.step")

    def loss(self):
        """The soft loss of the last step (waits for the device)."""
        v = C.c_double()
        check(lib.dlca_trainer_loss(self.ptr, C.byref(v)), "Trainer.loss")
        return v.value

    def eval_hard(self):
        """The hard circuit from the current epoch's start grids: dict of
        hard_loss, errors, total, accuracy."""
        e = Eval()
        check(lib.dlca_trainer_eval_hard(self.ptr, C.byref(e)), "Trainer.eval_hard")
        return eval_dict(e)

    def eval_fresh(self, seed=None, batches=10):
        """The hard circuit on `batches` batches of fresh start grids (none a
        training epoch's); seed None: the configuration's."""
        seed = self.config.seed if seed is None else _u64(seed, "seed")
        if isinstance(batches, bool) or not isinstance(batches, int) or batches < 1:
            raise ValueError(f"batches must be an int >= 1, not {batches!r}")
        e = Eval()
        check(lib.dlca_trainer_eval_hard_fresh(self.ptr, seed, batches, C.byref(e)), "Trainer.eval_fresh")
        return eval_dict(e)

    @property
    def epoch(self):
        return int(lib.dlca_trainer_epoch(self.ptr))

    @property
    def lr(self):
        return float(lib.dlca_trainer_lr(self.ptr))

    @lr.setter
    def lr(self, value):
        check(lib.dlca_trainer_set_lr(self.ptr, float(value)), "Trainer.lr")

    def set_relax(self, temperature=0.0, gumbel_scale=0.0, straight_through=False, grad_noise=0.0):
        r = Relax(float(temperature), float(gumbel_scale), int(bool(straight_through)), float(grad_noise))
        check(lib.dlca_trainer_set_relax(self.ptr, C.byref(r)), "Trainer.set_relax")

    @property
    def backend(self):
        return lib.dlca_trainer_backend(self.ptr).decode()

    # ---- state as arrays (float32 copies) ----
    @property
    def n_params(self):
        return lib.dlca_trainer_n_params(self.ptr)

    def _read(self, fn, shape, *args, what):
        out = np.empty(shape, np.float32)
        check(fn(self.ptr, *args, _ptr(out)), what)
        return out

    @property
    def params(self):
        """The logits, float32 [n_params] in the model's order."""
        return self._read(lib.dlca_trainer_get_params, (self.n_params,), what="Trainer.params")

    @params.setter
    def params(self, value):
        a = _f32(value, (self.n_params,), "params")
        check(lib.dlca_trainer_set_params(self.ptr, _ptr(a)), "Trainer.params")

    def grad(self):
        """The unclipped gradient of the last step, float32 [n_params]."""
        return self._read(lib.dlca_trainer_get_grad, (self.n_params,), what="Trainer.grad")

    def state(self, hard=False):
        """The final grids of the last soft step (hard False) or hard
        evaluation (hard True), float32 [B][H][W][C]."""
        return self._read(lib.dlca_trainer_get_state, self.grid_shape, int(bool(hard)), what="Trainer.state")

    def optimizer_state(self):
        """The optimizer's state slots, float32 [slots][n_params] (AdamW: m, v)."""
        n = lib.dlca_trainer_state_slots(self.ptr)
        out = np.empty((n, self.n_params), np.float32)
        for s in range(n):
            check(lib.dlca_trainer_get_state_slot(self.ptr, s, _ptr(out[s])), "Trainer.optimizer_state")
        return out

    def model(self):
        """The current parameters as a new Model."""
        p = C.c_void_p()
        check(lib.dlca_trainer_export_model(self.ptr, C.byref(p)), "Trainer.model")
        return Model(p.value)

    def save_checkpoint(self, path):
        check(lib.dlca_trainer_save_checkpoint(self.ptr, _str(path, "path")),
              f"Trainer.save_checkpoint({os.fspath(path)!r})")

    def load_checkpoint(self, path):
        check(lib.dlca_trainer_load_checkpoint(self.ptr, _str(path, "path")),
              f"Trainer.load_checkpoint({os.fspath(path)!r})")

    def config_dict(self):
        return config_dict(self.config)


class _Borrowed(Trainer):
    """A trainer owned by a loop (freed with it): the same methods, no free."""
    _free = None

    def __init__(self, ptr, owner, cfg, channels):
        self._ptr, self._owner, self.config, self.channels = ptr, owner, cfg, channels
        self.context = getattr(owner, "context", None)

    @property
    def ptr(self):
        if not self._owner._ptr:
            raise ValueError("the loop that owned this trainer is closed")
        return self._ptr

    def step(self):
        check(lib.dlca_trainer_step(self.ptr), "Trainer.step")
