"""Pictures of DiffLogic CA runs: loss curves from a run's log, a rollout as
PNG frames or an animated GIF, and the gate histogram as a bar chart.

matplotlib (curves, histogram) and Pillow (PNG, GIF) are optional: each is
imported when a function needs it, and its absence is an ImportError that
says what to install. Beside numpy this module needs nothing, not even the
library, so scripts/plot_curves.py can load it on its own. Every file
is written atomically (a temp file beside it, then a rename).
"""
import csv
import math
import os
import re
import tempfile
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["OP_NAMES", "read_log", "loss_curves", "compare_runs", "rollout_frames", "rollout_png", "rollout_gif",
           "gate_histogram"]

# The 16 ops as dlca-train and dlca-eval print them (tools/gates.c's
# gate_op_names; spec/dlca.md section 1 gives their order).
OP_NAMES = ("FALSE", "AND", "A AND NOT B", "A", "NOT A AND B", "B", "XOR", "OR", "NOR", "XNOR", "NOT B",
            "A OR NOT B", "NOT A", "NOT A OR B", "NAND", "TRUE")
_PASS_THROUGH = (3, 5)  # A and B: wires, not logic

# A log's columns (dlca-train --log; a population's adds the last two) and
# the keys of dlca_cl.Loop's callback records that mean the same.
_ALIASES = {"soft_loss": ("soft_loss", "soft"), "hard_loss": ("hard_loss", "hard")}


def _need(module, what):
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        pkg = {"matplotlib.figure": "matplotlib", "PIL.Image": "Pillow"}.get(module, module)
        raise ImportError(f"dlca_cl.plot: {what} needs {pkg} (pip install {pkg}, or Debian's python3-"
                          f"{'pil' if pkg == 'Pillow' else pkg}); the rest of dlca_cl works without it") from None


def _atomic(path, write):
    """write(tmp_path) then rename over path, so that path is whole or absent."""
    path = os.fspath(path)
    d, base = os.path.split(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.tmp.", suffix=os.path.splitext(base)[1], dir=d)
    os.close(fd)
    try:
        write(tmp)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, os.stat(path).st_mode & 0o7777 if os.path.exists(path) else 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


# ---- loss curves ----

def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _column(records, key):
    names = _ALIASES.get(key, (key,))
    for n in names:
        if records and n in records[0]:
            return np.array([_num(r.get(n)) for r in records])
    return None


def _by_seed(records):
    """{"seed N": records} when the records carry a seed (a log of several
    runs; dlca_cl.train's log after restarts), else None."""
    if not records or "seed" not in records[0]:
        return None
    runs = {}
    for r in records:
        runs.setdefault(r["seed"], []).append(r)
    return {(f"seed {k}" if str(k).isdigit() else k): v for k, v in runs.items()}


def read_log(path):
    """{label: records} of a dlca-train --log CSV: one run, labelled by the
    file name ("...-sN.csv": "seed N"), or one per value of a leading
    `seed` column. Records are dicts of the CSV's columns, as strings."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    seeds = _by_seed(rows)
    if seeds:
        return seeds
    m = re.search(r"-s(\d+)\.csv$", os.path.basename(path))
    return {(f"seed {m.group(1)}" if m else os.path.basename(path)): rows}


def _runs(log):
    """{label: records} of a log path, a list of records (dlca_cl.Loop's
    callback infos), or a mapping of labels to either, or a list of paths."""
    if isinstance(log, (str, os.PathLike)):
        return read_log(log)
    if isinstance(log, Mapping):
        out = {}
        for label, v in log.items():
            runs = _runs(v)
            out.update({label if len(runs) == 1 else f"{label} {k}": r for k, r in runs.items()})
        return out
    if isinstance(log, Sequence) and log and all(isinstance(p, (str, os.PathLike)) for p in log):
        out = {}
        for p in log:
            out.update(read_log(p))
        return out
    if isinstance(log, Sequence) and all(isinstance(r, Mapping) for r in log):
        seeds = _by_seed(list(log))
        return seeds if seeds and len(seeds) > 1 else {"run": list(log)}
    raise TypeError("log: a --log CSV path, a list of record dicts, or a mapping of labels to those, not "
                    f"{type(log).__name__}")


def _draw_run(ax_soft, ax_hard, label, records, colour, twin=False):
    ep = _column(records, "epoch")
    if ep is None:
        raise ValueError(f"{label}: no epoch column (a dlca-train --log has epoch,soft_loss,hard_loss,...)")
    soft, hard = _column(records, "soft_loss"), _column(records, "hard_loss")
    if soft is not None:
        ax_soft.plot(ep, np.where(soft > 0, soft, np.nan), color=colour, lw=1.3,
                     label=f"{label} (soft)" if twin else label)
    best, median = _column(records, "pop_best_hard"), _column(records, "pop_median_hard")
    if hard is not None:  # a population's log is its winner's curve
        name = f"{label}: winner" if median is not None else label
        ax_hard.plot(ep, hard, color=colour, lw=1.3, ls="--" if twin else "-",
                     label=f"{name} (hard)" if twin else name)
    if median is not None:
        ax_hard.plot(ep, median, color=colour, lw=1.1, ls=":", label=f"{label}: population median")
    if best is not None:
        ax_hard.plot(ep, best, color=colour, lw=1.1, ls="-.", label=f"{label}: population best")


def _label_axes(ax_soft, ax_hard, prefix="", twin=False):
    ax_soft.set_yscale("log")
    ax_soft.set_xlabel("epoch")
    ax_soft.set_ylabel("soft loss (sum of squared errors, log scale)")
    ax_hard.set_ylabel("hard loss (values wrong)")
    ax_hard.set_ylim(bottom=0)
    ax_soft.grid(alpha=0.3)
    lo, hi = ax_soft.get_ylim()
    if lo > 0 and hi / lo < 100:  # under two decades: label 2, 3 and 5 too; under one, every minor tick
        digits = "23456789" if hi / lo < 10 else "235"
        ticker = _need("matplotlib.ticker", "plotting")
        ax_soft.yaxis.set_minor_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}" if f"{v:.1e}"[0] in digits
                                                               else ""))
    if twin:
        return  # one panel
    ax_soft.set_title(f"{prefix}soft loss")
    ax_hard.set_title(f"{prefix}hard loss (hard circuit)")
    ax_hard.set_xlabel("epoch")
    ax_hard.grid(alpha=0.3)


def _legend(ax_soft, ax_hard, n_runs):
    """Legends on two panels; one run without population lines needs none
    (the title names it)."""
    if n_runs > 1:
        ax_soft.legend(fontsize=8)
    if n_runs > 1 or len(ax_hard.lines) > n_runs:
        ax_hard.legend(fontsize=8)


def _new_figure(w, h):
    Figure = _need("matplotlib.figure", "plotting").Figure
    return Figure(figsize=(w, h), dpi=100, layout="constrained")


def loss_curves(log, path=None, ax=None, title=None):
    """Soft (log scale) and hard loss against epoch. log: a dlca-train --log
    CSV path (a population's best and median hard losses are drawn too), a
    list of record dicts (dlca_cl.Loop's callback infos: epoch, soft, hard),
    a list of paths, or a mapping {label: one of those}. ax: None for a new
    figure of two panels; one Axes (soft on it, hard on a twin axis); or two
    Axes (soft, hard; a list or an array). With path, the figure is saved as PNG. Returns the
    matplotlib Figure."""
    runs = _runs(log)
    twin = ax is not None and not isinstance(ax, (Sequence, np.ndarray))
    if ax is None:
        fig = _new_figure(11, 4.2)
        ax_soft, ax_hard = fig.subplots(1, 2)
    elif twin:
        ax_soft, fig = ax, ax.figure
        ax_hard = ax.twinx()
    else:
        ax_soft, ax_hard = np.ravel(ax)
        fig = ax_soft.figure
    for i, (label, records) in enumerate(runs.items()):
        _draw_run(ax_soft, ax_hard, label, records, f"C{i % 10}", twin)
    _label_axes(ax_soft, ax_hard, twin=twin)
    if twin:
        ax_soft.set_title(title or "soft loss (solid, left) and hard loss (dashed, right)")
        (h1, l1), (h2, l2) = ax_soft.get_legend_handles_labels(), ax_hard.get_legend_handles_labels()
        ax_soft.legend(h1 + h2, l1 + l2, fontsize=8, loc="upper right")
    else:
        _legend(ax_soft, ax_hard, len(runs))
        if title is None and isinstance(log, (str, os.PathLike)):
            title = os.path.basename(os.fspath(log))
        if title:
            fig.suptitle(title)
    if path is not None:
        _atomic(path, lambda tmp: fig.savefig(tmp, format="png", dpi=100))
    return fig


def compare_runs(groups, path=None, title=None):
    """One row of two panels (soft loss, hard loss) per group, to compare
    recipes: groups is a mapping (or pairs) of label -> log, each log as
    loss_curves takes it. Saves a PNG with path; returns the Figure."""
    items = list(groups.items() if isinstance(groups, Mapping) else groups)
    if not items:
        raise ValueError("compare_runs: no group given")
    fig = _new_figure(12, 3.6 * len(items))
    axes = fig.subplots(len(items), 2, squeeze=False)
    for (label, log), (ax_soft, ax_hard) in zip(items, axes):
        runs = _runs(log)
        for i, (name, records) in enumerate(runs.items()):
            _draw_run(ax_soft, ax_hard, name, records, f"C{i % 10}")
        _label_axes(ax_soft, ax_hard, prefix=f"{label}: ")
        _legend(ax_soft, ax_hard, len(runs))
    if title:
        fig.suptitle(title)
    if path is not None:
        _atomic(path, lambda tmp: fig.savefig(tmp, format="png", dpi=100))
    return fig


# ---- rollouts ----

def _channels(channels, C):
    if isinstance(channels, str):
        if channels != "rgb":
            raise ValueError(f"channels: an index, three indices, or 'rgb', not {channels!r}")
        channels = (0, 1, 2)
    chs = (channels,) if np.isscalar(channels) else tuple(channels)
    if len(chs) not in (1, 3) or any(not 0 <= int(c) < C for c in chs):
        raise ValueError(f"channels: {channels!r} for frames of {C} channel(s); one index (grey) or three (RGB)")
    return [int(c) for c in chs]


_RED = (230, 30, 30)  # dlca-eval's colour of a wrong cell (tools/strip.c)


def _mark_wrong(px, last, target, chs):
    """px [steps, H, W, k] uint8 -> RGB, the last frame's cells unlike
    target (any shown channel 0.5 or more away) in red."""
    t = np.asarray(target, dtype=np.float32)
    t = t[..., None] if t.ndim == 2 else t
    if t.shape[:2] != last.shape[:2] or t.ndim != 3 or t.shape[2] <= max(chs):
        raise ValueError(f"target: shape {np.shape(target)}, expected [H, W] or [H, W, C] of the frames' "
                         f"{last.shape[0]}x{last.shape[1]} grid")
    wrong = np.any(np.abs(last[..., chs] - t[..., chs]) >= 0.5, axis=-1)
    if px.shape[3] == 1:
        px = px.repeat(3, axis=3)
    px[-1][wrong] = _RED
    return px


def rollout_frames(frames, scale=8, channels=0, pil=False, target=None):
    """Frames of a rollout, [steps, H, W, C] (or [steps, H, W]) with values
    in [0, 1], as pictures: channel `channels` in grey (0 black, 1 white),
    or three channels as RGB (channels=(0, 1, 2) or "rgb", the colour
    preset). Each cell becomes a scale x scale square, no interpolation, so
    binary grids stay crisp. target ([H, W] or [H, W, C]), if given, marks
    the last frame's cells unlike it in red, as dlca-eval --png does. Returns
    uint8 arrays, [H*scale, W*scale] (grey) or [H*scale, W*scale, 3] (RGB,
    or grey with a target); with pil=True, PIL images."""
    a = np.asarray(frames, dtype=np.float32)
    if a.ndim == 3:
        a = a[..., None]
    if a.ndim != 4 or min(a.shape[:3]) < 1:
        raise ValueError(f"frames: shape {np.shape(frames)}, expected [steps, H, W, C] (for a batch, take one "
                         "sample: frames[:, b])")
    if isinstance(scale, bool) or int(scale) != scale or not 1 <= scale <= 256:
        raise ValueError(f"scale: {scale!r}, expected an int in [1, 256] (pixels per cell side)")
    chs = _channels(channels, a.shape[3])
    px = np.rint(np.clip(np.nan_to_num(a[..., chs]), 0, 1) * 255).astype(np.uint8)
    if target is not None:
        px = _mark_wrong(px, a[-1], target, chs)
    px = px.repeat(int(scale), axis=1).repeat(int(scale), axis=2)
    out = [f[..., 0] if px.shape[3] == 1 else f for f in px]
    if pil:
        Image = _need("PIL.Image", "rollout pictures")
        out = [Image.fromarray(f, "L" if f.ndim == 2 else "RGB") for f in out]
    return out


def rollout_png(frames, dir_or_pattern, scale=8, channels=0, target=None):
    """One PNG per frame. dir_or_pattern: a directory (frame_0000.png, ...
    in it, created if missing) or a pattern with one {} or %d field
    ("out/step_{:03d}.png"). target: as rollout_frames. Returns the paths
    written."""
    images = rollout_frames(frames, scale=scale, channels=channels, pil=True, target=target)
    pattern = os.fspath(dir_or_pattern)
    if "{" not in pattern and "%" not in pattern:
        os.makedirs(pattern, exist_ok=True)
        pattern = os.path.join(pattern, "frame_{:04d}.png")
    paths = []
    for i, im in enumerate(images):
        p = pattern % i if "%" in pattern else pattern.format(i)
        paths.append(_atomic(p, lambda tmp, im=im: im.save(tmp, format="PNG")))
    return paths


def _paletted(arrays):
    """The frames as "P" images sharing one palette: 256 greys, or the RGB
    frames' own colours (a hard rollout has a few), else a 6x6x6 cube. One
    palette keeps every frame's colours exact and avoids Pillow's per-frame
    quantising."""
    Image = _need("PIL.Image", "rollout pictures")
    a = np.stack(arrays)
    if a.ndim == 3:
        idx, pal = a, np.repeat(np.arange(256, dtype=np.uint8), 3)
    else:
        packed = (a[..., 0].astype(np.int64) << 16) | (a[..., 1].astype(np.int64) << 8) | a[..., 2]
        colours = np.unique(packed)
        if colours.size <= 256:
            idx = np.searchsorted(colours, packed).astype(np.uint8)
            pal = np.stack([colours >> 16, (colours >> 8) & 255, colours & 255], 1).astype(np.uint8).ravel()
        else:
            q = (a.astype(np.int64) + 25) // 51
            idx = (q[..., 0] * 36 + q[..., 1] * 6 + q[..., 2]).astype(np.uint8)
            levels = np.arange(216)
            pal = np.stack([levels // 36, levels // 6 % 6, levels % 6], 1).astype(np.uint8).ravel() * 51
    out = []
    for f in idx:
        im = Image.fromarray(np.ascontiguousarray(f), "P")
        im.putpalette(pal.tolist())
        out.append(im)
    return out


def rollout_gif(frames, path, ms_per_frame=100, loop=0, scale=8, channels=0, hold_last_ms=1000, target=None):
    """An animated GIF of the frames through Pillow: ms_per_frame between
    frames (GIF counts hundredths of a second), the last held hold_last_ms
    (or ms_per_frame if longer); loop=0 repeats forever, loop=N N more
    times, loop=None plays once.
    Pillow merges consecutive identical frames into one, adding up their
    time, so a rollout that has settled keeps its timing in fewer frames.
    target: as rollout_frames (the last frame's wrong cells in red). Returns
    path."""
    if not 20 <= ms_per_frame <= 60000:
        raise ValueError(f"ms_per_frame: {ms_per_frame!r}, expected 20 to 60000 (viewers slow shorter delays)")
    images = _paletted(rollout_frames(frames, scale=scale, channels=channels, target=target))
    durations = [int(ms_per_frame)] * len(images)
    durations[-1] = max(int(ms_per_frame), int(hold_last_ms or 0))
    opts = dict(save_all=True, append_images=images[1:], duration=durations, optimize=False)
    if loop is not None:
        opts["loop"] = int(loop)
    return _atomic(path, lambda tmp: images[0].save(tmp, format="GIF", **opts))


# ---- the gate histogram ----

def _counts(model_or_counts):
    """16 counts from a Model (its gate_histogram(): counts, or (counts,
    active) as dlca_cl.Model returns), a mapping of op names to counts, or
    16 numbers."""
    x = model_or_counts
    if hasattr(x, "gate_histogram"):
        x = x.gate_histogram()
        if isinstance(x, tuple) and len(x) == 2:
            x = x[0]
    if isinstance(x, Mapping):
        norm = {k.replace("_", " ").upper(): v for k, v in x.items()}
        unknown = set(norm) - set(OP_NAMES)
        if unknown:
            raise ValueError(f"gate_histogram: unknown op name(s) {sorted(unknown)}; the ops are {list(OP_NAMES)}")
        x = [norm.get(n, 0) for n in OP_NAMES]
    c = np.asarray(x)
    if c.shape != (16,) or not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError(f"gate_histogram: 16 counts >= 0 expected, got shape {c.shape}")
    return c.astype(np.int64)


def gate_histogram(model_or_counts, path=None, ax=None, title=None):
    """The hard circuit's 16 ops as a bar chart, one bar per op with its
    count; the pass-throughs A and B in grey (wires, not logic). A log scale
    when the counts span more than two decades. model_or_counts: a
    dlca_cl.Model (or anything with .gate_histogram()), a mapping of op
    names to counts, or 16 counts. Saves a PNG with path; returns the
    Figure."""
    c = _counts(model_or_counts)
    fig = ax.figure if ax is not None else _new_figure(8, 5.2)
    ax = ax if ax is not None else fig.subplots()
    y = np.arange(16)[::-1]
    colours = ["0.6" if i in _PASS_THROUGH else "C0" for i in range(16)]
    ax.barh(y, np.where(c > 0, c, 0), color=colours, height=0.7)
    ax.set_yticks(y, OP_NAMES)
    nz = c[c > 0]
    log = nz.size and nz.max() / nz.min() > 100
    if log:
        ax.set_xscale("log")
        ax.set_xlim(0.5, nz.max() * 6)
    else:
        ax.set_xlim(0, max(1, c.max()) * 1.15)
    for yi, v in zip(y, c):
        ax.text(max(v, 0.6) * (1.08 if log else 1) + (0 if log else c.max() * 0.01), yi, str(v), va="center",
                fontsize=8)
    ax.set_xlabel("gates (log scale)" if log else "gates")
    active = int(c.sum() - c[list(_PASS_THROUGH)].sum())
    ax.set_title(title or f"gate histogram: {int(c.sum())} gates, {active} active (grey: pass-through A, B)")
    ax.grid(axis="x", alpha=0.3)
    if path is not None:
        _atomic(path, lambda tmp: fig.savefig(tmp, format="png", dpi=100))
    return fig
