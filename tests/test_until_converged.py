"""``mlparse run RECIPE --until-converged``: no time bound, the recipe's patience stops the run, results.json says
so, the report names the run apart from budget runs, and an interrupted or budget-stopped run is continued."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from helpers.run_fixtures import write_tiny_recipe
from mlparse.cli import app
from mlparse.results import CONVERGED_LABEL

runner = CliRunner()


def run(argv: list) -> str:
    result = runner.invoke(app, ["run", *argv], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    return result.output


def results_of(runs: Path) -> dict:
    [path] = list(runs.glob("*/*/results.json"))
    return json.loads(path.read_text(encoding="utf-8"))


def steps_logged(runs: Path) -> list:
    [path] = list(runs.glob("*/*/log.jsonl"))
    return [json.loads(line)["step"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture
def recipe(tmp_path: Path) -> Path:
    """The tiny recipe with a recipe budget far too short to converge in, and a patience of 2 epochs."""
    return write_tiny_recipe(tmp_path / "recipes", train={"max_minutes": 0.0001, "patience_epochs": 2,
                                                          "evals_per_epoch": 1, "max_epochs": 300})


def test_a_run_until_converged_stops_on_its_patience_and_says_so(tmp_path: Path, recipe: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "elsewhere"
    work.mkdir()
    monkeypatch.chdir(work)  # as a user: the default relative runs folder, another working folder
    run([str(recipe), "--until-converged"])
    results = results_of(work / "runs")
    assert results["status"] == "complete" and results["stop_reason"] == "patience"
    assert results["max_minutes"] is None  # the recipe's 0.0001 minutes lifted
    convergence = results["convergence"]
    assert convergence["converged"] is True and convergence["patience_epochs"] == 2
    assert "not improved for 2 epochs" in convergence["rule"] and convergence["epochs"] >= 3
    checks = steps_logged(work / "runs")
    assert len(checks) >= 3  # the best check, then two more without improvement
    report = runner.invoke(app, ["report"], env={"COLUMNS": "300"})  # the default runs folder
    assert report.exit_code == 0 and CONVERGED_LABEL in report.output, report.output
    again = run([str(recipe), "--until-converged"])  # converged already: nothing trains again
    assert steps_logged(work / "runs") == checks and "run directory" in again


def test_a_budget_run_is_continued_to_convergence(tmp_path: Path, recipe: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run([str(recipe), "--max-minutes", "0"])  # one update, stopped by its budget
    budget = results_of(tmp_path / "runs")
    assert budget["stop_reason"] == "max_minutes" and budget.get("convergence") is None
    before = steps_logged(tmp_path / "runs")
    run([str(recipe), "--until-converged"])  # the same run id: resumed from its checkpoint, trained to its patience
    after = results_of(tmp_path / "runs")
    assert after["stop_reason"] == "patience" and after["convergence"]["converged"] is True
    steps = steps_logged(tmp_path / "runs")
    assert steps[:len(before)] == before and steps[-1] > before[-1]


def test_a_converged_runs_name_does_not_list_its_lifted_budget(tmp_path: Path, recipe: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run([str(recipe), "--max-minutes", "0"])  # the recipe's first configuration: a budget run
    run([str(recipe), "--set", "train.lr=0.002", "--until-converged"])  # another configuration, no budget
    from mlparse.run_index.collect import collect_runs
    from mlparse.run_index.configurations import distinct_runs
    from mlparse.run_index.systems import index_systems

    names = [system.name for system in index_systems(distinct_runs(collect_runs(tmp_path / "runs"), []))]
    [converged] = [name for name in names if CONVERGED_LABEL in name]  # the report's and compare's row name
    assert "train.lr: 0.002" in converged  # what differs is named...
    assert "max_minutes" not in converged, names  # ...but not the budget that "trained to convergence" lifted


def test_until_converged_refuses_a_time_bound_and_a_recipe_without_patience(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"patience_epochs": 0})
    result = runner.invoke(app, ["run", str(recipe), "--until-converged", "--max-minutes", "5",
                                 "--runs-dir", str(tmp_path / "runs")], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "leave out --max-minutes" in result.output
    result = runner.invoke(app, ["run", str(recipe), "--until-converged", "--runs-dir", str(tmp_path / "runs")],
                           env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "train.patience_epochs" in result.output
    assert not (tmp_path / "runs").exists()


def test_another_toolkits_parser_runs_to_its_own_stopping_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """model.kind external: the peer's rule is recorded in its recipe's words, not mlparse's patience, and the run
    has converged when the peer ended its training itself; a peer stopped at a budget before trains again."""
    from helpers.external_fixtures import write_external_recipe
    from mlparse.config import load_recipe

    stopping = "dev LAS not improved for 3 epochs, at most 50"
    recipe = write_external_recipe(tmp_path, train_extra="--sleep 4", external={"stopping": stopping},
                                   train={"patience_epochs": 0})  # mlparse's own patience does not apply to a peer
    assert load_recipe(str(recipe)).hash() == load_recipe(str(recipe), ["external.stopping=other words"]).hash()
    work = tmp_path / "elsewhere"
    work.mkdir()
    monkeypatch.chdir(work)  # the default relative runs folder, another working folder
    run([str(recipe), "--max-minutes", "0.03"])  # the peer sleeps 4 s: its budget stops it
    budget = results_of(work / "runs")
    assert "stopped at its budget" in budget["stop_reason"] and budget.get("convergence") is None
    output = run([str(recipe), "--until-converged"])  # the same run: trained again, with no budget
    assert "trains again from the beginning" in " ".join(output.split())
    results = results_of(work / "runs")
    assert results["status"] == "complete" and results["stop_reason"] == "the peer's own stopping rule"
    convergence = results["convergence"]
    assert convergence["converged"] is True and convergence["rule"] == f"FakePeer's own stopping rule: {stopping}; no time bound"
    assert convergence["patience_epochs"] is None and convergence["max_epochs"] is None and convergence["hours"] > 0
    assert results["max_minutes"] is None and results["training_seconds"] >= 4
    report = runner.invoke(app, ["report"], env={"COLUMNS": "300"})
    assert report.exit_code == 0 and CONVERGED_LABEL in report.output, report.output
    first = results["finished_at"]
    run([str(recipe), "--until-converged"])  # converged already: it stands
    assert results_of(work / "runs")["finished_at"] == first


def test_a_peer_that_ended_on_its_own_inside_a_budget_has_converged(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from helpers.external_fixtures import write_external_recipe

    recipe = write_external_recipe(tmp_path, external={"stopping": "three passes"})
    monkeypatch.chdir(tmp_path)
    run([str(recipe), "--max-minutes", "5"])  # the fake peer ends at once, by itself
    budget = results_of(tmp_path / "runs")
    assert budget["stop_reason"] == "the peer's own stopping rule" and budget.get("convergence") is None
    output = run([str(recipe), "--until-converged"])  # nothing to train: the record says it had converged
    assert "trains" not in output
    results = results_of(tmp_path / "runs")
    assert results["finished_at"] == budget["finished_at"] and results["convergence"]["converged"] is True
    assert results["convergence"]["rule"] == "FakePeer's own stopping rule: three passes; no time bound"
