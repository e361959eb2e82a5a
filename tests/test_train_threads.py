"""Torch threads for a run (mlparse/train/threads.py): the count, the reason the log gives, and the OpenMP wait policy."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from mlparse.train import threads
from mlparse.train.cpu_share import CpuSampler, ThreadGovernor, read_machine_busy, threads_for
from mlparse.train.threads import (SHARING_VARIABLE, SPIN_COUNT, WAIT_POLICY, apply_waiting, choose_threads,
                                   choose_waiting, trainings_at_once, wait_policy)


def test_a_recipe_that_names_its_threads_gets_them() -> None:
    choice = choose_threads(3, sharing=2, cores=2)
    assert (choice.threads, choice.reason) == (3, "train.num_threads")


def test_unset_threads_share_the_cores_among_the_trainings_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    assert choose_threads(None, sharing=1, cores=8, others=None).threads == 8
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


def _policy_after_cli(env: dict) -> str:
    code = ("import os, sys; sys.argv = ['mlparse', '--help']\n"
            "from mlparse.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            f"print('POLICY', os.environ.get('{WAIT_POLICY}'), os.environ.get('{SPIN_COUNT}'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    return out.strip().splitlines()[-1]


def test_the_cli_leaves_idle_threads_spinning_unless_the_user_chose() -> None:
    env = {k: v for k, v in os.environ.items() if k not in (WAIT_POLICY, SPIN_COUNT)}
    expected_spin = threads.DEFAULT_SPIN if threads.DEFAULT_SPIN is not None else "None"
    assert _policy_after_cli(env) == f"POLICY None {expected_spin}"  # never PASSIVE: it halved training speed
    assert _policy_after_cli({**env, WAIT_POLICY: "PASSIVE"}) == "POLICY PASSIVE None"
    assert _policy_after_cli({**env, SPIN_COUNT: "1000"}) == "POLICY None 1000"


def test_the_users_wait_variables_win_and_the_reason_says_so() -> None:
    choice = choose_waiting({WAIT_POLICY: "ACTIVE"})
    assert choice.variables == {} and choice.reason == "OMP_WAIT_POLICY=ACTIVE (set by the user)"
    choice = choose_waiting({SPIN_COUNT: "20k"})
    assert choice.variables == {} and "GOMP_SPINCOUNT=20k (set by the user)" == choice.reason
    environ: dict = {}
    chosen = apply_waiting(environ)
    assert environ == chosen.variables
    assert WAIT_POLICY not in environ  # the default never makes idle threads sleep at once


def test_the_policy_line_says_what_was_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(WAIT_POLICY, raising=False)
    monkeypatch.delenv(SPIN_COUNT, raising=False)
    assert "default wait" in wait_policy()
    monkeypatch.setenv(WAIT_POLICY, "PASSIVE")
    assert wait_policy() == "OMP_WAIT_POLICY=PASSIVE (from the environment: yours wins)"
    monkeypatch.setenv(SPIN_COUNT, "5000")
    assert wait_policy() == "OMP_WAIT_POLICY=PASSIVE GOMP_SPINCOUNT=5000 (from the environment: yours wins)"


def test_a_training_alone_leaves_the_cores_others_keep_busy_and_adapts() -> None:
    quiet = choose_threads(None, sharing=1, cores=2, others=0.1)
    assert (quiet.threads, quiet.most, quiet.adapts) == (2, 2, True)
    loaded = choose_threads(None, sharing=1, cores=2, others=1.0)  # another training already runs
    assert (loaded.threads, loaded.most) == (1, 2) and "kept 1.0 of 2 cores busy" in loaded.reason
    unknown = choose_threads(None, sharing=1, cores=2, others=None)  # not measured: torch's default, adapting
    assert (unknown.threads, unknown.most) == (2, 2)
    assert not choose_threads(3, sharing=1, cores=2, others=2.0).adapts  # the user's count is fixed
    side_by_side = choose_threads(None, sharing=2, cores=2, others=0.0)  # fold taggers of one command
    assert (side_by_side.threads, side_by_side.adapts) == (1, False)
    assert not choose_threads(None, sharing=1, cores=1).adapts  # one core: nothing to adapt


def test_threads_for_leaves_a_core_to_whoever_keeps_half_of_one_busy() -> None:
    assert [threads_for(2, others, 2) for others in (0.0, 0.3, 0.49, 0.5, 1.0, 1.9, 3.0)] == [2, 2, 2, 1, 1, 1, 1]
    assert [threads_for(8, others, 8) for others in (0.0, 0.6, 1.0, 2.4, 2.6)] == [8, 7, 7, 6, 5]
    assert threads_for(8, 0.0, 4) == 4  # never more than the start's


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_sampler_counts_other_processes_cores_not_its_own() -> None:
    clock, machine, own = _Clock(), [100.0], [10.0]
    sampler = CpuSampler(machine=lambda: machine[0], own=lambda: own[0], clock=clock)
    assert sampler.sample() is None  # the first call starts the interval
    clock.now, machine[0], own[0] = 2.0, 103.0, 11.5  # 3 busy core-seconds in 2 s, 1.5 of them this process's
    assert sampler.sample() == pytest.approx(0.75)
    clock.now, machine[0], own[0] = 4.0, 105.0, 13.6  # clock ticks can make the difference negative: 0
    assert sampler.sample() == 0.0
    assert CpuSampler(machine=lambda: None).sample() is None  # no /proc/stat: nothing known


def test_the_machine_busy_time_is_read_from_proc_stat(tmp_path) -> None:
    stat = tmp_path / "stat"
    stat.write_text("cpu  100 5 50 1000 20 3 2 1 40 0\ncpu0 50 2 25 500 10 1 1 0 20 0\n")
    hz = os.sysconf("SC_CLK_TCK")
    # user+nice+system+irq+softirq+steal; idle and iowait out; guest time is inside user time already
    assert read_machine_busy(stat) == pytest.approx((100 + 5 + 50 + 3 + 2 + 1) / hz)
    assert read_machine_busy(tmp_path / "missing") is None
    stat.write_text("intr 1 2 3\n")
    assert read_machine_busy(stat) is None


def _governor(samples: list, most: int = 2) -> tuple:
    clock, calls = _Clock(), []
    values = iter(samples)

    class Sampler:
        def sample(self):
            return next(values, None)

    governor = ThreadGovernor(most=most, cores=2, interval=2.0, sampler=Sampler(), set_threads=calls.append,
                              clock=clock)
    return governor, clock, calls


def test_the_governor_gives_a_thread_up_at_once_and_takes_it_back_after_two_quiet_looks() -> None:
    governor, clock, calls = _governor([None, None, 1.0, 0.1, 1.0, 0.1, 0.0])
    governor.after_update()  # within the interval: no look
    clock.now = 2.0
    governor.after_update()  # the first sample of the interval (None): nothing known
    clock.now = 4.0
    governor.after_update()  # another training keeps a core busy
    assert calls == [1] and governor.current == 1
    clock.now = 5.0
    governor.after_update()  # not yet time to look again
    assert calls == [1]
    for now in (6.0, 8.0):  # quiet, then busy again: stays at 1
        clock.now = now
        governor.after_update()
    assert calls == [1]
    for now in (10.0, 12.0):  # two quiet looks in a row: back to 2
        clock.now = now
        governor.after_update()
    assert calls == [1, 2] and governor.changes == 2
    clock.now = 20.0
    assert governor.summary() == {"1": 8.0, "2": 12.0}  # 0-4 and 12-20 at 2 threads, 4-12 at 1


def test_a_governor_that_sees_a_busy_neighbour_process_gives_a_thread_up() -> None:
    """A real busy process beside a real sampler: within a few looks the governor trains on one thread."""
    if read_machine_busy() is None:
        pytest.skip("no /proc/stat on this system")
    spinner = subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 20\nwhile time.time() < end: pass"])
    try:
        calls: list = []
        governor = ThreadGovernor(most=2, cores=2, interval=0.3, set_threads=calls.append)
        deadline = time.monotonic() + 10
        while governor.current == 2 and time.monotonic() < deadline:
            time.sleep(0.05)
            governor.after_update()
        assert calls[:1] == [1], "a process spinning on one of 2 cores should take one thread away"
    finally:
        spinner.kill()
        spinner.wait()


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


def test_a_run_whose_threads_nobody_chose_adapts_and_says_how_long_at_each_count(tmp_path, monkeypatch) -> None:
    from helpers.run_fixtures import Record, write_tiny_recipe
    from mlparse.config import load_recipe
    from mlparse.run_dir import RunDir
    from mlparse.train.runner import RunOptions, run_recipe

    monkeypatch.setattr(threads, "_TORCH_DEFAULT", 2)  # a machine of 2 cores, whatever threads this worker set
    record = Record()
    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": 1, "num_threads": None}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    assert "fewer while other processes keep cores busy" in record.threads[0]
    hardware = RunDir.for_recipe(tmp_path / "runs", config).read_results().hardware
    assert set(hardware["torch_threads_seconds"]) <= {"1", "2"}
    assert sum(hardware["torch_threads_seconds"].values()) > 0


def test_fold_taggers_started_side_by_side_are_told_how_many_share_the_cores(tmp_path, monkeypatch) -> None:
    """The tagger pool sets MLPARSE_TRAININGS_AT_ONCE for the processes it starts (choose_threads reads it)."""
    from helpers.run_fixtures import write_tiny_recipe
    from mlparse.config import load_recipe
    from mlparse.train import tagger_pool

    seen: dict = {}

    class Started:
        pid = 4242

        def __init__(self, argv, **kwargs) -> None:  # type: ignore[no-untyped-def]
            seen.update(kwargs["env"])

    monkeypatch.setattr(tagger_pool.subprocess, "Popen", Started)
    tagger = load_recipe(write_tiny_recipe(tmp_path, train={"num_threads": 1}))
    tagger_pool._start(tagger, 0, "fold 1", tmp_path / "runs", tmp_path, 0, 2, 0, False, lambda note: None)
    assert seen[SHARING_VARIABLE] == "2" and seen["OMP_NUM_THREADS"] == "1"
    assert trainings_at_once(seen) == 2
