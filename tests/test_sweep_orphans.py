"""A member whose run another process still trains (the driver of an earlier sweep was killed with ``kill -9``, its
member kept going) is followed by the next sweep in the slot it takes, never started beside another member where
one slot exists, shown in the status table, and started again if it ends before its run finished (issue 34)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List

import pytest
from rich.console import Console

from mlparse.results import COMPLETE, RUNNING, RunResults
from mlparse.run_dir import RunDir
from mlparse.sweep.driver import SweepRun
from mlparse.sweep.local import LocalLauncher
from mlparse.sweep.status import QUEUED
from mlparse.sweep.suite import load_suite
from mlparse.sweep.table import status_table
from mlparse.run_lock import RunLocked, check_free, pid_running
from helpers.run_fixtures import REPO, write_tiny_recipe

#: A process that holds a run directory's lock (and does nothing else) until it is killed.
HOLD_LOCK = ("import sys, time\nfrom mlparse.run_lock import RunLock\nlock = RunLock(sys.argv[1])\n"
             "lock.acquire()\nprint('held', flush=True)\ntime.sleep(600)\n")


@pytest.fixture(autouse=True)
def member_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Member processes import this checkout's mlparse, on one thread."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")


def suite_of(tmp_path: Path, **trains: dict) -> Path:
    lines = "".join(f"  - {write_tiny_recipe(tmp_path / name, name=name, train=train)}\n"
                    for name, train in trains.items())
    path = tmp_path / "suite.yaml"
    path.write_text(f"members:\n{lines}", encoding="utf-8")
    return path


def holder_of(folder: Path):  # type: ignore[no-untyped-def]
    """The live holder of ``folder``'s run lock, or None when it is free."""
    try:
        check_free(folder)
    except RunLocked as error:
        return error.holder
    return None


def hold_lock(folder: Path, env: Dict[str, str] | None = None) -> subprocess.Popen:
    folder.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(folder)], stdout=subprocess.PIPE, text=True,
                               env={**os.environ, **(env or {})})
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    return process


class Watching(LocalLauncher):
    """The local launcher on CPU (one slot), remembering which members it started and, for each, which members'
    run locks were held at that moment."""

    def __init__(self, dirs: Dict[str, Path]) -> None:
        super().__init__(gpus_per_member=0)
        self.dirs = dirs
        self.started: List[str] = []
        self.busy: Dict[str, List[str]] = {}

    def start(self, member, argv, run_dir):  # type: ignore[no-untyped-def]
        busy = [label for label, folder in self.dirs.items() if holder_of(folder) is not None]
        handle = super().start(member, argv, run_dir)
        if handle is not None:
            self.started.append(member.label)
            self.busy[member.label] = busy
        return handle


def wait_until(condition, seconds: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.2)


@pytest.mark.slow  # a sweep driver and three member processes (tiny recipes)
def test_a_rerun_after_kill_9_of_the_driver_never_runs_two_members_in_one_slot(tmp_path: Path) -> None:
    suite = suite_of(tmp_path, **{"tiny-long": {"max_epochs": 100000, "patience_epochs": 100000, "max_minutes": 0.3},
                                  "tiny-short": {"max_epochs": 1}})
    runs = tmp_path / "runs"
    members = load_suite(str(suite)).members()
    dirs = {member.label: RunDir.for_recipe(runs, member.config).path for member in members}
    driver = subprocess.Popen([sys.executable, "-m", "mlparse", "sweep", str(suite), "--runs-dir", str(runs),
                               "--gpus-per-member", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    orphan = None
    try:
        wait_until(lambda: holder_of(dirs["tiny-long"]) is not None, 180, "the first member's run lock")
        orphan = holder_of(dirs["tiny-long"]).pid
        os.kill(driver.pid, signal.SIGKILL)  # the driver dies; its member trains on
        driver.wait()
        assert pid_running(orphan) and holder_of(dirs["tiny-short"]) is None
        notes: List[str] = []
        seen: List[list] = []
        launcher = Watching(dirs)
        rows = SweepRun("suite", members, runs, None, launcher, announce=notes.append, on_refresh=seen.append).run()
    finally:
        if driver.poll() is None:
            driver.kill()
        if orphan is not None and pid_running(orphan):
            os.kill(orphan, signal.SIGKILL)
    # the orphan was followed, not started again, and the other member started only once its lock was free
    assert launcher.started == ["tiny-short"]
    assert launcher.busy == {"tiny-short": []}
    assert any(note.startswith(f"tiny-long: its run is still being trained by pid {orphan}") for note in notes)
    # the status table showed it running, holding the one slot, while the other member waited
    reason = f"pid {orphan}, not started by this sweep: holds its slot until it ends"
    waiting = [table for table in seen if [(row.label, row.state, row.reason) for row in table] ==
               [("tiny-long", RUNNING, reason), ("tiny-short", QUEUED, None)]]
    assert waiting
    console = Console(width=300, record=True)
    console.print(status_table("suite", waiting[0]))
    assert f"running ({reason})" in console.export_text()
    assert [(row.label, row.state) for row in rows] == [("tiny-long", COMPLETE), ("tiny-short", COMPLETE)]
    results = RunResults.from_json_dict(json.loads(RunDir(dirs["tiny-long"]).results.read_text()))
    assert results.stop_reason == "max_minutes"  # trained to its own budget by the process the first sweep started
    assert "training on from its last checkpoint" not in (dirs["tiny-long"] / "sweep.log").read_text()


@pytest.mark.slow  # two member processes (tiny recipes)
def test_a_followed_process_that_ends_early_is_started_again_after_it(tmp_path: Path) -> None:
    # tiny-a trains long enough (a few seconds) for the status refreshes (every 2 s) to see it running
    suite = suite_of(tmp_path, **{"tiny-a": {"max_epochs": 40}, "tiny-b": {"max_epochs": 1}})
    runs = tmp_path / "runs"
    members = load_suite(str(suite)).members()
    dirs = {member.label: RunDir.for_recipe(runs, member.config).path for member in members}
    holder = hold_lock(dirs["tiny-a"])  # a process that holds tiny-a's run and dies before finishing it
    timer = threading.Timer(4.0, holder.kill)
    notes: List[str] = []
    seen: List[list] = []
    launcher = Watching(dirs)
    timer.start()
    try:
        rows = SweepRun("suite", members, runs, None, launcher, announce=notes.append,
                        on_refresh=lambda rows: seen.append([(row.label, row.state) for row in rows])).run()
    finally:
        timer.cancel()
        holder.kill()
        holder.wait()
    assert [("tiny-a", RUNNING), ("tiny-b", QUEUED)] in seen
    assert launcher.started == ["tiny-a", "tiny-b"] and launcher.busy == {"tiny-a": [], "tiny-b": []}
    assert any("tiny-a: the process this sweep followed ended before its run finished; starting it" == note
               for note in notes)
    assert [(row.label, row.state) for row in rows] == [("tiny-a", COMPLETE), ("tiny-b", COMPLETE)]


def test_an_adopted_process_holds_the_gpu_group_it_sees_or_overbooks(tmp_path: Path) -> None:
    class Fake:
        label = "x"

    script = [sys.executable, "-c", "pass"]
    launcher = LocalLauncher(gpus=["3", "5"])
    holder = hold_lock(tmp_path / "held", env={"CUDA_VISIBLE_DEVICES": "5"})
    try:
        adopted = launcher.adopt(Fake(), "pid 1", RunDir(tmp_path / "held"))  # type: ignore[arg-type]
        assert adopted is not None and adopted.job == f"pid {holder.pid}" and adopted.slot == ["5"]
        assert launcher.adopt(Fake(), None, RunDir(tmp_path / "free")) is None  # type: ignore[arg-type]
        first = launcher.start(Fake(), script, RunDir(tmp_path / "m1"))  # type: ignore[arg-type]
        assert first is not None and first.slot == ["3"]
        assert launcher.start(Fake(), script, RunDir(tmp_path / "m2")) is None  # type: ignore[arg-type]
        assert not adopted.done()
    finally:
        holder.kill()
        holder.wait()
    assert adopted.done() and adopted.outcome().returncode == 1 and list(launcher.free) == [["5"]]
    first.outcome()
    assert first.done()
    # on CPU, one slot: a second adopted process runs without one, and nothing starts until both have ended
    cpu = LocalLauncher(gpus_per_member=0)
    holders = [hold_lock(tmp_path / f"cpu{k}") for k in range(2)]
    try:
        handles = [cpu.adopt(Fake(), None, RunDir(tmp_path / f"cpu{k}")) for k in range(2)]  # type: ignore[arg-type]
        assert cpu.overbooked == 1 and not cpu.free
        holders[0].kill()
        holders[0].wait()
        assert handles[0].done() and cpu.start(Fake(), script, RunDir(tmp_path / "m3")) is None  # type: ignore[arg-type]
    finally:
        for process in holders:
            process.kill()
            process.wait()
    assert handles[1].done() and cpu.overbooked == 0
    started = cpu.start(Fake(), script, RunDir(tmp_path / "m4"))  # type: ignore[arg-type]
    assert started is not None
    started.outcome()
