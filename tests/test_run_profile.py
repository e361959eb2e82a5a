"""``mlparse run --profile N`` writes a torch profiler summary of N updates into the run directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mlparse.cli.app import app
from mlparse.config import load_recipe
from mlparse.run_dir import RunDir
from helpers.run_fixtures import write_tiny_recipe

OVERRIDES = ["train.max_epochs=1", "train.device=cpu"]  # 8 trees in batches of 4: two updates


@pytest.mark.parametrize("asked, profiled", [(1, 1), (5, 2)])  # more than the run makes: what it made
def test_profile_summary_of_the_first_updates_is_written(tmp_path: Path, asked: int, profiled: int) -> None:
    recipe = write_tiny_recipe(tmp_path)
    sets = [arg for override in OVERRIDES for arg in ("--set", override)]
    result = CliRunner().invoke(app, ["run", str(recipe), "--runs-dir", str(tmp_path / "runs"), "--profile", str(asked),
                                      *sets])
    assert result.exit_code == 0, result.output
    run_dir = RunDir.for_recipe(tmp_path / "runs", load_recipe(recipe, OVERRIDES))
    text = (run_dir.path / "profile.txt").read_text(encoding="utf-8")
    assert text.startswith(f"torch profiler: {profiled} training update(s) on cpu")
    assert "aten::" in text and "CPU total" in text  # the operations and their times
    assert not list(run_dir.path.glob(".profile.txt.*"))  # written atomically: no temporary left


def test_no_profile_without_the_option(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    sets = [arg for override in OVERRIDES for arg in ("--set", override)]
    result = CliRunner().invoke(app, ["run", str(recipe), "--runs-dir", str(tmp_path / "runs"), *sets])
    assert result.exit_code == 0, result.output
    assert not (RunDir.for_recipe(tmp_path / "runs", load_recipe(recipe, OVERRIDES)).path / "profile.txt").exists()
