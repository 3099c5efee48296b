"""dlca_cl.hard, the numpy hard circuit, bit for bit against the library's
(dlca-export's C) on trained and random models, and against the JAX
reference vectors' hard states; dlca_cl.modelfile against dlca_model_save."""
import json

import numpy as np
import pytest

from circuits import LibraryCircuit, random_bits, random_model, train
from dlca_cl import hard, modelfile

VECTORS = ["tiny_sync", "tiny_periodic", "tiny_async", "checkerboard_init", "checkerboard_mixed"]


@pytest.fixture(scope="session")
def trained(tmp_path_factory):
    """A checkerboard and a gol model trained briefly on PoCL (a few active gates
    and over a hundred respectively): {preset: path}."""
    tmp = tmp_path_factory.mktemp("trained")
    return {"checkerboard": train(tmp, "checkerboard", 200), "gol": train(tmp, "gol", 1500)}


@pytest.mark.parametrize("name", VECTORS)
def test_reference_vectors_hard_state(shared, name):
    case = json.loads((shared / "testdata" / "reference" / f"{name}.json").read_text())
    run, exp = case["run"], case["expected"]
    fire = run.get("fire_masks")
    states = hard.rollout(case["model"], np.array(case["input"]), run["steps"],
                          None if fire is None else np.array(fire))
    assert states.shape == (run["steps"] + 1,) + np.shape(case["input"])
    assert np.array_equal(states[-1], np.array(exp["hard_state"]))
    lc = run["loss_channels"]
    loss = np.square(states[-1][..., lc] - np.array(case["target"])[..., lc]).sum()
    assert loss == exp["hard_loss"]


@pytest.mark.parametrize("preset,grid,steps", [("checkerboard", (3, 16, 16), 20), ("gol", (4, 9, 7), 6)])
def test_trained_models_match_the_library(trained, tmp_path, preset, grid, steps):
    path = trained[preset]
    lib = LibraryCircuit(path, tmp_path)
    m = modelfile.read(path)
    rng = np.random.default_rng(7)
    x = random_bits(rng, grid + (m.channels,))
    ours = hard.rollout(path, x, steps)
    assert np.array_equal(ours, lib.rollout(x, steps))
    assert ours[1:].any() and not np.array_equal(ours[-1], ours[0])  # the circuit does something
    fire = random_bits(rng, (steps,) + grid)
    assert np.array_equal(hard.rollout(m, x, steps, fire), lib.rollout(x, steps, fire))


@pytest.mark.parametrize("periodic", [False, True])
@pytest.mark.parametrize("param", ["softmax16", "iwp"])
def test_random_models_match_the_library(tmp_path, periodic, param):
    rng = np.random.default_rng(11 + periodic + 2 * (param == "iwp"))
    m = random_model(rng, 3, periodic, 4, [8, 4, 2], [24, 12], param)
    modelfile.write(m, tmp_path / "m.json")
    lib = LibraryCircuit(tmp_path / "m.json", tmp_path / "c")
    x = random_bits(rng, (2, 6, 5, 3))
    fire = random_bits(rng, (4, 2, 6, 5))
    assert np.array_equal(hard.rollout(m, x, 4), lib.rollout(x, 4))
    assert np.array_equal(hard.rollout(m, x, 4, fire), lib.rollout(x, 4, fire))


def test_gate_is_its_truth_table():
    a, b = np.array([0, 0, 1, 1], np.uint8), np.array([0, 1, 0, 1], np.uint8)
    names = {1: [0, 0, 0, 1], 3: [0, 0, 1, 1], 5: [0, 1, 0, 1], 6: [0, 1, 1, 0], 7: [0, 1, 1, 1], 14: [1, 1, 1, 0]}
    for op, table in names.items():
        assert hard.gate(np.uint8(op), a, b).tolist() == table


def test_hard_ops_ties_and_iwp_signs():
    logits = np.zeros((2, 16), np.float32)
    logits[0, [5, 9]] = 2.0
    assert hard.hard_ops(logits).tolist() == [5, 0]  # ties: the lowest index
    w = np.array([[-3, -3, 3, 3], [0, 1, 1, -1], [1, 1, 1, 1]], np.float32)
    assert hard.hard_ops(w, "iwp").tolist() == [3, 6, 15]  # A; XOR (0 counts as 0); TRUE


def test_library_saved_model_reads_and_writes_back_byte_for_byte(trained, tmp_path):
    for path in trained.values():
        m = modelfile.read(path)
        assert modelfile.to_json(m) == path.read_text()
        modelfile.write(m, tmp_path / "copy.json")
        assert (tmp_path / "copy.json").read_bytes() == path.read_bytes()


def test_bad_input_is_an_error_naming_it(tmp_path):
    m = random_model(np.random.default_rng(1), 2, False, 2, [8, 2], [6], "softmax16")
    with pytest.raises(ValueError, match="bits"):
        hard.rollout(m, np.full((1, 3, 3, 2), 0.5), 1)
    with pytest.raises(ValueError, match=r"expected \[B, H, W, 2\]"):
        hard.rollout(m, np.zeros((3, 3, 2)), 1)
    with pytest.raises(ValueError, match="fire_masks"):
        hard.rollout(m, np.zeros((1, 3, 3, 2)), 2, np.ones((1, 1, 3, 3)))
    obj = json.loads(modelfile.to_json(m))
    obj["update"]["wires"][0][1][3] = 99
    with pytest.raises(ValueError, match=r"update.wires\[0\]\[1\]\[3\]: index 99 out of \[0, 10\)"):
        modelfile.read(obj)
    obj = json.loads(modelfile.to_json(m))
    obj["perceive"]["logits"][1][0][1] = [1.0] * 15
    (tmp_path / "bad.json").write_text(json.dumps(obj))
    with pytest.raises(ValueError, match=r"bad.json: perceive.logits\[1\]"):
        modelfile.read(tmp_path / "bad.json")


def test_a_library_model_is_read_through_its_save(tmp_path):
    m = random_model(np.random.default_rng(2), 2, True, 2, [8, 2], [6], "softmax16")

    class Saving:  # what dlca_cl.Model offers: save(path)
        def save(self, path):
            modelfile.write(m, path)

    x = random_bits(np.random.default_rng(3), (1, 4, 4, 2))
    assert np.array_equal(hard.rollout(Saving(), x, 3), hard.rollout(m, x, 3))
    assert modelfile.to_json(modelfile.read(Saving())) == modelfile.to_json(m)


def test_matches_the_bindings_rollout(trained):
    """hard.rollout against dlca_cl.rollout, the library's CPU reference
    through the binding, on a library Model (read through its save())."""
    import dlca_cl
    if not hasattr(dlca_cl, "rollout") or not hasattr(dlca_cl, "Model"):
        pytest.skip("dlca_cl.Model and dlca_cl.rollout (the package core) are not here")
    m = dlca_cl.Model.load(str(trained["checkerboard"]))
    rng = np.random.default_rng(5)
    x = random_bits(rng, (2, 16, 16, 8))
    fire = random_bits(rng, (20, 2, 16, 16))
    assert np.array_equal(hard.rollout(m, x, 20), dlca_cl.rollout(m, x, 20, include_start=True))
    assert np.array_equal(hard.rollout(m, x, 20, fire),
                          dlca_cl.rollout(m, x, 20, async_=True, fire_masks=fire, include_start=True))
