"""Where a run trains and as what: its run directory, its lock, this process's rank and its device, resolved once.

``mlparse run`` builds one :class:`RunPlan` (:meth:`RunPlan.for_recipe`) right after reading the recipe and
hands it to the runner (:func:`mlparse.train.runner.run_planned`); :func:`mlparse.train.runner.run_recipe`
builds one only when Python calls it without.  Nothing else works these out again:

- the run directory ``RUNS/<recipe name>/<run id>/`` (:meth:`mlparse.run_dir.RunDir.for_recipe`), or any
  folder a caller names;
- this process among the run's processes (:class:`DistInfo`): torchrun's ``RANK``, ``WORLD_SIZE`` and
  ``LOCAL_RANK``, one process without them;
- the lock ``RUN_DIR/run.lock`` (:class:`mlparse.run_lock.RunLock`): process 0 takes it for the whole
  run, the other ranks have none;
- the device: ``train.device`` on this process's local rank (:func:`pick_device`), resolved at its first
  use, so that building a plan loads no torch (``mlparse run`` looks at the lock before torch loads).

This module imports no torch at module level.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Optional

from mlparse.config import RecipeConfig
from mlparse.run_dir import RunDir
from mlparse.run_lock import RunLock, check_free, wait_until_free

if TYPE_CHECKING:
    import torch


class RunError(RuntimeError):
    """A user-facing failure of ``mlparse run`` (bad data, missing treebank, ...)."""


@dataclass(frozen=True)
class DistInfo:
    """This process among the processes of one run (DistributedDataParallel under torchrun)."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0  # this process's GPU on its machine (cuda:<local_rank>)
    launched: bool = False  # started by torchrun (LOCAL_RANK set), not the command that starts the processes

    @classmethod
    def from_environment(cls, environ: Optional[Mapping[str, str]] = None) -> "DistInfo":
        """The process as torchrun describes it in the environment; one process of one without it."""
        env = os.environ if environ is None else environ
        return cls(rank=int(env.get("RANK", "0")), world=int(env.get("WORLD_SIZE", "1")),
                   local_rank=int(env.get("LOCAL_RANK", "0")), launched="LOCAL_RANK" in env)

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def active(self) -> bool:
        return self.world > 1


def pick_device(config: RecipeConfig, local_rank: int = 0) -> "torch.device":
    """The device ``train.device`` names for the process of ``local_rank``: ``cuda`` (:class:`RunError` when no
    CUDA device is available), ``cpu``, or ``auto`` (CUDA when available, else the CPU)."""
    import torch

    choice = config.train.device
    if choice == "cuda" or (choice == "auto" and torch.cuda.is_available()):
        if not torch.cuda.is_available():
            raise RunError("train.device is 'cuda' but no CUDA device is available")
        return torch.device("cuda", local_rank)
    return torch.device("cpu")


@dataclass
class RunPlan:
    """One run of one recipe in this process: the recipe, its run directory, the process, its lock and device.

    ``lock`` follows from the others: the run directory's :class:`~mlparse.run_lock.RunLock` on process 0,
    None on the other ranks.  ``device`` is the one given, else :func:`pick_device`'s at first use (then kept).
    """

    config: RecipeConfig
    run_dir: RunDir
    dist: DistInfo = field(default_factory=DistInfo)
    given_device: Optional["torch.device"] = None  # None: train.device, resolved when first asked for
    lock: Optional[RunLock] = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.lock = RunLock(self.run_dir.path) if self.dist.is_main else None

    @classmethod
    def for_recipe(cls, config: RecipeConfig, runs_dir: Path, dist: Optional[DistInfo] = None,
                   device: Optional["torch.device"] = None) -> "RunPlan":
        """The plan of ``config`` under ``runs_dir`` (``RUNS/<name>/<run id>/``), for the process the environment
        describes unless ``dist`` is given."""
        return cls(config, RunDir.for_recipe(runs_dir, config),
                   dist if dist is not None else DistInfo.from_environment(), device)

    @property
    def device(self) -> "torch.device":
        """The device this process trains and parses on (resolved once)."""
        if self.given_device is None:
            self.given_device = pick_device(self.config, self.dist.local_rank)
        return self.given_device

    def check_free(self) -> None:
        """Raise :class:`~mlparse.run_lock.RunLocked` when a live process holds the run's lock; changes
        nothing (a quick first look; the runner takes the lock).  Ranks other than 0 take no lock: nothing to check."""
        if self.lock is not None:
            check_free(self.run_dir.path)

    def wait_until_free(self, what: str, note: Callable[[str], None]) -> None:
        """Return once no live process holds the run's lock; ``note`` says once that this waits for ``what``."""
        wait_until_free(self.run_dir.path, what, note)
