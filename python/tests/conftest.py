"""pytest set-up: the build tree's library (DLCA_CL_LIBRARY, set by
tests/python.sh), PoCL's CPU device unless DLCA_CL_DEVICE says otherwise,
and the paths of the shared test vectors."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
os.environ.setdefault("DLCA_CL_DEVICE", "cpu")
os.environ.setdefault("DLCA_CL_KERNEL_PATH", str(ROOT / "kernels-cl"))


def _shared():
    for cand in (os.environ.get("DLCA_SHARED"), ROOT.parent / "shared", ROOT.parent.parent / "shared"):
        if cand and (pathlib.Path(cand) / "testdata").is_dir():
            return pathlib.Path(cand)
    return None


@pytest.fixture(scope="session")
def shared():
    s = _shared()
    if s is None:
        pytest.skip("../shared/testdata not found (set DLCA_SHARED)")
    return s
