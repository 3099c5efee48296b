"""Training from Python on PoCL: the checkerboard with the recommended
recipe reaches hard loss 0 (seed 1: about 440 epochs, 20 s on a 2-core VM),
the callback sees each evaluation and can stop a run, a population steps."""
import numpy as np
import pytest

import dlca_cl


def test_checkerboard_recipe_reaches_zero():
    seen, events = [], []
    model, res = dlca_cl.train("checkerboard", seed=1, callback=seen.append, events=events.append, eval_fresh=10)
    assert res["hard"]["hard_loss"] == 0 and res["hard"]["errors"] == 0
    assert res["fresh"]["errors"] == 0 and res["fresh_ok"]
    assert seen and seen == res["log"] and seen[-1]["hard"] == 0
    assert [i["epoch"] for i in seen] == sorted(i["epoch"] for i in seen)
    assert all(np.isfinite(i["soft"]) for i in seen)
    cool = [e for e in events if e["kind"] == "cooldown"]  # the recipe cools down at hard loss 0
    assert cool and cool[0]["why"] and cool[0]["new_lr"] < cool[0]["old_lr"] and res["cooldowns"] == len(cool)
    # the trained circuit, checked again through a fresh trainer on the reference
    assert dlca_cl.evaluate(model, "checkerboard", seed=7, batches=4)["errors"] == 0
    model.close()


def test_event_exception_surfaces():
    def boom(ev):
        raise KeyError("from the event callback")
    with dlca_cl.Loop("checkerboard", seed=1, recipe="paper", epochs=2, repair=1, events=boom) as run:
        run.epoch(), run.epoch()
        run.finish()
        with pytest.raises(KeyError, match="from the event"):
            run.polish()


def test_callback_stops():
    calls = []

    def cb(info):
        calls.append(info["epoch"])
        return False
    model, res = dlca_cl.train("checkerboard", seed=1, callback=cb, epochs=100)
    assert calls == [10] and res["epoch"] == 10 and res["fresh_ok"] is None
    assert isinstance(model, dlca_cl.Model)


def test_loop_by_hand():
    with dlca_cl.Loop("checkerboard", seed=1, recipe="paper", epochs=20, eval_every=5) as run:
        evaluated = []
        while not run.result["done"]:
            r = run.epoch()
            if r["evaluated"]:
                evaluated.append(r["epoch"])
        assert evaluated[-1] == 20 and run.trainer.epoch == 20
        assert run.trainer.lr == np.float32(dlca_cl.preset("checkerboard")["lr"])


def test_recipe_population():
    assert dlca_cl.recipe_population("checkerboard") == 8 and dlca_cl.recipe_population("colour") == 16
    assert dlca_cl.recipe_population("checkerboard", "iwp") == 0
    with pytest.raises(ValueError, match="no recommended population"):
        dlca_cl.Population("checkerboard", parametrisation="iwp")
    with dlca_cl.Population("gol", seed=1, replace=False, epochs=1) as pop:
        assert len(pop) == 8


def test_population_steps():
    with dlca_cl.Population("checkerboard", 2, seed=1, recipe="paper", replace=False, epochs=4, eval_every=2) as pop:
        assert len(pop) == 2 and pop.seeds() == [1, 2]
        assert np.isnan(pop.losses()).all()
        pop.step()
        loss = pop.losses()
        assert loss.dtype == np.float64 and loss.shape == (2,) and np.isfinite(loss).all()
        stats = pop.run()
        assert stats["epochs"] == 8 and not pop.running and stats["models"] == 2
        assert set(pop.states()) <= {"right", "wrong"}
        assert len(pop.eval_hard()) == 2
        m = pop.take(1)
        assert m.n_gates == dlca_cl.Model.from_preset("checkerboard", 2).n_gates
        assert pop.result(0)["epoch"] == 4
