"""Other processes' CPU use counted over the CPUs this process may use (mlparse/train/cpu_allowance.py and
cpu_share.py): its affinity's per-CPU lines of /proc/stat, and its cgroup's CPU quota (issue 46, "Threads")."""

from __future__ import annotations

import os
from pathlib import Path
from typing import AbstractSet, List

import pytest

from mlparse.train import threads
from mlparse.train.cpu_allowance import CpuAllowance, read_allowance, read_busy, read_machine_busy
from mlparse.train.cpu_share import CpuSampler, threads_for
from mlparse.train.threads import choose_threads

HZ = os.sysconf("SC_CLK_TCK")
EIGHT = frozenset(range(8))


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _Stat:
    """A fake /proc/stat of ``cpus`` CPUs whose busy and idle ticks grow as :meth:`run` says."""

    def __init__(self, path: Path, cpus: int = 64, per_cpu: bool = True) -> None:
        self.path, self.per_cpu = path, per_cpu
        self.busy: List[int] = [1000] * cpus
        self.idle: List[int] = [5000] * cpus
        self.write()

    def run(self, seconds: float, busy: AbstractSet[int]) -> None:
        """``seconds`` pass with the CPUs in ``busy`` fully busy and the others idle."""
        for cpu in range(len(self.busy)):
            if cpu in busy:
                self.busy[cpu] += int(seconds * HZ)
            else:
                self.idle[cpu] += int(seconds * HZ)
        self.write()

    def write(self) -> None:
        def line(name: str, busy: int, idle: int) -> str:  # user nice system idle iowait irq softirq steal guest
            return f"{name} {busy} 0 0 {idle} 0 0 0 0 0 0"

        lines = [line("cpu", sum(self.busy), sum(self.idle))]
        if self.per_cpu:
            lines += [line(f"cpu{n}", b, i) for n, (b, i) in enumerate(zip(self.busy, self.idle))]
        self.path.write_text("\n".join(lines + ["intr 1 2 3", "ctxt 99"]) + "\n")


def _cgroup(tmp_path: Path, cpu_max: str, usage_usec: int = 0) -> tuple:
    """A fake cgroup v2 tree: the process in /job/step, ``cpu.max`` set on /job/step."""
    root = tmp_path / "cgroup"
    step = root / "job" / "step"
    step.mkdir(parents=True)
    (step / "cpu.max").write_text(cpu_max + "\n")
    (step / "cpu.stat").write_text(f"usage_usec {usage_usec}\nuser_usec 0\nsystem_usec 0\n")
    proc_cgroup = tmp_path / "proc_cgroup"
    proc_cgroup.write_text("0::/job/step\n")
    return proc_cgroup, root, step


def test_other_users_on_cpus_outside_the_affinity_take_nothing(tmp_path: Path) -> None:
    """The issue's case: 8 of 64 CPUs allotted, CPUs 8-63 busy with other users' jobs, this training on CPU 0."""
    stat, clock, own = _Stat(tmp_path / "stat"), _Clock(), [10.0]
    sampler = CpuSampler.for_process(CpuAllowance(cpus=EIGHT, stat=stat.path), clock=clock)
    sampler.own = lambda: own[0]
    assert sampler.sample() is None  # the first call starts the interval
    clock.now, own[0] = 2.0, 12.0
    stat.run(2.0, busy={0} | set(range(8, 64)))  # CPU 0: this process's own 2 seconds
    others = sampler.sample()
    assert others == pytest.approx(0.0, abs=0.05)
    assert threads_for(8, others, 8) == 8
    # the machine-wide line it read before counted the 56 busy CPUs as taking this process's cores
    before = CpuSampler(machine=lambda: read_machine_busy(stat.path), own=lambda: own[0], clock=clock)
    before.sample()
    clock.now, own[0] = 4.0, 14.0
    stat.run(2.0, busy={0} | set(range(8, 64)))
    assert before.sample() == pytest.approx(56.0, abs=0.05)
    assert threads_for(8, 56.0, 8) == 1


def test_other_processes_on_the_allowed_cpus_still_take_threads(tmp_path: Path) -> None:
    stat, clock = _Stat(tmp_path / "stat"), _Clock()
    sampler = CpuSampler.for_process(CpuAllowance(cpus=EIGHT, stat=stat.path), clock=clock)
    sampler.own = lambda: 0.0
    sampler.sample()
    clock.now = 2.0
    stat.run(2.0, busy={0, 1, 2, 3} | set(range(40, 64)))  # 4 of the 8 allowed CPUs busy, and some outside
    others = sampler.sample()
    assert others == pytest.approx(4.0, abs=0.05)
    assert threads_for(8, others, 8) == 4


def test_busy_time_sums_the_allowed_cpus_lines(tmp_path: Path) -> None:
    stat = _Stat(tmp_path / "stat", cpus=4)
    stat.busy = [100, 200, 300, 400]
    stat.write()
    assert read_busy(stat.path, frozenset({1, 3})) == pytest.approx(600 / HZ)
    assert read_busy(stat.path) == read_machine_busy(stat.path) == pytest.approx(1000 / HZ)
    assert read_busy(stat.path, frozenset({7})) == pytest.approx(1000 / HZ)  # no line for CPU 7: the whole machine


def test_a_cgroup_quota_caps_the_cores(tmp_path: Path) -> None:
    proc_cgroup, root, _ = _cgroup(tmp_path, "200000 100000")
    allowance = read_allowance(tmp_path / "stat", proc_cgroup, root, affinity=lambda: EIGHT)
    assert (allowance.quota, allowance.cores) == (2.0, 2)
    proc_cgroup, root, step = _cgroup(tmp_path / "none", "max 100000")
    allowance = read_allowance(tmp_path / "stat", proc_cgroup, root, affinity=lambda: EIGHT)
    assert (allowance.quota, allowance.cores) == (None, 8)  # "max": no quota
    (step.parent / "cpu.max").write_text("250000 100000\n")  # the job's quota, above the process's cgroup
    allowance = read_allowance(tmp_path / "stat", proc_cgroup, root, affinity=lambda: EIGHT)
    assert (allowance.quota, allowance.cores, allowance.usage) == (2.5, 3, step.parent / "cpu.stat")


def test_a_cgroup_v1_quota_is_read_from_the_cpu_controller(tmp_path: Path) -> None:
    root = tmp_path / "cgroup"
    job = root / "cpu,cpuacct" / "slurm" / "job_7"
    job.mkdir(parents=True)
    (job / "cpu.cfs_quota_us").write_text("400000\n")
    (job / "cpu.cfs_period_us").write_text("100000\n")
    proc_cgroup = tmp_path / "proc_cgroup"
    proc_cgroup.write_text("5:memory:/slurm/job_7\n3:cpu,cpuacct:/slurm/job_7\n0::/\n")
    (job / "cpuacct.usage").write_text("3000000000\n")  # nanoseconds
    allowance = read_allowance(tmp_path / "stat", proc_cgroup, root, affinity=lambda: EIGHT)
    assert (allowance.cores, allowance.group_seconds()) == (4, 3.0)
    (job / "cpu.cfs_quota_us").write_text("-1\n")  # v1's "no quota"
    assert read_allowance(tmp_path / "stat", proc_cgroup, root, affinity=lambda: EIGHT).cores == 8


def test_other_processes_of_the_cgroup_count_against_its_quota(tmp_path: Path) -> None:
    stat, clock, own = _Stat(tmp_path / "stat"), _Clock(), [0.0]
    proc_cgroup, root, step = _cgroup(tmp_path, "200000 100000", usage_usec=50_000_000)
    allowance = read_allowance(stat.path, proc_cgroup, root, affinity=lambda: EIGHT)
    sampler = CpuSampler.for_process(allowance, clock=clock)
    sampler.own = lambda: own[0]
    sampler.sample()
    # 2 s: this process used 1 CPU (CPU 0), a sibling in the cgroup 1.5 CPUs (CPUs 1, 2): 5 CPU seconds in all
    clock.now, own[0] = 2.0, 2.0
    stat.run(2.0, busy={0, 1, 2})
    (step / "cpu.stat").write_text(f"usage_usec {50_000_000 + 5_000_000}\n")
    others = sampler.sample()
    assert others == pytest.approx(1.5, abs=0.05)  # the quota leaves 0.5 of its 2 cores free
    assert threads_for(allowance.cores, others, 2) == 1
    # the sibling is gone: the quota's 2 cores are free again, whatever runs outside the affinity
    clock.now, own[0] = 4.0, 4.0
    stat.run(2.0, busy={0} | set(range(8, 64)))
    (step / "cpu.stat").write_text(f"usage_usec {55_000_000 + 2_000_000}\n")
    others = sampler.sample()
    assert others == pytest.approx(0.0, abs=0.05)
    assert threads_for(allowance.cores, others, 2) == 2


def test_a_quota_without_a_readable_usage_counts_only_the_busy_cpus(tmp_path: Path) -> None:
    stat, clock = _Stat(tmp_path / "stat"), _Clock()
    proc_cgroup, root, step = _cgroup(tmp_path, "200000 100000")
    (step / "cpu.stat").unlink()
    sampler = CpuSampler.for_process(read_allowance(stat.path, proc_cgroup, root, affinity=lambda: EIGHT),
                                     clock=clock)
    sampler.own = lambda: 0.0
    sampler.sample()
    clock.now = 2.0
    stat.run(2.0, busy=set(range(1, 8)))  # 7 of the 8 CPUs busy: 1 free, fewer than the quota's 2
    assert sampler.sample() == pytest.approx(1.0, abs=0.05)


def test_unreadable_files_fall_back_to_the_whole_machine(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    allowance = read_allowance(tmp_path / "stat", missing, missing, affinity=lambda: None)
    assert allowance == CpuAllowance(stat=tmp_path / "stat") and allowance.cores is None
    assert allowance.busy_seconds() is None and allowance.group_seconds() is None  # no /proc/stat: nothing known
    stat, clock = _Stat(tmp_path / "stat", per_cpu=False), _Clock()  # no per-CPU lines: the aggregate line
    sampler = CpuSampler.for_process(CpuAllowance(cpus=EIGHT, stat=stat.path), clock=clock)
    sampler.own = lambda: 0.0
    sampler.sample()
    clock.now = 2.0
    stat.run(2.0, busy=set(range(8, 64)))
    assert sampler.sample() == pytest.approx(56.0, abs=0.05)  # the old behaviour
    proc_cgroup = tmp_path / "proc_cgroup"
    proc_cgroup.write_text("0::/job\n")  # a cgroup with no cpu.max file
    assert read_allowance(stat.path, proc_cgroup, tmp_path / "cgroup", affinity=lambda: EIGHT).quota is None
    (tmp_path / "cgroup" / "job").mkdir(parents=True)
    (tmp_path / "cgroup" / "job" / "cpu.max").write_text("garbage\n")
    assert read_allowance(stat.path, proc_cgroup, tmp_path / "cgroup", affinity=lambda: EIGHT).quota is None


def test_the_thread_choice_counts_against_the_allowed_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads, "_TORCH_DEFAULT", 64)  # torch's default on a 64-CPU node
    monkeypatch.setattr(threads, "current_allowance", lambda: CpuAllowance(cpus=EIGHT))
    choice = choose_threads(None, sharing=1, others=0.0)
    assert (choice.threads, choice.most, choice.cores) == (8, 8, 8)  # never more threads than allowed CPUs
    assert "the CPUs this process may use (8)" in choice.reason
    assert choose_threads(None, sharing=1, others=4.0).threads == 4
    monkeypatch.setattr(threads, "_TORCH_DEFAULT", 2)  # fewer threads than allowed CPUs: others count against 8
    assert choose_threads(None, sharing=1, others=5.0).threads == 2
    assert choose_threads(None, sharing=1, others=7.0).threads == 1
    monkeypatch.setattr(threads, "current_allowance", lambda: CpuAllowance())  # nothing known: torch's default
    assert choose_threads(None, sharing=1, others=None).cores == 2
