"""``mlparse compare`` of two configurations by name: every complete seed of each, the group test, Welch and ASO."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe
from helpers.run_fixtures import write_tiny_recipe

runner = CliRunner()


def test_two_configurations_are_compared_with_all_their_seeds(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1})
    groups: dict = {}
    for lr in ("0.01", "0.002"):  # two configurations, two seeds each
        for seed in (1, 2):
            config = load_recipe(recipe, [f"train.seed={seed}", f"train.lr={lr}"])
            run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
            groups.setdefault(lr, []).append(RunDir.for_recipe(tmp_path / "runs", config).path)
    runs = ["--runs-dir", str(tmp_path / "runs")]
    ambiguous = runner.invoke(app, ["compare", "tiny", "tiny"] + runs)
    assert ambiguous.exit_code == 1 and "2 configurations have complete runs" in ambiguous.output
    names = [line.split("'")[1] for line in ambiguous.output.split("; ") if line.count("'") >= 2]
    assert len(names) == 2 and any("train.lr: 0.002" in name for name in names), ambiguous.output
    first = next(name for name in names if "0.002" not in name)
    second = next(name for name in names if "0.002" in name)
    result = runner.invoke(app, ["compare", first, second, "--samples", "200", "--format", "json",
                                 "--aso-iterations", "20", "--aso-threshold", "0.3"] + runs)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    (row,) = data["comparisons"]
    labels = {lr: sorted(f"tiny/{run.name}" for run in dirs) for lr, dirs in groups.items()}
    assert sorted(row["runs_a"]) == labels["0.01"] and sorted(row["runs_b"]) == labels["0.002"]  # every seed
    assert row["test"] == "groups" and row["method"] == "t-test" and row["runs_a"] != row["runs_b"]
    scores = {lr: sorted(json.loads((run / "results.json").read_text())["test"]["f1"] for run in dirs)
              for lr, dirs in groups.items()}
    assert sorted(row["scores_a"]) == scores["0.01"] and sorted(row["scores_b"]) == scores["0.002"]
    assert row["score_a"] == round(sum(scores["0.01"]) / 2, 4)  # the headline is the seed means
    seeds = row["seed_groups"]
    assert seeds["missing"] is None and seeds["aso_eps_min_b_over_a"] is not None
    assert seeds["aso_threshold"] == 0.3 == data["aso_threshold"]
    assert seeds["welch_p"] is None or 0.0 <= seeds["welch_p"] <= 1.0  # None only if scipy finds no variance
    assert "pairs" not in row
    table = runner.invoke(app, ["compare", first, second, "--samples", "200", "--aso-iterations", "20",
                                "--per-pair"] + runs)
    assert table.exit_code == 0, table.output
    assert "runs used:" in table.output and all(label in table.output for label in labels["0.01"] + labels["0.002"])
    assert "ε_min < 0.2" in table.output and "per pair of runs" in table.output
    assert table.output.count("tiny/") >= 4 + 2 * 4  # the runs used, and the four pairs
