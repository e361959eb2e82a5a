"""A jack-knifing run keeps its budget (issue 31 §3): ``--max-minutes M`` bounds the whole run, its taggers
included, the run says at start how it splits M and records the split; without a budget the taggers stop on
their patience, and side by side (each in a process of its own) they give exactly the tags they give one after
the other."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.train.jackknife import load_tags, tagger_configs
from mlparse.train.run_budget import BudgetSplit
from mlparse.train.runner import RunOptions, run_recipe
from helpers.dep_fixtures import SENTENCES
from helpers.run_fixtures import Record
from helpers.tagger_fixtures import jackknife_recipe


def test_the_split_gives_the_taggers_their_share_in_rounds_and_the_parser_the_rest() -> None:
    split = BudgetSplit.plan(20.0, taggers=11, side_by_side=2, threads_each=1, share=0.4)
    assert (split.rounds, split.tagger_minutes, split.parser_minutes) == (6, pytest.approx(8.0 / 6, abs=1e-4), 12.0)
    assert "11 taggers (2 side by side, 1 torch thread each), then the parser" in split.describe()
    assert BudgetSplit.plan(20.0, 11, 4, 1, 0.4, tagger_max_minutes=1.0).tagger_minutes == 1.0  # the smaller bound
    to_parser = BudgetSplit.plan(20.0, 11, 2, 1, 0.0, tagger_max_minutes=5.0)
    assert (to_parser.tagger_minutes, to_parser.parser_minutes) == (5.0, 20.0)  # mlparse sweep: taggers apart
    free = BudgetSplit.plan(None, 11, 30, 1, 0.4)
    assert (free.side_by_side, free.tagger_minutes, free.parser_minutes) == (11, None, None)
    assert "each until its patience runs out" in free.describe()
    assert BudgetSplit.plan(20.0, 11, 2, 1, 0.4) == split  # the same budget, the same bounds: the same tag folder


def endless(tmp_path: Path, **overrides: object):  # type: ignore[no-untyped-def]
    """Taggers and a parser that would train for hours: only a time budget stops them."""
    config = jackknife_recipe(tmp_path, folds=2, sentences=SENTENCES, max_epochs=100000, patience_epochs=100000,
                              overrides=["train.max_epochs=100000", "train.patience_epochs=100000",
                                         *(f"{key}={value}" for key, value in overrides.items())])
    assert config.train.max_epochs == 100000 and tagger_configs(config)[0].train.max_epochs == 100000
    return config


def test_a_bounded_jackknifing_run_ends_within_its_budget_taggers_included(tmp_path: Path) -> None:
    config = endless(tmp_path)
    minutes = 0.3
    record = Record()
    started = time.monotonic()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs", max_minutes=minutes, started=started), record)
    elapsed = time.monotonic() - started
    assert results.status == COMPLETE and results.stop_reason == "max_minutes"
    # the parser stops when its measured update, dev check and final parse would no longer fit: a load spike after
    # the last measurement (make test runs two workers) can make them slower, hence the seconds of grace
    assert elapsed <= minutes * 60.0 + 3.0, elapsed
    said = next(note for note in record.notes if note.startswith("this run trains"))
    assert "3 taggers (one after the other, 1 torch thread each), then the parser" in said and "0.3 minutes" in said
    assert any(note.startswith("the taggers and their tagging took") for note in record.notes)
    budget = results.budget
    assert budget["minutes"] == minutes and budget["taggers"] == 3 and budget["side_by_side"] == 1
    assert budget["tagger_minutes"] == pytest.approx(0.4 * minutes / 3, abs=1e-4)
    assert budget["parser_minutes"] == pytest.approx(0.6 * minutes)
    assert 0 < budget["tagger_phase_minutes"] < minutes
    assert results.training_seconds <= budget["parser_minutes"] * 60.0 + 3.0
    for tagger in tagger_configs(config, budget["tagger_minutes"]):
        done = RunDir.for_recipe(tmp_path / "runs", tagger).read_results()
        assert done.stop_reason == "max_minutes" and done.training_seconds <= budget["tagger_minutes"] * 60 + 3.0
    on_disk = RunDir.for_recipe(tmp_path / "runs", config).read_results()
    assert on_disk.budget == budget
    # the same command again: complete within the same budget, nothing trains; a larger budget trains on
    again = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs", max_minutes=minutes))
    assert again.finished_at == results.finished_at


@pytest.mark.slow
def test_without_a_budget_the_taggers_stop_on_patience_and_side_by_side_tags_match(tmp_path: Path) -> None:
    apart, together = tmp_path / "apart", tmp_path / "together"
    tags = {}
    for folder, slots in ((apart, 1), (together, 3)):  # 3: the three taggers at once, each in its own process
        folder.mkdir()
        config = jackknife_recipe(folder, folds=2, sentences=SENTENCES, max_epochs=100, patience_epochs=1,
                                  overrides=[f"tagger.side_by_side={slots}"])
        record = Record()
        results = run_recipe(config, RunOptions(runs_dir=folder / "runs"), record)
        assert results.status == COMPLETE and results.budget["minutes"] is None
        assert results.budget["side_by_side"] == slots
        for tagger in tagger_configs(config):
            done = RunDir.for_recipe(folder / "runs", tagger).read_results()
            assert done.stop_reason == "patience", done.stop_reason  # not minutes: the same on any machine load
        if slots > 1:
            assert sum("in process" in note for note in record.notes) == 3  # each tagger in a process of its own
        tags[slots] = load_tags(config).tags
    assert tags[1] == tags[3]


def test_a_sweep_gives_a_jackknifing_parser_its_whole_budget() -> None:
    from mlparse.config import load_recipe
    from mlparse.sweep.driver import member_argv
    from mlparse.sweep.suite import Member

    config = load_recipe("demo-dep", ["data.tags=jackknife"])
    argv = member_argv(Member(recipe="demo-dep", overrides=("data.tags=jackknife",), seed=1, config=config),
                       Path("runs"), 10.0)
    assert "tagger.budget_share=0" in argv  # its taggers are members of their own, bounded by tagger.max_minutes


def test_taggers_train_side_by_side_where_the_machine_has_room_unless_each_is_short(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from mlparse.config import load_recipe
    from mlparse.train import run_budget

    monkeypatch.setattr(run_budget, "cpu_cores", lambda: 4)
    config = load_recipe("demo-dep", ["data.tags=jackknife"])  # 11 taggers of one thread each
    assert run_budget.split_for(config, None, gpus=0).side_by_side == 4  # the cores over the tagger's threads
    assert run_budget.split_for(config, None, gpus=3).side_by_side == 3  # one per GPU
    assert run_budget.split_for(config, 60.0, gpus=0).side_by_side == 4  # 24 minutes in 3 rounds: 8 each
    # 2 minutes in 3 rounds is 0.67 each: less than a process start is worth, so one after the other
    assert run_budget.split_for(config, 5.0, gpus=0).side_by_side == 1
    chosen = load_recipe("demo-dep", ["data.tags=jackknife", "tagger.side_by_side=4"])
    assert run_budget.split_for(chosen, 5.0, gpus=0).side_by_side == 4  # the recipe's choice stands
