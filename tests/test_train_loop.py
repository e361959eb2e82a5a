"""Trainer: CPU determinism, exact resume after an interruption, schedule, time bound."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlparse.config import load_recipe
from mlparse.results import COMPLETE, FAILED
from mlparse.train import checkpoint
from mlparse.train.runner import RunOptions, run_recipe
from mlparse.run_dir import RunDir
from mlparse.train.schedule import WarmupPlateauSchedule
from mlparse.train.trainer import Reporter
from helpers.run_fixtures import TINY_TREES, Record, write_tiny_recipe
from helpers.train_fixtures import Interrupt, StopAfter, log_without_times, same_weights, weights

#: Dropout and UNK replacement on, so that results depend on the random streams; on the CPU,
#: where training is deterministic for a seed (also on a machine with a GPU).
NOISY_MODEL = {"residual_dropout": 0.1, "word_emb_dropout": 0.2, "char_input_dropout": 0.1}
NOISY_TRAIN = {"unk_word_dropout": True, "batch_size": 3, "evals_per_epoch": 2, "max_epochs": 4, "device": "cpu"}


def test_cpu_training_is_deterministic_for_a_seed(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, model=NOISY_MODEL, train=NOISY_TRAIN)
    config = load_recipe(recipe)
    run_recipe(config, RunOptions(runs_dir=tmp_path / "a"))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "b"))
    a, b = RunDir.for_recipe(tmp_path / "a", config), RunDir.for_recipe(tmp_path / "b", config)
    assert same_weights(weights(a.last), weights(b.last))
    assert log_without_times(a) == log_without_times(b)
    assert a.pred("dev").read_text() == b.pred("dev").read_text()
    other = load_recipe(recipe, ["train.seed=2"])
    run_recipe(other, RunOptions(runs_dir=tmp_path / "c"))
    assert not same_weights(weights(a.last), weights(RunDir.for_recipe(tmp_path / "c", other).last))


def test_interrupted_run_resumes_to_the_same_result(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, model=NOISY_MODEL, train=NOISY_TRAIN)
    config = load_recipe(recipe)
    reference = run_recipe(config, RunOptions(runs_dir=tmp_path / "ref"))
    # 8 trees / batch 3 -> 3 batches per epoch, dev checks (and checkpoints) after the 2nd and 3rd:
    # steps 2, 3, 5, 6.  The crash comes after update 5, before its check: updates 4 and 5 are
    # lost and replayed after resuming from step 3's checkpoint.
    crash = StopAfter(5)
    with pytest.raises(Interrupt):
        run_recipe(config, RunOptions(runs_dir=tmp_path / "run"), crash)
    run_dir = RunDir.for_recipe(tmp_path / "run", config)
    assert json.loads(run_dir.results.read_text())["status"] == FAILED
    assert not run_dir.lock.exists()  # released on exceptions
    assert checkpoint.load(run_dir.last)["state"]["step"] == 3
    again = Record()
    resumed = run_recipe(config, RunOptions(runs_dir=tmp_path / "run"), again)
    assert again.steps[0] == 4  # continued after the checkpoint, did not start over
    assert resumed.status == COMPLETE
    ref_dir = RunDir.for_recipe(tmp_path / "ref", config)
    assert same_weights(weights(ref_dir.last), weights(run_dir.last))
    assert same_weights(weights(ref_dir.best), weights(run_dir.best))
    assert log_without_times(ref_dir) == log_without_times(run_dir)
    assert resumed.dev.f1 == reference.dev.f1 and resumed.test.f1 == reference.test.f1
    # a finished run is not trained again
    finished = Record()
    assert run_recipe(config, RunOptions(runs_dir=tmp_path / "run"), finished).status == COMPLETE
    assert finished.steps == []
    # --fresh starts over
    fresh = Record()
    run_recipe(config, RunOptions(runs_dir=tmp_path / "run", fresh=True), fresh)
    assert fresh.steps[0] == 1


def test_max_minutes_stops_and_evaluates_best(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1000})
    config = load_recipe(recipe)
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs", max_minutes=0.0))
    state = checkpoint.load(RunDir.for_recipe(tmp_path / "runs", config).last)["state"]
    assert state["step"] == 1 and state["stop_reason"] == "max_minutes"
    assert results.status == COMPLETE and results.dev is not None and results.best_step == 1


def test_a_larger_time_budget_trains_a_finished_run_on(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 3})
    config = load_recipe(recipe)
    runs = tmp_path / "runs"
    first = run_recipe(config, RunOptions(runs_dir=runs, max_minutes=0.0))
    assert first.stop_reason == "max_minutes" and first.best_step == 1
    # the same budget again: the finished run is shown, nothing trains
    same = Record()
    assert run_recipe(config, RunOptions(runs_dir=runs, max_minutes=0.0), same).best_step == 1
    assert same.steps == []
    # no budget: training goes on from the checkpoint (step 2 onwards) to max_epochs, and says so
    more = Record()
    results = run_recipe(config, RunOptions(runs_dir=runs, max_minutes=None), more)
    assert more.steps and more.steps[0] == 2
    assert any("time budget" in note for note in more.notes)
    assert results.status == COMPLETE and results.stop_reason == "max_epochs"
    assert checkpoint.load(RunDir.for_recipe(runs, config).last)["state"]["epoch"] == 3
    # a run that ended for another reason is not trained again
    again = Record()
    run_recipe(config, RunOptions(runs_dir=runs, max_minutes=None), again)
    assert again.steps == []


def test_patience_stops_training(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1000, "patience_epochs": 2, "lr": 1e-9, "warmup_steps": 0})
    config = load_recipe(recipe)
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    state = checkpoint.load(RunDir.for_recipe(tmp_path / "runs", config).last)["state"]
    assert state["stop_reason"] == "patience"
    assert state["checks_since_best"] == 2 and state["epoch"] < 10


def test_schedule_warmup_and_plateau_halving() -> None:
    schedule = WarmupPlateauSchedule(base_lr=1.0, warmup_steps=4, patience_checks=3, decay_factor=0.5)
    assert [schedule.lr(s) for s in (1, 2, 4, 10)] == [0.25, 0.5, 1.0, 1.0]
    assert not schedule.observe(50.0, step=5)
    assert [schedule.observe(49.0, step=s) for s in (6, 7, 8)] == [False, False, True]
    assert schedule.lr(10) == 0.5
    assert not schedule.observe(51.0, step=9) and schedule.bad_checks == 0
    restored = WarmupPlateauSchedule(1.0, 4, 3)
    restored.load_state_dict(schedule.state_dict())
    assert restored == schedule


def test_schedule_holds_the_plateau_decay_until_warm_up_ends() -> None:
    schedule = WarmupPlateauSchedule(base_lr=1.0, warmup_steps=10, patience_checks=2, decay_factor=0.5)
    # no improvement at any check during warm-up (steps 1-9): the rate keeps rising, undecayed
    assert [schedule.observe(40.0, step=s) for s in range(1, 10)] == [False] * 9
    assert schedule.scale == 1.0 and schedule.bad_checks == 0 and schedule.best == 40.0
    assert schedule.lr(9) == 0.9
    # from the end of warm-up (update 10 done) on, patience_checks checks without a gain halve it
    assert [schedule.observe(40.0, step=s) for s in (10, 11, 12, 13)] == [False, True, False, True]
    assert schedule.lr(13) == 0.25
    # the best score of warm-up still counts: matching it later is no improvement
    assert not schedule.observe(40.0, step=14) and schedule.bad_checks == 1
    assert not schedule.observe(41.0, step=15) and schedule.bad_checks == 0 and schedule.best == 41.0


class Decays(Reporter):
    """Keeps the lr_decayed flag of every dev check."""

    def __init__(self) -> None:
        self.decayed: list = []

    def on_eval(self, info, improved: bool, lr_decayed: bool) -> None:  # type: ignore[no-untyped-def]
        self.decayed.append(lr_decayed)


def test_no_learning_rate_decay_during_a_long_warm_up(tmp_path: Path) -> None:
    # 8 trees / batch 4: 2 updates per epoch, one dev check per epoch (steps 2, 4, ..., 12); warm-up
    # over 8 updates; the rate is halved after 2 checks (epochs) without a gain.  A rate of 1e-9
    # leaves dev F1 where the first check put it, so every later check is a non-improving one.
    lr, warmup = 1e-9, 8
    recipe = write_tiny_recipe(tmp_path, train={"lr": lr, "warmup_steps": warmup, "max_epochs": 6,
                                                "lr_decay_patience_epochs": 2, "lr_decay_factor": 0.5})
    config = load_recipe(recipe)
    decays = Decays()
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), decays)
    entries = log_without_times(RunDir.for_recipe(tmp_path / "runs", config))
    assert [e["step"] for e in entries] == [2, 4, 6, 8, 10, 12]
    assert len({e["dev_score"] for e in entries}) == 1 and [e["best"] for e in entries] == [True] + [False] * 5
    # checks at steps 2, 4, 6 fall in warm-up and count for nothing; steps 8 and 10 are the two
    # non-improving checks after it, so the rate is halved at step 10 (and not at step 6)
    scale = [1.0, 1.0, 1.0, 1.0, 0.5, 0.5]
    expected = [lr * min(1.0, e["step"] / warmup) * s for e, s in zip(entries, scale)]
    assert [e["lr"] for e in entries] == pytest.approx(expected, rel=1e-9, abs=0.0)
    assert decays.decayed == [False, False, False, False, True, False]


class PeekResults(Reporter):
    """Reads results.json at every dev check, while the run is in progress."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seen: list = []

    def on_eval(self, info, improved: bool, lr_decayed: bool) -> None:  # type: ignore[no-untyped-def]
        self.seen.append(json.loads(self.path.read_text()))


def test_results_json_says_running_with_progress_during_training(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 3})
    config = load_recipe(recipe)
    peek = PeekResults(RunDir.for_recipe(tmp_path / "runs", config).results)
    final = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), peek)
    assert [r["status"] for r in peek.seen] == ["running"] * 3
    assert [r["epochs"] for r in peek.seen] == [1.0, 2.0, 3.0]
    assert all(r["dev"] is None for r in peek.seen)
    assert final.status == COMPLETE and final.epochs == 3.0


def test_training_notes_are_kept_in_results_json(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1})
    config = load_recipe(recipe, ["data.max_train_sentences=3"])
    record = Record()
    final = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    train_file = tmp_path / "data" / "train.trees"
    expected = [f"training on 3 of the {len(TINY_TREES)} sentences of {train_file} "
                "(the rest beyond data.max_train_sentences=3)"]
    assert record.notes == expected  # still on the terminal
    assert final.notes == expected
    saved = json.loads(RunDir.for_recipe(tmp_path / "runs", config).results.read_text())
    assert saved["status"] == COMPLETE and saved["notes"] == expected
    # a run that leaves nothing out has no notes
    plain = run_recipe(load_recipe(recipe), RunOptions(runs_dir=tmp_path / "runs"), Record())
    assert plain.notes == []
