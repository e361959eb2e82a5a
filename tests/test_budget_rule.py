"""One budget rule for every system (mlparse/budget_rule.py): mlparse's parser and a peer under the same budget
record minutes that mean the same thing; a peer's model cut by the stop at the budget is never used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlparse.budget_rule import PREDICTION_OUTSIDE, RULE, ClockRecord, must_stop
from mlparse.config import load_recipe
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.run_dispatch import run_recipe
from mlparse.train.runner import RunError, RunOptions
from helpers.dep_fixtures import SENTENCES, conllu_text, write_dep_recipe
from helpers.external_fixtures import FAKE_PEER, write_external_recipe

BUDGET_MINUTES = 0.1  # 6 s of clock for each system


def test_must_stop_leaves_room_for_one_more_update_and_the_last_check() -> None:
    # 100 s bound, 2 s updates, 5 s checks: at 92.9 s one more update and the last check end at 99.9 s
    assert not must_stop(92.9, 100.0, 2.0, 5.0, check_due=False)
    assert must_stop(93.0, 100.0, 2.0, 5.0, check_due=False)
    # a scheduled check now would take 5 s more: going on must leave room for it too
    assert must_stop(88.0, 100.0, 2.0, 5.0, check_due=True) and not must_stop(87.9, 100.0, 2.0, 5.0, check_due=True)


def test_the_clock_record_counts_what_came_after_the_bound() -> None:
    inside = ClockRecord.measured(1.0, 61.0, 3.0, 58.5, 2)
    assert inside.over_bound_seconds == 0 and inside.rule == RULE and inside.prediction == PREDICTION_OUTSIDE
    late = ClockRecord.measured(1.0, 64.0, None, 62.25, 2)
    assert late.over_bound_seconds == pytest.approx(2.25)
    assert ClockRecord.measured(None, 500.0, 1.0, 499.0, 1).over_bound_seconds == 0  # no budget, no bound
    assert ClockRecord.measured(1.0, 61.0, None, None, 1).over_bound_seconds is None  # the model's time unknown


def _mlparse_run(tmp_path: Path):
    recipe = write_dep_recipe(tmp_path / "mlparse", train={"max_epochs": 100000, "patience_epochs": 100000},
                              dev_text=conllu_text(SENTENCES * 20, with_mwt=True))
    return run_recipe(load_recipe(str(recipe)), RunOptions(runs_dir=tmp_path / "runs",
                                                           max_minutes=BUDGET_MINUTES))


def _peer_run(tmp_path: Path, train_extra: str = "--hang", **external):
    external = {"model": "{workdir}/model.json", **external}  # the model file whose time the clock records
    recipe = write_external_recipe(tmp_path / "peer", train_extra=train_extra, external=external)
    config = load_recipe(str(recipe))
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs", max_minutes=BUDGET_MINUTES))
    return results, RunDir.for_recipe(tmp_path / "runs", config).path


def test_mlparse_and_a_peer_under_the_same_budget_record_the_same_clock(tmp_path: Path) -> None:
    ours = _mlparse_run(tmp_path)
    theirs, _ = _peer_run(tmp_path)
    bound = BUDGET_MINUTES * 60.0
    assert ours.status == COMPLETE and theirs.status == COMPLETE
    for results in (ours, theirs):
        clock = results.clock
        assert clock["rule"] == RULE and clock["prediction"] == PREDICTION_OUTSIDE
        assert clock["budget_minutes"] == BUDGET_MINUTES and clock["threads"] == 1
        # the model each run uses was written inside the bound: no grace for either (up to the jitter of a check's
        # time on a loaded machine; when mlparse stops is checked exactly against measured times above)
        assert clock["over_bound_seconds"] < 1.0 and 0 < clock["last_model_seconds"] <= bound + 1.0
        assert results.training_seconds == pytest.approx(clock["clock_seconds"], abs=0.5)
    # mlparse's clock started before its data, vocabulary and model were built (its start-up is counted, as the
    # peer's interpreter start and imports are), and it used the budget, stopping inside it for its last check
    assert 0 < ours.clock["startup_seconds"] < ours.clock["clock_seconds"]
    assert 0.5 * bound < ours.clock["clock_seconds"] <= bound + 1.0
    assert theirs.clock["startup_seconds"] is None  # a peer's start-up is inside its clock but not separable
    assert bound <= theirs.clock["clock_seconds"] < bound + 5  # stopped at the bound by SIGINT
    assert theirs.stop_reason.startswith("max_minutes") and ours.stop_reason == "max_minutes"


def test_a_peer_that_saves_on_sigint_is_used_and_its_overrun_recorded(tmp_path: Path) -> None:
    results, folder = _peer_run(tmp_path, "--hang --on-sigint save")
    assert results.status == COMPLETE
    assert json.loads((folder / "peer" / "model.json").read_text())["saved_on"] == "SIGINT"
    assert results.clock["over_bound_seconds"] > 0  # written after the bound: complete, and said


def test_a_model_cut_by_the_stop_at_the_budget_is_refused_and_trained_again(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="written .* after the stop signal .* the save may be cut"):
        _peer_run(tmp_path, "--hang --on-sigint cut")
    folder = next((tmp_path / "runs" / "fake-peer").iterdir())
    assert json.loads((folder / "peer" / "state.json").read_text())["trained"] is False


def test_the_peers_own_load_check_refuses_a_broken_model(tmp_path: Path) -> None:
    check = "{python} " + str(FAKE_PEER) + " check --model {workdir}/model.json"
    with pytest.raises(RunError, match="own load check .* failed"):
        _peer_run(tmp_path, "--broken-model", model_check=check)
    results, _ = _peer_run(tmp_path / "whole", "", model_check=check)
    assert results.status == COMPLETE


def test_a_run_stopped_a_little_before_its_bound_is_not_trained_on_under_the_same_budget(tmp_path: Path) -> None:
    recipe = write_dep_recipe(tmp_path / "mlparse", train={"max_epochs": 100000, "patience_epochs": 100000})
    config = load_recipe(str(recipe))
    first = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs", max_minutes=0.05))
    assert first.stop_reason == "max_minutes"  # a little before its bound of 3 s (the unit test above: exactly)
    again = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs", max_minutes=0.05))
    assert again.training_seconds == first.training_seconds and again.finished_at == first.finished_at
    more = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs", max_minutes=0.08))  # a larger one trains on
    assert more.training_seconds > first.training_seconds and more.max_minutes == 0.08


def test_the_training_clock_plans_with_the_longest_recent_times() -> None:
    from mlparse.train.training_clock import TrainingClock

    clock = TrainingClock(max_minutes=1.0, deadline=None, dev_sentences=100)
    clock.note_update(0.5, 10)
    assert clock.check_estimate() == pytest.approx(5.0)  # 0.05 s a sentence over 100 dev sentences
    clock.note_check(2.0)
    clock.note_check(1.0)
    clock.note_update(0.2, 10)
    assert clock.check_estimate() == 2.0  # the longest recent check, not the last
    assert not clock.must_stop(60.0 - 0.5 - 2.0 - 0.01) and clock.must_stop(60.0 - 0.5 - 2.0)  # the longest update
    assert clock.alarm_seconds(elapsed=50.0, now=0.0) == pytest.approx(8.0)  # room left for the last check
    # a resumed training stopped at 1 minute: the same budget does not extend it, a larger one does
    assert not clock.extends(1.0, 59.0) and TrainingClock(2.0, None, 100).extends(1.0, 59.0)
