"""The hard circuit of a saved model, in numpy alone: for checking the
library (or the JAX reference) and for teaching. No libdlca_cl needed.

    from dlca_cl import hard
    states = hard.rollout("model.json", grid, steps=20)   # [21, B, H, W, C] bits

Every gate takes its hard op (doc/semantics.md section 1): the argmax of its
16 logits, ties to the lowest index, or under "iwp" the truth table of the
signs of its 4 logits. Op i is its own truth table: its output on bits (a, b)
is bit 3 - (2a + b) of i, so AND (1) is 0b0001 and OR (7) is 0b0111. One
step (section 3) reads each cell's 3x3 patch (wrapped, or zero off the grid),
runs the K perception kernels on every channel, then the update network on
the cell's channels followed by the perception outputs. Everything is
vectorised over the batch and the cells: a layer is one fancy-indexing gather
of its two inputs and one table lookup.
"""
import numpy as np

from . import modelfile

__all__ = ["Circuit", "hard_ops", "gate", "patches", "perceive", "step", "rollout"]


def hard_ops(logits, parametrisation="softmax16"):
    """The op (0..15) of every gate, from logits [..., 16] (or [..., 4] under iwp)."""
    logits = np.asarray(logits, dtype=np.float32)
    if parametrisation == "iwp":
        w = (logits > 0).astype(np.uint8)  # w00, w01, w10, w11: a logit of 0 counts as 0
        return 8 * w[..., 0] + 4 * w[..., 1] + 2 * w[..., 2] + w[..., 3]
    return np.argmax(logits, axis=-1).astype(np.uint8)  # argmax: the first of equal maxima


def gate(ops, a, b):
    """Op i on bits a, b: bit 3 - (2a + b) of i. All three broadcast."""
    return (ops >> (3 - (2 * a + b))) & 1


class Circuit:
    """A model's hard circuit: its wires and every gate's op, as numpy arrays.
    perceive_ops[l] is [K, G], update_ops[l] is [G]."""

    def __init__(self, model):
        m = modelfile.read(model)
        self.channels, self.periodic = m.channels, m.periodic
        self.perceive_wires, self.update_wires = m.perceive_wires, m.update_wires
        self.perceive_ops = [hard_ops(lg, m.parametrisation) for lg in m.perceive_logits]
        self.update_ops = [hard_ops(lg, m.parametrisation) for lg in m.update_logits]


def patches(grid, periodic):
    """[B, H, W, C] -> [B, H, W, C, 9]: element f = 3 dr + dq of a cell's patch
    is the cell (r + dr - 1, q + dq - 1), wrapped or 0 off the grid."""
    _, h, w, _ = grid.shape
    pad = np.pad(grid, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="wrap" if periodic else "constant")
    return np.stack([pad[:, dr:dr + h, dq:dq + w, :] for dr in range(3) for dq in range(3)], axis=-1)


def perceive(circuit, patch):
    """[..., C, 9] patches -> [..., C*S*K]: output s of kernel k on channel c
    at c*S*K + s*K + k. Kernels share the wires, each has its own ops."""
    x = patch[..., None, :]                        # [..., C, 1, 9]: one input for all K kernels
    for ops, (wa, wb) in zip(circuit.perceive_ops, circuit.perceive_wires):
        x = gate(ops, x[..., wa], x[..., wb])      # [..., C, K, G]: ops [K, G] broadcast
    x = np.swapaxes(x, -1, -2)                     # [..., C, S, K]
    return x.reshape(x.shape[:-3] + (-1,))


def step(circuit, grid, fire=None):
    """One step of a [B, H, W, C] uint8 grid. fire ([B, H, W], optional): an
    asynchronous step, where a cell whose fire bit is 0 keeps its state."""
    x = np.concatenate([grid, perceive(circuit, patches(grid, circuit.periodic))], axis=-1)
    for ops, (wa, wb) in zip(circuit.update_ops, circuit.update_wires):
        x = gate(ops, x[..., wa], x[..., wb])
    if fire is not None:
        x = np.where(np.asarray(fire, dtype=bool)[..., None], x, grid)
    return x.astype(np.uint8)


def _bits(grid, channels):
    g = np.asarray(grid)
    if g.ndim != 4 or g.shape[-1] != channels:
        raise ValueError(f"grid: shape {g.shape}, expected [B, H, W, {channels}]")
    if not np.all((g == 0) | (g == 1)):
        raise ValueError("grid: the hard circuit takes bits; found a value other than 0 and 1")
    return g.astype(np.uint8)


def rollout(model, grid, steps, fire_masks=None):
    """The hard rollout of a model (a path, a parsed JSON object, a NumpyModel
    or a Circuit) from grid [B, H, W, C] of 0s and 1s: [steps + 1, B, H, W, C]
    uint8, the start first. fire_masks [steps, B, H, W] makes step t
    asynchronous with mask t; without it every step is synchronous."""
    c = model if isinstance(model, Circuit) else Circuit(model)
    x = _bits(grid, c.channels)
    if fire_masks is not None and np.shape(fire_masks) != (steps,) + x.shape[:3]:
        raise ValueError(f"fire_masks: shape {np.shape(fire_masks)}, expected {(steps,) + x.shape[:3]}")
    out = [x]
    for t in range(steps):
        x = step(c, x, None if fire_masks is None else fire_masks[t])
        out.append(x)
    return np.stack(out)
