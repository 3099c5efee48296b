"""The hard circuit on grids: rollouts as arrays [steps, H, W, C] (the CPU
reference, dlca_ref_forward with hard gates), random start grids, and the
check on fresh grids of a saved model."""
import ctypes as C

import numpy as np

from ._lib import lib, check
from ._decl import Run
from .model import Model, _u64
from .trainer import Trainer

__all__ = ["rollout", "random_grid", "evaluate"]
_FP = C.POINTER(C.c_float)


def random_grid(height, width, channels, seed=1, batch=None, stream=0):
    """Fair random 0/1 values, float32 [H][W][C] (or [batch][H][W][C]), drawn
    as the library draws them (bit 31 of dlca_rng_u32(seed, stream, i))."""
    shape = (height, width, channels) if batch is None else (batch, height, width, channels)
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in shape):
        raise ValueError(f"grid sizes must be ints >= 1: {shape}")
    out = np.empty(shape, np.float32)
    lib.dlca_target_random_bits(out.ctypes.data_as(_FP), out.size, _u64(seed, "seed"), int(stream))
    return out


def _masks(run, steps, b, h, w):
    """The async fire masks a rollout of `steps` steps draws, uint8 [T][B][H][W]."""
    m = np.empty((steps, b, h, w), np.uint8)
    for t in range(steps):
        for i in range(b):
            for r in range(h):
                for q in range(w):
                    m[t, i, r, q] = lib.dlca_fire_mask(C.byref(run), t, i, r, q)
    return m


def rollout(model, x, steps, async_=False, fire_rate=0.6, mask_key=0, fire_masks=None, include_start=False):
    """Runs the model's hard circuit from x ([H][W][C] or [B][H][W][C], 0s
    and 1s) for `steps` steps on the CPU reference. Returns float32 [steps]
    [H][W][C] (or [steps][B][H][W][C]): the grid after each step; with
    include_start, steps + 1 frames, the start first. async_: cells fire with
    probability fire_rate, masks drawn from mask_key as a training run draws
    them (or fire_masks uint8 [steps][B][H][W])."""
    if not isinstance(model, Model):
        raise TypeError(f"model must be a dlca_cl.Model, not {type(model).__name__}")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an int >= 1, not {steps!r}")
    a = np.ascontiguousarray(x, dtype=np.float32)
    single = a.ndim == 3
    if single:
        a = a[None]
    ch = model.shape["channels"]
    if a.ndim != 4 or a.shape[3] != ch:
        raise ValueError(f"x: shape {np.shape(x)}, expected [H][W][{ch}] or [B][H][W][{ch}]")
    b, h, w, _ = a.shape
    run = lib.dlca_run_default(b, h, w, 1)
    run.async_, run.fire_rate, run.mask_key = int(bool(async_)), float(fire_rate), _u64(mask_key, "mask_key")
    masks = None
    if async_:
        full = Run.from_buffer_copy(run)
        full.steps = steps
        masks = _masks(full, steps, b, h, w) if fire_masks is None else np.ascontiguousarray(fire_masks, np.uint8)
        if masks.shape != (steps, b, h, w):
            raise ValueError(f"fire_masks: shape {masks.shape}, expected {(steps, b, h, w)}")
    frames = np.empty((steps + 1, b, h, w, ch), np.float32)
    frames[0] = a
    loss = C.c_double()
    for t in range(steps):
        if masks is not None:
            run.fire_masks = masks[t].ctypes.data
        check(lib.dlca_ref_forward(model.ptr, C.byref(run), frames[t].ctypes.data_as(_FP), 1, None,
                                   frames[t + 1].ctypes.data_as(_FP), C.byref(loss)), "rollout")
    out = frames if include_start else frames[1:]
    return out[:, 0] if single else out


def evaluate(model, preset="checkerboard", seed=1, batches=10, context="ref", **options):
    """A saved model's hard circuit on `batches` batches of fresh start grids
    of the preset (dlca-eval's check): a dict of hard_loss, errors, total,
    accuracy. context "ref" (default) runs it on the CPU reference."""
    with Trainer(model, preset, context=context, **options) as t:
        return t.eval_fresh(seed, batches)
