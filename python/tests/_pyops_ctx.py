"""A device context for the compute-layer tests, until dlca_cl.Context
(pycore) lands: dlca_context_new on $DLCA_CL_DEVICE (conftest: PoCL's cpu)."""
import ctypes as C
import os

import pytest

from dlca_cl._lib import lib, check

lib.dlca_context_new.restype, lib.dlca_context_new.argtypes = C.c_int, [C.c_char_p, C.POINTER(C.c_void_p)]
lib.dlca_context_free.restype, lib.dlca_context_free.argtypes = None, [C.c_void_p]


class _Ctx:
    def __init__(self, spec):
        self._ptr = C.c_void_p()
        check(lib.dlca_context_new(spec.encode(), C.byref(self._ptr)), "dlca_context_new")

    def __del__(self):
        if self._ptr:
            lib.dlca_context_free(self._ptr)
            self._ptr = C.c_void_p()


def make_context():
    try:
        from dlca_cl import Context  # pycore's, once merged
        return Context(os.environ.get("DLCA_CL_DEVICE", "cpu"))
    except ImportError:
        return _Ctx(os.environ.get("DLCA_CL_DEVICE", "cpu"))


@pytest.fixture(scope="session")
def ctx():
    return make_context()
