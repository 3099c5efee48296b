"""Every ctypes Structure of dlca_cl._decl against its C struct: the size and
each field's offset, as the C compiler lays them out from the public headers
(a field added to a header and not to _decl.py would make the library read
past the Python object)."""
import ctypes as C
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from dlca_cl import _decl

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _structs():
    out = []
    for name, obj in vars(_decl).items():
        if isinstance(obj, type) and issubclass(obj, C.Structure) and obj is not _decl._S:
            out.append((name, "dlca_" + re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower(), obj))
    return sorted(out)


def _c_field(name):
    return name[:-1] if name.endswith("_") else name  # async_, pass_: Python keywords


def test_structures_match_the_headers(tmp_path):
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    lib = os.environ.get("DLCA_CL_LIBRARY", "")
    build = pathlib.Path(lib).resolve().parent.parent if lib else None
    if not cc or not build or not (build / "include" / "dlca_cl" / "version.h").exists():
        pytest.skip("needs a C compiler and the build tree's include/dlca_cl/version.h")
    lines, want = [], []
    for py, cname, s in _structs():
        lines.append(f'  printf("%zu\\n", sizeof({cname}));')
        want.append((f"sizeof {cname}", C.sizeof(s)))
        for field, _ in s._fields_:
            lines.append(f'  printf("%zu\\n", offsetof({cname}, {_c_field(field)}));')
            want.append((f"{cname}.{_c_field(field)}", getattr(s, field).offset))
    src = tmp_path / "abi.c"
    src.write_text("#include <stddef.h>\n#include <stdio.h>\n#include <dlca_cl.h>\nint main(void) {\n" +
                   "\n".join(lines) + "\n  return 0;\n}\n")
    exe = tmp_path / "abi"
    subprocess.run([cc, "-DCL_TARGET_OPENCL_VERSION=120", f"-I{ROOT / 'include'}", f"-I{build / 'include'}",
                    str(src), "-o", str(exe)], check=True, capture_output=True, text=True)
    got = [int(x) for x in subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()]
    bad = [f"{what}: C {g}, ctypes {w}" for (what, w), g in zip(want, got) if g != w]
    assert len(got) == len(want) and not bad, "\n".join(bad)
