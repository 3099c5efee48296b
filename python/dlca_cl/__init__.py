"""libdlca_cl from Python: DiffLogic CA training, the compute layer and the
circuits, with numpy arrays in and out (python/README.md)."""
# numpy only: the model file, the hard circuit, the JAX tree and the pictures
# work without libdlca_cl (for checking and teaching)
from . import modelfile, hard, jaxtree, plot

try:
    from ._lib import DlcaError, library_path, lib as _lib
except OSError as _e:  # no libdlca_cl: the names below say so when used
    _missing = str(_e)

    def __getattr__(name):
        raise ImportError(f"dlca_cl.{name} needs libdlca_cl: {_missing}")

    __version__ = "unknown"
    __all__ = ["modelfile", "hard", "jaxtree", "plot"]
else:
    from .device import devices, Context, default_context
    from .model import Model, presets, preset, GATE_NAMES
    from .trainer import Trainer
    from .loop import Loop, train, recipe, recipe_population
    from .population import Population
    from .evaluate import rollout, random_grid, evaluate
    from .parity import parity
    from . import tensor, ops, optim, net, gru, rsvd  # the compute layer: dlca_cl.tensor(ctx, a), ops, ...
    __version__ = _lib.dlca_version_string().decode()

    __all__ = ["DlcaError", "library_path", "__version__", "devices", "Context", "default_context", "Model", "presets",
               "preset", "GATE_NAMES", "Trainer", "Loop", "train", "recipe", "recipe_population", "Population",
               "rollout", "random_grid", "evaluate", "parity", "tensor", "ops", "optim", "net", "gru", "rsvd", "modelfile", "hard",
               "jaxtree", "plot"]
