"""``mlparse compare`` between two groups of seeds: Welch's t-test and ASO over the groups' scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe
from helpers.run_fixtures import write_tiny_recipe

runner = CliRunner()


def test_two_groups_of_seeds(tmp_path: Path) -> None:
    pytest.importorskip("scipy")
    pytest.importorskip("deepsig")
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1})
    groups: dict = {}
    for lr in ("0.01", "0.002"):  # two configurations, two seeds each
        for seed in (1, 2):
            config = load_recipe(recipe, [f"train.seed={seed}", f"train.lr={lr}"])
            run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
            groups.setdefault(lr, []).append(RunDir.for_recipe(tmp_path / "runs", config).path)
    a, b = groups["0.01"][0], groups["0.002"][1]
    result = runner.invoke(app, ["compare", str(a), str(b), "--samples", "200", "--format", "json", "--runs-dir",
                                 str(tmp_path / "runs"), "--aso-iterations", "20"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)
    seeds = row["seed_groups"]
    expected = {lr: sorted(json.loads((run / "results.json").read_text())["test"]["f1"] for run in runs)
                for lr, runs in groups.items()}
    assert sorted(seeds["scores_a"]) == expected["0.01"] and sorted(seeds["scores_b"]) == expected["0.002"]
    assert seeds["missing"] is None and seeds["aso_eps_min_b_over_a"] is not None
    assert seeds["welch_p"] is None or 0.0 <= seeds["welch_p"] <= 1.0  # None only if scipy finds no variance
