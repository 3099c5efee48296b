"""numpy round trips of every array the binding exposes (dtype, shape,
values), the structures' layout through the library's own defaults, and
rollouts against the trainer's hard evaluation."""
import json

import numpy as np
import pytest

import dlca_cl
from dlca_cl import _decl, config
from dlca_cl._lib import lib
import ctypes


def _rand(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_struct_layout_through_defaults():
    # the last fields of the largest structures, filled by the library
    p, cfg = config.train_config("checkerboard")
    assert (cfg.batch, cfg.height, cfg.width, cfg.steps) == (2, 16, 16, 20)
    assert cfg.optim.lr == np.float32(0.05) and cfg.use_suite == 0 and cfg.shared_program == 0
    o = _decl.LoopOptions()
    lib.dlca_loop_options_default(ctypes.byref(o))
    assert (o.eval_every, o.plateau, o.max_cooldowns, o.evolve_lineages, o.evolve_lambda) == (10, 100, 2, 64, 4)
    assert o.cooldown_factor == pytest.approx(0.1) and o.n_lr_parts == 0
    _, cfg = config.train_config("gol", optimizer="rmsprop", optimizer_options={"alpha": 0.9})
    assert cfg.use_suite == 1 and cfg.suite.alpha == pytest.approx(0.9) and cfg.shared_program == 0


def test_model_logits_and_wires(tmp_path):
    m = dlca_cl.Model.from_preset("checkerboard", seed=5)
    a = m.logits
    assert a.dtype == np.float32 and a.shape == (m.n_params,) and m.n_params == 16 * m.n_gates
    new = _rand(a.shape, 1)
    m.logits = new
    got = m.logits
    assert np.array_equal(got, new)
    got[0] = 1e9  # a copy: the model is unchanged
    assert m.logits[0] == new[0]
    with pytest.raises(ValueError, match="shape"):
        m.logits = new[:-1]
    m.save(tmp_path / "m.json")
    j = json.load(open(tmp_path / "m.json"))
    m2 = dlca_cl.Model.load(tmp_path / "m.json")
    assert np.array_equal(m2.logits, new)
    w = m.wires
    for key in ("perceive", "update"):
        assert len(w[key]) == len(j[key]["wires"])
        for arr, jw in zip(w[key], j[key]["wires"]):
            assert arr.dtype == np.int32 and np.array_equal(arr, np.array(jw, np.int32))
    s = m.shape
    L = m.layer_logits(0, 0)
    assert L.shape == (s["n_kernels"], s["perceive_layers"][1], 16)
    off = int(sum(np.prod(m.layer_logits(0, i).shape) for i in range(len(s["perceive_layers"]) - 1)))
    assert np.array_equal(m.layer_logits(1, 0).ravel(), new[off:off + s["update_layers"][1] * 16])
    counts, active = m.gate_histogram()
    assert counts.dtype == np.int64 and counts.sum() == m.n_gates and 0 <= active <= m.n_gates
    iwp = dlca_cl.Model.from_preset("checkerboard", 5, parametrisation="iwp")
    assert iwp.params_per_gate == 4 and iwp.shape["parametrisation"] == "iwp"


def test_trainer_arrays(tmp_path):
    m = dlca_cl.Model.from_preset("checkerboard", seed=1)  # seed 1's program is built once for every test
    t = dlca_cl.Trainer(m, "checkerboard", seed=4, batch=2)
    assert t.grid_shape == (2, 16, 16, 8) and t.backend == "cl"
    p = _rand(t.n_params, 3)
    t.params = p
    assert np.array_equal(t.params, p) and t.params.dtype == np.float32
    t.step()
    assert np.isfinite(t.loss()) and t.epoch == 1
    g = t.grad()
    assert g.shape == p.shape and g.dtype == np.float32 and np.abs(g).sum() > 0
    st = t.state()
    assert st.shape == t.grid_shape and st.dtype == np.float32 and ((st >= 0) & (st <= 1)).all()
    mv = t.optimizer_state()
    assert mv.shape == (2, t.n_params) and mv.dtype == np.float32 and np.abs(mv[0]).sum() > 0
    t.save_checkpoint(tmp_path / "c.ckpt")
    t2 = dlca_cl.Trainer(m, "checkerboard", seed=4, batch=2)
    t2.load_checkpoint(tmp_path / "c.ckpt")
    assert t2.epoch == 1 and np.array_equal(t2.params, t.params)
    assert np.array_equal(t2.optimizer_state(), mv)
    t.lr = 0.01
    assert t.lr == np.float32(0.01)
    assert np.array_equal(t.model().logits, t.params)


def test_rollout_matches_hard_evaluation():
    m = dlca_cl.Model.from_preset("checkerboard", seed=3)
    m.logits = _rand(m.n_params, 9) * 3
    x = dlca_cl.random_grid(16, 16, 8, seed=5, batch=2)
    assert x.dtype == np.float32 and set(np.unique(x)) == {0.0, 1.0}
    t = dlca_cl.Trainer(m, "checkerboard", context="ref", start="upload", steps=6)
    t.set_input(x)
    t.eval_hard()
    frames = dlca_cl.rollout(m, x, 6)
    assert frames.shape == (6, 2, 16, 16, 8) and frames.dtype == np.float32
    assert np.array_equal(frames[-1], t.state(hard=True))
    one = dlca_cl.rollout(m, x[0], 6, include_start=True)
    assert one.shape == (7, 16, 16, 8) and np.array_equal(one[0], x[0]) and np.array_equal(one[1:], frames[:, 0])


def test_async_rollout_matches_trainer():
    m = dlca_cl.Model.from_preset("checkerboard-async", seed=3)
    m.logits = _rand(m.n_params, 2) * 3
    t = dlca_cl.Trainer(m, "checkerboard-async", context="ref", start="upload", steps=5, batch=1)
    b, h, w, c = t.grid_shape
    x = dlca_cl.random_grid(h, w, c, seed=6, batch=b)
    masks = (np.random.default_rng(1).random((5, b, h, w)) < 0.6).astype(np.uint8)
    t.set_input(x)
    t.set_fire_masks(masks)
    t.eval_hard()
    frames = dlca_cl.rollout(m, x, 5, async_=True, fire_masks=masks)
    assert np.array_equal(frames[-1], t.state(hard=True))
    drawn = dlca_cl.rollout(m, x, 5, async_=True, mask_key=77)
    assert drawn.shape == frames.shape


def test_export_strings(tmp_path):
    m = dlca_cl.Model.from_preset("checkerboard", seed=1)
    src, info = m.export("c", name="cb")
    assert "cb_cells64" in src and "cb_step" in src and info["model_gates"] > 0
    v, _ = m.export("verilog", name="cb")
    assert "module cb_cell" in v
    info = m.export("c", name="cb", path=tmp_path / "cb.c", keep=[0])
    assert (tmp_path / "cb.c").read_text() and info["channels_kept"] >= 1


def test_devices_and_context():
    devs = dlca_cl.devices()
    assert devs and all({"spec", "name", "type", "global_mem"} <= set(d) for d in devs)
    want = devs[0]
    with dlca_cl.Context(want["spec"]) as ctx:
        assert ctx.device["name"] == want["name"] and ctx.device["type"] == want["type"]
        assert ctx.device["spec"] == want["spec"]
    assert "closed" in repr(ctx)
    with pytest.raises(ValueError, match="closed"):
        ctx.device
