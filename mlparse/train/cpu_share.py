"""How much of this process's CPUs other processes use, and a training's torch threads adapted to it.

A training with 2 OpenMP threads on 2 cores is the fastest there is while nothing else runs, and one of the
slowest as soon as another process wants a core: every parallel region then waits for a thread that the
scheduler took off its core (docs/benchmarks.md, "Threads"). One thread has no such waits. So a training whose
thread count nobody chose watches its CPUs (:class:`ThreadGovernor`), trains on fewer threads while other
processes keep them busy, and on more again once they are gone.

What is measured, every few seconds (:class:`CpuSampler`): the busy time of the CPUs this process may use (the
per-CPU lines of ``/proc/stat`` for its affinity, :mod:`mlparse.train.cpu_allowance`) less this process's own
(``os.times``). Other users' jobs on CPUs outside the affinity do not count, so 8 CPUs of a shared 64-CPU node
stay 8. Under a cgroup CPU quota, the cores counted are at most the quota rounded up. The CPU time of other
processes in the same cgroup (its ``cpu.stat`` less this process's own) counts against the quota, and the
training gets the fewer free cores of the two limits. "Others" is reported against those allowed cores, which is
the ``cores`` that :func:`threads_for` is given. Where the per-CPU lines or the affinity cannot be read, the
machine-wide line is used, as before.

The sample is cheap: a few small file reads every ``interval`` seconds. It needs Linux's ``/proc/stat``;
elsewhere the sampler returns None and nothing adapts.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional

from mlparse.train.cpu_allowance import CpuAllowance, cores_allowed, current_allowance, read_machine_busy

#: Seconds between two looks at the machine during training.
SAMPLE_SECONDS = 2.0
#: Share of a core that other processes must keep busy (this much or more) before a thread is given up (:func:`threads_for`).
GIVE_UP_AT = 0.5
#: Consecutive samples that must allow more threads before they are taken back (a burst does not flip them).
SAMPLES_BEFORE_MORE = 2


def own_cpu_seconds() -> float:
    """CPU seconds this process has used so far, all its threads (user and system)."""
    times = os.times()
    return times.user + times.system


def _unknown() -> Optional[float]:
    return None


@dataclass
class CpuSampler:
    """Cores kept busy by other processes between two calls of :meth:`sample`, counted against the cores this
    process may use.

    ``machine`` gives the busy seconds of the CPUs counted. By default that is the whole machine;
    :meth:`for_process` uses the CPUs of the affinity. ``group`` gives the CPU seconds of the processes under the
    cgroup's quota (None: not known). ``cpus`` is how many CPUs ``machine`` counts (None: not known). ``quota``
    is the cgroup's quota in CPUs (None: none). Without a quota, the result is the busy time less this process's
    own, over the wall time between the calls. With a quota, it is the allowed cores
    (:func:`~mlparse.train.cpu_allowance.cores_allowed`) less the fewer free cores of the two limits: the CPUs
    less that busy time, and the quota less the time of the cgroup's other processes."""

    machine: Callable[[], Optional[float]] = read_machine_busy
    own: Callable[[], float] = own_cpu_seconds
    clock: Callable[[], float] = time.monotonic
    group: Callable[[], Optional[float]] = _unknown
    cpus: Optional[int] = None
    quota: Optional[float] = None
    _last: Optional[tuple] = None

    @classmethod
    def for_process(cls, allowance: Optional[CpuAllowance] = None,
                    clock: Callable[[], float] = time.monotonic) -> "CpuSampler":
        """A sampler over the CPUs and the quota of ``allowance`` (this process's by default)."""
        allowance = current_allowance() if allowance is None else allowance
        return cls(machine=allowance.busy_seconds, group=allowance.group_seconds, clock=clock,
                   cpus=len(allowance.cpus) if allowance.cpus else None, quota=allowance.quota)

    def sample(self) -> Optional[float]:
        """Other processes' busy cores since the previous call (None at the first call or without /proc/stat)."""
        busy = self.machine()
        if busy is None:
            return None
        now = (self.clock(), busy, self.own(), self.group())
        last, self._last = self._last, now
        if last is None or now[0] - last[0] <= 0:
            return None
        seconds, own = now[0] - last[0], now[2] - last[2]
        others = max(0.0, (now[1] - last[1] - own) / seconds)
        if self.quota is None:
            return others
        cores = cores_allowed(self.cpus, self.quota)
        assert cores is not None
        in_group = 0.0 if now[3] is None or last[3] is None else max(0.0, (now[3] - last[3] - own) / seconds)
        free = min((self.cpus if self.cpus is not None else cores) - others, self.quota - in_group)
        return max(0.0, cores - free)

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
    _AT_START = CpuSampler.for_process()
    _AT_START.sample()


def others_since_start() -> Optional[float]:
    """Other processes' busy cores since :func:`start_watching`, against the allowed cores
    (:meth:`CpuSampler.for_process`). None if it was not called, or without /proc."""
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

    ``most``: the threads chosen at the start (never more); ``cores``: the cores the sampler's "others" are
    counted against (:attr:`mlparse.train.threads.ThreadChoice.cores`, the process's allowed cores).
    :meth:`after_update` is called after every optimizer update; it samples once every ``interval`` seconds. Fewer
    threads are taken at once, more only after :data:`SAMPLES_BEFORE_MORE` samples in a row allow them.
    ``seconds_at`` adds up the wall time spent at each thread count (for results.json)."""

    most: int
    cores: int
    interval: float = SAMPLE_SECONDS
    sampler: CpuSampler = field(default_factory=CpuSampler.for_process)
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
        return {str(threads): round(seconds, 3) for threads, seconds in sorted(self.seconds_at.items())}
