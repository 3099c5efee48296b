"""The shared library, found once, and the one way a failing call becomes an
exception: ``check(rc)`` raises DlcaError with the library's own message
(dlca_last_error), its status name and number.

Where the library comes from, first hit wins:
  1. $DLCA_CL_LIBRARY: a path to libdlca_cl.so (the build tree's
     .libs/libdlca_cl.so in the tests);
  2. pkg-config's libdir for dlca_cl;
  3. the dynamic linker's search path (ctypes.util.find_library).
"""
import ctypes
import ctypes.util
import os
import subprocess

__all__ = ["lib", "check", "DlcaError", "library_path"]


class DlcaError(RuntimeError):
    """A libdlca_cl call failed. ``status`` is the negative status code,
    ``name`` its enum name without prefix ("EMODEL") and ``message`` the
    library's detailed message, which names the file, value or device."""

    def __init__(self, status, name, message):
        self.status, self.name, self.message = status, name, message
        super().__init__(f"{message} [{name}]" if message else name)


def _pkg_config_libdir():
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "dlca_cl"], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    d = out.stdout.strip()
    path = os.path.join(d, "libdlca_cl.so") if out.returncode == 0 and d else None
    return path if path and os.path.exists(path) else None


def library_path():
    """The path ctypes loads: $DLCA_CL_LIBRARY, pkg-config's, or the linker's."""
    env = os.environ.get("DLCA_CL_LIBRARY")
    if env:
        if not os.path.exists(env):
            raise OSError(f"DLCA_CL_LIBRARY={env}: no such file")
        return env
    return _pkg_config_libdir() or ctypes.util.find_library("dlca_cl") or "libdlca_cl.so"


def _load():
    path = library_path()
    try:
        so = ctypes.CDLL(path)
    except OSError as e:
        raise OSError(f"{path}: cannot load libdlca_cl ({e}); install the library, or set DLCA_CL_LIBRARY to "
                      "the path of libdlca_cl.so") from None
    so.dlca_last_error.restype = ctypes.c_char_p
    so.dlca_strerror_name.restype = ctypes.c_char_p
    so.dlca_strerror_name.argtypes = [ctypes.c_int]
    so.dlca_version_string.restype = ctypes.c_char_p
    return so


lib = _load()


def check(rc, what=None):
    """Raise DlcaError for a negative status; return rc otherwise."""
    if rc >= 0:
        return rc
    msg = (lib.dlca_last_error() or b"").decode("utf-8", "replace")
    name = (lib.dlca_strerror_name(rc) or b"?").decode()
    if what and what not in msg:
        msg = f"{what}: {msg}" if msg else what
    raise DlcaError(rc, name, msg)
