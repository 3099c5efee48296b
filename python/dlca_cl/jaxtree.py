"""Between our model JSON and the parameter tree of the JAX reference (the
DiffLogic CA notebook of Google Research, 2025), both ways, in numpy alone.
The layout is doc/model-format.md, "The JAX reference's tree".

    tree = jaxtree.to_jax("model.json")
    tree["params"]    {"perceive": [[K, G, 16] float32 per layer], "update": [[G, 16] per layer]}
    tree["wires"]     {"perceive": [[wa, wb] per layer], "update": [[wa, wb] per layer]}, int32
    tree["hyperparams"]  {"channels", "periodic" (0/1), "perceive": {"n_kernels", "layers"},
                          "update": {"layers"}}, the notebook's names
    jaxtree.save_npz("model.npz", tree); jaxtree.from_tree(jaxtree.load_npz("model.npz"))

The notebook's forward functions take params and wires as they are here
(convert the leaves with jnp.asarray) and periodic as an argument. Its gate
order is ours (op i, doc/semantics.md section 1), its wire a is the first
input of the gate, and its perception output order c*S*K + s*K + k is ours,
so the conversion copies arrays and changes no number.
"""
import io

import numpy as np

from . import modelfile

__all__ = ["to_jax", "from_jax", "from_tree", "save_npz", "load_npz"]


def to_jax(model):
    """The JAX reference's tree of a model (a path, a parsed JSON object or a
    NumpyModel). Softmax-16 only: the reference has no input-wise gates."""
    m = modelfile.read(model)
    if m.parametrisation != "softmax16":
        raise ValueError(f"parametrisation {m.parametrisation}: the JAX reference has softmax-16 gates only")
    pair = lambda w: [np.array(w[0], np.int32), np.array(w[1], np.int32)]
    return {
        "params": {"perceive": [np.array(lg, np.float32) for lg in m.perceive_logits],
                   "update": [np.array(lg, np.float32) for lg in m.update_logits]},
        "wires": {"perceive": [pair(w) for w in m.perceive_wires],
                  "update": [pair(w) for w in m.update_wires]},
        "hyperparams": {"channels": m.channels, "periodic": int(m.periodic),
                        "perceive": {"n_kernels": m.n_kernels, "layers": m.perceive_layers},
                        "update": {"layers": m.update_layers}},
    }


def _lists(params, wires, part):
    ps, ws = list(params[part]), list(wires[part])
    if len(ps) != len(ws) or not ps:
        raise ValueError(f"{part}: {len(ps)} layers of params but {len(ws)} of wires")
    return [np.asarray(p) for p in ps], [[np.asarray(w[0]).tolist(), np.asarray(w[1]).tolist()] for w in ws]


def from_jax(params, wires, periodic):
    """Our model (a NumpyModel, to write with modelfile.write) from the
    reference's params and wires (numpy or JAX arrays) and its periodic flag.
    The shape is read off the arrays and checked as a model file is."""
    pp, pw = _lists(params, wires, "perceive")
    up, uw = _lists(params, wires, "update")
    if any(p.ndim != 3 for p in pp) or any(p.ndim != 2 for p in up):
        raise ValueError("params: perceive layers must be [K, G, 16] and update layers [G, 16]")
    c, k, s = up[-1].shape[0], pp[0].shape[0], pp[-1].shape[1]
    obj = {"format": "dlca-model", "version": 1, "channels": int(c), "periodic": bool(int(periodic)),
           "perceive": {"n_kernels": int(k), "layers": [modelfile.PATCH] + [int(p.shape[1]) for p in pp],
                        "wires": pw, "logits": [p.astype(np.float32) for p in pp]},
           "update": {"layers": [int(c + c * s * k)] + [int(p.shape[0]) for p in up],
                      "wires": uw, "logits": [p.astype(np.float32) for p in up]}}
    return modelfile.from_json(obj, "JAX tree")  # float64 logits are rounded to float32, as the library holds them


def from_tree(tree):
    """from_jax of a tree made by to_jax or load_npz, checked against its hyperparams."""
    hp = tree["hyperparams"]
    m = from_jax(tree["params"], tree["wires"], hp["periodic"])
    got = {"channels": m.channels, "n_kernels": m.n_kernels, "perceive layers": m.perceive_layers,
           "update layers": m.update_layers}
    want = {"channels": hp["channels"], "n_kernels": hp["perceive"]["n_kernels"],
            "perceive layers": list(hp["perceive"]["layers"]), "update layers": list(hp["update"]["layers"])}
    for key in got:
        if got[key] != want[key]:
            raise ValueError(f"hyperparams: {key} {want[key]}, but the arrays give {got[key]}")
    return m


def _flatten(node, prefix, out):
    if isinstance(node, dict):
        for k, v in node.items():
            _flatten(v, f"{prefix}{k}/", out)
    elif isinstance(node, (list, tuple)) and not (node and isinstance(node[0], (int, np.integer))):
        for i, v in enumerate(node):
            _flatten(v, f"{prefix}{i}/", out)
    else:
        out[prefix[:-1]] = np.asarray(node)


def save_npz(path, tree):
    """The tree as .npz, one array per leaf, keyed by its path:
    "params/perceive/0", "wires/update/3/1", "hyperparams/periodic"."""
    flat = {}
    _flatten(tree, "", flat)
    buf = io.BytesIO()
    np.savez(buf, **flat)
    modelfile.write_atomic(path, buf.getvalue())


def _unflatten(flat):
    root = {}
    for key in sorted(flat, key=lambda k: [int(p) if p.isdigit() else p for p in k.split("/")]):
        parts, node = key.split("/"), root
        for p, nxt in zip(parts[:-1], parts[1:]):
            child = [] if nxt.isdigit() else {}
            if isinstance(node, list):
                if int(p) == len(node):
                    node.append(child)
                node = node[int(p)]
            else:
                node = node.setdefault(p, child)
        leaf = flat[key]
        leaf = leaf.item() if leaf.ndim == 0 else leaf
        if isinstance(node, list):
            node.append(leaf)
        else:
            node[parts[-1]] = leaf
    return root


def load_npz(path):
    """A tree saved by save_npz: lists and dicts as to_jax makes them."""
    with np.load(path, allow_pickle=False) as z:
        tree = _unflatten({k: z[k] for k in z.files})
    hp = tree["hyperparams"]
    for part in ("perceive", "update"):
        hp[part]["layers"] = [int(x) for x in hp[part]["layers"]]
    return tree
