"""A run whose process ended never stays "running": Ctrl-C writes ``interrupted``, and a results.json that says
running with no live holder of its lock (a SIGKILL, a machine gone) is read as interrupted; the report counts such
runs apart from the ones that train."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from helpers.run_fixtures import write_tiny_recipe
from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.results import INTERRUPTED, RUNNING
from mlparse.run_dir import RunDir
from mlparse.run_index.collect import load_run
from mlparse.run_lock import RunLock
from mlparse.train.runner import RunOptions, run_recipe
from mlparse.train.trainer import Reporter

runner = CliRunner()


class CtrlC(Reporter):
    def on_step(self, info) -> None:  # type: ignore[no-untyped-def]
        if info.step == 2:
            raise KeyboardInterrupt


def test_ctrl_c_writes_interrupted_and_the_same_command_resumes(tmp_path: Path) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": 3}))
    with pytest.raises(KeyboardInterrupt):
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), CtrlC())
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    assert json.loads(run_dir.results.read_text())["status"] == INTERRUPTED
    assert load_run(run_dir.path).state == INTERRUPTED
    assert run_recipe(config, RunOptions(runs_dir=tmp_path / "runs")).status == "complete"


def test_running_without_a_live_lock_holder_is_read_as_interrupted(tmp_path: Path) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": 1}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    data = json.loads(run_dir.results.read_text())
    data["status"] = RUNNING  # as a SIGKILL leaves it
    run_dir.results.write_text(json.dumps(data))
    record = load_run(run_dir.path)
    assert record.state == INTERRUPTED and any("no live process holds its lock" in note for note in record.notes)
    with RunLock(run_dir.path):  # a live process holds it: it trains
        assert load_run(run_dir.path).state == RUNNING
    report = runner.invoke(app, ["report", str(tmp_path / "runs"), "--format", "markdown"], env={"COLUMNS": "300"})
    assert report.exit_code == 0 and INTERRUPTED in report.output, report.output
