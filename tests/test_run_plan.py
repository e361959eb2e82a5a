"""A run's directory, lock, process and device are resolved once (:mod:`mlparse.train.run_plan`), and the runner
trains on the plan it is given."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import torch
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.train import run_plan
from mlparse.run_lock import RunLock, RunLocked, check_free
from mlparse.train.run_plan import DistInfo, RunPlan
from mlparse.train.runner import RunOptions, run_planned, run_recipe
from helpers.run_fixtures import Record, write_tiny_recipe


class Resolutions:
    """Counts, by what they are for, the resolutions of a run directory (by its path), of this process among a
    run's processes, of a lock (by its file) and of a device (by the recipe's hash), wherever they happen."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.counts: Counter = Counter()
        for_recipe, from_environment = RunDir.for_recipe.__func__, DistInfo.from_environment.__func__  # type: ignore[attr-defined]
        pick_device, lock_init = run_plan.pick_device, RunLock.__init__

        def counted_for_recipe(cls: type, runs_dir: Path, config: Any) -> RunDir:
            run_dir = for_recipe(cls, runs_dir, config)
            self.counts["run directory", str(run_dir.path)] += 1
            return run_dir

        def counted_from_environment(cls: type, environ: Any = None) -> DistInfo:
            self.counts["process", None] += 1
            return from_environment(cls, environ)

        def counted_pick_device(config: Any, local_rank: int = 0) -> torch.device:
            self.counts["device", config.hash()] += 1
            return pick_device(config, local_rank)

        def counted_lock(lock: RunLock, folder: Path) -> None:
            self.counts["lock", str(folder)] += 1
            lock_init(lock, folder)

        monkeypatch.setattr(RunDir, "for_recipe", classmethod(counted_for_recipe))
        monkeypatch.setattr(DistInfo, "from_environment", classmethod(counted_from_environment))
        monkeypatch.setattr(run_plan, "pick_device", counted_pick_device)
        monkeypatch.setattr(RunLock, "__init__", counted_lock)

    def of(self, what: str) -> list:
        return [n for (kind, _), n in self.counts.items() if kind == what]


def test_mlparse_run_resolves_the_run_directory_lock_and_device_once(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1})
    resolved = Resolutions(monkeypatch)
    result = CliRunner().invoke(app, ["run", str(recipe), "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    run_dir = RunDir(tmp_path / "runs" / "tiny" / load_recipe(recipe).hash()[:12])
    assert run_dir.read_results().status == COMPLETE  # type: ignore[union-attr]
    assert resolved.counts == Counter({("run directory", str(run_dir.path)): 1, ("process", None): 1,
                                       ("lock", str(run_dir.path)): 1, ("device", load_recipe(recipe).hash()): 1})
    assert not run_dir.lock.exists()  # released


def test_run_recipe_from_python_resolves_each_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": 1}))
    resolved = Resolutions(monkeypatch)
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE
    assert sorted(resolved.counts.values()) == [1, 1, 1, 1] and len(resolved.counts) == 4


def test_ensemble_members_resolve_each_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mlparse.train.ensemble_run import EnsemblePlan, train_members

    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1})
    resolved = Resolutions(monkeypatch)
    members = train_members(EnsemblePlan(members=[str(recipe), str(recipe)]), RunOptions(runs_dir=tmp_path / "runs"))
    assert len(set(members)) == 2  # the repeat trains with the next seed: another run
    assert resolved.of("run directory") == resolved.of("lock") == resolved.of("device") == [1, 1]
    assert {p for (kind, p) in resolved.counts if kind == "run directory"} == {str(m) for m in members}


def test_the_runner_trains_on_the_plan_it_is_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its run directory (not the recipe's under runs_dir), its device (not train.device: ``cuda`` here) and its
    lock, held while training and released after."""
    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": 2, "device": "cuda"}))
    plan = RunPlan(config, RunDir(tmp_path / "elsewhere"), DistInfo(), torch.device("cpu"))
    assert plan.lock is not None and plan.lock.path == plan.run_dir.lock

    def no_second_resolution(*args: object, **kwargs: object) -> None:
        raise AssertionError("the device was resolved again")

    monkeypatch.setattr(run_plan, "pick_device", no_second_resolution)
    monkeypatch.setattr(RunDir, "for_recipe", no_second_resolution)
    held = []

    class WhileTraining(Record):
        def on_eval(self, info: object, improved: bool, lr_decayed: bool) -> None:
            with pytest.raises(RunLocked):
                check_free(plan.run_dir.path)
            held.append(plan.lock.fd is not None)  # type: ignore[union-attr]

    results = run_planned(plan, RunOptions(runs_dir=tmp_path / "runs"), WhileTraining())
    assert results.status == COMPLETE and results.hardware["device"] == "cpu"
    assert held == [True, True]
    assert plan.run_dir.read_results().status == COMPLETE and plan.run_dir.best.is_file()  # type: ignore[union-attr]
    assert not (tmp_path / "runs").exists()
    assert not plan.run_dir.lock.exists() and plan.lock.fd is None  # type: ignore[union-attr]


def test_the_process_comes_from_torchrun_and_only_rank_0_locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"device": "cpu"}))
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):
        monkeypatch.delenv(name, raising=False)
    alone = RunPlan.for_recipe(config, tmp_path / "runs")
    assert alone.dist == DistInfo(rank=0, world=1, local_rank=0, launched=False) and alone.lock is not None
    assert alone.run_dir == RunDir(tmp_path / "runs" / "tiny" / config.hash()[:12])
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv("LOCAL_RANK", "1")
    worker = RunPlan.for_recipe(config, tmp_path / "runs")
    assert worker.dist == DistInfo(rank=3, world=4, local_rank=1, launched=True)
    assert worker.dist.active and not worker.dist.is_main
    assert worker.lock is None and worker.run_dir == alone.run_dir
    alone.run_dir.path.mkdir(parents=True)
    other = RunLock(alone.run_dir.path)
    other.acquire()
    try:
        worker.check_free()  # ranks other than 0 take no lock, so they look at none
        with pytest.raises(RunLocked):
            alone.check_free()
    finally:
        other.release()
    assert worker.device == torch.device("cpu")


def test_the_device_is_resolved_at_first_use_and_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"device": "auto"}))
    calls = []
    monkeypatch.setattr(run_plan, "pick_device", lambda c, rank=0: calls.append(rank) or torch.device("cpu"))
    plan = RunPlan.for_recipe(config, tmp_path / "runs", DistInfo(rank=1, world=2, local_rank=1, launched=True))
    assert calls == []  # building a plan loads no device (mlparse run looks at the lock before torch loads)
    assert plan.device == plan.device == torch.device("cpu")
    assert calls == [1]


def test_building_a_plan_imports_no_torch() -> None:
    import subprocess
    import sys

    code = ("import sys; import mlparse.train.run_plan; import mlparse.cli.run; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
