"""The examples compile (running them takes 25-40 s on PoCL; the README's
`./scripts/run-main.sh --python DIR` and the notebook are run by hand)."""
import pathlib
import py_compile

import pytest

EXAMPLES = sorted((pathlib.Path(__file__).resolve().parents[1] / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_compiles(path, tmp_path):
    py_compile.compile(str(path), cfile=str(tmp_path / "x.pyc"), doraise=True)
