"""libdlca_cl from Python: DiffLogic CA training, the compute layer and the
circuits, with numpy arrays in and out (python/README.md)."""
from ._lib import DlcaError, library_path, lib as _lib

__version__ = _lib.dlca_version_string().decode()

__all__ = ["DlcaError", "library_path", "__version__"]
