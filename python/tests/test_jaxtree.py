"""dlca_cl.jaxtree: our model -> the JAX reference's tree -> our model is
identical, bit for bit, through .npz too; the reference vectors' own trees
(grad, params_after_step) have the layout to_jax gives and convert back."""
import json

import numpy as np
import pytest

from circuits import random_model
from dlca_cl import hard, jaxtree, modelfile

REF = ["tiny_sync", "tiny_periodic", "tiny_async", "checkerboard_init", "checkerboard_mixed"]


def case(shared, name):
    return json.loads((shared / "testdata" / "reference" / f"{name}.json").read_text())


def same_bits(m1, m2):
    """Every logit the same float32 bits, every wire the same index."""
    assert (m1.channels, m1.periodic, m1.parametrisation) == (m2.channels, m2.periodic, m2.parametrisation)
    for a, b in zip(m1.perceive_logits + m1.update_logits, m2.perceive_logits + m2.update_logits):
        assert a.dtype == b.dtype == np.float32 and np.array_equal(a.view(np.uint32), b.view(np.uint32))
    for a, b in zip(m1.perceive_wires + m1.update_wires, m2.perceive_wires + m2.update_wires):
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert modelfile.to_json(m1) == modelfile.to_json(m2)


@pytest.mark.parametrize("periodic", [False, True])
def test_ours_to_jax_to_ours_is_identical(tmp_path, periodic):
    m = random_model(np.random.default_rng(3), 4, periodic, 3, [8, 4, 2, 1], [40, 20], "softmax16")
    m.update_logits[0][0, :3] = [-0.0, 1e-40, 3.4e38]  # a negative zero, a subnormal, near the top
    modelfile.write(m, tmp_path / "m.json")
    tree = jaxtree.to_jax(tmp_path / "m.json")
    same_bits(jaxtree.from_tree(tree), m)
    jaxtree.save_npz(tmp_path / "m.npz", tree)
    back = jaxtree.from_tree(jaxtree.load_npz(tmp_path / "m.npz"))
    same_bits(back, m)
    modelfile.write(back, tmp_path / "back.json")
    assert (tmp_path / "back.json").read_bytes() == (tmp_path / "m.json").read_bytes()


def test_tree_layout_is_the_notebooks(shared):
    c = case(shared, "checkerboard_mixed")
    tree = jaxtree.to_jax(c["model"])
    p, w, hp = tree["params"], tree["wires"], tree["hyperparams"]
    assert [x.shape for x in p["perceive"]] == [(16, 8, 16), (16, 4, 16), (16, 2, 16)]
    assert [x.shape for x in p["update"]] == [(256, 16)] * 10 + [(g, 16) for g in (128, 64, 32, 16, 8, 8)]
    assert all(len(pair) == 2 and pair[0].dtype == np.int32 for pair in w["perceive"] + w["update"])
    assert hp == {"channels": 8, "periodic": 0, "perceive": {"n_kernels": 16, "layers": [9, 8, 4, 2]},
                  "update": {"layers": [264] + [256] * 10 + [128, 64, 32, 16, 8, 8]}}
    # the reference computed grad in its own tree: the same shapes, leaf for leaf
    grad = c["expected"]["grad"]
    for part in ("perceive", "update"):
        assert [np.shape(g) for g in grad[part]] == [x.shape for x in p[part]]


@pytest.mark.parametrize("name", REF)
def test_reference_trees_convert_to_our_model(shared, name):
    c = case(shared, name)
    tree = jaxtree.to_jax(c["model"])
    m = jaxtree.from_tree(tree)
    same_bits(m, modelfile.read(c["model"]))
    fire = c["run"]["fire_masks"]
    states = hard.rollout(m, np.array(c["input"]), c["run"]["steps"], None if fire is None else np.array(fire))
    assert np.array_equal(states[-1], np.array(c["expected"]["hard_state"]))
    # the logits after one reference step, a tree of the reference's, with the model's wires
    after = c["expected"]["params_after_step"]
    m2 = jaxtree.from_jax(after, tree["wires"], c["model"]["periodic"])
    for ours, ref in zip(m2.perceive_logits + m2.update_logits, after["perceive"] + after["update"]):
        assert np.array_equal(ours, np.asarray(ref, np.float64).astype(np.float32))


def test_errors_name_the_problem():
    m = random_model(np.random.default_rng(5), 2, False, 2, [8, 2], [6], "iwp")
    with pytest.raises(ValueError, match="softmax-16 gates only"):
        jaxtree.to_jax(m)
    m = random_model(np.random.default_rng(5), 2, False, 2, [8, 2], [6], "softmax16")
    tree = jaxtree.to_jax(m)
    tree["hyperparams"]["perceive"]["n_kernels"] = 3
    with pytest.raises(ValueError, match="n_kernels 3, but the arrays give 2"):
        jaxtree.from_tree(tree)
    tree = jaxtree.to_jax(m)
    tree["wires"]["update"][1][0][0] = 6
    with pytest.raises(ValueError, match=r"update.wires\[1\]\[0\]\[0\]: index 6 out of \[0, 6\)"):
        jaxtree.from_tree(tree)
    tree = jaxtree.to_jax(m)
    tree["params"]["update"].pop()
    with pytest.raises(ValueError, match="update: 1 layers of params but 2 of wires"):
        jaxtree.from_tree(tree)


def test_files_get_the_librarys_permissions(tmp_path):
    import os
    m = random_model(np.random.default_rng(6), 2, False, 2, [8, 2], [6], "softmax16")
    umask = os.umask(0o022)
    try:
        modelfile.write(m, tmp_path / "new.json")
        jaxtree.save_npz(tmp_path / "new.npz", jaxtree.to_jax(m))
    finally:
        os.umask(umask)
    assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "new.npz").stat().st_mode & 0o777 == 0o644
    os.chmod(tmp_path / "new.json", 0o600)
    modelfile.write(m, tmp_path / "new.json")
    assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir() if ".tmp." in p.name] == []
