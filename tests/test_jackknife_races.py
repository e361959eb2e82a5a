"""Jack-knifing runs that meet each other or their own limits (issue 40, findings 7-10): too many folds refused
before anything is planned, two parsers sharing a tagger without refusing each other, a reused tagger's bound
recorded, and a budgeted run's overrun said in results.json."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import torch

from mlparse.results import COMPLETE, RunResults
from mlparse.run_dir import RunDir
from mlparse.tasks.constituency import ConstituencyTask
from mlparse.tasks.treebank import TreeSplit, golds_of
from mlparse import run_lock
from mlparse.train import jackknife, runner, tagger_pool
from mlparse.train.checkpoint import CheckpointFiles
from mlparse.train.jackknife import tagger_configs
from mlparse.run_lock import RunLock
from mlparse.train.run_plan import RunError
from mlparse.train.runner import RunOptions, run_recipe
from mlparse.train.trainer import Trainer
from helpers.run_fixtures import Record, tiny_trees, write_tiny_recipe
from helpers.tagger_fixtures import UNIQUE_SENTENCES, jackknife_recipe


def test_more_folds_than_sentences_are_refused_before_the_taggers_are_planned(tmp_path: Path) -> None:
    config = jackknife_recipe(tmp_path, folds=400)  # 401 tagger recipes: building them took minutes
    record = Record()
    started = time.monotonic()
    with pytest.raises(RunError, match=rf"tagger.folds=400, but .*train.conllu has only {len(UNIQUE_SENTENCES)} "):
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs", max_minutes=5), record)
    assert not any(note.startswith("this run trains") for note in record.notes)  # no "401 rounds of 0.00 minutes"
    assert time.monotonic() - started < 20


def _finish_as_the_other_parser(run_dir: RunDir, lock: RunLock, seconds: float) -> threading.Thread:
    """The other parser's tagger run, holding ``lock``: complete after ``seconds``, then the lock released."""
    def finish() -> None:
        time.sleep(seconds)
        run_dir.write_results(RunResults(status=COMPLETE, stop_reason="patience", training_seconds=1.0))
        lock.release()

    thread = threading.Thread(target=finish)
    thread.start()
    return thread


def test_a_tagger_process_waits_for_a_lock_another_parser_took_after_the_pool_looked(tmp_path: Path) -> None:
    config = jackknife_recipe(tmp_path, folds=2)
    tagger = tagger_configs(config)[-1]
    runs = tmp_path / "runs"
    run_dir = RunDir.for_recipe(runs, tagger)
    run_dir.path.mkdir(parents=True)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    notes: list = []
    job = tagger_pool._start(tagger, 0, "tagger on all of train", runs, scratch, 0, 1, 0, False, notes.append)
    lock = RunLock(run_dir.path)
    lock.acquire()  # the other parser's process for the same tagger: its lock taken while this one imports torch
    finisher = _finish_as_the_other_parser(run_dir, lock, 1.0)
    job.process.wait(timeout=180)
    finisher.join()
    results, _ = tagger_pool._finished(tagger, job, runs)
    assert results.status == COMPLETE, results.error  # it waited for the other, then found the run finished


def test_a_tagger_in_this_process_waits_for_a_lock_taken_after_it_looked(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    config = jackknife_recipe(tmp_path, folds=2)
    monkeypatch.setattr(run_lock, "ACQUIRE_POLL_SECONDS", 0.1, raising=False)
    real = runner.run_planned
    finishers = []

    def racing(plan, options, reporter=None):  # type: ignore[no-untyped-def]
        lock = RunLock(plan.run_dir.path)  # the other parser takes the tagger between this one's look and its lock
        plan.run_dir.path.mkdir(parents=True, exist_ok=True)
        lock.acquire()
        finishers.append(_finish_as_the_other_parser(plan.run_dir, lock, 0.5))
        return real(plan, options, reporter)

    monkeypatch.setattr(runner, "run_planned", racing)
    monkeypatch.setattr(jackknife, "_tag_with", lambda config, taggers, trained, *rest: trained)
    trained = runner.jackknifed_tags(config, RunOptions(runs_dir=tmp_path / "runs"), Record(), torch.device("cpu"))
    for thread in finishers:
        thread.join()
    assert len(finishers) == 3 and [results.status for results, _ in trained] == [COMPLETE] * 3


def test_a_reused_tagger_trained_under_another_bound_is_recorded_and_said(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    first = jackknife_recipe(tmp_path, folds=2, overrides=["tagger.max_minutes=0.5"])
    runner.jackknifed_tags(first, RunOptions(runs_dir=runs), None, torch.device("cpu"))
    for tagger in tagger_configs(first, 0.5):
        assert RunDir.for_recipe(runs, tagger).read_results().max_minutes == 0.5
    second = jackknife_recipe(tmp_path, folds=2, overrides=["tagger.max_minutes=0.25"])
    record = Record()
    tagged = runner.jackknifed_tags(second, RunOptions(runs_dir=runs), record, torch.device("cpu"))  # the same tagger runs, reused
    assert tagged.manifest["tagger_minutes"] == 0.25
    assert [t["max_minutes"] for t in tagged.manifest["taggers"]] == [0.5, 0.5, 0.5]
    said = [note for note in record.notes if "trained earlier under" in note]
    assert len(said) == 1 and "3 taggers" in said[0] and "0.5 minutes" in said[0] and "0.25" in said[0]


def test_before_its_first_dev_check_the_check_is_estimated_at_the_update_speed(tmp_path: Path) -> None:
    config_path = write_tiny_recipe(tmp_path / "span")
    from mlparse.config import load_recipe
    from mlparse.models.span_parser import build_parser

    config = load_recipe(config_path)
    trees = tiny_trees()
    model = build_parser(config.model, trees, span=config.span)
    split = TreeSplit(path=tmp_path / "train.trees", examples=trees)
    trainer = Trainer(config, model, ConstituencyTask(), split, golds_of(trees, model.labels), split,
                      CheckpointFiles(tmp_path / "checkpoints"), torch.device("cpu"), max_minutes=1.0)
    trainer.clock.update_seconds, trainer.clock.update_sentences = 0.8, 4  # as measured by one update of 4 sentences
    per_sentence = trainer.clock.update_seconds / trainer.clock.update_sentences
    estimate = per_sentence * len(trainer.dev_inputs)  # dev parsed at the update's speed: an overestimate
    assert trainer.clock.check_estimate() == pytest.approx(estimate)
    # one more update and the last check must fit in the 60 s: at 60 - 0.8 - estimate the run must stop
    trainer.state.training_seconds = 60.0 - 0.8 - estimate - 0.01
    assert not trainer._past_budget()
    assert not trainer._past_budget(check_due=True)  # the check due now measures itself: not counted twice
    trainer.state.training_seconds += 0.02
    assert trainer._past_budget()
    trainer.clock.check_seconds = 0.3  # measured by a dev check: that counts
    assert trainer.clock.check_estimate() == pytest.approx(0.3) and not trainer._past_budget()
    trainer.state.training_seconds = 60.0 - 0.8 - 0.3 - 0.01
    assert not trainer._past_budget() and trainer._past_budget(check_due=True)  # no room for a scheduled check too


def test_a_run_that_overran_its_budget_says_by_how_much(tmp_path: Path) -> None:
    config = jackknife_recipe(tmp_path, folds=2, overrides=["tagger.budget_share=0"])
    minutes = 0.05
    started = time.monotonic() - 10.0  # the command started 10 s ago, 3 s before its end
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs", max_minutes=minutes, started=started))
    late = (time.monotonic() - started - minutes * 60.0) / 60.0
    assert results.status == COMPLETE
    assert 0 < results.budget["overrun_minutes"] <= late + 1e-3
    assert results.budget["overrun_minutes"] >= (7.0 / 60.0)
