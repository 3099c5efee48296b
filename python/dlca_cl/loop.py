"""The library's training loop (recipe.h: dlca_loop_*) and train(): a preset
trained with its recommended recipe, a Python callback at every hard
evaluation (a notebook draws the curve as it goes), restarts until the
circuit is right on fresh grids."""
import ctypes as C
import math

from ._lib import lib, check
from ._decl import LoopOptions, LoopResult, LOOP_EVENT_FN
from .config import train_config, config_dict
from .device import _Owned, resolve
from .model import Model, param_code, _f32
from .trainer import _Borrowed, eval_dict, preset_target

__all__ = ["Loop", "train", "recipe"]
_EVENTS = ("cooldown", "repair", "evolve")
_SCHEDULES = {"constant": 0, "cosine": 1, "warmup-cosine": 2, "cooldown": 3}
_LOOP_KEYS = ("epochs", "eval_every", "warmup", "plateau", "max_cooldowns", "early_stop", "repair",
              "repair_max_wrong", "evolve", "evolve_max_wrong", "evolve_lineages", "evolve_lambda",
              "evolve_changes", "eval_fresh")
_LOOP_FLOATS = ("min_lr", "cooldown_factor")
LOOP_KEYS = set(_LOOP_KEYS) | set(_LOOP_FLOATS) | {"lr_schedule", "keep_best", "abandon", "lr_chain"}


def _recipe_ptr(preset_struct, recipe):
    """The dlca_recipe pointer: "recommended" (None where the preset has
    none), None or "paper" for the paper's protocol."""
    if recipe in (None, "paper"):
        return None
    if recipe != "recommended":
        raise ValueError(f"recipe must be 'recommended', 'paper' or None, not {recipe!r}")
    q = C.c_void_p()
    rc = lib.dlca_recipe_for(preset_struct.name, preset_struct.shape.parametrisation, C.byref(q))
    return q.value if rc == 0 else None


def recipe(preset, parametrisation="softmax16"):
    """The recommended recipe of a preset in words, or None where it has none."""
    from .model import _preset_struct
    p = _preset_struct(preset)
    p.shape.parametrisation = param_code(parametrisation)
    q = _recipe_ptr(p, "recommended")
    if not q:
        return None
    buf = C.create_string_buffer(512)
    lib.dlca_recipe_describe(q, 0, buf, len(buf))
    return buf.value.decode()


def recipe_population(preset, parametrisation="softmax16"):
    """The recommended recipe's population size (dlca_recipe.population:
    dlca-train's default on a device), or 0 where it has none."""
    from ._decl import Recipe
    from .model import _preset_struct
    p = _preset_struct(preset)
    p.shape.parametrisation = param_code(parametrisation)
    q = _recipe_ptr(p, "recommended")
    return int(C.cast(q, C.POINTER(Recipe)).contents.population) if q else 0


def _apply_loop(o, opts):
    for k in _LOOP_KEYS:
        if k in opts:
            v = opts[k]
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"{k} must be an int, not {type(v).__name__}")
            setattr(o, k, v)
    for k in _LOOP_FLOATS:
        if k in opts:
            setattr(o, k, float(opts[k]))
    if "keep_best" in opts:
        o.keep_best = int(bool(opts["keep_best"]))
    if "lr_schedule" in opts:
        if opts["lr_schedule"] not in _SCHEDULES:
            raise ValueError(f"lr_schedule must be one of {sorted(_SCHEDULES)} (or use lr_chain=)")
        o.lr_schedule = _SCHEDULES[opts["lr_schedule"]]
    if "abandon" in opts:
        check(lib.dlca_loop_parse_abandon(str(opts["abandon"]).encode(), C.byref(o)), "abandon")
    if "lr_chain" in opts:
        check(lib.dlca_loop_parse_lr_chain(str(opts["lr_chain"]).encode(), C.byref(o)), "lr_chain")


def loop_setup(preset, seed, recipe, parametrisation, with_abandon, options):
    """(preset struct, TrainConfig, LoopOptions) for a run: the preset, then
    the recipe, then the keyword overrides (training or loop options)."""
    topts = {k: v for k, v in options.items() if k not in LOOP_KEYS}
    lopts = {k: v for k, v in options.items() if k in LOOP_KEYS}
    p, cfg = train_config(preset, seed=seed)
    p.shape.parametrisation = param_code(parametrisation)
    o = LoopOptions()
    lib.dlca_loop_options_default(C.byref(o))
    o.seed = cfg.seed
    o.eval_fresh = lopts.get("eval_fresh", 0)
    if "epochs" in lopts:
        o.epochs = lopts["epochs"]
    check(lib.dlca_recipe_apply(_recipe_ptr(p, recipe), C.byref(p), int(with_abandon), C.byref(cfg), C.byref(o)),
          "recipe")
    from .config import apply_overrides
    apply_overrides(cfg, topts)
    _apply_loop(o, lopts)
    return p, cfg, o


def result_dict(r):
    """dlca_loop_result as a dict; evaluations as dicts, None where not made."""
    d = r.to_dict()
    d["hard"] = eval_dict(r.hard) if r.have_hard else None
    d["fresh"] = eval_dict(r.fresh) if r.have_fresh else None
    d["best_hard"] = r.best_hard if r.have_best else None
    d["min_hard"] = None if math.isinf(r.min_hard) else r.min_hard
    for k in ("diverged", "have_hard", "evaluated", "done", "scheduled", "stopped_early", "abandoned", "have_best",
              "have_repair", "have_evolve", "have_fresh", "repair_skipped", "evolve_skipped"):
        d[k] = bool(d[k])
    return d


class Loop(_Owned):
    """One run of the library's loop: Loop(preset, seed=1, model=None,
    recipe="recommended", context=None, target=None, parametrisation=
    "softmax16", **options), options being training overrides (Trainer's)
    or loop options (epochs, eval_every, lr_schedule, early_stop, keep_best,
    repair, evolve, eval_fresh, abandon="E:W,...", lr_chain="...")."""
    _free = "dlca_loop_free"

    def __init__(self, preset, seed=1, model=None, recipe="recommended", context=None, target=None,
                 parametrisation="softmax16", with_abandon=False, events=None, **options):
        p, cfg, o = loop_setup(preset, seed, recipe, parametrisation, with_abandon, options)
        self.config, self.options, self._preset = cfg, o, p
        if model is None:
            model = Model.from_shape(p.shape, cfg.seed)
        elif not isinstance(model, Model):
            raise TypeError(f"model must be a dlca_cl.Model or None, not {type(model).__name__}")
        self.channels = model.shape["channels"]
        self.context, cptr = resolve(context)
        tp = None
        if target is not None:
            t = _f32(target, (cfg.height, cfg.width, self.channels), "target")
            self._target, tp = t, t.ctypes.data_as(C.POINTER(C.c_float))
        ptr = C.c_void_p()
        check(lib.dlca_loop_new(cptr, C.byref(p), model.ptr, C.byref(cfg), tp, C.byref(o), C.byref(ptr)), "Loop")
        self._ptr = ptr.value
        if events is not None:
            self.set_events(events)

    def set_events(self, fn):
        """fn(event) at each cooldown, repair pass and evolution step: a dict of
        kind ("cooldown", "repair", "evolve"), epoch, why, old_lr, new_lr,
        cooldowns, pass, done, total, best (an eval dict or None). A true
        return stops a repair or evolution with its best so far."""
        def tramp(user, ev):
            e = ev.contents
            d = {"kind": _EVENTS[e.kind], "epoch": e.epoch, "why": (e.why or b"").decode(), "old_lr": e.old_lr,
                 "new_lr": e.new_lr, "cooldowns": e.cooldowns, "pass": e.pass_, "done": e.done, "total": e.total,
                 "best": eval_dict(e.best.contents) if e.best else None}
            try:
                return 1 if fn(d) else 0
            except Exception as exc:  # an exception cannot cross C; keep it for the next call
                self._event_error = exc
                return 1
        self._events = LOOP_EVENT_FN(tramp) if fn is not None else LOOP_EVENT_FN()  # kept alive with the loop
        lib.dlca_loop_set_events(self.ptr, self._events, None)

    @property
    def trainer(self):
        """The run's trainer (owned by the loop): checkpoints, lr, arrays."""
        return _Borrowed(lib.dlca_loop_trainer(self.ptr), self, self.config, self.channels)

    def epoch(self):
        """One epoch; returns the result dict (result["evaluated"]: a hard
        evaluation was made; result["done"]: nothing more to train)."""
        check(lib.dlca_loop_epoch(self.ptr), "Loop.epoch")
        self._reraise()
        return self.result

    def _reraise(self):
        exc, self._event_error = getattr(self, "_event_error", None), None
        if exc is not None:
            raise exc

    def finish(self):
        check(lib.dlca_loop_finish(self.ptr), "Loop.finish")

    def polish(self):
        check(lib.dlca_loop_polish(self.ptr), "Loop.polish")
        self._reraise()

    def eval_fresh(self):
        check(lib.dlca_loop_eval_fresh(self.ptr), "Loop.eval_fresh")
        return self.result["fresh"]

    @property
    def result(self):
        r = LoopResult()
        lib.dlca_loop_get_result(self.ptr, C.byref(r))
        return result_dict(r)

    @property
    def fresh_ok(self):
        return bool(lib.dlca_loop_fresh_ok(self.ptr))

    def model(self):
        return self.trainer.model()

    def run(self, callback=None):
        """Epochs until done (or callback(info) returns False at an
        evaluation), then finish, polish and the fresh check; the result."""
        while True:
            r = self.epoch()
            if r["diverged"]:
                raise FloatingPointError(f"the soft loss diverged at epoch {r['epoch']}")
            if r["evaluated"] and callback is not None and callback(_info(r)) is False:
                break
            if r["done"]:
                break
        self.finish()
        self.polish()
        self.eval_fresh()
        return self.result


def _info(r):
    h = r["hard"] or {}
    return {"epoch": r["epoch"], "soft": r["soft"], "hard": h.get("hard_loss"), "errors": h.get("errors"),
            "accuracy": h.get("accuracy"), "best_hard": r["best_hard"], "cooldowns": r["cooldowns"]}


def train(preset="checkerboard", seed=1, recipe="recommended", callback=None, context=None, restarts=0,
          parametrisation="softmax16", events=None, **options):
    """Trains a preset as dlca_train_preset (and dlca-train --preset P --seed
    S --restarts N) does: the recipe, then seeds seed + 1000 k while the
    circuit is wrong on fresh grids (100 batches with restarts, as the tool).
    callback(info) runs at every hard evaluation with info = {epoch, soft,
    hard, errors, accuracy, best_hard, cooldowns, seed}; returning False
    stops that run. Returns (model, result dict with "seed", "fresh_ok"
    (None without a fresh check: eval_fresh=0 and no restarts), "log": the
    list of infos). events: as Loop.set_events."""
    if isinstance(restarts, bool) or not isinstance(restarts, int) or restarts < 0:
        raise ValueError(f"restarts must be an int >= 0, not {restarts!r}")
    log = []
    options.setdefault("eval_fresh", 100 if restarts > 0 else 0)
    for k in range(restarts + 1):
        s = seed + 1000 * k

        def cb(info, s=s):
            info["seed"] = s
            log.append(info)
            return callback(info) if callback is not None else None
        with Loop(preset, seed=s, recipe=recipe, context=context, parametrisation=parametrisation,
                  with_abandon=restarts > 0, events=events, **options) as run:
            res = run.run(cb)
            res["seed"], res["log"] = s, log
            res["fresh_ok"] = run.fresh_ok if res["have_fresh"] else None  # None: no fresh check asked
            model = run.model()
            res["config"] = config_dict(run.config)
        if res["fresh_ok"] or k == restarts:
            return model, res
        model.close()
