"""Around torch.compile in training (mlparse/train/compile_runtime.py): the persistent cache, the recompile limit
above the length buckets, and the budget alarm that stops an update a graph is compiling in."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from helpers.trainers import tiny_trainer
from mlparse.train.compile import BACKEND_VARIABLE, BUCKETS, uncompile_encoder
from mlparse.train.compile_runtime import (CACHE_VARIABLE, BudgetAlarm, BudgetReached, buckets_up_to,
                                           persistent_cache_dir, raise_recompile_limit, use_persistent_cache)
from mlparse.train.trainer import GRAPH_STEP_UNCOMPILED_NOTE, Reporter


def test_the_cache_goes_to_the_users_cache_folder_unless_one_is_set(tmp_path: Path) -> None:
    environ = {"HOME": str(tmp_path / "home")}
    assert use_persistent_cache(environ) == str(tmp_path / "home" / ".cache" / "mlparse" / "torchinductor")
    assert Path(environ[CACHE_VARIABLE]).is_dir()
    environ = {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert persistent_cache_dir(environ) == tmp_path / "xdg" / "mlparse" / "torchinductor"
    mine = {"HOME": str(tmp_path), CACHE_VARIABLE: "/somewhere/else"}
    assert use_persistent_cache(mine) == "/somewhere/else"  # the user's choice is kept


def test_the_recompile_limit_covers_every_bucket_for_training_and_parsing() -> None:
    assert buckets_up_to(16) == 1 and buckets_up_to(17) == 2
    assert buckets_up_to(302) == sum(1 for size in BUCKETS if size < 302) + 1 >= 12  # the demo's max_len 300
    config = SimpleNamespace(recompile_limit=8, cache_size_limit=8)
    limit = raise_recompile_limit(302, config)
    assert limit == config.recompile_limit == config.cache_size_limit == 2 * buckets_up_to(302) + 4
    high = SimpleNamespace(recompile_limit=500)
    assert raise_recompile_limit(302, high) == 500 and high.recompile_limit == 500  # never lowered


def test_the_alarm_interrupts_a_long_step_and_waits_for_a_shielded_one() -> None:
    alarm = BudgetAlarm()
    assert alarm.usable
    started = time.monotonic()
    with pytest.raises(BudgetReached):
        with alarm.armed(0.2):
            while time.monotonic() - started < 5:
                time.sleep(0.01)
    assert time.monotonic() - started < 1.0 and alarm.fired
    alarm = BudgetAlarm()
    done = []
    with pytest.raises(BudgetReached):
        with alarm.armed(0.1):
            with alarm.shielded():
                time.sleep(0.3)  # the alarm comes in here and waits
                done.append(True)
    assert done == [True]
    with alarm.armed(5.0):  # disarmed on leaving: nothing comes later
        pass
    time.sleep(0.05)


class Notes(Reporter):
    def __init__(self) -> None:
        self.notes: list = []

    def on_note(self, message: str) -> None:
        self.notes.append(message)


def slow_first_call(trainer, seconds: float) -> None:  # type: ignore[no-untyped-def]
    """The compiled encoder's first call takes ``seconds`` longer, as a compilation would."""
    compiled, calls = trainer.compiled.compiled, []

    def call(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 1:
            time.sleep(seconds)
        return compiled(*args, **kwargs)

    trainer.compiled.compiled = call


def test_a_budget_that_ends_while_a_graph_compiles_stops_the_run_there(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The first update 'compiles' for 4 s (a sleep inside the compiled encoder's first call) under a 1.2-second
    budget: fit returns at the budget, not after the compilation, with the update dropped and a note."""
    monkeypatch.setenv(BACKEND_VARIABLE, "eager")
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))
    trainer = tiny_trainer(tmp_path, "cython", train={"compile": "encoder", "max_minutes": 0.02})
    assert trainer.alarm is not None and trainer.compiled is not None
    notes = Notes()
    trainer.reporter = notes
    slow_first_call(trainer, 4.0)
    started = time.monotonic()
    state = trainer.fit()
    assert time.monotonic() - started < 3.5  # stopped at the budget, not after the 4-second "compilation"
    assert state.stop_reason == "max_minutes" and state.step == 0
    assert any("ended inside update 1" in note and "train.compile: off" in note for note in notes.notes)
    assert "forward" not in trainer.model.encoder.__dict__  # the last check parsed eagerly
    uncompile_encoder(trainer.model)


def test_a_compiled_run_within_its_budget_trains_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BACKEND_VARIABLE, "eager")
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))
    trainer = tiny_trainer(tmp_path, "cython", train={"compile": "encoder", "max_minutes": 5.0, "max_updates": 3})
    state = trainer.fit()
    assert state.step == 3 and state.stop_reason == "max_updates"
    uncompile_encoder(trainer.model)


def test_the_graph_step_without_compiling_says_it_is_slower_on_a_cpu(tmp_path: Path) -> None:
    notes = Notes()
    from helpers.run_fixtures import write_tiny_recipe
    from mlparse.config import load_recipe
    from mlparse.models.span_parser import build_parser
    from mlparse.tasks.constituency import ConstituencyTask
    from mlparse.tasks.treebank import TreeSplit, golds_of
    from mlparse.train.checkpoint import CheckpointFiles
    from mlparse.train.trainer import Trainer
    from helpers.run_fixtures import tiny_trees
    import torch

    config = load_recipe(write_tiny_recipe(tmp_path, train={"step": "graph"}))
    trees = tiny_trees()
    parser = build_parser(config.model, trees, span=config.span)
    split = TreeSplit(path=tmp_path / "train.trees", examples=trees)
    Trainer(config, parser, ConstituencyTask(), split, golds_of(trees, parser.labels), split,
            CheckpointFiles(tmp_path / "checkpoints"), torch.device("cpu"), reporter=notes)
    assert GRAPH_STEP_UNCOMPILED_NOTE in notes.notes


COMPILE_ONCE = """
import torch
from mlparse.train.compile_runtime import use_persistent_cache
use_persistent_cache()
from torch._dynamo.utils import counters
f = torch.compile(lambda x: (x.sin() * 2 + 1).sum(), backend="inductor")
f(torch.randn(10))
print(int(counters["inductor"]["fxgraph_cache_hit"]))
"""


def test_a_second_process_reads_its_graph_from_the_persistent_cache(tmp_path: Path) -> None:
    """inductor itself (no stand-in): the second process compiling the same graph finds it in mlparse's cache."""
    env = {k: v for k, v in os.environ.items() if k != CACHE_VARIABLE} | {"XDG_CACHE_HOME": str(tmp_path)}
    hits = [subprocess.run([sys.executable, "-c", COMPILE_ONCE], env=env, capture_output=True, text=True, check=True,
                           timeout=300).stdout.split()[-1] for _ in range(2)]
    assert hits == ["0", "1"]
    assert (tmp_path / "mlparse" / "torchinductor").is_dir()


def test_an_update_that_compiled_does_not_time_the_next_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first update 'compiles' for 1.5 s: the clock that predicts the next update and the last dev check (and so
    when a budget stops training) leaves it out, so one slow compilation does not end a run's budget early."""
    monkeypatch.setenv(BACKEND_VARIABLE, "eager")
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))
    import torch

    torch._dynamo.reset()  # the first update compiles, whatever the tests before compiled in this process
    trainer = tiny_trainer(tmp_path, "cython", train={"compile": "encoder", "max_minutes": 5.0, "max_updates": 4})
    slow_first_call(trainer, 1.5)
    state = trainer.fit()
    assert state.step == 4 and trainer.compile_seconds >= 1.5
    assert all(seconds < 1.5 for seconds in trainer.clock.recent_updates)
    uncompile_encoder(trainer.model)
