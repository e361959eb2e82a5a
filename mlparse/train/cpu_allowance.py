"""The CPUs this process may use, and the busy time of just those CPUs.

Two things limit a process's CPUs on a shared machine. The first is its affinity (``os.sched_getaffinity``).
Slurm, ``taskset`` and container runtimes set it, for example 8 of a node's 64 CPUs. The second is its cgroup's
CPU quota: cgroup v2 ``cpu.max`` (``"400000 100000"`` is 4 CPUs, ``"max 100000"`` is no quota) or cgroup v1
``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``. The quota is read in the process's cgroup and in each cgroup above
it, and the smallest one counts. The cores a training may count on are the fewer of the two: the number of
CPUs in its affinity, and the quota rounded up (:attr:`CpuAllowance.cores`).

Busy time is read from the per-CPU lines ``cpuN`` of ``/proc/stat``, for just the CPUs in the affinity
(:func:`read_busy`). Other users' work on CPUs this process may not use does not count. Where the per-CPU lines
or the affinity are not available, the machine-wide first line ``cpu`` is read instead. The CPU time that the
processes of the quota's cgroup have used is read from its ``cpu.stat`` (``usage_usec``; v1: ``cpuacct.usage``
in the same directory) (:meth:`CpuAllowance.group_seconds`).

Every path is a parameter, so tests can hand in fake files. Reading a file that is missing or that cannot be
parsed gives None: that limit is then unknown, and nothing is capped by it.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import AbstractSet, Callable, FrozenSet, Iterator, List, Optional, Tuple

#: Where Linux counts the CPU time of the whole machine and of each CPU.
PROC_STAT = Path("/proc/stat")
#: Where Linux says which cgroups this process belongs to.
PROC_CGROUP = Path("/proc/self/cgroup")
#: Where the cgroup file systems are mounted.
CGROUP_ROOT = Path("/sys/fs/cgroup")


def _ticks_per_second() -> float:
    try:
        return float(os.sysconf("SC_CLK_TCK"))
    except (ValueError, OSError, AttributeError):
        return 100.0


def _busy_ticks(fields: List[bytes]) -> Optional[int]:
    """Busy ticks of one ``cpu``/``cpuN`` line of /proc/stat: all but idle and iowait, guest time left out since
    it is counted in user time already; None for a line that is not one."""
    try:
        ticks = [int(value) for value in fields[1:]]
    except ValueError:
        return None
    if len(ticks) < 4:
        return None
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle, iowait
    return sum(ticks) - idle - sum(ticks[8:10])  # guest, guest_nice


def read_busy(path: Path = PROC_STAT, cpus: Optional[AbstractSet[int]] = None) -> Optional[float]:
    """Seconds of CPU time that ``cpus`` have been busy since boot, summed over their ``cpuN`` lines in ``path``.
    When ``cpus`` is None or none of them has a line, this is the whole machine's busy time from the first line
    ``cpu``. None when the file cannot be read or has no such line."""
    whole: Optional[int] = None
    ours: Optional[int] = None
    try:
        with open(path, "rb") as handle:
            for line in handle:
                if not line.startswith(b"cpu"):
                    break  # the cpu lines come first
                fields = line.split()
                busy = _busy_ticks(fields)
                if busy is None:
                    continue
                if fields[0] == b"cpu":
                    whole = busy
                elif cpus is not None and fields[0][3:].isdigit() and int(fields[0][3:]) in cpus:
                    ours = (ours or 0) + busy
    except OSError:
        return None
    ticks = ours if ours is not None else whole
    return None if ticks is None else ticks / _ticks_per_second()


def read_machine_busy(path: Path = PROC_STAT) -> Optional[float]:
    """Seconds the whole machine has been busy since boot (all cores; idle and iowait left out), from the first
    line of ``/proc/stat``. None when the file does not exist or cannot be read."""
    return read_busy(path)


def process_affinity() -> Optional[FrozenSet[int]]:
    """The CPUs this process may run on. None where the system cannot say (no ``os.sched_getaffinity``)."""
    getaffinity = getattr(os, "sched_getaffinity", None)
    if getaffinity is None:
        return None
    try:
        return frozenset(getaffinity(0))
    except OSError:
        return None


def _read_text(path: Path) -> Optional[str]:
    try:
        return path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None


def _cgroup_dirs(proc_cgroup: Path, root: Path) -> Iterator[Path]:
    """The directories that may hold this process's CPU quota: the v2 cgroup's own directory or the v1 ``cpu``
    controller's, then each directory above it up to the mount. The innermost comes first."""
    text = _read_text(proc_cgroup)
    for line in (text or "").splitlines():
        parts = line.strip().split(":", 2)  # "0::/path" (v2) or "4:cpu,cpuacct:/path" (v1)
        if len(parts) != 3:
            continue
        controllers, path = parts[1], PurePosixPath(parts[2])
        if controllers == "":
            mounts = [root]
        elif "cpu" in controllers.split(","):
            mounts = [root / "cpu", root / controllers]
        else:
            continue
        names = [name for name in path.parts if name != "/"]
        if ".." in names:  # a cgroup outside this namespace's view: nothing to read
            continue
        for mount in mounts:
            for depth in range(len(names), -1, -1):
                yield mount.joinpath(*names[:depth])


def _quota_in(folder: Path) -> Optional[Tuple[float, Path]]:
    """The CPU quota set in one cgroup directory, in CPUs, and the file that counts its processes' CPU time
    (v2 ``cpu.stat``, v1 ``cpuacct.usage``). None when the directory sets no quota."""
    text = _read_text(folder / "cpu.max")
    if text is not None:  # v2: "max 100000" or "400000 100000"
        fields = text.split()
        if len(fields) == 2 and fields[0] != "max":
            try:
                quota, period = float(fields[0]), float(fields[1])
            except ValueError:
                return None
            return (quota / period, folder / "cpu.stat") if quota > 0 and period > 0 else None
        return None
    quota_text, period_text = _read_text(folder / "cpu.cfs_quota_us"), _read_text(folder / "cpu.cfs_period_us")
    if quota_text is None or period_text is None:
        return None
    try:
        quota, period = float(quota_text), float(period_text)
    except ValueError:
        return None
    return (quota / period, folder / "cpuacct.usage") if quota > 0 and period > 0 else None  # v1: -1 is none


def read_quota(proc_cgroup: Path = PROC_CGROUP, root: Path = CGROUP_ROOT) -> Optional[Tuple[float, Path]]:
    """The smallest CPU quota of this process's cgroup and the cgroups above it, in CPUs, with the file that
    counts the CPU time of the processes under that quota. None when no quota is set or none can be read."""
    found = [quota for quota in map(_quota_in, _cgroup_dirs(proc_cgroup, root)) if quota is not None]
    return min(found, key=lambda quota: quota[0]) if found else None


def read_group_seconds(usage: Path) -> Optional[float]:
    """CPU seconds used by a cgroup's processes: ``usage_usec`` of a v2 ``cpu.stat``, or a v1 ``cpuacct.usage``
    (nanoseconds). None when the file cannot be read."""
    text = _read_text(usage)
    if text is None:
        return None
    try:
        if usage.name == "cpuacct.usage":
            return int(text.strip()) / 1e9
        for line in text.splitlines():
            fields = line.split()
            if len(fields) == 2 and fields[0] == "usage_usec":
                return int(fields[1]) / 1e6
    except ValueError:
        return None
    return None


def cores_allowed(cpus: Optional[int], quota: Optional[float]) -> Optional[int]:
    """The cores a training may count on: the fewer of ``cpus`` (the affinity's size) and ``quota`` rounded up,
    at least 1. None when neither is known."""
    limits = [count for count in (cpus, math.ceil(quota) if quota is not None else None) if count is not None]
    return max(1, min(limits)) if limits else None


@dataclass(frozen=True)
class CpuAllowance:
    """The CPUs a process may use. ``cpus`` is its affinity (None: not known). ``quota`` is its cgroup's CPU
    quota in CPUs (None: no quota). ``usage`` is the file that counts the CPU time of the processes under that
    quota (:func:`read_group_seconds`). ``stat`` is the ``/proc/stat`` to read busy time from."""

    cpus: Optional[FrozenSet[int]] = None
    quota: Optional[float] = None
    usage: Optional[Path] = None
    stat: Path = PROC_STAT

    @property
    def cores(self) -> Optional[int]:
        """The cores a training may count on (:func:`cores_allowed`). None when neither limit is known."""
        return cores_allowed(len(self.cpus) if self.cpus else None, self.quota)

    def busy_seconds(self) -> Optional[float]:
        """Busy seconds since boot of the CPUs in ``cpus``, or of the whole machine (:func:`read_busy`)."""
        return read_busy(self.stat, self.cpus)

    def group_seconds(self) -> Optional[float]:
        """CPU seconds used so far by the processes under the quota. None without a quota or a readable file."""
        return read_group_seconds(self.usage) if self.usage is not None else None


def read_allowance(stat: Path = PROC_STAT, proc_cgroup: Path = PROC_CGROUP, cgroup_root: Path = CGROUP_ROOT,
                   affinity: Callable[[], Optional[FrozenSet[int]]] = process_affinity) -> CpuAllowance:
    """What this process may use: its ``affinity()`` and the quota of its cgroup (:func:`read_quota`)."""
    quota = read_quota(proc_cgroup, cgroup_root)
    return CpuAllowance(cpus=affinity(), quota=quota[0] if quota else None, usage=quota[1] if quota else None,
                        stat=stat)


_CURRENT: Optional[CpuAllowance] = None


def current_allowance() -> CpuAllowance:
    """This process's :class:`CpuAllowance`, read once. The thread count chosen at the start and the later samples
    then count against the same cores."""
    global _CURRENT
    if _CURRENT is None:
        _CURRENT = read_allowance()
    return _CURRENT

