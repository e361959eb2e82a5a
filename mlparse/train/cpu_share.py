"""How much of the machine's CPU other processes use, and a training's torch threads adapted to it.

A training with 2 OpenMP threads on 2 cores is the fastest there is while nothing else runs, and one of the
slowest as soon as another process wants a core: every parallel region then waits for a thread that the
scheduler took off its core (docs/benchmarks.md, "Threads"). One thread has no such waits. So a training whose
thread count nobody chose watches the machine (:class:`ThreadGovernor`): every few seconds it reads how much
CPU time the machine spent (``/proc/stat``) less what this process spent (``os.times``), and trains on fewer
threads while other processes keep cores busy, on more again once they are gone.

The sample is cheap (two small file reads every ``interval`` seconds) and needs Linux's ``/proc/stat``;
elsewhere :func:`read_machine_busy` returns None and nothing adapts.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Optional

#: Where Linux counts the CPU time of the whole machine.
PROC_STAT = Path("/proc/stat")
#: Seconds between two looks at the machine during training.
SAMPLE_SECONDS = 2.0
#: Share of a core that other processes must keep busy (this much or more) before a thread is given up (:func:`threads_for`).
GIVE_UP_AT = 0.5
#: Consecutive samples that must allow more threads before they are taken back (a burst does not flip them).
SAMPLES_BEFORE_MORE = 2


def read_machine_busy(path: Path = PROC_STAT) -> Optional[float]:
    """Seconds of CPU time the whole machine has been busy since boot (all cores; idle and iowait left out),
    from the first line of ``/proc/stat``; None where that file does not exist or cannot be read."""
    try:
        with open(path, "rb") as handle:
            fields = handle.readline().split()
    except OSError:
        return None
    if len(fields) < 5 or fields[0] != b"cpu":
        return None
    ticks = [int(value) for value in fields[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle, iowait
    guest = sum(ticks[8:10])  # guest time is counted in user time already
    return (sum(ticks) - idle - guest) / _ticks_per_second()


def _ticks_per_second() -> float:
    try:
        return float(os.sysconf("SC_CLK_TCK"))
    except (ValueError, OSError, AttributeError):
        return 100.0


def own_cpu_seconds() -> float:
    """CPU seconds this process has used so far, all its threads (user and system)."""
    times = os.times()
    return times.user + times.system


@dataclass
class CpuSampler:
    """Cores kept busy by other processes between two calls of :meth:`sample` (busy machine time less this
    process's own, over the wall time between the calls)."""

    machine: Callable[[], Optional[float]] = read_machine_busy
    own: Callable[[], float] = own_cpu_seconds
    clock: Callable[[], float] = time.monotonic
    _last: Optional[tuple] = None

    def sample(self) -> Optional[float]:
        """Other processes' busy cores since the previous call (None at the first call or without /proc/stat)."""
        busy = self.machine()
        if busy is None:
            return None
        now = (self.clock(), busy, self.own())
        last, self._last = self._last, now
        if last is None or now[0] - last[0] <= 0:
            return None
        others = (now[1] - last[1]) - (now[2] - last[2])
        return max(0.0, others / (now[0] - last[0]))

    def over(self, seconds: float) -> Optional[float]:
        """Other processes' busy cores over the next ``seconds`` (this call sleeps that long)."""
        self.sample()
        time.sleep(seconds)
        return self.sample()


#: The sampler started when the command line started (:func:`start_watching`); None in a process without one.
_AT_START: Optional[CpuSampler] = None


def start_watching() -> None:
    """Take the first sample now (the CLI does, first thing): the thread choice at a run's start then knows what
    other processes did while this one started, at no extra wait."""
    global _AT_START
    _AT_START = CpuSampler()
    _AT_START.sample()


def others_since_start() -> Optional[float]:
    """Other processes' busy cores since :func:`start_watching` (None if it was not called, or without /proc)."""
    return _AT_START.sample() if _AT_START is not None else None


def threads_for(cores: int, others: float, most: int) -> int:
    """The threads a training gets on ``cores`` cores while other processes keep ``others`` of them busy: the
    cores they leave free, a core counting as taken once :data:`GIVE_UP_AT` of it or more is busy, between 1
    and ``most``.

    On 2 cores: nothing else (others < 0.5) gives 2 threads; another training (others near 1) gives 1."""
    free = cores - others
    return max(1, min(most, int(math.ceil(free - 1.0 + GIVE_UP_AT))))


@dataclass
class ThreadGovernor:
    """Adapts torch's thread count during training to what other processes leave free (:func:`threads_for`).

    ``most``: the threads chosen at the start (never more); ``cores``: the machine's. :meth:`after_update` is
    called after every optimizer update; it looks at the machine once every ``interval`` seconds. Fewer
    threads are taken at once, more only after :data:`SAMPLES_BEFORE_MORE` samples in a row allow them.
    ``seconds_at`` adds up the wall time spent at each thread count (for results.json)."""

    most: int
    cores: int
    interval: float = SAMPLE_SECONDS
    sampler: CpuSampler = field(default_factory=CpuSampler)
    set_threads: Optional[Callable[[int], None]] = None
    clock: Callable[[], float] = time.monotonic
    current: int = 0
    seconds_at: Dict[int, float] = field(default_factory=dict)
    changes: int = 0
    _since: float = 0.0
    _next_look: float = 0.0
    _wanting_more: int = 0

    def __post_init__(self) -> None:
        if self.set_threads is None:
            import torch

            self.set_threads = torch.set_num_threads
        self.current = self.current or self.most
        self._since = self.clock()
        self._next_look = self._since + self.interval
        self.sampler.sample()  # the first interval starts now

    def after_update(self) -> None:
        now = self.clock()
        if now < self._next_look:
            return
        self._next_look = now + self.interval
        others = self.sampler.sample()
        if others is None:
            return
        wanted = threads_for(self.cores, others, self.most)
        if wanted < self.current:
            self._switch(wanted, now)
        elif wanted > self.current:
            self._wanting_more += 1
            if self._wanting_more >= SAMPLES_BEFORE_MORE:
                self._switch(wanted, now)
        else:
            self._wanting_more = 0

    def _switch(self, threads: int, now: float) -> None:
        self._account(now)
        assert self.set_threads is not None
        self.set_threads(threads)
        self.current, self.changes, self._wanting_more = threads, self.changes + 1, 0

    def _account(self, now: float) -> None:
        self.seconds_at[self.current] = self.seconds_at.get(self.current, 0.0) + (now - self._since)
        self._since = now

    def summary(self) -> Dict[str, float]:
        """Wall seconds spent at each thread count so far, keyed by the count as text (JSON-able)."""
        self._account(self.clock())
        return {str(threads): round(seconds, 1) for threads, seconds in sorted(self.seconds_at.items())}
