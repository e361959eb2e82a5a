"""Torch threads for a run (mlparse/train/threads.py): the count, the reason the log gives, and the OpenMP wait policy."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mlparse.train import threads
from mlparse.train.threads import SHARING_VARIABLE, WAIT_POLICY, choose_threads, wait_policy


def test_a_recipe_that_names_its_threads_gets_them() -> None:
    choice = choose_threads(3, sharing=2, cores=2)
    assert (choice.threads, choice.reason) == (3, "train.num_threads")


def test_unset_threads_share_the_cores_among_the_trainings_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    assert choose_threads(None, sharing=1, cores=8).threads == 8
    assert choose_threads(None, sharing=3, cores=8).threads == 2
    assert choose_threads(None, sharing=4, cores=2).threads == 1  # never none
    assert "shared by 3 trainings" in choose_threads(None, sharing=3, cores=8).reason
    monkeypatch.setenv(SHARING_VARIABLE, "2")
    assert choose_threads(None, cores=8).threads == 4
    monkeypatch.setenv(SHARING_VARIABLE, "many")
    assert choose_threads(None, cores=8).threads == 8


def test_the_default_is_what_torch_chose_before_mlparse_set_any() -> None:
    import torch

    before = torch.get_num_threads()
    first = threads.torch_default_threads()
    torch.set_num_threads(1)
    try:
        assert threads.torch_default_threads() == first == before
    finally:
        torch.set_num_threads(before)


def test_the_cli_makes_idle_openmp_threads_sleep_unless_the_user_chose(tmp_path) -> None:
    code = ("import os, sys; sys.argv = ['mlparse', '--help']\n"
            "from mlparse.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            f"print('POLICY', os.environ.get('{WAIT_POLICY}'))")
    env = {k: v for k, v in os.environ.items() if k != WAIT_POLICY}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert "POLICY PASSIVE" in out
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**env, WAIT_POLICY: "ACTIVE"}).stdout
    assert "POLICY ACTIVE" in out


def test_the_policy_line_says_what_was_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(WAIT_POLICY, raising=False)
    assert "default wait policy" in wait_policy()
    monkeypatch.setenv(WAIT_POLICY, "PASSIVE")
    assert wait_policy() == "OMP_WAIT_POLICY=PASSIVE"


def test_a_run_says_first_how_many_threads_it_uses_and_why(tmp_path) -> None:
    from helpers.run_fixtures import Record, write_tiny_recipe
    from mlparse.config import load_recipe
    from mlparse.run_dir import RunDir
    from mlparse.train.runner import RunOptions, run_recipe

    record = Record()
    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": 1, "num_threads": 1}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    assert record.threads == [f"torch threads: 1 (train.num_threads); {wait_policy()}"]
    results = RunDir.for_recipe(tmp_path / "runs", config).read_results()
    assert results.hardware["torch_threads"] == 1 and results.hardware["torch_threads_reason"] == "train.num_threads"
