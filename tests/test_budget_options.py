"""Every command that takes a time budget refuses one that is not a finite number of minutes >= 0, naming the
option (or the recipe key, or the suite's line), before anything is prepared or trained."""

from __future__ import annotations

from pathlib import Path
from typing import List

import pytest
from typer.testing import CliRunner

import mlparse.cli.demo as demo_cli
import mlparse.sweep.driver as sweep_driver
import mlparse.train.ensemble_run as ensemble_run
import mlparse.train.runner as runner_module
from mlparse.cli import app
from mlparse.sweep.suite import SuiteError, load_suite
from helpers.run_fixtures import write_tiny_recipe

runner = CliRunner()
BAD = ["nan", "-5", "inf", "-inf", "-0.001"]


@pytest.fixture
def nothing_trains(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any training or data preparation fails the test: a refused budget must stop the command before them."""
    def trained(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the command went on to prepare or train")

    monkeypatch.setattr(runner_module, "run_planned", trained)
    monkeypatch.setattr(ensemble_run, "run_ensemble", trained)
    monkeypatch.setattr(sweep_driver.SweepRun, "run", trained)
    monkeypatch.setattr(demo_cli, "find_and_prepare", trained)


def refused(argv: List[str], option: str, value: str) -> str:
    result = runner.invoke(app, argv, env={"COLUMNS": "300"})
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "AssertionError" not in repr(result.exception)
    line = result.output.strip()
    assert line.startswith(f"error: {option} ") and value in line and "\n" not in line, line
    return line


@pytest.mark.parametrize("value", BAD)
def test_run_refuses_a_bad_max_minutes(tmp_path: Path, value: str, nothing_trains: None) -> None:
    recipe = write_tiny_recipe(tmp_path)
    refused(["run", str(recipe), "--runs-dir", str(tmp_path / "runs"), "--max-minutes", value], "--max-minutes", value)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("value", BAD)
def test_ensemble_refuses_a_bad_max_minutes(tmp_path: Path, value: str, nothing_trains: None) -> None:
    recipe = write_tiny_recipe(tmp_path)
    refused(["ensemble", str(recipe), str(recipe), "--runs-dir", str(tmp_path / "runs"), "--max-minutes", value],
            "--max-minutes", value)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("value", BAD)
def test_sweep_refuses_a_bad_max_minutes(tmp_path: Path, value: str, nothing_trains: None) -> None:
    recipe = write_tiny_recipe(tmp_path)
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"members:\n  - {recipe}\n", encoding="utf-8")
    refused(["sweep", str(suite), "--runs-dir", str(tmp_path / "runs"), "--max-minutes", value], "--max-minutes", value)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("value", BAD)
def test_demo_refuses_bad_minutes_before_preparing_data(tmp_path: Path, value: str, nothing_trains: None) -> None:
    refused(["demo", "--out", str(tmp_path / "data"), "--runs-dir", str(tmp_path / "runs"), "--minutes", value],
            "--minutes", value)
    assert not (tmp_path / "data").exists() and not (tmp_path / "runs").exists()


@pytest.mark.parametrize("value", ["-1", ".nan", ".inf"])
def test_run_refuses_a_bad_train_max_minutes_of_the_recipe_and_of_set(tmp_path: Path, value: str,
                                                                      nothing_trains: None) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_minutes": float(value.lstrip("."))})
    result = runner.invoke(app, ["run", str(recipe), "--runs-dir", str(tmp_path / "runs")], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "train.max_minutes" in result.output, result.output
    recipe = write_tiny_recipe(tmp_path)
    result = runner.invoke(app, ["run", str(recipe), "--runs-dir", str(tmp_path / "runs"),
                                 "--set", f"train.max_minutes={value}"], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and f"--set train.max_minutes={value}" in result.output, result.output
    assert not (tmp_path / "runs").exists()


def test_zero_minutes_is_still_a_budget(tmp_path: Path, nothing_trains: None) -> None:
    """0 trains one update (documented): accepted, so the command goes on to train (here: the stand-in fails)."""
    recipe = write_tiny_recipe(tmp_path)
    result = runner.invoke(app, ["run", str(recipe), "--runs-dir", str(tmp_path / "runs"), "--max-minutes", "0"])
    assert isinstance(result.exception, AssertionError)


@pytest.mark.parametrize("value", [".nan", ".inf", "-1"])
def test_a_suite_files_max_minutes_must_be_finite_and_not_negative(tmp_path: Path, value: str) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"max_minutes: {value}\nmembers:\n  - demo\n", encoding="utf-8")
    with pytest.raises(SuiteError, match=r"suite.yaml, line 1: max_minutes"):
        load_suite(str(suite))
