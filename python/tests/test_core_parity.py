"""The public JAX reference vectors and PyTorch ops vectors through
dlca_cl.parity, on the CPU reference and on the OpenCL device (PoCL)."""
import pytest

import dlca_cl


def _files(shared, sub):
    files = sorted((shared / "testdata" / sub).glob("*.json"))
    if not files:
        pytest.skip(f"no vectors in {shared / 'testdata' / sub}")
    return files


@pytest.mark.parametrize("backend", ["ref", "cl"])
def test_jax_vectors(shared, backend):
    for f in _files(shared, "reference"):
        r = dlca_cl.parity(f, backend=backend)
        assert r["kind"] == "jax" and r["backend"] == backend
        assert r["pass"], (f.name, r["errors"], r["tolerances"])
        assert set(r["errors"]) >= {"soft_state", "hard_state", "soft_loss", "grad"}
        assert r["errors"]["hard_state"] == 0


@pytest.mark.parametrize("backend", ["ref", "cl"])
def test_ops_vectors(shared, backend):
    for f in _files(shared, "ops"):
        r = dlca_cl.parity(f, backend=backend)
        assert r["kind"] == "ops" and r["op"]
        assert r["pass"], (f.name, r["ratios"])
        assert all(v <= 1 for v in r["ratios"].values())


def test_parity_arguments(shared, tmp_path):
    with pytest.raises(ValueError, match="backend"):
        dlca_cl.parity(_files(shared, "reference")[0], backend="jax")
    with pytest.raises(TypeError):
        dlca_cl.parity(3)
    with pytest.raises(dlca_cl.DlcaError, match="nothere.json"):
        dlca_cl.parity(tmp_path / "nothere.json")
