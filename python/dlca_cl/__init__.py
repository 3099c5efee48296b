"""libdlca_cl from Python: DiffLogic CA training, the compute layer and the
circuits, with numpy arrays in and out (python/README.md)."""
from ._lib import DlcaError, library_path, lib as _lib
from .device import devices, Context, default_context
from .model import Model, presets, preset, GATE_NAMES
from .trainer import Trainer
from .loop import Loop, train, recipe
from .population import Population
from .evaluate import rollout, random_grid, evaluate
from .parity import parity
from . import tensor, ops, optim, net, gru, rsvd  # the compute layer: dlca_cl.tensor(ctx, a), ops, ...

__version__ = _lib.dlca_version_string().decode()

__all__ = ["DlcaError", "library_path", "__version__", "devices", "Context", "default_context", "Model", "presets",
           "preset", "GATE_NAMES", "Trainer", "Loop", "train", "recipe", "Population", "rollout", "random_grid",
           "evaluate", "parity", "tensor", "ops", "optim", "net", "gru", "rsvd"]
