"""How many CPU threads torch uses for a run, why, and how its OpenMP threads wait.

torch's CPU kernels run on an OpenMP thread pool. By default a GNU OpenMP thread that runs out of work
spins for a while before it sleeps, so as soon as another process wants the same cores (a second training,
a test suite, a sweep member) the spinning threads and the other process take turns and every parallel
region waits for a descheduled thread: on the 2-core project machine a demo update with 2 threads took
over 8 s beside other work against 0.3 s with ``OMP_WAIT_POLICY=PASSIVE`` (threads sleep as soon as they
are idle; docs/benchmarks.md has the side-by-side figures). The policy is read once, when torch's OpenMP
library loads, so :func:`prefer_passive_waiting` must run before torch is imported: the CLI calls it first
thing. A policy the user set is kept.

:func:`choose_threads` picks the thread count of one training: ``train.num_threads`` when set, else torch's
own default (the physical cores it found, or ``OMP_NUM_THREADS``), shared evenly among the trainings one
``mlparse`` command runs at once. Measured on the quiet 2-core machine (benchmarks/thread_scaling.py,
docs/benchmarks.md "Threads"): a second thread made demo-dep 1.34x and the tagger 1.20x faster alone, but
nothing (0.99-1.15x) beside a second training, so trainings side by side get one thread each.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

#: The environment variable OpenMP reads for how idle threads wait.
WAIT_POLICY = "OMP_WAIT_POLICY"
#: Set by mlparse for the processes it starts: how many trainings share this machine's cores at once.
SHARING_VARIABLE = "MLPARSE_TRAININGS_AT_ONCE"


def prefer_passive_waiting() -> None:
    """Idle OpenMP threads sleep instead of spinning (``OMP_WAIT_POLICY=PASSIVE``), unless the variable is set.
    Call before torch is imported; later it changes nothing in this process (its children still get it)."""
    os.environ.setdefault(WAIT_POLICY, "PASSIVE")


_TORCH_DEFAULT: Optional[int] = None


def torch_default_threads() -> int:
    """The threads torch chose for itself in this process (read once, before mlparse sets any)."""
    global _TORCH_DEFAULT
    if _TORCH_DEFAULT is None:
        import torch

        _TORCH_DEFAULT = torch.get_num_threads()
    return _TORCH_DEFAULT


@dataclass(frozen=True)
class ThreadChoice:
    """``threads`` for torch, and ``reason``: one line saying where the number comes from."""

    threads: int
    reason: str


def trainings_at_once() -> int:
    """How many trainings the ``mlparse`` command that started this process runs at once (1 if it said nothing)."""
    try:
        return max(1, int(os.environ.get(SHARING_VARIABLE, "1")))
    except ValueError:
        return 1


def choose_threads(requested: Optional[int], sharing: Optional[int] = None, cores: Optional[int] = None) -> ThreadChoice:
    """``requested`` (``train.num_threads``) when set; else ``cores // sharing`` (at least 1), ``cores`` being
    torch's default thread count and ``sharing`` the trainings at once (:func:`trainings_at_once`)."""
    if requested:
        return ThreadChoice(requested, "train.num_threads")
    cores = torch_default_threads() if cores is None else cores
    sharing = trainings_at_once() if sharing is None else max(1, sharing)
    threads = max(1, cores // sharing)
    if sharing == 1:
        return ThreadChoice(threads, f"torch's default for this machine; set train.num_threads to change")
    return ThreadChoice(threads, f"torch's default of {cores} shared by {sharing} trainings at once; "
                                 "set train.num_threads to change")


def wait_policy() -> str:
    """How idle OpenMP threads wait in this process, for the run's first lines."""
    value = os.environ.get(WAIT_POLICY)
    if value is None:
        return "OpenMP's default wait policy (threads spin while idle)"
    return f"{WAIT_POLICY}={value}"
