"""A population (population.h): M models of a preset trained side by side
on one device, each its own run of the loop; stops at the first right one."""
import ctypes as C

import numpy as np

from ._lib import lib, check
from ._decl import Eval, PopulationOptions, PopulationStats, LoopResult
from .device import _Owned, resolve
from .loop import loop_setup, recipe_population, result_dict
from .model import Model, _f32
from .trainer import eval_dict

__all__ = ["Population"]
STATES = ("training", "right", "wrong", "abandoned", "polishing")  # dlca_population_state


class Population(_Owned):
    """Population(preset, n_models=None, seed=1, seeds=None, replace=True,
    max_models=0, recipe="recommended", context=None, target=None,
    parametrisation="softmax16", compiled_wires=False, run_all=False, lr_jitter=0,
    temperature_jitter=0, gumbel_jitter=0, pbt_every=0, pbt_fraction=0, polish_inline=False, **options):
    model j starts from seeds[j] (default seed + j); run_all, the jitters, pbt_* and polish_inline as
    dlca_population_options (population.h: run_all with replace=False is dlca-train --measure); options as
    Loop's. n_models None: the recommended recipe's (recipe_population, dlca-train's default)."""
    _free = "dlca_population_free"

    def __init__(self, preset, n_models=None, seed=1, seeds=None, replace=True, max_models=0, recipe="recommended",
                 context=None, target=None, parametrisation="softmax16", compiled_wires=False, run_all=False,
                 lr_jitter=0, temperature_jitter=0, gumbel_jitter=0, pbt_every=0, pbt_fraction=0,
                 polish_inline=False, **options):
        if n_models is None:
            n_models = recipe_population(preset, parametrisation) or None
            if n_models is None:
                raise ValueError(f"{preset!r} with {parametrisation} gates has no recommended population: give n_models")
        if isinstance(n_models, bool) or not isinstance(n_models, int) or n_models < 1:
            raise ValueError(f"n_models must be an int >= 1, not {n_models!r}")
        p, cfg, o = loop_setup(preset, seed, recipe, parametrisation, True, options)
        self.config, self.options = cfg, o
        po = PopulationOptions(n_models=n_models, replace=int(bool(replace)), max_models=int(max_models),
                               compiled_wires=int(bool(compiled_wires)), run_all=int(bool(run_all)),
                               lr_jitter=float(lr_jitter), temperature_jitter=float(temperature_jitter),
                               gumbel_jitter=float(gumbel_jitter), pbt_every=int(pbt_every),
                               pbt_fraction=float(pbt_fraction), polish_inline=int(bool(polish_inline)))
        if seeds is not None:
            s = np.ascontiguousarray(seeds, dtype=np.uint64)
            if s.shape != (n_models,):
                raise ValueError(f"seeds: {s.shape[0] if s.ndim == 1 else s.shape} given, {n_models} expected")
            self._seeds = s
            po.seeds = s.ctypes.data_as(C.POINTER(C.c_uint64))
        self.context, cptr = resolve(context)
        tp = None
        if target is not None:
            t = _f32(target, (cfg.height, cfg.width, p.shape.channels), "target")
            self._target, tp = t, t.ctypes.data_as(C.POINTER(C.c_float))
        ptr = C.c_void_p()
        check(lib.dlca_population_new(cptr, C.byref(p), C.byref(p.shape), C.byref(cfg), tp, C.byref(o), C.byref(po),
                                      C.byref(ptr)), "Population")
        self._ptr = ptr.value

    def __len__(self):
        return lib.dlca_population_size(self.ptr)

    def step(self):
        """One epoch of every model still training; returns running."""
        check(lib.dlca_population_step(self.ptr), "Population.step")
        return self.running

    def run(self, callback=None, max_steps=None):
        """Steps while running (callback(population) returning False stops);
        the stats dict."""
        n = 0
        while self.running and (max_steps is None or n < max_steps):
            self.step()
            n += 1
            if callback is not None and callback(self) is False:
                break
        return self.stats()

    @property
    def running(self):
        return bool(lib.dlca_population_running(self.ptr))

    def losses(self):
        """The last soft loss of every model, float64 [M] (NaN before a step)."""
        out = np.empty(len(self), np.float64)
        lib.dlca_population_losses(self.ptr, out.ctypes.data_as(C.POINTER(C.c_double)))
        return out

    def eval_hard(self):
        """The hard circuit of every model: a list of eval dicts."""
        out = (Eval * len(self))()
        check(lib.dlca_population_eval_hard(self.ptr, out), "Population.eval_hard")
        return [eval_dict(e) for e in out]

    def states(self):
        """Each model's state: "training", "right", "wrong", "abandoned" or "polishing" (its repair
        runs on a host thread)."""
        return [STATES[lib.dlca_population_model_state(self.ptr, j)] for j in range(len(self))]

    def seeds(self):
        return [int(lib.dlca_population_seed(self.ptr, j)) for j in range(len(self))]

    def stats(self):
        s = PopulationStats()
        lib.dlca_population_get_stats(self.ptr, C.byref(s))
        d = s.to_dict()
        d["winner"] = None if s.winner < 0 else s.winner
        return d

    def result(self, j):
        """Model j's loop result dict."""
        self._index(j)
        r = LoopResult()
        lib.dlca_loop_get_result(lib.dlca_population_loop(self.ptr, j), C.byref(r))
        return result_dict(r)

    def take(self, j):
        """Model j's current circuit as a Model."""
        self._index(j)
        p = C.c_void_p()
        check(lib.dlca_population_take(self.ptr, j, C.byref(p)), f"Population.take({j})")
        return Model(p.value)

    def _index(self, j):
        if isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < len(self):
            raise IndexError(f"model {j!r} out of range 0..{len(self) - 1}")
