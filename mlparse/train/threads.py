"""How many CPU threads torch uses for a run, why, and how its idle OpenMP threads wait.

torch's CPU kernels run on GNU OpenMP's thread pool. Between two parallel regions an idle pool thread spins
for ``GOMP_SPINCOUNT`` rounds, then sleeps; a region that finds it asleep pays a wake-up. ``OMP_WAIT_POLICY``
sets the rounds: 0 for ``PASSIVE``, 300,000 when the variable is unset (OpenMP's default), 30 billion for
``ACTIVE``. What that costs depends on the situation, measured side by side on the quiet 2-core machine
(``benchmarks/thread_scaling.py``; docs/benchmarks.md "Threads"):

- **One training alone, 2 threads.** Spinning pays: ``PASSIVE`` made the demo, demo-dep and the tagger 1.4-2.4x
  slower than spinning, since they are made of small operations and each paid a wake-up. So mlparse leaves
  OpenMP's default spin (:data:`DEFAULT_SPIN`, :func:`choose_waiting`) and trains on torch's thread count.
- **Beside other work** (a second training, a test suite): a spinning thread and the other process take turns
  on the cores and every region waits for a thread that is off its core (an 8-second update was seen). One
  thread has no region to wait for, whatever the policy. So a training whose thread count nobody chose looks
  at the CPUs it may use (its affinity and cgroup quota, :func:`allowed_cores`) at its start and every few
  seconds while it trains (:class:`mlparse.train.cpu_share.ThreadGovernor`), and trains on the cores other
  processes leave free: one thread beside another training on 2 cores, two again once it is gone.
- **Trainings side by side inside one command** (fold taggers): each gets its share of the cores
  (:data:`SHARING_VARIABLE`, set by the command for the processes it starts), 1 thread each on 2 cores.

The wait policy is read once, when torch's OpenMP library loads, so :func:`apply_waiting` must run before torch
is imported: the CLI calls it first thing. A user's ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` is kept, and so is
``train.num_threads`` (which also turns the adapting off); the run's first lines say what was chosen and why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, Mapping, MutableMapping, Optional

from mlparse.train.cpu_allowance import current_allowance
from mlparse.train.cpu_share import threads_for

#: The environment variable OpenMP reads for how idle threads wait.
WAIT_POLICY = "OMP_WAIT_POLICY"
#: GNU OpenMP's variable for the busy-wait rounds of an idle thread before it sleeps.
SPIN_COUNT = "GOMP_SPINCOUNT"
#: Set by mlparse for the processes it starts side by side: how many trainings share this machine's cores.
SHARING_VARIABLE = "MLPARSE_TRAININGS_AT_ONCE"
#: The spin rounds mlparse sets when the user set neither variable; None leaves OpenMP's own default (300,000
#: rounds, a few milliseconds). Chosen by benchmarks/thread_scaling.py (docs/benchmarks.md, "Threads").
DEFAULT_SPIN: Optional[str] = None
#: What OpenMP does when neither variable is set, for the log.
OPENMP_DEFAULT = "OpenMP's default wait (idle threads spin 300,000 rounds, then sleep)"


@dataclass(frozen=True)
class WaitChoice:
    """``variables``: what mlparse sets in the environment (empty: nothing); ``reason``: one line for the log."""

    variables: Dict[str, str]
    reason: str


def choose_waiting(environ: Mapping[str, str]) -> WaitChoice:
    """The wait policy of a command started with ``environ``: the user's when they set ``OMP_WAIT_POLICY`` or
    ``GOMP_SPINCOUNT``, else :data:`DEFAULT_SPIN` (nothing set while it is None)."""
    chosen = {name: environ[name] for name in (WAIT_POLICY, SPIN_COUNT) if name in environ}
    if chosen:
        return WaitChoice({}, " ".join(f"{k}={v}" for k, v in chosen.items()) + " (set by the user)")
    if DEFAULT_SPIN is None:
        return WaitChoice({}, OPENMP_DEFAULT)
    return WaitChoice({SPIN_COUNT: DEFAULT_SPIN}, f"{SPIN_COUNT}={DEFAULT_SPIN} (mlparse's default)")


def apply_waiting(environ: Optional[MutableMapping[str, str]] = None) -> WaitChoice:
    """Set the chosen wait policy in ``environ`` (the process's by default). Call before torch is imported:
    later it changes nothing in this process (its children still get it)."""
    environ = os.environ if environ is None else environ
    choice = choose_waiting(environ)
    environ.update(choice.variables)
    return choice


def wait_policy() -> str:
    """How idle OpenMP threads wait in this process, for the run's first lines."""
    chosen = {name: os.environ[name] for name in (WAIT_POLICY, SPIN_COUNT) if name in os.environ}
    if not chosen:
        return OPENMP_DEFAULT
    told = " ".join(f"{k}={v}" for k, v in chosen.items())
    if DEFAULT_SPIN is not None and chosen == {SPIN_COUNT: DEFAULT_SPIN}:
        return f"{told} (mlparse's default)"
    return f"{told} (from the environment: yours wins)"


_TORCH_DEFAULT: Optional[int] = None


def torch_default_threads() -> int:
    """The threads torch chose for itself in this process (read once, before mlparse sets any)."""
    global _TORCH_DEFAULT
    if _TORCH_DEFAULT is None:
        import torch

        _TORCH_DEFAULT = torch.get_num_threads()
    return _TORCH_DEFAULT


def allowed_cores() -> int:
    """The cores a training counts on: the CPUs this process may use (affinity, cgroup quota:
    :attr:`mlparse.train.cpu_allowance.CpuAllowance.cores`), torch's default where neither is known. The
    samplers' "others" are counted against these."""
    return current_allowance().cores or torch_default_threads()


@dataclass(frozen=True)
class ThreadChoice:
    """``threads`` for torch at the start; ``most``: the most it may adapt up to while training (0: it does not
    adapt, the count was chosen by the user or the command); ``reason``: one line saying why; ``cores``: the
    cores other processes' use was counted against (:func:`allowed_cores`; 0 for a fixed count), which is what
    the :class:`~mlparse.train.cpu_share.ThreadGovernor` is given."""

    threads: int
    reason: str
    most: int = 0
    cores: int = 0

    @property
    def adapts(self) -> bool:
        return self.most > 0


def trainings_at_once(environ: Optional[Mapping[str, str]] = None) -> int:
    """How many trainings the ``mlparse`` command that started this process runs at once (1 if it said nothing)."""
    environ = os.environ if environ is None else environ
    try:
        return max(1, int(environ.get(SHARING_VARIABLE, "1")))
    except ValueError:
        return 1


def choose_threads(requested: Optional[int], sharing: Optional[int] = None, cores: Optional[int] = None,
                   others: Optional[float] = None) -> ThreadChoice:
    """``requested`` (``train.num_threads``) when set, fixed. Else the default count divided by ``sharing``
    (at least 1), where ``sharing`` is the number of trainings at once (:func:`trainings_at_once`). The default
    count is ``cores`` when given. Otherwise it is torch's default thread count, capped at the cores this
    process may use (:func:`allowed_cores`), and ``cores`` is those allowed cores. A training alone (``sharing``
    1) also leaves the cores that other processes keep busy (``others`` of ``cores``, measured at the start;
    None: not measured), and it adapts while it trains."""
    if requested:
        return ThreadChoice(requested, "train.num_threads")
    what = "torch's default"
    if cores is None:
        cores = allowed_cores()
        default = min(cores, torch_default_threads())
        if default < torch_default_threads():
            what = "the CPUs this process may use"
    else:
        default = cores
    sharing = trainings_at_once() if sharing is None else max(1, sharing)
    share = max(1, default // sharing)
    if sharing > 1:
        return ThreadChoice(share, f"{what} ({default}) shared by {sharing} trainings at once; "
                                   "set train.num_threads to change", cores=cores)
    threads = share if others is None else threads_for(cores, others, share)
    if threads < share:
        reason = (f"other processes kept {others:.1f} of {cores} cores busy at the start; up to {share} as they "
                  "free them; set train.num_threads to fix")
    else:
        reason = (f"{what} ({default}), fewer while other processes keep cores busy; "
                  "set train.num_threads to fix")
    return ThreadChoice(threads, reason, most=share if share > 1 else 0, cores=cores)
