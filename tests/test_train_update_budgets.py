"""``train.max_updates`` and ``train.patience_updates``: budgets and patience counted in optimizer updates
(issue 23 §4), beside the epoch-based ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlparse.config import ConfigError, load_recipe
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe
from helpers.dep_fixtures import write_dep_recipe


def _log(tmp_path: Path, config) -> list:
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    return [json.loads(line) for line in run_dir.log.read_text().splitlines()]


def test_max_updates_stops_training_at_that_update_with_a_dev_check_there(tmp_path: Path) -> None:
    # 8 sentences in batches of 3: 3 updates an epoch, one check at its end
    config = load_recipe(write_dep_recipe(tmp_path, train={"max_epochs": 50, "max_updates": 5, "evals_per_epoch": 1}))
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE and results.stop_reason == "max_updates"
    assert [entry["step"] for entry in _log(tmp_path, config)] == [3, 5]


def test_patience_updates_stops_when_the_best_check_is_that_many_updates_old(tmp_path: Path) -> None:
    # a learning rate too small to change the dev score: the first check stays the best
    config = load_recipe(write_dep_recipe(tmp_path, train={"max_epochs": 50, "evals_per_epoch": 3, "lr": 1e-12,
                                                           "warmup_steps": 0, "patience_updates": 2}))
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    log = _log(tmp_path, config)
    assert results.stop_reason == "patience" and [entry["step"] for entry in log] == [1, 2, 3]
    assert results.best_step == 1


def test_update_budgets_are_checked_and_hash_neutral_when_unset(tmp_path: Path) -> None:
    path = write_dep_recipe(tmp_path)
    for key in ("max_updates", "patience_updates"):
        with pytest.raises(ConfigError, match=f"train.{key} must be positive"):
            load_recipe(path, [f"train.{key}=0"])
    assert load_recipe(path).hash() == load_recipe(path, ["train.max_updates=null", "train.patience_updates=null"]).hash()
    assert load_recipe(path).hash() != load_recipe(path, ["train.max_updates=1000"]).hash()
