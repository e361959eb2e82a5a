"""mlparse run's dispatch (mlparse/run_dispatch.py) sits above mlparse's trainer and the external kind: neither
imports the other, and each runner refuses what is not its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mlparse.config import load_recipe
from mlparse.train.runner import RunError, RunOptions, run_recipe
from helpers.external_fixtures import write_external_recipe

PACKAGE = Path(__file__).resolve().parents[1] / "mlparse"


def imported_modules(folder: Path):
    """Every module the files under ``folder`` import (at any depth of the file: imports inside functions count)."""
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                yield path, node.module
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    yield path, alias.name


def test_the_trainer_imports_nothing_of_the_external_kind() -> None:
    upward = [f"{path.relative_to(PACKAGE)}: {module}" for path, module in imported_modules(PACKAGE / "train")
              if module.startswith("mlparse.external") or module == "mlparse.run_dispatch"]
    assert upward == []


def test_the_trainers_runner_refuses_another_toolkits_recipe(tmp_path: Path) -> None:
    config = load_recipe(str(write_external_recipe(tmp_path)))
    with pytest.raises(RunError, match="runs another toolkit's parser, which mlparse.run_dispatch.run_recipe hands"):
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").rglob("results.json"))


def test_an_ensemble_refuses_another_toolkits_recipe_as_a_member(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mlparse.cli.app import app

    recipe = str(write_external_recipe(tmp_path))
    result = CliRunner().invoke(app, ["ensemble", recipe, recipe, "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code != 0
    assert "runs another toolkit's parser, whose model mlparse cannot load" in result.output
    assert not any((tmp_path / "runs").rglob("results.json"))  # refused before anything ran
