"""One writer per run directory: the lock is refused while held, taken over when stale, released on exit."""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse import run_lock
from mlparse.run_dir import RunDir
from mlparse.run_lock import Holder, RunLock, RunLocked
from mlparse.train.runner import RunOptions, run_recipe
from helpers.run_fixtures import REPO, Record, write_tiny_recipe

runner = CliRunner()

HOLD = """
import sys, time
from pathlib import Path
from mlparse.run_lock import RunLock
lock = RunLock(Path(sys.argv[1]))
lock.acquire()
print("held", flush=True)
time.sleep(120)
"""


def hold_in_another_process(folder: Path) -> subprocess.Popen:
    """A process that holds ``folder``'s lock until it is killed."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    process = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], env=env, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    return process


def kill(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def test_a_held_lock_is_refused_naming_its_holder_and_released_on_exit(tmp_path: Path) -> None:
    with RunLock(tmp_path) as lock:
        holder = json.loads(lock.path.read_text())
        assert holder["pid"] == os.getpid() and holder["host"] == socket.gethostname() and holder["started_at"]
        with pytest.raises(RunLocked) as refused:
            RunLock(tmp_path).acquire()
        message = str(refused.value)
        assert f"process {os.getpid()} on {socket.gethostname()}" in message and f"kill {os.getpid()}" in message
        assert "wait for it to finish" in message
    assert not (tmp_path / "run.lock").exists()
    with pytest.raises(RuntimeError):
        with RunLock(tmp_path):
            raise RuntimeError("training failed")
    assert not (tmp_path / "run.lock").exists()  # released on exceptions too
    with RunLock(tmp_path) as again:
        assert again.note is None  # nothing was left behind


def test_a_lock_left_by_a_killed_process_is_taken_over_with_a_note(tmp_path: Path) -> None:
    process = hold_in_another_process(tmp_path)
    try:
        with pytest.raises(RunLocked, match=f"process {process.pid} on "):
            RunLock(tmp_path).acquire()
    finally:
        kill(process)
    assert json.loads((tmp_path / "run.lock").read_text())["pid"] == process.pid  # SIGKILL left it behind
    with RunLock(tmp_path) as lock:
        assert lock.note is not None and f"left by process {process.pid}" in lock.note
        assert json.loads(lock.path.read_text())["pid"] == os.getpid()


def test_without_flock_a_holder_is_checked_by_its_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """File systems without flock (some Lustre mounts): exclusive creation, and the holder's process id."""
    import fcntl

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    lock_file = tmp_path / "run.lock"
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone = Holder(int(done.stdout), socket.gethostname(), "2020-01-01T00:00:00+00:00")
    lock_file.write_text(gone.to_text())
    with RunLock(tmp_path) as lock:  # its process has ended: taken over
        assert lock.note is not None and f"process {gone.pid}" in lock.note and "no longer runs" in lock.note
        with pytest.raises(RunLocked, match=f"process {os.getpid()}"):
            RunLock(tmp_path).acquire()
    assert not lock_file.exists()
    alive = Holder(os.getppid(), socket.gethostname(), "2020-01-01T00:00:00+00:00")
    lock_file.write_text(alive.to_text())
    with pytest.raises(RunLocked, match=f"process {os.getppid()}"):
        RunLock(tmp_path).acquire()
    elsewhere = Holder(4242, "another-machine", "2020-01-01T00:00:00+00:00")
    lock_file.write_text(elsewhere.to_text())
    with pytest.raises(RunLocked, match="cannot check a process on another machine") as refused:
        RunLock(tmp_path).acquire()
    assert f"delete {lock_file}" in str(refused.value)
    assert run_lock.pid_running(os.getpid()) and not run_lock.pid_running(gone.pid)


def test_a_second_run_of_a_training_run_is_refused_at_once(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1})
    config = load_recipe(recipe)
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    run_dir.path.mkdir(parents=True)
    process = hold_in_another_process(run_dir.path)
    try:
        start = time.monotonic()
        result = runner.invoke(app, ["run", str(recipe), "--runs-dir", str(tmp_path / "runs")])
        assert time.monotonic() - start < 10
        assert result.exit_code == 1
        assert f"process {process.pid} on {socket.gethostname()}" in result.output and f"kill {process.pid}" in result.output
        assert "Traceback" not in result.output
        assert not run_dir.results.exists() and not run_dir.checkpoints.folder.exists()  # it touched nothing
        fresh = runner.invoke(app, ["run", str(recipe), "--runs-dir", str(tmp_path / "runs"), "--fresh"])
        assert fresh.exit_code == 1 and f"process {process.pid}" in fresh.output
        assert run_dir.lock.exists()  # --fresh deletes nothing while another process holds the run
    finally:
        kill(process)
    record = Record()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    assert results.status == "complete"
    assert any(f"left by process {process.pid}" in note for note in record.notes)
    assert not run_dir.lock.exists()
