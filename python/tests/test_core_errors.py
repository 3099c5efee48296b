"""Failures surface as DlcaError with the library's message; wrong Python
arguments raise TypeError or ValueError before any C call; 1,000 create/free
cycles do not leak."""
import os

import numpy as np
import pytest

import dlca_cl


def test_corrupt_model_names_file(tmp_path):
    f = tmp_path / "broken.json"
    f.write_text('{"format": "dlca-model", "version": 1, "channels": ')
    with pytest.raises(dlca_cl.DlcaError) as e:
        dlca_cl.Model.load(f)
    assert str(f) in str(e.value) and e.value.name == "EPARSE" and e.value.status == -4
    with pytest.raises(dlca_cl.DlcaError, match="missing.json"):
        dlca_cl.Model.load(tmp_path / "missing.json")


def test_library_errors():
    with pytest.raises(dlca_cl.DlcaError, match="no-such-preset"):
        dlca_cl.Model.from_preset("no-such-preset")
    with pytest.raises(dlca_cl.DlcaError) as e:
        dlca_cl.Context("no device has this name")
    assert e.value.name == "ENODEVICE"
    m = dlca_cl.Model.from_preset("checkerboard")
    t = dlca_cl.Trainer(m, "checkerboard", context="ref")
    with pytest.raises(dlca_cl.DlcaError, match="lr"):
        t.lr = -1.0
    with pytest.raises(dlca_cl.DlcaError, match="name"):
        m.export("c", name="9bad")


def test_python_argument_errors():
    m = dlca_cl.Model.from_preset("checkerboard")
    with pytest.raises(TypeError):
        dlca_cl.Model.from_preset("checkerboard", seed="1")
    with pytest.raises(ValueError):
        dlca_cl.Model.from_preset("checkerboard", seed=-1)
    with pytest.raises(TypeError, match="unknown training option"):
        dlca_cl.Trainer(m, "checkerboard", context="ref", bacth=4)
    with pytest.raises(TypeError):
        dlca_cl.Trainer("model.json", "checkerboard")
    with pytest.raises(ValueError):
        dlca_cl.Trainer(m, "checkerboard", context="ref", batch=0)
    t = dlca_cl.Trainer(m, "checkerboard", context="ref")
    with pytest.raises(ValueError, match="target"):
        t.set_target(np.zeros((3, 3, 8)))
    with pytest.raises(ValueError):
        m.export("vhdl")
    with pytest.raises(ValueError):
        dlca_cl.rollout(m, np.zeros((16, 16, 3)), 4)
    with pytest.raises(TypeError):
        dlca_cl.Context(0)
    with pytest.raises(ValueError, match="recipe"):
        dlca_cl.Loop("checkerboard", recipe="fast")


def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_no_leak_1000_cycles():
    ctx = dlca_cl.Context()

    def cycle(i):  # one seed: a new seed is a new program build on the device
        with dlca_cl.Model.from_preset("checkerboard", seed=1) as m:
            t = dlca_cl.Trainer(m, "checkerboard", context=ctx if i % 2 else "ref", batch=1)
            t.params
            del t  # garbage-collected, not closed
    for i in range(50):
        cycle(i)
    before = _rss()
    for i in range(1000):
        cycle(i)
    grown = _rss() - before
    # a trainer holds ~1 MB (a model 200 KB): a leak of either would pass 100 MB
    assert grown < 16 << 20, f"RSS grew {grown >> 20} MiB over 1,000 cycles"
