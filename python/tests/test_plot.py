"""dlca_cl.plot: loss curves from a real dlca-train --log on PoCL and from
synthetic logs and records, rollout frames, PNGs and GIFs from synthetic
[steps, H, W, C] arrays, and the gate histogram. Skips where matplotlib or
Pillow is missing."""
import os
import pathlib
import stat
import subprocess
import sys

import numpy as np
import pytest

from dlca_cl import plot

ROOT = pathlib.Path(__file__).resolve().parents[2]
POP_CSV = """epoch,soft_loss,hard_loss,hard_accuracy,epochs_per_s,pop_best_hard,pop_median_hard
10,120.5,256,0.5,30.1,250,256
20,60.25,100,0.8,31.0,90,180
30,10.5,12,0.98,30.7,4,60
40,2.0,0,1.0,30.9,0,20
"""


def _tool(name):
    top = pathlib.Path(os.environ.get("DLCA_TOP_BUILDDIR", ROOT / "build"))
    p = top / "tools" / name
    if not os.access(p, os.X_OK):
        pytest.skip(f"{p} not built")
    return p


def _no_temp_left(d):
    left = [p.name for p in pathlib.Path(d).iterdir() if ".tmp." in p.name]
    assert not left, f"temp files left: {left}"


def _png_size(path):
    Image = pytest.importorskip("PIL.Image")
    with Image.open(path) as im:
        assert im.format == "PNG"
        return im.size


# ---- loss curves ----

def test_loss_curves_from_a_dlca_train_log(tmp_path):
    pytest.importorskip("matplotlib")
    log = tmp_path / "cb.csv"
    subprocess.run([str(_tool("dlca-train")), "--preset", "checkerboard", "--epochs", "30", "--eval-every", "10",
                    "--log", str(log), "--quiet"], check=True, timeout=300)
    out = tmp_path / "curves.png"
    fig = plot.loss_curves(str(log), path=out)
    soft, hard = fig.axes
    assert soft.get_yscale() == "log" and hard.get_yscale() == "linear"
    assert len(soft.lines) == 1 and len(hard.lines) == 1
    np.testing.assert_array_equal(hard.lines[0].get_xdata(), [10, 20, 30])
    assert "epoch" in soft.get_xlabel() and "values wrong" in hard.get_ylabel()
    assert _png_size(out) == (1100, 420)
    _no_temp_left(tmp_path)


def test_population_log_draws_best_and_median(tmp_path):
    pytest.importorskip("matplotlib")
    log = tmp_path / "pop.csv"
    log.write_text(POP_CSV)
    fig = plot.loss_curves(log)
    hard = fig.axes[1]
    labels = [line.get_label() for line in hard.lines]
    assert labels == ["pop.csv: winner", "pop.csv: population median", "pop.csv: population best"]
    np.testing.assert_array_equal(hard.lines[2].get_ydata(), [250, 90, 4, 0])


def test_records_and_seed_column_and_twin_axis(tmp_path):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure
    records = [{"epoch": e, "soft": 100.0 / e, "hard": 50 - e} for e in (10, 20, 30, 40)]
    fig = Figure()
    ax = fig.subplots()
    plot.loss_curves(records, ax=ax)
    assert len(fig.axes) == 2  # hard on a twin axis
    np.testing.assert_allclose(fig.axes[1].lines[0].get_ydata(), [40, 30, 20, 10])
    seeds = tmp_path / "seeds.csv"
    seeds.write_text("seed,epoch,soft_loss,hard_loss,hard_accuracy,epochs_per_s\n"
                     "1,10,5,3,0.9,1\n1,20,4,1,0.99,1\n2,10,6,4,0.8,1\n2,20,3,0,1,1\n")
    fig = Figure()
    axes = fig.subplots(1, 2)  # an array of two Axes
    assert plot.loss_curves(records, ax=axes) is fig and axes[0].get_yscale() == "log" and len(axes[1].lines) == 1
    restarts = records + [dict(r, seed=1001) for r in records]
    for r in records:
        r["seed"] = 1
    assert len(plot.loss_curves(restarts).axes[0].lines) == 2  # dlca_cl.train's log after a restart
    fig = plot.loss_curves({"recipe A": str(seeds), "loop": records})
    assert [line.get_label() for line in fig.axes[0].lines] == ["recipe A seed 1", "recipe A seed 2", "loop"]
    with pytest.raises(TypeError, match="log"):
        plot.loss_curves(42)


def test_compare_runs_and_the_script_wrappers(tmp_path):
    pytest.importorskip("matplotlib")
    log = tmp_path / "run-s3.csv"
    log.write_text(POP_CSV)
    fig = plot.compare_runs({"A": [str(log)], "B": str(log)}, title="t")
    assert len(fig.axes) == 4 and fig.axes[0].get_title() == "A: soft loss"
    env = dict(os.environ)
    for args in (["plot_curves.py", str(tmp_path / "c.png"), str(log)],
                 ["plot_runs.py", str(tmp_path / "r.png"), "--title", "x", f"A={log}"]):
        subprocess.run([sys.executable, str(ROOT / "scripts" / args[0])] + args[1:], check=True, env=env,
                       timeout=120)
    assert _png_size(tmp_path / "c.png")[0] > 0 and _png_size(tmp_path / "r.png")[0] > 0


def test_missing_matplotlib_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        plot.gate_histogram(list(range(16)))


# ---- rollouts ----

def _rollout(steps=6, H=5, W=7, C=4, seed=3):
    """Binary frames, each unlike the one before (Pillow merges equal ones)."""
    rng = np.random.default_rng(seed)
    x = (rng.random((steps, H, W, C)) < 0.5).astype(np.float32)
    x[:, 0, 0, :] = (np.arange(steps) % 2)[:, None]
    return x


def test_rollout_frames_are_crisp_and_scaled():
    x = _rollout()
    grey = plot.rollout_frames(x, scale=3)
    assert len(grey) == 6 and grey[0].shape == (15, 21) and grey[0].dtype == np.uint8
    assert set(np.unique(np.stack(grey))) <= {0, 255}
    np.testing.assert_array_equal(grey[2][::3, ::3], x[2, :, :, 0] * 255)
    rgb = plot.rollout_frames(x, scale=2, channels="rgb")
    assert rgb[0].shape == (10, 14, 3)
    np.testing.assert_array_equal(rgb[4][1::2, ::2], x[4, :, :, :3] * 255)
    assert plot.rollout_frames(x[..., 0], scale=1)[0].shape == (5, 7)  # [steps, H, W]
    for bad in (dict(frames=x[0, 0]), dict(frames=x, scale=0), dict(frames=x, channels=9), dict(frames=x, channels="x")):
        with pytest.raises(ValueError):
            plot.rollout_frames(**bad)


def test_target_marks_the_last_frame_red(tmp_path):
    x = _rollout(steps=3, C=2)
    target = x[-1].copy()
    target[1, 2, 0] = 1 - target[1, 2, 0]  # one cell wrong on channel 0
    target[3, 4, 1] = 1 - target[3, 4, 1]  # channel 1 is not shown: not marked
    f = plot.rollout_frames(x, scale=2, target=target)
    assert f[0].shape == (10, 14, 3) and np.all(f[0][..., 0] == f[0][..., 1])  # grey frames in RGB
    red = np.all(f[-1][::2, ::2] == (230, 30, 30), axis=-1)
    assert np.argwhere(red).tolist() == [[1, 2]]
    with pytest.raises(ValueError, match="target"):
        plot.rollout_frames(x, target=target[:2])
    pytest.importorskip("PIL.Image")
    from PIL import Image
    plot.rollout_gif(x, tmp_path / "t.gif", target=target[..., 0], scale=2)
    with Image.open(tmp_path / "t.gif") as im:
        im.seek(im.n_frames - 1)
        assert tuple(np.asarray(im.convert("RGB"))[2, 4]) == (230, 30, 30)


def test_rollout_gif_frames_size_and_timing(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    x = _rollout(steps=9)
    out = tmp_path / "r.gif"
    out.write_bytes(b"old")
    os.chmod(out, 0o640)
    assert plot.rollout_gif(x, out, ms_per_frame=50, scale=4) == str(out)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640
    with Image.open(out) as im:
        assert im.format == "GIF" and im.n_frames == 9 and im.size == (28, 20)
        assert im.info["loop"] == 0
        durations = []
        for i in range(im.n_frames):
            im.seek(i)
            durations.append(im.info["duration"])
        im.seek(3)
        np.testing.assert_array_equal(np.asarray(im.convert("L"))[::4, ::4], x[3, :, :, 0] * 255)
    assert durations == [50] * 8 + [1000]
    _no_temp_left(tmp_path)


def test_rollout_gif_rgb_keeps_colours(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    x = _rollout(steps=5, C=3)
    out = tmp_path / "c.gif"
    plot.rollout_gif(x, out, channels=(0, 1, 2), scale=2, loop=None)
    with Image.open(out) as im:
        assert im.n_frames == 5 and "loop" not in im.info
        im.seek(4)
        np.testing.assert_array_equal(np.asarray(im.convert("RGB"))[::2, ::2], x[4] * 255)
    with pytest.raises(ValueError, match="ms_per_frame"):
        plot.rollout_gif(x, out, ms_per_frame=5)


def test_rollout_png_directory_and_pattern(tmp_path):
    pytest.importorskip("PIL.Image")
    x = _rollout(steps=4)
    paths = plot.rollout_png(x, tmp_path / "frames", scale=2)
    assert [os.path.basename(p) for p in paths] == [f"frame_{i:04d}.png" for i in range(4)]
    assert _png_size(paths[0]) == (14, 10)
    paths = plot.rollout_png(x, str(tmp_path / "s_{:02d}.png"))
    assert os.path.basename(paths[-1]) == "s_03.png" and _png_size(paths[-1]) == (56, 40)


def test_a_real_rollout_through_the_binding(tmp_path):
    """dlca_cl.rollout ([steps, H, W, C], the package core) straight into the pictures."""
    pytest.importorskip("matplotlib")
    pytest.importorskip("PIL.Image")
    import dlca_cl
    if not hasattr(dlca_cl, "rollout") or not hasattr(dlca_cl, "Model"):
        pytest.skip("this dlca_cl has no Model/rollout yet")
    model = dlca_cl.Model.from_preset("checkerboard", seed=1)
    rng = np.random.default_rng(5)
    x = (rng.random((16, 16, model.shape["channels"])) < 0.5).astype(np.float32)
    frames = dlca_cl.rollout(model, x, 5, include_start=True)
    assert frames.shape == (6, 16, 16, model.shape["channels"])
    assert plot.rollout_frames(frames)[0].shape == (128, 128)
    plot.rollout_gif(frames, tmp_path / "r.gif")
    assert plot.gate_histogram(model).axes[0].patches[0].get_width() >= 0


# ---- the gate histogram ----

COUNTS = [3, 13, 2, 2981, 2, 21, 5, 7, 0, 0, 2, 2, 0, 0, 1, 1]


class _Model:
    def gate_histogram(self):
        return np.array(COUNTS, np.int64), 38


def test_gate_histogram_from_counts_names_and_models(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "h.png"
    fig = plot.gate_histogram(COUNTS, path=out)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == list(plot.OP_NAMES)
    widths = [p.get_width() for p in ax.patches]
    assert widths == COUNTS[::-1] or widths == COUNTS  # bars listed top to bottom or bottom to top
    assert ax.get_xscale() == "log" and "38 active" in ax.get_title()
    assert _png_size(out) == (800, 520)
    named = dict(zip(plot.OP_NAMES, COUNTS))
    named["A_AND_NOT_B"] = named.pop("A AND NOT B")  # dlca_cl.GATE_NAMES spelling
    for src in (named, _Model(), np.array(COUNTS)):
        assert [p.get_width() for p in plot.gate_histogram(src).axes[0].patches] == widths
    assert plot.gate_histogram([1] * 16).axes[0].get_xscale() == "linear"
    for bad in ([1] * 15, {"NOPE": 1}, [-1] + [0] * 15):
        with pytest.raises(ValueError):
            plot.gate_histogram(bad)
