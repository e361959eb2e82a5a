"""What a caller asks of one run (:class:`RunOptions`: where runs go, its time bound, fresh or resumed, ...), apart
from its recipe; :mod:`mlparse.train.runner` re-exports it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional


@dataclass
class RunOptions:
    runs_dir: Path = Path("runs")
    max_minutes: Optional[float] = None
    fresh: bool = False
    trust_checkpoint: bool = False  # read checkpoints that need full unpickling (after a warning)
    warn: Optional[Callable[[str], None]] = None  # where that warning goes (default: warnings.warn)
    profile: int = 0  # --profile N: a torch profiler summary of N updates in <run dir>/profile.txt (0: none)
    started: Optional[float] = None  # time.monotonic() when the command started (a jack-knifing run's budget
    # counts from there; None: from when the runner starts)
    until_converged: bool = False  # --until-converged: no time bound, the recipe's patience stops it (train/convergence.py)
    wait_for_lock: Optional[str] = None  # what this run is, in words, when it waits for another process that holds
    # its run (a tagger that parsers on the same data share); None: it is refused at once


#: Dev sentences parsed, untimed, before results.json's parse speed is measured over dev and test.
WARMUP_SENTENCES = 64
