"""The C structures and prototypes of the DiffLogic CA API (cl.h, model.h,
trainer.h, recipe.h, population.h, parity.h, ref.h, bits.h), declared once.
Each Structure mirrors its header field for field: python/tests/test_core_abi.py
compiles the headers and compares every size and field offset."""
import ctypes as C

from ._lib import lib

MAX_LAYERS = 64
MAX_LOSS = 16
P = C.c_void_p
i32, u32, u64, f32, f64, sz, lng = C.c_int, C.c_uint, C.c_uint64, C.c_float, C.c_double, C.c_size_t, C.c_long


class _S(C.Structure):
    def to_dict(self):
        """The fields as plain Python values (arrays as lists, strings decoded)."""
        return {name: _value(getattr(self, name)) for name, _ in self._fields_}


def _value(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, _S):
        return v.to_dict()
    if isinstance(v, C.Array):
        return [_value(x) for x in v]
    return v


class DeviceInfo(_S):
    _fields_ = [("spec", C.c_char * 16), ("platform_index", i32), ("device_index", i32),
                ("platform", C.c_char * 128), ("platform_version", C.c_char * 128), ("name", C.c_char * 256),
                ("vendor", C.c_char * 128), ("driver", C.c_char * 128), ("version", C.c_char * 128),
                ("type", i32), ("compute_units", u32), ("global_mem", u64), ("local_mem", u64),
                ("max_alloc", u64), ("max_work_group", sz), ("is_default", i32)]


class ModelShape(_S):
    _fields_ = [("channels", i32), ("periodic", i32), ("n_kernels", i32), ("n_perceive_layers", i32),
                ("perceive_layers", i32 * MAX_LAYERS), ("n_update_layers", i32),
                ("update_layers", i32 * MAX_LAYERS), ("perceive_first_wiring", i32), ("wiring", i32),
                ("parametrisation", i32)]


class Preset(_S):
    _fields_ = [("name", C.c_char_p), ("shape", ModelShape), ("height", i32), ("width", i32), ("steps", i32),
                ("batch", i32), ("epochs", i32), ("async_", i32), ("fire_rate", f32), ("lr", f32),
                ("start", i32), ("n_loss_channels", i32), ("loss_channels", i32 * MAX_LOSS)]


class Optim(_S):
    _fields_ = [(n, f32) for n in ("clip", "lr", "beta1", "beta2", "eps", "weight_decay")]


class Relax(_S):
    _fields_ = [("temperature", f32), ("gumbel_scale", f32), ("straight_through", i32), ("grad_noise", f32)]


class OptimConfig(_S):
    _fields_ = [("kind", i32), ("lr", f64), ("weight_decay", f64), ("eps", f64), ("momentum", f64),
                ("dampening", f64), ("nesterov", i32), ("beta1", f64), ("beta2", f64), ("amsgrad", i32),
                ("alpha", f64), ("centered", i32), ("lr_decay", f64), ("initial_accumulator_value", f64)]


class TrainConfig(_S):
    _fields_ = [("batch", i32), ("height", i32), ("width", i32), ("steps", i32), ("async_", i32),
                ("fire_rate", f32), ("n_loss_channels", i32), ("loss_channels", i32 * MAX_LOSS), ("start", i32),
                ("seed", u64), ("optim", Optim), ("relax", Relax), ("use_suite", i32), ("suite", OptimConfig),
                ("shared_program", i32), ("population_plan", i32)]


class Eval(_S):
    _fields_ = [("hard_loss", f64), ("accuracy", f64), ("errors", sz), ("total", sz)]


class LrSpec(_S):
    _fields_ = [("kind", i32), ("base_lr", f64), ("gamma", f64), ("step_size", u64), ("t_max", u64),
                ("eta_min", f64), ("max_lr", f64), ("pct_start", f64), ("div_factor", f64),
                ("final_div_factor", f64), ("total_steps", u64), ("start_factor", f64), ("end_factor", f64),
                ("total_iters", u64)]


class LoopOptions(_S):
    _fields_ = [("epochs", lng), ("eval_every", lng), ("lr_schedule", i32), ("warmup", lng), ("min_lr", f64),
                ("cooldown_factor", f64), ("plateau", lng), ("max_cooldowns", lng), ("early_stop", lng),
                ("keep_best", i32), ("keep_best_start", i32), ("n_abandon", i32), ("abandon_epoch", lng * 8),
                ("abandon_above", f64 * 8), ("repair", lng), ("repair_max_wrong", lng), ("evolve", lng),
                ("evolve_max_wrong", lng), ("evolve_lineages", lng), ("evolve_lambda", lng),
                ("evolve_changes", lng), ("search_needs_training", i32), ("eval_fresh", lng), ("seed", u64),
                ("n_lr_parts", i32), ("lr_parts", LrSpec * 8), ("lr_milestones", u64 * 7)]


class RepairResult(_S):
    _fields_ = [("before", Eval), ("after", Eval), ("passes", i32), ("stopped", i32), ("changed", sz),
                ("tried", sz)]


class EvolveResult(_S):
    _fields_ = [("before", Eval), ("after", Eval), ("generations", u64), ("taken", u64), ("improved", u64),
                ("scored", sz), ("drift", sz), ("stopped", i32)]


class LoopResult(_S):
    _fields_ = [("first", u64), ("epoch", u64), ("soft", f64), ("diverged", i32), ("have_hard", i32),
                ("hard", Eval), ("hard_epoch", u64), ("evaluated", i32), ("done", i32), ("scheduled", i32),
                ("base_lr", f64), ("cooldowns", i32), ("stopped_early", i32), ("abandoned", i32),
                ("abandon_index", i32), ("abandoned_epoch", u64), ("min_hard", f64), ("have_best", i32),
                ("best_hard", f64), ("best_epoch", u64), ("have_repair", i32), ("repair_bits", i32),
                ("repair_skipped", i32), ("have_evolve", i32), ("evolve_skipped", i32), ("repair_wrong", sz),
                ("evolve_wrong", sz), ("evolve_reverted", sz), ("repair", RepairResult), ("evolve", EvolveResult),
                ("repair_s", f64), ("evolve_s", f64), ("have_fresh", i32), ("fresh", Eval)]


class LoopEvent(_S):
    _fields_ = [("kind", i32), ("epoch", u64), ("why", C.c_char_p), ("old_lr", f64), ("new_lr", f64),
                ("cooldowns", i32), ("pass_", i32), ("done", sz), ("total", sz), ("best", C.POINTER(Eval))]


class Recipe(_S):
    _fields_ = [("preset", C.c_char_p), ("temperature", f32), ("gumbel", f32), ("batch", i32), ("epochs", lng),
                ("cooldown", i32), ("early_stop", lng), ("keep_best", i32), ("param", i32), ("repair", lng),
                ("eval_every", lng), ("evolve", lng), ("evolve_max_wrong", lng), ("repair_max_wrong", lng),
                ("abandon", C.c_char_p), ("population", i32)]


class PopulationOptions(_S):
    _fields_ = [("n_models", i32), ("seeds", C.POINTER(u64)), ("replace", i32), ("next_seed", u64),
                ("max_models", lng), ("iwp_init", f32), ("compiled_wires", i32), ("run_all", i32),
                ("lr_jitter", f64), ("temperature_jitter", f64), ("gumbel_jitter", f64), ("pbt_every", lng),
                ("pbt_fraction", f64), ("polish_inline", i32), ("accept", P), ("accept_user", P)]


class PopulationStats(_S):
    _fields_ = [("winner", i32), ("winner_seed", u64), ("winner_epoch", u64), ("models", lng),
                ("finished", lng), ("abandoned", lng), ("epochs", u64), ("steps", u64), ("training", i32),
                ("pbt_copies", lng)]


Q_COUNT = 6


class ParityReport(_S):
    _fields_ = [("case_name", C.c_char * 128), ("max_abs", f64 * Q_COUNT), ("max_rel", f64 * Q_COUNT),
                ("tolerance", f64 * Q_COUNT), ("pass_", i32 * Q_COUNT), ("all_pass", i32)]


class OpsParityEntry(_S):
    _fields_ = [("name", C.c_char * 72), ("max_abs", f64), ("worst_ratio", f64), ("pass_", i32)]


class OpsParityReport(_S):
    _fields_ = [("case_name", C.c_char * 128), ("op", C.c_char * 64), ("tol_abs", f64), ("tol_rel", f64),
                ("n", i32), ("entry", OpsParityEntry * 32), ("all_pass", i32)]


class Run(_S):
    _fields_ = [("batch", i32), ("height", i32), ("width", i32), ("steps", i32), ("async_", i32),
                ("fire_rate", f32), ("fire_masks", P), ("mask_key", u64), ("n_loss_channels", i32),
                ("loss_channels", i32 * MAX_LOSS)]


class ExportInfo(_S):
    _fields_ = [(n, sz) for n in ("model_gates", "logic_gates", "not_gates", "inputs_used", "const_outputs",
                                  "channels_kept")]


LOOP_EPOCH_FN = C.CFUNCTYPE(i32, P, C.POINTER(LoopResult))
LOOP_EVENT_FN = C.CFUNCTYPE(i32, P, C.POINTER(LoopEvent))

R = C.POINTER
FP = R(f32)
# name: (restype, argtypes); restype int for every status-returning call.
_PROTOS = {
    "dlca_device_list": (i32, [R(R(DeviceInfo)), R(sz)]),
    "dlca_context_new": (i32, [C.c_char_p, R(P)]),
    "dlca_context_free": (None, [P]),
    "dlca_context_device": (None, [P, R(DeviceInfo)]),
    "dlca_context_warnings": (C.c_char_p, [P]),
    "dlca_preset_get": (i32, [C.c_char_p, R(Preset)]),
    "dlca_preset_names": (R(C.c_char_p), []),
    "dlca_model_new": (i32, [R(ModelShape), u64, R(P)]),
    "dlca_model_new_preset": (i32, [C.c_char_p, u64, R(P)]),
    "dlca_model_clone": (i32, [P, R(P)]),
    "dlca_model_free": (None, [P]),
    "dlca_model_load": (i32, [C.c_char_p, R(P)]),
    "dlca_model_save": (i32, [P, C.c_char_p]),
    "dlca_model_get_shape": (None, [P, R(ModelShape)]),
    "dlca_model_n_gates": (sz, [P]),
    "dlca_model_n_params": (sz, [P]),
    "dlca_model_params_per_gate": (i32, [P]),
    "dlca_parametrisation_name": (C.c_char_p, [i32]),
    "dlca_model_init_pass_through": (i32, [P, f32]),
    "dlca_model_params": (FP, [P]),
    "dlca_model_layer_offset": (sz, [P, i32, i32]),
    "dlca_model_gate_histogram": (sz, [P, sz * 16]),
    "dlca_model_wires": (i32, [P, i32, i32, R(C.c_int32), R(C.c_int32)]),
    "dlca_model_export": (i32, [P, i32, C.c_char_p, R(i32), i32, C.c_char_p, R(ExportInfo)]),
    "dlca_optim_kind_from_name": (i32, [C.c_char_p, R(i32)]),
    "dlca_optim_config_default": (i32, [i32, R(OptimConfig)]),
    "dlca_optim_config_set": (i32, [R(OptimConfig), C.c_char_p, f64]),
    "dlca_optim_config_check": (i32, [R(OptimConfig)]),
    "dlca_train_config_from_preset": (None, [R(Preset), R(TrainConfig)]),
    "dlca_trainer_new": (i32, [P, P, R(TrainConfig), R(P)]),
    "dlca_trainer_free": (None, [P]),
    "dlca_trainer_backend": (C.c_char_p, [P]),
    "dlca_trainer_state_slots": (sz, [P]),
    "dlca_trainer_get_state_slot": (i32, [P, sz, FP]),
    "dlca_trainer_set_target": (i32, [P, FP, i32]),
    "dlca_trainer_set_input": (i32, [P, FP]),
    "dlca_trainer_step": (i32, [P]),
    "dlca_trainer_set_lr": (i32, [P, f32]),
    "dlca_trainer_lr": (f32, [P]),
    "dlca_trainer_set_relax": (i32, [P, R(Relax)]),
    "dlca_trainer_loss": (i32, [P, R(f64)]),
    "dlca_trainer_eval_hard": (i32, [P, R(Eval)]),
    "dlca_trainer_eval_hard_fresh": (i32, [P, u64, i32, R(Eval)]),
    "dlca_trainer_n_params": (sz, [P]),
    "dlca_trainer_get_params": (i32, [P, FP]),
    "dlca_trainer_set_params": (i32, [P, FP]),
    "dlca_trainer_get_grad": (i32, [P, FP]),
    "dlca_trainer_get_state": (i32, [P, i32, FP]),
    "dlca_trainer_epoch": (u64, [P]),
    "dlca_trainer_export_model": (i32, [P, R(P)]),
    "dlca_trainer_save_checkpoint": (i32, [P, C.c_char_p]),
    "dlca_trainer_load_checkpoint": (i32, [P, C.c_char_p]),
    "dlca_preset_is_gol": (i32, [R(Preset)]),
    "dlca_preset_target": (i32, [R(Preset), i32, C.c_char_p, R(FP)]),
    "dlca_target_random_bits": (None, [FP, sz, u64, u32]),
    "dlca_gol_all": (None, [FP, FP]),
    "dlca_recipe_for": (i32, [C.c_char_p, i32, R(P)]),
    "dlca_recipe_describe": (None, [P, i32, C.c_char_p, sz]),
    "dlca_loop_options_default": (None, [R(LoopOptions)]),
    "dlca_recipe_apply": (i32, [P, R(Preset), i32, R(TrainConfig), R(LoopOptions)]),
    "dlca_loop_parse_lr_chain": (i32, [C.c_char_p, R(LoopOptions)]),
    "dlca_loop_parse_abandon": (i32, [C.c_char_p, R(LoopOptions)]),
    "dlca_loop_new": (i32, [P, R(Preset), P, R(TrainConfig), FP, R(LoopOptions), R(P)]),
    "dlca_loop_free": (None, [P]),
    "dlca_loop_set_events": (None, [P, LOOP_EVENT_FN, P]),
    "dlca_loop_trainer": (P, [P]),
    "dlca_loop_epoch": (i32, [P]),
    "dlca_loop_finish": (i32, [P]),
    "dlca_loop_polish": (i32, [P]),
    "dlca_loop_eval_fresh": (i32, [P]),
    "dlca_loop_get_result": (None, [P, R(LoopResult)]),
    "dlca_loop_fresh_ok": (i32, [P]),
    "dlca_population_new": (i32, [P, R(Preset), R(ModelShape), R(TrainConfig), FP, R(LoopOptions),
                                  R(PopulationOptions), R(P)]),
    "dlca_population_free": (None, [P]),
    "dlca_population_step": (i32, [P]),
    "dlca_population_running": (i32, [P]),
    "dlca_population_size": (i32, [P]),
    "dlca_population_get_stats": (None, [P, R(PopulationStats)]),
    "dlca_population_seed": (u64, [P, i32]),
    "dlca_population_model_state": (i32, [P, i32]),
    "dlca_population_loop": (P, [P, i32]),
    "dlca_population_losses": (None, [P, R(f64)]),
    "dlca_population_eval_hard": (i32, [P, R(Eval)]),
    "dlca_population_take": (i32, [P, i32, R(P)]),
    "dlca_quantity_name": (C.c_char_p, [i32]),
    "dlca_parity_vector": (i32, [P, C.c_char_p, R(ParityReport)]),
    "dlca_parity_vector_kind": (i32, [C.c_char_p, R(i32)]),
    "dlca_parity_ops_vector": (i32, [P, C.c_char_p, R(OpsParityReport)]),
    "dlca_run_default": (Run, [i32, i32, i32, i32]),
    "dlca_run_validate": (i32, [P, R(Run)]),
    "dlca_fire_mask": (i32, [R(Run), i32, i32, i32, i32]),
    "dlca_ref_forward": (i32, [P, R(Run), FP, i32, FP, FP, R(f64)]),
}


def _declare():
    for name, (res, args) in _PROTOS.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args


_declare()
libc = C.CDLL(None)
libc.free.argtypes, libc.free.restype = [P], None
