"""Two configurations of two seeds each: ``mlparse compare`` by name (every complete seed of each, the group test,
Welch and ASO) and the report's marks (systems tested as groups, never seeds of one system against each other)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.run_dir import RunDir
from mlparse.run_dispatch import run_recipe
from mlparse.train.runner import RunOptions
from helpers.run_fixtures import write_tiny_recipe

runner = CliRunner()


@pytest.fixture(scope="module")
def configurations(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """The runs folder and {lr: [run directories]} of two configurations with two seeds each."""
    tmp_path = tmp_path_factory.mktemp("groups")
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1})
    groups: dict = {}
    for lr in ("0.01", "0.002"):  # two configurations, two seeds each
        for seed in (1, 2):
            config = load_recipe(recipe, [f"train.seed={seed}", f"train.lr={lr}"])
            run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
            groups.setdefault(lr, []).append(RunDir.for_recipe(tmp_path / "runs", config).path)
    return tmp_path, groups


def test_two_configurations_are_compared_with_all_their_seeds(configurations: tuple) -> None:
    tmp_path, groups = configurations
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
    assert row["test"] == "groups" and row["runs_a"] != row["runs_b"]
    assert row["p_value"] == max(row["p_t"], row["p_seeds"]) >= 2 / 6  # 2 + 2 seeds: the exact test's floor
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


def _cells(board: dict) -> list:
    return [(row["system"], row["external"], cell) for row in board["rows"] for cell in row["scores"].values()]


def test_the_marks_test_systems_never_seeds_of_one_system(configurations: tuple, tmp_path: Path) -> None:
    import shutil

    source, groups = configurations
    runs = tmp_path / "runs"
    shutil.copytree(source / "runs", runs)
    gold = source / "data" / "test.trees"
    scored = runner.invoke(app, ["score", str(gold), "--gold", str(gold), "--name", "oracle", "--runs-dir", str(runs),
                                 "--family", "tiny", "--language", "english"])
    assert scored.exit_code == 0, scored.output
    for select in ("latest", "all-seeds"):
        result = runner.invoke(app, ["report", str(runs), "--format", "json", "--published", "none", "--select",
                                     select])
        assert result.exit_code == 0, result.output
        (board,) = json.loads(result.stdout)["leaderboards"]
        cells = _cells(board)
        assert len(cells) == (3 if select == "latest" else 5)
        oracle = [cell for _, external, cell in cells if external]
        assert len(oracle) == 1 and oracle[0]["value"] == 100.0 and oracle[0]["significance"] is None  # the best
        trained = [(system, cell) for system, external, cell in cells if not external]
        # each configuration is tested once, as a group of its two seeds against the single best run; in all-seeds
        # mode its two seed rows carry that one result
        by_system: dict = {}
        for system, cell in trained:
            by_system.setdefault(system.split(" (seed")[0], []).append(cell)
        assert len(by_system) == 2
        for seed_cells in by_system.values():
            assert {cell["significance_test"] for cell in seed_cells} == {"run-vs-group"}
            assert len({cell["significance"] for cell in seed_cells}) == 1
        legend = " ".join(board["legend"])
        assert "Holm" in legend and "10,000" in legend and "p < 0.05" in legend
        assert "a single run against a system with several seeds" in legend and "never tested against each" in legend
    # without the oracle, the two configurations are tested as groups, every seed of both
    shutil.rmtree(runs / "oracle")
    result = runner.invoke(app, ["report", str(runs), "--format", "json", "--published", "none", "--select",
                                 "all-seeds"])
    (board,) = json.loads(result.stdout)["leaderboards"]
    tested = [cell for _, _, cell in _cells(board) if cell["significance"] is not None]
    untested = [cell for _, _, cell in _cells(board) if cell["significance"] is None]
    assert len(tested) == 2 and len(untested) == 2  # the best configuration's seeds are never marked
    assert {cell["significance_test"] for cell in tested} == {"groups"}
    assert "systems with several seeds: every seed of both" in " ".join(board["legend"])
    assert "exact permutation test over seeds" in " ".join(board["legend"])
