"""A full disk: the failed write is named in one line, what was written before stays intact, and the same
command resumes to the scores of an uninterrupted run."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any, Callable, List, Optional

import pytest
import torch
from typer.testing import CliRunner

from mlparse import io_utils
from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.io_utils import WriteError, atomic_write_text
from mlparse.results import COMPLETE, RunResults
from mlparse.train import checkpoint
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe
from helpers.run_fixtures import Record, write_tiny_recipe

runner = CliRunner()

# On the CPU: resuming is checked to the bit, and on a GPU the auto sub-batch budget that the log records
# follows the memory free at the time (other processes on the GPU change it).
TRAIN = {"max_epochs": 4, "evals_per_epoch": 2, "device": "cpu"}


class _FullHandle:
    """A write handle on a disk that fills up after ``room`` more bytes."""

    def __init__(self, handle: Any, room: int) -> None:
        self.handle, self.room = handle, room

    def write(self, data: Any) -> int:
        if len(data) > self.room:
            self.handle.write(data[: self.room])
            self.room = 0
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= len(data)
        return self.handle.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.handle, name)


class DiskFull:
    """From the ``nth`` atomic write of a file named ``name`` on, every atomic write fails as on a full disk
    (the disk stays full until the user frees space).  ``name=None`` only records the names written."""

    def __init__(self, name: Optional[str] = None, nth: int = 0) -> None:
        self.name, self.nth = name, nth
        self.written: List[str] = []
        self.full = False

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        original = io_utils._atomic

        def atomic(path: Any, mode: str, write: Callable, encoding: Optional[str]) -> None:
            name = Path(path).name
            self.written.append(name)
            if name == self.name and self.written.count(name) == self.nth:
                self.full = True
            if not self.full:
                return original(path, mode, write, encoding)
            return original(path, mode, lambda handle: write(_FullHandle(handle, 100)), encoding)

        monkeypatch.setattr(io_utils, "_atomic", atomic)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """(results, log without times, the names of the files written atomically, in order) of an uninterrupted run."""
    root = tmp_path_factory.mktemp("reference")
    recorder = DiskFull()
    with pytest.MonkeyPatch.context() as monkeypatch:
        recorder.install(monkeypatch)
        config = load_recipe(write_tiny_recipe(root, train=TRAIN))
        results = run_recipe(config, RunOptions(runs_dir=root / "runs"))
    return results, log_without_times(RunDir.for_recipe(root / "runs", config)), recorder.written


def log_without_times(run_dir: RunDir) -> list:
    entries = [json.loads(line) for line in run_dir.log.read_text().splitlines()]
    for entry in entries:
        entry.pop("elapsed_seconds")
    return entries


def test_a_failed_write_names_the_file_and_leaves_the_old_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "results.json"
    DiskFull("results.json", 2).install(monkeypatch)
    atomic_write_text(target, "old\n")
    with pytest.raises(WriteError) as failed:
        atomic_write_text(target, "new " * 100)
    assert failed.value.filename == str(target) and failed.value.errno == errno.ENOSPC
    assert target.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["results.json"]
    # torch.save reports a failed write as a RuntimeError of its own; checkpoints restate the OSError
    with pytest.raises(WriteError) as failed:
        checkpoint.save({"weights": torch.zeros(1000)}, tmp_path / "last.pt")
    assert failed.value.filename == str(tmp_path / "last.pt") and failed.value.strerror == "No space left on device"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


#: file kind -> (file name, which of its writes fails first): a checkpoint and the log at the second dev
#: check, predictions and evalb reports at the final evaluation, results.json at its last write.
KINDS = {
    "checkpoint": ("last.pt", 2),
    "log": ("log.jsonl", 2),
    "predictions": ("dev.pred.trees", 1),
    "evalb report": ("test.evalb", 1),
    "results.json": ("results.json", -1),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_full_disk_stops_the_run_in_one_line_and_the_same_command_resumes(
        kind: str, reference: tuple, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ref_results, ref_log, ref_written = reference
    name, nth = KINDS[kind]
    nth = nth if nth > 0 else ref_written.count(name)
    recipe = write_tiny_recipe(tmp_path, train=TRAIN)
    run_dir = RunDir.for_recipe(tmp_path / "runs", load_recipe(recipe))
    command = ["run", str(recipe), "--runs-dir", str(tmp_path / "runs")]
    disk = DiskFull(name, nth)
    disk.install(monkeypatch)
    result = runner.invoke(app, command)
    assert disk.full and result.exit_code == 1, result.output
    failed = run_dir.last if name == "last.pt" else run_dir.path / name
    assert f"error: cannot write {failed}: No space left on device" in result.output
    assert "the same command resumes from its last good checkpoint once there is space" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()[-1]) > 0
    assert not list(run_dir.path.rglob("*.tmp"))  # no temporary file left behind
    state = json.loads(run_dir.results.read_text())  # still whole, and not claiming to be complete
    assert state["status"] == "running" and state["dev"] is None
    assert checkpoint.load(run_dir.last)["state"]["checks"] >= 1  # the last good checkpoint
    monkeypatch.undo()
    result = runner.invoke(app, command)
    assert result.exit_code == 0, result.output
    resumed = RunResults.from_json_dict(json.loads(run_dir.results.read_text()))
    assert resumed.status == COMPLETE and resumed.dev == ref_results.dev and resumed.test == ref_results.test
    assert log_without_times(run_dir) == ref_log


def test_temporary_files_of_a_killed_write_are_removed_when_the_run_starts_again(tmp_path: Path) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": 1}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    leftovers = [run_dir.checkpoints.folder / ".last.pt.k2j4x9.tmp", run_dir.checkpoints.folder / ".best.pt.77.a1b2.tmp",
                 run_dir.path / ".results.json.q8w7e6.tmp"]
    for path in leftovers:  # what a SIGKILL in the middle of atomic writes leaves
        path.write_bytes(b"\0" * 1000)
    someone_elses = run_dir.path / ".notes.txt.tmp"
    someone_elses.write_text("not written by mlparse run")
    notes = Record()
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), notes)
    assert not any(path.exists() for path in leftovers) and someone_elses.exists()
    assert notes.notes == [f"removed 3 temporary file(s) left in {run_dir.path} by an interrupted write"]
